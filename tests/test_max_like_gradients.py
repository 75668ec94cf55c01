"""Gradients of the max-like reductions with nan inputs, ties and infinite gradients.

PyTorch has two rules, and teachgrad follows each where PyTorch uses it:

- ``amax``/``amin``/``aminmax`` and the inf-norm multiply: ``grad / k · mask`` over the k
  elements equal to the result (``scale_grad_by_count``). A slice whose result is nan has
  no such element (nan equals nothing): ``grad / 0 · 0`` is nan for the whole slice. An
  ``inf`` gradient gives nan at the other elements, a negative one ``-0.``.
- ``max()``/``min()`` of all elements select: the k winners (nan counting as equal to nan)
  get ``grad / k``, the others exactly 0.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad

NAN, INF = math.nan, math.inf


def _grad(fn, values, upstream=1.0):
    x = teachgrad.tensor(values, dtype=teachgrad.float64, requires_grad=True)
    y = fn(x)
    (g,) = teachgrad.autograd.grad(y, x, teachgrad.full_like(y, upstream))
    return g.numpy()


# ----------------------------------------------------------------------------------------
# Without torch: PyTorch's two rules, worked by hand
# ----------------------------------------------------------------------------------------
def test_amax_with_a_nan_gives_the_whole_slice_a_nan_gradient():
    g = _grad(lambda x: x.amax(1), [[1.0, NAN, 2.0], [0.0, 5.0, 4.0]])
    assert np.isnan(g[0]).all()  # the result nan: no winner, 1 / 0 · 0
    assert g[1].tolist() == [0.0, 1.0, 0.0]  # the other slice is unaffected


def test_amin_and_aminmax_with_a_nan_too():
    values = [[1.0, NAN, 2.0], [0.0, 5.0, 4.0]]
    assert np.isnan(_grad(lambda x: x.amin(1), values)[0]).all()
    for which in (0, 1):
        g = _grad(lambda x, which=which: teachgrad.aminmax(x, dim=1)[which], values)
        assert np.isnan(g[0]).all() and not np.isnan(g[1]).any()


def test_amax_ties_share_and_an_inf_gradient_spreads_nan():
    assert _grad(lambda x: x.amax(), [3.0, 3.0, 1.0]).tolist() == [0.5, 0.5, 0.0]
    g = _grad(lambda x: x.amax(), [3.0, 1.0, 2.0], INF)
    assert g[0] == INF and np.isnan(g[1:]).all()  # inf / 1 · 0 = nan, as PyTorch's product


def test_amax_of_a_negative_gradient_gives_minus_zero_as_pytorch_prints():
    x = teachgrad.tensor([1.0, 3.0], requires_grad=True)
    (x.amax() * -2).backward()
    assert str(x.grad) == "tensor([-0., -2.])"


def test_max_of_all_elements_selects_its_winners():
    g = _grad(lambda x: x.max(), [1.0, NAN, 2.0, NAN], INF)
    assert g.tolist()[0] == 0.0 and g.tolist()[2] == 0.0  # selected: exactly 0, not nan
    assert g[1] == INF and g[3] == INF  # the two nans share the gradient (inf / 2)


def test_aminmax_sends_nothing_from_an_unused_output():
    # Only max is used: its gradient alone, -0. elsewhere (no +0 from an unused min).
    x = teachgrad.tensor([[1.0, 3.0, 2.0]], requires_grad=True)
    low, high = teachgrad.aminmax(x, dim=1)
    (g,) = teachgrad.autograd.grad(high, x, teachgrad.tensor([-2.0]))
    assert g.tolist() == [[0.0, -2.0, 0.0]] and np.signbit(g.numpy()).all()
    # Both used: each output's gradient at its own winners.
    g = _grad(lambda t: teachgrad.aminmax(t, dim=1)[0] * 2 + teachgrad.aminmax(t, dim=1)[1] * 3,
              [[1.0, 3.0, 2.0]])
    assert g.tolist() == [[2.0, 3.0, 0.0]]


def test_inf_norm_with_a_nan_sends_zero_back():
    # PyTorch: sgn(a) · (grad / k · mask), the nan in the mask, and sgn(nan) = 0.
    g = _grad(lambda x: teachgrad.linalg.vector_norm(x, INF), [1.0, NAN, -2.0])
    assert g.tolist() == [0.0, 0.0, 0.0]
    g = _grad(lambda x: teachgrad.linalg.vector_norm(x, INF), [1.0, -3.0, 3.0])
    assert g.tolist() == [0.0, -0.5, 0.5]


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
CASES = {
    "max()": lambda lib, x: x.max(),
    "min()": lambda lib, x: x.min(),
    "amax()": lambda lib, x: x.amax(),
    "amin()": lambda lib, x: x.amin(),
    "amax(1)": lambda lib, x: x.amax(1),
    "amin(1)": lambda lib, x: x.amin(1),
    "amax(0, keepdim)": lambda lib, x: x.amax(0, keepdim=True),
    "amax((0, 1))": lambda lib, x: x.amax((0, 1)),
    "max(1)": lambda lib, x: x.max(1)[0],
    "min(1)": lambda lib, x: x.min(1)[0],
    "aminmax().min": lambda lib, x: lib.aminmax(x)[0],
    "aminmax().max": lambda lib, x: lib.aminmax(x)[1],
    "aminmax() both": lambda lib, x: lib.aminmax(x)[0] * 2 + lib.aminmax(x)[1] * 3,
    "aminmax(dim=1).min": lambda lib, x: lib.aminmax(x, dim=1)[0],
    "aminmax(dim=1).max": lambda lib, x: lib.aminmax(x, dim=1)[1],
    "aminmax(dim=0, keepdim) both": lambda lib, x: (
        lib.aminmax(x, dim=0, keepdim=True)[0] * 2 + lib.aminmax(x, dim=0, keepdim=True)[1] * 3),
    "median()": lambda lib, x: x.median(),
    "median(1)": lambda lib, x: x.median(1)[0],
    "vector_norm(inf)": lambda lib, x: lib.linalg.vector_norm(x, INF),
    "vector_norm(-inf)": lambda lib, x: lib.linalg.vector_norm(x, -INF),
    "vector_norm(inf, 1)": lambda lib, x: lib.linalg.vector_norm(x, INF, dim=1),
}
INPUTS = {
    "plain": [[1.0, 3.0, 2.0, -1.0], [0.0, -2.0, 5.0, 4.0]],
    "ties": [[3.0, 3.0, 2.0, -1.0], [5.0, -2.0, 5.0, 5.0]],
    "nan": [[1.0, NAN, 2.0, -1.0], [0.0, -2.0, 5.0, 4.0]],
    "two nans": [[NAN, NAN, 2.0, -1.0], [0.0, -2.0, 5.0, NAN]],
    "nan and ties": [[3.0, NAN, 3.0, -1.0], [-2.0, -2.0, 5.0, 4.0]],
    "infinities": [[1.0, INF, 2.0, -INF], [0.0, -2.0, 5.0, 4.0]],
    "all nan": [[NAN, NAN, NAN, NAN], [0.0, -2.0, 5.0, 4.0]],
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("inputs", sorted(INPUTS))
@pytest.mark.parametrize("upstream", [1.0, -2.0, INF, NAN])
def test_values_and_gradients_match_torch_exactly(name, inputs, upstream):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, teachgrad):
        x = lib.tensor(INPUTS[inputs], dtype=lib.float64, requires_grad=True)
        y = CASES[name](lib, x)
        (g,) = lib.autograd.grad(y, x, lib.full_like(y, upstream))
        results.append((y.detach().numpy(), g.numpy()))
    (y_t, g_t), (y_g, g_g) = results
    np.testing.assert_array_equal(y_g, y_t)
    np.testing.assert_array_equal(g_g, g_t)
    zeros = g_t == 0
    assert np.array_equal(np.signbit(g_g[zeros]), np.signbit(g_t[zeros]))  # -0. as PyTorch


# ----------------------------------------------------------------------------------------
# Vector norms of every order, with zeros, nans and infinities
# ----------------------------------------------------------------------------------------
def test_one_norm_sends_zero_to_a_nan_element():
    g = _grad(lambda x: teachgrad.linalg.vector_norm(x, 1), [1.0, NAN, -2.0])
    assert g.tolist() == [1.0, 0.0, -1.0]  # sgn(a), and sgn(nan) = 0 as in PyTorch


def test_two_norm_of_zeros_multiplies_as_pytorch():
    # grad · (a / ‖a‖, 0 where ‖a‖ = 0): a finite gradient gives 0, an inf one nan.
    assert _grad(lambda x: teachgrad.linalg.vector_norm(x), [0.0, 0.0]).tolist() == [0.0, 0.0]
    assert np.isnan(_grad(lambda x: teachgrad.linalg.vector_norm(x), [0.0, 0.0], INF)).all()


NORM_INPUTS = {
    "plain": [[1.0, -3.0, 2.0, 0.5], [0.0, -2.0, 5.0, 4.0]],
    "a zero row": [[0.0, 0.0, 0.0, 0.0], [0.0, -2.0, 5.0, 4.0]],
    "nan": [[1.0, NAN, 2.0, 0.0], [0.0, -2.0, 5.0, 4.0]],
    "infinities": [[1.0, INF, 2.0, 0.0], [0.0, -2.0, 5.0, -INF]],
    "some zeros": [[0.0, -3.0, 0.0, 0.5], [1.0, 1.0, 1.0, 1.0]],
}


@pytest.mark.torch
@pytest.mark.parametrize("order", [2, 1, 0, 3, 1.5, 0.5, -1, INF, -INF])
@pytest.mark.parametrize("dim", [None, 1])
@pytest.mark.parametrize("inputs", sorted(NORM_INPUTS))
def test_vector_norm_gradients_match_torch(order, dim, inputs):
    torch = pytest.importorskip("torch")
    for upstream in (1.0, -2.0, INF, NAN):
        results = []
        for lib in (torch, teachgrad):
            x = lib.tensor(NORM_INPUTS[inputs], dtype=lib.float64, requires_grad=True)
            y = lib.linalg.vector_norm(x, order, dim=dim)
            (g,) = lib.autograd.grad(y, x, lib.full_like(y, upstream), allow_unused=True)
            results.append((y.detach().numpy(), np.zeros(x.shape) if g is None else g.numpy()))
        (y_t, g_t), (y_g, g_g) = results
        np.testing.assert_allclose(y_g, y_t, rtol=1e-12)
        np.testing.assert_allclose(g_g, g_t, rtol=1e-12, atol=0)
