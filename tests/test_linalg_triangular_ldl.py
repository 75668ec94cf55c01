"""torch.triangular_solve (deprecated) and linalg.ldl_factor(_ex) / ldl_solve.

Without PyTorch: solutions checked by multiplying back, a Bunch–Kaufman 2×2 pivot worked
out by hand, ``P L D Lᵀ Pᵀ`` rebuilt from the factor, and triangular_solve's gradients
against finite differences. With PyTorch: values, pivots, gradients, grad_fn names, errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from torch_warnings import torch_warnings

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(13)


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


# ----------------------------------------------------------------------------------------
# triangular_solve
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_triangular_solve_solves_and_clones(upper, transpose, unitriangular):
    A = teachgrad.tensor(RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4))
    b = teachgrad.tensor(RNG.standard_normal((3, 1, 4, 2)))
    with pytest.warns(UserWarning, match="torch.triangular_solve is deprecated"):
        X, clone = teachgrad.triangular_solve(b, A, upper, transpose, unitriangular)
    T = np.triu(A.numpy()) if upper else np.tril(A.numpy())
    if unitriangular:
        T = T - T * np.eye(4) + np.eye(4)  # ones on the diagonal
    M = np.swapaxes(T, -1, -2) if transpose else T
    np.testing.assert_allclose(M @ X.numpy(), np.broadcast_to(b.numpy(), X.shape), atol=1e-12)
    assert clone.shape == (3, 2, 4, 4) and np.array_equal(clone.numpy()[1, 0], A.numpy()[0])


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_triangular_solve_gradients(upper, transpose, unitriangular):
    A = teachgrad.tensor(RNG.standard_normal((4, 4)) + 4 * np.eye(4), requires_grad=True)
    b = teachgrad.tensor(RNG.standard_normal((4, 2)), requires_grad=True)

    def f(b, A):
        X, clone = teachgrad.triangular_solve(b, A, upper, transpose, unitriangular)
        return X, clone * 0.5

    assert _quiet(lambda: gradcheck(f, (b, A)) and gradgradcheck(f, (b, A)))
    X, _ = _quiet(lambda: b.triangular_solve(A, upper, transpose, unitriangular))
    assert type(X.grad_fn).__name__ == "TriangularSolveBackward0"


# ----------------------------------------------------------------------------------------
# ldl
# ----------------------------------------------------------------------------------------
def _rebuild(LD, pivots):
    """A from LAPACK's (LD, pivots): undo each step's interchange and block, last first."""
    LD, pivots = LD.numpy(), pivots.numpy()
    n = LD.shape[0]
    A = np.zeros((n, n))
    steps = []
    k = 0
    while k < n:
        size = 1 if pivots[k] > 0 else 2
        steps.append((k, size))
        k += size
    for k, size in reversed(steps):
        D = np.tril(LD[k:k + size, k:k + size])
        D = D + np.tril(D, -1).T
        L = LD[k + size:, k:k + size]
        # A[k:, k:] (permuted) = [[D, D Lᵀ], [L D, L D Lᵀ + rest]]
        rest = A[k + size:, k + size:].copy()
        block = np.zeros((n - k, n - k))
        block[:size, :size] = D
        block[size:, :size] = L @ D
        block[:size, size:] = (L @ D).T
        block[size:, size:] = L @ D @ L.T + rest
        kk = k + size - 1
        kp = abs(pivots[k]) - 1
        perm = np.arange(n - k)
        perm[[kk - k, kp - k]] = perm[[kp - k, kk - k]]
        A[k:, k:] = block[np.ix_(perm, perm)]
    return A


def test_ldl_of_a_2x2_needs_a_block():
    # A zero diagonal cannot be a 1×1 pivot: Bunch–Kaufman takes the whole 2×2 block.
    LD, pivots = teachgrad.linalg.ldl_factor(teachgrad.tensor([[0., 1.], [1., 0.]]))
    assert pivots.tolist() == [-2, -2] and pivots.dtype == teachgrad.int32
    assert LD.tolist() == [[0., 0.], [1., 0.]]


def test_ldl_of_a_positive_definite_matrix_is_cholesky_like():
    # 4 ≥ α·1: a 1×1 pivot; l = 1/4, d₂ = 3 − 1/4.
    LD, pivots = teachgrad.linalg.ldl_factor(teachgrad.tensor([[4., 1.], [1., 3.]]))
    assert pivots.tolist() == [1, 2]
    np.testing.assert_allclose(LD.numpy(), [[4, 0], [0.25, 2.75]])


@pytest.mark.parametrize("n", [1, 3, 6, 9])
def test_ldl_rebuilds_and_solves(n):
    for _ in range(10):
        a = RNG.standard_normal((n, n))
        a = a + a.T
        LD, pivots = teachgrad.linalg.ldl_factor(teachgrad.tensor(a))
        np.testing.assert_allclose(_rebuild(LD, pivots), a, atol=1e-10)
        b = RNG.standard_normal((n, 3))
        X = teachgrad.linalg.ldl_solve(LD, pivots, teachgrad.tensor(b))
        np.testing.assert_allclose(a @ X.numpy(), b, atol=1e-8)


def test_ldl_reads_the_lower_triangle_and_has_no_derivative():
    a = RNG.standard_normal((4, 4))
    A = teachgrad.tensor(np.tril(a) + 100 * np.triu(a, 1), requires_grad=True)
    LD, pivots, info = teachgrad.linalg.ldl_factor_ex(A)
    sym = np.tril(a) + np.tril(a, -1).T
    np.testing.assert_allclose(_rebuild(LD.detach(), pivots), sym, atol=1e-10)
    assert type(LD.grad_fn).__name__ == "NotImplemented" and info.item() == 0
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not"):
        LD.sum().backward()


def test_ldl_singular():
    LD, pivots, info = teachgrad.linalg.ldl_factor_ex(teachgrad.zeros(2, 2))
    assert info.item() == 1 and pivots.tolist() == [1, 2]
    with pytest.raises(RuntimeError, match="Unknown error code: 1"):
        teachgrad.linalg.ldl_factor(teachgrad.zeros(2, 2))


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
def test_ldl_matches_torch_on_random_symmetric_and_nonsymmetric_matrices():
    torch = pytest.importorskip("torch")
    for trial in range(200):
        n = int(RNG.integers(1, 9))
        a = RNG.standard_normal((n, n))
        if trial % 3 == 0:
            a = np.round(a)  # ties and zeros: the branches of the pivot choice
        if trial % 5 == 0:
            a[RNG.integers(0, n)] = 0
        theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
        ours = teachgrad.linalg.ldl_factor_ex(teachgrad.tensor(a))
        assert ours.pivots.tolist() == theirs.pivots.tolist()
        assert ours.info.item() == theirs.info.item()
        np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), atol=1e-12)
        sym = np.tril(a) + np.tril(a, -1).T
        if theirs.info.item() == 0 and np.linalg.cond(sym) < 1e8:
            b = RNG.standard_normal((2, n, 2))
            np.testing.assert_allclose(
                teachgrad.linalg.ldl_solve(ours.LD, ours.pivots, teachgrad.tensor(b)).numpy(),
                torch.linalg.ldl_solve(theirs.LD, theirs.pivots, torch.tensor(b)).numpy(),
                rtol=1e-8, atol=1e-9)


@pytest.mark.torch
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_triangular_solve_matches_torch(upper, transpose, unitriangular):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((2, 1, 3, 3)) + 3 * np.eye(3)
    b = RNG.standard_normal((4, 3, 2))
    results = []
    for T in (torch, teachgrad):
        A, B = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        X, clone = _quiet(lambda T=T, A=A, B=B: T.triangular_solve(B, A, upper, transpose,
                                                                     unitriangular))
        w1 = T.tensor(np.cos(np.arange(X.numel())).reshape(tuple(X.shape)))
        w2 = T.tensor(np.sin(np.arange(clone.numel())).reshape(tuple(clone.shape)))
        grads = T.autograd.grad((X * w1).sum() + (clone * w2).sum(), (A, B))
        results.append([X.detach().numpy(), clone.detach().numpy(),
                        *[g.numpy() for g in grads], type(X.grad_fn).__name__])
    for theirs, ours in zip(*results):
        if isinstance(theirs, np.ndarray):
            np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
        else:
            assert ours == theirs


ERROR_CASES = [
    lambda T: T.triangular_solve(T.ones(3), T.eye(3)),
    lambda T: T.triangular_solve(T.ones(3, 2), T.ones(3)),
    lambda T: T.triangular_solve(T.ones(3, 2), T.ones(2, 3)),
    lambda T: T.triangular_solve(T.ones(3, 2), T.ones(2, 2)),
    lambda T: T.triangular_solve(T.ones(3, 2), T.eye(3, dtype=T.float64)),
    lambda T: T.triangular_solve(T.ones(3, 2).long(), T.eye(3).long()),
    lambda T: T.linalg.ldl_factor(T.ones(3)),
    lambda T: T.linalg.ldl_factor(T.ones(2, 3)),
    lambda T: T.linalg.ldl_factor(T.ones(3, 3).long()),
    lambda T: T.linalg.ldl_solve(*T.linalg.ldl_factor(T.eye(3)), T.ones(2, 1)),
    lambda T: T.linalg.ldl_solve(*T.linalg.ldl_factor(T.eye(3)), T.ones(3, 1).double()),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(case):
    torch = pytest.importorskip("torch")
    messages = []
    for T in (torch, teachgrad):
        with pytest.raises(Exception) as caught:  # noqa: PT011 - the type is compared below
            _quiet(lambda T=T: ERROR_CASES[case](T))
        messages.append((caught.type.__name__, str(caught.value).split("\nHint:")[0]))
    assert messages[0] == messages[1]


@pytest.mark.torch
def test_triangular_solve_warning_matches_torch():
    torch = pytest.importorskip("torch")
    theirs = torch_warnings("T.triangular_solve(T.ones(2, 1), T.eye(2))")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        teachgrad.triangular_solve(teachgrad.ones(2, 1), teachgrad.eye(2))
    assert [str(w.message) for w in caught] == theirs
    assert torch is not None


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 3, 3)])
def test_ldl_of_empty_matrices_and_batches(shape):
    # Empty matrices factor to empty results (they raised NumPy's reshape error).
    A = teachgrad.zeros(shape, dtype=teachgrad.float64)
    LD, pivots, info = teachgrad.linalg.ldl_factor_ex(A)
    assert LD.shape == shape and pivots.shape == shape[:-1] and info.shape == shape[:-2]
    assert pivots.dtype == teachgrad.int32
    B = teachgrad.ones(shape[:-1] + (2,), dtype=teachgrad.float64)
    assert teachgrad.linalg.ldl_solve(LD, pivots, B).shape == B.shape


def test_ldl_solve_with_no_right_hand_side_columns():
    LD, pivots = teachgrad.linalg.ldl_factor(teachgrad.eye(3, dtype=teachgrad.float64))
    B = teachgrad.ones(2, 3, 0, dtype=teachgrad.float64)
    assert teachgrad.linalg.ldl_solve(LD, pivots, B).shape == (2, 3, 0)
