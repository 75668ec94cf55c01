"""Torch-level functions made to match PyTorch in the nineteenth session (found by
tests/sweep_functions_against_torch.py): broadcast_shapes' checks, result strides of
cross and rot90, pinv's tensor rcond, the deprecated norms' warnings, the out= errors.

Expected messages are PyTorch 2.13's, written out, so these tests run without PyTorch;
the parity tests at the end compare with PyTorch where it is installed."""

import warnings

import numpy as np
import pytest

import teachgrad as tg

# ---------------------------------------------------------------- broadcast_shapes

@pytest.mark.parametrize("shapes, error, message", [
    # tensors are not shapes: refused (their elements were taken as sizes)
    ((tg.tensor([1.5, 2.0]), tg.tensor([1.0, 2.0])), RuntimeError,
     "Input shapes should be of type ints, a tuple of ints, or a list of ints, got "
     "tensor([1.5000, 2.0000])"),
    ((tg.tensor(2.5),), RuntimeError,  # (a 0-d tensor formats as its number)
     "Input shapes should be of type ints, a tuple of ints, or a list of ints, got 2.5"),
    (((2,), 2.5), RuntimeError,
     "Input shapes should be of type ints, a tuple of ints, or a list of ints, got 2.5"),
    (((2, -1),), ValueError, "Attempting to broadcast a dimension with negative length!"),
    (([2.0],), TypeError, "torch.Size() takes an iterable of 'int' (item 0 is 'float')"),
    # the common shape is padded with 1s to the longest shape before any comparison
    (((1,), (2, 3), [3, 3]), RuntimeError,
     "Attempting to broadcast a dimension of length 3 at -2! Mismatching argument at index 2 "
     "had [3, 3]; but expected shape should be broadcastable to [2, 3]"),
])
def test_broadcast_shapes_refuses_as_pytorch(shapes, error, message):
    with pytest.raises(error) as caught:
        tg.broadcast_shapes(*shapes)
    assert str(caught.value).split("\nHint: ")[0] == message


def test_broadcast_shapes_hints_at_shape_for_tensors():
    with pytest.raises(RuntimeError, match=r"Hint: pass shapes, e.g. torch.broadcast_shapes"):
        tg.broadcast_shapes(tg.ones(3), tg.ones(3))


@pytest.mark.parametrize("shapes, expected", [
    (((2, 1), (3,)), (2, 3)),
    ((None, (2,)), (2,)),  # None is left out, as PyTorch's
    ((None,), ()),
    ((), ()),
    ((3, (3, 1)), (3, 3)),
    (((0,), (1,)), (0,)),
    ((tg.Size([2, 1]), [4, 1, 5]), (4, 2, 5)),
])
def test_broadcast_shapes_values(shapes, expected):
    result = tg.broadcast_shapes(*shapes)
    assert isinstance(result, tg.Size) and tuple(result) == expected


# ---------------------------------------------------------------- result layouts

def _strides(t):
    return tuple(t.stride())


@pytest.mark.parametrize("k, expected", [
    # PyTorch's rot90 is flip(...).transpose_(...) for odd k: x.t()'s strides
    (1, (1, 3)), (-1, (1, 3)), (3, (1, 3)), (5, (1, 3)),
    (2, (3, 1)), (0, (3, 1)), (4, (3, 1)),
])
def test_rot90_strides_as_pytorch(k, expected):
    x = tg.arange(6.0).reshape(2, 3)
    y = x.rot90(k)
    assert _strides(y) == expected
    # the values are np.rot90's (a rotation from the first dim toward the second)
    assert np.array_equal(y.numpy(), np.rot90(np.arange(6.0).reshape(2, 3), k))


def test_rot90_follows_a_permuted_input_layout_and_differentiates():
    # a flip keeps its input's layout, so rot90 of a transposed input is laid out from it
    x = tg.arange(24.0).reshape(2, 3, 4).permute(2, 1, 0).requires_grad_()
    y = x.rot90(1, (0, 2))
    assert tuple(y.shape) == (2, 3, 4)
    assert _strides(y) == (12, 4, 1)  # PyTorch 2.13's
    g = tg.arange(24.0).reshape(2, 3, 4)
    (y * g).sum().backward()
    # rotating back by -1 is the gradient of a rotation (a permutation of the elements)
    assert np.array_equal(x.grad.numpy(), np.rot90(g.numpy(), -1, (0, 2)))


