"""The categorical distribution: one of ``K`` categories, each with its probability."""

from __future__ import annotations

import math

import teachgrad as torch
from teachgrad import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Categorical distribution over ``0 … K-1``, given by ``probs`` (normalised along the
    last dimension) or ``logits`` (unnormalised log-probabilities), not both.

    This is what a policy-gradient agent samples its actions from:
    ``action = dist.sample(); loss = -dist.log_prob(action) * reward``.

    >>> import teachgrad as torch
    >>> Categorical(probs=torch.tensor([1.0, 3.0])).probs
    tensor([0.2500, 0.7500])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            # Normalise: logits become log-probabilities.
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Categorical | None = None) -> Categorical:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._expand_parameters(Categorical, batch_shape, _instance, ("probs", "logits"),
                                      event_shape=(self._num_events,))
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        """The constraint every sample satisfies."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        """The normalised log-probabilities: ``log(probs)``."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        """The probability of each category (summing to 1 along the last dimension)."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given (``probs`` or ``logits``)."""
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        """Undefined (categories are labels, not numbers): ``nan`` everywhere."""
        return torch.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``probs.argmax(dim=-1)``."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        """Undefined (categories are labels, not numbers): ``nan`` everywhere."""
        return torch.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A ``sample_shape + batch_shape + event_shape`` sample, drawn without gradient."""
        sample_shape = Size(sample_shape)
        with torch.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples_2d = torch.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = torch.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self) -> Tensor:
        # A probability of 0 has logit -inf; clamping keeps 0 * -inf from giving nan.
        """The entropy, one number per batch element."""
        min_real = torch.finfo(self.logits.dtype).min
        logits = torch.clamp(self.logits, min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value the distribution can take, along dimension 0 (over the batch if
        ``expand``)."""
        values = torch.arange(self._num_events, dtype=torch.long)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
