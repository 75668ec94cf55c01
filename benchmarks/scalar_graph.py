"""scalar_graph: a micrograd-style MLP built from scalars, forward + backward.

Every weight is its own scalar (a 0-d tensor, a micrograd ``Value``, a boxed float), so a
forward pass over a few samples records ~20,000 tiny ops. Nothing here is vectorised: the
time is the per-op overhead of each autograd, which is what this benchmark measures.

All scalar implementations run the very same :func:`program`; only the scalars differ.
The hand-written NumPy implementation computes the same loss and gradients vectorised
(as matrices), in float64: it is the reference the others are checked against, and its
time shows what batching the same math costs.
"""

from __future__ import annotations

import numpy as np

from .harness import Benchmark, Implementation
from .peers import Peers

N_INPUTS = 3
LAYERS = (16, 16, 1)  # hidden layers use relu, the last one is linear (as micrograd's MLP)


def ops_per_sample() -> int:
    """Ops :func:`program` records per sample: per neuron n_in muls, n_in adds, a relu."""
    sizes = (N_INPUTS, *LAYERS)
    total = 0
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        relu = 1 if i < len(LAYERS) - 1 else 0
        total += n_out * (2 * n_in + relu)
    return total + 3  # (out - y) ** 2, added to the loss


def make_problem(samples: int, seed: int = 0):
    """Weights ``[[(w list, b), ...] per layer]``, inputs and targets, as Python floats."""
    rng = np.random.default_rng(seed)
    sizes = (N_INPUTS, *LAYERS)
    params = [
        [(rng.uniform(-1, 1, n_in).tolist(), float(rng.uniform(-0.1, 0.1)))
         for _ in range(n_out)]
        for n_in, n_out in zip(sizes[:-1], sizes[1:])
    ]
    xs = rng.uniform(-1, 1, (samples, N_INPUTS)).tolist()
    ys = rng.choice([-1.0, 1.0], samples).tolist()
    return params, xs, ys


def program(params, xs, ys, relu):
    """The loss ``Σ (mlp(x) - y)²``, written with scalar ops only (micrograd's MLP)."""
    loss = None
    last = len(params) - 1
    for x, y in zip(xs, ys):
        out = x
        for i, layer in enumerate(params):
            new = []
            for w, b in layer:
                act = sum((wi * xi for wi, xi in zip(w, out)), b)
                new.append(act if i == last else relu(act))
            out = new
        term = (out[0] - y) ** 2
        loss = term if loss is None else loss + term
    return loss


def flat(params) -> list:
    return [v for layer in params for w, b in layer for v in (*w, b)]


def unflat(values, params):
    """``values`` (in :func:`flat` order) shaped as ``params``."""
    it = iter(values)
    return [[([next(it) for _ in w], next(it)) for w, _ in layer] for layer in params]


def gradients_by_layer(grads, params) -> dict[str, np.ndarray]:
    """Flat gradients as ``{"w0": (out, in) matrix, "b0": vector, ...}``."""
    shaped = unflat(grads, params)
    result = {}
    for i, layer in enumerate(shaped):
        result[f"w{i}"] = np.array([[float(g) for g in w] for w, _ in layer])
        result[f"b{i}"] = np.array([float(b) for _, b in layer])
    return result


def numpy_loss_and_grads(params, xs, ys) -> tuple[float, dict]:
    """The same MLP with matrices: forward, then the chain rule written out by hand."""
    ws = [np.array([w for w, _ in layer]) for layer in params]
    bs = [np.array([b for _, b in layer]) for layer in params]
    h = np.array(xs)
    inputs, pre = [], []
    for i, (w, b) in enumerate(zip(ws, bs)):
        inputs.append(h)
        z = h @ w.T + b
        pre.append(z)
        h = z if i == len(ws) - 1 else np.maximum(z, 0.0)
    diff = h[:, 0] - np.array(ys)
    loss = float(np.sum(diff * diff))
    grads = {}
    g = (2.0 * diff)[:, None]
    for i in reversed(range(len(ws))):
        if i != len(ws) - 1:
            g = g * (pre[i] > 0)
        grads[f"w{i}"] = g.T @ inputs[i]
        grads[f"b{i}"] = g.sum(0)
        g = g @ ws[i]
    return loss, grads


