"""Arguments of the wrong type get PyTorch's TypeError, named as its argument parser names
them (``teachgrad/_arguments.py``), not a NumPy traceback or a silent wrong result.

The first test compares each case's type and whole message with PyTorch's (teachgrad may
add a "Hint:" line); the others need no PyTorch: the error is a TypeError that names the
argument, and the parser's rules (one int for ``int[1]``, ints one by one, a 0-d integer
tensor as an int ...) decide as PyTorch's do.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgrad
from teachgrad._arguments import Signatures, checks_types

# (each is run with lib = teachgrad and lib = torch, x = lib.ones(2, 3))
CASES = [
    # reductions
    "x.sum('a')", "x.mean(dim='a')", "torch.sum(x, 'a')", "x.sum(True)",
    "x.max('a')", "x.prod('a')", "x.argmax('a')", "x.argmax(1.0)", "x.cumsum('a')",
    "x.cumsum(1.0)", "x.logsumexp('a')", "x.std('a')", "torch.var(x, 1.5)",
    "x.sum(dim=0, keepdim=1, dtype=1)", "torch.max(x, 'a')", "torch.min(x, 'a')",
    "torch.prod(x, 'a')", "torch.cumsum(x, 'a')", "x.all('a')", "x.amax('a')",
    # shapes
    "x.reshape('a')", "x.reshape((2, 'a'))", "x.reshape([2, 3.0])", "x.view(2.5, 2)",
    "x.view(2, 3.0)", "x.permute(0, 'a')", "x.transpose(0, 'a')", "x.transpose(0, True)",
    "x.transpose(0, None)", "x.flatten('a')", "x.flatten(0, 1.0)", "x.unsqueeze(1.5)",
    "x.unsqueeze(dim='a')", "x.unsqueeze(True)", "x.squeeze('a')", "x.expand('a')",
    "x.expand(2, 3.0)", "x.repeat('a')", "x.repeat(2, 1.0)", "x.narrow(0, 'a', 1)",
    "x.narrow(0, 0, 1.5)", "x.split('a')", "x.split(1.5)", "x.chunk(2.0)",
    "torch.transpose(x, 0, 'a')", "torch.reshape(x, 'a')", "torch.clamp(x, 'a')",
    "x.chunk(chunks=2.0)", "x.flip('a')", "x.roll('a')",
    # indexing and sorting
    "x.gather(0, 'a')", "x.gather(0, [[0]])", "x.index_select(0, [0])",
    "torch.index_select(x, 0, [0])", "x.topk('a')", "x.topk(1.5)",
    "x.sort('a')", "torch.sort(x, 'a')",
    # factories
    "torch.zeros('a')", "torch.ones(2, 'a')", "torch.zeros((2, 'a'))", "torch.randn(2.5)",
    "torch.randn(2, 3.0)", "torch.rand(2.5)", "torch.empty(2.5)", "torch.arange('a')",
    "torch.arange(0, 'a')", "torch.full(2, 1.0)", "torch.full((2.,), 1.)",
    "torch.full((2,), 'a')", "x.new_zeros('a')", "x.new_ones('a')", "x.new_full(2, 1.)",
    "x.new_full((2,), 'a')", "torch.nn.Linear('a', 2)", "torch.nn.Linear(2, 3.0)",
    "torch.randn(2, requires_grad=1)", "torch.rand(2, 3, requires_grad=1)",
    "torch.arange(3, requires_grad=1)", "torch.eye(2, requires_grad=1)",
    # functions and methods
    "x.softmax('a')", "x.softmax(1.0)", "x.softmax(0, 'a')", "torch.softmax(x, 'a')",
    "torch.nn.functional.softmax(x, 'a')", "torch.nn.functional.log_softmax(x, 'a')",
    "x.log_softmax('a')", "x.matmul('a')", "torch.nn.functional.relu('a')",
    "torch.nn.functional.relu(1)", "torch.nn.functional.cross_entropy(x, 'a')",
    "torch.nn.functional.cross_entropy('a', x)", "x.add(x, alpha='a')",
    "x.sub(x, alpha='a')", "torch.add(x, x, alpha='a')", "x.add(x, alpha=[1])",
    "x.fill_('a')", "x.fill_([1])", "torch.einsum(1, x)", "x.clamp('a')",
    "x.clamp(min='a')", "x.masked_fill(x > 0, 'a')", "x.where(x > 0, 'a')",
]


def _error(lib, case: str) -> Exception:
    x = lib.ones(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            eval(case, {"torch": lib, "x": x})
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return error
    raise AssertionError(f"{case} raised nothing with {lib.__name__}")


def _without_hint(message: str) -> str:
    return message.split("Hint: ")[0].rstrip("\n")


@pytest.mark.parametrize("case", CASES)
def test_same_error_as_pytorch(case):
    torch = pytest.importorskip("torch")
    theirs, ours = _error(torch, case), _error(teachgrad, case)
    assert type(ours) is type(theirs) is TypeError, (ours, theirs)
    assert _without_hint(str(ours)) == str(theirs).rstrip("\n")


# ---- without PyTorch: the error names the argument -------------------------------------
@pytest.mark.parametrize("case, argument", [
    ("x.transpose(0, 'a')", "'dim1' (position 2) must be int, not str"),
    ("x.unsqueeze(1.5)", "'dim' (position 1) must be int, not float"),
    ("x.chunk(2.0)", "'chunks' (position 1) must be int, not float"),
    ("x.topk(1.5)", "'k' (position 1) must be int, not float"),
    ("x.index_select(0, [0])", "'index' (position 2) must be Tensor, not list"),
    ("torch.randn(2.5)", "'size' (position 1) must be tuple of ints, not float"),
    ("torch.full(2, 1.0)", "'size' (position 1) must be tuple of ints, not int"),
    ("x.add(x, alpha='a')", "'alpha' must be Number, not str"),
    ("torch.einsum(1, x)", "'equation' (position 1) must be str, not int"),
    ("x.new_zeros('a')", "'size' (position 1) must be tuple of ints, not str"),
    ("torch.nn.functional.relu('a')", "'input' (position 1) must be Tensor, not str"),
])
def test_wrong_type_is_a_type_error_naming_the_argument(case, argument):
    error = _error(teachgrad, case)
    assert isinstance(error, TypeError)
    assert f"(): argument {argument}" in str(error)


@pytest.mark.parametrize("case", [
    "x.sum('a')", "x.view(2.5, 2)", "x.max('a')", "x.squeeze('a')", "x.fill_('a')",
    "x.narrow(0, 'a', 1)", "x.clamp('a')", "x.std('a')",
])
def test_several_signatures_list_them_all(case):
    message = str(_error(teachgrad, case))
    assert "received an invalid combination of arguments - got (" in message
    assert message.count("\n * (") >= 2


def test_list_operand_is_refused():
    x = teachgrad.ones(2, 3)
    with pytest.raises(TypeError, match="Hint: make the list a tensor first"):
        x * [1, 2, 3]


def test_ints_one_by_one_only_for_the_only_positional_tuple():
    view = Signatures("view", "(tuple of ints size)")
    full = Signatures("full", "(tuple of ints size, Number fill_value)")
    assert view.error((2, 3)) is None and view.error(((2, 3),)) is None
    assert "failed to unpack the object at pos 2" in str(view.error((2, "a")))
    assert full.error(((2,), 1.0)) is None
    assert "must be tuple of ints, not int" in str(full.error((2, 1.0)))


def test_int_list_of_one_takes_one_int_and_none_when_marked():
    dims = Signatures("sum", "(tuple of ints[1]? dim, bool keepdim = False)")
    assert dims.error((0,)) is None and dims.error((None,)) is None
    assert dims.error(((0, 1), True)) is None
    assert "argument 'keepdim' (position 2) must be bool, not int" in str(dims.error((0, 1)))


def test_what_counts_as_an_int_and_a_number():
    dim = Signatures("f", "(int dim)")
    number = Signatures("g", "(Number value)")
    assert dim.error((np.int64(1),)) is None
    assert dim.error((teachgrad.tensor(1),)) is None  # a 0-d integer tensor
    assert "must be int, not bool" in str(dim.error((True,)))
    assert "must be int, not float" in str(dim.error((1.0,)))
    assert "must be int, not Tensor" in str(dim.error((teachgrad.tensor([1]),)))
    assert number.error((2.5,)) is None and number.error((teachgrad.tensor(2.0),)) is None
    needs_grad = teachgrad.tensor(2.0, requires_grad=True)
    assert "must be Number, not Tensor" in str(number.error((needs_grad,)))


def test_keywords_count_and_are_named():
    sort = Signatures("sort", "(*, bool stable, int dim = -1)", "(int dim = -1)")
    message = str(sort.error((), {"dim": "a"}))
    assert message.startswith(
        "sort() received an invalid combination of arguments - got (dim=str, ), but expected "
        "one of:\n * (*, bool stable, int dim = -1)")
    one = Signatures("f", "(int dim)")
    assert str(one.error((), {"dim": 1, "other": 2})) == (
        "f() got an unexpected keyword argument 'other'")
    assert str(one.error((1, 2))) == "f() takes 1 positional argument but 2 were given"


def test_checked_op_passes_other_failures_through_and_names_the_method_form():
    @checks_types("pick", "(int dim)")
    def pick(x, dim):
        if dim > 5:
            raise IndexError("out of range")  # the arguments fit: this error stays
        return dim + "no"  # a wrong type fails inside

    x = teachgrad.ones(2)
    with pytest.raises(IndexError, match="out of range"):
        pick(x, 9)
    with pytest.raises(TypeError, match=r"^pick\(\): argument 'dim' \(position 2\) must be int, "
                                        r"not str$"):
        pick(x, "a")
    with pytest.raises(TypeError, match=r"\(position 1\) must be int, not str$"):
        pick.method_form(x, "a")


def test_hint_goes_after_pytorchs_message():
    error = _error(teachgrad, "x.prod('a')")
    assert str(error).startswith("prod() received an invalid combination")
    assert "\nHint: prod reduces over one dimension" in str(error)


def test_correct_calls_still_work():
    x = teachgrad.ones(2, 3)
    assert x.sum(teachgrad.tensor(1)).shape == (2,)
    assert x.sum((0, np.int64(1))).shape == ()
    assert x.view(teachgrad.tensor(3), 2).shape == (3, 2)
    assert x.transpose(0, np.int64(1)).shape == (3, 2)
    assert teachgrad.zeros(teachgrad.tensor(2)).shape == (2,)
    assert x.new_zeros(2).shape == (2,) and x.flip(0).shape == (2, 3)
    assert teachgrad.nn.Linear(2, 3).weight.shape == (3, 2)
