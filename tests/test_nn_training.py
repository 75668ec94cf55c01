"""End to end: the training loop a student will later write in PyTorch, unchanged."""

from __future__ import annotations

import teachgrad as torch
from teachgrad import datasets, nn


def test_mlp_learns_two_moons_with_adam():
    torch.manual_seed(0)
    X, y = datasets.make_moons(200, noise=0.1, seed=0)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()

    losses = []
    for _ in range(200):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    model.eval()
    with torch.no_grad():
        accuracy = (model(X).argmax(dim=1) == y).float().mean().item()
    assert accuracy >= 0.97
    assert losses[-1] < 0.1 * losses[0]


def test_linear_regression_with_sgd_recovers_the_line():
    torch.manual_seed(0)
    X, y = datasets.make_regression(100, weights=(2.0,), bias=3.0, noise=0.05, seed=0)
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(200):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(X), y).backward()
        optimizer.step()
    assert abs(model.weight.item() - 2.0) < 0.05
    assert abs(model.bias.item() - 3.0) < 0.05


def test_dropout_network_trains_and_evaluates_deterministically():
    torch.manual_seed(1)
    X, y = datasets.make_spirals(150, n_classes=3, noise=0.1, seed=1)
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 3))
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.02)
    for _ in range(150):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(X), y).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        first, second = model(X), model(X)
    assert torch.equal(first, second)  # no dropout in evaluation mode
    assert (first.argmax(1) == y).float().mean().item() > 0.8
