"""``as_strided``: any view of a tensor's memory, given its sizes, strides and offset.

Every tensor is a window on a block of memory, its *storage*: element ``(i, j)`` of a
tensor with strides ``(s0, s1)`` and storage offset ``o`` is storage element
``o + i·s0 + j·s1``. ``x.as_strided(size, stride, storage_offset)`` makes a new window on
``x``'s storage (the memory of the tensor ``x`` is a view of, if it is one): strides count
elements, and windows may overlap (``torch.arange(6.).as_strided((3, 3), (1, 1))`` has each
row start one element later). NumPy's ``np.lib.stride_tricks.as_strided`` does the same in
bytes, without any bounds check; here the bounds are checked as PyTorch checks them.

The gradient (``AsStridedBackward0``) goes back through storage: each output element adds
its gradient to the storage element it reads (several, where windows overlap), and the
input takes the values at its own elements::

    storage = zeros(len(storage));   storage[position of out[k]] += ḡ[k]
    ∂L/∂x = storage[position of x]

(divided by how often x itself reads each element, if x overlaps itself, e.g. an expand).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_as_strided

from .._missing_arguments import REQUIRED, missing
from .._tensor import Tensor, _make, tensor_method
from .layout import copy_keeping_layout
from .op import Op
from .pointwise import _value

__all__ = ["as_strided", "as_strided_", "as_strided_scatter"]


# ----------------------------------------------------------------------------------------
# Storage and positions
# ----------------------------------------------------------------------------------------
def storage_of(a: np.ndarray) -> tuple[np.ndarray, int]:
    """The memory ``a`` lives in, as a 1-D array of ``a``'s dtype, and ``a``'s offset in it.

    That memory is the array at the end of ``a``'s ``.base`` chain (which owns it). An
    owner that is not one contiguous block (rare) cannot be indexed as a storage: a copy of
    ``a`` stands in for it then, and the result no longer shares memory.
    """
    root = a
    while True:
        base = root.base
        if not isinstance(base, np.ndarray):  # NumPy's as_strided leaves a stand-in there
            base = getattr(base, "base", None)  # holding the array (an as_strided of an
        if not isinstance(base, np.ndarray):  # as_strided view: its storage is the
            break  # first one's, seeds 34, 239, 378 of the focused fuzz)
        root = base
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return np.ascontiguousarray(a).reshape(-1), 0
    raw = root.ravel(order="K").view(np.uint8)  # the bytes, in memory order (a view)
    count = raw.size // a.itemsize
    flat = raw[:count * a.itemsize].view(a.dtype)
    start = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return flat, start // a.itemsize


def element_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def positions(size: tuple, stride: tuple, offset: int) -> np.ndarray:
    """The storage position of every element of a window: ``offset + Σ index·stride``."""
    index = np.full(size, offset, dtype=np.int64)
    for dim, (n, s) in enumerate(zip(size, stride)):
        index = index + (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (
            len(size) - dim - 1))
    return index


def _check_geometry(size: tuple, stride: tuple, offset: int, storage_len: int,
                    itemsize: int) -> None:
    """PyTorch's checks of a window on a storage of ``storage_len`` elements."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                           f"{list(size)}")
    if 0 in size:
        return  # no element is read: any offset is fine
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > storage_len:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out "
            f"of bounds for storage of size {storage_len * itemsize}")


def strided_window(flat: np.ndarray, size: tuple, stride: tuple, offset: int) -> np.ndarray:
    """The view of ``flat`` with these (element) sizes, strides and offset."""
    start = flat[offset:]  # (empty if a window of no elements starts past the end)
    return _np_as_strided(start, size, tuple(s * flat.itemsize for s in stride),
                          writeable=flat.flags.writeable)


def _sizes(size, stride) -> tuple[tuple, tuple]:
    return tuple(int(n) for n in size), tuple(int(s) for s in stride)


# ----------------------------------------------------------------------------------------
# as_strided
# ----------------------------------------------------------------------------------------
def scatter_to_storage(grad, out_positions: np.ndarray, in_positions: np.ndarray,
                       storage_len: int, in_geometry: tuple | None = None):
    """``storage[out_positions] += grad`` (summing repeats), then read at ``in_positions``.

    On arrays with ``np.bincount``; under ``create_graph`` (tensors) with the
    differentiable ``index_add`` and indexing, so the result differentiates again (read as
    PyTorch reads it, ``storage.as_strided(*in_geometry)``, when that is given).
    """
    if isinstance(grad, Tensor):
        storage = Tensor.new_zeros(grad, (storage_len,))
        storage = storage.index_add(0, _make(out_positions.reshape(-1)), grad.reshape(-1))
        if in_geometry is not None:  # (AsStridedBackward0, as PyTorch's graph shows)
            return as_strided(storage, *in_geometry)
        return storage[_make(in_positions)]
    storage = np.bincount(out_positions.reshape(-1), weights=grad.reshape(-1),
                          minlength=storage_len).astype(grad.dtype, copy=False)
    return storage[in_positions]


