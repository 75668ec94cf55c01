"""LU decomposition with partial pivoting: ``linalg.lu_factor``, ``linalg.lu``, ``lu_unpack``,
``linalg.lu_solve`` and the deprecated ``torch.lu`` / ``torch.lu_solve``.

Gaussian elimination writes a matrix as ``A = P L U``: P a permutation, L unit lower
triangular (its ones are not stored), U upper triangular. LAPACK's ``getrf`` returns L and
U packed into one matrix ``LU`` (L below the diagonal, U on and above it) and the row swaps
as ``pivots``: 1-based, ``pivots[i] = p`` means "row i was swapped with row p" at step i.
NumPy has no LU, so :func:`getrf` below is that algorithm, vectorised over a batch.

The gradients are PyTorch's (``linalg_lu_backward``, ``lu_factor_ex_backward``,
``linalg_lu_solve_LU``); for a loss L, ``ḡ = ∂L/∂out`` and a square A:

==============  ========================================================================
lu              ∂L/∂A = P L⁻ᵀ [tril(Lᵀ ḡL, −1) + triu(ḡU Uᵀ)] U⁻ᵀ
lu_factor       the same, with ḡL, ḡU the parts of ḡLU below and on/above the diagonal
lu_solve  AX=B  ∂L/∂B = A⁻ᵀ ḡ;  ∂L/∂LU from ∂L/∂A = −A⁻ᵀ ḡ Xᵀ through A = P L U
==============  ========================================================================

They use only matrix products, ``tril``/``triu`` and ``np.linalg.solve``, so they are
differentiable again under ``create_graph=True``.
"""

from __future__ import annotations

import math

import numpy as np

from .._missing_arguments import REQUIRED, missing
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _make, python_type_name, tensor_method
from .._warn import warn_user
from ..return_types import structseq
from . import decompositions as dec
from .decompositions import column_major, mT, solve_right
from .op import Op
from .pointwise import _value
from .shape import cat

__all__ = ["lu", "lu_solve", "lu_unpack"]

LuFactorResult = structseq("linalg_lu_factor", ("LU", "pivots"))
LuFactorExResult = structseq("linalg_lu_factor_ex", ("LU", "pivots", "info"))
LuResult = structseq("linalg_lu", ("P", "L", "U"))
LuUnpackResult = structseq("lu_unpack", ("P", "L", "U"))
LuWithInfoResult = structseq("_lu_with_info", ("LU", "pivots", "info"))


