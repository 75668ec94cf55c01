"""Differential testing of the optimizers and LR schedulers against PyTorch, on a fixed
range of random training programs.

tests/fuzz_optim_against_torch.py writes small training scripts (an optimizer drawn from
all fourteen with random hyperparameters and parameter groups, a scheduler from all
fifteen, training steps, add_param_group, state_dict round trips, invalid arguments and
call orders) and runs each with PyTorch and with teachgrad, comparing parameters, state
dicts, learning rates, exceptions and warnings after every statement. This test runs a
fixed seed range, then the programs the fuzzer once found differing (one per bug), and
checks the optimizer's state-dict hooks against PyTorch's.
"""

from __future__ import annotations

import fuzz_optim_against_torch as fuzz
import numpy as np
import pytest

import teachgrad

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

SEEDS = range(0, 300)


def test_random_training_programs_agree_with_pytorch():
    mismatches = fuzz.fuzz(SEEDS, torch, teachgrad, out=_Discard())
    report = "\n\n".join(f"seed {seed}: {category} at {where}\n{source}\n--- {detail}"
                         for seed, category, where, source, detail in mismatches)
    assert not mismatches, f"{len(mismatches)} of {len(SEEDS)} programs differ:\n{report}"


def test_the_generator_is_reproducible_and_covers_every_optimizer_and_scheduler():
    first = [s.source for s in fuzz.generate(123)]
    assert first == [s.source for s in fuzz.generate(123)]
    text = "\n".join(s.source for seed in range(300) for s in fuzz.generate(seed))
    for name in fuzz.OPTIMIZERS:
        assert f"torch.optim.{name}(" in text, name
    for name in fuzz.SCHEDULERS:
        assert f"lr_scheduler.{name}(" in text, name
    for piece in ("add_param_group", "load_state_dict", "bad = ", "closure",
                  "torch.tensor(0.", "set_to_none=True", "last_epoch="):
        assert piece in text, piece


def test_a_difference_is_found_and_shrunk():
    # The comparison must be able to fail: a program whose last statement differs
    # between the libraries by construction (it names the library).
    statements = fuzz.generate(5)
    statements.append(fuzz.Statement("p0.data.add_(1.0 if 'teachgrad' in torch.__name__ "
                                     "else 0.0)", "rigged"))
    found = fuzz.compare(statements, torch, teachgrad)
    assert found is not None and found[1] == "param"
    shrunk, _ = fuzz.shrink(statements, found, torch, teachgrad)
    assert [s.op for s in shrunk] == ["param", "rigged"]


