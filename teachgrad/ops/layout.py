"""The memory layout of results, where PyTorch's rule differs from NumPy's.

A tensor's *layout* is the order its elements sit in memory (see ``Tensor.stride()``).
NumPy gives almost every result the layout of its input: the sum over dim 1 of a
transposed array is stored transposed too. PyTorch does the same for pointwise ops
(``exp``, ``+`` ...), but

* reductions, softmax, cumulative ops, ``cat``/``stack``, ``tril``/``triu``, ``roll`` and
  ``masked_fill`` allocate a fresh **row-major** (contiguous) result, and
* ``clone`` and ``flip`` **keep** the input's layout, where NumPy's ``copy()`` would make
  the result row-major.

The difference is visible to a learner: ``is_contiguous()`` and ``stride()`` print it, and
``view()`` refuses a tensor that is not contiguous. So these ops ask for PyTorch's layout
with the two helpers below.

>>> import numpy as np
>>> a = np.ones((2, 3, 4)).transpose(2, 0, 1)   # a permuted view, like x.permute(2, 0, 1)
>>> np.sum(a, axis=1).flags.c_contiguous, row_major(np.sum(a, axis=1)).flags.c_contiguous
(False, True)
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided as _as_strided

__all__ = ["memory_format", "preserve_format", "contiguous_format", "channels_last",
           "channels_last_3d"]

_ascontiguousarray = np.ascontiguousarray


# ----------------------------------------------------------------------------------------
# Empty tensors: strides with nothing to lay out
# ----------------------------------------------------------------------------------------
# An empty tensor (a dimension of size 0) has no elements, but PyTorch still gives it
# strides, and its views compute theirs from them: ``zeros(2, 0, 3)`` has strides
# (3, 3, 1) and its ``permute(2, 1, 0)`` (1, 3, 3). NumPy keeps the strides of its views
# too, but every empty array it *allocates* gets all-zero strides. So teachgrad reads an
# empty array with all-zero strides as row-major (PyTorch's strides for a new tensor), and
# view ops first give such an input its row-major strides (:func:`with_pytorch_strides`),
# so that the view's strides follow from them as PyTorch's do.
# (A view PyTorch gives all-zero strides, e.g. ``tensor(1.).expand(3, 0)``, is told apart
# from a NumPy allocation by :func:`_given_strides`.)
def contiguous_strides(shape: tuple) -> tuple[int, ...]:
    """PyTorch's strides (in elements) of a new row-major tensor of ``shape``; a size-0 dim
    counts as 1: ``(2, 0, 3)`` has ``(3, 3, 1)``."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def element_strides(a: np.ndarray) -> tuple[int, ...]:
    """``a``'s strides in elements, as PyTorch reports them (NumPy counts bytes)."""
    if a.size == 0 and not any(a.strides) and not _given_strides(a):
        return contiguous_strides(a.shape)  # allocated empty by NumPy: row-major
    itemsize = a.itemsize
    return tuple([s // itemsize for s in a.strides])


def _given_strides(a: np.ndarray) -> bool:
    """Were ``a``'s strides set on purpose (by ``as_strided``, or a view of its result)?
    NumPy's ``as_strided`` leaves a stand-in object, not an array, at the end of the
    ``.base`` chain; an array NumPy allocated has none. So an empty array with all-zero
    strides that an ``as_strided`` or ``expand`` made keeps them: ``tensor(1.).expand(3,
    0)`` has strides (0, 0), as in PyTorch."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root.base is not None


def with_strides(a: np.ndarray, strides: tuple) -> np.ndarray:
    """A view of ``a`` with these strides (in elements): for an empty ``a``, or one whose
    dims given other strides have size 1 (no step is ever taken along them)."""
    return _as_strided(a, a.shape, tuple([s * a.itemsize for s in strides]),
                       writeable=a.flags.writeable)


def with_pytorch_strides(a: np.ndarray) -> np.ndarray:
    """``a``, or, if it is an empty array NumPy allocated (all-zero strides), a view of it
    with PyTorch's row-major strides, which NumPy's views of it then keep."""
    if a.size or not a.ndim or any(a.strides) or _given_strides(a):
        return a
    return with_strides(a, contiguous_strides(a.shape))


def empty_slice_at(out: np.ndarray, a: np.ndarray, dim: int, start: int) -> np.ndarray:
    """``out``, an empty slice of ``a`` along ``dim`` from ``start`` (in ``[0, size]``),
    starting where PyTorch's does. NumPy points an empty slice at its input's first
    element, so ``x[5:5].storage_offset()`` was 0; PyTorch's is 5 (and its ``data_ptr()``
    5 elements on). Left as it is where the memory cannot hold that start (an empty
    input)."""
    address = a.__array_interface__["data"][0] + start * a.strides[dim]
    if address == out.__array_interface__["data"][0]:
        return out  # (there already: x[0:0], or a dim of stride 0)
    root = a
    while isinstance(root.base, np.ndarray):  # the array that owns the memory
        root = root.base
    offset = address - root.__array_interface__["data"][0]
    try:
        placed = np.ndarray(out.shape, out.dtype, buffer=root, offset=offset,
                            strides=out.strides)
    except (TypeError, ValueError, BufferError):  # (outside the memory; not a buffer)
        return out
    if not out.flags.writeable:
        placed.flags.writeable = False
    return placed


def zeros_with_strides(shape: tuple, dtype, strides: tuple) -> np.ndarray:
    """New zeros of ``shape`` laid out with these strides (in elements), which must leave
    no gaps and no overlaps (or the array is empty, or has one element). The array owns a
    1-d block of memory, as any NumPy allocation, so storage() and torch.save see it."""
    dtype = np.dtype(dtype)
    count = 1
    for size in shape:
        count *= size
    if not count:  # (marked as given, so that views keep even all-zero strides: see
        return with_strides(np.zeros(shape, dtype), strides)  # _given_strides)
    return np.ndarray(shape, dtype, buffer=np.zeros(count, dtype),
                      strides=tuple([s * dtype.itemsize for s in strides]))


def is_dense(shape: tuple, strides: tuple) -> bool:
    """PyTorch's ``is_non_overlapping_and_dense``: the elements fill a block of memory
    exactly, in some order of the dims (dims of size 0 or 1 may have any stride)."""
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    required = 1
    for d in sorted(range(len(shape)), key=lambda d: (shape[d] < 2, strides[d])):
        if shape[d] < 2:  # (sorted last: the rest may have any stride)
            return True
        if strides[d] != required:
            return False
        required *= shape[d]
    return True


def row_major(result):
    """``result`` stored row-major (C order), copied only when it is not already.

    0-d and 1-d results (and NumPy scalars) are returned as they are: they are always
    contiguous, and ``np.ascontiguousarray`` would turn a 0-d array into a 1-d one.
    """
    if result.ndim < 2 or result.flags.c_contiguous:
        return result
    return _ascontiguousarray(result)


def copy_keeping_layout(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` whose elements sit in memory in the order ``a``'s do.

    PyTorch's ``clone()`` (``memory_format=torch.preserve_format``) does this: the clone of
    a transposed tensor is transposed too, and a slice with gaps becomes a dense block with
    its dims in the same order. The order is :func:`memory_order`'s. An empty tensor is
    contiguous in PyTorch's sense, so its clone keeps its strides exactly.
    """
    if a.flags.c_contiguous and a.size > 1:
        out = a.copy()
        if out.strides == a.strides:  # (else a size-1 dim had another stride: below)
            return out
    out = zeros_keeping_layout(a, a.dtype)
    np.copyto(out, a)
    return out


def zeros_keeping_layout(a: np.ndarray, dtype) -> np.ndarray:
    """Zeros of ``a``'s shape (and ``dtype``) laid out in memory as ``clone`` lays out a
    copy of ``a`` (see :func:`copy_keeping_layout`): ``empty_like``'s default layout."""
    if a.flags.c_contiguous and a.size > 1:
        out = np.zeros(a.shape, dtype)
        if out.strides == a.strides or out.itemsize != a.itemsize:
            return out
    # (absolute values: a flipped view's negative strides are its input's, as flip keeps)
    strides = tuple([abs(s) for s in element_strides(a)])
    if a.size < 2 or is_dense(a.shape, strides):  # PyTorch keeps the strides exactly (a
        return zeros_with_strides(a.shape, dtype, strides)  # size-1 dim's too)
    outer_first = memory_order(a)[::-1]
    # A row-major block in that order, seen through a transpose in the original dim order.
    return np.zeros([a.shape[d] for d in outer_first], dtype).transpose(np.argsort(outer_first))


def zeros_in_format(a: np.ndarray, dtype, fmt: memory_format) -> np.ndarray:
    """Zeros of ``a``'s shape (and ``dtype``) laid out as ``fmt`` says, as ``zeros_like``
    (``empty_like``, ``ones_like`` ...) makes them: ``preserve_format`` keeps ``a``'s."""
    if fmt is preserve_format:
        return zeros_keeping_layout(a, dtype)
    if fmt.rank is None:
        return np.zeros(a.shape, dtype)
    # (PyTorch's strides for the format, also where NumPy would choose another stride for
    # a dim of size 1, or all-zero ones for an empty array)
    return zeros_with_strides(a.shape, dtype, _format_strides(a.shape, fmt.order(a.ndim)))


def memory_order(a: np.ndarray) -> list[int]:
    """``a``'s dims from innermost to outermost in memory, by PyTorch's rule.

    An insertion sort by stride, starting from the row-major order (last dim innermost).
    A dim of stride 0 (expanded: one element repeated) has no place in memory, so it is
    never moved past another; equal strides put the smaller dim inside. Strides are taken
    as absolute values (a flipped view keeps its order, as ``flip`` does in PyTorch).
    """
    return _sorted_dims(a.ndim, stride_comparison(a))


def stride_comparison(a: np.ndarray):
    """PyTorch's comparison of two of ``a``'s dims for :func:`memory_order`:
    ``should_swap(inner, outer)``, for dims now listed in that order, is 1 if ``inner``
    is the outer one in memory (swap them), -1 if it is the inner one, and 0 if the
    strides cannot tell (an expanded dim; equal strides and sizes)."""
    strides, sizes = [abs(s) for s in (a.strides if a.size else element_strides(a))], a.shape

    def should_swap(inner: int, outer: int) -> int:
        if strides[inner] == 0 or strides[outer] == 0:
            return 0
        if strides[inner] != strides[outer]:
            return 1 if strides[inner] > strides[outer] else -1
        return 1 if sizes[inner] > sizes[outer] else 0

    return should_swap


def pointwise_order(shape: tuple, operands) -> list[int]:
    """The memory order (innermost first) PyTorch gives a pointwise result of ``shape``.

    TensorIterator's rule: the insertion sort of :func:`memory_order`, but each pair of
    dims asks the operands in turn (broadcast to ``shape``), and the first with an opinion
    decides; a broadcast dim (stride 0) has none. NumPy instead falls back to row-major
    where the operands disagree, so ``x.t() * y`` is laid out as ``x.t()`` in PyTorch and
    row-major in NumPy.
    """
    strides = [[abs(s) for s in np.broadcast_to(a, shape).strides] for a in operands]

    def should_swap(outer: int, inner: int) -> int:
        for st in strides:
            if st[outer] == 0 or st[inner] == 0:
                continue
            if st[outer] != st[inner]:
                return 1 if st[outer] > st[inner] else -1
            if shape[outer] > shape[inner]:
                return 1
        return 0

    return _sorted_dims(len(shape), should_swap)


def _sorted_dims(ndim: int, should_swap) -> list[int]:
    """PyTorch's insertion sort of the dims (innermost first), ``should_swap(outer, inner)``
    answering 1 (swap), -1 (keep, and stop) or 0 (no opinion: look further)."""
    order = list(range(ndim))[::-1]
    for i in range(1, ndim):
        moving = i
        for j in range(i - 1, -1, -1):
            comparison = should_swap(order[j], order[moving])
            if comparison > 0:
                order[j], order[moving] = order[moving], order[j]
                moving = j
            elif comparison < 0:
                break
    return order


def laid_out_as_pointwise(out: np.ndarray, operands) -> np.ndarray:
    """``out`` (a pointwise op's NumPy result) in the layout PyTorch gives it: itself when
    NumPy chose the same order, else a copy in PyTorch's (see :func:`pointwise_order`)."""
    order = pointwise_order(out.shape, operands)
    if order == memory_order(out):
        return out
    if not out.size:
        return _empty_laid_out(out, order, operands)
    outer_first = order[::-1]
    placed = np.empty([out.shape[d] for d in outer_first], out.dtype).transpose(
        np.argsort(outer_first))
    np.copyto(placed, out)
    return placed


def _empty_laid_out(out: np.ndarray, order: list[int], operands) -> np.ndarray:
    """An empty pointwise result, laid out as PyTorch's TensorIterator lays it out.

    Operands all of the result's shape are all contiguous (an empty tensor always is):
    TensorIterator's fast path gives a row-major result (``e + e``). Otherwise (a number,
    a broadcast operand: ``e + 1``) it takes the operands' ``order`` and strides that are
    the products of the sizes inside, a size 0 counted as 0: ``empty(3, 0).t() + 1`` has
    strides (1, 0), where a new tensor's would be (3, 1)."""
    if all(np.shape(x) == out.shape for x in operands):
        return out
    strides, step = [0] * out.ndim, 1
    for d in order:  # (innermost first)
        strides[d] = step
        step *= out.shape[d]
    return zeros_with_strides(out.shape, out.dtype, tuple(strides))


# ----------------------------------------------------------------------------------------
# memory_format: how clone(), contiguous() and is_contiguous() name a layout
# ----------------------------------------------------------------------------------------
class memory_format:  # noqa: N801 - PyTorch's name
    """A layout that ``clone``, ``contiguous`` and ``is_contiguous`` can be asked for.

    ``teachgrad.contiguous_format`` is row-major; ``teachgrad.preserve_format`` keeps the
    input's layout; ``teachgrad.channels_last`` stores an image batch ``(N, C, H, W)`` with
    the channels innermost (the shape stays ``(N, C, H, W)``; only ``stride()`` changes).

    >>> import teachgrad as torch
    >>> torch.ones(2, 3, 4, 5).clone(memory_format=torch.channels_last).stride()
    (60, 1, 15, 3)
    """

    __slots__ = ("name", "rank")

    def __init__(self, name: str, rank: int | None = None) -> None:
        self.name = name
        self.rank = rank  # channels_last layouts exist for one rank only

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):  # pickled by name, so torch.save/load keep the singletons
        return (_by_name, (self.name,))

    def order(self, ndim: int) -> tuple[int, ...]:
        """The dims from outermost to innermost in memory, e.g. (0, 2, 3, 1) for NHWC."""
        if self.rank is None:
            return tuple(range(ndim))
        if ndim != self.rank:
            raise RuntimeError(f"required rank {self.rank} tensor to use {self.name} format")
        return (0, *range(2, ndim), 1)


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last", rank=4)
channels_last_3d = memory_format("channels_last_3d", rank=5)


