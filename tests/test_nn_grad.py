"""``torch.nn.grad``: a convolution's input and weight gradients as functions, checked
against finite differences of ``<grad_output, conv(x, w)>`` and against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch

F = torch.nn.functional
CASES = [  # (dims, input shape, weight shape, options)
    (1, (2, 4, 9), (6, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    (2, (2, 3, 7, 6), (4, 3, 3, 2), {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2)}),
    (3, (1, 2, 5, 4, 4), (2, 1, 2, 2, 3), {"padding": 1, "groups": 2}),
]


def finite_difference(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d f / d x by central differences, one entry at a time (f returns a float)."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


@pytest.mark.parametrize("dims, input_shape, weight_shape, options", CASES)
def test_gradients_are_the_finite_differences(dims, input_shape, weight_shape, options):
    rng = np.random.default_rng(dims)
    x = rng.normal(size=input_shape)
    w = rng.normal(size=weight_shape)
    conv = getattr(F, f"conv{dims}d")
    out_shape = conv(torch.tensor(x), torch.tensor(w), **options).shape
    g = rng.normal(size=tuple(out_shape))

    def paired(xx, ww):  # <grad_output, conv(x, w)>: its gradients are what we want
        return float((conv(torch.tensor(xx), torch.tensor(ww), **options).numpy() * g).sum())

    grad_input = getattr(torch.nn.grad, f"conv{dims}d_input")(
        x.shape, torch.tensor(w), torch.tensor(g), **options)
    grad_weight = getattr(torch.nn.grad, f"conv{dims}d_weight")(
        torch.tensor(x), w.shape, torch.tensor(g), **options)
    np.testing.assert_allclose(grad_input.numpy(), finite_difference(lambda v: paired(v, w), x),
                               atol=1e-6)
    np.testing.assert_allclose(grad_weight.numpy(),
                               finite_difference(lambda v: paired(x, v), w), atol=1e-6)
    assert not grad_input.requires_grad and not grad_weight.requires_grad


def test_the_result_is_differentiable_where_its_operands_require_grad():
    """d/dw of sum(conv1d_input(..., w, g)): each weight entry is summed once per output
    position it touches, times g there; with g = 1 that is the number of positions."""
    w = torch.tensor([[[1.0, 2.0, 3.0]]], requires_grad=True)
    grad_input = torch.nn.grad.conv1d_input((1, 1, 5), w, torch.ones(1, 1, 3))
    assert grad_input.requires_grad
    grad_input.sum().backward()
    assert w.grad.tolist() == [[[3.0, 3.0, 3.0]]]  # 3 output positions, each uses every tap


def test_functional_grad_is_the_same_module():
    assert F.grad is torch.nn.grad


@pytest.mark.parametrize("dims, input_shape, weight_shape, options", CASES)
def test_same_as_pytorch(dims, input_shape, weight_shape, options):
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(10 + dims)
    x = rng.normal(size=input_shape).astype(np.float32)
    w = rng.normal(size=weight_shape).astype(np.float32)
    out_shape = getattr(F, f"conv{dims}d")(torch.tensor(x), torch.tensor(w), **options).shape
    g = rng.normal(size=tuple(out_shape)).astype(np.float32)
    for name, first, second in (("input", x.shape, w), ("weight", x, w.shape)):
        ours = getattr(torch.nn.grad, f"conv{dims}d_{name}")(
            first if name == "input" else torch.tensor(first),
            torch.tensor(second) if name == "input" else second, torch.tensor(g), **options)
        theirs = getattr(real.nn.grad, f"conv{dims}d_{name}")(
            first if name == "input" else real.tensor(first),
            real.tensor(second) if name == "input" else second, real.tensor(g), **options)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
