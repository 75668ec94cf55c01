"""scatter_reduce(reduce='prod'): first and second derivatives, zeros included, as PyTorch.

Each factor's gradient is the product of the other factors at its position. PyTorch finds
it without dividing by zero and differentiates that formula again; it refuses the second
derivative only when two zero sources reach one position (there the first derivative is
not smooth), with its own message, raised when the second derivative is asked for.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

INDEX = [0, 0, 1, 2, 2, 2]
CASES = {  # (self, src): with no zero, a zero self, one zero source per position...
    "no zeros": ([1.5, 2.0, -0.5, 4.0], [0.7, 3.0, -1.2, 5.0, 0.3, 2.0]),
    "a zero self": ([1.5, 0.0, -0.5, 4.0], [0.7, 3.0, 0.0, 5.0, 0.3, 2.0]),
    "one zero source per position": ([1.5, 2.0, 0.0, 4.0], [0.0, 3.0, 0.0, 5.0, 0.0, 2.0]),
    "zero self and zero source": ([0.0, 2.0, 0.0, 4.0], [0.0, 3.0, 1.0, 5.0, 0.0, 2.0]),
}
TWO_ZEROS_MESSAGE = ("scatter_reduce(): Double backward is unsupported for src when >1 zeros "
                     "in src are scattered to the same position in self")


def _leaves(self_values, src_values):
    return (teachgrad.tensor(self_values, dtype=teachgrad.float64, requires_grad=True),
            teachgrad.tensor(src_values, dtype=teachgrad.float64, requires_grad=True))


def _prod(include_self):
    index = teachgrad.tensor(INDEX)
    return lambda a, s: a.scatter_reduce(0, index, s, "prod", include_self=include_self)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("include_self", [True, False])
def test_first_and_second_derivatives_match_finite_differences(case, include_self):
    a, s = _leaves(*CASES[case])
    assert gradcheck(_prod(include_self), (a, s))
    assert gradgradcheck(_prod(include_self), (a, s))


def test_second_derivatives_by_hand():
    # out = a · s0 · s1 (one position). ∂out/∂s0 = a·s1, so ∂²out/∂s0∂a = s1, ∂²/∂s0∂s1 = a,
    # and at s0 = 0 these stay: the zero is not divided by.
    a, s = _leaves([2.0], [0.0, 3.0])
    out = a.scatter_reduce(0, teachgrad.tensor([0, 0]), s, "prod")
    ga, gs = teachgrad.autograd.grad(out, (a, s), create_graph=True)
    assert ga.tolist() == [0.0] and gs.tolist() == [6.0, 0.0]
    (d_a, d_s) = teachgrad.autograd.grad(gs[0], (a, s))
    assert d_a.tolist() == [3.0] and d_s.tolist() == [0.0, 2.0]


def test_two_zeros_at_one_position_refuse_only_the_second_derivative():
    a, s = _leaves([2.0, 1.0], [0.0, 0.0, 3.0])
    out = a.scatter_reduce(0, teachgrad.tensor([0, 0, 1]), s, "prod")
    ga, gs = teachgrad.autograd.grad(out.sum(), (a, s), create_graph=True)
    assert ga.tolist() == [0.0, 3.0] and gs.tolist() == [0.0, 0.0, 1.0]  # first: fine
    assert gs.grad_fn.name() == "torch::autograd::Error"
    with pytest.raises(RuntimeError) as error:
        teachgrad.autograd.grad(gs.sum(), s)
    assert str(error.value) == TWO_ZEROS_MESSAGE
    (d_a,) = teachgrad.autograd.grad(ga.sum(), a)  # self's gradient differentiates
    assert d_a.tolist() == [0.0, 0.0]


@pytest.mark.torch
@pytest.mark.parametrize("seed", range(6))
def test_first_and_second_derivatives_and_nodes_match_torch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    for _ in range(40):
        a_values = rng.choice([0.0, 0.0, 1.5, -2.0, 0.5, 3.0], 4)
        s_values = rng.choice([0.0, 0.0, 1.5, -2.0, 0.5, 3.0, -0.7], 6)
        index = rng.integers(0, 4, 6)
        include_self = bool(rng.integers(0, 2))
        v1, v2 = rng.standard_normal(4), rng.standard_normal(10)
        results = []
        for lib in (torch, teachgrad):
            a = lib.tensor(a_values, dtype=lib.float64, requires_grad=True)
            s = lib.tensor(s_values, dtype=lib.float64, requires_grad=True)
            y = a.scatter_reduce(0, lib.tensor(index), s, "prod", include_self=include_self)
            ga, gs = lib.autograd.grad(y, (a, s), lib.tensor(v1), create_graph=True)
            names = (type(ga.grad_fn).__name__, type(gs.grad_fn).__name__)
            try:
                second = lib.autograd.grad((ga * lib.tensor(v2[:4])).sum()
                                           + (gs * lib.tensor(v2[4:])).sum(), (a, s),
                                           allow_unused=True)
                second = [np.zeros(4) if h is None else h.numpy() for h in second]
            except RuntimeError as e:
                second = str(e)
            results.append((y.detach().numpy(), ga.detach().numpy(), gs.detach().numpy(),
                            names, second))
        theirs, ours = results
        for t, o in zip(theirs[:3], ours[:3]):
            np.testing.assert_allclose(o, t, rtol=1e-12, atol=1e-15)
        assert ours[3] == theirs[3]  # DivBackward0 / ScatterBackward1, WhereBackward0 / Error
        if isinstance(theirs[4], str):
            assert ours[4] == theirs[4]
        else:
            for t, o in zip(theirs[4], ours[4]):
                np.testing.assert_allclose(o, t, rtol=1e-12, atol=1e-14)


@pytest.mark.torch
@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin", "prod"])
def test_nan_inputs_and_infinite_gradients_match_torch(reduce):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(reduce))
    for _ in range(150):
        a_values = rng.choice([0.0, 1.5, -2.0, 3.0, np.nan, np.inf], 4,
                              p=[.2, .2, .2, .2, .1, .1])
        s_values = rng.choice([0.0, 1.5, -2.0, 3.0, np.nan, -np.inf], 6,
                              p=[.2, .2, .2, .2, .1, .1])
        index = rng.integers(0, 4, 6)
        include_self = bool(rng.integers(0, 2))
        upstream = rng.choice([1.0, -2.0, np.inf, np.nan, 0.5], 4, p=[.3, .3, .15, .1, .15])
        results = []
        for lib in (torch, teachgrad):
            a = lib.tensor(a_values, dtype=lib.float64, requires_grad=True)
            s = lib.tensor(s_values, dtype=lib.float64, requires_grad=True)
            y = a.scatter_reduce(0, lib.tensor(index), s, reduce, include_self=include_self)
            grads = lib.autograd.grad(y, (a, s), lib.tensor(upstream))
            results.append([y.detach().numpy()] + [g.numpy() for g in grads])
        for t, o in zip(*results):
            np.testing.assert_allclose(o, t, rtol=1e-12, atol=0)
