"""``teachgrad.optim.lr_scheduler``: learning-rate trajectories from the documented
formulas (derived by hand below), bookkeeping (state_dict, resuming, warnings), and, with
torch installed, step-by-step equality with PyTorch's schedulers over 40 epochs."""

from __future__ import annotations

import doctest
import math
import warnings

import pytest

import teachgrad as torch
from teachgrad.optim import lr_scheduler as sched_module
from teachgrad.optim.lr_scheduler import (
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LRScheduler,
    MultiplicativeLR,
    MultiStepLR,
    ReduceLROnPlateau,
    StepLR,
)


def make_optimizer(lrs=(1.0,), lib=torch):
    """An SGD optimizer with one parameter group per learning rate."""
    groups = [{"params": [lib.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs]
    return lib.optim.SGD(groups, lr=lrs[0])


def trajectory(optimizer, scheduler, epochs):
    """The learning rates of each epoch, with steps in the recommended order."""
    lrs = []
    for _ in range(epochs):
        lrs.append(scheduler.get_last_lr())
        assert lrs[-1] == [g["lr"] for g in optimizer.param_groups]
        optimizer.step()
        scheduler.step()
    return lrs


def test_docstring_examples():
    assert doctest.testmod(sched_module).failed == 0


def test_reachable_under_pytorchs_spelling():
    import teachgrad

    assert teachgrad.optim.lr_scheduler.StepLR is StepLR
    assert issubclass(StepLR, LRScheduler)


def test_step_lr_by_hand():
    opt = make_optimizer((1.0, 0.1))
    lrs = trajectory(opt, StepLR(opt, step_size=3, gamma=0.5), 8)
    expected = [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25]
    assert [lr[0] for lr in lrs] == expected
    assert [lr[1] for lr in lrs] == pytest.approx([0.1 * e for e in expected])
    assert all(g["initial_lr"] == lr for g, lr in zip(opt.param_groups, (1.0, 0.1)))


def test_multistep_lr_repeated_milestone_counts_twice():
    opt = make_optimizer()
    lrs = trajectory(opt, MultiStepLR(opt, milestones=[2, 4, 4], gamma=0.1), 6)
    assert [lr[0] for lr in lrs] == pytest.approx([1, 1, 0.1, 0.1, 0.001, 0.001])


def test_exponential_and_lambda_and_multiplicative_by_hand():
    opt = make_optimizer()
    lrs = trajectory(opt, ExponentialLR(opt, gamma=0.9), 5)
    assert [lr[0] for lr in lrs] == pytest.approx([0.9 ** t for t in range(5)])

    opt = make_optimizer((2.0, 4.0))
    sched = LambdaLR(opt, [lambda t: 1 / (t + 1), lambda t: t])
    lrs = trajectory(opt, sched, 4)
    assert [lr[0] for lr in lrs] == pytest.approx([2.0, 1.0, 2 / 3, 0.5])
    assert [lr[1] for lr in lrs] == [0.0, 4.0, 8.0, 12.0]

    opt = make_optimizer()
    lrs = trajectory(opt, MultiplicativeLR(opt, lambda t: 0.5), 4)
    assert [lr[0] for lr in lrs] == [1.0, 0.5, 0.25, 0.125]


def test_cosine_annealing_follows_the_closed_form_up_and_down():
    opt = make_optimizer((0.1,))
    T, eta_min = 10, 0.001
    lrs = trajectory(opt, CosineAnnealingLR(opt, T_max=T, eta_min=eta_min), 35)
    # The documented curve; past T_max it rises again (a cosine, period 2 T_max).
    expected = [eta_min + (0.1 - eta_min) * (1 + math.cos(math.pi * t / T)) / 2
                for t in range(35)]
    assert [lr[0] for lr in lrs] == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_two_schedulers_chain_on_one_optimizer():
    opt = make_optimizer()
    first = ExponentialLR(opt, gamma=0.5)
    second = StepLR(opt, step_size=2, gamma=0.1)
    lrs = []
    for _ in range(4):
        opt.step()
        first.step()
        second.step()
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == pytest.approx([0.5, 0.025, 0.0125, 0.000625])


def test_state_dict_resumes_the_schedule():
    opt = make_optimizer()
    sched = CosineAnnealingLR(opt, T_max=7)
    trajectory(opt, sched, 4)
    saved_opt, saved = opt.state_dict(), sched.state_dict()
    assert "optimizer" not in saved and saved["last_epoch"] == 4
    rest = trajectory(opt, sched, 5)

    opt2 = make_optimizer((123.0,))
    opt2.load_state_dict(saved_opt)
    sched2 = CosineAnnealingLR(opt2, T_max=1)
    sched2.load_state_dict(saved)
    assert sched2.T_max == 7
    assert trajectory(opt2, sched2, 5) == rest


def test_lambda_state_dict_skips_functions_keeps_callable_objects():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate ** epoch

    opt = make_optimizer((1.0, 1.0))
    decay = Decay()
    sched = LambdaLR(opt, [lambda t: 1.0, decay])
    decay.rate = 0.25
    saved = sched.state_dict()
    assert saved["lr_lambdas"] == [None, {"rate": 0.25}]
    other = Decay()
    sched2 = LambdaLR(make_optimizer((1.0, 1.0)), [lambda t: 2.0, other])
    sched2.load_state_dict(saved)
    assert other.rate == 0.25 and "lr_lambdas" in saved


def test_resuming_with_last_epoch_needs_initial_lr():
    with pytest.raises(KeyError, match=r"param 'initial_lr' is not specified in "
                       r"param_groups\[0\] when resuming scheduler with last_epoch >= 0"):
        StepLR(make_optimizer(), step_size=2, last_epoch=3)
    opt = make_optimizer()
    opt.param_groups[0]["initial_lr"] = 1.0
    sched = StepLR(opt, step_size=2, gamma=0.5, last_epoch=3)  # constructor steps to 4
    assert sched.last_epoch == 4 and sched.get_last_lr() == [0.5]


def test_epoch_argument_uses_the_closed_form_and_warns():
    opt = make_optimizer()
    sched = StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
        sched.step(5)
    assert sched.get_last_lr() == [0.25] and sched.last_epoch == 5


def test_warns_when_scheduler_steps_before_optimizer():
    opt = make_optimizer()
    sched = StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before "
                      r"`optimizer.step\(\)`"):
        sched.step()
    opt = make_optimizer()
    sched = StepLR(opt, step_size=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()  # the right order: no warning
        opt.step()
        sched.step()


def test_get_lr_outside_step_warns():
    opt = make_optimizer()
    sched = ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_bad_arguments():
    with pytest.raises(TypeError, match=r"^list is not an Optimizer\nHint: "):
        StepLR([torch.zeros(1)], step_size=3)
    with pytest.raises(ValueError, match="^Expected 1 lr_lambdas, but got 2$"):
        LambdaLR(make_optimizer(), [lambda t: 1, lambda t: 2])
    with pytest.raises(TypeError, match="^lr_lambda should be a function, but got float"):
        MultiplicativeLR(make_optimizer(), 0.5)
    with pytest.raises(ValueError, match=r"^Factor should be < 1.0.$"):
        ReduceLROnPlateau(make_optimizer(), factor=1.0)
    with pytest.raises(ValueError, match="^mode x is unknown!$"):
        ReduceLROnPlateau(make_optimizer(), mode="x")
    with pytest.raises(ValueError, match="^expected 1 min_lrs, got 2$"):
        ReduceLROnPlateau(make_optimizer(), min_lr=[0, 0])


def test_reduce_on_plateau_by_hand():
    opt = make_optimizer()
    sched = ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1, min_lr=0.2)
    losses = [5, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3]
    lrs = []
    for loss in losses:
        sched.step(torch.tensor(float(loss)))  # a 0-dim tensor metric is accepted
        lrs.append(sched.get_last_lr()[0])
    # 3 bad epochs (> patience 2) -> halve; then 1 cooldown epoch during which bad epochs
    # are not counted; then 3 more bad epochs -> halve again ... never below min_lr 0.2.
    assert lrs == [1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25]
    assert sched.best == 3 and sched.last_epoch == len(losses)


def test_reduce_on_plateau_max_mode_abs_threshold():
    opt = make_optimizer()
    sched = ReduceLROnPlateau(opt, mode="max", threshold=0.1, threshold_mode="abs",
                              patience=0, factor=0.1)
    sched.step(0.5)
    sched.step(0.55)  # not better by more than 0.1: a bad epoch, patience 0 -> reduce
    assert sched.get_last_lr() == pytest.approx([0.1])
    sched.step(0.7)
    assert sched.best == 0.7


# ----------------------------------------------------------------------------------------
# Against real PyTorch: the same learning rate, epoch after epoch, to the last bit
# ----------------------------------------------------------------------------------------
SCHEDULERS = {
    "StepLR": dict(step_size=4, gamma=0.7),
    "MultiStepLR": dict(milestones=[3, 9, 9, 20], gamma=0.3),
    "ExponentialLR": dict(gamma=0.93),
    "CosineAnnealingLR": dict(T_max=12, eta_min=0.002),
    "LambdaLR": dict(lr_lambda=lambda epoch: 1 / (1 + 0.3 * epoch)),
    "MultiplicativeLR": dict(lr_lambda=lambda epoch: 0.95),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", SCHEDULERS)
def test_trajectory_matches_torch(name):
    real = pytest.importorskip("torch")
    ours_opt = make_optimizer((0.1, 0.03))
    theirs_opt = make_optimizer((0.1, 0.03), lib=real)
    ours = getattr(sched_module, name)(ours_opt, **SCHEDULERS[name])
    theirs = getattr(real.optim.lr_scheduler, name)(theirs_opt, **SCHEDULERS[name])
    assert trajectory(ours_opt, ours, 40) == trajectory(theirs_opt, theirs, 40)
    assert ours.last_epoch == theirs.last_epoch
    assert ours.state_dict().keys() == theirs.state_dict().keys()


@pytest.mark.torch
@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR",
                                  "CosineAnnealingLR"])
