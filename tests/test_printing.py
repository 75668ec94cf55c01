"""str()/repr() of tensors must match PyTorch character for character.

The expected strings in fixtures/printing_cases.json were printed by real PyTorch
(see fixtures/make_printing_cases.py); these tests need only NumPy.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from teachgrad import _printing
from teachgrad._printing import (
    format_data,
    get_printoptions,
    printoptions,
    set_printoptions,
    tensor_repr,
)

CASES = json.loads((Path(__file__).parent / "fixtures" / "printing_cases.json").read_text())
DEFAULT_OPTIONS = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": 80,
    "sci_mode": None,
}


@pytest.fixture(autouse=True)
def default_printoptions():
    """Every test starts and ends with PyTorch's default options."""
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")


def build_array(case: dict) -> np.ndarray:
    """Rebuild a case's NumPy array exactly as the generator did."""
    # `expr` is trusted NumPy arithmetic written in make_printing_cases.py.
    values = case["data"] if case["expr"] is None else eval(case["expr"], {"np": np})
    return np.asarray(values).astype(case["dtype"]).reshape(case["shape"])


class FakeDtype:
    """Just enough of a teachgrad dtype for tensor_repr."""

    def __init__(self, name: str):
        self.name = name
        self.is_floating_point = np.issubdtype(np.dtype(name), np.floating)

    def __repr__(self) -> str:
        return f"teachgrad.{self.name}"


def FakeGradFn(name: str):
    """A stand-in node: printing shows the node's class name, as PyTorch does."""
    return type(name, (), {})()


def fake_tensor(array, requires_grad=False, grad_fn=None):
    """A stand-in with the four attributes tensor_repr may use."""
    array = np.asarray(array)
    return SimpleNamespace(
        _data=array,
        dtype=FakeDtype(array.dtype.name),
        requires_grad=requires_grad,
        grad_fn=None if grad_fn is None else FakeGradFn(grad_fn),
    )


# --- the PyTorch-generated cases --------------------------------------------------------


