"""More loss functions of ``nn.functional``: robust regression (``smooth_l1_loss``,
``huber_loss``), distributions (``kl_div``, ``gaussian_nll_loss``, ``poisson_nll_loss``),
margins and embeddings (``margin_ranking_loss``, ``hinge_embedding_loss``,
``cosine_embedding_loss``, ``triplet_margin_loss``, ``triplet_margin_with_distance_loss``,
``soft_margin_loss``, ``multi_margin_loss``, ``multilabel_margin_loss``,
``multilabel_soft_margin_loss``).

Each is written the way PyTorch writes it: five are fused ops with their own node
(:mod:`teachgrad.nn.loss_ops`), the others are compositions of ordinary differentiable
ops, so the node at the top of the graph has PyTorch's name and gradients of any order
work. ``reduction`` is ``'mean'`` (default), ``'sum'`` or ``'none'``.

The checks shared with the other losses (reduction names, PyTorch's messages) are those
of :mod:`teachgrad.nn.functional`, which imports this module; they are looked up when a
loss is called, not when this module is loaded.
"""

from __future__ import annotations

import math

import numpy as np

from .._creation import full_like, ones_like, zeros_like
from .._input_check import DOUBLE, refuses_complex
from .._tensor import Tensor
from .._warn import warn_user
from ..autograd.grad_mode import no_grad
from ..ops import pointwise
from ..ops.index import saving_indices
from ..ops.number_factor import minus_number, number_minus, plus_number, times_number
from ..ops.pointwise import where
from ..ops.special import xlogy
from . import functional as F
from .argument_types import (
    bool_argument,
    operand_argument,
    scalar_argument,
    takes_arguments,
)
from .distance import pairwise_distance
from .loss_ops import (
    HuberLossBackward0,
    MultilabelMarginLossBackward0,
    MultiMarginLossBackward0,
    SmoothL1LossBackward0,
    SoftMarginLossBackward0,
)


