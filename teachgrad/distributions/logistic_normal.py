"""The logistic-normal distribution: a normal vector mapped onto the simplex."""

from __future__ import annotations

from teachgrad import Tensor

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """``StickBreakingTransform(X)`` with ``X ~ Normal(loc, scale)``: a point of the
    ``K``-simplex from ``K - 1`` normals (a Dirichlet alternative with rsample by
    plain reparameterisation).

    >>> import teachgrad as torch
    >>> LogisticNormal(torch.zeros(2), torch.ones(2)).sample().shape
    teachgrad.Size([3])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: LogisticNormal | None = None) -> LogisticNormal:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self) -> Tensor:
        """The mean of the underlying normal distribution."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self) -> Tensor:
        """The standard deviation of the underlying normal distribution."""
        return self.base_dist.base_dist.scale
