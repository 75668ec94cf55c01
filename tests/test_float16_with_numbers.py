"""float16 tensors times or divided by Python numbers: computed in float32, rounded once,
as PyTorch's mul and div kernels do ("opmath"). NumPy would first round the number to
float16: ``half * 1e5`` gave inf (1e5 is beyond float16's largest, 65504) and ``3 * 0.1``
gave 0.2998 (0.1 rounded first) where PyTorch gives 0.30005. PyTorch's add and sub do round
the number to float16 first, and so does teachgrad."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch


def _half(values):
    return torch.tensor(values, dtype=torch.float16)


def _by_hand(x: float, op) -> float:
    """The exact float16 input, the op in float32, one rounding to float16."""
    return float(np.float16(op(np.float32(np.float16(x)))))


@pytest.mark.parametrize("op", [
    lambda x: x * 1e5, lambda x: x / 1e-6, lambda x: x * 0.1, lambda x: x / 3.3,
    lambda x: x * 70000,
], ids=["*1e5", "/1e-6", "*0.1", "/3.3", "*70000"])
def test_the_number_keeps_its_precision(op):
    values = [0.001, 1.0, 3.0, 0.1, -2.5]
    result = op(_half(values))
    assert result.dtype == torch.float16
    with np.errstate(over="ignore"):  # (inf is the right answer for some: 3 / 1e-6)
        expected = [_by_hand(v, op) for v in values]
    assert result.tolist() == expected


def test_the_cases_that_went_wrong():
    assert (_half([0.001]) * 1e5).tolist() == [100.0625]   # was inf
    assert (_half([3.0]) * 0.1).tolist() == [0.300048828125]  # was 0.2998046875


def test_add_rounds_the_number_to_float16_first():
    # 0.3 and the tensor's 0.3 are the same float16 (0.300048828125), so -x + 0.3 is an
    # exact zero; in float32 it would be -4.9e-05 (PyTorch's copysign test meets this).
    x = _half([0.3])
    assert (-x + 0.3).tolist() == [0.0]
    assert (x - 0.3).tolist() == [0.0]


def test_gradients_come_back_as_float16():
    x = _half([0.5, 2.0]).requires_grad_()
    (x * 1e5).sum().backward()
    assert x.grad.dtype == torch.float16
    assert x.grad.tolist() == [float(np.float16(1e5))] * 2  # inf: 1e5 is no float16


def test_two_float16_tensors_and_comparisons_are_unchanged():
    a, b = _half([0.1, 3.0]), _half([0.2, 7.0])
    assert (a * b).tolist() == [float(np.float16(0.1) * np.float16(0.2)), 21.0]
    assert (_half([0.1]) == 0.1).tolist() == [True]  # PyTorch compares in float16
    assert (_half([0.1]) < 0.1).tolist() == [False]


@pytest.mark.torch
def test_the_same_as_pytorch():
    real = pytest.importorskip("torch")
    calls = ["x * 1e5", "x / 1e-6", "x + 1e-4", "x * 0.1", "x - 70000.0", "x ** 2.5",
             "1e5 * x", "0.1 - x", "x * 70000", "x * T.tensor(1e5)", "T.tensor(1e5) * x",
             "x * T.tensor(0.1, dtype=T.float64)", "x.add(1000.0, alpha=0.001)", "-x + 0.3",
             "x / 3.3", "x / T.tensor(1e-6)", "T.copysign(x, -x + 0.3)",
             "T.where(x > 0.5, x, 0.1)", "x == 0.1", "x < 0.1", "x * x"]
    for call in calls:
        results = []
        for lib in (torch, real):
            x = lib.tensor([0.001, 1.0, 3.0, 0.1, -7.3], dtype=lib.float16)
            y = eval(call, {"x": x, "T": lib})
            results.append((str(y.dtype).split(".")[-1], np.array(y.tolist())))
        assert results[0][0] == results[1][0], call
        np.testing.assert_array_equal(results[0][1], results[1][1], err_msg=call)  # (NaN = NaN)