# ----------------------------------------------------------------------------------------
# The algorithm: getrf (forward), and unpacking its result
# ----------------------------------------------------------------------------------------
def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's ``getrf`` on a batch (..., m, n): ``(LU, pivots, info)``.

    Column by column: pick the entry of largest absolute value on or below the diagonal
    (the first one on ties, as LAPACK's ``idamax``), swap its row up, divide the column
    below it by it (as a multiplication by its reciprocal, as LAPACK does, so that the
    roundings match), and subtract the outer product from the rest. A zero pivot is not
    an error: ``info`` records the first (1-based) and elimination goes on.
    """
    m, n = a.shape[-2:]
    k = min(m, n)
    # The batch count is spelled out: reshape's -1 cannot be inferred for empty matrices.
    lu = np.array(a, dtype=a.dtype).reshape((math.prod(a.shape[:-2]), m, n))
    batch = np.arange(lu.shape[0])
    pivots = np.zeros((lu.shape[0], k), np.int32)
    info = np.zeros(lu.shape[0], np.int32)
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        pivots[:, j] = p + 1
        row_j = lu[batch, j].copy()
        lu[batch, j] = lu[batch, p]
        lu[batch, p] = row_j
        pivot = lu[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        reciprocal = 1 / np.where(zero, 1, pivot)
        lu[:, j + 1:, j] *= reciprocal[:, None]
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j:j + 1] * lu[:, j:j + 1, j + 1:]
    batch_shape = a.shape[:-2]
    return lu.reshape(a.shape), pivots.reshape(batch_shape + (k,)), info.reshape(batch_shape)


def permutation_of(pivots: np.ndarray, m: int) -> np.ndarray:
    """The row order the swaps make: ``(Pᵀ A)[i] = A[perm[i]]`` (0-based)."""
    flat = pivots.reshape((math.prod(pivots.shape[:-1]), pivots.shape[-1])).astype(np.int64) - 1
    perm = np.broadcast_to(np.arange(m), (flat.shape[0], m)).copy()
    batch = np.arange(flat.shape[0])
    for i in range(flat.shape[1]):
        target = flat[:, i]
        here = perm[:, i].copy()
        perm[:, i] = perm[batch, target]
        perm[batch, target] = here
    return perm.reshape(pivots.shape[:-1] + (m,))


def permutation_matrix(pivots: np.ndarray, m: int, dtype) -> np.ndarray:
    """P with ``A = P L U``: ``P[perm[i], i] = 1``."""
    perm = permutation_of(pivots, m)
    return np.swapaxes(np.eye(m, dtype=dtype)[perm], -1, -2)


def unpack_factors(LU, k: int | None = None):  # noqa: N803 - PyTorch's name
    """``(L, U)`` from the packed ``LU`` (m×n): L is m×k unit lower, U is k×n upper."""
    m, n = _value(LU).shape[-2:]
    k = min(m, n) if k is None else k
    L = np.tril(LU[..., :, :k], -1) + np.eye(m, k, dtype=_value(LU).dtype)
    U = np.triu(LU[..., :k, :])
    return L, U


# ----------------------------------------------------------------------------------------
# Checks and PyTorch's messages
# ----------------------------------------------------------------------------------------
def _check_factor_input(fn: str, A: Tensor, pivot: bool, kernel: str = "lu_cpu") -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{fn}(): argument 'A' must be Tensor, not {python_type_name(A)}"
                        + real_pytorch_hint(A))
    if A._data.ndim < 2:
        raise RuntimeError(f"{fn}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A._data.shape)} instead")
    if A._data.dtype not in (np.float32, np.float64):
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{dec._scalar_name(A)}\''
            "\nHint: LU works in float32 or float64; convert first, e.g. A.double().")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _zero_pivot_error(fn: str, shape: tuple, info: np.ndarray) -> RuntimeError:
    flat = info.reshape(-1)
    index = int(np.flatnonzero(flat)[0])
    return RuntimeError(
        f"{fn}: {dec.batch_prefix(shape, index)}U[{flat[index]},{flat[index]}] is zero and using "
        "it on lu_solve would result in a division by zero. If you still want to perform the "
        "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


# ----------------------------------------------------------------------------------------
# The backward formulas (arrays or tensors alike)
# ----------------------------------------------------------------------------------------
def _solve_lower_unit_t(L, B):
    """``L⁻ᵀ B`` for a unit lower-triangular L (square k×k)."""
    return np.linalg.solve(mT(L), B)


def lu_backward(grad_L, grad_U, P, L, U):
    """PyTorch's ``linalg_lu_backward`` (real): ``∂L/∂A`` for ``A = P L U`` (m×n, k = min)."""
    if grad_L is None and grad_U is None:
        return None
    m, n = _value(L).shape[-2], _value(U).shape[-1]
    k = min(m, n)
    if m == n:
        # P L⁻ᵀ [tril(Lᵀ ḡL, −1) + triu(ḡU Uᵀ)] U⁻ᵀ
        inner = 0
        if grad_L is not None:
            inner = np.tril(np.matmul(mT(L), grad_L), -1)
        if grad_U is not None:
            inner = inner + np.triu(np.matmul(grad_U, mT(U)))
        grad_A = _solve_lower_unit_t(L, solve_right(mT(U), inner))
        return np.matmul(P, grad_A)
    if m < n:  # wide: U = [U1 | U2], U1 square
        U1 = U[..., :, :k]
        inner = 0
        if grad_L is not None:
            inner = np.matmul(mT(L), grad_L)
        if grad_U is not None:
            inner = inner - np.matmul(np.triu(grad_U), mT(U))
        grad_A = solve_right(mT(U1), np.tril(inner, -1))
        if grad_U is not None:
            grad_A = np.concatenate([grad_A + np.triu(grad_U[..., :, :k]), grad_U[..., :, k:]],
                                    axis=-1)
        grad_A = _solve_lower_unit_t(L, grad_A)
        if grad_U is None:
            grad_A = np.concatenate([grad_A, np.zeros_like(_value(U)[..., :, k:])], axis=-1)
        return np.matmul(P, grad_A)
    # tall: L = [L1; L2], L1 square
    L1 = L[..., :k, :]
    inner = 0
    if grad_U is not None:
        inner = np.matmul(grad_U, mT(U))
    if grad_L is not None:
        inner = inner - np.matmul(mT(L), np.tril(grad_L, -1))
    grad_A = _solve_lower_unit_t(L1, np.triu(inner))
    if grad_L is not None:
        grad_A = np.concatenate([grad_A + np.tril(grad_L[..., :k, :], -1), grad_L[..., k:, :]],
                                axis=-2)
    grad_A = solve_right(mT(U), grad_A)
    if grad_L is None:
        grad_A = np.concatenate([grad_A, np.zeros_like(_value(L)[..., k:, :])], axis=-2)
    return np.matmul(P, grad_A)


def packed_gradient(grad_L, grad_U, m: int, n: int):
    """``∂L/∂LU`` from ``∂L/∂L`` (m×k) and ``∂L/∂U`` (k×n): each where it is stored
    (L's below the diagonal, U's on and above it), zeros elsewhere."""
    k = min(m, n)
    grad = 0
    if grad_L is not None:
        part = np.tril(grad_L, -1)
        if n > k:
            zeros = np.zeros(_value(part).shape[:-1] + (n - k,), _value(part).dtype)
            part = np.concatenate([part, zeros], axis=-1)
        grad = grad + part
    if grad_U is not None:
        part = np.triu(grad_U)
        if m > k:
            zeros = np.zeros(_value(part).shape[:-2] + (m - k, n), _value(part).dtype)
            part = np.concatenate([part, zeros], axis=-2)
        grad = grad + part
    return grad


# ----------------------------------------------------------------------------------------
# The same formulas under create_graph, op for op as PyTorch's C++ writes them (so that a
# gradient's graph has PyTorch's nodes: lu_unpack, linalg_solve_triangular, narrow ...)
# ----------------------------------------------------------------------------------------
def _solve_tri(A: Tensor, B: Tensor, upper: bool, left: bool = True,
               unitriangular: bool = False) -> Tensor:
    return dec.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


def _plus(a, b):
    """``a + b`` where ``a`` may be missing (PyTorch's undefined tensor)."""
    return b if a is None else a + b


def _minus(a, b):
    """``a − b`` where ``a`` may be missing (then ``−b``)."""
    return -b if a is None else a - b


def lu_backward_recorded(grad_L, grad_U, P: Tensor, L: Tensor, U: Tensor) -> Tensor:
    """PyTorch's ``linalg_lu_backward`` (real, pivoted), recorded: the formulas of
    :func:`lu_backward` with two triangular solves instead of ``np.linalg.solve``."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:  # P L⁻ᴴ [Lᴴ ḡL ∘ 1_L + ḡU Uᴴ ∘ 1_U] U⁻ᴴ
        grad_A = L.mH.matmul(grad_L).tril(-1) if grad_L is not None else None
        if grad_U is not None:
            grad_A = _plus(grad_A, grad_U.matmul(U.mH).triu())
        grad_A = _solve_tri(U.mH, grad_A, upper=False, left=False)
        grad_A = _solve_tri(L.mH, grad_A, upper=True, unitriangular=True)
        return P.matmul(grad_A)
    if m < n:  # wide: U = [U1 | U2]
        grad_A = L.mH.matmul(grad_L) if grad_L is not None else None
        if grad_U is not None:
            grad_A = _minus(grad_A, grad_U.triu().matmul(U.mH))
        grad_A = _solve_tri(U.narrow(-1, 0, k).mH, grad_A.tril(-1), upper=False, left=False)
        if grad_U is not None:
            grad_A = cat([grad_A + grad_U.narrow(-1, 0, k).triu(), grad_U.narrow(-1, k, n - k)],
                         dim=-1)
        grad_A = _solve_tri(L.mH, grad_A, upper=True, unitriangular=True)
        if grad_U is None:
            grad_A = cat([grad_A, _zeros_like(U.narrow(-1, k, n - k))], dim=-1)
        return P.matmul(grad_A)
    # tall: L = [L1; L2]
    grad_A = grad_U.matmul(U.mH) if grad_U is not None else None
    if grad_L is not None:
        grad_A = _minus(grad_A, L.mH.matmul(grad_L.tril(-1)))
    grad_A = _solve_tri(L.narrow(-2, 0, k).mH, grad_A.triu(), upper=True, unitriangular=True)
    if grad_L is not None:
        grad_A = cat([grad_A + grad_L.narrow(-2, 0, k).tril(-1), grad_L.narrow(-2, k, m - k)],
                     dim=-2)
    grad_A = _solve_tri(U.mH, grad_A, upper=False, left=False)
    if grad_L is None:
        grad_A = cat([grad_A, _zeros_like(L.narrow(-2, k, m - k))], dim=-2)
    return P.matmul(grad_A)


def _zeros_like(t: Tensor) -> Tensor:
    return _make(np.zeros(t._data.shape, t._data.dtype))


def _pivots_tensor(pivots: np.ndarray) -> Tensor:
    return _make(pivots)


def lu_factor_backward_recorded(grad: Tensor, LU: Tensor, pivots: np.ndarray) -> Tensor:  # noqa: N803
    """PyTorch's ``lu_factor_ex_backward``: unpack LU again (a LuUnpackBackward0 node on
    the saved LU), narrow ḡ to L's and U's shapes, then ``linalg_lu_backward``."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    P, L, U = lu_unpack(LU, _pivots_tensor(pivots))
    return lu_backward_recorded(grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), P, L, U)


