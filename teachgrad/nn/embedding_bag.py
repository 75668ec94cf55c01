"""``F.embedding_bag``: look up rows of a table and reduce each *bag* of them to one vector
(sum, mean or max) without building the ``(indices, dim)`` intermediate.

The bags are given either as a 2-d input (one bag per row, all the same length) or as a
flat 1-d input cut by ``offsets`` (bag ``b`` holds ``input[offsets[b]:offsets[b+1]]``: bags
can have different lengths, even zero). ``per_sample_weights`` (``mode='sum'`` only)
weighs each looked-up row. Rows equal to ``padding_idx`` are left out of their bag (and
out of its mean's count). An empty bag gives zeros.

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> table = torch.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]])
>>> F.embedding_bag(torch.tensor([0, 1, 2, 2]), table, torch.tensor([0, 2]), mode="sum")
tensor([[1., 2.],
        [8., 8.]])
"""

from __future__ import annotations

import numpy as np

from .._dtypes import int64
from .._input_check import refuses_complex
from .._tensor import Tensor, _make
from .._warn import warn_user
from ..autograd import graph
from ..ops.index import IndexPutImplBackward0, saving_indices
from ..ops.op import Op
from ..ops.saved_values import shown
from ..ops.shape import embed

_MODE_NUMBERS = {"sum": 0, "mean": 1, "max": 2}  # (as PyTorch's kernel numbers them)


class EmbeddingBagBackward0(Op):
    """``out[b] = reduce over i in bag b of (psw[i]·) weight[indices[i]]``."""

    formula = ("sum/mean: out[b] = Σ_i c_i·weight[idx_i]  ∂L/∂weight[idx_i] += c_i·grad[b]  "
               "∂L/∂psw[i] = <grad[b], weight[idx_i]>    max: the gradient goes to the "
               "largest entry of each column")

    # grad_fn._saved_...: what PyTorch's node shows of its arguments (index 0 is the
    # weight, whose backward needs it, where PyTorch keeps it only for per_sample_weights'
    # gradient; result1-3 are its kernel's bookkeeping: neither is shown)
    saved_attributes = {
        "per_sample_weights": lambda node: graph.saved_value(node, 1),
        "indices": lambda node: graph.saved_value(node, 2),
        # (a 2-d input's offsets are made by F.embedding_bag, as PyTorch's Python makes them)
        "offsets": lambda node: (graph.saved_value(node, 3) if node.made_offsets is None
                                 else _make(node.made_offsets)),
        "mode": lambda node: _MODE_NUMBERS[node.mode],
        "padding_idx": lambda node: shown(-1 if node.padding_idx is None
                                          else node.padding_idx),
        "scale_grad_by_freq": "scale_grad_by_freq",
        "sparse": lambda node: False,  # (sparse=True is refused: no sparse gradients)
        "weight_sym_argsize_0": lambda node: node.weight_shape[0],
    }

    @staticmethod
    def forward(ctx, weight, psw, indices, bags, count, mode, keep, scale_grad_by_freq,
                given=(None, None), padding_idx=None, made_offsets=None):
        """``bags[i]``: the bag of index ``i``; ``keep[i]``: False for padding; ``given``:
        the indices and offsets arrays as given, saved for their version check (as PyTorch
        saves them: see embedding_bag)."""
        dim = weight.shape[1]
        rows = weight[indices]                                   # (L, dim)
        ctx.weight_shape, ctx.mode = weight.shape, mode
        ctx.padding_idx, ctx.scale_grad_by_freq = padding_idx, scale_grad_by_freq
        ctx.made_offsets = made_offsets
        ctx.indices, ctx.bags, ctx.keep = indices, bags, keep
        ctx.save_for_backward(weight, psw, *given)
        if mode == "max":
            kept = np.flatnonzero(keep)
            low = -np.inf if weight.dtype.kind == "f" else np.iinfo(weight.dtype).min
            top = np.full((count, dim), low, weight.dtype)
            np.maximum.at(top, bags[kept], rows[kept])
            # The winner of each (bag, column): the first index reaching the maximum
            # (PyTorch's choice on ties); -1 for an empty bag.
            reaches = rows[kept] == top[bags[kept]]
            best = np.full((count, dim), len(indices), np.int64)
            np.minimum.at(best, bags[kept], np.where(reaches, kept[:, None], len(indices)))
            empty = best == len(indices)
            ctx.best = np.where(empty, -1, best)
            return np.where(empty, 0, top).astype(weight.dtype)
        coef = keep.astype(weight.dtype)
        if mode == "mean":
            sizes = np.bincount(bags[keep], minlength=count)
            coef = coef / np.maximum(sizes, 1)[bags]
        if scale_grad_by_freq:
            counts = np.bincount(indices, minlength=weight.shape[0])
            ctx.freq = (1.0 / counts[indices]).astype(weight.dtype)
        else:
            ctx.freq = None
        ctx.coef = coef
        weights = coef if psw is None else coef * psw
        out = np.zeros((count, dim), weight.dtype)
        np.add.at(out, bags, rows * weights[:, None])
        return out

    @staticmethod
    def backward(ctx, grad):
        weight, psw = ctx.saved_tensors[:2]
        need_weight, need_psw = ctx.needs_input_grad
        g_weight = g_psw = None
        if ctx.mode == "max":
            if need_weight:
                best = ctx.best
                won = best >= 0
                bag, column = np.nonzero(won)
                key = (ctx.indices[best[won]], column)
                g_weight = embed(grad[bag, column], ctx.weight_shape, key,
                                 IndexPutImplBackward0)
            return g_weight, None
        per_row = grad[ctx.bags]                                  # (L, dim)
        if need_weight:
            coef = ctx.coef if ctx.freq is None else ctx.coef * ctx.freq
            scaled = per_row * coef[:, None]
            if psw is not None:
                scaled = scaled * psw[:, None]
            g_weight = embed(scaled, ctx.weight_shape, (ctx.indices,), IndexPutImplBackward0)
        if need_psw:
            g_psw = (per_row * weight[ctx.indices]).sum(-1) * ctx.coef
        return g_weight, g_psw


