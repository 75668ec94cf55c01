"""``teachgrad.utils.checkpoint``: gradients as without checkpointing (hand-derived, and
against PyTorch where installed), less kept for backward, PyTorch's errors and warnings."""

from __future__ import annotations

import gc
import math
import subprocess
import sys
import warnings
import weakref
from pathlib import Path

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

BOTH = pytest.mark.parametrize("reentrant", [True, False], ids=["reentrant", "non-reentrant"])


def exp_times(t):
    return t.exp() * t  # d/dt = eᵗ (1 + t)


@BOTH
def test_gradient_is_the_hand_derived_one(reentrant):
    x = torch.tensor([0.0, 1.0, -2.0], requires_grad=True)
    y = checkpoint(exp_times, x, use_reentrant=reentrant)
    y.sum().backward()
    want = [math.exp(v) * (1 + v) for v in (0.0, 1.0, -2.0)]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)


@BOTH
def test_the_function_runs_again_in_backward(reentrant):
    calls = []

    def function(t):
        calls.append("run")
        return exp_times(t)

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(function, x, use_reentrant=reentrant)
    assert calls == ["run"]
    y.sum().backward()
    assert calls == ["run", "run"]


@BOTH
def test_what_the_ops_inside_save_is_not_kept(reentrant):
    """Without checkpoint the graph keeps exp's output (its backward needs it); with it,
    the array is freed as soon as forward is done."""
    kept = []

    def function(t):
        e = t.exp()
        kept.append(weakref.ref(e._data))
        return e * t

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    plain = function(x)
    gc.collect()
    assert kept[0]() is not None  # the reference point: saved by the graph
    held = checkpoint(function, x, use_reentrant=reentrant)
    gc.collect()
    assert kept[1]() is None
    held.sum().backward()
    plain.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]) * [2.0, 3.0], rtol=1e-6)


def test_non_reentrant_records_the_ops_themselves_and_works_with_autograd_grad():
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    y = checkpoint(lambda t: (t.exp() * 2).sin(), x, use_reentrant=False)
    assert type(y.grad_fn).__name__ == "SinBackward0"
    (g,) = torch.autograd.grad(y.sum(), x)
    v = np.array([0.5, -1.0])
    np.testing.assert_allclose(g.numpy(), np.cos(2 * np.exp(v)) * 2 * np.exp(v), rtol=1e-5)


def test_non_reentrant_backward_twice_with_retain_graph_recomputes_again():
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    total = checkpoint(exp_times, x, use_reentrant=False).sum()
    total.backward(retain_graph=True)
    first = x.grad.clone()
    total.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first.numpy())


def test_reentrant_is_one_node_and_refuses_autograd_grad_and_inputs():
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    y = checkpoint(exp_times, x, use_reentrant=True)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"
    message = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
               "or passing an `inputs` parameter to .backward().")
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace(".", r"\.")):
        torch.autograd.grad(y.sum(), x)
    with pytest.raises(RuntimeError, match="incompatible with .grad"):
        y.sum().backward(inputs=[x])


def test_without_use_reentrant_it_warns_and_is_reentrant():
    x = torch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed"):
        y = checkpoint(exp_times, x)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"


def test_reentrant_warns_when_no_input_requires_grad():
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(exp_times, torch.ones(2), use_reentrant=True)
    assert not y.requires_grad


def test_keyword_arguments_only_without_reentrant():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda a, b=1.0: a * b * a, x, b=3.0, use_reentrant=False)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])  # d(3a²)/da = 6a
    with pytest.raises(ValueError, match="Unexpected keyword arguments: b"):
        checkpoint(lambda a, b=1.0: a * b, x, b=3.0, use_reentrant=True)


@BOTH
def test_dropout_draws_the_same_mask_when_recomputed(reentrant):
    torch.manual_seed(0)
    drop = torch.nn.Dropout(0.5)
    a = torch.ones(64, requires_grad=True)
    y = checkpoint(lambda t: drop(t) * t, a, use_reentrant=reentrant)
    y.sum().backward()
    kept = (y != 0).float()  # y = 2·mask·a², so d/da = 4·mask·a
    assert 0 < kept.sum().item() < 64
    assert torch.equal(a.grad, kept * 4)


