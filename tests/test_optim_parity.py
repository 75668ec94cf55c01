"""Parity with real PyTorch (skipped without it): the same model, weights and data give the
same losses step after step, and the losses agree on random inputs."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import datasets, nn

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def twin_mlps(sizes=(2, 16, 16, 2), seed=0):
    """A teachgrad MLP and a PyTorch MLP with identical weights (teachgrad's init)."""
    teachgrad.manual_seed(seed)
    layers, torch_layers = [], []
    for i, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
        layer = nn.Linear(fan_in, fan_out)
        twin = torch.nn.Linear(fan_in, fan_out)
        with torch.no_grad():
            twin.weight.copy_(torch.from_numpy(layer.weight.detach().numpy().copy()))
            twin.bias.copy_(torch.from_numpy(layer.bias.detach().numpy().copy()))
        layers.append(layer)
        torch_layers.append(twin)
        if i < len(sizes) - 2:
            layers.append(nn.Tanh())
            torch_layers.append(torch.nn.Tanh())
    return nn.Sequential(*layers), torch.nn.Sequential(*torch_layers)


def train(model, optimizer, loss_fn, X, y, steps):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


OPTIMIZERS = {
    "Adam": dict(lr=0.01),
    "AdamW": dict(lr=0.01, weight_decay=0.05, amsgrad=True),
    "SGD": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3),
    "RMSprop": dict(lr=0.003, momentum=0.5, centered=True),
}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_same_losses_after_30_steps_classification(name):
    X, y = datasets.make_moons(128, noise=0.15, seed=3)
    ours, theirs = twin_mlps()
    opt = getattr(teachgrad.optim, name)(ours.parameters(), **OPTIMIZERS[name])
    twin_opt = getattr(torch.optim, name)(theirs.parameters(), **OPTIMIZERS[name])
    got = train(ours, opt, nn.CrossEntropyLoss(), X, y, 30)
    expected = train(theirs, twin_opt, torch.nn.CrossEntropyLoss(),
                     torch.from_numpy(X.numpy().copy()), torch.from_numpy(y.numpy().copy()), 30)
    np.testing.assert_allclose(got, expected, rtol=1e-4)
    assert got[-1] < got[0]  # and it learned something
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4,
                                   atol=1e-5)


def test_same_losses_after_30_adam_steps_regression():
    X, y = datasets.make_regression(64, weights=(1.5, -2.0), bias=0.5, noise=0.1, seed=1)
    ours, theirs = twin_mlps((2, 8, 1), seed=4)
    got = train(ours, teachgrad.optim.Adam(ours.parameters(), lr=0.05), nn.MSELoss(), X, y, 30)
    expected = train(theirs, torch.optim.Adam(theirs.parameters(), lr=0.05),
                     torch.nn.MSELoss(), torch.from_numpy(X.numpy().copy()),
                     torch.from_numpy(y.numpy().copy()), 30)
    np.testing.assert_allclose(got, expected, rtol=1e-4)


# ----------------------------------------------------------------------------------------
# Losses on random inputs (the fixture cases cover fixed ones without torch)
# ----------------------------------------------------------------------------------------
def pair(array, requires_grad=True):
    array = np.asarray(array)
    grad = requires_grad and array.dtype.kind == "f"
    return (teachgrad.tensor(array, requires_grad=grad),
            torch.tensor(array, requires_grad=grad))


LOSS_CALLS = {
    "cross_entropy": lambda f, x, c, p, t: f.cross_entropy(x, c, label_smoothing=0.1),
    "cross_entropy_none": lambda f, x, c, p, t: f.cross_entropy(x, c, reduction="none"),
    "cross_entropy_probs": lambda f, x, c, p, t: f.cross_entropy(x, f.softmax(t * 3, dim=1)),
    "nll": lambda f, x, c, p, t: f.nll_loss(f.log_softmax(x, dim=1), c, reduction="sum"),
    "mse": lambda f, x, c, p, t: f.mse_loss(x, t),
    "l1": lambda f, x, c, p, t: f.l1_loss(x, t, reduction="sum"),
    "bce": lambda f, x, c, p, t: f.binary_cross_entropy(p, t.sigmoid()),
    "bce_with_logits": lambda f, x, c, p, t: f.binary_cross_entropy_with_logits(x * 50, p),
}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("name", LOSS_CALLS)
def test_losses_match_on_random_inputs(name, seed):
    rng = np.random.default_rng(seed)
    n, c = rng.integers(1, 7), rng.integers(2, 6)
    x = pair(rng.normal(size=(n, c)).astype(np.float32))
    classes = pair(rng.integers(0, c, size=n), requires_grad=False)
    p = pair(rng.uniform(0.01, 0.99, size=(n, c)).astype(np.float32))
    t = pair(rng.normal(size=(n, c)).astype(np.float32))
    ours = LOSS_CALLS[name](F, x[0], classes[0], p[0], t[0])
    theirs = LOSS_CALLS[name](torch.nn.functional, x[1], classes[1], p[1], t[1])
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    leaves = [(a, b) for a, b in (x, p, t) if a.requires_grad]
    ours_g = teachgrad.autograd.grad(ours.sum(), [a for a, _ in leaves], allow_unused=True)
    theirs_g = torch.autograd.grad(theirs.sum(), [b for _, b in leaves], allow_unused=True)
    for g, h in zip(ours_g, theirs_g):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-5, atol=1e-6)
