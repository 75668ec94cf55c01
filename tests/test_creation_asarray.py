"""``torch.asarray``: shares memory when it can, with ``copy=`` and ``requires_grad=``.

Expected behaviour is PyTorch's docstring (checked against PyTorch itself when installed).
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch


def test_asarray_shares_a_tensor_unless_asked_to_copy():
    a = torch.tensor([1, 2, 3])
    assert torch.asarray(a) is a
    c = torch.asarray(a, copy=True)
    assert c is not a and c.data_ptr() != a.data_ptr() and c.tolist() == [1, 2, 3]
    array = np.array([1.0, 2.0])
    assert torch.asarray(array).data_ptr() == array.__array_interface__["data"][0]
    copied = torch.asarray(array, copy=True)
    copied[0] = 5.0
    assert array[0] == 1.0  # the copy did not write through


def test_asarray_requires_grad_keeps_detaches_or_sets():
    b = torch.tensor([1.0, 2.0], requires_grad=True) + 2
    assert torch.asarray(b).grad_fn is b.grad_fn  # None: keep obj's history
    assert torch.asarray(b, requires_grad=True).grad_fn is b.grad_fn
    detached = torch.asarray(b, requires_grad=False)
    assert detached.grad_fn is None and not detached.requires_grad
    assert detached.data_ptr() == b.data_ptr()  # still shares memory
    assert type(torch.asarray(b, copy=True).grad_fn).__name__ == "CloneBackward0"
    leaf = torch.tensor([1.0])
    assert torch.asarray(leaf, requires_grad=True) is leaf and leaf.requires_grad


@pytest.mark.parametrize("make, sentence", [
    (lambda: torch.asarray([1, 2], copy=False), "can't alias arbitrary sequence into a tensor."),
    (lambda: torch.asarray(np.array([1, 2]), dtype=torch.float32, copy=False),
     "can't alias tensor with dtype 'Long' into dtype 'Float'."),
    (lambda: torch.asarray(torch.ones(2), dtype=torch.float64, copy=False),
     "can't alias tensor with dtype 'Float' into dtype 'Double'."),
])
def test_asarray_copy_false_refuses_what_cannot_be_shared(make, sentence):
    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value) == sentence


@pytest.mark.torch
def test_asarray_matches_pytorch():
    real = pytest.importorskip("torch")
    for lib in (torch, real):
        assert lib.asarray(np.float64(0.5)).dtype == lib.float64
    cases = [
        lambda lib: lib.asarray([1, 2], dtype=lib.float64),
        lambda lib: lib.asarray(lib.tensor([1.0, 2.0]), dtype=lib.float64, copy=True),
        lambda lib: lib.asarray(np.array([[1, 2]]), requires_grad=False),
    ]
    for case in cases:
        ours, theirs = case(torch), case(real)
        assert ours.tolist() == theirs.tolist() and str(ours.dtype)[10:] == str(theirs.dtype)[6:]
    for make in (lambda lib: lib.asarray([1.0], copy=False),
                 lambda lib: lib.asarray(lib.ones(1), dtype=lib.int64, copy=False)):
        with pytest.raises(ValueError) as ours:
            make(torch)
        with pytest.raises(ValueError) as theirs:
            make(real)
        assert str(ours.value) == str(theirs.value)
