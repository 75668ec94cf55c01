"""teachgrad's speed against hand-written NumPy, PyTorch, HIPS autograd and micrograd.

Run everything with ``python -m benchmarks`` (``--help`` for the options); the recorded
figures and how they are measured are in ``benchmarks/README.md``.

Each workload is a module with a ``benchmarks(quick, peers)`` function that returns its
:class:`~benchmarks.harness.Benchmark` s; :mod:`benchmarks.harness` checks, times and
reports them all the same way.
"""

WORKLOADS = (
    "scalar_graph", "mlp_step", "deep_chain", "broadcast_reduce", "per_op", "notebook",
)
