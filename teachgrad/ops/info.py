"""Facts about storage, not operations: ``Tensor.stride()``, ``finfo`` and ``iinfo``.

Nothing here is differentiable; these are the questions a tutorial asks about how a
tensor is laid out in memory and what its dtype can represent.
"""

from __future__ import annotations

import numpy as np

from .._dtypes import dtype as _dtype
from .._dtypes import get_default_dtype, must_be_dtype
from .._missing_arguments import REQUIRED, missing
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, python_type_name, tensor_method
from .layout import element_strides


@tensor_method()
def stride(input: Tensor, dim: int | None = None) -> tuple[int, ...] | int:
    """How many *elements* to step in memory to move one index along each dimension.

    NumPy counts strides in bytes; PyTorch in elements. A transpose swaps the strides and
    an ``expand`` has stride 0: the same element is reused.

    >>> import teachgrad as torch
    >>> x = torch.ones(2, 3)
    >>> x.stride(), x.t().stride(), x.stride(-1)
    ((3, 1), (1, 3), 1)
    """
    data = input._data
    strides = element_strides(data)
    if dim is None:
        return strides
    ndim = data.ndim
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
            f"but got {dim})"
        )
    return strides[dim]


def _formatted(value) -> str:
    return f"{value:g}"  # PyTorch prints six significant digits: 1.19209e-07


class finfo:
    """What a floating point dtype can represent (PyTorch's ``torch.finfo``).

    >>> import teachgrad as torch
    >>> torch.finfo(torch.float32).eps
    1.1920928955078125e-07
    >>> torch.finfo(torch.float16).max
    65504.0
    """

    bits: int
    eps: float  # the gap between 1.0 and the next float
    max: float
    min: float  # the most negative value (not the smallest positive one: that is tiny)
    tiny: float  # the smallest positive normal number
    smallest_normal: float
    resolution: float  # about 10 ** -(decimal digits)
    dtype: str

    def __init__(self, type: _dtype | None = None) -> None:  # noqa: A002 - PyTorch's name
        type = get_default_dtype() if type is None else type
        if not isinstance(type, _dtype):
            raise must_be_dtype("finfo", "type", 1, type)
        if not type.is_floating_point:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to "
                "handle 'torch.finfo'"
            )
        info = np.finfo(type.numpy)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision  # (NumPy rounds it to the dtype: 0.0010004)
        self.dtype = type.name

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        fields = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")
        shown = ", ".join(f"{name}={_formatted(getattr(self, name))}" for name in fields)
        return f"finfo({shown}, dtype={self.dtype})"


class iinfo:
    """The range of an integer dtype (PyTorch's ``torch.iinfo``).

    >>> import teachgrad as torch
    >>> torch.iinfo(torch.uint8).max
    255
    """

    bits: int
    max: int
    min: int
    dtype: str

    def __init__(self, type: _dtype) -> None:  # noqa: A002 - PyTorch's name
        if isinstance(type, _dtype) and type.numpy == np.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if not isinstance(type, _dtype):
            raise must_be_dtype("iinfo", "type", 1, type)
        if type.numpy.kind not in "iu":
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                "'torch.iinfo'"
            )
        info = np.iinfo(type.numpy)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = type.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={_formatted(self.min)}, max={_formatted(self.max)}, dtype={self.dtype})"


# ----------------------------------------------------------------------------------------
# Yes/no questions and sizes: is_nonzero, is_same_size, is_signed, nbytes, itemsize
# ----------------------------------------------------------------------------------------
@tensor_method()
def is_nonzero(input: Tensor) -> bool:
    """Whether a one-element tensor is not zero (``bool(input)``, with PyTorch's errors).

    >>> import teachgrad as torch
    >>> torch.tensor([0.5]).is_nonzero(), torch.tensor(0).is_nonzero()
    (True, False)
    """
    size = input._data.size
    if size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()).item())


@tensor_method()
def is_same_size(input: Tensor, other: Tensor = REQUIRED) -> bool:
    """Whether the two tensors have the same shape."""
    if other is REQUIRED:  # (x.is_same_size(): PyTorch's words, see _missing_arguments)
        raise missing("is_same_size", is_same_size, input, other)
    if not isinstance(other, Tensor):
        raise TypeError(
            f"is_same_size(): argument 'other' (position 2) must be Tensor, not "
            f"{python_type_name(other)}" + real_pytorch_hint(other)
        )
    return input._data.shape == other._data.shape


@tensor_method()
def is_signed(input: Tensor) -> bool:
    """Whether the dtype can hold negative numbers (False for uint8 and bool)."""
    return input.dtype.is_signed


def _nbytes(self: Tensor) -> int:
    """How many bytes the elements take: ``numel() * itemsize``.

    Counted per element, as PyTorch does, even when several elements share memory (an
    ``expand``) or the tensor is a view of a larger one.
    """
    return self._data.size * self._data.itemsize


def _itemsize(self: Tensor) -> int:
    """Bytes per element (``element_size()``)."""
    return self._data.itemsize


def _output_nr(self: Tensor) -> int:
    """Which output of its ``grad_fn`` this tensor is (0 for leaves and one-output ops)."""
    return self._output_nr


Tensor.nbytes = property(_nbytes)
Tensor.itemsize = property(_itemsize)
Tensor.output_nr = property(_output_nr)


__all__ = ["finfo", "iinfo", "is_nonzero", "is_same_size", "is_signed"]
