"""The Pareto distribution: power-law tails (``scale · e^X`` with ``X ~ Exp(alpha)``)."""

from __future__ import annotations

from teachgrad import Tensor

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Pareto Type I: density ``alpha · scale^alpha / x^(alpha+1)`` for ``x >= scale``.

    >>> import teachgrad as torch
    >>> Pareto(torch.tensor([1.0]), torch.tensor([3.0])).mean
    tensor([1.5000])
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Tensor | float, alpha: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Pareto | None = None) -> Pareto:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(tuple(batch_shape))
        new.alpha = self.alpha.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        """The mean ``alpha * scale / (alpha - 1)``; ``inf`` where ``alpha <= 1``."""
        a = self.alpha.clamp(min=1)  # infinite for alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``scale``."""
        return self.scale

    @property
    def variance(self) -> Tensor:
        """The variance; ``inf`` where ``alpha <= 2``."""
        a = self.alpha.clamp(min=2)  # infinite for alpha <= 2
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """The constraint every sample satisfies: ``constraints.greater_than_eq(scale)``."""
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
