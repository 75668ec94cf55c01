"""Special functions: inverse trigonometry, hyperbolic functions, erf, atan2, lerp, trace...

The ops a PyTorch tutorial reaches for after the basic ones of :mod:`.pointwise`, written
the same way: a class named after PyTorch's ``grad_fn`` with ``forward`` (NumPy) and
``backward`` side by side, and ``formula``, the local derivative the notebook stepper shows.

Backward formulas use only NumPy operators and ``np.*`` functions routed to teachgrad ops
(see :mod:`.numpy_protocol`), so they can be differentiated again (``create_graph=True``).
Integer inputs become the default float dtype, as PyTorch does for these float functions.
"""

from __future__ import annotations

import math

import numpy as np

from .._arguments import Signatures
from .._dtypes import result_type
from .._missing_arguments import REQUIRED, missing
from .._real_pytorch import real_pytorch_hint
from .._tensor import _CPP_TYPE_NAMES, Tensor, _make, python_type_name, tensor_method
from ..autograd import inference
from . import numpy_protocol, pointwise
from .fill_value import check_real_value
from .fused import multiply_add
from .layout import copy_keeping_layout
from .number_factor import (
    MulBackward1,
    minus_number,
    number_minus,
    over_number,
    plus_number,
    times_number,
)
from .numerics import erf as _erf_kernels
from .numerics import in_float64
from .op import Op
from .pointwise import (
    _binary,
    _check_broadcast,
    _check_shapes_broadcast,
    _division_operands,
    _floating,
    _operand,
    _unary,
    _value,
)
from .select_grad import masked_fill_zero

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)  # erf'(0): erf′(a) = 2/√π · e^(−a²)


def float_tensor(x) -> Tensor:
    """``x`` as a floating-point tensor: numbers become tensors, integer and bool tensors
    the default float dtype (PyTorch's rule for float functions such as erf or lgamma)."""
    return _unary(_Identity, x)


class _Identity:
    """Stands in for an op in :func:`float_tensor`: ``_unary`` converts, this returns."""

    @staticmethod
    def apply(x: Tensor) -> Tensor:
        return x


def recorded_or_plain(function, kernel, a, *args):
    """``function(*args, a)`` when ``a`` is a Tensor, else ``kernel(*args, a)``.

    For backward formulas that need a special function of a saved value (erfinv, digamma,
    i1 ...): NumPy has no such function to route, so under ``create_graph=True`` (where
    saved values come as Tensors) the teachgrad function is called and recorded, and in a
    plain backward the NumPy kernel runs on the array.
    """
    return function(*args, a) if isinstance(a, Tensor) else kernel(*args, a)


