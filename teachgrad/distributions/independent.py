"""``Independent``: treat some batch dimensions of a distribution as event dimensions."""

from __future__ import annotations

from teachgrad import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """Reinterpret the rightmost ``reinterpreted_batch_ndims`` batch dimensions of
    ``base_distribution`` as one event: ``log_prob`` adds their log-probabilities.

    A diagonal Gaussian over vectors, as a VAE's encoder outputs it::

        >>> import teachgrad as torch
        >>> from teachgrad.distributions import Normal
        >>> q = Independent(Normal(torch.zeros(3), torch.ones(3)), 1)
        >>> q.batch_shape, q.event_shape
        (teachgrad.Size([]), teachgrad.Size([3]))
    """

    arg_constraints: dict = {}

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args: bool | None = None) -> None:
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}"
            )
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        batch_shape = shape[: len(shape) - event_dim]
        event_shape = shape[len(shape) - event_dim:]
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Independent | None = None) -> Independent:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        new.base_dist = self.base_dist.expand(
            tuple(batch_shape) + tuple(self.event_shape[: self.reinterpreted_batch_ndims])
        )
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self) -> bool:
        """Whether the base distribution has ``rsample``."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:
        """Whether the support can be enumerated: only with no reinterpreted dimensions."""
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:
        """The constraint every sample satisfies."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self) -> Tensor:
        """The mean: ``base_dist.mean``."""
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value): ``base_dist.mode``."""
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        """The variance: ``base_dist.variance``."""
        return self.base_dist.variance

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A ``sample_shape + batch_shape + event_shape`` sample, drawn without gradient."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density (or mass, for a discrete base) at ``value``."""
        log_prob = self.base_dist.log_prob(value)
        return _sum_rightmost(log_prob, self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        entropy = self.base_dist.entropy()
        return _sum_rightmost(entropy, self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value the distribution can take, along dimension 0 (over the batch if
        ``expand``)."""
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return self.__class__.__name__ + f"({self.base_dist}, {self.reinterpreted_batch_ndims})"
