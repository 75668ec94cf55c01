"""The activation functions of ``nn.functional`` that the core does not define.

``relu``, ``sigmoid`` and ``tanh`` live with the other pointwise ops
(:mod:`teachgrad.ops.pointwise`), ``softmax``/``log_softmax`` in
:mod:`teachgrad.ops.activation`. The rest of the activations a network uses are here, each
an :class:`~teachgrad.ops.op.Op` named after PyTorch's ``grad_fn`` (``GeluBackward0``,
``LeakyReluBackward0`` ...), forward and backward side by side.

Masks (``x > 0``...) are computed from the raw array: they are constants of the
derivative, which keeps the formulas valid on tensors under ``create_graph=True``.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor, _make
from ..ops.loss import stable_log_sigmoid, stable_sigmoid
from ..ops.number_factor import number_minus
from ..ops.op import Op
from ..ops.pointwise import ThresholdBackwardBackward0
from ..ops.recorded_backward import RecordedBackward
from ..ops.saved_values import given
from ..ops.select_grad import keep_where, zero_where
from ..ops.special import _erf, erf, recorded_or_plain
from .rms_norm import AddBackward1  # (tensor + number as PyTorch's C++ records it)


def _raw(x):
    return getattr(x, "_data", x)


class LeakyReluBackward0(Op):
    """``leaky_relu``: slope 1 for positive inputs, ``negative_slope`` elsewhere."""
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"negative_slope": "negative_slope"}

    formula = "∂leaky_relu(a)/∂a = 1 if a > 0 else slope"

    @staticmethod
    def forward(ctx, a, negative_slope=0.01):
        ctx.save_for_backward(a)
        ctx.negative_slope = negative_slope
        return np.where(a > 0, a, a * negative_slope).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        slope = np.where(_raw(a) > 0, 1.0, ctx.negative_slope).astype(_raw(a).dtype)
        if isinstance(a, Tensor):  # create_graph: a stays in the graph (PyTorch's node)
            return LeakyReluBackwardBackward0.apply(grad, a, slope=slope)
        return grad * slope


class LeakyReluBackwardBackward0(Op):
    """leaky_relu's backward as a recorded op (under ``create_graph``): ``grad · slope``.

    ``slope`` (1 or ``negative_slope``) is a constant; ``a`` is an input with derivative 0,
    as in PyTorch (see ``ThresholdBackwardBackward0``).
    """

    formula = "∂/∂grad = slope (1 or negative_slope)    ∂/∂a = 0"

    @staticmethod
    def forward(ctx, grad, source, slope):
        ctx.slope = slope
        return grad * slope

    @staticmethod
    def backward(ctx, g):
        return g * ctx.slope, np.zeros_like(g)


class HardtanhBackward0(Op):
    """Clamp to ``[min_val, max_val]`` (``relu6`` is ``hardtanh(x, 0, 6)``)."""
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"min_val": "min_val", "max_val": "max_val"}
    inference_out_name = "hardtanh"  # (see Op: PyTorch's composite writes through hardtanh_out)

    formula = "∂hardtanh(a)/∂a = 1 if min < a < max else 0"

    @staticmethod
    def forward(ctx, a, min_val=-1.0, max_val=1.0):
        ctx.save_for_backward(a)
        ctx.min_val, ctx.max_val = min_val, max_val
        return np.clip(a, min_val, max_val).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        x = _raw(a)
        # 0 at and beyond the bounds, selected as in PyTorch's hardtanh_backward. (A nan
        # input gets 0, as in PyTorch's vectorised loop; its scalar loop, which handles
        # tensors of fewer than 8 or 16 elements and a long tensor's last few, passes the
        # gradient: PyTorch itself answers both ways.)
        flat = ~((x > ctx.min_val) & (x < ctx.max_val))
        if isinstance(a, Tensor):  # create_graph: a stays in the graph (PyTorch's node)
            return HardtanhBackwardBackward0.apply(grad, a, flat=flat)
        return zero_where(flat, grad)


class HardtanhBackwardBackward0(ThresholdBackwardBackward0):
    """hardtanh's (and relu6's) backward as a recorded op (under ``create_graph``)."""

    formula = "∂/∂grad = 1 inside (min, max), else 0    ∂/∂a = 0"


class EluBackward0(Op):
    """``scale·a`` for ``a > 0``, else ``scale·alpha·(eᵃ − 1)`` (``selu`` fixes alpha and scale)."""
    saved_names = ("self",)  # grad_fn._saved_...
    # (PyTorch's elu kernel also takes an input scale: 1 for elu and selu)
    saved_attributes = {"alpha": "alpha", "scale": "scale", "input_scale": lambda node: 1}

    formula = "∂elu(a)/∂a = scale if a > 0 else scale·alpha·eᵃ"

    @staticmethod
    def forward(ctx, a, alpha=1.0, scale=1.0):
        ctx.save_for_backward(a)
        ctx.alpha, ctx.scale = alpha, scale
        # PyTorch's kernel: the exponential side for a <= 0 (so -0 stays -0), a for the
        # rest. where(): no overflow of e^a for large a.
        negative = a <= 0
        curve = alpha * np.expm1(np.where(negative, a, 0))
        return (scale * np.where(negative, curve, a)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            slope = np.where(a > 0, 1.0, ctx.alpha * np.exp(np.minimum(a, 0)))
            return grad * ctx.scale * slope
        return EluBackwardBackward0.record(ctx, grad, a)  # create_graph: PyTorch's node

    def elu_coefficients(self) -> tuple:
        """(α·scale, input scale, scale): PyTorch's elu_backward parameters."""
        return self.alpha * self.scale, 1.0, self.scale