def lu_solve_LU_recorded(grad: Tensor, LU: Tensor, pivots: np.ndarray, X: Tensor,  # noqa: N802, N803
                         left: bool, adjoint: bool) -> Tensor:
    """PyTorch's ``linalg_lu_solve_LU``: ∂L/∂LU of ``lu_solve`` through A = P L U, with
    two triangular solves (which two depends on whether A or Aᴴ is solved with)."""
    P, L, U = lu_unpack(LU, _pivots_tensor(pivots), True, left == adjoint)
    if left != adjoint:
        # gR = U⁻ᴴ op₂(−ḡX) op₂(X)ᴴ;  ḡL = (L⁻ᴴ gR Uᴴ).tril(−1);  ḡU = gR.triu()
        gR = _solve_tri(U.mH, -(grad if left else grad.mH).matmul(X.mH if left else X),
                        upper=False)
        gL = _solve_tri(L.mH, gR.matmul(U.mH), upper=True, unitriangular=True).tril(-1)
        return gL + gR.triu()
    # gR = −Pᵀ op₃(X) op₁(op₂(ḡX)) P L⁻ᴴ;  ḡU = (Lᴴ gR U⁻ᴴ).triu()
    gR = -P.mT.matmul(X if left else X.mH).matmul(grad.mH if left else grad).matmul(P)
    gR = _solve_tri(L.mH, gR, upper=True, left=False, unitriangular=True)
    gU = _solve_tri(U.mH, L.mH.matmul(gR), upper=False, left=False).triu()
    return gR.tril(-1) + gU


