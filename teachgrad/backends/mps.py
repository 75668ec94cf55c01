"""``teachgrad.backends.mps``: Apple's Metal GPUs are not used here.

>>> import teachgrad as torch
>>> "mps" if torch.backends.mps.is_available() else "cpu"
'cpu'
"""

from __future__ import annotations


def is_available() -> bool:
    """False: teachgrad computes with NumPy on the CPU."""
    return False


def is_built() -> bool:
    """False: teachgrad has no Metal backend."""
    return False
