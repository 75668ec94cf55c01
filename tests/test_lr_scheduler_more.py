"""LinearLR, ConstantLR, PolynomialLR, SequentialLR, ChainedScheduler,
CosineAnnealingWarmRestarts, CyclicLR and OneCycleLR: trajectories from their documented
formulas (derived by hand below), argument errors, state_dict, and (with torch installed)
40-epoch trajectories of learning rates and momentums equal to PyTorch's to the last bit."""

from __future__ import annotations

import math
import warnings

import pytest

import teachgrad as torch
from teachgrad.optim import lr_scheduler as S


def make_optimizer(lrs=(1.0,), lib=torch, kind="SGD"):
    """An optimizer with one parameter group per learning rate (SGD with momentum, or Adam)."""
    groups = [{"params": [lib.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs]
    if kind == "SGD":
        return lib.optim.SGD(groups, lr=lrs[0], momentum=0.9)
    return getattr(lib.optim, kind)(groups, lr=lrs[0])


def trajectory(optimizer, scheduler, epochs):
    """Each epoch's learning rates and momentums (SGD's momentum or Adam's beta1)."""
    lrs, momentums = [], []
    for _ in range(epochs):
        lrs.append(scheduler.get_last_lr())
        assert lrs[-1] == [g["lr"] for g in optimizer.param_groups]
        momentums.append([g["betas"][0] if "betas" in g else g.get("momentum")
                          for g in optimizer.param_groups])
        optimizer.step()
        scheduler.step()
    return lrs, momentums


def first_group(lrs):
    return [lr[0] for lr in lrs]


# ----------------------------------------------------------------------------------------
# By hand
# ----------------------------------------------------------------------------------------
def test_constant_lr_by_hand():
    opt = make_optimizer((0.8,))
    lrs, _ = trajectory(opt, S.ConstantLR(opt, factor=0.25, total_iters=3), 6)
    assert first_group(lrs) == pytest.approx([0.2, 0.2, 0.2, 0.8, 0.8, 0.8], rel=1e-15)


def test_linear_lr_by_hand():
    opt = make_optimizer((1.0,))
    sched = S.LinearLR(opt, start_factor=0.2, end_factor=0.8, total_iters=4)
    lrs, _ = trajectory(opt, sched, 7)
    # factor(t) = 0.2 + 0.6·min(t, 4)/4
    assert first_group(lrs) == pytest.approx([0.2, 0.35, 0.5, 0.65, 0.8, 0.8, 0.8], rel=1e-12)


def test_polynomial_lr_by_hand():
    opt = make_optimizer((2.0,))
    lrs, _ = trajectory(opt, S.PolynomialLR(opt, total_iters=5, power=0.5), 8)
    expected = [2.0 * (1 - min(t, 5) / 5) ** 0.5 for t in range(8)]
    assert first_group(lrs) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_closed_forms_with_an_epoch_argument():
    for make, closed in [
        (lambda o: S.LinearLR(o, start_factor=0.5, total_iters=4),
         lambda t: 0.5 + 0.5 * min(t, 4) / 4),
        (lambda o: S.ConstantLR(o, factor=0.5, total_iters=4), lambda t: 0.5 if t < 4 else 1),
        (lambda o: S.PolynomialLR(o, total_iters=4, power=2), lambda t: (1 - min(t, 4) / 4) ** 2),
    ]:
        opt = make_optimizer()
        sched = make(opt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in (3, 1, 6, 2):
                opt.step()
                sched.step(epoch)
                assert sched.get_last_lr()[0] == pytest.approx(closed(epoch), rel=1e-12)


def test_sequential_warmup_then_cosine_by_hand():
    opt = make_optimizer((1.0,))
    warmup = S.LinearLR(opt, start_factor=0.1, total_iters=3)
    cosine = S.CosineAnnealingLR(opt, T_max=4)
    sched = S.SequentialLR(opt, [warmup, cosine], milestones=[3])
    lrs, _ = trajectory(opt, sched, 9)
    # Epochs 0-2: 0.1, 0.4, 0.7 (linear); from epoch 3 the cosine restarts at the initial 1.0.
    cos = [(1 + math.cos(math.pi * t / 4)) / 2 for t in range(6)]
    assert first_group(lrs) == pytest.approx([0.1, 0.4, 0.7, *cos], rel=1e-12, abs=1e-15)


def test_chained_scheduler_multiplies_effects():
    opt = make_optimizer((1.0,))
    sched = S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=2),
                                S.ExponentialLR(opt, gamma=0.9)])
    lrs, _ = trajectory(opt, sched, 5)
    assert first_group(lrs) == pytest.approx([0.5, 0.45, 0.81, 0.729, 0.6561], rel=1e-12)


