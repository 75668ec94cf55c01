"""The stepper under ``saved_tensors_hooks``: the chain-rule panels show the saved values
the backward really used, as the unpack hook gave them back, and watching them changes
nothing a learner can see (``pack`` is not called again, ``unpack`` exactly as often as a
plain ``backward()`` calls it).

Expected values are worked out by hand (``e**x``, float16 rounding by NumPy) or read from
PyTorch under the same hooks; the hook calls are counted against a plain backward of an
identical graph.
"""

import math

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.notebook import step_backward, step_forward
from teachgrad.notebook.unpacked import unpacked_by_backward

pytest.importorskip("graphviz")


def saved_line(panel) -> str:
    """The panel's line of saved values (text log), or "" when it has none."""
    return next((line for line in panel.text.splitlines() if "saved in forward" in line), "")


def printing_hooks(log: list):
    def pack(t):
        log.append("pack")
        return t

    def unpack(t):
        log.append("unpack")
        return t

    return pack, unpack


def exp_times_x(lib, hooks):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(*hooks):
        y = x.exp()
        z = (y * x).sum()
    return x, y, z


def test_the_panels_show_what_unpack_gave_back_and_the_hooks_run_as_often_as_in_backward():
    plain_log, stepped_log = [], []
    x0, _, z0 = exp_times_x(torch, printing_hooks(plain_log))
    z0.backward()
    x, y, z = exp_times_x(torch, printing_hooks(stepped_log))
    stepper = step_backward(z, names={"x": x, "y": y, "z": z})
    assert stepped_log == plain_log == ["pack"] * 3 + ["unpack"] * 3
    assert torch.equal(x.grad, x0.grad)
    mul, exp = stepper.panels[2], stepper.panels[3]
    assert "MulBackward0" in mul.title and "ExpBackward0" in exp.title
    e = [f"{math.exp(v):.4f}" for v in (1, 2, 3)]  # 2.7183, 7.3891, 20.0855
    assert saved_line(mul) == (
        "  saved in forward, as the unpack hook gave them back: b (_saved_other) = "
        f"[1., 2., 3.], a (_saved_self) = [ {e[0]},  {e[1]}, {e[2]}]")
    assert saved_line(exp) == (
        "  saved in forward, as the unpack hook gave them back: _saved_result = "
        f"[ {e[0]},  {e[1]}, {e[2]}]")
    assert "as the unpack hook gave them back:</span>" in mul.html


def half_hooks():
    return (lambda t: t.to(torch.float16)), (lambda t: t.to(torch.float32))


def test_a_compressing_hook_shows_the_rounded_values_backward_computed_with():
    # Lesson 15's float16 hooks: backward uses e^a rounded to float16, and so does the panel.
    a = torch.tensor([1.0, 2.5], requires_grad=True)
    w = torch.tensor([3.0, -1.0])
    with torch.autograd.graph.saved_tensors_hooks(*half_hooks()):
        L = (a.exp() * w).sum()
    model_nodes = [L.grad_fn.next_functions[0][0], L.grad_fn.next_functions[0][0]
                   .next_functions[0][0]]  # MulBackward0, ExpBackward0
    with unpacked_by_backward(model_nodes) as unpacked:
        L.backward()
    rounded = np.exp(np.float32([1.0, 2.5])).astype(np.float16).astype(np.float32)
    assert not np.array_equal(rounded, np.exp(np.float32([1.0, 2.5])))  # it does round
    mul_values = unpacked[model_nodes[0]][0]
    exp_values = unpacked[model_nodes[1]][0]
    # (w needs no gradient, so the product saves only w: PyTorch's _saved_self is None)
    assert mul_values[1] is None and mul_values[0].dtype == np.float32  # unpack's float32
    np.testing.assert_array_equal(mul_values[0], [3.0, -1.0])  # _saved_other: w
    np.testing.assert_array_equal(exp_values[0], rounded)      # _saved_result: e^a, rounded
    # and backward computed a's gradient with it: 1 · w · (rounded e^a)
    np.testing.assert_array_equal(a.grad.numpy(), rounded * np.float32([3.0, -1.0]))


