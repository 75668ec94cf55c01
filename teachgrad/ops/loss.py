"""Loss ops: the fused operations PyTorch records for its losses.

Each class is named after the ``grad_fn`` PyTorch gives the loss (``MseLossBackward0``,
``NllLossBackward0``, ``BinaryCrossEntropyBackward0`` ...). The public functions, with
their argument checks and PyTorch's error messages, are in :mod:`teachgrad.nn.functional`;
this module only holds the math: forward (NumPy) and backward (the vector-Jacobian
product) side by side.

``reduction`` is one of ``'none'`` (one loss per element), ``'sum'`` or ``'mean'``.
Targets, class weights and ``ignore_index`` are constants of the op (keyword params), not
graph inputs, except where PyTorch can differentiate with respect to the target
(``mse_loss`` and the two binary cross entropies).

As everywhere in :mod:`teachgrad.ops`, backward formulas use NumPy operators and ``np.*``
functions only, and masks computed from saved values use the raw arrays, so the same
code also runs on tensors under ``create_graph=True``.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from ..autograd import graph
from ..autograd.graph import save_constants
from ..autograd.saved_hooks import PackedSaved
from ..autograd.saved_hooks import state as saved_hooks_state
from .number_factor import over_number
from .op import Op
from .recorded_backward import RecordedBackward
from .saved_values import shown


def _raw(x):
    """The array inside a tensor (for masks), or the array itself."""
    return getattr(x, "_data", x)


def _reduce(losses: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return losses
    if reduction == "sum":
        return np.sum(losses, dtype=losses.dtype)
    if losses.size == 0:  # PyTorch: the mean of no losses is nan (NumPy would warn)
        return np.array(np.nan, dtype=losses.dtype)
    return np.mean(losses, dtype=losses.dtype)


def _scale(reduction: str, numel: int) -> float:
    """What each element's gradient is multiplied by: 1/n for a mean, else 1."""
    return 1.0 / numel if reduction == "mean" and numel else 1.0


# ----------------------------------------------------------------------------------------
# Regression losses
# ----------------------------------------------------------------------------------------
#: how PyTorch's core numbers the reductions (``grad_fn._saved_reduction`` shows these)
_REDUCTION_NUMBERS = {"none": 0, "mean": 1, "sum": 2}


class MseLossBackward0(Op):
    """Mean squared error: ``reduce((input - target)²)``."""

    formula = "∂(a−t)²/∂a = 2(a−t)    ∂(a−t)²/∂t = −2(a−t)    (÷n for the mean)"
    promotes = True
    saved_names = ("self", "target")  # grad_fn._saved_...
    # PyTorch keeps the reduction as the number its C++ core uses for it
    saved_attributes = {"reduction": lambda node: _REDUCTION_NUMBERS[node.reduction]}

    @staticmethod
    def forward(ctx, input, target, reduction="mean"):
        ctx.save_for_backward(input, target)
        ctx.reduction = reduction
        diff = input - target
        return _reduce(diff * diff, reduction)

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            diff = input - target
            scale = 2.0 * _scale(ctx.reduction, int(np.prod(np.shape(diff))))
            g = grad * diff * scale
            return g, -g
        return MseLossBackwardBackward0.record(ctx, grad, input, target)  # create_graph


class MseLossBackwardBackward0(RecordedBackward):
    """mse_loss's backward as one node; its outputs: the input's and the target's gradient."""

    formula = ("mse's backward ±c·g·(a−t) (c = 2, ÷n for the mean):  ∂/∂g = ±c·(a−t)    "
               "∂/∂a = ±c·g    ∂/∂t = ∓c·g")

    @staticmethod
    def backward(ctx, *ggs):
        grad, input, target = ctx.saved_tensors
        diff = input - target
        scale = 2.0 * _scale(ctx.node.reduction, int(np.prod(np.shape(diff))))
        # the outputs are +c·g·(a−t) (the input's) and −c·g·(a−t) (the target's)
        h = ggs[0] if ggs[0] is not None else -ggs[1]
        if len(ggs) == 2 and ggs[0] is not None and ggs[1] is not None:
            h = ggs[0] - ggs[1]
        h = h * scale
        return h * diff, h * grad, -(h * grad)


