"""Householder reflectors: ``torch.geqrf``, ``linalg.householder_product`` (``torch.orgqr``)
and ``torch.ormqr``.

A Householder reflector ``H = I − τ v vᵀ`` (``τ = 2 / vᵀv`` makes it a reflection) maps a
vector onto a multiple of e₁. LAPACK's QR (``geqrf``) applies one per column: A becomes R,
and ``Q = H₁ H₂ … H_k``. It does not form Q; it stores each ``v`` (whose first entry is
taken to be 1) below R's diagonal and returns the ``τ`` separately. ``householder_product``
multiplies the reflectors out (the first n columns of Q); ``ormqr`` multiplies a matrix by
Q (or Qᵀ) without forming Q.

Both are differentiable: each reflector is one step ``C ← C − τ v (vᵀ C)``, and the
backward pass walks the steps in reverse, for ``ḡ = ∂L/∂C'`` (C' the step's result)::

    ∂L/∂C = ḡ − τ v (vᵀ ḡ)          (Hᵀ ḡ: H is symmetric)
    ∂L/∂τ = −(vᵀ ḡ) · (vᵀ C)ᵀ
    ∂L/∂v = −τ (C ḡᵀ + ḡ Cᵀ) v

written with NumPy functions, so they differentiate again under ``create_graph=True``.
``geqrf`` itself has no derivative in PyTorch, and none here.
"""

from __future__ import annotations

import math

import numpy as np

from .._missing_arguments import REQUIRED, missing
from .._tensor import Tensor, _make, tensor_method
from ..return_types import structseq
from . import decompositions as dec
from .decompositions import mT
from .number_factor import minus_number
from .op import NoDerivative, Op
from .pointwise import _value

__all__ = ["geqrf", "orgqr", "ormqr"]

GeqrfResult = structseq("geqrf", ("a", "tau"))


# ----------------------------------------------------------------------------------------
# geqrf: LAPACK's Householder QR
# ----------------------------------------------------------------------------------------
def householder_qr(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's ``geqrf`` on a batch (..., m, n): ``(a, tau)``, R and the reflectors packed.

    Column j: with ``α = a[j, j]`` and x the entries below it, ``β = −sign(α)·‖(α, x)‖``,
    ``τ = (β − α) / β`` and ``v = (1, x / (α − β))`` (LAPACK's ``dlarfg``); where x is
    already zero nothing is reflected (``τ = 0``). Then ``H = I − τ v vᵀ`` is applied to the
    columns on the right.
    """
    m, n = a.shape[-2:]
    k = min(m, n)
    # The batch count is spelled out: reshape's -1 cannot be inferred for empty matrices.
    r = np.array(a, dtype=a.dtype).reshape((math.prod(a.shape[:-2]), m, n))
    tau = np.zeros((r.shape[0], k), a.dtype)
    for j in range(k):
        alpha = r[:, j, j].copy()
        xnorm = np.linalg.norm(r[:, j + 1:, j], axis=1)
        reflect = xnorm != 0
        beta = -np.copysign(np.hypot(alpha, xnorm), alpha)
        safe_beta = np.where(reflect, beta, 1)
        tau[:, j] = np.where(reflect, (beta - alpha) / safe_beta, 0)
        scale = np.where(reflect, 1 / np.where(reflect, alpha - beta, 1), 0)
        r[:, j + 1:, j] *= scale[:, None]
        r[:, j, j] = np.where(reflect, beta, alpha)
        v = np.concatenate([np.ones((r.shape[0], 1), a.dtype), r[:, j + 1:, j]], axis=1)
        w = np.einsum("bi,bij->bj", v, r[:, j:, j + 1:])
        r[:, j:, j + 1:] -= tau[:, j, None, None] * v[:, :, None] * w[:, None, :]
    return r.reshape(a.shape), tau.reshape(a.shape[:-2] + (k,))


class GeqrfBackward0(NoDerivative):
    message = "the derivative for 'geqrf' is not implemented."

    @staticmethod
    def forward(ctx, a):
        r, tau = householder_qr(a)
        return dec.column_major(r), tau  # laid out as LAPACK's geqrf leaves it (PyTorch's)


@tensor_method()
def geqrf(input: Tensor) -> tuple:  # noqa: A002 - PyTorch's name
    """LAPACK's QR: ``(a, tau)`` with R on and above ``a``'s diagonal and the Householder
    vectors below it. ``linalg.householder_product(a, tau)`` forms Q from them.

    >>> import teachgrad as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3., 1.], [4., 2.]]))
    >>> a
    tensor([[-5.0000, -2.2000],
            [ 0.5000,  0.4000]])
    """
    if input._data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if input._data.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f'"geqrf_cpu" not implemented for \'{dec._scalar_name(input)}\'')
    return GeqrfResult(*GeqrfBackward0.apply(input))


# ----------------------------------------------------------------------------------------
# Applying reflectors, forward and backward
# ----------------------------------------------------------------------------------------
def reflectors(A, k: int):
    """The vectors v (as columns, m×k): A's strict lower triangle with 1 on the diagonal."""
    m = _value(A).shape[-2]
    return np.tril(A[..., :, :k], -1) + np.eye(m, k, dtype=_value(A).dtype)


