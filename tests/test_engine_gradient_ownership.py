"""A leaf's ``.grad`` never shares memory with anything else that can see or change it.

The engine keeps a new gradient as ``.grad`` without copying it when nothing else refers
to it (as PyTorch "steals" it), and copies it otherwise. Later backward passes add into
``.grad`` in place, so a wrongly kept gradient would silently change another tensor, a
hook's argument or the stepper's record. These tests pin the cases where it must copy.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.autograd import engine


def test_one_gradient_sent_to_two_leaves_gives_each_its_own_grad():
    a = torch.ones(3, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    y = a + b  # AddBackward0 sends the very same array to both inputs
    y.backward(torch.ones(3), retain_graph=True)
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    y.backward(torch.tensor([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(a.grad.numpy(), [2, 3, 4])
    np.testing.assert_array_equal(b.grad.numpy(), [2, 3, 4])


def test_the_gradient_passed_in_is_not_kept_as_grad():
    x = torch.zeros(3, requires_grad=True)
    v = torch.tensor([1.0, 2.0, 3.0])
    x.backward(v, retain_graph=True)
    x.backward(v)
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3])
    np.testing.assert_array_equal(x.grad.numpy(), [2, 4, 6])


def test_a_gradient_a_hook_kept_is_not_changed_by_the_next_backward():
    x = torch.ones(2, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g))
    (x * 3).sum().backward()
    (x * 5).sum().backward()
    np.testing.assert_array_equal(seen[0].numpy(), [3, 3])
    np.testing.assert_array_equal(x.grad.numpy(), [8, 8])


def test_the_stepper_record_is_not_changed_by_the_next_backward():
    x = torch.ones(2, requires_grad=True)
    steps = []
    with engine.observe(steps.append):
        (x * 3).sum().backward()
    (x * 5).sum().backward()
    leaf_step = steps[-1]
    np.testing.assert_array_equal(np.asarray(leaf_step.grads_in[0]), [3, 3])
    np.testing.assert_array_equal(leaf_step.grad_after.numpy(), [8, 8])  # the live .grad


def test_linear_weight_grad_is_contiguous_and_right_across_two_passes():
    gen = np.random.default_rng(0)
    x = gen.standard_normal((4, 5)).astype(np.float32)
    layer = torch.nn.Linear(5, 3)
    w = layer.weight.detach().numpy().copy()
    for _ in range(2):
        out = layer(torch.tensor(x))
        (out * out).sum().backward()
    g = 2 * (x @ w.T + layer.bias.detach().numpy())  # d(sum out²)/d out
    grad = layer.weight.grad.numpy()
    assert grad.flags.c_contiguous
    np.testing.assert_allclose(grad, 2 * (g.T @ x), rtol=1e-5)
    np.testing.assert_allclose(layer.bias.grad.numpy(), 2 * g.sum(0), rtol=1e-5)


def test_grad_is_writable_even_when_the_gradient_was_a_broadcast_view():
    x = torch.ones(2, 3, requires_grad=True)
    x.sum().backward()  # SumBackward0 sends a read-only broadcast of one number
    x.grad.add_(1)
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0))


@pytest.mark.skipif(
    not engine._COUNTS_ARE_RELIABLE,
    reason="this interpreter counts references differently from the engine's check "
           "(CPython 3.10): every gradient is copied there, slower and never wrong")
def test_fresh_gradients_become_grad_without_a_copy(monkeypatch):
    copies = []
    original = engine._owned
    monkeypatch.setattr(engine, "_owned", lambda g: copies.append(g.shape) or original(g))
    layer = torch.nn.Linear(5, 3)
    x = torch.ones(4, 5, requires_grad=True)
    (layer(x) * 2).sum().backward()
    # weight (through t()), bias (summed over the batch) and x: all fresh, none copied
    assert copies == []
    a = torch.ones(3, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    ((a + b) * 2).sum().backward()  # one fresh array sent to both: the first leaf copies it
    assert copies == [(3,)]