class EluBackwardBackward0(RecordedBackward):
    """elu's (selu's, celu's) backward as one node: ``g·slope(a)``."""

    formula = ("elu's backward g·scale·(1 if a > 0 else α·eᵃ):  ∂/∂g = that slope    "
               "∂/∂a = g·scale·(0 if a > 0 else α·eᵃ)")

    @staticmethod
    def backward(ctx, gg):
        grad, a = ctx.saved_tensors
        # PyTorch's elu_backward: slope scale for a > 0, else c·s·e^(s·a) (c = α·scale,
        # s the input scale: 1, or 1/α for celu)
        c, s, scale = ctx.node.elu_coefficients()
        x = _raw(a)
        curve = c * s * np.exp(np.minimum(a, 0) * s)
        # The slope's own derivative exists only where a < 0: PyTorch's
        # elu_double_backward multiplies by that mask (0 at ±0; nan stays nan).
        return gg * np.where(x > 0, scale, curve), gg * grad * curve * s * (x < 0)


class SoftplusBackward0(Op):
    """``log(1 + e^(beta·a)) / beta``, and just ``a`` where ``beta·a > threshold``."""
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"beta": "beta", "threshold": "threshold"}

    formula = "∂softplus(a)/∂a = σ(beta·a)"

    @staticmethod
    def forward(ctx, a, beta=1.0, threshold=20.0):
        ctx.save_for_backward(a)
        ctx.beta, ctx.threshold = beta, threshold
        z = a * beta
        smooth = (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / beta
        return np.where(z > threshold, a, smooth).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            linear = a * ctx.beta > ctx.threshold
            return grad * np.where(linear, 1.0, stable_sigmoid(a * ctx.beta))
        return SoftplusBackwardBackward0.record(ctx, grad, a)  # create_graph: PyTorch's node


class SoftplusBackwardBackward0(RecordedBackward):
    formula = ("softplus's backward g·σ(βa) (g where βa > threshold):  ∂/∂g = σ(βa)    "
               "∂/∂a = g·β·σ(βa)·(1 − σ(βa))")

    @staticmethod
    def backward(ctx, gg):
        grad, a = ctx.saved_tensors
        beta = ctx.node.beta
        linear = _raw(a) * beta > ctx.node.threshold
        s = stable_sigmoid(a * beta)
        # (PyTorch's softplus_double_backward keeps the curvature only where βa < threshold:
        # at βa == threshold, where the first derivative is still σ(βa), it is 0 there)
        flat = _raw(a) * beta >= ctx.node.threshold
        return gg * np.where(linear, 1.0, s), zero_where(flat, gg * grad * beta * s * (1 - s))


class SiluBackward0(Op):
    """``a·σ(a)``, also called swish."""
    saved_names = ("self",)  # grad_fn._saved_...

    formula = "∂(a·σ(a))/∂a = σ(a)·(1 + a·(1 − σ(a)))"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return (a * stable_sigmoid(a)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        s = stable_sigmoid(a)
        if type(grad) is not Tensor:  # a plain backward: arrays
            return grad * s * (1 + a * (1 - s))
        # create_graph: the same formula as PyTorch's C++ records it. Its ``1 + t`` is the
        # add of a number (AddBackward1); its ``1 - s`` fills a tensor with ones and
        # subtracts s from it (SubBackward0).
        return grad * s * AddBackward1.apply(a * (np.ones_like(s) - s), other=1)


_SQRT_HALF = 1 / math.sqrt(2)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


class GeluBackward0(Op):
    """``a·Φ(a)`` (Φ: the standard normal CDF), or its tanh approximation."""
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"approximate": "approximate"}

    formula = "∂(a·Φ(a))/∂a = Φ(a) + a·φ(a)"

    @staticmethod
    def forward(ctx, a, approximate="none"):
        ctx.save_for_backward(a)
        ctx.approximate = approximate
        x = a.astype(np.float64)
        if approximate == "tanh":
            out = 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x**3)))
        else:
            out = 0.5 * x * (1 + _erf(x * _SQRT_HALF))  # (the float64 kernel: exact to 1 ulp)
        return out.astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is Tensor:  # create_graph: PyTorch's node
            return GeluBackwardBackward0.record(ctx, grad, a)
        if ctx.approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (a + 0.044715 * a**3)
            t = np.tanh(inner)
            d_inner = _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * a**2)
            return grad * (0.5 * (1 + t) + 0.5 * a * (1 - t * t) * d_inner)
        cdf = 0.5 * (1 + _erf(a * _SQRT_HALF))
        pdf = np.exp(-0.5 * a * a) / math.sqrt(2 * math.pi)
        return grad * (cdf + a * pdf)