def _step_order(k: int, transpose: bool) -> range:
    """Q C = H₁(H₂(…(H_k C))): the last reflector acts first; Qᵀ C: the first acts first."""
    return range(k) if transpose else range(k - 1, -1, -1)


def apply_reflectors(V, tau, C, transpose: bool) -> list:
    """``Q C`` (``Qᵀ C`` if ``transpose``), Q = H₁ … H_k; every intermediate C, first to last."""
    steps = [C]
    for i in _step_order(_value(tau).shape[-1], transpose):
        v, t = V[..., :, i:i + 1], np.expand_dims(tau[..., i:i + 1], -1)
        C = C - t * np.matmul(v, np.matmul(mT(v), C))
        steps.append(C)
    return steps


def apply_reflectors_backward(V, tau, steps: list, grad, transpose: bool) -> tuple:
    """``(∂L/∂V, ∂L/∂τ, ∂L/∂C)`` of :func:`apply_reflectors`, the steps walked in reverse."""
    k = _value(tau).shape[-1]
    grad_v, grad_tau = [None] * k, [None] * k
    order = list(_step_order(k, transpose))
    for position in range(k - 1, -1, -1):
        i = order[position]
        C = steps[position]  # what step i multiplied
        v, t = V[..., :, i:i + 1], np.expand_dims(tau[..., i:i + 1], -1)
        vg, vC = np.matmul(mT(v), grad), np.matmul(mT(v), C)
        grad_tau[i] = -np.sum(vg * vC, axis=(-2, -1))
        grad_v[i] = -t * (np.matmul(C, np.matmul(mT(grad), v))
                          + np.matmul(grad, np.matmul(mT(C), v)))
        grad = grad - t * np.matmul(v, vg)
    if k == 0:
        return None, None, grad
    return np.concatenate(grad_v, axis=-1), np.stack(grad_tau, axis=-1), grad


def _grad_of_input(grad_V, A):
    """∂L/∂A from ∂L/∂V: only the strict lower triangle of the first k columns is read."""
    if grad_V is None:
        return None
    m, n = _value(A).shape[-2:]
    k = _value(grad_V).shape[-1]
    grad = np.tril(grad_V, -1)
    if n > k:
        zeros = np.zeros(_value(grad).shape[:-1] + (n - k,), _value(grad).dtype)
        grad = np.concatenate([grad, zeros], axis=-1)
    return grad


# ----------------------------------------------------------------------------------------
# householder_product / orgqr, ormqr
# ----------------------------------------------------------------------------------------
def _batched_eye(A: np.ndarray) -> np.ndarray:
    """The m×n identity, once per matrix of A's batch: with no reflector (τ of length 0) it
    is the answer, and it must keep the batch."""
    m, n = A.shape[-2:]
    return np.broadcast_to(np.eye(m, n, dtype=A.dtype), A.shape).copy()


