"""The exponential distribution ``Exp(rate)``: waiting times of a Poisson process."""

from __future__ import annotations

from numbers import Number

import teachgrad as torch
from teachgrad import Size, Tensor

from . import _sampling, constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential distribution with density ``rate * exp(-rate * x)`` for ``x >= 0``.

    >>> import teachgrad as torch
    >>> Exponential(torch.tensor([2.0])).mean
    tensor([0.5000])
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if isinstance(rate, Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Exponential | None = None) -> Exponential:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> Tensor:
        """The mean: ``rate.reciprocal()``."""
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``torch.zeros_like(rate)``."""
        return torch.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        """The standard deviation: ``rate.reciprocal()``."""
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        """The variance: ``rate.pow(-2)``."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        shape = self._extended_shape(sample_shape)
        return _sampling.standard_exponential(shape, self.rate.dtype) / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function ``P(X <= value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - torch.exp(-self.rate * value)

    def icdf(self, value: Tensor) -> Tensor:
        """The quantile function: the ``x`` whose ``cdf(x)`` is ``value``."""
        return -torch.log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element: ``1.0 - torch.log(rate)``."""
        return 1.0 - torch.log(self.rate)

    @property
    def _natural_params(self) -> tuple:
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -torch.log(-x)
