"""Regressions found by tests/fuzz_against_torch.py (differential testing against PyTorch).

Each test pins one bug the fuzzer found, with expected values derived by hand or by
finite differences (no PyTorch needed). PyTorch's behaviour, where it is the reference
(an error's words, a node's name), is quoted in the test; the torch-marked programs in
tests/test_fuzz_against_torch.py check the same cases against PyTorch itself.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import teachgrad
import teachgrad as torch
from teachgrad.autograd import gradcheck

inf, nan = math.inf, math.nan


def leaf(values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype, requires_grad=True)


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "atan2", "arctan2",
                                  "hypot", "logaddexp", "logical_and", "logical_xor",
                                  "isclose", "dist", "equal"])
def test_a_number_where_pytorch_wants_a_tensor_is_refused(name):
    # PyTorch: "maximum(): argument 'other' (position 2) must be Tensor, not int" for the
    # function; the method does not count self, so "(position 1)"; a number first is
    # "argument 'input' (position 1)"; arctan2 is named as called. (teachgrad computed.)
    x = torch.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'other' \(position 2\) "
                                        r"must be Tensor, not int"):
        getattr(torch, name)(x, 2)
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'other' \(position 1\) "
                                        r"must be Tensor, not float"):
        getattr(x, name)(2.5)
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'input' \(position 1\) "
                                        r"must be Tensor, not float"):
        getattr(torch, name)(2.5, x)


@pytest.mark.parametrize("name", ["copysign", "fmod"])
@pytest.mark.parametrize("first", [2.0, 3, True])
def test_a_number_first_where_pytorch_has_no_such_signature_is_refused(name, first):
    # PyTorch 2.13: torch.fmod(2.0, t) fits neither "(Tensor input, Tensor other, ...)" nor
    # "(Tensor input, Number other, ...)", so it lists them (no "didn't match" lines: the
    # signatures have an out= too); teachgrad computed fmod(2, t). (torch.remainder and
    # torch.pow take a number first: their Scalar overloads.)
    x = torch.tensor([1.0, -2.0])
    expected = (f"{name}() received an invalid combination of arguments - got "
                f"({type(first).__name__}, Tensor), but expected one of:\n"
                " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                " * (Tensor input, Number other, *, Tensor out = None)\n")
    with pytest.raises(TypeError) as caught:
        getattr(torch, name)(first, x)
    assert str(caught.value).split("Hint:")[0] == expected
    assert getattr(x, name)(first).shape == (2,)  # the method takes the number second
    assert torch.remainder(2.0, x).tolist() == [0.0, 0.0]


def test_heaviside_with_a_number_first_names_its_input():
    # PyTorch: "heaviside(): argument 'input' (position 1) must be Tensor, not float";
    # teachgrad failed inside with "'float' object has no attribute '_data'".
    with pytest.raises(TypeError, match=r"^heaviside\(\): argument 'input' \(position 1\) "
                                        r"must be Tensor, not float\nHint: "):
        torch.heaviside(2.0, torch.tensor([0.5]))


def test_backward_formulas_still_use_np_maximum_with_numbers():
    # np.maximum(t, 0) inside a backward under create_graph goes to the kernel, which
    # must keep taking numbers: relu's second derivative is 0.
    x = leaf([1.0, -2.0])
    (g,) = torch.autograd.grad((x.relu() ** 2).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert g.tolist() == [2.0, 0.0] and gg.tolist() == [2.0, 0.0]


@pytest.mark.parametrize("write", [
    lambda x: x.fill_(inf),
    lambda x: x.masked_fill(torch.tensor([True, False]), -inf),
    lambda x: x.index_fill(0, torch.tensor([0]), nan),
    lambda x: x.__setitem__(0, 1e30),
])
def test_non_finite_floats_are_refused_by_integer_tensors(write):
    # PyTorch's words; fill_ used to write -9223372036854775808 silently.
    x = torch.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t "
                                           "without overflow$"):
        write(x)
    assert x.tolist() == [1, 2]
    with pytest.raises(RuntimeError, match="int64_t without overflow"):
        torch.full((2,), inf, dtype=torch.int64)
    assert torch.tensor([1, 2]).fill_(2.7).tolist() == [2, 2]  # truncated, as PyTorch


@pytest.mark.parametrize("call, error, message", [
    (lambda b: b.abs(), NotImplementedError, "\"abs_cpu\" not implemented for 'Bool'"),
    (lambda b: b.relu(), RuntimeError, "Boolean inputs not supported for relu"),
    (lambda b: b.relu_(), RuntimeError, "Boolean inputs not supported for relu"),
    (lambda b: +b, RuntimeError, "The `+` operator, on a bool tensor is not supported."),
    (lambda b: b.floor(), NotImplementedError, "\"floor_vml_cpu\" not implemented for 'Bool'"),
    (lambda b: b.round(), NotImplementedError, "\"round_vml_cpu\" not implemented for 'Bool'"),
    (lambda b: b.argmax(), RuntimeError, "argmax(): does not support bool input"),
    (lambda b: b.argmin(0), RuntimeError, "argmin(): does not support bool input"),
    (lambda b: b.median(), NotImplementedError, "\"median_cpu\" not implemented for 'Bool'"),
    (lambda b: b.median(0), NotImplementedError, "\"median_out\" not implemented for 'Bool'"),
])
def test_bool_tensors_are_refused_where_pytorch_has_no_kernel(call, error, message):
    with pytest.raises(error) as info:
        call(torch.tensor([True, False]))
    assert str(info.value) == message


def test_clamp_in_place_names_integer_types_as_pytorch():
    # PyTorch's clamp_ with number bounds says "long int" (add_ says "Long").
    with pytest.raises(RuntimeError, match="desired output type long int$"):
        torch.tensor([1, 2]).clamp_(-0.5, 0.5)
    with pytest.raises(RuntimeError, match="desired output type bool$"):
        torch.tensor([True]).clamp_min_(0.5)
    with pytest.raises(RuntimeError, match="desired output type Long$"):
        torch.tensor([1, 2]).add_(0.5)


def test_shapes_are_checked_before_dtypes():
    with pytest.raises(RuntimeError, match="The size of tensor a .2. must match"):
        torch.logaddexp(torch.zeros(2, dtype=torch.bool), torch.zeros(3, dtype=torch.bool))


def test_the_inplace_error_keeps_an_overloads_number():
    # PyTorch names MaxBackward1's saved output "output 0 of Max1" (ExpBackward0: "Exp").
    x = leaf([1.0, 3.0])
    y = x.max()
    y.mul_(0.5)
    with pytest.raises(RuntimeError, match="which is output 0 of Max1, is at version 1"):
        y.backward()


def test_number_modulo_tensor_has_no_derivative():
    # PyTorch records NotImplemented; teachgrad returned a constant (a silently lost path).
    x = leaf([-0.5, 1.5])
    y = -2.75 % x
    assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
    np.testing.assert_allclose(y.detach().numpy(), [-0.25, 0.25])
    with pytest.raises(RuntimeError, match="^derivative for aten::remainder is not implemented"):
        y.sum().backward()


# ---------------------------------------------------------------------------- values
def test_integer_pow_with_negative_tensor_exponents():
    # 1/aᵇ rounded toward zero (PyTorch); NumPy raised "Integers to negative integer powers".
    base = torch.tensor([2, -1, 1, 0, -1, 3])
    assert (base ** torch.tensor([-1, -3, -2, -1, -2, 0])).tolist() == [0, -1, 1, 0, 1, 1]
    assert (2 ** torch.tensor([-1, 2])).tolist() == [0, 4]
    assert (torch.tensor([True, False]) ** torch.tensor([-1, -1])).tolist() == [1, 0]


def test_chunk_of_an_empty_dimension_gives_that_many_empty_pieces():
    pieces = torch.zeros(0, 2).chunk(3, 0)
    assert [tuple(p.shape) for p in pieces] == [(0, 2)] * 3


def test_split_of_an_empty_dimension_gives_one_empty_piece():
    assert [tuple(p.shape) for p in torch.zeros(3, 0, 2).split(2, 1)] == [(3, 0, 2)]


def test_cumsum_and_cumprod_warnings_come_from_teachgrad_where_its_filter_drops_them():
    # teachgrad ignores RuntimeWarnings raised from its own modules (the learner never sees
    # NumPy's "invalid value"); np.cumprod's were raised from NumPy's fromnumeric.py.
    x = torch.tensor([[2.0, inf, 0.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert x.cumprod(1)[0, 2].isnan()
        assert torch.tensor([inf, -inf]).cumsum(0)[1].isnan()
    assert all("teachgrad" in w.filename for w in caught), [w.filename for w in caught]


# ---------------------------------------------------------------------------- gradients
def test_cumprod_gradient_along_a_size_one_dim_is_the_identity():
    # cumprod over one element is the identity: d/dx = 1 even at -inf (was inf/inf = nan)
    x = leaf([[-inf], [2.0]])
    x.cumprod(1).sum().backward()
    assert x.grad.tolist() == [[1.0], [1.0]]


def test_cumprod_gradient_with_inf_nan_and_zeros():
    # a slice without zeros: Σ_{k≥i} out_k / x_i, so a nan anywhere makes the slice nan;
    # at the first zero z: (Π_{j<z} x_j)·(1 + Σ_{k>z} Π_{z<j≤k} x_j) = -inf·(1 - 2.157)
    x = leaf([[-0.43, nan, 1.334], [-inf, 0.0, -2.157]])
    x.cumprod(1).sum().backward()
    assert np.isnan(x.grad[0].numpy()).all()
    assert x.grad[1, 0].isnan() and x.grad[1, 1].item() == inf and x.grad[1, 2].item() == 0


def test_cumprod_gradient_with_zeros_matches_finite_differences():
    x = leaf([[0.5, 0.0, 2.0, -1.5], [1.5, -0.5, 0.0, 0.0], [0.0, 3.0, 0.5, 2.0]])
    assert gradcheck(lambda t: t.cumprod(1), (x,))


@pytest.mark.parametrize("fn, base", [(torch.logaddexp, math.e), (torch.logaddexp2, 2.0)])
def test_logaddexp_gradient_with_an_infinite_input(fn, base):
    # ∂/∂a = 1/(1 + base^(b−a)): 0 at b = +inf or a = −inf, 1 for the other input
    a, b = leaf([1.0, -inf, 2.0]), leaf([inf, 0.0, 3.0])
    fn(a, b).sum().backward()
    assert a.grad.tolist()[:2] == [0.0, 0.0] and b.grad.tolist()[:2] == [1.0, 1.0]
    assert a.grad[2].item() == pytest.approx(1 / (1 + base))


def test_acosh_gradient_at_minus_one_is_plus_inf():
    # 1/√(a² − 1) at a = −1 is 1/√(+0) = +inf; (a−1)(a+1) is −0 there and gave −inf
    x = leaf([-1.0, 2.0])
    x.acosh().sum().backward()
    assert x.grad[0].item() == inf and x.grad[1].item() == pytest.approx(1 / math.sqrt(3))


def test_logit_gradient_at_minus_zero_is_plus_inf():
    # 1/(a(1 − a)) at a = −0: PyTorch's kernel divides by +0 (a(1 − a) = −0 gave −inf)
    x = leaf([-0.0, 0.5])
    torch.logit(x).sum().backward()
    assert x.grad.tolist() == [inf, 4.0]


def test_atan2_gradient_at_the_origin_is_zero():
    # b/(a² + b²) is 0/0 at a = b = 0; PyTorch's slopes are 0 there (teachgrad gave nan)
    a, b = leaf([0.0, 1.0]), leaf([0.0, 1.0])
    torch.atan2(a, b).sum().backward()
    assert a.grad.tolist() == [0.0, 0.5] and b.grad.tolist() == [0.0, -0.5]


def test_atan2_second_derivatives_at_the_origin_are_nan_elsewhere_finite():
    # PyTorch 2.13 zeroes the slopes at the origin with a where() over 1/r² = inf, so its
    # second derivatives there are nan (0 · inf); teachgrad gave 0. Away from the origin:
    # ∂²/∂a² = −2ab/r⁴, ∂²/∂a∂b = (a² − b²)/r⁴, ∂²/∂b² = 2ab/r⁴ (a = 1, b = 2: r⁴ = 25).
    a, b = leaf([0.0, 1.0]), leaf([0.0, 2.0])
    da, db = torch.autograd.grad(torch.atan2(a, b).sum(), (a, b), create_graph=True)
    assert da.tolist() == [0.0, 0.4] and db.tolist() == [0.0, -0.2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no NumPy warning about the 0 · inf
        daa, dab = torch.autograd.grad(da.sum(), (a, b), retain_graph=True)
        dba, dbb = torch.autograd.grad(db.sum(), (a, b))
    for got, value in ((daa, -0.16), (dab, -0.12), (dba, -0.12), (dbb, 0.16)):
        assert math.isnan(got[0].item()) and got[1].item() == pytest.approx(value)


def test_a_constant_changed_in_place_after_use_is_not_needed_by_backward():
    # hypot(a, b)'s gradient for a is a/out; b needs no gradient, so it is not saved
    # (PyTorch saves only what the needed gradients use): changing it in place is fine.
    a, b = leaf([3.0]), torch.tensor([4.0], dtype=torch.float64)
    out = torch.hypot(a, b)
    b.mul_(10)
    out.backward()
    assert a.grad.tolist() == [0.6]
    x, t1, t2 = leaf([1.0]), torch.tensor([2.0], dtype=torch.float64), torch.tensor([3.0])
    y = torch.addcmul(x, t1, t2.double())
    t1.fill_(0)
    y.backward()
    assert x.grad.tolist() == [1.0]


def test_a_view_of_an_expanded_tensor_after_an_in_place_change_sums_its_copies():
    # v = (a·1).expand(2, 3, 1) shows each element 3 times; after exp_ on the base,
    # Σv = 3·Σexp(a), so the gradient is 3·exp(a) (the copies overwrote each other: 1·)
    a = leaf([[[1.0]], [[2.0]]])
    base = a * 1
    view = base.expand(2, 3, 1)
    base.exp_()
    view.sum().backward()
    np.testing.assert_allclose(a.grad.flatten().numpy(), 3 * np.exp([1.0, 2.0]))


def test_cat_gives_a_skipped_empty_vector_an_empty_gradient():
    # PyTorch skips 1-d empty tensors in cat but still gives them a (0,) gradient
    a, empty = leaf([1.0, 2.0]), leaf([])
    torch.cat([a, empty]).sum().backward()
    assert empty.grad is not None and tuple(empty.grad.shape) == (0,)


def test_norm_zero_sends_no_gradient():
    # counting nonzeros is flat; PyTorch's backward gives no gradient at all (None)
    x = leaf([[1.0, 0.0], [2.0, 3.0]])
    torch.linalg.vector_norm(x, ord=0).backward()
    assert x.grad is None
    assert torch.autograd.grad(torch.norm(x, p=0, dim=0).sum(), x, allow_unused=True) == (None,)


# ---------------------------------------------------------------------------- graphs
def _first_order(f, *inputs):
    return torch.autograd.grad(f(*inputs), inputs, create_graph=True, allow_unused=True)


def test_fmod_and_remainder_divisor_gradients_are_differentiable():
    # −grad·trunc(a/b) (fmod), −grad·floor(a/b) (remainder): PyTorch records the rounded
    # division, so under create_graph the gradient requires grad (its derivative is 0)
    a, b = leaf([[-1.5, 0.25], [4.5, -4.75]]), leaf([2.5, 1.0])
    for f, quotient in ((torch.fmod, np.trunc), (torch.remainder, np.floor)):
        _, gb = _first_order(lambda x, y, f=f: f(x, y).sum(), a, b)
        assert gb.requires_grad
        expected = -quotient(a.detach().numpy() / b.detach().numpy()).sum(0)
        np.testing.assert_array_equal(gb.detach().numpy(), expected)
        second = torch.autograd.grad(gb.sum(), [a, b], allow_unused=True)
        assert all(g is None or not g.any() for g in second)


@pytest.mark.parametrize("f, name", [
    (lambda x, y: (torch.fmin(x, y) ** 2).sum(), "MaskedFillBackward0"),
    (lambda x, y: (torch.fmax(x, y) ** 2).sum(), "MaskedFillBackward0"),
    (lambda x, y: (x.scatter(0, torch.tensor([1]), y[:1]) ** 2).sum(), "ScatterBackward1"),
])
def test_double_backward_nodes_follow_pytorchs_formulas(f, name):
    x, y = leaf([1.0, nan, 3.0]), leaf([2.0, 1.0, nan])
    gx, _ = _first_order(f, x, y)
    assert gx.grad_fn.name() == name


def test_number_factors_and_shape_passthroughs_under_create_graph():
    x = leaf([1.0, 2.0])
    (g,) = _first_order(lambda t: (torch.deg2rad(t) ** 2).sum(), x)
    assert g.grad_fn.name() == "MulBackward1"  # grad * (π/180), the scalar overload
    y = leaf([[1.0], [2.0]])
    (g,) = _first_order(lambda t: (t.cumsum(1) ** 2).sum(), y)
    assert g.grad_fn.name() == "MulBackward0"  # a size-1 cumsum passes the gradient on
    z = leaf([[[1.0, 2.0]]])
    (g,) = _first_order(lambda t: (t.squeeze(0) ** 2).sum(), z)
    assert g.grad_fn.name() == "UnsqueezeBackward0"
    (g,) = _first_order(lambda t: (t.squeeze(-1) ** 2).sum(), z)  # nothing squeezed
    assert g.grad_fn.name() == "MulBackward0"


def test_a_broadcast_gradient_summed_to_a_0d_input_records_sum():
    # PyTorch's sum_to(grad, []) is grad.sum(): SumBackward0 (was a keepdim sum + view)
    s, v = leaf(2.0), leaf([1.0, 2.0, 3.0])
    gs, _ = _first_order(lambda a, b: (a * b).sum(), s, v)
    assert gs.grad_fn.name() == "SumBackward0" and gs.item() == 6.0


def test_hardswish_records_its_double_backward_node():
    # hardswish's slope: 0 for a ≤ −3, a/3 + ½ inside, 1 from 3; the slope's own
    # derivative is 1/3 inside (−3, 3) and 0 outside (PyTorch's HardswishBackwardBackward0).
    x = torch.tensor([-4.0, -1.0, 0.5, 2.0, 5.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.nn.functional.hardswish(x).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == "HardswishBackwardBackward0"
    np.testing.assert_allclose(g.detach().numpy(), [0, 1 / 6, 2 / 3, 7 / 6, 1], rtol=1e-15)
    weights = torch.arange(5.0, dtype=torch.float64)
    (h,) = torch.autograd.grad((g * weights).sum(), x)
    np.testing.assert_allclose(h.numpy(), [0, 1 / 3, 2 / 3, 1, 0], rtol=1e-15)


def test_elu_keeps_the_sign_of_zero_and_its_second_derivative_is_zero_there():
    # PyTorch's kernel takes the exponential side for x <= 0: elu(-0) = α·(e^-0 − 1) = -0.
    # The slope α·eˣ (x < 0) / 1 (x > 0) has a derivative only where x < 0: 0 at ±0.
    for f in (torch.nn.functional.elu, torch.nn.functional.celu, torch.nn.functional.selu):
        x = leaf([-0.0, 0.0, -1.0])
        y = f(x)
        assert math.copysign(1, y[0].item()) == -1
        (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = torch.autograd.grad(g.sum(), x)
        assert h[0].item() == 0 and h[1].item() == 0 and h[2].item() > 0


def test_sigmoid_based_second_derivatives_at_zero():
    # silu''(0) = σ'(0)·(1 + 0) + σ(0)·(1 − σ(0)) = 1/4 + 1/4; the sigmoid inside the
    # recorded backward was written with |x|, whose slope at 0 made σ'(0) read 0.
    x = leaf([0.0])
    (g,) = torch.autograd.grad(torch.nn.functional.silu(x).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    assert h.item() == 0.5
    # binary cross entropy on logits: ∂²ℓ/∂x² = σ'(x) = 1/4 at x = 0, whatever the target
    x = leaf([0.0, 0.0])
    loss = torch.nn.functional.binary_cross_entropy_with_logits(
        x, torch.tensor([0.0, 1.0], dtype=torch.float64), reduction="sum")
    (g,) = torch.autograd.grad(loss, x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(h.numpy(), [0.25, 0.25])
    assert gradcheck(torch.nn.functional.silu, (leaf([0.0, -0.3, 2.0]),))


def test_cat_of_empty_vectors_only_is_an_empty_vector():
    # PyTorch skips 1-d empty tensors in cat; with nothing left its result is an empty
    # vector of the promoted dtype (teachgrad raised NumPy's "need at least one array"),
    # which split/chunk's double backward of an empty tensor runs into.
    a = torch.zeros(0, requires_grad=True)
    out = torch.cat([a, torch.zeros(0, dtype=torch.float64)])
    assert out.shape == (0,) and out.dtype is torch.float64
    out.sum().backward()
    assert a.grad.shape == (0,)
    b = leaf([])
    (grad,) = torch.autograd.grad(b.split(1)[0].square().sum(), b, create_graph=True)
    assert grad.shape == (0,) and type(grad.grad_fn).__name__ == "CatBackward0"


_STD_SIGNATURES = (
    " * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
    " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
    " * (bool unbiased = True)\n"
)


@pytest.mark.parametrize("name", ["std", "var"])
def test_std_var_keywords_without_a_dim_fit_no_pytorch_signature(name):
    # PyTorch's parser has (dim, unbiased, keepdim), (dim=None, *, correction, keepdim) and
    # (unbiased): keepdim= with unbiased= needs a dim. Its words (keywords listed in reverse).
    x = torch.ones(2, 3)
    method = getattr(x, name)
    with pytest.raises(TypeError) as caught:
        method(unbiased=False, keepdim=True)
    assert str(caught.value).split("\nHint:")[0] == (
        f"{name}() received an invalid combination of arguments - got (keepdim=bool, "
        "unbiased=bool, ), but expected one of:\n" + _STD_SIGNATURES)
    with pytest.raises(TypeError, match=re.escape("got (bool, keepdim=bool), but")):
        method(False, keepdim=True)
    with pytest.raises(TypeError, match=re.escape("got (correction=int, unbiased=bool, ), ")):
        method(unbiased=False, correction=1)  # two spellings of one thing
    with pytest.raises(TypeError, match=re.escape(
            "got (Tensor, keepdim=bool, unbiased=bool), but expected one of:\n * (Tensor input, "
            "tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = "
            "None)\n")):
        getattr(torch, name)(x, unbiased=False, keepdim=True)
    with pytest.raises(TypeError, match=re.escape(
            f"{name}_mean() received an invalid combination of arguments - got (Tensor, "
            "keepdim=bool, unbiased=bool), but expected one of:\n * (Tensor input, tuple of "
            "ints dim, bool unbiased = True, bool keepdim = False)\n")):
        getattr(torch, f"{name}_mean")(x, unbiased=False, keepdim=True)
    # what fits a signature still works: the sample variance of [0, 2] is 2, std √2
    y = torch.tensor([[0.0, 2.0]])
    expected = 2.0 if name == "var" else math.sqrt(2.0)
    for call in (lambda m: m(keepdim=True), lambda m: m(None, True, True),
                 lambda m: m(dim=None, unbiased=True, keepdim=True),
                 lambda m: m(1, keepdim=True), lambda m: m(correction=1, keepdim=True),
                 lambda m: m(axis=1, unbiased=True, keepdim=True)):
        assert call(getattr(y, name)).tolist() == [[pytest.approx(expected)]]
    assert getattr(y, name)(False).item() == pytest.approx(expected / (2 if name == "var"
                                                                        else math.sqrt(2)))


STD_CALLS = [
    "x.{n}(unbiased=False, keepdim=True)", "x.{n}(keepdim=True)", "x.{n}(unbiased=False)",
    "x.{n}(False)", "x.{n}(False, keepdim=True)", "x.{n}(correction=0, keepdim=True)",
    "x.{n}(None, keepdim=True)", "x.{n}(None, True, True)", "x.{n}(unbiased=False, correction=1)",
    "x.{n}(keepdim=True, unbiased=True)", "x.{n}(False, True)", "x.{n}(0, True, True)",
    "x.{n}(dim=1, correction=0)", "x.{n}(1, keepdim=True)", "torch.{n}(x, unbiased=False)",
    "torch.{n}(x, unbiased=False, keepdim=True)", "torch.{n}(x, 0, True, True)",
    "torch.{n}_mean(x, keepdim=True, unbiased=False)", "torch.{n}_mean(x, 1, True, True)",
]


@pytest.mark.torch
@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("call", STD_CALLS)
def test_std_var_signatures_as_pytorch(name, call):
    real = pytest.importorskip("torch")

    def run(lib):
        x = lib.arange(12.0).reshape(3, 4)
        try:
            out = eval(call.format(n=name), {"torch": lib, "x": x})
        except TypeError as e:
            return str(e).split("\nHint:")[0]
        return [o.tolist() for o in out] if isinstance(out, tuple) else out.tolist()

    assert run(torch) == run(real)


@pytest.mark.parametrize("op, edge", [(torch.xlogy, 0.0), (torch.special.xlog1py, -1.0)])
def test_xlogy_with_a_number_gradient_graph_and_nan(op, edge):
    # PyTorch 2.13's xlogy(tensor, number) backward: xlogy(grad, number), then zeros filled
    # where input is 0 unless the number is > 0 (xlog1py: > −1). So a positive number's
    # second-order graph ends in XlogyBackward2 (teachgrad's ended in MaskedFillBackward0),
    # and a nan number is "not > 0": the slope at input 0 is 0 (teachgrad gave nan).
    a = leaf([0.0, 2.0])
    (grad,) = torch.autograd.grad(op(a, 0.5).square().sum(), a, create_graph=True)
    assert type(grad.grad_fn).__name__ == type(op(a, 0.5).grad_fn).__name__
    log = math.log(0.5) if op is torch.xlogy else math.log1p(0.5)
    assert grad.tolist() == [0.0, pytest.approx(4 * log * log)]  # 2·(2 log c)·log c
    for number in (nan, edge):
        a = leaf([0.0, 2.0])
        (grad,) = torch.autograd.grad(op(a, number).square().sum(), a, create_graph=True)
        assert type(grad.grad_fn).__name__ == "MaskedFillBackward0"
        assert grad[0].item() == 0.0


def _node_names(grad):
    return type(grad.grad_fn).__name__, [type(n).__name__ for n, _ in grad.grad_fn.next_functions]


def test_mm_double_backward_graph_for_factors_stored_by_column():
    # PyTorch 2.13's mm_mat1_backward/mm_mat2_backward compute the gradient of a factor
    # stored column by column (strides (1, rows): weight.t(), and every 1×1 matrix)
    # transposed, (b·gradᵀ)ᵀ, so under create_graph it ends in TBackward0 (teachgrad's
    # ended in MmBackward0). Values: d/da Σ(a·b)² = 2(a·b)·bᵀ, by hand.
    a, b = leaf([[0.5]]), leaf([[1.0, 2.0, 3.0]])
    grad_a, grad_b = torch.autograd.grad(torch.mm(a, b).square().sum(), (a, b),
                                         create_graph=True)
    assert _node_names(grad_a) == ("TBackward0", ["MmBackward0"])
    assert _node_names(grad_b) == ("MmBackward0", ["TBackward0", "MulBackward0"])
    assert grad_a.tolist() == [[2 * 0.5 * (1 + 4 + 9)]]
    assert grad_b.tolist() == [[0.5, 1.0, 1.5]]  # 2(a·b)·a = 2·0.25·b
    x, w = leaf([[1.0, 2.0]]), leaf([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    grad_x, grad_w = torch.autograd.grad(torch.mm(x, w.t()).square().sum(), (x, w),
                                         create_graph=True)
    assert _node_names(grad_w) == ("TBackward0", ["TBackward0"])  # through w.t()
    assert _node_names(grad_x) == ("MmBackward0", ["MulBackward0", "TBackward0"])
    y = [1.0, 2.0, 3.0]  # x·wᵀ, so grad_w = 2·yᵀ·x and grad_x = 2·y·w
    assert grad_w.tolist() == [[2 * yi * 1.0, 2 * yi * 2.0] for yi in y]
    assert grad_x.tolist() == [[2 * (1 + 3), 2 * (2 + 3)]]


def test_linear_double_backward_graph_as_pytorch():
    # F.linear with a bias records addmm(bias, x, w.t()), whose gradients PyTorch computes
    # with mm's rules: w.t() is stored by column, so w's gradient ends in TBackward0 →
    # TBackward0 (teachgrad's: TBackward0 → MmBackward0). By hand: y = x·wᵀ + b = 3
    # everywhere, ∂Σy²/∂y = 6, so ∂/∂w = Σ over the 4 rows of 6·x = 24, ∂/∂b = 24.
    x = torch.ones(4, 2, dtype=torch.float64)
    w, b = leaf([[1.0, 1.0]] * 3), leaf([1.0] * 3)
    grad_w, grad_b = torch.autograd.grad(torch.nn.functional.linear(x, w, b).square().sum(),
                                         (w, b), create_graph=True)
    assert _node_names(grad_w) == ("TBackward0", ["TBackward0"])
    assert grad_w.tolist() == [[24.0, 24.0]] * 3 and grad_b.tolist() == [24.0] * 3
    x.requires_grad_()
    (grad_x,) = torch.autograd.grad(torch.nn.functional.linear(x, w, b).square().sum(), x,
                                    create_graph=True)
    assert _node_names(grad_x) == ("MmBackward0", ["MulBackward0", "TBackward0"])
    assert grad_x.tolist() == [[18.0, 18.0]] * 4  # 6 · Σ over the 3 outputs of w


def test_addmm_double_backward_scales_by_alpha_and_beta_as_pytorch():
    # PyTorch's addmm backward multiplies by alpha and beta with maybe_multiply, a tensor
    # times a number in C++: MulBackward1 (teachgrad's recorded MulBackward0); none for 1.
    # By hand: y = 0.5·m + 2·a·b, ∂Σy²/∂y = 2y, so ∂/∂m = 0.5·2y = y, ∂/∂a = 2·(2y)·bᵀ.
    m, a, b = leaf([[1.0, 2.0], [3.0, 4.0]]), leaf([[1.0, 2.0], [3.0, 5.0]]), leaf(
        [[2.0, 1.0], [0.0, 1.0]])
    y = torch.addmm(m, a, b, beta=0.5, alpha=2.0)
    grad_m, grad_a, grad_b = torch.autograd.grad(y.square().sum(), (m, a, b),
                                                 create_graph=True)
    for grad in (grad_m, grad_a, grad_b):
        assert type(grad.grad_fn).__name__ == "MulBackward1"
    yv = y.detach().numpy()
    assert grad_m.tolist() == yv.tolist()
    assert grad_a.tolist() == (4 * yv @ b.detach().numpy().T).tolist()
    y1 = torch.addmm(m, a, b)  # alpha = beta = 1: mm's graph as it is
    grad_m, grad_a = torch.autograd.grad(y1.square().sum(), (m, a), create_graph=True)
    assert type(grad_m.grad_fn).__name__ == "MulBackward0"  # (the square's 2·y)
    assert type(grad_a.grad_fn).__name__ == "MmBackward0"


def test_addmv_addr_baddbmm_double_backward_scale_last_as_pytorch():
    # PyTorch scales each gradient last, maybe_multiply(product, alpha) and
    # maybe_multiply(grad, beta): under create_graph each ends in MulBackward1 (teachgrad
    # scaled grad first, so vec's gradient ended in MvBackward0 and the rest in
    # MulBackward0). Values by hand: y = β·m + α·A·v, ∂Σy/∂v = α·Aᵀ·1, ∂Σy/∂A = α·1·vᵀ.
    m, a, v = leaf([1.0, 2.0]), leaf([[1.0, 2.0], [3.0, 4.0]]), leaf([1.0, -1.0])
    grads = torch.autograd.grad(torch.addmv(m, a, v, beta=3.0, alpha=2.0).sum(), (m, a, v),
                                create_graph=True)
    # (m's gradient, β·1, depends on no leaf: nothing recorded, in PyTorch neither)
    assert [type(g.grad_fn).__name__ for g in grads] == ["NoneType"] + ["MulBackward1"] * 2
    assert [g.tolist() for g in grads] == [[3.0, 3.0], [[2.0, -2.0], [2.0, -2.0]],
                                           [8.0, 12.0]]
    p, q = leaf([1.0, 2.0]), leaf([3.0, 5.0])
    grads = torch.autograd.grad(torch.addr(torch.zeros(2, 2), p, q, alpha=0.5).sum(), (p, q),
                                create_graph=True)
    assert [type(g.grad_fn).__name__ for g in grads] == ["MulBackward1"] * 2
    assert [g.tolist() for g in grads] == [[4.0, 4.0], [1.5, 1.5]]  # 0.5·Σq, 0.5·Σp
    b1, b2 = leaf([[[1.0, 2.0]]]), leaf([[[3.0], [4.0]]])
    m3 = leaf([[[1.0]]])
    grads = torch.autograd.grad(torch.baddbmm(m3, b1, b2, beta=0.5, alpha=2.0).sum(),
                                (m3, b1, b2), create_graph=True)
    assert [type(g.grad_fn).__name__ for g in grads] == ["NoneType"] + ["MulBackward1"] * 2
    assert [g.tolist() for g in grads] == [[[[0.5]]], [[[6.0, 8.0]]], [[[2.0], [4.0]]]]


# ----------------------------------------------- the "modified by an inplace operation" error
def _modified_message(run) -> str:
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as caught:
        run()
    return str(caught.value).split("inplace operation: ")[1].split(" is at version")[0]


def test_the_inplace_error_names_a_promoted_input_by_its_own_dtype():
    # a64.xlogy(b32) promotes b to float64 before NumPy runs; PyTorch, which promotes in
    # its kernels, keeps b itself and names its type: "[torch.FloatTensor [3]]" (teachgrad
    # said DoubleTensor). Likewise an integer input: "[torch.LongTensor [2]]".
    a, b = leaf([1.0, 2.0, 3.0]), torch.tensor([0.5, 1.5, 2.5], dtype=torch.float32)

    def run():
        y = a.xlogy(b)
        b[1:].neg_()
        y.sum().backward()

    assert _modified_message(run) == "[torch.FloatTensor [3]]"
    n = torch.tensor([3, 4])

    def run_int():
        y = leaf([1.0, 2.0]).fmod(n) * 1 + leaf([1.0, 1.0]) ** n
        n.add_(1)
        y.sum().backward()

    assert _modified_message(run_int) == "[torch.LongTensor [2]]"


def test_the_inplace_error_keeps_copy_backwards_whole():
    # PyTorch drops "Backward0" ("output 0 of Exp") but names copy_'s node in full:
    # "output 0 of torch::autograd::CopyBackwards" (teachgrad cut it to "...::Copy").
    x = leaf([1.0, 2.0])

    def run():
        y = x * 1
        z = y.sin()  # saves y; copy_ then changes it, and its grad_fn is copy_'s node
        y.copy_(torch.tensor([3.0, 4.0]))
        z.sum().backward()

    assert _modified_message(run) == ("[torch.DoubleTensor [2]], which is output 0 of "
                                      "torch::autograd::CopyBackwards,")


@pytest.mark.parametrize("refresh, name", [(False, "AsStrided"), (True, "Sigmoid")])
def test_the_inplace_error_names_a_view_written_in_place_by_its_new_history(refresh, name):
    # sigmoid_ through a view saves its output; changed again in place, PyTorch's error
    # names the view's new grad_fn (AsStridedBackward0) while that node lives, and the
    # node that saved it (SigmoidBackward0) once the view's history was rebuilt again
    # (reading v.grad_fn after the second change drops the old node). teachgrad always
    # said "Sigmoid".
    def run():
        base = leaf([0.7, 0.3, 0.2]).exp()
        v = base[1:]
        v.sigmoid_()
        w = base[1:]
        w.mul_(2)
        if refresh:
            v.grad_fn  # noqa: B018 - rebuilds v's history: the first AsStrided node is gone
        w.sum().backward()

    assert _modified_message(run) == f"[torch.DoubleTensor [2]], which is output 0 of {name},"


@pytest.mark.parametrize("create_graph, name", [(False, "Relu"), (True, "AsStrided")])
def test_a_backward_without_retain_graph_releases_copy_slices_op(create_graph, name):
    # A view of a view changed in place holds, through its CopySlices' op, the first
    # view's old history. PyTorch's CopySlices releases that op when backward runs without
    # retain_graph, so by the time the first in-place op's saved output is checked its
    # view's old node is gone ("output 0 of Relu"); under create_graph everything is
    # kept ("output 0 of AsStrided"). teachgrad kept the op in both cases.
    def run():
        a = leaf([[0.8, -0.4], [0.1, -0.2]])
        base = a * 1
        v = base[..., :1]
        v.relu_()
        w = v[:, 0]
        w.neg_()
        v.grad_fn  # noqa: B018 - rebuilds v's history: only w's op still holds the old node
        if create_graph:
            torch.autograd.grad(base.sum(), a, create_graph=True)
        else:
            base.sum().backward()

    assert _modified_message(run) == f"[torch.DoubleTensor [2, 1]], which is output 0 of {name},"


# -------------------------------------------------------- what a node keeps for backward
@pytest.mark.parametrize("make, changed", [
    (lambda x: x.sgn(), "input"), (lambda x: x.sgn(), "output"),
    (lambda x: x.nan_to_num(), "input"), (lambda x: x.xlogy(2.0), "input"),
    (lambda x: x.gather(0, torch.tensor([1, 0])), "input"),
    (lambda x: x.take(torch.tensor([2])), "input"), (lambda x: x.cummax(0)[0], "input"),
    (lambda x: x.cummin(0)[0], "input"),
])
def test_ops_keep_their_input_as_pytorch_so_an_in_place_change_is_caught(make, changed):
    # PyTorch saves these (grad_fn._saved_self / _saved_result), though the gradient needs
    # at most their shape: changing one in place makes backward refuse. teachgrad kept
    # nothing and computed on.
    x = leaf([0.5, -1.5, 2.0]) * 1
    y = make(x)
    (x if changed == "input" else y).add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_lerp_and_copysign_keep_only_what_a_needed_gradient_uses():
    # lerp keeps start and end for the weight's gradient only, copysign its first input
    # for that input's gradient only (as PyTorch): with those gradients not needed, an
    # in-place change of start/end/a does not stop backward (teachgrad refused).
    start, end = torch.tensor([0.0, 1.0], dtype=torch.float64), leaf([2.0, 3.0])
    weight = torch.tensor([0.25, 0.5], dtype=torch.float64)
    y = torch.lerp(start, end, weight)
    start.add_(1)
    y.sum().backward()
    assert end.grad.tolist() == [0.25, 0.5]  # ∂lerp/∂end = weight
    a, b = torch.tensor([1.0, -2.0]), leaf([-1.0, 1.0])
    y = torch.copysign(a, b)
    a.add_(1)
    y.sum().backward()
    assert b.grad.tolist() == [0.0, 0.0]
    w = leaf([0.25, 0.5]) * 1  # but the weight's gradient needs start and end
    y = torch.lerp(start, end, w)
    start.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ------------------------------------------------------------------------ signed zeros
def _signs(t) -> list[bool]:
    return np.signbit(t.detach().numpy()).reshape(-1).tolist()


def test_ties_of_signed_zeros_give_the_first_operand_as_pytorch():
    # PyTorch's maximum/minimum/fmax/fmin return self where the two compare equal, clamp
    # and relu return the input (C++'s a < b ? b : a): maximum(0.0, -0.0) is 0.0,
    # relu(-0.0) is -0.0. NumPy's maximum returns the second, its fmax depends on the
    # array's length.
    pos, neg = torch.tensor([0.0] * 9), torch.tensor([-0.0] * 9)
    for op in (torch.maximum, torch.minimum, torch.fmax, torch.fmin):
        assert _signs(op(pos, neg)) == [False] * 9 and _signs(op(neg, pos)) == [True] * 9
    assert _signs(neg.clamp(min=0.0)) == [True] * 9
    assert _signs(pos.clamp(max=-0.0)) == [False] * 9
    assert _signs(neg.clamp(min=pos, max=pos)) == [True] * 9
    assert _signs(neg.relu()) == [True] * 9
    assert torch.fmax(torch.tensor([nan, 1.0]), torch.tensor([2.0, nan])).tolist() == [2.0, 1.0]
    assert torch.tensor([1.0, 5.0]).clamp(3.0, 2.0).tolist() == [2.0, 2.0]  # max wins


def test_the_sign_of_a_zero_reaches_a_gradient():
    # log10(maximum(0.0, -0.0))²: the maximum is +0.0, log10 is -inf there and its slope
    # 1/(x·ln 10) is +inf, so the gradient 2·log10(x)·slope·½ (a tie shares) is -inf for
    # both inputs. With teachgrad's -0.0 the slope was -inf and the gradient +inf.
    a, b = leaf(0.0), leaf(-0.0)
    loss = torch.log10(torch.maximum(a, b)).square()
    grads = torch.autograd.grad(loss, (a, b))
    assert [g.item() for g in grads] == [-inf, -inf]


def test_cumsum_has_no_negative_zero():
    # PyTorch's running sum starts from +0.0, so cumsum([-0.0, -0.0]) is [0.0, 0.0] (NumPy
    # keeps the leading -0.0); atan2(0.0, -0.0) = π would then differ from atan2(0, 0) = 0.
    assert _signs(torch.tensor([-0.0, -0.0]).cumsum(0)) == [False, False]
    assert _signs(torch.tensor([[-0.0, 1.0]], dtype=torch.float16).cumsum(0)) == [False] * 2
    assert _signs(torch.tensor(-0.0).cumsum(0)) == [True]  # a 0-d tensor: copied as it is
    assert torch.atan2(torch.tensor([-0.0]).cumsum(0), torch.tensor([-0.0]).cumsum(0)).item() == 0


# --------------------------------------------------- graphs recorded under create_graph
def test_copy_slices_records_copy_slices_under_create_graph():
    # PyTorch's CopySlices backward copies the gradient and writes the in-place op's
    # gradient into the view's region of the copy, so under create_graph the base's
    # gradient has grad_fn CopySlices (teachgrad's: AddBackward0). Values by hand for
    # y = x (a clone), y[1:] exp'd in place, loss = Σ y³: ∂/∂x₀ = 3x₀², ∂/∂x₁ = 3e^(3x₁);
    # the second derivative is checked by gradcheck.
    x = leaf([0.5, -0.3])
    y = x.clone()
    y[1:].exp_()
    (g,) = torch.autograd.grad(y.pow(3).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "torch::autograd::CopySlices"
    np.testing.assert_allclose(g.tolist(), [3 * 0.25, 3 * math.exp(-0.9)])

    def first_derivative(x):
        y = x.clone()
        y[1:].exp_()
        return torch.autograd.grad(y.pow(3).sum(), x, create_graph=True)[0]

    assert gradcheck(first_derivative, (leaf([0.5, -0.3]),))


def test_cat_gradients_are_narrowed_under_create_graph():
    # PyTorch narrows cat's gradient (SliceBackward0 even for a piece that is the whole
    # gradient, next to an empty one); a skipped 1-d empty input gets new zeros with no
    # history. teachgrad's indexing gave AliasBackward0 and ViewBackward0.
    a, empty = leaf([[1.0, 2.0]]), torch.zeros((0, 2), dtype=torch.float64, requires_grad=True)
    vector = torch.zeros(0, dtype=torch.float64, requires_grad=True)
    grads = torch.autograd.grad(torch.cat([a, empty]).square().sum(), (a, empty),
                                create_graph=True)
    assert [g.grad_fn.name() for g in grads] == ["SliceBackward0"] * 2
    assert grads[0].tolist() == [[2.0, 4.0]]
    grads = torch.autograd.grad(torch.cat([a.view(-1), vector]).square().sum(), (a, vector),
                                create_graph=True)
    assert grads[1].grad_fn is None and not grads[1].requires_grad and grads[1].shape == (0,)


def test_an_empty_matrix_has_pytorchs_strides_and_mm_gradient_graph():
    # PyTorch gives an empty tensor the strides of a contiguous one, counting a size-0
    # dimension as 1: zeros(1, 0) has strides (1, 1), which passes mm's "stored by column"
    # test (strides (1, rows)), so the gradient of a (1, 0) right factor ends in
    # TBackward0. NumPy's strides of an empty array are 0 (teachgrad reported (0, 0)).
    assert torch.zeros(1, 0).stride() == (1, 1) and torch.zeros(0, 3).stride() == (3, 1)
    assert torch.zeros(2, 0, 3).stride() == (3, 3, 1) and torch.zeros(2, 0).stride(0) == 1
    a, b = leaf([[-2.0]]), torch.zeros((1, 0), dtype=torch.float64, requires_grad=True)
    grads = torch.autograd.grad(torch.matmul(a, b).sum(), (a, b), create_graph=True,
                                allow_unused=True)
    assert [g.grad_fn.name() for g in grads] == ["TBackward0", "TBackward0"]
    assert grads[0].tolist() == [[0.0]] and grads[1].shape == (1, 0)


@pytest.mark.parametrize("make, changed, expected", [
    # (what is changed in place after the op; the gradient of x, by hand)
    (lambda c, x: torch.dot(c, x), "x", [1.0, 2.0, -1.0]),  # ∂(c·x)/∂x = c: x not kept
    (lambda c, x: torch.cross(c, x, dim=0), "x", [-3.0, 2.0, 1.0]),  # Σ c × x: 1 × c
    (lambda c, x: torch.ldexp(c, x), "x",  # ∂(c·2ˣ)/∂x = result·ln 2: x not kept
     [math.log(2) * v * 2 ** 0.5 for v in (1.0, 2.0, -1.0)]),
    (lambda c, x: torch.addmv(x, torch.stack([c, c, c]), c), "c", [1.0, 1.0, 1.0]),
])
def test_a_tensor_no_needed_gradient_uses_may_change_in_place(make, changed, expected):
    # dot and cross keep each factor for the other one's gradient only, ldexp its
    # exponent for the mantissa's gradient only, addmv its factors for each other's
    # (PyTorch's rule): with only x needing a gradient, changing a tensor that gradient
    # does not use after the op does not stop backward (teachgrad refused).
    c, x = torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64), leaf([0.5, 0.5, 0.5])
    x_now = x * 1  # (a leaf may not change in place)
    y = make(c, x_now)
    (c if changed == "c" else x_now).add_(1)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.tolist(), expected)


def test_zero_dim_transpose_and_min_record_their_nodes_under_create_graph():
    # PyTorch records transpose's backward even for a 0-d tensor (TransposeBackward0) and
    # min/max along a dim scatter the gradient into zeros even for a 0-d input
    # (ScatterBackward0); teachgrad passed the gradient through (MulBackward0 showed).
    # Values: d(x²)/dx = 2x, its derivative 2.
    for pick, name in [(lambda a: a.transpose(0, -1), "TransposeBackward0"),
                       (lambda a: a.min(-1)[0], "ScatterBackward0"),
                       (lambda a: a.max(0, keepdim=True)[0], "ScatterBackward0")]:
        a = leaf(1.5)
        (g,) = torch.autograd.grad(pick(a).square().sum(), a, create_graph=True)
        assert g.grad_fn.name() == name and g.item() == 3.0
        assert torch.autograd.grad(g, a)[0].item() == 2.0


def test_the_inplace_error_names_no_node_for_an_integer_output():
    # max(dim)'s indices have no history in PyTorch: changed in place, its error reads
    # "[torch.LongTensor [2]] is at version 1" with no "which is output 1 of Max".
    def run():
        values, indices = (leaf([[1.0, 3.0], [2.0, 0.5]]) * 1).max(0)
        indices.add_(0)
        values.sum().backward()

    assert _modified_message(run) == "[torch.LongTensor [2]]"


def test_index_put_refuses_values_sharing_memory_with_the_target():
    # PyTorch's index_put_ (x[int_index] = v) refuses a v that shares memory with x, even
    # a 0-d one; a boolean mask alone is let through. teachgrad wrote on.
    x = torch.zeros(3)
    words = "some elements of the input tensor and the written-to tensor refer to a single"
    with pytest.raises(RuntimeError, match=words):
        x[torch.tensor([0])] = x[1]
    with pytest.raises(RuntimeError, match=words):
        x.index_put_((torch.tensor([0, 1]),), x[1:])
    x[torch.tensor([True, False, False])] = x[1:2]  # (a mask: allowed, as in PyTorch)
    x[torch.tensor([0])] = x[1].clone()
    assert x.tolist() == [0.0, 0.0, 0.0]


def test_an_empty_view_changed_in_place_sends_back_zeros_with_no_history():
    # PyTorch's as_strided_backward gives an empty view's base new zeros, so under
    # create_graph the gradient through it requires no grad (teachgrad recorded
    # ScatterAddBackward0 and required grad). The loss is an empty sum: 0, slope 0.
    a = leaf([-1.0, 0.181])
    v = (a[1:2] * 1)[1:]
    v.sub_(1)
    (g,) = torch.autograd.grad(v.square().sum(), a, create_graph=True)
    assert g.tolist() == [0.0, 0.0] and not g.requires_grad and g.grad_fn is None


@pytest.mark.parametrize("pick", [lambda x: x.sort(0), lambda x: x.topk(1, 0),
                                  lambda x: x.kthvalue(1, 0), lambda x: x[0, 0].sort(0)])
def test_sort_topk_kthvalue_keep_their_indices_for_backward(pick):
    # PyTorch keeps the indices output: changed in place, backward refuses (naming no
    # node: it is an integer tensor), and a second backward finds it freed. teachgrad
    # kept nothing: both went through.
    x = leaf([[1.0, 3.0], [2.0, 0.5]])
    values, indices = pick(x * 1)
    indices.add_(0)
    with pytest.raises(RuntimeError, match=r"\[torch.LongTensor \[[\d, ]*\]\] is at version 1"):
        values.sum().backward()
    values, _ = pick(x * 1)
    loss = values.sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        loss.backward()


def test_a_zero_dim_expand_records_a_sum_under_create_graph():
    # PyTorch's expand backward is sum_to(grad, ()), which sums even a 0-d gradient
    # (SumBackward0); teachgrad passed it through (MulBackward0). d(x²)/dx = 2x, then 2.
    a = leaf(1.5)
    (g,) = torch.autograd.grad(a.expand(()).square().sum(), a, create_graph=True)
    assert g.grad_fn.name() == "SumBackward0" and g.item() == 3.0
    assert torch.autograd.grad(g, a)[0].item() == 2.0


def test_prod_with_a_zero_records_a_view_under_create_graph():
    # PyTorch's prod() backward with a zero in the input multiplies the flattened products
    # of the others, then view_as(input): ViewBackward0 (teachgrad's ended in MulBackward0).
    # By hand for (Πa)² with a = [[2, 0], [3, 4]]: the gradient is 2·Πa·Π(others) = 0, and
    # its derivative summed over a is nonzero only at the zero: 2·(2·3·4)² = 1152.
    a = leaf([[2.0, 0.0], [3.0, 4.0]])
    (g,) = torch.autograd.grad(a.prod().square(), a, create_graph=True)
    assert g.grad_fn.name() == "ViewBackward0" and g.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert torch.autograd.grad(g.sum(), a)[0].tolist() == [[0.0, 1152.0], [0.0, 0.0]]


# ------------------------------------------------------------ the thirteenth session's finds
def test_lerp_names_the_dim_where_the_weight_meets_start_and_end_broadcast():
    # PyTorch broadcasts start with end first, then that shape with the weight: (2, 2, 2)
    # and (2, 2, 2, 2) give (2, 2, 2, 2), whose dim 3 (2) meets the weight's 3. teachgrad
    # compared start with the weight alone and named dim 2.
    start, end = torch.zeros(2, 2, 2), torch.zeros(2, 2, 2, 2)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size "
                                           r"of tensor b \(3\) at non-singleton dimension 3"):
        torch.lerp(start, end, torch.zeros(3, 3, 3))
    with pytest.raises(RuntimeError, match=r"tensor a \(3\) must match the size of tensor b "
                                           r"\(4\) at non-singleton dimension 1"):
        torch.zeros(3).lerp(torch.zeros(2, 1), torch.zeros(4))


@pytest.mark.parametrize("x", [torch.tensor([True]), torch.tensor(3),
                               torch.zeros(0, dtype=torch.bool)])
def test_integers_and_bools_to_a_negative_integer_power_raise_runtime_error(x):
    # PyTorch: RuntimeError for bools too (teachgrad let NumPy's ValueError through).
    with pytest.raises(RuntimeError, match="^Integers to negative integer powers are not "
                                           "allowed.$"):
        x ** -3
    assert (torch.tensor([True, False]) ** 2).tolist() == [1, 0]


@pytest.mark.parametrize("op", [torch.remainder, torch.fmod, torch.floor_divide,
                                lambda a, b: torch.div(a, b, rounding_mode="trunc")])
def test_an_empty_integer_tensor_divided_by_zero_is_empty(op):
    # PyTorch's kernel checks the divisors of the elements it computes: none here.
    out = op(torch.zeros((2, 0), dtype=torch.int64), torch.tensor(False))
    assert out.shape == (2, 0) and out.dtype == torch.int64
    with pytest.raises(RuntimeError, match="^ZeroDivisionError"):
        op(torch.tensor([1, 2]), torch.tensor([0, 1]))


def test_cumprod_of_an_empty_tensor_passes_the_gradient_through():
    # PyTorch's cumprod_backward returns the gradient as it is when numel <= 1: under
    # create_graph it then has no history (teachgrad divided by the input: DivBackward0).
    a = torch.zeros(0, 3, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(a.cumprod(1).mean(), a, create_graph=True)
    assert g.shape == (0, 3) and not g.requires_grad and g.grad_fn is None


@pytest.mark.parametrize("predicate", ["isfinite", "isnan", "isinf", "isposinf", "isneginf",
                                       "logical_not"])
def test_a_zero_dim_predicate_result_can_be_written_in_place(predicate):
    # NumPy returns a 0-d result as a (read-only) scalar: writing to it was refused as an
    # expanded tensor ("more than one element ... refers to a single memory location").
    v = getattr(torch, predicate)(torch.tensor(0.3))
    v[...] = 0.5
    assert v.dtype == torch.bool and v.item() is True
    b = ~torch.tensor(True)
    b.fill_(True)
    assert b.item() is True


def test_a_vector_times_a_matrix_is_not_a_view():
    # PyTorch squeezes the (1, n) product in place (SqueezeBackward4): an in-place op on the
    # result records its own node (NegBackward0), not a view's rebase (AsStridedBackward0).
    a, b = leaf([2.0]), leaf([[1.0, -2.0, 3.0]])
    v = torch.matmul(a, b)
    assert v.grad_fn.name() == "SqueezeBackward4" and v._base is None
    v.neg_()
    assert v.grad_fn.name() == "NegBackward0"
    assert v.grad_fn.next_functions[0][0].name() == "SqueezeBackward4"
    v.sum().backward()
    assert a.grad.tolist() == [-2.0] and b.grad.tolist() == [[-2.0, -2.0, -2.0]]


def test_acosh_second_derivative_at_one_is_minus_infinity():
    # acosh'' = −a/(a² − 1)^(3/2) → −∞ at a = 1. With create_graph teachgrad differentiated
    # (a − 1)(a + 1), whose product rule sends −∞·(a − 1) = −∞·0 = nan; PyTorch's a² − 1
    # gives −∞. Elsewhere: d/da (acosh′)² = −2a/(a² − 1)² (1.5: −3/1.5625 = −1.92).
    a = leaf([1.0, 1.5])
    (g,) = torch.autograd.grad(torch.acosh(a).sum(), a, create_graph=True)
    (gg,) = torch.autograd.grad((g * g).sum(), a)
    assert gg[0].item() == -inf and gg[1].item() == pytest.approx(-1.92)


def test_index_put_records_index_put_under_create_graph():
    # PyTorch's gradient of index_put for self is grad.index_put(indices, 0): an
    # IndexPutBackward0 over the incoming gradient (teachgrad's was a where: WhereBackward0).
    # By hand: v = a with the positives set to 1; d(Σv²)/da = 2a where a ≤ 0, else 0; again: 2.
    a = leaf([[0.5, -1.0], [2.0, -3.0]])
    v = a.clone()
    v[v > 0] = 1.0
    (g,) = torch.autograd.grad(v.square().sum(), a, create_graph=True)
    assert g.grad_fn.name() == "IndexPutBackward0" and g.tolist() == [[0.0, -2.0], [0.0, -6.0]]
    assert [fn is None for fn, _ in g.grad_fn.next_functions] == [False, True]
    assert torch.autograd.grad(g.sum(), a)[0].tolist() == [[0.0, 2.0], [0.0, 2.0]]


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_an_empty_integer_or_bool_tensor_is_nan_cast(name):
    # PyTorch returns nan cast to the dtype before it looks for a kernel: True for bool,
    # x86's "integer indefinite" for int64 and int32 (0 once narrowed to int8); teachgrad
    # refused bool ("median_cpu" not implemented) and let NumPy's ValueError out for int64.
    assert getattr(torch.zeros(0, 3, dtype=torch.bool), name)().item() is True
    assert getattr(torch.zeros(0, dtype=torch.int64), name)().item() == -2**63
    assert getattr(torch.zeros(0, dtype=torch.int32), name)().item() == -2**31
    assert getattr(torch.zeros(0, dtype=torch.int8), name)().item() == 0
    # with a dim, the empty dim is refused first (in PyTorch's words: "median()" for both)
    with pytest.raises(IndexError, match=r"^median\(\): Expected reduction dim 0 to have "
                                         r"non-zero size.$"):
        getattr(torch.zeros(0, 3, dtype=torch.bool), name)(dim=0)
    with pytest.raises(NotImplementedError, match="\"median_out\" not implemented for 'Bool'"):
        getattr(torch.zeros(2, 0, dtype=torch.bool), name)(dim=0)
    with pytest.raises(NotImplementedError, match="\"median_cpu\" not implemented for 'Bool'"):
        getattr(torch.zeros(3, dtype=torch.bool), name)()


@pytest.mark.parametrize("name", ["amax", "amin"])
def test_a_zero_dim_amax_over_dim_zero_records_a_sum_under_create_graph(name):
    # PyTorch gives the gradient of a 0-d input reduced over an explicit dim its dim back
    # (shape (1,)), summed to () by the engine: SumBackward0 (teachgrad's ended in
    # MulBackward0). Without a dim, or with keepdim, there is nothing to sum. d(e^a)/da = e^a.
    a = leaf(0.3)
    for kwargs, node in (({"dim": -1}, "SumBackward0"), ({"dim": (0,)}, "SumBackward0"),
                         ({}, "MulBackward0"), ({"dim": 0, "keepdim": True}, "MulBackward0")):
        (g,) = torch.autograd.grad(getattr(a, name)(**kwargs).exp(), a, create_graph=True)
        assert g.grad_fn.name() == node and g.item() == pytest.approx(math.exp(0.3))
        assert torch.autograd.grad(g, a)[0].item() == pytest.approx(math.exp(0.3))


def test_the_inplace_error_names_a_bool_tensor_as_pytorchs_core_does():
    # PyTorch names a saved bool tensor "CPUBoolType" (its legacy name, torch.BoolTensor,
    # is not used there); other dtypes keep torch.XTensor.
    a = leaf([1.0, 2.0])
    for dtype, name in ((torch.bool, r"CPUBoolType"), (torch.int64, r"torch\.LongTensor")):
        mask = torch.tensor([1, 1], dtype=dtype)
        out = a.div(mask)
        mask.zero_()
        with pytest.raises(RuntimeError, match=rf"inplace operation: \[{name} \[2\]\] is at "
                                               r"version 1; expected version 0 instead"):
            out.sum().backward()


def test_a_power_false_is_differentiated_by_the_general_formula():
    # PyTorch's shortcut for exponent 0 asks exponent.equal(0.0), false for a bool: for
    # a ** False it computes grad·0·a⁻¹, recorded under create_graph, nan at a = 0 (0·inf);
    # a ** 0 gives untracked zeros. teachgrad took the shortcut for False too.
    a = leaf([-0.2, 1.7])
    (g,) = torch.autograd.grad(a.pow(False).sum(), a, create_graph=True)
    assert g.requires_grad and g.grad_fn.name() == "MulBackward0" and g.tolist() == [0.0, 0.0]
    (g,) = torch.autograd.grad(a.pow(0).sum(), a, create_graph=True)
    assert not g.requires_grad and g.tolist() == [0.0, 0.0]
    z = leaf([0.0, 2.0])
    z.pow(False).sum().backward()
    assert math.isnan(z.grad[0].item()) and z.grad[1].item() == 0.0


@pytest.mark.parametrize("call, given", [
    (lambda x: torch.linalg.vector_norm(x, float("inf"), dim=-2), "-2"),
    (lambda x: torch.norm(x, p=-float("inf"), dim=(0, -2)), "-2"),
    (lambda x: x.amax(dim=-2), "-2"),
    (lambda x: x.amin(dim=(1, 0)), "1"),
])
def test_an_empty_reduction_dim_is_named_as_given(call, given):
    # PyTorch's vector_norm, amax and amin name the dim as the caller wrote it (-2, not 1).
    with pytest.raises((RuntimeError, IndexError), match=rf"dim(ension)? {given}(?!\d)"):
        call(torch.zeros(2, 0, 3))


def test_a_zero_norm_checks_its_saved_result_before_sending_no_gradient():
    # PyTorch unpacks what LinalgVectorNormBackward0 saved before its p = 0 formula (no
    # gradient): the result changed in place is refused, as for any other p. teachgrad
    # returned early and reported the input unused.
    a = leaf([[1.0, 2.0], [0.0, -3.0]])
    v = torch.norm(a, p=0, dim=0)
    v.div_(2)
    with pytest.raises(RuntimeError, match=r"\[torch.DoubleTensor \[2\]\], which is output 0 "
                                           r"of LinalgVectorNorm, is at version 1"):
        torch.autograd.grad(v.sum(), a)
    assert torch.autograd.grad(torch.norm(a, p=0, dim=0).sum(), a, allow_unused=True) == (None,)


@pytest.mark.parametrize("make", [
    lambda x, m: x.masked_fill(m, 0.0),
    lambda x, m: x.masked_fill(m, torch.tensor(0.5, requires_grad=True)),
    lambda x, m: torch.where(m, x, 0.0),
])
@pytest.mark.parametrize("create_graph", [False, True])
def test_a_mask_changed_in_place_after_use_is_refused_by_backward(make, create_graph):
    # PyTorch saves masked_fill's mask and where's condition, so backward refuses one
    # changed in place since (naming the mask by its own shape); teachgrad kept a plain
    # array and silently used the new mask. Unchanged, the gradient is 1 where the input
    # was kept.
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    mask = torch.tensor([[True, False, True]])
    out = make(x, mask)
    (g,) = torch.autograd.grad(out.sum(), x, create_graph=create_graph, retain_graph=True)
    where = out.grad_fn.name() == "WhereBackward0"
    kept = [1.0, 0.0, 1.0] if where else [0.0, 1.0, 0.0]
    assert g.tolist() == [kept, kept]
    saved = out.grad_fn._saved_condition if where else out.grad_fn._saved_mask
    assert saved.shape == (1, 3)  # as PyTorch keeps it: not broadcast
    mask.logical_not_()
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[CPUBoolType "
                                           r"\[1, 3\]\] is at version 1; expected version 0"):
        torch.autograd.grad(out.sum(), x, create_graph=create_graph)


def test_a_mask_saved_under_saved_tensor_hooks_goes_through_them():
    # PyTorch packs the mask as any saved tensor: what the unpack hook gives back is used,
    # unchecked (here the mask as it was, kept by the pack hook).
    x = leaf([1.0, 2.0])
    mask = torch.tensor([True, False])
    packed = []

    def pack(t):
        packed.append(t.clone())
        return packed[-1]

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = x.masked_fill(mask, 0.0)
    mask.fill_(False)
    assert [t.dtype for t in packed] == [torch.bool]
    assert torch.autograd.grad(out.sum(), x)[0].tolist() == [0.0, 1.0]


def test_power_minus_one_half_is_a_reciprocal_square_root_as_pytorchs_kernel():
    # PyTorch computes a ** -0.5 as 1/√a: nan at −inf, −inf at −0 (C's pow: 0 and +inf);
    # the derivative of a ** 0.5 is 0.5·a ** -0.5, so it follows: nan at −inf, −inf at −0.
    a = leaf([-inf, -0.0, 4.0])
    assert [str(v) for v in (a.detach() ** -0.5).tolist()] == ["nan", "-inf", "0.5"]
    (g,) = torch.autograd.grad((a ** 0.5).sum(), a)
    assert [str(v) for v in g.tolist()] == ["nan", "-inf", "0.25"]
    (g,) = torch.autograd.grad((a ** 0.5).sum(), a, create_graph=True)
    assert [str(v) for v in g.tolist()] == ["nan", "-inf", "0.25"]


def test_addcdiv_gradients_group_as_pytorchs_formulas():
    # PyTorch: grad·(value / t2) and −grad·(value·t1 / t2²), a product last (MulBackward0;
    # teachgrad's ended in DivBackward0 for value = 1). Grouped so, an empty broadcast
    # result sends back a zero gradient that meets t2 = nan at t2's own shape: nan second
    # derivatives, as PyTorch's.
    t1, t2 = leaf([3.0, -1.0]), leaf([2.0, 4.0])
    g1, g2 = torch.autograd.grad(torch.addcdiv(torch.zeros(2), t1, t2).sum(), [t1, t2],
                                 create_graph=True)
    assert [g1.grad_fn.name(), g2.grad_fn.name()] == ["MulBackward0", "MulBackward0"]
    assert g1.tolist() == [0.5, 0.25] and g2.tolist() == [-0.75, 0.0625]  # 1/t2, −t1/t2²
    t1, t2 = leaf([[-0.0]]), leaf([nan])
    out = torch.addcdiv(torch.zeros(0, 2), t1, t2, value=0.5)
    g1, g2 = torch.autograd.grad(out.sum(), [t1, t2], create_graph=True)
    assert g1.tolist() == [[0.0]] and g2.tolist() == [0.0]  # sums over nothing
    second = torch.autograd.grad((g1 * g1).sum() + (g2 * g2).sum(), [t1, t2])
    assert all(math.isnan(s.item()) for s in second)


def test_the_two_norms_second_derivative_at_a_zero_norm_is_nan_as_pytorchs():
    # PyTorch's gradient of ‖a‖ is (a / ‖a‖).masked_fill_(‖a‖ == 0, 0): differentiated again
    # at a zero norm, 0/0 comes back as nan. teachgrad divided by 1 there (0 again).
    a = leaf([[0.0, 3.0], [0.0, 4.0]])
    (g,) = torch.autograd.grad(torch.norm(a, dim=0).sum(), a, create_graph=True)
    assert g.tolist() == [[0.0, 0.6], [0.0, 0.8]]
    (gg,) = torch.autograd.grad(g.sum(), a)
    # column 1 by hand: d/da (a₁ + a₂)/‖a‖ = 1/‖a‖ − (a₁ + a₂)·a/‖a‖³
    assert math.isnan(gg[0, 0].item()) and math.isnan(gg[1, 0].item())
    assert gg[:, 1].tolist() == pytest.approx([0.2 - 7 * 3 / 125, 0.2 - 7 * 4 / 125])


def test_an_inf_norm_of_a_zero_dim_tensor_over_dim_minus_one():
    # the check of empty dims (named as given) must skip a 0-d tensor (fuzz seed 26509)
    a = leaf(-0.468)
    assert torch.norm(a, p=float("inf"), dim=-1, keepdim=True).item() == 0.468


# ------------------------------------------------------------- fuzz round: seeds 48000-60000
def test_a_view_saved_before_its_base_had_a_history_is_named_as_pytorchs_as_strided():
    # Fuzz seed 49832. outer(a, b) saves a viewed as [1, 1]; a then changes in place
    # through another view, by an op with a history: PyTorch gives the saved view one too,
    # "output 0 of AsStrided", and names it so. teachgrad's view had no grad_fn: unnamed.
    a = torch.tensor([2.0, 3.0], dtype=torch.float64)
    w = leaf([3.0])
    y = a.view(2, 1) * w
    a[0:1].mul_(w)
    with pytest.raises(RuntimeError, match=r"inplace operation: \[torch.DoubleTensor \[2, 1\]\], "
                                           r"which is output 0 of AsStrided, is at version 1"):
        y.sum().backward()


@pytest.mark.parametrize("repeats", [(1, 1), (1, 1, 1)])
def test_repeat_by_ones_passes_the_gradient_through_as_pytorch(repeats):
    # Fuzz seeds 50455, 56669: PyTorch's repeat_backward adds nothing up when every
    # repeat is 1 (and none is added in front): under create_graph the gradient of
    # x.repeat(1, 1).square().sum() is square's own, 2·x (MulBackward0), not a sum of it.
    x = leaf([[1.0, -2.0], [3.0, 0.5]])
    x = x if len(repeats) == 2 else x[None].detach().requires_grad_()
    (g,) = torch.autograd.grad(x.repeat(*repeats).square().sum(), x, create_graph=True)
    assert g.grad_fn.name() == "MulBackward0"
    assert g.flatten().tolist() == [2.0, -4.0, 6.0, 1.0]
    (g,) = torch.autograd.grad(x.repeat(*(2,) + repeats[1:]).square().sum(), x,
                               create_graph=True)
    assert g.grad_fn.name() == "SumBackward1"  # repeated: the copies' gradients add up
    assert g.flatten().tolist() == [4.0, -8.0, 12.0, 2.0]


@pytest.mark.parametrize("shape", [(1, 0), (0,), (1,)])
def test_cumsum_of_at_most_one_element_passes_the_gradient_through(shape):
    # Fuzz seed 53638: PyTorch's cumsum_backward returns the gradient as it is when it
    # has at most one element (or the dim has size 1): no flips recorded (FlipBackward0).
    a = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(a.cumsum(-1).square().sum(), a, create_graph=True)
    assert g.grad_fn.name() == "MulBackward0" and g.shape == shape


def test_polygamma_of_order_two_and_more_at_infinity_is_pytorchs():
    # Fuzz seed 57433: PyTorch computes polygamma(n ≥ 2, x) through its zeta, which gives
    # nan at x = inf and ±inf at x = -inf ((-1)^(n+1)·n!·inf); n = 1 has its own kernel
    # (0 at inf, nan at -inf). So digamma's second derivative at inf, 2·ψ′·ψ″, is nan.
    x = torch.tensor([inf, -inf], dtype=torch.float64)
    assert str(torch.polygamma(1, x).tolist()) == "[0.0, nan]"
    assert str(torch.polygamma(2, x).tolist()) == "[nan, -inf]"
    assert str(torch.polygamma(3, x).tolist()) == "[nan, inf]"
    a = leaf([inf, 2.0])
    (g,) = torch.autograd.grad(torch.digamma(a).sum(), a, create_graph=True)
    (gg,) = torch.autograd.grad((g * g).sum(), a)
    assert math.isnan(gg[0].item())
    assert gg[1].item() == pytest.approx(2 * (math.pi ** 2 / 6 - 1) * -0.4041138063191885)


def test_a_view_of_a_piece_of_split_is_refused_in_place_before_the_dtype_check():
    # Fuzz seed 58881: v = t.split(2)[0][1:] (t bool, no gradient) is still a view of a
    # piece of split. PyTorch's autograd refuses v.add_(x requiring grad) before the
    # kernel would complain about casting double to bool; teachgrad did not mark v.
    piece = torch.tensor([True]).split(2, dim=-1)[0]
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and is "
                                           "being modified inplace with grad mode enabled. "
                                           "This view is the output of a function that "
                                           "returns multiple views."):
        piece[1:].add_(leaf([1.0]))


# ------------------------------------------------------------- fuzz round: seeds 61500-...
@pytest.mark.parametrize("dim", [None, 1])
def test_prod_with_a_zero_along_a_size_one_dim_passes_the_gradient_through(dim):
    # Fuzz seed 63851: PyTorch's prod_safe_zeros_backward returns the gradient as it is
    # along a dim of size 1 (the product there is the element itself), so under
    # create_graph the gradient of a.prod(1).mean() is mean's constant: no history.
    # teachgrad multiplied by the product of no others (1): MulBackward0, requires_grad.
    a = leaf([[0.0], [2.0]]) if dim == 1 else leaf([0.0])
    out = a.prod(dim=dim) if dim is not None else a.prod()
    (g,) = torch.autograd.grad(out.mean(), a, create_graph=True)
    assert g.tolist() == ([[0.5], [0.5]] if dim == 1 else [1.0])
    assert not g.requires_grad and g.grad_fn is None
    # along a longer dim the product of the others is still computed (and recorded)
    b = leaf([[0.0, 2.0, 3.0]])
    (g,) = torch.autograd.grad(b.prod(dim=1).sum(), b, create_graph=True)
    assert g.tolist() == [[6.0, 0.0, 0.0]] and g.grad_fn.name() == "MulBackward0"


def test_the_gradient_of_a_power_is_laid_out_as_its_input():
    # Fuzz seed 70752: PyTorch's pow backward is grad · (n · xⁿ⁻¹); with grad expanded
    # (sum's) the product is laid out as x. x = a.view(4, 3).t() is transposed, so its
    # gradient is transposed too, TBackward0 makes it contiguous, and view's backward
    # can view it (ViewBackward0). teachgrad grouped (grad · n) · xⁿ⁻¹: a row-major
    # product, which the view's backward had to copy (UnsafeViewBackward0).
    a = torch.arange(12.0, dtype=torch.float64).reshape(3, 4).requires_grad_()
    x = a.view(4, 3).t()
    seen = []
    x.register_hook(lambda g: seen.append(g.stride()))
    (g,) = torch.autograd.grad(x.square().sum(), a, create_graph=True)
    assert seen == [(1, 3)]  # x's own strides, elements 1 apart down a column
    assert g.grad_fn.name() == "ViewBackward0"
    assert g.tolist() == (2 * torch.arange(12.0).reshape(3, 4)).tolist()


@pytest.mark.parametrize("n", [1, 2, 5])
def test_a_dot_product_of_signed_zeros_is_plus_zero(n):
    # Fuzz seed 79894: PyTorch's dot adds the products to a sum starting at +0, so
    # [-0.]·[0.] is +0 (signbit False); NumPy's one-element dot returned the product, -0.
    for dtype in (torch.float32, torch.float64):
        a, b = torch.full((n,), -0.0, dtype=dtype), torch.zeros(n, dtype=dtype)
        for out in (a.dot(b), a @ b, torch.vdot(a, b)):
            assert out.item() == 0.0 and not torch.signbit(out).item()
    assert torch.tensor([inf]).dot(torch.tensor([0.0])).isnan().item()  # inf·0 stays nan
    assert torch.tensor([-2.0]).dot(torch.tensor([3.0])).item() == -6.0


def test_a_bases_gradient_through_a_view_changed_in_place_is_an_as_strided_view():
    # Fuzz seed 80578: after v = a[1:]; v.mul_(w), v's history is AsStridedBackward0; its
    # backward under create_graph is PyTorch's as_strided_backward, which ends in
    # storage.as_strided(base geometry): the gradient's grad_fn is AsStridedBackward0
    # (teachgrad reshaped: ViewBackward0). Values: 2·v·w on the view's rows, 0 elsewhere.
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64)
    w = leaf(2.0)
    v = a[1:]
    v.mul_(w)
    (g,) = torch.autograd.grad(v.square().sum(), a, create_graph=True)
    assert g.grad_fn.name() == "AsStridedBackward0" and g.is_contiguous()
    assert g.tolist() == [[0.0, 0.0], [12.0, 16.0], [20.0, 24.0]]
    # and it differentiates again: Σ g = 2·Σ v = 2·w·Σ old (old rows sum to 18), d/dw = 2·18
    (gw,) = torch.autograd.grad(g.sum(), w)
    assert gw.item() == 2 * 18.0


def test_sinc_at_zero_drops_an_infinite_gradient_under_create_graph():
    # Fuzz seed 88628: sinc(0) = 1, atanh'(1) = inf, and sinc's slope at 0 is 0. PyTorch
    # selects 0 there (so does teachgrad without create_graph); under create_graph
    # teachgrad's product (kept for sinc's true second derivative) gave inf·0 = nan.
    a = leaf([0.0, 0.5])
    for create_graph in (False, True):
        (g,) = torch.autograd.grad(torch.sinc(a).atanh().sum(), a, create_graph=create_graph)
        # at 0.5: atanh'(2/π) · sinc'(0.5) = 1/(1 − 4/π²) · (−4/π)
        assert g.tolist() == pytest.approx([0.0, -4 / math.pi / (1 - 4 / math.pi ** 2)])
    # a finite gradient at 0 still differentiates to sinc''(0) = −π²/3
    (g,) = torch.autograd.grad(torch.sinc(a).sum(), a, create_graph=True)
    (gg,) = torch.autograd.grad(g[0], a)
    assert gg[0].item() == pytest.approx(-math.pi ** 2 / 3)


@pytest.mark.parametrize("call", [lambda v: v.zero_(), lambda v: v.fill_(2.5)])
def test_fill_and_zero_may_write_an_expanded_tensor(call):
    # Fuzz seed 103437: PyTorch refuses an in-place op on an expanded tensor (several
    # elements one number in memory) except fill_(number) and zero_(), which write one
    # value everywhere: teachgrad refused them too.
    a = torch.tensor([[1.0], [2.0]], dtype=torch.float64)
    call(a.expand(2, 3))
    value = a[0, 0].item()
    assert a.tolist() == [[value], [value]] and value in (0.0, 2.5)
    for refused in (lambda v: v.mul_(2.0), lambda v: v.fill_(torch.tensor(1.0))):
        with pytest.raises(RuntimeError, match="more than one element of the written-to "
                                               "tensor refers to a single memory location"):
            refused(a.expand(2, 3))
    # With a history: the base gets CopySlices, but PyTorch's CopySlices backward copies
    # the view's gradient into a view with the same (zero) strides, which it refuses.
    w = leaf([[1.0], [2.0]])
    b = w * 1
    call(b.expand(2, 3))
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    with pytest.raises(RuntimeError, match=r"single memory location\. Please clone\(\) the "
                                           r"tensor before performing the operation\.\nHint: "):
        b.sum().backward()


def test_copyslices_hands_the_inplace_op_a_clone_of_the_views_gradient():
    # Fuzz seed 95434: PyTorch's CopySlices runs the in-place op's backward on
    # grad_slice.clone(), so under create_graph the gradient of a tensor added in place
    # through a view (add_ passes it straight through) ends in CloneBackward0; teachgrad's
    # ended in the IndexBackward0 that picked the view's elements.
    a = leaf([1.0, 2.0, 3.0])
    w = leaf([10.0, 20.0])
    b = a * 1
    b[1:].add_(w)
    (ga, gw) = torch.autograd.grad(b.square().sum(), [a, w], create_graph=True)
    assert gw.grad_fn.name() == "CloneBackward0"
    assert gw.tolist() == [2 * 12.0, 2 * 23.0] and ga.tolist() == [2.0, 24.0, 46.0]
    (gww,) = torch.autograd.grad(gw.sum(), w)  # d/dw Σ 2·(a[1:] + w) = 2
    assert gww.tolist() == [2.0, 2.0]


def test_a_binary_op_follows_its_first_operands_layout_as_pytorch():
    # PyTorch's TensorIterator asks the operands in order which dim is innermost, so
    # x.t() * y (y row-major) is laid out as x.t(): transposed, and .t().view(-1) works.
    # NumPy falls back to row-major where the operands disagree, so teachgrad's
    # .view(-1) was refused. (Found while fixing seed 70752.)
    x = torch.arange(12.0).reshape(3, 4)
    y = torch.ones(4, 3)
    r = x.t() * y
    assert r.stride() == (1, 4) and (y * x.t()).stride() == (3, 1)
    assert r.t().view(-1).tolist() == list(range(12))
    assert torch.maximum(x.t(), y).stride() == (1, 4)
    cond = torch.ones(4, 3, dtype=torch.bool)  # where asks the condition first
    assert torch.where(cond, x.t(), y).stride() == (3, 1)
    a = x.t().detach().requires_grad_()
    out = a * y
    assert out.stride() == (1, 4) and out.grad_fn.name() == "MulBackward0"
    (g,) = torch.autograd.grad(out.sum(), a)
    assert g.tolist() == torch.ones(4, 3).tolist()


def test_std_second_derivative_at_a_zero_std_is_nan_as_pytorchs():
    # Fuzz seed 107241: PyTorch's std gradient is (grad / std).masked_fill_(std == 0, 0)
    # times var's slope; differentiated again, the division's slope grad / std² meets the
    # mask's 0: nan. teachgrad divided by 1 there (0). atan2(std, a) makes the first
    # gradient depend on std at std = 0.
    a = leaf([[3.0], [0.5]])
    s = a.std(dim=1, correction=0)  # one element per row: std 0
    (g,) = torch.autograd.grad(torch.atan2(s, a.squeeze(1)).sum(), a, create_graph=True)
    assert g.tolist() == [[0.0], [0.0]]  # d atan2(0, a)/da = 0 for a > 0
    (gg,) = torch.autograd.grad((g * g).sum(), a)
    assert all(math.isnan(v) for v in gg.flatten().tolist())
    b = leaf([[1.0, 3.0]])  # a non-zero std keeps finite second derivatives
    (g,) = torch.autograd.grad(b.std(dim=1).sum(), b, create_graph=True)
    assert g[0].tolist() == pytest.approx([-1 / math.sqrt(2), 1 / math.sqrt(2)])


def test_a_view_taken_before_its_base_got_a_history_in_place_gets_one_too():
    # Fuzz seeds 323, 550 (--ops on views and in-place ops): v = a.view(-1) of a tensor
    # needing no gradient, then a.add_(w) with w requiring grad. PyTorch's view now
    # requires grad, its grad_fn is AsStridedBackward0 (reading it out of a's new
    # history), and what is computed from it is recorded; teachgrad's view stayed outside.
    a = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    v = a[1:]
    w = leaf(2.0)
    a.add_(w)
    assert v.requires_grad and v.grad_fn.name() == "AsStridedBackward0" and not v.is_leaf
    out = v.expand(2, 2)
    assert out.grad_fn.name() == "ExpandBackward0"
    (g,) = torch.autograd.grad(out.sum(), w)  # Σ over 2 copies of a[1:] + w: d/dw = 4
    assert g.item() == 4.0
    # a view made under no_grad stays outside (PyTorch refuses it later instead)
    b = torch.tensor([1.0, 2.0], dtype=torch.float64)
    with torch.no_grad():
        u = b[1:]
    b.add_(w)
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode"):
        u.grad_fn  # noqa: B018


def test_a_view_that_gained_a_history_is_a_leaf_to_inplace_ops_until_it_is_rebuilt():
    # Fuzz seed 1814: changing such a view in place before anything read its history:
    # PyTorch 2.13 counts it as a leaf that requires grad and refuses; once grad_fn was
    # read (or the view used in an op), the change is recorded through the base.
    a = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    v = a[1:]
    w = leaf(2.0)
    a.mul_(w)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being "
                                           "used in an in-place operation.\nHint: "):
        v.mul_(3.0)
    assert a.tolist() == [2.0, 4.0, 6.0]  # nothing was changed
    assert v.grad_fn.name() == "AsStridedBackward0"
    v.mul_(3.0)
    (g,) = torch.autograd.grad(a.sum(), w)  # a = [w, 6w, 9w]: d/dw Σ = 16
    assert g.item() == 16.0


@pytest.mark.parametrize("call", [lambda v: v.mul_(torch.ones(2)),
                                  lambda v: v.div_(2),
                                  lambda v: v.exp_()])
def test_an_expanded_tensor_is_refused_before_the_operands_are_checked(call):
    # Fuzz seeds 879, 979, 1268, 1676: PyTorch's kernel refuses to write an expanded
    # tensor before it looks at the operands' shapes or the result's dtype; teachgrad
    # said "The size of tensor a (3) must match ..." or "result type Float can't be cast".
    x = torch.tensor([[1, 2, 3]]).expand(2, 3)
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element "
                                           "of the written-to tensor refers to a single "
                                           "memory location"):
        call(x)


def test_clamp_by_numbers_checks_the_dtype_before_the_overlap():
    # Focused fuzz seed 59: PyTorch's clamp_ with number bounds refuses a float result for
    # an integer tensor before its kernel looks at the memory (expanded or not).
    x = torch.tensor([[1, 2]]).expand(2, 2)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired "
                                           "output type long int$"):
        x.clamp_(-0.5, 0.5)


def test_an_inplace_op_on_a_stale_view_starts_from_its_rebuilt_history():
    # Focused fuzz seed 1152: v = y[0]; v.exp_(); y.sub_(1); v.sub_(1). v's history is
    # stale after y.sub_; v.sub_ must start from the rebuilt one, so the node exp_ left on
    # v is dropped, and the error for exp_'s saved (changed) output names ExpBackward0's
    # "output 0 of Exp", as PyTorch's, once that node is gone.
    a = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = a * 1
    v = y[0]
    v.exp_()
    y.sub_(1)
    v.sub_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.DoubleTensor \[2\]\], which is output 0 "
                                           r"of Exp, is at version 3; expected version 1"):
        y.mean().backward()
    # and the gradient through such a view counts every change (checked by hand:
    # v = 5·a[0] then y = 2·y then v + 1: ∂Σy/∂a = [[10, 10], [2, 2]])
    a = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = a * 1
    v = y[0]
    v.mul_(5.0)
    y.mul_(2.0)
    v.add_(1.0)
    (g,) = torch.autograd.grad(y.sum(), a)
    assert g.tolist() == [[10.0, 10.0], [2.0, 2.0]]


def test_pow_first_derivative_graph_is_pytorchs():
    """d(x³)/dx under create_graph is grad · (3 · x²): PyTorch records the number times the
    power as MulBackward1 (a tensor times a number, in C++), under the MulBackward0 of the
    incoming gradient; values by hand: 3·2² = 12, and the second derivative 6·2 = 12."""
    x = teachgrad.tensor(2.0, requires_grad=True)
    (first,) = teachgrad.autograd.grad(x ** 3, x, create_graph=True)
    assert first.item() == 12.0
    assert type(first.grad_fn).__name__ == "MulBackward0"
    factor = first.grad_fn.next_functions[1][0]
    assert type(factor).__name__ == "MulBackward1"
    assert [type(n).__name__ for n, _ in factor.next_functions] == ["PowBackward0"]
    (second,) = teachgrad.autograd.grad(first, x)
    assert second.item() == 12.0


# ------------------------------------------------------------ fuzz round: seeds 140000-...
def test_sgn_names_its_changed_input_before_its_changed_output():
    # Fuzz seed 144506: sgn saves self and its result; PyTorch's SgnBackward0 unpacks self
    # first, so with both changed in place the error names self (here 'output 0 of Abs');
    # teachgrad checked the result first ('output 0 of Sgn').
    a = leaf([1.0, 2.0])
    v2 = a.exp()
    v3 = torch.sgn(v2)
    v2.abs_()
    v3.sub_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.DoubleTensor \[2\]\], which is output 0 "
                                           r"of Abs, is at version 1; expected version 0"):
        v3.sum().backward()


def test_a_view_of_a_leaf_made_to_require_grad_afterwards():
    # Focused fuzz (--ops requires_grad_): v = x[0]; x.requires_grad_(). PyTorch's view asks
    # its base: v.requires_grad is True, v stays a leaf with no grad_fn, ops on v are
    # recorded (MulBackward0) but send v's gradient nowhere (edge (None, 0)): x.grad stays
    # None; v cannot be changed in place. teachgrad said v.requires_grad was False and
    # recorded nothing (backward then failed: "does not require grad").
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    v = x[0]
    x.requires_grad_()
    assert v.requires_grad and v.grad_fn is None and v.is_leaf
    w = v * 2
    assert type(w.grad_fn).__name__ == "MulBackward0"
    assert w.grad_fn.next_functions == ((None, 0), (None, 0))
    w.sum().backward()
    assert x.grad is None and v.grad is None
    assert torch.autograd.grad((v * 2).sum(), x, allow_unused=True) == (None,)
    with pytest.raises(RuntimeError, match="^The differentiated Tensor at index 0 appears "
                                           "to not have been used in the graph"):
        torch.autograd.grad((v * 2).sum(), v)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is "
                                           "being used in an in-place operation"):
        v.mul_(2)
    x.requires_grad_(False)  # it asks its base each time
    assert not v.requires_grad
    # a detached view is not a view to autograd
    y = torch.tensor([1.0, 2.0])
    d = y.detach()[0:]
    y.requires_grad_()
    assert not d.requires_grad


def test_a_float32_tensor_changed_in_place_by_a_float64_op_takes_float32_gradients():
    # Fuzz seed 161792: a1 (float32).mul_(a3 float64) writes a float64 result into
    # float32; PyTorch's MulBackward0 describes what was written, so the gradient for a1
    # is float32 (teachgrad's node said float64). Values by hand: ∂Σ(2·a1)/∂a1 = 2, and
    # ∂/∂a3 = Σ 2·a1_old = 2·(1.5 + 0.25) = 3.5.
    a1 = torch.tensor([[1.5, 0.25]], dtype=torch.float32)
    a3 = leaf([2.0])
    a1.mul_(a3)
    g1, g3 = torch.autograd.grad((a1 * 2).sum(), [a1, a3])
    assert g1.dtype == torch.float32 and g1.tolist() == [[2.0, 2.0]]
    assert g3.dtype == torch.float64 and g3.tolist() == [3.5]


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative_ops_in_place_refuse_bool_and_another_dtype(name):
    # Focused fuzz (--ops cumsum_,cumprod_, seeds 51, 107 ...): PyTorch's kernel has no bool
    # loop ('"cumsum_out_cpu" not implemented for 'Bool''; 0-d and empty tensors are copied,
    # the kernel never runs) and refuses dtype= other than self's; teachgrad said "result
    # type Long can't be cast to the desired output type Bool".
    with pytest.raises(NotImplementedError, match=f'^"{name}_out_cpu" not implemented for '
                                                  "'Bool'"):
        getattr(torch.tensor([[True, False]]), name + "_")(1)
    x = torch.tensor(True)
    assert getattr(x, name + "_")(0).tolist() is True and x.dtype == torch.bool
    with pytest.raises(RuntimeError, match="^Bad in-place call: input tensor dtype long int "
                                           "and output tensor dtype double should match"):
        getattr(torch.tensor([1, 2]), name + "_")(0, dtype=torch.float64)
    x = torch.tensor([2, 3])
    getattr(x, name + "_")(0)
    assert x.tolist() == ([2, 5] if name == "cumsum" else [2, 6])


def test_an_inplace_op_refuses_operands_overlapping_what_it_writes():
    # Focused fuzz (--ops copy_,addcmul_,lerp_ ..., seeds 34, 45, 96, 1489): PyTorch's
    # kernels refuse to write a tensor while reading an operand that shares some of its
    # memory (both filling a block of memory: contiguous, or permuted); teachgrad computed
    # (or, for copy_, refused wherever memory was shared, before checking the shapes).
    words = "^unsupported operation: some elements of the input tensor and the written-to"
    x = torch.arange(4.0)
    for write in (lambda: x[1:].add_(x[:3]), lambda: x[1:].addcmul_(x[:3], x[:3]),
                  lambda: x[1:].lerp_(x[:3], 0.5), lambda: x[1:].copy_(x[:3]),
                  lambda: x[:3].mul_(x),  # (before the shapes are compared)
                  lambda: x[1:].clamp_(min=x[:3]),
                  lambda: x.reshape(2, 2).add_(x.reshape(2, 2).t()),
                  lambda: x.index_add_(0, torch.tensor([3, 2, 1, 0]), x)):  # the same, too
        with pytest.raises(RuntimeError, match=words):
            write()
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]  # nothing written
    x.add_(x)  # the very same elements: fine
    x.masked_fill_(torch.tensor([True, False, False, False]), x[1])  # (a value: read once)
    assert x.tolist() == [2.0, 2.0, 4.0, 6.0]
    # Not filling a block of memory: PyTorch does not check, and its result depends on the
    # order it writes in; teachgrad reads the operand first: [[0+1, 1+2], [3+4, 4+5]].
    a = torch.arange(6.0).reshape(2, 3)
    a[:, 1:].add_(a[:, :2])
    assert a.tolist() == [[0.0, 1.0, 3.0], [3.0, 7.0, 9.0]]
    # copy_ compares the shapes after the memory: a non-block view gets the shape error
    y = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(RuntimeError, match=r"^output with shape \[3, 1\] doesn't match the "
                                           r"broadcast shape \[3, 2\]"):
        y[..., :1].copy_(y)


def test_results_pytorch_finishes_in_place_start_at_its_version():
    # Fuzz seed 176147: PyTorch's 1-D @ 2-D matmul ends with squeeze_ (version 1), and
    # quantile with lerp_ / squeeze_ (and unsqueeze_, transpose_ for several q): changed
    # in place afterwards, the error names PyTorch's versions ('is at version 2; expected
    # version 1'); teachgrad's results started at version 0.
    a = leaf([0.5])
    v = a @ leaf([[2.0, 3.0]])
    assert v._version == 1
    d = v.sin()  # (saves v)
    v.div_(2)
    with pytest.raises(RuntimeError, match="is at version 2; expected version 1 instead"):
        d.sum().backward()
    x = leaf([1.0, 4.0, 2.0, 3.0])
    assert torch.quantile(x, 0.5)._version == 2  # lerp_, squeeze_
    assert torch.quantile(x, torch.tensor([0.5, 0.25], dtype=torch.float64))._version == 4
    assert torch.quantile(x, 0.5, interpolation="lower")._version == 1
    assert torch.quantile(x, 0.5).item() == 2.5


def test_addcmul_of_integers_truncates_value_and_refuses_bool():
    # Focused fuzz seeds 79, 724, 863: PyTorch's kernel takes value in the result's dtype,
    # so an integer addcmul truncates it (value=0.5 adds nothing; 1.7 counts as 1, -1.7
    # as -1); teachgrad multiplied by 0.5, then truncated the sum (silently other numbers).
    # A bool addcmul has no kernel (seed 16); addcmul_ compares the shapes first (26).
    x, t1, t2 = torch.tensor([5, 2]), torch.tensor([5, 1]), torch.tensor([-4, 1])
    assert torch.addcmul(x, t1, t2, value=0.5).tolist() == [5, 2]
    assert torch.addcmul(x, t1, t2, value=1.7).tolist() == [5 - 20, 3]
    assert torch.addcmul(x, t1, t2, value=-1.7).tolist() == [5 + 20, 1]
    x.addcmul_(t1, t2, value=0.5)
    assert x.tolist() == [5, 2]
    b = torch.tensor([True, False])
    with pytest.raises(NotImplementedError, match='^"addcmul_cpu_out" not implemented for '
                                                  "'Bool'"):
        b.addcmul_(b, b)
    with pytest.raises(RuntimeError, match=r"^output with shape \[2\] doesn't match the "
                                           r"broadcast shape \[2, 2\]"):
        b.addcmul_(torch.tensor([True]), torch.tensor([[True], [False]]))
    # addcdiv_ refuses two integer tensors before it looks at the memory (seed 130)
    y = torch.tensor([[4, -3], [4, -1]])
    with pytest.raises(RuntimeError, match="^Integer division with addcdiv is no longer"):
        y[0].addcdiv_(y, torch.tensor([5, 1]))


def test_lerp_checks_in_pytorchs_order_and_words():
    # Focused fuzz --ops lerp_ (seeds 2, 9, 42, 204, 432, 829): PyTorch checks end's and
    # the weight's dtype first ('long int', as C++ names it), then the shapes (in place:
    # self's own shape too), then its kernel refuses integers, named by the weight's kind
    # ('lerp_kernel_tensor' for a tensor weight). teachgrad refused integers first, always
    # as 'lerp_kernel_scalar', and named int64 'int64'.
    i, f = torch.tensor([1, 2]), torch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^expected dtype long int for `end` but got "
                                           "dtype float$"):
        torch.lerp(i, f, 0.5)
    with pytest.raises(RuntimeError, match="^expected dtype float for `weight` but got "
                                           "dtype long int$"):
        torch.lerp(f, f, i)
    with pytest.raises(NotImplementedError, match="^\"lerp_kernel_tensor\" not implemented "
                                                  "for 'Long'"):
        torch.lerp(i, i, i)
    with pytest.raises(NotImplementedError, match="^\"lerp_kernel_scalar\" not implemented "
                                                  "for 'Long'"):
        torch.lerp(i, i, 0.5)
    with pytest.raises(RuntimeError, match=r"^output with shape \[2\] doesn't match the "
                                           r"broadcast shape \[2, 2\]$"):
        i.lerp_(torch.tensor([[1, 2], [3, 4]]), 0.5)
    # integers with a 0-d float weight are computed in floats: 1 + 0.5·(3 − 1) = 2
    assert torch.lerp(i, torch.tensor([3, 2]), torch.tensor(0.5)).tolist() == [2.0, 2.0]


def test_index_put_takes_only_tensors_and_fills_a_mask_with_a_number():
    # Last session's leftover, focused fuzz --ops index_put_ (seeds 22, 25, 52, 74, 191,
    # 228): PyTorch's parser wants a tuple of Tensors (None among them is refused: teachgrad
    # took it as a whole dimension); with one mask and one value, not accumulated, it runs
    # masked_fill_(mask, value.item()): any dtype and shape of one element, range-checked as
    # a fill value; otherwise the value's shape is checked before its dtype, and its
    # leading size-1 dimensions count (x[idx] = v drops them).
    x = torch.zeros(3, 4)
    i = torch.tensor([0, 1])
    with pytest.raises(TypeError, match="^expected Tensor as element 0 in argument 0, but "
                                        "got NoneType"):
        x.index_put_((None, i), torch.tensor(1.0))
    with pytest.raises(TypeError, match="^expected Tensor as element 1 in argument 1, but "
                                        "got slice"):
        torch.index_put(x, (i, slice(None)), torch.tensor(1.0))
    with pytest.raises(TypeError, match=r"^index_put_\(\): argument 'indices' \(position 1\) "
                                        "must be tuple of Tensors, not Tensor"):
        x.index_put_(i, torch.tensor(1.0))
    y = torch.tensor([0.5, -2.0], dtype=torch.float64)
    y.index_put_((torch.tensor([True, False]),), torch.tensor([[-1.0]], dtype=torch.float32))
    assert y.tolist() == [-1.0, -2.0] and y.dtype == torch.float64
    n = torch.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t "
                                           "without overflow"):
        n.index_put_((torch.tensor([True, False]),), torch.tensor(math.nan))
    with pytest.raises(RuntimeError, match=r"^shape mismatch: value tensor of shape \[1, 1\] "
                                           r"cannot be broadcast to indexing result of shape "
                                           r"\[1\]"):
        n.index_put_((torch.tensor([0]),), torch.tensor([[5.0]]))  # (shape, then dtype)
    n[torch.tensor([0])] = torch.tensor([[5]])
    assert n.tolist() == [5, 2]
    # the value's gradient: the sum over the masked positions, in the value's shape
    v = leaf([[2.0]])
    z = torch.zeros(3, dtype=torch.float64)
    z.index_put_((torch.tensor([True, False, True]),), v)
    (g,) = torch.autograd.grad((z * torch.tensor([1.0, 10.0, 100.0])).sum(), v)
    assert g.tolist() == [[101.0]]


def test_masked_fill_in_place_checks_shapes_before_the_value():
    # Focused fuzz --ops masked_fill_ (seeds 5, 97, 141): PyTorch's masked_fill_ broadcasts
    # self with the mask (self is 'tensor a'), compares the result with self's shape, then
    # converts the value, a 0-d tensor too ('value cannot be converted ...').
    x = torch.tensor([[1, -2, 3], [3, -2, -4]])
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size "
                                           r"of tensor b \(4\) at non-singleton dimension 1"):
        x.masked_fill_(torch.zeros(3, 4, dtype=torch.bool), 2)
    with pytest.raises(RuntimeError, match=r"^output with shape \[2, 3\] doesn't match the "
                                           r"broadcast shape \[2, 2, 3\]"):
        x.masked_fill_(torch.zeros(2, 1, 3, dtype=torch.bool), -inf)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t "
                                           "without overflow"):
        x.masked_fill_(torch.tensor(True), torch.tensor(inf))
    assert x.masked_fill_(torch.tensor([True, False, False]), 7).tolist() == [[7, -2, 3],
                                                                              [7, -2, -4]]


def test_unfold_of_a_0d_tensor_has_size_elements():
    # Focused fuzz --ops unfold (seeds 18, 97, 119, 181): PyTorch's unfold of a 0-d tensor
    # is a view of shape (size,): one window of its element, or none for size 0 (teachgrad
    # gave the element for size 0); the gradient of an empty window is 0.
    a = leaf(2.0)
    assert a.unfold(0, 1, 1).tolist() == [2.0]
    u = a.unfold(0, 0, 1)
    assert u.shape == (0,) and u._base is a
    (u * 3).sum().backward()
    assert a.grad.item() == 0.0


def test_addmv_and_addmm_sign_their_zeros_as_blas():
    # Last session's leftover: beta·input + alpha·(product), its exact zeros signed as
    # PyTorch's BLAS signs them (by hand: a sum is -0 only when all it adds is -0).
    # addmv adds alpha·(a dot product summed from +0) to beta·input: -0 + (-1)·(+0) = -0;
    # with alpha = 0 the product is not computed (nan in it is not seen).
    z = torch.tensor([-0.0, 0.0, -0.0])
    m = torch.tensor([[-0.0, 0.0], [0.0, -0.0], [-0.0, -0.0]])
    v = torch.tensor([-0.0, 1.0])
    out = torch.addmv(z, m, v, beta=1, alpha=-1)
    assert [math.copysign(1, x) for x in out.tolist()] == [-1, 1, -1]
    out = torch.addmv(z, m, v, beta=1, alpha=0)  # beta·input: the signs of z
    assert [math.copysign(1, x) for x in out.tolist()] == [-1, 1, -1]
    assert torch.addmv(z, torch.full((3, 2), nan), v, alpha=0).tolist() == [0.0, 0.0, 0.0]
    # addmm adds the terms (alpha·b)·a one by one: row 2 is -0 + (-0)·(+0) + (+0)·(-0)
    mat2 = torch.tensor([[-0.0, 0.0], [0.0, -0.0]])
    out = torch.addmm(m, m, mat2, beta=1, alpha=-1)
    assert [math.copysign(1, x) for x in out.flatten().tolist()] == [-1, 1, 1, -1, 1, 1]
    out = torch.addmm(m, m, mat2, beta=0, alpha=-1)  # from +0: never -0
    assert [math.copysign(1, x) for x in out.flatten().tolist()] == [1] * 6


def test_as_strided_of_an_as_strided_view_reads_the_same_storage():
    # Focused fuzz --ops as_strided (seeds 34, 239, 378): a view made by as_strided lives
    # in its base's storage, so another as_strided of it is checked against (and reads)
    # that storage: 3 elements here, offset 3 is out of bounds. teachgrad took a copy of
    # the first view as the storage (4 elements). Under create_graph the gradient is read
    # back with as_strided (PyTorch's AsStridedBackward0); an empty window's is zeros with
    # no history (seeds 16, 962).
    a = torch.tensor([[-1.0], [1.5], [0.25]], dtype=torch.float64)
    v = a.as_strided((2, 2), (1, 1))
    with pytest.raises(RuntimeError, match=r"^setStorage: sizes \[1, 1, 3\], strides \[0, 3, "
                                           r"0\], storage offset 3, and itemsize 8 requiring a "
                                           r"storage size of 32 are out of bounds for storage "
                                           r"of size 24"):
        v.as_strided((1, 1, 3), (0, 3, 0), 3)
    assert v.as_strided((2,), (2,), 0).tolist() == [-1.0, 0.25]
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    (g,) = torch.autograd.grad((x.as_strided((2,), (1,), 1) ** 2).sum(), x, create_graph=True)
    assert g.tolist() == [[0.0, 4.0], [6.0, 0.0]]  # 2·x at storage positions 1, 2
    assert type(g.grad_fn).__name__ == "AsStridedBackward0"
    (g,) = torch.autograd.grad((x.as_strided((0,), (1,)) ** 2).sum(), x, create_graph=True)
    assert g.tolist() == [[0.0, 0.0], [0.0, 0.0]] and not g.requires_grad


def test_index_add_and_index_copy_source_gradient_graphs_are_pytorchs():
    # Focused fuzz seeds 81, 1108, 1416: under create_graph the gradient for source is
    # PyTorch's grad.index_select(dim, index).expand_as(source) (ExpandBackward0), times
    # alpha as a number (MulBackward1); teachgrad's ended in IndexBackward0 / MulBackward0.
    # Values by hand: out's row is alpha·source, ∂Σout²/∂source = alpha·2·alpha·source.
    for alpha, top, value in ((1, "ExpandBackward0", [[2.0, 4.0]]),
                              (2, "MulBackward1", [[8.0, 16.0]])):
        src = leaf([[1.0, 2.0]])
        out = torch.zeros(3, 2, dtype=torch.float64).index_add(0, torch.tensor([1]), src,
                                                               alpha=alpha)
        (g,) = torch.autograd.grad((out ** 2).sum(), src, create_graph=True)
        assert type(g.grad_fn).__name__ == top and g.tolist() == value
    src = leaf([[1.0, 2.0]])
    out = torch.zeros(3, 2, dtype=torch.float64).index_copy(0, torch.tensor([2]), src)
    (g,) = torch.autograd.grad((out ** 2).sum(), src, create_graph=True)
    assert type(g.grad_fn).__name__ == "ExpandBackward0" and g.tolist() == [[2.0, 4.0]]
    # index_put_ on a view of a leaf: autograd's error before the indices are looked at
    a = leaf([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad"):
        a[1:].index_put_((torch.tensor([5]),), torch.tensor(0.5))


def test_einsum_products_keep_the_sign_of_zero():
    # Last session's leftover: an einsum that sums nothing is one product per element;
    # -0·1 is -0 in PyTorch (NumPy's einsum added each product to +0).
    out = torch.einsum("i,j->ij", torch.tensor([-0.0, 1.0]), torch.tensor([1.0, -0.0]))
    assert [math.copysign(1, x) for x in out.flatten().tolist()] == [-1, 1, 1, -1]
    out = torch.einsum("i,j,k->ijk", torch.tensor([-0.0, 1.0]), torch.tensor([1.0, -0.0]),
                       torch.tensor([-1.0, 0.0]))
    assert [math.copysign(1, x) for x in out.flatten().tolist()] == [1, -1, -1, 1,
                                                                     -1, 1, 1, -1]


def test_float64_addcmul_keeps_the_sign_of_an_exact_zero():
    # Seed 275834: addcmul(-0, 0, -1.101, value=0.5) is -0 + (-0) = -0 by IEEE's rules for
    # a fused multiply-add (PyTorch's too); the float64 path added its +0 correction term
    # and gave +0, so a reciprocal after it was +inf where PyTorch's is -inf.
    x = torch.tensor([-0.0, -0.0, 0.0, -0.0], dtype=torch.float64)
    t2 = torch.tensor([-1.101, 1.222, -1.0, 2.0], dtype=torch.float64)
    out = torch.addcmul(x, torch.tensor(0.0, dtype=torch.float64), t2, value=0.5)
    # -0 + -0 = -0; -0 + +0 = +0; +0 + -0 = +0; -0 + +0 = +0
    assert np.signbit(out.numpy()).tolist() == [True, False, False, False]
    assert torch.reciprocal(out)[0].item() == -inf
    # a nonzero result is still rounded once: float64(1/3) = (1 - 2**-54)/3, so
    # -1 + 3 * float64(1/3) is exactly -2**-54 (unfused, 3 * (1/3) rounds to 1 and gives 0)
    assert torch.addcmul(torch.tensor([-1.0], dtype=torch.float64),
                         torch.tensor([3.0], dtype=torch.float64),
                         torch.tensor([1 / 3], dtype=torch.float64)).item() == -(2.0**-54)


def test_float32_power_of_a_number_uses_the_exponent_as_a_double():
    # PyTorch's float32 pow computes pow(double(a), exponent) and rounds once; the float32
    # exponent NumPy used is 100.09999847..., so 1.5 ** 100.1 was 6e-7 relative off (beyond
    # the fuzzer's float32 tolerance for larger exponents and bases).
    x = torch.tensor([1.5, 0.7, 2.3], dtype=torch.float32)
    stored = [float(np.float32(v)) for v in (1.5, 0.7, 2.3)]  # (what x holds)
    assert (x ** 100.1).tolist() == [float(np.float32(v ** 100.1)) for v in stored]
    assert (x ** 1.7).tolist() == [float(np.float32(v ** 1.7)) for v in stored]
    assert (x ** 100.1).dtype is torch.float32
    # the gradient's a ** (n - 1) goes the same way: n · a^(n-1)
    a = leaf([1.5], dtype=torch.float32)
    (a ** 100.1).sum().backward()
    assert a.grad.item() == float(np.float32(100.1 * float(np.float32(1.5 ** 99.1))))


@pytest.mark.parametrize("name, message", [
    ("relu_", "Boolean inputs not supported for relu"),
    ("neg_", "Negation, the `-` operator, on a bool tensor is not supported"),
    ("negative_", "Negation, the `-` operator, on a bool tensor is not supported"),
])
def test_inplace_relu_and_neg_refuse_bool_before_the_memory(name, message):
    # Seed 430170: a1.isnan().expand(2, 2, 3, 3, 1).relu_() -- PyTorch refuses the bool
    # dtype before it looks at the expanded memory; teachgrad gave the overlap error.
    mask = torch.tensor([[True], [False]]).expand(2, 3)
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}"):
        getattr(mask, name)()
    assert mask.tolist() == [[True] * 3, [False] * 3]


def test_nan_to_num_in_place_leaves_an_expanded_integer_tensor_alone():
    # (found beside seed 430170) an integer tensor has no nan: PyTorch's nan_to_num_ writes
    # nothing, so an expanded one is not refused; its version still counts the call
    counts = torch.tensor([[1], [2]]).expand(2, 3)
    version = counts._version
    assert counts.nan_to_num_() is counts and counts._version == version + 1
    assert counts.tolist() == [[1] * 3, [2] * 3]
    floats = torch.tensor([[1.0], [nan]]).expand(2, 3)
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element"):
        floats.nan_to_num_()


def test_create_graph_through_an_in_place_change_of_a_view_with_a_permuted_gradient():
    # Seed 474934: v2 = a * 1; v2[0].exp_(); v2.permute(1, 2, 0).mean(): the gradient
    # reaching CopySlices is permuted (not contiguous), and its recorded copy was viewed
    # flat, which such a copy refuses ("view size is not compatible"). PyTorch copies the
    # gradient into the base's geometry first.
    a = leaf(np.arange(8.0).reshape(2, 2, 2) / 8)
    v = a * 1
    v[0].exp_()
    weights = torch.arange(8.0, dtype=torch.float64).reshape(2, 2, 2)
    loss = (v.permute(1, 2, 0) * weights).sum()
    (g,) = torch.autograd.grad(loss, a, create_graph=True)
    # d/da of Σ w'·v where v = e^a on a[0] and a elsewhere; w' is the weight each element
    # of v meets through the permute: w'[i, j, k] = weights[j, k, i]
    w = np.arange(8.0).reshape(2, 2, 2).transpose(2, 0, 1)
    first = np.where(np.arange(2)[:, None, None] == 0, np.exp(a.tolist()), 1.0) * w
    np.testing.assert_allclose(g.tolist(), first)
    (h,) = torch.autograd.grad(g.sum(), a)  # e^a·w' on a[0], 0 elsewhere
    second = np.where(np.arange(2)[:, None, None] == 0, np.exp(a.tolist()) * w, 0.0)
    np.testing.assert_allclose(h.tolist(), second)


def test_bool_power_of_bool_checks_the_shapes_before_the_dtype():
    # Seed 464424: PyTorch's pow of two bool tensors that do not broadcast names the sizes
    # (its TensorIterator is built before the kernel refuses bool); teachgrad named bool
    base, exponent = torch.ones(4, 2, 4, dtype=torch.bool), torch.tensor([False, True])
    for power in (lambda: base.pow(exponent), lambda: torch.pow(base, exponent),
                  lambda: base ** exponent):
        with pytest.raises(RuntimeError, match=r"^The size of tensor a \(4\) must match the "
                                               r"size of tensor b \(2\) at non-singleton "
                                               r"dimension 2"):
            power()
    with pytest.raises(NotImplementedError, match="^\"pow\" not implemented for 'Bool'"):
        base.pow(exponent[:1])  # (shapes that broadcast: the dtype's error)


def test_saved_result_of_an_in_place_op_on_a_view_is_the_view_as_it_is_now():
    # Seed 618024: a2[0].mul_(a4); a2[0].exp_(); second derivatives in a2 were off. exp_'s
    # backward multiplies by its saved result, which is the view b[:1] as it is now: under
    # create_graph PyTorch gives it the view's history (AsStridedBackward0 of b's
    # CopySlices), so differentiating again in b reaches it; teachgrad gave it exp's node.
    b = torch.zeros(2, dtype=torch.float64)
    w = leaf(0.5)
    v = b[:1]
    v.add_(w)
    v.exp_()  # b = [e^w, 0]
    g_b, g_w = torch.autograd.grad(b.sum(), [b, w], create_graph=True)
    assert g_b.tolist() == [1.0, 1.0] and g_w.item() == pytest.approx(math.exp(0.5))
    # g_w = 1 · (exp_'s result, b[0]): its slope is 1 in b[0], 0 in b[1], e^w in w
    h_b, h_w = torch.autograd.grad(g_w, [b, w], allow_unused=True)
    assert h_b is not None and h_b.tolist() == [1.0, 0.0]
    assert h_w.item() == pytest.approx(math.exp(0.5))


def test_comparisons_of_tensors_are_made_in_the_promoted_dtype():
    # Seed 574313: a float32 tensor != a 0-d float64 tensor. A 0-d tensor does not promote
    # a dimensioned one of the same kind, so PyTorch compares in float32, where 0.553
    # equals itself; NumPy compared in float64 (float32(0.553) = 0.55299997...).
    a = torch.tensor([[0.553, -1.617]], dtype=torch.float32)
    b = torch.tensor(0.553, dtype=torch.float64)
    assert (a != b).tolist() == [[False, True]] and (a == b).tolist() == [[True, False]]
    assert (a < b).tolist() == [[False, True]] and torch.ne(a, b).tolist() == [[False, True]]
    # an int64 tensor with a 0-d float tensor: compared in the default float dtype, where
    # 2^24 + 1 rounds to 2^24
    assert (torch.tensor([16777217]) == torch.tensor(16777217.0, dtype=torch.float64)).tolist() \
        == [True]


def test_triangular_solve_gives_b_zeros_when_only_the_clone_is_used():
    # (found beside the double-backward graphs) PyTorch's triangular_solve_backward gives b
    # zeros, a gradient, when only cloned_coefficient reaches the loss; teachgrad gave None
    b, A = leaf([[1.0, 2.0], [3.0, 4.0]]), leaf([[2.0, 1.0], [0.0, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (triangular_solve is deprecated)
        torch.triangular_solve(b, A)[1].sum().backward()
    assert b.grad is not None and b.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert A.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]  # (the clone's gradient: all of A)


@pytest.mark.parametrize("reduce, include_self, value, d_self, d_src", [
    # self = 2, src = 4, both at the one position: sum 6, prod 8, mean 3, amax 4, amin 2
    ("sum", True, 6.0, 1.0, 1.0), ("prod", True, 8.0, 4.0, 2.0),
    ("mean", True, 3.0, 0.5, 0.5), ("amax", True, 4.0, 0.0, 1.0),
    ("amin", True, 2.0, 1.0, 0.0),
    # without self: src alone (self's gradient is 0)
    ("sum", False, 4.0, 0.0, 1.0), ("prod", False, 4.0, 0.0, 1.0),
    ("amax", False, 4.0, 0.0, 1.0)])
def test_scatter_reduce_with_a_0d_index_reads_it_as_one_element(reduce, include_self, value,
                                                                 d_self, d_src):
    # 0-d self, index and src are vectors of one element, as in PyTorch (teachgrad raised
    # NumPy's "array is not broadcastable to correct shape" for every reduction)
    x, s = leaf(2.0), leaf(4.0)
    y = x.scatter_reduce(0, torch.tensor(0), s, reduce, include_self=include_self)
    assert y.shape == () and y.item() == value
    gx, gs = torch.autograd.grad(y, (x, s))
    assert (gx.shape, gs.shape) == ((), ())
    assert (gx.item(), gs.item()) == (d_self, d_src)


def test_scatter_reduce_prod_with_a_0d_index_differentiates_twice():
    # y = x[1] · s on a vector x: ∂y/∂x[1] = s, ∂y/∂s = x[1]; Σ of the squares of the
    # gradients, 1.5² (s² + x[1]²) with the weight 1.5, differentiates to 2·1.5² (s, x[1])
    x, s = leaf([1.0, 2.0]), leaf(5.0)
    y = x.scatter_reduce(0, torch.tensor(1), s, "prod")
    assert y.tolist() == [1.0, 10.0]
    gx, gs = torch.autograd.grad((y * 1.5).sum(), (x, s), create_graph=True)
    assert gx.tolist() == [1.5, 7.5] and gs.item() == 3.0
    ggx, ggs = torch.autograd.grad((gx * gx).sum() + gs * gs, (x, s))
    assert ggx.tolist() == [0.0, 2 * 2.25 * 2.0] and ggs.item() == 2 * 2.25 * 5.0


@pytest.mark.parametrize("shape, dim", [((2, 3), 1), ((3, 2), 0), ((2, 3, 1), 1)])
def test_std_of_equal_values_along_a_dim_has_no_slope(shape, dim):
    # Seed 760965: std over a dim of three equal values. PyTorch's per-slice kernel
    # (Welford) gives exactly 0 and so the gradient 0 (std's slope at a flat slice);
    # NumPy's two-pass mean of three 0.942s is 0.94199999999999984, std ~1.4e-16, and
    # the slope (x − mean) / ((N − 1)·std) came out as ±1/√6 = ±0.408 per element.
    x = torch.full(shape, 0.942, dtype=torch.float64, requires_grad=True)
    std = x.std(dim)
    assert np.all(np.abs(std.detach().numpy()) < 1e-15)
    std.sum().backward()
    assert x.grad.tolist() == torch.zeros(shape).tolist()
    # a slice that is not flat keeps its slope: (x − mean) / ((N − 1)·std)
    y = torch.tensor([[1.0, 2.0, 3.0], [0.942, 0.942, 0.942]], dtype=torch.float64,
                     requires_grad=True)
    y.std(1).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [[-0.5, 0.0, 0.5], [0.0, 0.0, 0.0]],
                               atol=1e-15)


def test_std_without_degrees_of_freedom_keeps_its_nan_slope():
    # Seed 788588: std over a dim of one element with correction=2 is nan (0 / (1 − 2)
    # degrees of freedom), and so is its gradient in PyTorch; a slice of one value is
    # also a slice of equal values, which must not make it flat (gradient 0).
    x = torch.tensor([[0.5, -1.0]], dtype=torch.float32, requires_grad=True)
    std = x.std(dim=0, correction=2)
    assert all(math.isnan(v) for v in std.tolist())
    std.sum().backward()
    assert all(math.isnan(v) for v in x.grad.reshape(-1).tolist())