class GeluBackwardBackward0(RecordedBackward):
    formula = ("gelu's backward g·(Φ(a) + a·φ(a)):  ∂/∂g = Φ(a) + a·φ(a)    "
               "∂/∂a = g·φ(a)·(2 − a²)  (tanh approximation: its own derivative)")

    @staticmethod
    def backward(ctx, gg):
        grad, a = ctx.saved_tensors
        if ctx.node.approximate == "tanh":  # t = tanh(u), u = k·(a + c·a³), d = u'
            k, c = _SQRT_2_OVER_PI, 0.044715
            t = np.tanh(k * (a + c * a**3))
            d = k * (1 + 3 * c * a**2)
            slope = 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * d
            curvature = (1 - t * t) * (d - a * t * d * d + 3 * k * c * a * a)
            return gg * slope, gg * grad * curvature
        # Φ(a) through erf, recorded under create_graph (ErfBackward0): differentiable again
        cdf = 0.5 * (1 + recorded_or_plain(erf, _erf, a * _SQRT_HALF))
        pdf = np.exp(-0.5 * a * a) / math.sqrt(2 * math.pi)
        return gg * (cdf + a * pdf), gg * grad * pdf * (2 - a * a)


def _log_sigmoid_buffer(node) -> Tensor:
    """logsigmoid's ``grad_fn._saved_buffer``: PyTorch's kernel keeps e^(−|a|)."""
    a = node._saved_self  # (PyTorch's error once backward freed the graph)
    return _make(np.exp(-np.abs(a._data)))


class LogSigmoidBackward0(Op):
    """``log σ(a)``, computed without overflow (``min(a, 0) − log(1 + e^(−|a|))``)."""
    saved_names = ("self",)  # grad_fn._saved_...
    # PyTorch's kernel also keeps a buffer for its backward, e^(−|a|): shown, not kept
    saved_attributes = {"buffer": lambda node: _log_sigmoid_buffer(node)}

    formula = "∂log σ(a)/∂a = 1 − σ(a) = σ(−a)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return stable_log_sigmoid(a).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            return grad * stable_sigmoid(-a)
        return LogSigmoidBackwardBackward0.record(ctx, grad, a)  # create_graph


