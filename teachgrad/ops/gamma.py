"""The gamma family: lgamma, digamma, polygamma, mvlgamma.

Each function's derivative is the next one: ``lgamma′ = digamma``, ``digamma′ =
polygamma(1, ·)``, ``polygamma(n, ·)′ = polygamma(n + 1, ·)``. So every backward calls the
next function, on arrays in a plain backward and as a recorded op under
``create_graph=True`` (gradients of any order). The numbers come from
:mod:`.numerics.gamma`; integers become the default float dtype, as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from .._missing_arguments import REQUIRED, missing
from .._tensor import Tensor, _make, tensor_method
from .numerics import gamma as _kernels
from .numerics import in_float64
from .op import Op
from .pointwise import _unary
from .special import float_tensor, recorded_or_plain

_lgamma = in_float64(_kernels.lgamma)
_digamma = in_float64(_kernels.digamma)


def _polygamma(n: int, a: np.ndarray) -> np.ndarray:
    return in_float64(lambda x: _kernels.polygamma(n, x))(a)


class LgammaBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂lgamma(a)/∂a = digamma(a)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _lgamma(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * recorded_or_plain(digamma, _digamma, a)


class DigammaBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂digamma(a)/∂a = polygamma(1, a)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _digamma(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * recorded_or_plain(polygamma, _polygamma, a, 1)


class PolygammaBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"n": "n"}
    formula = "∂polygamma(n, a)/∂a = polygamma(n + 1, a)"

    @staticmethod
    def forward(ctx, a, n):
        ctx.save_for_backward(a)
        ctx.n = n
        return _digamma(a) if n == 0 else _polygamma(n, a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * recorded_or_plain(polygamma, _polygamma, a, ctx.n + 1)


class MvlgammaBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"p": "p"}
    formula = "∂mvlgamma(a, p)/∂a = Σⱼ₌₀^(p−1) digamma(a − j/2)"

    @staticmethod
    def forward(ctx, a, p):
        ctx.save_for_backward(a)
        ctx.p = p
        constant = p * (p - 1) / 4 * math.log(math.pi)
        return sum(_lgamma(a - j / 2) for j in range(p)) + a.dtype.type(constant)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(a) is Tensor:
            # create_graph: PyTorch's arange(−p/2 + ½, ½, ½) + self.unsqueeze(-1), then
            # digamma and a sum over the offsets
            offsets = _make(np.arange(-ctx.p / 2 + 0.5, 0.5, 0.5, dtype=a._data.dtype))
            return grad * digamma(offsets + a.unsqueeze(-1)).sum(-1)
        # (PyTorch adds a to arange's offsets: 0.0 + a, so a = -0.0 meets digamma at +0.0)
        return grad * sum(recorded_or_plain(digamma, _digamma, (0.0 - j / 2) + a)
                          for j in range(ctx.p))


@tensor_method()
def lgamma(input: Tensor) -> Tensor:
    """``log|Γ(input)|``, the log of the gamma function (inf at 0 and the negative integers).

    >>> import teachgrad as torch
    >>> torch.tensor([1., 4., 0.5]).lgamma()
    tensor([0.0000, 1.7918, 0.5724])
    """
    return _unary(LgammaBackward0, input)


@tensor_method()
def digamma(input: Tensor) -> Tensor:
    """ψ(input) = Γ′/Γ, the derivative of lgamma (−inf at 0, nan at the negative integers).

    >>> import teachgrad as torch
    >>> torch.tensor([1., 0.5]).digamma()
    tensor([-0.5772, -1.9635])
    """
    return _unary(DigammaBackward0, input)


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma: ``polygamma(0, x)`` is ``digamma(x)``.

    >>> import teachgrad as torch
    >>> torch.polygamma(1, torch.tensor([1.]))  # π²/6
    tensor([1.6449])
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(
            f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    # (n = 0 is digamma, recorded as PyTorch does under polygamma's own name)
    return PolygammaBackward0.apply(float_tensor(input), n=int(n))


@tensor_method("polygamma")
def _polygamma_method(self: Tensor, n: int = REQUIRED) -> Tensor:
    """``x.polygamma(n)`` is ``torch.polygamma(n, x)``."""
    if n is REQUIRED:  # (x.polygamma(): PyTorch's words, see _missing_arguments)
        raise missing("polygamma", _polygamma_method, self, n)
    return polygamma(n, self)


_polygamma_method.__name__ = "polygamma"  # its name as a method (x.polygamma_ says so)


def mvlgamma(input: Tensor, p: int = REQUIRED) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p``:
    ``Σⱼ₌₀^(p−1) lgamma(input − j/2) + p(p − 1)/4 · log π``.

    >>> import teachgrad as torch
    >>> torch.mvlgamma(torch.tensor([2.5]), 2)
    tensor([0.8570])
    """
    if p is REQUIRED:  # (x.mvlgamma(): PyTorch's words, see _missing_arguments)
        raise missing("mvlgamma", mvlgamma, input, p)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return MvlgammaBackward0.apply(float_tensor(input), p=int(p))


_mvlgamma_method = tensor_method("mvlgamma")(mvlgamma)

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma"]
