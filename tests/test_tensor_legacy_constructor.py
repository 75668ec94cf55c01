"""``torch.Tensor(...)``, PyTorch's legacy constructor: the default floating dtype, and an
alias of a tensor given to it."""

from __future__ import annotations

import pytest

import teachgrad as torch


@pytest.fixture
def float64_default():
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(torch.float32)


def test_data_sizes_and_nothing_take_the_default_floating_dtype(float64_default):
    assert torch.Tensor([1, 2]).dtype == torch.float64  # integers become floats
    assert torch.Tensor(2, 3).dtype == torch.float64 and torch.Tensor(2, 3).shape == (2, 3)
    assert torch.Tensor().dtype == torch.float64 and torch.Tensor().shape == (0,)
    assert torch.FloatTensor([1]).dtype == torch.float32  # a typed constructor keeps its type


def test_the_default_is_float32():
    assert torch.Tensor([1, 2]).dtype == torch.float32


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_a_tensor_given_is_aliased_with_its_own_dtype(dtype, float64_default):
    source = torch.ones(2, dtype=dtype)
    alias = torch.Tensor(source)
    assert alias.dtype == dtype
    assert alias.data_ptr() == source.data_ptr()
    source.add_(1)
    assert alias.tolist() == [2, 2]