class LogSigmoidBackwardBackward0(RecordedBackward):
    formula = "logsigmoid's backward g·σ(−a):  ∂/∂g = σ(−a)    ∂/∂a = −g·σ(a)·σ(−a)"

    @staticmethod
    def backward(ctx, gg):
        grad, a = ctx.saved_tensors
        s = stable_sigmoid(-a)
        return gg * s, -gg * grad * s * (1 - s)


class MishBackward0(Op):
    """``a·tanh(softplus(a))``: a smooth, non-monotonic ReLU."""
    saved_names = ("self",)  # grad_fn._saved_...

    formula = "∂(a·tanh(sp(a)))/∂a = tanh(sp(a)) + a·σ(a)·(1 − tanh²(sp(a)))"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return (a * np.tanh(_softplus(a))).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is Tensor:
            # create_graph: PyTorch's infinitely_differentiable_mish_backward, node for node
            # (its softplus is log1p(exp(a)), not the stable form below), the right operand
            # of each product computed first, as its C++ does
            sigmoid = a.sigmoid()
            tanh_softplus = a.exp().log1p().tanh()
            slope_of_tanh = number_minus(1.0, tanh_softplus * tanh_softplus)
            return grad * (tanh_softplus + a * sigmoid * slope_of_tanh)
        t = np.tanh(_softplus(a))
        return grad * (t + a * stable_sigmoid(a) * (1 - t * t))


def _softplus(a):
    """``log(1 + eᵃ)`` without overflow: max(a, 0) + log1p(e^(−|a|)) (arrays or tensors)."""
    return np.maximum(a, 0) + np.log1p(np.exp(-np.abs(a)))


class HardswishBackward0(Op):
    """``a·relu6(a + 3)/6``: a piecewise-quadratic swish."""
    saved_names = ("self",)  # grad_fn._saved_...

    formula = "∂hardswish(a)/∂a = 0 if a ≤ −3, a/3 + ½ if a < 3, else 1"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return (a * np.clip(a + 3, 0, 6) / 6).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is Tensor:  # create_graph: PyTorch's node
            return HardswishBackwardBackward0.record(ctx, grad, a)
        # PyTorch's hardswish_backward: 0 for a <= -3 (selected), 1 for a >= 3, else
        # a/3 + 1/2 (so a nan input gives nan, as in PyTorch's vectorised loop).
        return zero_where(a <= -3, grad * np.where(a >= 3, 1, a / 3 + 0.5))


class HardswishBackwardBackward0(RecordedBackward):
    """hardswish's backward as one node: ``g·slope(a)``."""

    formula = ("hardswish's backward g·(0 if a ≤ −3, a/3 + ½ if a < 3, else 1):  "
               "∂/∂g = that slope    ∂/∂a = g/3 inside (−3, 3), else 0")

    @staticmethod
    def backward(ctx, gg):
        grad, a = ctx.saved_tensors
        x = _raw(a)
        # PyTorch's derivatives: hardswish_backward(gg, a) for the gradient, and
        # where(-3 < a < 3, gg·grad/3, 0) for a.
        slope = zero_where(x <= -3, gg * np.where(x >= 3, 1, a / 3 + 0.5))
        return slope, keep_where((x > -3) & (x < 3), gg * grad / 3)


_ONE_SIXTH_F32 = np.float32(1) / np.float32(6)


class HardsigmoidBackward0(Op):
    """``relu6(a + 3)/6``: a piecewise-linear sigmoid."""
    saved_names = ("self",)  # grad_fn._saved_...

    formula = "∂hardsigmoid(a)/∂a = 1/6 if −3 < a < 3, else 0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return (np.clip(a + 3, 0, 6) / 6).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            # (selected, as PyTorch's; its kernel's 1/6 is a float32 constant, in float64
            # too: 0.1666666716337204)
            return keep_where((a > -3) & (a < 3), grad * grad.dtype.type(_ONE_SIXTH_F32))
        return HardsigmoidBackwardBackward0.record(ctx, grad, a)  # create_graph


class HardsigmoidBackwardBackward0(RecordedBackward):
    """PyTorch has no derivative for hardsigmoid's backward: differentiating it raises.

    PyTorch records its generic node for a missing derivative here, so the gradient
    prints ``grad_fn=<NotImplemented>``: the class takes that name.
    """

    formula = "not differentiable: PyTorch has no derivative for it either"

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    @staticmethod
    def backward(ctx, gg):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


