"""Relaxed one-hot categorical (Gumbel-softmax): a differentiable stand-in for a one-hot draw."""

from __future__ import annotations

import teachgrad as torch
from teachgrad import Size, Tensor

from . import _sampling, constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a :class:`RelaxedOneHotCategorical` sample: ``log_softmax((logits + g) / τ)``
    with Gumbel noise ``g = -log(-log(u))``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple,
               _instance: ExpRelaxedCategorical | None = None) -> ExpRelaxedCategorical:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given (``probs`` or ``logits``)."""
        return self._categorical.param_shape

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities of the categories."""
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        """The probability of each category."""
        return self._categorical.probs

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(_sampling.uniform(shape, self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = (torch.full_like(self.temperature, float(k)).lgamma()
                     - self.temperature.log().mul(-(k - 1)))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A point of the simplex that approaches a one-hot draw as ``temperature`` → 0 and is
    reparameterised at every temperature (the Gumbel-softmax trick).

    >>> import teachgrad as torch
    >>> d = RelaxedOneHotCategorical(torch.tensor(0.5), probs=torch.tensor([0.2, 0.8]))
    >>> round(float(d.rsample().sum()), 5)
    1.0
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: tuple,
               _instance: RelaxedOneHotCategorical | None = None) -> RelaxedOneHotCategorical:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self) -> Tensor:
        """The relaxation temperature: near 0, samples approach one-hot vectors."""
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities of the categories."""
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        """The probability of each category."""
        return self.base_dist.probs
