"""addmm's gradients under ``create_graph`` when beta or alpha is not 1.

PyTorch's formulas multiply by the number: ``grad * beta`` for input, ``mm(...) * alpha``
for mat1 and mat2. A tensor times a Python number is ``MulBackward1`` in PyTorch (one
edge), not ``MulBackward0`` with a constant operand. The torch-marked test compares the
whole gradient graphs with PyTorch 2.13's.
"""

from __future__ import annotations

import pytest

import teachgrad as torch


def _gradients(lib, beta, alpha, input_shape=(2, 4)):
    inp = lib.ones(input_shape, dtype=lib.float64, requires_grad=True)
    m1 = lib.ones(2, 3, dtype=lib.float64, requires_grad=True) * 2
    m2 = lib.ones(3, 4, dtype=lib.float64, requires_grad=True) * 3
    y = lib.addmm(inp, m1, m2, beta=beta, alpha=alpha)
    return lib.autograd.grad((y * y).sum(), (inp, m1, m2), create_graph=True)


def _names(fn, depth=3):
    if fn is None or depth < 0:
        return None
    return (fn.name(), tuple(_names(n, depth - 1) for n, _ in fn.next_functions))


@pytest.mark.parametrize("beta, alpha", [(2, 3), (0, 1), (0.5, 0)])
def test_scaling_by_a_number_is_mulbackward1(beta, alpha):
    g_input, g_1, g_2 = _gradients(torch, beta, alpha)
    assert g_input.grad_fn.name() == "MulBackward1"
    assert len(g_input.grad_fn.next_functions) == 1  # the number is no input
    for g in (g_1, g_2):
        expected = "MulBackward1" if alpha != 1 else "MmBackward0"
        assert g.grad_fn.name() == expected
    # the values: d/dinput of sum(y²) is 2·y·beta, y = beta + alpha·18 (every entry:
    # 3 terms of 2·3)
    y = beta + alpha * 18
    assert g_input.flatten().tolist() == pytest.approx([2 * y * beta] * 8)


@pytest.mark.torch
@pytest.mark.parametrize("beta, alpha", [(1, 1), (2, 1), (1, 3), (2, 3), (0, 1), (0.5, 0)])
@pytest.mark.parametrize("input_shape", [(2, 4), (4,), (1, 4)])
def test_same_gradient_graphs_as_pytorch(beta, alpha, input_shape):
    real = pytest.importorskip("torch")
    ours = [_names(g.grad_fn) for g in _gradients(torch, beta, alpha, input_shape)]
    theirs = [_names(g.grad_fn) for g in _gradients(real, beta, alpha, input_shape)]
    assert str(ours).replace("teachgrad", "torch") == str(theirs)
