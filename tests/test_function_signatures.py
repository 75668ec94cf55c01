"""``torch.add(x)``, ``torch.mm(x)``, ``torch.sum(x, 'a')``, ``torch.full(2.5)``: the
top-level functions a learner calls most answer a call that fits none of their signatures
as PyTorch's argument parser does (teachgrad/_function_signatures.py).

The expected messages below are written by hand from PyTorch 2.13's signatures (as its
parser prints them); with PyTorch installed each is also compared with what PyTorch says,
and a sweep compares every listed function on a set of wrong calls.
"""

from __future__ import annotations

import re
import warnings

import pytest

import teachgrad as torch
from teachgrad._function_signatures import SIGNATURES

_FACTORY = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
            "bool pin_memory = False, bool requires_grad = False")
_ADD = "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)"
_MM = ("one of:\n * (Tensor input, Tensor mat2, *, Tensor out = None)\n"
       " * (Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)\n")
_SUM = ("one of:\n * (Tensor input, *, torch.dtype dtype = None)\n"
        " * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, "
        "Tensor out = None)\n")
_LINSPACE = "one of:\n" + "".join(
    f" * ({start} start, {end} end, int steps, *, Tensor out = None, {_FACTORY})\n"
    for start, end in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                       ("Number", "Number")))
_ARANGE = ("one of:\n"
           f" * (Number end, *, Tensor out = None, {_FACTORY})\n"
           f" * (Number start, Number end, *, {_FACTORY})\n"
           f" * (Number start, Number end, Number step = 1, *, Tensor out = None, {_FACTORY})\n")


def _combination(name: str, got: str, expected: str) -> str:
    return (f"{name}() received an invalid combination of arguments - got ({got}), "
            f"but expected {expected}")


CASES = {
    # arithmetic: one signature printed, a hidden (deprecated) one too
    "torch.add(x)": _combination("add", "Tensor", _ADD),
    "torch.sub(x)": _combination("sub", "Tensor", _ADD.replace("add", "sub")),
    "torch.add()": _combination("add", "", _ADD),
    "torch.add(None)": _combination("add", "NoneType", _ADD),
    "torch.add(x, 'a')": "add(): argument 'other' (position 2) must be Tensor, not str",
    "torch.mul(x, 'a')": "mul(): argument 'other' (position 2) must be Tensor, not str",
    "torch.mul(x, x, x, x)": "mul() takes 2 positional arguments but 4 were given",
    "torch.add(x, zzz=1)": 'add() missing 1 required positional arguments: "other"',
    "torch.div(x, x, 1, 2, rounding_mode=3)": _combination(
        "div", "Tensor, Tensor, int, int, rounding_mode=int",
        "one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)\n"
        "      didn't match because some of the keywords were incorrect: rounding_mode\n"
        " * (Tensor input, Number other, *, str rounding_mode)\n"),
    "torch.addmv(x, zzz=1)": ("addmv() received an invalid combination of arguments - got "
                              "unrecognized keyword arguments: zzz"),
    # the matmul family
    "torch.mm(x)": _combination("mm", "Tensor", _MM),
    "torch.mm(2.5)": _combination("mm", "float", _MM),
    "torch.mm(x, x, x, x)": "mm() takes 3 positional arguments but 4 were given",
    "torch.matmul(x)": 'matmul() missing 1 required positional arguments: "other"',
    # reductions
    "torch.sum(x, 'a')": _combination("sum", "Tensor, str", _SUM),
    "torch.sum(x, dim='a')": _combination("sum", "Tensor, dim=str", _SUM),
    "torch.max(x, 0, keepdim=1)": _combination(
        "max", "Tensor, int, keepdim=int",
        "one of:\n * (Tensor input, *, Tensor out = None)\n"
        "      didn't match because some of the keywords were incorrect: keepdim\n"
        " * (Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n"),
    # creation functions
    "torch.full(2.5)": "full(): argument 'size' (position 1) must be tuple of ints, not float",
    "torch.full_like(2.5)": "full_like(): argument 'input' (position 1) must be Tensor, not float",
    "torch.arange()": _combination("arange", "", _ARANGE),
    "torch.linspace(0)": _combination("linspace", "int", _LINSPACE),
    "torch.linspace(x, 'a')": _combination("linspace", "Tensor, str", _LINSPACE),
    "torch.eye()": _combination(
        "eye", "", f"one of:\n * (int n, *, Tensor out = None, {_FACTORY})\n"
                   f" * (int n, int m, *, Tensor out = None, {_FACTORY})\n"),
    # where: one branch without the other, a condition that is no tensor
    "torch.where(x, 1.5)": _combination(
        "where", "Tensor, float",
        "one of:\n * (Tensor condition)\n"
        " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Tensor condition, Number self, Tensor other)\n"
        " * (Tensor condition, Tensor input, Number other)\n"
        " * (Tensor condition, Number self, Number other)\n"),
    "torch.where(2.5)": "where(): argument 'condition' (position 1) must be Tensor, not float",
}