def test_warm_restarts_by_hand():
    opt = make_optimizer((1.0,))
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.1)
    lrs, _ = trajectory(opt, sched, 8)
    # Cycles of 2, 4, 8 ... epochs, each restarting at the initial rate.
    position = [(0, 2), (1, 2), (0, 4), (1, 4), (2, 4), (3, 4), (0, 8), (1, 8)]
    expected = [0.1 + 0.9 * (1 + math.cos(math.pi * t / T)) / 2 for t, T in position]
    assert first_group(lrs) == pytest.approx(expected, rel=1e-12)


def test_warm_restarts_fractional_epochs():
    opt = make_optimizer((1.0,))
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=2)
    opt.step()
    for epoch, (t_cur, t_i) in [(1.5, (1.5, 4)), (5.0, (1.0, 8)), (13.0, (1.0, 16))]:
        sched.step(epoch)
        assert (sched.T_cur, sched.T_i) == (t_cur, t_i)
        assert sched.get_last_lr()[0] == pytest.approx((1 + math.cos(math.pi * t_cur / t_i))
                                                       / 2)
    assert sched.last_epoch == 13
    with pytest.raises(ValueError, match="^Expected non-negative epoch, but got -1$"):
        sched.step(-1)


@pytest.mark.parametrize("mode,amplitudes", [
    ("triangular", [1, 1, 1]),
    ("triangular2", [1, 0.5, 0.25]),
])
def test_cyclic_lr_by_hand(mode, amplitudes):
    opt = make_optimizer((0.1,))
    sched = S.CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=2, step_size_down=2,
                       mode=mode)
    lrs, momentums = trajectory(opt, sched, 12)
    shape = [0, 0.5, 1, 0.5]  # up in 2 steps, down in 2
    expected = [0.1 + 0.4 * shape[t % 4] * amplitudes[t // 4] for t in range(12)]
    assert first_group(lrs) == pytest.approx(expected, rel=1e-12)
    # The momentum moves the other way: 0.9 at the bottom of the rate, 0.8 at its top.
    expected_m = [0.9 - 0.1 * shape[t % 4] * amplitudes[t // 4] for t in range(12)]
    assert first_group(momentums) == pytest.approx(expected_m, rel=1e-12)


def test_cyclic_exp_range_and_custom_scale_fn():
    opt = make_optimizer((0.1,))
    sched = S.CyclicLR(opt, base_lr=0.0, max_lr=1.0, step_size_up=1, mode="exp_range",
                       gamma=0.5, cycle_momentum=False)
    lrs, momentums = trajectory(opt, sched, 5)
    assert first_group(lrs) == pytest.approx([0, 0.5, 0, 0.125, 0], abs=1e-15)
    assert first_group(momentums) == [0.9] * 5  # cycle_momentum=False leaves it alone

    opt = make_optimizer((0.1,))
    sched = S.CyclicLR(opt, base_lr=0.0, max_lr=1.0, step_size_up=1, cycle_momentum=False,
                       scale_fn=lambda x: 1 / x, scale_mode="cycle")
    lrs, _ = trajectory(opt, sched, 6)
    assert first_group(lrs) == pytest.approx([0, 1, 0, 0.5, 0, 1 / 3], abs=1e-15)


@pytest.mark.parametrize("three_phase", [False, True])
def test_one_cycle_linear_by_hand(three_phase):
    opt = make_optimizer((0.1,))
    sched = S.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.4,
                         anneal_strategy="linear", div_factor=4.0, final_div_factor=2.5,
                         three_phase=three_phase)
    lrs, momentums = trajectory(opt, sched, 10)
    start, peak, end = 0.25, 1.0, 0.1  # max/div_factor, max, start/final_div_factor
    if not three_phase:
        # Up over steps 0..3 (end_step = 0.4·10 − 1), down over 3..9.
        expected = [start + (peak - start) * t / 3 for t in range(4)]
        expected += [peak + (end - peak) * (t - 3) / 6 for t in range(4, 10)]
    else:
        # Up over 0..3, back down to the start over 3..6, then to the end over 6..9.
        expected = [start + (peak - start) * t / 3 for t in range(4)]
        expected += [peak + (start - peak) * (t - 3) / 3 for t in range(4, 7)]
        expected += [start + (end - start) * (t - 6) / 3 for t in range(7, 10)]
    assert first_group(lrs) == pytest.approx(expected, rel=1e-12)
    assert momentums[0] == [0.95] and momentums[3] == [pytest.approx(0.85)]
    assert opt.param_groups[0]["max_lr"] == 1.0 and opt.param_groups[0]["min_lr"] == 0.1


def test_one_cycle_cos_and_adam_betas():
    opt = make_optimizer((0.1,), kind="Adam")
    sched = S.OneCycleLR(opt, max_lr=0.5, epochs=2, steps_per_epoch=5)
    lrs, betas = trajectory(opt, sched, 10)
    assert sched.total_steps == 10
    # Half a cosine from 0.5/25 to 0.5 over steps 0..2 (end_step = 0.3·10 − 1 = 2).
    assert lrs[1][0] == pytest.approx(0.5 + (0.02 - 0.5) / 2 * (math.cos(math.pi / 2) + 1))
    assert lrs[2][0] == pytest.approx(0.5)
    assert betas[0] == [0.95] and betas[2] == [pytest.approx(0.85)]
    assert opt.param_groups[0]["betas"][1] == 0.999  # beta2 untouched
    opt.step()
    with pytest.raises(ValueError, match="^Tried to step 11 times. The specified number of "
                       "total steps is 10\nHint: "):
        sched.step()


# ----------------------------------------------------------------------------------------
# Errors and saving
# ----------------------------------------------------------------------------------------
def test_bad_arguments():
    opt = make_optimizer()
    cases = [
        (lambda: S.ConstantLR(opt, factor=2), ValueError,
         "Constant multiplicative factor expected to be between 0 and 1."),
        (lambda: S.LinearLR(opt, start_factor=0), ValueError,
         "Starting multiplicative factor expected to be greater than 0 and less or equal "
         "to 1."),
        (lambda: S.LinearLR(opt, end_factor=1.5), ValueError,
         "Ending multiplicative factor expected to be between 0 and 1."),
        (lambda: S.CosineAnnealingWarmRestarts(opt, T_0=0), ValueError,
         "Expected positive integer T_0, but got 0"),
        (lambda: S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5), ValueError,
         "Expected integer T_mult >= 1, but got 1.5"),
        (lambda: S.CyclicLR(opt, 0.1, 1.0, mode="square"), ValueError,
         "mode is invalid and scale_fn is None"),
        (lambda: S.CyclicLR(opt, [0.1, 0.2], 1.0), ValueError,
         "base_lr must have the same length as optimizer.param_groups. base_lr has 2 "
         "values, param_groups has 1."),
        (lambda: S.CyclicLR(make_optimizer(kind="Adagrad"), 0.1, 1.0), ValueError,
         "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"),
        (lambda: S.OneCycleLR(opt, 1.0), ValueError,
         "You must define either total_steps OR (epochs AND steps_per_epoch)"),
        (lambda: S.OneCycleLR(opt, 1.0, total_steps=0), ValueError,
         "Expected positive integer total_steps, but got 0"),
        (lambda: S.OneCycleLR(opt, 1.0, epochs=2, steps_per_epoch=-1), ValueError,
         "Expected positive integer steps_per_epoch, but got -1"),
        (lambda: S.OneCycleLR(opt, 1.0, total_steps=5, pct_start=1), ValueError,
         "Expected float between 0 and 1 pct_start, but got 1"),
        (lambda: S.OneCycleLR(opt, 1.0, total_steps=5, anneal_strategy="exp"), ValueError,
         "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
        (lambda: S.SequentialLR(opt, [], []), ValueError,
         "SequentialLR expects at least one scheduler, but got no scheduler."),
        (lambda: S.SequentialLR(opt, [S.StepLR(opt, 2)], [3]), ValueError,
         "Sequential Schedulers expects number of schedulers provided to be one more than "
         "the number of milestone points, but got number of schedulers 1 and the number of "
         "milestones to be equal to 1"),
        (lambda: S.ChainedScheduler([]), ValueError,
         "ChainedScheduler expects at least one scheduler to be chained, but got no "
         "scheduler."),
        (lambda: S.ChainedScheduler([S.StepLR(opt, 2), S.ReduceLROnPlateau(opt)]), ValueError,
         "ChainedScheduler does not support `ReduceLROnPlateau` scheduler as it requires "
         "additional kwargs to be specified when calling `step`, but got one at index 1 in "
         "the given schedulers sequence."),
        (lambda: S.ChainedScheduler([S.StepLR(opt, 2), object()]), TypeError,
         "ChainedScheduler at index 1 should have `optimizer` as its attribute."),
    ]
    for make, error, message in cases:
        with pytest.raises(error) as info:
            make()
        assert str(info.value) == message


def test_sequential_rejects_a_scheduler_of_another_optimizer():
    opt, other = make_optimizer(), make_optimizer()
    with pytest.raises(ValueError, match="^SequentialLR expects all schedulers to belong to "
                       "the same optimizer, but got scheduler StepLR at index 1 has "):
        S.SequentialLR(opt, [S.StepLR(opt, 2), S.StepLR(other, 2)], [3])


def test_sequential_state_dict_resumes():
    def build(opt):
        return S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.5, total_iters=3),
                                    S.ExponentialLR(opt, gamma=0.8)], milestones=[3])

    opt = make_optimizer()
    sched = build(opt)
    trajectory(opt, sched, 5)
    saved_opt, saved = opt.state_dict(), sched.state_dict()
    assert "optimizer" not in saved and len(saved["_schedulers"]) == 2
    assert all("optimizer" not in inner for inner in saved["_schedulers"])
    rest, _ = trajectory(opt, sched, 6)

    # The usual recipe: build model, optimizer and scheduler, then load both states.
    opt2 = make_optimizer((5.0,))
    sched2 = build(opt2)
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved)
    assert trajectory(opt2, sched2, 6)[0] == rest


