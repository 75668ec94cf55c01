"""How every benchmark is checked, timed and reported.

A :class:`Benchmark` is one piece of work (``mlp_step``, ``per_op/forward`` ...) done by
several :class:`Implementation` s: teachgrad, hand-written NumPy and whichever peers are
installed (PyTorch, HIPS autograd, micrograd). :func:`run_benchmark`

1. **checks** first: every implementation computes its values/gradients once, and they
   must match the reference's (hand-written NumPy). An implementation that fails is not
   timed: a wrong fast result is a failure, not a win.
2. **warms up** each implementation and picks how many runs make one sample (tiny ops
   are run in a loop, as ``timeit`` does, so the clock's resolution does not matter);
3. **times** ``repeats`` samples of each, *alternating* implementations within every
   repeat (and rotating who goes first), so a burst of load from another process on the
   shared machine hits all of them alike. The garbage collector is off while a sample
   runs (as in ``timeit`` and pyperf) and a collection runs before each round;
4. reports the **median** of the samples, their spread, and the ratio
   ``teachgrad ÷ implementation`` of the medians measured in this same run.

Peak memory is measured in a separate, untimed run under :mod:`tracemalloc` (which sees
Python objects and NumPy's array buffers, but not PyTorch's allocator).

One more thing is set before timing (:func:`steady_allocator`): glibc is asked to keep
freed memory rather than hand it back to the OS. By default it gives back large blocks as
soon as they are freed, and the next allocation then pays a page fault for every 4 KiB it
touches. How often that happens depends on the order in which arrays happen to be freed,
not on the library: on the 1000x1000 workloads it made hand-written NumPy (which holds
more large temporaries at once) twice as slow as teachgrad. With the setting, every
implementation reuses its memory and the figures compare the work itself.
"""

from __future__ import annotations

import ctypes
import gc
import math
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TEACHGRAD = "teachgrad"


class Skip(Exception):
    """Raised by a check when the benchmark cannot run here (a missing optional package)."""


@dataclass
class Implementation:
    """One way of doing a benchmark's work.

    ``run(state)`` is the timed work. ``prepare()`` (optional) builds what one run
    consumes, untimed, before every run (then each sample is a single run).
    ``check()`` returns the named values/gradients compared with the reference's.
    ``traced_memory``: tracemalloc sees this implementation's allocations.
    """

    name: str
    run: Callable[[Any], Any]
    check: Callable[[], dict[str, np.ndarray]] | None = None
    prepare: Callable[[], Any] | None = None
    traced_memory: bool = True


@dataclass
class Benchmark:
    """A piece of work, its implementations, and what counts as correct and fast enough.

    ``ratio_targets``: peer -> the largest acceptable ``teachgrad ÷ peer`` of medians.
    ``time_target``: the largest acceptable teachgrad median, in seconds.
    ``memory_target``: the largest acceptable teachgrad ÷ NumPy peak memory.
    """

    name: str
    description: str
    implementations: list[Implementation]
    reference: str | None = "numpy"
    rtol: float = 1e-4
    atol: float = 1e-6  # relative to the largest magnitude of each reference value
    ratio_targets: dict[str, float] = field(default_factory=dict)
    time_target: float | None = None
    memory_target: float | None = None
    repeats: int = 20
    notes: list[str] = field(default_factory=list)


@dataclass
class Settings:
    """How long to measure: ``quick`` for a smoke run, the defaults for real figures."""

    repeats: int | None = None   # None: each benchmark's own number
    warmup: int = 2              # untimed runs of each implementation before timing
    min_sample: float = 0.02     # seconds: tiny ops are looped until a sample lasts this
    memory: bool = True


def steady_allocator() -> bool:
    """Make glibc keep freed memory for reuse (no page faults on reallocation).

    Returns False where this is not glibc (nothing is changed then).
    """
    m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's mallopt parameter numbers
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(m_mmap_threshold, 32 * 2**20)
                    and libc.mallopt(m_trim_threshold, 2**30))
    except (OSError, AttributeError):
        return False


# ----------------------------------------------------------------------------------------
# Checking
# ----------------------------------------------------------------------------------------
def compare(got: dict, want: dict, rtol: float, atol: float) -> str | None:
    """None when ``got`` matches ``want`` value by value, else what differs."""
    missing = sorted(set(want) - set(got))
    if missing:
        return f"missing values: {', '.join(missing)}"
    for key, expected in want.items():
        expected = np.asarray(expected, dtype=np.float64)
        actual = np.asarray(got[key], dtype=np.float64)
        if actual.shape != expected.shape:
            return f"{key}: shape {actual.shape}, expected {expected.shape}"
        if not np.all(np.isfinite(actual) == np.isfinite(expected)):
            return f"{key}: non-finite values where the reference has none (or vice versa)"
        scale = float(np.max(np.abs(expected), initial=0.0))
        error = np.abs(actual - expected)
        allowed = atol * max(scale, 1e-30) + rtol * np.abs(expected)
        finite = np.isfinite(expected)
        if np.any(error[finite] > allowed[finite]):
            worst = float(np.max((error - allowed)[finite]))
            return f"{key}: differs from the reference by up to {worst:.3g} beyond tolerance"
    return None