def _reduction_of(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """The reduction to use, from ``reduction`` or PyTorch's legacy flags (with its
    warning), checked."""
    return F._check_reduction(F._legacy_reduction(size_average, reduce, reduction))


def _apply_reduction(loss: Tensor, reduction: str) -> Tensor:
    """PyTorch's ``apply_loss_reduction``: ``loss.mean()``, ``loss.sum()`` or ``loss``."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


# ----------------------------------------------------------------------------------------
# Robust regression
# ----------------------------------------------------------------------------------------
@refuses_complex("smooth_l1_loss", beta=4)
def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                   reduce: bool | None = None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """Squared error for small differences, absolute error for large ones::

        loss = 0.5·d²/β  if |d| < β  else  |d| − 0.5·β        (d = input − target)

    Less sensitive to outliers than MSE; ``beta=0`` is exactly ``l1_loss``.

    >>> import teachgrad as torch
    >>> torch.nn.functional.smooth_l1_loss(torch.tensor([0.5, 3.0]), torch.zeros(2),
    ...                                    reduction="none")
    tensor([0.1250, 2.5000])
    """
    beta = scalar_argument(beta, "smooth_l1_loss", "beta", 4, kind="float")
    input, target = F._as_tensor(input, "input"), F._as_tensor(target, "target")
    reduction = F._legacy_reduction(size_average, reduce, reduction)
    input, target = F._broadcast_pair(input, target)
    F._check_reduction(reduction)
    if beta == 0.0:  # the quadratic part vanishes: PyTorch calls l1_loss
        return F.l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    F._require_floating(input, "smooth_l1_cpu")
    return SmoothL1LossBackward0.apply(input, target, reduction=reduction, beta=beta)


@refuses_complex("huber_loss", delta=4)
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``0.5·d²`` where ``|d| < delta``, else ``delta·(|d| − 0.5·delta)``: smooth_l1 times
    ``delta`` (its linear part has slope ``delta`` instead of 1). ``weight`` (the input's
    shape) weighs each element.

    >>> import teachgrad as torch
    >>> torch.nn.functional.huber_loss(torch.tensor([0.5, 3.0]), torch.zeros(2), delta=2.0,
    ...                                reduction="none")
    tensor([0.1250, 4.0000])
    """
    delta = scalar_argument(delta, "huber_loss", "delta", 4, kind="float")
    input, target = F._as_tensor(input, "input"), F._as_tensor(target, "target")
    expanded_input, expanded_target = F._broadcast_pair(input, target)
    # PyTorch's Python checks the reduction (no weight) or the weight's size before its
    # kernel checks delta and the dtype.
    if weight is None:
        reduction = F._check_reduction(reduction)
    elif weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    F._require_floating(input, "huber_cpu")
    dtypes = (input._data.dtype, target._data.dtype)
    if weight is None:
        return HuberLossBackward0.apply(expanded_input, expanded_target,
                                        reduction=reduction, delta=delta, dtypes=dtypes)
    weighted = HuberLossBackward0.apply(expanded_input, expanded_target, reduction="none",
                                        delta=delta, dtypes=dtypes) * weight
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(
            f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'."
        )
    return _apply_reduction(weighted, reduction)


# ----------------------------------------------------------------------------------------
# Distributions
# ----------------------------------------------------------------------------------------
def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None,
           reduce: bool | None = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """The Kullback-Leibler divergence ``KL(target ‖ prediction)``, with ``input`` holding
    the prediction's *log*-probabilities (from ``log_softmax``)::

        loss = target · (log target − input)       (log_target=True: target is a log too)

    Use ``reduction='batchmean'`` for the true KL divergence per sample: ``'mean'``
    averages over every element, which also divides by the number of classes (PyTorch
    warns about it, and so does teachgrad).

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> p = torch.tensor([[0.5, 0.5]])
    >>> F.kl_div(torch.tensor([[0.9, 0.1]]).log(), p, reduction="batchmean")
    tensor(0.5108)
    """
    if size_average is not None or reduce is not None:
        reduction = F._legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warn_user(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.", UserWarning,
        )
    if reduction != "batchmean":
        F._check_reduction(reduction)
    bool_argument(log_target, "kl_div", "log_target")
    if not (input.is_floating_point() and target.is_floating_point()):
        raise RuntimeError(  # (integer or bool: PyTorch's kernel refuses both)
            "kl_div: Integral inputs not supported.\nHint: give float probabilities, e.g. "
            "target.float() (kl_div compares two distributions, not class labels).")
    # (the right operand first, as PyTorch's C++ evaluates them: the nodes' order decides
    # the order in which the engine sums a gradient's two paths under create_graph)
    if log_target:
        difference = target - input
        output = pointwise.exp(target) * difference
    else:
        product = target * input
        output = xlogy(target, target) - product  # 0·log 0 counts as 0
    reduced = _apply_reduction(output, "sum" if reduction == "batchmean" else reduction)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


@refuses_complex("gaussian_nll_loss", eps=DOUBLE)
def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """The negative log likelihood of ``target`` under normal distributions with means
    ``input`` and variances ``var`` (a network that predicts its own uncertainty)::

        loss = 0.5 · (log var + (input − target)² / var)   (+ 0.5·log 2π if full)

    ``var`` may have the input's shape, or one dimension fewer (one variance per sample),
    or a 1 where the input has a size; it is clamped to at least ``eps``, a clamp that is
    not differentiated (PyTorch's choice).

    >>> import teachgrad as torch
    >>> torch.nn.functional.gaussian_nll_loss(torch.tensor([1.0]), torch.tensor([3.0]),
    ...                                       torch.tensor([4.0]))
    tensor(1.1931)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():  # one variance per sample: broadcast it
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim
                  and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1):
            raise ValueError(
                "var is of incorrect size"
                f"\nHint: input is {list(input.shape)}; var must have that shape, or lack "
                "its last dimension, or have a 1 where the input has a size."
            )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():  # keep the variance away from 0, outside the derivative
        var.clamp_(min=operand_argument(eps, "clamp_", "min"))
    loss = 0.5 * (pointwise.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


@refuses_complex("poisson_nll_loss", eps=5)
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True,
                     full: bool = False, size_average: bool | None = None, eps: float = 1e-8,
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """The negative log likelihood of counts ``target`` under Poisson distributions with
    rates ``input`` (``log_input=True``: ``input`` is the log of the rate)::

        log_input:  loss = e^input − target·input
        otherwise:  loss = input − target·log(input + eps)

    ``full`` adds Stirling's approximation of ``log(target!)`` (for targets above 1).

    >>> import teachgrad as torch
    >>> torch.nn.functional.poisson_nll_loss(torch.tensor([0.0]), torch.tensor([2.0]))
    tensor(1.)
    """
    reduction = F._legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    bool_argument(log_input, "poisson_nll_loss", "log_input", 3)
    bool_argument(full, "poisson_nll_loss", "full", 4)
    eps = scalar_argument(eps, "poisson_nll_loss", "eps", 5, kind="float")
    if log_input:
        product = target * input  # (first, as PyTorch's C++ evaluates it: see kl_div)
        loss = pointwise.exp(input) - product
    else:
        shifted = plus_number(input, eps) if input.is_floating_point() else input + eps
        loss = input - target * pointwise.log(shifted)
    if full:
        # target·log(target) − target + ½·log(2π·target), computed as PyTorch's C++ does
        # (the right operand first; tensor-times-number nodes, MulBackward1)
        half_log = _number_times(0.5, pointwise.log(_number_times(2 * math.pi, target)))
        stirling = target * pointwise.log(target) - target + half_log
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


def _number_times(number: float, t: Tensor) -> Tensor:
    """``number * t`` as PyTorch's C++ records it for a float tensor (MulBackward1)."""
    return times_number(t, number) if t.is_floating_point() else number * t


# ----------------------------------------------------------------------------------------
# Margins: pairs, rankings, embeddings
# ----------------------------------------------------------------------------------------
@refuses_complex("margin_ranking_loss", margin=4)
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, −y·(x1 − x2) + margin)``: ``y = 1`` says x1 should rank higher than x2
    (by at least ``margin``), ``y = −1`` the opposite.

    >>> import teachgrad as torch
    >>> torch.nn.functional.margin_ranking_loss(torch.tensor([2.0, 0.0]),
    ...     torch.tensor([1.0, 1.0]), torch.tensor([1.0, 1.0]), reduction="none")
    tensor([0., 1.])
    """
    margin = scalar_argument(margin, "margin_ranking_loss", "margin", 4, kind="float")
    reduction = _reduction_of(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got "
            f"sizes: input1: {input1.size()}, input2: {input2.size()}, target: "
            f"{target.size()} "
        )
    output = (-target * (input1 - input2) + margin).clamp_min(0)
    return _apply_reduction(output, reduction)


@refuses_complex("hinge_embedding_loss", margin=3)
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """For distances ``input`` and labels ``y = ±1``: the distance itself where ``y = 1``
    (similar pairs should be close), ``max(0, margin − distance)`` where ``y = −1``
    (dissimilar pairs at least ``margin`` apart).

    >>> import teachgrad as torch
    >>> torch.nn.functional.hinge_embedding_loss(torch.tensor([0.3, 0.3]),
    ...     torch.tensor([1.0, -1.0]), reduction="none")
    tensor([0.3000, 0.7000])
    """
    margin = scalar_argument(margin, "hinge_embedding_loss", "margin", 3, kind="float")
    reduction = _reduction_of(size_average, reduce, reduction)
    zeros = zeros_like(input)
    # ATen's (margin - input) fills a tensor like input with margin, then subtracts: an int
    # input keeps its dtype (the margin truncated), a bool one is refused as bool - bool
    margin_clamp = (full_like(input, margin) - input).clamp_min(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _apply_reduction(output_margin + output_self, reduction)


_COSINE_EPSILON = 1e-12  # PyTorch's, added to each squared magnitude


@refuses_complex("cosine_embedding_loss", margin=4)
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> Tensor:
    """For pairs of vectors and labels ``y = ±1``: ``1 − cos(x1, x2)`` where ``y = 1``
    (similar: point the same way), ``max(0, cos(x1, x2) − margin)`` where ``y = −1``.

    >>> import teachgrad as torch
    >>> x1 = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    >>> x2 = torch.tensor([[0.0, 1.0], [1.0, 1.0]])
    >>> torch.nn.functional.cosine_embedding_loss(x1, x2, torch.tensor([1, -1]),
    ...                                           reduction="none")
    tensor([1.0000, 0.7071])
    """
    margin = scalar_argument(margin, "cosine_embedding_loss", "margin", 4, kind="float")
    reduction = _reduction_of(size_average, reduce, reduction)
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(
            "1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    if targ_dim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    prod_sum = (input1 * input2).sum(targ_dim)
    # (ATen's C++: tensor + EPSILON and cos - margin record AddBackward1/SubBackward1,
    # 1 - cos a SubBackward0 of a filled constant)
    mag_square1 = plus_number((input1 * input1).sum(targ_dim), _COSINE_EPSILON)
    mag_square2 = plus_number((input2 * input2).sum(targ_dim), _COSINE_EPSILON)
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    zeros = zeros_like(cos)
    output_pos = where(target == 1, number_minus(1, cos), zeros)
    output_neg = where(target == -1, minus_number(cos, margin).clamp_min(0), zeros)
    return _apply_reduction(output_pos + output_neg, reduction)


@refuses_complex("triplet_margin_loss", p=5, eps=6)
@takes_arguments("triplet_margin_loss", p=("float", 5), eps=("float", 6), swap=("bool", 7))
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average: bool | None = None,
                        reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """``max(0, d(a, p) − d(a, n) + margin)``: each anchor should be closer to its
    positive than to its negative, by at least ``margin`` (``d``: pairwise_distance).
    ``swap=True`` uses ``min(d(a, n), d(p, n))`` as the negative distance.

    >>> import teachgrad as torch
    >>> a, pos, neg = torch.tensor([[0.0, 0.0]]), torch.tensor([[1.0, 0.0]]), torch.tensor(
    ...     [[0.0, 1.5]])
    >>> torch.nn.functional.triplet_margin_loss(a, pos, neg, eps=0.0)
    tensor(0.5000)
    """
    reduction = _reduction_of(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, "
            f"and negative {negative.dim()}D inputs"
        )
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = pointwise.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    output = (margin + dist_pos - dist_neg).clamp_min(0)
    return _apply_reduction(output, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """The logistic loss ``log(1 + e^(−y·x))`` for labels ``y = ±1``: a smooth hinge.

    >>> import teachgrad as torch
    >>> torch.nn.functional.soft_margin_loss(torch.tensor([0.0]), torch.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _reduction_of(size_average, reduce, reduction)
    F._not_differentiable("soft_margin_loss", "target", target)
    pointwise._check_broadcast(input, target)
    shape = np.broadcast_shapes(input.shape, target.shape)
    if shape != tuple(input.shape):
        raise RuntimeError(
            f"output with shape {list(input.shape)} doesn't match the broadcast shape "
            f"{list(shape)}"
        )
    # PyTorch computes in place in input's dtype: -input refuses bool, and the exp of an
    # integer product cannot be written back
    if input._data.dtype == np.bool_:
        raise RuntimeError(pointwise.BOOL_NEGATION + "\nHint: the input must be a float tensor of "
                           "scores, e.g. x.float().")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{F._type_name(input)}\nHint: the input must be a float tensor "
                           "of scores, e.g. x.float().")
    labels = np.broadcast_to(target._data, shape).astype(input._data.dtype)
    loss = SoftMarginLossBackward0.apply(input, target=labels, reduction=reduction,
                                         given=target._data)
    return saving_indices(loss, (target,), first=1)  # (checked at backward)


