"""Data types and PyTorch's type-promotion rules.

A teachgrad tensor stores a NumPy array, so every dtype here is a thin, named wrapper
around a NumPy dtype. What NumPy does *not* give us is PyTorch's promotion: in PyTorch

    int64 tensor * float32 tensor  -> float32   (NumPy says float64)
    int64 tensor * 2.5             -> float32   (a Python float means "the default dtype")
    float32 tensor * float64 0-d   -> float32   (a 0-d tensor does not upcast a real one)

so :func:`result_type` implements PyTorch's rule and the ops cast their inputs before
calling NumPy.
"""

from __future__ import annotations

import numpy as np

from ._package_name import qualified

__all__ = [
    "dtype", "float16", "float32", "float64", "half", "float", "double",
    "uint8", "int8", "int16", "int32", "int64", "short", "int", "long", "bool",
    "get_default_dtype", "set_default_dtype", "promote_types",
]


class dtype:
    """A tensor element type, e.g. ``teachgrad.float32``.

    >>> import teachgrad as torch
    >>> torch.tensor([1.5]).dtype
    teachgrad.float32
    >>> torch.float64.is_floating_point
    True
    """

    __slots__ = ("name", "numpy", "is_floating_point", "is_signed", "itemsize", "_legacy")

    def __init__(self, name: str, numpy_dtype: str, legacy: str) -> None:
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy.kind == "f"
        self.is_signed = self.numpy.kind in "fi"
        self.itemsize = self.numpy.itemsize
        self._legacy = legacy  # PyTorch's old type name, used in some error messages

    def __repr__(self) -> str:
        return qualified(self.name)

    def __reduce__(self):  # pickle as the module-level singleton
        return (_by_name, (self.name,))


float16 = half = dtype("float16", "float16", "HalfTensor")
float32 = float = dtype("float32", "float32", "FloatTensor")  # noqa: A001 - PyTorch's name
float64 = double = dtype("float64", "float64", "DoubleTensor")
uint8 = dtype("uint8", "uint8", "ByteTensor")
int8 = dtype("int8", "int8", "CharTensor")
int16 = short = dtype("int16", "int16", "ShortTensor")
int32 = int = dtype("int32", "int32", "IntTensor")  # noqa: A001
int64 = long = dtype("int64", "int64", "LongTensor")
bool = dtype("bool", "bool", "BoolTensor")  # noqa: A001

_ALL = (float16, float32, float64, uint8, int8, int16, int32, int64, bool)
_FROM_NUMPY: dict[np.dtype, dtype] = {d.numpy: d for d in _ALL}


def _by_name(name: str) -> dtype:
    return next(d for d in _ALL if d.name == name)


class _Defaults:
    """The process-wide default floating dtype (PyTorch's ``torch.get_default_dtype()``)."""

    floating = float32


def get_default_dtype() -> dtype:
    """The dtype of ``tensor(1.5)`` and of Python floats in mixed arithmetic (float32)."""
    return _Defaults.floating


def set_default_dtype(d: dtype) -> None:
    """Change the default floating dtype (float32 or float64), as ``torch.set_default_dtype``."""
    if not isinstance(d, dtype) and d is not _py_float:  # ('float64', np.float64: PyTorch's words)
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type" + _dtype_hint(d))
    d = to_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _Defaults.floating = d
    _PROMOTION_CACHE.clear()


def from_numpy_dtype(np_dtype: np.dtype) -> dtype:
    """The teachgrad dtype for a NumPy dtype, e.g. ``np.float32 -> teachgrad.float32``."""
    try:
        return _FROM_NUMPY[np_dtype]
    except KeyError:
        if np_dtype.kind == "c":
            raise complex_refused(f"an array of dtype {np_dtype}") from None
        if not np_dtype.isnative:  # big-endian data (from a file): PyTorch's refusal
            raise ValueError(
                "given numpy array has byte order different from the native byte order. "
                "Conversion between byte orders is currently not supported."
                "\nHint: convert it first, e.g. array.astype(array.dtype.newbyteorder('='))."
            ) from None
        hint = ""
        if np_dtype.kind in "uif":  # (uint16/32/64 are PyTorch's, with few ops; not here)
            hint = (f"\nHint: teachgrad has no {np_dtype.name}; convert the array first, "
                    f"e.g. array.astype(np.{'float64' if np_dtype.kind == 'f' else 'int64'}).")
        raise TypeError(  # (named as PyTorch names it: numpy.longdouble, numpy.str_ ...)
            f"can't convert np.ndarray of type numpy.{np_dtype.type.__name__}. The only "
            "supported types are: float64, float32, float16, int64, int32, int16, int8, "
            "uint8, and bool." + hint
        ) from None


def to_dtype(d, function: str | None = None) -> dtype:
    """Accept a teachgrad dtype or a Python type (``float``, ``int``, ``bool``), as PyTorch's
    argument parser does; refuse anything else (``'float32'``, ``np.float32``) with its
    TypeError, naming ``function`` as PyTorch does: ``tensor(): argument 'dtype' must be
    torch.dtype, not str`` (without it, a function's wrapper may word it from the
    function's signatures, see _function_signatures). Only that refusal costs anything."""
    if isinstance(d, dtype):
        return d
    if d is _py_float:  # a Python float is a C double: PyTorch's float64 (not the default)
        return float64
    if d is _py_int:
        return int64
    if d is _py_bool:
        return bool
    if d is complex or (isinstance(d, (np.dtype, type)) and np.dtype(d).kind == "c"):
        raise complex_refused(f"dtype {d!r}")
    called = f"{function}(): " if function else ""
    raise TypeError(f"{called}argument 'dtype' must be torch.dtype, not {_type_name(d)}"
                    + _dtype_hint(d)) from None


