"""Bad input to linalg and its neighbours gets PyTorch's error, checked in PyTorch's order
(found by tests/sweep_functions_against_torch.py); out= where PyTorch takes it; and
norm_except_dim of a vector."""

import numpy as np
import pytest

import teachgrad as tg

F1 = tg.tensor([1.5, -2.0, 0.5])
I1 = tg.tensor([3, -1, 2])


@pytest.mark.filterwarnings("ignore:torch.chain_matmul is deprecated")
@pytest.mark.parametrize("call, error, message", [
    # the dtype of A first, then B's against A's, then the shapes
    (lambda: tg.linalg.solve(I1, I1), RuntimeError,
     "linalg.solve: Expected a floating point or complex tensor as input. Got Long"),
    (lambda: tg.linalg.solve(F1, I1), RuntimeError,
     "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B "
     "of type Long instead"),
    (lambda: tg.linalg.solve(F1, F1), RuntimeError,
     "linalg.solve: The input tensor A must have at least 2 dimensions."),
    # the _ex variants and eigvalsh name the function PyTorch's messages name
    (lambda: tg.linalg.solve_ex(F1, F1), RuntimeError,
     "linalg.solve: The input tensor A must have at least 2 dimensions."),
    (lambda: tg.linalg.inv_ex(F1), RuntimeError,
     "linalg.inv: The input tensor A must have at least 2 dimensions."),
    (lambda: tg.linalg.cholesky_ex(tg.ones(2, 3)), RuntimeError,
     "linalg.cholesky: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda: tg.linalg.eigvalsh(F1), RuntimeError,
     "linalg.eigh: The input tensor A must have at least 2 dimensions."),
    # no promotion: mixed float32/float64 operands are refused
    (lambda: tg.linalg.cross(tg.ones(3, 3, dtype=tg.float64), tg.ones(3, 3)), RuntimeError,
     "expected scalar type Double but found Float"),
    (lambda: tg.tensordot(tg.ones(3, 3, dtype=tg.float64), tg.ones(3, 3)), RuntimeError,
     "both inputs should have same dtype"),
    (lambda: tg.inner(tg.ones(3), tg.ones(3, dtype=tg.float64)), RuntimeError,
     "both inputs should have same dtype"),
    (lambda: tg.tensordot(F1, I1), RuntimeError,  # dims is checked before the dtypes
     "tensordot expects dims < ndim_a or ndim_b, but got dims=2"),
    (lambda: tg.chain_matmul(tg.ones(2, 2), tg.ones(2)), RuntimeError,
     "Tensor dimension is 1, expected 2 instead."),
    (lambda: tg.chain_matmul(tg.ones(2), 2), TypeError,
     "expected Tensor as element 1 in argument 0, but got int"),
    (lambda: tg.linalg.householder_product(tg.ones(2, 3), tg.ones(2, 3)), RuntimeError,
     "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
     "input.shape[-1]"),
    (lambda: tg.linalg.pinv(F1, 0.1), RuntimeError,  # rcond taken: then the 1-d input
     "linalg.pinv(Float{[3]}): expected a tensor with 2 or more dimensions of float, double, "
     "cfloat or cdouble types"),
    (lambda: tg.linalg.matrix_rank(tg.ones(3, 3, dtype=tg.int64)), RuntimeError,
     "This function doesn't handle types other than float and double"),
    (lambda: tg.take_along_dim(F1, tg.tensor([0.0])), RuntimeError,
     "gather(): Expected dtype int32/int64 for index"),
    (lambda: tg.take_along_dim(F1, tg.tensor([0.0]), dim=0), RuntimeError,
     "torch.take_along_dim(): dtype of indices should be Long but got Float"),
    (lambda: tg.einsum(F1), ValueError,
     "einsum(): must specify the equation string and at least one operand, or at least one "
     "operand and its subscripts list"),
    (lambda: tg.einsum("i"), ValueError,
     "einsum(): must specify the equation string and at least one operand, or at least one "
     "operand and its subscripts list"),
    (lambda: tg.norm_except_dim(I1), RuntimeError,
     "norm(): input dtype should be either floating point or complex. Got Long instead."),
    (lambda: tg.norm_except_dim(tg.tensor(2.0)), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
])
def test_pytorchs_error(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).split("\nHint:")[0] == message


@pytest.mark.parametrize("name, call", [
    ("solve", lambda L, A, B, out: L.linalg.solve(A, B, out=out)),
    ("solve_triangular", lambda L, A, B, out: L.linalg.solve_triangular(A, B, upper=True,
                                                                        out=out)),
    ("lu_solve", lambda L, A, B, out: L.linalg.lu_solve(*L.linalg.lu_factor(A), B, out=out)),
    ("tensorinv", lambda L, A, B, out: L.linalg.tensorinv(A, ind=1, out=out)),
    ("tensorsolve", lambda L, A, B, out: L.linalg.tensorsolve(A, B[:, 0], out=out)),
    ("matrix_power", lambda L, A, B, out: L.linalg.matrix_power(A, 3, out=out)),
    ("multi_dot", lambda L, A, B, out: L.linalg.multi_dot([A, A, B], out=out)),
    ("tensordot", lambda L, A, B, out: L.tensordot(A, B, dims=1, out=out)),
    ("quantile", lambda L, A, B, out: L.quantile(A, 0.25, dim=0, out=out)),
])
def test_out_is_written(name, call):
    rng = np.random.default_rng(0)
    a = np.triu(rng.standard_normal((3, 3))) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2))
    A, B = tg.tensor(a), tg.tensor(b)
    out = tg.empty(0, dtype=tg.float64)
    result = call(tg, A, B, out)
    assert result is out
    np.testing.assert_array_equal(out.numpy(), call(tg, A, B, None).numpy())
    expected = {"solve": np.linalg.solve(a, b), "matrix_power": a @ a @ a,
                "tensordot": a @ b, "multi_dot": a @ a @ b}.get(name)
    if expected is not None:
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_pinv_and_matrix_rank_take_pytorchs_older_tolerances():
    # pinv(A, rcond) is rtol = rcond with atol = 0; matrix_rank(A, tol) is atol = tol, rtol = 0
    a = np.diag([4.0, 0.5, 1e-3])
    A = tg.tensor(a)
    np.testing.assert_allclose(tg.linalg.pinv(A, 0.01).numpy(), np.diag([0.25, 2.0, 0.0]))
    np.testing.assert_allclose(tg.linalg.pinv(A, rcond=1e-4).numpy(), np.diag([0.25, 2.0, 1e3]))
    np.testing.assert_allclose(tg.linalg.pinv(A, 0.2, True).numpy(), np.diag([0.25, 0.0, 0.0]))
    assert tg.linalg.matrix_rank(A, 0.6).item() == 1  # absolute: only 4 is above 0.6
    assert tg.linalg.matrix_rank(A, tol=1e-4).item() == 3
    # take_along_dim without dim goes to gather, which takes int32 indices too
    assert tg.take_along_dim(F1, tg.tensor([2, 0], dtype=tg.int32)).tolist() == [0.5, 1.5]