class AsStridedBackward0(Op):
    formula = "storage[position of out] += ḡ, then ∂L/∂x = storage[position of x]"
    is_view = True
    # (storage_offset: None unless given, as PyTorch shows it; see as_strided)
    saved_attributes = {"size": lambda node: tuple(node.geometry[0]),
                        "stride": lambda node: tuple(node.geometry[1]),
                        "storage_offset": lambda node: node._given_offset}  # grad_fn._saved_...
    _given_offset = None  # (the class default: the node keeps the input's own offset)

    @staticmethod
    def forward(ctx, a, size, stride, storage_offset):
        flat, own_offset = storage_of(a)
        offset = own_offset if storage_offset is None else storage_offset
        _check_geometry(size, stride, offset, flat.size, a.itemsize)
        ctx.geometry = (size, stride, offset)
        if storage_offset is not None:
            ctx._given_offset = storage_offset
        ctx.input_geometry = (a.shape, element_strides(a), own_offset, flat.size)
        return strided_window(flat, size, stride, offset)

    @staticmethod
    def backward(ctx, grad):
        size, stride, offset = ctx.geometry
        in_shape, in_stride, in_offset, storage_len = ctx.input_geometry
        if 0 in size:  # an empty window: PyTorch's zeros, with no history under create_graph
            return np.zeros(in_shape, _value(grad).dtype)
        in_positions = positions(in_shape, in_stride, in_offset)
        result = scatter_to_storage(grad, positions(size, stride, offset), in_positions,
                                    storage_len, (in_shape, in_stride, in_offset))
        counts = np.bincount(in_positions.reshape(-1), minlength=storage_len)
        if counts.max(initial=0) > 1:  # x reads some elements twice: share their gradient
            result = result / counts[in_positions].astype(_value(result).dtype)
        return result


@tensor_method()
def as_strided(input: Tensor, size=REQUIRED, stride=REQUIRED,
               storage_offset: int | None = None) -> Tensor:  # noqa: A002
    """A view of ``input``'s storage with these sizes, strides (in elements) and offset
    (default: ``input``'s own).

    >>> import teachgrad as torch
    >>> torch.arange(6.).as_strided((3, 3), (1, 1))     # overlapping windows
    tensor([[0., 1., 2.],
            [1., 2., 3.],
            [2., 3., 4.]])
    """
    if size is REQUIRED or stride is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("as_strided", as_strided, input, size, stride)
    size, stride = _sizes(size, stride)
    offset = None if storage_offset is None else int(storage_offset)
    return AsStridedBackward0.apply(input, size=size, stride=stride, storage_offset=offset)


def as_strided_(self: Tensor, size=REQUIRED, stride=REQUIRED,
                storage_offset: int | None = None) -> Tensor:
    """In-place ``as_strided``: ``self`` becomes that view of its own storage."""
    if size is REQUIRED or stride is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("as_strided_", as_strided_, self, size, stride)
    from .inplace_more import reshape_in_place

    return reshape_in_place(self, as_strided, size, stride, storage_offset)


Tensor.as_strided_ = as_strided_


# ----------------------------------------------------------------------------------------
# as_strided_scatter
# ----------------------------------------------------------------------------------------
class AsStridedScatterBackward0(Op):
    formula = "x with src written at a window:  ∂L/∂x = ḡ, 0 on the window;  ∂L/∂src = ḡ[window]"

    @staticmethod
    def forward(ctx, a, src, size, stride, storage_offset):
        # A copy laid out as ``a`` is (PyTorch's clone): the window's positions count in
        # that copy's storage, so a transposed ``a`` gets ``src`` along its columns.
        out = copy_keeping_layout(a)
        storage, _ = storage_of(out)
        where = positions(size, stride, storage_offset)
        storage[where] = src
        # For the backward pass: the window as flat (row-major) indices of the elements.
        element_at = np.argsort(positions(a.shape, element_strides(out), 0).reshape(-1))
        ctx.where, ctx.shape = element_at[where], a.shape
        return out

    @staticmethod
    def backward(ctx, grad):
        keep = np.ones(int(np.prod(ctx.shape)), bool)
        keep[ctx.where.reshape(-1)] = False
        flat = grad.reshape(-1)
        grad_input = (flat * keep.astype(_value(grad).dtype)).reshape(ctx.shape)
        return grad_input, flat[ctx.where]


@tensor_method()
def as_strided_scatter(input: Tensor, src: Tensor = REQUIRED, size=REQUIRED, stride=REQUIRED,  # noqa: A002
                       storage_offset: int | None = None) -> Tensor:
    """A copy of ``input`` with ``src`` written where ``input.as_strided(size, stride,
    storage_offset)`` would look.

    >>> import teachgrad as torch
    >>> torch.as_strided_scatter(torch.zeros(6), torch.ones(2, 2), (2, 2), (1, 2))
    tensor([1., 1., 1., 1., 0., 0.])
    """
    if src is REQUIRED or size is REQUIRED or stride is REQUIRED:
        raise missing("as_strided_scatter", as_strided_scatter, input, src, size, stride)
    size, stride = _sizes(size, stride)
    offset = 0 if storage_offset is None else int(storage_offset)
    _check_geometry(size, stride, offset, input._data.size, input._data.itemsize)
    if tuple(src._data.shape) != size:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src._data.shape)}, slice size = {list(size)}")
    if any(n > 1 and s == 0 for n, s in zip(size, stride)):
        # PyTorch's overlap check: a stride-0 dim writes one place several times.
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the "
            "operation.")
    return AsStridedScatterBackward0.apply(input, src, size=size, stride=stride,
                                           storage_offset=offset)