# ----------------------------------------------------------------------------------------
# The ops
# ----------------------------------------------------------------------------------------
class LinalgLuFactorExBackward0(Op):
    saved_names = ("LU",)  # grad_fn._saved_... as PyTorch's
    formula = "A = PLU:  ∂L/∂A = P L⁻ᵀ [tril(Lᵀ ḡL, −1) + triu(ḡU Uᵀ)] U⁻ᵀ"
    materialize_grads = False

    @staticmethod
    def forward(ctx, A):
        LU, pivots, info = getrf(A)
        LU = column_major(LU)  # LAPACK's getrf writes it column by column, as PyTorch returns it
        ctx.save_for_backward(LU)
        ctx.pivots = pivots
        return LU, pivots, info

    @staticmethod
    def backward(ctx, grad, grad_pivots=None, grad_info=None):
        if grad is None:
            return None
        (LU,) = ctx.saved_tensors
        if type(grad) is Tensor:
            return lu_factor_backward_recorded(grad, LU, ctx.pivots)
        m, n = _value(LU).shape[-2:]
        k = min(m, n)
        L, U = unpack_factors(LU)
        P = permutation_matrix(ctx.pivots, m, _value(LU).dtype)
        return lu_backward(np.tril(grad[..., :, :k], -1), np.triu(grad[..., :k, :]), P, L, U)


class LinalgLuBackward0(Op):
    saved_names = ("P", "L", "U")  # grad_fn._saved_... as PyTorch's
    formula = "A = PLU:  ∂L/∂A = P L⁻ᵀ [tril(Lᵀ ḡL, −1) + triu(ḡU Uᵀ)] U⁻ᵀ"
    materialize_grads = False

    @staticmethod
    def forward(ctx, A, LU, P):
        # The factorization was run by the caller (it also needs P, which is not
        # differentiable and so is not an output of this op).
        L, U = unpack_factors(LU)
        ctx.save_for_backward(P, L, U)
        return L, U

    @staticmethod
    def backward(ctx, grad_L, grad_U):
        P, L, U = ctx.saved_tensors
        if type(grad_U if grad_L is None else grad_L) is Tensor:
            P = P if isinstance(P, Tensor) else _make(P)  # (a constant: no gradient)
            return lu_backward_recorded(grad_L, grad_U, P, L, U)
        return lu_backward(grad_L, grad_U, P, L, U)


class LuUnpackBackward0(Op):
    formula = "∂L/∂LU = tril(ḡL, −1) + triu(ḡU), each placed where it is stored"
    materialize_grads = False

    @staticmethod
    def forward(ctx, LU):
        ctx.shape = LU.shape[-2:]
        return unpack_factors(LU)

    @staticmethod
    def backward(ctx, grad_L, grad_U):
        if grad_L is None and grad_U is None:
            return None
        return packed_gradient(grad_L, grad_U, *ctx.shape)


def _lu_solve_forward(LU: np.ndarray, pivots: np.ndarray, B: np.ndarray, left: bool,
                      adjoint: bool) -> np.ndarray:
    """X from the factors: what LAPACK's ``getrs`` does (swaps, then two substitutions)."""
    n = LU.shape[-1]
    L, U = unpack_factors(LU)
    perm = permutation_of(pivots, n)
    batch = dec._broadcast_batches(B.shape[:-2], LU.shape[:-2])
    L = np.broadcast_to(L, batch + (n, n))
    U = np.broadcast_to(U, batch + (n, n))
    perm = np.broadcast_to(perm, batch + (n,))
    B = np.broadcast_to(B, batch + B.shape[-2:])
    if not left:  # X A = B  ⇔  Aᵀ Xᵀ = Bᵀ;  X Aᵀ = B  ⇔  A Xᵀ = Bᵀ
        return mT(_lu_solve_forward(LU, pivots, mT(B), True, not adjoint))
    if not adjoint:  # A X = B:  L U X = Pᵀ B
        rows = np.take_along_axis(B, perm[..., :, None], axis=-2)
        Y = dec._substitute(L, rows, upper=False, left=True)
        return dec._substitute(U, Y, upper=True, left=True)
    # Aᵀ X = B:  Uᵀ Lᵀ Pᵀ X = B
    Y = dec._substitute(mT(U), B, upper=False, left=True)
    Z = dec._substitute(mT(L), Y, upper=True, left=True)
    X = np.empty_like(Z)
    np.put_along_axis(X, perm[..., :, None], Z, axis=-2)
    return X