def test_closed_form_with_epoch_argument_matches_torch(name):
    real = pytest.importorskip("torch")
    results = []
    for lib, module in ((torch, sched_module), (real, real.optim.lr_scheduler)):
        opt = make_optimizer((0.1,), lib=lib)
        sched = getattr(module, name)(opt, **SCHEDULERS[name])
        lrs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [3, 7, 8, 15, 30, 2]:
                opt.step()
                sched.step(epoch)
                lrs.append(sched.get_last_lr())
        results.append(lrs)
    assert results[0] == results[1]


@pytest.mark.torch
def test_reduce_on_plateau_matches_torch():
    real = pytest.importorskip("torch")
    metrics = [1.0, 0.9, 0.95, 0.91, 0.9, 0.89999, 0.92, 0.93, 0.8, 0.81, 0.82, 0.83,
               0.84, 0.85, 0.79, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8] * 2
    kwargs = dict(patience=2, cooldown=1, factor=0.3, min_lr=[1e-4, 0.01], threshold=1e-3)
    runs = []
    for lib, module in ((torch, sched_module), (real, real.optim.lr_scheduler)):
        opt = make_optimizer((0.1, 0.05), lib=lib)
        sched = module.ReduceLROnPlateau(opt, **kwargs)
        runs.append([(sched.step(m), sched.get_last_lr())[1] for m in metrics])
    assert runs[0] == runs[1]


@pytest.mark.torch
def test_warnings_match_torch():
    real = pytest.importorskip("torch")
    messages = []
    for lib, module in ((torch, sched_module), (real, real.optim.lr_scheduler)):
        opt = make_optimizer(lib=lib)
        sched = module.StepLR(opt, step_size=2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()  # before optimizer.step()
            sched.get_lr()
            sched.step(3)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 3
