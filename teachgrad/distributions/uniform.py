"""The continuous uniform distribution on ``[low, high)``."""

from __future__ import annotations

from numbers import Number

import teachgrad as torch
from teachgrad import Size, Tensor

from . import _sampling, constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform distribution on the half-open interval ``[low, high)``.

    ``rsample`` is ``low + u * (high - low)`` with ``u ~ U[0, 1)``.

    >>> import teachgrad as torch
    >>> Uniform(0.0, 4.0).entropy()  # log(4)
    tensor(1.3863)
    """

    has_rsample = True

    @property
    def arg_constraints(self) -> dict:
        """``low < high``: each bound is constrained by the other."""
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    def __init__(self, low: Tensor | float, high: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        scalar = isinstance(low, Number) and isinstance(high, Number)
        batch_shape = Size() if scalar else self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Uniform | None = None) -> Uniform:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """The constraint every sample satisfies: ``constraints.interval(low, high)``."""
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        """The mean: ``(high + low) / 2``."""
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        """Undefined (every point of the interval is a mode): ``nan`` everywhere."""
        return float("nan") * self.high  # every point of the interval is a mode

    @property
    def stddev(self) -> Tensor:
        """The standard deviation: ``(high - low) / 12**0.5``."""
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        """The variance: ``(high - low).pow(2) / 12``."""
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        shape = self._extended_shape(sample_shape)
        rand = _sampling.uniform(shape, self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return torch.log(lb.mul(ub)) - torch.log(self.high - self.low)

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function ``P(X <= value)``."""
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        """The quantile function: the ``x`` whose ``cdf(x)`` is ``value``."""
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element: ``torch.log(high - low)``."""
        return torch.log(self.high - self.low)
