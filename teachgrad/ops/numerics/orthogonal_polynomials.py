"""Classical orthogonal polynomials, vectorised: Chebyshev, Hermite, Laguerre, Legendre.

Each polynomial family has a three-term recurrence, ``P₀ = 1``, ``P₁`` given, and

    Chebyshev T, U, V, W    Pₖ₊₁ = 2x·Pₖ − Pₖ₋₁          (P₁ = x, 2x, 2x − 1, 2x + 1)
    Hermite H               Hₖ₊₁ = 2x·Hₖ − 2k·Hₖ₋₁        (H₁ = 2x; physicists')
    Hermite He              Heₖ₊₁ = x·Heₖ − k·Heₖ₋₁       (He₁ = x; probabilists')
    Laguerre L              Lₖ₊₁ = ((2k + 1 − x)·Lₖ − k·Lₖ₋₁)/(k + 1)
    Legendre P              Pₖ₊₁ = ((2k + 1)·x·Pₖ − k·Pₖ₋₁)/(k + 1)

which is how PyTorch computes them, and so do these kernels, with PyTorch's special
cases in PyTorch's order (first match wins):

* the degree n is truncated to an integer (``n = 2.7`` is 2); n < 0 gives 0 (so does a
  nan or infinite n);
* at the ends of the interval (|x| = 1) the Chebyshev and Legendre values are exact
  integers, e.g. ``Tₙ(−1) = (−1)ⁿ``, ``Uₙ(1) = n + 1``;
* for large n inside (−1, 1) the Chebyshev polynomials use their trigonometric closed
  forms (``Tₙ(cos θ) = cos nθ``, ``Uₙ(cos θ) = sin((n+1)θ)/sin θ``, ...), which are
  accurate where the recurrence would add up rounding errors;
* Hermite polynomials above degree 128 (float32) or 512 (float64) are nan, as in PyTorch
  (Hₙ(x) overflows there for most x);
* outside [−1, 1] the recurrence grows like (2|x|)ⁿ: it overflows to inf, then inf − inf
  gives nan, and it stops.

The shifted Chebyshev polynomials are the ordinary ones at ``2x − 1`` (on [0, 1]).
Unlike the other kernels of this package these compute in the input's own dtype, as
PyTorch does: a float32 recurrence overflows (to inf, then nan) where PyTorch's does.
"""

from __future__ import annotations

import numpy as np

_HERMITE_LIMIT = {np.dtype(np.float32): 128, np.dtype(np.float64): 512}


class _FirstMatch:
    """An output filled by a list of cases: each case sets the elements that its mask
    selects and that no earlier case has set (PyTorch's chain of ``if ... return``)."""

    def __init__(self, like: np.ndarray) -> None:
        self.out = np.full_like(like, np.nan)
        self.open = np.ones(like.shape, dtype=bool)

    def case(self, mask: np.ndarray, value) -> None:
        chosen = mask & self.open
        self.out[chosen] = value[chosen] if np.ndim(value) else value
        self.open &= ~mask


def _degree(n: np.ndarray) -> np.ndarray:
    """PyTorch's ``static_cast<int64_t>(n)``: truncation; nan, ±inf and values beyond the
    int64 range become negative (on x86 they are INT64_MIN), so their polynomial is 0."""
    valid = np.isfinite(n) & (np.abs(n) < 2.0**63)
    return np.where(valid, np.trunc(np.where(valid, n, -1)), -1).astype(np.int64)


def _recurrence(cases: _FirstMatch, x, m, first, step) -> None:
    """Fill the still-open elements of degree m ≥ 2 with the recurrence from P₀ = 1,
    P₁ = ``first``; ``step(k, x, Pₖ, Pₖ₋₁)`` gives Pₖ₊₁. Each element stops at its own
    degree, or at nan (once nan, always nan)."""
    p = np.ones_like(x)
    q = np.array(first, dtype=x.dtype, copy=True)
    active = np.flatnonzero(cases.open & (m >= 2))
    k = 1
    while active.size:
        r = step(k, x[active], q[active], p[active])
        p[active] = q[active]
        q[active] = r
        k += 1
        active = active[(m[active] > k) & ~np.isnan(r)]
    cases.case(m >= 2, q)


def _chebyshev_step(k, x, q, p):
    return (x + x) * q - p


