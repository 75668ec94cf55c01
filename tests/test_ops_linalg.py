"""Matrix products: values against NumPy, gradients against finite differences, the
grad_fn chains PyTorch builds for every rank combination, and PyTorch's errors.

The expected graphs, values, gradients and messages of the recorded cases come from real
PyTorch (fixtures/make_op_graphs.py).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

CASES = [c for c in json.loads((Path(__file__).parent / "fixtures" / "op_graphs.json")
                               .read_text()) if c["family"] == "linalg"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"].split(":")[1])
def test_matches_pytorch_recording(case, check_op_case):
    check_op_case(case)


RNG = np.random.default_rng(11)


def leaf(*shape, requires_grad=True):
    return teachgrad.tensor(RNG.standard_normal(shape), requires_grad=requires_grad)


# ----------------------------------------------------------------------------------------
# Forward values against np.matmul, for every rank combination
# ----------------------------------------------------------------------------------------
SHAPE_PAIRS = [
    ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2)),
    ((5, 3, 4), (4,)), ((4,), (5, 4, 2)), ((5, 3, 4), (4, 2)), ((3, 4), (5, 4, 2)),
    ((5, 3, 4), (5, 4, 2)), ((1, 3, 4), (5, 4, 2)), ((5, 3, 4), (1, 4, 2)),
    ((2, 1, 3, 4), (5, 4, 2)), ((2, 5, 3, 4), (4, 2)), ((6, 1, 1, 3, 4), (2, 1, 4, 2)),
    ((0, 3, 4), (4, 2)), ((3, 0), (0, 2)),
]


@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True), (False, False)],
                         ids=["both", "left", "right", "none"])
@pytest.mark.parametrize("sa, sb", SHAPE_PAIRS, ids=[f"{a}@{b}" for a, b in SHAPE_PAIRS])
def test_matmul_matches_numpy(sa, sb, grads):
    a, b = leaf(*sa, requires_grad=grads[0]), leaf(*sb, requires_grad=grads[1])
    out = a @ b
    expected = np.matmul(a.detach().numpy(), b.detach().numpy())
    assert out.shape == expected.shape and out.dtype is teachgrad.float64
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    assert out.requires_grad == any(grads)


def test_products_keep_the_operands_dtype():
    for dtype in (teachgrad.float32, teachgrad.float64, teachgrad.int64, teachgrad.int32):
        a = teachgrad.ones(2, 3, dtype=dtype)
        assert (a @ a.t()).dtype is dtype
        assert teachgrad.bmm(a.unsqueeze(0), a.t().unsqueeze(0)).dtype is dtype
        assert teachgrad.dot(a[0], a[1]).dtype is dtype


def test_the_four_products_and_outer_against_numpy():
    m, v, w = leaf(3, 4), leaf(4), leaf(4)
    np.testing.assert_allclose(teachgrad.dot(v, w).item(), v.detach().numpy() @ w.detach().numpy())
    np.testing.assert_allclose(m.mv(v).detach().numpy(), m.detach().numpy() @ v.detach().numpy())
    b1, b2 = leaf(2, 3, 4), leaf(2, 4, 5)
    np.testing.assert_allclose(b1.bmm(b2).detach().numpy(),
                               np.matmul(b1.detach().numpy(), b2.detach().numpy()))
    np.testing.assert_allclose(teachgrad.outer(v, leaf(2)).shape, (4, 2))
    x, y = teachgrad.tensor([1.0, 2.0]), teachgrad.tensor([1.0, 10.0, 100.0])
    assert teachgrad.outer(x, y).tolist() == [[1.0, 10.0, 100.0], [2.0, 20.0, 200.0]]
    assert x.ger(y).tolist() == teachgrad.outer(x, y).tolist()


def test_addmm_scales_and_broadcasts_its_input():
    bias, m1, m2 = teachgrad.tensor([1.0, 2.0], dtype=teachgrad.float64), leaf(3, 4), leaf(4, 2)
    out = teachgrad.addmm(bias, m1, m2, beta=0.5, alpha=-2)
    expected = 0.5 * np.array([1.0, 2.0]) - 2 * (m1.detach().numpy() @ m2.detach().numpy())
    np.testing.assert_allclose(out.detach().numpy(), expected)
    # beta=0 ignores the input entirely, even NaN (PyTorch's rule)
    nan_bias = teachgrad.tensor([float("nan"), 0.0], dtype=teachgrad.float64)
    assert not np.isnan(teachgrad.addmm(nan_bias, m1, m2, beta=0).detach().numpy()).any()


# ----------------------------------------------------------------------------------------
# Gradients against finite differences, first and second order
# ----------------------------------------------------------------------------------------
GRADIENTS = [
    ("dot", teachgrad.dot, [(4,), (4,)]),
    ("mv", teachgrad.mv, [(3, 4), (4,)]),
    ("mm", teachgrad.mm, [(2, 3), (3, 4)]),
    ("bmm", teachgrad.bmm, [(2, 2, 3), (2, 3, 2)]),
    ("matmul_vm", teachgrad.matmul, [(3,), (3, 2)]),
    ("matmul_fold_mm", teachgrad.matmul, [(2, 2, 3), (3, 2)]),
    ("matmul_fold_mv", teachgrad.matmul, [(2, 2, 3), (3,)]),
    ("matmul_fold_transposed", teachgrad.matmul, [(2, 3), (2, 3, 2)]),
    ("matmul_vector_batch", teachgrad.matmul, [(3,), (2, 3, 2)]),
    ("matmul_broadcast_batch", teachgrad.matmul, [(2, 1, 2, 3), (3, 3, 2)]),
    ("matmul_batch_of_one", teachgrad.matmul, [(1, 2, 3), (2, 3, 2)]),
    ("outer", teachgrad.outer, [(3,), (2,)]),
    ("addmm", lambda a, b, c: teachgrad.addmm(a, b, c, beta=0.5, alpha=2), [(2,), (2, 3), (3, 2)]),
    ("addmm_matrix_input", teachgrad.addmm, [(2, 2), (2, 3), (3, 2)]),
    ("matrix_power_3", lambda a: a.matrix_power(3), [(3, 3)]),
    ("matrix_power_5_batched", lambda a: teachgrad.matrix_power(a, 5), [(2, 2, 2)]),
]


@pytest.mark.parametrize("fn, shapes", [g[1:] for g in GRADIENTS], ids=[g[0] for g in GRADIENTS])
def test_gradient_matches_finite_differences(fn, shapes):
    assert gradcheck(fn, tuple(leaf(*s) for s in shapes))


@pytest.mark.parametrize("fn, shapes", [g[1:] for g in GRADIENTS], ids=[g[0] for g in GRADIENTS])
def test_second_derivative_matches_finite_differences(fn, shapes):
    assert gradgradcheck(fn, tuple(leaf(*s) for s in shapes))


def test_mm_gradient_by_hand():
    # C = A B, L = sum(C): dL/dA = ones @ Bᵀ (row sums of B), dL/dB = Aᵀ @ ones
    a = teachgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = teachgrad.tensor([[5.0, 6.0], [7.0, 8.0]], requires_grad=True)
    (a @ b).sum().backward()
    assert a.grad.tolist() == [[11.0, 15.0], [11.0, 15.0]]
    assert b.grad.tolist() == [[4.0, 4.0], [6.0, 6.0]]


def test_only_the_needed_gradients_are_computed():
    x = leaf(2, 3, requires_grad=False)
    w = leaf(3, 4)
    out = x @ w
    assert out.grad_fn.next_functions[0] == (None, 0)
    out.sum().backward()
    assert x.grad is None and w.grad.shape == (3, 4)


def test_gradients_are_differentiable_under_create_graph():
    a, b = leaf(2, 3), leaf(3, 2)
    (ga,) = teachgrad.autograd.grad((a @ b).pow(2).sum(), a, create_graph=True)
    assert ga.requires_grad and ga.grad_fn is not None
    (gb,) = teachgrad.autograd.grad(ga.sum(), b)
    assert gb.shape == (3, 2)


# ----------------------------------------------------------------------------------------
# Operators and argument types
# ----------------------------------------------------------------------------------------
def test_matmul_operator_method_and_function_agree():
    a, b = leaf(2, 3, 4), leaf(4, 5)
    expected = teachgrad.matmul(a, b).detach().numpy()
    np.testing.assert_array_equal((a @ b).detach().numpy(), expected)
    np.testing.assert_array_equal(a.matmul(b).detach().numpy(), expected)


def test_ndarray_operands_become_tensors_on_either_side():
    a, m = leaf(2, 3), RNG.standard_normal((3, 2))
    right = a @ m
    left = m.T @ a.t()  # ndarray @ tensor: NumPy hands the product to teachgrad
    assert isinstance(right, teachgrad.Tensor) and isinstance(left, teachgrad.Tensor)
    np.testing.assert_allclose(right.detach().numpy(), a.detach().numpy() @ m)
    assert right.grad_fn.name() == "MmBackward0"


def test_other_operands_are_refused_as_pytorch_does():
    a = teachgrad.ones(2, 2)
    with pytest.raises(TypeError, match="unsupported operand type"):
        a @ [1.0, 2.0]  # noqa: B018
    with pytest.raises(TypeError, match="unsupported operand type"):
        [1.0, 2.0] @ a  # noqa: B018
    with pytest.raises(TypeError, match=r"matmul\(\): argument 'other' \(position 2\) must be "
                                        r"Tensor, not list"):
        teachgrad.matmul(a, [1.0, 2.0])
    with pytest.raises(TypeError, match=r"mm\(\): argument 'input' \(position 1\) must be Tensor"):
        teachgrad.mm(2.0, a)


# ----------------------------------------------------------------------------------------
# Errors: PyTorch's sentence, then one hint naming the user's shapes
# ----------------------------------------------------------------------------------------
def _message(fn) -> str:
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


def test_mm_mismatch_hint_names_both_shapes():
    message = _message(lambda: teachgrad.ones(2, 3) @ teachgrad.ones(2, 3))
    sentence, hint = message.split("\nHint: ")
    assert sentence == "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"
    assert "[2, 3] and [2, 3]" in hint and "\n" not in hint


def test_folded_matmul_hint_names_the_user_shapes_not_the_folded_ones():
    message = _message(lambda: teachgrad.ones(2, 3, 4) @ teachgrad.ones(3))
    assert message.startswith("size mismatch, got input (6), mat (6x4), vec (3)\nHint: ")
    assert "[2, 3, 4] and [3]" in message and "(4)" in message


def test_batch_broadcast_hint():
    message = _message(lambda: teachgrad.ones(5, 3, 4) @ teachgrad.ones(2, 4, 5))
    assert "[5] and [2]" in message.split("\nHint: ")[1]


def test_direct_calls_get_their_own_hints():
    for fn in (lambda: teachgrad.mm(teachgrad.ones(2, 3), teachgrad.ones(2, 3)),
               lambda: teachgrad.mv(teachgrad.ones(2, 3), teachgrad.ones(2)),
               lambda: teachgrad.dot(teachgrad.ones(3), teachgrad.ones(2)),
               lambda: teachgrad.bmm(teachgrad.ones(2, 3, 4), teachgrad.ones(2, 3, 4))):
        hint = _message(fn).split("\nHint: ")[1]
        assert "shapes [" in hint


def test_matrix_power_by_hand_and_negative_powers():
    a = teachgrad.tensor([[1.0, 1.0], [0.0, 1.0]], requires_grad=True)
    assert a.matrix_power(4).tolist() == [[1.0, 4.0], [0.0, 1.0]]
    assert a.matrix_power(0).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    a.matrix_power(0).sum().backward()
    assert a.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]  # the identity does not depend on a
    # negative powers are powers of the inverse: [[1, 1], [0, 1]]⁻² = [[1, -2], [0, 1]]
    assert a.matrix_power(-2).tolist() == [[1.0, -2.0], [0.0, 1.0]]


def test_failed_product_changes_nothing():
    a, b = leaf(2, 3), leaf(2, 3)
    with pytest.raises(RuntimeError):
        a @ b  # noqa: B018
    assert a.grad is None and a._version == 0 and b._version == 0


# ----------------------------------------------------------------------------------------
# Parity with PyTorch on random data (skipped without torch)
# ----------------------------------------------------------------------------------------
PARITY_SHAPES = [(3,), (2, 3), (3, 3), (2, 3, 3), (1, 3, 3), (2, 1, 3, 3), (3, 2)]


@pytest.mark.torch
@pytest.mark.parametrize("sa, sb", list(itertools.product(PARITY_SHAPES, repeat=2)))
def test_matmul_parity_with_torch(sa, sb):
    torch = pytest.importorskip("torch")
    da, db = RNG.standard_normal(sa), RNG.standard_normal(sb)
    results = []
    for lib in (torch, teachgrad):
        a, b = lib.tensor(da, requires_grad=True), lib.tensor(db, requires_grad=True)
        try:
            out = a @ b
        except RuntimeError as e:
            results.append(str(e).split("\nHint: ")[0])
            continue
        out.backward(lib.ones(tuple(out.shape), dtype=lib.float64))
        results.append((out.detach().numpy().copy(), a.grad.numpy().copy(),
                        b.grad.numpy().copy()))
    expected, got = results
    if isinstance(expected, str):
        assert got == expected
        return
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)
