"""Random draws for the distributions, from teachgrad's generator (``teachgrad.manual_seed``).

Most samplers are plain NumPy draws wrapped as tensors (no gradient: a Poisson count does
not move when its rate moves a little). Gamma draws are different: ``StandardGammaBackward0``
records its sample so that ``backward`` reaches the shape parameter through the *implicit
reparameterisation* gradient ``dx/da = -(∂P/∂a)/pdf(x)`` (see
:mod:`teachgrad.ops.numerics.incomplete_gamma`).
``gammainc`` (the Gamma CDF) is differentiable in both arguments.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _aten_random as _kernels
from .. import _random
from .._sampling import binomial as _binomial
from .._sampling import poisson as _poisson
from .._tensor import Tensor, _make
from ..ops.incomplete_gamma import igamma as _igamma
from ..ops.numerics.incomplete_gamma import standard_gamma_grad
from ..ops.op import NoDerivative, Op


def _rng() -> np.random.Generator:
    return _random._rng(None)


def _wrap(values, dtype) -> Tensor:
    # np.array, not np.ascontiguousarray: that one turns a 0-d draw into shape (1,).
    return _make(np.array(values, dtype=dtype.numpy))


# These four are PyTorch's draws (``empty(shape).normal_()``, ``rand``, ``exponential_()``,
# ``cauchy_()``, as torch.distributions makes them), so a seeded sample is PyTorch's.
def standard_normal(shape, dtype) -> Tensor:
    """N(0, 1) draws of ``shape`` (a constant: the reparameterisation's noise)."""
    return _wrap(_random._normal_values(None, tuple(shape), 0.0, 1.0, dtype.numpy), dtype)


def uniform(shape, dtype) -> Tensor:
    """U[0, 1) draws of ``shape``."""
    return _wrap(_random._uniform_values(None, tuple(shape), 0.0, 1.0, dtype.numpy), dtype)


def _flat_draws(sample, shape, *args) -> np.ndarray:
    return sample(_random._engine(None), math.prod(shape), *args).reshape(tuple(shape))


def standard_exponential(shape, dtype) -> Tensor:
    """Exp(1) draws of ``shape``."""
    return _wrap(_flat_draws(_kernels.exponential, shape, 1.0), dtype)


def standard_cauchy(shape, dtype) -> Tensor:
    """Cauchy(0, 1) draws of ``shape``."""
    return _wrap(_flat_draws(_kernels.cauchy, shape, 0.0, 1.0), dtype)


def poisson(rate: Tensor) -> Tensor:
    """Poisson counts with the given rates (a float tensor of rate's dtype, as in PyTorch)."""
    return _poisson(rate.detach())


def binomial(total_count: Tensor, probs: Tensor) -> Tensor:
    """Binomial counts (float tensor, of ``probs``' dtype)."""
    counts = total_count.detach().to(probs.dtype).expand(probs.shape).contiguous()
    return _binomial(counts, probs.detach())


class StandardGammaGradBackward0(NoDerivative):
    """``dx/dα`` of a Gamma(α, 1) sample ``x``: PyTorch's ``_standard_gamma_grad``."""

    formula = "not differentiable again"
    message = "the derivative for '_standard_gamma_grad' is not implemented."

    @staticmethod
    def forward(ctx, concentration, x):
        return standard_gamma_grad(x, concentration).astype(x.dtype)


class StandardGammaBackward0(Op):
    """A Gamma(α, 1) sample, differentiable in α by implicit reparameterisation."""

    formula = "∂x/∂α = -(∂F(x; α)/∂α) / f(x; α)   (F, f: the Gamma CDF and density)"

    @staticmethod
    def forward(ctx, concentration):
        # ATen's sample_gamma; a draw that rounds to 0 becomes the smallest normal float.
        x = _kernels.standard_gamma(_random._engine(None), np.asarray(concentration))
        ctx.save_for_backward(concentration, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        concentration, x = ctx.saved_tensors
        if isinstance(concentration, Tensor):  # create_graph: record it (not differentiable)
            return grad * StandardGammaGradBackward0.apply(concentration, x)
        return grad * standard_gamma_grad(x, concentration).astype(x.dtype)


def standard_gamma(concentration: Tensor) -> Tensor:
    """Gamma(concentration, 1) draws, one per element (``torch._standard_gamma``)."""
    return StandardGammaBackward0.apply(concentration)


def gammainc(a: Tensor, x: Tensor) -> Tensor:
    """``P(a, x) = γ(a, x)/Γ(a)`` (``torch.special.gammainc``), differentiable in both."""
    return _igamma(a, x)