def run_checks(bench: Benchmark) -> dict[str, str]:
    """``{implementation: "ok" or the reason it failed}``; the reference is checked too."""
    values: dict[str, dict] = {}
    status: dict[str, str] = {}
    for impl in bench.implementations:
        if impl.check is None:
            status[impl.name] = "ok"
            continue
        try:
            values[impl.name] = impl.check()
            status[impl.name] = "ok"
        except Skip as reason:
            status[impl.name] = f"skipped: {reason}"
        except Exception as error:  # a crash is a failed check, reported, not raised
            status[impl.name] = f"FAILED: {type(error).__name__}: {error}"
    reference = values.get(bench.reference) if bench.reference else None
    if bench.reference and reference is None and bench.reference in status:
        return status  # the reference itself failed: its status says why
    if reference is not None:
        for name, got in values.items():
            if name == bench.reference or status[name] != "ok":
                continue
            problem = compare(got, reference, bench.rtol, bench.atol)
            if problem:
                status[name] = f"FAILED: {problem}"
    return status


# ----------------------------------------------------------------------------------------
# Timing
# ----------------------------------------------------------------------------------------
def _sample(impl: Implementation, number: int) -> float:
    """Seconds per run, over ``number`` runs, with the garbage collector off."""
    state = impl.prepare() if impl.prepare is not None else None
    run = impl.run
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            run(state)
        elapsed = time.perf_counter() - start
    finally:
        if was_enabled:
            gc.enable()
    return elapsed / number


def _runs_per_sample(impl: Implementation, settings: Settings) -> int:
    """Warm up, and choose how many runs make a sample of at least ``min_sample`` seconds."""
    one = min(_sample(impl, 1) for _ in range(max(1, settings.warmup)))
    if impl.prepare is not None or one >= settings.min_sample:
        return 1
    return max(1, math.ceil(settings.min_sample / max(one, 1e-9)))


def time_all(impls: list[Implementation], repeats: int, settings: Settings) -> dict:
    """Alternate implementations within each repeat; return each one's samples."""
    numbers = {impl.name: _runs_per_sample(impl, settings) for impl in impls}
    samples: dict[str, list[float]] = {impl.name: [] for impl in impls}
    for r in range(repeats):
        gc.collect()  # start each round clean (the collector is off while a sample runs)
        shift = r % len(impls)  # rotate who goes first, so no one is always first or last
        for impl in impls[shift:] + impls[:shift]:
            samples[impl.name].append(_sample(impl, numbers[impl.name]))
    return {name: {"samples": s, "runs_per_sample": numbers[name]} for name, s in samples.items()}


def summarise(samples: list[float]) -> dict:
    """Median, quartiles and minimum of the samples (seconds)."""
    q1, median, q3 = statistics.quantiles(samples, n=4) if len(samples) > 1 else [samples[0]] * 3
    return {
        "median_s": statistics.median(samples),
        "q1_s": q1,
        "q3_s": q3,
        "min_s": min(samples),
        "repeats": len(samples),
    }


# ----------------------------------------------------------------------------------------
# Memory
# ----------------------------------------------------------------------------------------
def peak_memory(impl: Implementation) -> dict:
    """Peak bytes allocated during one run, and bytes still held while its result lives."""
    state = impl.prepare() if impl.prepare is not None else None
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = impl.run(state)
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return {"peak_bytes": peak - base, "retained_bytes": current - base}


# ----------------------------------------------------------------------------------------
# One benchmark, start to end
# ----------------------------------------------------------------------------------------
def run_benchmark(bench: Benchmark, settings: Settings, log: Callable[[str], None]) -> dict:
    """Check, time and (where asked) measure memory; return the JSON-ready result."""
    log(f"{bench.name}: checking {', '.join(i.name for i in bench.implementations)}")
    checks = run_checks(bench)
    good = [i for i in bench.implementations if checks[i.name] == "ok"]
    repeats = settings.repeats or bench.repeats
    result: dict = {
        "description": bench.description,
        "checks": checks,
        "implementations": {},
        "ratios": {},
        "targets": [],
        "notes": list(bench.notes),
    }
    if good:
        log(f"{bench.name}: timing {len(good)} implementations, {repeats} repeats")
        timed = time_all(good, repeats, settings)
        for name, data in timed.items():
            result["implementations"][name] = {
                **summarise(data["samples"]),
                "runs_per_sample": data["runs_per_sample"],
                "samples_s": data["samples"],
            }
    medians = {n: r["median_s"] for n, r in result["implementations"].items()}
    mine = medians.get(TEACHGRAD)
    if mine is not None:
        result["round_ratios"] = {}
        for name, median in medians.items():
            if name != TEACHGRAD:
                result["ratios"][name] = mine / median
                result["round_ratios"][name] = _round_ratios(
                    result["implementations"][TEACHGRAD]["samples_s"],
                    result["implementations"][name]["samples_s"],
                )

    if settings.memory and bench.memory_target is not None:
        memory = {}
        for impl in good:
            if impl.traced_memory:
                log(f"{bench.name}: peak memory of {impl.name}")
                memory[impl.name] = peak_memory(impl)
        result["memory"] = memory

    result["targets"] = _targets(bench, result, checks)
    return result


