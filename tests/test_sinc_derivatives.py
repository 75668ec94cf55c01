"""sinc's first and second derivatives at and near 0.

sinc(a) = sin(πa)/(πa) = 1 − u²/6 + u⁴/120 − ... with u = πa, so sinc'(0) = 0 and
sinc''(0) = −π²/3. The closed-form slope (cos(πa)·πa − sin(πa))/(πa²) cancels near 0 (and
is 0/0 at 0), so teachgrad uses the power series there. PyTorch 2.13 uses the closed form:
its second derivative at 0 is nan and it is 36 % off at a = 1e-8 (the torch test below
allows that, and checks that teachgrad is the closer of the two).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

NEAR_ZERO = [0.0, 1e-12, -1e-8, 1e-4, -0.01, 0.1, 0.3, 1 / math.pi - 1e-9, 1 / math.pi, 0.4]


def _series(a: float) -> tuple[float, float]:
    """sinc'(a) and sinc''(a) from the Taylor series of sin(u)/u (exact for |u| < 1)."""
    u = math.pi * a
    first = sum((-1) ** k * 2 * k * u ** (2 * k - 1) / math.factorial(2 * k + 1)
                for k in range(1, 15))
    second = sum((-1) ** k * 2 * k * (2 * k - 1) * u ** (2 * k - 2) / math.factorial(2 * k + 1)
                 for k in range(1, 15))
    return math.pi * first, math.pi ** 2 * second


def _derivatives(lib, a: float, dtype):
    x = lib.tensor(a, dtype=dtype, requires_grad=True)
    (first,) = lib.autograd.grad(lib.sinc(x), x, create_graph=True)
    (second,) = lib.autograd.grad(first, x)
    return first.item(), second.item()


def test_second_derivative_at_zero_is_minus_pi_squared_over_three():
    first, second = _derivatives(teachgrad, 0.0, teachgrad.float64)
    assert first == 0.0
    assert second == pytest.approx(-math.pi ** 2 / 3, rel=1e-15)


@pytest.mark.parametrize("a", NEAR_ZERO)
def test_derivatives_near_zero_match_the_taylor_series(a):
    first, second = _derivatives(teachgrad, a, teachgrad.float64)
    true_first, true_second = _series(a)
    assert first == pytest.approx(true_first, rel=1e-14, abs=1e-300)
    assert second == pytest.approx(true_second, rel=1e-14)


@pytest.mark.parametrize("a", NEAR_ZERO)
def test_float32_derivatives_near_zero_are_accurate_to_float32(a):
    first, second = _derivatives(teachgrad, a, teachgrad.float32)
    true_first, true_second = _series(float(np.float32(a)))  # at the float32 input
    assert first == pytest.approx(true_first, rel=3e-7, abs=1e-30)
    # (a few float32 ulps: the derivative of the series is a sum of alternating terms;
    # PyTorch's closed form is 1e-6 off at 0.319 and 100 % off near 0)
    assert second == pytest.approx(true_second, rel=1e-6)


def test_gradients_across_the_series_boundary_match_finite_differences():
    # |πa| < 1 takes the series, the rest the closed form; both sides and the edge.
    values = np.concatenate([np.linspace(-0.5, 0.5, 41), [1 / math.pi, -1 / math.pi, 1.7]])
    x = teachgrad.tensor(values, dtype=teachgrad.float64, requires_grad=True)
    assert gradcheck(teachgrad.sinc, (x,))
    assert gradgradcheck(teachgrad.sinc, (x,))


def test_an_inf_gradient_at_zero_gives_zero():
    x = teachgrad.tensor([0.0, 0.5], dtype=teachgrad.float64, requires_grad=True)
    (g,) = teachgrad.autograd.grad(teachgrad.sinc(x), x, teachgrad.tensor([math.inf, 1.0],
                                                                          dtype=teachgrad.float64))
    assert g[0].item() == 0.0  # the slope at 0 is 0, selected as in PyTorch
    assert g[1].item() == pytest.approx(_series(0.5)[0], rel=1e-15)


@pytest.mark.torch
@pytest.mark.parametrize("a", NEAR_ZERO + [0.5, 1.0, 2.5, -3.25])
def test_derivatives_match_torch_or_are_closer_to_the_truth(a):
    torch = pytest.importorskip("torch")
    ours = _derivatives(teachgrad, a, teachgrad.float64)
    theirs = _derivatives(torch, a, torch.float64)
    true = _series(a) if abs(a) < 1 else theirs
    for mine, their, exact in zip(ours, theirs, true):
        if math.isnan(their) or their != pytest.approx(exact, rel=1e-12, abs=0):
            assert a in (0.0, 1e-12, -1e-8, 1e-4)  # where PyTorch's closed form cancels
            assert mine == pytest.approx(exact, rel=1e-14)
        else:
            assert mine == pytest.approx(their, rel=1e-12, abs=1e-300)
