"""dtypes and type promotion are PyTorch's.

fixtures/dtype_cases.json holds ~1000 expressions with the dtype (and values, or error)
real PyTorch gave them (fixtures/make_dtype_cases.py); here the same expressions run with
``torch`` bound to teachgrad. A few rules are also spelled out as plain tests below, so a
reader sees them without opening the fixture.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import teachgrad
from teachgrad import Tensor

CASES = json.loads((Path(__file__).parent / "fixtures" / "dtype_cases.json").read_text())["cases"]


def evaluate(expr: str):
    return eval(expr, {"torch": teachgrad, "np": np})


def same_values(got, want) -> bool:
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            same_values(g, w) for g, w in zip(got, want)
        )
    if isinstance(want, float) and isinstance(got, float):
        return math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-6) or (
            math.isnan(got) and math.isnan(want)
        )
    return got == want and type(got) is type(want)


@pytest.mark.parametrize("case", CASES, ids=[c["expr"] for c in CASES])
def test_same_dtype_value_or_error_as_pytorch(case):
    expr = case["expr"]
    if "error" in case:
        with pytest.raises(Exception) as info:
            evaluate(expr)
        assert type(info.value).__name__ == case["error"], str(info.value)
        assert str(info.value).split("\n")[0] == case["message"].replace("torch.", "teachgrad.")
        return
    try:
        result = evaluate(expr)
    except AttributeError as error:  # an op of another family that is not written yet
        if str(error).startswith(("'Tensor' object has no attribute", "module 'teachgrad'")):
            pytest.skip(f"not implemented yet: {error}")
        raise
    if "dtype_value" in case:
        assert result.name == case["dtype_value"]
    elif "python" in case:
        assert repr(result) == case["python"]
    else:
        assert isinstance(result, Tensor)
        assert result.dtype.name == case["dtype"], expr
        if "value" in case:
            assert same_values(result.tolist(), case["value"]), (result.tolist(), case["value"])


# ----------------------------------------------------------------------------------------
# The rules, one by one (values from PyTorch's documented promotion rules)
# ----------------------------------------------------------------------------------------
def test_integer_python_number_gives_int64_and_float_gives_float32():
    assert teachgrad.tensor(1).dtype is teachgrad.int64
    assert teachgrad.tensor(1.0).dtype is teachgrad.float32
    assert teachgrad.tensor(True).dtype is teachgrad.bool


def test_int64_times_float32_is_float32():
    a = teachgrad.tensor([1, 2])
    b = teachgrad.tensor([0.5, 0.5])
    assert (a * b).dtype is teachgrad.float32
    assert (a * b).tolist() == [0.5, 1.0]


def test_python_scalars_do_not_upcast_float32():
    x = teachgrad.tensor([1.0, 2.0])
    assert (x * 2.5).dtype is teachgrad.float32
    assert (x + 10**10).dtype is teachgrad.float32
    assert (teachgrad.tensor([1, 2]) * 2.5).dtype is teachgrad.float32  # int becomes float


def test_zero_dim_tensors_do_not_upcast_dimensioned_ones_of_the_same_kind():
    x = teachgrad.tensor([1.0, 2.0])
    assert (x * teachgrad.tensor(2.0, dtype=teachgrad.float64)).dtype is teachgrad.float32
    assert (x * teachgrad.tensor([2.0], dtype=teachgrad.float64)).dtype is teachgrad.float64


def test_int_divided_by_int_is_float32():
    q = teachgrad.tensor([1, 3]) / teachgrad.tensor([2, 2])
    assert q.dtype is teachgrad.float32
    assert q.tolist() == [0.5, 1.5]


def test_bool_plus_int_is_int64_and_bool_plus_bool_stays_bool():
    assert (teachgrad.tensor([True, False]) + 1).dtype is teachgrad.int64
    mask = teachgrad.tensor([True, False])
    assert (mask + teachgrad.tensor([True, True])).dtype is teachgrad.bool


def test_legacy_constructor_is_float32():
    t = teachgrad.Tensor([[3, 4], [7, 5]])
    assert t.dtype is teachgrad.float32
    assert t.tolist() == [[3.0, 4.0], [7.0, 5.0]]


def test_dtype_aliases_and_default_dtype():
    assert teachgrad.float is teachgrad.float32
    assert teachgrad.double is teachgrad.float64
    assert teachgrad.long is teachgrad.int64
    assert teachgrad.get_default_dtype() is teachgrad.float32
    assert repr(teachgrad.float64) == "teachgrad.float64"


def test_python_floats_keep_their_double_value_with_dtype_float64():
    # Python floats are doubles: with dtype=float64 nothing may round them to float32 first.
    t = teachgrad.tensor([0.1, 1e-50, 1e40], dtype=teachgrad.float64)
    assert t.tolist() == [0.1, 1e-50, 1e40]
    assert teachgrad.tensor(0.1, dtype=float).item() == 0.1
    assert teachgrad.as_tensor([0.1], dtype=teachgrad.float64).item() == 0.1
    # float16 is rounded once, from the double (float32 first would round twice).
    assert teachgrad.tensor([1 + 2**-11 + 2**-30], dtype=teachgrad.float16).item() == 1 + 2**-10


def test_set_default_dtype_changes_new_float_tensors():
    try:
        teachgrad.set_default_dtype(teachgrad.float64)
        assert teachgrad.tensor(1.0).dtype is teachgrad.float64
        assert teachgrad.ones(2).dtype is teachgrad.float64
        assert teachgrad.tensor(1).dtype is teachgrad.int64
    finally:
        teachgrad.set_default_dtype(teachgrad.float32)
    assert teachgrad.tensor(1.0).dtype is teachgrad.float32


def test_gradient_has_the_dtype_of_its_leaf():
    """A float64 leaf used in float32 arithmetic still gets a float64 gradient."""
    x = teachgrad.tensor([1.0, 2.0], dtype=teachgrad.float64, requires_grad=True)
    y = x.float() * teachgrad.tensor([3.0, 4.0])
    y.sum().backward()
    assert x.grad.dtype is teachgrad.float64
    assert x.grad.tolist() == [3.0, 4.0]


def test_integer_results_never_require_grad():
    x = teachgrad.tensor([1.5, 2.5], requires_grad=True)
    assert not x.long().requires_grad
    assert not (x > 2).requires_grad
    assert x.long().grad_fn is None
