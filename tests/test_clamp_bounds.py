"""The number bounds of ``clamp`` (and numbers written into a tensor), checked as PyTorch
checks them.

- A complex bound: ``clamp`` of a floating tensor takes ``1+0j`` as 1.0 and refuses ``1j``
  ("value cannot be converted to type double without overflow"); an integer tensor, and
  ``clamp_min``/``clamp_max`` always, say "clamp is not supported for complex types".
  (teachgrad said "teachgrad has no complex dtypes" for all of them.)
- A bound the dtype cannot hold is refused: ``int8_tensor.clamp(0, 300)``,
  ``float16_tensor.clamp(1e5)``, ``float32_tensor.clamp(1e39)``; an unsigned dtype wraps a
  negative int (``uint8_tensor.clamp(-1)`` clamps at 255).
- So is a finite float beyond a floating dtype written by ``fill_``, ``masked_fill``,
  ``full``, ``where`` (NumPy wrote inf).
"""

from __future__ import annotations

import pytest

import teachgrad

DOUBLE = "value cannot be converted to type double without overflow"
COMPLEX = "clamp is not supported for complex types"

# (code, error type, PyTorch 2.13's sentence)
REFUSED = [
    ("t.clamp(x, 1j)", RuntimeError, DOUBLE),
    ("t.clamp(x, max=1j)", RuntimeError, DOUBLE),
    ("t.clamp(x, 0, 1j)", RuntimeError, DOUBLE),
    ("x.clamp(1j)", RuntimeError, DOUBLE),
    ("x.clamp_(1j)", RuntimeError, DOUBLE),
    ("t.clip(x, 1j)", RuntimeError, DOUBLE),
    ("x.half().clamp(1j)", RuntimeError, DOUBLE),  # ("double" whatever the float dtype)
    ("t.clamp(x, min=1 + 0j, max=1j)", RuntimeError, DOUBLE),
    ("t.clamp(i, 1j)", NotImplementedError, COMPLEX),
    ("t.clamp(i, 1 + 0j)", NotImplementedError, COMPLEX),
    ("t.clamp(b, 1j)", NotImplementedError, COMPLEX),
    ("x.clamp_min(1j)", NotImplementedError, COMPLEX),
    ("x.clamp_min(1 + 0j)", NotImplementedError, COMPLEX),
    ("x.clamp_max(-1j)", NotImplementedError, COMPLEX),
    ("t.clamp(x, 1j, 2**70)", OverflowError, "int too big to convert"),  # (ints first)
    ("x.clamp(2**70)", OverflowError, "int too big to convert"),
    ("b8.clamp(0, 300)", RuntimeError,
     "value cannot be converted to type int8_t without overflow"),
    ("b8.clamp(-300)", RuntimeError, "value cannot be converted to type int8_t without overflow"),
    ("b8.clamp_min(300)", RuntimeError,
     "value cannot be converted to type int8_t without overflow"),
    ("b8.clamp_(0, 300)", RuntimeError,
     "value cannot be converted to type int8_t without overflow"),
    ("u8.clamp(max=256)", RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    ("x.clamp(1e39)", RuntimeError, "value cannot be converted to type float without overflow"),
    ("x.clamp_min(1e39)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("x.half().clamp(max=70000.0)", RuntimeError,
     "value cannot be converted to type c10::Half without overflow"),
    ("x.half().clamp(70000)", RuntimeError,
     "value cannot be converted to type c10::Half without overflow"),
    ("x.half().clamp_max(1e10)", RuntimeError,
     "value cannot be converted to type c10::Half without overflow"),
    ("t.ones(2).fill_(1e39)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("t.ones(2).masked_fill(x > 0, 1e39)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("t.full((2,), 1e39)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("t.where(x > 0, x, 1e39)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("t.ones(2).half().fill_(1e5)", RuntimeError,
     "value cannot be converted to type c10::Half without overflow"),
]


def _run(code: str, lib):
    names = {"t": lib, "x": lib.tensor([1.0, 2.0]), "i": lib.tensor([1, 2]),
             "b": lib.tensor([True, False]), "b8": lib.tensor([1, 2], dtype=lib.int8),
             "u8": lib.tensor([1, 200], dtype=lib.uint8)}
    return eval(code, names)  # noqa: S307


@pytest.mark.parametrize(("code", "kind", "sentence"), REFUSED)
def test_refused_in_pytorchs_words(code, kind, sentence):
    with pytest.raises(kind) as error:
        _run(code, teachgrad)
    assert str(error.value).split("\nHint: ")[0] == sentence


@pytest.mark.parametrize(("code", "kind", "sentence"), REFUSED)
def test_pytorch_refuses_them_so(code, kind, sentence):
    torch = pytest.importorskip("torch")
    with pytest.raises(kind) as error:
        _run(code, torch)
    assert str(error.value) == sentence


# (code, the values worked out by hand, the dtype)
TAKEN = [
    ("x.clamp(1 + 0j)", [1.0, 2.0], "float32"),  # 1+0j is 1.0
    ("x.clamp(-1, 1.5 + 0j)", [1.0, 1.5], "float32"),
    ("x.clamp(float('inf'))", [float("inf")] * 2, "float32"),  # inf is no overflow
    ("x.half().clamp(float('-inf'))", [1.0, 2.0], "float16"),
    ("u8.clamp(-1)", [255, 255], "uint8"),  # -1 is 255 in uint8
    ("u8.clamp(max=-1)", [1, 200], "uint8"),
    ("b.clamp(0, 300)", [1, 0], "int64"),  # bool with an int: int64, which holds 300
    ("b8.clamp(0, 2.5)", [1.0, 2.0], "float32"),
    ("t.full((2,), 1e39, dtype=t.float64)", [1e39, 1e39], "float64"),
    ("t.ones(2).masked_fill(x > 0, float('nan'))", [float("nan")] * 2, "float32"),
]


@pytest.mark.parametrize(("code", "values", "dtype"), TAKEN)
def test_bounds_that_fit_are_taken(code, values, dtype):
    out = _run(code, teachgrad)
    assert str(out.dtype) == f"teachgrad.{dtype}"
    assert out.tolist() == pytest.approx(values, nan_ok=True)


@pytest.mark.parametrize(("code", "values", "dtype"), TAKEN)
def test_pytorch_takes_them_so(code, values, dtype):
    torch = pytest.importorskip("torch")
    out = _run(code, torch)
    assert str(out.dtype) == f"torch.{dtype}"
    assert out.tolist() == pytest.approx(values, nan_ok=True)


def test_a_complex_bound_keeps_the_gradient_of_a_real_one():
    x = teachgrad.tensor([0.5, 2.0], requires_grad=True)
    x.clamp(max=1 + 0j).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]  # d/dx clamp(x, max=1) is 1 below 1, 0 above
