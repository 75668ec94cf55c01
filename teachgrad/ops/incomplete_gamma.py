"""The regularised incomplete gamma functions: ``igamma`` (P) and ``igammac`` (Q = 1 − P).

``P(a, x) = γ(a, x)/Γ(a)`` is the CDF of a Gamma(a, 1) variable at ``x``; PyTorch calls it
``torch.igamma`` and ``torch.special.gammainc``, and Q ``igammac`` / ``gammaincc``.

Derivatives: in ``x`` it is the Gamma density, ``x^(a−1)·e^(−x)/Γ(a)``. In the shape ``a``
PyTorch has none ("the derivative for 'igamma: input' is not implemented"); teachgrad
gives the true one, which the NumPy kernel (``numerics/incomplete_gamma.py``) computes
alongside P (the Gamma distribution's ``cdf`` needs it). It is differentiable once: a
second derivative in ``a`` raises PyTorch's sentence rather than silently giving 0.

>>> import teachgrad as torch
>>> torch.special.gammainc(torch.tensor([1.]), torch.tensor([2.]))   # 1 - e^-2
tensor([0.8647])
"""

from __future__ import annotations

import numpy as np

from .._dtypes import result_type
from .._tensor import Tensor, tensor_method
from .gamma import lgamma
from .numerics import gamma as _gamma_kernels
from .numerics.incomplete_gamma import regularized_gamma, regularized_gamma_both
from .op import NoDerivative, Op
from .pointwise import _binary, _check_broadcast


def _density(a, x):
    """The Gamma(a, 1) density at ``x``: ∂P/∂x (recorded when ``a``, ``x`` are tensors)."""
    if isinstance(a, Tensor):  # create_graph: np.exp / np.log run teachgrad's ops
        return np.exp((a - 1) * np.log(x) - x - lgamma(a))
    with np.errstate(all="ignore"):
        log_density = (a - 1) * np.log(x) - x - _gamma_kernels.lgamma(np.asarray(a, np.float64))
    return np.exp(log_density).astype(np.result_type(a, x))


class IgammaGradInputBackward0(NoDerivative):
    """``∂P(a, x)/∂a`` recorded under ``create_graph``: differentiating it again raises."""

    formula = "∂P(a,x)/∂a is differentiable once"
    message = "the derivative for 'igamma: input' is not implemented."

    @staticmethod
    def forward(ctx, a, x):
        return regularized_gamma(a, x)[1].astype(np.result_type(a, x))


def _check_floating(a: Tensor, x: Tensor, kernel: str) -> None:
    """PyTorch's checks, in its order: the shapes broadcast, then the *promoted* dtype is a
    float (an int or bool tensor beside a float one is promoted, as in ``a * x``)."""
    if isinstance(a, Tensor) and isinstance(x, Tensor) and a._data.shape != x._data.shape:
        _check_broadcast(a, x)
    dtype = result_type(a, x)
    if not dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtype._legacy.removesuffix('Tensor')}'"
            "\nHint: the incomplete gamma functions take floating-point tensors "
            "(x.float())."
        )


class IgammaBackward0(Op):
    formula = "∂P(a,x)/∂x = x^(a−1)·e^(−x)/Γ(a)    ∂P(a,x)/∂a: from the series / fraction"
    promotes = True

    @staticmethod
    def forward(ctx, a, x):
        p, dp_da = regularized_gamma(a, x)
        dtype = np.result_type(a, x)
        ctx.save_for_backward(a, x)
        ctx.dp_da = dp_da.astype(dtype)  # computed with P anyway: saves a second pass
        return p.astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        dp_da = IgammaGradInputBackward0.apply(a, x) if isinstance(a, Tensor) else ctx.dp_da
        return grad * dp_da, grad * _density(a, x)


class IgammacBackward0(Op):
    formula = "Q = 1 − P:  ∂Q/∂x = −x^(a−1)·e^(−x)/Γ(a)    ∂Q/∂a = −∂P/∂a"
    promotes = True

    @staticmethod
    def forward(ctx, a, x):
        _p, q, dp_da = regularized_gamma_both(a, x)
        dtype = np.result_type(a, x)
        ctx.save_for_backward(a, x)
        ctx.dp_da = dp_da.astype(dtype)
        return q.astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        dp_da = IgammaGradInputBackward0.apply(a, x) if isinstance(a, Tensor) else ctx.dp_da
        return -grad * dp_da, -grad * _density(a, x)


@tensor_method()
def igamma(input: Tensor, other: Tensor) -> Tensor:
    """The regularised lower incomplete gamma function ``P(input, other)``.

    >>> import teachgrad as torch
    >>> torch.igamma(torch.tensor([1., 2.]), torch.tensor([0., float("inf")]))
    tensor([0., 1.])
    """
    _check_floating(input, other, "igamma_cpu")
    return _binary(IgammaBackward0, input, other)


@tensor_method()
def igammac(input: Tensor, other: Tensor) -> Tensor:
    """The regularised upper incomplete gamma function ``Q(input, other) = 1 − P``.

    >>> import teachgrad as torch
    >>> torch.igammac(torch.tensor([1.]), torch.tensor([0.]))
    tensor([1.])
    """
    _check_floating(input, other, "igammac_cpu")
    return _binary(IgammacBackward0, input, other)


gammainc = igamma  # torch.special's names
gammaincc = igammac

__all__ = ["igamma", "igammac"]
