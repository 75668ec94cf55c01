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

LONG_MIN, ULONG_MAX = -(2**63), 2**64 - 1  # the Python ints PyTorch's parser takes
LONG_MAX = 2**63 - 1  # (beyond it, up to ULONG_MAX, an int is a uint64 to PyTorch)


def int_too_big(x: int) -> OverflowError:
    """PyTorch's error for a Python int it cannot unpack (it takes -2**63 to 2**64 - 1:
    a long long, or an unsigned one), in CPython's words, which PyTorch passes on.

    >>> int_too_big(-2**70).args[0].startswith("can't convert negative int to unsigned")
    True
    """
    message = "int too big to convert" if x > 0 else "can't convert negative int to unsigned"
    return OverflowError(
        message + "\nHint: teachgrad's integers are at most 64 bits; use a float for this "
        "number."
    )


def bool_with_uint64() -> RuntimeError:
    """PyTorch's error for a bool tensor meeting a Python int from 2**63 to 2**64 - 1 (in
    an op or a comparison): such an int is a uint64 to PyTorch, and it does not promote
    bool with uint64 (an integer tensor takes the int, wrapped around, instead)."""
    return RuntimeError(
        "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
        "Bool and UInt64\nHint: an int from 2**63 on does not fit in int64; convert the "
        "bool tensor first (t.long()) or use a float for this number."
    )


def check_fill_value(value, dtype: np.dtype):
    """Refuse a ``value`` that ``dtype`` cannot hold: a float that an integer dtype cannot
    (inf, nan, too large), a finite number beyond a floating dtype's range (``1e39`` for
    float32: NumPy would write inf), a complex number in any real dtype but bool.

    Returns the value to write: ``value`` itself, except a negative int for an unsigned
    dtype, which wraps around (``-1`` is ``255`` for uint8) as PyTorch's cast does.

    >>> check_fill_value(2.5, np.dtype(np.int64))  # truncated to 2 when written, as in PyTorch
    2.5
    >>> check_fill_value(-1, np.dtype(np.uint8))
    255
    >>> check_fill_value(float("inf"), np.dtype(np.int64))
    Traceback (most recent call last):
    ...
    RuntimeError: value cannot be converted to type int64_t without overflow
    >>> check_fill_value(1j, np.dtype(np.float32))  # (NumPy would drop the imaginary part)
    Traceback (most recent call last):
    ...
    RuntimeError: value cannot be converted to type float without overflow
    """
    if type(value) is int and not LONG_MIN <= value <= ULONG_MAX:  # (fill_(2**70))
        raise int_too_big(value)
    if isinstance(value, (complex, np.complexfloating)):
        if dtype.kind != "b":  # (a bool takes any number: nonzero is True)
            check_real_value(value, dtype)
        return value
    if isinstance(value, (bool, np.bool_)):
        return value
    if dtype.kind == "f":  # a finite number beyond the dtype's range (inf and nan are fine)
        if abs(value) > _FLOAT_MAX[dtype.name] and math.isfinite(value):
            raise RuntimeError(
                f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow"
            )
        return value
    if dtype.kind == "b":  # any number: nonzero is True (NumPy refuses an int from 2**63)
        return bool(value) if isinstance(value, (int, np.integer)) else value
    if dtype.kind not in "iu":
        return value
    info = np.iinfo(dtype)
    if isinstance(value, (int, np.integer)):
        # An int must fit, but an unsigned dtype also takes down to -max (it wraps: uint8
        # takes -1 as 255), as PyTorch's c10::overflows allows.
        low = -info.max if dtype.kind == "u" else info.min
        if not low <= value <= info.max:
            raise RuntimeError(
                f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow"
            )
        return int(value) + info.max + 1 if value < 0 and dtype.kind == "u" else value
    if not isinstance(value, (float, np.floating)):
        return value
    if not math.isfinite(value) or not info.min <= value <= info.max:
        raise RuntimeError(
            f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow"
        )
    return value


_FLOAT_MAX = {name: float(np.finfo(name).max) for name in ("float16", "float32", "float64")}

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

    An int beyond 64 bits is refused first, as PyTorch's parser does (:func:`int_too_big`).
    """
    if type(value) is int and not LONG_MIN <= value <= ULONG_MAX:
        raise int_too_big(value)
    if isinstance(value, (complex, np.complexfloating)):
        raise RuntimeError(
            f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow"
        )