# ----------------------------------------------------------------------------------------
# Negative log likelihood (the second half of cross entropy)
# ----------------------------------------------------------------------------------------
class NllLossBackward0(Op):
    """Negative log likelihood: ``-weight[t] · input[n, t]`` for each sample's target class ``t``.

    ``input`` holds log-probabilities, classes along dimension 1 (dimension 0 for a single
    sample). Targets equal to ``ignore_index`` contribute nothing; the ``'mean'`` divides
    by the summed weights of the targets that count (not by the number of samples).
    """

    formula = "∂(−w[t]·a[t])/∂a[c] = −w[t] if c = t else 0    (÷Σw for the mean)"
    # (PyTorch shows a negative ignore_index as an unsigned number, -100 as
    # 18446744073709551516: see saved_values)
    saved_attributes = {"reduction": lambda node: _REDUCTION_NUMBERS[node.reduction],
                        "ignore_index": lambda node: shown(node.ignore_index)}
    # Saved as PyTorch saves them, and read back by backward: a target (or weight) changed
    # in place since makes backward refuse (nll_loss saves them: save_nll_loss). Under
    # saved_tensors_hooks they are PyTorch's four, packed in its order (self, target,
    # weight, total_weight); outside, the input, target and weight (cross_entropy runs
    # this every step): the grad_fn._saved_... properties below know both layouts.

    @staticmethod
    def forward(ctx, input, target, weight=None, reduction="mean", ignore_index=-100):
        class_dim = 1 if input.ndim >= 2 else 0
        # Each sample's weight: weight[target], or 0 where the target is ignore_index.
        counted = target != ignore_index
        if weight is None and counted.all():  # the usual case: every sample counts once
            safe_target, target_weight = target, None
            ctx.counted = None
        else:
            ctx.counted = counted
            safe_target = np.where(counted, target, 0)  # any valid class; masked out below
            chosen = 1 if weight is None else weight[safe_target]
            target_weight = np.where(counted, chosen, 0).astype(input.dtype)
        picked = _pick(input, safe_target, class_dim)
        losses = -picked if target_weight is None else -target_weight * picked
        ctx.class_dim, ctx.reduction, ctx.ignore_index = class_dim, reduction, ignore_index
        ctx.input_meta = (input.shape, input.dtype)
        ctx.target = safe_target
        # The gradient is a constant pattern, built in backward: ctx.slope at each target
        # position (-weight[t], divided by the summed weights for the mean), 0 elsewhere.
        slope = -1 if target_weight is None else -target_weight
        if reduction == "none":
            ctx.slope = slope
            return losses
        if reduction == "sum":
            ctx.slope = slope
            return losses.sum(dtype=input.dtype)
        if target_weight is None:
            total_weight = input.dtype.type(target.size)
        else:
            total_weight = target_weight.sum(dtype=input.dtype)
        ctx.total_weight = total_weight  # (saved: a backward under saved_tensors_hooks)
        if total_weight == 0:  # all targets ignored: the loss is 0/0 = nan (as PyTorch)
            ctx.slope = 0  # and the gradient 0
            with np.errstate(invalid="ignore", divide="ignore"):
                return losses.sum(dtype=input.dtype) / total_weight
        ctx.slope = slope / total_weight
        return losses.sum(dtype=input.dtype) / total_weight

    @staticmethod
    def backward(ctx, grad):
        saved = ctx.saved_tensors  # (read for its check: the target changed since?)
        if type(ctx._saved) is PackedSaved:  # (self, target, weight, total_weight)
            _with_unpacked_target(ctx, saved[1], saved[2])
        if isinstance(grad, Tensor):  # create_graph: PyTorch's one node, input and all
            # (forward-mode AD runs this on a node that saved nothing: then grad only)
            return NllLossBackwardBackward0.record(ctx, grad, *saved[:1])
        return _nll_gradient(ctx, grad)


def _nll_gradient(ctx, grad: np.ndarray) -> np.ndarray:
    """nll_loss's first-order gradient on arrays: the slopes forward worked out, at each
    sample's target class."""
    shape, dtype = ctx.input_meta
    # Only the target positions get a gradient: an inf arriving stays inf there and
    # the zeros elsewhere stay 0 (multiplying a whole pattern would make them NaN).
    values = ctx.slope * grad
    if ctx.counted is not None:  # ignored samples get nothing (not 0 · inf)
        values = np.where(ctx.counted, values, 0)
    return _scatter(np.zeros(shape, dtype), ctx.target, values, ctx.class_dim)


