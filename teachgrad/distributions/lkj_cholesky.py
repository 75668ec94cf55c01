"""The LKJ distribution over Cholesky factors of correlation matrices."""

from __future__ import annotations

import math

import teachgrad as torch
from teachgrad import Size, Tensor

from . import _sampling, constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ distribution (Lewandowski, Kurowicka & Joe, 2009) on ``dim × dim`` lower Cholesky
    factors ``L`` of correlation matrices: density ∝ ``det(L Lᵀ)^(concentration - 1)``.
    ``concentration = 1`` is uniform over correlation matrices; larger values favour the
    identity. Sampled by the onion method, as in PyTorch.

    >>> import teachgrad as torch
    >>> L = LKJCholesky(3, 0.5).sample()
    >>> torch.allclose((L @ L.mT).diagonal(), torch.ones(3))
    True
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Tensor | float = 1.0,
                 validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        # The onion method: row i's squared off-diagonal length is Beta(i/2, c + (d-2-i)/2).
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = torch.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = torch.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape: tuple, _instance: LKJCholesky | None = None) -> LKJCholesky:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(tuple(batch_shape))
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A ``sample_shape + batch_shape + event_shape`` sample, drawn without gradient."""
        with torch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = _sampling.standard_normal(self._extended_shape(sample_shape),
                                                 y.dtype).tril(-1)
            # Each row's direction: uniform on the sphere (row 0 has none: its zero norm is
            # clamped so that it stays 0 instead of becoming 0/0).
            eps = torch.finfo(y.dtype).tiny
            u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True).clamp(min=eps)
            u_hypersphere[..., 0, :] = 0.0
            w = torch.sqrt(y) * u_hypersphere
            diag_elems = torch.clamp(1 - torch.sum(w**2, dim=-1), min=eps).sqrt()
            return w + torch.diag_embed(diag_elems)

    def log_prob(self, value: Tensor) -> Tensor:
        """The log probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torch.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = torch.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = torch.lgamma(alpha) * dm1
        numerator = torch.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
