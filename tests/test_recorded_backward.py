"""Backward formulas recorded as one node under create_graph (ops/recorded_backward.py).

Each ``...BackwardBackward0`` has a hand-derived backward: checked here against finite
differences (gradgradcheck, float64), at points on both sides of every kink. The values
and names against PyTorch are checked by test_double_backward_parity.py (recorded).
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

F = teachgrad.nn.functional
POINTS = np.array([[-2.5, -1.2, -0.3, 0.4], [0.9, 1.7, 2.6, -0.8], [3.5, -3.4, 0.05, 1.1]])

#: (function of x, the grad_fn PyTorch gives x's gradient under create_graph)
CASES = {
    "tanh": (teachgrad.tanh, "TanhBackwardBackward0"),
    "sigmoid": (teachgrad.sigmoid, "SigmoidBackwardBackward0"),
    "softmax": (lambda x: F.softmax(x, dim=1), "SoftmaxBackwardDataBackward0"),
    "softmax dim 0": (lambda x: F.softmax(x, dim=0), "SoftmaxBackwardDataBackward0"),
    "log_softmax": (lambda x: F.log_softmax(x, dim=1), "LogSoftmaxBackwardDataBackward0"),
    "cross_entropy": (lambda x: F.cross_entropy(x, teachgrad.tensor([3, 0, 1])),
                      "LogSoftmaxBackwardDataBackward0"),
    "softplus": (F.softplus, "SoftplusBackwardBackward0"),
    "softplus beta threshold": (lambda x: F.softplus(x, beta=2.0, threshold=1.5),
                                "SoftplusBackwardBackward0"),
    "gelu": (F.gelu, "GeluBackwardBackward0"),
    "gelu tanh": (lambda x: F.gelu(x, approximate="tanh"), "GeluBackwardBackward0"),
    "elu": (lambda x: F.elu(x, alpha=0.7), "EluBackwardBackward0"),
    "selu": (F.selu, "EluBackwardBackward0"),
    "celu": (lambda x: F.celu(x, alpha=1.5), "EluBackwardBackward0"),
    "logsigmoid": (F.logsigmoid, "LogSigmoidBackwardBackward0"),
    "softshrink": (lambda x: F.softshrink(x, 0.5), "SoftshrinkBackwardBackward0"),
    "hardshrink": (lambda x: F.hardshrink(x, 0.5), "HardshrinkBackwardBackward0"),
    "mse_loss": (lambda x: F.mse_loss(x, teachgrad.tensor(POINTS[::-1].copy())),
                 "MseLossBackwardBackward0"),
    "mse_loss sum": (lambda x: F.mse_loss(x, teachgrad.tensor(POINTS.T.copy().T * 0.5),
                                          reduction="sum"), "MseLossBackwardBackward0"),
}


def _x():
    return teachgrad.tensor(POINTS, dtype=teachgrad.float64, requires_grad=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_order_gradient_is_pytorchs_node(name):
    function, node = CASES[name]
    x = _x()
    (g,) = teachgrad.autograd.grad(function(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == node


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_match_finite_differences(name):
    function, _ = CASES[name]
    assert gradcheck(function, (_x(),))
    assert gradgradcheck(function, (_x(),))


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "gelu", "softmax", "logsigmoid"])
def test_third_derivative_matches_finite_differences(name):
    """The hand-derived backward is NumPy on tensors: it differentiates again."""
    function, _ = CASES[name]

    def second(x):
        with teachgrad.enable_grad():  # (finite differences call it with plain tensors)
            x = x if x.requires_grad else x.detach().requires_grad_()
            (g,) = teachgrad.autograd.grad(function(x).sum(), x, create_graph=True)
        return g

    assert gradgradcheck(second, (_x(),))


def test_plain_backward_records_nothing():
    x = _x()
    teachgrad.tanh(x).sum().backward()
    assert x.grad.grad_fn is None and not x.grad.requires_grad


@pytest.mark.parametrize("target_requires_grad", [False, True])
def test_mse_loss_gradients_for_input_and_target(target_requires_grad):
    x = _x()
    t = teachgrad.tensor(POINTS[::-1].copy(), requires_grad=target_requires_grad)
    loss = F.mse_loss(x, t)
    wanted = (x, t) if target_requires_grad else (x,)
    grads = teachgrad.autograd.grad(loss, wanted, create_graph=True)
    assert all(g.grad_fn.name() == "MseLossBackwardBackward0" for g in grads)
    expected = 2 * (POINTS - POINTS[::-1]) / POINTS.size
    np.testing.assert_allclose(grads[0].detach().numpy(), expected, rtol=1e-12)
    if target_requires_grad:
        np.testing.assert_allclose(grads[1].detach().numpy(), -expected, rtol=1e-12)
    assert gradgradcheck(F.mse_loss, (x, teachgrad.tensor(POINTS[::-1].copy(),
                                                          requires_grad=True)))


def test_hardsigmoid_second_derivative_raises_as_pytorch():
    x = _x()
    (g,) = teachgrad.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)
    # PyTorch 2.13 records its generic node for a missing derivative here
    assert g.grad_fn.name() == "torch::autograd::NotImplemented"
    assert "grad_fn=<NotImplemented>" in repr(g)
    with pytest.raises(RuntimeError, match="derivative for aten::hardsigmoid_backward is not "
                                           "implemented"):
        teachgrad.autograd.grad(g.sum(), x)


ZEROS = teachgrad.zeros(3, 4, dtype=teachgrad.float64)


@pytest.mark.parametrize("function", [teachgrad.abs, lambda x: x.norm(p=1),
                                      lambda x: F.l1_loss(x, ZEROS),
                                      lambda x: teachgrad.copysign(x, -1.0)])
def test_gradients_through_sgn_require_grad_and_differentiate_to_zero(function):
    """As PyTorch's ``grad * sgn(x)``: sgn is recorded, with derivative 0."""
    x = _x()
    (g,) = teachgrad.autograd.grad(function(x).sum(), x, create_graph=True)
    assert g.requires_grad
    (h,) = teachgrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 0.0, atol=1e-12)  # (copysign: out/a, rounded)


def test_conv_bias_gradient_comes_from_the_convolutions_node():
    x = teachgrad.tensor(np.linspace(-1, 1, 32).reshape(1, 2, 4, 4), requires_grad=True)
    w = teachgrad.tensor(np.linspace(-1, 1, 24).reshape(3, 2, 2, 2), requires_grad=True)
    b = teachgrad.tensor([0.1, -0.2, 0.3], dtype=teachgrad.float64, requires_grad=True)
    grads = teachgrad.autograd.grad(F.conv2d(x, w, b).sum(), (x, w, b), create_graph=True)
    assert [g.grad_fn.name() for g in grads] == ["ConvolutionBackwardBackward0"] * 3
    assert gradgradcheck(lambda x, w, b: F.conv2d(x, w, b, padding=1), (x, w, b))
