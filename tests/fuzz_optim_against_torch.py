"""Differential testing of ``optim`` and ``optim.lr_scheduler``: random training runs
executed with PyTorch and with teachgrad.

From a seed this script writes a small training script: a few parameters of random shapes
(0-d to 3-d, float32 and float64), an optimizer drawn from all fourteen with random
hyperparameters (every documented keyword: ``lr`` as a number or a 0-d tensor, momentum,
betas, eps, weight decay, amsgrad, maximize, ``foreach``/``fused`` None or False, ...)
in one to three parameter groups with per-group overrides, sometimes a learning-rate
scheduler drawn from all fifteen (``SequentialLR`` and ``ChainedScheduler`` over two
others, ``last_epoch`` resumed), then a few training steps -- ``zero_grad`` with a random
``set_to_none``, a random loss in which some parameters take no part (their ``.grad``
stays None), ``backward``, ``step`` (with a closure for LBFGS), ``scheduler.step`` --
with an ``add_param_group`` now and then, ``state_dict()``/``load_state_dict()`` round
trips into a fresh optimizer, and probes that must fail: invalid hyperparameters
(a negative lr, betas out of range, a string where a number goes ...) and invalid call
orders (a scheduler stepped past its end, a state dict of another layout ...).

The script is run afresh twice, once with ``torch`` the real PyTorch and once with
``torch`` bound to teachgrad, statement by statement. After each statement the same
things are described: every parameter and its ``.grad``, ``optimizer.state_dict()``
(keys, param_groups, state tensors by dtype, shape and value), the scheduler's
``get_last_lr()`` and ``last_epoch``, the loss, the statement's exception (type and
message, ``teachgrad`` read as ``torch``; teachgrad may add one ``Hint:`` line) and its
warnings. The first statement whose descriptions differ is a mismatch; its category is
what differed. The program is then shrunk (each statement dropped in turn while the
mismatch stays) and printed as Python source.

Run ``python tests/fuzz_optim_against_torch.py --seeds 0:500 [--optimizers Adam,SGD]
[--verbose]``. Known, deliberate differences are not generated, each with a comment
naming why (``SKIPS`` below), so a clean run means something.
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import random
import re
import sys
import warnings
from dataclasses import dataclass

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_against_torch as _core  # noqa: E402  (the core fuzzer: message normalising)

# Deliberate differences, kept out of the generated programs (the reason is printed in
# the summary so a reader knows what a clean run does not cover).
SKIPS = [
    # teachgrad's optimizers update in place under no_grad; it refuses differentiable=True
    # at construction (NotImplementedError) where PyTorch builds an optimizer whose step
    # is recorded by autograd.
    "differentiable=True is refused by teachgrad",
    # capturable=True and fused=True are CUDA-graph / fused-kernel switches with no meaning
    # on NumPy (and foreach=True is the same loop written with foreach kernels).
    "capturable=True, fused=True, foreach=True not drawn",
    # LBFGS on float32 parameters: near the minimum its curvature pairs (s, y) are made of
    # rounding errors, and its line search branches on them (ro = 1/(y·s) of 5e5 seen), so
    # PyTorch and teachgrad, rounding differently in the last bit, go different ways.
    # Float64 runs agree.
    "LBFGS draws float64 parameters only",
    # Centred RMSprop with a small alpha: after one step v - a² = α(1-α)g², the difference
    # of two numbers 1/α times larger, so rounding errors grow by 1/α (float32: 1e-4 at
    # α = 0.001). At alpha=0 it is 0 in exact arithmetic and only the rounding residual of
    # g² is left (1e-16, of either sign), whose square root divides the step: 1e5 or nan
    # by the last bit of g. teachgrad's p.add_(buf, alpha=-lr) rounds twice where
    # PyTorch's rounds once (ops/fused.py: kept unfused for speed), a last-bit difference
    # that the next step magnifies so (seed 23704; the float32 cases of earlier rounds).
    "RMSprop draws alpha >= 0.1 (a smaller one is raised by 0.1)",
]

# Single programs whose difference is explained and not teachgrad's to fix (seed: reason).
# They are run and reported as known, not counted as mismatches.
KNOWN = {
    # LBFGS (float64, strong_wolfe) near the minimum of 2.005·cosh(p + 0.946): the losses
    # its line search compares differ by 1e-9 relative, and NumPy's cosh differs from
    # PyTorch's in the last bit (2.005001436987946 against ...454 at the same p), so the
    # zoom's cubic picks another point from the eighth evaluation of the third step on.
    22440: "LBFGS: cosh's last bit steers the line search near the minimum",
    # Muon (3x3, float32 and float64 alike): at the fourth step one Newton–Schulz
    # intermediate rounds to the neighbouring bfloat16 value, a difference of lr·2⁻⁸ =
    # 4e-4 in some weights: teachgrad's emulation (optim/muon.py, which documents this
    # for large matrices) rounds b·G + c·G² in float32 before bfloat16. Open: not fixed.
    39975: "Muon: one bfloat16 rounding of the Newton-Schulz iteration (open)",
    # ASGD with lr a float32 0-d tensor: eta = lr / (1 + lambd·lr·step) ** 0.75 runs on
    # float32 tensors, and NumPy's float32 power rounds 1.0000050 ** 0.75 (31.5 ulps above
    # 1, less 2e-5 ulp) up where PyTorch's rounds it down: eta differs by one ulp, the
    # parameters by 1e-9 relative at the next step, beyond the float64 tolerance. Open:
    # teachgrad's float32 pow is NumPy's.
    46481: "ASGD: float32 x ** 0.75 one ulp from PyTorch's in eta (open)",
    # Muon again (3x3 float64, momentum 0.045, second step): the third Newton–Schulz
    # step's X = addmm(X, G, X, beta=a) rounds one element to the neighbouring bfloat16
    # value, then the rest follows (up to 2e-5 = lr·5·2⁻⁸ in the weights). Computing a·X + G·X
    # in float64 before float32 and bfloat16 gives PyTorch's value there, but no one
    # formula tried (float32 or float64, either summation order) matches PyTorch's
    # bfloat16 addmm on all of 40000 small random cases: its kernel's order is not
    # reproduced. Open, as 39975.
    54518: "Muon: one bfloat16 rounding of the Newton-Schulz iteration (open)",
    # Muon (2x3 float32 behind tanh().mean()): the optimizer is not at fault. PyTorch's
    # tanh_backward computes g·(1 − y·y) with 1 − y·y fused (one rounding), teachgrad's
    # rounds y·y first: one gradient element is one ulp off (0.060058802 against
    # 0.060058799 at y = tanh(1.098)), which moves one Newton–Schulz value to the
    # neighbouring bfloat16 (2e-4 = lr·2⁻⁸ in the weights). ops/fused.py's exact
    # multiply_add would match it but costs 17x the plain formula on a hot backward: open.
    75150: "Muon: tanh's backward one ulp from PyTorch's fused 1 - y*y (open)",
    # LBFGS (float64, strong_wolfe) on cosh(p).sum(), as 22440: the first step's last
    # point differs from PyTorch's in the last bit (0.07141310850589519 against ...520),
    # the losses near the minimum then differ by 1e-16 (4.0000132588862850 against ...86),
    # and the third step's zoom tries another point: 27 function evaluations for 23.
    76707: "LBFGS: last bits steer the strong-Wolfe line search near the minimum",
    # LBFGS (float64, strong_wolfe, history_size 1) on cosh, as 22440 and 76707: the
    # losses of the first step agree, but cosh's gradient, sinh, is NumPy's, which differs
    # from PyTorch's in the last bit (2.767331422199647 against ...6463); the second
    # step's losses then differ by 1 ulp (6.628022406383374 against ...375), and the third
    # step's zoom picks another point.
    92236: "LBFGS: sinh's last bit steers the strong-Wolfe line search",
    # RMSprop (float32 p1 behind tanh().mean(), weight_decay 0.01): the optimizer is not at
    # fault. NumPy's float32 tanh is one ulp from the correctly rounded value that PyTorch
    # gives (tanh(-1.97): -0.96184558 against -0.96184564), 1 - y² then loses most of its
    # digits (16 ulps in the gradient 0.0124755), and grad + 0.01·p cancels again
    # (0.0174239 - 0.01795 = -0.00053): 4e-4 relative in a momentum buffer at step 2.
    # Open: teachgrad's float32 transcendental functions are NumPy's.
    80616: "RMSprop: NumPy's float32 tanh one ulp from PyTorch's, magnified (open)",
    # Centred RMSprop (float32 p0 behind p0 * p0.detach().cos(), lr 0.5, momentum 0.593):
    # NumPy's float32 cos is one ulp from the correctly rounded value that PyTorch gives
    # (cos(-0.818): 0.68368208 against 0.68368214), so the first gradient differs in the
    # last bit, and four steps of large, centred, momentum updates (cos of parameters that
    # moved to -10) grow it to 1e-4 in square_avg. Open, as 80616.
    84725: "RMSprop: NumPy's float32 cos one ulp from PyTorch's, magnified (open)",
    # Centred RMSprop again (alpha 0.141, float32 p0 behind sin().sum()): the gradients
    # cos(p0) differ in the last bit (cos(0.26): 0.96638995 against PyTorch's 0.96639001;
    # here NumPy's is the correctly rounded one), and with a nearly constant gradient
    # v - a² is a small difference of large numbers that divides the step: 7e-5 in p0
    # after five steps.
    104661: "RMSprop: float32 cos one ulp apart, magnified by centred RMSprop (open)",
    # Muon (3x3 float64 p2, nesterov, first step): the gradients agree to the bit; the
    # update differs by up to 1.2e-5 (lr·5·2⁻⁸ at most), one Newton–Schulz value rounded to
    # the neighbouring bfloat16, as 39975 and 54518. Open.
    113976: "Muon: one bfloat16 rounding of the Newton-Schulz iteration (open)",
    # Centred RMSprop (alpha 0.12, momentum 0.721) behind p0 * p0.detach().cos(), as 84725:
    # NumPy's float32 cos(-1.0) is 0.54030228 where PyTorch's is 0.54030234; four steps
    # grow it to 5e-5 in square_avg. Open, as 80616.
    117655: "RMSprop: NumPy's float32 cos one ulp from PyTorch's, magnified (open)",
    # Muon again (hcompat4's run 117700-127700): 122607 (float64, nesterov, ns_steps=4)
    # differs at its first step by up to 8e-6 in p1; 121126 (float32, CyclicLR, five
    # steps) by up to 2.2e-4 in p1, within lr·5·2⁻⁸ a step. Only Muon's step differs in
    # both, as in 39975, 54518 and 113976; not traced further. Open.
    121126: "Muon: one bfloat16 rounding of the Newton-Schulz iteration (open)",
    122607: "Muon: one bfloat16 rounding of the Newton-Schulz iteration (open)",
    # And 129077 (127700-133700): 3x3 float64 p3, ns_steps=4, weight decay, fourth step,
    # up to 1e-5 in p3; only Muon's step differs. Open, as above.
    129077: "Muon: one bfloat16 rounding of the Newton-Schulz iteration (open)",
}

OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
              "RAdam", "ASGD", "LBFGS", "Rprop", "Adafactor", "Muon"]

SCHEDULERS = ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
              "CosineAnnealingWarmRestarts", "CyclicLR", "OneCycleLR", "LinearLR",
              "ConstantLR", "PolynomialLR", "LambdaLR", "MultiplicativeLR",
              "ReduceLROnPlateau", "SequentialLR", "ChainedScheduler"]

# optimizers with a momentum (or beta1) that CyclicLR / OneCycleLR can cycle
HAS_MOMENTUM = {"SGD", "RMSprop", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Muon"}


@dataclass
class Statement:
    """One statement of a program (``op``: what kind of statement, for the summary)."""

    source: str
    op: str


# --------------------------------------------------------------------------- generating


class Generator:
    """Writes one random training program from a seed."""

    def __init__(self, seed: int, optimizers: list[str] | None = None) -> None:
        self.rng = random.Random(seed)
        self.statements: list[Statement] = []
        self.name = self.rng.choice(optimizers or OPTIMIZERS)
        self.params: list[tuple[str, tuple, str]] = []  # (name, shape, dtype)
        self.groups: list[list[str]] = []  # the names in each parameter group
        self.sched: str | None = None

    def emit(self, source: str, op: str) -> None:
        self.statements.append(Statement(source, op))

    # -- numbers ---------------------------------------------------------------------
    def number(self, low: float, high: float, digits: int = 3) -> float:
        return round(self.rng.uniform(low, high), digits)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # -- parameters ------------------------------------------------------------------
    def new_param(self) -> str:
        name = f"p{len(self.params)}"
        if self.name == "Muon" and not self.chance(0.05):
            shape = (self.rng.randint(1, 3), self.rng.randint(1, 3))
        else:
            shape = self.rng.choice([(), (1,), (3,), (2, 3), (3, 1), (2, 1, 2), (4,)])
        dtype = self.rng.choice(["float32", "float64"])
        if self.name == "LBFGS":
            dtype = "float64"  # (SKIPS: float32 rounding steers LBFGS's line search)
        values = np.array([self.number(-2, 2) for _ in range(math.prod(shape))])
        literal = _nested(values.tolist(), shape)
        self.params.append((name, shape, dtype))
        self.emit(f"{name} = torch.tensor({literal}, dtype=torch.{dtype}, "
                  "requires_grad=True)", "param")
        return name

    # -- hyperparameters -------------------------------------------------------------
    def lr(self, tensor_ok: bool = True) -> str:
        value = self.rng.choice([0.001, 0.01, 0.05, 0.1, self.number(0.001, 0.3, 4)])
        if tensor_ok and self.name not in ("Muon",) and self.chance(0.15):
            return f"torch.tensor({value})"
        return repr(value)

    def hyper(self) -> dict[str, str]:
        """Random keyword arguments (as source) for this program's optimizer."""
        r, n = self.rng, self.name
        kw: dict[str, str] = {}
        maybe = self.chance
        if maybe(0.8):
            kw["lr"] = self.lr()
        if n not in ("LBFGS", "Muon", "Rprop") and maybe(0.5):
            kw["weight_decay"] = repr(r.choice([0, 0.0, 0.01, self.number(0, 0.2)]))
        if n not in ("LBFGS", "Muon") and maybe(0.3):
            kw["maximize"] = repr(r.choice([True, False]))
        if n not in ("LBFGS", "Muon") and maybe(0.2):
            kw["foreach"] = repr(r.choice([None, False]))
        if n in ("SGD", "Adam", "AdamW", "Adagrad") and maybe(0.2):
            kw["fused"] = repr(r.choice([None, False]))
        if n not in ("LBFGS", "Muon", "SGD", "Adagrad", "Adafactor") and maybe(0.15):
            kw["capturable"] = "False"
        if n not in ("LBFGS", "Muon", "Adafactor") and maybe(0.15):
            kw["differentiable"] = "False"
        if n in ("Adam", "AdamW", "Adamax", "NAdam", "RAdam") and maybe(0.6):
            kw["betas"] = f"({self.number(0, 0.99)}, {self.number(0.5, 0.999)})"
        if n in ("Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad",
                 "Adadelta", "Muon") and maybe(0.4):
            kw["eps"] = repr(r.choice([1e-8, 1e-6, 0.0, self.number(0, 0.1)]))
        if n in ("Adam", "AdamW") and maybe(0.5):
            kw["amsgrad"] = repr(r.choice([True, False]))
        if n in ("Adam", "NAdam", "RAdam") and maybe(0.4):
            kw["decoupled_weight_decay"] = repr(r.choice([True, False]))
        if n == "SGD":
            if maybe(0.6):
                kw["momentum"] = repr(r.choice([0, 0.9, self.number(0, 1)]))
            if maybe(0.3):
                kw["dampening"] = repr(r.choice([0, self.number(0, 1)]))
            if maybe(0.4) and float(kw.get("momentum", "0")) > 0 and \
                    float(kw.get("dampening", "0")) == 0:
                kw["nesterov"] = "True"
        if n == "RMSprop":
            for key, value in (("alpha", self.number(0, 1)), ("momentum", self.number(0, 1)),
                               ("centered", r.choice([True, False]))):
                if maybe(0.5):
                    kw[key] = repr(value)
            if float(kw.get("alpha", 1)) < 0.1:  # (SKIPS: centred variance cancels)
                kw["alpha"] = repr(round(float(kw["alpha"]) + 0.1, 3))
        if n == "Adagrad":
            if maybe(0.5):
                kw["lr_decay"] = repr(self.number(0, 0.5))
            if maybe(0.5):
                kw["initial_accumulator_value"] = repr(self.number(0, 1))
        if n == "Adadelta" and maybe(0.5):
            kw["rho"] = repr(self.number(0, 1))
        if n == "NAdam" and maybe(0.5):
            kw["momentum_decay"] = repr(self.number(0, 0.01, 4))
        if n == "ASGD":
            for key, value in (("lambd", self.number(0, 0.01, 4)),
                               ("alpha", self.number(0, 1)),
                               ("t0", float(r.choice([0, 1, 2, 1e6])))):
                if maybe(0.5):
                    kw[key] = repr(value)
        if n == "Rprop":
            if maybe(0.5):
                kw["etas"] = f"({self.number(0.1, 0.9)}, {self.number(1.1, 2)})"
            if maybe(0.5):
                kw["step_sizes"] = f"({self.number(0, 0.01, 4)}, {self.number(0.5, 50)})"
        if n == "Adafactor":
            if maybe(0.4):
                kw["beta2_decay"] = repr(self.number(-1, -0.1))
            if maybe(0.4):
                kw["eps"] = f"({r.choice([None, 1e-6])}, {self.number(0, 0.01, 4)})"
            if maybe(0.4):
                kw["d"] = repr(self.number(0.5, 2))
        if n == "LBFGS":
            # a few iterations a step, so that a run ends before the minimum: there the loss
            # is a quadratic to rounding, the line search's cubic degenerate (d2² = 0 up to
            # rounding), and which branch it takes is the last bit's choice
            kw["max_iter"] = repr(r.randint(1, 3))
            for key, value in (("history_size", r.randint(1, 4)),
                               ("line_search_fn", r.choice([None, "strong_wolfe"])),
                               ("tolerance_grad", r.choice([1e-7, 1e-3])),
                               ("tolerance_change", r.choice([1e-9, 1e-4])),
                               ("max_eval", r.choice([None, 3, 8]))):
                if maybe(0.6):
                    kw[key] = repr(value)
        if n == "Muon":
            for key, value in (("momentum", self.number(0, 0.99)),
                               ("nesterov", r.choice([True, False])),
                               ("ns_steps", r.randint(1, 5)),
                               ("weight_decay", self.number(0, 0.2)),
                               ("adjust_lr_fn", r.choice([None, "original",
                                                          "match_rms_adamw"]))):
                if maybe(0.4):
                    kw[key] = repr(value)
        return kw

    def invalid(self) -> dict[str, str]:
        """Keyword arguments with one of them wrong (a value out of range or a wrong type)."""
        n = self.name
        bad = [("lr", "-0.1"), ("lr", "'0.1'"), ("lr", "torch.tensor([0.1, 0.2])")]
        if n in ("Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad",
                 "Adadelta", "Muon"):
            bad += [("eps", "-1e-8")]
        if n not in ("LBFGS", "Muon", "Rprop"):
            bad += [("weight_decay", "-0.01")]
        if n in ("Adam", "AdamW", "Adamax", "NAdam", "RAdam"):
            bad += [("betas", "(1.0, 0.999)"), ("betas", "(0.9, -0.1)"),
                    ("betas", "(-0.5, 0.9)"), ("betas", "(0.9, 1.0)")]
        if n == "SGD":
            bad += [("momentum", "-0.5"), ("nesterov", "True"),
                    ("dampening", "0.5, momentum=0.9, nesterov=True")]
        if n == "RMSprop":
            bad += [("alpha", "-0.1"), ("momentum", "-0.1")]
        if n == "Adagrad":
            bad += [("lr_decay", "-0.1"), ("initial_accumulator_value", "-0.1")]
        if n == "Adadelta":
            bad += [("rho", "1.5"), ("rho", "-0.1")]
        if n == "NAdam":
            bad += [("momentum_decay", "-0.1")]
        if n == "Rprop":
            bad += [("etas", "(1.5, 1.2)"), ("etas", "(0.5, 0.9)")]
        if n == "Adafactor":
            bad += [("beta2_decay", "0.5"), ("d", "-1.0"), ("eps", "(None, -1.0)")]
        if n == "LBFGS":
            bad += [("line_search_fn", "'armijo'"), ("max_iter", "0")]
        if n == "Muon":
            bad += [("momentum", "-0.1"), ("adjust_lr_fn", "'bogus'"), ("ns_steps", "100")]
        key, value = self.rng.choice(bad)
        kw = self.hyper()
        kw[key] = value
        return kw

    def group_overrides(self) -> dict[str, str]:
        keys = [k for k in self.hyper() if k not in ("foreach", "fused", "capturable",
                                                      "differentiable")]
        drawn = self.hyper()
        return {k: drawn[k] for k in keys if k in drawn and self.chance(0.5)}

    # -- the program -----------------------------------------------------------------
    def constructor(self, groups: list[list[str]], kw: dict[str, str],
                    overrides: list[dict[str, str]] | None = None) -> str:
        named = self.chance(0.15)  # (name, tensor) pairs, as model.named_parameters()

        def names_of(group):
            return ", ".join(f"({n!r}, {n})" if named else n for n in group)

        if len(groups) == 1 and not (overrides and overrides[0]) and self.chance(0.5):
            params = "[" + names_of(groups[0]) + "]"
        else:
            parts = []
            for i, names in enumerate(groups):
                extra = "".join(f", {k!r}: {v}" for k, v in (overrides or [{}] * 9)[i].items())
                parts.append("{'params': [" + names_of(names) + "]" + extra + "}")
            params = "[" + ", ".join(parts) + "]"
        args = "".join(f", {k}={v}" for k, v in kw.items())
        return f"torch.optim.{self.name}({params}{args})"

    def build(self) -> list[Statement]:
        r = self.rng
        for _ in range(r.randint(1, 4)):
            self.new_param()
        names = [p[0] for p in self.params]
        ngroups = 1 if self.name == "LBFGS" else r.randint(1, min(3, len(names)))
        cuts = sorted(r.sample(range(1, len(names)), ngroups - 1)) if ngroups > 1 else []
        self.groups = [names[a:b] for a, b in zip([0, *cuts], [*cuts, len(names)])]
        self.kw = self.hyper()
        overrides = [self.group_overrides() if len(self.groups) > 1 else {}
                     for _ in self.groups]
        if self.chance(0.25):
            self.emit(f"bad = {self.constructor([names[:1]], self.invalid())}", "invalid")
        self.emit(f"opt = {self.constructor(self.groups, self.kw, overrides)}", "optimizer")
        if self.chance(0.6):
            self.scheduler()
        self.loss_source = self.loss()
        if self.name == "LBFGS":
            self.emit("def closure():\n    opt.zero_grad()\n    loss = "
                      f"{self.loss_source}\n    loss.backward()\n    return loss", "closure")
        # (LBFGS: three steps of up to three iterations, which stay clear of the minimum)
        for _ in range(r.randint(1, 3 if self.name == "LBFGS" else 5)):
            self.train_step()
            roll = r.random()
            if roll < 0.12 and self.name != "LBFGS":
                self.add_group()
            elif roll < 0.3:
                self.round_trip()
            elif roll < 0.5:
                self.bad_call()
        return self.statements

    def loss(self) -> str:
        terms = []
        for name, _shape, _ in self.params:
            if self.chance(0.25):
                continue  # takes no part: its grad stays None
            if self.name == "LBFGS":
                # a smooth convex loss: on a linear or kinked one LBFGS runs away, and the
                # last bits of rounding decide where it ends; not a quadratic, on which the
                # line search's cubic is degenerate (rounding picks its branch)
                terms.append(f"({name} - {self.number(-1, 1)}).cosh().sum() * "
                             f"{self.number(0.1, 3)}")
                continue
            terms.append(self.rng.choice([
                f"({name} ** 2).sum()", f"({name} * {self.number(-2, 2)}).sum()",
                f"{name}.sin().sum()", f"({name} - {self.number(-1, 1)}).abs().sum()",
                f"{name}.tanh().mean()", f"({name} * {name}.detach().cos()).sum()",
                f"({name} ** 2).sum() * {self.number(0.1, 3)}"]))
        if not terms:
            terms = [f"{self.params[0][0]}.cosh().sum()"]
        return " + ".join(terms)

    def train_step(self) -> None:
        if self.name == "LBFGS":
            self.emit("loss = opt.step(closure)", "step")
        else:
            self.emit(f"opt.zero_grad(set_to_none={self.rng.choice([True, False])})",
                      "zero_grad")
            if self.chance(0.3):
                self.loss_source = self.loss()  # another loss: other parameters take part
            self.emit(f"loss = {self.loss_source}", "loss")
            self.emit("loss.backward()", "backward")
            self.emit("opt.step()", "step")
        if self.sched:
            if self.sched == "ReduceLROnPlateau":
                self.emit(f"sched.step({self.rng.choice(['loss.item()', '1.0', '2.0'])})",
                          "sched.step")
            else:
                self.emit("sched.step()", "sched.step")

    def add_group(self) -> None:
        name = self.new_param()
        extra = self.group_overrides()
        body = "".join(f", {k!r}: {v}" for k, v in extra.items())
        self.emit(f"opt.add_param_group({{'params': [{name}]{body}}})", "add_param_group")
        self.groups.append([name])

    def round_trip(self) -> None:
        kw = {k: v for k, v in self.kw.items()}
        self.emit(f"opt2 = {self.constructor(self.groups, kw)}\n"
                  "opt2.load_state_dict(opt.state_dict())", "load_state_dict")
        if not self.sched and self.chance(0.5):
            self.emit("opt = opt2", "load_state_dict")

    def bad_call(self) -> None:
        r = self.rng
        choices = [
            f"opt.add_param_group({{'params': [{self.params[0][0]}]}})",
            f"opt.add_param_group({{'params': {self.params[0][0]} * 2}})",
            "opt.add_param_group([1.0])",
            "opt.load_state_dict({'state': {}, 'param_groups': []})",
            "opt.load_state_dict({'state': {}, 'param_groups': [{'params': [0, 1, 2, 3, 4, "
            "5, 6]}] * len(opt.param_groups)})",
        ]
        first = self.params[0][0]
        choices += [
            f"opt.add_param_group({{'params': {{{first}}}}})",
            "opt.add_param_group({'params': [torch.tensor([1.0])]})",
            "opt.add_param_group({'params': [torch.tensor([1, 2])]})",
            "opt.add_param_group({'params': []})",
            "opt.add_param_group({'params': [1.0]})",
            f"opt.add_param_group({{'params': [('a', {first}), {first}]}})",
            "opt.step()",  # the gradients of the last step again (or none)
            "opt.zero_grad()\nopt.step()",
            "opt.state_dict()['param_groups'][0]['lr']",
            "opt.param_groups[0]['lr'] = 0.5",
            f"torch.optim.{self.name}({first})",
            f"torch.optim.{self.name}([])",
            f"torch.optim.{self.name}([{{'params': [{first}]}}, {{'params': [{first}]}}])",
        ]
        if self.name == "LBFGS":
            choices.append("opt.step()")
        if self.sched:
            choices += ["sched.get_lr()", "sched.state_dict()['last_epoch']",
                        "sched2 = sched\nsched2.load_state_dict(sched.state_dict())"]
        if self.sched and self.sched not in ("ReduceLROnPlateau",):
            choices.append(f"sched.step({self.rng.randint(0, 6)})")
        if self.sched == "ReduceLROnPlateau":
            choices += ["sched.step()", "sched.step('x')", "sched.step(float('nan'))"]
        if self.sched == "OneCycleLR":
            choices.append("for _ in range(30):\n    sched.step()")
        self.emit(r.choice(choices), "bad_call")

    # -- schedulers ------------------------------------------------------------------
    def scheduler(self) -> None:
        name = self.rng.choice(SCHEDULERS)
        if self.name == "LBFGS" and name == "CyclicLR":
            name = "StepLR"
        if name in ("SequentialLR", "ChainedScheduler"):
            inner = []
            for i in range(2):
                source = self.simple_scheduler(self.rng.choice(SCHEDULERS[:12]), resume=False)
                self.emit(f"s{i} = {source}", "scheduler")
                inner.append(f"s{i}")
            if name == "SequentialLR":
                milestones = [self.rng.randint(0, 4)]
                if self.chance(0.1):
                    milestones = [1, 2]  # one too many: refused
                source = (f"torch.optim.lr_scheduler.SequentialLR(opt, [{', '.join(inner)}], "
                          f"milestones={milestones})")
            else:
                extra = ", optimizer=opt" if self.chance(0.5) else ""
                source = f"torch.optim.lr_scheduler.ChainedScheduler([{', '.join(inner)}]{extra})"
        else:
            source = self.simple_scheduler(name, resume=True)
        self.emit(f"sched = {source}", "scheduler")
        self.sched = name

    def simple_scheduler(self, name: str, resume: bool) -> str:
        r, num = self.rng, self.number
        ngroups = len(self.groups)
        kw: dict[str, str] = {}
        if name == "StepLR":
            kw = {"step_size": repr(r.randint(1, 3)), "gamma": repr(num(0.1, 1))}
        elif name == "MultiStepLR":
            kw = {"milestones": repr(sorted(r.sample(range(1, 7), r.randint(1, 3)))),
                  "gamma": repr(num(0.1, 1))}
        elif name == "ExponentialLR":
            kw = {"gamma": repr(num(0.5, 1))}
        elif name == "CosineAnnealingLR":
            kw = {"T_max": repr(r.randint(1, 6)), "eta_min": repr(r.choice([0.0, 1e-4]))}
        elif name == "CosineAnnealingWarmRestarts":
            kw = {"T_0": repr(r.randint(1, 4)), "T_mult": repr(r.randint(1, 3)),
                  "eta_min": repr(r.choice([0.0, 1e-4]))}
        elif name == "CyclicLR":
            cycle = self.name in HAS_MOMENTUM and self.chance(0.6)
            kw = {"base_lr": repr(r.choice([0.001, [0.001] * ngroups])),
                  "max_lr": repr(r.choice([0.1, 0.05])),
                  "step_size_up": repr(r.randint(1, 3)),
                  "mode": repr(r.choice(["triangular", "triangular2", "exp_range"])),
                  "gamma": repr(num(0.5, 1)), "cycle_momentum": repr(cycle)}
            if self.chance(0.4):
                kw["step_size_down"] = repr(r.randint(1, 3))
        elif name == "OneCycleLR":
            kw = {"max_lr": repr(r.choice([0.1, [0.2] * ngroups])),
                  "pct_start": repr(num(0.1, 0.6)),
                  "anneal_strategy": repr(r.choice(["cos", "linear"])),
                  "three_phase": repr(r.choice([True, False])),
                  "cycle_momentum": repr(self.name in HAS_MOMENTUM and self.chance(0.5))}
            if self.chance(0.5):
                kw["total_steps"] = repr(r.randint(6, 12))
            else:
                kw["epochs"], kw["steps_per_epoch"] = repr(r.randint(2, 3)), repr(r.randint(3, 4))
            if self.chance(0.3):
                kw["div_factor"] = repr(num(2, 30))
                kw["final_div_factor"] = repr(num(10, 1e4))
        elif name == "LinearLR":
            kw = {"start_factor": repr(num(0.1, 1)), "end_factor": repr(num(0, 1)),
                  "total_iters": repr(r.randint(1, 5))}
        elif name == "ConstantLR":
            kw = {"factor": repr(num(0, 1)), "total_iters": repr(r.randint(1, 5))}
        elif name == "PolynomialLR":
            kw = {"total_iters": repr(r.randint(1, 5)), "power": repr(num(0.5, 2))}
        elif name == "LambdaLR":
            kw = {"lr_lambda": r.choice(["lambda e: 0.9 ** e", "lambda e: 1 / (e + 1)",
                                         "[lambda e: 0.5 ** e] * len(opt.param_groups)"])}
        elif name == "MultiplicativeLR":
            kw = {"lr_lambda": r.choice(["lambda e: 0.95", "lambda e: 0.5 if e % 2 else 1.0"])}
        elif name == "ReduceLROnPlateau":
            kw = {"mode": repr(r.choice(["min", "max"])), "factor": repr(num(0.1, 0.9)),
                  "patience": repr(r.randint(0, 2)), "threshold": repr(r.choice([1e-4, 0.1])),
                  "threshold_mode": repr(r.choice(["rel", "abs"])),
                  "cooldown": repr(r.randint(0, 2)),
                  "min_lr": repr(r.choice([0, 1e-3, [1e-4] * ngroups]))}
        if name in ("SequentialLR", "ChainedScheduler"):  # as an inner one: plain
            name, kw = "StepLR", {"step_size": "2"}
        if self.chance(0.15):
            kw.update(self.invalid_schedule(name))
        if resume and name not in ("ReduceLROnPlateau",) and self.chance(0.15):
            if self.chance(0.6):
                self.emit("for g in opt.param_groups:\n    g['initial_lr'] = g['lr']",
                          "initial_lr")
            kw["last_epoch"] = repr(r.randint(0, 3))
        args = "".join(f", {k}={v}" for k, v in kw.items())
        return f"torch.optim.lr_scheduler.{name}(opt{args})"

    def invalid_schedule(self, name: str) -> dict[str, str]:
        bad = {
            "StepLR": [("step_size", "0")],
            "ExponentialLR": [("gamma", "-0.5")],
            "CosineAnnealingWarmRestarts": [("T_0", "0"), ("T_mult", "0"), ("T_0", "2.5"),
                                            ("eta_min", "'x'")],
            "CyclicLR": [("mode", "'bogus'"), ("base_lr", "[0.1] * 7"),
                         ("cycle_momentum", "True")],
            "OneCycleLR": [("total_steps", "0"), ("pct_start", "1.5"),
                           ("anneal_strategy", "'bogus'"), ("epochs", "-1")],
            "LinearLR": [("start_factor", "1.5"), ("end_factor", "-0.1"),
                         ("start_factor", "0")],
            "ConstantLR": [("factor", "1.5")],
            "ReduceLROnPlateau": [("factor", "1.0"), ("mode", "'avg'"),
                                  ("threshold_mode", "'x'"), ("min_lr", "[0.1] * 7")],
            "LambdaLR": [("lr_lambda", "[lambda e: 1.0] * 7")],
            "MultiplicativeLR": [("lr_lambda", "[lambda e: 1.0] * 7")],
            "MultiStepLR": [("milestones", "[3, 1]")],
            "PolynomialLR": [("total_iters", "0")],
            "CosineAnnealingLR": [("T_max", "0")],
        }.get(name, [])
        return dict([self.rng.choice(bad)]) if bad else {}


