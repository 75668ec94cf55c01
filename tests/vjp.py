"""One vector-Jacobian product, for tests of gradients at the edges (zeros, inf, nan)."""

from __future__ import annotations

import numpy as np

import teachgrad


def vjp(fn, values, upstream: float) -> np.ndarray:
    """The gradient of ``fn`` at ``values`` (float64) for an upstream gradient of ``upstream``s.

    >>> vjp(lambda x: x * x, [3.0], 2.0).tolist()
    [12.0]
    """
    x = teachgrad.tensor(values, dtype=teachgrad.float64, requires_grad=True)
    y = fn(x)
    (g,) = teachgrad.autograd.grad(y, x, teachgrad.full_like(y, upstream))
    return g.numpy()
