"""A Python number about to be written into a tensor, checked as PyTorch checks it.

``torch.tensor([1, 2]).fill_(float("inf"))`` raises "value cannot be converted to type
int64_t without overflow"; NumPy's cast would write -9223372036854775808 (and warn), and
``int(inf)`` raises Python's OverflowError. A complex number is refused the same way (NumPy
would drop its imaginary part, with a warning). ``fill_``, ``masked_fill``, ``x[i] = v``,
``full`` and their relatives call this.
"""

from __future__ import annotations

import math

import numpy as np


def check_fill_value(value, dtype: np.dtype) -> None:
    """Refuse a ``value`` that ``dtype`` cannot hold: a float that an integer dtype cannot
    (inf, nan, too large), a complex number in any real dtype but bool.

    >>> check_fill_value(2.5, np.dtype(np.int64))  # truncated to 2, as in PyTorch
    >>> check_fill_value(float("inf"), np.dtype(np.int64))
    Traceback (most recent call last):
    ...
    RuntimeError: value cannot be converted to type int64_t without overflow
    >>> check_fill_value(1j, np.dtype(np.float32))  # (NumPy would drop the imaginary part)
    Traceback (most recent call last):
    ...
    RuntimeError: value cannot be converted to type float without overflow
    """
    if isinstance(value, (complex, np.complexfloating)):
        if dtype.kind != "b":  # (a bool takes any number: nonzero is True)
            check_real_value(value, dtype)
        return
    if dtype.kind not in "iu" or not isinstance(value, (float, np.floating)):
        return
    info = np.iinfo(dtype)
    if not math.isfinite(value) or not info.min <= value <= info.max:
        raise RuntimeError(
            f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow"
        )


# How PyTorch's C++ names each dtype in this message (int32 is plain ``int``).
_C_TYPE_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "int64": "int64_t",
    "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t", "bool": "bool",
}


def check_real_value(value, dtype: np.dtype) -> None:
    """Refuse a complex ``value`` for an op computing in the real ``dtype`` (PyTorch's
    message: the value cannot become that type; teachgrad has no complex dtypes at all).

    >>> check_real_value(0.5, np.dtype(np.float64))
    >>> check_real_value(0.5j, np.dtype(np.float64))
    Traceback (most recent call last):
    ...
    RuntimeError: value cannot be converted to type double without overflow
    """
    if isinstance(value, (complex, np.complexfloating)):
        raise RuntimeError(
            f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow"
        )
