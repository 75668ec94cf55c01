"""deep_chain: ``x = tanh(x * 1.001 + 0.001)`` 10,000 times on 1,000 floats, then backward.

Each step records three ops (mul, add, tanh), so the graph is 30,000 nodes deep. The
arrays are small: the time is mostly per-op overhead, with some real arithmetic. Also
measured: peak memory (the saved ``tanh`` outputs dominate it: 10,000 x 1,000 float32 =
40 MB) and what is still held after backward while the output tensor is alive (the
saved buffers must be freed as backward passes them).

The gradient of this chain shrinks by about 0.98 per step, so after 10,000 steps it is
~1e-88: zero in float32 for every implementation. The check therefore also runs a
300-step chain, whose gradient is far from zero.
"""

from __future__ import annotations

import numpy as np

from .harness import Benchmark, Implementation
from .peers import Peers

SCALE, SHIFT = 1.001, 0.001
CHECK_STEPS = 300


def numpy_chain(x0: np.ndarray, steps: int):
    """Forward keeping every tanh output, then backward by hand; returns (x, d sum(x)/d x0)."""
    saved = []
    x = x0
    for _ in range(steps):
        x = np.tanh(x * SCALE + SHIFT)
        saved.append(x)
    g = np.ones_like(x)
    for y in reversed(saved):
        g = g * (1 - y * y) * SCALE
    return x, g


def benchmarks(quick: bool, peers: Peers) -> list[Benchmark]:
    steps, size = (200, 100) if quick else (10_000, 1_000)
    x0 = np.random.default_rng(0).uniform(-1, 1, size).astype(np.float32)
    impls = [_numpy(x0, steps), _teachgrad(x0, steps), _floor(x0, steps), _tape(x0, steps)]
    if peers.torch is not None:
        impls.append(_torch(peers.torch, x0, steps))
    if peers.autograd is not None:
        impls.append(_autograd(peers.autograd, peers.anp, x0, steps))
    return [Benchmark(
        name="deep_chain",
        description=f"x = tanh(x*{SCALE} + {SHIFT}), {steps:,} steps ({3 * steps:,} ops) on "
                    f"{size:,} float32, forward + backward",
        implementations=impls,
        rtol=1e-3, atol=1e-6,
        ratio_targets={"numpy": 1.5},
        memory_target=1.5,
        repeats=3 if quick else 15,
        notes=["memory: tracemalloc does not see PyTorch's allocator, so torch has no figure",
               "floor: micrograd's engine on NumPy arrays (benchmarks/floor.py), the least "
               "any Python autograd does per op; a reference, not a target",
               "tape: the chain on a flat tape, one tuple per op and no object "
               "(benchmarks/floor.py): the least reverse-mode bookkeeping; a reference"],
    )]


def _checked(chain, x0, steps) -> dict:
    x, g = chain(x0, steps)
    _, g_short = chain(x0, min(steps, CHECK_STEPS))
    return {"x": x, "grad": g, "grad_short": g_short}


def _numpy(x0, steps) -> Implementation:
    return Implementation(
        "numpy", lambda _: numpy_chain(x0, steps), lambda: _checked(numpy_chain, x0, steps)
    )


def _teachgrad(x0, steps) -> Implementation:
    import teachgrad

    return _torch_api(teachgrad, x0, steps)


def _floor(x0, steps) -> Implementation:
    from .floor import Value

    def chain(x0, steps):
        leaf = Value(x0)
        x = leaf
        for _ in range(steps):
            x = (x * SCALE + SHIFT).tanh()
        x.sum().backward()
        return x.data, leaf.grad

    return Implementation("floor", lambda _: chain(x0, steps),
                          lambda: _checked(chain, x0, steps))


def _tape(x0, steps) -> Implementation:
    from .floor import tape_chain

    def chain(x0, steps):
        return tape_chain(x0, steps, SCALE, SHIFT)

    return Implementation("tape", lambda _: chain(x0, steps), lambda: _checked(chain, x0, steps))


def _torch(torch, x0, steps) -> Implementation:
    return _torch_api(torch, x0, steps, traced_memory=False)


def _torch_api(lib, x0, steps, traced_memory: bool = True) -> Implementation:
    """The chain written once against the PyTorch API and run by ``lib`` (teachgrad or
    torch): teachgrad is a drop-in for this code, so the two timings compare like with like."""
    leaf = lib.tensor(x0, requires_grad=True)

    def chain(x0, steps, leaf=None):
        leaf = lib.tensor(x0, requires_grad=True) if leaf is None else leaf
        leaf.grad = None
        x = leaf
        for _ in range(steps):
            x = (x * SCALE + SHIFT).tanh()
        x.sum().backward()
        return x, leaf.grad

    def checked(x0, steps):
        x, g = chain(x0, steps)
        return x.detach().numpy(), g.numpy()

    return Implementation(
        lib.__name__, lambda _: chain(x0, steps, leaf), lambda: _checked(checked, x0, steps),
        traced_memory=traced_memory,
    )


def _autograd(autograd, anp, x0, steps) -> Implementation:
    from autograd.tracer import getval

    def make(steps):
        final = {}

        def total(x):
            for _ in range(steps):
                x = anp.tanh(x * SCALE + SHIFT)
            final["x"] = getval(x)  # the unboxed values, for the check
            return anp.sum(x)

        grad_of_total = autograd.grad(total)

        def value_and_grad(x0):
            grad = grad_of_total(x0)
            return final.pop("x"), grad

        return value_and_grad

    chains = {}

    def chain(x0, steps):
        if steps not in chains:
            chains[steps] = make(steps)
        return chains[steps](x0)

    return Implementation(
        "autograd", lambda _: chain(x0, steps), lambda: _checked(chain, x0, steps)
    )
