"""Grad-mode switches (no_grad, enable_grad, inference_mode) used as decorators.

Expected behaviour: PyTorch 2's (``@torch.no_grad`` works with and without parentheses).
"""

from __future__ import annotations

import pytest

import teachgrad


@pytest.mark.parametrize("mode, grad_inside", [
    (teachgrad.no_grad, False), (teachgrad.enable_grad, True),
    (teachgrad.inference_mode, False),
])
def test_grad_modes_decorate_without_parentheses(mode, grad_inside):
    # PyTorch 2 accepts @torch.no_grad as well as @torch.no_grad().
    @mode
    def double(t):
        return t * 2

    x = teachgrad.ones(1, requires_grad=True)
    with teachgrad.set_grad_enabled(not grad_inside):
        assert double(x).requires_grad == grad_inside
    assert double.__name__ == "double"
