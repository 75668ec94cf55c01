"""What the lesson claims tests (tests/test_lesson_NN_claims.py) share.

A claims test checks that a lesson's code, run with the real PyTorch, prints what the
stored notebook shows teachgrad printed, and that each sentence of its prose is true. The
lesson itself is a :class:`lesson_source.Lesson` (its source, its notebook, its cells run
headless with teachgrad or PyTorch); this module adds what the tests need around it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import teachgrad

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "notebooks" / "tools"))
from lesson_source import (  # noqa: E402  (notebooks/tools, put on the path just above)
    RAISES,
    Lesson,
    count_printing_as_stored,
)

__all__ = ["LIBS", "RAISES", "Lesson", "array", "count_printing_as_stored", "library",
           "numeric_gradient"]

#: run a test once with teachgrad and once with PyTorch (skipped without it) as ``torch``
LIBS = pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])


def library(name: str):
    """teachgrad, or PyTorch (the test skips when it is not installed)."""
    return teachgrad if name == "teachgrad" else pytest.importorskip("torch")


def array(t) -> np.ndarray:
    """A tensor of either library as a float64 NumPy array."""
    return t.detach().numpy().astype(np.float64)


def numeric_gradient(f, x, h: float = 1e-6) -> np.ndarray:
    """The gradient of the number f(x) by central differences, in float64."""
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(*x.shape):
        step = np.zeros_like(x)
        step[index] = h
        grad[index] = (f(x + step) - f(x - step)) / (2 * h)
    return grad