def _nested(flat: list, shape: tuple) -> str:
    """``flat`` as a nested list literal of ``shape`` (a plain number for 0-d)."""
    if not shape:
        return repr(flat[0])
    step = math.prod(shape[1:])
    return "[" + ", ".join(_nested(flat[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def generate(seed: int, optimizers: list[str] | None = None) -> list[Statement]:
    """The program for ``seed`` (the same seed always gives the same program)."""
    return Generator(seed, optimizers).build()


def program_source(statements: list[Statement], library: str = "torch",
                   mark: int | None = None) -> str:
    """The program as a script a learner could paste (``library``: which torch to import)."""
    head = "import torch" if library == "torch" else "import teachgrad as torch"
    lines = [head]
    for i, s in enumerate(statements):
        lines.append(s.source + ("  # <-- differs here" if i == mark else ""))
    return "\n".join(lines)


# --------------------------------------------------------------------------- describing


# (teachgrad's own name and its one trailing Hint line hidden, as the core fuzzer does)
_normalise_message = _core._normalise_message


def describe_value(value, lib) -> object:
    """A comparable description: tensors by dtype, shape and values, containers by type."""
    if isinstance(value, lib.Tensor):
        data = value.detach().numpy().astype(np.float64).copy()
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape),
                bool(value.requires_grad), data)
    if value is None or isinstance(value, (bool, str)):
        return ("atom", value)
    if isinstance(value, (int, float)):
        return ("number", "int" if isinstance(value, int) else "float", float(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [describe_value(v, lib) for v in value])
    if isinstance(value, dict):
        return ("dict", [(repr(k), describe_value(v, lib)) for k, v in value.items()])
    if callable(value):
        return ("callable",)
    return ("other", type(value).__name__)


def describe(ns: dict, lib) -> dict[str, object]:
    """What the program's state looks like now: parameters and grads, the optimizers'
    state dicts, the scheduler's learning rates, the loss."""
    out: dict[str, object] = {}
    names = sorted(n for n in ns if re.fullmatch(r"p\d+", n))
    checks = [(f"{n}", lambda n=n: ns[n]) for n in names]
    checks += [(f"{n}.grad", lambda n=n: ns[n].grad) for n in names]
    if "loss" in ns:
        checks.append(("loss", lambda: ns["loss"]))
    for opt in ("opt", "opt2"):
        if opt in ns:
            checks.append((f"{opt}.state_dict()", lambda opt=opt: ns[opt].state_dict()))
    if "sched" in ns:
        checks.append(("sched.get_last_lr()", lambda: ns["sched"].get_last_lr()))
        checks.append(("sched.last_epoch", lambda: getattr(ns["sched"], "last_epoch", None)))
    for what, get in checks:
        try:
            out[what] = describe_value(get(), lib)
        except Exception as e:  # noqa: BLE001 - an error describing is compared too
            out[what] = ("raises", type(e).__name__, _normalise_message(str(e)))
    return out


# State that is scratch space, overwritten before it is read: compared by structure only.
# LBFGS's 'al' holds the two-loop recursion's coefficients, which cancel to about 0 when
# the history is nearly collinear (float32 rounding then decides their sign).
SCRATCH = {"'al'"}


def _same_structure(theirs, ours) -> bool:
    if theirs[0] != ours[0]:
        return False
    if theirs[0] == "tensor":
        return theirs[1:4] == ours[1:4]
    if theirs[0] in ("list", "tuple"):
        return len(theirs[1]) == len(ours[1]) and all(
            _same_structure(t, o) for t, o in zip(theirs[1], ours[1]))
    return theirs == ours


TOLERANCE = {"float32": (1e-4, 1e-6), "float64": (1e-6, 1e-9)}


def _close(theirs, ours, loose: bool = False) -> bool:
    if theirs[0] != ours[0]:
        return False
    kind = theirs[0]
    if kind == "tensor":
        _, t_dtype, t_shape, t_rg, t_data = theirs
        _, o_dtype, o_shape, o_rg, o_data = ours
        if (t_dtype, t_shape, t_rg) != (o_dtype, o_shape, o_rg):
            return False
        rtol, atol = TOLERANCE.get("float32" if loose else t_dtype, (0, 0))
        scale = max(1.0, float(np.max(np.abs(t_data[np.isfinite(t_data)]), initial=0.0)))
        return bool(np.allclose(t_data, o_data, rtol=rtol, atol=atol * scale, equal_nan=True))
    if kind == "number":
        a, b = theirs[2], ours[2]
        # (rel_tol: a number may be read from a float32 tensor, LBFGS's prev_loss)
        return theirs[1] == ours[1] and (math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-12)
                                         or (a != a and b != b))
    if kind in ("list", "tuple"):
        return len(theirs[1]) == len(ours[1]) and all(
            _close(t, o, loose) for t, o in zip(theirs[1], ours[1]))
    if kind == "dict":
        t_keys, o_keys = [k for k, _ in theirs[1]], [k for k, _ in ours[1]]
        if sorted(t_keys) != sorted(o_keys):
            return False
        o_map = dict(ours[1])
        return all(_close(v, o_map[k], loose) or (k in SCRATCH and _same_structure(v, o_map[k]))
                   for k, v in theirs[1])
    return theirs == ours


def _first_difference(theirs, ours, path: str = "") -> str:
    """Where in two descriptions they first differ, for the report."""
    if theirs[0] != ours[0] or theirs[0] not in ("list", "tuple", "dict"):
        return f"{path}: torch {_show(theirs)}  teachgrad {_show(ours)}"
    if theirs[0] == "dict":
        t_map, o_map = dict(theirs[1]), dict(ours[1])
        if sorted(t_map) != sorted(o_map):
            return (f"{path} keys: torch {sorted(t_map)}  teachgrad {sorted(o_map)}")
        for k in t_map:
            if not _close(t_map[k], o_map[k]):
                return _first_difference(t_map[k], o_map[k], f"{path}[{k}]")
    if len(theirs[1]) != len(ours[1]):
        return f"{path} lengths: torch {len(theirs[1])}  teachgrad {len(ours[1])}"
    for i, (t, o) in enumerate(zip(theirs[1], ours[1])):
        if not _close(t, o):
            return _first_difference(t, o, f"{path}[{i}]")
    return path


def _show(desc) -> str:
    if desc[0] == "tensor":
        return f"tensor({desc[1]}, {desc[2]}, rg={desc[3]}, {np.round(desc[4], 6).tolist()})"
    return repr(desc)


# --------------------------------------------------------------------------- running


def run_program(statements: list[Statement], lib) -> list[dict[str, object]]:
    """Run the statements with ``torch`` bound to ``lib``; after each, what it did and the
    program's state (an exception does not stop the program, as in a notebook)."""
    ns: dict[str, object] = {"torch": lib}
    results = []
    for s in statements:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # (teachgrad's own filter, which "always" replaced: NumPy's 1/0 warnings from
            # inside teachgrad's ops are silenced, as PyTorch gives inf without a word)
            warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"teachgrad\.")
            try:
                exec(compile(s.source, "<program>", "exec"), ns)
                outcome: object = ("ok",)
            except Exception as e:  # noqa: BLE001 - the error is what we compare
                outcome = ("raises", type(e).__name__, _normalise_message(str(e)))
        state = describe(ns, lib)
        state["exception"] = outcome
        state["warnings"] = ("list", [("atom", f"{w.category.__name__}: "
                                       f"{_normalise_message(str(w.message))}")
                                      for w in caught])
        results.append(state)
    return results


