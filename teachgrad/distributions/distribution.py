"""``Distribution``: the base class every probability distribution derives from.

A distribution has a ``batch_shape`` (independent copies with their own parameters) and an
``event_shape`` (the shape of one draw: ``()`` for a number, ``(k,)`` for a vector). A
draw with ``sample(sample_shape)`` has shape ``sample_shape + batch_shape + event_shape``;
``log_prob(value)`` gives one number per event, of shape ``sample_shape + batch_shape``.

``rsample`` draws *reparameterised* samples: the randomness comes from a fixed source
(say ``eps ~ N(0, 1)``) and the sample is a differentiable function of the parameters
(``loc + scale * eps``), so ``backward`` reaches the parameters through it. That is the
trick behind variational autoencoders. ``sample`` is ``rsample`` under ``no_grad``.
"""

from __future__ import annotations

import teachgrad as torch
from teachgrad import Size, Tensor

from .._warn import warn_user
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _as_size(shape) -> Size:
    return shape if isinstance(shape, Size) else Size(shape)


class Distribution:
    """Abstract base class of probability distributions.

    Args:
        batch_shape: the shape over which parameters are batched.
        event_shape: the shape of a single sample (without batching).
        validate_args: check the parameters now, and every value given to ``log_prob``,
            ``cdf`` and ``icdf`` later. ``None`` takes the default
            (:meth:`set_default_validate_args`; on unless Python runs with ``-O``).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__  # like ``assert``: on unless ``python -O``

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution made afterwards."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = _as_size(batch_shape)
        self._event_shape = _as_size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warn_user(
                    f"{self.__class__} does not define `arg_constraints`. "
                    "Please set `arg_constraints = {}` or initialize the distribution "
                    "with `validate_args=False` to turn off validation.",
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # e.g. a Uniform's low < high: checked through support
                if param not in self.__dict__ and isinstance(
                    getattr(type(self), param), lazy_property
                ):
                    continue  # not given, so computed from one that was checked
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {repr(self)} "
                        f"to satisfy the constraint {repr(constraint)}, "
                        f"but found invalid values:\n{value}"
                    )

    def expand(self, batch_shape: tuple, _instance: Distribution | None = None) -> Distribution:
        """A new distribution whose parameters are ``expand``-ed to ``batch_shape`` (no copy)."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """Each parameter's :class:`~teachgrad.distributions.constraints.Constraint`."""
        raise NotImplementedError

    @property
    def support(self) -> constraints.Constraint:
        """The constraint every sample satisfies."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value) of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation: the square root of the variance."""
        return self.variance.sqrt()

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """Draw a ``sample_shape + batch_shape + event_shape`` sample (no gradient)."""
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """Draw a reparameterised sample: differentiable in the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """``sample((n,))`` (deprecated in PyTorch, kept for old tutorials)."""
        warn_user("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the probability density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse of the cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value a discrete distribution can take, along dimension 0."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy)``."""
        return torch.exp(self.entropy())

    def _extended_shape(self, sample_shape: tuple = ()) -> Size:
        """``sample_shape + batch_shape + event_shape``: the shape of a sample."""
        return Size(tuple(_as_size(sample_shape)) + tuple(self._batch_shape)
                    + tuple(self._event_shape))

    def _validate_sample(self, value: Tensor) -> None:
        """Raise PyTorch's ValueError unless ``value`` fits the shapes and the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(
                "The right-most size of value must match event_shape: "
                f"{value.size()} vs {self._event_shape}."
            )
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{actual_shape} vs {expected_shape}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warn_user(
                f"{self.__class__} does not define `support` to enable "
                "sample validation. Please initialize the distribution with "
                "`validate_args=False` to turn off validation.",
            )
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({repr(support)}) "
                f"of the distribution {repr(self)}, "
                f"but found invalid values:\n{value}"
            )

    def _expand_parameters(self, cls, batch_shape, _instance, names, event_shape=()):
        """``expand`` for a distribution whose parameters are the tensors ``names``.

        Each parameter that was set (or computed) is ``expand``-ed to
        ``batch_shape + event_shape`` (views, no copy); the new instance is not validated
        again, as in PyTorch.
        """
        new = self._get_checked_instance(cls, _instance)
        batch_shape = _as_size(batch_shape)
        for name in names:
            if name in self.__dict__:
                shape = tuple(batch_shape) + tuple(event_shape)
                setattr(new, name, getattr(self, name).expand(shape))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        # A one-element parameter prints its value, a larger one its size, as in PyTorch.
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in names
        )
        return self.__class__.__name__ + "(" + args + ")"
