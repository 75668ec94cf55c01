"""Python ints beyond 64 bits, and ints outside a small integer dtype, as PyTorch takes them.

PyTorch's argument parser unpacks a Python int as a long long or an unsigned one: from
-2**63 to 2**64 - 1. Beyond, CPython's OverflowError comes out ("int too big to convert";
"can't convert negative int to unsigned" below). teachgrad computed ``x * 2**70`` in floats.
Inside that range, an int meeting an integer tensor is cast to its dtype and wraps around:
``int8_tensor == 257`` compares with 1 (teachgrad compared with 257 exactly).
"""

from __future__ import annotations

import pytest

import teachgrad

TOO_BIG = "int too big to convert"
NEGATIVE = "can't convert negative int to unsigned"

# (code with t for the library, PyTorch 2.13's sentence)
REFUSED = [
    ("x * 2**70", TOO_BIG), ("2**70 * x", TOO_BIG), ("x * -2**70", NEGATIVE),
    ("x * 2**64", TOO_BIG), ("x + 2**70", TOO_BIG), ("x - 2**70", TOO_BIG),
    ("2**70 - x", TOO_BIG), ("x / 2**70", TOO_BIG), ("x ** 2**70", TOO_BIG),
    ("t.pow(2**70, x)", TOO_BIG), ("x == 2**70", TOO_BIG), ("x < 2**70", TOO_BIG),
    ("i == 2**70", TOO_BIG), ("b8 == 2**70", TOO_BIG), ("t.mul(x, 2**70)", TOO_BIG),
    ("x.add(1, alpha=2**70)", TOO_BIG), ("x.mul_(2**70)", TOO_BIG),
    ("x.fill_(2**70)", TOO_BIG), ("x.masked_fill(x > 0, 2**70)", TOO_BIG),
    ("t.full((2,), 2**70)", TOO_BIG), ("t.remainder(x, 2**70)", TOO_BIG),
    ("x.div(2**70, rounding_mode='floor')", TOO_BIG), ("t.where(x > 0, x, 2**70)", TOO_BIG),
    ("x.addcmul(x, x, value=2**70)", TOO_BIG), ("t.lerp(x, x, 2**70)", TOO_BIG),
]


def _run(code: str, lib):
    x = lib.tensor([1.0, 2.0])
    i = lib.tensor([1, 2])
    b8 = lib.tensor([1, 2], dtype=lib.int8)
    u8 = lib.tensor([1, 255], dtype=lib.uint8)
    return eval(code, {"t": lib, "x": x, "i": i, "b8": b8, "u8": u8})  # noqa: S307


@pytest.mark.parametrize(("code", "sentence"), REFUSED)
def test_an_int_beyond_64_bits_is_refused(code, sentence):
    with pytest.raises(OverflowError) as error:
        _run(code, teachgrad)
    assert str(error.value).split("\nHint: ")[0] == sentence


@pytest.mark.parametrize(("code", "sentence"), REFUSED)
def test_pytorch_refuses_them_too(code, sentence):
    torch = pytest.importorskip("torch")
    with pytest.raises(OverflowError) as error:
        _run(code, torch)
    assert str(error.value) == sentence


# (code, the result worked out by hand: the int wrapped into the tensor's dtype first)
WRAPPED = [
    ("b8 == 257", [True, False]),  # 257 - 256 = 1
    ("b8 != 257", [False, True]),
    ("b8 < 257", [False, False]),  # 1 < 1, 2 < 1
    ("b8 >= 128", [True, True]),  # 128 is -128 in int8
    ("b8.eq(257)", [True, False]),
    ("teachgrad.eq(b8, 257)", [True, False]),
    ("u8 == 511", [False, True]),  # 511 - 256 = 255
    ("u8 == -1", [False, True]),  # -1 is 255 in uint8
    ("u8 < -1", [True, False]),
    ("i == 2**64 - 1", [False, False]),  # -1 in int64
    ("b8 == 2**64 - 255", [True, False]),  # 2**64 - 255 is 1 (mod 256)
    ("x < 2**63", [True, True]),  # (a float tensor takes up to 2**64 - 1 as a float)
]


@pytest.mark.parametrize(("code", "expected"), WRAPPED)
def test_an_int_compared_with_an_integer_tensor_wraps(code, expected):
    out = _run(code.replace("teachgrad.", "t."), teachgrad)
    assert out.dtype == teachgrad.bool and out.tolist() == expected


@pytest.mark.parametrize(("code", "expected"), WRAPPED)
def test_pytorch_wraps_them_so(code, expected):
    torch = pytest.importorskip("torch")
    assert _run(code.replace("teachgrad.", "t."), torch).tolist() == expected


def test_where_refuses_a_number_its_dtype_cannot_hold():
    with pytest.raises(RuntimeError) as error:
        _run("t.where(b8 > 0, b8, 300)", teachgrad)
    assert str(error.value) == "value cannot be converted to type int8_t without overflow"
    assert _run("t.where(b8 > 1, b8, 7)", teachgrad).tolist() == [7, 2]


def test_64_bit_ints_still_work():
    assert _run("x * 2**63", teachgrad).tolist() == [2.0**63, 2.0**64]
    assert _run("x * -2**63", teachgrad).tolist() == [-(2.0**63), -(2.0**64)]
    assert _run("b8 + 257", teachgrad).tolist() == [2, 3]  # (wraps, as before)
    assert _run("b8 == 1", teachgrad).tolist() == [True, False]


