"""Factories that take a ``Number`` (``full``'s fill value, ``arange``'s ends) accept a tensor
only as PyTorch's argument parser does: 0-d and needing no gradient, read as a number.

A tensor that requires grad cannot pass its gradient through such an argument, so PyTorch
refuses it rather than silently cutting the graph; so does teachgrad.
"""

from __future__ import annotations

import warnings

import pytest

import teachgrad as torch

CALLS = [
    "torch.full((2,), a)",
    "torch.full((2,), b)",
    "torch.full((2,), torch.tensor([2.0]))",
    "torch.full_like(torch.ones(2), a)",
    "torch.full_like(torch.ones(2), b)",
    "torch.arange(a)",
    "torch.arange(b)",
    "torch.arange(torch.tensor([3.0]))",
    "torch.arange(0, a)",
    "torch.arange(b, 5)",
    "torch.arange(0, 5, a)",
]


def outcome(lib, call: str):
    scope = {"torch": lib, "a": lib.tensor(2.0, requires_grad=True), "b": lib.tensor(3.0)}
    try:
        return eval(call, scope).tolist()
    except TypeError as e:
        return str(e).split("\n")[0]


def test_a_tensor_that_requires_grad_is_refused_with_pytorchs_words():
    assert outcome(torch, "torch.full((2,), a)") == (
        "full(): argument 'fill_value' (position 2) must be Number, not Tensor")
    assert outcome(torch, "torch.arange(a)") == (
        "arange(): argument 'end' (position 1) must be Number, not Tensor")
    assert outcome(torch, "torch.arange(0, a)") == (
        "arange() received an invalid combination of arguments - got (int, Tensor), but "
        "expected one of:")
    with pytest.raises(TypeError, match="Hint: pass a plain number"):
        torch.full_like(torch.ones(2), torch.tensor(1.0, requires_grad=True))


def test_a_0d_tensor_without_gradient_is_read_as_its_number_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert outcome(torch, "torch.full((2,), b)") == [3.0, 3.0]
        assert outcome(torch, "torch.arange(b)") == [0.0, 1.0, 2.0]
        assert outcome(torch, "torch.arange(b, 5)") == [3.0, 4.0]


def test_a_one_element_vector_is_not_a_number():
    assert outcome(torch, "torch.full((2,), torch.tensor([2.0]))").startswith(
        "full(): argument 'fill_value' (position 2) must be Number")


@pytest.mark.torch
@pytest.mark.parametrize("call", CALLS)
def test_same_outcome_as_pytorch(call):
    real = pytest.importorskip("torch")
    assert outcome(torch, call) == outcome(real, call)