def test_cyclic_state_dict_keeps_callable_objects_only():
    class Halving:
        def __init__(self):
            self.base = 2.0

        def __call__(self, x):
            return 1 / self.base ** (x - 1)

    fn = Halving()
    opt = make_optimizer()
    sched = S.CyclicLR(opt, 0.1, 1.0, step_size_up=2, scale_fn=fn)
    fn.base = 3.0
    saved = sched.state_dict()
    assert saved["_scale_fn_custom"] == {"base": 3.0} and "_scale_fn_ref" not in saved
    other = Halving()
    sched2 = S.CyclicLR(make_optimizer(), 0.1, 1.0, step_size_up=2, scale_fn=other)
    sched2.load_state_dict(saved)
    assert other.base == 3.0 and "_scale_fn_custom" in saved
    plain = S.CyclicLR(make_optimizer(), 0.1, 1.0, mode="triangular2")
    assert plain.state_dict()["_scale_fn_custom"] is None


# ----------------------------------------------------------------------------------------
# Against real PyTorch
# ----------------------------------------------------------------------------------------
def _linear_then_cosine(module, opt):
    return module.SequentialLR(opt, [module.LinearLR(opt, start_factor=0.1, total_iters=5),
                                     module.CosineAnnealingLR(opt, T_max=12, eta_min=1e-3),
                                     module.StepLR(opt, step_size=3, gamma=0.5)],
                               milestones=[5, 25])


