"""The one-hot categorical distribution: a Categorical whose samples are one-hot vectors."""

from __future__ import annotations

import teachgrad as torch
from teachgrad import Size, Tensor

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """Like :class:`Categorical`, but a sample is a one-hot vector of length ``K``.

    >>> import teachgrad as torch
    >>> OneHotCategorical(probs=torch.tensor([0.0, 1.0])).sample()
    tensor([0., 1.])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple,
               _instance: OneHotCategorical | None = None) -> OneHotCategorical:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(OneHotCategorical, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        """The probability of each category."""
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities of the categories."""
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        """The mean of this OneHotCategorical."""
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value) of this OneHotCategorical."""
        probs = self._categorical.probs
        mode = probs.argmax(dim=-1)
        return torch.nn.functional.one_hot(mode, num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self) -> Tensor:
        """The variance of this OneHotCategorical."""
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given (``probs`` or ``logits``)."""
        return self._categorical.param_shape

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A ``sample_shape + batch_shape + event_shape`` sample, drawn without gradient."""
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return torch.nn.functional.one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value the distribution can take, along dimension 0 (over the batch if
        ``expand``)."""
        n = self.event_shape[0]
        values = torch.eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A one-hot sample whose gradient is the straight-through estimator: the forward value
    is the hard one-hot vector, the backward treats it as ``probs``."""

    has_rsample = True

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
