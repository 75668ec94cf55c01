"""torch.linalg and its top-level names: decompositions, solvers, norms, products.

Gradients are checked against finite differences (gradcheck and gradgradcheck, float64),
values against matrices worked out by hand, and everything that PyTorch has against real
PyTorch (skipped without it): values, gradients, grad_fn names and error messages. Each
case is one function written against a module ``T`` (``teachgrad`` or ``torch``), so the
same code runs on both.

Decompositions are unique only up to a choice: each eigenvector or singular vector up to
its sign. Where a test compares them, it fixes the sign first (``_signed``), or compares
what does not depend on it (``U diag(S) Vh``, projectors ``V Vᵀ``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(5)


def leaf(*shape, requires_grad=True):
    return teachgrad.tensor(RNG.standard_normal(shape), requires_grad=requires_grad)


def well(n, *batch):
    """A well-conditioned square matrix: random plus n times the identity."""
    a = RNG.standard_normal(batch + (n, n)) + n * np.eye(n)
    return teachgrad.tensor(a, requires_grad=True)


def spd(n, *batch):
    """A symmetric positive-definite matrix with well separated eigenvalues."""
    q, _ = np.linalg.qr(RNG.standard_normal(batch + (n, n)))
    values = np.arange(1, n + 1) * 1.5
    a = q @ (values[..., :, None] * np.swapaxes(q, -1, -2))
    return teachgrad.tensor(a, requires_grad=True)


def sym(A):
    """Symmetrize before eigh/cholesky: those read one triangle, so a finite difference in
    the other would see no change; PyTorch's own gradchecks do the same."""
    return (A + A.mT) / 2


def _signed(T, vectors, axis=-2):
    """Columns (axis=-2) or rows (axis=-1) with their first entry made positive."""
    first = vectors[..., :1, :] if axis == -2 else vectors[..., :, :1]
    return vectors * T.sign(first)


# ----------------------------------------------------------------------------------------
# Gradients: first and second order against finite differences
# ----------------------------------------------------------------------------------------
def _eigh(A):
    L, V = teachgrad.linalg.eigh(sym(A))
    return L, _signed(teachgrad, V)


def _svd(A):
    U, S, Vh = teachgrad.linalg.svd(A, full_matrices=False)
    sign = teachgrad.sign(U[..., :1, :])
    return U * sign, S, Vh * sign.mT


