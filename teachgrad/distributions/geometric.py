"""The geometric distribution: failures before the first success."""

from __future__ import annotations

from numbers import Number

import teachgrad as torch
from teachgrad import Size, Tensor
from teachgrad.nn.functional import binary_cross_entropy_with_logits

from . import _sampling, constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Geometric distribution: ``P(k) = (1-p)^k p`` for ``k = 0, 1, 2 …`` (the number of
    failures before the first success of a coin with success probability ``probs``).

    >>> import teachgrad as torch
    >>> Geometric(probs=torch.tensor([0.25])).mean
    tensor([3.])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Tensor | Number | None = None, logits: Tensor | Number | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given = probs if probs is not None else logits
        batch_shape = Size() if isinstance(given, Number) else given.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0  # p = 0: the first success never comes
            if not valid.all():
                invalid_value = value.data[~valid]
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {repr(self)} to be positive but "
                    f"found invalid values:\n{invalid_value}"
                )

    def expand(self, batch_shape: tuple, _instance: Geometric | None = None) -> Geometric:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self) -> Tensor:
        """The mean: ``1.0 / probs - 1.0``."""
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``torch.zeros_like(probs)``."""
        return torch.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        """The variance: ``(1.0 / probs - 1.0) / probs``."""
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self) -> Tensor:
        """The log-odds of success ``log(probs / (1 - probs))``."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """The probability of success of each trial."""
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A ``sample_shape + batch_shape + event_shape`` sample, drawn without gradient."""
        shape = self._extended_shape(sample_shape)
        tiny = torch.finfo(self.probs.dtype).tiny
        with torch.no_grad():
            u = _sampling.uniform(shape, self.probs.dtype).clamp(min=tiny)
            # Inverse CDF: the smallest k with 1 - (1-p)^(k+1) >= u.
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0  # so that 0 * log(0) counts as 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        bce = binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs
