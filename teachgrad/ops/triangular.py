"""The deprecated ``torch.triangular_solve(b, A)``: ``linalg.solve_triangular`` with the
arguments reversed, returning ``(solution, cloned_coefficient)``.

The second item is a copy of A (broadcast to the batch shape): old code used it. Its
gradient goes to A unchanged; the solution's gradient reaches only the triangle of A that
the solve read (without the diagonal if ``unitriangular``)::

    X = M⁻¹ b, M = T or Tᵀ (``transpose``):  ∂L/∂b = M⁻ᵀ ḡ,   ∂L/∂M = −(∂L/∂b) Xᵀ
"""

from __future__ import annotations

import numpy as np

from .._missing_arguments import REQUIRED, missing
from .._tensor import Tensor, _make, tensor_method
from .._warn import warn_user
from ..return_types import structseq
from . import decompositions as dec
from .decompositions import mT, triangle
from .op import Op
from .pointwise import _value

__all__ = ["triangular_solve"]

TriangularSolveResult = structseq("triangular_solve", ("solution", "cloned_coefficient"))


class TriangularSolveBackward0(Op):
    formula = "X = M⁻¹b (M = T or Tᵀ):  ∂L/∂b = M⁻ᵀḡ,  ∂L/∂A = the triangle of −(∂L/∂b)Xᵀ + ḡ_clone"
    materialize_grads = False

    @staticmethod
    def forward(ctx, b, A, upper, transpose, unitriangular):
        ctx.upper, ctx.transpose, ctx.unit = upper, transpose, unitriangular
        ctx.b_shape = b.shape
        T = triangle(A, upper, unitriangular)
        M, M_upper = (mT(T), not upper) if transpose else (T, upper)
        batch = dec._broadcast_batches(b.shape[:-2], A.shape[:-2])
        with np.errstate(divide="ignore", invalid="ignore"):  # a zero pivot: inf/nan, as LAPACK
            X = dec._substitute(M, b, M_upper, True)
        X = dec.column_major(X)  # both laid out column by column, as LAPACK's (and PyTorch's)
        ctx.save_for_backward(A, X)
        return X, dec.column_major(np.broadcast_to(A, batch + A.shape[-2:]))

    @staticmethod
    def backward(ctx, grad_X, grad_clone):
        A, X = ctx.saved_tensors
        need_b, need_A = ctx.needs_input_grad
        grad_b = grad_A = None
        if type(grad_X) is Tensor:  # create_graph: PyTorch's triangular_solve_backward
            grad_b = TriangularSolveBackward0.apply(
                grad_X, A, upper=ctx.upper, transpose=not ctx.transpose,
                unitriangular=ctx.unit)[0]
            if need_A:
                grad_A = -X.matmul(grad_b.mT) if ctx.transpose else -grad_b.matmul(X.mH)
                diagonal = int(ctx.unit)  # (a unit diagonal is not read)
                grad_A = grad_A.triu(diagonal) if ctx.upper else grad_A.tril(-diagonal)
        elif grad_X is not None:
            T = triangle(A, ctx.upper, ctx.unit)
            M = mT(T) if ctx.transpose else T
            grad_b = np.linalg.solve(mT(M), grad_X)
            if need_A:
                grad_M = -np.matmul(grad_b, mT(X))
                grad_T = mT(grad_M) if ctx.transpose else grad_M
                diagonal = 1 if ctx.unit else 0  # a unit diagonal is not read
                grad_A = np.triu(grad_T, diagonal) if ctx.upper else np.tril(grad_T, -diagonal)
        if grad_clone is not None and need_A:
            grad_A = grad_clone if grad_A is None else grad_A + grad_clone
        if grad_b is None and need_b:  # only the clone got a gradient: PyTorch gives b
            grad_b = np.zeros(ctx.b_shape, _value(grad_clone).dtype)  # zeros, not None
            if type(grad_clone) is Tensor:
                grad_b = _make(grad_b)
        return grad_b if need_b else None, grad_A


@tensor_method()
def triangular_solve(input: Tensor, A: Tensor = REQUIRED, upper: bool = True,  # noqa: A002, N803
                     transpose: bool = False, unitriangular: bool = False) -> tuple:
    """Deprecated: solve ``A X = b`` (``Aᵀ X = b`` if ``transpose``) for a triangular A.

    Returns ``(solution, cloned_coefficient)``, the second a copy of A. New code:
    ``torch.linalg.solve_triangular(A, b, upper=upper)``.
    """
    if A is REQUIRED:  # (x.triangular_solve(): PyTorch's words, see _missing_arguments)
        raise missing("triangular_solve", triangular_solve, input, A)
    warn_user(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand "
        "will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
        "arguments reversed and does not return a copy of one of the inputs.\nX = "
        "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
        "torch.linalg.solve_triangular(A, B).", UserWarning)
    for name, t in (("b", input), ("A", A)):
        if t._data.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {name} to have at least 2 "
                               f"dimensions, but it has {t._data.ndim} dimensions instead")
    m, n = A._data.shape[-2:]
    if m != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {m} by {n} "
                           "matrices")
    if input._data.shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for triangular_solve: each A matrix is {n} by {n} but "
            f"each b matrix is {input._data.shape[-2]} by {input._data.shape[-1]}")
    if input._data.dtype != A._data.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{dec._scalar_name(input)} and A of type {dec._scalar_name(A)} instead.")
    if A._data.dtype not in (np.float32, np.float64):
        raise NotImplementedError(
            f'"triangular_solve_cpu" not implemented for \'{dec._scalar_name(A)}\'')
    return TriangularSolveResult(*TriangularSolveBackward0.apply(
        input, A, upper=bool(upper), transpose=bool(transpose), unitriangular=bool(unitriangular)))