# ----------------------------------------------------------------------------------------
# Inverse trigonometric functions
# ----------------------------------------------------------------------------------------
class AsinBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(asin a)/∂a = 1/√(1 − a²)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.arcsin(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: one division, no reciprocal
            return grad / np.sqrt(1 - a * a)
        # create_graph: PyTorch's formula grad * (-self * self + 1).rsqrt()
        return grad * plus_number(-a * a, 1).rsqrt()


class AcosBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(acos a)/∂a = −1/√(1 − a²)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.arccos(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: one division, no reciprocal
            return -grad / np.sqrt(1 - a * a)
        # create_graph: PyTorch's formula grad * -((-self * self + 1).rsqrt())
        return grad * -plus_number(-a * a, 1).rsqrt()


class AtanBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(atan a)/∂a = 1/(1 + a²)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.arctan(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / plus_number(a * a, 1)  # (self * self + 1: AddBackward1 under create_graph)


@tensor_method("asin", "arcsin")
def asin(input: Tensor) -> Tensor:
    """Inverse sine (``nan`` outside [-1, 1]).

    >>> import teachgrad as torch
    >>> torch.tensor([0., 1.]).asin()
    tensor([0.0000, 1.5708])
    """
    return _unary(AsinBackward0, input)


@tensor_method("acos", "arccos")
def acos(input: Tensor) -> Tensor:
    """Inverse cosine (``nan`` outside [-1, 1]).

    >>> import teachgrad as torch
    >>> torch.tensor([1., 0.]).acos()
    tensor([0.0000, 1.5708])
    """
    return _unary(AcosBackward0, input)


@tensor_method("atan", "arctan")
def atan(input: Tensor) -> Tensor:
    """Inverse tangent.

    >>> import teachgrad as torch
    >>> torch.tensor([0., 1.]).atan()
    tensor([0.0000, 0.7854])
    """
    return _unary(AtanBackward0, input)


arcsin, arccos, arctan = asin, acos, atan  # PyTorch's aliases (NumPy's names)


# ----------------------------------------------------------------------------------------
# Hyperbolic functions and their inverses
# ----------------------------------------------------------------------------------------
class SinhBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(sinh a)/∂a = cosh a"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.sinh(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * np.cosh(a)


class CoshBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(cosh a)/∂a = sinh a"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.cosh(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * np.sinh(a)


class AsinhBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(asinh a)/∂a = 1/√(a² + 1)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.arcsinh(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: one division, no reciprocal
            return grad / np.sqrt(a * a + 1)
        # create_graph: PyTorch's formula grad * (self.pow(2) + 1).rsqrt()
        return grad * plus_number(a.pow(2), 1).rsqrt()


class AcoshBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(acosh a)/∂a = 1/√(a² − 1)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.arccosh(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # (a − 1)(a + 1) rather than a² − 1: no cancellation just above a = 1. At a = −1
        # that is (−2)·(+0) = −0, whose root is −0: + 0.0 makes it +0, so the gradient
        # is +∞ as PyTorch's (a² − 1 = +0), not −∞.
        if type(grad) is not Tensor:  # a plain backward: one division, no reciprocal
            return grad / np.sqrt((a - 1) * (a + 1) + 0.0)
        # Under create_graph, PyTorch's formula itself: differentiated again at a = 1, the
        # product (a − 1)(a + 1) would send −∞·(a − 1) = −∞·0 = nan back, where the true
        # second derivative −a/(a² − 1)^(3/2) is −∞ (as a² − 1 gives).
        return grad * minus_number(a * a, 1).rsqrt()  # PyTorch's: (self * self - 1).rsqrt()


class AtanhBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(atanh a)/∂a = 1/(1 − a²)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.arctanh(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is Tensor and type(a) is Tensor:  # create_graph: PyTorch's formula
            # grad * 1 / (1 - self.pow(2)): MulBackward1, and C++'s number minus tensor
            return times_number(grad, 1) / number_minus(1, a.pow(2))
        return grad / (1 - a * a)


@tensor_method()
def sinh(input: Tensor) -> Tensor:
    """Hyperbolic sine, ``(eᵃ − e⁻ᵃ)/2``.

    >>> import teachgrad as torch
    >>> torch.tensor([0., 1.]).sinh()
    tensor([0.0000, 1.1752])
    """
    return _unary(SinhBackward0, input)


@tensor_method()
def cosh(input: Tensor) -> Tensor:
    """Hyperbolic cosine, ``(eᵃ + e⁻ᵃ)/2``.

    >>> import teachgrad as torch
    >>> torch.tensor([0., 1.]).cosh()
    tensor([1.0000, 1.5431])
    """
    return _unary(CoshBackward0, input)


@tensor_method("asinh", "arcsinh")
def asinh(input: Tensor) -> Tensor:
    """Inverse hyperbolic sine.

    >>> import teachgrad as torch
    >>> torch.tensor([0., 1.]).asinh()
    tensor([0.0000, 0.8814])
    """
    return _unary(AsinhBackward0, input)


@tensor_method("acosh", "arccosh")
def acosh(input: Tensor) -> Tensor:
    """Inverse hyperbolic cosine (``nan`` below 1).

    >>> import teachgrad as torch
    >>> torch.tensor([1., 2.]).acosh()
    tensor([0.0000, 1.3170])
    """
    return _unary(AcoshBackward0, input)


@tensor_method("atanh", "arctanh")
def atanh(input: Tensor) -> Tensor:
    """Inverse hyperbolic tangent (±inf at ±1, ``nan`` outside [-1, 1]).

    >>> import teachgrad as torch
    >>> torch.tensor([0., 0.5]).atanh()
    tensor([0.0000, 0.5493])
    """
    return _unary(AtanhBackward0, input)


arcsinh, arccosh, arctanh = asinh, acosh, atanh

# Under create_graph, sinh's backward calls np.cosh on a tensor (and cosh's np.sinh).
numpy_protocol.register(np.sinh)(sinh)
numpy_protocol.register(np.cosh)(cosh)


# ----------------------------------------------------------------------------------------
# The error function and its inverse
# ----------------------------------------------------------------------------------------
# NumPy has no erf (and SciPy is not a dependency): the kernels in numerics/erf.py compute
# them, vectorised, in float64 (so float32 results are correctly rounded, or 1 ulp off).
_erf = in_float64(_erf_kernels.erf)
_erfc = in_float64(_erf_kernels.erfc)
_erfinv = in_float64(_erf_kernels.erfinv)
_erfcx = in_float64(_erf_kernels.erfcx)
_ndtri = in_float64(_erf_kernels.ndtri)
_log_ndtr = in_float64(_erf_kernels.log_ndtr)


class ErfBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂erf(a)/∂a = 2/√π · e^(−a²)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _erf(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is Tensor and type(a) is Tensor:  # create_graph: PyTorch's formula
            return times_number((-a.pow(2)).exp(), _TWO_OVER_SQRT_PI) * grad
        return grad * _TWO_OVER_SQRT_PI * np.exp(-a * a)


class ErfcBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂erfc(a)/∂a = −2/√π · e^(−a²)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _erfc(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is Tensor and type(a) is Tensor:  # create_graph: PyTorch's formula
            return times_number((-a.pow(2)).exp(), -_TWO_OVER_SQRT_PI) * grad
        return -grad * _TWO_OVER_SQRT_PI * np.exp(-a * a)


class ErfinvBackward0(Op):
    """The derivative of an inverse is 1 / (the derivative at the result): 1 / erf′(out)."""
    saved_names = ("self",)  # grad_fn._saved_...

    formula = "∂erfinv(a)/∂a = √π/2 · e^(erfinv(a)²)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _erfinv(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        out = recorded_or_plain(erfinv, _erfinv, a)
        if type(grad) is Tensor and type(out) is Tensor:  # create_graph: PyTorch's formula
            return times_number(out.pow(2).exp(), 1 / _TWO_OVER_SQRT_PI) * grad
        return grad / _TWO_OVER_SQRT_PI * np.exp(out * out)


@tensor_method()
def erf(input: Tensor) -> Tensor:
    """The error function, ``2/√π ∫₀ᵃ e^(−t²) dt``.

    >>> import teachgrad as torch
    >>> torch.tensor([0., 1.]).erf()
    tensor([0.0000, 0.8427])
    """
    return _unary(ErfBackward0, input)


@tensor_method()
def erfc(input: Tensor) -> Tensor:
    """``1 − erf(input)``, accurate where erf is close to 1.

    >>> import teachgrad as torch
    >>> torch.tensor([0., 1.]).erfc()
    tensor([1.0000, 0.1573])
    """
    return _unary(ErfcBackward0, input)


@tensor_method()
def erfinv(input: Tensor) -> Tensor:
    """The inverse of erf: ``erf(erfinv(y)) == y`` for y in (-1, 1); ±inf at ±1.

    >>> import teachgrad as torch
    >>> torch.tensor([0., 0.5]).erfinv()
    tensor([0.0000, 0.4769])
    """
    return _unary(ErfinvBackward0, input)


# The scaled complement and the normal distribution: torch.special only (no Tensor
# methods, not in the top-level namespace), exported by teachgrad.special.
def _no_half(input, kernel: str):
    """erfcx, ndtri and log_ndtr have no float16 kernel in PyTorch: the same error here."""
    if isinstance(input, Tensor) and input._data.dtype == np.float16:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for 'Half'"
            "\nHint: compute in float32: x.float(), then convert back with .half()."
        )
    return input


class SpecialErfcxBackward0(Op):
    formula = "∂erfcx(a)/∂a = 2a·erfcx(a) − 2/√π"

    @staticmethod
    def forward(ctx, a):
        out = _erfcx(a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if type(grad) is Tensor:  # create_graph: PyTorch's (2.0·self·result − 2/√π)·grad
            return minus_number(times_number(a, 2.0) * out, _TWO_OVER_SQRT_PI) * grad
        return grad * (2 * a * out - _TWO_OVER_SQRT_PI)


def erfcx(input: Tensor) -> Tensor:
    """The scaled complementary error function ``exp(input²)·erfc(input)``.

    It stays near ``1/(x√π)`` for large x, where ``exp(x²)`` overflows and ``erfc(x)``
    underflows.

    >>> import teachgrad as torch
    >>> torch.special.erfcx(torch.tensor([0., 30.]))
    tensor([1.0000, 0.0188])
    """
    return _unary(SpecialErfcxBackward0, _no_half(input, "erfcx_cpu"))


_SQRT_2PI = math.sqrt(2 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_SQRT_HALF = math.sqrt(0.5)


class SpecialNdtriBackward0(Op):
    """The derivative of an inverse: 1/Φ′(out) = √(2π)·e^(out²/2)."""

    formula = "∂ndtri(p)/∂p = √(2π)·e^(ndtri(p)²/2)"

    @staticmethod
    def forward(ctx, p):
        out = _ndtri(p)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if type(out) is Tensor:  # create_graph: PyTorch's grad·√(2π)·(result.square() / 2).exp()
            return times_number(grad, _SQRT_2PI) * over_number(out.square(), 2).exp()
        return grad * _SQRT_2PI * np.exp(out * out / 2)


def ndtri(input: Tensor) -> Tensor:
    """The inverse of :func:`ndtr`: the x with ``Φ(x) = input`` (the normal quantile).

    >>> import teachgrad as torch
    >>> torch.special.ndtri(torch.tensor([0.5, 0.975]))
    tensor([0.0000, 1.9600])
    """
    return _unary(SpecialNdtriBackward0, _no_half(input, "ndtri_cpu"))


class SpecialLogNdtrBackward0(Op):
    saved_names = ("self", "result")  # grad_fn._saved_...
    formula = "∂log Φ(a)/∂a = φ(a)/Φ(a) = √(2/π)/erfcx(−a/√2)"

    @staticmethod
    def forward(ctx, a):
        out = _log_ndtr(a)
        ctx.save_for_backward(a, out)  # (the result for create_graph, as PyTorch keeps it)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if type(a) is Tensor:
            # create_graph: PyTorch's grad / √(2π) · (−(result + self.pow(2) / 2)).exp(),
            # the same values but where e^(−a²/2)/Φ(a) loses digits (far left tail)
            return over_number(grad, _SQRT_2PI) * (-(out + over_number(a.pow(2), 2))).exp()
        # φ(a)/Φ(a) = e^(−a²/2)/√(2π) / (erfc(−a/√2)/2): the e^(−a²/2) cancel exactly
        # against erfc's, leaving erfcx, which neither underflows nor loses digits.
        return grad * _SQRT_2_OVER_PI / recorded_or_plain(erfcx, _erfcx, a * -_SQRT_HALF)


def log_ndtr(input: Tensor) -> Tensor:
    """``log Φ(input)``, accurate far into both tails (Φ: the standard normal CDF).

    >>> import teachgrad as torch
    >>> torch.special.log_ndtr(torch.tensor([0., -40.]))
    tensor([-6.9315e-01, -8.0461e+02])
    """
    return _unary(SpecialLogNdtrBackward0, _no_half(input, "log_ndtr_cpu"))


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF ``Φ(input) = erfc(−input/√2)/2``.

    Composed of recorded ops (a product, erfc, a product), like PyTorch's, which builds it
    from ``erf``; erfc keeps the lower tail (Φ(−10) ≈ 7.6e-24), where ``1 + erf`` gives 0.

    >>> import teachgrad as torch
    >>> torch.special.ndtr(torch.tensor([0., 1.96]))
    tensor([0.5000, 0.9750])
    """
    x = float_tensor(input)
    return MulBackward1.apply(erfc(MulBackward1.apply(x, other=-1 / math.sqrt(2))), other=0.5)


# ----------------------------------------------------------------------------------------
# Functions of two tensors
# ----------------------------------------------------------------------------------------
def _require_tensor(name: str, other) -> None:
    """atan2, hypot and logaddexp take two tensors: PyTorch refuses a number."""
    if not isinstance(other, Tensor):
        raise TypeError(
            f"{name}(): argument 'other' (position 2) must be Tensor, not "
            f"{python_type_name(other)}" + (real_pytorch_hint(other) or
            f"\nHint: wrap the number in a tensor: torch.{name}(x, torch.tensor(2.0)).")
        )


def _refuse_integers(kernel: str, a: Tensor, b) -> None:
    """hypot, lerp and logaddexp have no integer kernel in PyTorch (no promotion to float).

    PyTorch checks the shapes first, so a size mismatch is reported as one."""
    if isinstance(b, Tensor):
        _check_broadcast(a, b)
    dtype = result_type(a, b)
    if not dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtype._legacy.removesuffix('Tensor')}'"
            "\nHint: convert to floats first, e.g. x.float()."
        )


def _float_operands(a, b):
    """Operands whose result dtype is integral become the default float (atan2, xlogy)."""
    if result_type(a, b).is_floating_point:
        return a, b
    return tuple(_floating(x) if isinstance(x, Tensor) else float(x) for x in (a, b))


class Atan2Backward0(Op):
    saved_names = ("self", "other")  # grad_fn._saved_...
    formula = "∂atan2(a,b)/∂a = b/(a² + b²)    ∂atan2(a,b)/∂b = −a/(a² + b²)"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.arctan2(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        if type(grad) is Tensor:  # create_graph: PyTorch's atan2_backward, node for node
            recip = (a * a + b * b).reciprocal()
            recip = recip.masked_fill(recip == np.inf, 0)  # (the origin: slopes 0)
            return grad * b * recip, grad * -a * recip
        r2 = a * a + b * b
        at_origin = np.asarray(_value(r2)) == 0
        if at_origin.any():  # atan2(0, 0): PyTorch's slopes are 0 there, not 0/0 = nan
            # ...chosen by a where() over 1/r² = inf, as in PyTorch: the second derivatives
            # there come out nan (0 · inf, behind the where), as PyTorch's do.
            with np.errstate(divide="ignore"):
                inverse = np.where(at_origin, 0, 1 / r2)
            return grad * (b * inverse), grad * (-a * inverse)
        # grad times the slope last, as PyTorch: MulBackward0 under create_graph
        return grad * (b / r2), grad * (-a / r2)


@tensor_method("atan2", "arctan2")
def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of the point (other, input): ``atan(input/other)`` in the right quadrant.

    >>> import teachgrad as torch
    >>> torch.atan2(torch.tensor([1., 1.]), torch.tensor([1., -1.]))
    tensor([0.7854, 2.3562])
    """
    _require_tensor("atan2", other)
    return _binary(Atan2Backward0, *_float_operands(input, other))


arctan2 = atan2


class HypotBackward0(Op):
    saved_names = ("self", "other", "result")  # grad_fn._saved_...
    formula = "∂√(a² + b²)/∂a = a/√(a² + b²)    ∂√(a² + b²)/∂b = b/√(a² + b²)"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        out = np.hypot(a, b)
        # Only what the needed gradients use, as PyTorch saves: changing b in place after
        # hypot(a, b) is fine when b needs no gradient.
        needs = ctx.needs_input_grad  # (four Falses when nothing is recorded)
        ctx.save_for_backward(a if needs[0] else None, b if needs[1] else None, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad * a / out if need_a else None), (grad * b / out if need_b else None)


@tensor_method()
def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``√(input² + other²)``, without overflow for large values.

    >>> import teachgrad as torch
    >>> torch.hypot(torch.tensor([3.]), torch.tensor([4.]))
    tensor([5.])
    """
    _require_tensor("hypot", other)
    _refuse_integers("hypot_cpu", input, other)
    return _binary(HypotBackward0, input, other)


class LogaddexpBackward0(Op):
    saved_names = ("self", "other")  # grad_fn._saved_...
    formula = "∂ln(eᵃ + eᵇ)/∂a = eᵃ/(eᵃ + eᵇ)    ∂/∂b = eᵇ/(eᵃ + eᵇ)"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)  # the inputs, not the result (PyTorch's saves)
        return np.logaddexp(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # PyTorch's formula, grad / (1 + e^(b−a)) (DivBackward0 under create_graph, over
        # C++'s number plus tensor, AddBackward1): at a = −∞ or b = +∞ it gives 0 and grad,
        # where e^(a − out) gave e^(∞ − ∞) = nan.
        return grad / plus_number(np.exp(b - a), 1), grad / plus_number(np.exp(a - b), 1)


class Logaddexp2Backward0(Op):
    saved_names = ("self", "other")  # grad_fn._saved_...
    formula = "∂log₂(2ᵃ + 2ᵇ)/∂a = 2ᵃ/(2ᵃ + 2ᵇ)    ∂/∂b = 2ᵇ/(2ᵃ + 2ᵇ)"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.logaddexp2(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # PyTorch's formula, as logaddexp's: no ∞ − ∞ when one input is infinite
        return grad / plus_number(2 ** (b - a), 1), grad / plus_number(2 ** (a - b), 1)


@tensor_method()
def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """``log(exp(input) + exp(other))``, computed without overflow.

    >>> import teachgrad as torch
    >>> torch.logaddexp(torch.tensor([0.]), torch.tensor([0.]))
    tensor([0.6931])
    """
    _require_tensor("logaddexp", other)
    _refuse_integers("logaddexp_cpu", input, other)
    return _binary(LogaddexpBackward0, input, other)


@tensor_method()
def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2**input + 2**other)``, computed without overflow.

    >>> import teachgrad as torch
    >>> torch.logaddexp2(torch.tensor([1.]), torch.tensor([1.]))
    tensor([2.])
    """
    _require_tensor("logaddexp2", other)
    _refuse_integers("logaddexp2_cpu", input, other)
    return _binary(Logaddexp2Backward0, input, other)


def _xlogy_zeros(x, y):
    """Where x·log(y) is defined as 0: x = 0 (unless y is nan), as in PyTorch and SciPy."""
    x, y = np.asarray(_value(x)), np.asarray(_value(y))
    return (x == 0) & ~np.isnan(y)


def _times_log(grad, other, flat, log, recorded):
    """``grad · log(other)`` as PyTorch's xlogy/xlog1py backward computes it: with the op
    itself (``xlogy(grad, other)``: 0 where grad is 0, even where the log is infinite), and
    0 where ``flat``: where ``input`` is 0 and ``other`` is at or past the log's edge, where
    ``input · log(other)`` is 0 by definition. On tensors (create_graph) the op is recorded,
    and the zeros as PyTorch fills them (``MaskedFillBackward0``).
    """
    if isinstance(grad, Tensor) or isinstance(other, Tensor):
        scaled = recorded(grad, other)
    else:
        scaled = np.where(_xlogy_zeros(grad, other), 0, grad * log(other))
    return masked_fill_zero(flat, scaled)


class XlogyBackward0(Op):
    saved_names = ("self", "other")  # grad_fn._saved_...
    formula = "∂(a·ln b)/∂a = ln b    ∂(a·ln b)/∂b = a/b"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        with np.errstate(divide="ignore", invalid="ignore"):  # 0·log 0: replaced by 0 below
            return np.where(_xlogy_zeros(a, b), 0, a * np.log(b)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        flat = (np.asarray(_value(a)) == 0) & (np.asarray(_value(b)) <= 0)
        return _times_log(grad, b, flat, np.log, xlogy), grad * a / b


class XlogyBackward1(Op):
    """``xlogy(number, tensor)``: the number is a constant."""

    formula = "∂(c·ln b)/∂b = c/b"

    @staticmethod
    def forward(ctx, b, x):
        ctx.save_for_backward(b)
        ctx.x = x
        return np.where(_xlogy_zeros(x, b), 0, x * np.log(b)).astype(b.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (b,) = ctx.saved_tensors
        return grad * ctx.x / b


class XlogyBackward2(Op):
    """``xlogy(tensor, number)``: the number is a constant."""

    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(a·ln c)/∂a = ln c"

    @staticmethod
    def forward(ctx, a, y):
        ctx.y = y
        # PyTorch keeps a (its formula masks where a == 0): a later in-place change of a
        # makes backward refuse, here too (backward reads it back for the check)
        ctx.save_for_backward(a)
        # where the slope is 0 by definition: PyTorch tests "not > 0", so a nan number too
        ctx.flat = (a == 0) & np.logical_not(y > 0)
        return np.where(_xlogy_zeros(a, y), 0, a * np.log(y)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only (ctx.flat was kept)
        if isinstance(grad, Tensor) and ctx.y > 0:
            # PyTorch fills no zeros for a positive number (nothing to fill): the recorded
            # graph ends in XlogyBackward2, not MaskedFillBackward0
            return xlogy(grad, ctx.y)
        return _times_log(grad, ctx.y, ctx.flat, np.log, xlogy)


@tensor_method()
def xlogy(input, other=REQUIRED) -> Tensor:
    """``input · log(other)``, but 0 where ``input`` is 0 (so 0·log 0 = 0): entropy terms.

    >>> import teachgrad as torch
    >>> torch.xlogy(torch.tensor([0., 2.]), torch.tensor([0., 1.]))
    tensor([0., 0.])
    """
    if other is REQUIRED:  # (x.xlogy(): PyTorch's words, see _missing_arguments)
        raise missing("xlogy", xlogy, input, other)
    a, b = _float_operands(_operand(input), _operand(other))
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _binary(XlogyBackward0, a, b)
    if isinstance(b, Tensor):  # xlogy(number, tensor)
        dtype = result_type(a, b).numpy
        return XlogyBackward1.apply(b if b._data.dtype == dtype else _make(b._data.astype(dtype)),
                                    x=a)
    if type(a._vc) is not list and inference.wraps_the_number(a):
        return xlogy(a, inference.wrapped(b))
    dtype = result_type(a, b).numpy
    return XlogyBackward2.apply(a if a._data.dtype == dtype else _make(a._data.astype(dtype)),
                                y=b)


def _xlog1py_zeros(x, y):
    """Where x·log1p(y) is 0 by definition: x = 0 (unless y is nan), as in PyTorch."""
    x, y = np.asarray(_value(x)), np.asarray(_value(y))
    return (x == 0) & ~np.isnan(y)


class SpecialXlog1PyBackward0(Op):
    formula = "∂(a·ln(1 + b))/∂a = ln(1 + b)    ∂(a·ln(1 + b))/∂b = a/(1 + b)"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        zero = _xlog1py_zeros(a, b)
        return np.where(zero, 0, a * np.log1p(b)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        flat = (np.asarray(_value(a)) == 0) & (np.asarray(_value(b)) <= -1)
        # (b + 1: C++'s tensor plus number under create_graph, AddBackward1)
        return _times_log(grad, b, flat, np.log1p, xlog1py), grad * a / plus_number(b, 1)


class SpecialXlog1PyBackward1(Op):
    """``xlog1py(number, tensor)``: the number is a constant."""

    formula = "∂(c·ln(1 + b))/∂b = c/(1 + b)"

    @staticmethod
    def forward(ctx, b, x):
        ctx.save_for_backward(b)
        ctx.x = x
        return np.where(_xlog1py_zeros(x, b), 0, x * np.log1p(b)).astype(b.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (b,) = ctx.saved_tensors
        return grad * ctx.x / (b + 1)


class SpecialXlog1PyBackward2(Op):
    """``xlog1py(tensor, number)``: the number is a constant."""

    formula = "∂(a·ln(1 + c))/∂a = ln(1 + c)"

    @staticmethod
    def forward(ctx, a, y):
        ctx.y = y
        ctx.flat = (a == 0) & np.logical_not(y > -1)  # (as xlogy's: nan too)
        return np.where(_xlog1py_zeros(a, y), 0, a * np.log1p(y)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        if isinstance(grad, Tensor) and ctx.y > -1:  # (as xlogy's: no zeros to fill)
            return xlog1py(grad, ctx.y)
        return _times_log(grad, ctx.y, ctx.flat, np.log1p, xlog1py)


def xlog1py(input, other) -> Tensor:
    """``input · log1p(other)``, but 0 where ``input`` is 0 (so 0·log1p(−1) = 0).

    >>> import teachgrad as torch
    >>> torch.special.xlog1py(torch.tensor([0., 2.]), torch.tensor([-1., 0.]))
    tensor([0., 0.])
    """
    a, b = _float_operands(_operand(input), _operand(other))
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _binary(SpecialXlog1PyBackward0, a, b)
    dtype = result_type(a, b).numpy
    if isinstance(b, Tensor):  # xlog1py(number, tensor)
        return SpecialXlog1PyBackward1.apply(_as_dtype(b, dtype), x=a)
    return SpecialXlog1PyBackward2.apply(_as_dtype(a, dtype), y=b)


def _as_dtype(t: Tensor, dtype) -> Tensor:
    return t if t._data.dtype == dtype else _make(t._data.astype(dtype))


class SpecialEntrBackward0(Op):
    formula = "∂(−a·ln a)/∂a = −(1 + ln a)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        # −a·ln a for a > 0, 0 at 0, −inf below 0 (nan stays nan).
        return np.where(a > 0, -a * np.log(np.where(a > 0, a, 1)),
                        np.where(a == 0, 0, np.where(a < 0, -np.inf, a))).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # PyTorch's grad · (−(1 + log a)): under create_graph NegBackward0 over C++'s
        # number plus tensor (AddBackward1)
        return grad * -plus_number(np.log(a), 1)


def entr(input: Tensor) -> Tensor:
    """The elementwise entropy term ``−input · log(input)`` (0 at 0, −inf below 0).

    >>> import teachgrad as torch
    >>> torch.special.entr(torch.tensor([0., 0.5, 1.]))
    tensor([0.0000, 0.3466, -0.0000])
    """
    return _unary(SpecialEntrBackward0, input)


# ----------------------------------------------------------------------------------------
# lerp, fmod, nan_to_num, trace
# ----------------------------------------------------------------------------------------
class LerpBackward0(Op):
    """``lerp`` with a number weight: ``start + weight·(end − start)``."""

    formula = "∂lerp/∂start = 1 − w    ∂lerp/∂end = w"
    saved_attributes = {"weight": "weight"}  # grad_fn._saved_... (the number)

    @staticmethod
    def forward(ctx, start, end, weight):
        ctx.weight = weight
        return _lerp(start, end, weight)

    @staticmethod
    def backward(ctx, grad):
        w = ctx.weight
        return times_number(grad, 1 - w), times_number(grad, w)  # (MulBackward1 as PyTorch)


class LerpBackward1(Op):
    """``lerp`` with a tensor weight: the weight is an input too."""

    formula = "∂lerp/∂start = 1 − w    ∂lerp/∂end = w    ∂lerp/∂w = end − start"
    saved_names = ("self", "end", "weight")  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, start, end, weight):
        # Keep start and end only for the weight's gradient, as PyTorch does (the weight
        # it keeps always): a later in-place change of a tensor no gradient needs must not
        # stop backward.
        need_weight = ctx.needs_input_grad[2]
        ctx.save_for_backward(start if need_weight else None, end if need_weight else None,
                              weight)
        return _lerp(start, end, weight)

    @staticmethod
    def backward(ctx, grad):
        start, end, w = ctx.saved_tensors
        need_start, need_end, need_weight = ctx.needs_input_grad
        # (1 − w: under create_graph C++'s number minus tensor, SubBackward0, as PyTorch's)
        return (grad * number_minus(1, w) if need_start else None,
                grad * w if need_end else None,
                grad * (end - start) if need_weight else None)


def _lerp(start, end, weight):
    # PyTorch's formula: from whichever end is nearer, so that weight 1 gives exactly end,
    # with the multiply and the add fused (fmadd, one rounding; see fused.py). A number
    # weight is first rounded to the tensors' dtype, as PyTorch's kernel does (1 - w is then
    # float32's, which an optimizer's lerp_(grad, 1 - beta) shows).
    dtype = np.result_type(start, end)
    weight = np.asarray(weight).astype(dtype, copy=False)
    diff = end - start
    if weight.ndim == 0:  # one number: one of the two formulas for every element
        out = (multiply_add(weight, diff, start) if abs(weight) < 0.5
               else multiply_add(weight - 1, diff, end))
    else:
        near_start = np.abs(weight) < 0.5
        out = np.where(near_start, multiply_add(weight, diff, start),
                       multiply_add(weight - 1, diff, end))
    return np.asarray(out).astype(dtype, copy=False)


def _check_same_dtype(start: Tensor, other: Tensor, name: str) -> None:
    if other._data.dtype != start._data.dtype:
        expected, got = (_CPP_TYPE_NAMES[t._data.dtype.name] for t in (start, other))
        raise RuntimeError(f"expected dtype {expected} for `{name}` but got dtype {got}")


def check_lerp_dtypes(input: Tensor, end: Tensor, weight, **kwargs) -> None:
    """lerp's first checks in PyTorch (before the shapes; for lerp_, before the memory):
    end, and a weight tensor that is not a 0-d float, have input's dtype."""
    if isinstance(input, Tensor) and isinstance(end, Tensor):
        _check_same_dtype(input, end, "end")
        if isinstance(weight, Tensor) and (weight._data.ndim
                                           or weight._data.dtype.kind != "f"):
            _check_same_dtype(input, weight, "weight")


@tensor_method()
def lerp(input: Tensor, end: Tensor = REQUIRED, weight=REQUIRED) -> Tensor:
    """Linear interpolation: ``input + weight · (end − input)``.

    ``weight`` is a number or a tensor (then it gets a gradient too).

    >>> import teachgrad as torch
    >>> torch.lerp(torch.tensor([0., 10.]), torch.tensor([1., 20.]), 0.25)
    tensor([ 0.2500, 12.5000])
    """
    if end is REQUIRED or weight is REQUIRED:  # (x.lerp(): PyTorch's words, see _missing_arguments)
        raise missing("lerp", lerp, input, end, weight)
    check_lerp_dtypes(input, end, weight)
    _check_broadcast(input, end)
    check_real_value(weight, input._data.dtype)  # (PyTorch's words for a complex weight)
    weight = _operand(weight)
    if not isinstance(weight, Tensor):
        _refuse_integers("lerp_kernel_scalar", input, end)
        return LerpBackward0.apply(input, end, weight=weight)
    # PyTorch broadcasts the operands in turn: the weight meets start's and end's shape.
    _check_shapes_broadcast(np.broadcast_shapes(input._data.shape, end._data.shape),
                            weight._data.shape)
    dtype = result_type(input, end, weight)  # (integers and a 0-d float weight: floats)
    if not dtype.is_floating_point:
        raise NotImplementedError(
            f"\"lerp_kernel_tensor\" not implemented for "
            f"'{dtype._legacy.removesuffix('Tensor')}'\nHint: convert to floats first, e.g. "
            "x.float().")
    if input._data.dtype != dtype.numpy:  # integer input and end: computed in floats
        input, end = input.to(dtype), end.to(dtype)
    if weight._data.dtype != input._data.dtype:  # a 0-d float weight adapts, as in PyTorch
        weight = weight.to(input.dtype)
    return LerpBackward1.apply(input, end, weight)


class FmodBackward0(Op):
    """``fmod(tensor, number)``: the number is a constant."""

    formula = "∂fmod(a, c)/∂a = 1"

    @staticmethod
    def forward(ctx, a, other):
        return np.fmod(a, np.asarray(other, a.dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad


class FmodBackward1(Op):
    """``fmod(a, b) = a − b·trunc(a/b)``, and trunc is flat."""
    saved_names = ("self", "other")  # grad_fn._saved_...

    formula = "∂fmod(a,b)/∂a = 1    ∂fmod(a,b)/∂b = −trunc(a/b)"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        if ctx.needs_input_grad[1]:
            ctx.save_for_backward(a, b)
        return np.fmod(a, b)

    @staticmethod
    def backward(ctx, grad):
        if not ctx.needs_input_grad[1]:
            return grad, None
        a, b = ctx.saved_tensors
        if isinstance(grad, Tensor):  # under create_graph: PyTorch's formula, whose (flat)
            # rounded division is recorded, so the gradient requires grad as PyTorch's does
            return grad, -grad * pointwise.div(a, b, rounding_mode="trunc")
        return grad, -grad * np.trunc(_value(a) / _value(b))  # the quotient is flat


@tensor_method()
def fmod(input: Tensor, other=REQUIRED) -> Tensor:
    """C-style remainder: the result has the sign of ``input`` (``%`` follows ``other``).

    Differentiable in ``input`` (slope 1) and in a tensor ``other`` (slope ``-trunc(input/other)``).

    >>> import teachgrad as torch
    >>> torch.fmod(torch.tensor([-7., 7.]), 3)
    tensor([-1.,  1.])
    """
    if other is REQUIRED:  # (x.fmod(): PyTorch's words, see _missing_arguments)
        raise missing("fmod", fmod, input, other)
    if not isinstance(input, Tensor):  # a number first: no signature of PyTorch's fits
        raise number_first_error("fmod", input, other)
    other = _operand(other)
    aa, bb = _division_operands(input, other, "fmod_cpu")  # the checks and the result dtype
    if isinstance(other, Tensor):
        return FmodBackward1.apply(input, other)
    if type(input._vc) is not list and inference.wraps_the_number(input):
        return fmod(input, inference.wrapped(other))
    if aa.dtype != input._data.dtype:  # an integer tensor with a float number: in floats
        input = _make(aa)
    return FmodBackward0.apply(input, other=other)


def number_first_error(name: str, input, other) -> TypeError:
    """PyTorch's TypeError for ``torch.fmod(2.0, t)``, ``torch.copysign(2.0, t)``: its
    signatures take a tensor first and a tensor or a number second, and no other order."""
    signatures = Signatures(
        name, "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other, *, Tensor out = None)",
        hint=f"the first argument must be a tensor: torch.{name}(torch.tensor({input!r}), y).")
    return signatures.error((input, other))


class NanToNumBackward0(Op):
    inference_out_name = "nan_to_num"  # (see Op: PyTorch's composite writes through nan_to_num_out)
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂nan_to_num(a)/∂a = 1 where a is finite, else 0"

    @staticmethod
    def forward(ctx, a, nan, posinf, neginf):
        ctx.finite = np.isfinite(a)
        # PyTorch saves the input (its formula reads isfinite(self) in backward): a later
        # in-place change of it makes backward refuse, here too (see backward)
        ctx.save_for_backward(a)
        if 0 in a.strides:  # expanded: NumPy's order 'K' would scramble the dims PyTorch keeps
            a = copy_keeping_layout(a)
        return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only (ctx.finite was kept)
        return grad * ctx.finite


@tensor_method()
def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """Replace nan, +inf and -inf (by default with 0 and the dtype's largest and lowest values).

    >>> import teachgrad as torch
    >>> torch.tensor([float('nan'), float('inf'), 1.]).nan_to_num(posinf=9.)
    tensor([0., 9., 1.])
    """
    if input._data.dtype.kind != "f":  # integers have no nan or inf: a copy
        return _make(input._data.copy())
    return NanToNumBackward0.apply(input, nan=nan, posinf=posinf, neginf=neginf)


class TraceBackward0(Op):
    saved_attributes = {"self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...
    formula = "∂trace(A)/∂A = I (1 on the diagonal, 0 elsewhere)"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return np.trace(a).astype(a.dtype if a.dtype.kind == "f" else np.int64)

    @staticmethod
    def backward(ctx, grad):
        rows, cols = ctx.shape
        dtype = np.asarray(_value(grad)).dtype
        if type(grad) is not Tensor:
            return grad * np.eye(rows, cols, dtype=dtype)
        # PyTorch's formula: grad filled in at the diagonal's places in a flat row of zeros,
        # viewed as the matrix (IndexFillBackward1, then ViewBackward0 under create_graph)
        diagonal = _make(np.arange(min(rows, cols)) * (cols + 1))
        return _make(np.zeros(rows * cols, dtype)).index_fill(0, diagonal, grad).view(rows, cols)


@tensor_method()
def trace(input: Tensor) -> Tensor:
    """The sum of the diagonal of a matrix (integers sum to int64, as ``sum`` does).

    >>> import teachgrad as torch
    >>> torch.tensor([[1., 2.], [3., 4.]]).trace()
    tensor(5.)
    """
    if input._data.dtype == np.bool_:  # (PyTorch's dispatch on the dtype comes first)
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    return TraceBackward0.apply(input)


__all__ = [
    "asin", "acos", "atan", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh",
    "erf", "erfc", "erfinv", "atan2", "arctan2", "hypot", "logaddexp", "logaddexp2",
    "xlogy", "lerp", "fmod", "nan_to_num", "trace",
]
