"""Numbers and arrays teachgrad cannot hold are refused in PyTorch's words, never half-made.

Before, ``torch.tensor`` took any NumPy array as it was: a uint32, longdouble, string,
object or big-endian array became a tensor whose repr failed with a KeyError, and
``x * np.longdouble(2)`` made such a tensor too. Python ints outside int64 wrapped around
silently (``torch.tensor(2**63)`` was ``-2**63``), and an int tensor with an
out-of-range Python int (``int8_tensor + 300``) failed with NumPy's OverflowError where
PyTorch wraps the number around. The expected values below are PyTorch 2.13's, written
out; where PyTorch is installed they are also checked against it.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad


def _run(code: str, torch):
    return eval(code, {"torch": torch, "np": np})  # noqa: S307


REFUSED = [
    ("torch.tensor(np.array([1.0], dtype=np.longdouble))", TypeError,
     "can't convert np.ndarray of type numpy.longdouble."),
    ("torch.from_numpy(np.array([1.0], dtype=np.longdouble))", TypeError,
     "can't convert np.ndarray of type numpy.longdouble."),
    ("torch.tensor(np.array(['a']))", TypeError, "can't convert np.ndarray of type numpy.str_."),
    ("torch.tensor(np.array([1], dtype=object))", TypeError,
     "can't convert np.ndarray of type numpy.object_."),
    ("torch.tensor(np.array(['2020-01-01'], dtype='datetime64[D]'))", TypeError,
     "can't convert np.ndarray of type numpy.datetime64."),
    ("torch.ones(2) + np.array([1.0, 2.0], dtype=np.longdouble)", TypeError,
     "can't convert np.ndarray of type numpy.longdouble."),
    ("torch.tensor(np.array([1, 2], dtype='>f4'))", ValueError,
     "given numpy array has byte order different from the native byte order. Conversion "
     "between byte orders is currently not supported."),
    ("torch.from_numpy(np.array([1, 2], dtype='>f4'))", ValueError,
     "given numpy array has byte order different from the native byte order. Conversion "
     "between byte orders is currently not supported."),
    ("torch.tensor(2**63)", ValueError, "Overflow when unpacking long long"),
    ("torch.tensor([1, 2**64])", ValueError, "Overflow when unpacking long long"),
    ("torch.tensor(-2**63 - 1)", ValueError, "Overflow when unpacking long long"),
    ("torch.full((2,), 2**63)", RuntimeError,
     "value cannot be converted to type int64_t without overflow"),
    ("torch.ones(2, dtype=torch.int32).fill_(2**40)", RuntimeError,
     "value cannot be converted to type int without overflow"),
    ("torch.ones(2, dtype=torch.int8).fill_(300)", RuntimeError,
     "value cannot be converted to type int8_t without overflow"),
    ("torch.full((2,), 256, dtype=torch.uint8)", RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    ("torch.full((2,), -256, dtype=torch.uint8)", RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    ("torch.ones(2, dtype=torch.int8).masked_fill(torch.tensor([True, False]), 300)",
     RuntimeError, "value cannot be converted to type int8_t without overflow"),
    ("torch.ones(2, dtype=torch.int64) * 2**64", OverflowError, "int too big to convert"),
    ("torch.tensor([1, 'a'])", TypeError, "new(): invalid data type 'str'"),
    ("torch.tensor(['a', 1])", ValueError, "too many dimensions 'str'"),
]


@pytest.mark.parametrize(("code", "kind", "message"), REFUSED)
def test_refused_in_pytorchs_words(code, kind, message):
    with pytest.raises(kind) as error:
        _run(code, teachgrad)
    assert str(error.value).split("\n")[0].startswith(message)


@pytest.mark.parametrize(("code", "kind", "message"), REFUSED)
def test_pytorch_refuses_them_so(code, kind, message):
    torch = pytest.importorskip("torch")
    with pytest.raises(kind) as error:
        _run(code, torch)
    assert str(error.value).split("\n")[0].startswith(message)


def test_types_pytorch_has_and_teachgrad_has_not_get_a_hint():
    with pytest.raises(TypeError) as error:
        teachgrad.tensor(np.array([1, 2], dtype=np.uint16))
    message = str(error.value)
    assert message.startswith("can't convert np.ndarray of type numpy.uint16. The only "
                              "supported types are: float64, float32, float16, int64, int32, "
                              "int16, int8, uint8, and bool.")
    assert "Hint: teachgrad has no uint16; convert the array first" in message


# PyTorch casts an out-of-range Python int to the tensor's integer type: it wraps around.
WRAPPED = [
    ("torch.tensor([1, 2], dtype=torch.int8) + 300", [45, 46], "int8"),  # 300 - 256 = 44
    ("torch.tensor([1, 2], dtype=torch.uint8) * -1", [255, 254], "uint8"),  # -1 is 255
    ("torch.tensor([1, 2], dtype=torch.uint8) + 256", [1, 2], "uint8"),  # 256 is 0
    ("torch.ones(2, dtype=torch.int64) * 2**63", [-(2**63)] * 2, "int64"),
    ("torch.full((2,), -1, dtype=torch.uint8)", [255, 255], "uint8"),
    ("torch.zeros(2, dtype=torch.uint8).fill_(-3)", [253, 253], "uint8"),
    ("torch.tensor(2**70, dtype=torch.float64)", 2.0**70, "float64"),
    ("torch.ones(2) * np.longdouble(2)", [2.0, 2.0], "float32"),  # a number: weak, as float
]


@pytest.mark.parametrize(("code", "values", "dtype"), WRAPPED)
def test_values_as_pytorch_makes_them(code, values, dtype):
    result = _run(code, teachgrad)
    assert result.tolist() == values
    assert result.dtype is getattr(teachgrad, dtype)
    torch = pytest.importorskip("torch")
    expected = _run(code, torch)
    assert expected.tolist() == values
    assert str(expected.dtype) == f"torch.{dtype}"