def test_there_are_enough_cases():
    assert len(CASES) >= 60
    assert len({case["name"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_tensor_repr_matches_pytorch(case):
    set_printoptions(**case["options"])
    t = fake_tensor(build_array(case), case["requires_grad"], case["grad_fn"])
    assert tensor_repr(t) == case["expected"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_format_data_matches_pytorch(case):
    set_printoptions(**case["options"])
    assert format_data(build_array(case), case["indent"]) == case["body"]


# --- hand-written checks of the rules ---------------------------------------------------


def test_examples_from_the_brief():
    assert tensor_repr(fake_tensor(np.float32(27.0))) == "tensor(27.)"
    data = np.array([51.2, 512.0, 0.0512], dtype=np.float32)
    assert tensor_repr(fake_tensor(data)) == "tensor([5.1200e+01, 5.1200e+02, 5.1200e-02])"
    empty = np.zeros((0, 3), dtype=np.float32)
    assert tensor_repr(fake_tensor(empty)) == "tensor([], size=(0, 3))"


def test_default_dtypes_are_not_named():
    for dtype in ("float32", "int64", "bool"):
        assert "dtype=" not in tensor_repr(fake_tensor(np.ones(2, dtype=dtype)))
    text = tensor_repr(fake_tensor(np.ones(2, dtype=np.float64)))
    assert text == "tensor([1., 1.], dtype=teachgrad.float64)"


def test_the_default_dtype_set_by_set_default_dtype_is_the_unnamed_one():
    # PyTorch 2.13 after torch.set_default_dtype(torch.float64) (as the nn tutorials and
    # many scripts do): float64 goes unnamed and float32 gets named, empty tensors too.
    import teachgrad

    teachgrad.set_default_dtype(teachgrad.float64)
    try:
        assert repr(teachgrad.tensor([1.0, 2.0])) == "tensor([1., 2.])"
        assert repr(teachgrad.zeros(2, dtype=teachgrad.float32)) == (
            "tensor([0., 0.], dtype=teachgrad.float32)")
        assert repr(teachgrad.zeros(0, dtype=teachgrad.float32)) == (
            "tensor([], dtype=teachgrad.float32)")
        assert repr(teachgrad.zeros(0, 2)) == "tensor([], size=(0, 2))"
        assert repr(teachgrad.tensor([1, 2])) == "tensor([1, 2])"
    finally:
        teachgrad.set_default_dtype(teachgrad.float32)
    assert repr(teachgrad.zeros(2, dtype=teachgrad.float64)) == (
        "tensor([0., 0.], dtype=teachgrad.float64)")


def test_grad_fn_wins_over_requires_grad():
    t = fake_tensor(np.float32(2.0), requires_grad=True, grad_fn="MulBackward0")
    assert tensor_repr(t) == "tensor(2., grad_fn=<MulBackward0>)"


def test_format_data_default_indent_is_zero():
    body = format_data(np.arange(6).reshape(2, 3))
    assert body == "[[0, 1, 2],\n [3, 4, 5]]"


def test_format_data_accepts_scalars():
    assert format_data(np.float32(0.5)) == "0.5000"
    assert format_data(np.array(True)) == "True"


def test_summarising_a_million_elements_is_fast():
    big = np.arange(10**6, dtype=np.float32).reshape(1000, 1000)
    tensor_repr(fake_tensor(big))  # warm up
    start = time.perf_counter()
    text = tensor_repr(fake_tensor(big))
    elapsed = time.perf_counter() - start
    assert "..." in text
    assert elapsed < 0.05, f"printing a 1000x1000 tensor took {elapsed * 1000:.1f} ms"


# --- options ----------------------------------------------------------------------------


def test_default_options():
    assert get_printoptions() == DEFAULT_OPTIONS


def test_set_get_round_trip():
    set_printoptions(precision=2, threshold=10, edgeitems=1, linewidth=50, sci_mode=True)
    options = get_printoptions()
    assert options == {
        "precision": 2,
        "threshold": 10,
        "edgeitems": 1,
        "linewidth": 50,
        "sci_mode": True,
    }
    set_printoptions(profile="default")
    assert get_printoptions() == DEFAULT_OPTIONS
    set_printoptions(**options)
    assert get_printoptions() == options


def test_get_printoptions_returns_a_copy():
    get_printoptions()["precision"] = 99
    assert get_printoptions()["precision"] == 4


def test_profiles():
    set_printoptions(profile="short")
    assert get_printoptions() == {**DEFAULT_OPTIONS, "precision": 2, "edgeitems": 2}
    set_printoptions(profile="full")
    assert get_printoptions() == {**DEFAULT_OPTIONS, "threshold": math.inf}
    set_printoptions(profile="default")
    assert get_printoptions() == DEFAULT_OPTIONS


def test_explicit_options_override_the_profile():
    set_printoptions(profile="short", precision=6)
    assert get_printoptions()["precision"] == 6
    assert get_printoptions()["edgeitems"] == 2


def test_any_call_resets_sci_mode_like_pytorch():
    set_printoptions(sci_mode=True)
    set_printoptions(precision=3)
    assert get_printoptions()["sci_mode"] is None


def test_options_change_the_output():
    t = fake_tensor(np.array([1.12345], dtype=np.float32))
    set_printoptions(precision=2)
    assert tensor_repr(t) == "tensor([1.12])"
    set_printoptions(threshold=5)
    assert tensor_repr(fake_tensor(np.arange(10))) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    set_printoptions(profile="default")
    assert tensor_repr(t) == "tensor([1.1235])"


def test_printoptions_context_manager_restores():
    with printoptions(precision=1, sci_mode=False):
        assert get_printoptions()["precision"] == 1
        assert format_data(np.array([0.25, 1e9])) == "[         0.2, 1000000000.0]"
    assert get_printoptions() == DEFAULT_OPTIONS


def test_module_imports_only_numpy():
    source = Path(_printing.__file__).read_text()
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert not any("teachgrad" in line or "torch" in line for line in imports)


# --- live comparison with PyTorch, when it is installed ---------------------------------

FUZZ_DTYPES = ["float16", "float32", "float64", "int8", "int32", "int64", "uint8", "bool"]
FUZZ_OPTIONS = {
    "precision": [0, 1, 2, 6, 8],
    "threshold": [0, 5, 20, 1000],
    "edgeitems": [0, 1, 2, 3],
    "linewidth": [10, 40, 80, 120],
    "sci_mode": [None, True, False],
    "profile": ["short", "full", "default"],
}


def random_case(rng: np.random.Generator):
    """A random array (shape, dtype, scale, special values) and random print options."""
    ndim = int(rng.integers(0, 5))
    high = 30 if rng.random() < 0.1 else 7  # sometimes big enough to be summarised
    shape = tuple(int(n) for n in rng.integers(0, high, ndim))
    size = math.prod(shape)
    style = rng.integers(3)
    if style == 0:  # one scale for all values
        values = rng.standard_normal(size) * 10.0 ** rng.integers(-9, 12)
    elif style == 1:  # scales mixed within the tensor
        values = rng.standard_normal(size) * 10.0 ** rng.integers(-3, 6, size)
    else:  # whole numbers, zeros of both signs, nan and inf
        specials = [0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, 0.5, -3.0, 1e-5, 1e9]
        values = rng.choice(specials, size)
    dtype = FUZZ_DTYPES[rng.integers(len(FUZZ_DTYPES))]
    if not np.issubdtype(np.dtype(dtype), np.floating):
        values = np.nan_to_num(values, nan=0, posinf=7, neginf=-7).clip(-1e6, 1e6)
    with np.errstate(over="ignore", invalid="ignore"):
        array = values.astype(dtype).reshape(shape)
    options = {
        name: choices[rng.integers(len(choices))]
        for name, choices in FUZZ_OPTIONS.items()
        if rng.random() < 0.2
    }
    return array, options


@pytest.mark.torch
def test_random_tensors_match_live_pytorch(monkeypatch):
    torch = pytest.importorskip("torch")
    tensor_str = pytest.importorskip("torch._tensor_str")
    torch_add_suffixes = tensor_str._add_suffixes

    def add_teachgrad_suffixes(text, suffixes, indent, force_newline):
        # Lay the suffixes out with teachgrad's (longer) dtype names, as in the fixtures.
        renamed = [suffix.replace("torch.", "teachgrad.") for suffix in suffixes]
        return torch_add_suffixes(text, renamed, indent, force_newline)

    monkeypatch.setattr(tensor_str, "_add_suffixes", add_teachgrad_suffixes)
    rng = np.random.default_rng(2024)
    try:
        for _ in range(400):
            array, options = random_case(rng)
            t = torch.from_numpy(array.copy())
            requires_grad = array.dtype.kind == "f" and rng.random() < 0.3
            t.requires_grad_(requires_grad)
            torch.set_printoptions(profile="default")
            torch.set_printoptions(**options)
            set_printoptions(profile="default")
            set_printoptions(**options)
            ours = tensor_repr(fake_tensor(array, requires_grad))
            assert ours == str(t), (array.dtype, array.shape, options)
    finally:
        torch.set_printoptions(profile="default")


# --- through the real teachgrad.tensor, once the core provides it -----------------------


def _real_tensor_factory():
    try:
        import teachgrad
    except Exception:  # the core may still be half-written
        return None
    return getattr(teachgrad, "tensor", None)


@pytest.mark.skipif(_real_tensor_factory() is None, reason="teachgrad.tensor not available yet")
class TestRealTensor:
    def test_float(self):
        import teachgrad

        assert repr(teachgrad.tensor([1.0, 2.0, 3.0])) == "tensor([1., 2., 3.])"
        assert str(teachgrad.tensor(27.0)) == "tensor(27.)"

    def test_int_and_bool(self):
        import teachgrad

        assert repr(teachgrad.tensor([1, -20, 300])) == "tensor([  1, -20, 300])"
        assert repr(teachgrad.tensor([True, False])) == "tensor([ True, False])"

    def test_float64_and_requires_grad(self):
        import teachgrad

        t = teachgrad.tensor([1.5, -2.0], dtype=teachgrad.float64, requires_grad=True)
        expected = "tensor([ 1.5000, -2.0000], dtype=teachgrad.float64, requires_grad=True)"
        assert repr(t) == expected

    def test_grad_fn(self):
        import teachgrad

        x = teachgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        assert repr(x * 2) == "tensor([2., 4., 6.], grad_fn=<MulBackward0>)"

    def test_set_printoptions_is_public(self):
        import teachgrad

        teachgrad.set_printoptions(precision=2)
        assert repr(teachgrad.tensor([1.12345])) == "tensor([1.12])"
