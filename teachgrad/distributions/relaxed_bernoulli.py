"""Relaxed (Concrete / Gumbel-softmax) Bernoulli: a differentiable stand-in for a coin flip."""

from __future__ import annotations

from numbers import Number

from teachgrad import Tensor

from . import _sampling, constraints
from ._probs_or_logits import _ProbsOrLogits
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_ProbsOrLogits, Distribution):
    """The logit of a :class:`RelaxedBernoulli` sample (Maddison et al., 2017).

    A sample is ``(logit(u) + logits) / temperature`` with ``u ~ U(0, 1)``.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature: Tensor, probs: Tensor | Number | None = None,
                 logits: Tensor | Number | None = None, validate_args: bool | None = None) -> None:
        self.temperature = temperature
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple,
               _instance: LogitRelaxedBernoulli | None = None) -> LogitRelaxedBernoulli:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._expand_probs_or_logits(LogitRelaxedBernoulli, batch_shape, _instance)
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(tuple(shape)))
        uniforms = clamp_probs(_sampling.uniform(shape, probs.dtype))
        logistic_noise = uniforms.log() - (-uniforms).log1p()
        return (logistic_noise + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A value in (0, 1) that approaches a Bernoulli draw as ``temperature`` → 0, and is
    reparameterised (``rsample``) at every temperature.

    >>> import teachgrad as torch
    >>> d = RelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor([0.3]))
    >>> d.rsample().shape
    teachgrad.Size([1])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | Number | None = None,
                 logits: Tensor | Number | None = None, validate_args: bool | None = None) -> None:
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape: tuple,
               _instance: RelaxedBernoulli | None = None) -> RelaxedBernoulli:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self) -> Tensor:
        """The relaxation temperature: near 0, samples approach 0 or 1."""
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        """The log-odds ``log(probs / (1 - probs))``."""
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        """The probability of 1 in the Bernoulli being relaxed."""
        return self.base_dist.probs
