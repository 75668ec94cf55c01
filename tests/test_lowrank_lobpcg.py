"""torch.svd_lowrank, torch.pca_lowrank and torch.lobpcg: values against NumPy's exact
decompositions, against PyTorch after the same seed, and gradients against finite
differences (and PyTorch's)."""

import numpy as np
import pytest

import teachgrad as tg


def _low_rank(rng, m, n, rank):
    return rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))


def _spd(rng, m, batch=()):
    a = rng.standard_normal(batch + (m, m))
    return a @ np.swapaxes(a, -1, -2) + np.eye(m)


def _same_svd(ours, theirs, atol=1e-12):
    """(U, S, V) equal up to the sign of each singular pair (LAPACK drivers pick signs)."""
    U, S, V = (x.numpy() for x in ours)
    tU, tS, tV = (y.numpy() for y in theirs)
    signs = np.sign(np.sum(U * tU, axis=-2, keepdims=True))
    np.testing.assert_allclose(S, tS, atol=atol)
    np.testing.assert_allclose(U * signs, tU, atol=atol)
    np.testing.assert_allclose(V * signs, tV, atol=atol)


def _fd_gradient(f, a, eps=1e-6):
    """Central differences of the scalar f at every entry of a."""
    grad = np.zeros_like(a)
    for index in np.ndindex(a.shape):
        plus, minus = a.copy(), a.copy()
        plus[index] += eps
        minus[index] -= eps
        grad[index] = (f(plus) - f(minus)) / (2 * eps)
    return grad


# ------------------------------------------------------------------------ svd_lowrank
@pytest.mark.parametrize("shape", [(9, 5), (5, 9), (2, 8, 6)])
def test_svd_lowrank_recovers_a_low_rank_matrix(shape):
    rng = np.random.default_rng(0)
    a = np.stack([_low_rank(rng, *shape[-2:], 3) for _ in range(int(np.prod(shape[:-2])))])
    a = a.reshape(shape)
    tg.manual_seed(0)
    U, S, V = tg.svd_lowrank(tg.tensor(a), q=4)
    assert U.shape == shape[:-2] + (shape[-2], 4) and V.shape == shape[:-2] + (shape[-1], 4)
    exact = np.linalg.svd(a, compute_uv=False)[..., :4]
    np.testing.assert_allclose(S.numpy(), exact, atol=1e-10)
    np.testing.assert_allclose((U * S.unsqueeze(-2)).matmul(V.mT).numpy(), a, atol=1e-10)
    identity = np.broadcast_to(np.eye(4), S.shape[:-1] + (4, 4))
    np.testing.assert_allclose(U.mT.matmul(U).numpy(), identity, atol=1e-12)


def test_svd_lowrank_with_M_is_the_svd_of_the_difference():
    rng = np.random.default_rng(1)
    a, mean = _low_rank(rng, 7, 6, 2), rng.standard_normal((1, 6))
    tg.manual_seed(0)
    _, S, _ = tg.svd_lowrank(tg.tensor(a + mean), q=3, M=tg.tensor(mean))
    np.testing.assert_allclose(S.numpy()[:2], np.linalg.svd(a, compute_uv=False)[:2], atol=1e-10)
    assert abs(S.numpy()[2]) < 1e-10


def test_svd_lowrank_singular_values_gradient_by_finite_differences():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((6, 4))
    w = np.array([1.0, -2.0, 0.5, 3.0])

    def loss(array):  # q = n: the subspace is all of A's row space, so S is exact
        tg.manual_seed(5)
        return float((tg.svd_lowrank(tg.tensor(array), q=4)[1] * tg.tensor(w)).sum())

    A = tg.tensor(a, requires_grad=True)
    tg.manual_seed(5)
    (tg.svd_lowrank(A, q=4)[1] * tg.tensor(w)).sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), _fd_gradient(loss, a), atol=1e-6)


def test_svd_lowrank_draws_as_pytorch():
    torch = pytest.importorskip("torch")
    a = _low_rank(np.random.default_rng(3), 8, 5, 4) + 0.01
    tg.manual_seed(7)
    torch.manual_seed(7)
    ours = tg.svd_lowrank(tg.tensor(a), q=3, niter=1)
    theirs = torch.svd_lowrank(torch.tensor(a), q=3, niter=1)
    _same_svd(ours, theirs)  # the same random matrix: the same approximation
    assert [x.stride() for x in ours] == [y.stride() for y in theirs]


