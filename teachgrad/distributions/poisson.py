"""The Poisson distribution: counts of events that happen at a constant ``rate``."""

from __future__ import annotations

from numbers import Number

import teachgrad as torch
from teachgrad import Size, Tensor

from . import _sampling, constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson distribution: ``P(k) = rate^k e^(-rate) / k!``.

    >>> import teachgrad as torch
    >>> Poisson(torch.tensor([2.0])).log_prob(torch.tensor([0.0]))
    tensor([-2.])
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Tensor | Number, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if isinstance(rate, Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Poisson | None = None) -> Poisson:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> Tensor:
        """The mean: ``rate``."""
        return self.rate

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``rate.floor()``."""
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        """The variance: ``rate``."""
        return self.rate

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A ``sample_shape + batch_shape + event_shape`` sample, drawn without gradient."""
        shape = tuple(self._extended_shape(sample_shape))
        with torch.no_grad():
            return _sampling.poisson(self.rate.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple:
        return (torch.log(self.rate),)

    def _log_normalizer(self, x):
        return torch.exp(x)
