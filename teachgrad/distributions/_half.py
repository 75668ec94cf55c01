"""What :class:`HalfNormal` and :class:`HalfCauchy` share: ``|X|`` for a symmetric ``X``.

Folding a distribution that is symmetric about 0 at 0 sends ``x`` and ``-x`` to the same
``|x|``, so everything about ``|X|`` follows from ``X`` by one argument, whatever ``X`` is:

- density: twice ``X``'s on ``[0, ∞)``, nothing below 0;
- CDF: ``P(|X| ≤ x) = P(-x ≤ X ≤ x) = 2·F(x) - 1``, so the inverse CDF is ``F⁻¹((p + 1)/2)``;
- entropy: the two halves merge, which costs exactly ``log 2``;
- mode: 0 (both bases peak there).

Only the moments depend on the base (HalfCauchy has none), so the subclasses keep those.
"""

from __future__ import annotations

import math

import teachgrad as torch
from teachgrad import Tensor

from . import constraints
from .transformed_distribution import TransformedDistribution

__all__: list[str] = []


class _HalfDistribution(TransformedDistribution):
    """``|X|`` for ``X`` symmetric about 0 with a ``scale`` (``base_dist``); the subclass's
    ``__init__`` chooses ``X``."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mode(self) -> Tensor:
        return torch.zeros_like(self.scale)

    def _as_value(self, value: Tensor) -> Tensor:
        """``value`` as ``log_prob`` uses it (HalfCauchy also takes plain numbers)."""
        return value

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = self._as_value(value)
        # Both x and -x land on |x|: twice the base density, nothing below 0.
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return torch.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)
