"""xlogy/xlog1py's slope where the input is 0, and erfcx/log_ndtr at the infinities.

d(x·log y)/dx = log y, also at x = 0: x·log y is 0 there *by definition* only when log y
is not finite (y ≤ 0), and PyTorch's slope is 0 just there. (teachgrad gave 0 at every
x = 0.) erfcx(x) = exp(x²)·erfc(x) grows without bound as x → −∞: erfcx(−inf) = inf (it
gave nan), so log Φ(x)'s slope φ/Φ = √(2/π)/erfcx(−x/√2) is 0 at +inf.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

INF, NAN = math.inf, math.nan


def _grads(fn, *inputs, upstream=1.0):
    leaves = [teachgrad.tensor(v, dtype=teachgrad.float64, requires_grad=True) for v in inputs]
    out = fn(*leaves)
    return [g.numpy() for g in teachgrad.autograd.grad(out, leaves,
                                                       teachgrad.full_like(out, upstream))]


def test_xlogy_slope_at_zero_input_is_log_other():
    (ga, gb) = _grads(teachgrad.xlogy, [0.0, 0.0, 0.0, 1.0], [2.0, 0.0, -1.0, 2.0])
    assert ga.tolist() == [math.log(2.0), 0.0, 0.0, math.log(2.0)]  # 0 where y <= 0
    assert gb[0] == 0.0 and np.isnan(gb[1])  # x/y: 0/2, and 0/0 as PyTorch
    (ga,) = _grads(lambda x: teachgrad.xlogy(x, 2.0), [0.0, 1.0])
    assert ga.tolist() == [math.log(2.0)] * 2
    (ga,) = _grads(lambda x: teachgrad.special.xlog1py(x, 1.0), [0.0, 3.0])
    assert ga.tolist() == [math.log(2.0)] * 2


def test_xlogy_slope_with_a_zero_gradient_is_zero_even_at_infinite_log():
    # PyTorch computes the slope as xlogy(grad, y): a zero gradient gives 0, not 0·inf.
    (ga,) = _grads(lambda x: teachgrad.xlogy(x, teachgrad.tensor([INF, 0.0], dtype=x.dtype)),
                   [1.0, 1.0], upstream=0.0)
    assert ga.tolist() == [0.0, 0.0]


def test_xlogy_and_xlog1py_differentiate_twice_at_zero_input():
    a = teachgrad.tensor([0.0, 1.5, 0.0, 2.0], dtype=teachgrad.float64, requires_grad=True)
    b = teachgrad.tensor([2.0, 0.7, 0.3, 1.2], dtype=teachgrad.float64, requires_grad=True)
    for fn in (teachgrad.xlogy, teachgrad.special.xlog1py,
               lambda x, y: teachgrad.xlogy(x, 2.5) * y,
               lambda x, y: teachgrad.special.xlog1py(x, 0.5) * y):
        assert gradcheck(fn, (a, b))
        assert gradgradcheck(fn, (a, b))


def test_erfcx_at_minus_infinity_and_log_ndtr_slope_at_plus_infinity():
    x = teachgrad.tensor([-INF, INF], dtype=teachgrad.float64, requires_grad=True)
    y = teachgrad.special.erfcx(x)
    assert y.tolist() == [INF, 0.0]
    (g,) = teachgrad.autograd.grad(y, x, teachgrad.ones_like(y))
    assert g[0].item() == -INF  # 2x·erfcx(x) − 2/√π
    x = teachgrad.tensor([INF, 0.0], dtype=teachgrad.float64, requires_grad=True)
    (g,) = teachgrad.autograd.grad(teachgrad.special.log_ndtr(x).sum(), x)
    assert g.tolist() == [0.0, pytest.approx(2 * math.sqrt(2 / math.pi) / 2)]  # φ(0)/Φ(0)


@pytest.mark.torch
@pytest.mark.parametrize("name", ["xlogy", "special.xlogy", "special.xlog1py"])
@pytest.mark.parametrize("mode", ["tensors", "tensor, 2", "tensor, -1", "tensor, 0",
                                  "0, tensor", "3, tensor"])
def test_values_and_gradients_match_torch(name, mode):
    torch = pytest.importorskip("torch")
    a = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, NAN, -0.0, 3.0, 0.0]
    b = [2.0, 0.0, -1.0, NAN, INF, 0.0, -1.0, 0.5, 1.0, 2.0, -1.5, -2.0]
    for upstream in (1.0, 0.0, -2.0, INF, NAN):
        results = []
        for lib in (torch, teachgrad):
            fn = lib
            for part in name.split("."):
                fn = getattr(fn, part)
            x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
            y = lib.tensor(b, dtype=lib.float64, requires_grad=True)
            if mode == "tensors":
                out, inputs = fn(x, y), (x, y)
            elif mode.startswith("tensor"):
                out, inputs = fn(x, float(mode.split(", ")[1])), (x,)
            else:
                out, inputs = fn(float(mode.split(", ")[0]), y), (y,)
            grads = lib.autograd.grad(out, inputs, lib.full_like(out, upstream))
            results.append([out.detach().numpy()] + [g.numpy() for g in grads])
        for theirs, ours in zip(*results):
            np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=0)


@pytest.mark.torch
def test_erfcx_and_log_ndtr_at_infinities_match_torch():
    torch = pytest.importorskip("torch")
    values = [-INF, -30.0, -3.0, 0.0, 3.0, 30.0, INF]
    for name in ("erfcx", "log_ndtr"):
        results = []
        for lib in (torch, teachgrad):
            x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
            y = getattr(lib.special, name)(x)
            (g,) = lib.autograd.grad(y, x, lib.ones_like(y))
            results.append((y.detach().numpy(), g.numpy()))
        (y_t, g_t), (y_g, g_g) = results
        np.testing.assert_allclose(y_g, y_t, rtol=1e-12)
        if name == "log_ndtr":  # PyTorch's slope at −inf is nan (it divides inf by inf);
            g_t, g_g = g_t[1:], g_g[1:]  # the truth, −x → +inf, is teachgrad's
            assert np.isinf(results[1][1][0])
        np.testing.assert_allclose(g_g, g_t, rtol=1e-12)
