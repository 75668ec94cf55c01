"""The log-normal distribution: ``exp`` of a normal variable."""

from __future__ import annotations

from teachgrad import Tensor

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """``X = exp(Y)`` with ``Y ~ Normal(loc, scale)``.

    >>> import teachgrad as torch
    >>> LogNormal(0.0, 1.0).log_prob(torch.tensor(1.0))
    tensor(-0.9189)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: LogNormal | None = None) -> LogNormal:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self) -> Tensor:
        """The mean of ``log(X)``."""
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        """The standard deviation of ``log(X)``."""
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        """The mean: ``(loc + scale.pow(2) / 2).exp()``."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``(loc - scale.square()).exp()``."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        """The variance of this LogNormal."""
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element: ``base_dist.entropy() + loc``."""
        return self.base_dist.entropy() + self.loc