# ------------------------------------------------------------------------ pca_lowrank
def test_pca_lowrank_centers_the_data():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((30, 4)) * np.array([4.0, 2.0, 1.0, 0.5]) + 10.0
    tg.manual_seed(0)
    U, S, V = tg.pca_lowrank(tg.tensor(a), q=4)
    centered = a - a.mean(axis=0)
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(centered, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose(U.numpy() @ np.diag(S.numpy()) @ V.numpy().T, centered, atol=1e-9)
    tg.manual_seed(0)
    _, S_raw, _ = tg.pca_lowrank(tg.tensor(a), q=4, center=False)
    np.testing.assert_allclose(S_raw.numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-10)


def test_pca_lowrank_default_q_and_checks():
    tg.manual_seed(0)
    assert tg.pca_lowrank(tg.randn(10, 4))[1].shape == (4,)  # q = min(6, m, n)
    with pytest.raises(ValueError, match=r"^q\(=5\) must be non-negative integer and not greater "
                                         r"than min\(m, n\)=4$"):
        tg.pca_lowrank(tg.randn(10, 4), q=5)
    with pytest.raises(ValueError, match=r"^niter\(=-1\) must be non-negative integer$"):
        tg.pca_lowrank(tg.randn(10, 4), niter=-1)


def test_pca_lowrank_as_pytorch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(5).standard_normal((12, 5))
    tg.manual_seed(3)
    torch.manual_seed(3)
    ours, theirs = tg.pca_lowrank(tg.tensor(a), q=3), torch.pca_lowrank(torch.tensor(a), q=3)
    _same_svd(ours, theirs)


# ----------------------------------------------------------------------------- lobpcg
@pytest.mark.parametrize("method", [None, "basic"])
@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_eigenvalues_against_numpy(method, largest):
    a = _spd(np.random.default_rng(6), 15)
    tg.manual_seed(0)
    E, X = tg.lobpcg(tg.tensor(a), k=3, largest=largest, method=method)
    exact = np.linalg.eigvalsh(a)
    np.testing.assert_allclose(E.numpy(), exact[::-1][:3] if largest else exact[:3], rtol=1e-7)
    x = X.numpy()
    np.testing.assert_allclose(a @ x, x * E.numpy(), atol=1e-5 * np.abs(exact).max())


def test_lobpcg_generalized_and_batched():
    rng = np.random.default_rng(7)
    a, b = _spd(rng, 12), _spd(rng, 12)
    tg.manual_seed(0)
    E, X = tg.lobpcg(tg.tensor(a), k=2, B=tg.tensor(b))
    exact = np.sort(np.linalg.eigvals(np.linalg.solve(b, a)).real)[::-1][:2]
    np.testing.assert_allclose(E.numpy(), exact, rtol=1e-7)
    batch = _spd(rng, 12, (2, 3))
    E, X = tg.lobpcg(tg.tensor(batch), k=2)
    assert E.shape == (2, 3, 2) and X.shape == (2, 3, 12, 2)
    np.testing.assert_allclose(E.numpy(), np.linalg.eigvalsh(batch)[..., ::-1][..., :2], rtol=1e-7)


def test_lobpcg_checks():
    with pytest.raises(ValueError, match=r"^LOBPCG algorithm is not applicable when the number "
                                         r"of A rows \(=8\) is smaller than 3 x the number of "
                                         r"requested eigenpairs \(=3\)$"):
        tg.lobpcg(tg.eye(8), k=3)
    with pytest.raises(AssertionError, match="A must be square"):
        tg.lobpcg(tg.ones(9, 8), k=1)


def test_lobpcg_gradient_by_finite_differences():
    rng = np.random.default_rng(8)
    a = _spd(rng, 9)
    w = rng.standard_normal((9, 2))

    def loss(E, X, lib):  # each eigenvector's sign fixed by its first entry
        X = X * (X[0] / X[0].abs())
        return (E ** 2).sum() + (X * lib.tensor(w)).sum()

    def exact_loss(array):  # the same loss of NumPy's eigh, the two largest pairs
        values, vectors = np.linalg.eigh((array + array.T) / 2)
        E, X = values[::-1][:2], vectors[:, ::-1][:, :2]
        return float((E ** 2).sum() + (X * np.sign(X[0]) * w).sum())

    A = tg.tensor(a, requires_grad=True)
    tg.manual_seed(2)
    loss(*tg.lobpcg(A, k=2, tol=1e-10), tg).backward()
    np.testing.assert_allclose(A.grad.numpy(), _fd_gradient(exact_loss, a), atol=1e-5)


def test_lobpcg_as_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    a = _spd(rng, 12)
    w = rng.standard_normal((12, 3))
    results = []
    for lib in (tg, torch):
        lib.manual_seed(4)
        A = lib.tensor(a, requires_grad=True)
        E, X = lib.lobpcg(A, k=3, tol=1e-12)
        sign = (X[0] / X[0].abs()).detach()
        ((E ** 2).sum() + (X * sign * lib.tensor(w)).sum()).backward()
        results.append((E.detach().numpy(), (X * sign).detach().numpy(), A.grad.numpy(),
                        type(E.grad_fn).__name__, X.stride()))
    ours, theirs = results
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], atol=1e-9)
    np.testing.assert_allclose(ours[2], theirs[2], atol=1e-8)
    assert ours[3] == theirs[3] == "LOBPCGAutogradFunctionBackward"
    assert ours[4] == theirs[4]


def test_lobpcg_backward_with_B_is_refused_as_in_pytorch():
    rng = np.random.default_rng(10)
    A = tg.tensor(_spd(rng, 9), requires_grad=True)
    E, _ = tg.lobpcg(A, k=1, B=tg.tensor(_spd(rng, 9)))
    with pytest.raises(ValueError, match=r"^lobpcg.backward does not support backward with B != I"):
        E.sum().backward()


def test_svd_lowrank_of_an_empty_matrix_has_an_empty_gradient():
    A = tg.zeros(2, 0, requires_grad=True)
    U, S, V = tg.svd_lowrank(A)  # qr of a zero 2×6 matrix: R is singular, as in PyTorch
    assert U.shape == (2, 0) and S.shape == (0,) and V.shape == (0, 0)
    (U.sum() + S.sum() + V.sum()).backward()
    assert A.grad.shape == (2, 0)
