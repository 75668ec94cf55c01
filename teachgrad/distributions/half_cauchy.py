"""The half-Cauchy distribution: ``|X|`` for ``X ~ Cauchy(0, scale)``."""

from __future__ import annotations

import math

import teachgrad as torch
from teachgrad import Tensor

from ._half import _HalfDistribution
from .cauchy import Cauchy
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfDistribution):
    """``|X|`` with ``X ~ Cauchy(0, scale)`` (a common prior for scale parameters).

    Density, CDF, inverse CDF, entropy and mode follow from the Cauchy by folding (see
    :mod:`._half`); its mean and variance are infinite.

    >>> import teachgrad as torch
    >>> HalfCauchy(torch.tensor([1.0])).cdf(torch.tensor([1.0]))
    tensor([0.5000])
    """

    def __init__(self, scale: Tensor | float, validate_args: bool | None = None) -> None:
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: HalfCauchy | None = None) -> HalfCauchy:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        """Infinite for a half-Cauchy distribution: ``inf`` everywhere."""
        return torch.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self) -> Tensor:
        """The variance: ``base_dist.variance``."""
        return self.base_dist.variance

    def _as_value(self, value: Tensor) -> Tensor:
        # PyTorch's HalfCauchy (unlike HalfNormal) turns a plain number into a tensor here.
        return torch.as_tensor(value, dtype=self.base_dist.scale.dtype)