def test_cross_result_is_contiguous():
    a = tg.arange(12.0).reshape(4, 3)
    b = tg.ones(4, 3)
    assert _strides(tg.cross(a.t(), b.t(), dim=0)) == (4, 1)
    assert _strides(tg.linalg.cross(a.t(), b.t(), dim=0)) == (4, 1)
    # values: the cross product of each column pair, as NumPy's
    assert np.array_equal(tg.cross(a.t(), b.t(), dim=0).numpy(),
                          np.cross(a.numpy(), b.numpy()).T)


# ---------------------------------------------------------------- pinv's tolerance

@pytest.mark.parametrize("kwargs, name", [
    ({"rcond": "r"}, "rtol"), ({"rtol": "r"}, "rtol"), ({"atol": "r"}, "atol"),
])
def test_pinv_refuses_a_tolerance_that_requires_grad(kwargs, name):
    A = tg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    r = tg.tensor(0.1, requires_grad=True)
    kwargs = {k: r for k in kwargs}
    with pytest.raises(RuntimeError) as caught:
        tg.linalg.pinv(A, **kwargs)
    assert str(caught.value).split("\nHint: ")[0] == (
        f"The function 'linalg_pinv' is not differentiable with respect to argument '{name}'. "
        "This input cannot have requires_grad True.")
    with pytest.raises(RuntimeError, match="'rtol'"):
        tg.linalg.pinv(A, r)  # rcond given positionally
    with tg.no_grad():  # no graph: nothing is lost, PyTorch computes
        # σ = 5.46, 0.366: rtol 0.1 drops the second, atol 0.1 keeps both
        expected = np.linalg.pinv(A.detach().numpy(), rcond=0.1 if name == "rtol" else 1e-15)
        assert np.allclose(tg.linalg.pinv(A, **kwargs).numpy(), expected, atol=1e-6)


# ---------------------------------------------------------------- quiet NumPy

def test_sums_products_and_sinc_of_infinities_are_quiet():
    # inf + -inf and sin(inf) are nan in PyTorch, silently; NumPy's warning came from its own
    # modules (np.sum, np.sinc), which teachgrad's filter (its __init__) does not cover
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"teachgrad\.")
        _sums_products_and_sinc_of_infinities()
    assert [str(w.message) for w in caught] == []


def _sums_products_and_sinc_of_infinities():
    inf = float("inf")
    m = tg.tensor([[inf, -inf], [0.0, inf]])
    assert np.isnan(m.sum().item()) and np.isnan(m.sum(0)[1].item())
    assert np.isnan(tg.nansum(m).item()) and np.isnan(tg.nanmean(m, 0)[1].item())
    assert np.isnan(m.prod().item()) and np.isnan(m.prod(1)[1].item())
    s = tg.sinc(tg.tensor([inf, -inf, 0.5]))
    assert np.isnan(s[0].item()) and np.isnan(s[1].item())
    assert s[2].item() == pytest.approx(2 / np.pi)


# ---------------------------------------------------------------- out= dtypes

@pytest.mark.parametrize("name", ["abs", "absolute", "ceil", "floor", "trunc", "neg",
                                  "negative", "sign", "sgn", "conj_physical"])
@pytest.mark.parametrize("out_dtype, shown", [("int64", "Long"), ("float64", "Double")])
def test_unary_out_must_have_the_result_dtype(name, out_dtype, shown):
    # PyTorch's unary kernels write only their own dtype: float64 out of a float32 abs was
    # silently accepted (NumPy's same-kind cast)
    x = tg.tensor([1.5, -2.0])
    out = tg.empty(0, dtype=getattr(tg, out_dtype))
    with pytest.raises(RuntimeError) as caught:
        getattr(tg, name)(x, out=out)
    assert str(caught.value).split("\nHint: ")[0] == f"Found dtype {shown} but expected Float"
    assert out.numel() == 0  # out untouched
    same = tg.empty(0)
    assert getattr(tg, name)(x, out=same) is same


@pytest.mark.parametrize("call, message", [
    (lambda x, o: tg.mean(x, out=o),
     "mean.dtype_out(): input types can't be cast to the desired output type Long"),
    (lambda x, o: tg.max(x, out=o), "Expected canCast( typeMetaToScalarType(self.dtype()), "
     "typeMetaToScalarType(out.dtype())) to be true, but got false."),
    (lambda x, o: tg.t_copy(x, out=o),
     "Expected out tensor to have dtype float, but got long int instead"),
])
def test_out_dtype_refusals_in_pytorchs_words(call, message):
    with pytest.raises(RuntimeError) as caught:
        call(tg.tensor([1.5, -2.0]), tg.empty(0, dtype=tg.int64))
    assert str(caught.value).split("\nHint: ")[0] == message


