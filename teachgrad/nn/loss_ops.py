"""The fused loss ops behind ``smooth_l1_loss``, ``huber_loss``, ``soft_margin_loss`` and
``multi_margin_loss``: the losses PyTorch computes in one kernel and records as one node
(``SmoothL1LossBackward0`` ...). The other losses of :mod:`teachgrad.nn.losses` are
compositions of ordinary ops, as in PyTorch.

Forward runs on NumPy arrays; backward is written with NumPy operators and ``np.*``
functions only, with masks taken from the raw arrays, so that the same formulas also run
on tensors under ``create_graph=True`` (gradients of gradients).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from ..ops.loss import _REDUCTION_NUMBERS as REDUCTION_NUMBERS
from ..ops.loss import _raw, _reduce, _scale, stable_sigmoid
from ..ops.op import Op
from ..ops.pointwise import BOOL_NEGATION
from ..ops.recorded_backward import RecordedBackward


class SmoothL1LossBackward0(Op):
    """``0.5·d²/β`` where ``|d| < β``, else ``|d| − 0.5·β`` (``d = input − target``):
    quadratic near zero, linear (like L1) far away."""
    saved_names = ("self", "target")  # grad_fn._saved_...
    saved_attributes = {"beta": "beta", "reduction": lambda node: REDUCTION_NUMBERS[node.reduction]}

    formula = "∂ℓ/∂a = d/β where |d| < β, else sign(d)    ∂ℓ/∂t = −∂ℓ/∂a    (d = a − t)"
    promotes = True

    @staticmethod
    def forward(ctx, input, target, reduction="mean", beta=1.0):
        ctx.save_for_backward(input, target)
        ctx.reduction, ctx.beta = reduction, beta
        z = np.abs(input - target)
        losses = np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)
        return _reduce(losses.astype(z.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        if type(grad) is Tensor:  # create_graph: one node, as PyTorch records it
            return SmoothL1LossBackwardBackward0.record(ctx, grad, input, target)
        diff = input - target
        inside = np.abs(_raw(diff)) < ctx.beta  # a constant of the derivative
        slope = np.where(inside, diff / ctx.beta, np.sign(diff))
        g = grad * _scale(ctx.reduction, int(np.prod(np.shape(diff)))) * slope
        return g, -g


class HuberLossBackward0(Op):
    """``0.5·d²`` where ``|d| < δ``, else ``δ·(|d| − 0.5·δ)``: smooth_l1 times ``δ`` (for
    ``β = δ``), so the linear part has slope ``δ``."""
    saved_names = ("self", "target")  # grad_fn._saved_...
    saved_attributes = {"delta": "delta",
                        "reduction": lambda node: REDUCTION_NUMBERS[node.reduction]}

    formula = "∂ℓ/∂a = d where |d| ≤ δ, else δ·sign(d)    ∂ℓ/∂t = −∂ℓ/∂a    (d = a − t)"
    promotes = True

    @staticmethod
    def forward(ctx, input, target, reduction="mean", delta=1.0, dtypes=None):
        ctx.save_for_backward(input, target)
        ctx.reduction, ctx.delta, ctx.dtypes = reduction, delta, dtypes
        z = np.abs(input - target)
        losses = np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
        # PyTorch's kernel writes into a tensor like the input: the input's dtype, whatever
        # the target's (float32 input, float64 target: float32)
        out_dtype = z.dtype if dtypes is None else dtypes[0]
        return _reduce(losses.astype(out_dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        if ctx.dtypes is not None and ctx.dtypes[0] != ctx.dtypes[1]:
            raise _dtype_mismatch(*ctx.dtypes)
        input, target = ctx.saved_tensors
        if type(grad) is Tensor:  # create_graph: one node, as PyTorch records it
            return HuberLossBackwardBackward0.record(ctx, grad, input, target)
        diff = input - target
        inside = np.abs(_raw(diff)) <= ctx.delta
        slope = np.where(inside, diff, ctx.delta * np.sign(diff))
        g = grad * _scale(ctx.reduction, int(np.prod(np.shape(diff)))) * slope
        return g, -g


def _dtype_mismatch(input_dtype: np.dtype, target_dtype: np.dtype) -> RuntimeError:
    """PyTorch's huber_loss backward kernel wants the target in the input's dtype (its
    forward took any): its words, then advice."""
    from .functional import _TORCH_TYPE

    return RuntimeError(
        f"Found dtype {_TORCH_TYPE[target_dtype.name]} but expected "
        f"{_TORCH_TYPE[input_dtype.name]}\nHint: huber_loss's backward needs the target in the "
        "input's dtype: pass target.to(input.dtype)."
    )


class _PiecewiseQuadraticBackwardBackward(RecordedBackward):
    """smooth_l1's and huber's backward ``±c·g·slope(d)`` (``d = a − t``, ``c`` 1 or 1/n) as
    one node. The slope is linear in ``d`` inside (steepness ``k``), constant outside."""

    @classmethod
    def backward(cls, ctx, *ggs):
        grad, input, target = ctx.saved_tensors
        node = ctx.node
        # the outputs are +c·g·slope (the input's) and −c·g·slope (the target's)
        gg_input, gg_target = (ggs + (None,))[:2]
        h = gg_input if gg_target is None else (-gg_target if gg_input is None
                                                else gg_input - gg_target)
        diff = input - target
        h = h * _scale(node.reduction, int(np.prod(np.shape(diff))))
        inside, steepness, slope = cls.piece(node, diff)
        curvature = np.where(inside, h * grad * steepness, 0)  # ∂slope/∂d: 0 outside
        return h * slope, curvature, -curvature


class SmoothL1LossBackwardBackward0(_PiecewiseQuadraticBackwardBackward):
    formula = ("smooth_l1's backward ±c·g·slope(d):  ∂/∂g = ±c·slope    ∂/∂a = ±c·g/β where "
               "|d| < β, else 0    ∂/∂t = −∂/∂a")

    @staticmethod
    def piece(node, diff):
        inside = np.abs(_raw(diff)) < node.beta
        steepness = 1 / node.beta if node.beta else 0  # (β = 0: never inside)
        return inside, steepness, np.where(inside, diff / node.beta, np.sign(diff))


class HuberLossBackwardBackward0(_PiecewiseQuadraticBackwardBackward):
    formula = ("huber's backward ±c·g·slope(d):  ∂/∂g = ±c·slope    ∂/∂a = ±c·g where "
               "|d| ≤ δ, else 0    ∂/∂t = −∂/∂a")

    @staticmethod
    def piece(node, diff):
        inside = np.abs(_raw(diff)) <= node.delta
        return inside, 1, np.where(inside, diff, node.delta * np.sign(diff))


class SoftMarginLossBackward0(Op):
    """``log(1 + e^(−y·x))`` for labels ``y = ±1``: a smooth hinge (logistic loss).

    PyTorch computes ``log1p(exp(z))``, which overflows to ``inf`` (and a ``nan``
    gradient) once ``e^z`` does; here such elements use ``z + log1p(e^(−z))`` instead, so
    they stay finite. Elsewhere the values are PyTorch's.
    """

    formula = "∂ℓ/∂x = −y·σ(−y·x)"
    saved_names = ("self", "target")  # grad_fn._saved_...
    saved_attributes = {"reduction": lambda node: REDUCTION_NUMBERS[node.reduction]}

    @staticmethod
    def forward(ctx, input, target=None, reduction="mean", given=None):
        # (``given``: the target array as given, saved as PyTorch saves it, for its version
        # check: see ops.index.saving_indices)
        ctx.save_for_backward(input, given)
        ctx.target, ctx.reduction = target, reduction
        ctx.bool_target = given is not None and given.dtype == np.bool_
        z = -input * target
        with np.errstate(over="ignore"):
            e = np.exp(z)
            losses = np.where(np.isinf(e), z + np.log1p(np.exp(-np.abs(z))), np.log1p(e))
        return _reduce(losses.astype(input.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        input = ctx.saved_tensors[0]
        if ctx.bool_target:  # (PyTorch's backward computes -target)
            raise RuntimeError(BOOL_NEGATION)
        if type(grad) is Tensor:  # create_graph: one node, as PyTorch records it
            return SoftMarginLossBackwardBackward0.record(ctx, grad, input)
        y = ctx.target
        scale = _scale(ctx.reduction, int(np.prod(np.shape(input))))
        return grad * scale * -y * stable_sigmoid(-input * y)


class SoftMarginLossBackwardBackward0(RecordedBackward):
    formula = ("soft_margin's backward −c·g·y·σ(−y·x):  ∂/∂g = −c·y·σ(−y·x)    "
               "∂/∂x = c·g·y²·σ(−y·x)·(1 − σ(−y·x))")

    @staticmethod
    def backward(ctx, gg):
        grad, input = ctx.saved_tensors
        y = ctx.node.target
        h = gg * _scale(ctx.node.reduction, int(np.prod(np.shape(input))))
        s = stable_sigmoid(-input * y)
        return h * -y * s, h * grad * (y * y) * s * (1 - s)


class MultiMarginLossBackward0(Op):
    """The multi-class hinge loss: for each sample with class ``y``,
    ``Σ_{j≠y} max(0, margin − x[y] + x[j])^p · w[y] / C`` (``p`` is 1 or 2).

    Every wrong class whose score comes within ``margin`` of the right one adds to the
    loss: it pushes that score down and the right one up.
    """

    formula = ("∂ℓ/∂x[j] = p·zʲ^(p−1)·w[y]/C where zʲ = margin − x[y] + x[j] > 0 (j ≠ y)"
               "    ∂ℓ/∂x[y] = −Σⱼ ∂ℓ/∂x[j]")
    saved_names = ("self", "target", "weight")  # grad_fn._saved_... (weight: None if none)
    saved_attributes = {"p": "p", "margin": "margin",
                        "reduction": lambda node: REDUCTION_NUMBERS[node.reduction]}

    @staticmethod
    def forward(ctx, input, target=None, p=1, margin=1.0, weight=None, reduction="mean",
                scalar_output=False, given=()):
        x = input.reshape(-1, input.shape[-1]) if input.ndim else input.reshape(1, 1)
        n, c = x.shape
        one_hot = np.zeros_like(x)
        one_hot[np.arange(n), target.reshape(n)] = 1
        # (``given``: the target and weight arrays, saved as PyTorch saves them, for their
        # version check: see ops.index.saving_indices)
        ctx.save_for_backward(input, *given)
        ctx.one_hot, ctx.p, ctx.margin = one_hot, p, margin
        ctx.reduction, ctx.scalar_output = reduction, scalar_output
        # The right class's weight, per sample (the loss of a sample is scaled by it).
        sample_weight = (1.0 if weight is None
                         else weight[target.reshape(n)].reshape(n, 1).astype(x.dtype))
        ctx.sample_weight = sample_weight
        z = margin - np.sum(x * one_hot, axis=1, keepdims=True) + x
        active = (z > 0) & (one_hot == 0)  # wrong classes within the margin
        terms = np.where(active, z if p == 1 else z * z, 0) * sample_weight
        losses = (np.sum(terms, axis=1) / c).astype(x.dtype, copy=False)
        if reduction == "none" and not scalar_output:
            return losses
        return _reduce(losses.reshape(()) if scalar_output else losses,
                       "sum" if reduction == "none" else reduction)

    @staticmethod
    def backward(ctx, grad):
        input = ctx.saved_tensors[0]
        shape = np.shape(input)
        one_hot = ctx.one_hot
        n, c = one_hot.shape
        x = np.reshape(input, (n, c))
        z = ctx.margin - np.sum(x * one_hot, axis=1, keepdims=True) + x
        active = ((_raw(z) > 0) & (one_hot == 0)).astype(one_hot.dtype)
        slope = active if ctx.p == 1 else 2 * z * active
        if ctx.reduction == "none" and not ctx.scalar_output:
            grad = np.reshape(grad, (n, 1))
        elif ctx.reduction == "mean":
            grad = grad / n
        wrong = slope * ctx.sample_weight / c  # ∂ℓ/∂x[j] for the wrong classes ...
        # ... and the right class gets minus their sum. Then times the incoming gradient,
        # last, as PyTorch's kernel: an inf gradient stays ±inf where the slope is not 0.
        local = wrong - one_hot * np.sum(wrong, axis=1, keepdims=True)
        return np.reshape(local * grad, shape)


class MultilabelMarginLossBackward0(Op):
    """The multi-label hinge loss: for each sample with target classes ``T``,
    ``Σ_{j∈T} Σ_{i∉T} max(0, 1 − (x[j] − x[i])) / C``.

    Every non-target score that comes within 1 of a target score adds to the loss. The
    loss is piecewise linear, so its gradient is a constant per sample (computed in the
    forward): ``+1/C`` for each active pair on ``x[i]``, ``−1/C`` on ``x[j]``.
    """

    formula = ("ℓ = Σ_{j∈T, i∉T} max(0, 1 − x[j] + x[i]) / C    ∂ℓ/∂x[i] = +(active pairs)/C,"
               "  ∂ℓ/∂x[j] = −(active pairs)/C")

    saved_names = ("target", "self")  # grad_fn._saved_... (as saved: see forward)
    saved_attributes = {
        # PyTorch's kernel marks each sample's target classes in a tensor like the input
        "is_target": lambda node: _make(
            (node.targets > 0).astype(node.slope.dtype).reshape(node.input_shape)),
        "reduction": lambda node: REDUCTION_NUMBERS[node.reduction],
    }

    @staticmethod
    def forward(ctx, input, targets=None, reduction="mean", scalar_output=False, given=None):
        """``targets``: an ``(N, C)`` table of how often each class is listed for each
        sample (PyTorch's loop counts a class listed twice twice); ``given``: the target
        array as given. Both it and the input are saved as PyTorch saves them: backward
        refuses either changed in place since (see ops.index.saving_indices)."""
        ctx.save_for_backward(given, input)
        ctx.targets = targets
        x = input.reshape(-1, input.shape[-1]) if input.ndim else input.reshape(1, 1)
        n, c = x.shape
        # margins[n, j, i] = 1 - x[j] + x[i], for target j and non-target i, each pair
        # counted as often as j is listed.
        pairs = targets[:, :, None] * (targets == 0)[:, None, :]
        margins = 1 - x[:, :, None] + x[:, None, :]
        active = np.where(margins > 0, pairs, 0)
        losses = (np.sum(active * margins, axis=(1, 2)) / c).astype(x.dtype)
        # The constant gradient of each sample's loss.
        slope = (active.sum(axis=1) - active.sum(axis=2)).astype(x.dtype) / c
        ctx.slope, ctx.input_shape = slope, input.shape
        ctx.reduction, ctx.scalar_output = reduction, scalar_output
        if reduction == "none" and not scalar_output:
            return losses
        return _reduce(losses.reshape(()) if scalar_output else losses,
                       "sum" if reduction == "none" else reduction)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only
        n = ctx.slope.shape[0]
        if ctx.reduction == "none" and not ctx.scalar_output:
            grad = np.reshape(grad, (n, 1))
        elif ctx.reduction == "mean":
            grad = grad / n
        return np.reshape(grad * ctx.slope, ctx.input_shape)


__all__: list[str] = []
