"""The Cauchy (Lorentz) distribution: no mean, infinite variance."""

from __future__ import annotations

import math

import teachgrad as torch
from teachgrad import Tensor

from . import _sampling
from ._loc_scale import _LocScale
from .distribution import Distribution

__all__ = ["Cauchy"]


class Cauchy(_LocScale, Distribution):
    """Cauchy distribution: the ratio of two independent standard normals, shifted and scaled.

    A location-scale family (see :mod:`._loc_scale`): parameters, support and mode from there.

    >>> import teachgrad as torch
    >>> Cauchy(0.0, 1.0).cdf(torch.tensor(1.0))
    tensor(0.7500)
    """

    def expand(self, batch_shape: tuple, _instance: Cauchy | None = None) -> Cauchy:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        """Undefined for a Cauchy distribution: ``nan`` everywhere."""
        return torch.full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def variance(self) -> Tensor:
        """Infinite for a Cauchy distribution: ``inf`` everywhere."""
        return torch.full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        shape = self._extended_shape(sample_shape)
        eps = _sampling.standard_cauchy(shape, self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function ``P(X <= value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return torch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        """The quantile function: the ``x`` whose ``cdf(x)`` is ``value``."""
        return torch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element: ``math.log(4 * math.pi) + scale.log()``."""
        return math.log(4 * math.pi) + self.scale.log()
