"""Pointwise ops whose gradients PyTorch defines piecewise: ``%``, ``//`` and tensor-bound clamp.

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


def test_a_zero_remainder_keeps_the_sign_of_the_dividend_as_in_pytorch():
    # PyTorch computes fmod first and adds b only where the signs disagree and fmod is not
    # zero, so -2 mod 2 = fmod(-2, 2) = -0. and 3 mod -1.5 = +0. (NumPy's mod gives +0. and -0.)
    by_two = teachgrad.remainder(teachgrad.tensor([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]), 2)
    assert by_two.tolist() == [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    assert np.signbit(by_two.numpy()).tolist() == [False, True, False, False, False, False]
    assert str(by_two) == "tensor([1., -0., 1., 1., 0., 1.])"
    by_minus = teachgrad.tensor([1.0, 2.0, 3.0]) % teachgrad.tensor(-1.5)
    assert by_minus.tolist() == [-0.5, -1.0, 0.0] and not np.signbit(by_minus.numpy()[2])


@pytest.mark.torch
def test_the_sign_of_a_zero_remainder_matches_pytorch():
    torch = pytest.importorskip("torch")
    values = [-3.0, -2.0, -0.0, 0.0, 2.0, 3.0, 4.5, -4.5, np.inf, -np.inf]
    for divisor in (2.0, -1.5, 1.5, -2.0, np.inf, -np.inf):
        theirs = torch.remainder(torch.tensor(values), divisor).numpy()
        ours = teachgrad.remainder(teachgrad.tensor(values), divisor).numpy()
        np.testing.assert_array_equal(ours, theirs)
        assert np.signbit(ours[~np.isnan(ours)]).tolist() == np.signbit(
            theirs[~np.isnan(theirs)]).tolist()
        ours = (teachgrad.tensor(divisor) % teachgrad.tensor(values)).numpy()
        theirs = (torch.tensor(divisor) % torch.tensor(values)).numpy()
        np.testing.assert_array_equal(ours, theirs)


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


# ----------------------------------------------------------------------------------------
# clamp with tensor bounds: PyTorch's ClampBackward0 (not maximum/minimum: ties differ)
# ----------------------------------------------------------------------------------------
def test_clamp_with_tensor_bounds_gives_ties_to_the_input():
    x = leaf([-1.0, 0.0, 0.5, 1.0, 2.0])
    low = leaf([0.0] * 5)
    high = leaf([1.0] * 5)
    out = x.clamp(low, high)
    assert out.tolist() == [0.0, 0.0, 0.5, 1.0, 1.0]
    assert out.grad_fn.name() == "ClampBackward0"
    assert edges(out) == [ACC] * 3
    out.sum().backward()
    # x equal to a bound (0.0 and 1.0) is inside [min, max]: its gradient is 1, the
    # bound's is 0 (maximum/minimum would share a tie half and half).
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]
    assert low.grad.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert high.grad.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]


def test_clamp_with_one_tensor_bound_has_a_none_edge_for_the_other():
    x = leaf([-1.0, 0.0, 2.0])
    low = teachgrad.zeros(3)
    out = x.clamp(min=low)
    assert edges(out) == [ACC, None, None]
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0]


def test_clamp_with_min_above_max_gives_max_its_gradient():
    x, low, high = leaf([-1.0, 0.5, 2.0]), leaf([1.0] * 3), leaf([0.0] * 3)
    out = x.clamp(low, high)
    assert out.tolist() == [0.0, 0.0, 0.0]
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    assert low.grad.tolist() == [0.0, 0.0, 0.0]
    assert high.grad.tolist() == [1.0, 1.0, 1.0]


def test_clamp_min_and_max_node_names():
    x, bound = leaf([-1.0, 0.0, 2.0]), leaf([0.0, 0.0, 0.0])
    assert x.clamp_min(0.0).grad_fn.name() == "ClampMinBackward0"
    assert x.clamp_max(0.0).grad_fn.name() == "ClampMaxBackward0"
    out = x.clamp_min(bound)
    assert out.grad_fn.name() == "ClampMinBackward1"
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0]  # the tie (0 == 0) goes to x
    assert bound.grad.tolist() == [1.0, 0.0, 0.0]
    assert x.clamp_max(bound).grad_fn.name() == "ClampMaxBackward1"


def test_clamp_with_tensor_bounds_matches_finite_differences():
    x = leaf(RNG.standard_normal((3, 4)))
    low = leaf(RNG.standard_normal(4) - 0.5)
    high = leaf(RNG.standard_normal((3, 1)) + 1.5)
    assert gradcheck(lambda a, b, c: a.clamp(b, c), (x, low, high))
    assert gradcheck(lambda a, b: a.clamp(max=b), (x, high))
    assert gradcheck(lambda a, b: a.clamp_min(b), (x, low))
    assert gradgradcheck(lambda a, b, c: a.clamp(b, c) * a, (x, low, high))


def test_clamp_promotes_over_all_three_operands():
    x = teachgrad.tensor([-1, 0, 2])
    assert x.clamp(min=teachgrad.tensor([0.5])).dtype == teachgrad.float32
    out = teachgrad.tensor([1.0], dtype=teachgrad.float32).clamp(
        teachgrad.tensor([0.0], dtype=teachgrad.float64))
    assert out.dtype == teachgrad.float64


def test_clamp_bound_that_does_not_broadcast():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(4\) must match the size "
                                           r"of tensor b \(3\) at non-singleton dimension 0"):
        teachgrad.zeros(4).clamp(min=teachgrad.zeros(3))


def test_clip_is_clamp():
    x = teachgrad.tensor([-1.0, 0.5, 2.0])
    assert teachgrad.clip(x, 0.0, 1.0).tolist() == [0.0, 0.5, 1.0]


# ----------------------------------------------------------------------------------------
# NumPy scalars are Python numbers to PyTorch ("weak": the tensor's dtype wins)
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "x / np.sqrt(4.0)", "x * np.float64(2)", "np.float64(2) * x", "x - np.float32(1)",
    "x ** np.float64(2)", "x.pow(np.float64(2))", "x.clamp(np.float64(0), np.float64(1))",
    "x.clamp_min(np.float64(0))", "torch.where(x > 1, x, np.float64(0))",
    "torch.tensor([1, 2]) * np.float64(2)", "np.float64(2) * torch.tensor([1, 2])",
])
def test_numpy_scalars_do_not_upcast_float32(expr):
    x = teachgrad.tensor([1.0, 2.0])
    out = eval(expr, {"x": x, "np": np, "torch": teachgrad})  # our own literal expressions
    assert out.dtype == teachgrad.float32


def test_numpy_integer_scalar_keeps_int32():
    x = teachgrad.tensor([1, 2], dtype=teachgrad.int32)
    assert (x + np.int64(2)).dtype == teachgrad.int32
    assert (np.int64(2) + x).dtype == teachgrad.int32


# ----------------------------------------------------------------------------------------
# logical_* (truth values, always bool) versus &, |, ^, ~ (bitwise in the result dtype)
# ----------------------------------------------------------------------------------------
def test_logical_ops_test_for_nonzero_whatever_the_dtype():
    a, b = teachgrad.tensor([1, 2]), teachgrad.tensor([2, 0])
    assert teachgrad.logical_and(a, b).tolist() == [True, False]  # not 1 & 2 == 0
    assert teachgrad.logical_or(teachgrad.tensor([0.0, 0.0]), b).tolist() == [True, False]
    assert teachgrad.logical_xor(a, b).tolist() == [False, True]
    assert teachgrad.logical_not(teachgrad.tensor([1.5, 0.0])).tolist() == [False, True]


def test_bitwise_operators_promote_like_arithmetic():
    mask, a = teachgrad.tensor([True, False]), teachgrad.tensor([3, 5])
    assert (mask & a).dtype == teachgrad.int64 and (mask & a).tolist() == [1, 0]
    assert (mask & 1).tolist() == [1, 0]  # an int number makes it int, as in PyTorch
    assert (mask & True).tolist() == [True, False]
    assert (a | 8).tolist() == [11, 13] and (a ^ 1).tolist() == [2, 4]
    assert (~a).tolist() == [-4, -6] and (~mask).tolist() == [False, True]


def test_bitwise_operators_refuse_floats_with_pytorchs_errors():
    x = teachgrad.tensor([1.0, 0.0])
    not_for = "\" not implemented for '{}'".format
    with pytest.raises(NotImplementedError, match='^"bitwise_and_cpu' + not_for("Float")):
        _ = x & x
    with pytest.raises(NotImplementedError, match='^"bitwise_or_cpu' + not_for("Float")):
        _ = teachgrad.tensor([1, 2]) | 2.5
    with pytest.raises(TypeError, match=r"^~ \(operator.invert\) is only implemented on integer"):
        _ = ~x
    with pytest.raises(NotImplementedError, match='^"bitwise_not_cpu' + not_for("Double")):
        teachgrad.bitwise_not(x.double())


def test_an_integer_number_that_does_not_fit_the_dtype_wraps_as_in_pytorch():
    # PyTorch casts the number to the tensor's dtype like C: -1 is 255 for uint8, 1000 is
    # -24 for int8 (values recorded with torch 2.13).
    x = teachgrad.tensor([7, 200], dtype=teachgrad.uint8)
    assert (x & -1).tolist() == [7, 200] and (x | -2).tolist() == [255, 254]
    assert (x & 300).tolist() == [4, 8] and (-1 & x).tolist() == [7, 200]
    assert (x % -1).tolist() == [7, 200] and (x // -1).tolist() == [0, 0]
    assert (teachgrad.tensor([5], dtype=teachgrad.int8) % 1000).tolist() == [-19]


def test_augmented_bitwise_operators_work_in_place():
    t = teachgrad.tensor([3, 5])
    alias = t
    t |= 8
    t &= 9
    assert alias.tolist() == [9, 9] and t is alias


# ----------------------------------------------------------------------------------------
# where
# ----------------------------------------------------------------------------------------
def test_tensor_where_method_takes_self_as_the_input():
    x = leaf([1.0, 2.0])
    out = x.where(x > 1, x * 3)  # = torch.where(x > 1, x, x * 3)
    assert out.tolist() == [3.0, 2.0]
    out.sum().backward()
    assert x.grad.tolist() == [3.0, 1.0]
    assert teachgrad.tensor([1.0, -2.0]).where(teachgrad.tensor([True, False]), 0.0).tolist() \
        == [1.0, 0.0]


@pytest.mark.parametrize("shapes, message", [
    (((3,), (2,), (2,)), r"tensor a \(3\) must match the size of tensor b \(2\) at non-singleton "
                         r"dimension 0"),
    # condition and input broadcast to (3, 2) first; then other's 3 meets their 2
    (((2,), (3, 2), (3,)), r"tensor a \(2\) must match the size of tensor b \(3\) at "
                           r"non-singleton dimension 1"),
])
def test_where_shapes_that_do_not_broadcast(shapes, message):
    cond, a, b = shapes
    with pytest.raises(RuntimeError, match="^The size of " + message):
        teachgrad.where(teachgrad.ones(cond, dtype=teachgrad.bool), teachgrad.ones(a),
                        teachgrad.zeros(b))


# ----------------------------------------------------------------------------------------
# pow of two tensors at a ** 0
# ----------------------------------------------------------------------------------------
def test_pow_with_a_zero_exponent_has_no_slope_in_the_base():
    # a ** 0 = 1 for every a, so d/da = 0 (the formula b·a^(b-1) gives 0·inf = nan at a = 0);
    # d/db = a^b·ln a, and 0 ** b is flat in b for b >= 0.
    a = leaf([0.0, 2.0, 0.0])
    b = leaf([0.0, 0.0, 2.0])
    (a ** b).sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0]
    assert b.grad.tolist() == [0.0, np.log(2.0), 0.0]


# ----------------------------------------------------------------------------------------
# second derivatives through piecewise-linear activations
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("activation, node", [
    (teachgrad.relu, "ThresholdBackwardBackward0"),
    (lambda t: teachgrad.nn.functional.leaky_relu(t, 0.1), "LeakyReluBackwardBackward0"),
    (teachgrad.nn.functional.hardtanh, "HardtanhBackwardBackward0"),
    (teachgrad.nn.functional.relu6, "HardtanhBackwardBackward0"),
])
def test_second_derivative_through_a_piecewise_linear_activation_is_zero(activation, node):
    # d/dx of relu(x) is a step: its own derivative is 0 everywhere (away from the kink).
    # PyTorch records the backward with the activation's tensor as an input, so asking
    # for it is 0, not "x appears to not have been used in the graph".
    x = leaf([0.5, -0.2, 1.5])
    (g,) = teachgrad.autograd.grad(activation(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == node
    (h,) = teachgrad.autograd.grad(g.sum(), x)
    assert h.tolist() == [0.0, 0.0, 0.0]


def test_gradgradcheck_through_relu():
    x = leaf(RNG.standard_normal(6))
    assert gradgradcheck(lambda t: teachgrad.relu(t) * t.sin(), (x,))
    assert gradgradcheck(lambda t: teachgrad.nn.functional.leaky_relu(t, 0.2) ** 2, (x,))
