"""The normal (Gaussian) distribution ``N(loc, scale²)``."""

from __future__ import annotations

import math

import teachgrad as torch
from teachgrad import Tensor

from . import _sampling
from ._loc_scale import _LocScale
from .exp_family import ExponentialFamily

__all__ = ["Normal"]


class Normal(_LocScale, ExponentialFamily):
    """Normal distribution with mean ``loc`` and standard deviation ``scale``.

    ``rsample`` is ``loc + scale * eps`` with ``eps ~ N(0, 1)``: the reparameterisation
    trick, so gradients reach ``loc`` and ``scale``. The parameters, support and mode are
    those of every location-scale family (see :mod:`._loc_scale`).

    >>> import teachgrad as torch
    >>> m = Normal(torch.tensor([0.0]), torch.tensor([1.0]))
    >>> m.log_prob(torch.tensor([0.0]))
    tensor([-0.9189])
    """

    _mean_carrier_measure = 0

    def expand(self, batch_shape: tuple, _instance: Normal | None = None) -> Normal:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        """The mean: ``loc``."""
        return self.loc

    @property
    def stddev(self) -> Tensor:
        """The standard deviation: ``scale``."""
        return self.scale

    @property
    def variance(self) -> Tensor:
        """The variance: ``stddev.pow(2)``."""
        return self.stddev.pow(2)

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A ``sample_shape + batch_shape + event_shape`` sample, drawn without gradient."""
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        shape = self._extended_shape(sample_shape)
        eps = _sampling.standard_normal(shape, self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        return (-((value - self.loc) ** 2) / (2 * var) - self.scale.log()
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function ``P(X <= value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + torch.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value: Tensor) -> Tensor:
        """The quantile function: the ``x`` whose ``cdf(x)`` is ``value``."""
        return self.loc + self.scale * torch.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + torch.log(self.scale)

    @property
    def _natural_params(self) -> tuple:
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * torch.log(-math.pi / y)