def _round_ratios(mine: list[float], theirs: list[float]) -> dict:
    """Quartiles of ``teachgrad ÷ peer`` taken round by round.

    Both samples of a round ran back to back, so the machine's load hit them alike: how
    much these ratios spread says how far the ratio of medians can be trusted.
    """
    ratios = [a / b for a, b in zip(mine, theirs)]
    q1, median, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    return {"q1": q1, "median": median, "q3": q3}


def _verdict(value: float, limit: float, spread: dict | None) -> str:
    """"met" / "NOT met" for the ratio of medians; "thin" or "close" when the round-by-round
    ratios straddle the limit (the verdict could flip in another run)."""
    if value <= limit:
        return "met (thin)" if spread and spread["q3"] > limit else "met"
    return "NOT met (close)" if spread and spread["q1"] <= limit else "NOT met"


def _targets(bench: Benchmark, result: dict, checks: dict) -> list[dict]:
    """Each target with the measured value and whether it is met (None: not measurable)."""
    targets = []
    for peer, limit in bench.ratio_targets.items():
        ratio = result["ratios"].get(peer)
        spread = result.get("round_ratios", {}).get(peer)
        targets.append({
            "what": f"teachgrad ÷ {peer} ≤ {limit:g}",
            "limit": limit, "value": ratio, "rounds": spread,
            "met": None if ratio is None else ratio <= limit,
            "verdict": None if ratio is None else _verdict(ratio, limit, spread),
        })
    if bench.time_target is not None:
        median = result["implementations"].get(TEACHGRAD, {}).get("median_s")
        targets.append({
            "what": f"teachgrad ≤ {_seconds(bench.time_target)}",
            "limit": bench.time_target, "value": median,
            "met": None if median is None else median <= bench.time_target,
        })
    memory = result.get("memory", {})
    if bench.memory_target is not None and TEACHGRAD in memory and "numpy" in memory:
        ratio = memory[TEACHGRAD]["peak_bytes"] / max(memory["numpy"]["peak_bytes"], 1)
        result["memory_ratio"] = ratio
        targets.append({
            "what": f"peak memory teachgrad ÷ numpy ≤ {bench.memory_target:g}",
            "limit": bench.memory_target, "value": ratio, "met": ratio <= bench.memory_target,
        })
    if checks.get(TEACHGRAD, "ok").startswith("FAILED"):
        targets.append({"what": "teachgrad is correct", "limit": None, "value": None,
                        "met": False})
    return targets


# ----------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------
def _seconds(s: float | None) -> str:
    if s is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale or unit == "µs":
            value = s / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{s:.3g} s"  # pragma: no cover


def _bytes(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def table(results: dict) -> str:
    """The results as a Markdown table (it reads as plain text too)."""
    lines = [
        "| benchmark | implementation | median | spread (IQR) | teachgrad ÷ this | check |",
        "|---|---|---:|---:|---:|---|",
    ]
    for name, res in results.items():
        first = True
        impls = res["implementations"]
        order = [TEACHGRAD] + sorted(n for n in res["checks"] if n != TEACHGRAD)
        for impl in order:
            if impl not in res["checks"]:
                continue
            data = impls.get(impl)
            ratio = res["ratios"].get(impl)
            spread = "—"
            if data and data["median_s"] > 0:
                spread = f"±{50 * (data['q3_s'] - data['q1_s']) / data['median_s']:.0f}%"
            check = res["checks"][impl]
            lines.append(
                f"| {name if first else ''} | {impl} | "
                f"{_seconds(data['median_s']) if data else '—'} | {spread} | "
                f"{f'{ratio:.2f}' if ratio is not None else '—'} | "
                f"{check if check == 'ok' or check.startswith('skipped') else check[:70]} |"
            )
            first = False
    memory_lines = []
    for name, res in results.items():
        for impl, m in res.get("memory", {}).items():
            memory_lines.append(
                f"| {name} | {impl} | {_bytes(m['peak_bytes'])} | {_bytes(m['retained_bytes'])} |"
            )
    if memory_lines:
        lines += ["", "| benchmark | implementation | peak memory | held after backward |",
                  "|---|---|---:|---:|", *memory_lines]
    target_lines = []
    for name, res in results.items():
        for t in res["targets"]:
            value = t["value"]
            if value is None:
                shown = "—"
            elif "≤" in t["what"] and "÷" not in t["what"]:
                shown = _seconds(value)
            else:
                shown = f"{value:.2f}"
                if t.get("rounds"):
                    shown += f" ({t['rounds']['q1']:.2f}–{t['rounds']['q3']:.2f})"
            verdict = t.get("verdict") or {
                True: "met", False: "NOT met", None: "not measured"
            }[t["met"]]
            target_lines.append(f"| {name} | {t['what']} | {shown} | {verdict} |")
    if target_lines:
        lines += ["", "| benchmark | target | measured (round by round: quartiles) | verdict |",
                  "|---|---|---:|---|", *target_lines]
    return "\n".join(lines)
