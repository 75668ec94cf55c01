"""Torch-level functions made to match PyTorch in the twenty-second session (found by
tests/sweep_functions_against_torch.py): which dtypes a function accepts, and which of
its checks speaks first.

Expected messages and values are PyTorch 2.13's, written out (values worked by hand), so
these tests run without PyTorch; the ``torch``-marked tests compare with PyTorch where it
is installed."""

from __future__ import annotations

import math

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
}


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
