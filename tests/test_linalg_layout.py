"""The memory layout of LAPACK-backed results: column-major, as PyTorch's.

LAPACK writes its matrices column by column, and PyTorch hands them back that way: the
result of ``linalg.inv`` of a 3×3 matrix has strides (1, 3), is not contiguous, and its
``.mT`` is. The values are NumPy's, unchanged (only the layout is)."""

import numpy as np
import pytest

import teachgrad as tg

RNG = np.random.default_rng(0)


def spd(*batch, n=3):
    a = RNG.standard_normal(batch + (n, n))
    return tg.tensor(a @ np.swapaxes(a, -1, -2) + n * np.eye(n))


def general(*shape):
    return tg.tensor(RNG.standard_normal(shape))


def test_inverse_is_column_major_with_numpys_values():
    A = spd()
    inverse = tg.linalg.inv(A)
    assert inverse.stride() == (1, 3)
    assert not inverse.is_contiguous() and inverse.mT.is_contiguous()
    assert np.array_equal(inverse.numpy(), np.linalg.inv(A.numpy()))  # bit for bit
    assert tg.linalg.inv(spd(2)).stride() == (9, 1, 3)  # each matrix by columns, in turn
    assert tg.linalg.inv(spd(2, 2)).stride() == (18, 9, 1, 3)


@pytest.mark.parametrize("call, strides", [
    (lambda: tg.linalg.cholesky(spd()), (1, 3)),
    (lambda: tg.linalg.cholesky(spd(), upper=True), (1, 3)),
    (lambda: tg.linalg.eigh(spd(2)).eigenvectors, (9, 1, 3)),
    (lambda: tg.linalg.eigh(spd(2)).eigenvalues, (3, 1)),
    (lambda: tg.linalg.qr(general(5, 3)).Q, (1, 5)),
    (lambda: tg.linalg.qr(general(5, 3)).R, (1, 3)),
    (lambda: tg.linalg.svd(general(3, 5)).Vh, (1, 5)),
    (lambda: tg.linalg.svd(general(5, 3), full_matrices=False).U, (1, 5)),
    (lambda: tg.svd(general(5, 3)).V, (3, 1)),  # V = Vh.mH: row-major
    (lambda: tg.linalg.solve(spd(), general(3, 2)), (1, 3)),
    (lambda: tg.linalg.solve(spd(2), general(2, 3)), (1, 2)),  # vectors: a matrix's columns
    (lambda: tg.linalg.solve(spd(), general(2, 3), left=False), (3, 1)),
    (lambda: tg.linalg.solve_triangular(tg.linalg.cholesky(spd()), general(3, 2), upper=False),
     (1, 3)),
    (lambda: tg.linalg.lu_factor(general(5, 3)).LU, (1, 5)),
    (lambda: tg.linalg.lu(general(5, 3)).P, (5, 1)),  # P is built row-major
    (lambda: tg.linalg.lu_solve(*tg.linalg.lu_factor(spd()), general(3, 2)), (1, 3)),
    (lambda: tg.linalg.lu_solve(*tg.linalg.lu_factor(spd()), general(2, 3), left=False), (3, 1)),
    (lambda: tg.linalg.lstsq(general(5, 3), general(5, 2)).solution, (1, 5)),  # rows of B's
    (lambda: tg.linalg.lstsq(general(2, 3, 5), general(2, 3, 2)).solution, (10, 1, 5)),
    (lambda: tg.cholesky_solve(general(3, 2), tg.linalg.cholesky(spd())), (1, 3)),
    (lambda: tg.cholesky_inverse(tg.linalg.cholesky(spd())), (1, 3)),
    (lambda: tg.geqrf(general(5, 3)).a, (1, 5)),
    (lambda: tg.linalg.householder_product(*tg.geqrf(general(5, 3))), (1, 5)),
    (lambda: tg.linalg.ldl_factor(spd()).LD, (1, 3)),
    (lambda: tg.linalg.matrix_power(spd(), -1), (1, 3)),
    (lambda: tg.linalg.pinv(general(3, 3)), (3, 1)),  # made by matmul: row-major
    (lambda: tg.linalg.matrix_exp(general(3, 3)), (3, 1)),
])
def test_strides_by_hand(call, strides):
    assert call().stride() == strides


def test_lstsq_solution_is_a_view_of_the_rows_of_b():
    A, B = general(5, 3), general(5, 2)
    X = tg.linalg.lstsq(A, B).solution
    expected = np.linalg.lstsq(A.numpy(), B.numpy(), rcond=None)[0]
    np.testing.assert_allclose(X.numpy(), expected, atol=1e-12)
    assert X.shape == (3, 2) and X.stride() == (1, 5)


def test_gradients_flow_through_column_major_results():
    A = spd().requires_grad_()
    assert tg.autograd.gradcheck(lambda A: tg.linalg.inv(A) @ tg.linalg.qr(A).Q, (A,))
    assert tg.autograd.gradcheck(lambda A: tg.linalg.inv(A).sin(), (A.mT,))


