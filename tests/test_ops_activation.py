"""softmax and log_softmax: values, gradients, numerical stability, graphs and errors.

The recorded cases (values, gradients, grad_fn structure, messages) come from real PyTorch
(fixtures/make_op_graphs.py); the rest is checked against NumPy and finite differences.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

CASES = [c for c in json.loads((Path(__file__).parent / "fixtures" / "op_graphs.json")
                               .read_text()) if c["family"] == "activation"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"].split(":")[1])
def test_matches_pytorch_recording(case, check_op_case):
    check_op_case(case)


X = np.random.default_rng(3).standard_normal((3, 4, 5))


def _np_softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_values_match_numpy(dim):
    x = teachgrad.tensor(X)
    np.testing.assert_allclose(x.softmax(dim).numpy(), _np_softmax(X, dim), rtol=1e-12)
    np.testing.assert_allclose(teachgrad.log_softmax(x, dim).numpy(),
                               np.log(_np_softmax(X, dim)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x.softmax(dim).sum(dim).numpy(), 1.0, rtol=1e-12)


def test_function_and_method_are_the_same_op():
    x = teachgrad.tensor(X, requires_grad=True)
    assert teachgrad.softmax(x, 1).grad_fn.name() == x.softmax(1).grad_fn.name() == \
        "SoftmaxBackward0"
    assert teachgrad.log_softmax(x, dim=1).grad_fn.name() == "LogSoftmaxBackward0"


def test_large_logits_do_not_overflow():
    x = teachgrad.tensor([[1000.0, -1000.0, 0.0], [1000.0, 1000.0, 999.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow / invalid-value warning from NumPy
        s = x.softmax(1)
        ls = x.log_softmax(1)
        weights = teachgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        ((s * weights).sum() + (ls * weights).sum()).backward()
    assert np.isfinite(s.detach().numpy()).all() and np.isfinite(ls.detach().numpy()).all()
    np.testing.assert_allclose(s.detach().numpy()[0], [1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(ls.detach().numpy()[0], [0.0, -2000.0, -1000.0])
    assert np.isfinite(x.grad.numpy()).all()


def test_float32_stays_float32():
    x = teachgrad.tensor(X.astype(np.float32))
    assert x.softmax(0).dtype is teachgrad.float32
    assert x.log_softmax(0, dtype=teachgrad.float64).dtype is teachgrad.float64


GRADIENTS = [
    ("softmax_dim1", lambda t: t.softmax(1)),
    ("softmax_dim0", lambda t: teachgrad.softmax(t, 0)),
    ("softmax_neg", lambda t: t.softmax(-1)),
    ("log_softmax_dim1", lambda t: t.log_softmax(1)),
    ("log_softmax_dim0", lambda t: teachgrad.log_softmax(t, dim=0)),
    ("softmax_then_log", lambda t: t.softmax(1).log()),
]


@pytest.mark.parametrize("fn", [g[1] for g in GRADIENTS], ids=[g[0] for g in GRADIENTS])
def test_gradient_matches_finite_differences(fn):
    assert gradcheck(fn, (teachgrad.tensor(X[:2, :3, 0], requires_grad=True),))


@pytest.mark.parametrize("fn", [g[1] for g in GRADIENTS], ids=[g[0] for g in GRADIENTS])
def test_second_derivative_matches_finite_differences(fn):
    assert gradgradcheck(fn, (teachgrad.tensor(X[:2, :3, 0], requires_grad=True),))


def test_softmax_gradient_by_hand():
    # s = softmax([0, 0]) = [½, ½]; ∂s₀/∂a = s₀(δ − s) = [¼, −¼]
    x = teachgrad.tensor([0.0, 0.0], requires_grad=True)
    x.softmax(0).backward(teachgrad.tensor([1.0, 0.0]))
    assert x.grad.tolist() == [0.25, -0.25]
    # log_softmax: grad − softmax·Σgrad; with grad = [1, 0]: [1 − ½, −½]
    x = teachgrad.tensor([0.0, 0.0], requires_grad=True)
    x.log_softmax(0).backward(teachgrad.tensor([1.0, 0.0]))
    assert x.grad.tolist() == [0.5, -0.5]


def test_integer_scores_need_a_float_dtype():
    scores = teachgrad.tensor([[1, 2, 3]])
    with pytest.raises(NotImplementedError) as info:
        scores.softmax(1)
    message = str(info.value)
    assert message.startswith('"softmax_lastdim_kernel_impl" not implemented for \'Long\'\nHint: ')
    out = scores.softmax(1, dtype=teachgrad.float32)
    np.testing.assert_allclose(out.numpy(), _np_softmax(np.array([[1.0, 2.0, 3.0]]), 1), rtol=1e-6)


def test_dim_is_required():
    with pytest.raises(TypeError):
        teachgrad.softmax(teachgrad.ones(2))  # no implicit dim in torch.softmax


@pytest.mark.torch
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_parity_with_torch_on_random_data(fn, dim):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(dim + 5).standard_normal((4, 6)) * 30
    grad_out = np.random.default_rng(dim + 6).standard_normal((4, 6))
    results = []
    for lib in (torch, teachgrad):
        x = lib.tensor(data, requires_grad=True)
        out = getattr(x, fn)(dim)
        out.backward(lib.tensor(grad_out))
        results.append((out.detach().numpy().copy(), x.grad.numpy().copy()))
    (tv, tg), (mv, mg) = results
    np.testing.assert_allclose(mv, tv, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mg, tg, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_rows_without_a_finite_peak_are_nan_silently(fn):
    # A row holding +inf, or only -inf, has no finite maximum to subtract: inf - inf makes
    # it NaN, which is what PyTorch returns for such rows (and it does not warn). A finite
    # peak leaves -inf entries alone: their probability is 0.
    inf = float("inf")
    x = teachgrad.tensor([[inf, 1.0], [-inf, -inf], [inf, -inf], [-inf, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = getattr(teachgrad, fn)(x, 1).numpy()
    assert np.isnan(out[:3]).all()
    want = [-inf, 0.0] if fn == "log_softmax" else [0.0, 1.0]
    np.testing.assert_array_equal(out[3], want)
