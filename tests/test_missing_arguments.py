"""Calls that miss required arguments get PyTorch's TypeError, naming the method called.

Python's own message named teachgrad's inside (``x.sub_()`` said ``sub()``, ``x.lerp_()``
named ``check_lerp_dtypes()``, ``x.cumsum_()`` said ``cumsum()``, ``x.swapaxes()``
``transpose()``) in Python's words. PyTorch's argument parser says either
``missing 1 required positional arguments: "dim"`` (its plural the wrong way round) or,
for an op with several signatures (or hidden ones), "received an invalid combination of
arguments". The expected messages below are written from PyTorch's signatures
(native_functions.yaml, as its parser prints them); with PyTorch installed, each is also
compared with what PyTorch says.
"""

from __future__ import annotations

import pytest

import teachgrad as torch

_ADD = "but expected (Tensor other, *, Number alpha = 1)"
_BINARY = "but expected one of:\n * (Tensor other)\n * (Number other)\n"


def _combination(name: str, got: str, expected: str) -> str:
    return f"{name}() received an invalid combination of arguments - got ({got}), {expected}"


def _missing(name: str, *names: str) -> str:
    plural = "s" if len(names) == 1 else ""  # (PyTorch's: "1 ... arguments")
    quoted = ", ".join(f'"{n}"' for n in names)
    return f"{name}() missing {len(names)} required positional argument{plural}: {quoted}"


# (a call on x = ones(2, 3), i = tensor([0]); its message)
METHOD_CASES = {
    # the in-place methods (inplace_method)
    "x.sub_()": _combination("sub_", "", _ADD),
    "x.sub_(alpha=2)": _missing("sub_", "other"),  # (one plausible signature: its words)
    "x.mul_()": _missing("mul_", "other"),  # (one signature)
    "x.lt_()": _combination("lt_", "", _BINARY),
    "x.greater_()": _combination("greater_", "", _BINARY),  # (an alias names itself)
    "x.pow_()": _combination(
        "pow_", "", "but expected one of:\n * (Tensor exponent)\n * (Number exponent)\n"),
    "x.lerp_(x)": _combination(
        "lerp_", "Tensor",
        "but expected one of:\n * (Tensor end, Tensor weight)\n * (Tensor end, Number weight)\n"),
    "x.addmm_(x)": _combination(
        "addmm_", "Tensor",
        "but expected (Tensor mat1, Tensor mat2, *, Number beta = 1, Number alpha = 1)"),
    "x.index_add_(0, i)": _missing("index_add_", "source"),
    "x.cumsum_()": _missing("cumsum_", "dim"),
    # in-place shape and logic methods
    "x.transpose_(0)": _missing("transpose_", "dim1"),
    "x.swapaxes_()": _missing("swapaxes_", "axis0", "axis1"),
    "x.logical_and_()": _missing("logical_and_", "other"),
    # methods with NumPy's axis= (numpy_names), tensor-only ones, aliases, factories
    "x.cumsum()": _missing("cumsum", "dim"),
    "x.maximum()": _missing("maximum", "other"),
    "x.atan2()": _missing("atan2", "other"),
    "x.swapaxes(0)": _missing("swapaxes", "axis1"),
    "x.broadcast_to()": _missing("broadcast_to", "size"),
    "x.moveaxis()": _combination(
        "moveaxis", "", "but expected one of:\n * (int source, int destination)\n"
        " * (tuple of ints source, tuple of ints destination)\n"),
    "x.new_full((2,))": _missing("new_full", "fill_value"),
    # the methods PyTorch writes in Python (torch/_tensor.py): Python's own words, naming
    # the method by its qualified name, with the method's parameter names
    "x.split()": "Tensor.split() missing 1 required positional argument: 'split_size'",
    "x.split(dim=1)": "Tensor.split() missing 1 required positional argument: 'split_size'",
    "x.unflatten()": "Tensor.unflatten() missing 2 required positional arguments: 'dim' and "
                     "'sizes'",
    "x.unflatten(0)": "Tensor.unflatten() missing 1 required positional argument: 'sizes'",
    "x.lstsq()": "Tensor.lstsq() missing 1 required positional argument: 'other'",
    "x.solve()": "Tensor.solve() missing 1 required positional argument: 'other'",
    # map_ (its parameter is PyTorch's "other") and nonzero_static's keyword-only size
    "x.map_()": _missing("map_", "other", "callable"),
    "x.map_(x)": _missing("map_", "callable"),
    "x.nonzero_static()": _missing("nonzero_static", "size"),
    "x.nonzero_static(fill_value=2)": _missing("nonzero_static", "size"),
}

