"""Rounded division and sign: PyTorch's graph nodes and values where NumPy differs.

``div(rounding_mode=...)`` is a staircase: PyTorch records ``DivBackward2`` and sends zero
gradients; ``//`` records a node whose backward refuses. ``sign(nan)`` is 0 in PyTorch.
"""

from __future__ import annotations

import math

import pytest

import teachgrad


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_with_rounding_mode_records_a_node_with_zero_gradients(mode):
    x = teachgrad.tensor([1.5, -2.5, 7.0], requires_grad=True)
    y = teachgrad.tensor([2.0, 2.0, -2.0], requires_grad=True)
    out = teachgrad.div(x, y, rounding_mode=mode)
    expected = [math.floor(a / b) if mode == "floor" else math.trunc(a / b)
                for a, b in ([1.5, 2.0], [-2.5, 2.0], [7.0, -2.0])]
    assert out.tolist() == expected
    assert out.grad_fn.name() == "DivBackward2"
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0] and y.grad.tolist() == [0.0, 0.0, 0.0]


def test_floor_divide_of_a_tensor_that_requires_grad_refuses_in_backward():
    x = teachgrad.tensor([7.0, -7.0], requires_grad=True)
    out = x // 2
    assert out.tolist() == [3.0, -4.0]
    assert "grad_fn=<NotImplemented>" in repr(out)
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        out.sum().backward()


def test_rounded_division_without_grad_records_nothing():
    assert (teachgrad.tensor([7, -7]) // 2).grad_fn is None
    assert teachgrad.div(teachgrad.tensor([7.0]), 2, rounding_mode="trunc").grad_fn is None


def test_sign_of_nan_is_zero():
    x = teachgrad.tensor([math.nan, -2.0, 0.0, 3.0])
    assert x.sign().tolist() == [0.0, -1.0, 0.0, 1.0]


@pytest.mark.torch
def test_same_as_torch():
    torch = pytest.importorskip("torch")
    results = []
    for m in (torch, teachgrad):
        x = m.tensor([math.nan, -2.5, 0.0, 3.0], requires_grad=True)
        floor = m.div(x, 2, rounding_mode="floor")
        results.append((m.sign(x).tolist()[1:], m.sign(x).tolist()[0], floor.grad_fn.name(),
                        type((x // 2).grad_fn).__name__, str(floor.tolist()[1:])))
    assert results[0] == results[1]