class LinalgLuSolveBackward0(Op):
    saved_names = ("LU", "result")  # grad_fn._saved_... as PyTorch's
    saved_attributes = {"left": "left", "adjoint": "adjoint"}
    formula = "AX = B (A = PLU):  ∂L/∂B = A⁻ᵀ ḡ;  ∂L/∂A = −A⁻ᵀ ḡ Xᵀ, carried to L and U"

    @staticmethod
    def forward(ctx, LU, B, pivots, left, adjoint):
        ctx.left, ctx.adjoint, ctx.pivots = left, adjoint, pivots
        with np.errstate(divide="ignore", invalid="ignore"):
            X = _lu_solve_forward(LU, pivots, B, left, adjoint)
        # laid out as PyTorch's: column-major, and for X A = B the transpose of the
        # column-major solution of Aᵀ Xᵀ = Bᵀ (row-major)
        X = column_major(X) if left else mT(column_major(mT(X)))
        ctx.save_for_backward(LU, X)
        return X

    @staticmethod
    def backward(ctx, grad):
        LU, X = ctx.saved_tensors
        need_LU, need_B = ctx.needs_input_grad
        if type(grad) is Tensor:  # PyTorch's formulas: lu_solve_LU, and lu_solve again
            grad_LU = (lu_solve_LU_recorded(grad, LU, ctx.pivots, X, ctx.left, ctx.adjoint)
                       if need_LU else None)
            grad_B = (linalg_lu_solve(LU, _pivots_tensor(ctx.pivots), grad, left=ctx.left,
                                      adjoint=not ctx.adjoint) if need_B else None)
            return grad_LU, grad_B
        n = _value(LU).shape[-1]
        P = permutation_matrix(ctx.pivots, n, _value(LU).dtype)
        L, U = unpack_factors(LU)
        A = np.matmul(P, np.matmul(L, U))
        left, adjoint = ctx.left, ctx.adjoint
        # The gradient for B is a solve with the transposed system.
        if left:
            grad_B = np.linalg.solve(A if adjoint else mT(A), grad)
        else:
            grad_B = solve_right(A if adjoint else mT(A), grad)
        grad_LU = None
        if need_LU:
            # ∂L/∂A for each of the four equations, from ∂L/∂B:
            # AX = B: −gB Xᵀ;  AᵀX = B: −X gBᵀ;  XA = B: −Xᵀ gB;  XAᵀ = B: −gBᵀ X
            if left:
                grad_A = -np.matmul(X, mT(grad_B)) if adjoint else -np.matmul(grad_B, mT(X))
            else:
                grad_A = -np.matmul(mT(grad_B), X) if adjoint else -np.matmul(mT(X), grad_B)
            # A = P L U:  ∂L/∂L = tril(Pᵀ gA Uᵀ, −1),  ∂L/∂U = triu(Lᵀ Pᵀ gA)
            PtgA = np.matmul(mT(P), grad_A)
            grad_LU = np.tril(np.matmul(PtgA, mT(U)), -1) + np.triu(np.matmul(mT(L), PtgA))
        return grad_LU, grad_B if need_B else None


# ----------------------------------------------------------------------------------------
# The public functions
# ----------------------------------------------------------------------------------------
def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> tuple:
    """``(LU, pivots, info)``: the LU factorization packed as LAPACK returns it.

    ``info`` is 0, or the (1-based) position of the first zero on U's diagonal; such a
    matrix is singular, which is not an error unless ``check_errors``.

    >>> import teachgrad as torch
    >>> torch.linalg.lu_factor_ex(torch.tensor([[1., 2.], [3., 4.]])).pivots.tolist()
    [2, 2]
    """
    _check_factor_input("torch.lu_factor", A, pivot)
    LU, pivots, info = LinalgLuFactorExBackward0.apply(A)
    if check_errors and info._data.any():
        raise _zero_pivot_error("torch.linalg.lu_factor_ex", A._data.shape, info._data)
    return LuFactorExResult(LU, pivots, info)