def test_mean_and_max_still_write_a_wider_out():
    out = tg.empty(0, dtype=tg.float64)
    assert tg.mean(tg.tensor([1.5, -2.0]), out=out) is out and out.item() == -0.25
    assert tg.max(tg.tensor([1.5, -2.0]), out=out) is out and out.item() == 1.5


# ---------------------------------------------------------------- names added

def test_fill_makes_a_new_tensor_and_differentiates():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    v = tg.tensor(2.0, dtype=tg.float64, requires_grad=True)
    a, b = tg.fill(x, 3.0), tg.fill(x, v)
    assert a.tolist() == [3.0, 3.0] and b.tolist() == [2.0, 2.0] and b.dtype == tg.float32
    assert x.tolist() == [1.0, 2.0]  # unchanged: fill_ out of place
    assert (a.grad_fn.name(), b.grad_fn.name()) == ("FillBackward0", "FillBackward1")
    (a * tg.tensor([1.0, 2.0]) + b * tg.tensor([3.0, 4.0])).sum().backward()
    # by hand: the old values do not matter; the value feeds every element (3 + 4)
    assert x.grad.tolist() == [0.0, 0.0]
    assert v.grad.item() == 7.0 and v.grad.dtype == tg.float64
    # by finite differences
    w = tg.tensor(0.5, dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda w: tg.fill(tg.ones(3, dtype=tg.float64), w) ** 2, (w,))


@pytest.mark.parametrize("call, error, message", [
    (lambda: tg.fill(tg.ones(2), tg.ones(2)), RuntimeError,
     "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."),
    (lambda: tg.fill(tg.tensor([1, 2]), 1e30), RuntimeError,
     "value cannot be converted to type int64_t without overflow"),
    (lambda: tg.fill(tg.ones(2), "a"), TypeError,
     "fill() received an invalid combination of arguments - got (Tensor, str), but expected "
     "one of:"),
])
def test_fill_refuses_as_pytorch(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value).startswith(message)


def test_fill_of_an_int_tensor_truncates_as_fill_():
    assert tg.fill(tg.tensor([1, 2]), 2.5).tolist() == [2, 2]


def test_conv_tbc_is_nn_functionals():
    x, w, b = tg.randn(5, 2, 3), tg.randn(3, 3, 4), tg.randn(4)
    assert tg.equal(tg.conv_tbc(x, w, b, 1), tg.nn.functional.conv_tbc(x, w, b, 1))


def test_storage_and_thread_questions():
    x = tg.ones(2)
    assert tg.is_storage(x.untyped_storage()) and not tg.is_storage(x)
    assert tg.set_flush_denormal(True) is False  # NumPy cannot: nothing changed
    assert tg.tensor(1e-310, dtype=tg.float64).item() == 1e-310
    with pytest.raises(TypeError, match="must be bool, not int"):
        tg.set_flush_denormal(1)
    before = tg.get_num_interop_threads()
    try:
        tg.set_num_interop_threads(3)
        assert tg.get_num_interop_threads() == 3
        assert tg.init_num_threads() is None
    finally:
        tg.set_num_interop_threads(before)
    for bad, message in ((0, "expects a positive integer"), (2.5, "but got float"),
                         (True, "but got bool")):
        with pytest.raises(RuntimeError, match=message):
            tg.set_num_interop_threads(bad)


def test_stft_says_teachgrad_has_no_complex_numbers():
    with pytest.raises(AttributeError, match="teachgrad has no complex dtypes"):
        tg.stft  # noqa: B018


# ---------------------------------------------------------------- out= and autograd

_REFUSED = ("(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad.")


@pytest.mark.parametrize("call, message", [
    # PyTorch names the kernel the function is written with
    (lambda x, o: tg.square(x, out=o), "pow" + _REFUSED),
    (lambda x, o: tg.fix(x, out=o), "trunc" + _REFUSED),
    (lambda x, o: tg.diff(x, out=o), "sub" + _REFUSED),
    (lambda x, o: tg.outer(x, x, out=o), "mul" + _REFUSED),
    (lambda x, o: tg.hstack([x, x], out=o), "cat" + _REFUSED),
    (lambda x, o: tg.norm(x, out=o), "linalg_vector_norm" + _REFUSED),
    (lambda x, o: tg.special.entr(x, out=o), "special_entr" + _REFUSED),
    (lambda x, o: tg.linalg.vecdot(x, x, out=o), "vdot" + _REFUSED),
    (lambda x, o: tg.abs(x, out=o), "abs" + _REFUSED),  # its own name
    (lambda x, o: tg.absolute(x, out=o), "abs" + _REFUSED),
    # no derivative at all with out=
    (lambda x, o: tg.t_copy(x, out=o), "derivative for aten::t_copy is not implemented"),
    (lambda x, o: tg.heaviside(x, x, out=o),
     "derivative for aten::heaviside is not implemented"),
])
def test_out_with_grad_names_pytorchs_kernel(call, message):
    x = tg.tensor([0.5, 1.5, 2.0], requires_grad=True)
    out = tg.empty(0)
    with pytest.raises(RuntimeError) as caught:
        call(x, out)
    assert str(caught.value).split("\nHint: ")[0] == message
    assert out.numel() == 0
    with tg.no_grad():  # nothing to record: written
        assert call(x, out) is out


# ---------------------------------------------------------------- silently accepted before

@pytest.mark.parametrize("call, message", [
    (lambda: tg.all(tg.ones(2), out=tg.empty(0)),
     "all only supports bool tensor for result, got: Float"),
    (lambda: tg.any(tg.ones(2), out=tg.empty(0, dtype=tg.int64)),
     "any only supports bool tensor for result, got: Long"),
    (lambda: tg.isneginf(tg.ones(2), out=tg.empty(0, dtype=tg.uint8)),
     "isneginf does not support non-boolean outputs."),
    (lambda: tg.signbit(tg.ones(2), out=tg.empty(0)),
     "signbit does not support non-boolean outputs."),
    (lambda: tg.float_power(tg.ones(2), 2, out=tg.empty(0)),
     "the output given to float_power has dtype Float but the operation's result requires "
     "dtype Double"),
    (lambda: tg.linalg.vecdot(tg.ones(2), tg.tensor([1, 2])),
     "linalg.vecdot: Expected x and y to have the same dtype, but found x of type Float and y "
     "of type Long instead"),
    (lambda: tg.linalg.vecdot(tg.tensor([1, 2]), tg.tensor([1, 2])),
     "linalg.vecdot: Expected a floating point or complex tensor as input. Got Long"),
    (lambda: tg.cdist(tg.ones(1, 2, dtype=tg.float64), tg.ones(1, 2)),
     "expected scalar type Double but found Float"),
    (lambda: tg.histogram(tg.ones(2), tg.tensor([0, 1, 2])),
     "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
     "input with dtype float and bins for dimension 0 with dtype long int"),
    (lambda: tg.histogramdd(tg.ones(3, 2), [tg.tensor([0.0, 1.0]), tg.tensor([0, 1])]),
     "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
     "input with dtype float and bins for dimension 1 with dtype long int"),
    (lambda: tg.bernoulli(tg.ones(2), 2), "bernoulli_ expects p to be in [0, 1], but got p=2"),
    (lambda: tg.bernoulli(tg.ones(2), -0.5),
     "bernoulli_ expects p to be in [0, 1], but got p=-0.5"),
    (lambda: tg.bernoulli(tg.tensor([1, 2]), float("nan")),  # p before the dtype
     "bernoulli_ expects p to be in [0, 1], but got p=nan"),
    (lambda: tg.nanmean(tg.tensor([1, 2]), dtype=tg.float64),  # the input's own dtype
     "nanmean(): expected input to have floating point or complex dtype but got Long"),
])
def test_refused_as_pytorch_where_teachgrad_computed(call, message):
    with pytest.raises(RuntimeError) as caught:
        call()
    assert str(caught.value).split("\nHint: ")[0] == message


def test_the_accepted_neighbours_still_compute():
    out = tg.empty(0, dtype=tg.uint8)
    assert tg.all(tg.ones(2), out=out) is out and out.item() == 1
    out = tg.empty(0, dtype=tg.float64)
    assert tg.float_power(tg.tensor([3.0]), 2, out=out) is out and out.tolist() == [9.0]
    x = tg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tg.float64)
    assert tg.linalg.vecdot(x, x).tolist() == [5.0, 25.0]
    assert tg.histogram(tg.tensor([0.5, 1.5, 1.7]), tg.tensor([0.0, 1.0, 2.0])).hist.tolist() \
        == [1.0, 2.0]
    assert tg.bernoulli(tg.ones(3), 1.0).tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8"])
