"""The benchmark runner runs, checks its results and reports them (no timing assertions).

``python -m benchmarks --quick`` runs every workload at a tiny size with few repeats;
these tests make sure it keeps working as teachgrad changes: it prints the table, writes
the JSON, and every implementation's values and gradients pass the check against
hand-written NumPy. How fast anything is, is never asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from benchmarks import WORKLOADS
from benchmarks.harness import Benchmark, Implementation, Settings, run_benchmark

ROOT = Path(__file__).resolve().parents[1]


def run_runner(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--json", str(out), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done, json.loads(out.read_text(encoding="utf-8"))


def test_quick_run_checks_every_workload_and_reports_table_and_json(tmp_path):
    done, data = run_runner(tmp_path)
    results = data["results"]
    workloads = {name.split("/")[0] for name in results}
    assert workloads == set(WORKLOADS)
    for name, result in results.items():
        checks = result["checks"]
        # teachgrad and hand NumPy are always there; notebook benchmarks may be skipped
        # when an optional package (graphviz, a layout engine) is missing.
        assert "teachgrad" in checks, name
        for impl, status in checks.items():
            assert status == "ok" or status.startswith("skipped"), f"{name} {impl}: {status}"
        if not name.startswith("notebook/"):
            assert "numpy" in checks, name
        for impl, status in checks.items():
            if status == "ok":
                timing = result["implementations"][impl]
                assert timing["repeats"] == len(timing["samples_s"]) >= 1
        if "numpy" in result["implementations"]:
            assert "numpy" in result["ratios"], name
    assert "peak_bytes" in results["deep_chain"]["memory"]["teachgrad"]
    # The table: one row per benchmark's first implementation, and the targets.
    assert "| benchmark | implementation | median |" in done.stdout
    for name in results:
        assert f"| {name} | teachgrad |" in done.stdout
    assert "| benchmark | target | measured (round by round: quartiles) | verdict |" in done.stdout
    # Each ratio target also carries the quartiles of its round-by-round ratios.
    for name, result in results.items():
        for target in result["targets"]:
            if target["what"].startswith("teachgrad ÷") and target["value"] is not None:
                rounds = target["rounds"]
                assert rounds["q1"] <= rounds["median"] <= rounds["q3"], name
    assert data["meta"]["versions"]["teachgrad"]
    assert data["meta"]["quick"] is True


def test_runs_with_numpy_alone_and_filters(tmp_path):
    done, data = run_runner(tmp_path, "--peers", "numpy", "--only", "per_op,deep_chain")
    assert set(data["results"]) == {"per_op/forward", "per_op/forward+backward", "deep_chain"}
    for name, result in data["results"].items():
        # the floors (benchmarks/floor.py) need no import
        floors = {"floor", "tape"} if name == "deep_chain" else {"floor"}
        assert set(result["checks"]) == {"teachgrad", "numpy"} | floors
        assert all(status == "ok" for status in result["checks"].values())
    assert set(data["meta"]["missing_peers"]) == {"torch", "autograd", "micrograd"}


def test_unknown_workload_is_refused():
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--only", "nope"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "unknown workload" in done.stderr


def test_a_wrong_result_fails_its_check_and_is_not_timed():
    a = np.arange(4.0)
    bench = Benchmark(
        "doubling", "2 * a", [
            Implementation("numpy", lambda _: 2 * a, lambda: {"y": 2 * a}),
            Implementation("teachgrad", lambda _: 2 * a, lambda: {"y": 2 * a + 1e-3}),
        ],
        ratio_targets={"numpy": 1.1},
    )
    result = run_benchmark(bench, Settings(repeats=2, warmup=1, min_sample=0.0), print)
    assert result["checks"]["numpy"] == "ok"
    assert result["checks"]["teachgrad"].startswith("FAILED: y: differs")
    assert set(result["implementations"]) == {"numpy"}
    assert {"what": "teachgrad is correct", "limit": None, "value": None,
            "met": False} in result["targets"]


def test_a_crashing_implementation_is_reported_not_raised():
    def broken():
        raise ValueError("shapes do not match")

    bench = Benchmark("crash", "", [
        Implementation("numpy", lambda _: None, lambda: {"y": np.zeros(2)}),
        Implementation("teachgrad", lambda _: None, broken),
    ])
    result = run_benchmark(bench, Settings(repeats=1, warmup=1, min_sample=0.0), print)
    assert result["checks"]["teachgrad"] == "FAILED: ValueError: shapes do not match"
