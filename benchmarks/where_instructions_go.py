"""Where two implementations' instructions go, side by side: BLAS, NumPy's loops, the rest.

``mlp_step``'s target (teachgrad ≤ 1.10 × hand NumPy) is close, and the question each
session asks is whether teachgrad does *array* work that hand NumPy does not (a copy, a
float64 temporary, a second log_softmax) or only more Python between the same arrays.
This answers it from callgrind's per-function counts: it runs ``benchmarks.instructions``
under callgrind once per implementation (single-threaded BLAS, counting only the runs)
and prints, per run, the instructions spent in each BLAS kernel and NumPy inner loop
(``FLOAT_add``, ``sgemm_kernel``, ``memset`` ...) for both, then the interpreter's share::

    python -m benchmarks.where_instructions_go mlp_step teachgrad numpy 5

Needs valgrind (``callgrind_annotate`` too); takes about a minute for ``mlp_step``.
``--keep DIR`` keeps the callgrind files (``DIR/<implementation>.out``) to read further
with ``callgrind_annotate``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

# What counts as array work: BLAS kernels, NumPy's typed inner loops and casts, libc's
# memory fills and copies (a copy of an array shows up here, as memcpy or a cast loop).
_ARRAY_WORK = re.compile(
    r"^(s|d)gemm|^(FLOAT|DOUBLE|HALF|INT|LONG|BOOL|UINT|ULONG|BYTE|UBYTE|SHORT|USHORT)_"
    r"|_cast_|_contig_|_strided_|pairwise_sum|simd_|^__mem(set|cpy|move)|mapiter_"
)


def count(benchmark: str, implementation: str, runs: int, out: Path, quick: bool) -> None:
    """Run callgrind on ``runs`` runs of one implementation, writing its counts to ``out``."""
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               "--collect-atstart=no", "--toggle-collect=starmap_next", sys.executable,
               "-m", "benchmarks.instructions", benchmark, implementation, str(runs)]
    env = {"OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    subprocess.run(command + (["--quick"] if quick else []), check=True, capture_output=True,
                   env={**os.environ, **env})


def by_function(path: Path) -> Counter:
    """Instructions per function name (self cost), from ``callgrind_annotate``."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", str(path)], check=True,
                          capture_output=True, text=True).stdout
    found: Counter = Counter()
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)$", line)
        if match:
            name = re.sub(r"\s*\[.*\]$", "", match.group(2)).split(":")[-1].strip()
            found[name] += int(match.group(1).replace(",", ""))
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.where_instructions_go")
    parser.add_argument("benchmark")
    parser.add_argument("first", help="an implementation, e.g. teachgrad")
    parser.add_argument("second", help="another, e.g. numpy")
    parser.add_argument("runs", type=int)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--keep", type=Path, help="a directory to keep the callgrind files in")
    args = parser.parse_args(argv)
    where = args.keep or Path(tempfile.mkdtemp())
    where.mkdir(parents=True, exist_ok=True)
    counts = []
    for name in (args.first, args.second):
        count(args.benchmark, name, args.runs, where / f"{name}.out", args.quick)
        counts.append(by_function(where / f"{name}.out"))
    first, second = counts
    total = "PROGRAM TOTALS"
    print(f"{'per run':<44}{args.first:>14}{args.second:>14}{'difference':>14}")
    array = [f for f in set(first) | set(second) if _ARRAY_WORK.search(f)]
    for name in sorted(array, key=lambda f: -max(first[f], second[f])):
        a, b = first[name] / args.runs, second[name] / args.runs
        if max(a, b) >= 1000:  # (the loops that run on the arrays, not on a few numbers)
            print(f"{name[:43]:<44}{a:>14,.0f}{b:>14,.0f}{a - b:>+14,.0f}")
    a, b = first[total] / args.runs, second[total] / args.runs
    array_a = sum(first[f] for f in array) / args.runs
    array_b = sum(second[f] for f in array) / args.runs
    print(f"{'array work (the lines above, and smaller)':<44}{array_a:>14,.0f}{array_b:>14,.0f}"
          f"{array_a - array_b:>+14,.0f}")
    print(f"{'everything else (the interpreter, ...)':<44}{a - array_a:>14,.0f}"
          f"{b - array_b:>14,.0f}{(a - array_a) - (b - array_b):>+14,.0f}")
    print(f"{'total':<44}{a:>14,.0f}{b:>14,.0f}{a - b:>+14,.0f}")


if __name__ == "__main__":
    main()
