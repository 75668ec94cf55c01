"""Shape ops: view/reshape ... cat, stack, split, flip, repeat, roll, tril/triu."""

from __future__ import annotations

import pytest
from torch_cases import cases, check_case


@pytest.mark.parametrize("case", cases("shape"))
def test_same_as_pytorch(case):
    """Value, dtype, grad_fn graph, views, gradients and errors, as PyTorch recorded them."""
    check_case(case)
