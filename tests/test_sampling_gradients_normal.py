"""``torch.normal`` with a tensor mean or std is recorded, with zero gradients, as in PyTorch
(NormalBackward1/2/3): a draw is not a function autograd can follow; lesson 14's
reparameterisation ``mean + std * eps`` is the one that differentiates. Before, the result
did not require grad, so ``backward()`` through it raised."""

from __future__ import annotations

import pytest

import teachgrad as torch


@pytest.mark.parametrize("call, node", [
    (lambda m, s: torch.normal(m, 1.0), "NormalBackward1"),
    (lambda m, s: torch.normal(0.0, s), "NormalBackward2"),
    (lambda m, s: torch.normal(m, s), "NormalBackward3"),
])
def test_recorded_with_zero_gradients(call, node):
    mean = torch.zeros(3, requires_grad=True)
    std = torch.ones(3, requires_grad=True)
    sample = call(mean, std)
    assert sample.requires_grad and type(sample.grad_fn).__name__ == node
    (sample * 5).sum().backward()
    for leaf in (mean, std):
        assert leaf.grad is None or leaf.grad.tolist() == [0.0, 0.0, 0.0]


def test_a_broadcast_mean_gets_zeros_of_its_own_shape():
    mean = torch.zeros(2, 1, requires_grad=True)
    sample = torch.normal(mean, torch.ones(3))
    assert sample.shape == (2, 3)
    sample.sum().backward()
    assert mean.grad.tolist() == [[0.0], [0.0]]


def test_the_draws_are_unchanged_and_no_grad_records_nothing():
    torch.manual_seed(0)
    recorded = torch.normal(torch.zeros(3, requires_grad=True), 1.0)
    torch.manual_seed(0)
    plain = torch.normal(torch.zeros(3), 1.0)
    assert recorded.tolist() == plain.tolist() and not plain.requires_grad
    with torch.no_grad():
        assert not torch.normal(torch.zeros(3, requires_grad=True), 1.0).requires_grad


def test_the_reparameterised_sample_does_differentiate():
    mean = torch.zeros(3, requires_grad=True)
    std = torch.ones(3, requires_grad=True)
    torch.manual_seed(0)
    eps = torch.randn(3)
    (mean + std * eps).sum().backward()
    assert mean.grad.tolist() == [1.0, 1.0, 1.0] and std.grad.tolist() == eps.tolist()


@pytest.mark.torch
def test_the_same_as_pytorch():
    real = pytest.importorskip("torch")
    seen = []
    for lib in (torch, real):
        lib.manual_seed(0)
        mean = lib.zeros(3, requires_grad=True)
        std = lib.ones(3, requires_grad=True)
        samples = [lib.normal(mean, 1.0), lib.normal(0.0, std), lib.normal(mean, std)]
        sum(s.sum() for s in samples).backward()
        seen.append(([type(s.grad_fn).__name__ for s in samples],
                     [s.tolist() for s in samples], mean.grad.tolist(), std.grad.tolist()))
    assert seen[0] == seen[1]