LA = teachgrad.linalg
GRADIENTS = [
    ("det", LA.det, lambda: [well(3)]),
    ("det_batched", LA.det, lambda: [well(2, 2)]),
    ("slogdet", lambda A: LA.slogdet(A).logabsdet, lambda: [well(3)]),
    ("logdet", teachgrad.logdet, lambda: [spd(3)]),
    ("inv", LA.inv, lambda: [well(3)]),
    ("inv_batched", LA.inv, lambda: [well(2, 2)]),
    ("inverse", lambda A: A.inverse(), lambda: [well(2)]),
    ("solve_matrix", LA.solve, lambda: [well(3), leaf(3, 2)]),
    ("solve_vector", LA.solve, lambda: [well(3), leaf(3)]),
    ("solve_batch_of_vectors", LA.solve, lambda: [well(3, 2), leaf(2, 3)]),
    ("solve_broadcast", LA.solve, lambda: [well(2, 2), leaf(3, 1, 2, 1)]),
    ("solve_right", lambda A, B: LA.solve(A, B, left=False), lambda: [well(3), leaf(2, 3)]),
    ("solve_triangular_upper", lambda A, B: LA.solve_triangular(A, B, upper=True),
     lambda: [well(3), leaf(3, 2)]),
    ("solve_triangular_lower_right", lambda A, B: LA.solve_triangular(
        A, B, upper=False, left=False), lambda: [well(3), leaf(2, 3)]),
    ("solve_triangular_unit", lambda A, B: LA.solve_triangular(
        A, B, upper=False, unitriangular=True), lambda: [well(3), leaf(3, 2)]),
    ("cholesky", lambda A: LA.cholesky(sym(A)), lambda: [spd(3)]),
    ("cholesky_upper", lambda A: LA.cholesky(sym(A), upper=True), lambda: [spd(3)]),
    ("cholesky_ex", lambda A: LA.cholesky_ex(sym(A)).L, lambda: [spd(2, 2)]),
    ("cholesky_solve", teachgrad.cholesky_solve,
     lambda: [leaf(3, 2), teachgrad.tensor(np.linalg.cholesky(spd(3).detach().numpy()),
                                           requires_grad=True)]),
    ("cholesky_solve_upper", lambda B, U: teachgrad.cholesky_solve(B, U, upper=True),
     lambda: [leaf(3, 2), teachgrad.tensor(np.linalg.cholesky(spd(3).detach().numpy()).T,
                                           requires_grad=True)]),
    ("cholesky_inverse", teachgrad.cholesky_inverse,
     lambda: [teachgrad.tensor(np.linalg.cholesky(spd(3).detach().numpy()), requires_grad=True)]),
    ("qr_tall", lambda A: tuple(LA.qr(A)), lambda: [leaf(4, 3)]),
    ("qr_square_batched", lambda A: tuple(LA.qr(A)), lambda: [leaf(2, 3, 3)]),
    ("qr_wide", lambda A: tuple(LA.qr(A)), lambda: [leaf(2, 4)]),
    ("qr_complete_wide", lambda A: tuple(LA.qr(A, mode="complete")), lambda: [leaf(2, 3)]),
    ("qr_only_R", lambda A: LA.qr(A).R, lambda: [leaf(4, 3)]),
    ("eigh", _eigh, lambda: [spd(3)]),
    ("eigh_upper", lambda A: LA.eigh(sym(A), UPLO="U").eigenvalues, lambda: [spd(3)]),
    ("eigvalsh", lambda A: LA.eigvalsh(sym(A)), lambda: [spd(3, 2)]),
    ("svd_tall", _svd, lambda: [leaf(4, 3)]),
    ("svd_wide", _svd, lambda: [leaf(2, 4)]),
    ("svd_batched", _svd, lambda: [leaf(2, 3, 3)]),
    ("svd_full_matrices_S", lambda A: LA.svd(A).S, lambda: [leaf(3, 4)]),
    ("svdvals", LA.svdvals, lambda: [leaf(4, 3)]),
    ("svd_legacy", lambda A: teachgrad.svd(A).S, lambda: [leaf(3, 2)]),
    ("pinv_tall", LA.pinv, lambda: [leaf(4, 3)]),
    ("pinv_wide", LA.pinv, lambda: [leaf(2, 3)]),
    ("pinv_hermitian", lambda A: LA.pinv(sym(A), hermitian=True), lambda: [spd(3)]),
    ("pinverse", teachgrad.pinverse, lambda: [leaf(3, 2)]),
    ("lstsq_solution", lambda A, B: LA.lstsq(A, B).solution, lambda: [leaf(4, 2), leaf(4, 2)]),
    ("lstsq_vector", lambda A, B: LA.lstsq(A, B).solution, lambda: [leaf(4, 2), leaf(4)]),
    ("lstsq_residuals", lambda A, B: LA.lstsq(A, B, driver="gelsd").residuals,
     lambda: [leaf(4, 2), leaf(4, 2)]),
    ("matrix_exp", LA.matrix_exp, lambda: [leaf(3, 3)]),
    ("matrix_exp_batched", teachgrad.matrix_exp, lambda: [leaf(2, 2, 2)]),
    ("matrix_power_negative", lambda A: teachgrad.linalg.matrix_power(A, -2), lambda: [well(2)]),
    ("matrix_norm_fro", LA.matrix_norm, lambda: [leaf(3, 2)]),
    ("matrix_norm_nuc", lambda A: LA.matrix_norm(A, "nuc"), lambda: [leaf(3, 2)]),
    ("matrix_norm_2", lambda A: LA.matrix_norm(A, 2), lambda: [leaf(3, 2)]),
    ("matrix_norm_-2", lambda A: LA.matrix_norm(A, -2), lambda: [leaf(3, 2)]),
    ("matrix_norm_1", lambda A: LA.matrix_norm(A, 1), lambda: [leaf(3, 2)]),
    ("matrix_norm_-1", lambda A: LA.matrix_norm(A, -1), lambda: [leaf(3, 2)]),
    ("matrix_norm_inf", lambda A: LA.matrix_norm(A, math.inf, keepdim=True), lambda: [leaf(3, 2)]),
    ("matrix_norm_-inf", lambda A: LA.matrix_norm(A, -math.inf), lambda: [leaf(3, 2)]),
    ("matrix_norm_dims", lambda A: LA.matrix_norm(A, 2, dim=(0, 2), keepdim=True),
     lambda: [leaf(3, 2, 2)]),
    ("norm_matrix_ord", lambda A: LA.norm(A, "nuc"), lambda: [leaf(2, 3)]),
    ("cond", LA.cond, lambda: [well(3)]),
    ("cond_fro", lambda A: LA.cond(A, "fro"), lambda: [well(3)]),
    ("cond_1", lambda A: LA.cond(A, 1), lambda: [well(3)]),
    ("cross", LA.cross, lambda: [leaf(2, 3), leaf(2, 3)]),
    ("cross_dim", lambda a, b: teachgrad.cross(a, b, dim=0), lambda: [leaf(3, 2), leaf(3, 1)]),
    ("multi_dot", lambda a, b, c, d: LA.multi_dot([a, b, c, d]),
     lambda: [leaf(3), leaf(3, 4), leaf(4, 2), leaf(2)]),
    ("vander", LA.vander, lambda: [leaf(3)]),
    ("kron", teachgrad.kron, lambda: [leaf(2, 2), leaf(3)]),
    ("inner", teachgrad.inner, lambda: [leaf(2, 3), leaf(4, 3)]),
    ("tensordot", lambda a, b: teachgrad.tensordot(a, b, dims=([0, 2], [1, 0])),
     lambda: [leaf(2, 3, 4), leaf(4, 2, 3)]),
    ("dist_2", teachgrad.dist, lambda: [leaf(2, 3), leaf(3)]),
    ("dist_1", lambda a, b: teachgrad.dist(a, b, 1), lambda: [leaf(4), leaf(4)]),
    ("dist_3", lambda a, b: a.dist(b, 3), lambda: [leaf(4), leaf(4)]),
    ("cdist_2", teachgrad.cdist, lambda: [leaf(3, 2), leaf(4, 2)]),
    ("cdist_1", lambda a, b: teachgrad.cdist(a, b, p=1), lambda: [leaf(2, 3, 2), leaf(4, 2)]),
    ("cdist_3", lambda a, b: teachgrad.cdist(a, b, p=3), lambda: [leaf(3, 2), leaf(2, 2)]),
    ("tensorinv", lambda A: LA.tensorinv(A.reshape(2, 2, 4), ind=2), lambda: [well(4)]),
    ("tensorsolve", lambda A, B: LA.tensorsolve(A.reshape(2, 2, 2, 2), B),
     lambda: [well(4), leaf(2, 2)]),
]


@pytest.mark.parametrize("fn, make", [g[1:] for g in GRADIENTS], ids=[g[0] for g in GRADIENTS])
def test_gradient_matches_finite_differences(fn, make):
    assert gradcheck(fn, tuple(make()))


@pytest.mark.parametrize("fn, make", [g[1:] for g in GRADIENTS], ids=[g[0] for g in GRADIENTS])
def test_second_derivative_matches_finite_differences(fn, make):
    assert gradgradcheck(fn, tuple(make()))
