"""Helpers shared by the distributions (PyTorch's ``torch.distributions.utils``).

``broadcast_all`` turns a distribution's parameters into tensors of one shape;
``probs_to_logits`` / ``logits_to_probs`` convert between the two ways of giving a discrete
distribution; ``lazy_property`` computes a parameter the first time it is asked for (a
``Categorical`` made from ``logits`` works out ``probs`` only if someone reads it).
"""

from __future__ import annotations

from numbers import Number

import teachgrad as torch
from teachgrad import Tensor

__all__ = [
    "broadcast_all", "clamp_probs", "euler_constant", "lazy_property", "logits_to_probs",
    "probs_to_logits", "tril_matrix_to_vec", "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni γ (the mean of a standard Gumbel)


def broadcast_all(*values) -> tuple[Tensor, ...]:
    """Numbers and tensors in, tensors of one broadcast shape out.

    Numbers take the dtype of the first tensor among ``values`` (the default dtype if there
    is none), as in PyTorch.

    >>> import teachgrad as torch
    >>> loc, scale = broadcast_all(0.0, torch.ones(2))
    >>> loc
    tensor([0., 0.])
    """
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of numbers.Number, torch.Tensor or "
            "objects implementing __torch_function__."
        )
    if not all(isinstance(v, Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
        dtype = dtype or torch.get_default_dtype()
        values = [v if isinstance(v, Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return tuple(torch.broadcast_tensors(*values))


def clamp_probs(probs: Tensor) -> Tensor:
    """Keep probabilities one machine epsilon away from 0 and 1 (so their logs stay finite)."""
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds ``log p - log(1-p)`` (binary) or log-probabilities ``log p`` (categorical)."""
    clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(clamped) - torch.log1p(-clamped)
    return torch.log(clamped)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """``sigmoid(logits)`` (binary) or ``softmax(logits, -1)`` (categorical)."""
    if is_binary:
        return torch.sigmoid(logits)
    return torch.softmax(logits, dim=-1)


class lazy_property:
    """A property computed on first use and then stored on the instance.

    Used for the parameter a distribution was *not* given (``probs`` when it was made from
    ``logits``). The computation records a graph even under ``no_grad`` so that the stored
    value can be differentiated later, as in PyTorch.
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with torch.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value  # later reads skip the descriptor
        return value


def _sum_rightmost(value, dim: int):
    """Sum over the ``dim`` rightmost dimensions (``dim = 0``: unchanged)."""
    if dim == 0:
        return value
    required_shape = tuple(value.shape[: value.dim() - dim]) + (-1,)
    return value.reshape(required_shape).sum(-1)


def _tril_mask(n: int, diag: int):
    arange = torch.arange(n)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower-triangular entries (below diagonal ``diag``) of ``D × D`` matrices, row by
    row, as vectors."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of :func:`tril_matrix_to_vec`: vectors to lower-triangular matrices."""
    # The positive root of D² + (1 + 2·diag)·D - |diag|·(diag + 1) - 2·len = 0.
    n = (-(1 + 2 * diag)
         + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = torch.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat
