"""The Dirichlet distribution: random probability vectors."""

from __future__ import annotations

import teachgrad as torch
from teachgrad import Tensor

from . import _sampling, constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]

class Dirichlet(ExponentialFamily):
    """Dirichlet distribution over the simplex, with ``concentration`` α (last dimension:
    one entry per category).

    ``rsample`` normalises independent ``Gamma(α_i, 1)`` draws, ``x = g / Σg``: each ``g_i``
    is implicitly reparameterised (see :class:`Gamma`) and the division is ordinary
    autograd, so gradients reach α. (PyTorch differentiates the same draw through the
    Beta marginals instead; both gradients are unbiased, the per-draw numbers differ.)

    >>> import teachgrad as torch
    >>> Dirichlet(torch.tensor([1.0, 3.0])).mean
    tensor([0.2500, 0.7500])
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Dirichlet | None = None) -> Dirichlet:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        return self._expand_parameters(Dirichlet, batch_shape, _instance, ("concentration",),
                                       event_shape=self.event_shape)

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample as :meth:`sample` draws, reparameterised so gradients reach the parameters."""
        shape = tuple(self._extended_shape(sample_shape))
        gammas = _sampling.standard_gamma(self.concentration.expand(shape))
        return gammas / gammas.sum(-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return (torch.xlogy(self.concentration - 1.0, value).sum(-1)
                + torch.lgamma(self.concentration.sum(-1))
                - torch.lgamma(self.concentration).sum(-1))

    @property
    def mean(self) -> Tensor:
        """The mean: ``concentration / concentration.sum(-1, True)``."""
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        """The mode (most likely value) of this Dirichlet."""
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # Where every α < 1 the density peaks at the corners: PyTorch picks one.
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = torch.nn.functional.one_hot(
            mode[mask].argmax(dim=-1), concentrationm1.shape[-1]
        ).to(mode)
        return mode

    @property
    def variance(self) -> Tensor:
        """The variance of this Dirichlet."""
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self) -> Tensor:
        """The entropy, one number per batch element."""
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (torch.lgamma(self.concentration).sum(-1) - torch.lgamma(a0)
                - (k - a0) * torch.digamma(a0)
                - ((self.concentration - 1.0) * torch.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - torch.lgamma(x.sum(-1))

