"""Torch-level functions made to match PyTorch in the twenty-second session (found by
tests/sweep_functions_against_torch.py): which dtypes a function accepts, and which of
its checks speaks first.

Expected messages and values are PyTorch 2.13's, written out (values worked by hand), so
these tests run without PyTorch; the ``torch``-marked tests compare with PyTorch where it
is installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad as tg

# source -> (error type, PyTorch's sentence)
CASES = {
    # the incomplete gamma functions check the shapes, then the *promoted* dtype
    "torch.igamma(torch.tensor([1, 2]), torch.tensor([True, False]))":
        (NotImplementedError, "\"igamma_cpu\" not implemented for 'Long'"),
    "torch.special.gammaincc(torch.tensor([True]), torch.tensor([True]))":
        (NotImplementedError, "\"igammac_cpu\" not implemented for 'Bool'"),
    "torch.igamma(torch.ones(2, 3), torch.tensor([1, 2]))":
        (RuntimeError, "The size of tensor a (3) must match the size of tensor b (2) at "
                       "non-singleton dimension 1"),
    # bit shifts: no kernel for bool << bool; the shapes are checked before the dtype
    "torch.tensor([True]) << torch.tensor([True])":
        (NotImplementedError, "\"lshift_cpu\" not implemented for 'Bool'"),
    "torch.bitwise_right_shift(torch.tensor([True]), True)":
        (NotImplementedError, "\"rshift_cpu\" not implemented for 'Bool'"),
    "torch.bitwise_left_shift(torch.ones(2, 3), torch.ones(2))":
        (RuntimeError, "The size of tensor a (3) must match the size of tensor b (2) at "
                       "non-singleton dimension 1"),
    # searchsorted/bucketize: no kernel for a bool sequence searched for bools; out= must
    # have the result's dtype (int64, or int32 with out_int32=True): floats were written
    "torch.searchsorted(torch.tensor([False, True]), True)":
        (NotImplementedError, "\"searchsorted_out_cpu\" not implemented for 'Bool'"),
    "torch.bucketize(torch.tensor([True]), torch.tensor([False, True]))":
        (NotImplementedError, "\"searchsorted_out_cpu\" not implemented for 'Bool'"),
    "torch.searchsorted(torch.tensor([1.0, 2.0]), torch.tensor([1.5]), out=torch.empty(0))":
        (RuntimeError, "torch.searchsorted(): output tensor's dtype is wrong, it can only be "
                       "Int(int32) or Long(int64) depending on whether out_int32 flag is True, "
                       "but we got output tensor's dtype Float and out_int32 flag is False"),
    "torch.bucketize(torch.tensor([1.5]), torch.tensor([1.0, 2.0]), out_int32=True, "
    "out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "torch.searchsorted(): output tensor's dtype is wrong, it can only be "
                       "Int(int32) or Long(int64) depending on whether out_int32 flag is True, "
                       "but we got output tensor's dtype Long and out_int32 flag is True"),
    # ldexp: a float mantissa takes int or float exponents, not bool; an int result's refusal
    # is worded by ldexp itself
    "torch.ldexp(torch.tensor([1.5]), torch.tensor(True))":
        (NotImplementedError, "\"ldexp_cpu_exp\" not implemented for 'Bool'"),
    "torch.tensor([1, 2]).ldexp_(torch.tensor([1, 2]))":
        (RuntimeError, "ldexp can't be cast to the desired output type Long"),
    "torch.ldexp(torch.tensor([1.0]), torch.tensor([1]), out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "ldexp can't be cast to the desired output type Long"),
    # torch.special.round has no integer kernel; torch.round with decimals neither
    "torch.special.round(torch.tensor([1, 2]))":
        (NotImplementedError, "\"round_vml_cpu\" not implemented for 'Long'"),
    "torch.special.round(torch.tensor([1], dtype=torch.int32), "
    "out=torch.tensor([0], dtype=torch.int32))":
        (NotImplementedError, "\"round_vml_cpu\" not implemented for 'Int'"),
    "torch.special.round(torch.tensor([True]), decimals=1)":
        (NotImplementedError, "\"round_cpu\" not implemented for 'Bool'"),
    "torch.round(torch.tensor([1, 2]), decimals=1)":
        (NotImplementedError, "\"round_cpu\" not implemented for 'Long'"),
    "torch.special.round(torch.tensor([1.5]), out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "Found dtype Long but expected Float"),
    # which check speaks first: quantile's q range and interpolation before the dtype,
    # logcumsumexp's dim before the dtype, trace's dtype before the dimensions, gcd_/lcm_'s
    # output shape before the dtype
    "torch.quantile(torch.tensor([1, 2]), 2)":
        (RuntimeError, "quantile() q must be in the range [0, 1] but got 2"),
    "torch.nanquantile(torch.tensor([1, 2]), 0.5, interpolation='x')":
        (RuntimeError, "quantile() interpolation must be one of linear, lower, higher, "
                       "midpoint or nearest, but got x"),
    "torch.quantile(torch.tensor([], dtype=torch.long), 0.5)":
        (RuntimeError, "quantile() input tensor must be non-empty"),
    "torch.quantile(torch.tensor([1, 2]), torch.tensor([[0.5]]))":
        (RuntimeError, "quantile() q must be a scalar or 1D tensor"),
    "torch.logcumsumexp(torch.tensor([1, 2]), 2)":
        (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 2)"),
    "torch.trace(torch.tensor([True, False]))":
        (NotImplementedError, "\"trace\" not implemented for 'Bool'"),
    "torch.tensor(2.5).gcd_(torch.ones(6))":
        (RuntimeError, "output with shape [] doesn't match the broadcast shape [6]"),
    "torch.tensor(2.5).lcm_(torch.ones(6))":
        (RuntimeError, "output with shape [] doesn't match the broadcast shape [6]"),
    "torch.tensor([4]).lcm_(6)":
        (TypeError, "lcm_(): argument 'other' (position 1) must be Tensor, not int"),
    # out= of a dtype the kernel refuses before its other checks
    "torch.cholesky(torch.ones(6), out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "cholesky: Expected result to be safely castable from Float dtype, but "
                       "got result with dtype Long"),
    "torch.linalg.cond(torch.ones(6), out=torch.empty(0, dtype=torch.int32))":
        (RuntimeError, "linalg.cond: Expected result to be safely castable from Float dtype, "
                       "but got result with dtype Int"),
    "torch.linalg.pinv(torch.ones(6), out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "linalg.pinv: Expected result to be safely castable from Float dtype, "
                       "but got result with dtype Long"),
    "torch.linalg.tensorinv(torch.ones(6), out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "tensorinv: Expected result to be safely castable from Float dtype, but "
                       "got result with dtype Long"),
    "torch.linalg.norm(torch.ones(6), out=torch.empty(0, dtype=torch.float64))":
        (RuntimeError, "linalg.norm expected out tensor dtype Float but got: Double"),
    "torch.linalg.vector_norm(torch.ones(6), out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "Expected out tensor to have dtype float, but got long int instead"),
    "torch.slice_copy(torch.ones(6), out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "Expected out tensor to have dtype float, but got long int instead"),
    "torch.diag(torch.ones(6), out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "diag: result type Float can't be cast to the desired out= type Long"),
    "torch.bitwise_not(torch.ones(6), out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "Found dtype Long but expected Float"),
    "torch.nansum(torch.ones(6), out=torch.empty(0, dtype=torch.long))":
        (NotImplementedError, "\"nansum_cpu\" not implemented for 'Long'"),
    "torch.nanmean(torch.ones(6, dtype=torch.long), out=torch.empty(0, dtype=torch.long))":
        (RuntimeError, "nanmean(): integral types and 'Bool' are not supported for nanmean, "
                       "even for empty tensors."),
    # unique's slices along dim must not be empty (PyTorch cannot tell them apart)
    "torch.unique(torch.ones(2, 0), dim=0)":
        (RuntimeError, "There are 0 sized dimensions, and they aren't selected, so unique "
                       "cannot be applied"),
    "torch.unique_consecutive(torch.ones(0, 3), dim=1)":
        (RuntimeError, "There are 0 sized dimensions, and they aren't selected, so unique "
                       "cannot be applied"),
    # einsum's sublists parsed as PyTorch parses them (a tensor as a sublist)
    "torch.einsum(torch.ones(6), torch.ones(6))":
        (TypeError, "only integer tensors of a single element can be converted to an index"),
    "torch.einsum(torch.ones(2, 2), torch.ones(2, 2))":
        (RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"),
    "torch.einsum(torch.ones(2), [52])":
        (ValueError, "einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)"),
    # 0-d and other unusual inputs, in PyTorch's words (NumPy's before)
    "torch.slice_copy(torch.tensor(2.5))":
        (IndexError, "slice() cannot be applied to a 0-dim tensor."),
    "torch.gradient(torch.tensor(2.5), dim=0)":
        (IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    "torch.mv(torch.tensor(2.5), torch.ones(6))":
        (IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    "torch.cross(torch.tensor(2.5), torch.ones(6))":
        (RuntimeError, "no dimension of size 3 in input"),
    "torch.unravel_index(torch.tensor([3]), 0.5)":
        (TypeError, "expected 'shape' to be int or sequence of ints, but got <class 'float'>"),
    "torch.inner(torch.tensor([True]), torch.tensor([True]))":
        (NotImplementedError, "\"dot\" not implemented for 'Bool'"),
    # out= with an input requiring grad: the kernel PyTorch names
    "torch.max(torch.ones(3, requires_grad=True), torch.ones(3), out=torch.empty(0))":
        (RuntimeError, "maximum(): functions with out=... arguments don't support automatic "
                       "differentiation, but one of the arguments requires grad."),
}

# out= with an input requiring grad, for functions PyTorch has no out= derivative for: its
# call records a node that raises these words in backward; teachgrad raises them at once
# (as for slice_copy: out= never records a graph here but for _out._COMPOSITE_OUT)
OUT_GRAD_CASES = {
    "torch.diag(torch.ones(3, requires_grad=True), out=torch.empty(0))":
        (RuntimeError, "derivative for aten::diag_embed is not implemented"),
    "torch.diag(torch.ones(3, 3, requires_grad=True), out=torch.empty(0))":
        (RuntimeError, "derivative for aten::diagonal_copy is not implemented"),
    "torch.squeeze_copy(torch.ones(3, requires_grad=True), out=torch.empty(0))":
        (RuntimeError, "derivative for aten::squeeze_copy is not implemented"),
}

# source -> the result's dtype and values (by hand)
RESULTS = {
    # P(1, x) = 1 − e^−x; an int or bool tensor beside a float one is promoted
    "torch.igamma(torch.tensor([1.0, 1.0]), torch.tensor([1, 2]))":
        ("float32", [1 - math.exp(-1), 1 - math.exp(-2)]),
    "torch.igammac(torch.tensor([1, 1]), torch.tensor([0.5, 2.0], dtype=torch.float64))":
        ("float64", [math.exp(-0.5), math.exp(-2)]),
    "torch.special.gammainc(torch.tensor([1.0]), torch.tensor([True]))":
        ("float32", [1 - math.exp(-1)]),
    # a bool beside an int shifts as 0 or 1
    "torch.tensor([True, False]) << torch.tensor([3, 1])": ("int64", [8, 0]),
    "torch.tensor([5, 5]) >> torch.tensor([True, False])": ("int64", [2, 5]),
    # a bool sequence searched for an int, and out= of the result's dtype
    "torch.searchsorted(torch.tensor([False, True]), torch.tensor([1, 2]))": ("int64", [1, 2]),
    "torch.bucketize(torch.tensor([1.5]), torch.tensor([1.0, 2.0]), out_int32=True, "
    "out=torch.empty(0, dtype=torch.int32))": ("int32", [1]),
    # an int or bool mantissa is multiplied by 2 ** other
    "torch.ldexp(torch.tensor([True, True]), torch.tensor([True, False]))": ("float32", [2, 1]),
    # half to even; an int tensor is already round for torch.round
    "torch.special.round(torch.tensor([0.5, 1.5, -2.5]))": ("float32", [0, 2, -2]),
    "torch.special.round(torch.tensor([1.25]), decimals=1)": ("float32", [1.2]),
    "torch.round(torch.tensor([3, -4]))": ("int64", [3, -4]),
    "torch.quantile(torch.tensor([1.0, 2.0, 3.0, 4.0]), 0.5)": ("float32", 2.5),
    "torch.tensor([4, 9]).gcd_(torch.tensor([6, 6]))": ("int64", [2, 3]),
    "torch.trace(torch.tensor([[1, 2], [3, 4]]))": ("int64", 5),
    # out= of a dtype the result casts to
    "torch.nansum(torch.tensor([1.0, float('nan')]), out=torch.empty(0, dtype=torch.float64))":
        ("float64", 1.0),
    "torch.linalg.cond(torch.eye(2) * 2, out=torch.empty(0, dtype=torch.float64))":
        ("float64", 1.0),
    # an int tensor's elements are subscripts: [1, 0] is "BA", the output "AB": a transpose
    "torch.einsum(torch.tensor([[1, 2, 3]]), torch.tensor([1, 0]))[:, 0]":
        ("int64", [1, 2, 3]),
    # the deprecated torch.cholesky returns an empty input as it is; cross finds input's dim
    "torch.cholesky(torch.ones(2, 0)).reshape(-1)": ("float32", []),
    "torch.cross(torch.tensor([[1.0, 0, 0]]), torch.tensor([[0.0, 1, 0]]))[0]":
        ("float32", [0, 0, 1]),
    "torch.unravel_index(torch.tensor([3]), torch.Size([2, 2]))[1]": ("int64", [1]),
    # empty slices along the selected dim are fine
    "torch.unique(torch.ones(0, 3), dim=0).reshape(-1)": ("float32", []),
}


def test_ldexp_raises_two_to_a_float_exponent_in_its_own_dtype():
    # PyTorch computes 2 ** other in other's dtype (float32 here), then multiplies in float64;
    # the gradient in input is that same float32 power
    x = tg.tensor([0.3, -3.0], dtype=tg.float64, requires_grad=True)
    y = tg.ldexp(x, tg.tensor([1.5, 3.25]))
    powers = [float(np.float32(2 ** 1.5)), float(np.float32(2 ** 3.25))]
    assert y.tolist() == [0.3 * powers[0], -3.0 * powers[1]]  # exactly
    y.sum().backward()
    assert x.grad.tolist() == powers


def _raised(source: str, library) -> Exception:
    with pytest.raises(Exception) as caught:  # (the type is compared by the caller)
        eval(source, {"torch": library})
    return caught.value


@pytest.mark.parametrize("source", sorted(CASES))
def test_refused_as_pytorch_says(source):
    error = _raised(source, tg)
    kind, message = CASES[source]
    assert type(error) is kind
    assert str(error).split("\nHint: ")[0] == message


@pytest.mark.parametrize("source", sorted(OUT_GRAD_CASES))
def test_out_grad_refused_naming_pytorchs_kernel(source):
    error = _raised(source, tg)
    kind, message = OUT_GRAD_CASES[source]
    assert type(error) is kind
    assert str(error).split("\nHint: ")[0] == message


@pytest.mark.parametrize("source", sorted(RESULTS))
def test_result_as_worked_by_hand(source):
    result = eval(source, {"torch": tg})
    dtype, values = RESULTS[source]
    assert str(result.dtype) == f"teachgrad.{dtype}"
    assert result.tolist() == pytest.approx(values, rel=1e-6)


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted(CASES))
def test_refused_as_pytorch(source):
    real = pytest.importorskip("torch")
    error = _raised(source, real)
    assert (type(error), str(error)) == CASES[source]


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted(RESULTS))
def test_result_as_pytorch(source):
    real = pytest.importorskip("torch")
    theirs = eval(source, {"torch": real})
    ours = eval(source, {"torch": tg})
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.tolist() == pytest.approx(theirs.tolist(), rel=1e-6)


def test_ldexp_gradient_with_negative_int_exponents_is_two_to_the_exponent():
    # d(x · 2ⁿ)/dx = 2ⁿ (PyTorch 2.13 gives 0 here: its integer pow(2, -1); KNOWN in the sweep)
    x = tg.tensor([1.0, 1.0], requires_grad=True)
    tg.ldexp(x, tg.tensor([-1, -2])).sum().backward()
    assert x.grad.tolist() == [0.5, 0.25]


@pytest.mark.parametrize("name", ["linalg.norm", "linalg.matrix_norm"])
def test_composite_out_records_the_copy(name):
    # PyTorch's linalg.norm/matrix_norm/cond, inner and special.ndtr compute and copy into
    # out=: the gradient flows through out (d‖x‖/dx = x/‖x‖ = [0.6, 0.8])
    x = tg.tensor([[3.0, 4.0]], requires_grad=True)
    out = tg.empty(0)
    fn = tg.linalg.norm if name == "linalg.norm" else tg.linalg.matrix_norm
    result = fn(x, out=out)
    assert result is out and out.item() == pytest.approx(5.0)
    out.backward()
    assert x.grad.tolist()[0] == pytest.approx([0.6, 0.8])


def test_inner_out_records_the_copy():
    a, b = tg.tensor([1.0, 2.0], requires_grad=True), tg.tensor([3.0, 4.0])
    out = tg.empty(0)
    tg.inner(a, b, out=out).backward()
    assert out.item() == 11.0 and a.grad.tolist() == [3.0, 4.0]


def test_matrix_rank_out_with_an_input_requiring_grad():
    # an int64 result has no gradient: PyTorch writes it, as argmax's
    out = tg.empty(0, dtype=tg.long)
    tg.linalg.matrix_rank(tg.eye(3, requires_grad=True), out=out)
    assert out.item() == 3


def test_cholesky_out_is_row_major():
    # torch.cholesky copies linalg.cholesky's column-major result into out
    out = tg.empty(0)
    tg.cholesky(tg.eye(3) * 4, out=out)
    assert out.stride() == (3, 1) and out.tolist() == (tg.eye(3) * 2).tolist()
    assert tg.linalg.cholesky(tg.eye(3) * 4, out=tg.empty(0)).stride() == (1, 3)


def test_unravel_index_refuses_a_tensor_shape():
    with pytest.raises(TypeError, match=r"^expected 'shape' to be int or sequence of ints, but "
                                        r"got <class 'teachgrad.Tensor'>"):
        tg.unravel_index(tg.tensor([3]), tg.tensor([4]))


def test_signs_of_zero_as_pytorch():
    # J₁ is odd: J₁(−0) = −0 (it was +0)
    assert str(tg.special.bessel_j1(tg.tensor([-0.0, 0.0])).tolist()) == "[-0.0, 0.0]"
    # mvlgamma's gradient at −0: PyTorch adds a to arange's offsets (0.0 + −0.0 = +0.0), so
    # digamma meets +0 there: −inf (digamma(−0.0) is +inf). At 1.5 (p = 2):
    # digamma(1.5) + digamma(1.0) = (2 − 2 ln 2 − γ) + (−γ)
    x = tg.tensor([-0.0, 1.5], requires_grad=True)
    tg.mvlgamma(x, 2).sum().backward()
    gamma = 0.5772156649015329
    assert x.grad.tolist() == [-math.inf, pytest.approx(2 - 2 * math.log(2) - 2 * gamma)]
