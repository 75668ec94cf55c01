"""Calls PyTorch's argument parser refuses are refused by teachgrad too, in PyTorch's words:
a string or a NumPy type where a dtype goes (``torch.zeros(2, dtype='float32')``), a Python
number where a tensor goes (``torch.exp(1.0)``), None where a tensor or a number goes
(``torch.eq(x, None)``). teachgrad used to take them, so a learner's program ran here and
failed under PyTorch.

Each case writes out PyTorch 2.13's message (its first line; teachgrad may add a
``Hint:``); with PyTorch installed, each is also run there and must fail the same way.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad

# (expression with `torch` and `x`, error type, PyTorch's first line)
REFUSED = [
    # --- a string or a NumPy type where a dtype goes
    ("torch.zeros(2, dtype='float32')", TypeError,
     "zeros(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.zeros(2, dtype=np.float32)", TypeError,
     "zeros(): argument 'dtype' must be torch.dtype, not type"),
    ("torch.tensor([1.0], dtype='float32')", TypeError,
     "tensor(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.as_tensor([1.0], dtype='float32')", TypeError,
     "as_tensor(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.asarray([1.0], dtype='float32')", TypeError,
     "asarray(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.full((2,), 1.0, dtype='float32')", TypeError,
     "full(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.ones_like(x, dtype='float64')", TypeError,
     "ones_like(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.full_like(x, 2.0, dtype='float64')", TypeError,
     "full_like(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.scalar_tensor(1, dtype='float32')", TypeError,
     "scalar_tensor(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.empty_strided((2,), (1,), dtype='float32')", TypeError,
     "empty_strided(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.tril_indices(3, 3, dtype='int64')", TypeError,
     "tril_indices(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.randn(2, dtype='float32')", TypeError,
     "randn() received an invalid combination of arguments - got (int, dtype=str), but "
     "expected one of:"),
    ("torch.arange(3, dtype='int64')", TypeError,
     "arange() received an invalid combination of arguments - got (int, dtype=str), but "
     "expected one of:"),
    ("torch.sum(x, dtype='float32')", TypeError,
     "sum() received an invalid combination of arguments - got (Tensor, dtype=str), but "
     "expected one of:"),
    ("torch.linalg.vector_norm(x, dtype='float32')", TypeError,
     "linalg_vector_norm(): argument 'dtype' must be torch.dtype, not str"),
    ("x.to(dtype='float32')", TypeError,
     "to() received an invalid combination of arguments - got (dtype=str, ), but expected "
     "one of:"),
    ("x.new_zeros(2, dtype='float32')", TypeError,
     "new_zeros(): argument 'dtype' must be torch.dtype, not str"),
    ("x.new_ones(2, dtype='float32')", TypeError,
     "new_ones(): argument 'dtype' must be torch.dtype, not str"),
    ("x.new_empty(2, dtype='float32')", TypeError,
     "new_empty(): argument 'dtype' must be torch.dtype, not str"),
    ("x.new_full((2,), 1.0, dtype='float32')", TypeError,
     "new_full(): argument 'dtype' must be torch.dtype, not str"),
    ("x.new_tensor([1.0], dtype='float32')", TypeError,
     "new_tensor(): argument 'dtype' must be torch.dtype, not str"),
    ("x.sum(dtype='float32')", TypeError,
     "sum() received an invalid combination of arguments - got (dtype=str, ), but expected "
     "one of:"),
    ("torch.set_default_dtype('float64')", TypeError,
     "invalid dtype object: only floating-point types are supported as the default type"),
    ("torch.promote_types(torch.int64, 'float32')", TypeError,
     "promote_types(): argument 'type2' (position 2) must be torch.dtype, not str"),
    ("torch.can_cast('float32', torch.int64)", TypeError,
     "can_cast(): argument 'from_' (position 1) must be torch.dtype, not str"),
    ("torch.finfo('float32')", TypeError,
     "finfo(): argument 'type' (position 1) must be torch.dtype, not str"),
    ("torch.iinfo(np.int64)", TypeError,
     "iinfo(): argument 'type' (position 1) must be torch.dtype, not type"),
    # --- a Python number (or a NumPy array) where a tensor goes
    ("torch.abs(2.5)", TypeError, "abs(): argument 'input' (position 1) must be Tensor, not float"),
    ("torch.exp(1.0)", TypeError, "exp(): argument 'input' (position 1) must be Tensor, not float"),
    ("torch.tanh(1)", TypeError, "tanh(): argument 'input' (position 1) must be Tensor, not int"),
    ("torch.sigmoid(True)", TypeError,
     "sigmoid(): argument 'input' (position 1) must be Tensor, not bool"),
    ("torch.relu(1.0)", TypeError,
     "relu(): argument 'input' (position 1) must be Tensor, not float"),
    ("torch.square(3)", TypeError,
     "square(): argument 'input' (position 1) must be Tensor, not int"),
    ("torch.sqrt(input=4.0)", TypeError, "sqrt(): argument 'input' must be Tensor, not float"),
    ("torch.absolute(-1.0)", TypeError,
     "absolute(): argument 'input' (position 1) must be Tensor, not float"),
    ("torch.special.expit(0.5)", TypeError,
     "special_expit(): argument 'input' (position 1) must be Tensor, not float"),
    ("torch.log(np.ones(2))", TypeError,
     "log(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
    ("torch.nn.functional.silu(1.0)", TypeError,
     "silu(): argument 'input' (position 1) must be Tensor, not float"),
    # --- None where a tensor or a number goes (x == None stays False: Python's ==)
    ("torch.eq(x, None)", TypeError,
     "eq() received an invalid combination of arguments - got (Tensor, NoneType), but "
     "expected one of:"),
    ("x.eq(None)", TypeError,
     "eq() received an invalid combination of arguments - got (NoneType), but expected "
     "one of:"),
    ("torch.ne(x, None)", TypeError,
     "ne() received an invalid combination of arguments - got (Tensor, NoneType), but "
     "expected one of:"),
    ("torch.not_equal(x, None)", TypeError,
     "not_equal() received an invalid combination of arguments - got (Tensor, NoneType), "
     "but expected one of:"),
    # --- None for an optional dim or decimals: "not given" is leaving it out
    *[(f"{call}", TypeError, f"{name}() received an invalid combination of arguments - got "
       f"({got}), but expected one of:")
      for call, name, got in [
          ("torch.max(x, None)", "max", "Tensor, NoneType"),
          ("x.max(None)", "max", "NoneType"),
          ("torch.min(x, dim=None)", "min", "Tensor, dim=NoneType"),
          ("x.min(None)", "min", "NoneType"),
          ("torch.prod(x, None)", "prod", "Tensor, NoneType"),
          ("x.prod(None)", "prod", "NoneType"),
          ("x.squeeze(None)", "squeeze", "NoneType"),
          ("torch.squeeze(x, None)", "squeeze", "Tensor, NoneType"),
          ("x.squeeze(dim=None)", "squeeze", "dim=NoneType, "),
          ("torch.round(x, None)", "round", "Tensor, NoneType"),
          ("torch.round(x, decimals=None)", "round", "Tensor, decimals=NoneType"),
          ("torch.clamp_min(x, None)", "clamp_min", "Tensor, NoneType"),
          ("x.clamp_min(None)", "clamp_min", "NoneType"),
          ("torch.clamp_max(x, None)", "clamp_max", "Tensor, NoneType"),
          ("x.clamp_max(None)", "clamp_max", "NoneType"),
          ("torch.clamp_min(x)", "clamp_min", "Tensor"),
      ]],
    ("x.max(dim=None, keepdim=True)", TypeError,
     "max(): argument 'dim' must be int, not NoneType"),
    ("x.round(decimals=None)", TypeError,
     "round(): argument 'decimals' must be int, not NoneType"),
    # --- round's decimals is keyword-only (x.round(1) rounded to 1 place here, not in PyTorch)
    ("x.round(1)", TypeError, "round() takes from 1 to 0 positional arguments but 1 were given"),
    ("torch.round(x, 1)", TypeError,
     "round() received an invalid combination of arguments - got (Tensor, int), but expected "
     "one of:"),
    # (and round_, whose messages name round_, not round)
    ("x.clone().round_(1)", TypeError,
     "round_() takes from 1 to 0 positional arguments but 1 were given"),
    ("x.clone().round_(decimals=None)", TypeError,
     "round_(): argument 'decimals' must be int, not NoneType"),
    # --- PyTorch's F.sigmoid and F.tanh are input.sigmoid(), input.tanh(): Python's error
    *[(f"torch.nn.functional.{name}({value})", AttributeError,
       f"'{kind}' object has no attribute '{name}'")
      for name in ("sigmoid", "tanh")
      for value, kind in (("1.0", "float"), ("2", "int"), ("None", "NoneType"),
                          ("[1.0]", "list"), ("np.ones(2)", "numpy.ndarray"))],
    # --- a window's length that is not an integer
    *[(f"torch.{name}({length})", TypeError, f"{name}(): argument 'window_length' "
       f"(position 1) must be int, not {kind}")
      for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
                   "kaiser_window")
      for length, kind in (("2.5", "float"), ("2.0", "float"), ("True", "bool"),
                           ("torch.tensor(3.0)", "Tensor"), ("torch.tensor([3])", "Tensor"))],
    ("torch.hann_window(window_length=2.5)", TypeError,
     "hann_window(): argument 'window_length' must be int, not float"),
    ("torch.hann_window(2.5, False)", TypeError,
     "hann_window() received an invalid combination of arguments - got (float, bool), but "
     "expected one of:"),
    ("torch.hamming_window(2.5, True, 0.5)", TypeError,
     "hamming_window() received an invalid combination of arguments - got (float, bool, "
     "float), but expected one of:"),
]


def _run(lib, expression: str):
    x = lib.tensor([1.0, 2.0])
    return eval(expression, {"torch": lib, "x": x, "np": np})


@pytest.mark.parametrize(("expression", "kind", "message"), REFUSED)
def test_refused_in_pytorchs_words(expression, kind, message):
    default = teachgrad.get_default_dtype()
    with pytest.raises(kind) as error:
        _run(teachgrad, expression)
    assert teachgrad.get_default_dtype() is default  # (nothing half changed)
    assert str(error.value).split("\n")[0] == message


@pytest.mark.parametrize(("expression", "kind", "message"), REFUSED)
def test_pytorch_refuses_them_so(expression, kind, message):
    torch = pytest.importorskip("torch")
    with pytest.raises(kind) as error:
        _run(torch, expression)
    assert str(error.value).split("\n")[0] == message


def test_the_methods_message_lists_the_methods_signatures():
    with pytest.raises(TypeError) as error:
        teachgrad.tensor([1.0]).eq(None)
    assert str(error.value).split("\n")[1:3] == [" * (Tensor other)", "      didn't match "
                                                  "because some of the arguments have invalid "
                                                  "types: (!NoneType!)"]


@pytest.mark.parametrize(("expression", "lines"), [
    ("x.squeeze(dim=None)", [" * ()", "      didn't match because some of the keywords were "
                             "incorrect: dim", " * (int dim)", "      didn't match because some "
                             "of the arguments have invalid types: (!dim=NoneType!, )"]),
    ("x.clamp_min(None)", [" * (Tensor min)", "      didn't match because some of the "
                           "arguments have invalid types: (!NoneType!)", " * (Number min)"]),
    ("torch.squeeze(x, None)", [" * (Tensor input)", " * (Tensor input, int dim)",
                                "      didn't match because some of the arguments have "
                                "invalid types: (Tensor, !NoneType!)"]),
])
def test_none_for_an_optional_argument_is_marked_as_pytorch_marks_it(expression, lines):
    with pytest.raises(TypeError) as error:
        _run(teachgrad, expression)
    assert str(error.value).split("\n")[1:1 + len(lines)] == lines


def test_f_sigmoid_of_a_number_keeps_teachgrads_hint():
    with pytest.raises(AttributeError) as error:
        teachgrad.nn.functional.tanh(1.0)
    assert str(error.value).split("\n")[1].startswith("Hint: make it a tensor first")


def test_a_windows_message_lists_its_signatures():
    with pytest.raises(TypeError) as error:
        teachgrad.kaiser_window(2.5, True)
    assert str(error.value).split("\n")[1:4] == [
        f" * (int window_length{extra}, *, torch.dtype dtype = None, torch.layout layout = "
        "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
        for extra in ("", ", bool periodic", ", bool periodic, float beta")]


def test_a_string_dtype_gets_a_hint_naming_the_dtype_meant():
    with pytest.raises(TypeError) as error:
        teachgrad.tensor([1.0], dtype="float64")
    assert "torch.float64" in str(error.value).split("\n", 1)[1]


@pytest.mark.parametrize("expression", [
    "torch.zeros(2, dtype=float)", "torch.zeros(2, dtype=int)", "torch.zeros(2, dtype=bool)",
    "torch.tensor([1.0], dtype=torch.float64)", "x.to(dtype=torch.int64)",
    "x.new_zeros(2)", "torch.full_like(x, 3)", "torch.promote_types(torch.int64, torch.float32)",
    "torch.exp(x)", "x.exp()", "torch.abs(-x)", "torch.square(x)", "torch.add(1.0, x)",
    "torch.pow(2, x)", "torch.xlogy(1.0, x)", "np.exp(x)",
    "x == None", "x != None", "None == x", "x == 1.0", "x != x",
    "torch.max(x)", "x.max(0)", "torch.min(x, 0, True)", "x.prod()", "torch.prod(x, 0)",
    "x.squeeze()", "x.squeeze(0)", "torch.squeeze(x, (0,))", "torch.round(x * 1.26)",
    "torch.round(x * 1.26, decimals=1)", "(x * 1.26).round(decimals=1)", "x.clamp_min(1.5)",
    "torch.clamp_max(x, 1.5)",
    "torch.hann_window(np.int64(3))", "torch.hann_window(torch.tensor(3))",
    "torch.kaiser_window(3, True, 2.5)", "torch.hamming_window(4, False, 0.5)",
    "torch.nn.functional.sigmoid(x)", "torch.nn.functional.tanh(input=x)",
])
def test_what_pytorch_takes_keeps_working(expression):
    result = _run(teachgrad, expression)
    torch = pytest.importorskip("torch")
    expected = _run(torch, expression)
    assert str(result).replace("teachgrad", "torch") == str(expected)
