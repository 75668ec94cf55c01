"""Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD and LBFGS: first steps derived by hand,
argument checks with PyTorch's messages, state and state_dict, and (with torch installed)
30-step trajectories equal to PyTorch's for several option combinations."""

from __future__ import annotations

import copy
import doctest
import math

import numpy as np
import pytest

import teachgrad
from teachgrad import nn, optim

NEW = ["Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "LBFGS"]


def test_docstring_examples():
    from teachgrad.optim import adadelta, adagrad, adamax, asgd, lbfgs, nadam, radam

    for module in (adagrad, adadelta, adamax, nadam, radam, asgd, lbfgs):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_exported():
    for name in NEW:
        assert name in optim.__all__
        assert issubclass(getattr(optim, name), optim.Optimizer)


def one_step(name, grad, w0=1.0, **kwargs):
    """The parameter after one step on a loss whose gradient is ``grad`` (float64)."""
    w = teachgrad.tensor([w0], dtype=teachgrad.float64, requires_grad=True)
    opt = getattr(optim, name)([w], **kwargs)
    w.grad = teachgrad.tensor([grad], dtype=teachgrad.float64)
    opt.step()
    return w.item(), opt


# ----------------------------------------------------------------------------------------
# First steps, from each rule's formula
# ----------------------------------------------------------------------------------------
def test_adagrad_first_steps_by_hand():
    # sum = 0 + g², step = lr·g/(|g| + eps): lr·sign(g) whatever |g|.
    w, opt = one_step("Adagrad", 8.0, lr=0.5, eps=0.0)
    assert w == 0.5
    # With an initial accumulator 1 and weight decay 0.5: g = 2 + 0.5·1 = 2.5,
    # sum = 1 + 6.25, step = 0.1·2.5/√7.25.
    w, _ = one_step("Adagrad", 2.0, lr=0.1, eps=0.0, initial_accumulator_value=1.0,
                    weight_decay=0.5)
    assert w == pytest.approx(1 - 0.1 * 2.5 / math.sqrt(7.25), rel=1e-14)
    # Second step with lr_decay: clr = lr / (1 + 1·decay).
    w = teachgrad.tensor([1.0], dtype=teachgrad.float64, requires_grad=True)
    opt = optim.Adagrad([w], lr=1.0, lr_decay=1.0, eps=0.0)
    for _ in range(2):
        w.grad = teachgrad.tensor([3.0], dtype=teachgrad.float64)
        opt.step()
    assert w.item() == pytest.approx(1 - 1 - 0.5 * 3 / math.sqrt(18), rel=1e-14)
    assert opt.state[w]["step"].item() == 2 and opt.state[w]["sum"].item() == 18


def test_adagrad_creates_its_state_at_construction():
    w = teachgrad.zeros(3, requires_grad=True)
    opt = optim.Adagrad([w], initial_accumulator_value=0.25)
    assert sorted(opt.state[w]) == ["step", "sum"]
    assert opt.state[w]["sum"].tolist() == [0.25] * 3 and opt.state[w]["step"].item() == 0


def test_adadelta_first_step_by_hand():
    g, rho, eps, lr = 2.0, 0.9, 1e-6, 1.0
    v = (1 - rho) * g * g
    delta = math.sqrt(0 + eps) / math.sqrt(v + eps) * g
    w, opt = one_step("Adadelta", g, lr=lr, rho=rho, eps=eps)
    assert w == pytest.approx(1 - lr * delta, rel=1e-14)
    state = opt.state[next(iter(opt.state))]
    assert state["acc_delta"].item() == pytest.approx((1 - rho) * delta**2, rel=1e-14)


def test_adamax_steps_by_hand():
    # Step 1: m = 0.1·g, u = |g| + eps, p −= lr/(1 − 0.9) · m/u = lr · sign(g).
    w, opt = one_step("Adamax", -4.0, lr=0.1, eps=0.0)
    assert w == pytest.approx(1.1, rel=1e-14)
    # Step 2 with a smaller gradient: u keeps the decayed maximum 0.999·4.
    p = next(iter(opt.state))
    p.grad = teachgrad.tensor([-1.0], dtype=teachgrad.float64)
    opt.step()
    m = 0.9 * -0.4 + 0.1 * -1.0
    assert p.item() == pytest.approx(1.1 - 0.1 / (1 - 0.81) * m / (0.999 * 4), rel=1e-13)


def test_nadam_first_step_by_hand():
    lr, b1, b2, psi, g = 0.01, 0.9, 0.999, 4e-3, 3.0
    mu1 = b1 * (1 - 0.5 * 0.96 ** psi)
    mu2 = b1 * (1 - 0.5 * 0.96 ** (2 * psi))
    m, v = (1 - b1) * g, (1 - b2) * g * g
    denom = math.sqrt(v / (1 - b2)) + 1e-8
    expected = 1 - lr * (1 - mu1) / (1 - mu1) * g / denom - lr * mu2 / (1 - mu1 * mu2) * m / denom
    w, opt = one_step("NAdam", g, lr=lr)
    # mu_product is a float32 scalar (as in PyTorch), hence the float32 tolerance.
    assert w == pytest.approx(expected, rel=1e-6)
    assert opt.state[next(iter(opt.state))]["mu_product"].item() == pytest.approx(mu1, rel=1e-7)


def test_radam_switches_from_momentum_to_rectified_adam():
    b2 = 0.999
    rho_inf = 2 / (1 - b2) - 1
    w = teachgrad.tensor([0.0], dtype=teachgrad.float64, requires_grad=True)
    opt = optim.RAdam([w], lr=0.1, eps=0.0)
    expected = 0.0
    for t in range(1, 9):
        w.grad = teachgrad.tensor([1.0], dtype=teachgrad.float64)
        opt.step()
        # A constant gradient 1: m̂ = 1, v̂ = 1.
        rho_t = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho_t > 5:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            expected -= 0.1 * rect
        else:
            expected -= 0.1
        assert w.item() == pytest.approx(expected, rel=1e-12), t
    # The switch happens at step 6 for β2 = 0.999 (ρ₅ ≈ 4.99, ρ₆ ≈ 5.99).
    assert rho_inf - 2 * 5 * b2**5 / (1 - b2**5) < 5 < rho_inf - 2 * 6 * b2**6 / (1 - b2**6)


def test_asgd_step_sizes_and_averaging_by_hand():
    lr, lambd, alpha, t0 = 0.1, 0.5, 0.75, 2
    w = teachgrad.tensor([1.0], dtype=teachgrad.float64, requires_grad=True)
    opt = optim.ASGD([w], lr=lr, lambd=lambd, alpha=alpha, t0=t0)
    p, ax, eta, mu = 1.0, 0.0, lr, 1.0
    for t in range(1, 6):
        w.grad = teachgrad.tensor([2.0], dtype=teachgrad.float64)
        opt.step()
        p = p * (1 - lambd * eta) - eta * 2.0
        ax = p if mu == 1 else ax + mu * (p - ax)
        eta = lr / (1 + lambd * lr * t) ** alpha
        mu = 1 / max(1, t - t0)
        state = opt.state[w]
        assert w.item() == pytest.approx(p, rel=1e-6)  # eta and mu are float32
        assert state["ax"].item() == pytest.approx(ax, rel=1e-6)
        assert state["eta"].item() == pytest.approx(eta, rel=1e-6)
        assert state["mu"].item() == pytest.approx(mu, rel=1e-6)


def test_maximize_climbs():
    for name in NEW[:-1]:
        w = teachgrad.tensor([0.5], requires_grad=True)
        opt = getattr(optim, name)([w], maximize=True)
        w.grad = teachgrad.tensor([1.0])
        opt.step()
        assert w.item() > 0.5, name


# ----------------------------------------------------------------------------------------
# LBFGS
# ----------------------------------------------------------------------------------------
def quadratic_closure(opt, w, A, b):
    """Loss ½·wᵀAw − bᵀw: its minimum is A⁻¹b."""
    def closure():
        opt.zero_grad()
        loss = 0.5 * (w @ (A @ w)) - b @ w
        loss.backward()
        return loss
    return closure


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_solves_a_quadratic(line_search_fn):
    rng = np.random.default_rng(0)
    M = rng.normal(size=(5, 5))
    A = teachgrad.tensor(M @ M.T + 5 * np.eye(5))
    b = teachgrad.tensor(rng.normal(size=5))
    w = teachgrad.zeros(5, dtype=teachgrad.float64, requires_grad=True)
    opt = optim.LBFGS([w], max_iter=30, line_search_fn=line_search_fn,
                      tolerance_grad=1e-12, tolerance_change=1e-30)
    first = opt.step(quadratic_closure(opt, w, A, b))
    assert first.item() == 0.0  # step() returns the loss at the starting point
    np.testing.assert_allclose(w.detach().numpy(), np.linalg.solve(A.numpy(), b.numpy()),
                               rtol=1e-6)
    state = opt.state[w]
    assert state["n_iter"] <= 50 and state["func_evals"] >= state["n_iter"]
    assert {"d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad",
            "prev_loss", "func_evals", "n_iter"} <= set(state)


def test_lbfgs_first_step_is_scaled_steepest_descent():
    # The first direction is −g, the first step length min(1, 1/|g|₁)·lr.
    w = teachgrad.tensor([3.0, -1.0], dtype=teachgrad.float64, requires_grad=True)
    opt = optim.LBFGS([w], lr=0.5, max_iter=1)

    def closure():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    g = np.array([6.0, -2.0])
    np.testing.assert_allclose(w.detach().numpy(), [3, -1] - 0.5 / 8 * g, rtol=1e-15)


def test_lbfgs_stops_at_a_stationary_point():
    w = teachgrad.zeros(2, requires_grad=True)
    opt = optim.LBFGS([w])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    assert len(calls) == 1 and opt.state[w]["n_iter"] == 0


def test_lbfgs_errors():
    w = teachgrad.zeros(2, requires_grad=True)
    v = teachgrad.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options "
                       r"\(parameter groups\)$"):
        optim.LBFGS([{"params": [w]}, {"params": [v]}])
    opt = optim.LBFGS([w], line_search_fn="backtracking")
    with pytest.raises(RuntimeError, match="^only 'strong_wolfe' is supported$"):
        opt.step(quadratic_closure(opt, w, teachgrad.eye(2), teachgrad.ones(2)))
    with pytest.raises(RuntimeError, match="needs a closure"):
        optim.LBFGS([w]).step(None)
    assert optim.LBFGS([w], max_iter=8).defaults["max_eval"] == 10