def test_an_input_changed_in_place_before_backward_is_an_error():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = x * 1.0
    y = checkpoint(exp_times, w, use_reentrant=False)
    with torch.no_grad():
        w.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_a_recomputation_saving_less_is_a_checkpoint_error():
    runs = []

    def changes(a):
        runs.append(1)
        return a.exp().exp() if len(runs) == 1 else a.exp()

    y = checkpoint(changes, torch.ones(3, requires_grad=True), use_reentrant=False)
    with pytest.raises(CheckpointError) as error:
        y.sum().backward()
    assert str(error.value).startswith(
        "torch.utils.checkpoint: A different number of tensors was saved during the original "
        "forward and recomputation.\nNumber of tensors saved during forward: 2\nNumber of "
        "tensors saved during recomputation: 1."
    )


def test_a_recomputation_with_other_shapes_is_a_checkpoint_error():
    runs = []

    def changes(a):
        runs.append(1)
        return a.exp() if len(runs) == 1 else a[:2].exp()

    y = checkpoint(changes, torch.ones(3, requires_grad=True), use_reentrant=False)
    with pytest.raises(CheckpointError) as error:
        y.sum().backward()
    assert str(error.value).startswith(
        "torch.utils.checkpoint: Recomputed values for the following tensors have different "
        "metadata than during the forward pass.\ntensor at position 0:\nsaved metadata: "
        "{'shape': teachgrad.Size([3]), 'dtype': teachgrad.float32, 'device': "
        "device(type='cpu')}\nrecomputed metadata: {'shape': teachgrad.Size([2]), 'dtype': "
        "teachgrad.float32, 'device': device(type='cpu')}\n."
    )


@BOTH
def test_checkpoint_sequential_gives_the_plain_gradients(reentrant):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 4),
                                torch.nn.Tanh(), torch.nn.Linear(4, 1))
    x = torch.randn(5, 3, requires_grad=True)
    model(x).sum().backward()
    plain = [x.grad.clone()] + [p.grad.clone() for p in model.parameters()]
    x.grad = None
    model.zero_grad()
    checkpoint_sequential(model, 2, x, use_reentrant=reentrant).sum().backward()
    for want, got in zip(plain, [x.grad] + [p.grad for p in model.parameters()]):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


def test_bad_options_are_refused_as_in_pytorch():
    x = torch.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(exp_times, x, use_reentrant=False, determinism_check="x")
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported"):
        checkpoint(exp_times, x, use_reentrant=True, debug=True)


def test_under_no_grad_nothing_is_recorded():
    with torch.no_grad():
        y = checkpoint(exp_times, torch.ones(2, requires_grad=True), use_reentrant=False)
    assert not y.requires_grad and y.grad_fn is None


PROGRAM = Path(__file__).with_name("fixtures") / "checkpoint_program.py"


def test_the_same_program_prints_what_pytorch_prints():
    """tests/fixtures/checkpoint_program.py run by PyTorch and by teachgrad (as torch)."""
    pytest.importorskip("torch")

    def run(which: str) -> str:
        result = subprocess.run([sys.executable, str(PROGRAM), which], capture_output=True,
                                text=True, timeout=120, cwd=PROGRAM.parent.parent.parent)
        assert result.returncode == 0, result.stderr
        return result.stdout

    with warnings.catch_warnings():
        assert run("teachgrad") == run("torch")


def test_checkpoints_nest():
    x = torch.tensor([0.5, 1.0], requires_grad=True)

    def inner(t):
        return t.exp() * t

    def outer(t):
        return checkpoint(inner, t.sin(), use_reentrant=False).cos()

    checkpoint(outer, x, use_reentrant=False).sum().backward()
    v = np.array([0.5, 1.0])
    s = np.sin(v)  # d/dx cos(eˢ·s) = −sin(eˢ·s) · eˢ(1 + s) · cos(x)
    want = -np.sin(np.exp(s) * s) * np.exp(s) * (1 + s) * np.cos(v)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5)
