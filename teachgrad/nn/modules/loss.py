"""Loss layers: a number that says how wrong the model is, to call ``backward()`` on.

Each loss module stores its settings and calls the function of the same name in
:mod:`teachgrad.nn.functional`::

    criterion = nn.CrossEntropyLoss()
    loss = criterion(model(x), y)     # logits (N, C), class indices (N,)
    loss.backward()

``reduction`` chooses what comes out: ``'mean'`` (default) or ``'sum'`` over the samples,
or ``'none'`` for one loss per sample.
"""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class _Loss(Module):
    """Common constructor: ``reduction`` (and PyTorch's legacy size_average/reduce flags)."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # warned below, once, from here
                reduction = F._legacy_reduction(size_average, reduce, reduction)
            warnings.warn(
                "size_average and reduce args will be deprecated, please use "
                f"reduction='{reduction}' instead.", UserWarning, stacklevel=3,
            )
        self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with per-class weights, kept as a buffer (saved in ``state_dict``)."""

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error: ``mean((input - target)²)``. The loss of regression."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error: ``mean(|input - target|)``."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood of log-probabilities (use after ``LogSoftmax``)."""

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of raw scores (logits): ``LogSoftmax`` and ``NLLLoss`` in one step.

    The loss of classification. ``target``: class indices (int64, shape ``(N,)``) or class
    probabilities (floats, the input's shape).
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities (use after ``Sigmoid``)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of raw scores: ``Sigmoid`` and ``BCELoss`` in one stable step."""

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


__all__ = [
    "MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
]
