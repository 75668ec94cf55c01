"""PyTorch's legacy tensor types: ``FloatTensor``, ``LongTensor``, ``BoolTensor`` ...

Old tutorials write ``torch.FloatTensor([1, 2])``, ``torch.LongTensor(3, 4)`` or
``isinstance(x, torch.FloatTensor)``. Each name is a dtype under an old spelling: calling it
makes a tensor of that dtype (with data, or zeros of a shape), and ``isinstance`` asks
whether a tensor has that dtype. They are not subclasses of :class:`Tensor` (every tensor
is a plain ``Tensor``, whatever its dtype), exactly as in PyTorch.

>>> import teachgrad as torch
>>> torch.LongTensor([1.7, 2])
tensor([1, 2])
>>> isinstance(torch.ones(2), torch.FloatTensor)
True
"""

from __future__ import annotations

import numpy as np

from . import _dtypes, _package_name
from ._dtypes import dtype as DType
from ._tensor import Size, Tensor, _make
from ._warn import warn_user

__all__ = [
    "FloatTensor", "DoubleTensor", "HalfTensor", "ByteTensor", "CharTensor", "ShortTensor",
    "IntTensor", "LongTensor", "BoolTensor", "set_default_tensor_type",
]


class tensortype(type):  # noqa: N801 - PyTorch's name for the legacy types' type
    """The type of ``FloatTensor`` & co.: a dtype that can be called and asked ``isinstance``."""

    dtype: DType

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __subclasscheck__(cls, sub) -> bool:
        return sub is cls

    def __call__(cls, *args, **kwargs) -> Tensor:
        if kwargs:
            raise TypeError(
                f"new() received an invalid combination of arguments - got "
                f"({', '.join(f'{k}={type(v).__name__}' for k, v in kwargs.items())}, )"
            )
        numpy_dtype = cls.dtype.numpy
        if not args:
            return _make(np.zeros((0,), numpy_dtype))
        first = args[0]
        if len(args) == 1 and isinstance(first, Tensor):
            if first.dtype is not cls.dtype:
                raise TypeError(
                    f"expected {cls.dtype} (got {first.dtype})"
                    "\nHint: convert first, e.g. x.to(torch." + cls.dtype.name + ")."
                )
            return first  # PyTorch's legacy constructor returns the same tensor
        if len(args) == 1 and isinstance(first, Size):
            return _make(np.zeros(tuple(first), numpy_dtype))
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return _make(np.zeros(args, numpy_dtype))  # sizes (PyTorch: uninitialised)
        if len(args) != 1:
            raise TypeError(
                f"new() received an invalid combination of arguments - got "
                f"({', '.join(type(a).__name__ for a in args)})"
            )
        from ._creation import list_of_tensors_values  # (imports this module)

        values = list_of_tensors_values(first, cls.dtype)
        if values is None:
            values = np.asarray(first.numpy() if hasattr(first, "numpy") else first)
        return _make(np.array(values, dtype=numpy_dtype))

    def __repr__(cls) -> str:
        return f"<class '{_package_name.qualified(cls.__name__)}'>"


def _legacy(dtype: DType) -> tensortype:
    name = dtype._legacy
    return tensortype(name, (), {
        "dtype": dtype, "is_cuda": False, "is_sparse": False, "__module__": "teachgrad",
        "__doc__": f"Legacy name of {dtype!r}: ``{name}(data)`` or ``{name}(*sizes)``.",
    })


FloatTensor = _legacy(_dtypes.float32)
DoubleTensor = _legacy(_dtypes.float64)
HalfTensor = _legacy(_dtypes.float16)
ByteTensor = _legacy(_dtypes.uint8)
CharTensor = _legacy(_dtypes.int8)
ShortTensor = _legacy(_dtypes.int16)
IntTensor = _legacy(_dtypes.int32)
LongTensor = _legacy(_dtypes.int64)
BoolTensor = _legacy(_dtypes.bool)
_BY_NAME = {t.__name__: t for t in (FloatTensor, DoubleTensor, HalfTensor, ByteTensor,
                                      CharTensor, ShortTensor, IntTensor, LongTensor,
                                      BoolTensor)}


def legacy_dtype(t) -> DType:
    """The dtype of a legacy type or of its name (``'torch.FloatTensor'``)."""
    if isinstance(t, tensortype):
        return t.dtype
    if isinstance(t, str):
        name = t.removeprefix("torch.").removeprefix("teachgrad.")
        if name in _BY_NAME:
            return _BY_NAME[name].dtype
    raise ValueError(f"invalid type: '{t}'")


def set_default_tensor_type(t) -> None:
    """Deprecated: the default float dtype from a legacy type (``set_default_dtype``)."""
    warn_user(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
    )
    _dtypes.set_default_dtype(legacy_dtype(t))
