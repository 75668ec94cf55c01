"""What ``backward(gradient)`` and ``autograd.grad(grad_outputs=...)`` accept: a tensor, or
one tensor (or None) per output. Numbers, lists of numbers, a dict: PyTorch's TypeError,
raised before anything runs (no ``.grad`` written), never converted silently."""

from __future__ import annotations

import pytest

import teachgrad as torch

BAD = [  # (gradient, the type PyTorch names)
    ([1.0], "float"),
    ([1.0, 1.0], "float"),  # (a type error first, not "got 1 tensors and 2 gradients")
    ("ab", "str"),
    ({"x": 1}, "str"),  # (tuple() of a dict is its keys)
    ([[1.0, 1.0]], "list"),
]


@pytest.mark.parametrize("gradient, type_name", BAD)
def test_backward_refuses_a_gradient_that_is_not_a_tensor(gradient, type_name):
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(TypeError, match=rf"^gradients can be either Tensors or None, but got "
                                        rf"{type_name}\nHint: "):
        y.backward(gradient)
    assert x.grad is None  # nothing ran


@pytest.mark.parametrize("gradient, type_name", BAD)
def test_autograd_grad_refuses_grad_outputs_that_are_not_tensors(gradient, type_name):
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=f"but got {type_name}"):
        torch.autograd.grad(x * 2, x, grad_outputs=gradient)


def test_a_tensor_per_output_still_works():
    x = torch.ones(2, requires_grad=True)
    (x * 2).backward([torch.tensor([1.0, 3.0])])
    assert x.grad.tolist() == [2.0, 6.0]  # d(2x)/dx weighed by the gradient: 2 * [1, 3]


@pytest.mark.torch
@pytest.mark.parametrize("gradient, type_name", BAD)
def test_pytorch_says_the_same(gradient, type_name):
    real = pytest.importorskip("torch")
    x = real.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=rf"^gradients can be either Tensors or None, but got "
                                        rf"{type_name}$"):
        (x * 2).backward(gradient)
