"""``torch.func.linearize``, ``stack_module_state`` and ``functionalize``."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as tg
from teachgrad import nn
from teachgrad.func import functional_call, functionalize, linearize, stack_module_state, vmap

rng = np.random.default_rng(0)


# --- linearize -------------------------------------------------------------------------------
def test_linearize_value_and_jvp_by_hand():
    x = tg.tensor([0.0, 1.0, 2.0], dtype=tg.float64)
    output, jvp_fn = linearize(lambda x: x.sin() * x, x)
    assert np.allclose(output.numpy(), np.sin(x.numpy()) * x.numpy())
    v = tg.tensor([1.0, -2.0, 0.5], dtype=tg.float64)
    expected = (np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy())) * v.numpy()
    assert np.allclose(jvp_fn(v).numpy(), expected)
    assert np.allclose(jvp_fn(2 * v).numpy(), 2 * expected)  # linear in the tangent


def test_linearize_matches_finite_differences_with_several_inputs():
    a, b = tg.tensor(rng.standard_normal((3, 2))), tg.tensor(rng.standard_normal((2, 4)))

    def f(a, b):
        return (a @ b).tanh(), a.exp().sum()

    _, jvp_fn = linearize(f, a, b)
    da, db = tg.tensor(rng.standard_normal((3, 2))), tg.tensor(rng.standard_normal((2, 4)))
    eps = 1e-6
    up, down = f(a + eps * da, b + eps * db), f(a - eps * da, b - eps * db)
    for got, hi, lo in zip(jvp_fn(da, db), up, down):
        assert np.allclose(got.numpy(), ((hi - lo) / (2 * eps)).numpy(), atol=1e-7)


def test_linearize_keeps_its_point():
    x = tg.zeros(2)
    _, jvp_fn = linearize(tg.sin, x)
    x.add_(np.pi)  # moving the input afterwards does not move the linearisation point
    assert jvp_fn(tg.ones(2)).tolist() == [1.0, 1.0]


def test_linearize_errors():
    _, jvp_fn = linearize(lambda x, y: x * y, tg.zeros(2), tg.ones(2))
    with pytest.raises(RuntimeError, match="tangent:0 with shape .* doesn't match the shape"):
        jvp_fn(tg.ones(3), tg.ones(2))
    with pytest.raises(RuntimeError, match="tangent:1 with dtype .*float64 in flattened pytree"):
        jvp_fn(tg.ones(2), tg.ones(2, dtype=tg.float64))
    with pytest.raises(RuntimeError, match="Expected the tangents .* to have the same argspec"):
        jvp_fn(tg.ones(2))


# --- stack_module_state ------------------------------------------------------------------------
def test_stack_module_state_stacks_new_leaves():
    models = [nn.Linear(3, 2) for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert list(params) == ["weight", "bias"] and buffers == {}
    assert params["weight"].shape == (4, 2, 3)
    assert params["weight"].is_leaf and params["weight"].requires_grad
    for i, model in enumerate(models):
        assert tg.equal(params["weight"][i], model.weight.detach())
    with tg.no_grad():
        params["bias"].zero_()
    assert models[0].bias.abs().sum().item() > 0  # unrelated to the models' own


def test_stack_module_state_runs_an_ensemble_with_vmap():
    models = [nn.Linear(3, 2).double() for _ in range(3)]
    params, buffers = stack_module_state(models)
    x = tg.tensor(rng.standard_normal((5, 3)))
    out = vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)), (0, 0, None))(
        params, buffers, x)
    assert out.shape == (3, 5, 2)
    for i, model in enumerate(models):
        assert tg.allclose(out[i], model(x))


def test_stack_module_state_buffers_and_errors():
    params, buffers = stack_module_state([nn.BatchNorm1d(2) for _ in range(2)])
    assert list(buffers) == ["running_mean", "running_var", "num_batches_tracked"]
    assert buffers["num_batches_tracked"].tolist() == [0, 0]
    assert not buffers["running_mean"].requires_grad
    with pytest.raises(RuntimeError, match="Expected at least one model, got 0"):
        stack_module_state([])
    with pytest.raises(RuntimeError, match="Expected all models to be of the same class"):
        stack_module_state([nn.Linear(2, 2), nn.Identity()])
    with pytest.raises(RuntimeError, match="same training/eval mode"):
        stack_module_state([nn.Linear(2, 2), nn.Linear(2, 2).eval()])
    frozen = nn.Linear(2, 2).requires_grad_(False)
    with pytest.raises(RuntimeError, match="Expected weight from each model to have the same "
                                           r"\.requires_grad"):
        stack_module_state([nn.Linear(2, 2), frozen])


# --- functionalize ----------------------------------------------------------------------------
def test_functionalize_computes_the_same():
    def f(a):
        b = a + 1
        b.view(-1).add_(1)
        return b

    x = tg.tensor([1.0, 2.0])
    assert tg.equal(functionalize(f)(x), f(x))
    assert functionalize(f, remove="mutations_and_views")(x).tolist() == [3.0, 4.0]
    y = tg.zeros(2)
    functionalize(lambda t: t.add_(1))(y)
    assert y.tolist() == [1.0, 1.0]  # input mutations reach the caller, as in PyTorch
    with pytest.raises(RuntimeError, match="received invalid argument for remove=x"):
        functionalize(f, remove="x")


# --- against PyTorch ---------------------------------------------------------------------------
@pytest.mark.torch
def test_match_torch():
    torch = pytest.importorskip("torch")
    a, v = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    results = []
    for lib in (tg, torch):
        out, jvp_fn = lib.func.linearize(lambda x: (x.sin() * x).sum(1), lib.tensor(a))
        results.append((out.numpy(), jvp_fn(lib.tensor(v)).numpy()))
    for ours, theirs in zip(*results):
        assert np.allclose(ours, theirs)
    messages = []
    for lib in (tg, torch):
        with pytest.raises(RuntimeError) as caught:
            lib.func.functionalize(lambda x: x, remove="x")
        messages.append(str(caught.value))
        with pytest.raises(RuntimeError) as caught:
            lib.func.stack_module_state([])
        messages.append(str(caught.value))
    assert messages[:2] == messages[2:]
    ours, _ = stack_module_state([nn.Linear(3, 2) for _ in range(2)])
    theirs, _ = torch.func.stack_module_state([torch.nn.Linear(3, 2) for _ in range(2)])
    assert {k: tuple(p.shape) for k, p in ours.items()} == \
        {k: tuple(p.shape) for k, p in theirs.items()}


def test_linearize_refuses_an_integer_point_at_once():
    # As PyTorch (which traces the JVP when linearize is called): no jvp_fn of zeros later.
    with pytest.raises(ValueError, match="Expected primal to be floating point or complex, "
                       "but got: teachgrad.int64"):
        linearize(lambda x: x * 2, tg.ones(3, dtype=tg.int64))