FUNCTION_CASES = {
    "torch.atan2()": _missing("atan2", "input", "other"),
    "torch.atan2(x)": _missing("atan2", "other"),
    "torch.atan2(other=x)": _missing("atan2", "input", "other"),  # (PyTorch's count)
    "torch.exp()": _missing("exp", "input"),  # (an out= function)
    "torch.cumsum(x)": _missing("cumsum", "dim"),
    "torch.index_select(x, 0)": _missing("index_select", "index"),
    "torch.nonzero_static(x)": _missing("nonzero_static", "size"),
}


def _raised(source: str, library) -> TypeError:
    x, i = library.ones(2, 3), library.tensor([0])
    with pytest.raises(TypeError) as caught:
        eval(source, {"torch": library, "x": x, "i": i})
    return caught.value


@pytest.mark.parametrize("source", sorted({**METHOD_CASES, **FUNCTION_CASES}))
def test_pytorchs_words(source):
    expected = {**METHOD_CASES, **FUNCTION_CASES}[source]
    assert str(_raised(source, torch)) == expected


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted({**METHOD_CASES, **FUNCTION_CASES}))
def test_pytorch_says_the_same(source):
    real = pytest.importorskip("torch")
    assert str(_raised(source, real)) == str(_raised(source, torch))


def test_other_type_errors_are_left_as_they_are():
    with pytest.raises(TypeError, match="received an invalid combination"):
        torch.ones(2).fill_()  # (PyTorch's own message, written by teachgrad's check)
    with pytest.raises(TypeError, match=r"argument 'other' \(position 1\) must be Tensor"):
        torch.ones(2).maximum(2)
    x = torch.ones(2)
    assert x.sub_(1) is x and x.tolist() == [0.0, 0.0]
    assert torch.atan2(torch.ones(1), other=torch.ones(1)).item() == pytest.approx(0.7853981)
    assert torch.ones(2, 3).swapaxes(0, 1).shape == (3, 2)
    assert torch.ones(1, 3).broadcast_to(2, 3).shape == (2, 3)
    assert torch.ones(2).greater_(0).tolist() == [1.0, 1.0]


