"""``teachgrad.backends``: PyTorch's switches for GPU libraries, kept so that setup code runs.

Reproducibility recipes and device pickers touch these before any lesson starts::

    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = True
    device = "mps" if torch.backends.mps.is_available() else "cpu"

teachgrad has no GPU, so the libraries are never available and the switches change nothing:
NumPy on the CPU is already deterministic.
"""

from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
