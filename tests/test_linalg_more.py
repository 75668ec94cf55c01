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
import warnings

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
    # (cholesky_solve and cholesky_inverse read only L's triangle, and their gradient is
    # PyTorch's formula for that triangle: checked, as PyTorch's own tests do, through
    # L.tril() / U.triu())
    ("cholesky_solve", lambda B, L: teachgrad.cholesky_solve(B, L.tril()),
     lambda: [leaf(3, 2), teachgrad.tensor(np.linalg.cholesky(spd(3).detach().numpy()),
                                           requires_grad=True)]),
    ("cholesky_solve_upper", lambda B, U: teachgrad.cholesky_solve(B, U.triu(), upper=True),
     lambda: [leaf(3, 2), teachgrad.tensor(np.linalg.cholesky(spd(3).detach().numpy()).T,
                                           requires_grad=True)]),
    ("cholesky_inverse", lambda L: teachgrad.cholesky_inverse(L.tril()),
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


# ----------------------------------------------------------------------------------------
# Values worked out by hand
# ----------------------------------------------------------------------------------------
def t(rows, **kwargs):
    return teachgrad.tensor(rows, dtype=teachgrad.float64, **kwargs)


def close(x, expected, tol=1e-12):
    np.testing.assert_allclose(np.asarray(x.tolist(), dtype=float), expected, rtol=tol, atol=tol)


def test_det_and_its_gradient_by_hand():
    # det [[a, b], [c, d]] = ad − bc, and ∂det/∂A = [[d, −c], [−b, a]] (the cofactors)
    A = t([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    d = LA.det(A)
    close(d, -2.0)
    d.backward()
    close(A.grad, [[4.0, -3.0], [-2.0, 1.0]])
    # a triangular matrix: the product of its diagonal
    close(LA.det(t([[2.0, 7.0, 1.0], [0.0, 3.0, 5.0], [0.0, 0.0, -1.0]])), -6.0)
    close(LA.det(t([[[2.0, 0.0], [0.0, 3.0]], [[0.0, 1.0], [1.0, 0.0]]])), [6.0, -1.0])


def test_det_gradient_of_a_singular_matrix_is_the_cofactor_matrix():
    # det is a polynomial: at the singular [[1, 2], [2, 4]] its gradient is still the
    # cofactor matrix [[4, −2], [−2, 1]] (PyTorch's LU formula gives 0 there)
    A = t([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
    LA.det(A).backward()
    close(A.grad, [[4.0, -2.0], [-2.0, 1.0]], 1e-9)
    zero = t([[0.0, 0.0], [0.0, 0.0]], requires_grad=True)
    LA.det(zero).backward()
    close(zero.grad, [[0.0, 0.0], [0.0, 0.0]])


def test_slogdet_logdet_by_hand():
    sign, logabsdet = LA.slogdet(t([[2.0, 0.0], [0.0, -3.0]]))
    close(sign, -1.0)
    close(logabsdet, math.log(6.0))
    assert LA.slogdet(t([[1.0, 2.0], [2.0, 4.0]])).logabsdet.item() == -math.inf
    close(teachgrad.logdet(t([[2.0, 0.0], [0.0, 3.0]])), math.log(6.0))
    assert math.isnan(teachgrad.logdet(t([[-1.0, 0.0], [0.0, 1.0]])).item())
    A = t([[2.0, 1.0], [1.0, 2.0]], requires_grad=True)
    teachgrad.logdet(A).backward()
    close(A.grad, np.linalg.inv([[2.0, 1.0], [1.0, 2.0]]).T)  # ∂log det/∂A = A⁻ᵀ


def test_inverse_solve_and_their_gradients_by_hand():
    A = t([[2.0, 0.0], [0.0, 4.0]], requires_grad=True)
    close(LA.inv(A), [[0.5, 0.0], [0.0, 0.25]])
    # ∂(A⁻¹)ᵢⱼ/∂Aₖₗ for a diagonal A: Σ of −A⁻ᵀ 1 A⁻ᵀ: −1/(aₖ aₗ)
    LA.inv(A).sum().backward()
    close(A.grad, [[-0.25, -0.125], [-0.125, -0.0625]])
    close(LA.solve(t([[2.0, 1.0], [1.0, 3.0]]), t([3.0, 5.0])), [0.8, 1.4])
    X = LA.solve(t([[1.0, 1.0], [0.0, 1.0]]), t([[3.0, 1.0], [2.0, 1.0]]), left=False)
    close(X @ t([[1.0, 1.0], [0.0, 1.0]]), [[3.0, 1.0], [2.0, 1.0]])
    close(teachgrad.linalg.matrix_power(t([[1.0, 1.0], [0.0, 1.0]]), -3), [[1.0, -3.0],
                                                                         [0.0, 1.0]])


def test_triangular_solve_reads_one_triangle():
    A = t([[2.0, 99.0], [1.0, 4.0]])  # 99 is above the diagonal: never read when lower
    close(LA.solve_triangular(A, t([[2.0], [9.0]]), upper=False), [[1.0], [2.0]])
    close(LA.solve_triangular(A, t([[2.0], [9.0]]), upper=False, unitriangular=True),
          [[2.0], [7.0]])


def test_cholesky_qr_eigh_svd_by_hand():
    close(LA.cholesky(t([[4.0, 2.0], [2.0, 2.0]])), [[2.0, 0.0], [1.0, 1.0]])
    close(LA.cholesky(t([[4.0, 2.0], [2.0, 2.0]]), upper=True), [[2.0, 1.0], [0.0, 1.0]])
    L = t([[2.0, 0.0], [1.0, 1.0]])
    close(teachgrad.cholesky_solve(t([[4.0], [2.0]]), L), [[1.0], [0.0]])
    close(teachgrad.cholesky_inverse(L), np.linalg.inv([[4.0, 2.0], [2.0, 2.0]]))
    Q, R = LA.qr(t([[3.0, 1.0], [4.0, 2.0]]))
    close(abs(R[0, 0]), 5.0)  # the length of the first column
    close(Q @ R, [[3.0, 1.0], [4.0, 2.0]])
    close(Q.mT @ Q, np.eye(2))
    values, vectors = LA.eigh(t([[2.0, 1.0], [1.0, 2.0]]))
    close(values, [1.0, 3.0])
    close(abs(vectors), np.full((2, 2), 1 / math.sqrt(2)))
    U, S, Vh = LA.svd(t([[3.0, 0.0], [0.0, -4.0]]))
    close(S, [4.0, 3.0])
    close(U @ teachgrad.diag(S) @ Vh, [[3.0, 0.0], [0.0, -4.0]])
    close(LA.svdvals(t([[1.0, 1.0], [1.0, 1.0]])), [2.0, 0.0])


def test_eigenvalue_and_singular_value_gradients_by_hand():
    # dλ = vᵀ dA v: for A = diag(1, 3), ∂λ₁/∂A = e₁e₁ᵀ
    A = t([[1.0, 0.0], [0.0, 3.0]], requires_grad=True)
    LA.eigvalsh(A)[0].backward()
    close(A.grad, [[1.0, 0.0], [0.0, 0.0]])
    # dσ = uᵀ dA v: the nuclear norm of diag(3, −4) has gradient diag(1, −1)
    B = t([[3.0, 0.0], [0.0, -4.0]], requires_grad=True)
    LA.matrix_norm(B, "nuc").backward()
    close(B.grad, [[1.0, 0.0], [0.0, -1.0]])


def test_matrix_exp_by_hand():
    close(LA.matrix_exp(t([[0.0, 1.0], [0.0, 0.0]])), [[1.0, 1.0], [0.0, 1.0]])  # I + N
    theta = 0.7  # exp of a generator of rotations is a rotation
    close(LA.matrix_exp(t([[0.0, -theta], [theta, 0.0]])),
          [[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    close(LA.matrix_exp(t([[30.0, 0.0], [0.0, -2.0]])), np.diag([math.exp(30), math.exp(-2)]),
          1e-13)


def test_norms_cond_rank_by_hand():
    A = t([[1.0, -2.0], [3.0, 4.0]])
    close(LA.matrix_norm(A), math.sqrt(30.0))
    close(LA.matrix_norm(A, 1), 6.0)  # column sums of |A|: 4, 6
    close(LA.matrix_norm(A, -1), 4.0)
    close(LA.matrix_norm(A, math.inf), 7.0)  # row sums: 3, 7
    close(LA.matrix_norm(A, -math.inf), 3.0)
    close(LA.norm(t([[3.0, 0.0], [0.0, 4.0]]), 2), 4.0)
    close(LA.norm(t([[3.0, 0.0], [0.0, 4.0]]), -2), 3.0)
    close(LA.norm(t([[3.0, 0.0], [0.0, 4.0]])), 5.0)
    close(LA.cond(t([[2.0, 0.0], [0.0, 0.5]])), 4.0)
    close(LA.cond(t([[2.0, 0.0], [0.0, 0.5]]), 1), 4.0)
    assert LA.cond(t([[1.0, 2.0], [2.0, 4.0]]), "fro").item() == math.inf
    assert LA.matrix_rank(teachgrad.ones(3, 3)).item() == 1
    assert LA.matrix_rank(teachgrad.eye(3)).dtype is teachgrad.int64
    assert LA.matrix_rank(t([[1.0, 0.0], [0.0, 1e-3]]), atol=1e-2).item() == 1


def test_pinv_and_lstsq_by_hand():
    close(LA.pinv(t([[2.0, 0.0], [0.0, 0.0]])), [[0.5, 0.0], [0.0, 0.0]])
    close(LA.pinv(t([[1.0], [1.0]])), [[0.5, 0.5]])  # (aᵀa)⁻¹aᵀ
    # fit y = c: the least-squares c is the mean, and the residual its squared deviations
    result = LA.lstsq(t([[1.0], [1.0], [1.0]]), t([[1.0], [2.0], [6.0]]), driver="gelsd")
    close(result.solution, [[3.0]])
    close(result.residuals, [14.0])
    assert result.rank.item() == 1
    default = LA.lstsq(t([[1.0], [1.0], [1.0]]), t([[1.0], [2.0], [6.0]]))
    assert default.residuals.shape == (0,) and default.singular_values.shape == (0,)
    # rank and singular values describe A: A's batch shape, even where B broadcasts it
    one = t([[[1.0, 0.0], [0.0, 0.0]]])  # batch (1,), rank 1, singular values 1 and 0
    two_rhs = teachgrad.ones(2, 2, 3, dtype=teachgrad.float64)
    assert LA.lstsq(one, two_rhs).rank.tolist() == [1]
    gelsd = LA.lstsq(one, two_rhs, driver="gelsd")
    assert gelsd.solution.shape == (2, 2, 3) and gelsd.singular_values.tolist() == [[1.0, 0.0]]


def test_products_by_hand():
    close(LA.cross(t([1.0, 0.0, 0.0]), t([0.0, 1.0, 0.0])), [0.0, 0.0, 1.0])
    close(teachgrad.kron(t([[1.0, 2.0]]), t([[1.0], [10.0]])), [[1.0, 2.0], [10.0, 20.0]])
    close(teachgrad.inner(t([[1.0, 2.0]]), t([[3.0, 4.0], [1.0, 0.0]])), [[11.0, 1.0]])
    close(teachgrad.tensordot(t([[1.0, 2.0], [3.0, 4.0]]), t([[1.0, 0.0], [0.0, 1.0]])), 5.0)
    close(LA.multi_dot([t([1.0, 2.0]), t([[1.0, 0.0], [0.0, 2.0]]), t([1.0, 1.0])]), 5.0)
    close(LA.vander(t([2.0, 3.0]), N=3), [[1.0, 2.0, 4.0], [1.0, 3.0, 9.0]])
    close(teachgrad.dist(t([1.0, 1.0]), t([4.0, 5.0])), 5.0)
    close(teachgrad.dist(t([1.0, 1.0]), t([4.0, 5.0]), math.inf), 4.0)
    close(teachgrad.cdist(t([[0.0, 0.0]]), t([[3.0, 4.0], [1.0, 1.0]]), p=1), [[7.0, 2.0]])
    A = well(4)
    close(teachgrad.tensordot(LA.tensorinv(A.reshape(2, 2, 4), ind=2), A.reshape(2, 2, 4), 2),
          np.eye(4), 1e-10)


def test_multi_dot_multiplies_in_the_cheapest_order():
    a, b, c = leaf(10, 100), leaf(100, 5), leaf(5, 50)
    # (ab)c costs 10·100·5 + 10·5·50 = 7,500; a(bc) 100·5·50 + 10·100·50 = 75,000
    out = LA.multi_dot([a, b, c])
    first = out.grad_fn.next_functions[0][0]
    assert first.name() == "MmBackward0"
    assert first.next_functions[0][0].name() == "MmBackward0"  # (ab) is computed first
    close(out, a.detach().numpy() @ b.detach().numpy() @ c.detach().numpy(), 1e-10)


def test_gradients_of_repeated_eigenvalues_are_nan_as_in_pytorch():
    # The eigenvectors of I are any orthonormal basis: a loss that uses them has no
    # derivative there. Values alone are fine.
    A = teachgrad.eye(3, dtype=teachgrad.float64, requires_grad=True)
    (g,) = teachgrad.autograd.grad(LA.eigh(A).eigenvectors.sum(), A)
    assert np.isnan(g.numpy()).all()
    (g,) = teachgrad.autograd.grad(LA.eigvalsh(A).sum(), A)
    close(g, np.eye(3))
    (g,) = teachgrad.autograd.grad(LA.svd(A).S.sum(), A)
    close(g, np.eye(3))


def test_qr_errors_when_the_gradient_is_not_defined():
    A = leaf(4, 3)
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete'"):
        LA.qr(A, mode="complete").Q.sum().backward()
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
        LA.qr(A, mode="r").R.sum().backward()
    assert LA.qr(A, mode="r").Q.shape == (0,)


def test_results_are_named_tuples():
    A = spd(2).detach()
    sign, logabsdet = LA.slogdet(A)
    assert LA.slogdet(A).sign is not None and LA.slogdet(A)[1].item() == logabsdet.item()
    assert repr(LA.slogdet(A)).startswith("teachgrad.return_types.linalg_slogdet(\nsign=")
    assert teachgrad.slogdet(A)._fields == ("sign", "logabsdet")
    assert LA.eigh(A)._fields == ("eigenvalues", "eigenvectors")
    assert LA.svd(A)._fields == ("U", "S", "Vh") and teachgrad.svd(A)._fields == ("U", "S", "V")
    assert LA.lstsq(A, A)._fields == ("solution", "residuals", "rank", "singular_values")
    assert LA.inv_ex(A)._fields == ("inverse", "info") and LA.cholesky_ex(A).info.item() == 0


def test_ex_variants_report_instead_of_raising():
    singular = t([[1.0, 2.0], [2.0, 4.0]])
    inverse, info = LA.inv_ex(singular)
    assert info.item() == 2 and info.dtype is teachgrad.int32
    L, info = LA.cholesky_ex(t([[1.0, 2.0], [2.0, 1.0]]))
    assert info.item() == 2
    with pytest.raises(LA.LinAlgError):
        LA.inv_ex(singular, check_errors=True)


def test_legacy_svd_returns_V_and_zeros_without_uv():
    A = leaf(4, 3, requires_grad=False)
    U, S, V = teachgrad.svd(A)
    close(U @ teachgrad.diag(S) @ V.mT, A.numpy(), 1e-10)
    U, S, V = A.svd(compute_uv=False)
    assert U.shape == (4, 4) and V.shape == (3, 3) and not U.numpy().any()
    assert teachgrad.svd(A, some=False).U.shape == (4, 4)


def test_deprecated_functions_warn_as_pytorch_does():
    A = spd(2).detach()
    with pytest.warns(UserWarning, match="torch.cholesky is deprecated"):
        teachgrad.cholesky(A)
    with pytest.warns(UserWarning, match="torch.qr is deprecated"):
        A.qr()
    with pytest.warns(UserWarning, match="torch.cross without specifying the dim"):
        teachgrad.cross(leaf(3, 2), leaf(3, 2))


def test_eig_is_not_available_and_says_why():
    for fn in (LA.eig, LA.eigvals):
        with pytest.raises(NotImplementedError, match="complex"):
            fn(teachgrad.eye(2))


def test_namespace_is_clean():
    public = {n for n in dir(teachgrad.linalg) if not n.startswith("_")}
    assert public == set(teachgrad.linalg.__all__)
    for leaked in ("annotations", "numpy_names", "Tensor", "np"):
        assert not hasattr(teachgrad.linalg, leaked)
    assert issubclass(LA.LinAlgError, RuntimeError)


def test_float32_stays_float32():
    A = teachgrad.tensor(spd(3).detach().numpy(), dtype=teachgrad.float32, requires_grad=True)
    outs = [LA.det(A), LA.inv(A), LA.cholesky(A), LA.eigh(A)[1], LA.svd(A)[0], LA.pinv(A),
            LA.matrix_exp(A), LA.qr(A)[0], LA.solve(A, A[0]), LA.lstsq(A, A).solution,
            LA.cond(A), LA.matrix_norm(A, "nuc")]
    for out in outs:
        assert out.dtype is teachgrad.float32
        (g,) = teachgrad.autograd.grad(out.sum(), A)
        assert g.dtype is teachgrad.float32


# ----------------------------------------------------------------------------------------
# PyTorch parity: values, gradients and grad_fn names, float32 and float64
# ----------------------------------------------------------------------------------------
def _np_well(n, *batch):
    return RNG.standard_normal(batch + (n, n)) + n * np.eye(n)


def _np_spd(n, *batch):
    q, _ = np.linalg.qr(RNG.standard_normal(batch + (n, n)))
    return q @ ((np.arange(1, n + 1) * 1.5)[:, None] * np.swapaxes(q, -1, -2))


def _np(*shape):
    return RNG.standard_normal(shape)


def _gauge_eigh(T, A, **kw):
    values, vectors = T.linalg.eigh(A, **kw)
    return values, _signed(T, vectors)


def _gauge_svd(T, A, full_matrices=False):
    U, S, Vh = T.linalg.svd(A, full_matrices=full_matrices)
    k = S.shape[-1]
    sign = T.sign(U[..., :1, :k])
    return U[..., :, :k] * sign, S, Vh[..., :k, :] * sign.mT


def _svd_product(T, A):
    U, S, Vh = T.linalg.svd(A, full_matrices=False)
    return (U * S.unsqueeze(-2)) @ Vh


PARITY = [  # name, function of (T, *inputs), inputs
    ("det", lambda T, A: T.linalg.det(A), [_np_well(3, 2)]),
    ("torch.det", lambda T, A: T.det(A), [_np_well(3)]),
    ("slogdet", lambda T, A: tuple(T.linalg.slogdet(A)), [_np(3, 3)]),
    ("logdet", lambda T, A: T.logdet(A), [_np_spd(3)]),
    ("inv", lambda T, A: T.linalg.inv(A), [_np_well(3, 2)]),
    ("inverse", lambda T, A: A.inverse(), [_np_well(3)]),
    ("solve", lambda T, A, B: T.linalg.solve(A, B), [_np_well(3, 2), _np(3, 2)]),
    ("solve_vector", lambda T, A, B: T.linalg.solve(A, B), [_np_well(3), _np(3)]),
    ("solve_batch_vector", lambda T, A, B: T.linalg.solve(A, B), [_np_well(3, 2), _np(2, 3)]),
    ("solve_left_false", lambda T, A, B: T.linalg.solve(A, B, left=False),
     [_np_well(3), _np(2, 3)]),
    ("solve_triangular", lambda T, A, B: T.linalg.solve_triangular(A, B, upper=True),
     [_np_well(3), _np(3, 2)]),
    ("solve_triangular_unit_right", lambda T, A, B: T.linalg.solve_triangular(
        A, B, upper=False, left=False, unitriangular=True), [_np_well(3), _np(2, 3)]),
    ("cholesky", lambda T, A: T.linalg.cholesky(A), [_np_spd(3, 2)]),
    ("cholesky_upper", lambda T, A: T.linalg.cholesky(A, upper=True), [_np_spd(3)]),
    ("cholesky_solve", lambda T, B, L: T.cholesky_solve(B, L), [_np(3, 2),
                                                                np.linalg.cholesky(_np_spd(3))]),
    ("cholesky_inverse", lambda T, L: T.cholesky_inverse(L, upper=True),
     [np.linalg.cholesky(_np_spd(3)).T]),
    ("qr", lambda T, A: tuple(T.linalg.qr(A)), [_np(4, 3)]),
    ("qr_wide", lambda T, A: tuple(T.linalg.qr(A)), [_np(2, 3, 5)]),
    ("eigh", _gauge_eigh, [_np_spd(3)]),
    ("eigh_U", lambda T, A: _gauge_eigh(T, A, UPLO="U"), [_np_spd(3, 2)]),
    ("eigvalsh", lambda T, A: T.linalg.eigvalsh(A), [_np_spd(4)]),
    ("svd", _gauge_svd, [_np(4, 3)]),
    ("svd_wide_batched", _gauge_svd, [_np(2, 3, 5)]),
    ("svd_full", lambda T, A: _gauge_svd(T, A, True), [_np(4, 3)]),
    ("svd_product", _svd_product, [_np(3, 4)]),
    ("svdvals", lambda T, A: T.linalg.svdvals(A), [_np(4, 3)]),
    ("torch.svd", lambda T, A: T.svd(A).S, [_np(4, 3)]),
    ("pinv", lambda T, A: T.linalg.pinv(A), [_np(4, 3)]),
    ("pinv_hermitian", lambda T, A: T.linalg.pinv(A, hermitian=True), [_np_spd(3)]),
    ("pinverse", lambda T, A: T.pinverse(A), [_np(3, 4)]),
    ("lstsq", lambda T, A, B: T.linalg.lstsq(A, B).solution, [_np(5, 3), _np(5, 2)]),
    ("lstsq_gelsd", lambda T, A, B: tuple(T.linalg.lstsq(A, B, driver="gelsd")[:2]),
     [_np(5, 3), _np(5, 2)]),
    ("lstsq_broadcast_A_rank", lambda T, A, B: tuple(T.linalg.lstsq(A, B)[0::2]),
     [_np(1, 5, 3), _np(2, 5, 2)]),
    ("matrix_exp", lambda T, A: T.linalg.matrix_exp(A), [_np(2, 3, 3)]),
    ("torch.matrix_exp", lambda T, A: T.matrix_exp(3 * A), [_np(3, 3)]),
    ("matrix_power_-3", lambda T, A: T.linalg.matrix_power(A, -3), [_np_well(3)]),
    ("matrix_power_-1", lambda T, A: T.linalg.matrix_power(A, -1), [_np_well(3)]),
    ("matrix_norm_fro", lambda T, A: T.linalg.matrix_norm(A), [_np(2, 3, 4)]),
    ("matrix_norm_nuc", lambda T, A: T.linalg.matrix_norm(A, "nuc", keepdim=True),
     [_np(2, 3, 4)]),
    ("matrix_norm_2", lambda T, A: T.linalg.matrix_norm(A, 2), [_np(3, 4)]),
    ("matrix_norm_-2_dims", lambda T, A: T.linalg.matrix_norm(A, -2, dim=(2, 0)),
     [_np(3, 2, 4)]),
    ("matrix_norm_1", lambda T, A: T.linalg.matrix_norm(A, 1), [_np(3, 4)]),
    ("matrix_norm_-inf_keepdim", lambda T, A: T.linalg.matrix_norm(A, -math.inf, keepdim=True),
     [_np(2, 3, 4)]),
    ("norm_2", lambda T, A: T.linalg.norm(A, 2), [_np(3, 4)]),
    ("norm_dim", lambda T, A: T.linalg.norm(A, 1, dim=(0, 1)), [_np(3, 4)]),
    ("norm_vector", lambda T, A: T.linalg.norm(A, 3, dim=1), [_np(3, 4)]),
    ("cond", lambda T, A: T.linalg.cond(A), [_np(2, 3, 3)]),
    ("cond_-2", lambda T, A: T.linalg.cond(A, -2), [_np(3, 3)]),
    # PyTorch's backward fails for these (its in-place masked_fill_): values only
    ("cond_inf_values", lambda T, A: T.linalg.cond(A, math.inf), [_np_well(3)]),
    ("cond_fro_values", lambda T, A: T.linalg.cond(A, "fro"), [_np_well(2, 2)]),
    ("cond_minus1_singular_values", lambda T, A: T.linalg.cond(A, -1), [np.ones((3, 3))]),
    ("cond_nuc", lambda T, A: T.linalg.cond(A, "nuc"), [_np_well(3)]),
    ("cross", lambda T, a, b: T.linalg.cross(a, b), [_np(4, 3), _np(1, 3)]),
    ("torch.cross", lambda T, a, b: T.cross(a, b, dim=0), [_np(3, 2), _np(3, 2)]),
    ("multi_dot", lambda T, a, b, c, d: T.linalg.multi_dot([a, b, c, d]),
     [_np(2, 5), _np(5, 3), _np(3, 4), _np(4)]),
    ("vander", lambda T, x: T.linalg.vander(x, N=4), [_np(2, 3)]),
    ("kron", lambda T, a, b: T.kron(a, b), [_np(2, 3), _np(2, 1, 2)]),
    ("inner", lambda T, a, b: T.inner(a, b), [_np(2, 3), _np(4, 3)]),
    ("tensordot", lambda T, a, b: T.tensordot(a, b, dims=2), [_np(2, 3, 4), _np(3, 4, 2)]),
    ("dist", lambda T, a, b: T.dist(a, b, 1.5), [_np(2, 3), _np(3)]),
    ("cdist", lambda T, a, b: T.cdist(a, b), [_np(2, 3, 4), _np(5, 4)]),
    ("cdist_inf", lambda T, a, b: T.cdist(a, b, p=math.inf), [_np(3, 4), _np(5, 4)]),
    ("tensorinv", lambda T, A: T.linalg.tensorinv(A.reshape(4, 2, 2), ind=1), [_np_well(4)]),
    ("tensorsolve", lambda T, A, B: T.linalg.tensorsolve(A.reshape(2, 2, 4), B),
     [_np_well(4), _np(2, 2)]),
]


def _outputs(x) -> tuple:
    return tuple(x) if isinstance(x, tuple) else (x,)


def _run(T, fn, arrays, dtype_name, with_grads=True):
    dtype = getattr(T, dtype_name)
    inputs = [T.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    outs = _outputs(fn(T, *inputs))
    weights = [np.random.default_rng(i).standard_normal(tuple(o.shape)) for i, o in
               enumerate(outs)]
    loss = sum((o * T.tensor(w, dtype=dtype)).sum() for o, w in zip(outs, weights)
               if o.requires_grad)
    grads = T.autograd.grad(loss, inputs, allow_unused=True) if with_grads else ()
    names = [o.grad_fn.name() if o.grad_fn is not None else None for o in outs]
    return ([o.detach().numpy() for o in outs],
            [None if g is None else g.numpy() for g in grads], names)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fn, arrays", [c[1:] for c in PARITY], ids=[c[0] for c in PARITY])
def test_matches_pytorch(fn, arrays, dtype, request):
    torch = pytest.importorskip("torch")
    with_grads = not request.node.callspec.id.split("-")[0].endswith("_values")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _run(torch, fn, arrays, dtype, with_grads)
    got = _run(teachgrad, fn, arrays, dtype, with_grads)
    tol = 1e-9 if dtype == "float64" else 2e-4
    assert got[2] == expected[2]  # the grad_fn names
    for mine, theirs in zip(got[0] + got[1], expected[0] + expected[1]):
        if theirs is None:
            assert mine is None or not mine.any()
            continue
        assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
        scale = max(1.0, float(np.abs(theirs).max(initial=0)))
        np.testing.assert_allclose(mine, theirs, rtol=tol, atol=tol * scale)


# ----------------------------------------------------------------------------------------
# Errors: PyTorch's types and sentences (teachgrad may add one "Hint:" line after them)
# ----------------------------------------------------------------------------------------
def _d(T, rows):
    return T.tensor(rows, dtype=T.float64)


_SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
_NOT_PD = [[1.0, 2.0], [2.0, 1.0]]
ERRORS = [
    ("inv_rectangular", lambda T: T.linalg.inv(T.ones(2, 3))),
    ("inv_1d", lambda T: T.linalg.inv(T.ones(3))),
    ("inv_int", lambda T: T.linalg.inv(T.eye(2, dtype=T.int64))),
    ("inv_half", lambda T: T.linalg.inv(T.eye(2, dtype=T.float16))),
    ("inv_singular", lambda T: T.linalg.inv(_d(T, _SINGULAR))),
    ("inv_singular_zeros", lambda T: T.linalg.inv(T.zeros(3, 3))),
    ("inv_singular_batch", lambda T: T.linalg.inv(T.stack([T.eye(2, dtype=T.float64),
                                                           _d(T, _SINGULAR)]))),
    ("inverse_singular", lambda T: T.inverse(_d(T, _SINGULAR))),
    ("matrix_power_singular", lambda T: T.linalg.matrix_power(_d(T, _SINGULAR), -1)),
    ("det_rectangular", lambda T: T.linalg.det(T.ones(2, 3))),
    ("torch_det_1d", lambda T: T.det(T.ones(3))),
    ("det_int", lambda T: T.linalg.det(T.eye(2, dtype=T.int64))),
    ("slogdet_rectangular", lambda T: T.linalg.slogdet(T.ones(2, 3))),
    ("logdet_rectangular", lambda T: T.logdet(T.ones(2, 3))),
    ("solve_singular", lambda T: T.linalg.solve(_d(T, _SINGULAR), T.ones(2, dtype=T.float64))),
    ("solve_singular_batch", lambda T: T.linalg.solve(
        T.stack([T.eye(2, dtype=T.float64), _d(T, _SINGULAR)]), T.ones(2, dtype=T.float64))),
    ("solve_rectangular", lambda T: T.linalg.solve(T.ones(2, 3), T.ones(2))),
    ("solve_vector_size", lambda T: T.linalg.solve(T.eye(3), T.ones(2))),
    ("solve_matrix_size", lambda T: T.linalg.solve(T.eye(3), T.ones(2, 2))),
    ("solve_right_size", lambda T: T.linalg.solve(T.eye(3), T.ones(3, 2), left=False)),
    ("solve_dtypes", lambda T: T.linalg.solve(T.eye(3, dtype=T.float64), T.ones(3))),
    ("solve_0d", lambda T: T.linalg.solve(T.eye(3), T.tensor(1.0))),
    ("solve_batches", lambda T: T.linalg.solve(T.eye(3).expand(2, 3, 3), T.ones(4, 3, 1))),
    ("solve_triangular_vector", lambda T: T.linalg.solve_triangular(T.eye(3), T.ones(3),
                                                                    upper=True)),
    ("cholesky_not_pd", lambda T: T.linalg.cholesky(_d(T, _NOT_PD))),
    ("cholesky_not_pd_batch", lambda T: T.linalg.cholesky(
        T.stack([T.eye(2, dtype=T.float64), _d(T, _NOT_PD)]))),
    ("cholesky_rectangular", lambda T: T.linalg.cholesky(T.ones(2, 3))),
    ("cholesky_ex_checked", lambda T: T.linalg.cholesky_ex(_d(T, _NOT_PD), check_errors=True)),
    ("torch_cholesky_not_pd", lambda T: T.cholesky(_d(T, _NOT_PD))),
    ("cholesky_solve_1d", lambda T: T.cholesky_solve(T.ones(3), T.eye(3))),
    ("qr_1d", lambda T: T.linalg.qr(T.ones(3))),
    ("qr_mode", lambda T: T.linalg.qr(T.ones(2, 3), mode="foo")),
    ("eigh_rectangular", lambda T: T.linalg.eigh(T.ones(2, 3))),
    ("eigh_uplo", lambda T: T.linalg.eigh(T.eye(2), UPLO="X")),
    ("svd_1d", lambda T: T.linalg.svd(T.ones(3))),
    ("svdvals_1d", lambda T: T.linalg.svdvals(T.ones(3))),
    ("pinv_1d", lambda T: T.linalg.pinv(T.ones(3))),
    ("matrix_rank_1d", lambda T: T.linalg.matrix_rank(T.ones(3))),
    ("lstsq_1d", lambda T: T.linalg.lstsq(T.ones(3), T.ones(3))),
    ("lstsq_rows", lambda T: T.linalg.lstsq(T.ones(3, 2), T.ones(4, 2))),
    ("lstsq_driver", lambda T: T.linalg.lstsq(T.ones(3, 2), T.ones(3, 2), driver="foo")),
    ("matrix_norm_1d", lambda T: T.linalg.matrix_norm(T.ones(3))),
    ("matrix_norm_ord", lambda T: T.linalg.matrix_norm(T.ones(3, 3), ord=3)),
    ("matrix_norm_ord_name", lambda T: T.linalg.matrix_norm(T.ones(3, 3), ord="foo")),
    ("matrix_norm_dim", lambda T: T.linalg.matrix_norm(T.ones(3, 3), dim=(0,))),
    ("matrix_norm_same_dims", lambda T: T.linalg.matrix_norm(T.ones(3, 3), dim=(0, 0))),
    ("norm_3d_with_ord", lambda T: T.linalg.norm(T.ones(2, 3, 3), ord=2)),
    ("norm_fro_of_vector", lambda T: T.linalg.norm(T.ones(3), ord="fro")),
    ("norm_three_dims", lambda T: T.linalg.norm(T.ones(2, 3, 3), dim=(0, 1, 2))),
    ("cond_rectangular", lambda T: T.linalg.cond(T.ones(2, 3), "fro")),
    ("cond_invalid", lambda T: T.linalg.cond(T.ones(3, 3), 3)),
    ("cross_length", lambda T: T.linalg.cross(T.ones(2), T.ones(2))),
    ("cross_dim_length", lambda T: T.linalg.cross(T.ones(3, 2), T.ones(3, 2), dim=1)),
    ("cross_broadcast", lambda T: T.linalg.cross(T.ones(3, 3), T.ones(2, 3))),
    ("torch_cross_no_size_3", lambda T: T.cross(T.ones(2, 2), T.ones(2, 2))),
    ("multi_dot_one", lambda T: T.linalg.multi_dot([T.ones(2, 2)])),
    ("multi_dot_3d_last", lambda T: T.linalg.multi_dot([T.ones(2, 2), T.ones(2, 2, 2)])),
    ("multi_dot_3d_first", lambda T: T.linalg.multi_dot([T.ones(2, 2, 2), T.ones(2, 2)])),
    ("multi_dot_middle", lambda T: T.linalg.multi_dot([T.ones(2), T.ones(2), T.ones(2)])),
    ("multi_dot_shapes", lambda T: T.linalg.multi_dot([T.ones(2, 3), T.ones(2, 2)])),
    ("matrix_exp_rectangular", lambda T: T.linalg.matrix_exp(T.ones(2, 3))),
    ("vander_N", lambda T: T.linalg.vander(T.ones(3), N=1)),
    ("inner_sizes", lambda T: T.inner(T.ones(2), T.ones(3))),
    ("tensordot_sizes", lambda T: T.tensordot(T.ones(2, 3), T.ones(2, 3), dims=1)),
    ("cdist_columns", lambda T: T.cdist(T.ones(2, 3), T.ones(2, 4))),
    ("cdist_1d", lambda T: T.cdist(T.ones(3), T.ones(3))),
    ("cdist_negative_p", lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), p=-1)),
    ("tensorinv_shape", lambda T: T.linalg.tensorinv(T.ones(2, 3), ind=1)),
    ("tensorinv_ind", lambda T: T.linalg.tensorinv(T.ones(2, 2), ind=0)),
    ("lstsq_dtypes", lambda T: T.linalg.lstsq(T.ones(3, 2, dtype=T.float64), T.ones(3, 2))),
    ("lstsq_int", lambda T: T.linalg.lstsq(T.ones(3, 2, dtype=T.int64),
                                           T.ones(3, 2, dtype=T.int64))),
    ("cholesky_solve_dtypes", lambda T: T.cholesky_solve(T.ones(3, 2, dtype=T.float64),
                                                         T.eye(3))),
    ("cholesky_inverse_1d", lambda T: T.cholesky_inverse(T.ones(3))),
    ("cross_ndim", lambda T: T.linalg.cross(T.ones(3), T.ones(2, 3))),
    ("multi_dot_dtypes", lambda T: T.linalg.multi_dot([T.ones(2, 2),
                                                       T.ones(2, 2, dtype=T.float64)])),
    ("vander_bool", lambda T: T.linalg.vander(T.tensor([True]))),
    ("solve_triangular_shapes", lambda T: T.linalg.solve_triangular(T.eye(3), T.ones(2, 2),
                                                                    upper=True)),
]


def _error(fn, T):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(T)
        except Exception as e:  # noqa: BLE001 - the test compares whatever is raised
            return e
    return None


@pytest.mark.torch
@pytest.mark.parametrize("fn", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_match_pytorch(fn):
    torch = pytest.importorskip("torch")
    theirs, mine = _error(fn, torch), _error(fn, teachgrad)
    assert theirs is not None and mine is not None
    assert str(mine).split("\nHint: ")[0] == str(theirs)
    assert isinstance(mine, RuntimeError) == isinstance(theirs, RuntimeError)
    assert isinstance(mine, LA.LinAlgError) == isinstance(theirs, torch.linalg.LinAlgError)


def test_singular_and_indefinite_matrices_raise_linalg_errors():
    with pytest.raises(LA.LinAlgError, match=r"^linalg.inv: \(Batch element 1\): The diagonal "
                       r"element 2 is zero, the inversion could not be completed"):
        LA.inv(teachgrad.stack([teachgrad.eye(2), teachgrad.tensor(_SINGULAR)]))
    with pytest.raises(RuntimeError, match="the leading minor of order 2 is not positive"):
        LA.cholesky(teachgrad.tensor(_NOT_PD))
    with pytest.raises(LA.LinAlgError, match="The solver failed because the input matrix is "
                       "singular."):
        LA.solve(teachgrad.tensor(_SINGULAR), teachgrad.ones(2))


def test_a_failed_call_changes_nothing():
    A = teachgrad.tensor(_SINGULAR, requires_grad=True)
    with pytest.raises(LA.LinAlgError):
        LA.inv(A)
    assert A.grad is None and A._version == 0 and A.grad_fn is None


# ----------------------------------------------------------------------------------------
# Edge cases and whole graphs against PyTorch
# ----------------------------------------------------------------------------------------
EDGES = [
    ("det_empty", lambda T: T.linalg.det(T.ones(2, 0, 0))),
    ("inv_empty", lambda T: T.linalg.inv(T.ones(0, 0))),
    ("slogdet_empty", lambda T: tuple(T.linalg.slogdet(T.ones(0, 0)))),
    ("svdvals_empty", lambda T: T.linalg.svdvals(T.ones(3, 0))),
    ("eigh_empty", lambda T: T.linalg.eigh(T.ones(0, 0)).eigenvalues),
    ("pinv_empty", lambda T: T.linalg.pinv(T.ones(0, 3))),
    ("matrix_exp_empty", lambda T: T.linalg.matrix_exp(T.ones(0, 0))),
    ("solve_empty_batch", lambda T: T.linalg.solve(T.ones(0, 3, 3), T.ones(0, 3))),
    ("lstsq_wide", lambda T: T.linalg.lstsq(T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
                                            T.tensor([[1.0], [2.0]])).solution),
    ("lstsq_rank_deficient", lambda T: tuple(T.linalg.lstsq(T.ones(4, 3),
                                                            T.arange(8.0).reshape(4, 2)))),
    ("pinv_atol", lambda T: T.linalg.pinv(T.tensor([[1.0, 0.0], [0.0, 1e-3]]), atol=1e-2)),
    ("pinv_rtol", lambda T: T.linalg.pinv(T.tensor([[1.0, 0.0], [0.0, 1e-3]]), rtol=1e-2)),
    ("matrix_rank_hermitian", lambda T: T.linalg.matrix_rank(
        T.tensor([[1.0, 0.0], [0.0, -1e-3]]), hermitian=True, atol=1e-4)),
    ("matrix_rank_batched_atol", lambda T: T.linalg.matrix_rank(
        T.tensor([[[1.0, 0.0], [0.0, 1e-3]]] * 2), atol=T.tensor([1e-2, 1e-4]))),
    ("solve_triangular_zero_diagonal", lambda T: T.linalg.solve_triangular(
        T.zeros(3, 3, dtype=T.float64), T.ones(3, 2, dtype=T.float64), upper=True)),
    ("inv_ex_info", lambda T: T.linalg.inv_ex(T.tensor([[1.0, 2.0], [2.0, 4.0]])).info),
    ("cross_int", lambda T: T.linalg.cross(T.tensor([1, 0, 0]), T.tensor([0, 1, 0]))),
    ("vander_int", lambda T: T.linalg.vander(T.tensor([1, 2, 3]))),
    ("dist_0", lambda T: T.dist(T.tensor([1.0, 5.0]), T.tensor([1.0, 1.0]), 0)),
    ("cdist_0", lambda T: T.cdist(T.tensor([[1.0, 5.0]]), T.tensor([[1.0, 1.0]]), 0)),
    ("logdet_singular", lambda T: T.logdet(T.tensor([[1.0, 2.0], [2.0, 4.0]]))),
    ("torch_norm_nuc", lambda T: T.norm(T.arange(18.0).reshape(2, 3, 3), p="nuc", dim=(1, 2))),
    ("cond_singular_batch", lambda T: T.linalg.cond(T.stack([T.eye(2), T.ones(2, 2)]), 1)),
    ("tensordot_outer", lambda T: T.tensordot(T.ones(2, 3), T.arange(4.0), dims=0)),
    ("inner_scalar", lambda T: T.inner(T.tensor(2.0), T.ones(3))),
    ("diagonal", lambda T: T.linalg.diagonal(T.arange(8.0).reshape(2, 2, 2), offset=1)),
    ("vecdot", lambda T: T.linalg.vecdot(T.arange(6.0).reshape(2, 3), T.ones(3))),
]


@pytest.mark.torch
@pytest.mark.parametrize("fn", [e[1] for e in EDGES], ids=[e[0] for e in EDGES])
def test_edge_cases_match_pytorch(fn):
    torch = pytest.importorskip("torch")
    theirs, mine = _outputs(fn(torch)), _outputs(fn(teachgrad))
    for a, b in zip(mine, theirs):
        assert a.shape == tuple(b.shape) and str(a.dtype)[10:] == str(b.dtype)[6:]
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)


def _graph(out) -> list:
    """The names of a grad_fn and everything below it, depth first."""
    names, stack = [], [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None:
            names.append(None)
            continue
        names.append(node.name().split("::")[-1])
        stack.extend(fn for fn, _ in reversed(node.next_functions))
    return names


GRAPHS = [
    ("logdet", lambda T, A: T.logdet(A @ A.mT)),
    ("matrix_norm_2", lambda T, A: T.linalg.matrix_norm(A, 2)),
    ("matrix_norm_inf", lambda T, A: T.linalg.matrix_norm(A, math.inf)),
    ("cond", lambda T, A: T.linalg.cond(A)),
    ("cond_nuc", lambda T, A: T.linalg.cond(A, "nuc")),
    ("torch_svd_V", lambda T, A: T.svd(A).V),
    ("multi_dot", lambda T, A: T.linalg.multi_dot([A[0], A, A, A[:, 0]])),
    ("kron", lambda T, A: T.kron(A, A[0])),
    ("inner", lambda T, A: T.inner(A, A)),
    ("tensordot", lambda T, A: T.tensordot(A, A, dims=([0], [1]))),
    ("vander", lambda T, A: T.linalg.vander(A[0])),
    ("cholesky_solve", lambda T, A: T.cholesky_solve(A, T.linalg.cholesky(A @ A.mT + T.eye(3)))),
    ("solve_triangular", lambda T, A: T.linalg.solve_triangular(A.triu(), A, upper=True)),
    ("eigvalsh", lambda T, A: T.linalg.eigvalsh(A @ A.mT)),
    ("pinv", lambda T, A: T.pinverse(A)),
    ("tensorinv", lambda T, A: T.linalg.tensorinv(A.reshape(3, 3), ind=1)),
]


@pytest.mark.torch
@pytest.mark.parametrize("fn", [g[1] for g in GRAPHS], ids=[g[0] for g in GRAPHS])
def test_graphs_match_pytorch(fn):
    torch = pytest.importorskip("torch")
    a = _np_well(3)
    mine = fn(teachgrad, teachgrad.tensor(a, requires_grad=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = fn(torch, torch.tensor(a, requires_grad=True))
    assert _graph(mine) == _graph(theirs)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_tensor_methods_are_the_functions():
    A = spd(3).detach()
    B = leaf(3, 3, requires_grad=False)
    pairs = [
        (A.det(), LA.det(A)), (A.logdet(), teachgrad.logdet(A)), (A.inverse(), LA.inv(A)),
        (A.slogdet()[1], LA.slogdet(A)[1]), (A.pinverse(), LA.pinv(A, rtol=1e-15)),
        (A.matrix_exp(), LA.matrix_exp(A)), (A.svd()[1], LA.svdvals(A)),
        (A.cholesky(), LA.cholesky(A)), (A.qr()[1], LA.qr(A)[1]),
        (A.cross(B, dim=0), LA.cross(A, B, dim=0)), (A.kron(B), teachgrad.kron(A, B)),
        (A.inner(B), teachgrad.inner(A, B)), (A.dist(B), teachgrad.dist(A, B)),
        (B.cholesky_solve(LA.cholesky(A)), LA.solve(A, B)),
        (LA.cholesky(A).cholesky_inverse(), LA.inv(A)),
    ]
    for method, function in pairs:
        np.testing.assert_allclose(method.numpy(), function.numpy(), rtol=1e-10, atol=1e-10)


def test_numpy_spellings_work_where_there_is_a_dim():
    x = teachgrad.tensor([[3.0, 4.0], [6.0, 8.0]])
    assert LA.norm(x, axis=1, keepdims=True).tolist() == [[5.0], [10.0]]
    assert LA.matrix_norm(x, keepdims=True).shape == (1, 1)