class NllLossBackwardBackward0(RecordedBackward):
    """nll_loss's backward as one node, as PyTorch records it: its inputs are the incoming
    gradient and the input (the pattern does not depend on the input's values, but PyTorch
    lists it, so the second graph reaches the input's node)."""

    formula = ("nll's backward g·P (P: −w[t] at each target, ÷Σw for the mean):  "
               "∂/∂g = Σ ḡ·P    ∂/∂a = 0")
    # What PyTorch's node shows: the loss's own target, weight, reduction and ignore_index
    # (read from the first-order node, which keeps them)
    saved_attributes = {"target": lambda ctx: ctx.node._saved_target,
                        "weight": lambda ctx: ctx.node._saved_weight,
                        "reduction": lambda ctx: ctx.node._saved_reduction,
                        "ignore_index": lambda ctx: ctx.node._saved_ignore_index}

    @classmethod
    def forward(cls, ctx, grad, *saved, node, missing):
        # (the formula, not node.backward: that would read the node's saved values again)
        ctx.node, ctx.missing = node, missing
        ctx.save_for_backward(grad, *saved)
        return _nll_gradient(node, grad)

    @staticmethod
    def backward(ctx, gg):
        node = ctx.node
        shape, dtype = node.input_meta
        pattern = _scatter(np.zeros(shape, dtype), node.target, node.slope, node.class_dim)
        # The loss's own formula on gg, nll_loss(gg, target ...): only the target positions
        # are read, so an inf or nan of gg elsewhere stays out (not 0·inf = nan there)
        picked = np.where(pattern != 0, gg * pattern, 0)
        if node.reduction == "none":
            grad_grad = picked.sum(node.class_dim) if pattern.ndim > 1 else picked
        else:
            grad_grad = picked.sum()
        if len(ctx.saved_tensors) == 1:  # (no input recorded: see NllLossBackward0)
            return grad_grad
        # (PyTorch: zeros_like(input), a tensor, not None; not gg·0, nan for an inf gg)
        return grad_grad, np.zeros(shape, dtype)


_PLAIN_LAYOUT = {"self": 0, "target": 1, "weight": 2}
_HOOKED_LAYOUT = {"self": 0, "target": 1, "weight": 2, "total_weight": 3}


def _nll_saved(node, name: str):
    """``grad_fn._saved_<name>`` of nll_loss's node, in either layout (outside
    saved_tensors_hooks the total weight is not kept: it is worked out from the saved
    target and weight, as PyTorch's kernel sums it)."""
    hooked = type(node._saved) is PackedSaved
    if name == "total_weight" and not hooked:
        target = graph.saved_value(node, 1)  # (PyTorch's error once backward freed them)
        weight = graph.saved_value(node, 2)
        return _total_weight(node, target._data, None if weight is None else weight._data)
    index = (_HOOKED_LAYOUT if hooked else _PLAIN_LAYOUT).get(name)
    return None if index is None else graph.saved_value(node, index)


def _total_weight(node, target: np.ndarray, weight: np.ndarray | None) -> Tensor:
    """PyTorch's ``total_weight`` of nll_loss, a 0-d tensor of the input's dtype: the summed
    class weights of the targets that count (their number without weights), whatever the
    reduction; 0 for ``'none'``, whose kernel leaves it unset."""
    dtype = node.input_meta[1]
    if node.reduction == "none":
        return _make(np.zeros((), dtype))
    counted = target != node.ignore_index
    chosen = 1 if weight is None else weight[np.where(counted, target, 0)]
    return _make(np.asarray(np.where(counted, chosen, 0).sum(dtype=dtype), dtype))


for _name in _HOOKED_LAYOUT:
    setattr(NllLossBackward0, f"_saved_{_name}",
            property(lambda node, name=_name: _nll_saved(node, name),
                     doc=f"What nll_loss saved as PyTorch's ``{_name}``."))


