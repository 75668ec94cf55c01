"""per_op: one small op with autograd on: ``a * b`` on 2x2 tensors that require grad.

Two benchmarks: the forward op alone (recording the graph node), and forward + backward
(``y.backward(ones)``, so the only op in the graph is the multiplication). The arrays
hold four numbers: all of the time is per-op overhead.

micrograd has no tensors: its 2x2 is four ``Value`` s, multiplied elementwise, and its
backward is one ``.backward()`` per output (each seeds the gradient 1).
"""

from __future__ import annotations

import numpy as np

from .harness import Benchmark, Implementation
from .peers import Peers


def benchmarks(quick: bool, peers: Peers) -> list[Benchmark]:
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (2, 2)).astype(np.float32)
    b = rng.uniform(-1, 1, (2, 2)).astype(np.float32)
    makers = [_numpy, _teachgrad, _floor]
    if peers.torch is not None:
        makers.append(lambda a, b, backward: _torch(peers.torch, a, b, backward))
    if peers.autograd is not None:
        makers.append(
            lambda a, b, backward: _autograd(peers.autograd, peers.anp, a, b, backward)
        )
    if peers.Value is not None:
        makers.append(lambda a, b, backward: _micrograd(peers.Value, a, b, backward))
    targets = {"torch": 1.0, "autograd": 1.0, "micrograd": 1.5}
    result = []
    for backward, name in ((False, "per_op/forward"), (True, "per_op/forward+backward")):
        result.append(Benchmark(
            name=name,
            description="a * b on 2x2 float32 tensors that require grad"
                        + (", then y.backward(ones)" if backward else " (forward only)"),
            implementations=[make(a, b, backward) for make in makers],
            rtol=1e-6, atol=1e-6,
            ratio_targets=targets,
            repeats=3 if quick else 25,
            notes=["floor: micrograd's engine on NumPy arrays (benchmarks/floor.py), the "
                   "least any Python autograd does per op; a reference, not a target"],
        ))
    return result


def _named(y, grad_a=None, grad_b=None) -> dict:
    values = {"y": np.asarray(y, np.float64)}
    if grad_a is not None:
        values.update(grad_a=np.asarray(grad_a), grad_b=np.asarray(grad_b))
    return values


def _numpy(a, b, backward) -> Implementation:
    g = np.ones_like(a)

    def forward(_):
        return a * b

    def forward_backward(_):
        y = a * b
        return y, g * b, g * a

    def check():
        return _named(*forward_backward(None)) if backward else _named(forward(None))

    return Implementation("numpy", forward_backward if backward else forward, check)


def _tensor_impl(name, make, ones, a, b, backward, traced=True,
                 as_array=lambda t: t.detach().numpy()) -> Implementation:
    """teachgrad, PyTorch and the floor: the same code, tensors made by ``make``."""
    ta, tb = make(a), make(b)
    g = ones(2, 2)

    def forward(_):
        return ta * tb

    def forward_backward(_):
        ta.grad = tb.grad = None
        y = ta * tb
        y.backward(g)
        return y

    def check():
        if not backward:
            return _named(as_array(forward(None)))
        y = forward_backward(None)
        return _named(as_array(y), as_array(ta.grad), as_array(tb.grad))

    return Implementation(name, forward_backward if backward else forward, check,
                          traced_memory=traced)


def _teachgrad(a, b, backward) -> Implementation:
    import teachgrad

    return _tensor_impl("teachgrad", lambda v: teachgrad.tensor(v, requires_grad=True),
                        teachgrad.ones, a, b, backward)


def _torch(torch, a, b, backward) -> Implementation:
    return _tensor_impl("torch", lambda v: torch.tensor(v, requires_grad=True), torch.ones,
                        a, b, backward, traced=False)


def _floor(a, b, backward) -> Implementation:
    from .floor import Value

    # A Value's value and its gradient are plain arrays already.
    return _tensor_impl("floor", Value, lambda *shape: np.ones(shape, np.float32), a, b,
                        backward, as_array=lambda v: v.data if isinstance(v, Value) else v)


def _autograd(autograd, anp, a, b, backward) -> Implementation:
    make_vjp = autograd.make_vjp(lambda a, b: a * b, argnum=(0, 1))
    g = np.ones_like(a)

    def forward(_):
        return make_vjp(a, b)  # records the op (traced), as the others' forward does

    def forward_backward(_):
        vjp, y = make_vjp(a, b)
        grad_a, grad_b = vjp(g)
        return y, grad_a, grad_b

    def check():
        if not backward:
            return _named(forward(None)[1])
        return _named(*forward_backward(None))

    return Implementation("autograd", forward_backward if backward else forward, check)


def _micrograd(Value, a, b, backward) -> Implementation:
    va = [Value(float(v)) for v in a.ravel()]
    vb = [Value(float(v)) for v in b.ravel()]

    def forward(_):
        return [x * y for x, y in zip(va, vb)]

    def forward_backward(_):
        for v in va + vb:
            v.grad = 0
        ys = [x * y for x, y in zip(va, vb)]
        for y in ys:
            y.backward()
        return ys

    def check():
        ys = (forward_backward if backward else forward)(None)
        y = np.array([v.data for v in ys]).reshape(2, 2)
        if not backward:
            return _named(y)
        return _named(y, np.array([v.grad for v in va]).reshape(2, 2),
                      np.array([v.grad for v in vb]).reshape(2, 2))

    return Implementation("micrograd", forward_backward if backward else forward, check)