@takes_arguments("multi_margin_loss", margin=("Number", 4))
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: bool | None = None,
                      reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """The multi-class hinge loss (an SVM's loss): for each sample of class ``y``,
    ``Σ_{j≠y} max(0, margin − x[y] + x[j])^p / C``, times ``weight[y]`` if given.

    >>> import teachgrad as torch
    >>> scores = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> torch.nn.functional.multi_margin_loss(scores, torch.tensor([3]))
    tensor(0.3250)
    """
    reduction = _reduction_of(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    ndims = input.dim()
    if not ((ndims == 2 and input.shape[1] != 0) or (ndims == 1 and input.shape[0] != 0)
            or ndims == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )
    n_samples = input.shape[0] if ndims == 2 else 1
    n_classes = input.shape[-1] if ndims else 1
    if target.dim() > 1 or target.numel() != n_samples:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{n_samples}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if target._data.dtype != np.int64:
        raise RuntimeError(
            f"expected scalar type Long but found {F._type_name(target)}"
            "\nHint: class-index targets are int64 tensors, e.g. y = y.long()."
        )
    weight_data = None
    if weight is not None:
        F._not_differentiable("multi_margin_loss", "weight", weight)
        if weight.numel() != n_classes:
            raise RuntimeError(
                f"inconsistent weight size, expected {n_classes} but got {list(weight.shape)}"
            )
        weight_data = weight._data
    classes = target._data
    if classes.size and (classes.min() < 0 or classes.max() >= n_classes):
        raise RuntimeError(
            "target out of range"
            f"\nHint: class indices must be in [0, {n_classes - 1}] for {n_classes} classes."
        )
    F._require_floating(input, "multi_margin_loss_cpu")
    loss = MultiMarginLossBackward0.apply(
        input, target=classes, p=p, margin=margin, weight=weight_data, reduction=reduction,
        scalar_output=target.dim() == 0, given=(classes, weight_data))
    return saving_indices(loss, (target, weight), first=1)  # (checked at backward)


def _check_label_range(labels: np.ndarray, classes: int) -> None:
    """PyTorch's range check of multilabel targets: their min and max read as int64 (so
    before their dtype is checked: a float -1.5 truncates to -1 and passes)."""
    if labels.size == 0:
        return
    for value in (labels.min(), labels.max()):  # (a nan propagates into both)
        if labels.dtype.kind == "f" and not np.isfinite(value):
            raise RuntimeError("value cannot be converted to type int64_t without overflow"
                               "\nHint: the targets are class indices (int64), padded "
                               "with -1.")
    if int(labels.min()) < -1 or int(labels.max()) >= classes:
        raise RuntimeError("argument #2 'target' is out of range")


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                           reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """The multi-label hinge loss: ``target`` lists each sample's classes (class indices,
    ended by the first ``-1``); every other class's score should stay at least 1 below
    each of them: ``Σ_{j∈T} Σ_{i∉T} max(0, 1 − (x[j] − x[i])) / C``.

    >>> import teachgrad as torch
    >>> scores = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> torch.nn.functional.multilabel_margin_loss(scores, torch.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    reduction = _reduction_of(size_average, reduce, reduction)
    ndims = input.dim()
    if not ((ndims == 2 and input.shape[1] != 0) or (ndims == 1 and input.shape[0] != 0)
            or ndims == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )
    if ndims <= 1:
        expected = list(input.shape) if ndims else []
        if target.dim() > 1 or list(target.shape) != expected:
            raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                               f"size: {list(input.shape)}")
    elif target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    c = input.shape[-1] if ndims else 1
    # PyTorch's order: the shapes, target's range, input's dtype, then target's dtype
    _check_label_range(target._data, c)
    F._require_floating(input, "multilabel_margin_loss_forward_out_frame")
    if target._data.dtype != np.int64:
        raise RuntimeError(
            f"expected scalar type Long but found {F._type_name(target)}"
            "\nHint: the targets are class indices (int64), padded with -1."
        )
    classes = target._data.reshape(-1, c)
    # Each sample's targets: the listed classes before the first -1, counted (a class
    # listed twice counts twice, as in PyTorch's loop).
    listed = np.cumprod(classes != -1, axis=1).astype(bool)
    targets = np.zeros(classes.shape, np.int64)
    rows = np.broadcast_to(np.arange(len(classes))[:, None], classes.shape)
    np.add.at(targets, (rows[listed], classes[listed]), 1)
    loss = MultilabelMarginLossBackward0.apply(
        input, targets=targets, reduction=reduction, scalar_output=ndims <= 1,
        given=target._data)
    return saving_indices(loss, (target,))  # (checked at backward)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function=None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean") -> Tensor:
    """:func:`triplet_margin_loss` with any distance: ``distance_function(a, b)`` gives one
    distance per sample (default: :func:`pairwise_distance`), e.g. ``1 - cosine``.

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> a, pos, neg = torch.tensor([[1.0, 0.0]]), torch.tensor([[1.0, 1.0]]), torch.tensor(
    ...     [[0.0, 1.0]])
    >>> cosine = lambda x, y: 1 - F.cosine_similarity(x, y)
    >>> F.triplet_margin_with_distance_loss(a, pos, neg, distance_function=cosine, margin=1.5)
    tensor(0.7929)
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, "
            f"and negative {negative.ndim}D inputs"
        )
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:  # the positive may be nearer the negative than the anchor is: use that
        dist_neg = pointwise.minimum(dist_neg, distance(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    return _apply_reduction(loss, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: bool | None = None,
                                reduce: bool | None = None,
                                reduction: str = "mean") -> Tensor:
    """Binary cross entropy on logits for each of ``C`` independent labels (``target``
    of 0s and 1s), averaged over the labels: one loss per sample.

    >>> import teachgrad as torch
    >>> torch.nn.functional.multilabel_soft_margin_loss(torch.tensor([[0.0, 0.0]]),
    ...                                                 torch.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = F._legacy_reduction(size_average, reduce, reduction)
    loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)  # one loss per sample
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _apply_reduction(loss, reduction)


__all__ = [
    "smooth_l1_loss", "huber_loss", "kl_div", "gaussian_nll_loss", "poisson_nll_loss",
    "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
    "triplet_margin_loss", "soft_margin_loss", "multi_margin_loss",
    "multilabel_soft_margin_loss",
]
