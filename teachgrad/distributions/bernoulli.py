"""The Bernoulli distribution: a coin that lands 1 with probability ``probs``."""

from __future__ import annotations

import math
from numbers import Number

import teachgrad as torch
from teachgrad import Tensor
from teachgrad.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from ._probs_or_logits import _ProbsOrLogits
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(_ProbsOrLogits, ExponentialFamily):
    """Bernoulli distribution, given by ``probs`` or by ``logits`` (log-odds), not both.

    ``log_prob`` is minus the binary cross-entropy, computed from the logits so that it
    stays finite for probabilities near 0 and 1.

    >>> import teachgrad as torch
    >>> Bernoulli(probs=torch.tensor([0.25])).log_prob(torch.tensor([1.0]))
    tensor([-1.3863])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Tensor | Number | None = None, logits: Tensor | Number | None = None,
                 validate_args: bool | None = None) -> None:
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Bernoulli | None = None) -> Bernoulli:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_probs_or_logits(Bernoulli, batch_shape, _instance)

    @property
    def mean(self) -> Tensor:
        """The mean: ``probs``."""
        return self.probs

    @property
    def mode(self) -> Tensor:
        """The mode: 1 where ``probs > 0.5``, 0 where below, ``nan`` at exactly 0.5."""
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan  # a fair coin has no single mode
        return mode

    @property
    def variance(self) -> Tensor:
        """The variance: ``probs * (1 - probs)``."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A ``sample_shape + batch_shape + event_shape`` sample, drawn without gradient."""
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(tuple(shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value the distribution can take, along dimension 0 (over the batch if
        ``expand``)."""
        values = torch.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self) -> tuple:
        return (torch.logit(self.probs),)

    def _log_normalizer(self, x):
        return torch.log1p(torch.exp(x))
