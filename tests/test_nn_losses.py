"""Losses: gradients by finite differences (first and second order), hand-derived values,
numerical stability. PyTorch's values, names and messages: see test_nn_cases.py."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import teachgrad as torch
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)
X = RNG.normal(size=(4, 3))
Y = RNG.normal(size=(4, 3))
P = RNG.uniform(0.05, 0.95, size=(4, 3))
Q = RNG.uniform(0.0, 1.0, size=(4, 3))
W = RNG.uniform(0.5, 2.0, size=3)
PROBS = np.exp(Y) / np.exp(Y).sum(1, keepdims=True)
REDUCTIONS = ["mean", "sum", "none"]


def f64(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


def const(values):
    return torch.tensor(values, dtype=torch.float64)


CLASSES = torch.tensor([0, 2, -100, 1])
LOSSES = {
    "mse": (lambda a, b, r: F.mse_loss(a, b, reduction=r), (X, Y)),
    "mse_weighted": (lambda a, b, r: F.mse_loss(a, b, reduction=r, weight=const(P)), (X, Y)),
    "l1": (lambda a, b, r: F.l1_loss(a, b, reduction=r), (X, Y)),
    "nll": (lambda a, r: F.nll_loss(a, CLASSES, weight=const(W), reduction=r), (X,)),
    "cross_entropy": (lambda a, r: F.cross_entropy(a, CLASSES, reduction=r), (X,)),
    "cross_entropy_smoothing": (
        lambda a, r: F.cross_entropy(a, CLASSES, weight=const(W), label_smoothing=0.2,
                                     reduction=r), (X,)),
    "cross_entropy_probabilities": (
        lambda a, t, r: F.cross_entropy(a, t, weight=const(W), label_smoothing=0.1,
                                        reduction=r), (X, PROBS)),
    "bce": (lambda p, t, r: F.binary_cross_entropy(p, t, weight=const(W), reduction=r),
            (P, Q)),
    "bce_with_logits": (
        lambda x, t, r: F.binary_cross_entropy_with_logits(
            x, t, weight=const(W), pos_weight=const(W[::-1].copy()), reduction=r), (X, Q)),
    "cross_entropy_3d": (
        lambda a, r: F.cross_entropy(a, torch.tensor([[0, 1], [2, -100]]), reduction=r),
        (RNG.normal(size=(2, 3, 2)),)),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", LOSSES)
def test_loss_gradcheck(name, reduction):
    fn, arrays = LOSSES[name]
    inputs = tuple(f64(a) for a in arrays)
    assert gradcheck(lambda *xs: fn(*xs, reduction), inputs)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", LOSSES)
def test_loss_gradgradcheck(name, reduction):
    fn, arrays = LOSSES[name]
    inputs = tuple(f64(a) for a in arrays)
    assert gradgradcheck(lambda *xs: fn(*xs, reduction), inputs)


# ----------------------------------------------------------------------------------------
# Values a student can check on paper
# ----------------------------------------------------------------------------------------
def test_cross_entropy_of_equal_scores_is_log_of_the_class_count():
    logits = torch.zeros(5, 4, requires_grad=True)
    loss = F.cross_entropy(logits, torch.tensor([0, 1, 2, 3, 0]))
    assert loss.item() == pytest.approx(math.log(4))
    loss.backward()
    # d/dz_c = (softmax_c - [c == target]) / N
    expected = np.full((5, 4), 0.25 / 5)
    expected[np.arange(5), [0, 1, 2, 3, 0]] -= 1 / 5
    np.testing.assert_allclose(logits.grad.numpy(), expected, rtol=1e-6)


def test_cross_entropy_is_nll_of_log_softmax():
    x = f64(X)
    target = torch.tensor([2, 0, 1, 1])
    picked = (F.log_softmax(x, dim=1) * F.one_hot(target, 3)).sum(1)  # log p[n, target[n]]
    manual = -picked.mean()
    assert F.cross_entropy(x, target).item() == pytest.approx(manual.item())


def test_nll_picks_the_target_entries():
    x = torch.tensor([[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]])
    assert F.nll_loss(x, torch.tensor([2, 0]), reduction="none").tolist() == [3.0, 4.0]
    assert F.nll_loss(x, torch.tensor([2, 0])).item() == 3.5
    # weighted mean divides by the weights of the targets, not by N
    w = torch.tensor([1.0, 1.0, 3.0])
    assert F.nll_loss(x, torch.tensor([2, 0]), weight=w).item() == pytest.approx(13 / 4)
    # every target ignored: 0/0
    assert math.isnan(F.nll_loss(x, torch.tensor([-100, -100])).item())


def test_mse_and_l1_by_hand():
    a, b = torch.tensor([1.0, 3.0]), torch.tensor([0.0, 0.0])
    assert F.mse_loss(a, b).item() == 5.0
    assert F.mse_loss(a, b, reduction="sum").item() == 10.0
    assert F.l1_loss(a, b).item() == 2.0
    x = torch.tensor([1.0, 3.0], requires_grad=True)
    F.mse_loss(x, b).backward()
    assert x.grad.tolist() == [1.0, 3.0]  # 2 (x - t) / n


def test_binary_cross_entropies_by_hand():
    half = torch.full((3,), 0.5)
    assert F.binary_cross_entropy(half, torch.tensor([0.0, 1.0, 0.3])).item() == pytest.approx(
        math.log(2))
    assert F.binary_cross_entropy_with_logits(torch.zeros(2), torch.tensor([0.0, 1.0])).item() \
        == pytest.approx(math.log(2))
    # log clamped at -100: a confident wrong answer costs 100, not infinity
    assert F.binary_cross_entropy(torch.tensor([0.0]), torch.tensor([1.0])).item() == 100.0


def test_label_smoothing_mixes_with_the_uniform_target():
    x = f64(X)
    target = torch.tensor([0, 2, 1, 1])
    smooth = F.cross_entropy(x, target, label_smoothing=0.3)
    uniform_part = -F.log_softmax(x, dim=1).mean(1).mean()
    expected = 0.7 * F.cross_entropy(x, target) + 0.3 * uniform_part
    assert smooth.item() == pytest.approx(expected.item())
    # ... which is the cross entropy against the smoothed one-hot distribution
    one_hot = F.one_hot(target, 3).double()
    assert F.cross_entropy(x, one_hot * 0.7 + 0.1).item() == pytest.approx(smooth.item())


# ----------------------------------------------------------------------------------------
# Stability
# ----------------------------------------------------------------------------------------
def test_losses_on_huge_logits_are_finite_and_quiet():
    logits = torch.tensor([[1000.0, -1000.0], [-1000.0, 1000.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy overflow/divide warnings would fail here
        ce = F.cross_entropy(logits, torch.tensor([1, 1]))
        bce = F.binary_cross_entropy_with_logits(logits, torch.tensor([[0.0, 1.0],
                                                                       [0.0, 1.0]]))
        (ce + bce).backward()
    assert ce.item() == 1000.0  # (2000 + 0) / 2
    # per element log(1 + e^(-x)) or log(1 + e^x): 1000 twice (the wrong side), 0 twice
    assert bce.item() == 500.0
    assert np.isfinite(logits.grad.numpy()).all()


def test_a_rejected_loss_records_nothing():
    x = torch.randn(4, 3, requires_grad=True)
    with pytest.raises(IndexError):
        F.cross_entropy(x, torch.tensor([0, 1, 5, 1]))
    assert x.grad is None and x._version == 0


def test_loss_modules_store_their_settings():
    w = torch.tensor([1.0, 2.0, 3.0])
    criterion = nn.CrossEntropyLoss(weight=w, ignore_index=1, reduction="sum")
    assert criterion.weight is w and list(criterion.state_dict()) == ["weight"]
    x = torch.randn(4, 3)
    t = torch.tensor([0, 1, 2, 2])
    assert criterion(x, t).item() == pytest.approx(
        F.cross_entropy(x, t, weight=w, ignore_index=1, reduction="sum").item())


def test_one_hot():
    assert F.one_hot(torch.tensor([0, 2])).tolist() == [[1, 0, 0], [0, 0, 1]]
    assert F.one_hot(torch.tensor([[1], [0]]), 2).shape == (2, 1, 2)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_gradient_reaches_only_the_targets(reduction, weighted):
    # d nll / d input is -w[t] (÷ Σw for the mean) at each sample's target, 0 elsewhere,
    # whatever gradient arrives: an inf stays at the targets, the zeros stay zeros
    # (PyTorch's nll_loss_backward writes into zeros; inf · 0 would be NaN).
    x = f64(X)
    weight = const(W) if weighted else None
    loss = F.nll_loss(x, CLASSES, weight=weight, reduction=reduction)
    (g,) = torch.autograd.grad(loss, x, torch.full(loss.shape, math.inf, dtype=torch.float64))
    g = g.numpy()
    targets = CLASSES.numpy()
    for n, t in enumerate(targets):
        row = g[n]
        if t == -100:  # an ignored sample gets nothing
            np.testing.assert_array_equal(row, 0.0)
            continue
        np.testing.assert_array_equal(np.delete(row, t), 0.0)
        assert row[t] == -math.inf