def compare(statements: list[Statement], torch, teachgrad) -> tuple[int, str, str] | None:
    """The first difference: (statement index, category, detail), or None."""
    theirs, ours = run_program(statements, torch), run_program(statements, teachgrad)
    # LBFGS re-evaluates the loss up to 25 times a step and stops where the loss no longer
    # changes: near the minimum rounding decides the last iterations; float32's precision
    lbfgs = any("optim.LBFGS(" in s.source for s in statements)
    for i, (t, o) in enumerate(zip(theirs, ours)):
        for what in [*t, *(k for k in o if k not in t)]:
            if what not in t or what not in o:
                return i, "describe", f"{what} only on one side"
            # the loss adds float32 and float64 terms: float32's precision
            if not _close(t[what], o[what], loose=lbfgs or what == "loss"):
                category = ("exception" if what == "exception" else "warning" if
                            what == "warnings" else what.split(".")[-1].split("[")[0])
                category = re.sub(r"^p\d+$", "param", category)
                return i, category, f"{what}{_first_difference(t[what], o[what])}"
    return None


def shrink(statements: list[Statement], found, torch, teachgrad):
    """Drop statements one at a time while a mismatch of the same category remains."""
    index, category, _ = found
    statements = statements[: index + 1]
    i = len(statements) - 2
    while i >= 0:
        trial = statements[:i] + statements[i + 1:]
        result = compare(trial, torch, teachgrad)
        if result is not None and result[1] == category:
            statements, found = trial, result
        i -= 1
    return statements, found