def _raised(source: str, library) -> TypeError:
    x = library.ones(2, 3)
    with pytest.raises(TypeError) as caught:
        eval(source, {"torch": library, "x": x})
    return caught.value


def _without_hint(message: str) -> str:
    return re.sub(r"\n?Hint: .*\Z", "", message, flags=re.S).rstrip("\n")


@pytest.mark.parametrize("source", sorted(CASES))
def test_pytorchs_words(source):
    error = _raised(source, torch)
    assert type(error) is TypeError
    assert _without_hint(str(error)) == CASES[source].rstrip("\n")


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted(CASES))
def test_pytorchs_words_as_pytorch(source):
    real = pytest.importorskip("torch")
    assert str(_raised(source, real)) == CASES[source]


def test_a_list_for_the_input_gets_a_hint():
    with pytest.raises(TypeError) as caught:
        torch.add([1, 2], torch.ones(2))
    assert str(caught.value) == ("add(): argument 'input' (position 1) must be Tensor, not list"
                                 "\nHint: make it a tensor first, e.g. torch.tensor(...).")


def test_the_calls_that_work_are_untouched():
    x = torch.tensor([[1.0, 2.0]])
    assert torch.add(2, x).tolist() == [[3.0, 4.0]]  # (a number for a Tensor: PyTorch's too)
    assert torch.add(x, x, alpha=2).tolist() == [[3.0, 6.0]]
    assert torch.where(x > 1)[1].tolist() == [1]
    assert torch.where(x > 1, x, 0.0).tolist() == [[0.0, 2.0]]
    assert torch.full((2,), 1.5).tolist() == [1.5, 1.5]


def test_functional_softmax_keeps_its_own_words():
    # F.softmax is PyTorch's Python, which calls the method: not torch.softmax's parser
    with pytest.raises(TypeError, match=r"softmax\(\): argument 'dim' \(position 1\) must be "
                                        r"int, not str"):
        torch.nn.functional.softmax(torch.ones(2), "a")


def _wrong_calls(library) -> list[tuple[str, tuple, dict]]:
    x, m = library.ones(2, 3), library.ones(2, 2)
    return [("()", (), {}), ("(x)", (x,), {}), ("(x, 'a')", (x, "a"), {}), ("('a')", ("a",), {}),
            ("(x, x, x, x)", (x, x, x, x), {}), ("(2.5)", (2.5,), {}), ("(None)", (None,), {}),
            ("(x, dim='a')", (x,), {"dim": "a"}), ("(x, 0, keepdim=1)", (x, 0), {"keepdim": 1}),
            ("(x, x, alpha='a')", (x, x), {"alpha": "a"}), ("([1, 2])", ([1, 2],), {}),
            ("(2, 'a')", (2, "a"), {}), ("((2,), 'a')", ((2,), "a"), {}),
            ("((2, 2.5),)", ((2, 2.5),), {}), ("(x, zzz=1)", (x,), {"zzz": 1}),
            ("(x, 1, 2, 3, 4, 5)", (x, 1, 2, 3, 4, 5), {}), ("(m, m, 5, 6)", (m, m, 5, 6), {}),
            ("(x, True)", (x, True), {}), ("(x, (0, 1.5))", (x, (0, 1.5)), {})]


# Wrong calls on which teachgrad's function fails otherwise than PyTorch's parser, left so:
# its own check runs before any parsing (a RuntimeError from inside).
_KNOWN = {"torch.arange(x, x, x, x)", "torch.logspace(x, x, x, x)", "torch.linspace(x, x, x, x)"}


def _outcome(library, name: str, args: tuple, kwargs: dict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            getattr(library, name)(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return type(error).__name__, _without_hint(str(error))
    return None


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_wrong_calls_as_pytorch(name):
    real = pytest.importorskip("torch")
    compared = 0
    for (label, args, kwargs), (_, ours, our_kwargs) in zip(_wrong_calls(real),
                                                            _wrong_calls(torch)):
        if f"torch.{name}{label}" in _KNOWN:
            continue
        theirs = _outcome(real, name, args, kwargs)
        if theirs is None or theirs[0] != "TypeError":
            continue
        mine = _outcome(torch, name, ours, our_kwargs)
        if mine is None:
            continue  # (teachgrad takes more than PyTorch here: a number for a tensor ...)
        assert mine == theirs, f"torch.{name}{label}"
        compared += 1
    assert compared >= 5
