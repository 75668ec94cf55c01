"""Loss gradients with an infinite or nan incoming gradient, as PyTorch computes them.

nll_loss (and so cross_entropy) writes ``-w[t] · grad`` at each target and leaves the rest
0: an inf gradient does not make the other classes nan. multi_margin_loss computes its
local slope first and multiplies by the incoming gradient last, as PyTorch's kernel, so a
nonzero slope times inf stays ±inf.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from vjp import vjp

import teachgrad

F = teachgrad.nn.functional
INF, NAN = math.inf, math.nan


def test_nll_loss_leaves_the_other_classes_at_zero():
    target = teachgrad.tensor([2, 0])
    for reduction in ("none", "sum", "mean"):
        g = vjp(lambda x, reduction=reduction: F.nll_loss(x, target, reduction=reduction),
                  [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], INF)
        assert g.tolist() == [[0.0, 0.0, -INF], [-INF, 0.0, 0.0]]


def test_nll_loss_ignored_targets_get_zero():
    g = vjp(lambda x: F.nll_loss(x, teachgrad.tensor([1, -100]), reduction="none"),
              [[0.1, 0.2], [0.3, 0.4]], NAN)
    assert np.isnan(g[0, 1]) and g[0, 0] == 0.0 and g[1].tolist() == [0.0, 0.0]


def test_multi_margin_loss_keeps_inf_where_the_slope_is_not_zero():
    # One sample, class 0, margin 1: z_j = 1 − x0 + x_j = [·, 1.5, −1.5]. Class 1 is within
    # the margin (slope 1/3), class 2 is not (slope 0), class 0 gets −1/3.
    g = vjp(lambda x: F.multi_margin_loss(x, teachgrad.tensor([0])), [[1.0, 1.5, -1.5]], INF)
    assert g[0, 0] == -INF and g[0, 1] == INF and np.isnan(g[0, 2])  # 0 · inf, as PyTorch


LOSSES = {
    "nll": lambda lib, x, red: lib.nn.functional.nll_loss(x, lib.tensor([0, 2, 1, 1][:x.shape[0]]),
                                                         reduction=red),
    "cross_entropy": lambda lib, x, red: lib.nn.functional.cross_entropy(
        x, lib.tensor([0, 2, 1, 1][:x.shape[0]]), reduction=red),
    "cross_entropy(label_smoothing)": lambda lib, x, red: lib.nn.functional.cross_entropy(
        x, lib.tensor([0, 2, 1, 1][:x.shape[0]]), reduction=red, label_smoothing=0.1),
    "multi_margin": lambda lib, x, red: lib.nn.functional.multi_margin_loss(
        x, lib.tensor([0, 2, 1, 1][:x.shape[0]]), reduction=red),
    "multi_margin(p=2, weight)": lambda lib, x, red: lib.nn.functional.multi_margin_loss(
        x, lib.tensor([0, 2, 1, 1][:x.shape[0]]), p=2,
        weight=lib.tensor([0.5, 2.0, 1.5], dtype=x.dtype), reduction=red),
    "margin_ranking": lambda lib, x, red: lib.nn.functional.margin_ranking_loss(
        x[:, 0], x[:, 1], lib.tensor([1.0, -1.0, 1.0, -1.0][:x.shape[0]], dtype=x.dtype),
        reduction=red),
    "hinge_embedding": lambda lib, x, red: lib.nn.functional.hinge_embedding_loss(
        x, -lib.ones_like(x), reduction=red),
    "triplet": lambda lib, x, red: lib.nn.functional.triplet_margin_loss(
        x, lib.zeros_like(x), lib.ones_like(x), reduction=red),
    "smooth_l1": lambda lib, x, red: lib.nn.functional.smooth_l1_loss(
        x, lib.zeros_like(x), reduction=red),
    "huber": lambda lib, x, red: lib.nn.functional.huber_loss(
        x, lib.zeros_like(x), reduction=red, delta=0.7),
    "l1": lambda lib, x, red: lib.nn.functional.l1_loss(x, lib.zeros_like(x), reduction=red),
    "soft_margin": lambda lib, x, red: lib.nn.functional.soft_margin_loss(
        x, lib.ones_like(x), reduction=red),
    "multilabel_margin": lambda lib, x, red: lib.nn.functional.multilabel_margin_loss(
        x, lib.tensor([[0, -1, 2], [1, 2, -1], [2, -1, 0], [0, 1, 2]][:x.shape[0]]),
        reduction=red),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_gradients_match_torch(name, reduction):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(name) + len(reduction))
    for _ in range(40):
        values = rng.choice([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], (int(rng.integers(1, 5)), 3))
        upstream = rng.choice([1.0, -2.0, INF, NAN, 0.0])
        results = []
        for lib in (torch, teachgrad):
            x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
            y = LOSSES[name](lib, x, reduction)
            (g,) = lib.autograd.grad(y, x, lib.full_like(y, upstream))
            results.append((y.detach().numpy(), g.numpy()))
        (y_t, g_t), (y_g, g_g) = results
        np.testing.assert_allclose(y_g, y_t, rtol=1e-12)
        np.testing.assert_allclose(g_g, g_t, rtol=1e-10, atol=1e-14)
