"""``F.linear_cross_entropy``: a linear layer and cross entropy as one loss.

A language model's last step maps each hidden vector to one score per word of the
vocabulary and takes the cross entropy of those scores; with a vocabulary of 100 000
words the ``(batch, vocabulary)`` matrix of scores is the largest tensor of the model.
PyTorch fuses the two (``loss = linear_cross_entropy(x, W, target)``) so that, with
``options=LinearCrossEntropyOptions(...)``, it can process the batch in chunks and never
hold all the scores at once. The value is by definition

    cross_entropy(linear(x, W, b), target, ...)

which is what teachgrad computes, always in one piece: ``options`` only chooses PyTorch's
memory-saving kernel (the same values), so teachgrad accepts it, warns exactly when
PyTorch would fall back to the reference path, and otherwise ignores it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .._dtypes import int64
from .._tensor import Tensor
from .._warn import warn_user
from . import functional as F


@dataclass
class LinearCrossEntropyOptions:
    """Configuration for PyTorch's chunked implementation of :func:`linear_cross_entropy`
    (process the batch in pieces so the full logits are never materialised). teachgrad
    always computes the reference path, which gives the same values; the fields are kept
    so code written for PyTorch runs unchanged."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: Any = None


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *,
                         linear_bias: Tensor | None = None, weight: Tensor | None = None,
                         reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0,
                         options: LinearCrossEntropyOptions | None = None) -> Tensor:
    """Compute the cross entropy loss between inputs, transformed linearly, and target:
    ``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``.

    ``input`` is ``(in_features)`` or ``(N, in_features)``; ``linear_weight`` is
    ``(C, in_features)``, or ``(C, d_1, ..., d_K, in_features)`` for a K-dimensional loss
    (the logits are then ``(N, C, d_1, ..., d_K)``). ``ignore_index=None`` means -100
    for class-index targets. ``options`` selects PyTorch's chunked kernel; teachgrad
    computes the same values in one piece (see the module docstring).

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> x, w = torch.tensor([[1.0, 0.0]]), torch.tensor([[2.0, 0.0], [0.0, 0.0]])
    >>> F.linear_cross_entropy(x, w, torch.tensor([0]))  # -log(e²/(e² + 1))
    tensor(0.1269)
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}"
        )
    logits_shape = (*num_batches, num_classes, *out_features)
    # cross_entropy reads a target shaped like the logits as class probabilities.
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if options is not None and (out_features or reduction not in {"mean", "sum", "none"}
                                or label_smoothing != 0.0 or target.dtype != int64):
        warn_user(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
            "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
            f"out_features == (). Got reduction={reduction!r}, "
            f"label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
            f"out_features={out_features}, tracing=False, linear_bias.shape="
            f"{tuple(linear_bias.shape) if linear_bias is not None else None}.",
            UserWarning,
        )
    if out_features:  # one Linear producing C·d_1·…·d_K scores, reshaped below
        flat = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((flat, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = F.linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                           ignore_index=ignore_index, label_smoothing=label_smoothing)


__all__ = ["LinearCrossEntropyOptions", "linear_cross_entropy"]