# A Python int from 2**63 to 2**64 - 1 is a uint64 to PyTorch, and PyTorch does not promote
# bool with uint64: every op or comparison of a bool tensor with one is refused (an integer
# tensor takes it wrapped, above). NumPy compared them quietly (all False / all True).
BOOL_WITH_UINT64 = [
    "bl == 2**63", "bl != 2**63", "bl < 2**64 - 1", "bl >= 2**63", "2**63 == bl",
    "2**63 < bl", "bl.eq(2**63)", "t.gt(bl, 2**63)", "bl + 2**63", "2**63 * bl",
    "t.where(bl, bl, 2**63)", "bl.clamp(min=2**63)", "t.tensor(True) == 2**63",
]
PROMOTION = ("Promotion for uint16, uint32, uint64 types is not supported, attempted to "
             "promote Bool and UInt64")


def _run_bool(code: str, lib):
    return eval(code, {"t": lib, "bl": lib.tensor([False, True])})  # noqa: S307


@pytest.mark.parametrize("code", BOOL_WITH_UINT64)
def test_a_bool_tensor_refuses_a_uint64_int(code):
    with pytest.raises(RuntimeError) as error:
        _run_bool(code, teachgrad)
    assert str(error.value).split("\nHint: ")[0] == PROMOTION


@pytest.mark.parametrize("code", BOOL_WITH_UINT64)
def test_pytorch_refuses_a_uint64_int_with_a_bool_tensor(code):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as error:
        _run_bool(code, torch)
    assert str(error.value) == PROMOTION


# ... but a bool tensor takes any 64-bit int where it is written (nonzero is True), and an
# int64 one is an int64 (worked out by hand)
BOOL_WITH_INT64 = [
    ("bl.clone().fill_(2**63)", [True, True]),
    ("bl.clone().fill_(2**64 - 1)", [True, True]),
    ("bl.masked_fill(~bl, 2**63)", [True, True]),
    ("t.full((2,), 2**63, dtype=t.bool)", [True, True]),
    ("bl == -2**63", [False, False]),
    ("bl + (2**63 - 1)", [2**63 - 1, -(2**63)]),  # True + (2**63 - 1) wraps
]


@pytest.mark.parametrize(("code", "expected"), BOOL_WITH_INT64)
def test_a_bool_tensor_takes_64_bit_ints_where_pytorch_does(code, expected):
    assert _run_bool(code, teachgrad).tolist() == expected


@pytest.mark.parametrize(("code", "expected"), BOOL_WITH_INT64)
def test_pytorch_takes_them_so(code, expected):
    torch = pytest.importorskip("torch")
    assert _run_bool(code, torch).tolist() == expected


# alpha of add/sub with an integer result is converted to the result's dtype: refused if it
# does not fit (PyTorch's sentence); sub negates it in 64 bits first, wrapping. Expected
# values by hand: 1 + a * 1 or [1, 5] - a * [1, 3], modulo 2**bits.
INTEGER_ALPHA = [
    ("t.tensor([1], dtype=t.int8).add(1, alpha=300)", "int8_t"),
    ("t.tensor([1], dtype=t.int32).add(1, alpha=2**40)", "int"),
    ("t.tensor([1]).add(1, alpha=2**63)", "int64_t"),
    ("t.tensor([1], dtype=t.uint8).sub(1, alpha=256)", "uint8_t"),
    ("t.tensor([1], dtype=t.int8).sub(1, alpha=-128)", "int8_t"),  # -(-128) = 128
]
INTEGER_ALPHA_VALUES = [
    ("t.tensor([1], dtype=t.uint8).add(1, alpha=-1)", [0]),  # -1 is 255: 1 + 255 = 256
    ("t.tensor([1], dtype=t.uint8).sub(1, alpha=255)", [2]),  # 1 - 255 = -254 = 2
    # 3 * 2**63 = 2**64 + 2**63, which is 2**63 modulo 2**64 (and -2**63 is too)
    ("t.tensor([1, 5]).sub(t.tensor([1, 3]), alpha=2**63)", [1 - 2**63, 5 - 2**63]),
    ("t.tensor([1, 5]).sub(t.tensor([1, 3]), alpha=-2**63)", [1 - 2**63, 5 - 2**63]),
    ("t.tensor([1]).sub(1, alpha=2**64 - 1)", [2]),  # alpha is -1 in 64 bits
    ("t.tensor([1], dtype=t.int8).sub(1, alpha=128)", [-127]),  # 1 - 128, as 1 + (-128)·1
    ("t.rsub(t.tensor([1]), 1, alpha=2**63)", [1 - 2**63]),
    ("t.tensor([1], dtype=t.int8).add(t.tensor([1]), alpha=2**40)", [2**40 + 1]),  # int64
]


@pytest.mark.parametrize(("code", "ctype"), INTEGER_ALPHA)
def test_an_integer_alpha_must_fit_the_result(code, ctype):
    with pytest.raises(RuntimeError) as error:
        eval(code, {"t": teachgrad})  # noqa: S307
    assert str(error.value) == f"value cannot be converted to type {ctype} without overflow"


@pytest.mark.parametrize(("code", "ctype"), INTEGER_ALPHA)
def test_pytorch_refuses_such_an_alpha(code, ctype):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as error:
        eval(code, {"t": torch})  # noqa: S307
    assert str(error.value) == f"value cannot be converted to type {ctype} without overflow"


@pytest.mark.parametrize(("code", "expected"), INTEGER_ALPHA_VALUES)
def test_an_integer_alpha_wraps_as_in_pytorch(code, expected):
    assert eval(code, {"t": teachgrad}).tolist() == expected  # noqa: S307


@pytest.mark.parametrize(("code", "expected"), INTEGER_ALPHA_VALUES)
def test_pytorch_integer_alpha_values(code, expected):
    torch = pytest.importorskip("torch")
    assert eval(code, {"t": torch}).tolist() == expected  # noqa: S307
