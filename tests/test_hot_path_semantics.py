"""What the fast paths of ``Op.apply`` and the engine must not change.

``Op.apply`` handles common cases inline (a leaf's edge, a Python number meeting a float
tensor, ops on 0-d tensors whose backward computes with NumPy scalars). Each shortcut
below once had, or could easily have, a way of differing from PyTorch; the expected
values are worked out by hand in the comments (PyTorch gives the same).
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import nn, optim


def test_a_leaf_frozen_after_use_gets_no_gradient():
    # w was used while it required grad, so its AccumulateGrad node is still alive
    # (y holds it). Once frozen, new ops must not connect to that node.
    w = torch.tensor(2.0, requires_grad=True)
    y = w * 3
    w.requires_grad_(False)
    v = torch.tensor(5.0, requires_grad=True)
    z = w * v
    assert z.grad_fn.next_functions[0] == (None, 0)
    z.backward()
    assert w.grad is None
    assert v.grad.item() == 2.0  # dz/dv = w
    assert y.grad_fn is not None  # (y keeps the old node alive on purpose)


def test_a_parameter_frozen_during_training_stops_changing():
    # Step 0 updates both weights; then w2 is frozen and must keep its value:
    # loss = sum(x * w1 * w2), x = [1, 2]: dloss/dw2 = w1 * (1 + 2) = 6 at step 0,
    # so w2 = 3 - 0.1 * 6 = 2.4 and stays there.
    w1 = nn.Parameter(torch.tensor([2.0]))
    w2 = nn.Parameter(torch.tensor([3.0]))
    opt = optim.SGD([w1, w2], lr=0.1)
    x = torch.tensor([1.0, 2.0])
    for step in range(5):
        opt.zero_grad()
        loss = ((x * w1) * w2).sum()
        loss.backward()
        opt.step()
        if step == 0:
            w2.requires_grad_(False)
    assert w2.item() == pytest.approx(2.4)
    assert w2.grad is None


@pytest.mark.parametrize("shape", [(), (3,)])
def test_backward_reads_saved_inputs_as_they_are_when_it_runs(shape):
    # A change through .data is not tracked (no version bump), so backward uses the new
    # value, as PyTorch does: d(a*b)/da = b, and b became 2 * 10 = 20.
    a = torch.full(shape, 3.0, requires_grad=True)
    b = torch.full(shape, 2.0, requires_grad=True)
    y = a * b
    b.data.mul_(10)
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.full(shape, 20.0, np.float32))


def test_backward_reads_a_saved_0d_output_as_it_is_when_it_runs():
    # ExpBackward0 uses its saved result: d(e^a)/da = e^a, which was overwritten with 5.
    a = torch.tensor(3.0, requires_grad=True)
    y = a.exp()
    y.data.fill_(5.0)
    y.backward()
    assert a.grad.item() == 5.0


def test_an_in_place_change_of_a_saved_0d_input_is_still_caught():
    a = torch.tensor(3.0, requires_grad=True)
    b = a * 1.0
    y = b * b
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_a_python_number_keeps_the_tensor_dtype_and_is_no_graph_input(dtype):
    x = torch.tensor([1.5, -2.0], dtype=dtype, requires_grad=True)
    y = x * 0.5 + 2
    assert y.dtype == dtype
    assert y.grad_fn.next_functions[1] == (None, 0)  # the 2
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(2, 0.5, dtype.numpy))
    # A number in the other position: d(3 - x)/dx = -1, d(2 / x)/dx = -2 / x².
    x.grad = None
    (3 - x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(2, -1.0, dtype.numpy))


def test_an_integer_tensor_times_a_float_still_promotes_to_the_default_dtype():
    x = torch.tensor([1, 2])
    assert (x * 0.5).dtype == torch.float32
    np.testing.assert_array_equal((x * 0.5).numpy(), [0.5, 1.0])


@pytest.mark.parametrize("call, value, dtype", [
    (lambda: torch.mul(2.0, 3.0), 6.0, torch.float32),
    (lambda: torch.add(2, 3.0), 5.0, torch.float32),
    (lambda: torch.mul(2, 3), 6, torch.int64),
    (lambda: torch.sub(5, 3), 2, torch.int64),
    (lambda: torch.add(1, 2, alpha=3), 7, torch.int64),
])
def test_two_numbers_make_a_0d_tensor_as_in_pytorch(call, value, dtype):
    out = call()
    assert out.shape == () and out.dtype == dtype and out.item() == value


def test_pow_of_two_numbers_is_a_clear_type_error():
    with pytest.raises(TypeError, match=r"pow\(\) received an invalid combination"):
        torch.pow(2.0, 3.0)


def _subclasses(cls) -> list:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def test_nodes_and_tensors_keep_pythons_plain_attribute_lookup():
    # A __getattr__ or __getattribute__ on a node or tensor class makes Python read every
    # attribute of its objects through the slow generic path: one such __getattr__ on Op
    # (for grad_fn._saved_self) once cost 4-6 % of every benchmark. Attributes computed on
    # demand are properties instead (Op.__init_subclass__ makes the _saved_ ones).
    from teachgrad.autograd.graph import Node

    classes = [Node, *_subclasses(Node), torch.Tensor, *_subclasses(torch.Tensor)]
    slow = [cls.__qualname__ for cls in classes
            if any("__getattr__" in vars(k) or "__getattribute__" in vars(k)
                   for k in cls.__mro__ if k is not object)]
    assert not slow, slow
    # (and the _saved_ attributes are there: PyTorch's names for what mul saved)
    x, y = torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0, 4.0])
    assert (x * y).grad_fn._saved_other is y
