"""``torch.version``: which build this is, as tutorials print it.

>>> import teachgrad as torch
>>> torch.version.cuda is None   # no CUDA: as PyTorch's CPU build says
True

teachgrad computes with NumPy on the CPU, so every accelerator's version is ``None``, as
in PyTorch built for the CPU only. ``__version__`` is teachgrad's own version (the same as
``teachgrad.__version__``), not a PyTorch version.
"""

from __future__ import annotations

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

# teachgrad/__init__.py's (tests/test_torch_functions_sweep9.py keeps them equal)
__version__ = "0.1.0"
#: whether this is a debug build: no
debug = False
#: the CUDA, HIP, ROCm and XPU toolkits this build was made with: none
cuda: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
#: the commit PyTorch was built from; teachgrad is not built, so PyTorch's word for an
#: unknown commit
git_version = "Unknown"