def fuzz(seeds, torch, teachgrad, optimizers=None, verbose=False, out=sys.stdout,
         shrink_cases=True):
    """Run every seed; returns the mismatches [(seed, category, op, source, detail)]."""
    mismatches = []
    for seed in seeds:
        statements = generate(seed, optimizers)
        found = compare(statements, torch, teachgrad)
        if found is not None and seed in KNOWN:
            out.write(f"seed {seed}: known difference: {KNOWN[seed]}\n")
            continue
        if found is None:
            if verbose:
                out.write(f"seed {seed}: ok ({statements[0].op} .. {len(statements)})\n")
            continue
        if shrink_cases:
            statements, found = shrink(statements, found, torch, teachgrad)
        index, category, detail = found
        source = program_source(statements, mark=index)
        op = statements[index].op
        name = Generator(seed, optimizers).name
        mismatches.append((seed, category, f"{name}/{op}", source, detail))
        out.write(f"\n=== seed {seed}: {category} at {name}/{op}\n{source}\n--- {detail}\n")
    return mismatches


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0:300", help="START:STOP, as a range")
    parser.add_argument("--optimizers", default=None,
                        help="comma-separated optimizer names to draw from")
    parser.add_argument("--no-shrink", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    import torch

    import teachgrad

    start, stop = (int(s) for s in args.seeds.split(":"))
    optimizers = args.optimizers.split(",") if args.optimizers else None
    unknown = [o for o in optimizers or [] if o not in OPTIMIZERS]
    if unknown:
        parser.error(f"unknown optimizers {unknown}; known: {OPTIMIZERS}")
    mismatches = fuzz(range(start, stop), torch, teachgrad, optimizers, args.verbose,
                      shrink_cases=not args.no_shrink)
    print(f"\n{stop - start} programs, {len(mismatches)} mismatches")
    for reason in SKIPS:
        print(f"  not generated: {reason}")
    for seed, reason in KNOWN.items():
        if start <= seed < stop:
            print(f"  known ({seed}): {reason}")
    for label, key in (("category", 1), ("where", 2)):
        counts = collections.Counter(m[key] for m in mismatches)
        for name, count in counts.most_common():
            print(f"  {label:8} {name:36} {count}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
