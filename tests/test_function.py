"""``autograd.Function``: user-defined ops behave as in PyTorch.

Programs in fixtures/program_cases.json, group "function" (generated with real PyTorch by
fixtures/make_program_cases.py), run here with teachgrad; then gradchecks of custom
Functions (finite differences, float64).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import programs
import pytest

import teachgrad
from teachgrad.autograd import Function, gradcheck, gradgradcheck
from teachgrad.autograd.function import once_differentiable

CASES = json.loads((Path(__file__).parent / "fixtures" / "program_cases.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES["function"]))
def test_same_as_pytorch(name):
    programs.check_against_pytorch(CASES["function"][name], teachgrad)


class Softplus(Function):
    """log(1 + e^x), with its derivative sigmoid(x) written by hand."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (1 + x.exp()).log()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sigmoid()


class AffineFull(Function):
    """y = w * x * scale + b, and y²: three tensor inputs, a number, two outputs."""

    @staticmethod
    def forward(ctx, x, w, b, scale):
        y = w * x * scale + b
        ctx.save_for_backward(x, w, y)
        ctx.scale = scale
        return y, y * y

    @staticmethod
    def backward(ctx, grad_y, grad_y2):
        x, w, y = ctx.saved_tensors
        g = grad_y + grad_y2 * 2 * y  # d(loss)/dy through both outputs
        return g * w * ctx.scale, g * x * ctx.scale, g, None


def float64(*values):
    return teachgrad.tensor(list(values), dtype=teachgrad.float64, requires_grad=True)


def test_gradcheck_custom_function():
    assert gradcheck(Softplus.apply, (float64(-2.0, 0.0, 1.5),))


def test_gradgradcheck_custom_function_with_tensor_ops_in_backward():
    assert gradgradcheck(Softplus.apply, (float64(-2.0, 0.0, 1.5),))


def test_gradcheck_several_inputs_outputs_and_a_number():
    x, w, b = float64(0.5, -1.0), float64(2.0, 0.3), float64(-0.1, 0.7)
    assert gradcheck(lambda x, w, b: AffineFull.apply(x, w, b, 3.0), (x, w, b))


def test_custom_node_in_the_graph():
    x = float64(1.0)
    y = Softplus.apply(x)
    assert type(y.grad_fn).__name__ == "SoftplusBackward" == y.grad_fn.name()
    assert repr(y).endswith("grad_fn=<SoftplusBackward>)")
    assert y.grad_fn.next_functions[0][0].variable is x
    assert y.grad_fn.needs_input_grad == (True,)


def test_grads_are_tensors_in_user_code_and_arrays_for_the_engine():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            seen["forward"] = type(x)
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            seen["backward"] = type(grad)
            return grad

    x = float64(1.0, 2.0)
    Probe.apply(x).sum().backward()
    assert seen == {"forward": teachgrad.Tensor, "backward": teachgrad.Tensor}
    assert isinstance(x.grad._data, np.ndarray) and x.grad.tolist() == [1.0, 1.0]


def test_once_differentiable_backward_runs_without_grad_and_gives_correct_values():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return teachgrad.tensor(2 * x.detach().numpy() * grad.numpy())  # NumPy inside

    assert gradcheck(Square.apply, (float64(0.5, -3.0),))


def test_function_is_reachable_from_the_public_namespace():
    assert teachgrad.autograd.Function is Function
    assert teachgrad.autograd.function.once_differentiable is once_differentiable
    assert issubclass(Softplus._backward_cls, teachgrad.autograd.graph.Node)


class _PassThrough(Function):
    """Returns its inputs as they are, the second marked non-differentiable (the pattern of
    PyTorch's BackwardHookFunction behind module backward hooks)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.mark_non_differentiable(b)
        return a, b

    @staticmethod
    def backward(ctx, ga, gb):
        return ga, gb


def test_an_input_returned_as_is_and_marked_non_differentiable_has_no_grad_fn():
    # PyTorch 2.13: y.requires_grad is False and y.grad_fn None, though b requires grad;
    # backward gets zeros for it (materialised), so b.grad is zeros.
    a = teachgrad.ones(2, requires_grad=True)
    b = teachgrad.ones(2, requires_grad=True)
    x, y = _PassThrough.apply(a, b)
    assert x.requires_grad and type(x.grad_fn).__name__ == "_PassThroughBackward"
    assert not y.requires_grad and y.grad_fn is None and y is not b
    x.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [0.0, 0.0]


@pytest.mark.torch
def test_non_differentiable_pass_through_as_pytorch():
    real = pytest.importorskip("torch")

    class PassThrough(real.autograd.Function):
        forward = staticmethod(_PassThrough.forward)
        backward = staticmethod(_PassThrough.backward)

    a = real.ones(2, requires_grad=True)
    b = real.ones(2, requires_grad=True)
    x, y = PassThrough.apply(a, b)
    assert x.requires_grad and not y.requires_grad and y.grad_fn is None
    x.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [0.0, 0.0]


class _Opaque:
    """A plain Python class: PyTorch names it without its module."""


# What PyTorch 2.13 says when backward returns each of these instead of a tensor.
_NOT_A_GRADIENT = [
    (np.ones(2), "numpy.ndarray"),
    (np.float64(1.0), "numpy.float64"),
    ([1.0, 1.0], "list"),
    (1.0, "float"),
    (3, "int"),
    (True, "bool"),
    (_Opaque(), "_Opaque"),
]


def _returning(library, value):
    class ReturnsValue(library.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, grad):
            return grad, value  # y does not require grad: PyTorch still checks the type

    return ReturnsValue


@pytest.mark.parametrize(("value", "name"), _NOT_A_GRADIENT)
def test_backward_returning_a_non_tensor_raises_as_pytorch(value, name):
    x = teachgrad.ones(2, requires_grad=True)
    out = _returning(teachgrad, value).apply(x, teachgrad.ones(2))
    with pytest.raises(RuntimeError) as error:
        out.sum().backward()
    first, hint = str(error.value).split("\n")
    assert first == f"expected Variable or None (got {name})"
    assert hint.startswith("Hint:") and "torch.as_tensor" in hint


@pytest.mark.torch
@pytest.mark.parametrize(("value", "name"), _NOT_A_GRADIENT)
def test_non_tensor_gradient_message_is_pytorchs(value, name):
    real = pytest.importorskip("torch")
    x = real.ones(2, requires_grad=True)
    out = _returning(real, value).apply(x, real.ones(2))
    with pytest.raises(RuntimeError, match=f"^expected Variable or None \\(got {name}\\)$"):
        out.sum().backward()
