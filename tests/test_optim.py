"""Optimizers against the published update rules, step by step, and their bookkeeping
(zero_grad, parameter groups, state_dict, closures).

The reference rules below are written from the papers / PyTorch's documented algorithms
in plain float64 NumPy, independently of teachgrad's code. (PyTorch's own numbers, in
float32: test_nn_cases.py, and test_optim_parity.py when torch is installed.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import nn, optim

RNG = np.random.default_rng(11)
W0 = RNG.normal(size=(3, 2))
GRADS = [RNG.normal(size=(3, 2)) for _ in range(12)]


# ----------------------------------------------------------------------------------------
# The published rules, one step each: (params, grad, state) -> params
# ----------------------------------------------------------------------------------------
def sgd_rule(lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
             maximize=False):
    def step(p, g, state):
        g = -g if maximize else g
        g = g + weight_decay * p
        if momentum:
            b = g if "b" not in state else momentum * state["b"] + (1 - dampening) * g
            state["b"] = b
            g = g + momentum * b if nesterov else b
        return p - lr * g
    return step


def adam_rule(lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
              decoupled=False, maximize=False):
    b1, b2 = betas

    def step(p, g, state):
        t = state["t"] = state.get("t", 0) + 1
        g = -g if maximize else g
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        m = state["m"] = b1 * state.get("m", 0.0) + (1 - b1) * g
        v = state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * g * g
        if amsgrad:
            v = state["vmax"] = np.maximum(state.get("vmax", 0.0), v)
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
        return p - lr * m_hat / (np.sqrt(v_hat) + eps)
    return step


def rmsprop_rule(lr, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                 centered=False):
    def step(p, g, state):
        g = g + weight_decay * p
        v = state["v"] = alpha * state.get("v", 0.0) + (1 - alpha) * g * g
        if centered:
            a = state["a"] = alpha * state.get("a", 0.0) + (1 - alpha) * g
            v = v - a * a
        scaled = g / (np.sqrt(v) + eps)
        if momentum:
            scaled = state["b"] = momentum * state.get("b", 0.0) + scaled
        return p - lr * scaled
    return step


CONFIGS = [
    (optim.SGD, dict(lr=0.1), sgd_rule(0.1)),
    (optim.SGD, dict(lr=0.1, momentum=0.9), sgd_rule(0.1, 0.9)),
    (optim.SGD, dict(lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.01),
     sgd_rule(0.1, 0.9, 0.5, 0.01)),
    (optim.SGD, dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True),
     sgd_rule(0.05, 0.8, nesterov=True, maximize=True)),
    (optim.Adam, dict(lr=0.01), adam_rule(0.01)),
    (optim.Adam, dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
     adam_rule(0.01, (0.8, 0.99), 1e-6, 0.1)),
    (optim.Adam, dict(lr=0.01, amsgrad=True, maximize=True),
     adam_rule(0.01, amsgrad=True, maximize=True)),
    (optim.AdamW, dict(lr=0.01), adam_rule(0.01, weight_decay=1e-2, decoupled=True)),
    (optim.AdamW, dict(lr=0.01, weight_decay=0.3, amsgrad=True),
     adam_rule(0.01, weight_decay=0.3, amsgrad=True, decoupled=True)),
    (optim.RMSprop, dict(lr=0.01), rmsprop_rule(0.01)),
    (optim.RMSprop, dict(lr=0.01, alpha=0.9, weight_decay=0.1, momentum=0.5),
     rmsprop_rule(0.01, 0.9, weight_decay=0.1, momentum=0.5)),
    (optim.RMSprop, dict(lr=0.01, centered=True, momentum=0.9),
     rmsprop_rule(0.01, centered=True, momentum=0.9)),
]


@pytest.mark.parametrize("cls,options,rule", CONFIGS,
                         ids=[f"{c.__name__}{o}" for c, o, _ in CONFIGS])
def test_update_rule_step_by_step(cls, options, rule):
    w = torch.tensor(W0, dtype=torch.float64, requires_grad=True)
    opt = cls([w], **options)
    expected, state = W0.copy(), {}
    for g in GRADS:
        w.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        expected = rule(expected, g, state)
        np.testing.assert_allclose(w.detach().numpy(), expected, rtol=1e-12, atol=1e-14)


def test_sgd_single_step_by_hand():
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.5)
    (w * w).sum().backward()  # grad = 2w
    opt.step()
    assert w.tolist() == [0.0, 0.0]


def test_adam_first_step_moves_each_weight_by_lr():
    # m̂ = g and v̂ = g² after one step, so the step is lr·g/|g| whatever g's scale.
    w = torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64, requires_grad=True)
    opt = optim.Adam([w], lr=0.1, eps=0.0)
    w.grad = torch.tensor([1e-4, -3.0, 250.0], dtype=torch.float64)
    opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [0.9, 1.1, 0.9])


# ----------------------------------------------------------------------------------------
# Bookkeeping
# ----------------------------------------------------------------------------------------
def test_step_is_untracked_and_keeps_leaves():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.Adam([w])
    (w * 3).sum().backward()
    version = w._version
    opt.step()
    assert w.is_leaf and w.grad_fn is None and w.requires_grad
    assert w._version > version  # changed in place, so a stale graph would notice
    assert all(not t.requires_grad for t in opt.state[w].values())


def test_zero_grad():
    model = nn.Linear(2, 1)
    opt = optim.SGD(model.parameters(), lr=0.1)
    model(torch.ones(3, 2)).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in model.parameters())
    opt.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_gradients_accumulate_without_zero_grad():
    w = torch.tensor([1.0], requires_grad=True)
    for _ in range(3):
        (2 * w).sum().backward()
    assert w.grad.item() == 6.0  # which is why training loops call zero_grad()


def test_parameters_without_gradient_are_skipped_and_groups_keep_their_settings():
    a = torch.tensor([1.0], requires_grad=True)
    b = torch.tensor([1.0], requires_grad=True)
    opt = optim.SGD([{"params": [a], "lr": 0.5}, {"params": [b]}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.1]
    a.grad = torch.tensor([1.0])
    opt.step()
    assert a.item() == 0.5 and b.item() == 1.0
    b.grad = torch.tensor([1.0])
    opt.param_groups[1]["lr"] = 0.25  # schedules change lr by editing the group
    opt.step()
    assert b.item() == 0.75


def test_add_param_group_and_named_parameters():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    opt = optim.Adam(model[0].parameters(), lr=0.01)
    opt.add_param_group({"params": model[1].parameters(), "lr": 0.1})
    assert [g["lr"] for g in opt.param_groups] == [0.01, 0.1]
    assert opt.param_groups[1]["betas"] == (0.9, 0.999)  # defaults fill the rest
    named = optim.SGD(model.named_parameters(), lr=0.1)
    assert named.param_groups[0]["param_names"] == ["0.weight", "0.bias", "1.weight",
                                                    "1.bias"]


def test_closure_is_evaluated_with_grad_and_returned():
    w = torch.tensor([3.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with torch.no_grad():  # even when called under no_grad, the closure records a graph
        loss = opt.step(closure)
    assert loss.item() == 9.0 and w.item() == pytest.approx(2.4)


def test_state_dict_round_trip_continues_identically():
    def make():
        torch.manual_seed(5)
        model = nn.Linear(3, 2)
        return model, optim.Adam(model.parameters(), lr=0.05, amsgrad=True)

    x = torch.randn(8, 3)

    def train(model, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()

    model_a, opt_a = make()
    train(model_a, opt_a, 3)
    saved_model, saved_opt = model_a.state_dict(), opt_a.state_dict()
    assert sorted(saved_opt["state"]) == [0, 1]
    assert list(saved_opt["state"][0]) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert saved_opt["param_groups"][0]["params"] == [0, 1]
    saved_model = {k: v.clone() for k, v in saved_model.items()}
    saved_opt = {"state": {k: {n: t.clone() for n, t in s.items()}
                           for k, s in saved_opt["state"].items()},
                 "param_groups": saved_opt["param_groups"]}
    train(model_a, opt_a, 4)

    model_b, opt_b = make()
    model_b.load_state_dict(saved_model)
    opt_b.load_state_dict(saved_opt)
    assert opt_b.state[model_b.weight]["step"].item() == 3.0
    train(model_b, opt_b, 4)
    for pa, pb in zip(model_a.parameters(), model_b.parameters()):
        np.testing.assert_array_equal(pa.detach().numpy(), pb.detach().numpy())


def test_load_state_dict_rejects_another_layout():
    opt = optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    other = optim.SGD([torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)],
                      lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(other.state_dict())


def test_optimizer_accepts_a_generator_once():
    model = nn.Linear(2, 2)
    opt = optim.SGD(model.parameters(), lr=0.1)
    assert len(opt.param_groups[0]["params"]) == 2


def test_a_tensor_that_retains_grad_may_be_optimized():
    base = torch.tensor([1.0], requires_grad=True)
    y = base * 2
    y.retain_grad()
    opt = optim.SGD([y], lr=0.1)  # PyTorch allows it: y will have a .grad
    assert opt.param_groups[0]["params"] == [y]


def test_differentiable_optimizers_are_refused_clearly():
    with pytest.raises(NotImplementedError, match="not differentiable"):
        optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, differentiable=True)


def test_lr_schedule_by_hand_matches_exponential_decay():
    w = torch.tensor([0.0], requires_grad=True)
    opt = optim.SGD([w], lr=1.0)
    for _ in range(4):
        w.grad = torch.tensor([-1.0])
        opt.step()
        for group in opt.param_groups:
            group["lr"] *= 0.5
    assert w.item() == pytest.approx(sum(0.5**k for k in range(4)))
    assert math.isclose(opt.param_groups[0]["lr"], 1 / 16)
