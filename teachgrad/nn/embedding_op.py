"""``EmbeddingBackward0``: the op behind ``F.embedding`` / ``nn.Embedding``.

An embedding is a table lookup: row ``i`` of ``weight`` for every index ``i`` in the input.
Its backward sends each output row's gradient back to the row it was read from; a row
read several times receives the *sum* of those gradients. Two PyTorch options change that
backward: ``padding_idx`` (that row gets no gradient, so a "padding" token's vector stays
fixed) and ``scale_grad_by_freq`` (each row's gradient is divided by how often the row was
read in this batch).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.saved_hooks import PackedSaved
from ..ops.index import IndexPutImplBackward0
from ..ops.op import Op
from ..ops.recorded_backward import RecordedBackward
from ..ops.saved_values import shown
from ..ops.shape import embed


class EmbeddingBackward0(Op):
    """``weight[indices]``, with the embedding's backward (see the module docstring)."""

    formula = (
        "∂out[j]/∂weight[indices[j]] = 1: each row's gradient is added back to the row it "
        "was read from (repeats add up; none for padding_idx)"
    )

    # The indices as given (PyTorch's _saved_indices): backward reads them back, so that
    # indices changed in place since make it refuse, as PyTorch's (ops.index.saving_indices).
    saved_names = ("indices",)
    # (no padding_idx: -1, which PyTorch shows as the unsigned 18446744073709551615, as
    # it shows nll_loss's ignore_index: see ops.saved_values)
    saved_attributes = {
        "padding_idx": lambda node: shown(-1 if node.padding_idx is None else node.padding_idx),
        "scale_grad_by_freq": "scale_grad_by_freq",
        "sparse": lambda node: getattr(node, "sparse", False),
        "weight_sym_argsize_0": lambda node: node.shape[0],
    }

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq, given=None):
        ctx.save_for_backward(given)
        ctx.shape, ctx.indices = weight.shape, indices
        ctx.padding_idx, ctx.scale_grad_by_freq = padding_idx, scale_grad_by_freq
        ctx.scale = _scale(indices, weight, padding_idx, scale_grad_by_freq)
        ctx.dtype = weight.dtype
        return weight[indices]

    @staticmethod
    def backward(ctx, grad):
        saved = ctx.saved_tensors  # (read for its check: changed in place since?)
        given = saved[0] if saved else None  # (none in the create_graph node's own call)
        if given is not None and type(ctx._saved) is PackedSaved:
            # made inside saved_tensors_hooks: PyTorch's backward uses the indices the
            # unpack hook gives back, not the ones forward read
            indices = (given._data if type(given) is Tensor else given).astype(np.int64)
            ctx.indices = indices.reshape(ctx.indices.shape)
            ctx.scale = _scale(ctx.indices, np.empty(ctx.shape, ctx.dtype), ctx.padding_idx,
                               ctx.scale_grad_by_freq)
        if type(grad) is Tensor:  # create_graph: one node, as PyTorch records it
            return EmbeddingDenseBackwardBackward0.record(ctx, grad)
        if ctx.scale is not None:
            grad = grad * ctx.scale
        # Scatter-add the rows back into a zero table.
        return embed(grad, ctx.shape, (ctx.indices,), IndexPutImplBackward0)


def _scale(indices: np.ndarray, weight: np.ndarray, padding_idx, scale_grad_by_freq: bool):
    """How much of its gradient each lookup passes back: 1, but 0 for the padding row and
    1/count with scale_grad_by_freq. None when all are 1 (the usual case)."""
    scale = None
    if scale_grad_by_freq:
        counts = np.bincount(indices.ravel(), minlength=weight.shape[0])
        scale = 1.0 / counts[indices]
    if padding_idx is not None:
        scale = np.ones(indices.shape) if scale is None else scale
        scale = np.where(indices == padding_idx, 0.0, scale)
    return None if scale is None else scale[..., None].astype(weight.dtype)


class EmbeddingDenseBackwardBackward0(RecordedBackward):
    """The embedding's backward (rows added into a zero table) as one node."""

    formula = ("embedding's backward, the rows of g added into a zero table:  "
               "∂/∂g = the table's gradient read back at the indices")

    @staticmethod
    def backward(ctx, gg):
        node = ctx.node
        picked = gg[node.indices]  # each output row read its table row: it gets that row back
        return picked if node.scale is None else picked * node.scale


__all__ = ["EmbeddingBackward0"]