# Shrunk reproductions of what the fuzzer found (one per bug), run with both libraries.
FOUND = {
    "a string lr fails in PyTorch's words (the comparison is 0.0 <= lr)": """
p0 = torch.tensor([1.0, 2.0], requires_grad=True)
bad = torch.optim.RMSprop([p0], lr='0.1')
bad = torch.optim.Adafactor([p0], lr='0.1')
bad = torch.optim.Adam([p0], eps='1')""",
    "a tensor lr must hold one number": """
p0 = torch.tensor([1.0, 2.0], requires_grad=True)
bad = torch.optim.Adagrad([p0], lr=torch.tensor([0.1, 0.2]))
bad = torch.optim.LBFGS([p0], lr=torch.tensor([0.1, 0.2]))""",
    "load_state_dict shares the state tensors it is given": """
p0 = torch.tensor([[-0.994], [-1.151]], dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([p0], lr=0.1)
loss = (p0 ** 2).sum()
loss.backward()
opt.step()
opt2 = torch.optim.Adam([p0], lr=0.1)
opt2.load_state_dict(opt.state_dict())
opt.step()""",
    "load_state_dict casts a state tensor to its parameter's dtype, not the step": """
p0 = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
p1 = torch.tensor([1.0, -2.0], dtype=torch.float32, requires_grad=True)
opt = torch.optim.SGD([p0], lr=0.1, momentum=0.9)
loss = (p0 ** 2).sum()
loss.backward()
opt.step()
opt2 = torch.optim.SGD([p1], lr=0.1, momentum=0.9)
opt2.load_state_dict(opt.state_dict())
opt.step()""",
    "a scheduler stepped after add_param_group": """
p0 = torch.tensor([1.17, 1.438], requires_grad=True)
p1 = torch.tensor([-0.44], requires_grad=True)
opt = torch.optim.RMSprop([p0], lr=0.01)
sched = torch.optim.lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda e: 0.95)
opt.step()
sched.step()
opt.add_param_group({'params': [p1], 'lr': 0.1})
sched.step()""",
    "CosineAnnealingLR and CyclicLR after add_param_group": """
p0 = torch.tensor([1.17, 1.438], requires_grad=True)
p1 = torch.tensor([-0.44], requires_grad=True)
opt = torch.optim.SGD([p0], lr=0.01, momentum=0.9)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2)
cyclic = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.001, max_lr=0.1, step_size_up=2)
opt.add_param_group({'params': [p1], 'lr': 0.1})
cosine.step()
cyclic.step()""",
    "a group added after load_state_dict says differentiable=False": """
p0 = torch.tensor([[-0.319], [0.732]], requires_grad=True)
p1 = torch.tensor([-0.808], dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adafactor([p0], lr=0.01)
opt.load_state_dict(opt.state_dict())
opt.add_param_group({'params': [p1]})""",
    "state_dict numbers a repeated parameter as PyTorch does": """
p0 = torch.tensor([1.0], requires_grad=True)
p1 = torch.tensor([2.0], requires_grad=True)
opt = torch.optim.SGD([{'params': [p0, p0]}, {'params': [p1]}], lr=0.1)""",
    "add_param_group: mixing named and unnamed groups": """
p0 = torch.tensor([1.0, 2.0], requires_grad=True)
p1 = torch.tensor([3.0], requires_grad=True)
opt = torch.optim.SGD([('p0', p0)], lr=0.1)
opt.add_param_group({'params': [p1]})""",
    "add_param_group fills in the dict it is given (and keeps it)": """
p0 = torch.tensor([1.0, 2.0], requires_grad=True)
p1 = torch.tensor([3.0], requires_grad=True)
opt = torch.optim.Adam([p0], lr=0.1)
extra = {'params': (p for p in [p1]), 'lr': 0.5}
opt.add_param_group(extra)
same = [sorted(extra), extra is opt.param_groups[1], extra['params'][0] is p1]""",
    "LBFGS refuses to step with a second group": """
p0 = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([p0], lr=0.5, max_iter=2)
def closure():
    opt.zero_grad()
    loss = p0.cosh().sum()
    loss.backward()
    return loss
opt.add_param_group({'params': [torch.tensor([1.0], dtype=torch.float64)]})
loss = opt.step(closure)""",
    "Muon makes a group's momentum buffers before a 1-d parameter fails": """
p0 = torch.tensor([[-0.063, 1.058], [0.857, 0.312]], dtype=torch.float64, requires_grad=True)
p1 = torch.tensor([-0.6], requires_grad=True)
p2 = torch.tensor([[0.5]], requires_grad=True)
opt = torch.optim.Muon([p0], momentum=0.698)
opt.add_param_group({'params': [p1, p2]})
loss = p0.tanh().mean() + (p1 ** 2).sum() + p2.sum()
loss.backward()
opt.step()""",
    # (seed 138873) PyTorch's ASGD makes each new eta and mu a float32 tensor, then copies
    # it into the state: float64 ones after load_state_dict hold float32-rounded values
    "ASGD's eta and mu pass through float32 after load_state_dict": """
p0 = torch.tensor([[0.87, -1.05, -1.995], [0.99, -0.24, 1.875]], dtype=torch.float64,
    requires_grad=True)
p1 = torch.tensor([[1.326], [-0.107], [-1.749]], dtype=torch.float64, requires_grad=True)
p2 = torch.tensor([0.519], dtype=torch.float32, requires_grad=True)
opt = torch.optim.ASGD([{'params': [p0, p1, p2]}], lr=0.2684, weight_decay=0.01, lambd=0.0018,
    t0=0.0)
loss = (p0 ** 2).sum() + (p1 ** 2).sum() * 2.78 + (p2 ** 2).sum() * 1.371
loss.backward()
opt.step()
opt2 = torch.optim.ASGD([p0, p1, p2], lr=0.2684, weight_decay=0.01, lambd=0.0018, t0=0.0)
opt2.load_state_dict(opt.state_dict())
opt = opt2
opt.step()
opt.zero_grad(set_to_none=True)
loss = (p0 ** 2).sum() + (p1 ** 2).sum() * 2.78 + (p2 ** 2).sum() * 1.371
loss.backward()
opt.step()
opt.zero_grad(set_to_none=True)
loss = (p0 * p0.detach().cos()).sum() + (p1 ** 2).sum() * 0.823
loss.backward()
opt.step()
opt.zero_grad(set_to_none=True)
loss = (p0 * p0.detach().cos()).sum() + (p1 ** 2).sum() * 0.823
loss.backward()
opt.step()""",
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_programs_the_fuzzer_found_now_agree(name):
    statements = [fuzz.Statement(line, "program") for line in
                  fuzz._core.statements_of(FOUND[name].strip())]
    assert fuzz.compare(statements, torch, teachgrad) is None



def _bits(lib, run) -> list:
    return [t.detach().numpy().tobytes() for t in run(lib)]


def test_lerp_rounds_a_number_weight_to_the_tensors_dtype_first():
    # PyTorch's kernel computes 1 - w in float32 for float32 tensors: float32(1 - 0.973)
    # and 1 - float32(0.973) differ in the last bit, and so do the results.
    def run(lib):
        start, end = lib.zeros(3), lib.tensor([0.897, -1.3, 2.5])
        return [lib.lerp(start, end, w) for w in (0.973, 0.3, 0.5, 0.61)]

    assert _bits(teachgrad, run) == _bits(torch, run)


@pytest.mark.parametrize("name,kwargs,average", [
    ("Adam", dict(betas=(0.3, 0.999)), "exp_avg"), ("NAdam", dict(betas=(0.2, 0.9)), "exp_avg"),
    ("RAdam", dict(betas=(0.4, 0.99)), "exp_avg"), ("Adamax", dict(betas=(0.1, 0.9)), "exp_avg"),
    ("RMSprop", dict(alpha=0.027, centered=True), "grad_avg"),
])
def test_moving_averages_round_as_pytorchs_lerp(name, kwargs, average):
    # A weight 1 - beta above 0.5 takes lerp's other branch (end - (end - start)(1 - w)),
    # and the average agrees with PyTorch's to the bit. (The gradient, the constant c, is
    # exact in both. The parameters' own updates go through sqrt, which PyTorch rounds
    # differently from NumPy in about 0.7 % of cases: they are compared in the test below.)
    def run(lib):
        p = lib.tensor([0.403, -0.549, -0.229], requires_grad=True)
        c = lib.tensor([0.897, -1.3, 2.5])
        opt = getattr(lib.optim, name)([p], lr=0.01, **kwargs)
        averages = []
        for _ in range(3):
            opt.zero_grad()
            (p * c).sum().backward()
            opt.step()
            averages.append(opt.state[p][average].clone())
        return averages

    assert _bits(teachgrad, run) == _bits(torch, run)


_FUSED_RUNS = [
    ("Rprop", dict(lr=0.01), []),
    ("Adam", dict(lr=0.01), ["exp_avg_sq"]),
    ("NAdam", dict(lr=0.01), ["exp_avg_sq"]),
    ("RAdam", dict(lr=0.01), ["exp_avg_sq"]),
    ("RMSprop", dict(lr=0.01, centered=True), ["square_avg", "grad_avg"]),
    ("Adagrad", dict(lr=0.1), ["sum"]),
    ("Adadelta", dict(lr=0.5), ["square_avg"]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs,averages", _FUSED_RUNS)
def test_updates_fuse_their_multiply_adds_as_pytorch(name, kwargs, averages, dtype):
    # PyTorch's addcmul_ and lerp_ round once (fused multiply-adds); so do teachgrad's.
    # Rprop (addcmul_ and no square root) then agrees to the bit, parameters included; the
    # others' squared-gradient averages do (their parameters go through sqrt, which PyTorch
    # rounds differently in about 0.7 % of cases, or add_(x, alpha=a), which PyTorch fuses
    # and teachgrad keeps plain for speed: see ops/fused.py).
    def run(lib):
        rng = np.random.default_rng(0)
        p = lib.tensor(rng.standard_normal((5, 7)), dtype=getattr(lib, dtype),
                       requires_grad=True)
        c = lib.tensor(rng.standard_normal((5, 7)), dtype=getattr(lib, dtype))
        opt = getattr(lib.optim, name)([p], **kwargs)
        seen = []
        for _ in range(4):
            opt.zero_grad()
            # the gradient, 2pc or c, is exact in both (c where the averages are compared:
            # then they do not depend on parameters that went through sqrt)
            (p * c if averages else p * p * c).sum().backward()
            opt.step()
            if not averages:
                seen.append(p.detach().clone())
            seen += [opt.state[p][key].clone() for key in averages]
        return seen

    assert _bits(teachgrad, run) == _bits(torch, run)


# ----------------------------------------------------------------- state-dict hooks


def _hooked_run(lib) -> list:
    """Every state-dict hook kind registered (some with prepend), then a save and a load:
    what the hooks saw, in the order they ran, and what came out."""
    calls: list = []
    p = lib.tensor([1.0, -2.0], requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
    (p ** 2).sum().backward()
    opt.step()

    def pre(name):
        return lambda optimizer: calls.append((name, optimizer is opt))

    def post_save(name, replace=False):
        def hook(optimizer, state_dict):
            calls.append((name, sorted(state_dict), state_dict["param_groups"][0]["lr"]))
            if replace:
                return {**state_dict, "extra": name}
            state_dict["param_groups"][0]["lr"] = 0.5  # changed in place
            return None
        return hook

    def pre_load(name, replace=False):
        def hook(optimizer, state_dict):
            calls.append((name, sorted(state_dict), state_dict["param_groups"][0]["lr"]))
            if replace:
                groups = [{**g, "lr": 0.25} for g in state_dict["param_groups"]]
                return {"state": state_dict["state"], "param_groups": groups}
            state_dict["marker"] = True  # the hook's own shallow copy
            return None
        return hook

    opt.register_state_dict_pre_hook(pre("pre A"))
    opt.register_state_dict_pre_hook(pre("pre B"), prepend=True)
    handle = opt.register_state_dict_pre_hook(pre("removed"))
    handle.remove()
    opt.register_state_dict_post_hook(post_save("post A"))
    opt.register_state_dict_post_hook(post_save("post B", replace=True), prepend=True)
    saved = opt.state_dict()
    calls.append(("saved", sorted(saved), saved["param_groups"][0]["lr"]))

    fresh = lib.optim.SGD([p], lr=0.1, momentum=0.9)
    fresh.register_load_state_dict_pre_hook(pre_load("load pre A", replace=True))
    fresh.register_load_state_dict_pre_hook(pre_load("load pre B"), prepend=True)
    fresh.register_load_state_dict_post_hook(
        lambda optimizer: calls.append(("load post A", optimizer.param_groups[0]["lr"])))
    fresh.register_load_state_dict_post_hook(
        lambda optimizer: calls.append(("load post B", optimizer.param_groups[0]["lr"])),
        prepend=True)
    fresh.load_state_dict(saved)
    calls.append(("given dict unchanged", sorted(saved)))
    calls.append(("loaded lr", fresh.param_groups[0]["lr"]))
    return calls


def test_state_dict_hooks_run_as_in_pytorch():
    assert _hooked_run(teachgrad) == _hooked_run(torch)


def test_state_dict_hooks_survive_a_pickle_round_trip_as_empty_tables():
    import pickle

    p = teachgrad.tensor([1.0], requires_grad=True)
    opt = teachgrad.optim.Adam([p])
    opt.register_state_dict_pre_hook(print)
    copy = pickle.loads(pickle.dumps(opt))
    # hooks are not saved (PyTorch's __getstate__ keeps defaults, state, param_groups)
    assert len(copy._optimizer_state_dict_pre_hooks) == 0
    assert copy.state_dict()["param_groups"] == opt.state_dict()["param_groups"]


class _Discard:
    def write(self, text: str) -> int:
        return len(text)