def must_be_dtype(function: str, name: str, position: int, value) -> TypeError:
    """PyTorch's parser's TypeError for ``value`` given where a dtype is the only choice:
    ``promote_types(): argument 'type2' (position 2) must be torch.dtype, not str``."""
    return TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                     f"torch.dtype, not {_type_name(value)}" + _dtype_hint(value))


def _type_name(value) -> str:
    """The type's name as PyTorch's parser prints it (``str``, ``type``, ``numpy.dtype``)."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _dtype_hint(value) -> str:
    """Name the teachgrad dtype meant by a string or a NumPy type, if there is one."""
    try:
        meant = np.dtype(value)
    except (TypeError, ValueError):
        return "\nHint: pass one of torch's dtypes, e.g. dtype=torch.float32."
    match = _FROM_NUMPY.get(meant)
    if match is None:
        return "\nHint: pass one of torch's dtypes, e.g. torch.float32."
    return f"\nHint: PyTorch takes its own dtype objects: write torch.{match.name}."


# The builtins are shadowed above by PyTorch's names (float, int, bool), so keep them here.
_py_float = type(1.0)
_py_int = type(1)
_py_bool = type(True)


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` convert to without losing their kind.

    Mostly NumPy's lattice, except that any float beats any integer *as is*:
    ``promote_types(int64, float32)`` is float32 (NumPy would say float64).
    """
    if a is b and isinstance(a, dtype):
        return a
    try:
        if a.is_floating_point != b.is_floating_point:
            return a if a.is_floating_point else b
        return _FROM_NUMPY[np.promote_types(a.numpy, b.numpy)]
    except AttributeError:  # (no dtype: checked only now, off the path of a call that works)
        for position, value in ((1, a), (2, b)):
            if not isinstance(value, dtype):
                raise must_be_dtype("promote_types", f"type{position}", position, value) from None
        raise


# Kinds ranked as PyTorch ranks "categories": bool < integer < floating.
def _kind(d: dtype) -> _py_int:
    return 2 if d.is_floating_point else (0 if d is bool else 1)


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """Merge a lower-priority operand class into a higher one (PyTorch's combine_categories).

    The higher class keeps its dtype unless the lower one is of a strictly higher kind
    (e.g. an int tensor meets a Python float): then the two are promoted.
    """
    if higher is None:
        return lower
    if lower is None or _kind(higher) >= _kind(lower):
        return higher
    return promote_types(higher, lower)


_PROMOTION_CACHE: dict[tuple, dtype] = {}


def result_type(*operands) -> dtype:
    """PyTorch's result dtype for an op over tensors and Python scalars.

    Operands have three priorities: tensors with dimensions, 0-d tensors, Python scalars.
    A lower-priority operand only matters when its kind (bool < int < float) is higher.

    >>> import teachgrad as torch
    >>> (torch.tensor([1, 2]) * 2.5).dtype
    teachgrad.float32
    """
    key = tuple(_operand_key(x) for x in operands)
    cached = _PROMOTION_CACHE.get(key)
    if cached is not None:
        return cached
    classes: list[dtype | None] = [None, None, None]  # dimensioned, zero-dim, scalar
    for priority, d in key:
        classes[priority] = d if classes[priority] is None else promote_types(classes[priority], d)
    result = _combine(classes[0], _combine(classes[1], classes[2]))
    _PROMOTION_CACHE[key] = result
    return result


def _operand_key(x) -> tuple:
    data = getattr(x, "_data", None)
    if data is not None:  # a Tensor
        return (0 if data.ndim else 1, _FROM_NUMPY[data.dtype])
    if isinstance(x, _py_bool):
        return (2, bool)
    if isinstance(x, _py_int):
        return (2, int64)
    if isinstance(x, _py_float):
        return (2, _Defaults.floating)
    if isinstance(x, np.ndarray):
        return (0 if x.ndim else 1, from_numpy_dtype(x.dtype))
    if isinstance(x, np.generic):
        if x.dtype.kind == "c":
            raise complex_refused(f"the number {x!r}")
        return (2, _Defaults.floating if x.dtype.kind == "f" else int64)
    if isinstance(x, complex):
        raise complex_refused(f"the number {x!r}")
    from ._missing_arguments import missing_in_caller  # (an error path only)

    missing = missing_in_caller(x)  # (x.bitwise_left_shift(): see _missing_arguments.untested)
    raise missing or TypeError(f"unsupported operand of type {type(x).__name__}")


def complex_refused(what: str) -> RuntimeError:
    """teachgrad's error where PyTorch would make a complex tensor: teachgrad has none.

    One message for every way a complex number gets in (a Python ``1j``, a NumPy complex
    array, a result that would be complex), so that it never turns into a NumPy
    traceback, a half-made tensor or a silently dropped imaginary part.

    >>> raise complex_refused("the number 1j")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    RuntimeError: teachgrad has no complex dtypes, and the number 1j would make a complex tensor
    Hint: teachgrad's tensors are real (floating point, integer or bool). ...
    """
    return RuntimeError(
        f"teachgrad has no complex dtypes, and {what} would make a complex tensor"
        "\nHint: teachgrad's tensors are real (floating point, integer or bool). Keep the "
        "real and imaginary parts as two real tensors, or run code that needs complex "
        "numbers with PyTorch."
    )
