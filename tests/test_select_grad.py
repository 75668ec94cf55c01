"""Piecewise backwards select, as PyTorch's do: an inf or nan gradient where the op is flat gives 0.

relu, threshold, hardtanh, clamp, maximum... have slope 0 on part of their domain. PyTorch
computes their backward as ``where(flat, 0, grad)``; ``grad * mask`` would give
``inf · 0 = nan`` there, and ``-0.`` for a negative gradient (printed as ``-0.``). Ops that
are flat everywhere (sign, floor, a random draw...) give ``zeros_like(grad)``.

The torch-free tests use the rule itself (the derivative there is 0, selected) and
finite differences; the tests marked ``torch`` compare every op of the family with PyTorch.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck
from teachgrad.ops.select_grad import keep_where, zero_grad_like, zero_where

F = teachgrad.nn.functional
INF, NAN = math.inf, math.nan


# ----------------------------------------------------------------------------------------
# The helpers: exactly np.where, bit for bit, on both of their routes
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("size", [1, 7, 511, 512, 5000])
def test_keep_where_and_zero_where_are_np_where_bit_for_bit(dtype, size):
    rng = np.random.default_rng(size)
    grad = rng.standard_normal(size).astype(dtype)
    grad[::7], grad[::11], grad[::13] = INF, NAN, -0.0
    grad[::5] *= -1
    mask = rng.random(size) > 0.5
    for got, expected in ((keep_where(mask, grad), np.where(mask, grad, 0)),
                          (zero_where(mask, grad), np.where(mask, 0, grad))):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert got.tobytes() == expected.tobytes()


def test_helpers_on_strided_and_broadcast_gradients():
    grad = np.arange(4000.0).reshape(40, 100)[:, ::2]  # not contiguous
    grad[0, 0] = INF
    mask = grad > 500
    assert keep_where(mask, grad).tobytes() == np.where(mask, grad, 0).tobytes()
    row = np.array([True, False])  # a mask that broadcasts
    grad = np.full((600, 2), -INF)
    assert np.array_equal(keep_where(row, grad), np.where(row, grad, 0))


def test_helpers_keep_numpy_scalars_scalars():
    # A 0-d tensor's backward works on NumPy scalars; a select must not make them arrays.
    assert type(keep_where(np.bool_(False), np.float32(INF))) is np.float32
    assert keep_where(np.bool_(False), np.float32(INF)) == 0
    assert zero_where(np.bool_(False), np.float64(-2.0)) == -2.0
    assert not np.signbit(zero_where(np.bool_(True), np.float64(-2.0)))
    assert type(zero_grad_like(np.float32(NAN))) is np.float32


# ----------------------------------------------------------------------------------------
# The ops: where the slope is 0, an inf/nan/negative gradient gives exactly +0
# ----------------------------------------------------------------------------------------
# (op, an input with some elements where the op is flat, which of them are flat)
X = [-2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 3.0, 7.0]
FLAT_CASES = {
    "relu": (teachgrad.relu, lambda x: x <= 0),
    "relu_": (lambda t: (t * 1).relu_(), lambda x: x <= 0),
    "F.relu(inplace)": (lambda t: F.relu(t * 1, inplace=True), lambda x: x <= 0),
    "threshold": (lambda t: F.threshold(t, 0.5, 2.0), lambda x: x <= 0.5),
    "threshold_": (lambda t: F.threshold_(t * 1, 0.5, 2.0), lambda x: x <= 0.5),
    "hardtanh": (F.hardtanh, lambda x: (x <= -1) | (x >= 1)),
    "hardtanh_": (lambda t: F.hardtanh_(t * 1), lambda x: (x <= -1) | (x >= 1)),
    "relu6": (F.relu6, lambda x: (x <= 0) | (x >= 6)),
    "hardsigmoid": (F.hardsigmoid, lambda x: (x <= -3) | (x >= 3)),
    "hardswish": (lambda t: F.hardswish(t * 4), lambda x: x * 4 <= -3),
    "hardshrink": (lambda t: F.hardshrink(t, 0.5), lambda x: abs(x) <= 0.5),
    "softshrink": (lambda t: F.softshrink(t, 0.5), lambda x: abs(x) <= 0.5),
    "clamp": (lambda t: t.clamp(-0.5, 0.5), lambda x: (x < -0.5) | (x > 0.5)),
    "clamp_": (lambda t: (t * 1).clamp_(-0.5, 0.5), lambda x: (x < -0.5) | (x > 0.5)),
    "clamp_min": (lambda t: t.clamp_min(0.25), lambda x: x < 0.25),
    "clamp_max": (lambda t: t.clamp_max(0.25), lambda x: x > 0.25),
    "clamp(tensor)": (lambda t: t.clamp(teachgrad.full_like(t, -0.5), teachgrad.full_like(t, 0.5)),
                      lambda x: (x < -0.5) | (x > 0.5)),
    "clamp_min(tensor)": (lambda t: t.clamp_min(teachgrad.full_like(t, 0.25)), lambda x: x < 0.25),
    "clamp_max(tensor)": (lambda t: t.clamp_max(teachgrad.full_like(t, 0.25)), lambda x: x > 0.25),
    "maximum": (lambda t: teachgrad.maximum(t, teachgrad.zeros_like(t)), lambda x: x < 0),
    "minimum": (lambda t: teachgrad.minimum(t, teachgrad.zeros_like(t)), lambda x: x > 0),
    "sign": (teachgrad.sign, lambda x: x == x),
    "sgn": (teachgrad.sgn, lambda x: x == x),
    "floor": (teachgrad.floor, lambda x: x == x),
    "round": (teachgrad.round, lambda x: x == x),
    "div(floor)": (lambda t: teachgrad.div(t, 2.0, rounding_mode="floor"), lambda x: x == x),
    "x ** 0": (lambda t: t ** 0, lambda x: x == x),
    "x ** zeros": (lambda t: t ** teachgrad.zeros_like(t), lambda x: x == x),
    "lt_": (lambda t: (t * 1).lt_(0.5), lambda x: x == x),
}


def _gradient(fn, x_values, upstream, size_multiple=1):
    x = teachgrad.tensor(x_values * size_multiple, dtype=teachgrad.float64, requires_grad=True)
    y = fn(x)
    (gx,) = teachgrad.autograd.grad(y, x, teachgrad.full_like(y, upstream))
    return gx.numpy()


@pytest.mark.parametrize("name", sorted(FLAT_CASES))
@pytest.mark.parametrize("upstream", [INF, -INF, NAN, -3.0])
@pytest.mark.parametrize("size_multiple", [1, 100])  # both routes of the select
def test_flat_positions_get_exactly_zero(name, upstream, size_multiple):
    fn, is_flat = FLAT_CASES[name]
    flat = is_flat(np.array(X * size_multiple))
    got = _gradient(fn, X, upstream, size_multiple)
    assert flat.any()
    assert np.all(got[flat] == 0) and not np.signbit(got[flat]).any()  # +0., not nan or -0.
    # Elsewhere the gradient went through, times a nonzero slope (nan stays nan).
    moving = got[~flat]
    assert np.isnan(moving).all() if math.isnan(upstream) else (np.abs(moving) > 0).all()


def test_relu_of_a_scalar_with_an_inf_gradient():
    x = teachgrad.tensor(-1.0, requires_grad=True)
    (gx,) = teachgrad.autograd.grad(x.relu(), x, teachgrad.tensor(INF))
    assert gx.item() == 0.0


def test_a_negative_gradient_through_relu_prints_zero_not_minus_zero():
    x = teachgrad.tensor([-1.0, 2.0], requires_grad=True)
    (x.relu() * -3).sum().backward()
    assert str(x.grad) == "tensor([ 0., -3.])"


def test_prelu_weight_gradient_ignores_inf_where_the_input_is_positive():
    x = teachgrad.tensor([[1.0, -2.0, 3.0]], requires_grad=True)
    w = teachgrad.tensor([0.25], requires_grad=True)
    y = F.prelu(x, w)
    gx, gw = teachgrad.autograd.grad(y, (x, w), teachgrad.tensor([[INF, 1.0, INF]]))
    # ∂prelu/∂w = 0 where x > 0 (selected), x where x <= 0: only the -2 counts.
    assert gw.tolist() == [-2.0]
    assert gx.tolist() == [[INF, 0.25, INF]]


def test_threshold_and_shrink_keep_a_nan_input_nan():
    x = teachgrad.tensor([NAN, -1.0, 1.0])
    assert np.isnan(F.threshold(x, 0.0, 5.0)[0].item())
    assert np.isnan(F.softshrink(x, 0.5)[0].item())
    assert np.isnan(F.hardshrink(x, 0.5)[0].item())


# ----------------------------------------------------------------------------------------
# Gradients are unchanged for finite values, and higher orders still work
# ----------------------------------------------------------------------------------------
SMOOTH_ENOUGH = {  # inputs away from the kinks, so finite differences apply
    # (not hardsigmoid: as PyTorch, its second derivative raises; test_recorded_backward.py)
    "relu": teachgrad.relu, "threshold": lambda t: F.threshold(t, 0.5, 2.0),
    "hardtanh": F.hardtanh, "relu6": lambda t: F.relu6(t * 4),
    "hardswish": lambda t: F.hardswish(t * 4), "softshrink": lambda t: F.softshrink(t, 0.5),
    "hardshrink": lambda t: F.hardshrink(t, 0.5), "clamp": lambda t: t.clamp(-0.5, 0.5),
    "maximum": lambda t: teachgrad.maximum(t, t.detach() * 0 + 0.1),
    "clamp(tensor)": lambda t: t.clamp(teachgrad.full_like(t, -0.5), teachgrad.full_like(t, 0.5)),
}


@pytest.mark.parametrize("name", sorted(SMOOTH_ENOUGH))
@pytest.mark.parametrize("size", [9, 900])
def test_gradients_of_any_order_match_finite_differences(name, size):
    rng = np.random.default_rng(size)
    values = rng.uniform(-2, 2, size)
    values[np.abs(np.abs(values) - 0.5) < 0.05] += 0.2  # off the kinks
    values[np.abs(values - 0.1) < 0.05] += 0.2
    values[np.abs(values) < 0.05] += 0.2
    x = teachgrad.tensor(values, dtype=teachgrad.float64, requires_grad=True)
    fn = SMOOTH_ENOUGH[name]
    assert gradcheck(lambda t: fn(t) ** 2, (x,))
    assert gradgradcheck(lambda t: fn(t) ** 2, (x,))


def test_double_backward_through_relu_selects_too():
    x = teachgrad.tensor([-1.0, 2.0] * 300, dtype=teachgrad.float64, requires_grad=True)
    g = teachgrad.full_like(x, 2.0, requires_grad=True)
    (gx,) = teachgrad.autograd.grad(x.relu(), x, g, create_graph=True)
    assert gx.grad_fn.name() == "ThresholdBackwardBackward0"
    (gg,) = teachgrad.autograd.grad(gx, g, teachgrad.full_like(gx, INF))
    assert gg.numpy()[0::2].tolist() == [0.0] * 300 and np.isinf(gg.numpy()[1::2]).all()


# ----------------------------------------------------------------------------------------
# Against PyTorch, over the whole family
# ----------------------------------------------------------------------------------------
def _all_cases(lib):
    Fl = lib.nn.functional
    return {
        "relu": lib.relu, "relu_": lambda t: (t * 1).relu_(), "relu6": Fl.relu6,
        "threshold": lambda t: Fl.threshold(t, 0.5, 2.0), "hardtanh": Fl.hardtanh,
        "hardtanh(-2,2)": lambda t: Fl.hardtanh(t, -2.0, 2.0),
        "hardtanh_": lambda t: Fl.hardtanh_(t * 1),
        "threshold_": lambda t: Fl.threshold_(t * 1, 0.5, 2.0),
        "hardsigmoid": Fl.hardsigmoid, "hardswish": Fl.hardswish,
        "hardshrink": Fl.hardshrink, "softshrink": Fl.softshrink,
        "leaky_relu": Fl.leaky_relu, "leaky_relu(0)": lambda t: Fl.leaky_relu(t, 0.0),
        "elu": Fl.elu, "celu": lambda t: Fl.celu(t, 0.5), "selu": Fl.selu,
        "prelu": lambda t: Fl.prelu(t, lib.tensor([0.25], dtype=t.dtype)),
        "clamp": lambda t: t.clamp(-1.0, 1.0), "clamp(min)": lambda t: t.clamp(min=0.0),
        "clamp(max)": lambda t: t.clamp(max=0.0), "clamp(lo>hi)": lambda t: t.clamp(1.0, -1.0),
        "clamp_": lambda t: (t * 1).clamp_(-1, 1),
        "clamp(tensors)": lambda t: t.clamp(lib.full_like(t, -1.0), lib.full_like(t, 1.0)),
        "clamp(min tensor)": lambda t: t.clamp(min=lib.full_like(t, -1.0)),
        "clamp(max tensor)": lambda t: t.clamp(max=lib.full_like(t, 1.0)),
        "clamp_min": lambda t: t.clamp_min(0.0), "clamp_max": lambda t: t.clamp_max(0.0),
        "maximum": lambda t: lib.maximum(t, lib.zeros_like(t)),
        "minimum": lambda t: lib.minimum(t, lib.zeros_like(t)),
        "fmax": lambda t: lib.fmax(t, lib.zeros_like(t)),
        "fmin": lambda t: lib.fmin(t, lib.zeros_like(t)),
        "where": lambda t: lib.where(t > 0, t, 0.0),
        "masked_fill": lambda t: t.masked_fill(t < 0, 0.0),
        "sign": lib.sign, "floor": lib.floor, "ceil": lib.ceil, "round": lib.round,
        "trunc": lib.trunc,
        "frac": lib.frac, "abs": lib.abs,
        "x ** 0": lambda t: t ** 0, "x ** zeros": lambda t: t ** lib.zeros_like(t),
        "0 ** x": lambda t: lib.pow(0.0, t),
        "div(floor)": lambda t: lib.div(t, 2.0, rounding_mode="floor"),
        "nextafter": lambda t: lib.nextafter(t, lib.ones_like(t)),
        "margin_ranking_loss": lambda t: Fl.margin_ranking_loss(
            t, lib.zeros_like(t), lib.ones_like(t), reduction="none"),
        "triplet_margin_loss": lambda t: Fl.triplet_margin_loss(
            t.reshape(-1, 2), lib.zeros_like(t).reshape(-1, 2), lib.ones_like(t).reshape(-1, 2),
            reduction="none"),
        "l1_loss": lambda t: Fl.l1_loss(t, lib.zeros_like(t), reduction="none"),
        "smooth_l1_loss": lambda t: Fl.smooth_l1_loss(t, lib.zeros_like(t), reduction="none"),
        "hinge_embedding_loss": lambda t: Fl.hinge_embedding_loss(
            t, -lib.ones_like(t), reduction="none"),
    }


# 64 values (4 × 16): every element goes through PyTorch's vectorised loops, whose answer
# at a nan input is the one teachgrad follows (PyTorch's scalar loop differs for some ops).
X_TORCH = np.tile([-100.0, -6.0, -3.0, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 3.0, 6.0, 100.0,
                   INF, -INF], 4)
X_WITH_NAN = X_TORCH.copy()
X_WITH_NAN[::9] = NAN


def _both(torch, name, values, upstream):
    out = []
    for lib in (torch, teachgrad):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = _all_cases(lib)[name](x)
        (gx,) = lib.autograd.grad(y, x, lib.full_like(y, upstream))
        out.append((y.detach().numpy(), gx.detach().numpy()))
    return out


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(_all_cases(teachgrad)))
@pytest.mark.parametrize("upstream", [INF, -INF, NAN, -2.5, 1.0])
@pytest.mark.parametrize("values", [X_TORCH, X_WITH_NAN], ids=["finite+inf", "with nan"])
def test_values_and_gradients_match_torch_bit_for_bit(name, upstream, values):
    torch = pytest.importorskip("torch")
    (y_t, g_t), (y_g, g_g) = _both(torch, name, values, upstream)
    np.testing.assert_allclose(y_g, y_t, rtol=1e-6, atol=0)
    # The same nan positions, infinities and zeros (with their sign), and close values.
    # (PyTorch's float64 hardsigmoid slope is 1/6 rounded to float32: 3e-8 off.)
    np.testing.assert_allclose(g_g, g_t, rtol=1e-6, atol=0)
    exact = ~np.isfinite(g_t) | (g_t == 0)
    np.testing.assert_array_equal(g_g[exact], g_t[exact])
    assert np.array_equal(np.signbit(g_g[g_t == 0]), np.signbit(g_t[g_t == 0]))
