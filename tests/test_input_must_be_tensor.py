"""A namespace function given a list (or None, or a string) where its ``input`` tensor goes
says so in PyTorch's words, instead of ``'list' object has no attribute '_data'``.

The expected message is PyTorch's argument-parser sentence, written out here; with PyTorch
installed, every namespace function that PyTorch refuses a list for is checked to give
teachgrad's the same first line.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import teachgrad


@pytest.mark.parametrize(("name", "more"), [
    ("sum", ()), ("exp", ()), ("argmax", ()), ("amax", ()), ("flatten", ()), ("sigmoid", ()),
    ("relu", ()), ("cumsum", (0,)), ("transpose", (0, 1)), ("softmax", (0,)),
])
def test_a_list_is_refused_in_pytorchs_words(name, more):
    with pytest.raises(TypeError) as error:
        getattr(teachgrad, name)([1.0, 2.0], *more)
    sentence = str(error.value).split("\n")[0]
    assert sentence == f"{name}(): argument 'input' (position 1) must be Tensor, not list"


def test_other_types_and_keywords_are_named():
    with pytest.raises(TypeError, match=r"argmax\(\): argument 'input' \(position 1\) must "
                                        r"be Tensor, not NoneType"):
        teachgrad.argmax(None)
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        teachgrad.amax(input=[1.0])
    with pytest.raises(TypeError, match="must be Tensor, not str"):
        teachgrad.special.expit("a")


def test_what_works_keeps_working():
    x = teachgrad.tensor([1.0, 2.0])
    assert teachgrad.exp(x).tolist() == pytest.approx(np.exp([1.0, 2.0]).tolist())
    assert teachgrad.sum(input=x).item() == 3.0
    assert teachgrad.pow(2, x).tolist() == [2.0, 4.0]  # a number first: PyTorch takes it
    # an alias runs the same code as its main function, in a wrapper of its own that
    # names it (as in PyTorch, torch.arcsin is not torch.asin)
    assert inspect.unwrap(teachgrad.arcsin) is inspect.unwrap(teachgrad.asin)
    assert teachgrad.arcsin(x / 4).tolist() == teachgrad.asin(x / 4).tolist()


def test_other_errors_pass_through_unchanged():
    x = teachgrad.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="received an invalid combination of arguments"):
        teachgrad.sum(x, dim="a")
    with pytest.raises(TypeError, match="zeros\\(\\): argument 'size'"):
        teachgrad.zeros("a")
    with pytest.raises(TypeError, match="cat\\(\\): argument 'tensors'"):
        teachgrad.cat(5)


def _namespace_functions():
    for name in sorted(dir(teachgrad)):
        value = getattr(teachgrad, name)
        if not name.startswith("_") and inspect.isfunction(value):
            yield name, value


def test_every_input_function_gets_the_message_for_a_list():
    """Every namespace function whose first parameter is ``input`` and that fails on a list
    fails with PyTorch's sentence (not an AttributeError from inside)."""
    checked = 0
    for name, function in _namespace_functions():
        parameters = list(inspect.signature(function).parameters)
        if not parameters or parameters[0] != "input":
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                function([1.0, 2.0])
            except TypeError as error:
                if "missing" in str(error) and "required" in str(error):
                    continue  # (called with too few arguments: Python's own message)
                assert ("must be Tensor, not list" in str(error)  # (or teachgrad's check of
                        or "received an invalid combination" in str(error)), (name, error)  # all)
                checked += 1
            except AttributeError as error:
                pytest.fail(f"{name}: {error!r}")
            except Exception:  # noqa: S110 - other refusals (RuntimeError ...) are their own
                pass
    assert checked > 100


