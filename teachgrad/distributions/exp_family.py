"""``ExponentialFamily``: distributions whose density is ``exp(⟨θ, t(x)⟩ - F(θ) + k(x))``.

A subclass gives its natural parameters ``θ`` (``_natural_params``), the log-normaliser
``F`` (``_log_normalizer``) and the carrier measure's mean ``E[k(x)]``
(``_mean_carrier_measure``). Then the entropy follows from autograd alone:
``H = F(θ) - ⟨θ, ∇F(θ)⟩ - E[k(x)]`` (a Bregman divergence identity). Subclasses with a
closed form override ``entropy``; this one is the fallback and a nice use of
``autograd.grad``.
"""

from __future__ import annotations

import teachgrad as torch

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions (see the module docstring)."""

    @property
    def _natural_params(self) -> tuple:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self) -> torch.Tensor:
        """``F(θ) - ⟨θ, ∇F(θ)⟩ - E[k(x)]``, with ``∇F`` from ``autograd.grad``."""
        result = -self._mean_carrier_measure
        natural = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*natural)
        gradients = torch.autograd.grad(log_normalizer.sum(), natural, create_graph=True)
        result = result + log_normalizer
        for theta, g in zip(natural, gradients):
            result = result - (theta * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
