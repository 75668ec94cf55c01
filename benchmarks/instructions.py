"""Run one implementation of one benchmark N times, for an exact instruction count.

Timings on a shared machine move by 10-20 %; instruction counts do not. Run this under
callgrind, which counts only inside ``itertools.starmap`` (that is, only the runs)::

    OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        --collect-atstart=no --toggle-collect=starmap_next \\
        python -m benchmarks.instructions per_op/forward teachgrad 500

and divide the "Collected" total by N. (``python`` must be the interpreter binary, not a
shell shim such as pyenv's.) ``--quick`` uses the quick sizes. Instructions are not time
(memory traffic counts for little in them), but they show small changes exactly.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import itertools

from .peers import Peers


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.instructions")
    parser.add_argument("benchmark", help="e.g. mlp_step or per_op/forward")
    parser.add_argument("implementation", help="teachgrad, numpy, torch, autograd, micrograd")
    parser.add_argument("runs", type=int)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    module = importlib.import_module(f".{args.benchmark.split('/')[0]}", __package__)
    bench = next(b for b in module.benchmarks(args.quick, Peers({args.implementation}))
                 if b.name == args.benchmark)
    impl = next(i for i in bench.implementations if i.name == args.implementation)
    for _ in range(3):  # warm up (imports, caches, the allocator) outside the count
        impl.run(impl.prepare() if impl.prepare else None)
    states = [impl.prepare() if impl.prepare else None for _ in range(args.runs)]
    gc.collect()
    gc.disable()
    list(itertools.starmap(impl.run, ((state,) for state in states)))  # counted


if __name__ == "__main__":
    main()
