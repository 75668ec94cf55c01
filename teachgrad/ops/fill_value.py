"""A Python number about to be written into an integer tensor, checked as PyTorch checks it.

``torch.tensor([1, 2]).fill_(float("inf"))`` raises "value cannot be converted to type
int64_t without overflow"; NumPy's cast would write -9223372036854775808 (and warn), and
``int(inf)`` raises Python's OverflowError. ``fill_`` and ``masked_fill`` call this.
"""

from __future__ import annotations

import math

import numpy as np


def check_fill_value(value, dtype: np.dtype) -> None:
    """Refuse a float ``value`` that an integer ``dtype`` cannot hold (inf, nan, too large).

    >>> check_fill_value(2.5, np.dtype(np.int64))  # truncated to 2, as in PyTorch
    >>> check_fill_value(float("inf"), np.dtype(np.int64))
    Traceback (most recent call last):
    ...
    RuntimeError: value cannot be converted to type int64_t without overflow
    """
    if dtype.kind not in "iu" or not isinstance(value, (float, np.floating)):
        return
    info = np.iinfo(dtype)
    if not math.isfinite(value) or not info.min <= value <= info.max:
        raise RuntimeError(f"value cannot be converted to type {dtype.name}_t without overflow")
