"""The negative binomial distribution: successes before ``total_count`` failures."""

from __future__ import annotations

import teachgrad as torch
import teachgrad.nn.functional as F
from teachgrad import Tensor

from . import _sampling, constraints
from ._probs_or_logits import _ProbsOrLogits
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_ProbsOrLogits, Distribution):
    """Number of successes (each with probability ``probs``) before ``total_count``
    failures; ``total_count`` may be any non-negative real (a Gamma-Poisson mixture).

    >>> import teachgrad as torch
    >>> NegativeBinomial(torch.tensor([3.0]), torch.tensor([0.5])).mean
    tensor([3.])
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Tensor | float, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        batch_shape = self._set_probs_or_logits(probs, logits, total_count)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple,
               _instance: NegativeBinomial | None = None) -> NegativeBinomial:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_probs_or_logits(NegativeBinomial, batch_shape, _instance,
                                            ("total_count", "probs", "logits"))

    @property
    def mean(self) -> Tensor:
        """The mean: ``total_count * torch.exp(logits)``."""
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value) of this NegativeBinomial."""
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        """The variance: ``mean / torch.sigmoid(-logits)``."""
        return self.mean / torch.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self) -> Gamma:
        # The Poisson rate's distribution in the Gamma-Poisson mixture.
        return Gamma(concentration=self.total_count, rate=torch.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A ``sample_shape + batch_shape + event_shape`` sample, drawn without gradient."""
        with torch.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return _sampling.poisson(rate)

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * F.logsigmoid(-self.logits)
                                 + value * F.logsigmoid(self.logits))
        log_normalization = (-torch.lgamma(self.total_count + value) + torch.lgamma(1.0 + value)
                             + torch.lgamma(self.total_count))
        # total_count + value = 0 is the certain outcome 0 of NegativeBinomial(0, p).
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
