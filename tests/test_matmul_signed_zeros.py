"""The sign of an exact zero out of mm/matmul: PyTorch's gemm writes a single-term product
(inner size 1) as it is, so ``-0.0 * 1.0`` stays -0.0; NumPy added it to +0.0. A
reciprocal shows the difference (-inf against inf). Signs worked out by hand."""

from __future__ import annotations

import math

import pytest

import teachgrad


def _signs(t) -> list:
    return [math.copysign(1.0, v) for v in t.flatten().tolist()]


CASES = [
    # (2, 1) @ (1, 2): row 0 is -0 · [1, 2] = [-0, -0]; row 1 is 2 · [1, 2] = [2, 4]
    ("L.mm(L.tensor([[-0.0], [2.0]]), L.tensor([[1.0, 2.0]]))", [-1.0, -1.0, 1.0, 1.0]),
    # 0 · (-1) = -0 too
    ("L.mm(L.zeros(3, 1), -L.ones(1, 2))", [-1.0] * 6),
    # matmul of a batch folds it into one mm: (2·2, 1) @ (1, 3)
    ("L.matmul(-L.zeros(2, 2, 1), L.ones(1, 3))", [-1.0] * 12),
    ("L.tensor([[-0.0], [-0.0]]) @ L.tensor([[5.0, 6.0]], dtype=L.float32)", [-1.0] * 4),
    # one row or one column: PyTorch's gemv sums from +0 (as NumPy): +0
    ("L.mm(L.tensor([[-0.0]]), L.tensor([[1.0, 2.0]]))", [1.0, 1.0]),
    ("L.mm(L.tensor([[-0.0], [-0.0]]), L.tensor([[1.0]]))", [1.0, 1.0]),
    # two terms: both sum them from +0, so +0
    ("L.mm(-L.zeros(2, 2), L.ones(2, 2))", [1.0] * 4),
    # bmm: +0 in PyTorch (its own kernel for small batches)
    ("L.bmm(-L.zeros(2, 2, 1), L.ones(2, 1, 2))", [1.0] * 8),
]


@pytest.mark.parametrize(("code", "signs"), CASES)
def test_zero_signs_of_matrix_products(code, signs):
    assert _signs(eval(code, {"L": teachgrad})) == signs  # noqa: S307


@pytest.mark.parametrize(("code", "signs"), CASES)
def test_pytorch_gives_these_signs(code, signs):
    torch = pytest.importorskip("torch")
    assert _signs(eval(code, {"L": torch})) == signs  # noqa: S307


def test_the_values_and_the_gradients_are_the_products():
    a = teachgrad.tensor([[-0.0], [2.0], [3.0]], requires_grad=True)
    b = teachgrad.tensor([[1.0, -2.0]], requires_grad=True)
    out = a @ b
    assert out.tolist() == [[0.0, 0.0], [2.0, -4.0], [3.0, -6.0]]
    assert out.stride() == (2, 1)
    out.sum().backward()
    assert a.grad.tolist() == [[-1.0], [-1.0], [-1.0]]  # row sums of b
    assert b.grad.tolist() == [[5.0, 5.0]]  # column sums of a
    assert 1 / (a.detach() @ b.detach())[0, 0] == -math.inf