HardsigmoidBackwardBackward0.__name__ = "NotImplemented"
HardsigmoidBackwardBackward0.__qualname__ = "NotImplemented"


class SoftshrinkBackwardBackward0(RecordedBackward):
    """softshrink's backward as one node: the gradient kept where ``|a| > λ``."""

    formula = "∂/∂grad = 1 where |a| > λ, else 0    ∂/∂a = 0"

    @staticmethod
    def backward(ctx, gg):
        grad, a = ctx.saved_tensors
        keep = (_raw(a) < -ctx.node.lambd) | (_raw(a) > ctx.node.lambd)
        return keep_where(keep, gg), np.zeros_like(gg)


class HardshrinkBackwardBackward0(SoftshrinkBackwardBackward0):
    """hardshrink's backward as one node (the same as softshrink's)."""


class SoftshrinkBackward0(Op):
    """Shrink toward 0 by ``lambd``; what is within ``lambd`` of 0 becomes 0."""
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"lambd": "lambd"}

    formula = "∂softshrink(a)/∂a = 0 if |a| ≤ λ, else 1"
    recorded_backward = SoftshrinkBackwardBackward0

    @staticmethod
    def forward(ctx, a, lambd):
        ctx.save_for_backward(a)
        ctx.lambd = lambd
        shrunk = a - np.sign(a) * a.dtype.type(lambd)
        # a * 0, not 0, within lambd, so -0.25 becomes -0. (nan stays nan): PyTorch's
        # scalar loop, which handles tensors of fewer than 16 (float64: 8) elements and a
        # long tensor's last few; its vectorised loop gives +0. PyTorch answers both ways
        # (by length and CPU): teachgrad answers as for the small tensors a learner prints.
        return np.where(np.abs(a) <= lambd, a * 0, shrunk).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            # PyTorch: 0 where -λ <= a <= λ, selected (and at a nan input, as PyTorch's
            # vectorised loop; see HardtanhBackward0).
            return keep_where((a < -ctx.lambd) | (a > ctx.lambd), grad)
        return ctx.recorded_backward.record(ctx, grad, a)  # create_graph: PyTorch's node


class HardshrinkBackward0(SoftshrinkBackward0):
    """Keep ``a`` where ``|a| > lambd``, else 0 (the same slope as softshrink)."""

    formula = "∂hardshrink(a)/∂a = 0 if |a| ≤ λ, else 1"
    recorded_backward = HardshrinkBackwardBackward0

    @staticmethod
    def forward(ctx, a, lambd):
        ctx.save_for_backward(a)
        ctx.lambd = lambd
        return np.where(np.abs(a) <= lambd, 0, a).astype(a.dtype, copy=False)  # nan: nan


class CeluBackward0(Op):
    """``max(0, a) + min(0, α(e^(a/α) − 1))``: an ELU that stays differentiable at 0 for any α."""
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"alpha": "alpha"}

    formula = "∂celu(a)/∂a = 1 if a > 0 else e^(a/α)"

    @staticmethod
    def forward(ctx, a, alpha):
        ctx.save_for_backward(a)
        ctx.alpha = alpha
        negative = a <= 0  # (as elu: -0 stays -0, a nan goes the other way)
        curve = alpha * np.expm1(np.where(negative, a, 0) / alpha)
        return np.where(negative, curve, a).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            return grad * np.where(a > 0, 1.0, np.exp(np.minimum(a, 0) / ctx.alpha))
        return EluBackwardBackward0.record(ctx, grad, a)  # create_graph: PyTorch's node

    def elu_coefficients(self) -> tuple:
        """(α·scale, input scale, scale): PyTorch's elu_backward parameters for celu."""
        return self.alpha, 1.0 / self.alpha, 1.0