def save_nll_loss(loss: Tensor, input: Tensor, values: tuple, target: Tensor,  # noqa: A002
                  weight: Tensor | None) -> None:
    """Have nll_loss's node save the target (and class weights: ``values``, their arrays)
    with a check that they were not changed in place before backward.

    Inside saved_tensors_hooks the node saves PyTorch's four, packed in its order: the
    input, the target, the weight (if given), the total weight (a 0-d tensor)."""
    node = loss._grad_fn
    if node is None:
        return
    if not saved_hooks_state.stack:
        save_constants(loss, values, (target, weight))
        # and the input first, as PyTorch keeps it (grad_fn._saved_self; backward then
        # refuses an input changed in place since, as PyTorch's does)
        constants, sources = node._saved
        node._saved = ((input._data, *constants), ((input, input._vc[0]), *sources))
        return
    total = _total_weight(node, values[0], values[1] if weight is not None else None)
    node._saved = graph.record_saved(
        (None, values[0], values[1] if weight is not None else None, None), (), [], (loss,))
    graph.save_input(loss, 0, input)
    graph.check_saved_constant(loss, 1, target)
    if weight is not None:
        graph.check_saved_constant(loss, 2, weight)
    graph.check_saved_constant(loss, 3, total)


def _with_unpacked_target(ctx, target, weight=None) -> None:
    """nll_loss's backward made inside saved_tensors_hooks: PyTorch's uses the target (and
    class weights) as the unpack hook gives them back, and the total weight forward summed;
    the gradient's pattern is remade from them (see NllLossBackward0.forward)."""
    target = (target._data if isinstance(target, Tensor) else target).astype(np.int64)
    if isinstance(weight, Tensor):
        weight = weight._data
    counted = target != ctx.ignore_index
    safe_target = np.where(counted, target, 0)
    chosen = 1 if weight is None else weight[safe_target]
    slope = -np.where(counted, chosen, 0).astype(ctx.input_meta[1])
    if ctx.reduction == "mean":
        slope = slope / ctx.total_weight if ctx.total_weight != 0 else 0
    ctx.counted, ctx.target, ctx.slope = counted, safe_target, slope


def _scatter(out: np.ndarray, target: np.ndarray, values, class_dim: int) -> np.ndarray:
    """``out`` with ``out[n, target[n]] = values[n]`` for each sample (or one value for all)."""
    if out.ndim == 2:  # (samples, classes): plain indexing is cheaper
        out[np.arange(out.shape[0]), target] = values
    else:
        values = np.broadcast_to(values, target.shape)
        np.put_along_axis(out, np.expand_dims(target, class_dim),
                          np.expand_dims(values, class_dim), axis=class_dim)
    return out


def _pick(input: np.ndarray, target: np.ndarray, class_dim: int) -> np.ndarray:
    """``input[n, target[n]]`` for each sample: the log-probability of its target class."""
    if input.ndim == 2:  # (samples, classes), the usual case: plain indexing is cheaper
        return input[np.arange(input.shape[0]), target]
    index = np.expand_dims(target, class_dim)
    return np.take_along_axis(input, index, axis=class_dim).squeeze(class_dim)


class NllLoss2DBackward0(NllLossBackward0):
    """``NllLossBackward0`` for inputs with extra dimensions (per-pixel classes: N, C, H, W)."""


# ----------------------------------------------------------------------------------------
# Binary cross entropy
# ----------------------------------------------------------------------------------------
_EPSILON = 1e-12  # PyTorch's double-backward formulas keep denominators off 0 with this
# ... and its first-order kernel keeps (1−p)·p at least this large: its EPSILON, a float,
# so 1e-12 rounded to float32 (9.999999960e-13) even for float64 tensors
_KERNEL_EPSILON = float(np.float32(1e-12))


class BinaryCrossEntropyBackward0(Op):
    """``-w·(t·log p + (1−t)·log(1−p))`` for probabilities ``p``; logs are clamped at −100
    (as PyTorch does), so ``p = 0`` gives a loss of 100, not infinity."""

    formula = "∂ℓ/∂p = w·(p−t) / (p·(1−p))    ∂ℓ/∂t = w·(log(1−p) − log p)"
    saved_names = ("self", "target", "weight")  # grad_fn._saved_... (weight: None if none)
    saved_attributes = {"reduction": lambda node: _REDUCTION_NUMBERS[node.reduction]}

    @staticmethod
    def forward(ctx, input, target, weight=None, reduction="mean"):
        # (and the weight, as PyTorch saves it: binary_cross_entropy has backward check it)
        ctx.save_for_backward(input, target, *(() if weight is None else (weight,)))
        ctx.weight, ctx.reduction = weight, reduction
        with np.errstate(divide="ignore"):
            log_p = np.maximum(np.log(input), -100)
            log_1mp = np.maximum(np.log1p(-input), -100)
        losses = -(target * log_p + (1 - target) * log_1mp)
        if weight is not None:
            losses = losses * weight
        return _reduce(losses.astype(input.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        p, t = ctx.saved_tensors[:2]
        if type(grad) is Tensor:  # create_graph: as PyTorch records them
            return _bce_gradients_recorded(ctx, grad, p, t)
        # PyTorch's kernel, in its order (so the roundings are its own):
        # grad·(p − t) / max((1 − p)·p, ε), then ·weight, then ÷n for the mean
        denominator = np.maximum((1 - p) * p, _KERNEL_EPSILON)
        grad_input = _weighted_mean(ctx, grad * (p - t) / denominator, p)
        with np.errstate(divide="ignore"):  # (logit: ±inf at p = 0, 1, as PyTorch's)
            grad_target = _weighted_mean(ctx, -np.log(p / (1 - p)) * grad, p)
        return grad_input, grad_target


def _weighted_mean(ctx, g, p, weighted: bool = True):
    """``g`` times the loss's weight, then divided by the number of elements for the mean,
    as PyTorch's backward formulas finish (on arrays or, under create_graph, tensors)."""
    if weighted and ctx.weight is not None:
        g = g * ctx.weight
    numel = int(np.prod(np.shape(p)))
    if ctx.reduction == "mean" and numel:
        g = over_number(g, numel)
    return g


def _bce_gradients_recorded(ctx, grad: Tensor, p: Tensor, t: Tensor) -> tuple:
    """binary_cross_entropy's gradients under create_graph, recorded as PyTorch's: the
    input's as one node (BinaryCrossEntropyBackwardBackward0), the target's composed as
    its binary_cross_entropy_target_backward, ``−logit(p)·grad`` (·weight, ÷n for the
    mean: MulBackward0 or DivBackward1 last)."""
    grad_input, _ = BinaryCrossEntropyBackwardBackward0.record(ctx, grad, p, t)
    grad_target = None
    if ctx.needs_input_grad[1]:
        with np.errstate(divide="ignore"):
            grad_target = _weighted_mean(ctx, p.logit().neg() * grad, p)
    return grad_input, grad_target


class BinaryCrossEntropyBackwardBackward0(RecordedBackward):
    """binary_cross_entropy's backward for the input, ``g·(p−t)/max((1−p)p, ε)``, as one
    node, differentiated by PyTorch's formulas (binary_cross_entropy_double_backward and
    its _target and _grad_output twins), where ε enters as p + ε and 1 − p + ε."""

    formula = ("bce's backward c·g·(p−t)/D, D = max((1−p)p, ε):  "
               "∂/∂g = c·(p−t)/((p+ε)(1−p+ε))    "
               "∂/∂p = c·g·(p² − 2pt + t)/((p+ε)²(1−p+ε)²)    ∂/∂t = −c·g/D   "
               "(c = w, ÷n for the mean)")

    @staticmethod
    def backward(ctx, gg, _gg_target=None):  # (the target's output is not used)
        grad, p, t = ctx.saved_tensors
        node = ctx.node
        with np.errstate(divide="ignore", invalid="ignore"):
            # ∂/∂grad: (p − t) / ((p + ε)(1 − p + ε)) · gg
            d_grad = (p - t) / ((p + _EPSILON) * (1 - p + _EPSILON)) * gg
            # ∂/∂p: (p·p − 2p·t + t) / ((p + ε)²(1 − p + ε)²) · (gg · grad)
            numerator = p * p - 2 * p * t + t
            d_p = numerator / ((p + _EPSILON) ** 2 * (1 - p + _EPSILON) ** 2) * (gg * grad)
            # ∂/∂t: −gg·grad·weight / max((1 − p)·p, ε), the clamp a constant (PyTorch's
            # no_grad), the weight before the division, as PyTorch's
            product = (1 - p) * p
            small = np.asarray(_raw(product)) < _EPSILON
            d_t = -gg * grad
            if node.weight is not None:
                d_t = d_t * node.weight
            d_t = d_t / (np.where(small, _EPSILON, product) if small.any() else product)
        d_grad, d_p = (_weighted_mean(node, d, p) for d in (d_grad, d_p))
        return d_grad, d_p, _weighted_mean(node, d_t, p, weighted=False)


def stable_log_sigmoid(x):
    """``log σ(x) = min(x, 0) − log(1 + e^(−|x|))``: no overflow for any ``x``."""
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def stable_sigmoid(x):
    """``σ(x)`` computed from ``e^(−|x|)`` (which never overflows).

    On a tensor (a backward formula under ``create_graph``) it is the ``sigmoid`` op:
    written with ``|x|``, its recorded derivative at 0 would be |x|'s there, 0, where
    σ'(0) is 1/4 (silu's second derivative at 0 read 0.25 instead of 0.5).
    """
    if isinstance(x, Tensor):
        return x.sigmoid()
    e = np.exp(-np.abs(x))
    return np.where(_raw(x) >= 0, 1, e) / (1 + e)


class BinaryCrossEntropyWithLogitsBackward0(Op):
    """Binary cross entropy on logits ``x`` (σ is applied inside, stably):
    ``(1−t)·x − L·log σ(x)`` with ``L = 1 + (pos_weight−1)·t``, times ``weight``."""

    formula = "∂ℓ/∂x = w·(σ(x)·(1 + (pw−1)·t) − pw·t)    ∂ℓ/∂t = w·(log σ(−x) − pw·log σ(x))"

    # (forward saves the weights given after self and target: either, both or none)
    saved_names = ("self", "target")  # grad_fn._saved_...
    saved_attributes = {
        "reduction": lambda node: _REDUCTION_NUMBERS[node.reduction],
        "weight": lambda node: None if node.weight is None else graph.saved_value(node, 2),
        "pos_weight": lambda node: None if node.pos_weight is None else graph.saved_value(
            node, 2 + (node.weight is not None)),
    }

    @staticmethod
    def forward(ctx, input, target, weight=None, pos_weight=None, reduction="mean"):
        # (and the weights given, as PyTorch saves them: checked at backward, see
        # binary_cross_entropy_with_logits)
        weights = tuple(w for w in (weight, pos_weight) if w is not None)
        ctx.save_for_backward(input, target, *weights)
        ctx.weight, ctx.pos_weight, ctx.reduction = weight, pos_weight, reduction
        log_sig = stable_log_sigmoid(input)
        if pos_weight is not None:
            log_sig = log_sig * ((pos_weight - 1) * target + 1)
        losses = (1 - target) * input - log_sig
        if weight is not None:
            losses = losses * weight
        # PyTorch's kernel writes the loss into ``1 - target``: it has the target's dtype
        # (float64 logits with float32 targets give a float32 loss)
        return _reduce(losses.astype(target.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.saved_tensors[:2]
        numel = int(np.prod(np.shape(x)))
        # Under create_graph a mean divides last, as PyTorch's (DivBackward1); a plain
        # backward scales the one incoming number instead of dividing whole arrays.
        divide_last = type(grad) is Tensor and ctx.reduction == "mean" and numel
        if type(grad) is not Tensor:  # (the number taken in the inputs' dtype: float32
            # targets' loss is float32, and its 1/n rounded there would round float64
            # logits' gradient)
            grad = np.asarray(grad, np.result_type(x, t))
        g = grad if divide_last else grad * _scale(ctx.reduction, numel)
        if ctx.weight is not None:
            g = g * ctx.weight
        pw = ctx.pos_weight
        if pw is None:
            grad_input = g * (stable_sigmoid(x) - t)
            grad_target = g * -x
        else:
            grad_input = g * (stable_sigmoid(x) * (pw * t + 1 - t) - pw * t)
            grad_target = g * (stable_log_sigmoid(-x) - pw * stable_log_sigmoid(x))
        if divide_last:
            return over_number(grad_input, numel), over_number(grad_target, numel)
        return grad_input, grad_target


__all__: list[str] = []