def _by_name(name: str) -> memory_format:
    return {f.name: f for f in (preserve_format, contiguous_format, channels_last,
                                channels_last_3d)}[name]


def check_memory_format(function: str, value) -> memory_format:
    """``value`` itself if it is a ``memory_format`` (``None`` means preserve), else
    PyTorch's TypeError."""
    if value is None:
        return preserve_format
    if not isinstance(value, memory_format):
        raise TypeError(f"{function}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {type(value).__name__}")
    return value


def copy_in_format(a: np.ndarray, fmt: memory_format) -> np.ndarray:
    """A copy of ``a`` laid out as ``fmt`` says (``preserve_format``: as ``a`` is)."""
    if fmt is preserve_format:
        return copy_keeping_layout(a)
    if fmt.rank is None:  # (a copy even when a is row-major already: clone never aliases)
        return np.array(a, order="C")
    out = zeros_in_format(a, a.dtype, fmt)
    np.copyto(out, a)
    return out


def is_in_format(a: np.ndarray, fmt: memory_format) -> bool:
    """Is ``a`` laid out as ``fmt`` says, without gaps? (Size-1 dims may have any stride.)"""
    if fmt.rank is None:
        return bool(a.flags.c_contiguous)  # (an empty array always is, as in PyTorch)
    if a.ndim != fmt.rank:
        return False
    if a.size == 0:  # NumPy calls every empty array contiguous; PyTorch reads the strides
        return _in_order(a.shape, element_strides(a), fmt.order(a.ndim))
    return bool(a.transpose(fmt.order(a.ndim)).flags.c_contiguous)


def _format_strides(shape: tuple, order: tuple) -> tuple[int, ...]:
    """The strides PyTorch gives a new tensor of ``shape`` laid out in ``order`` (outermost
    first) for a channels-last format: each the product of the sizes inside it (no size is
    counted as 1 here, unlike :func:`contiguous_strides`)."""
    strides, step = [0] * len(shape), 1
    for d in reversed(order):
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def _in_order(shape: tuple, strides: tuple, order: tuple) -> bool:
    """PyTorch's test of a channels-last layout: from the innermost dim out, each stride is
    the product of the sizes inside it (size-1 dims may have any)."""
    expected = 1
    for d in reversed(order):
        if shape[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True