def _chebyshev(kind: str, x: np.ndarray, n: np.ndarray, closed_form_above: int) -> np.ndarray:
    """Tₙ, Uₙ, Vₙ or Wₙ at x (``kind`` 't', 'u', 'v', 'w')."""
    m = _degree(n)
    nf = m.astype(x.dtype)  # (n as the float type, as in C++'s int-times-float)
    one = x.dtype.type(1)
    even = m % 2 == 0
    cases = _FirstMatch(x)
    cases.case(m < 0, 0.0)
    at_end = np.abs(x) == 1
    positive = x > 0
    if kind == "t":
        cases.case(at_end, np.where(positive | even, one, -one))
    elif kind == "u":
        cases.case(at_end, np.where(positive | even, nf + 1, -(nf + 1)))
    elif kind == "v":
        cases.case(at_end, np.where(positive, one, np.where(even, nf + nf + 1, -(nf + nf + 1))))
    else:
        cases.case(at_end, np.where(positive, nf + nf + 1, np.where(even, one, -one)))
    inside = (m > closed_form_above) & (np.abs(x) < 1)
    theta = np.arccos(x)  # x = cos θ
    if kind == "t":
        cases.case(inside, np.cos(nf * theta))
    elif kind == "u":
        sine = np.sin(theta)
        cases.case(inside, np.where(sine != 0, np.sin((nf + 1) * theta) / sine,
                                    (nf + 1) * np.cos((nf + 1) * theta) / x))
    elif kind == "v":
        limit = np.where(even, nf + nf + 1, -(nf + nf + 1))  # (where cos(θ/2) is 0)
        cases.case(inside, np.where(np.sin(theta / 2) != 1,
                                    np.cos((nf + 0.5) * theta) / np.cos(theta / 2), limit))
    else:
        limit = np.where(positive, nf + nf + 1, np.where(even, one, -one))
        cases.case(inside, np.where(np.cos(theta / 2) != 1,
                                    np.sin((nf + 0.5) * theta) / np.sin(theta / 2), limit))
    cases.case(m == 0, 1.0)
    first = {"t": x, "u": x + x, "v": x + x - one, "w": x + x + one}[kind]
    cases.case(m == 1, first)
    _recurrence(cases, x, m, first, _chebyshev_step)
    return cases.out


def chebyshev_t(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The Chebyshev polynomial of the first kind, ``Tₙ(cos θ) = cos nθ``."""
    return _chebyshev("t", x, n, 6)


def chebyshev_u(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The Chebyshev polynomial of the second kind, ``Uₙ(cos θ) = sin((n+1)θ)/sin θ``."""
    return _chebyshev("u", x, n, 8)


def chebyshev_v(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The Chebyshev polynomial of the third kind, ``Vₙ(cos θ) = cos((n+½)θ)/cos(θ/2)``."""
    return _chebyshev("v", x, n, 8)


def chebyshev_w(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The Chebyshev polynomial of the fourth kind, ``Wₙ(cos θ) = sin((n+½)θ)/sin(θ/2)``."""
    return _chebyshev("w", x, n, 8)


def _shifted(x):
    return x + x - x.dtype.type(1)


def shifted_chebyshev_t(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``Tₙ(2x − 1)``: the Chebyshev polynomial of the first kind on [0, 1]."""
    return _chebyshev("t", _shifted(x), n, 6)


def shifted_chebyshev_u(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``Uₙ(2x − 1)``."""
    return _chebyshev("u", _shifted(x), n, 6)


def shifted_chebyshev_v(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``Vₙ(2x − 1)``."""
    return _chebyshev("v", _shifted(x), n, 6)


def shifted_chebyshev_w(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``Wₙ(2x − 1)``."""
    return _chebyshev("w", _shifted(x), n, 4)


def _hermite(x, n, first, step):
    m = _degree(n)
    cases = _FirstMatch(x)
    cases.case(m < 0, 0.0)
    cases.case(m == 0, 1.0)
    cases.case(m == 1, first)
    cases.case(m > _HERMITE_LIMIT[x.dtype], np.nan)
    _recurrence(cases, x, m, first, step)
    return cases.out


def hermite_h(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The physicists' Hermite polynomial Hₙ (orthogonal for the weight e^(−x²))."""
    return _hermite(x, n, x + x, lambda k, x, q, p: (x + x) * q - (k + k) * p)


def hermite_he(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The probabilists' Hermite polynomial Heₙ (orthogonal for the weight e^(−x²/2))."""
    return _hermite(x, n, x, lambda k, x, q, p: x * q - k * p)


def laguerre_l(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The Laguerre polynomial Lₙ (orthogonal on [0, ∞) for the weight e^(−x))."""
    m = _degree(n)
    one = x.dtype.type(1)
    cases = _FirstMatch(x)
    cases.case(m < 0, 0.0)
    cases.case(x == 0, 1.0)
    cases.case(m == 0, 1.0)
    cases.case(m == 1, one - x)
    _recurrence(cases, x, m, one - x,
                lambda k, x, q, p: (((k + k) + (one - x)) * q - k * p) / (k + 1))
    return cases.out


def legendre_p(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The Legendre polynomial Pₙ (orthogonal on [−1, 1])."""
    m = _degree(n)
    one = x.dtype.type(1)
    cases = _FirstMatch(x)
    cases.case(m < 0, 0.0)
    cases.case(np.abs(x) == 1, np.where((x > 0) | (m % 2 == 0), one, -one))
    cases.case(m == 0, 1.0)
    cases.case(m == 1, x)
    _recurrence(cases, x, m, x, lambda k, x, q, p: ((k + k + 1) * x * q - k * p) / (k + 1))
    return cases.out
