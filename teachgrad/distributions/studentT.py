"""Student's t distribution: a normal whose variance is itself uncertain."""

from __future__ import annotations

import math

import teachgrad as torch
from teachgrad import Tensor

from . import _sampling, constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``.

    ``rsample`` is ``loc + scale * X / sqrt(Z / df)`` with ``X ~ N(0, 1)`` and
    ``Z ~ Chi2(df)``, both reparameterised, so gradients reach all three parameters.

    >>> import teachgrad as torch
    >>> StudentT(torch.tensor([3.0])).variance
    tensor([3.])
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Tensor | float, loc: Tensor | float = 0.0,
                 scale: Tensor | float = 1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: StudentT | None = None) -> StudentT:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._expand_parameters(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        """The mean ``loc``; ``nan`` where ``df <= 1``."""
        m = self.loc.clone()
        m[self.df <= 1] = math.nan  # no mean for df <= 1
        return m

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``loc``."""
        return self.loc

    @property
    def variance(self) -> Tensor:
        """``scale² df / (df - 2)``; ``inf`` where ``1 < df <= 2``, ``nan`` where ``df <= 1``."""
        m = self.df.clone()
        big = self.df > 2
        m[big] = self.scale[big].pow(2) * self.df[big] / (self.df[big] - 2)
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        shape = self._extended_shape(sample_shape)
        x = _sampling.standard_normal(shape, self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        y = x * torch.rsqrt(z / self.df)
        return self.loc + self.scale * y

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + torch.lgamma(0.5 * self.df) - torch.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * torch.log1p(y**2.0 / self.df) - z

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        lbeta = (torch.lgamma(0.5 * self.df) + math.lgamma(0.5)
                 - torch.lgamma(0.5 * (self.df + 1)))
        return (self.scale.log()
                + 0.5 * (self.df + 1)
                * (torch.digamma(0.5 * (self.df + 1)) - torch.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
