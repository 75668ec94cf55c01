"""The Hurwitz zeta function with PyTorch's answers at the edges (``torch.special.zeta``).

The sum itself is :func:`.gamma.zeta` (the kernel behind polygamma). PyTorch's kernel
(Cephes' ``zeta``) checks its arguments in this order, and so does :func:`zeta`:

1. ``x = 1``: inf (the pole of ζ in x), whatever q is;
2. ``x < 1``: nan (the series diverges);
3. q a non-positive integer (or −inf): inf (a term ``0^(−x)`` of the sum);
4. q < 0 and x not an integer: nan (``(q + k)^(−x)`` is not real);
5. ``x = +inf``: the terms below 1 decide: inf if q < 1, 1 if q = 1; for q > 1 the
   Euler–Maclaurin tail computes inf·0 = nan in PyTorch, and so here;
6. ``q = +inf``: nan (PyTorch's tail computes 0·inf).
"""

from __future__ import annotations

import numpy as np

from . import gamma


def zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``Σₖ (q + k)^(−x)``, with the special cases of the module docstring."""
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    shape = x.shape
    x, q = x.ravel(), q.ravel()
    out = np.empty_like(x)
    open_ = np.ones(x.shape, dtype=bool)

    def case(mask, value):
        chosen = mask & open_
        out[chosen] = value[chosen] if np.ndim(value) else value
        open_[chosen] = False

    case(x == 1, np.inf)
    case(x < 1, np.nan)
    case((q <= 0) & (q == np.floor(q)), np.inf)
    case((q < 0) & (x != np.floor(x)), np.nan)
    case(x == np.inf, np.where(q < 1, np.inf, np.where(q == 1, 1.0, np.nan)))
    case(q == np.inf, np.nan)
    rest = np.flatnonzero(open_)
    out[rest] = gamma.zeta(x[rest], q[rest])
    return out.reshape(shape)