# ----------------------------------------------------------------------------------------
# Arguments, state, saving
# ----------------------------------------------------------------------------------------
BAD_ARGUMENTS = [
    ("Adagrad", dict(lr=-1), "Invalid learning rate: -1"),
    ("Adagrad", dict(lr_decay=-0.5), "Invalid lr_decay value: -0.5"),
    ("Adagrad", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("Adagrad", dict(initial_accumulator_value=-1),
     "Invalid initial_accumulator_value value: -1"),
    ("Adagrad", dict(eps=-1), "Invalid epsilon value: -1"),
    ("Adadelta", dict(lr=-1), "Invalid learning rate: -1"),
    ("Adadelta", dict(rho=1.5), "Invalid rho value: 1.5"),
    ("Adadelta", dict(eps=-1), "Invalid epsilon value: -1"),
    ("Adadelta", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("Adamax", dict(lr=-1), "Invalid learning rate: -1"),
    ("Adamax", dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    ("Adamax", dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    ("Adamax", dict(eps=-1), "Invalid epsilon value: -1"),
    ("NAdam", dict(momentum_decay=-1), "Invalid momentum_decay value: -1"),
    ("NAdam", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("NAdam", dict(lr=-1), "Invalid learning rate: -1"),
    ("RAdam", dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
    ("RAdam", dict(eps=-1e-3), "Invalid epsilon value: -0.001"),
    ("ASGD", dict(lr=-1), "Invalid learning rate: -1"),
    ("ASGD", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("LBFGS", dict(lr=-1), "Invalid learning rate: -1"),
]


@pytest.mark.parametrize("name,kwargs,message", BAD_ARGUMENTS)
def test_bad_arguments(name, kwargs, message):
    with pytest.raises(ValueError) as info:
        getattr(optim, name)([teachgrad.zeros(1, requires_grad=True)], **kwargs)
    assert str(info.value) == message


STATE_NAMES = {
    "Adagrad": ["step", "sum"],
    "Adadelta": ["step", "square_avg", "acc_delta"],
    "Adamax": ["step", "exp_avg", "exp_inf"],
    "NAdam": ["step", "mu_product", "exp_avg", "exp_avg_sq"],
    "RAdam": ["step", "exp_avg", "exp_avg_sq"],
    "ASGD": ["step", "eta", "mu", "ax"],
}


@pytest.mark.parametrize("name", STATE_NAMES)
def test_state_dict_round_trip_continues_identically(name):
    """Save after 3 steps, load into a fresh optimizer on copied weights: the next
    steps are identical."""
    model = nn.Linear(3, 2)
    x, y = teachgrad.randn(8, 3), teachgrad.randn(8, 2)
    opt = getattr(optim, name)(model.parameters(), lr=0.05)

    def train(model, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()

    train(model, opt, 3)
    saved = opt.state_dict()
    assert list(saved["state"][0]) == STATE_NAMES[name]
    assert saved["param_groups"][0]["params"] == [0, 1]
    twin = nn.Linear(3, 2)
    twin.load_state_dict(model.state_dict())
    twin_opt = getattr(optim, name)(twin.parameters(), lr=1.0)
    # a copy, as torch.save/torch.load give: load_state_dict keeps the tensors it is given
    # (PyTorch's semantics), and `opt` goes on changing its own in place
    twin_opt.load_state_dict(copy.deepcopy(saved))
    assert twin_opt.param_groups[0]["lr"] == 0.05
    train(model, opt, 2)
    train(twin, twin_opt, 2)
    for p, q in zip(model.parameters(), twin.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_repr_lists_the_group_settings():
    text = repr(optim.NAdam([teachgrad.zeros(1, requires_grad=True)], lr=0.01))
    assert text.startswith("NAdam (\nParameter Group 0\n    betas: (0.9, 0.999)\n")
    assert "    lr: 0.01\n" in text and "    momentum_decay: 0.004\n" in text


def test_parameters_without_gradient_are_left_alone():
    for name in NEW[:-1]:
        used = teachgrad.ones(2, requires_grad=True)
        unused = teachgrad.ones(2, requires_grad=True)
        opt = getattr(optim, name)([used, unused], lr=0.1)
        (used * 3).sum().backward()
        opt.step()
        assert unused.tolist() == [1.0, 1.0] and used.tolist() != [1.0, 1.0], name


# ----------------------------------------------------------------------------------------
# Against real PyTorch
# ----------------------------------------------------------------------------------------
CASES = [
    ("Adagrad", {}),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1)),
    ("Adagrad", dict(lr=0.05, maximize=True)),
    ("Adadelta", {}),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.05)),
    ("Adadelta", dict(maximize=True, eps=1e-4)),
    ("Adamax", {}),
    ("Adamax", dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, maximize=True)),
    ("NAdam", {}),
    ("NAdam", dict(lr=0.05, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True,
                   momentum_decay=0.01)),
    ("NAdam", dict(lr=0.02, maximize=True)),
    ("RAdam", {}),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, betas=(0.9, 0.9))),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.02, maximize=True)),
    ("ASGD", {}),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=10, weight_decay=0.1)),
    ("ASGD", dict(lr=0.02, maximize=True, t0=5)),
    ("LBFGS", {}),
    ("LBFGS", dict(lr=0.5, history_size=3, max_iter=5)),
    ("LBFGS", dict(line_search_fn="strong_wolfe")),
    ("LBFGS", dict(line_search_fn="strong_wolfe", history_size=2, max_iter=4,
                   tolerance_grad=1e-12, tolerance_change=1e-14)),
]


