"""gradcheck and gradgradcheck: what they catch, and what they leave alone.

Their messages, word for word against PyTorch's, are in the tutorial program
``fixtures/tutorial_programs/gradcheck_messages.py``; these tests pin the behaviour with
values derived by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.autograd import GradcheckError, gradcheck, gradgradcheck


class WrongSquare(torch.autograd.Function):
    """x² with the derivative 3x instead of 2x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 3 * x * grad


def test_a_wrong_derivative_is_caught_with_both_jacobians_in_the_message():
    x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as caught:
        gradcheck(WrongSquare.apply, x)
    message = str(caught.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\n")
    # d(x²)/dx = 2x = [1, 4] numerically; the backward says 3x = [1.5, 6]
    assert "numerical:tensor([[1.0000, 0.0000],\n        [0.0000, 4.0000]]" in message
    assert "analytical:tensor([[1.5000, 0.0000],\n        [0.0000, 6.0000]]" in message


def test_the_input_index_counts_only_inputs_that_require_grad():
    constant = torch.tensor([1.0, 2.0], dtype=torch.float64)
    x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="for output 0 with respect to input 0,"):
        gradcheck(lambda c, x: WrongSquare.apply(x) * c, (constant, x))


def test_fast_mode_catches_the_wrong_derivative_and_passes_a_right_one():
    x = torch.tensor([0.5, 2.0, -1.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="computed \nin fast mode"):
        gradcheck(WrongSquare.apply, x, fast_mode=True)
    assert gradcheck(lambda t: t**2, x, fast_mode=True)
    assert gradcheck(WrongSquare.apply, x, fast_mode=True, raise_exception=False) is False


def test_a_backward_that_ignores_grad_output_is_caught():
    class ConstantGradient(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return torch.ones(3, dtype=torch.float64)  # right for grad = 1 only

    x = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="^backward not multiplied by grad_output$"):
        gradcheck(ConstantGradient.apply, x)


def test_an_undefined_output_gradient_must_give_no_or_zero_input_gradients():
    """With ``set_materialize_grads(False)`` backward receives None for an output whose
    gradient is undefined, and must treat it as zero."""

    class OnesWhenUndefined(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            if grad is None:
                return torch.ones(2, dtype=torch.float64)  # should be None or zeros
            return grad * 2

    class RaisesWhenUndefined(OnesWhenUndefined):
        @staticmethod
        def backward(ctx, grad):
            if grad is None:
                raise RuntimeError("no gradient")
            return grad * 2

    x = torch.ones(2, dtype=torch.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="check_undefined_grad=False"), \
            pytest.raises(GradcheckError, match="input grads to be undefined or zero"):
        gradcheck(OnesWhenUndefined.apply, x)
    with pytest.warns(UserWarning, match="check_undefined_grad=False"), \
            pytest.raises(GradcheckError, match="to handle undefined output grads") as caught:
        gradcheck(RaisesWhenUndefined.apply, x)
    assert str(caught.value.__cause__) == "no gradient"
    assert gradcheck(OnesWhenUndefined.apply, x, check_undefined_grad=False)


def test_gradgradcheck_draws_its_grad_outputs_from_the_global_generator():
    """Uniform [-1, 1) draws of the output's shape: the stream moves by that many."""
    x = torch.tensor([0.5, 2.0, 1.5], dtype=torch.float64, requires_grad=True)
    torch.manual_seed(7)
    assert gradgradcheck(torch.sin, x)
    after_check = torch.rand(2)
    torch.manual_seed(7)
    torch.empty(3, dtype=torch.float64).uniform_(-1, 1)
    assert torch.equal(after_check, torch.rand(2))


def test_fast_mode_leaves_the_global_random_stream_alone():
    x = torch.tensor([0.5, 2.0, 1.5], dtype=torch.float64, requires_grad=True)
    torch.manual_seed(3)
    assert gradcheck(torch.sin, x, fast_mode=True)
    after_check = torch.rand(2)
    torch.manual_seed(3)
    assert torch.equal(after_check, torch.rand(2))


def test_second_derivatives_are_checked():
    """A backward built from detached values has a zero second derivative."""

    class CubeWithDetachedBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x.detach() ** 2 * grad

    x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(CubeWithDetachedBackward.apply, x)
    with pytest.raises(GradcheckError) as caught:
        ones = torch.ones(2, dtype=torch.float64, requires_grad=True)
        gradgradcheck(CubeWithDetachedBackward.apply, x, grad_outputs=ones)
    # d²(x³)/dx² = 6x = [3, 12] by finite differences; the backward's graph says 0
    assert "numerical:tensor([[ 3.0000,  0.0000],\n        [ 0.0000, 12.0000]]" in str(caught.value)


def test_inputs_are_checked_first():
    with pytest.raises(ValueError, match="none of them have requires_grad=True"):
        gradcheck(torch.sin, torch.ones(2, dtype=torch.float64))
    expanded = torch.ones(1, dtype=torch.float64).expand(3).requires_grad_()
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        gradcheck(torch.sin, expanded)
    with pytest.raises(TypeError, match="unexpected keyword argument 'atoll'"):
        gradcheck(torch.sin, torch.ones(2, dtype=torch.float64, requires_grad=True), atoll=1)


def test_a_float32_input_warns_and_its_jacobians_stay_float32():
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
        result = gradcheck(torch.sin, x, raise_exception=False)
    # float32 differences with eps = 1e-6 lose about 1 % (float32 steps near 0.5 are
    # 6e-8 apart): the check fails, as PyTorch's does
    assert result is False
    assert np.float32(np.sin(np.float32(0.5) + np.float32(1e-6))) - np.float32(0.5) != 0
