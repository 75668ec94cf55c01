"""The gamma distribution ``Gamma(concentration, rate)``."""

from __future__ import annotations

from numbers import Number

import teachgrad as torch
from teachgrad import Size, Tensor

from . import _sampling, constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distribution with shape ``concentration`` (α) and ``rate`` (β):
    density ``β^α x^(α-1) e^(-βx) / Γ(α)``.

    ``rsample`` is reparameterised: the draw ``x ~ Gamma(α, 1)`` records
    ``StandardGammaBackward0``, whose gradient ``dx/dα`` keeps the draw's CDF value fixed
    (implicit reparameterisation); dividing by the rate is an ordinary op.

    >>> import teachgrad as torch
    >>> Gamma(torch.tensor([2.0]), torch.tensor([4.0])).mean
    tensor([0.5000])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Tensor | float, rate: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, Number) and isinstance(rate, Number)
        batch_shape = Size() if scalar else self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Gamma | None = None) -> Gamma:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self) -> Tensor:
        """The mean: ``concentration / rate``."""
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``((concentration - 1) / rate).clamp(min=0)``."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        """The variance: ``concentration / rate.pow(2)``."""
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        shape = tuple(self._extended_shape(sample_shape))
        value = _sampling.standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=torch.finfo(value.dtype).tiny)  # a rate can underflow it
        return value

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        value = torch.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (torch.xlogy(self.concentration, self.rate)
                + torch.xlogy(self.concentration - 1, value)
                - self.rate * value - torch.lgamma(self.concentration))

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function ``P(X <= value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return _sampling.gammainc(self.concentration, self.rate * value)

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        return (self.concentration - torch.log(self.rate) + torch.lgamma(self.concentration)
                + (1.0 - self.concentration) * torch.digamma(self.concentration))

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return torch.lgamma(x + 1) + (x + 1) * torch.log(-y.reciprocal())