def test_bernoulli_with_p_draws_in_any_dtype(dtype):
    # the same draws as for a float tensor (one uniform number per element), in its dtype
    tg.manual_seed(3)
    floats = tg.bernoulli(tg.zeros(20), 0.3)
    tg.manual_seed(3)
    drawn = tg.bernoulli(tg.zeros(20, dtype=getattr(tg, dtype)), 0.3)
    assert drawn.dtype == getattr(tg, dtype)
    assert drawn.tolist() == floats.to(getattr(tg, dtype)).tolist()
    assert 0 < floats.sum().item() < 20
    with pytest.raises(NotImplementedError, match="not implemented for"):
        tg.bernoulli(tg.zeros(2, dtype=getattr(tg, dtype)))  # probabilities must be floats


@pytest.mark.parametrize("call, error, message", [
    # shapes that do not broadcast: PyTorch's words (NumPy's ValueError leaked)
    (lambda: tg.normal(tg.ones(2, 3), tg.ones(3, 3)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
     "dimension 0"),
    (lambda: tg.normal(tg.ones(2, 3), tg.ones(2)), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
     "dimension 1"),
    # the standard deviations are checked first, before the shapes and the dtypes
    (lambda: tg.normal(tg.ones(2, 3), -tg.ones(3, 3)), RuntimeError,
     "normal expects all elements of std >= 0.0"),
    (lambda: tg.normal(tg.tensor([1, 2]), tg.tensor([-1, 2])), RuntimeError,
     "normal expects all elements of std >= 0.0"),
    (lambda: tg.normal(tg.tensor([1, 2]), -1.0), RuntimeError,
     "normal expects std >= 0.0, but found std -1"),
    (lambda: tg.normal(tg.tensor([1, 2]), tg.tensor([1, 2])), NotImplementedError,
     "\"normal_kernel_cpu\" not implemented for 'Long'"),
])
def test_normal_checks_in_pytorchs_order(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value).split("\nHint: ")[0] == message


def test_normal_still_broadcasts():
    assert tuple(tg.normal(tg.zeros(2, 1), tg.ones(3)).shape) == (2, 3)


@pytest.mark.filterwarnings("ignore:at::")
@pytest.mark.parametrize("call, error, message", [
    # nuclear_norm's dim is PyTorch's int[2]: one int d stands for (d, d)
    (lambda: tg.nuclear_norm(tg.ones(2, 3), dim=0), RuntimeError,
     "linalg.matrix_norm: dims must be different. Got (0, 0)"),
    (lambda: tg.nuclear_norm(tg.ones(2, 3), 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: tg.frobenius_norm(tg.tensor([1, 2]), 0), RuntimeError,
     "norm(): input dtype should be either floating point or complex. Got Long instead."),
    (lambda: tg.histogram(tg.tensor([1, 2]), tg.tensor([0, 1])), NotImplementedError,
     "\"histogram_cpu\" not implemented for 'Long'"),
    (lambda: tg.histogram(tg.tensor([1, 2]), 2), NotImplementedError,
     "\"histogramdd\" not implemented for 'Long'"),
])
def test_legacy_norms_and_histogram_errors(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value).split("\nHint: ")[0] == message


@pytest.mark.parametrize("call, message", [
    (lambda: tg.trapezoid(tg.tensor([True, False])),
     "trapezoid: received a bool input for `y`, but bool is not supported"),
    (lambda: tg.trapz(tg.tensor([True, False]), dx=2),
     "trapezoid: received a bool input for `y`, but bool is not supported"),
    (lambda: tg.trapezoid(tg.ones(2), tg.tensor([True, False])),
     "trapezoid: received a bool input for `x` or `y`, but bool is not supported"),
    (lambda: tg.cumulative_trapezoid(tg.tensor([True, False])),
     "cumulative_trapezoid: received a bool input for `y`, but bool is not supported"),
])
def test_trapezoid_refuses_bool_samples(call, message):
    # (teachgrad integrated them as 0/1 floats)
    with pytest.raises(RuntimeError) as caught:
        call()
    assert str(caught.value).split("\nHint: ")[0] == message
    assert tg.trapezoid(tg.tensor([1, 2])).item() == 1.5  # integers are integrated
