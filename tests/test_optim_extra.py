"""Rprop, Adafactor, optim.swa_utils (AveragedModel, SWALR, update_bn, the avg_fns), and
utils.data's WeightedRandomSampler, ChainDataset, StackDataset, get_worker_info.

First steps worked out by hand; PyTorch parity (``torch`` marker): whole trajectories of
the parameters, learning rates and BatchNorm statistics, and constructor errors.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import nn
from teachgrad.optim import swa_utils
from teachgrad.utils import data

RNG = np.random.default_rng(5)


def f64(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


def run(optimizer, param, loss_fn, steps):
    values = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss_fn(param).backward()
        optimizer.step()
        values.append(param.detach().clone().tolist())
    return values


# ----------------------------------------------------------------------------------------
# Rprop
# ----------------------------------------------------------------------------------------
def test_rprop_grows_the_step_while_the_sign_holds():
    w = f64([1.0, -2.0])
    opt = torch.optim.Rprop([w], lr=0.1, step_sizes=(1e-6, 0.25))
    values = run(opt, w, lambda p: (p * f64([1.0, -3.0], False)).sum(), 4)
    # the gradient keeps its sign: steps of 0.1, 0.12, 0.144, 0.1728 (×1.2 each time)
    moved = [0.1, 0.1 + 0.12, 0.1 + 0.12 + 0.144, 0.1 + 0.12 + 0.144 + 0.1728]
    for got, total in zip(values, moved):
        assert got == pytest.approx([1.0 - total, -2.0 + total])
    run(opt, w, lambda p: (p * f64([1.0, -3.0], False)).sum(), 2)
    assert opt.state[w]["step_size"].tolist() == pytest.approx([0.1 * 1.2**5] * 2)
    run(opt, w, lambda p: (p * f64([1.0, -3.0], False)).sum(), 1)
    assert opt.state[w]["step_size"].tolist() == pytest.approx([0.25, 0.25])  # the cap


def test_rprop_waits_one_step_after_a_sign_flip():
    w = f64([0.3])
    opt = torch.optim.Rprop([w], lr=0.5)
    values = run(opt, w, lambda p: (p ** 2).sum(), 4)
    # g = 0.6: move 0.5 → -0.2 (overshoot); g = -0.4 flips: halve the step, don't move;
    # g = -0.4 again (prev was zeroed): move 0.25 → 0.05; g = 0.1 flips: stay.
    assert [v[0] for v in values] == pytest.approx([-0.2, -0.2, 0.05, 0.05])
    assert opt.state[w]["step_size"].item() == pytest.approx(0.125)


def test_rprop_checks_its_arguments():
    w = f64([1.0])
    with pytest.raises(ValueError, match="Invalid eta values: 1.5, 2"):
        torch.optim.Rprop([w], etas=(1.5, 2))
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        torch.optim.Rprop([w], lr=-1)


# ----------------------------------------------------------------------------------------
# Adafactor
# ----------------------------------------------------------------------------------------
def test_adafactor_first_step_of_a_vector():
    w = f64([3.0, 4.0])
    opt = torch.optim.Adafactor([w])  # lr 0.01
    run(opt, w, lambda p: (p * f64([1.0, -2.0], False)).sum(), 1)
    # step 1: β2 forgets everything (1 − 1^-0.8 = 0), v = g², the update is sign(g);
    # α = max(1e-3, RMS(w)) · min(lr, 1/√1) = √12.5 · 0.01
    alpha = math.sqrt(12.5) * 0.01
    assert w.tolist() == pytest.approx([3.0 - alpha, 4.0 + alpha])


def test_adafactor_factored_estimate_is_exact_for_rank_one_squares():
    w = f64([[1.0, 2.0], [3.0, 4.0]])
    opt = torch.optim.Adafactor([w], lr=0.1)
    g = f64(np.outer([1.0, 2.0], [1.0, -3.0]), False)  # g² = outer([1, 4], [1, 9]): rank one
    run(opt, w, lambda p: (p * g).sum(), 1)
    state = opt.state[w]
    assert state["row_var"].view(-1).tolist() == pytest.approx([5.0, 20.0])  # mean over columns
    assert state["col_var"].view(-1).tolist() == pytest.approx([2.5, 22.5])  # mean over rows
    alpha = math.sqrt(30 / 4) * 0.1  # RMS(w) · min(lr, 1)
    expected = np.array([[1.0, 2.0], [3.0, 4.0]]) - alpha * np.sign(g.numpy())
    assert np.allclose(w.detach().numpy(), expected)


def test_adafactor_checks_its_arguments():
    w = f64([1.0])
    with pytest.raises(ValueError, match="beta2_decay should be <= 0 but is: 0.5"):
        torch.optim.Adafactor([w], beta2_decay=0.5)
    with pytest.raises(ValueError, match="Clipping threshold d should be >= 1 but is: 0.5"):
        torch.optim.Adafactor([w], d=0.5)


# ----------------------------------------------------------------------------------------
# swa_utils
# ----------------------------------------------------------------------------------------
def snapshots_and_average(averaged_model, model, steps=3):
    seen = []
    for k in range(steps):
        with torch.no_grad():
            for p in model.parameters():
                p.add_(float(k + 1))
        averaged_model.update_parameters(model)
        seen.append([p.detach().clone() for p in model.parameters()])
    return seen


def test_averaged_model_keeps_the_running_mean():
    model = nn.Linear(2, 1)
    swa = swa_utils.AveragedModel(model)
    seen = snapshots_and_average(swa, model)
    for i, p in enumerate(swa.module.parameters()):
        assert torch.allclose(p, sum(s[i] for s in seen) / 3)
    assert swa.n_averaged.item() == 3 and swa.n_averaged.dtype == torch.int64
    assert list(swa.state_dict()) == ["n_averaged", "module.weight", "module.bias"]


def test_averaged_buffers_include_the_integer_count():
    # use_buffers=True averages num_batches_tracked too: (3 - 0)/2 = 1.5 truncated to 1,
    # then 1 + (7 - 1)/3 = 3 (each mean is copied into the int64 buffer, as PyTorch does on
    # the CPU; an in-place update refused the float)
    bn = nn.BatchNorm1d(2)
    swa = swa_utils.AveragedModel(bn, use_buffers=True)
    swa.update_parameters(bn)
    bn.running_mean.add_(1.0)
    bn.num_batches_tracked += 3
    swa.update_parameters(bn)
    assert swa.module.running_mean.tolist() == [0.5, 0.5]
    assert swa.module.num_batches_tracked.item() == 1
    bn.num_batches_tracked += 4
    swa.update_parameters(bn)
    assert swa.module.running_mean.tolist() == pytest.approx([2 / 3, 2 / 3])
    assert swa.module.num_batches_tracked.item() == 3
    assert swa.module.num_batches_tracked.dtype == torch.int64


@pytest.mark.torch
def test_default_average_is_pytorchs_cpu_formula():
    real = pytest.importorskip("torch")
    results = []
    for lib in (torch, real):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
        swa = lib.optim.swa_utils.AveragedModel(model, use_buffers=True)
        values = np.random.default_rng(2)
        for _ in range(4):
            with lib.no_grad():
                for p in model.parameters():
                    p.copy_(lib.tensor(values.normal(size=tuple(p.shape)).astype(np.float32)))
            model(lib.tensor(values.normal(size=(5, 3)).astype(np.float32)))
            swa.update_parameters(model)
        results.append({k: v.numpy().copy() for k, v in swa.state_dict().items()})
    ours, theirs = results
    assert list(ours) == list(theirs)
    for key in ours:
        if "running" in key:  # (the batch statistics themselves round differently in float32)
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, err_msg=key)
        else:  # the parameters and the counts: equal
            np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


def test_ema_average():
    model = nn.Linear(2, 1)
    ema = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9))
    seen = snapshots_and_average(ema, model)
    for i, p in enumerate(ema.module.parameters()):
        expected = seen[0][i]
        for s in seen[1:]:
            expected = 0.9 * expected + 0.1 * s[i]
        assert torch.allclose(p, expected)
    single = swa_utils.AveragedModel(model, avg_fn=swa_utils.get_ema_avg_fn(0.5))
    snapshots_and_average(single, model, 2)
    with pytest.raises(ValueError, match=r"Invalid decay value 2 provided"):
        swa_utils.get_ema_avg_fn(2)


def test_swalr_anneals_to_the_swa_rate():
    w = f64([1.0])
    opt = torch.optim.SGD([w], lr=0.1)
    scheduler = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
    rates = [opt.param_groups[0]["lr"]]
    for _ in range(5):
        opt.step()
        scheduler.step()
        rates.append(scheduler.get_last_lr()[0])

    def expected(k):
        a = (1 - math.cos(math.pi * min(1, k / 3))) / 2
        return 0.05 * a + 0.1 * (1 - a)

    assert rates == pytest.approx([expected(k) for k in range(6)])
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        swa_utils.SWALR(opt, 0.1, anneal_strategy="exp")


def test_update_bn_recomputes_the_statistics():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).double()
    x = torch.tensor(RNG.normal(size=(8, 3)))
    model.eval()
    swa_utils.update_bn([(x, None)], model)
    assert not model.training  # the mode is restored
    hidden = model[0](x).detach().numpy()
    bn = model[1]
    assert np.allclose(bn.running_mean.numpy(), hidden.mean(0))
    assert np.allclose(bn.running_var.numpy(), hidden.var(0, ddof=1))
    assert bn.momentum == 0.1


# ----------------------------------------------------------------------------------------
# utils.data
# ----------------------------------------------------------------------------------------
def test_weighted_random_sampler():
    torch.manual_seed(0)
    draws = list(data.WeightedRandomSampler([0.0, 1.0, 3.0], 4000))
    assert set(draws) == {1, 2}
    assert draws.count(2) / len(draws) == pytest.approx(0.75, abs=0.03)
    once = list(data.WeightedRandomSampler([1.0, 0.0, 2.0, 5.0], 3, replacement=False))
    assert sorted(once) == [0, 2, 3]
    assert len(data.WeightedRandomSampler([1.0, 1.0], 7)) == 7
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        data.WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        data.WeightedRandomSampler([[1.0]], 1)


def test_chain_and_stack_datasets():
    class Stream(data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    chain = data.ChainDataset([Stream(2), Stream(3)])
    assert list(chain) == [0, 1, 0, 1, 2] and len(chain) == 5
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(data.ChainDataset([[1, 2]]))
    pairs = data.StackDataset([1, 2], ["a", "b"])
    assert pairs[1] == (2, "b") and len(pairs) == 2
    named = data.StackDataset(image=[10, 11], label=[0, 1])
    assert named[0] == {"image": 10, "label": 0}
    batches = list(data.DataLoader(named, batch_size=2))
    assert batches[0]["image"].tolist() == [10, 11]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        data.StackDataset([1], [1, 2])
    assert data.get_worker_info() is None


# ----------------------------------------------------------------------------------------
# PyTorch parity
# ----------------------------------------------------------------------------------------
W0, B0 = RNG.normal(size=(3, 4)), RNG.normal(size=4)
X, Y = RNG.normal(size=(6, 3)), RNG.normal(size=(6, 4))

OPTIMIZERS = {
    "Rprop": lambda L, p: L.optim.Rprop(p, lr=0.05),
    "Rprop custom": lambda L, p: L.optim.Rprop(p, lr=0.01, etas=(0.3, 1.5),
                                               step_sizes=(1e-3, 0.2), maximize=True),
    "Adafactor": lambda L, p: L.optim.Adafactor(p),
    "Adafactor custom": lambda L, p: L.optim.Adafactor(p, lr=0.05, weight_decay=0.1, d=1.5,
                                                       eps=(1e-20, 1e-2), beta2_decay=-0.5),
    "Adafactor maximize": lambda L, p: L.optim.Adafactor(p, maximize=True),
}


def trajectory(lib, make, steps=25):
    w = lib.tensor(W0.copy(), requires_grad=True)
    b = lib.tensor(B0.copy(), requires_grad=True)
    opt = make(lib, [w, b])
    x, y = lib.tensor(X), lib.tensor(Y)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w + b - y) ** 2).mean().backward()
        opt.step()
        out.append(np.concatenate([w.detach().numpy().ravel(), b.detach().numpy().ravel()]))
    return np.array(out)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_trajectory_as_torch(name):
    real = pytest.importorskip("torch")
    ours = trajectory(torch, OPTIMIZERS[name])
    theirs = trajectory(real, OPTIMIZERS[name])
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("average", ["swa", "ema", "avg_fn"])
def test_swa_training_as_torch(average):
    real = pytest.importorskip("torch")
    results = []
    for lib in (torch, real):
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4),
                                  lib.nn.Linear(4, 1)).double()
        values = np.random.default_rng(1)
        with lib.no_grad():
            for p in model.parameters():
                p.copy_(lib.tensor(values.normal(size=tuple(p.shape))))
        kwargs = {"swa": {},
                  "ema": {"multi_avg_fn": lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)},
                  "avg_fn": {"avg_fn": lib.optim.swa_utils.get_ema_avg_fn(0.8)}}[average]
        swa = lib.optim.swa_utils.AveragedModel(model, **kwargs)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        scheduler = lib.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3,
                                              anneal_strategy="linear" if average == "ema"
                                              else "cos")
        x, y = lib.tensor(X), lib.tensor(Y[:, :1])
        rates = []
        for _ in range(6):
            opt.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            opt.step()
            swa.update_parameters(model)
            scheduler.step()
            rates.append(scheduler.get_last_lr()[0])
        lib.optim.swa_utils.update_bn([(x, y)], swa)
        results.append({
            "params": np.concatenate([p.detach().numpy().ravel() for p in swa.parameters()]),
            "rates": np.array(rates),
            "mean": swa.module[1].running_mean.numpy().copy(),
            "var": swa.module[1].running_var.numpy().copy(),
            "keys": list(swa.state_dict()),
            "n": int(swa.n_averaged),
        })
    ours, theirs = results
    assert ours["keys"] == theirs["keys"] and ours["n"] == theirs["n"]
    for key in ("params", "rates", "mean", "var"):
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-12, atol=1e-14)


@pytest.mark.torch
def test_constructor_errors_as_torch():
    real = pytest.importorskip("torch")

    def message(lib, fn):
        with pytest.raises(Exception) as caught:
            fn(lib)
        return type(caught.value).__name__, str(caught.value).split("\nHint:")[0]

    cases = [
        lambda L: L.optim.Rprop([L.ones(1, requires_grad=True)], etas=(1.5, 2)),
        lambda L: L.optim.Rprop([L.ones(1, requires_grad=True)], lr=-1.0),
        lambda L: L.optim.Adafactor([L.ones(1, requires_grad=True)], lr=-1.0),
        lambda L: L.optim.Adafactor([L.ones(1, requires_grad=True)], eps=(-1.0, 1e-3)),
        lambda L: L.optim.Adafactor([L.ones(1, requires_grad=True)], weight_decay=-1.0),
        lambda L: L.optim.swa_utils.get_ema_multi_avg_fn(-0.5),
        lambda L: L.optim.swa_utils.SWALR(L.optim.SGD([L.ones(1, requires_grad=True)], lr=1.0),
                                          0.1, anneal_epochs=-1),
        lambda L: L.utils.data.WeightedRandomSampler([1.0], 2, replacement=1),
        lambda L: L.utils.data.StackDataset(),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in cases:
            assert message(torch, case) == message(real, case)


# --- checkpoints of older PyTorch versions ------------------------------------------------
def _load_old_checkpoint(lib, name: str):
    """Save after one step, drop the group settings older versions did not save and make
    the step counters plain numbers (as they were), then load into a fresh optimizer."""
    p = lib.tensor([1.0, -2.0], requires_grad=True)
    opt = getattr(lib.optim, name)([p], lr=0.1)
    (p * p).sum().backward()
    opt.step()
    saved = opt.state_dict()
    for group in saved["param_groups"]:
        for key in ("foreach", "maximize", "capturable", "differentiable", "fused", "nesterov",
                    "amsgrad", "decoupled_weight_decay", "centered", "momentum"):
            group.pop(key, None)
    for entry in saved["state"].values():
        for key in ("step", "mu_product", "eta", "mu"):
            if key in entry:
                entry[key] = entry[key].item()
    fresh = getattr(lib.optim, name)([p], lr=0.1)
    fresh.load_state_dict(saved)
    settings = {k: v for k, v in fresh.param_groups[0].items() if k != "params"}
    counters = {k: (v.dim(), str(v.dtype).split(".")[-1], v.item())
                for k, v in fresh.state[p].items() if k in ("step", "mu_product", "eta", "mu")}
    return settings, counters


def test_an_old_adam_checkpoint_gets_todays_settings_and_tensor_steps():
    settings, counters = _load_old_checkpoint(torch, "Adam")
    assert {k: settings[k] for k in ("amsgrad", "maximize", "foreach", "capturable",
                                     "differentiable", "decoupled_weight_decay", "fused")} == {
        "amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
        "differentiable": False, "decoupled_weight_decay": False, "fused": None}
    assert counters == {"step": (0, "float32", 1.0)}
    assert _load_old_checkpoint(torch, "AdamW")[0]["decoupled_weight_decay"] is True


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta",
                                  "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "Adafactor"])
def test_old_checkpoints_load_as_in_pytorch(name):
    real = pytest.importorskip("torch")
    assert _load_old_checkpoint(torch, name) == _load_old_checkpoint(real, name)
