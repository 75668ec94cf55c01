"""The Laplace (double exponential) distribution."""

from __future__ import annotations

import teachgrad as torch
from teachgrad import Tensor

from . import _sampling
from ._loc_scale import _LocScale
from .distribution import Distribution

__all__ = ["Laplace"]


class Laplace(_LocScale, Distribution):
    """Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``.

    A location-scale family (see :mod:`._loc_scale`): parameters, support and mode from there.

    >>> import teachgrad as torch
    >>> Laplace(0.0, 1.0).variance
    tensor(2.)
    """

    def expand(self, batch_shape: tuple, _instance: Laplace | None = None) -> Laplace:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        """The mean: ``loc``."""
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The variance: ``2 * scale.pow(2)``."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        """The standard deviation: ``2**0.5 * scale``."""
        return 2**0.5 * self.scale

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        shape = self._extended_shape(sample_shape)
        eps = torch.finfo(self.loc.dtype).eps
        # u uniform on (eps - 1, 1): the inverse CDF below stays finite.
        u = _sampling.uniform(shape, self.loc.dtype) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return -torch.log(2 * self.scale) - torch.abs(value - self.loc) / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function ``P(X <= value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * torch.expm1(
            -(value - self.loc).abs() / self.scale
        )

    def icdf(self, value: Tensor) -> Tensor:
        """The quantile function: the ``x`` whose ``cdf(x)`` is ``value``."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * torch.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element: ``1 + torch.log(2 * scale)``."""
        return 1 + torch.log(2 * self.scale)
