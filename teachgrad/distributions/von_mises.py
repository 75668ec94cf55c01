"""The von Mises distribution: a normal distribution wrapped around the circle."""

from __future__ import annotations

import math

import numpy as np

import teachgrad as torch
from teachgrad import Tensor

from . import _sampling, constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["VonMises"]


def _log_i0(x: Tensor) -> Tensor:
    """``log I0(x) = log(i0e(x)) + x`` (the scaled Bessel function cannot overflow)."""
    return torch.special.i0e(x).log() + x


def _log_i1(x: Tensor) -> Tensor:
    return torch.special.i1e(x).log() + x


class VonMises(Distribution):
    """Von Mises distribution on angles: density ``exp(κ cos(x - loc)) / (2π I0(κ))``.

    Samples lie in ``[-π, π)``. ``log_prob`` uses teachgrad's Bessel functions, accurate
    to a few ulps; PyTorch uses a polynomial fit good to about 1e-7, so the two agree to
    that. There is no ``rsample``, as in PyTorch.

    >>> import teachgrad as torch
    >>> VonMises(torch.tensor(0.0), torch.tensor(1e-8)).log_prob(torch.tensor(2.0))  # ≈ uniform
    tensor(-1.8379)
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Tensor, concentration: Tensor,
                 validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def expand(self, batch_shape: tuple, _instance: VonMises | None = None) -> VonMises:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(VonMises, batch_shape, _instance, ("loc", "concentration"))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * torch.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_i0(self.concentration)

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A ``sample_shape + batch_shape + event_shape`` sample, drawn without gradient."""
        shape = tuple(self._extended_shape(sample_shape))
        loc = np.broadcast_to(self.loc.detach().numpy().astype(np.float64), shape)
        kappa = np.broadcast_to(self.concentration.detach().numpy().astype(np.float64), shape)
        # NumPy's sampler is Best & Fisher's rejection method, as PyTorch's; fold to [-π, π).
        x = _sampling._rng().vonmises(0.0, kappa, size=shape)
        x = (x + math.pi + loc) % (2 * math.pi) - math.pi
        return torch.tensor(x, dtype=self.loc.dtype)

    @property
    def mean(self) -> Tensor:
        """The mean: ``loc``."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``loc``."""
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The circular variance ``1 - I1(κ)/I0(κ)``."""
        return 1 - (_log_i1(self.concentration) - _log_i0(self.concentration)).exp()