def trajectories(lib, name, kwargs, dtype, steps):
    """Each step's parameters, on a loss whose gradient NumPy computes the same way for
    both libraries: ``Σ log cosh(p − 1) + 0.1 p²`` (so only the optimizers differ)."""
    rng = np.random.default_rng(0)
    params = [lib.tensor(rng.normal(size=shape).astype(dtype), requires_grad=True)
              for shape in ((4, 3), (3,))]
    opt = getattr(lib.optim, name)(params, **kwargs)

    def closure():
        loss = 0.0
        for p in params:
            a = p.detach().numpy().astype(np.float64)
            p.grad = lib.tensor((np.tanh(a - 1) + 0.2 * a).astype(dtype))
            loss += float((np.log(np.cosh(a - 1)) + 0.1 * a * a).sum())
        return lib.tensor(loss, dtype=getattr(lib, dtype))

    path = [np.concatenate([p.detach().numpy().ravel() for p in params])]
    for _ in range(steps):
        if name == "LBFGS":
            opt.step(closure)
        else:
            closure()
            opt.step()
        path.append(np.concatenate([p.detach().numpy().ravel() for p in params]))
    return np.array(path), opt


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_trajectory_matches_torch(name, kwargs, dtype):
    torch = pytest.importorskip("torch")
    steps = 5 if name == "LBFGS" else 30  # an LBFGS step is up to max_iter iterations
    ours, opt = trajectories(teachgrad, name, kwargs, dtype, steps)
    theirs, twin = trajectories(torch, name, kwargs, dtype, steps)
    # PyTorch's vectorised kernels fuse some multiply-adds: a last-bit difference now
    # and then, which the updates carry along but do not amplify.
    tolerance = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12,
                                                                          atol=1e-14)
    np.testing.assert_allclose(ours, theirs, **tolerance)
    assert not np.allclose(ours[0], ours[-1])  # it moved
    ours_state, theirs_state = opt.state_dict(), twin.state_dict()
    assert ours_state["param_groups"] == theirs_state["param_groups"]
    assert repr(opt) == repr(twin)
    if name == "LBFGS" and dtype == "float32":
        # Near the minimum LBFGS keeps 1/(yᵀs) for tiny y and s: a ratio of two roundings.
        tolerance = dict(rtol=1e-3, atol=1e-6)
    for key, state in theirs_state["state"].items():
        assert list(ours_state["state"][key]) == list(state)
        for field, value in state.items():
            assert_same_state(ours_state["state"][key][field], value, tolerance, torch)


