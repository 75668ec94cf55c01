"""``index_reduce``: combine slices of ``source`` into the slices of ``input`` that ``index``
names, with a product, a mean, a maximum or a minimum.

It is ``index_add`` with another reduction, or ``scatter_reduce`` with whole slices: so
the op *is* scatter_reduce's (same forward, same backward) under PyTorch's name for it.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap_dim, tensor_method
from .index import IndexSelectBackward0, key_along, saving_indices
from .index_update import (
    IndexFillBackward0,
    ScatterReduceBackward0,
    _check_source,
    _slice_key,
)
from .inplace import inplace_method

__all__ = ["index_reduce"]

_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.int32))


class IndexReduceBackward0(ScatterReduceBackward0):
    """``index_reduce``: scatter_reduce's forward and backward, on whole slices."""

    picks = IndexSelectBackward0  # (PyTorch's index_reduce_backward picks with index_select
    clears = IndexFillBackward0  # and clears self's gradient with index_fill)


def _index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    name = "index_reduce_"  # PyTorch's other checks name the in-place function, always
    if (isinstance(index, Tensor) and index._data.dtype in _INDEX_DTYPES
            and index._data.ndim <= 1 and input._data.ndim):
        size = input._data.shape[_wrap_dim(dim, input._data.ndim)]
        if ((index._data < 0) | (index._data >= size)).any():
            raise IndexError("index out of range in self")
    if isinstance(source, Tensor) and source._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"{name}(): self ({input.dtype._legacy.removesuffix('Tensor')}) and source "
            f"({source.dtype._legacy.removesuffix('Tensor')}) must have the same scalar type"
        )
    d, idx, _ = _slice_key(
        input, dim, index, name, _INDEX_DTYPES,
        name + "(): Expected dtype int32/int64 for index but got: {got}", IndexError,
    )
    _check_source(input, source, d, len(idx), name)
    if source._data.ndim and source._data.shape[d] != len(idx):
        raise RuntimeError(
            f"{name}(): Number of indices ({len(idx)}) should be equal to source.size(dim): "
            f"({source._data.shape[d]}), for dim: {d}"
        )
    if not input._data.ndim:
        return _index_reduce(input.reshape(1), 0, index, source.reshape(1), reduce,
                             include_self=include_self).reshape(())
    # Whole slices as scatter_reduce's elementwise key: source[..., i, ...] goes to
    # input[..., index[i], ...] along dim.
    along = np.broadcast_to(idx.reshape([-1 if k == d else 1 for k in range(source._data.ndim)]),
                            source._data.shape)
    key = key_along(along, d)
    out = IndexReduceBackward0.apply(input, source, key=key, reduce=reduce,
                                     include_self=include_self, index=(index._data,))
    return saving_indices(out, (index,), first=3)


@tensor_method()
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """A copy of ``input`` where slice ``index[i]`` along ``dim`` is combined with
    ``source``'s slice ``i`` by ``reduce``: ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``
    (``include_self=False``: the old values of the slices written to are left out).

    >>> import teachgrad as torch
    >>> x = torch.ones(2, 2)
    >>> x.index_reduce(0, torch.tensor([0, 0]), torch.tensor([[2., 3.], [4., 5.]]), 'prod')
    tensor([[ 8., 15.],
            [ 1.,  1.]])
    """
    return _index_reduce(input, dim, index, source, reduce, include_self=include_self)


def _index_reduce_(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    return _index_reduce(input, dim, index, source, reduce, include_self=include_self)


_index_reduce_.__name__ = "index_reduce"
Tensor.index_reduce_ = inplace_method(_index_reduce_, "index_reduce_", "any")