def lu_factor(A: Tensor, *, pivot: bool = True) -> tuple:
    """``(LU, pivots)``: ``A = P L U`` packed into one matrix, for :func:`lu_solve`.

    L (unit lower triangular, its ones not stored) is below the diagonal of ``LU``, U on and
    above it; ``pivots`` (int32, 1-based, as LAPACK) lists the row swaps. A zero on U's
    diagonal raises (use :func:`lu_factor_ex` to get it as ``info`` instead).

    >>> import teachgrad as torch
    >>> LU, pivots = torch.linalg.lu_factor(torch.tensor([[1., 2.], [3., 4.]]))
    >>> LU
    tensor([[3.0000, 4.0000],
            [0.3333, 0.6667]])
    """
    _check_factor_input("torch.lu_factor", A, pivot)
    LU, pivots, info = LinalgLuFactorExBackward0.apply(A)
    if info._data.any():
        raise _zero_pivot_error("torch.linalg.lu_factor", A._data.shape, info._data)
    return LuFactorResult(LU, pivots)


def linalg_lu(A: Tensor, *, pivot: bool = True) -> tuple:
    """``(P, L, U)`` with ``A = P L U``: P a permutation, L unit lower, U upper triangular.

    For an m×n A with k = min(m, n), L is m×k and U is k×n. P has no gradient.

    >>> import teachgrad as torch
    >>> P, L, U = torch.linalg.lu(torch.tensor([[1., 2.], [3., 4.]]))
    >>> P
    tensor([[0., 1.],
            [1., 0.]])
    """
    _check_factor_input("linalg.lu", A, pivot)
    LU, pivots, _ = getrf(A._data)
    P = permutation_matrix(pivots, A._data.shape[-2], A._data.dtype)
    L, U = LinalgLuBackward0.apply(A, LU=LU, P=P)
    return LuResult(_make(np.ascontiguousarray(P)), L, U)  # P row-major, as PyTorch's


linalg_lu.__name__ = "lu"


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,  # noqa: N803
              unpack_pivots: bool = True) -> tuple:
    """``(P, L, U)`` from the packed result of :func:`lu_factor`.

    >>> import teachgrad as torch
    >>> P, L, U = torch.lu_unpack(*torch.linalg.lu_factor(torch.tensor([[1., 2.], [3., 4.]])))
    >>> L
    tensor([[1.0000, 0.0000],
            [0.3333, 1.0000]])
    """
    if LU_data._data.ndim < 2:
        raise RuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU_data._data.shape)} instead")
    if LU_pivots._data.dtype != np.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor")
    m, n = LU_data._data.shape[-2:]
    pivots = LU_pivots._data
    if pivots.shape[-1:] != (min(m, n),) or pivots.size and (pivots.min() < 1 or pivots.max() > m):
        raise RuntimeError(
            "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
            "properly pass the result of lu_factor?")
    batch = LU_data._data.shape[:-2]
    if not _broadcasts_to(pivots.shape[:-1], batch):
        # PyTorch reads past the pivots' memory here (garbage or an index error): refuse.
        raise RuntimeError(
            f"torch.lu_unpack: Expected the batch dimensions of LU_pivots "
            f"{list(pivots.shape[:-1])} to broadcast to those of LU_data {list(batch)}"
            "\nHint: pass the pivots lu_factor returned with this LU.")
    empty = _make(np.empty((0,), LU_data._data.dtype))
    if unpack_pivots:
        P = _make(np.broadcast_to(permutation_matrix(pivots, m, LU_data._data.dtype),
                                  batch + (m, m)).copy())
    else:
        P = empty
    if not unpack_data:
        return LuUnpackResult(P, empty, _make(np.empty((0,), LU_data._data.dtype)))
    L, U = LuUnpackBackward0.apply(LU_data)
    return LuUnpackResult(P, L, U)


