"""``unsafe_split``, ``unsafe_chunk``, ``unsafe_split_with_sizes``: ``split`` without view
tracking.

The pieces share memory with the input, but autograd does not treat them as views: an
in-place change of a piece is not seen by the input's history (PyTorch's "unsafe").
Compilers use them where they know no piece is changed in place.
"""

from __future__ import annotations

from .._tensor import Tensor, _wrap_dim, tensor_method
from .shape import _SplitOp, chunk, split

__all__ = ["unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes"]


class UnsafeSplitBackward0(_SplitOp):
    """Pieces of one size, not tracked as views."""

    is_view = False


class UnsafeSplitWithSizesBackward0(_SplitOp):
    """Pieces of the given sizes, not tracked as views."""

    is_view = False


def _run(node: type, tensor: Tensor, pieces: tuple, dim: int) -> tuple:
    d = _wrap_dim(dim, tensor._data.ndim)
    return node.apply(tensor, dim=d, sizes=tuple(p._data.shape[d] for p in pieces))


@tensor_method()
def unsafe_split(tensor: Tensor, split_size: int, dim: int = 0) -> tuple:
    """``split(tensor, split_size, dim)``, the pieces not tracked as views."""
    return _run(UnsafeSplitBackward0, tensor, split(tensor.detach(), int(split_size), dim), dim)


@tensor_method()
def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """``chunk(input, chunks, dim)``, the pieces not tracked as views."""
    return _run(UnsafeSplitBackward0, input, chunk(input.detach(), chunks, dim), dim)


@tensor_method()
def unsafe_split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """``split(input, split_sizes, dim)``, the pieces not tracked as views."""
    return _run(UnsafeSplitWithSizesBackward0, input,
                split(input.detach(), list(split_sizes), dim), dim)
