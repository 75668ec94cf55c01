"""The inverse gamma distribution: ``1/X`` for ``X ~ Gamma(concentration, rate)``."""

from __future__ import annotations

import math

import teachgrad as torch
from teachgrad import Tensor

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """``1/X`` with ``X ~ Gamma(concentration, rate)`` (the conjugate prior of a normal's
    variance).

    >>> import teachgrad as torch
    >>> InverseGamma(torch.tensor([3.0]), torch.tensor([4.0])).mean
    tensor([2.])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration: Tensor | float, rate: Tensor | float,
                 validate_args: bool | None = None) -> None:
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -torch.ones((), dtype=base_dist.rate.dtype)
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: InverseGamma | None = None) -> InverseGamma:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self) -> Tensor:
        """The shape parameter (that of the Gamma whose reciprocal this is)."""
        return self.base_dist.concentration

    @property
    def rate(self) -> Tensor:
        """The rate parameter (that of the Gamma whose reciprocal this is)."""
        return self.base_dist.rate

    @property
    def mean(self) -> Tensor:
        """The mean ``rate / (concentration - 1)``; ``inf`` where ``concentration <= 1``."""
        result = self.rate / (self.concentration - 1)
        return torch.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``rate / (concentration + 1)``."""
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        """The variance; ``inf`` where ``concentration <= 2``."""
        result = self.rate.square() / ((self.concentration - 1).square()
                                       * (self.concentration - 2))
        return torch.where(self.concentration > 2, result, math.inf)

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        return (self.concentration + self.rate.log() + self.concentration.lgamma()
                - (1 + self.concentration) * self.concentration.digamma())