def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,  # noqa: N803
                    adjoint: bool = False) -> Tensor:
    """Solve ``A X = B`` from A's LU factorization (``X A = B`` if not ``left``; Aᵀ for A
    if ``adjoint``).

    >>> import teachgrad as torch
    >>> A = torch.tensor([[1., 2.], [3., 4.]])
    >>> LU, pivots = torch.linalg.lu_factor(A)
    >>> torch.linalg.lu_solve(LU, pivots, torch.tensor([[5.], [11.]]))
    tensor([[1.],
            [2.]])
    """
    fn = "linalg.lu_solve"
    if LU._data.ndim < 2:
        raise RuntimeError("torch.linalg.lu_solve: The input tensor A must have at least 2 "
                           "dimensions.")
    dec.check_float("torch.linalg.lu_solve", LU)
    m, n = LU._data.shape[-2:]
    if m != n:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but "
                           f"they are {m} by {n} matrices")
    if B._data.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    rows = B._data.shape[-2] if left else B._data.shape[-1]
    if rows != n:
        shape_b = f"{B._data.shape[-2]}x{B._data.shape[-1]}"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {shape_b})")
    if LU._data.dtype != B._data.dtype:
        raise RuntimeError(
            f"{fn}: Expected LU and B to have the same dtype, but found LU of type "
            f"{dec._scalar_name(LU)} and B of type {dec._scalar_name(B)} instead")
    p = pivots._data
    if p.dtype != np.int32:
        raise RuntimeError(f"{fn}: pivots should be a Tensor of scalar type torch.int32")
    if p.shape[-1:] != (n,):
        raise RuntimeError(f"{fn}: Number of pivots per batch should be same as the dimension "
                           "of the matrix")
    if p.shape != LU._data.shape[:-1]:
        raise RuntimeError(f"{fn}: Expected LU.shape[:-1] and pivots.shape to be the same, but "
                           f"got pivots with shape {list(p.shape)} instead")
    if p.size and (p.min() < 1 or p.max() > n):
        raise RuntimeError("Pivots given to lu_solve must all be smaller or equal to "
                           "LU.size(-2). Did you properly pass the result of lu_factor?")
    return LinalgLuSolveBackward0.apply(LU, B, pivots=p, left=bool(left),
                                        adjoint=bool(adjoint))


linalg_lu_solve.__name__ = "lu_solve"


# ----------------------------------------------------------------------------------------
# The deprecated top-level names
# ----------------------------------------------------------------------------------------
@tensor_method()
def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple:  # noqa: N803
    """Deprecated: ``(LU, pivots)``, or ``(LU, pivots, infos)`` with ``get_infos=True``.

    Use ``torch.linalg.lu_factor`` (or ``lu_factor_ex`` for the infos). A singular matrix
    does not raise here.
    """
    warn_user(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
        "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)", UserWarning)
    _check_factor_input("torch.lu_factor", A, pivot)
    LU, pivots, info = LinalgLuFactorExBackward0.apply(A)
    if get_infos:
        return LuWithInfoResult(LU, pivots, info)
    return LU, pivots


@tensor_method()
def lu_solve(input: Tensor, LU_data: Tensor = REQUIRED, LU_pivots: Tensor = REQUIRED) -> Tensor:  # noqa: A002, N803
    """Deprecated: ``torch.linalg.lu_solve(LU_data, LU_pivots, input)`` (arguments reversed)."""
    if LU_data is REQUIRED or LU_pivots is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("lu_solve", lu_solve, input, LU_data, LU_pivots)
    warn_user(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
        "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed."
        "\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
        "torch.linalg.lu_solve(LU, pivots, B)", UserWarning)
    return linalg_lu_solve(LU_data, LU_pivots, input)
