"""``teachgrad.backends.cudnn``: NVIDIA's cuDNN is not here; its switches are only remembered.

>>> import teachgrad as torch
>>> torch.backends.cudnn.deterministic = True  # as in reproducibility recipes
>>> torch.backends.cudnn.is_available()
False
"""

from __future__ import annotations

# PyTorch's defaults. Setting them is allowed and has no effect: there is no GPU.
enabled = True
deterministic = False
benchmark = False
allow_tf32 = True


def is_available() -> bool:
    """False: teachgrad computes with NumPy on the CPU."""
    return False


def version() -> None:
    """None: no cuDNN library is loaded."""
    return None
