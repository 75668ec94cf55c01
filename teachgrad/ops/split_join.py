"""Cutting and joining, beyond cat/stack/split: tensor_split, hsplit/vsplit/dsplit,
column_stack, dstack, block_diag, cartesian_prod, combinations, broadcast_tensors,
broadcast_shapes, repeat_interleave.

Almost all of them are *composed* of the shape and index ops, as PyTorch composes them,
so their graphs show PyTorch's nodes: the pieces of ``tensor_split`` are slices
(``SliceBackward0`` views), ``column_stack`` is ``cat`` of reshaped columns,
``repeat_interleave(x, 2)`` is unsqueeze → expand → clone → view. ``block_diag`` is one
op (``BlockDiagBackward0``), as in PyTorch: each block's gradient is its block of the
output gradient.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence

import numpy as np

from .._arguments import Signatures
from .._dtypes import result_type
from .._missing_arguments import REQUIRED, missing
from .._tensor import Size, Tensor, _make, _wrap_dim, tensor_method
from .conversion import clone
from .grid import meshgrid
from .index import index_select, masked_select
from .layout import contiguous_format
from .op import Op
from .shape import (
    _tensor_list,
    atleast_3d,
    cat,
    expand,
    hstack,
    narrow,
    reshape,
    stack,
    unsqueeze,
    view,
)


# ----------------------------------------------------------------------------------------
# tensor_split, hsplit / vsplit / dsplit
# ----------------------------------------------------------------------------------------
def _split_points(indices_or_sections, n: int) -> list[int]:
    """The start of each piece after the first (sections are as equal as can be: the first
    ``n % k`` pieces get one element more)."""
    if isinstance(indices_or_sections, Tensor):
        arr = indices_or_sections._data
        if arr.dtype != np.int64:
            name = indices_or_sections.dtype._legacy.removesuffix("Tensor")
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                f"got {name}"
            )
        if arr.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {arr.ndim} dims"
            )
        indices_or_sections = int(arr) if arr.ndim == 0 else arr.tolist()
    if isinstance(indices_or_sections, (list, tuple)):
        return [operator.index(i) for i in indices_or_sections]
    sections = operator.index(indices_or_sections)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size, extra = divmod(n, sections)
    return list(itertools.accumulate(size + (i < extra) for i in range(sections - 1)))


@tensor_method()
def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    """Cut ``input`` along ``dim`` into ``k`` nearly equal pieces (an int) or at the given
    indices (a list or a tensor); each piece is a view (a slice).

    >>> import teachgrad as torch
    >>> [p.tolist() for p in torch.arange(7).tensor_split(3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> [p.tolist() for p in torch.arange(7).tensor_split([1, 5])]
    [[0], [1, 2, 3, 4], [5, 6]]
    """
    if input._data.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    points = _split_points(indices_or_sections, n)
    bounds = [min(max(p + n if p < 0 else p, 0), n) for p in points]  # negatives: from the end
    pieces = []
    for start, stop in zip([0, *bounds], [*bounds, n]):
        pieces.append(narrow(input, d, start, max(stop - start, 0)))  # x[start:stop] (maybe empty)
    return tuple(pieces)


def _directional_split(name: str, input: Tensor, indices_or_sections, dim: int, need: int):
    ndim = input._data.ndim
    if ndim < need:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {need} dimension, but got a tensor "
            f"with {ndim} dimensions!"
        )
    if isinstance(indices_or_sections, (int, np.integer)):
        size = input._data.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {indices_or_sections}!"
            )
    return tensor_split(input, indices_or_sections, dim)


@tensor_method()
def hsplit(input: Tensor, indices_or_sections=REQUIRED) -> tuple:
    """Split into columns: along dimension 1 (dimension 0 of a vector); equal pieces only."""
    if indices_or_sections is REQUIRED:  # (x.hsplit(): PyTorch's words, see _missing_arguments)
        raise missing("hsplit", hsplit, input, indices_or_sections)
    dim = 0 if input._data.ndim == 1 else 1
    return _directional_split("hsplit", input, indices_or_sections, dim, 1)


@tensor_method()
def vsplit(input: Tensor, indices_or_sections=REQUIRED) -> tuple:
    """Split into rows: along dimension 0 of a tensor with at least 2 dimensions."""
    if indices_or_sections is REQUIRED:  # (x.vsplit(): PyTorch's words, see _missing_arguments)
        raise missing("vsplit", vsplit, input, indices_or_sections)
    return _directional_split("vsplit", input, indices_or_sections, 0, 2)


@tensor_method()
def dsplit(input: Tensor, indices_or_sections=REQUIRED) -> tuple:
    """Split in depth: along dimension 2 of a tensor with at least 3 dimensions."""
    if indices_or_sections is REQUIRED:  # (x.dsplit(): PyTorch's words, see _missing_arguments)
        raise missing("dsplit", dsplit, input, indices_or_sections)
    return _directional_split("dsplit", input, indices_or_sections, 2, 3)


# ----------------------------------------------------------------------------------------
# column_stack, dstack
# ----------------------------------------------------------------------------------------
def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Join as columns: vectors (and numbers) become columns ``(n, 1)``, then ``hstack``.

    >>> import teachgrad as torch
    >>> torch.column_stack([torch.tensor([1, 2]), torch.tensor([3, 4])])
    tensor([[1, 3],
            [2, 4]])
    """
    tensors = _tensor_list(tensors, "column_stack")
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    columns = [reshape(t, (t.numel(), 1)) if t._data.ndim <= 1 else t for t in tensors]
    return hstack(columns)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join in depth (dimension 2), after making every tensor at least 3-D (atleast_3d)."""
    tensors = _tensor_list(tensors, "dstack")
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat([atleast_3d(t) for t in tensors], 2)


# ----------------------------------------------------------------------------------------
# block_diag
# ----------------------------------------------------------------------------------------
class BlockDiagBackward0(Op):
    formula = "block_diag: each input gets its own block of the gradient"

    @staticmethod
    def forward(ctx, *blocks, dtype):
        shapes = [b.shape for b in blocks]
        matrices = [b.reshape(_as_matrix(b.shape)) for b in blocks]
        rows = sum(m.shape[0] for m in matrices)
        cols = sum(m.shape[1] for m in matrices)
        out = np.zeros((rows, cols), dtype)
        corners, r, c = [], 0, 0
        for m in matrices:
            corners.append((r, c, m.shape))
            out[r : r + m.shape[0], c : c + m.shape[1]] = m
            r, c = r + m.shape[0], c + m.shape[1]
        ctx.shapes, ctx.corners = shapes, corners
        return out

    @staticmethod
    def backward(ctx, grad):
        return tuple(
            np.reshape(grad[r : r + h, c : c + w], shape)
            for (r, c, (h, w)), shape in zip(ctx.corners, ctx.shapes)
        )


def _as_matrix(shape: tuple) -> tuple:
    """A 0-d block is 1×1, a vector of n is one row 1×n."""
    return (1, 1) if not shape else ((1, shape[0]) if len(shape) == 1 else shape)


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix: the tensors (0-, 1- or 2-D) down its diagonal, zeros around.

    >>> import teachgrad as torch
    >>> torch.block_diag(torch.tensor([[1, 2]]), torch.tensor(3))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    tensors = _tensor_list(tensors, "block_diag")
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t._data.ndim} dimensions"
            )
    if not tensors:
        from .._creation import empty

        return empty(1, 0)
    dtype = result_type(*tensors).numpy
    return BlockDiagBackward0.apply(*tensors, dtype=dtype)


# ----------------------------------------------------------------------------------------
# cartesian_prod, combinations
# ----------------------------------------------------------------------------------------
def _require_vector(t: Tensor) -> None:
    if t._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each vector, as rows (``itertools.product``).

    >>> import teachgrad as torch
    >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    tensors = _tensor_list(tensors, "cartesian_prod")
    for t in tensors:
        _require_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """All length-``r`` combinations of the vector's elements, as rows (as
    ``itertools.combinations``, or ``combinations_with_replacement``).

    >>> import teachgrad as torch
    >>> torch.combinations(torch.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    _require_vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _make(np.zeros(0, input._data.dtype))
    n = input._data.shape[0]
    grids = meshgrid(*([input] * r), indexing="ij")
    # Keep the index tuples that increase (or never decrease, with replacement).
    index = np.indices((n,) * r)
    keep = np.ones((n,) * r, dtype=bool)
    for a, b in itertools.pairwise(index):
        keep &= (a <= b) if with_replacement else (a < b)
    mask = _make(keep)
    return stack([masked_select(g, mask) for g in grids], 1)


# ----------------------------------------------------------------------------------------
# broadcast_tensors, broadcast_shapes
# ----------------------------------------------------------------------------------------
def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of these shapes broadcast to (ints count as 1-D shapes,
    ``None`` is left out), with PyTorch's checks in its order.

    >>> import teachgrad as torch
    >>> torch.broadcast_shapes((2, 1), (3,))
    teachgrad.Size([2, 3])
    """
    given = [(s,) if isinstance(s, (int, np.integer)) else s for s in shapes if s is not None]
    if not given:
        return Size([])
    for shape in given:
        # a tensor is not a shape (torch.broadcast_shapes(x, y) meant x.shape, y.shape)
        if not isinstance(shape, Sequence):
            raise RuntimeError(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, "
                f"got {shape}\nHint: pass shapes, e.g. torch.broadcast_shapes(x.shape, "
                "y.shape), or use torch.broadcast_tensors(x, y) for the tensors themselves.")
    common: list = [1] * max(len(shape) for shape in given)
    for i, shape in enumerate(given):
        for k in range(-1, -1 - len(shape), -1):
            _broadcast_one(common, shape, i, k)
    for n, size in enumerate(common):  # as PyTorch's torch.Size(...) of the result
        if not isinstance(size, (int, np.integer)):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {n} is "
                            f"'{type(size).__name__}')")
    return Size(common)


def _broadcast_one(common: list, shape, i: int, k: int) -> None:
    """Fold size ``shape[k]`` of argument ``i`` into ``common`` (as PyTorch's
    ``_refs._broadcast_shapes``, whose errors these are)."""
    size = shape[k]
    if size == common[k]:
        return
    if common[k] == 1:
        if size < 0:
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        common[k] = size
    if size != 1 and common[k] != size:
        raise RuntimeError(
            f"Attempting to broadcast a dimension of length {size} at {k}! Mismatching "
            f"argument at index {i} had {shape}; but expected shape should be "
            f"broadcastable to {common}")


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common shape (views; a tensor already of that shape
    is returned as it is, as in PyTorch)."""
    tensors = _tensor_list(tensors, "broadcast_tensors")
    shape: tuple = ()
    for t in tensors:
        try:
            shape = np.broadcast_shapes(shape, t._data.shape)
        except ValueError:
            a, b = shape, t._data.shape
            k = next(k for k in range(1, min(len(a), len(b)) + 1)
                     if a[-k] != b[-k] and 1 not in (a[-k], b[-k]))
            raise RuntimeError(
                f"The size of tensor a ({a[-k]}) must match the size of tensor b ({b[-k]}) at "
                f"non-singleton dimension {max(len(a), len(b)) - k}"
            ) from None
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


# ----------------------------------------------------------------------------------------
# repeat_interleave
# ----------------------------------------------------------------------------------------
def _repeat_counts(repeats: Tensor) -> np.ndarray:
    """The counts of a tensor ``repeats``, after PyTorch's checks of their dtype and signs
    (its shape is checked first, by the caller, as PyTorch does)."""
    counts = repeats._data
    if counts.dtype.kind not in "iu":
        name = repeats.dtype._legacy.removesuffix("Tensor")
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{name}'")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    return counts.reshape(-1)


def repeat_interleave(input: Tensor, repeats=None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Repeat each element (or each slice along ``dim``) ``repeats`` times in place, unlike
    ``repeat`` which repeats the whole tensor; ``repeats`` may be one count or a count per
    element. Without ``dim`` the input is flattened first.

    ``repeat_interleave(counts)`` alone repeats the index ``i`` ``counts[i]`` times.

    >>> import teachgrad as torch
    >>> torch.tensor([1, 2]).repeat_interleave(2)
    tensor([1, 1, 2, 2])
    >>> torch.tensor([[1, 2], [3, 4]]).repeat_interleave(torch.tensor([1, 2]), dim=0)
    tensor([[1, 2],
            [3, 4],
            [3, 4]])
    """
    if repeats is None:  # repeat_interleave(counts): the indices, repeated
        if input._data.ndim != 1 and input._data.dtype.kind in "iu":  # (the dtype first)
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        counts = _repeat_counts(input)
        return _make(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
    if dim is None:
        input, d = reshape(input, (-1,)), 0
    else:
        d = _wrap_dim(dim, input._data.ndim)
        if input._data.ndim == 0:
            input = reshape(input, (1,))
    n = input._data.shape[d]
    if isinstance(repeats, Tensor):
        if repeats._data.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats._data.size not in (1, n):  # (one count for all, or one per element)
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{repeats._data.size} and input.size({d}) = {n}"
            )
        counts = _repeat_counts(repeats)
        if counts.size == 1:  # one count for every element
            counts = np.repeat(counts, n)
        if output_size is not None and output_size != counts.sum():
            raise RuntimeError("allocated size does not match required size")
        picks = _make(np.repeat(np.arange(n, dtype=np.int64), counts))
        return index_select(input, d, picks)
    times = operator.index(repeats)
    if times < 0:
        raise RuntimeError("Repeats must be non-negative")
    if output_size is not None and output_size != times * n:
        raise RuntimeError("allocated size does not match required size")
    # As PyTorch builds it: a new axis after dim, expanded, copied, then merged into dim.
    # (The copy of an expanded tensor is row-major in PyTorch; asked for explicitly here.)
    shape = input._data.shape
    grown = expand(unsqueeze(input, d + 1), shape[: d + 1] + (times,) + shape[d + 1 :])
    copied = clone(grown, memory_format=contiguous_format)
    return view(copied, shape[:d] + (n * times,) + shape[d + 1 :])


_REPEAT_INTERLEAVE = Signatures(
    "repeat_interleave", "(Tensor repeats, int dim = None, *, int output_size = None)",
    "(int repeats, int dim = None, *, int output_size = None)")


def _repeat_interleave_method(self: Tensor, *args, **kwargs) -> Tensor:
    """``x.repeat_interleave(repeats, dim=None)``: see :func:`repeat_interleave` (as a method
    it needs ``repeats``)."""
    if not args and "repeats" not in kwargs:  # (only torch.repeat_interleave(counts) may)
        _REPEAT_INTERLEAVE.check((), kwargs)
    return repeat_interleave(self, *args, **kwargs)


repeat_interleave.method_form = _repeat_interleave_method
repeat_interleave = tensor_method()(repeat_interleave)


__all__ = [
    "tensor_split", "hsplit", "vsplit", "dsplit", "column_stack", "dstack", "block_diag",
    "cartesian_prod", "combinations", "broadcast_tensors", "broadcast_shapes",
    "repeat_interleave",
]
