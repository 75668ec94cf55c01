"""In-place methods called without their arguments name themselves, as PyTorch's do.

They run an out-of-place op (or a check before it) inside, so Python's missing-argument
TypeError used to name that: ``x.sub_()`` said ``sub()``, ``x.lerp_()`` named
``check_lerp_dtypes()``, ``x.eq_()`` ``_comparison_method.<locals>.op()``."""

from __future__ import annotations

import pytest

import teachgrad as torch

CASES = {
    "add_": "missing 1 required positional argument: 'other'",
    "sub_": "missing 1 required positional argument: 'other'",
    "mul_": "missing 1 required positional argument: 'other'",
    "div_": "missing 1 required positional argument: 'other'",
    "eq_": "missing 1 required positional argument: 'other'",
    "lt_": "missing 1 required positional argument: 'other'",
    "pow_": "missing 1 required positional argument: 'exponent'",
    "copy_": "missing 1 required positional argument: 'src'",
    "lerp_": "missing 2 required positional arguments: 'end' and 'weight'",
    "index_add_": "missing 3 required positional arguments: 'dim', 'index' and 'source'",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_method_names_itself(name):
    with pytest.raises(TypeError) as caught:
        getattr(torch.ones(2), name)()
    assert str(caught.value) == f"{name}() {CASES[name]}"


def test_other_type_errors_are_left_as_they_are():
    with pytest.raises(TypeError, match="received an invalid combination"):
        torch.ones(2).fill_()  # (PyTorch's own message, written by teachgrad's check)
    x = torch.ones(2)
    assert x.sub_(1) is x and x.tolist() == [0.0, 0.0]


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_pytorch_names_the_same_method(name):
    real = pytest.importorskip("torch")
    with pytest.raises(TypeError) as caught:
        getattr(real.ones(2), name)()
    assert str(caught.value).startswith(f"{name}() ")  # (its wording of the rest differs)
