"""Ops that save their own output (exp, tanh, sqrt, sigmoid...) on 0-d tensors.

NumPy returns a 0-d result as a scalar, not an array; the saved output must still be
recognised as the op's output: checked for in-place changes, and connected to the graph
under ``create_graph`` (so second derivatives are right). Expected values: gradgradcheck
(finite differences) and PyTorch's error message.
"""

from __future__ import annotations

import pytest

import teachgrad as torch

OUTPUT_SAVING = ["exp", "tanh", "sqrt", "sigmoid", "reciprocal", "rsqrt"]


@pytest.mark.parametrize("name", OUTPUT_SAVING)
def test_second_derivative_of_a_scalar(name):
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    f = getattr(torch, name)
    assert torch.autograd.gradgradcheck(lambda t: f(t) * t, (x,))


def test_first_derivative_is_connected_under_create_graph():
    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(x.exp(), x, create_graph=True)
    assert g.grad_fn is not None
    (g2,) = torch.autograd.grad(g, x)
    assert abs(g2.item() - x.exp().item()) < 1e-12  # (e^x)'' = e^x


@pytest.mark.parametrize("name", ["exp", "tanh"])
def test_in_place_change_of_a_saved_scalar_output_is_detected(name):
    x = torch.tensor(0.5, requires_grad=True)
    y = getattr(torch, name)(x)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_exact_gelu_backward_of_a_scalar():
    # A 0-d saved input comes back from saved_tensors as a NumPy scalar, not an array;
    # gelu's backward took that for create_graph and refused.
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch.nn.functional.gelu, (x,))