def test_pytorch_refuses_a_list_with_the_same_sentence():
    torch = pytest.importorskip("torch")
    compared = 0
    for name, function in _namespace_functions():
        real = getattr(torch, name, None)
        if real is None or not callable(real):
            continue
        # (asked first: only functions of a tensor are called with a list; calling them all
        # would run torch.set_printoptions([1.0, 2.0]) too, which changes PyTorch's state)
        if list(inspect.signature(function).parameters)[:1] != ["input"]:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                real([1.0, 2.0])
                continue
            except TypeError as error:
                expected = str(error).split("\n")[0]
            except Exception:
                continue
            if f"{name}(): argument 'input' (position 1) must be Tensor, not list" != expected:
                continue
            with pytest.raises(TypeError) as error:
                function([1.0, 2.0])
            if "required positional argument" in str(error.value):
                continue  # (PyTorch checks types before counting arguments; Python first)
            assert str(error.value).split("\n")[0] == expected
            compared += 1
    assert compared > 100


@pytest.mark.parametrize("name", ["elu", "gelu", "softmax", "log_softmax", "cross_entropy",
                                  "mse_loss", "dropout", "layer_norm", "relu", "linear"])
def test_nn_functional_refuses_a_list_too(name):
    F = teachgrad.nn.functional
    args = {"softmax": (0,), "log_softmax": (0,), "cross_entropy": (teachgrad.tensor([0]),),
            "mse_loss": (teachgrad.ones(2),), "layer_norm": ((2,),),
            "linear": (teachgrad.ones(2, 2),)}.get(name, ())
    with pytest.raises(TypeError) as error:
        getattr(F, name)([1.0, 2.0], *args)
    shown = "cross_entropy_loss" if name == "cross_entropy" else name  # (PyTorch's kernel)
    assert str(error.value).split("\n")[0] == (
        f"{shown}(): argument 'input' (position 1) must be Tensor, not list")


# (the alias called, PyTorch 2.13's sentence for it with a list)
ALIAS_CASES = [
    (lambda t: t.absolute, "absolute(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda t: t.arcsin, "arcsin(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda t: t.negative, "negative(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda t: t.ger, "ger(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda t: t.swapaxes, "swapaxes(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda t: t.special.expit,
     "special_expit(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda t: t.special.psi,
     "special_psi(): argument 'input' (position 1) must be Tensor, not list"),
    # not an alias, but PyTorch's torch.special names every function special_...
    (lambda t: t.special.ndtr,
     "special_ndtr(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda t: t.special.airy_ai,
     "special_airy_ai(): argument 'x' (position 1) must be Tensor, not list"),
    (lambda t: t.nn.functional.logsigmoid,
     "log_sigmoid(): argument 'input' (position 1) must be Tensor, not list"),
]


@pytest.mark.parametrize("index", range(len(ALIAS_CASES)))
def test_an_alias_is_named_as_called(index):
    """``torch.absolute([1.0])`` names ``absolute()``, as PyTorch's does (it said abs())."""
    function, expected = ALIAS_CASES[index]
    with pytest.raises(TypeError) as ours:
        function(teachgrad)([1.0, 2.0])
    assert str(ours.value).split("\nHint: ")[0] == expected
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as theirs:
        function(torch)([1.0, 2.0])
    assert str(theirs.value) == expected


@pytest.mark.parametrize(("call", "expected"), [
    (lambda t, x: t.absolute(x, 1), "absolute() takes 1 positional argument but 2 were given"),
    (lambda t, x: t.negative(x, 1), "negative() takes 1 positional argument but 2 were given"),
    (lambda t, x: t.arctan2(x, "a"),
     "arctan2(): argument 'other' (position 2) must be Tensor, not str"),
    (lambda t, x: t.clip(x, "a"),
     "clip() received an invalid combination of arguments - got (Tensor, str), but expected "
     "one of:"),
])
def test_an_aliases_other_type_errors_name_it_too(call, expected):
    with pytest.raises(TypeError) as ours:
        call(teachgrad, teachgrad.ones(2))
    assert str(ours.value).split("\n")[0] == expected
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as theirs:
        call(torch, torch.ones(2))
    assert str(theirs.value).split("\n")[0] == expected


def test_an_aliases_kernel_errors_name_the_function_itself():
    """PyTorch's out= refusal comes from the kernel: it names abs(), not absolute()."""
    x, out = teachgrad.ones(2, requires_grad=True), teachgrad.empty(2)
    with pytest.raises(RuntimeError, match=r"^abs\(\): functions with out=\.\.\. arguments"):
        teachgrad.absolute(x, out=out)
