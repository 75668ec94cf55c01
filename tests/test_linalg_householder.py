"""Householder reflectors: torch.geqrf, linalg.householder_product (torch.orgqr), torch.ormqr.

Without PyTorch: a 2×2 QR worked out by hand, ``Q R = A`` and ``QᵀQ = I`` on random
matrices, ormqr against the explicit product, and gradients (first and second order)
against finite differences. With PyTorch: values, gradients, grad_fn names and errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)


def test_geqrf_of_a_2x2_by_hand():
    # x = (3, 4): β = −5, τ = (β − α)/β = 8/5, v = (1, 4/(3 + 5)) = (1, 0.5).
    # H = I − τ v vᵀ applied to (1, 2): vᵀ(1, 2) = 2, so (1, 2) − 1.6·2·(1, 0.5) = (−2.2, 0.4);
    # the last column has nothing below: τ₂ = 0.
    a, tau = teachgrad.geqrf(teachgrad.tensor([[3., 1.], [4., 2.]], dtype=teachgrad.float64))
    np.testing.assert_allclose(a.numpy(), [[-5, -2.2], [0.5, 0.4]], atol=1e-12)
    np.testing.assert_allclose(tau.numpy(), [1.6, 0.0], atol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 6), (2, 4, 2)])
def test_q_times_r_is_a(shape):
    A = teachgrad.tensor(RNG.standard_normal(shape))
    a, tau = teachgrad.geqrf(A)
    m, n = shape[-2:]
    k = min(m, n)
    Q = teachgrad.linalg.householder_product(a[..., :, :k], tau)
    R = teachgrad.triu(a[..., :k, :])
    np.testing.assert_allclose((Q @ R).numpy(), A.numpy(), atol=1e-12)
    identity = np.broadcast_to(np.eye(k), Q.shape[:-2] + (k, k))
    np.testing.assert_allclose((Q.mT @ Q).numpy(), identity, atol=1e-12)
    assert teachgrad.orgqr(a[..., :, :k], tau).allclose(Q)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr_is_the_product_with_q(left, transpose):
    A = teachgrad.tensor(RNG.standard_normal((5, 3)))
    a, tau = teachgrad.geqrf(A)
    full = teachgrad.cat([a, teachgrad.zeros(5, 2, dtype=a.dtype)], 1)
    padded_tau = teachgrad.cat([tau, teachgrad.zeros(2, dtype=tau.dtype)])
    Q = teachgrad.linalg.householder_product(full, padded_tau)  # the full 5×5 Q
    C = teachgrad.tensor(RNG.standard_normal((5, 2) if left else (2, 5)))
    op = Q.mT if transpose else Q
    expected = op @ C if left else C @ op
    np.testing.assert_allclose(teachgrad.ormqr(a, tau, C, left, transpose).numpy(),
                               expected.numpy(), atol=1e-12)


def test_gradients():
    A = teachgrad.tensor(RNG.standard_normal((2, 5, 3)), requires_grad=True)
    tau = teachgrad.tensor(RNG.uniform(0.5, 1.5, (2, 2)), requires_grad=True)
    assert gradcheck(teachgrad.linalg.householder_product, (A, tau))
    assert gradgradcheck(teachgrad.linalg.householder_product, (A, tau))
    for left in (True, False):
        for transpose in (True, False):
            a = teachgrad.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
            t = teachgrad.tensor(RNG.uniform(0.5, 1.5, 3), requires_grad=True)
            C = teachgrad.tensor(RNG.standard_normal((4, 2) if left else (2, 4)),
                                 requires_grad=True)

            def f(a, t, C, left=left, transpose=transpose):
                return teachgrad.ormqr(a, t, C, left, transpose)

            assert gradcheck(f, (a, t, C)) and gradgradcheck(f, (a, t, C))


def test_geqrf_has_no_derivative():
    A = teachgrad.tensor(RNG.standard_normal((3, 2)), requires_grad=True)
    a, tau = teachgrad.geqrf(A)
    assert type(a.grad_fn).__name__ == "GeqrfBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented."):
        a.sum().backward()


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 6), (2, 4, 2), (1, 1), (3, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_geqrf_and_householder_product_match_torch(shape, dtype):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shape).astype(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    theirs, ours = torch.geqrf(torch.tensor(a)), teachgrad.geqrf(teachgrad.tensor(a))
    for t, o in zip(theirs, ours):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=tol, atol=tol)
    if shape[-2] >= shape[-1]:
        np.testing.assert_allclose(teachgrad.linalg.householder_product(*ours).numpy(),
                                   torch.linalg.householder_product(*theirs).numpy(),
                                   rtol=tol, atol=tol)


def _grads(T, f, arrays):
    inputs = [T.tensor(a, requires_grad=True) for a in arrays]
    y = f(T, *inputs)
    w = T.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
    return [y.detach().numpy(), *[g.numpy() for g in T.autograd.grad((y * w).sum(), inputs)],
            type(y.grad_fn).__name__]


@pytest.mark.torch
@pytest.mark.parametrize("case", ["hp", "ormqr-left", "ormqr-leftT", "ormqr-right",
                                  "ormqr-rightT"])
def test_gradients_match_torch(case):
    torch = pytest.importorskip("torch")
    a, tau = RNG.standard_normal((2, 5, 3)), RNG.uniform(0.5, 1.5, (2, 3))
    if case == "hp":
        def f(T, A, t):
            return T.linalg.householder_product(A, t)
        arrays = (a, tau[..., :2])
    else:
        left, transpose = "left" in case, case.endswith("T")
        c = RNG.standard_normal((2, 5, 4) if left else (2, 4, 5))

        def f(T, A, t, C):
            return T.ormqr(A, t, C, left, transpose)
        arrays = (a, tau, c)
    for theirs, ours in zip(_grads(torch, f, arrays), _grads(teachgrad, f, arrays)):
        if isinstance(theirs, str):
            assert ours == theirs
        else:
            np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


ERROR_CASES = [
    lambda T, b, t, c: T.ormqr(b, t, c.T, left=True),
    lambda T, b, t, c: T.ormqr(b, t[:2], c),
    lambda T, b, t, c: T.ormqr(b, T.rand(4, dtype=T.float64), c),
    lambda T, b, t, c: T.ormqr(b, t, c.float()),
    lambda T, b, t, c: T.ormqr(b[0], t, c),
    lambda T, b, t, c: T.ormqr(b, t, c[0]),
    lambda T, b, t, c: T.linalg.householder_product(b, T.rand(4, dtype=T.float64)),
    lambda T, b, t, c: T.linalg.householder_product(b.T, T.rand(2, dtype=T.float64)),
    lambda T, b, t, c: T.linalg.householder_product(b, T.rand(2)),
    lambda T, b, t, c: T.linalg.householder_product(b[0], T.rand(2)),
    lambda T, b, t, c: T.linalg.householder_product(b, T.rand(2, 2, dtype=T.float64)),
    lambda T, b, t, c: T.linalg.householder_product(b.long(), T.rand(2).long()),
    lambda T, b, t, c: T.geqrf(b[0]),
    lambda T, b, t, c: T.geqrf(b.long()),
    # tau's and other's batches must equal input's (no broadcasting)
    lambda T, b, t, c: T.linalg.householder_product(b.expand(2, 4, 3), t[:2].expand(3, 2)),
    lambda T, b, t, c: T.ormqr(b.expand(2, 4, 3), t.expand(3, 3), c.expand(2, 4, 2)),
    lambda T, b, t, c: T.ormqr(b.expand(2, 4, 3), t.expand(2, 3), c.expand(3, 4, 2)),
    lambda T, b, t, c: T.ormqr(b.expand(2, 4, 3), t, c.expand(2, 4, 2)),
    lambda T, b, t, c: T.ormqr(b, t, c.expand(2, 4, 2)),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(case):
    torch = pytest.importorskip("torch")
    b, t, c = RNG.standard_normal((4, 3)), RNG.uniform(size=3), RNG.standard_normal((4, 2))
    messages = []
    for T in (torch, teachgrad):
        with pytest.raises(Exception) as caught:  # noqa: PT011 - type compared below
            ERROR_CASES[case](T, T.tensor(b), T.tensor(t), T.tensor(c))
        messages.append((caught.type.__name__, str(caught.value).split("\nHint:")[0]))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 3, 3), (3, 0), (2, 4, 3)])
def test_empty_reflector_sets_keep_the_batch(shape):
    # No reflector at all (tau of length 0) leaves Q = I, once per matrix of the batch;
    # empty matrices and empty batches work too (they raised NumPy's reshape error).
    A = teachgrad.tensor(RNG.standard_normal(shape), requires_grad=True)
    tau = teachgrad.zeros(shape[:-2] + (0,), dtype=teachgrad.float64, requires_grad=True)
    Q = teachgrad.linalg.householder_product(A, tau)
    expected = np.broadcast_to(np.eye(*shape[-2:]), shape)
    assert Q.shape == shape and np.array_equal(Q.detach().numpy(), expected)
    Q.sum().backward()
    a, tau2 = teachgrad.geqrf(A.detach())
    assert a.shape == shape and tau2.shape == shape[:-2] + (min(shape[-2:]),)
    C = teachgrad.ones(shape[:-1] + (2,), dtype=teachgrad.float64)
    assert teachgrad.ormqr(a, tau2, C).shape == C.shape


def test_the_nodes_save_what_pytorchs_save():
    # PyTorch 2.13: LinalgHouseholderProductBackward0 has _saved_input, _saved_result,
    # _saved_tau; OrmqrBackward0 _saved_input2, _saved_input3, _saved_left, _saved_result,
    # _saved_self, _saved_transpose. The result is the output itself (its grad_fn the node).
    A = teachgrad.tensor([[1., 2, 3], [4, 5, 6], [7, 8, 10], [1, 1, 2]], dtype=teachgrad.float64,
                     requires_grad=True)
    tau = teachgrad.tensor([0.5, 0.7, 1.2], dtype=teachgrad.float64, requires_grad=True)
    C = teachgrad.tensor([[1., 2], [3, 4], [5, 6], [7, 8]], dtype=teachgrad.float64,
                         requires_grad=True)
    Q = teachgrad.linalg.householder_product(A, tau)
    node = Q.grad_fn
    assert sorted(n for n in dir(node) if n.startswith("_saved")) == [
        "_saved_input", "_saved_result", "_saved_tau"]
    assert node._saved_result.tolist() == Q.tolist()
    assert type(node._saved_result.grad_fn) is type(node)
    assert node._saved_tau.tolist() == tau.tolist()
    out = teachgrad.ormqr(A, tau, C, transpose=True)
    node = out.grad_fn
    assert sorted(n for n in dir(node) if n.startswith("_saved")) == [
        "_saved_input2", "_saved_input3", "_saved_left", "_saved_result", "_saved_self",
        "_saved_transpose"]
    assert (node._saved_left, node._saved_transpose) == (True, True)
    assert node._saved_input3.tolist() == C.tolist()
    assert node._saved_result.tolist() == out.tolist()
