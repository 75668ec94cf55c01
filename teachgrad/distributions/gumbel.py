"""The Gumbel distribution: the maximum of many samples (and the Gumbel-max trick)."""

from __future__ import annotations

import math
from numbers import Number

import teachgrad as torch
from teachgrad import Size, Tensor

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all
from .utils import euler_constant as _EULER_CONSTANT

__all__ = ["Gumbel"]



class Gumbel(TransformedDistribution):
    """Gumbel distribution: ``loc - scale * log(-log(U))`` for ``U ~ Uniform(0, 1)`` (built
    from exactly those transforms, as in PyTorch).

    >>> import teachgrad as torch
    >>> Gumbel(0.0, 1.0).mode
    tensor(0.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = torch.finfo(self.loc.dtype)
        if isinstance(loc, Number) and isinstance(scale, Number):
            base_dist = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            base_dist = Uniform(torch.full_like(self.loc, finfo.tiny),
                                torch.full_like(self.loc, 1 - finfo.eps),
                                validate_args=validate_args)
        transforms = [ExpTransform().inv,
                      AffineTransform(loc=0, scale=-torch.ones_like(self.scale)),
                      ExpTransform().inv,
                      AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Gumbel | None = None) -> Gumbel:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(tuple(Size(batch_shape)))
        new.scale = self.scale.expand(tuple(Size(batch_shape)))
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return y - y.exp() - self.scale.log()

    @property
    def mean(self) -> Tensor:
        """The mean: ``loc + scale * _EULER_CONSTANT``."""
        return self.loc + self.scale * _EULER_CONSTANT

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``loc``."""
        return self.loc

    @property
    def stddev(self) -> Tensor:
        """The standard deviation: ``math.pi / math.sqrt(6) * scale``."""
        return math.pi / math.sqrt(6) * self.scale

    @property
    def variance(self) -> Tensor:
        """The variance: ``stddev.pow(2)``."""
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element: ``scale.log() + (1 + _EULER_CONSTANT)``."""
        return self.scale.log() + (1 + _EULER_CONSTANT)
