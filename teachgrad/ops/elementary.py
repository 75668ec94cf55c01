"""More pointwise functions: deg2rad/rad2deg, copysign, frac, fix, heaviside, sinc, logit.

Written like :mod:`.pointwise`: each op a class named after PyTorch's ``grad_fn``, forward
and backward side by side, and the public function registered as a ``Tensor`` method.
Integer inputs become the default float dtype (except ``fix``, ``frac`` and ``heaviside``,
which follow PyTorch's own rules, see each function).
"""

from __future__ import annotations

import math

import numpy as np

from .._missing_arguments import REQUIRED, missing
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _make, python_type_name, tensor_method
from ..autograd import inference
from .number_factor import number_minus, times_number
from .op import Op
from .pointwise import (
    TruncBackward0,
    _binary,
    _check_broadcast,
    _operand,
    _rounding,
    _unary,
    _value,
)
from .select_grad import masked_fill_zero, zero_where
from .special import _float_operands, float_tensor, number_first_error


def _opmath(a: np.ndarray) -> np.ndarray:
    """float16 as float32 for a formula of several steps, as PyTorch's CPU kernels do."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


class Deg2RadBackward0(Op):
    formula = "∂(a·π/180)/∂a = π/180"

    @staticmethod
    def forward(ctx, a):
        return a * a.dtype.type(math.pi / 180)

    @staticmethod
    def backward(ctx, grad):
        return times_number(grad, math.pi / 180)  # MulBackward1 under create_graph


class Rad2DegBackward0(Op):
    formula = "∂(a·180/π)/∂a = 180/π"

    @staticmethod
    def forward(ctx, a):
        return a * a.dtype.type(180 / math.pi)

    @staticmethod
    def backward(ctx, grad):
        return times_number(grad, 180 / math.pi)  # MulBackward1 under create_graph


@tensor_method()
def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians: ``input · π/180``.

    >>> import teachgrad as torch
    >>> torch.tensor([180., 90.]).deg2rad()
    tensor([3.1416, 1.5708])
    """
    return _unary(Deg2RadBackward0, input)


