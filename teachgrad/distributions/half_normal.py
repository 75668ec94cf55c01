"""The half-normal distribution: ``|X|`` for ``X ~ Normal(0, scale)``."""

from __future__ import annotations

import math

from teachgrad import Tensor

from ._half import _HalfDistribution
from .normal import Normal
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(_HalfDistribution):
    """``|X|`` with ``X ~ Normal(0, scale)``.

    Density, CDF, inverse CDF, entropy and mode follow from the normal by folding (see
    :mod:`._half`); the moments below are the half-normal's own.

    >>> import teachgrad as torch
    >>> HalfNormal(torch.tensor([1.0])).cdf(torch.tensor([0.0]))
    tensor([0.])
    """

    def __init__(self, scale: Tensor | float, validate_args: bool | None = None) -> None:
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: HalfNormal | None = None) -> HalfNormal:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        """The mean: ``scale * math.sqrt(2 / math.pi)``."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        """The variance: ``scale.pow(2) * (1 - 2 / math.pi)``."""
        return self.scale.pow(2) * (1 - 2 / math.pi)
