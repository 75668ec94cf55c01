"""Indexing: x[...], x[...] = v, gather/scatter, index_select, masked ops, sort."""

from __future__ import annotations

import pytest
from torch_cases import cases, check_case


@pytest.mark.parametrize("case", cases("index"))
def test_same_as_pytorch(case):
    """Value, dtype, grad_fn graph, views, gradients and errors, as PyTorch recorded them."""
    check_case(case)