def assert_same_state(mine, theirs, tolerance, torch):
    """A state value (tensor, number, or a list of them as LBFGS keeps) equal to torch's."""
    if isinstance(theirs, list):
        assert isinstance(mine, list) and len(mine) == len(theirs)
        for a, b in zip(mine, theirs):
            assert_same_state(a, b, tolerance, torch)
    elif isinstance(theirs, torch.Tensor):
        assert isinstance(mine, teachgrad.Tensor)
        assert str(mine.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), **tolerance)
    elif isinstance(theirs, int):
        assert mine == theirs
    elif theirs is None:
        assert mine is None
    else:
        np.testing.assert_allclose(float(mine), theirs, **tolerance)


@pytest.mark.torch
@pytest.mark.parametrize("name,kwargs", [(n, {}) for n in NEW])
def test_bad_argument_messages_match_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    for case_name, bad, _ in BAD_ARGUMENTS:
        if case_name != name:
            continue
        messages = []
        for lib in (teachgrad, torch):
            with pytest.raises(ValueError) as info:
                getattr(lib.optim, name)([lib.zeros(1, requires_grad=True)], **bad)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def mlp_closure(lib, opt, params, x, y):
    def closure():
        opt.zero_grad()
        hidden = lib.tanh(x @ params[0] + params[1])
        loss = ((hidden @ params[2] + params[3] - y) ** 2).mean()
        loss.backward()
        return loss
    return closure


