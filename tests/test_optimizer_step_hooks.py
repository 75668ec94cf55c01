"""Optimizer step hooks: ``register_step_pre_hook`` / ``register_step_post_hook`` and the
ones for every optimizer (``torch.optim.optimizer.register_optimizer_step_*_hook``).

PyTorch's order: every optimizer's pre-hooks, the optimizer's own, ``step``, its own
post-hooks, every optimizer's post-hooks. A hook is called ``hook(optimizer, args,
kwargs)``, ``args`` starting with the optimizer. The values are derived by hand (SGD:
``w - lr * grad``); the torch-marked test runs the same program with PyTorch.
"""

from __future__ import annotations

import importlib

import pytest

import teachgrad as torch


def _program(lib) -> list:
    optimizer_module = importlib.import_module(lib.__name__ + ".optim.optimizer")
    log = []
    result = []
    w = lib.nn.Parameter(lib.ones(2))
    for cls in (lib.optim.SGD, lib.optim.Adam):
        optimizer = cls([w], lr=0.1)
        handles = [
            optimizer_module.register_optimizer_step_pre_hook(
                lambda o, a, k: log.append(("every pre", type(o).__name__, a[0] is o, k))),
            optimizer_module.register_optimizer_step_post_hook(
                lambda o, a, k: log.append(("every post",))),
            optimizer.register_step_pre_hook(
                lambda o, a, k: log.append(("pre", o.param_groups[0]["params"][0].tolist()))),
            optimizer.register_step_post_hook(
                lambda o, a, k: log.append(("post", o.param_groups[0]["params"][0].tolist()))),
        ]
        try:
            w.grad = lib.ones(2)
            optimizer.step()
        finally:
            for handle in handles:
                handle.remove()
        optimizer.step()  # removed: no more entries
        result.append(log[:])
        log.clear()
    return result


def test_step_hooks_run_around_step_in_pytorchs_order():
    sgd, adam = _program(torch)
    assert [entry[0] for entry in sgd] == ["every pre", "pre", "post", "every post"]
    assert sgd[0] == ("every pre", "SGD", True, {})  # args[0] is the optimizer, no kwargs
    assert sgd[1][1] == [1.0, 1.0]  # before the step
    assert sgd[2][1] == pytest.approx([0.9, 0.9])  # after: 1 - 0.1 * 1 (float32)
    # SGD's second step (hooks removed) left 0.8; Adam's first step moves each weight by
    # lr (m̂ / sqrt(v̂) = 1): 0.8 - 0.1 = 0.7
    assert [entry[0] for entry in adam] == ["every pre", "pre", "post", "every post"]
    assert adam[1][1] == pytest.approx([0.8, 0.8])
    assert adam[2][1] == pytest.approx([0.7, 0.7], abs=1e-6)


def test_a_pre_hook_may_replace_the_arguments():
    w = torch.nn.Parameter(torch.ones(2))
    w.grad = torch.ones(2)
    optimizer = torch.optim.SGD([w], lr=0.5)
    calls = []
    with optimizer.register_step_pre_hook(
            lambda o, args, kwargs: (args, {"closure": lambda: calls.append(1) or 7.0})):
        assert optimizer.step() == 7.0  # step returns what the closure returned
    assert calls == [1] and w.tolist() == [0.5, 0.5]
    with optimizer.register_step_pre_hook(lambda o, args, kwargs: 5), pytest.raises(
            RuntimeError, match=r"must return None or a tuple of \(new_args, new_kwargs\), "
                                r"but got 5\.$"):
        optimizer.step()


def test_a_copied_optimizer_has_no_hooks_but_can_get_some():
    import copy

    w = torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([w], lr=0.1)
    optimizer.register_step_pre_hook(lambda o, a, k: None)
    copied = copy.deepcopy(optimizer)  # (PyTorch pickles no hooks either)
    assert copied._optimizer_step_pre_hooks == {}
    seen = []
    copied.register_step_post_hook(lambda o, a, k: seen.append(o))
    copied.step()
    assert seen == [copied]


@pytest.mark.torch
def test_matches_pytorch():
    real = pytest.importorskip("torch")
    ours, theirs = _program(torch), _program(real)
    assert [[entry[0] for entry in run] for run in ours] == \
        [[entry[0] for entry in run] for run in theirs]
    assert ours[0] == theirs[0]
    assert ours[1][2][1] == pytest.approx(theirs[1][2][1], abs=1e-6)