class LinalgHouseholderProductBackward0(Op):
    saved_names = ("input", "tau", "result")  # grad_fn._saved_..., as PyTorch's
    formula = "Q = H₁…H_k I:  per step C' = C − τv(vᵀC):  ∂τ = −(vᵀḡ)(vᵀC)ᵀ, ∂v = −τ(Cḡᵀ + ḡCᵀ)v"

    @staticmethod
    def forward(ctx, A, tau):
        result = dec.column_major(apply_reflectors(reflectors(A, tau.shape[-1]), tau,
                                                   _batched_eye(A), transpose=False)[-1])
        ctx.save_for_backward(A, tau, result)  # (the result: PyTorch's formula uses it)
        return result

    @staticmethod
    def backward(ctx, grad):
        A, tau, result = ctx.saved_tensors
        if type(grad) is Tensor:
            return householder_product_backward_recorded(grad, result, A, tau)
        V = reflectors(A, _value(tau).shape[-1])
        steps = apply_reflectors(V, tau, _batched_eye(_value(A)), transpose=False)
        grad_V, grad_tau, _ = apply_reflectors_backward(V, tau, steps, grad, transpose=False)
        return _grad_of_input(grad_V, A), grad_tau


def _apply_reflector(v: Tensor, t: Tensor, K: Tensor, left: bool) -> Tensor:
    """``(I − t v vᵀ) K`` (``K (I − t v vᵀ)`` if not ``left``), out of place: PyTorch's
    apply_simple_transformation under create_graph. ``v`` is m×1, ``t`` has one entry."""
    if left:
        return K - (t.unsqueeze(-1) * v) * v.mH.matmul(K)
    return K - K.matmul(t.unsqueeze(-1) * v) * v.mH


def _reflector_grads(i: int, v_full: Tensor, t: Tensor, K: Tensor) -> tuple:
    """PyTorch's update_grad: the gradients of vᵢ (m×1) and τᵢ from
    Kᵢ = H_{i+1}…H_k ḡᵀ H₁…H_{i−1}: ``−τ (vᵀK)ᵀ − τ K v`` and ``−vᵀ K v`` (only vᵢ[i:]
    is not zero, so only those rows and columns are read)."""
    m = v_full.shape[-2]
    v = v_full.narrow(-2, i, m - i)
    vHK = v.mH.matmul(K.narrow(-2, i, m - i))
    Kv = K.narrow(-1, i, m - i).matmul(v)
    t = t.unsqueeze(-1)
    v_grad = (-t * vHK).squeeze(-2) - (t * Kv).squeeze(-1)
    tau_grad = -(vHK.narrow(-1, i, m - i).matmul(v))
    return v_grad.unsqueeze(-1), tau_grad.squeeze(-1)


def householder_product_backward_recorded(grad: Tensor, result: Tensor, A: Tensor,
                                          tau: Tensor, flip_order: bool = False) -> tuple:
    """PyTorch's householder_product_backward under create_graph, op for op.

    With Kᵢ = H_{i+1}…H_k ḡᵀ H₁…H_{i−1}, step i's gradients need only Kᵢ, and
    K_{i+1} = H_{i+1}⁻¹ Kᵢ Hᵢ, where H(τ)⁻¹ = H(σ) with σ = τ / (τ‖v‖² − 1): so K is
    updated by two reflectors per step instead of recomputing the products. Each step's
    gradients are copied into zeros in place (CopySlices); the input's is its strict
    lower triangle (``tril_``). ``flip_order`` (for ormqr) walks the reflectors from the
    last to the first, multiplying K from the other sides."""
    k = tau.shape[-1]
    if A.numel() == 0 or k == 0:
        return None, None
    V = A.tril(-1)
    V.diagonal(0, -2, -1).fill_(1.0)
    first = V.narrow(-1, 0, k)
    sigma = tau / minus_number(tau * (first * first).sum(-2), 1.0)
    K = result.matmul(grad.mH)
    order = range(k - 1, -1, -1) if flip_order else range(k)
    left = not flip_order
    K = _apply_reflector(V.narrow(-1, order[0], 1), sigma.narrow(-1, order[0], 1), K, left)
    input_grad = _make(np.zeros(A._data.shape, A._data.dtype))
    tau_grad = _make(np.zeros(tau._data.shape, tau._data.dtype))
    for step, i in enumerate(order):
        v_i, t_i = V.narrow(-1, i, 1), tau.narrow(-1, i, 1)
        v_i_grad, tau_i_grad = _reflector_grads(i, v_i, t_i, K)
        input_grad.select(-1, i).copy_(v_i_grad.squeeze(-1))
        tau_grad.select(-1, i).copy_(tau_i_grad.squeeze(-1))
        if step != k - 1:  # K ← H_{i+1}⁻¹ K Hᵢ (the next reflector in the walk's order)
            after = order[step + 1]
            K = _apply_reflector(V.narrow(-1, after, 1), sigma.narrow(-1, after, 1), K, left)
            K = _apply_reflector(v_i, t_i, K, not left)
    input_grad.tril_(-1)
    return input_grad, tau_grad