@tensor_method()
def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees: ``input · 180/π``.

    >>> import teachgrad as torch
    >>> torch.tensor([3.14159265]).rad2deg()
    tensor([180.])
    """
    return _unary(Rad2DegBackward0, input)


class CopysignBackward0(Op):
    """``copysign(tensor, tensor)``: the sign comes from ``b``, which gets no gradient."""
    saved_names = ("self", "result")  # grad_fn._saved_...

    formula = "∂copysign(a, b)/∂a = copysign(a, b)/a (±1; 0 at a = 0)    ∂/∂b = 0"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        out = np.copysign(a, b)
        # only a's gradient needs a (b's is 0): PyTorch keeps a only then, so a later
        # in-place change of a does not stop backward; the result it keeps always
        ctx.save_for_backward(a if ctx.needs_input_grad[0] else None, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        grad_a = grad * _flip_or_keep(a, out) if ctx.needs_input_grad[0] else None
        return grad_a, np.zeros_like(grad)


class CopysignBackward1(Op):
    """``copysign(tensor, number)``."""

    formula = "∂copysign(a, c)/∂a = ±1 (0 at a = 0)"

    @staticmethod
    def forward(ctx, a, other):
        out = np.copysign(a, a.dtype.type(other))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return grad * _flip_or_keep(a, out)


def _flip_or_keep(a, out) -> np.ndarray:
    """+1 where copysign kept a's sign, −1 where it flipped it, 0 where a is 0 (PyTorch's)."""
    if isinstance(a, Tensor):
        # create_graph: PyTorch's (out / a).masked_fill_(a == 0, 0), recorded (derivative
        # 0, but a's gradient requires grad and differentiates again; at a = 0 the masked
        # 0/0 still makes the second derivative nan, as PyTorch's)
        return masked_fill_zero(_value(a) == 0, out / a)
    a, out = np.asarray(_value(a)), np.asarray(_value(out))
    return np.where(a == 0, 0, np.sign(a) * np.sign(out)).astype(a.dtype)


@tensor_method()
def copysign(input: Tensor, other=REQUIRED) -> Tensor:
    """``|input|`` with the sign of ``other`` (a tensor or a number; −0.0 counts as negative).

    >>> import teachgrad as torch
    >>> torch.tensor([1., -2.]).copysign(torch.tensor([-0., 3.]))
    tensor([-1.,  2.])
    """
    if other is REQUIRED:  # (x.copysign(): PyTorch's words, see _missing_arguments)
        raise missing("copysign", copysign, input, other)
    if not isinstance(input, Tensor):  # a number first: no signature of PyTorch's fits
        raise number_first_error("copysign", input, other)
    other = _operand(other)
    if isinstance(other, Tensor):
        return _binary(CopysignBackward0, *_float_operands(input, other))
    if type(input._vc) is not list and inference.wraps_the_number(input):
        return copysign(input, inference.wrapped(other))
    return CopysignBackward1.apply(float_tensor(input), other=float(other))


class FracBackward0(Op):
    formula = "∂(a − trunc(a))/∂a = 1"

    @staticmethod
    def forward(ctx, a):
        return a - np.trunc(a)

    @staticmethod
    def backward(ctx, grad):
        return grad


@tensor_method()
def frac(input: Tensor) -> Tensor:
    """The fractional part ``input − trunc(input)`` (it keeps the sign of ``input``).

    >>> import teachgrad as torch
    >>> torch.tensor([-1.5, 2.25]).frac()
    tensor([-0.5000,  0.2500])
    """
    if input._data.dtype.kind != "f":
        name = input.dtype._legacy.removesuffix("Tensor")
        raise NotImplementedError(
            f"\"frac_cpu\" not implemented for '{name}'"
            "\nHint: an integer has no fractional part; convert first if you need one: "
            "x.float().frac()."
        )
    return FracBackward0.apply(input)


@tensor_method()
def fix(input: Tensor) -> Tensor:
    """Round toward zero: PyTorch's alias of :func:`trunc` (``TruncBackward0``).

    >>> import teachgrad as torch
    >>> torch.tensor([-1.7, 1.7]).fix()
    tensor([-1.,  1.])
    """
    return _rounding(TruncBackward0, np.trunc, input)


class HeavisideNotImplemented(Op):
    """The ``grad_fn`` of heaviside: PyTorch has no derivative for it, and says so."""

    formula = "heaviside has no derivative in PyTorch (it is 0 almost everywhere)"

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, a, values):
        return np.where(a == 0, values, (a > 0).astype(a.dtype)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(
            "derivative for aten::heaviside is not implemented"
            "\nHint: the step function's slope is 0 everywhere except at 0; a smooth "
            "stand-in such as torch.sigmoid(k * x) has a gradient."
        )


# PyTorch prints this node as ``grad_fn=<NotImplemented>`` (the printer uses the class
# name); a class named NotImplemented would hide Python's builtin of that name.
HeavisideNotImplemented.__name__ = HeavisideNotImplemented.__qualname__ = "NotImplemented"


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The step function: 0 where ``input < 0``, 1 where ``input > 0``, ``values`` where 0.

    >>> import teachgrad as torch
    >>> torch.heaviside(torch.tensor([-2., 0., 3.]), torch.tensor([0.5]))
    tensor([0.0000, 0.5000, 1.0000])
    """
    if not isinstance(input, Tensor):  # (a number first: PyTorch names 'input')
        raise TypeError(
            f"heaviside(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}\nHint: wrap the number in a tensor: "
            f"torch.heaviside(torch.tensor({input!r}), values)."
        )
    _require_values_tensor(values, position=2)
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(
            "heaviside is not yet implemented for tensors with different dtypes."
            f"\nHint: input is {input.dtype} and values is {values.dtype}; convert one, "
            "e.g. values.to(input.dtype)."
        )
    if input._data.dtype.kind != "f":  # not differentiable: computed directly
        data, v = input._data, values._data
        return _make(np.asarray(np.where(data == 0, v, (data > 0).astype(data.dtype))))
    _check_broadcast(input, values)
    return HeavisideNotImplemented.apply(input, values)


@tensor_method("heaviside")
def _heaviside_method(self: Tensor, values: Tensor = REQUIRED) -> Tensor:
    """``x.heaviside(values)`` is ``torch.heaviside(x, values)``."""
    if values is REQUIRED:  # (x.heaviside(): PyTorch's words, see _missing_arguments)
        raise missing("heaviside", _heaviside_method, self, values)
    _require_values_tensor(values, position=1)  # (the method counts from values)
    return heaviside(self, values)


_heaviside_method.__name__ = "heaviside"  # its name as a method (x.heaviside_ says so)


def _require_values_tensor(values, position: int) -> None:
    if not isinstance(values, Tensor):
        raise TypeError(
            f"heaviside(): argument 'values' (position {position}) must be Tensor, not "
            f"{python_type_name(values)}" + (real_pytorch_hint(values) or
            "\nHint: wrap the number in a tensor of the input's dtype: torch.tensor([0.5]).")
        )


class SincBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂sinc(a)/∂a = (cos(πa)·πa − sin(πa))/(πa²)  (0 at a = 0)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with np.errstate(invalid="ignore"):  # sin(±inf) is nan silently, as in PyTorch
            return np.sinc(_opmath(a)).astype(a.dtype)  # sin(πa)/(πa), and 1 at 0

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if isinstance(grad, Tensor):  # create_graph: keep the product, differentiable at 0
            # ... but an inf or nan gradient at a = 0 is dropped first: the slope there is
            # 0, and PyTorch's select gives 0 (seed 88628: sinc(0).atanh()), not inf·0 = nan
            at_zero = np.asarray(_value(a)) == 0
            if at_zero.any():
                drop = at_zero & ~np.isfinite(_value(grad))
                if drop.any():
                    grad = masked_fill_zero(drop, grad)
            return grad * _sinc_slope(a)
        out = grad * _sinc_slope(a)
        # PyTorch selects 0 at a = 0, so an inf gradient there gives 0 (not inf·0 = nan).
        return zero_where(np.asarray(_value(a)) == 0, out)


# The slope of sinc as a power series in u = πa: π·Σₖ (−1)ᵏ·2k·u²ᵏ⁻¹/(2k+1)!, k ≥ 1, that is
# π·(−u/3 + u³/30 − u⁵/840 + ...). Nine terms are exact to rounding for |u| < 1.
_SINC_SLOPE_SERIES = [(-1) ** k * 2 * k / math.factorial(2 * k + 1) for k in range(1, 10)]


def _sinc_slope(a):
    """sinc's derivative at ``a`` (an array, or a tensor under ``create_graph``).

    The closed form (cos(πa)·πa − sin(πa))/(πa²) subtracts two nearly equal numbers near
    0 (at a = 1e-8 it is 36 % off; at 0 it is 0/0), so for |πa| < 1 the power series is
    used instead. Written with array operations only, it is differentiated again under
    ``create_graph``: the second derivative at 0 is the true −π²/3 (PyTorch gives nan).
    """
    x = np.asarray(_value(a))
    near_zero = np.abs(x) < 1 / math.pi
    far = np.where(near_zero, 1, a)  # (each formula sees only values it is exact and finite for)
    pa = math.pi * far
    closed = (np.cos(pa) * pa - np.sin(pa)) / (pa * far)
    if not near_zero.any():
        return closed
    u = math.pi * np.where(near_zero, a, 0)
    u2 = u * u
    series = _SINC_SLOPE_SERIES[-1]
    for coefficient in reversed(_SINC_SLOPE_SERIES[:-1]):  # Horner's rule in u²
        series = series * u2 + coefficient
    return np.where(near_zero, math.pi * u * series, closed)


@tensor_method()
def sinc(input: Tensor) -> Tensor:
    """The normalized sinc function ``sin(π·input)/(π·input)``, and 1 at 0.

    >>> import teachgrad as torch
    >>> torch.tensor([0., 0.5]).sinc()
    tensor([1.0000, 0.6366])
    """
    return _unary(SincBackward0, input)


class LogitBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"eps": "eps"}
    formula = ("∂ln(a/(1 − a))/∂a = 1/(a(1 − a))  (0 outside [eps, 1 − eps] when eps is given; "
               "NaN outside [0, 1] when not)")

    @staticmethod
    def forward(ctx, a, eps):
        ctx.save_for_backward(a)
        ctx.eps = eps
        if eps is not None:
            a = np.clip(a, a.dtype.type(eps), a.dtype.type(1 - eps))
        return np.log(a / (1 - a))  # (in the input's dtype, float16 too: PyTorch's way)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # A plain backward: + 0.0 turns a·(1 − a) = −0 at a = −0 into +0, so the slope is
        # +inf there, as PyTorch's kernel gives (its create_graph formula gives −inf: so do we)
        # (under create_graph PyTorch's 1 - self fills a tensor and subtracts: SubBackward0)
        if type(grad) is not Tensor:
            slope = grad / (a * (1 - a) + 0.0)
        else:
            slope = grad / (a * number_minus(1, a))
        x = np.asarray(_value(a))
        if ctx.eps is None:  # outside [0, 1] the logit is nan, and so is PyTorch's slope
            outside = (x < 0) | (x > 1)
            if outside.any() or type(slope) is Tensor:  # (PyTorch always selects: WhereBackward0)
                return np.where(outside, np.nan, slope)
            return slope
        return np.where((x < ctx.eps) | (x > 1 - ctx.eps), 0, slope)


@tensor_method()
def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """The inverse of sigmoid, ``log(input/(1 − input))``; with ``eps``, input is first
    clamped to ``[eps, 1 − eps]`` (so 0 and 1 give finite values).

    >>> import teachgrad as torch
    >>> torch.tensor([0.5, 0.75, 1.]).logit()
    tensor([0.0000, 1.0986,    inf])
    >>> torch.tensor([0., 1.]).logit(eps=1e-6)
    tensor([-13.8155,  13.8023])
    """
    x = float_tensor(input)
    return LogitBackward0.apply(x, eps=None if eps is None else float(eps))


__all__ = ["deg2rad", "rad2deg", "copysign", "frac", "fix", "heaviside", "sinc",
           "logit"]
