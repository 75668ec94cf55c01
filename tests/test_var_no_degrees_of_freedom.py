"""var/std backward with no degrees of freedom left (N ≤ correction).

The slope 2·(xᵢ − mean)/(N − correction) divides by zero. Over all elements (no ``dim``,
or a 0-d tensor) PyTorch 2.13 then returns a constant, in no graph: +inf, nan where xᵢ
equals the mean (0/0). With ``dim`` given it keeps the formula. The values pinned here
follow from that rule by hand; the torch-marked test compares many spellings with PyTorch.
"""

from __future__ import annotations

import math
import warnings

import pytest

import teachgrad as torch


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (the degrees-of-freedom warning)
        yield


@pytest.mark.parametrize("reduce", [
    lambda x: x.var(), lambda x: x.var(0), lambda x: x.var(0, keepdim=True),
    lambda x: torch.var_mean(x)[0],
])
def test_the_gradient_of_a_0d_variance_is_a_constant_nan_without_graph(reduce):
    x = torch.tensor(2.0, requires_grad=True)
    (g,) = torch.autograd.grad(reduce(x), x, create_graph=True)
    assert math.isnan(g.item())
    assert g.grad_fn is None and not g.requires_grad


def test_over_all_elements_the_slope_is_inf_or_nan_where_x_is_the_mean():
    x = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
    x.var(correction=3).backward(torch.tensor(-2.0))
    assert x.grad.tolist() == [-math.inf] * 3  # not ±inf by the sign of x - mean
    y = torch.tensor([3.0, 3.0], requires_grad=True)
    y.var(correction=2).backward()
    assert all(math.isnan(v) for v in y.grad.tolist())


def test_with_dim_given_the_formula_stays():
    x = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
    x.var(0, correction=4).backward()  # 2·(x − 7/3)/(3 − 4)
    assert x.grad.tolist() == pytest.approx([8 / 3, 2 / 3, -10 / 3])


def test_an_unused_mean_adds_nothing_to_var_means_gradient_graph():
    x = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
    for pair in (torch.var_mean, torch.std_mean):
        (g,) = torch.autograd.grad(pair(x)[0], x, create_graph=True)
        assert g.grad_fn.name() == "MulBackward0"  # (was AddBackward0: + zeros)
    (g,) = torch.autograd.grad(torch.var_mean(x)[1], x, create_graph=True)
    assert g.tolist() == pytest.approx([1 / 3] * 3) and g.grad_fn is None


SPELLINGS = [
    "x.var()", "x.var(0)", "x.var(0, keepdim=True)", "x.std()", "x.std(0, keepdim=True)",
    "x.reshape(1).var(0)", "x.reshape(1).var()", "x.reshape(1).std()",
    "(x * torch.tensor([1., 2., 3.])).var(correction=3)",
    "(x * torch.tensor([1., 2., 3.])).var(0, correction=3)",
    "(x * torch.tensor([1., 2., 3.])).std(correction=3)",
    "(x * torch.tensor([1., 1., 1.])).std(correction=4)",
    "torch.var_mean(x)[0]", "torch.std_mean(x)[0]",
]


@pytest.mark.torch
@pytest.mark.parametrize("value", [2.0, 0.0, float("nan"), float("inf")])
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_same_gradients_and_graphs_as_pytorch(spelling, value):
    real = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor(value, requires_grad=True)
        (g,) = lib.autograd.grad(eval(spelling, {"torch": lib, "x": x}), x, create_graph=True)
        return repr(g.item()), g.grad_fn.name() if g.grad_fn is not None else None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert run(torch) == run(real)
