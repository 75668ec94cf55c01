"""The generalised Pareto distribution: the tail of almost any distribution (extreme values)."""

from __future__ import annotations

import math
from numbers import Number

import teachgrad as torch
from teachgrad import Size, Tensor

from . import _sampling, constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalised Pareto with ``loc``, ``scale`` and shape ``concentration`` (ξ): the
    exponential for ξ = 0, a Pareto for ξ > 0, bounded above for ξ < 0.

    >>> import teachgrad as torch
    >>> GeneralizedPareto(0.0, 1.0, 0.0).mean  # ξ = 0: Exp(1)
    tensor(1.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalar = all(isinstance(v, Number) for v in (loc, scale, concentration))
        super().__init__(Size() if scalar else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: tuple,
               _instance: GeneralizedPareto | None = None) -> GeneralizedPareto:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(GeneralizedPareto, batch_shape, _instance,
                                       ("loc", "scale", "concentration"))

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        u = _sampling.uniform(self._extended_shape(sample_shape), self.loc.dtype)
        return self.icdf(u)

    def _safe_concentration(self):
        # ξ = 0 is a limit: compute the ξ ≠ 0 formula with ξ = 1 there, then select.
        eq_zero = torch.isclose(self.concentration, torch.zeros_like(self.concentration))
        safe = torch.where(eq_zero, torch.ones_like(self.concentration), self.concentration)
        return eq_zero, safe

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        y = 1 / safe_conc + torch.ones_like(z)
        where_nonzero = torch.where(y == 0, y, y * torch.log1p(safe_conc * z))
        return -self.scale.log() - torch.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        """``log(1 - cdf(value))``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        where_nonzero = -torch.log1p(safe_conc * z) / safe_conc
        return torch.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value: Tensor) -> Tensor:
        """``log(cdf(value))``."""
        return torch.log1p(-torch.exp(self.log_survival_function(value)))

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function ``P(X <= value)``."""
        return torch.exp(self.log_cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        """The quantile function: the ``x`` whose ``cdf(x)`` is ``value``."""
        eq_zero, safe_conc = self._safe_concentration()
        logu = torch.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * torch.expm1(-safe_conc * logu)
        where_zero = self.loc - self.scale * logu
        return torch.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x: Tensor) -> Tensor:
        return (x - self.loc) / self.scale

    @property
    def mean(self) -> Tensor:
        """The mean ``loc + scale / (1 - concentration)``; ``nan`` where ``concentration >= 1``."""
        valid = self.concentration < 1
        safe_conc = torch.where(valid, self.concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return torch.where(valid, result, math.nan)

    @property
    def variance(self) -> Tensor:
        """The variance; ``nan`` where ``concentration >= 1/2``."""
        valid = self.concentration < 0.5
        safe_conc = torch.where(valid, self.concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return torch.where(valid, result, math.nan)

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        ans = torch.log(self.scale) + self.concentration + 1
        return torch.broadcast_to(ans, tuple(self._batch_shape))

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``loc``."""
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """The constraint every sample satisfies."""
        lower = self.loc
        negative = self.concentration < 0
        # (ξ = 0 divides only in the branch not taken; keep it from dividing at all.)
        safe_conc = torch.where(negative, self.concentration, -1.0)
        upper = torch.where(negative, lower - self.scale / safe_conc, math.inf)
        return constraints.interval(lower, upper)
