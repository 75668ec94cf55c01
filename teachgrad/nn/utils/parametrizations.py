"""``nn.utils.parametrizations``: ready-made parametrizations.

* :func:`orthogonal`: the weight is always an orthogonal matrix (or has orthonormal rows
  or columns), made from an unconstrained one by the matrix exponential of a
  skew-symmetric matrix, the Cayley map, or Householder reflections.
* :func:`weight_norm`: ``w = g · v / ‖v‖`` (``original0`` is g, ``original1`` is v).
* :func:`spectral_norm`: ``w / σ(w)``, σ estimated by power iteration.

Each registers a small module with :func:`teachgrad.nn.utils.parametrize.register_parametrization`;
the state_dict keys are PyTorch's (``parametrizations.weight.original`` ...).
"""

from __future__ import annotations

from enum import Enum, auto

import numpy as np

from ... import linalg
from ..._creation import eye
from ..._tensor import Tensor, _make
from ...autograd.grad_mode import no_grad
from ...ops.shape import cat
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d
from ..modules.module import Module
from . import parametrize
from .weight_norm import norm_except_dim, weight_norm_interface

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.shape[-2], q.shape[-1]
    identity = eye(k, dtype=q.dtype)
    eps = 10.0 * n * float(np.finfo(q._data.dtype).eps)
    return bool((q.mT @ q).allclose(identity, atol=eps))


def _make_orthogonal(a: Tensor) -> Tensor:
    """The Q of A's QR decomposition, signs chosen so that R's diagonal is positive."""
    q, r = np.linalg.qr(a._data)
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    return _make((q * signs[..., None, :]).astype(a._data.dtype))


def householder_product(a: Tensor, tau: Tensor) -> Tensor:
    """The first k columns of ``H₁ H₂ … H_k``, ``H_i = I − τ_i v_i v_iᵀ``, where ``v_i`` is
    column i of ``a`` below the diagonal with a 1 on it (LAPACK's way of storing Q).

    Composed of matrix products, so differentiable (PyTorch's
    ``linalg.householder_product`` is one fused op).
    """
    n, k = a.shape[-2], a.shape[-1]
    identity = eye(n, dtype=a.dtype)
    q = identity[:, :k].expand(*a.shape[:-2], n, k)
    for i in reversed(range(k)):
        v = a[..., :, i] * (1 - identity[i]) + identity[i]  # the implicit 1 on the diagonal
        v = v.unsqueeze(-1)
        q = q - tau[..., i, None, None] * (v @ (v.mT @ q))
    return q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """The orthogonal parametrization (see :func:`orthogonal`)."""

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:  # noqa: N803 - PyTorch's name
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT  # noqa: N806
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()  # noqa: N806
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], -1)  # noqa: N806
            A = X - X.mT  # noqa: N806 - skew-symmetric: its exponential is orthogonal
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = A.matrix_exp()  # noqa: N806
            else:
                identity = eye(n, dtype=A.dtype)
                Q = linalg.solve(identity - 0.5 * A, identity + 0.5 * A)  # noqa: N806
            if n != k:
                Q = Q[..., :k]  # noqa: N806
        else:
            A = X.tril(diagonal=-1)  # noqa: N806
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = householder_product(A, tau)  # noqa: N806
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)  # noqa: N806
        if "base" in self._buffers:  # use_trivialization: Q relative to the base set at start
            Q = self.base @ Q  # noqa: N806
        if transposed:
            Q = Q.mT  # noqa: N806
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:  # noqa: N803
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. Got a "
                    f"tensor of shape {Q.shape}."
                )
            q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q = Q.mT  # noqa: N806
                n, k = k, n
            if "base" not in self._buffers:
                raise NotImplementedError(
                    "teachgrad's orthogonal parametrization needs use_trivialization=True "
                    "to be assigned to."
                )
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)  # noqa: N806
            else:
                from ..._random import randn

                N = randn(*tuple(Q.shape[:-2]), n, n - k, dtype=Q.dtype)  # noqa: N806
                Q = _make_orthogonal(cat([Q, N], -1))  # noqa: N806
            self.base = Q
            neg_identity = q_init.new_zeros(q_init.shape)
            neg_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_identity


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Keep ``module.<name>`` orthogonal (or with orthonormal rows/columns if it is not
    square) whatever values the optimiser gives the underlying parameter.

    ``orthogonal_map``: ``"matrix_exp"`` (default for square matrices), ``"cayley"`` or
    ``"householder"`` (default otherwise).
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    if not use_trivialization:
        raise NotImplementedError(
            "teachgrad implements orthogonal() with use_trivialization=True only."
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    """``w = g · v / ‖v‖`` as a parametrization of two tensors (g, v)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_norm_interface(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Weight normalisation as a parametrization: ``original0`` is the length g,
    ``original1`` the direction v.

    >>> import teachgrad as torch
    >>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
    >>> [name for name, _ in m.named_parameters()]
    ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """``w / σ(w)``, σ by power iteration with the buffers ``_u`` and ``_v``."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but "
                f"got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            with no_grad():
                u = weight_mat.new_empty(h).normal_(0, 1)
                v = weight_mat.new_empty(w).normal_(0, 1)
                self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
                self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)  # start from a good estimate

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                # (in place: the buffers stay the same objects, as PyTorch's out= keeps them)
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.t().mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Spectral normalisation as a parametrization (buffers ``parametrizations.weight.0._u``
    and ``._v`` hold the power iteration's vectors)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