def _chained(module, opt):
    return module.ChainedScheduler([module.ConstantLR(opt, factor=0.3, total_iters=6),
                                    module.ExponentialLR(opt, gamma=0.95),
                                    module.CosineAnnealingWarmRestarts(opt, T_0=7)])


SCHEDULERS = {
    "ConstantLR": ("SGD", lambda m, o: m.ConstantLR(o, factor=0.3, total_iters=7)),
    "LinearLR": ("SGD", lambda m, o: m.LinearLR(o, start_factor=0.05, end_factor=0.9,
                                                total_iters=13)),
    "LinearLR_down": ("SGD", lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.0,
                                                     total_iters=30)),
    "PolynomialLR": ("SGD", lambda m, o: m.PolynomialLR(o, total_iters=25, power=1.7)),
    "WarmRestarts": ("SGD", lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                       eta_min=0.001)),
    "WarmRestarts_1": ("SGD", lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=9)),
    "Cyclic_triangular": ("SGD", lambda m, o: m.CyclicLR(o, 0.01, [0.1, 0.2],
                                                         step_size_up=4, step_size_down=7)),
    "Cyclic_triangular2": ("SGD", lambda m, o: m.CyclicLR(o, [0.01, 0.02], 0.1,
                                                          step_size_up=5,
                                                          mode="triangular2")),
    "Cyclic_exp_range_adam": ("Adam", lambda m, o: m.CyclicLR(
        o, 0.001, 0.01, step_size_up=3, mode="exp_range", gamma=0.97,
        base_momentum=0.85, max_momentum=0.95)),
    "Cyclic_no_momentum": ("Adagrad", lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=6,
                                                              cycle_momentum=False)),
    "OneCycle_cos": ("SGD", lambda m, o: m.OneCycleLR(o, max_lr=[0.5, 1.0], total_steps=40)),
    "OneCycle_linear_three_phase": ("SGD", lambda m, o: m.OneCycleLR(
        o, max_lr=0.3, epochs=4, steps_per_epoch=10, anneal_strategy="linear",
        three_phase=True, pct_start=0.25)),
    "OneCycle_adam": ("Adam", lambda m, o: m.OneCycleLR(o, max_lr=0.01, total_steps=45,
                                                        base_momentum=[0.8, 0.85],
                                                        div_factor=10.0)),
    "OneCycle_no_momentum": ("SGD", lambda m, o: m.OneCycleLR(o, max_lr=0.2, total_steps=40,
                                                              cycle_momentum=False)),
    "SequentialLR": ("SGD", _linear_then_cosine),
    "ChainedScheduler": ("SGD", _chained),
}


