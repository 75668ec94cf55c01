"""``python -m benchmarks``: check, time and compare every workload, print a table.

    python -m benchmarks                      every workload, full size
    python -m benchmarks --quick              tiny sizes, few repeats (a smoke run)
    python -m benchmarks --only mlp_step,per_op
    python -m benchmarks --json results.json  also write every sample as JSON
    python -m benchmarks --peers numpy        leave out torch, autograd and micrograd

The exit status is 1 when an implementation computed wrong values (a wrong fast result
is a failure), 0 otherwise; missed speed targets are reported, not fatal.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib
import json
import os
import platform
import sys
from pathlib import Path

from . import WORKLOADS
from .harness import Settings, run_benchmark, steady_allocator, table
from .peers import ALL, Peers


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="teachgrad against hand-written NumPy, PyTorch, HIPS autograd, micrograd",
    )
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes and few repeats: checks everything runs (no figures)")
    parser.add_argument("--only", default="",
                        help=f"comma-separated workloads or benchmarks ({', '.join(WORKLOADS)}; "
                             "e.g. per_op/forward)")
    parser.add_argument("--peers", default=",".join(ALL),
                        help="comma-separated implementations to compare "
                             f"(default: all installed of {', '.join(ALL)})")
    parser.add_argument("--json", metavar="PATH", help="write the full results as JSON here")
    parser.add_argument("--repeats", type=int, help="samples per implementation "
                                                    "(default: each benchmark's own)")
    parser.add_argument("--no-memory", action="store_true",
                        help="skip the (untimed) peak-memory runs")
    parser.add_argument("--system-malloc", action="store_true",
                        help="leave glibc's default of returning freed memory to the OS "
                             "(adds page faults that depend on allocation order)")
    return parser.parse_args(argv)


def machine() -> dict:
    """What this ran on (the figures mean nothing without it)."""
    info = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    try:
        with open("/proc/cpuinfo") as f:
            models = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        info["cpu"] = models[0] if models else platform.processor()
        with open("/proc/meminfo") as f:
            kib = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
        info["memory_gib"] = round(kib / 2**20, 1)
    except OSError:
        info["cpu"] = platform.processor()
    try:
        import numpy as np

        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        info["numpy_blas"] = f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # older NumPy: no dict form; the version list still has NumPy's
        pass
    return info


def _selected(name: str, only: list[str]) -> bool:
    return not only or any(name == o or name.startswith(o + "/") for o in only)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    only = [o.strip() for o in args.only.split(",") if o.strip()]
    unknown = [o for o in only if o.split("/")[0] not in WORKLOADS]
    if unknown:
        print(f"unknown workload(s): {', '.join(unknown)}; choose from {', '.join(WORKLOADS)}",
              file=sys.stderr)
        return 2
    peers = Peers({p.strip() for p in args.peers.split(",") if p.strip()})
    settings = Settings(repeats=args.repeats, memory=not args.no_memory)
    if args.quick:
        settings.warmup, settings.min_sample = 1, 0.002
        settings.repeats = args.repeats or 3

    def log(message: str) -> None:
        print(f"  … {message}", file=sys.stderr, flush=True)

    steady = False if args.system_malloc else steady_allocator()
    started = datetime.datetime.now(datetime.timezone.utc)
    meta = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python -m benchmarks " + " ".join(sys.argv[1:] if argv is None else argv),
        "quick": args.quick,
        "machine": machine(),
        "versions": peers.versions(),
        "missing_peers": peers.missing,
        "timing": "median of alternating repeats; time.perf_counter; gc disabled while timing",
        "allocator": "glibc keeps freed memory (mallopt)" if steady else "system default",
    }
    benches = []
    for workload in WORKLOADS:
        if _selected(workload, [o.split("/")[0] for o in only]):
            module = importlib.import_module(f".{workload}", __package__)
            benches += [b for b in module.benchmarks(args.quick, peers) if _selected(b.name, only)]
    # Everything imported so far lives until the end: keep it out of the collections that
    # run between samples (with torch imported, each would otherwise take ~60 ms).
    gc.collect()
    gc.freeze()
    results = {bench.name: run_benchmark(bench, settings, log) for bench in benches}
    meta["load_average_after"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None

    versions = ", ".join(f"{k} {v}" for k, v in meta["versions"].items())
    print(f"{meta['date']} · {meta['machine'].get('cpu')} ({meta['machine']['cpus']} CPUs) · "
          f"Python {meta['machine']['python']} · {versions}")
    print(f"timing: {meta['timing']}; allocator: {meta['allocator']}")
    for name, reason in peers.missing.items():
        print(f"(no {name}: {reason})")
    print()
    print(table(results))
    for name, res in results.items():
        for note in res["notes"]:
            print(f"\nnote ({name}): {note}")
    failed = {f"{name}: {impl}": status for name, res in results.items()
              for impl, status in res["checks"].items()
              if status != "ok" and not status.startswith("skipped")}
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"meta": meta, "results": results}, indent=1,
                                   ensure_ascii=False))
        print(f"\nJSON written to {path}")
    if failed:
        print("\nWRONG RESULTS (not timed):", file=sys.stderr)
        for what, status in failed.items():
            print(f"  {what}: {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