def _ormqr_gradients_recorded(grad: Tensor, result: Tensor, A: Tensor, tau: Tensor,
                              left: bool, transpose: bool, needs: tuple) -> tuple:
    """PyTorch's ormqr_backward: C's gradient is ormqr with Qᵀ for Q; A's and τ's are
    householder_product_backward's, with ḡ and the result (transposed, or swapped and
    walked from the last reflector) as the side Q multiplies from asks."""
    grad_A = grad_tau = grad_C = None
    if needs[2]:
        grad_C = ormqr(A, tau, grad, left, not transpose)
    if needs[0] or needs[1]:
        if left != transpose:
            hpb_grad = grad if not transpose else grad.mH
            hpb_result = result if not transpose else result.mH
            grad_A, grad_tau = householder_product_backward_recorded(hpb_grad, hpb_result, A,
                                                                     tau)
        else:
            hpb_grad = result.mH if not transpose else result
            hpb_result = grad.mH if not transpose else grad
            grad_A, grad_tau = householder_product_backward_recorded(
                hpb_grad, hpb_result, A, tau, flip_order=True)
    return grad_A, grad_tau, grad_C


class OrmqrBackward0(Op):
    saved_names = ("self", "input2", "input3", "result")  # grad_fn._saved_..., as PyTorch's
    saved_attributes = {"left": "left", "transpose": "transpose"}
    formula = "Q C with Q = H₁…H_k: the reflectors' steps, walked back (∂C, ∂τ, ∂v per step)"

    @staticmethod
    def forward(ctx, A, tau, C, left, transpose):
        ctx.left, ctx.transpose = left, transpose
        result = _ormqr_steps(A, tau, C, left, transpose)[-1]
        result = dec.column_major(result if left else mT(result))
        ctx.save_for_backward(A, tau, C, result)  # (the result: PyTorch's formula uses it)
        return result

    @staticmethod
    def backward(ctx, grad):
        A, tau, C, result = ctx.saved_tensors
        left, transpose = ctx.left, ctx.transpose
        if type(grad) is Tensor:
            return _ormqr_gradients_recorded(grad, result, A, tau, left, transpose,
                                             ctx.needs_input_grad)
        V = reflectors(A, _value(tau).shape[-1])
        steps = _ormqr_steps(A, tau, C, left, transpose)
        # C Q = (Qᵀ Cᵀ)ᵀ: the right-hand products are left-hand ones on the transposes.
        grad_V, grad_tau, grad_C = apply_reflectors_backward(
            V, tau, steps, grad if left else mT(grad), transpose if left else not transpose)
        return _grad_of_input(grad_V, A), grad_tau, grad_C if left else mT(grad_C)


def _ormqr_steps(A, tau, C, left: bool, transpose: bool) -> list:
    V = reflectors(A, _value(tau).shape[-1])
    if left:
        return apply_reflectors(V, tau, C, transpose)
    return apply_reflectors(V, tau, mT(C), not transpose)