# Ops with no wrapper (see _missing_arguments.REQUIRED): a required argument's default is
# REQUIRED and the op tests for it. (a call on x = ones(2, 3); its message)
REQUIRED_CASES = {
    "x.add_()": _combination("add_", "", _ADD),  # (after the optimizers' fast path)
    "x.mm()": _missing("mm", "mat2"),
    # the operators' ops: no test in them (x + y runs that code), _operand's error branch
    "x.add()": _combination("add", "", _ADD),
    "x.add(alpha=2)": _missing("add", "other"),
    "x.mul()": _missing("mul", "other"),
    "x.eq()": _combination("eq", "", _BINARY),
    "x.greater()": _combination("greater", "", _BINARY),  # (the alias's own name)
    "x.multiply()": _combination("multiply", "", _BINARY),
    "x.pow()": _combination(
        "pow", "", "but expected one of:\n * (Tensor exponent)\n * (Number exponent)\n"),
    "x.ger()": _missing("ger", "vec2"),  # (the alias's own name, not outer)
    "x.true_divide_()": _combination(
        "true_divide_", "", "but expected one of:\n * (Tensor other)\n * (Number other)\n"),
    "x.lerp(x)": _combination(
        "lerp", "Tensor",
        "but expected one of:\n * (Tensor end, Tensor weight)\n * (Tensor end, Number weight)\n"),
    "x.addcmul()": _combination(
        "addcmul", "", "but expected (Tensor tensor1, Tensor tensor2, *, Number value = 1)"),
    "x.as_strided()": _missing("as_strided", "size", "stride"),
    "x.index_put_()": _missing("index_put_", "indices", "values"),
    "x.heaviside()": _missing("heaviside", "values"),
    "x.polygamma()": _missing("polygamma", "n"),
    "x.orgqr()": _missing("orgqr", "input2"),  # (PyTorch's parameter names)
    "x.quantile()": _combination(
        "quantile", "", "but expected one of:\n"
        ' * (Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n'
        ' * (float q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n'),
    "x.copy_()": _combination(
        "copy_", "", "but expected (Tensor other, bool non_blocking = False)"),
    # shapes as *size: no size at all is a missing argument, () an empty shape
    "x.tile()": _missing("tile", "dims"),
    "x.new_ones()": _missing("new_ones", "size"),
    "x.sum_to_size()": _missing("sum_to_size", "size"),
    "x.clone().resize_()": _missing("resize_", "size"),
    # the functions: PyTorch's words from their signatures (teachgrad/_function_signatures)
    "torch.mm(x)": _combination(
        "mm", "Tensor", "but expected one of:\n"
        " * (Tensor input, Tensor mat2, *, Tensor out = None)\n"
        " * (Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)\n"),
    "torch.dot(x)": _missing("dot", "tensor"),
}


@pytest.mark.parametrize("source", sorted(REQUIRED_CASES))
def test_ops_without_a_wrapper(source):
    assert str(_raised(source, torch)) == REQUIRED_CASES[source]
    assert type(_raised(source, torch)) is TypeError  # (PyTorch's type, no subclass)


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted(REQUIRED_CASES))
def test_ops_without_a_wrapper_as_pytorch(source):
    real = pytest.importorskip("torch")
    assert str(_raised(source, real)) == str(_raised(source, torch))


def test_python_words_list_three_names_as_python_does():
    from teachgrad._missing_arguments import python_missing_message

    assert python_missing_message("Tensor.f", ["a", "b", "c"]) == (
        "Tensor.f() missing 3 required positional arguments: 'a', 'b', and 'c'")


def test_the_fixed_methods_still_work():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert [p.tolist() for p in x.split(1)] == [[[1.0, 2.0]], [[3.0, 4.0]]]
    assert x.unflatten(1, (2, 1)).shape == (2, 2, 1)
    y = x.clone()
    assert y.map_(x, lambda a, b: a * b) is y and y.tolist() == [[1.0, 4.0], [9.0, 16.0]]
    assert torch.tensor([0, 3, 0, 5]).nonzero_static(size=3).tolist() == [[1], [3], [-1]]


def test_required_defaults_leave_the_calls_that_work_alone():
    x = torch.tensor([[1.0, 2.0]])
    assert x.add(1).tolist() == [[2.0, 3.0]] and (x + 1).tolist() == [[2.0, 3.0]]
    assert x.mm(x.t()).item() == 5.0  # (1·1 + 2·2)
    assert torch.tensor([1.0, 2.0]).ger(torch.tensor([1.0])).tolist() == [[1.0], [2.0]]
    assert x.greater(1.5).tolist() == [[False, True]] and (x > 1.5).tolist() == [[False, True]]
    assert x.multiply(3).tolist() == [[3.0, 6.0]] and x.pow(2).tolist() == [[1.0, 4.0]]
    y = torch.ones(2)
    assert y.add_(torch.ones(2), alpha=2) is y and y.tolist() == [3.0, 3.0]
    assert torch.add(x, other=x).tolist() == [[2.0, 4.0]]
    assert x.tile(()).shape == (1, 2) and x.sum_to_size(()).item() == 3.0
    assert x.clone().resize_(()).shape == () and x.new_ones(()).shape == ()
