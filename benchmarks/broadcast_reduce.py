"""broadcast_reduce: ``((a*b + b).exp().sum(1).log()).mean()``, ``a`` 1000x1000, ``b`` 1000.

Few ops on large arrays, with broadcasting (``b`` is stretched over the rows of ``a``)
and reductions: what matters is that the engine adds no copies, no needless un-broadcast
sums and no float64 detours to the NumPy work itself.
"""

from __future__ import annotations

import numpy as np

from .harness import Benchmark, Implementation
from .peers import Peers


def numpy_forward_backward(a: np.ndarray, b: np.ndarray):
    """The loss and its gradients for ``a`` and ``b``, written by hand."""
    t = a * b + b
    e = np.exp(t)
    s = e.sum(axis=1)
    loss = np.log(s).mean()
    # d loss/d s = 1 / (n s); d s/d t = e (row-wise); then t = a*b + b
    g = e * (1 / (s.shape[0] * s))[:, None]
    grad_a = g * b
    grad_b = (g * a).sum(axis=0) + g.sum(axis=0)
    return loss, grad_a, grad_b


def benchmarks(quick: bool, peers: Peers) -> list[Benchmark]:
    n = 50 if quick else 1000
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)
    impls = [_numpy(a, b), _teachgrad(a, b)]
    if peers.torch is not None:
        impls.append(_torch(peers.torch, a, b))
    if peers.autograd is not None:
        impls.append(_autograd(peers.autograd, peers.anp, a, b))
    return [Benchmark(
        name="broadcast_reduce",
        description=f"((a*b + b).exp().sum(1).log()).mean(), a {n}x{n}, b {n}, float32, "
                    "forward + backward",
        implementations=impls,
        rtol=1e-4, atol=1e-5,
        ratio_targets={"numpy": 1.10},
        repeats=3 if quick else 30,
    )]


def _named(loss, grad_a, grad_b) -> dict:
    return {"loss": np.asarray(loss, np.float64), "grad_a": grad_a, "grad_b": grad_b}


def _numpy(a, b) -> Implementation:
    return Implementation(
        "numpy", lambda _: numpy_forward_backward(a, b),
        lambda: _named(*numpy_forward_backward(a, b)),
    )


def _tensor_impl(name, make, a, b, traced=True) -> Implementation:
    """teachgrad and PyTorch: the same code, leaves made by ``make``."""
    ta, tb = make(a), make(b)

    def run(_):
        ta.grad = tb.grad = None
        loss = ((ta * tb + tb).exp().sum(1).log()).mean()
        loss.backward()
        return loss

    def check():
        loss = run(None)
        return _named(loss.item(), ta.grad.numpy(), tb.grad.numpy())

    return Implementation(name, run, check, traced_memory=traced)


def _teachgrad(a, b) -> Implementation:
    import teachgrad

    return _tensor_impl("teachgrad", lambda v: teachgrad.tensor(v, requires_grad=True), a, b)


def _torch(torch, a, b) -> Implementation:
    return _tensor_impl("torch", lambda v: torch.tensor(v, requires_grad=True), a, b,
                        traced=False)


def _autograd(autograd, anp, a, b) -> Implementation:
    def loss_of(a, b):
        return anp.mean(anp.log(anp.sum(anp.exp(a * b + b), axis=1)))

    value_and_grad = autograd.value_and_grad(loss_of, argnum=(0, 1))

    def check():
        loss, (grad_a, grad_b) = value_and_grad(a, b)
        return _named(loss, grad_a, grad_b)

    return Implementation("autograd", lambda _: value_and_grad(a, b), check)
