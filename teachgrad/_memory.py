"""Tensors made over memory the caller chooses, or laid out in memory in a chosen order.

- ``torch.frombuffer(buffer, dtype=...)``: a tensor over the bytes of any object with
  Python's buffer protocol (``bytearray``, ``array.array``, ``memoryview``, NumPy arrays),
  sharing that memory, as PyTorch's.
- ``torch.empty_permuted(size, physical_layout)``: an "uninitialised" tensor whose
  dimensions are stored in memory in the order ``physical_layout`` gives (NCHW against
  NHWC: ``(0, 1, 2, 3)`` against ``(0, 2, 3, 1)``).
- ``x.new_empty_strided(size, stride)``: ``torch.empty_strided`` with ``x``'s dtype.
- ``x.dim_order()``: the order ``x``'s dimensions are laid out in, outermost first.

As everywhere in teachgrad, "uninitialised" memory is zeros: NumPy's ``empty`` would show
a learner whatever bytes were there before, which teaches nothing. (``pin_memory=``, which
every factory takes, is checked in _pin_memory.py.)
"""

from __future__ import annotations

import numpy as np

from ._creation import _check_device, _check_flag, _finish, _shape, empty_strided
from ._dtypes import dtype as DType
from ._dtypes import get_default_dtype, to_dtype
from ._layout import check_layout
from ._tensor import Tensor
from ._warn import warn_user
from .ops.layout import (
    channels_last,
    contiguous_format,
    element_strides,
    is_in_format,
    memory_format,
    memory_order,
    stride_comparison,
)

__all__ = ["frombuffer", "empty_permuted"]


def frombuffer(buffer, *, dtype: DType | None = None, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:
    """A 1-d tensor over ``buffer``'s memory: ``count`` elements of ``dtype`` (-1: all that
    fit) from byte ``offset`` on. Changes to one show in the other.

    >>> import teachgrad as torch
    >>> data = bytearray([1, 0, 2, 0])
    >>> torch.frombuffer(data, dtype=torch.int16)
    tensor([1, 2], dtype=teachgrad.int16)
    """
    if dtype is None:  # (PyTorch's parser has no default for it)
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"'
                        "\nHint: say how to read the bytes, e.g. dtype=torch.uint8.")
    _check_flag("frombuffer", requires_grad)
    element = np.dtype(to_dtype(dtype, "frombuffer").numpy)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not view.contiguous:
        raise RuntimeError("could not retrieve buffer from object")
    length = view.nbytes
    count, offset = int(count), int(offset)
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % element.itemsize:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({element.itemsize})")
        count = (length - offset) // element.itemsize
    elif count * element.itemsize > length - offset:
        raise ValueError(f"requested buffer length ({count} * {element.itemsize} bytes) after "
                         f"offset ({offset} bytes) must not be greater than actual buffer "
                         f"length ({length} bytes)")
    data = np.frombuffer(view.cast("B"), dtype=element, count=count, offset=offset)
    if not data.flags.writeable:
        # PyTorch writes into such memory anyway (undefined behaviour, it warns); NumPy
        # refuses, so teachgrad copies it and says so.
        warn_user(
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors. teachgrad copies it, so this tensor does not share memory with the "
            "buffer.\nHint: pass a bytearray (not bytes) to share memory.", UserWarning)
        data = data.copy()
    return _finish(data, requires_grad)


def empty_permuted(size, physical_layout, *, dtype: DType | None = None, layout=None,
                   device=None, requires_grad: bool = False) -> Tensor:
    """A zero-filled tensor of shape ``size`` whose dimensions are stored in memory from
    outermost to innermost in the order ``physical_layout`` lists them.

    >>> import teachgrad as torch
    >>> torch.empty_permuted((2, 3, 4), (0, 2, 1)).stride()   # dim 1 innermost
    (12, 1, 3)
    """
    _check_flag("empty_permuted", requires_grad)
    check_layout("empty_permuted", layout)
    _check_device(device)
    size = _shape((size,), "empty_permuted")
    order = tuple(int(d) for d in physical_layout)
    if len(size) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    seen = set()
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but "
                f"got {d} at index {i}).  NB: negative dims not currently supported; file an "
                "issue if you want it."
            )
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    numpy_dtype = to_dtype(dtype).numpy if dtype is not None else get_default_dtype().numpy
    stored = np.zeros([size[d] for d in order], numpy_dtype)  # dims in memory order
    # Logical dimension d is the stored dimension at position order.index(d).
    return _finish(stored.transpose([order.index(d) for d in range(len(size))]),
                   requires_grad)


def new_empty_strided(self: Tensor, size, stride, *, dtype: DType | None = None, layout=None,
                      device=None, requires_grad: bool = False) -> Tensor:
    """``torch.empty_strided(size, stride)`` with this tensor's dtype (unless given)."""
    return empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                         layout=layout, device=device, requires_grad=requires_grad)


_NOT_UNIQUE = ("The tensor does not have unique dim order, or cannot map to exact one of the "
               "given memory formats.")


def dim_order(self: Tensor, *, ambiguity_check: bool | list = False) -> tuple:
    """The dimensions in the order they are laid out in memory, outermost first.

    Where several orders describe the memory equally well (a dim of size 1, two equal
    strides) one of them is returned; ``ambiguity_check=True`` raises instead, and a list
    of memory formats accepts a tensor that is exactly one of them.

    >>> import teachgrad as torch
    >>> torch.empty(2, 3, 5, 7).transpose(1, 2).dim_order()
    (0, 2, 1, 3)
    """
    if not isinstance(ambiguity_check, (bool, list)) or isinstance(ambiguity_check, list) and (
        not all(isinstance(f, memory_format) for f in ambiguity_check)
    ):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    data = self._data
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    if ambiguity_check is not False and _several_orders(data) and sum(
        is_in_format(data, f) for f in formats
    ) != 1:
        raise RuntimeError(_NOT_UNIQUE)
    # (PyTorch's fast paths first: a row-major or a channels-last tensor is read as that)
    if data.ndim < 2:
        return tuple(range(data.ndim))
    row_major, last = is_in_format(data, contiguous_format), is_in_format(data, channels_last)
    if row_major and not last:
        return tuple(range(data.ndim))
    if last and not row_major:
        return (0, *range(2, data.ndim), 1)
    inner_first = memory_order(data)
    if ambiguity_check is not False:  # each dim must be strictly inside the next one
        should_swap = stride_comparison(data)
        if any(should_swap(a, b) != -1 for a, b in zip(inner_first, inner_first[1:])):
            raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(inner_first[::-1])


def _several_orders(data: np.ndarray) -> bool:
    """Could the dims be listed in more than one order: a dim of size 1 (it may go
    anywhere), or two neighbouring dims of equal strides (they may swap)?"""
    strides = element_strides(data)
    return 1 in data.shape or any(a == b for a, b in zip(strides, strides[1:]))


Tensor.new_empty_strided = new_empty_strided
Tensor.dim_order = dim_order