def test_the_values_shown_are_pytorchs_saved_attributes_under_the_same_hooks():
    real = pytest.importorskip("torch")
    a = torch.tensor([1.0, 2.5], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(*half_hooks()):
        L = (a.exp() * 3.0).sum()
    stepper = step_backward(L, names={"a": a, "L": L})
    ta = real.tensor([1.0, 2.5], requires_grad=True)
    with real.autograd.graph.saved_tensors_hooks(lambda t: t.to(real.float16),
                                                 lambda t: t.to(real.float32)):
        tL = (ta.exp() * 3.0).sum()
    result = tL.grad_fn.next_functions[0][0].next_functions[0][0]._saved_result
    expected = np.array2string(result.detach().numpy(), precision=4, separator=", ")
    exp_panel = next(p for p in stepper.panels if "ExpBackward0" in p.title)
    assert saved_line(exp_panel).endswith(f"_saved_result = {expected}")


def test_checkpointing_recomputes_once_for_the_stepper_as_for_backward():
    calls = 0

    def block(t):
        nonlocal calls
        calls += 1
        return t.sin() * t.exp()

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
    stepper = step_backward(y.sum(), names={"x": x, "y": y})
    assert calls == 2  # the forward, and the one recomputation backward needs
    sin = next(p for p in stepper.panels if "SinBackward0" in p.title)
    assert saved_line(sin).endswith("a (_saved_self) = [1., 2.]")
    mul = next(p for p in stepper.panels if "MulBackward0" in p.title)
    s = [f"{math.sin(v):.4f}" for v in (1, 2)]
    assert f"[{s[0]}, {s[1]}]" in saved_line(mul)  # sin's result, recomputed


def test_a_hook_that_hands_its_storage_back_once_still_works():
    # unpack pops what pack stored: a second unpack (the stepper's own) would fail.
    storage = {}

    def pack(t):
        key = len(storage)
        storage[key] = t.detach().clone()
        return key

    def unpack(key):
        return storage.pop(key)

    x = torch.tensor([0.5, -1.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        L = (x * x).sum()
    stepper = step_backward(L, names={"x": x, "L": L})
    assert storage == {}
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, -2.0])  # 2x by hand
    assert saved_line(stepper.panels[2]).endswith(
        "b (_saved_other) = [ 0.5000, -1.0000], a (_saved_self) = [ 0.5000, -1.0000]")


def test_a_retained_graph_unpacks_through_the_learners_hooks_afterwards():
    log = []
    x, y, z = exp_times_x(torch, printing_hooks(log))
    step_backward(z, names={"x": x}, retain_graph=True)
    assert log.count("unpack") == 3
    mul = z.grad_fn.next_functions[0][0]
    assert all(type(hook).__name__ == "function" for _, hook in mul._saved.packed.values())
    z.backward()
    assert log.count("unpack") == 6 and log.count("pack") == 3
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0, 3.0]) * (1 + np.float32(
        [1.0, 2.0, 3.0])), rtol=1e-6)


def test_an_unpack_hook_that_returns_no_tensor_fails_as_backward_does():
    x = torch.tensor([1.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        L = (x * x).sum()
    with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a "
                                        "Tensor but got result of type int"):
        step_backward(L)
    mul = L.grad_fn.next_functions[0][0]
    assert all(type(hook).__name__ == "function" for _, hook in mul._saved.packed.values())


def test_the_forward_replay_does_not_unpack_and_says_the_values_are_packed():
    log = []
    x, y, z = exp_times_x(torch, printing_hooks(log))
    replay = step_forward(z, names={"x": x, "y": y, "z": z})
    assert log == ["pack"] * 3
    exp = next(p for p in replay.panels if "ExpBackward0" in p.title)
    assert "1 saved tensor packed by saved_tensors_hooks" in exp.text
    mul = next(p for p in replay.panels if "MulBackward0" in p.title)
    assert "2 saved tensors packed by saved_tensors_hooks" in mul.text