def _bags(input: Tensor, offsets: Tensor | None, include_last_offset: bool,
          per_sample_weights: Tensor | None):
    """The flat indices, the bag of each, the number of bags, and the flat weights."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)}"
            )
        n, length = input.shape
        bags = np.repeat(np.arange(n), length)
        flat_weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        return input._data.reshape(-1), bags, n, flat_weights
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    starts = offsets._data.astype(np.int64)
    length = input.shape[0]
    if len(starts) and starts[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {starts[0]}"
        )
    if len(starts) and starts[-1] > length:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {length} but "
                           f"got offsets[-1] of {starts[-1]}")
    if (np.diff(starts) < 0).any():
        raise RuntimeError(
            "Expected i < index_size to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)"
            "\nHint: offsets must not decrease: each bag starts where the previous one ends."
        )
    count = len(starts) - 1 if include_last_offset else len(starts)
    # Index i is in the last bag that starts at or before it.
    bags = np.searchsorted(starts, np.arange(length), side="right") - 1
    if include_last_offset:
        bags = np.where(bags >= count, -1, bags)  # past the last offset: in no bag
    return input._data, bags, max(count, 0), per_sample_weights


def _fast_path(weight: Tensor, psw: Tensor | None, mode: str, padding_idx: int | None) -> bool:
    """Does PyTorch 2.13 sum these bags with its fast (FBGEMM) kernel? Only sums and means
    of a float32 (or float16) table whose rows are contiguous, without padding_idx and
    with contiguous per-sample weights. That kernel words an index out of range as
    "Index i of input takes value v ..."; PyTorch's loop over the indices (float64, max,
    padding_idx ...) as "embedding_bag: Expected idx >= 0 ...".

    (On more than one thread PyTorch's fast kernel splits the bags between threads and
    its report then misreads the indices: "Expected i < index_size", or another
    position. teachgrad gives the one-thread answer.)"""
    return (mode != "max" and padding_idx is None
            and weight.dtype.name in ("float32", "float16") and weight.stride()[1] == 1
            and (psw is None or psw.stride()[0] == 1))


@refuses_complex("embedding_renorm_", max_norm=3)
def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sums, means or maxima of bags of embedding rows (see the module docstring).

    >>> import teachgrad as torch
    >>> table = torch.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]])
    >>> torch.nn.functional.embedding_bag(torch.tensor([[0, 1], [2, 2]]), table)  # 2 bags
    tensor([[0.5000, 1.0000],
            [4.0000, 4.0000]])
    """
    from .functional import _embedding_renorm_

    if (isinstance(input, Tensor) and isinstance(weight, Tensor) and weight.dtype == int64
            and input.dtype.is_floating_point):  # (PyTorch still takes the old order)
        warn_user("Argument order of nn.functional.embedding_bag was changed. Usage "
                  "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                  "`embedding_bag(input, weight, ...)`.", UserWarning)
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if sparse:
        raise (ValueError("max mode does not support sparse weights") if mode == "max" else
               NotImplementedError("embedding_bag(sparse=True) needs sparse gradients, "
                                   "which teachgrad does not have; use sparse=False"))
    indices, bags, count, psw = _bags(input, offsets, include_last_offset, per_sample_weights)
    if psw is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.type()} instead (while checking arguments "
            "for embedding_bag)"
        )
    rows = weight.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-rows} "
                               f"through {rows - 1}, but got {padding_idx}")
        padding_idx %= rows
    indices = indices.astype(np.int64)
    outside = (indices < 0) | (indices >= rows)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        if not _fast_path(weight, psw, mode, padding_idx):  # PyTorch's loop over indices
            raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but "
                               f"found idx to be {indices[i]}")
        raise RuntimeError(f"Index {i} of input takes value {indices[i]} which is not in the "
                           f"valid range [0, {rows})")
    if max_norm is not None:
        _embedding_renorm_(weight, np.unique(indices), max_norm, norm_type)
    keep = bags >= 0
    if padding_idx is not None:
        keep &= indices != padding_idx
    # PyTorch saves the indices (a 2-D input flattened: a view) and the offsets it was
    # given: changed in place since, backward refuses (see saving_indices).
    given = (input.reshape(-1) if input.ndim == 2 else input, offsets)
    out = EmbeddingBagBackward0.apply(
        weight, psw, indices=indices, bags=np.maximum(bags, 0), count=count, mode=mode,
        keep=keep, scale_grad_by_freq=scale_grad_by_freq,
        given=tuple(None if t is None else t._data for t in given), padding_idx=padding_idx,
        made_offsets=(np.arange(0, input.numel(), input.shape[1], dtype=input._data.dtype)
                      if input.ndim == 2 and input.shape[1] else None))
    return saving_indices(out, given, first=2)


__all__ = ["EmbeddingBagBackward0", "embedding_bag"]
