"""``nn.LinearCrossEntropyLoss``: a classifier's last ``Linear`` and its cross entropy as
one module (see :mod:`teachgrad.nn.linear_cross_entropy`)."""

from __future__ import annotations

import math

from ..._tensor import Tensor
from ..linear_cross_entropy import LinearCrossEntropyOptions, linear_cross_entropy
from .linear import Linear
from .loss import _WeightedLoss


class LinearCrossEntropyLoss(_WeightedLoss):
    """This criterion computes the cross entropy loss between input, linearly transformed to
    logits, and target: ``CrossEntropyLoss()(Linear(in_features, num_classes)(input),
    target)`` with the linear layer inside (``self.linear``).

    ``out_features=(d_1, ..., d_K)`` gives a K-dimensional loss (logits
    ``(N, C, d_1, ..., d_K)``); the weight is stored flat, as ``Linear(in_features,
    C·d_1·…·d_K)``, and reshaped in ``forward``, as in PyTorch. ``weight`` (per class),
    ``reduction``, ``ignore_index`` (``None``: -100) and ``label_smoothing`` are
    cross entropy's; ``options`` selects PyTorch's chunked kernel (same values).

    >>> import teachgrad as torch
    >>> loss = torch.nn.LinearCrossEntropyLoss(5, 10)
    >>> list(loss.state_dict())
    ['linear.weight']
    >>> loss(torch.randn(3, 5), torch.tensor([1, 0, 9])).dim()  # one number: the mean
    0
    """

    def __init__(self, in_features: int, num_classes: int, *,
                 out_features: tuple[int, ...] = (), bias: bool = False, device=None,
                 dtype=None, reduction: str = "mean", weight: Tensor | None = None,
                 ignore_index: int | None = None, label_smoothing: float = 0.0,
                 options: LinearCrossEntropyOptions | None = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(
                f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(
                f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # Linear's weight is a matrix: keep the (C, d_1, ..., d_K, in) weight flat.
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes),
                             bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        linear_weight = self.linear.weight.reshape(
            (self.num_classes, *self.out_features, self.linear.in_features))
        linear_bias = (self.linear.bias.reshape((self.num_classes, *self.out_features))
                       if self.linear.bias is not None else None)
        return linear_cross_entropy(
            input, linear_weight, target, linear_bias=linear_bias, weight=self.weight,
            reduction=self.reduction, ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing, options=self.options,
        )

    def extra_repr(self) -> str:
        return (
            f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
            f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
            f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
            f"label_smoothing={self.label_smoothing}, options={self.options}"
        )


__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