def benchmarks(quick: bool, peers: Peers) -> list[Benchmark]:
    samples = 2 if quick else 30
    params, xs, ys = make_problem(samples)
    impls = [_numpy(params, xs, ys), _teachgrad(params, xs, ys), _floor(params, xs, ys)]
    if peers.torch is not None:
        impls.append(_torch(peers.torch, params, xs, ys))
    if peers.autograd is not None:
        impls.append(_autograd(peers.autograd, peers.anp, params, xs, ys))
    if peers.Value is not None:
        impls.append(_micrograd(peers.Value, params, xs, ys))
    n_ops = samples * ops_per_sample()
    return [Benchmark(
        name="scalar_graph",
        description=f"MLP {N_INPUTS}-{'-'.join(map(str, LAYERS))} of scalars, {samples} "
                    f"samples: {n_ops:,} scalar ops, forward + backward",
        implementations=impls,
        rtol=1e-3, atol=1e-5,  # float32 scalars against the float64 reference
        ratio_targets={"torch": 1.0, "autograd": 1.0, "micrograd": 1.5},
        repeats=3 if quick else 15,
        notes=["numpy: the same math vectorised (float64); it is the reference for the "
               "gradient check and shows the cost of not batching, not a target",
               "floor: micrograd's engine on NumPy 0-d float32 arrays (benchmarks/floor.py), "
               "the least any autograd on NumPy does per op; a reference, not a target"],
    )]


def _numpy(params, xs, ys) -> Implementation:
    def run(_):
        return numpy_loss_and_grads(params, xs, ys)

    def check():
        loss, grads = numpy_loss_and_grads(params, xs, ys)
        return {"loss": np.array(loss), **grads}

    return Implementation("numpy", run, check)


def _scalar_impl(name, make_scalar, zero_grads, backward, grad_of, relu, params, xs, ys,
                 traced=True) -> Implementation:
    """An implementation whose weights are scalars made by ``make_scalar``."""
    weights = unflat([make_scalar(v) for v in flat(params)], params)
    leaves = flat(weights)

    def run(_):
        zero_grads(leaves)
        loss = program(weights, xs, ys, relu)
        backward(loss)
        return loss

    def check():
        loss = run(None)
        grads = gradients_by_layer([grad_of(v) for v in leaves], params)
        return {"loss": np.array(float(_value(loss))), **grads}

    return Implementation(name, run, check, traced_memory=traced)


def _value(loss) -> float:
    return loss.item() if hasattr(loss, "item") else loss.data  # a tensor, or a Value


def _teachgrad(params, xs, ys) -> Implementation:
    import teachgrad

    def zero(leaves):
        for v in leaves:
            v.grad = None

    return _scalar_impl(
        "teachgrad", lambda v: teachgrad.tensor(v, requires_grad=True), zero,
        lambda loss: loss.backward(), lambda v: v.grad.item(), lambda v: v.relu(),
        params, xs, ys,
    )


def _floor(params, xs, ys) -> Implementation:
    from .floor import Value

    def zero(leaves):
        for v in leaves:
            v.grad = None

    return _scalar_impl(
        "floor", lambda v: Value(np.array(v, np.float32)), zero,
        lambda loss: loss.backward(), lambda v: float(v.grad), lambda v: v.relu(),
        params, xs, ys,
    )


def _torch(torch, params, xs, ys) -> Implementation:
    def zero(leaves):
        for v in leaves:
            v.grad = None

    return _scalar_impl(
        "torch", lambda v: torch.tensor(v, requires_grad=True), zero,
        lambda loss: loss.backward(), lambda v: v.grad.item(), lambda v: v.relu(),
        params, xs, ys, traced=False,
    )


def _micrograd(Value, params, xs, ys) -> Implementation:
    def zero(leaves):
        for v in leaves:
            v.grad = 0

    return _scalar_impl(
        "micrograd", Value, zero, lambda loss: loss.backward(), lambda v: v.grad,
        lambda v: v.relu(), params, xs, ys,
    )


def _autograd(autograd, anp, params, xs, ys) -> Implementation:
    n = len(flat(params))

    def loss_of(values):
        scalars = [values[i] for i in range(n)]  # unbox the list once, then scalar ops
        return program(unflat(scalars, params), xs, ys, lambda v: anp.maximum(v, 0.0))

    loss_and_grad = autograd.value_and_grad(loss_of)
    start = flat(params)

    def run(_):
        return loss_and_grad(start)

    def check():
        loss, grads = run(None)
        return {"loss": np.array(float(loss)), **gradients_by_layer(grads, params)}

    return Implementation("autograd", run, check)
