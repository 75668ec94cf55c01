"""LU: linalg.lu_factor(_ex), linalg.lu, lu_unpack, linalg.lu_solve, torch.lu, torch.lu_solve.

Without PyTorch: values worked out by hand for small matrices, the identity ``A = P L U``
on random batches, solutions checked by multiplying back, and every gradient (first and
second order) against finite differences in float64. With PyTorch (``torch`` marker):
values, pivots, gradients, grad_fn names, error messages and deprecation warnings.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from torch_warnings import torch_warnings

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)
SHAPES = [(4, 4), (5, 3), (3, 5), (2, 4, 4), (2, 1, 3, 3)]


def leaf(*shape):
    return teachgrad.tensor(RNG.standard_normal(shape), requires_grad=True)


# ----------------------------------------------------------------------------------------
# Values, by hand and by identities
# ----------------------------------------------------------------------------------------
def test_lu_factor_of_a_2x2_by_hand():
    # Column 0: |3| > |1|, so rows 1 and 2 swap (pivot 2); l = 1/3; u22 = 2 - 4/3.
    LU, pivots = teachgrad.linalg.lu_factor(teachgrad.tensor([[1., 2.], [3., 4.]]))
    np.testing.assert_allclose(LU.numpy(), [[3, 4], [1 / 3, 2 / 3]], rtol=1e-6)
    assert pivots.tolist() == [2, 2] and pivots.dtype == teachgrad.int32


def test_pivots_choose_the_first_of_equal_magnitudes():
    # |−2| = |2|: LAPACK's idamax takes the first, so row 2 (1-based) is the pivot row.
    _, pivots = teachgrad.linalg.lu_factor(teachgrad.tensor([[1., 0.], [-2., 1.], [2., 3.]]))
    assert pivots.tolist() == [2, 3]


@pytest.mark.parametrize("shape", SHAPES)
def test_p_l_u_reconstruct_a(shape):
    A = teachgrad.tensor(RNG.standard_normal(shape))
    P, L, U = teachgrad.linalg.lu(A)
    m, n = shape[-2:]
    k = min(m, n)
    assert L.shape == shape[:-2] + (m, k) and U.shape == shape[:-2] + (k, n)
    np.testing.assert_allclose((P @ L @ U).numpy(), A.numpy(), atol=1e-12)
    assert np.allclose(np.triu(L.numpy(), 1), 0) and np.allclose(np.tril(U.numpy(), -1), 0)
    assert np.abs(np.tril(L.numpy(), -1)).max(initial=0) <= 1  # partial pivoting
    P2, L2, U2 = teachgrad.lu_unpack(*teachgrad.linalg.lu_factor(A))
    assert np.array_equal(P2.numpy(), P.numpy()) and np.allclose(L2.numpy(), L.numpy())


def test_lu_unpack_checks_the_number_of_pivots():
    # (PyTorch reads past the end of a short pivots tensor: whether it raises depends on
    # what memory follows, so this one is not compared with it.)
    with pytest.raises(RuntimeError, match="pivots passed to lu_unpack must be between 1"):
        teachgrad.lu_unpack(teachgrad.eye(3), teachgrad.tensor([1, 2], dtype=teachgrad.int32))


def test_singular_matrix_info_and_error():
    A = teachgrad.tensor([[1., 2.], [2., 4.]])
    LU, pivots, info = teachgrad.linalg.lu_factor_ex(A)
    assert info.item() == 2 and info.dtype == teachgrad.int32
    with pytest.raises(RuntimeError, match=r"^torch.linalg.lu_factor: U\[2,2\] is zero"):
        teachgrad.linalg.lu_factor(A)
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): U\[1,1\] is zero"):
        teachgrad.linalg.lu_factor(teachgrad.stack([teachgrad.eye(2), teachgrad.zeros(2, 2)]))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_solves(left, adjoint):
    A = teachgrad.tensor(RNG.standard_normal((2, 4, 4)))
    B = teachgrad.tensor(RNG.standard_normal((2, 4, 3) if left else (2, 3, 4)))
    X = teachgrad.linalg.lu_solve(*teachgrad.linalg.lu_factor(A), B, left=left, adjoint=adjoint)
    op = A.mT if adjoint else A
    np.testing.assert_allclose((op @ X if left else X @ op).numpy(), B.numpy(), atol=1e-10)


def test_lu_solve_broadcasts_batches():
    A = teachgrad.tensor(RNG.standard_normal((2, 3, 3)))
    B = teachgrad.tensor(RNG.standard_normal((4, 1, 3, 2)))
    X = teachgrad.linalg.lu_solve(*teachgrad.linalg.lu_factor(A), B)
    assert X.shape == (4, 2, 3, 2)
    np.testing.assert_allclose((A @ X).numpy(), np.broadcast_to(B.numpy(), X.shape), atol=1e-10)


# ----------------------------------------------------------------------------------------
# Gradients against finite differences
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
def test_gradients_of_the_factorizations(shape):
    A = leaf(*shape)
    assert gradcheck(lambda A: teachgrad.linalg.lu_factor(A).LU, (A,))
    assert gradcheck(lambda A: teachgrad.linalg.lu(A)[1:], (A,))
    assert gradcheck(lambda A: teachgrad.linalg.lu(A).U, (A,))  # ḡL is None
    assert gradcheck(lambda A: teachgrad.linalg.lu(A).L, (A,))  # ḡU is None
    assert gradcheck(lambda A: teachgrad.lu_unpack(*teachgrad.linalg.lu_factor(A))[1:], (A,))
    assert gradgradcheck(lambda A: teachgrad.linalg.lu(A)[1:], (A,))
    assert gradgradcheck(lambda A: teachgrad.linalg.lu_factor(A).LU, (A,))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_gradients_of_lu_solve(left, adjoint):
    A = teachgrad.tensor(RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3), requires_grad=True)
    B = leaf(*((2, 3, 2) if left else (2, 2, 3)))

    def through_a(A, B):
        return teachgrad.linalg.lu_solve(*teachgrad.linalg.lu_factor(A), B, left=left,
                                         adjoint=adjoint)

    pivots = teachgrad.linalg.lu_factor(A.detach()).pivots

    def through_lu(LU, B):  # LU itself the variable: the gradient goes to L and U
        return teachgrad.linalg.lu_solve(LU, pivots, B, left=left, adjoint=adjoint)

    LU = teachgrad.linalg.lu_factor(A.detach()).LU.requires_grad_()
    assert gradcheck(through_a, (A, B)) and gradgradcheck(through_a, (A, B))
    assert gradcheck(through_lu, (LU, B)) and gradgradcheck(through_lu, (LU, B))


def test_p_has_no_gradient_and_grad_fn_names():
    A = leaf(3, 3)
    P, L, U = teachgrad.linalg.lu(A)
    assert P.grad_fn is None and not P.requires_grad
    assert type(L.grad_fn).__name__ == "LinalgLuBackward0"
    LU, pivots = teachgrad.linalg.lu_factor(A)
    assert type(LU.grad_fn).__name__ == "LinalgLuFactorExBackward0"
    assert not pivots.requires_grad
    X = teachgrad.linalg.lu_solve(LU, pivots, leaf(3, 1))
    assert type(X.grad_fn).__name__ == "LinalgLuSolveBackward0"
    assert type(teachgrad.lu_unpack(LU, pivots).U.grad_fn).__name__ == "LuUnpackBackward0"


def test_deprecated_spellings_warn_and_agree():
    A = teachgrad.tensor(RNG.standard_normal((3, 3)))
    B = teachgrad.tensor(RNG.standard_normal((3, 2)))
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        LU, pivots = teachgrad.lu(A)
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        X = B.lu_solve(LU, pivots)
    np.testing.assert_allclose(X.numpy(), teachgrad.linalg.solve(A, B).numpy(), atol=1e-12)
    with pytest.warns(UserWarning):
        result = A.lu(get_infos=True)
    assert type(result).__name__ == "_lu_with_info" and result.info.item() == 0


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
def _raised(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type and text are what is compared
        return type(error).__name__, str(error).split("\nHint:")[0]
    return None


def _weights(T, outputs):
    return sum((o * T.tensor(np.cos(np.arange(o.numel())).reshape(tuple(o.shape)))).sum()
               for o in outputs)


@pytest.mark.torch
@pytest.mark.parametrize("shape", SHAPES + [(6, 6), (3, 7, 7)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_factorizations_match_torch(shape, dtype):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shape).astype(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    results = {}
    for name, T in (("torch", torch), ("tg", teachgrad)):
        A = T.tensor(a, requires_grad=True)
        LU, pivots, info = T.linalg.lu_factor_ex(A)
        P, L, U = T.linalg.lu(A)
        grad = T.autograd.grad(_weights(T, [LU]) + _weights(T, [L, U]), A)[0]
        results[name] = (LU, pivots, info, P, L, U, grad)
    for theirs, ours in zip(results["torch"], results["tg"]):
        assert str(theirs.dtype).split(".")[-1] == str(ours.dtype).split(".")[-1]
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                   rtol=tol, atol=tol * 10)
    assert np.array_equal(results["torch"][1].numpy(), results["tg"][1].numpy())


@pytest.mark.torch
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_matches_torch(left, adjoint):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((2, 4, 4))
    b = RNG.standard_normal((3, 1, 4, 2) if left else (3, 1, 2, 4))
    results = []
    for T in (torch, teachgrad):
        A, B = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        X = T.linalg.lu_solve(*T.linalg.lu_factor(A), B, left=left, adjoint=adjoint)
        results.append([X.detach().numpy(), *[g.numpy() for g in T.autograd.grad(
            _weights(T, [X]), (A, B))], type(X.grad_fn).__name__])
    for theirs, ours in zip(*results):
        if isinstance(theirs, str):
            assert theirs == ours
        else:
            np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-10)


ERROR_CASES = [
    lambda T: T.linalg.lu_factor(T.zeros(3, 3)),
    lambda T: T.linalg.lu_factor(T.zeros(2, 3, 3)),
    lambda T: T.linalg.lu_factor_ex(T.zeros(3, 3), check_errors=True),
    lambda T: T.linalg.lu_factor(T.ones(3)),
    lambda T: T.linalg.lu_factor(T.ones(3, 3, dtype=T.long)),
    lambda T: T.linalg.lu_factor(T.ones(3, 3), pivot=False),
    lambda T: T.linalg.lu(T.ones(3, 3), pivot=False),
    lambda T: T.linalg.lu(T.ones(3)),
    lambda T: T.linalg.lu(T.ones(2, 2, dtype=T.float16)),
    lambda T: T.linalg.lu_solve(T.eye(3), T.ones(3, dtype=T.int32), T.ones(3)),
    lambda T: T.linalg.lu_solve(T.eye(3), T.ones(3, dtype=T.int32), T.ones(2, 3)),
    lambda T: T.linalg.lu_solve(T.eye(3), T.ones(3, dtype=T.int64), T.ones(3, 3)),
    lambda T: T.linalg.lu_solve(T.ones(2, 3), T.ones(2, dtype=T.int32), T.ones(2, 3)),
    lambda T: T.linalg.lu_solve(T.eye(3), T.ones(2, dtype=T.int32), T.ones(3, 3)),
    lambda T: T.linalg.lu_solve(T.eye(3), T.ones(3, dtype=T.int32),
                                T.ones(3, 3, dtype=T.float64)),
    lambda T: T.linalg.lu_solve(T.eye(3), T.tensor([4, 1, 1], dtype=T.int32), T.ones(3, 3)),
    lambda T: T.linalg.lu_solve(T.eye(3).expand(2, 3, 3), T.tensor([1, 2, 3], dtype=T.int32),
                                T.ones(3, 3)),
    lambda T: T.linalg.lu_solve(T.ones(3), T.ones(3, dtype=T.int32), T.ones(3, 3)),
    lambda T: T.lu_unpack(T.eye(3), T.tensor([1, 2, 3])),
    lambda T: T.lu_unpack(T.eye(3), T.tensor([1, 2, 5], dtype=T.int32)),
    lambda T: T.lu_unpack(T.ones(3), T.ones(3, dtype=T.int32)),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(case):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _raised(lambda: ERROR_CASES[case](torch))
        assert expected is not None
        assert _raised(lambda: ERROR_CASES[case](teachgrad)) == expected


@pytest.mark.torch
def test_deprecation_warnings_match_torch():
    torch = pytest.importorskip("torch")
    theirs = torch_warnings("LU, pivots = T.lu(T.eye(2)); T.lu_solve(T.ones(2, 1), LU, pivots)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        LU, pivots = teachgrad.lu(teachgrad.eye(2))
        teachgrad.lu_solve(teachgrad.ones(2, 1), LU, pivots)
    assert [str(w.message) for w in caught] == theirs
    assert torch is not None


@pytest.mark.torch
def test_torch_lu_singular_does_not_raise_like_torch():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = teachgrad.lu(teachgrad.zeros(2, 2), get_infos=True)
        theirs = torch.lu(torch.zeros(2, 2), get_infos=True)
    assert ours.pivots.tolist() == theirs.pivots.tolist() and ours.info.item() == theirs.info.item()


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 3, 3), (2, 0), (0, 2)])
def test_empty_matrices_factor_and_solve(shape):
    # Empty matrices or batches factor to empty results (a 0×0 matrix is trivially LU).
    A = teachgrad.zeros(shape, dtype=teachgrad.float64, requires_grad=True)
    m, n = shape[-2:]
    k = min(m, n)
    LU, pivots, info = teachgrad.linalg.lu_factor_ex(A)
    assert LU.shape == shape and pivots.shape == shape[:-2] + (k,) and info.shape == shape[:-2]
    assert pivots.dtype == teachgrad.int32
    P, L, U = teachgrad.linalg.lu(A)
    assert P.shape == shape[:-2] + (m, m) and L.shape == shape[:-2] + (m, k)
    assert U.shape == shape[:-2] + (k, n)
    P2, L2, U2 = teachgrad.lu_unpack(LU, pivots)
    assert (P2.shape, L2.shape, U2.shape) == (P.shape, L.shape, U.shape)
    (L.sum() + U.sum()).backward()
    assert A.grad.shape == shape
    if m == n:
        B = teachgrad.ones(shape[:-1] + (2,), dtype=teachgrad.float64)
        assert teachgrad.linalg.lu_solve(LU, pivots, B).shape == shape[:-1] + (2,)
        assert teachgrad.linalg.lu_solve(LU, pivots, B, adjoint=True).shape == B.shape


def test_lu_unpack_pivots_must_broadcast_to_lu_batch():
    # PyTorch reads past the pivots' memory for these (garbage or an index error); the
    # pivots may broadcast (one set for the whole batch), never add batch entries.
    LU, pivots = teachgrad.linalg.lu_factor(teachgrad.tensor(RNG.standard_normal((2, 3, 3))))
    P, L, U = teachgrad.lu_unpack(LU, pivots[:1])
    assert P.shape == L.shape == U.shape == (2, 3, 3)
    for lu_data, lu_pivots in ((LU[:1], pivots), (LU, teachgrad.stack([pivots, pivots])),
                               (LU[0], pivots), (LU, pivots.expand(3, 2, 3)[:, 0][:3])):
        with pytest.raises(RuntimeError, match="Expected the batch dimensions of LU_pivots"):
            teachgrad.lu_unpack(lu_data, lu_pivots)