@pytest.mark.torch
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_trains_a_model_like_torch(line_search_fn):
    """Real autograd in the closure: a small regression MLP, 4 LBFGS steps, float64."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(32, 3)), rng.normal(size=(32, 1))
    W1, b1 = rng.normal(size=(3, 8)) * 0.5, np.zeros(8)
    W2, b2 = rng.normal(size=(8, 1)) * 0.5, np.zeros(1)
    results = []
    for lib in (teachgrad, torch):
        params = [lib.tensor(a.copy(), requires_grad=True) for a in (W1, b1, W2, b2)]
        opt = lib.optim.LBFGS(params, lr=0.8 if line_search_fn is None else 1,
                              history_size=5, max_iter=10, line_search_fn=line_search_fn)
        closure = mlp_closure(lib, opt, params, lib.tensor(X), lib.tensor(Y))
        losses = [opt.step(closure).item() for _ in range(4)]
        state = opt.state[params[0]]
        results.append((losses, state["n_iter"], state["func_evals"]))
    (ours, n_ours, evals_ours), (theirs, n_theirs, evals_theirs) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    assert ours[-1] < ours[0]
    assert (n_ours, evals_ours) == (n_theirs, evals_theirs)


def test_float_under_no_grad_does_not_warn(monkeypatch):
    # PyTorch warns about float() of a tensor that requires grad only while grad mode is
    # on; LBFGS reads its losses under no_grad, silently in both libraries.
    import warnings

    import teachgrad._tensor as tensor_module

    monkeypatch.setitem(tensor_module._float_warning, "given", False)
    w = teachgrad.tensor([3.0, -1.0], requires_grad=True)
    opt = optim.LBFGS([w])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step(quadratic_closure(opt, w, teachgrad.eye(2), teachgrad.ones(2)))
    assert tensor_module._float_warning["given"] is False
