"""Modified Bessel functions of the first kind: i0 (and torch.special's i0e, i1, i1e).

``I₀′ = I₁`` and ``I₁′ = I₀ − I₁/x``, so, as for the gamma family, each backward calls
another function of the family: on arrays in a plain backward, recorded under
``create_graph=True``. The numbers come from :mod:`.numerics.bessel`.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, tensor_method
from .numerics import bessel as _kernels
from .numerics import in_float64
from .op import Op
from .pointwise import _unary, _value
from .special import recorded_or_plain

_i0 = in_float64(_kernels.i0)
_i0e = in_float64(_kernels.i0e)
_i1 = in_float64(_kernels.i1)
_i1e = in_float64(_kernels.i1e)


def _at_zero(a, value, elsewhere):
    """``elsewhere``, but ``value`` where ``a`` is 0 (where I₁(x)/x is 0/0; its limit is ½)."""
    zero = np.asarray(_value(a)) == 0
    return np.where(zero, value, elsewhere)


def _nonzero(a):
    """``a`` with its zeros replaced by 1, to divide by (the result is then masked)."""
    return np.where(np.asarray(_value(a)) == 0, 1, a)


def _safe_self(a: Tensor):
    """PyTorch's i1/i1e backward under create_graph: ``a`` with the values within the
    dtype's epsilon of 0 replaced by epsilon (a recorded where, so that I₁(x)/x is never
    0/0), and where ``a`` was not that tiny (there the derivative is its limit, ½)."""
    eps = np.finfo(a._data.dtype).eps
    not_tiny = np.abs(a._data) > eps
    return np.where(not_tiny, a, a._data.dtype.type(eps)), not_tiny


class I0Backward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂I₀(a)/∂a = I₁(a)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _i0(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * recorded_or_plain(i1, _i1, a)


class SpecialI0EBackward0(Op):
    formula = "∂(e^(−|a|)I₀(a))/∂a = i1e(a) − sgn(a)·i0e(a)"

    @staticmethod
    def forward(ctx, a):
        out = _i0e(a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if type(a) is Tensor:  # create_graph: PyTorch's i1e(self) − self.sgn()·result
            return grad * (i1e(a) - a.sgn() * out)
        return grad * (recorded_or_plain(i1e, _i1e, a) - np.sign(_value(a)) * out)


class SpecialI1Backward0(Op):
    formula = "∂I₁(a)/∂a = I₀(a) − I₁(a)/a  (½ at a = 0)"

    @staticmethod
    def forward(ctx, a):
        out = _i1(a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if type(a) is Tensor:  # create_graph: PyTorch's i1_backward
            safe, not_tiny = _safe_self(a)
            return grad * np.where(not_tiny, i0(safe) - out * safe.reciprocal(), 0.5)
        slope = recorded_or_plain(i0, _i0, a) - out / _nonzero(a)
        return grad * _at_zero(a, 0.5, slope)


class SpecialI1EBackward0(Op):
    formula = "∂(e^(−|a|)I₁(a))/∂a = i0e(a) − i1e(a)·(sgn(a) + 1/a)  (½ at a = 0)"

    @staticmethod
    def forward(ctx, a):
        out = _i1e(a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if type(a) is Tensor:  # create_graph: PyTorch's i1e_backward
            safe, not_tiny = _safe_self(a)
            slope = i0e(safe) - out * (safe.sgn() + safe.reciprocal())
            return grad * np.where(not_tiny, slope, 0.5)
        slope = recorded_or_plain(i0e, _i0e, a) - out * (np.sign(_value(a)) + 1 / _nonzero(a))
        return grad * _at_zero(a, 0.5, slope)


@tensor_method()
def i0(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 0, ``Σₖ (x²/4)ᵏ/(k!)²``.

    >>> import teachgrad as torch
    >>> torch.tensor([0., 1.]).i0()
    tensor([1.0000, 1.2661])
    """
    return _unary(I0Backward0, input)


def i0e(input: Tensor) -> Tensor:
    """``exp(−|input|)·i0(input)``: finite where i0 overflows (torch.special only).

    >>> import teachgrad as torch
    >>> torch.special.i0e(torch.tensor([0., 1000.]))
    tensor([1.0000, 0.0126])
    """
    return _unary(SpecialI0EBackward0, input)


def i1(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 1 (torch.special only).

    >>> import teachgrad as torch
    >>> torch.special.i1(torch.tensor([0., 1.]))
    tensor([0.0000, 0.5652])
    """
    return _unary(SpecialI1Backward0, input)


def i1e(input: Tensor) -> Tensor:
    """``exp(−|input|)·i1(input)`` (torch.special only).

    >>> import teachgrad as torch
    >>> torch.special.i1e(torch.tensor([0., -1000.]))
    tensor([ 0.0000, -0.0126])
    """
    return _unary(SpecialI1EBackward0, input)


__all__ = ["i0"]
