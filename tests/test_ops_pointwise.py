"""Pointwise ops whose gradients PyTorch defines piecewise: ``%`` and ``//``.

Expected gradients are derived by hand in the comments, or checked against finite
differences (gradcheck). The result dtypes of ``%`` and ``//`` are covered by
fixtures/dtype_cases.json (recorded from PyTorch).
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)
ACC = "torch::autograd::AccumulateGrad"  # what PyTorch's AccumulateGrad.name() says


def leaf(data, dtype=teachgrad.float64):
    return teachgrad.tensor(data, dtype=dtype, requires_grad=True)


def edges(t) -> list:
    """``next_functions`` as (name or None) per edge."""
    return [None if f is None else f.name() for f, _ in t.grad_fn.next_functions]


# ----------------------------------------------------------------------------------------
# remainder: a % b = a - b * floor(a / b)
# ----------------------------------------------------------------------------------------
def test_remainder_of_two_tensors_is_differentiable_in_both():
    a = leaf([5.0, -5.0, 2.5])
    b = leaf([3.0, 3.0, -2.0])
    out = a % b
    assert out.tolist() == [2.0, 1.0, -1.5]  # the sign of the divisor, as in Python
    assert out.grad_fn.name() == "RemainderBackward1"
    assert edges(out) == [ACC, ACC]
    out.sum().backward()
    # d/da = 1;  d/db = -floor(a/b) = -[1, -2, -2]
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
    assert b.grad.tolist() == [-1.0, 2.0, 2.0]


def test_remainder_by_a_number_has_one_edge():
    a = leaf([5.0, -5.0])
    out = teachgrad.remainder(a, 3.0)
    assert out.grad_fn.name() == "RemainderBackward0"
    assert edges(out) == [ACC]
    out.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]


def test_remainder_gradients_match_finite_differences():
    a = leaf(RNG.standard_normal((3, 4)) * 3)
    b = leaf(np.abs(RNG.standard_normal(4)) + 0.5)  # broadcast along the rows
    assert gradcheck(lambda x, y: x % y, (a, b))
    assert gradcheck(lambda x: x % 1.5, (a,))
    assert gradgradcheck(lambda x, y: (x % y) * x * y, (a, b))


def test_remainder_keeps_the_gradient_of_a_float32_tensor_mixed_with_float64():
    a = leaf([5.0, -5.0], dtype=teachgrad.float32)
    b = leaf([3.0, 3.0])
    out = a % b
    assert out.dtype == teachgrad.float64
    out.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]
    assert a.grad.dtype == teachgrad.float32


def test_number_remainder_tensor():
    assert (7 % teachgrad.tensor([5.0, -6.0])).tolist() == [2.0, -5.0]


def test_integer_division_by_zero_is_an_error():
    for expr in (lambda t: t % 0, lambda t: t // 0,
                 lambda t: teachgrad.div(t, 0, rounding_mode="trunc")):
        with pytest.raises(RuntimeError, match="^ZeroDivisionError"):
            expr(teachgrad.tensor([5, -6]))
    # floats give inf and nan instead, as in PyTorch
    assert (teachgrad.tensor([5.0]) // 0).tolist() == [np.inf]
    assert np.isnan((teachgrad.tensor([5.0]) % 0).item())


def test_trunc_division_of_integers_rounds_toward_zero():
    a = teachgrad.tensor([-7, 7, -8, 9, 2**62 + 1])
    b = teachgrad.tensor([2, -2, 4, -4, 1])
    assert teachgrad.div(a, b, rounding_mode="trunc").tolist() == [-3, -3, -2, -2, 2**62 + 1]


def test_division_ops_refuse_shapes_that_do_not_broadcast():
    a, b = teachgrad.tensor([5, -6]), teachgrad.tensor([1, 2, 3])
    for op in (lambda: a % b, lambda: a // b):
        with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match"):
            op()


def test_augmented_remainder_and_floor_division_change_the_tensor_in_place():
    a = teachgrad.tensor([5, -6])
    alias = a
    a %= 4
    assert alias.tolist() == [1, 2] and a is alias
    a //= 2
    assert alias.tolist() == [0, 1] and a is alias
    assert a._version == 2
    b = teachgrad.tensor([5.0, -6.0])
    assert b.remainder_(4).tolist() == [1.0, 2.0]
    assert b.floor_divide_(2).tolist() == [0.0, 1.0]
