"""prod and cumprod gradients with zeros, infinities and infinite incoming gradients.

The gradient of a product is the product of the *other* factors. PyTorch computes it as
``result / input`` when there is no zero, as two running products when there is one
(no division), and as plain zeros when a whole-tensor ``prod`` has two zeros (every
product of the others contains one). cumprod leaves out the terms whose product has a
zero factor, so everything after the first zero gets exactly 0.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from vjp import vjp

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

INF, NAN = math.inf, math.nan


def test_prod_with_two_zeros_gives_zeros_even_for_an_inf_gradient():
    assert vjp(lambda x: x.prod(), [2.0, 0.0, 3.0, 0.0], INF).tolist() == [0.0] * 4


def test_prod_with_one_zero_by_hand():
    # ∂(a·0·c)/∂b = a·c; the others' products contain the zero: 0, times the gradient.
    assert vjp(lambda x: x.prod(), [2.0, 0.0, 3.0], 1.0).tolist() == [0.0, 6.0, 0.0]
    assert vjp(lambda x: x.prod(1), [[2.0, 0.0, 3.0]], -1.0).tolist() == [[-0.0, -6.0, -0.0]]


def test_prod_of_an_infinite_element_alone_has_slope_one():
    assert vjp(lambda x: x.prod(), INF, 2.0).tolist() == 2.0  # not inf / inf
    assert vjp(lambda x: x.prod(0), INF, 2.0).tolist() == 2.0


def test_a_product_with_inf_and_zero_gives_nan_as_ieee():
    # The others of the 3 are inf and 0: inf · 0 is nan (not 0 as if the zero won).
    g = vjp(lambda x: x.prod(), [INF, 3.0, 0.0], 1.0)
    assert g[0] == 0.0 and np.isnan(g[1]) and g[2] == INF  # 3·0, inf·0, inf·3


def test_cumprod_after_the_first_zero_is_exactly_zero():
    # cumprod [2, 0, 3, 4] = [2, 0, 0, 0]: the elements after the zero do not move any
    # output; an inf or nan gradient there must not turn into inf·0 = nan.
    for upstream in (INF, NAN, -2.0):
        g = vjp(lambda x: x.cumprod(0), [2.0, 0.0, 3.0, 4.0], upstream)
        assert g[2:].tolist() == [0.0, 0.0]
    # By hand, with gradient 1: ∂/∂a0 = 1 (only out0 moves with it), ∂/∂a1 = a0·(1 + a2 + a2·a3).
    assert vjp(lambda x: x.cumprod(0), [2.0, 0.0, 3.0, 4.0], 1.0).tolist() == [
        1.0, 2.0 * (1 + 3 + 12), 0.0, 0.0]


@pytest.mark.parametrize("values", [[[1.5, 0.0, 2.0], [0.0, 0.0, 3.0]],
                                    [[1.5, -2.0, 2.0], [0.5, 1.0, 3.0]],
                                    [[0.0, 0.0, 2.0], [1.0, 0.0, 3.0]]])
def test_first_and_second_derivatives_match_finite_differences(values):
    x = teachgrad.tensor(values, dtype=teachgrad.float64, requires_grad=True)
    for fn in (lambda t: t.prod(), lambda t: t.prod(1), lambda t: t.prod(0),
               lambda t: t.cumprod(1), lambda t: t.cumprod(0)):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


PRODUCTS = ["prod", "prod(1)", "prod(0, keepdim)", "prod of 0-d"]


# (cumprod of inf or nan elements: see the last test, teachgrad does not divide there)
@pytest.mark.torch
@pytest.mark.parametrize(("name", "nonfinite_inputs"),
                         [(name, False) for name in PRODUCTS + ["cumprod(1)", "cumprod(0)"]]
                         + [(name, True) for name in PRODUCTS])
def test_gradients_match_torch(name, nonfinite_inputs):
    torch = pytest.importorskip("torch")
    cases = {"prod": lambda x: x.prod(), "prod(1)": lambda x: x.prod(1),
             "prod(0, keepdim)": lambda x: x.prod(0, keepdim=True),
             "prod of 0-d": lambda x: x[0, 0].prod(), "cumprod(1)": lambda x: x.cumprod(1),
             "cumprod(0)": lambda x: x.cumprod(0)}
    rng = np.random.default_rng(len(name))
    pool = [0.0, 1.5, -2.0, 0.5, 3.0] + ([NAN, INF] if nonfinite_inputs else [])
    for _ in range(150):
        values = rng.choice(pool, (3, 4))
        upstream = rng.choice([1.0, -2.0, INF, NAN, 0.5])
        results = []
        for lib in (torch, teachgrad):
            x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
            y = cases[name](x)
            (g,) = lib.autograd.grad(y, x, lib.full_like(y, upstream))
            results.append((y.detach().numpy(), g.numpy()))
        (y_t, g_t), (y_g, g_g) = results
        np.testing.assert_allclose(y_g, y_t, rtol=1e-12)
        np.testing.assert_allclose(g_g, g_t, rtol=1e-11, atol=1e-14)


def test_cumprod_rows_without_zeros_divide_as_pytorch_whatever_other_rows_hold():
    # [0.5, 1.5, inf, 0.5] with gradient 1: PyTorch divides Σ_{k≥i} grad·out_k by a_i, so
    # ∂/∂a2 is inf / inf = nan (the exact value would be a0·a1 + a0·a1·a3 = 1.125). A zero
    # in another row used to switch teachgrad to the exact route for every row; a row's
    # gradient now depends on that row only, as PyTorch's. The row with a zero:
    # [2, 0, 1, 1] gives 1 before the zero, 2·(1 + 1 + 1) = 6 at it, 0 after.
    g = vjp(lambda x: x.cumprod(1), [[0.5, 1.5, INF, 0.5], [2.0, 0.0, 1.0, 1.0]], 1.0)
    alone = vjp(lambda x: x.cumprod(1), [[0.5, 1.5, INF, 0.5]], 1.0)
    assert np.isnan(g[0, 2]) and np.array_equal(g[:1], alone, equal_nan=True)
    assert g[1].tolist() == [1.0, 6.0, 0.0, 0.0]


def test_cumprod_double_backward_at_zeros_by_hand_and_its_graph():
    # L = x0² + (x0·x1)² + (x0·x1·x2)² at (1, 0, 3): ∂L/∂x = (2, 0, 0) and the gradient of
    # Σ ∂L/∂x is (2, 2·x0² + 2·x0²·x2², 0) = (2, 20, 0).
    x = teachgrad.tensor([1.0, 0.0, 3.0], dtype=teachgrad.float64, requires_grad=True)
    (g,) = teachgrad.autograd.grad((x.cumprod(0) ** 2).sum(), x, create_graph=True)
    (g2,) = teachgrad.autograd.grad(g.sum(), x)
    assert g.tolist() == [2.0, 0.0, 0.0] and g2.tolist() == [2.0, 20.0, 0.0]
    # PyTorch's O(n²) formula: each row k written into zeros in turn (a CopySlices each)
    names, fn = [], g.grad_fn
    while fn is not None:
        names.append(fn.name())
        fn = fn.next_functions[0][0]
    assert names == ["torch::autograd::CopySlices"] * 3


@pytest.mark.torch
@pytest.mark.parametrize("values, dim", [
    ([1.0, 0.0, 3.0], 0), ([0.0, 2.0, 0.0, 5.0], 0), ([[1.0, 0.0], [2.0, 3.0]], 0),
    ([[1.0, 0.0, 2.0], [2.0, 3.0, 0.0]], 1), ([0.0, INF, 2.0], 0),
])
def test_cumprod_double_backward_graph_at_zeros_is_pytorchs(values, dim):
    real = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad((x.cumprod(dim) * x.cumprod(dim)).sum(), x,
                                 create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), x)

        def walk(fn, depth=8):
            if fn is None or depth == 0:
                return None
            return (fn.name(), tuple(walk(n, depth - 1) for n, _ in fn.next_functions))

        return (str(walk(g.grad_fn)).replace("teachgrad", "torch"), str(g.tolist()),
                str(g2.tolist()))  # (as text: nan == nan there)

    assert run(teachgrad) == run(real)