def test_norm_except_dim_of_a_vector_is_each_elements_norm():
    v = tg.tensor([3.0, -4.0, 0.0], requires_grad=True)
    norm = tg.norm_except_dim(v, 2, 0)  # every dimension but 0: none, so |v| elementwise
    assert norm.shape == (3,)
    np.testing.assert_array_equal(norm.detach().numpy(), [3.0, 4.0, 0.0])
    norm.sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [1.0, -1.0, 0.0])  # d|x|/dx, 0 at 0
    assert float(tg.norm_except_dim(v.detach(), 2, -1)) == 5.0  # dim=-1: the whole norm
    m = tg.tensor([[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]])
    np.testing.assert_array_equal(tg.norm_except_dim(m, 2, 0).numpy(), [[3.0], [5.0]])


@pytest.mark.filterwarnings("ignore:torch.chain_matmul is deprecated")
def test_errors_as_pytorch():
    torch = pytest.importorskip("torch")
    calls = [
        lambda L: L.linalg.solve(L.tensor([1, 2]), L.tensor([1, 2])),
        lambda L: L.linalg.solve(L.tensor([1.0, 2.0]), L.tensor([1, 2])),
        lambda L: L.linalg.solve_ex(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0])),
        lambda L: L.linalg.inv_ex(L.ones(2, 3)),
        lambda L: L.linalg.eigvalsh(L.ones(2, 3)),
        lambda L: L.linalg.cross(L.ones(2, 3), L.ones(2, 3, dtype=L.float64)),
        lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2, dtype=L.float64), dims=1),
        lambda L: L.norm_except_dim(L.tensor([True, False])),
        lambda L: L.chain_matmul(L.ones(2, 2), L.ones(2)),
        lambda L: L.linalg.householder_product(L.ones(2, 3), L.ones(2, 3)),
        lambda L: L.linalg.pinv(L.ones(3), 0.1),
        lambda L: L.take_along_dim(L.ones(3), L.tensor([0.0])),
        lambda L: L.einsum(L.ones(3)),
    ]
    for call in calls:
        errors = []
        for lib in (tg, torch):
            with pytest.raises(Exception) as info:
                call(lib)
            errors.append((type(info.value).__name__, str(info.value).split("\nHint:")[0]))
        assert errors[0] == errors[1]
    v = np.array([0.5, -2.0, 3.0])
    np.testing.assert_array_equal(tg.norm_except_dim(tg.tensor(v)).numpy(),
                                  torch.norm_except_dim(torch.tensor(v)).numpy())
