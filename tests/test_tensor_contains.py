"""``element in tensor``, as PyTorch's ``Tensor.__contains__``: any element equal to it.

Without it Python fell back to iterating over the rows, so a tensor searched in a matrix
compared whole rows and raised 'Boolean value of Tensor with more than one value is
ambiguous' (PyTorch answers True when any row element matches, by broadcasting).
"""

from __future__ import annotations

import pytest

import teachgrad as torch


def test_numbers_and_tensors_are_found_by_broadcast_comparison():
    assert 2.0 in torch.tensor([1.0, 2.0])
    assert 2.5 not in torch.tensor([1, 2])
    assert torch.tensor(2.0) in torch.tensor([[1.0, 2.0]])
    assert torch.tensor([1, 2]) in torch.tensor([[1, 2], [3, 4]])
    assert True in torch.tensor([1.0, 0.0])
    assert 1 not in torch.zeros(0)
    assert float("nan") not in torch.tensor([float("nan")])  # nan equals nothing


def test_other_things_are_refused_with_pytorchs_error():
    with pytest.raises(RuntimeError, match=r"^Tensor.__contains__ only supports Tensor or "
                                           r"scalar, but you passed in a <class 'list'>\.$"):
        [1] in torch.ones(2)  # noqa: B015 - the membership test is what is tested


@pytest.mark.torch
def test_same_as_pytorch():
    real = pytest.importorskip("torch")
    for lib_results in [[]]:
        for lib in (real, torch):
            t = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
            lib_results.append([2.0 in t, 5 in t, lib.tensor([3.0, 4.0]) in t,
                                lib.tensor([[9.0], [4.0]]) in t, 2 in t.int()])
        assert lib_results[0] == lib_results[1]