CASES = {
    "inv": lambda L, A, B: L.linalg.inv(A),
    "inverse": lambda L, A, B: L.inverse(A),
    "inv_ex": lambda L, A, B: L.linalg.inv_ex(A),
    "cholesky": lambda L, A, B: L.linalg.cholesky(A),
    "cholesky upper": lambda L, A, B: L.linalg.cholesky(A, upper=True),
    "cholesky_ex": lambda L, A, B: L.linalg.cholesky_ex(A),
    "torch.cholesky": lambda L, A, B: L.cholesky(A),
    "eigh": lambda L, A, B: L.linalg.eigh(A),
    "solve": lambda L, A, B: L.linalg.solve(A, B),
    "solve vector": lambda L, A, B: L.linalg.solve(A, B[..., 0]),
    "solve left=False": lambda L, A, B: L.linalg.solve(A, B.mT, left=False),
    "solve_ex": lambda L, A, B: L.linalg.solve_ex(A, B),
    "svd": lambda L, A, B: L.linalg.svd(A),
    "svd of B": lambda L, A, B: L.linalg.svd(B, full_matrices=False),
    "torch.svd": lambda L, A, B: L.svd(A),
    "qr": lambda L, A, B: L.linalg.qr(A),
    "qr complete": lambda L, A, B: L.linalg.qr(B, mode="complete"),
    "torch.qr": lambda L, A, B: L.qr(B),
    "lu": lambda L, A, B: L.linalg.lu(A),
    "lu_factor": lambda L, A, B: L.linalg.lu_factor(A),
    "lu_factor_ex": lambda L, A, B: L.linalg.lu_factor_ex(A),
    "lu_unpack": lambda L, A, B: L.lu_unpack(*L.linalg.lu_factor(A)),
    "lu_solve": lambda L, A, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B),
    "lu_solve adjoint": lambda L, A, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B,
                                                          adjoint=True),
    "lu_solve left=False": lambda L, A, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B.mT,
                                                             left=False),
    "torch.lu_solve": lambda L, A, B: L.lu_solve(B, *L.linalg.lu_factor(A)),
    "lstsq": lambda L, A, B: L.linalg.lstsq(A, B),
    "lstsq wide": lambda L, A, B: L.linalg.lstsq(B.mT, A[..., :2, :]),
    "solve_triangular": lambda L, A, B: L.linalg.solve_triangular(A, B, upper=True),
    "solve_triangular left=False": lambda L, A, B: L.linalg.solve_triangular(
        A, B.mT, upper=True, left=False),
    "triangular_solve": lambda L, A, B: L.triangular_solve(B, A),
    "cholesky_solve": lambda L, A, B: L.cholesky_solve(B, L.linalg.cholesky(A)),
    "cholesky_inverse": lambda L, A, B: L.cholesky_inverse(L.linalg.cholesky(A)),
    "geqrf": lambda L, A, B: L.geqrf(B),
    "householder_product": lambda L, A, B: L.linalg.householder_product(*L.geqrf(B)),
    "orgqr": lambda L, A, B: L.orgqr(*L.geqrf(A)),
    "ormqr": lambda L, A, B: L.ormqr(*L.geqrf(A), B),
    "ormqr right": lambda L, A, B: L.ormqr(*L.geqrf(A), B.mT, left=False, transpose=True),
    "ldl_factor": lambda L, A, B: L.linalg.ldl_factor(A),
    "ldl_solve": lambda L, A, B: L.linalg.ldl_solve(*L.linalg.ldl_factor(A), B),
    "matrix_power -1": lambda L, A, B: L.linalg.matrix_power(A, -1),
    "tensorinv": lambda L, A, B: L.linalg.tensorinv(A[0] if A.dim() > 2 else A, ind=1),
    "pinv": lambda L, A, B: L.linalg.pinv(A),
    "matrix_exp": lambda L, A, B: L.linalg.matrix_exp(A),
}


def _strides(result):
    if isinstance(result, tuple):
        return [_strides(r) for r in result]
    return result.stride() if result.numel() else None


@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
@pytest.mark.filterwarnings("ignore:torch.lu_solve is deprecated")
@pytest.mark.parametrize("batch", [(), (2,)])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_strides_as_pytorch(name, batch, transposed):
    torch = pytest.importorskip("torch")
    a = spd(*batch).numpy()
    b = RNG.standard_normal(batch + (3, 2))
    results = []
    for lib in (tg, torch):
        A, B = lib.tensor(a), lib.tensor(b)
        if transposed:  # the input's own layout does not matter
            A = A.mT.contiguous().mT
        results.append(_strides(CASES[name](lib, A, B)))
    assert results[0] == results[1]


def test_a_resized_out_takes_the_results_layout():
    A = spd()
    out = tg.empty(0, dtype=tg.float64)
    result = tg.linalg.inv(A, out=out)
    assert result is out and out.stride() == (1, 3)
    assert np.array_equal(out.numpy(), np.linalg.inv(A.numpy()))
    kept = tg.empty(3, 3, dtype=tg.float64)  # the right shape: its own layout stays
    assert tg.linalg.inv(A, out=kept).stride() == (3, 1)
    Q, R = tg.linalg.qr(A, out=(tg.empty(0, dtype=tg.float64), tg.empty(0, dtype=tg.float64)))
    assert Q.stride() == R.stride() == (1, 3)
    x = tg.arange(12.0).reshape(3, 4).t()  # pointwise: the input's order, as PyTorch's
    assert tg.exp(x, out=tg.empty(0)).stride() == (1, 4)


def test_qr_gradient_with_a_zero_on_rs_diagonal_is_inf_nan_not_an_error():
    # A's second column is zero: R[1, 1] = 0 and the gradient is undefined. PyTorch's
    # triangular solve gives [[nan, inf], [nan, inf], [nan, -inf]]; NumPy's solve raised.
    A = tg.tensor([[1.0, 0.0], [1.0, 0.0], [2.0, 0.0]], requires_grad=True)
    Q, R = tg.linalg.qr(A)
    (Q.sum() + R.sum()).backward()
    assert np.isnan(A.grad.numpy()[:, 0]).all()
    assert np.array_equal(A.grad.numpy()[:, 1], [np.inf, np.inf, -np.inf])
