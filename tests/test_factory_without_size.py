"""``torch.zeros()`` with no size: PyTorch's TypeError, not a 0-d tensor.

PyTorch's factories have no default size: ``zeros()`` is a TypeError ("missing 1 required
positional arguments", PyTorch's plural), ``randn()`` one that lists its signatures. A
0-d tensor is ``zeros(())``. teachgrad returned a 0-d tensor for all five silently.
"""

from __future__ import annotations

import pytest

import teachgrad as torch

_LISTED = ("received an invalid combination of arguments - got (), but expected one of:\n"
           " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, "
           "torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
           "None, bool pin_memory = False, bool requires_grad = False)\n"
           " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, "
           "torch.layout layout = None, torch.device device = None, bool pin_memory = "
           "False, bool requires_grad = False)\n")

# (call, PyTorch's message up to the Hint line; written from PyTorch 2.13's output)
CASES = [
    (lambda t: t.zeros(), 'zeros() missing 1 required positional arguments: "size"'),
    (lambda t: t.ones(), 'ones() missing 1 required positional arguments: "size"'),
    (lambda t: t.empty(), 'empty() missing 1 required positional arguments: "size"'),
    (lambda t: t.zeros(dtype=t.float64),
     'zeros() missing 1 required positional arguments: "size"'),
    (lambda t: t.ones(requires_grad=True),
     'ones() missing 1 required positional arguments: "size"'),
    (lambda t: t.empty(memory_format=t.contiguous_format),
     'empty() missing 1 required positional arguments: "size"'),
    (lambda t: t.randn(), "randn() " + _LISTED),
    (lambda t: t.rand(), "rand() " + _LISTED),
    # one keyword: only the second signature can fit, and PyTorch says what it lacks
    (lambda t: t.randn(dtype=t.float32),
     'randn() missing 1 required positional arguments: "size"'),
    (lambda t: t.rand(generator=t.Generator()),
     'rand() missing 1 required positional arguments: "size"'),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_no_size_is_pytorchs_type_error(index):
    call, expected = CASES[index]
    with pytest.raises(TypeError) as caught:
        call(torch)
    message = str(caught.value)
    first, _, hint = message.partition("\nHint: ")
    assert first == expected.rstrip("\n")
    assert "(())" in hint  # the hint says how to ask for a 0-d tensor


@pytest.mark.parametrize("index", range(len(CASES)))
def test_no_size_matches_torch(index):
    real = pytest.importorskip("torch")
    call, expected = CASES[index]
    with pytest.raises(TypeError) as theirs:
        call(real)
    with pytest.raises(TypeError) as ours:
        call(torch)
    assert str(theirs.value) == expected
    assert str(ours.value).split("\nHint: ")[0] == str(theirs.value).rstrip("\n")


def test_empty_shape_still_makes_a_0d_tensor():
    for make in (torch.zeros, torch.ones, torch.empty, torch.rand, torch.randn):
        assert make(()).shape == () and make([]).dim() == 0
    assert torch.ones(()).item() == 1.0


_RANDINT_START = "randint() received an invalid combination of arguments - got ({}), but"


@pytest.mark.parametrize("call, got", [
    (lambda t: t.randint(), ""),
    (lambda t: t.randint(5), "int"),
    (lambda t: t.randint(size=(2,)), "size=tuple, "),
])
def test_randint_without_enough_arguments(call, got):
    with pytest.raises(TypeError) as caught:
        call(torch)
    assert str(caught.value).startswith(_RANDINT_START.format(got))
    real = pytest.importorskip("torch")
    with pytest.raises(TypeError) as theirs:
        call(real)
    assert str(caught.value).split("\nHint: ")[0] == str(theirs.value).rstrip("\n")


def test_randint_takes_high_and_size_by_keyword():
    values = torch.randint(high=3, size=(50,))
    assert values.shape == (50,) and values.dtype == torch.int64
    assert values.min().item() >= 0 and values.max().item() <= 2


def test_missing_two_arguments_uses_pytorchs_singular():
    """PyTorch says "missing 2 required positional argument" (its plural is reversed)."""
    from teachgrad._arguments import Signatures

    error = Signatures("full", "(tuple of ints size, Number fill_value)").error(
        (), {"fill_value": 2})
    assert str(error) == 'full() missing 2 required positional argument: "size", "fill_value"'
    real = pytest.importorskip("torch")
    with pytest.raises(TypeError) as theirs:
        real.full(fill_value=2)
    assert str(theirs.value) == str(error)
