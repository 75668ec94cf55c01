"""igamma / igammac (torch.special.gammainc / gammaincc): values, edges, gradients, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd import gradcheck, gradgradcheck

INF = math.inf


def f64(values, requires_grad=False):
    return teachgrad.tensor(values, dtype=teachgrad.float64, requires_grad=requires_grad)


def test_closed_forms():
    x = np.array([0.1, 0.5, 1.0, 3.0, 10.0, 40.0])
    # P(1, x) = 1 − e^(−x): the exponential distribution's CDF.
    np.testing.assert_allclose(teachgrad.igamma(f64([1.0] * 6), f64(x)).numpy(),
                               1 - np.exp(-x), rtol=1e-13)
    # P(1/2, x) = erf(√x): the chi-square distribution with one degree of freedom.
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(teachgrad.special.gammainc(f64([0.5] * 6), f64(x)).numpy(),
                               erf(np.sqrt(x)), rtol=1e-12)
    # P(2, x) = 1 − (1 + x)e^(−x), and Q = 1 − P.
    np.testing.assert_allclose(teachgrad.special.gammaincc(f64([2.0] * 6), f64(x)).numpy(),
                               (1 + x) * np.exp(-x), rtol=1e-12)


def test_edges_are_pytorchs():
    # PyTorch 2.13's values: P(0, x>0) = 1, P(a, 0) = 0, P(a, ∞) = 1, P(∞, x) = 0, and NaN
    # for negative arguments, P(0, 0) and P(∞, ∞).
    a = [0.0, 1.0, 2.0, INF, -1.0, 1.0, 0.0, INF]
    x = [1.0, 0.0, INF, 1.0, 1.0, -1.0, 0.0, INF]
    p = teachgrad.igamma(f64(a), f64(x)).numpy()
    np.testing.assert_array_equal(p, [1, 0, 1, 0, np.nan, np.nan, np.nan, np.nan])
    q = teachgrad.igammac(f64(a), f64(x)).numpy()
    np.testing.assert_array_equal(q, [0, 1, 0, 1, np.nan, np.nan, np.nan, np.nan])


def test_gradients_in_both_arguments():
    a = f64([0.5, 2.0, 7.0, 30.0], requires_grad=True)
    x = f64([0.3, 2.5, 9.0, 25.0], requires_grad=True)
    assert gradcheck(teachgrad.igamma, (a, x))
    assert gradcheck(teachgrad.igammac, (a, x))
    assert gradgradcheck(lambda x: teachgrad.igamma(a.detach(), x), (x,))


def test_gradient_in_x_is_the_gamma_density():
    a, x = f64([3.0]), f64([2.0], requires_grad=True)
    teachgrad.igamma(a, x).backward()
    # x^(a−1) e^(−x) / Γ(a) = 4 e^(−2) / 2
    assert x.grad.item() == pytest.approx(2 * math.exp(-2), rel=1e-13)


def test_second_derivative_in_the_shape_refuses():
    a = f64([2.0], requires_grad=True)
    (g,) = teachgrad.autograd.grad(teachgrad.igamma(a, f64([1.5])).sum(), a, create_graph=True)
    with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input'"):
        g.sum().backward()


def test_names_dtypes_and_errors():
    y = teachgrad.igammac(f64([1.0], requires_grad=True), f64([2.0]))
    assert y.grad_fn.name() == "IgammacBackward0"
    assert teachgrad.tensor([1.0]).igamma(f64([2.0])).dtype == teachgrad.float64
    with pytest.raises(NotImplementedError, match="\"igamma_cpu\" not implemented for 'Long'"):
        teachgrad.igamma(teachgrad.tensor([1]), teachgrad.tensor([1]))


@pytest.mark.torch
def test_values_and_x_gradients_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a = rng.gamma(2.0, 3.0, 200)
    x = rng.gamma(2.0, 3.0, 200)
    for name in ("igamma", "igammac"):
        ours_x = f64(x, requires_grad=True)
        theirs_x = torch.tensor(x, requires_grad=True)
        ours = getattr(teachgrad, name)(f64(a), ours_x)
        theirs = getattr(torch, name)(torch.tensor(a), theirs_x)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                   rtol=1e-9, atol=1e-15)
        ours.sum().backward()
        theirs.sum().backward()
        np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol=1e-9)
        assert ours.grad_fn.name() == theirs.grad_fn.name()
