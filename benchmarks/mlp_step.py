"""mlp_step: one training step of an MLP 784-512-256-10 (batch 256, float32).

Forward, cross-entropy, backward and an SGD update. The arrays are large enough that the
matrix products dominate, so hand-written NumPy is the physical limit for a library that
runs on NumPy: teachgrad's overhead over it should be close to zero.

Every implementation starts from the same weights; the check compares the loss, every
gradient and the updated weights after one step with the hand-written NumPy ones.
"""

from __future__ import annotations

import numpy as np

from .harness import Benchmark, Implementation
from .peers import Peers

LR = 0.01


def make_problem(sizes: tuple, batch: int, seed: int = 0):
    """Weights (PyTorch's default uniform init), a batch of inputs and class targets."""
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / np.sqrt(n_in)
        params.append(rng.uniform(-bound, bound, (n_out, n_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, n_out).astype(np.float32))
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], batch)
    return params, x, y


def numpy_step(params: list, x: np.ndarray, y: np.ndarray, lr: float = LR):
    """One SGD step written by hand; updates ``params`` in place, returns (loss, grads)."""
    n = x.shape[0]
    rows = np.arange(n)
    activations, pre = [], []
    h = x
    last = len(params) // 2 - 1
    for i in range(last + 1):
        w, b = params[2 * i], params[2 * i + 1]
        activations.append(h)
        z = h @ w.T + b
        pre.append(z)
        h = z if i == last else np.maximum(z, 0)
    # cross entropy = mean of -log_softmax(z)[target], computed stably
    shifted = h - h.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -log_probs[rows, y].mean()
    # d loss / d logits = (softmax - one_hot) / n
    g = np.exp(log_probs)
    g[rows, y] -= 1
    g /= n
    grads = [None] * len(params)
    for i in reversed(range(last + 1)):
        if i != last:
            g = g * (pre[i] > 0)
        grads[2 * i] = g.T @ activations[i]
        grads[2 * i + 1] = g.sum(axis=0)
        if i:
            g = g @ params[2 * i]
    for p, gp in zip(params, grads):
        p -= lr * gp
    return loss, grads


def _named(loss, grads, params) -> dict:
    values = {"loss": np.asarray(loss, dtype=np.float64)}
    for i, (g, p) in enumerate(zip(grads, params)):
        values[f"grad{i}"] = np.asarray(g)
        values[f"param{i}"] = np.asarray(p)
    return values


def benchmarks(quick: bool, peers: Peers) -> list[Benchmark]:
    sizes, batch = ((32, 16, 8, 4), 8) if quick else ((784, 512, 256, 10), 256)
    problem = make_problem(sizes, batch)
    impls = [_numpy(*problem), _teachgrad(*problem)]
    if peers.torch is not None:
        impls.append(_torch(peers.torch, *problem))
    if peers.autograd is not None:
        impls.append(_autograd(peers.autograd, peers.anp, *problem))
    return [Benchmark(
        name="mlp_step",
        description=f"MLP {'-'.join(map(str, sizes))}, batch {batch}, float32: forward, "
                    "cross-entropy, backward, SGD step",
        implementations=impls,
        rtol=1e-4, atol=1e-5,
        ratio_targets={"numpy": 1.10},
        repeats=3 if quick else 30,
    )]


def _numpy(params, x, y) -> Implementation:
    mine = [p.copy() for p in params]

    def run(_):
        return numpy_step(mine, x, y)

    def check():
        fresh = [p.copy() for p in params]
        loss, grads = numpy_step(fresh, x, y)
        return _named(loss, grads, fresh)

    return Implementation("numpy", run, check)


def _teachgrad(params, x, y) -> Implementation:
    import teachgrad

    def load_weights(model, params):
        for p, value in zip(model.parameters(), params):
            p.data = teachgrad.tensor(value.copy())

    return _torch_api(teachgrad, params, x, y, teachgrad.tensor, load_weights)


def _torch(torch, params, x, y) -> Implementation:
    def load_weights(model, params):
        with torch.no_grad():
            for p, value in zip(model.parameters(), params):
                p.copy_(torch.from_numpy(value))

    return _torch_api(torch, params, x, y, torch.from_numpy, load_weights, traced_memory=False)


def _torch_api(lib, params, x, y, as_tensor, load_weights,
               traced_memory: bool = True) -> Implementation:
    """The training step written once against the PyTorch API and run by ``lib``
    (teachgrad or torch): teachgrad is a drop-in for this code, so the two timings compare
    like with like. Only getting NumPy arrays in differs (``as_tensor``, ``load_weights``)."""
    nn, F = lib.nn, lib.nn.functional

    def build():
        sizes = [params[0].shape[1]] + [p.shape[0] for p in params[::2]]
        layers = []
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers.append(nn.Linear(n_in, n_out))
            if i < len(sizes) - 2:
                layers.append(nn.ReLU())
        model = nn.Sequential(*layers)
        load_weights(model, params)
        return model, lib.optim.SGD(model.parameters(), lr=LR)

    inputs, targets = as_tensor(x), as_tensor(y)
    model, optimizer = build()

    def step(model, optimizer):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss

    def check():
        fresh, opt = build()
        loss = step(fresh, opt)
        ps = list(fresh.parameters())
        return _named(loss.item(), [p.grad.numpy() for p in ps], [p.detach().numpy() for p in ps])

    return Implementation(lib.__name__, lambda _: step(model, optimizer), check,
                          traced_memory=traced_memory)


def _autograd(autograd, anp, params, x, y) -> Implementation:
    rows = np.arange(x.shape[0])

    def loss_of(ps):
        h = x
        last = len(ps) // 2 - 1
        for i in range(last + 1):
            z = anp.dot(h, ps[2 * i].T) + ps[2 * i + 1]
            h = z if i == last else anp.maximum(z, 0)
        shifted = h - anp.max(h, axis=1, keepdims=True)
        log_probs = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
        return -anp.mean(log_probs[rows, y])

    loss_and_grad = autograd.value_and_grad(loss_of)

    def step(ps):
        loss, grads = loss_and_grad(ps)
        for p, g in zip(ps, grads):
            p -= LR * g
        return loss, grads

    mine = [p.copy() for p in params]

    def check():
        fresh = [p.copy() for p in params]
        loss, grads = step(fresh)
        return _named(loss, grads, fresh)

    return Implementation("autograd", lambda _: step(mine), check)