def plain(value):
    """A state_dict value with functions and tensors left out, for comparing."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (int, float, str, bool, type(None))):
        return value
    return type(value).__name__


@pytest.mark.torch
@pytest.mark.parametrize("name", SCHEDULERS)
def test_trajectory_matches_torch(name):
    real = pytest.importorskip("torch")
    kind, build = SCHEDULERS[name]
    runs = []
    for lib, module in ((torch, S), (real, real.optim.lr_scheduler)):
        opt = make_optimizer((0.1, 0.03), lib=lib, kind=kind)
        sched = build(module, opt)
        runs.append((opt, sched, trajectory(opt, sched, 40)))
    (opt, ours, ours_path), (twin, theirs, theirs_path) = runs
    assert ours_path == theirs_path  # learning rates and momentums, bit for bit
    assert ours.get_last_lr() == theirs.get_last_lr()
    assert plain(ours.state_dict()) == plain(theirs.state_dict())
    ours_groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    theirs_groups = [{k: v for k, v in g.items() if k != "params"} for g in twin.param_groups]
    assert ours_groups == theirs_groups


@pytest.mark.torch
@pytest.mark.parametrize("name", ["ConstantLR", "LinearLR", "PolynomialLR", "WarmRestarts"])
def test_epoch_argument_matches_torch(name):
    real = pytest.importorskip("torch")
    results = []
    for lib, module in ((torch, S), (real, real.optim.lr_scheduler)):
        opt = make_optimizer((0.1,), lib=lib)
        sched = SCHEDULERS[name][1](module, opt)
        lrs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [3, 7, 8, 15, 30, 2, 0, 4.5 if name == "WarmRestarts" else 4]:
                opt.step()
                sched.step(epoch)
                lrs.append(sched.get_last_lr())
        results.append(lrs)
    assert results[0] == results[1]


@pytest.mark.torch
def test_error_messages_match_torch():
    real = pytest.importorskip("torch")
    calls = [
        lambda m, o: m.ConstantLR(o, factor=-1),
        lambda m, o: m.LinearLR(o, start_factor=2),
        lambda m, o: m.LinearLR(o, end_factor=-1),
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=-2),
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="x"),
        lambda m, o: m.CyclicLR(o, 0.1, [1.0, 2.0, 3.0]),
        lambda m, o: m.OneCycleLR(o, 1.0, epochs=0, steps_per_epoch=2),
        lambda m, o: m.OneCycleLR(o, 1.0, total_steps=5, pct_start=1.5),
        lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2)], [1, 2]),
        lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2), m.ReduceLROnPlateau(o)], [1]),
    ]
    for call in calls:
        messages = []
        for lib, module in ((torch, S), (real, real.optim.lr_scheduler)):
            with pytest.raises((ValueError, TypeError)) as info:
                call(module, make_optimizer((0.1, 0.2), lib=lib))
            messages.append((type(info.value), str(info.value)))
        assert messages[0] == messages[1]