def _check_batch(fn: str, name: str, batch: tuple, A: Tensor) -> None:
    """PyTorch does not broadcast the batches of tau and other: they must equal A's."""
    if tuple(batch) != A._data.shape[:-2]:
        raise RuntimeError(f"{fn}: Expected batch dimensions of {name} to be equal to "
                           f"input.shape[:-2], but got {list(batch)}")


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of ``H₁ H₂ … H_k``, ``Hᵢ = I − τᵢ vᵢ vᵢᵀ`` with vᵢ below A's
    diagonal (``vᵢ[i] = 1``): Q from the result of :func:`geqrf`.

    >>> import teachgrad as torch
    >>> A = torch.tensor([[3., 1.], [4., 2.]])
    >>> Q = torch.linalg.householder_product(*torch.geqrf(A))
    >>> Q
    tensor([[-0.6000, -0.8000],
            [-0.8000,  0.6000]])
    """
    fn = "torch.linalg.householder_product"
    if A._data.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    m, n = A._data.shape[-2:]
    if m < n:  # (PyTorch checks A's shape before tau's)
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau._data.ndim != A._data.ndim - 1:
        raise RuntimeError(
            f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal "
            f"to {tau._data.ndim} and input.ndim is equal to {A._data.ndim}")
    if tau._data.shape[-1] > n:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    _check_batch(fn, "tau", tau._data.shape[:-1], A)
    if A._data.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f'"orgqr_cpu" not implemented for \'{dec._scalar_name(A)}\'')
    if tau._data.dtype != A._data.dtype:
        raise RuntimeError(f"{fn}: tau dtype {dec._scalar_name(tau)} does not match input "
                           f"dtype {dec._scalar_name(A)}")
    return LinalgHouseholderProductBackward0.apply(A, tau)


@tensor_method()
def orgqr(input: Tensor, tau: Tensor = REQUIRED) -> Tensor:  # noqa: A002
    """``torch.linalg.householder_product`` under LAPACK's name."""
    if tau is REQUIRED:  # (x.orgqr(): PyTorch's words, see _missing_arguments)
        raise missing("orgqr", orgqr, input, tau)
    return householder_product(input, tau)


@tensor_method()
def ormqr(input: Tensor, tau: Tensor = REQUIRED, other: Tensor = REQUIRED, left: bool = True,  # noqa: A002
          transpose: bool = False) -> Tensor:
    """``Q @ other`` without forming Q = H₁…H_k (from :func:`geqrf`'s ``(input, tau)``);
    ``Qᵀ`` if ``transpose``, and ``other @ Q`` if not ``left``.

    >>> import teachgrad as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3., 1.], [4., 2.]]))
    >>> torch.ormqr(a, tau, torch.eye(2))
    tensor([[-0.6000, -0.8000],
            [-0.8000,  0.6000]])
    """
    if tau is REQUIRED or other is REQUIRED:  # (x.ormqr(): PyTorch's words, see _missing_arguments)
        raise missing("ormqr", ormqr, input, tau, other)
    fn = "torch.ormqr"
    if input._data.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if other._data.ndim < 2:
        raise RuntimeError(f"{fn}: other must have at least 2 dimensions.")
    if other._data.ndim != input._data.ndim:
        raise RuntimeError(
            f"{fn}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {other._data.ndim} and input.ndim is equal to "
            f"{input._data.ndim}")
    if tau._data.ndim != input._data.ndim - 1:
        raise RuntimeError(
            f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal "
            f"to {tau._data.ndim} and input.ndim is equal to {input._data.ndim}")
    side = -2 if left else -1
    if other._data.shape[side] != input._data.shape[-2]:
        raise RuntimeError(f"{fn}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau._data.shape[-1] != min(other._data.shape[side], input._data.shape[-1]):
        raise RuntimeError(f"{fn}: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           "input.shape[-1])")
    _check_batch(fn, "tau", tau._data.shape[:-1], input)
    _check_batch(fn, "other", other._data.shape[:-2], input)
    if other._data.dtype != input._data.dtype:
        raise RuntimeError(f"{fn}: Expected input and other to have the same dtype, but input "
                           f"has dtype{dec._scalar_name(input)} and other has dtype "
                           f"{dec._scalar_name(other)}")
    if input._data.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f'"ormqr_cpu" not implemented for \'{dec._scalar_name(input)}\'')
    return OrmqrBackward0.apply(input, tau, other, left=bool(left), transpose=bool(transpose))