class ThresholdBackward0(Op):
    """``a`` where ``a > threshold``, else ``value`` (relu is threshold(a, 0, 0))."""
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"threshold": "threshold"}

    formula = "∂threshold(a)/∂a = 1 if a > threshold else 0"

    @staticmethod
    def forward(ctx, a, threshold, value):
        ctx.save_for_backward(a)
        ctx.threshold = threshold
        # (a <= threshold, not a > threshold: a nan stays nan, as in PyTorch)
        return np.where(a <= threshold, a.dtype.type(value), a).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        flat = _raw(a) <= ctx.threshold  # (PyTorch's threshold_backward, a select)
        if isinstance(a, Tensor):  # create_graph: as relu's, a stays in the graph
            return ThresholdBackwardBackward0.apply(grad, a, flat=flat)
        return zero_where(flat, grad)


class GluBackward0(Op):
    """Gated linear unit: split ``a`` in halves ``(x, g)`` along ``dim``; ``x·σ(g)``."""
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim", lambda node: node.dim)}  # (as given: saved_values)

    formula = "∂(x·σ(g))/∂x = σ(g)    ∂(x·σ(g))/∂g = x·σ(g)(1 − σ(g))"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.save_for_backward(a)
        ctx.dim = dim
        x, g = np.split(a, 2, axis=dim)
        return (x * stable_sigmoid(g)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is Tensor:  # create_graph: one node, as PyTorch records it
            return GluBackwardBackward0.record(ctx, grad, a)
        half = np.shape(a)[ctx.dim] // 2
        x, g = _halves(a, half, ctx.dim)
        s = stable_sigmoid(g)
        return np.concatenate([grad * s, grad * x * s * (1 - s)], axis=ctx.dim)


class GluBackwardBackward0(RecordedBackward):
    """glu's backward ``[grad·σ(g), grad·x·σ′(g)]`` (halves along ``dim``) as one node."""

    formula = ("glu's backward [G·σ(g), G·x·σ′(g)]:  ∂/∂G = [σ(g), x·σ′(g)]    "
               "∂/∂x = [0, G·σ′(g)]    ∂/∂g = [G·σ′(g), G·x·σ′(g)(1 − 2σ(g))]")

    @staticmethod
    def backward(ctx, gg):
        grad, a = ctx.saved_tensors
        dim = ctx.node.dim
        half = np.shape(a)[dim] // 2
        x, g = _halves(a, half, dim)
        gg_first, gg_second = _halves(gg, half, dim)  # for the outputs x's and g's halves
        s = stable_sigmoid(g)
        slope = s * (1 - s)  # σ′(g)
        d_grad = gg_first * s + gg_second * x * slope
        d_x = gg_second * grad * slope
        d_g = grad * slope * (gg_first + gg_second * x * (1 - 2 * s))
        return d_grad, np.concatenate([d_x, d_g], axis=dim)


def _halves(a, half: int, dim: int):
    """The two halves of ``a`` along ``dim`` (by indexing, which also works on tensors)."""
    first = [slice(None)] * np.ndim(a)
    second = list(first)
    first[dim], second[dim] = slice(0, half), slice(half, None)
    return a[tuple(first)], a[tuple(second)]


class PreluKernelBackward0(Op):
    """``a`` where positive, else ``weight·a``: one learned slope per channel (dim 1)."""
    saved_names = ("self", "weight")  # (the weight as F.prelu viewed it: (1, C, 1) ...)

    formula = "∂prelu/∂a = 1 if a > 0 else w    ∂prelu/∂w = 0 if a > 0 else a"

    @staticmethod
    def forward(ctx, a, weight):
        ctx.save_for_backward(a, weight)
        w = _per_channel(weight, np.ndim(a))
        return np.where(a > 0, a, w * a).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, weight = ctx.saved_tensors
        if type(grad) is Tensor:  # create_graph: both gradients from PyTorch's one node
            return PreluKernelBackwardBackward0.record(ctx, grad, a, weight)
        positive = _raw(a) > 0
        grad_a = grad * np.where(positive, 1, _per_channel(weight, np.ndim(a)))
        # The slopes' gradient at the input's shape, as PyTorch's kernel gives it: the
        # engine sums it over everything but the channel (dim 1), or over everything when
        # one slope serves all (a SumBackward1 under create_graph, as in PyTorch).
        grad_w = zero_where(positive, grad * a)  # (selected, as PyTorch's: inf·0 is not nan)
        return grad_a, grad_w


class PreluKernelBackwardBackward0(RecordedBackward):
    """prelu's backward, ``(G·(1 if a > 0 else w), 0 if a > 0 else G·a)``, as one node."""

    formula = ("prelu's backward (G·(1 if a > 0 else w), G·a if a ≤ 0):  ∂/∂G = 1 or w, "
               "and a    ∂/∂a = 0 or G (the slope's part)    ∂/∂w = G where a ≤ 0")
    # an output nobody used gets None, not zeros: PyTorch's formulas then skip its term
    materialize_grads = False

    @staticmethod
    def backward(ctx, gg_a, gg_w):
        grad, a, weight = ctx.saved_tensors
        # PyTorch's _prelu_kernel_backward formulas: they keep a ≥ 0 (where the first
        # derivatives keep a > 0), so at a = 0 they differ from the first-order slope
        kept = _raw(a) >= 0
        w = _per_channel(weight, np.ndim(a))
        if gg_a is None:
            d_grad = zero_where(kept, gg_w * a)
        elif gg_w is None:
            d_grad = np.where(kept, gg_a, gg_a * w)
        else:
            d_grad = np.where(kept, gg_a, gg_a * w + gg_w * a)
        d_a = np.zeros_like(a) if gg_w is None else zero_where(kept, grad * gg_w)
        d_w = np.zeros_like(a) if gg_a is None else zero_where(kept, grad * gg_a)
        return d_grad, d_a, d_w


def _per_channel(weight, ndim: int):
    """The slopes shaped to broadcast over an ``ndim``-d input (F.prelu gives them the
    input's number of dimensions; a 1-d input's single slope is made 0-d here)."""
    return np.reshape(weight, ()) if ndim < 2 else weight


class RreluWithNoiseBackward0(Op):
    """Leaky ReLU with a slope ``noise`` per element: random while training, else fixed."""

    formula = "∂rrelu(a)/∂a = 1 if a > 0 else the element's slope"

    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"noise": lambda node: _make(node.noise), "lower": "lower",
                        "upper": "upper", "training": "training"}

    @staticmethod
    def forward(ctx, a, noise, lower=1 / 8, upper=1 / 3, training=False):
        ctx.save_for_backward(a)  # (as PyTorch: backward refuses it changed in place since)
        ctx.noise = noise  # (1 where a > 0): a constant of the derivative
        ctx.lower, ctx.upper, ctx.training = lower, upper, training
        return (a * noise).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors  # (read for its check too: changed in place since?)
        if type(grad) is Tensor:  # create_graph: a stays in the graph (PyTorch's node)
            return RreluWithNoiseBackwardBackward0.apply(
                grad, a, noise=ctx.noise, lower=ctx.lower, upper=ctx.upper,
                training=ctx.training)
        return grad * ctx.noise


class RreluWithNoiseBackwardBackward0(Op):
    """rrelu's backward as a recorded op (under ``create_graph``): ``grad · slope``, each
    element's slope a constant; ``a`` is an input with derivative 0, as in PyTorch (see
    ``LeakyReluBackwardBackward0``)."""

    formula = "∂/∂grad = the element's slope (1 if a > 0)    ∂/∂a = 0"
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = RreluWithNoiseBackward0.saved_attributes

    @staticmethod
    def forward(ctx, grad, a, noise, lower, upper, training):
        ctx.save_for_backward(a)
        ctx.noise = noise
        ctx.lower, ctx.upper, ctx.training = lower, upper, training
        return grad * noise

    @staticmethod
    def backward(ctx, g):
        # (differentiated again: rrelu's backward of g, PyTorch's formula for grad_output)
        return RreluWithNoiseBackward0.backward(ctx, g), np.zeros_like(g)


__all__ = [
    "LeakyReluBackward0", "HardtanhBackward0", "EluBackward0", "SoftplusBackward0",
    "SiluBackward0", "GeluBackward0", "LogSigmoidBackward0", "MishBackward0",
    "HardswishBackward0", "HardsigmoidBackward0", "SoftshrinkBackward0", "HardshrinkBackward0",
    "CeluBackward0", "ThresholdBackward0", "GluBackward0", "PreluKernelBackward0",
    "RreluWithNoiseBackward0",
]
