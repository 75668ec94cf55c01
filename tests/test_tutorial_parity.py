"""What PyTorch's tutorials print, teachgrad prints: fixes found by running tutorials and
doc pages (the autograd fundamentals, forward-mode AD, hooks, saving, schedulers ...)
under both libraries and comparing their output line by line.

Expectations are derived by hand or from the definition; where PyTorch is installed, the
same cases are also compared with it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import teachgrad as torch
from teachgrad._aten_random import FUSED_MULTIPLY_ADD


def _bits(values) -> list[int]:
    array = np.asarray(values)
    return array.view(np.int32 if array.dtype == np.float32 else np.int64).tolist()


# ---------------------------------------------------------------------------------------
# linspace and logspace: PyTorch's CPU arithmetic, to the last bit
# ---------------------------------------------------------------------------------------
def _linspace_by_definition(start: float, end: float, steps: int) -> np.ndarray:
    """float32 linspace from PyTorch's kernel: step = (end - start) / (steps - 1) in
    float32; the first half start + step·i, the second end - step·(steps-1-i), each
    rounded once (fused) or twice (product, then sum), as the build computes it."""
    first, last = np.float32(start), np.float32(end)
    step = np.float32((last - first) / np.float32(steps - 1))
    values = []
    for i in range(steps):
        origin, factor = (first, i) if i < steps // 2 else (last, -(steps - 1 - i))
        if FUSED_MULTIPLY_ADD:
            exact = Fraction(float(origin)) + Fraction(float(step)) * factor
            values.append(np.float32(float(exact)))  # (via float64: no tie in these cases)
        else:
            values.append(np.float32(origin + np.float32(step * np.float32(factor))))
    return np.array(values, dtype=np.float32)


@pytest.mark.parametrize("start, end, steps", [(0.0, 2 * math.pi, 25), (-3.0, 7.0, 29),
                                               (0.1, 0.9, 31), (-1.0, 1.0, 100)])
def test_linspace_is_pytorchs_to_the_last_bit(start, end, steps):
    # The autograd tutorial prints sin(linspace(0, 2π, 25)): NumPy's float64 linspace
    # rounded to float32 is one bit off at [7], and sin's near-zero values show it.
    got = torch.linspace(start, end, steps).numpy()
    assert _bits(got) == _bits(_linspace_by_definition(start, end, steps))
    assert got[0] == np.float32(start) and got[-1] == np.float32(end)  # both ends exact


def test_linspace_counts_down_from_the_end_in_its_second_half():
    # step = 1/3 is inexact, so 0 + 3·step and 1 - 0·step differ in where they round:
    # the last value is exactly `end`, the middle one comes from the end side.
    values = torch.linspace(0.0, 1.0, 4, dtype=torch.float64).tolist()
    step = 1.0 / 3.0
    assert values == [0.0, step, 1.0 - step, 1.0]


def test_linspace_special_sizes_and_dtypes():
    assert torch.linspace(2.0, 5.0, 1).tolist() == [2.0]  # one step: start, not end
    assert torch.linspace(0.0, 1.0, 0).shape == (0,)
    assert torch.linspace(0, 10, 4, dtype=torch.int64).tolist() == [0, 3, 6, 10]  # truncated
    assert torch.linspace(1.0, 3.0, 5, dtype=torch.float16).tolist() == [1.0, 1.5, 2.0, 2.5, 3.0]


def test_logspace_uses_the_c_librarys_pow():
    values = torch.logspace(0.0, 2.0, 5, dtype=torch.float64).tolist()
    expected = [math.pow(10.0, e) for e in (0.0, 0.5, 2.0 - 0.5 * 2, 2.0 - 0.5, 2.0)]
    assert values == expected
    assert torch.logspace(0.1, 1.0, 1, dtype=torch.float64).tolist() == [math.pow(10.0, 0.1)]
    assert torch.logspace(-2, 2, 5, base=-2.0).tolist() == [0.25, -0.5, 1.0, -2.0, 4.0]
    assert torch.logspace(0, 400, 3).tolist() == [1.0, math.inf, math.inf]


@pytest.mark.torch
def test_linspace_and_logspace_match_pytorch_bit_for_bit():
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for _ in range(200):
        steps = int(rng.integers(0, 400))
        start, end = (float(v) for v in rng.normal(size=2) * rng.choice([1, 10, 1000]))
        for name in ("float32", "float64", "int64", "float16"):
            mine = torch.linspace(start, end, steps, dtype=getattr(torch, name)).numpy()
            theirs = real.linspace(start, end, steps, dtype=getattr(real, name)).numpy()
            assert mine.tobytes() == theirs.tobytes(), (start, end, steps, name)
        for name in ("float32", "float64"):
            base = float(rng.choice([10.0, 2.0, math.e]))
            mine = torch.logspace(start / 100, end / 100, steps, base=base,
                                  dtype=getattr(torch, name)).numpy()
            theirs = real.logspace(start / 100, end / 100, steps, base=base,
                                   dtype=getattr(real, name)).numpy()
            assert mine.tobytes() == theirs.tobytes(), (start, end, steps, base, name)
