"""The gamma function family, vectorised: Hurwitz zeta, lgamma, digamma, polygamma.

Everything here is built from one function, the Hurwitz zeta function
``ζ(s, q) = Σₖ (q + k)^(−s)``, and a few classical identities:

* ``ψ⁽ⁿ⁾(x) = (−1)ⁿ⁺¹ n! ζ(n + 1, x)``                 polygamma, for n ≥ 1
* ``ψ(x + 1) = ψ(x) + 1/x``, ``Γ(x + 1) = x·Γ(x)``    recurrences: move x where a series works
* ``ψ(1 − x) − ψ(x) = π/tan(πx)``, ``Γ(x)Γ(1 − x) = π/sin(πx)``   reflection: negative x
* Stirling's series for large x, and Taylor series around x = 1, x = 2 and the root of ψ,
  whose coefficients are values of ζ computed once, when this module is imported.

So there is no table of magic numbers: the coefficients are Bernoulli numbers (exact
fractions) and values of ζ.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from . import horner

# B₂, B₄, ... B₂₄: the Bernoulli numbers of Euler–Maclaurin's and Stirling's series.
_BERNOULLI = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
              Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
              Fraction(43867, 798), Fraction(-174611, 330), Fraction(854513, 138),
              Fraction(-236364091, 2730)]
_EULER_GAMMA = 0.57721566490153286061


# ----------------------------------------------------------------------------------------
# Hurwitz zeta: a direct sum, then Euler–Maclaurin's formula for the rest
# ----------------------------------------------------------------------------------------
# Euler–Maclaurin: Σ_{k≥0} f(a + k) = ∫ₐ^∞ f + f(a)/2 − Σⱼ B₂ⱼ/(2j)! · f⁽²ʲ⁻¹⁾(a), with
# f(t) = t^(−s). Each term j carries B₂ⱼ/(2j)! · s(s+1)…(s+2j−2) · a^(−s−2j+1).
_EM_FACTORS = [float(b / math.factorial(2 * j)) for j, b in enumerate(_BERNOULLI, start=1)]


_MAX_STEPS = 10_000


def zeta(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function ``Σₖ₌₀^∞ (q + k)^(−s)`` for s > 1 (inf at s = 1, nan below).

    The first terms are summed directly until q + k ≥ 10 (at least 9 of them); the tail
    from a = q + k on is Euler–Maclaurin's formula, whose terms then fall fast. For q ≤ 0
    the sum goes through a pole at q + k = 0 when q is an integer (inf), and is not
    real for a non-integer q unless s is an integer (nan): the cases of Cephes' ``zeta``.
    (Below q = −10⁴ the result is nan: the direct sum would take too many steps.)
    """
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(q, np.float64))
    s, q = s.ravel(), q.ravel().copy()
    total = np.zeros_like(q)
    # The direct sum would need −q steps to get past 0: beyond 10⁴ of them it is not tried
    # (nan), and ±inf and nan are answered at the end.
    a = np.where(np.isfinite(q) & (q > -_MAX_STEPS), q, 10.0)
    for _ in range(9):
        total += a ** -s
        a += 1
    active = np.flatnonzero(a < 10)  # q was small (or negative): keep summing
    while active.size:
        total[active] += a[active] ** -s[active]
        a[active] += 1
        active = active[a[active] < 10]
    power = a ** -s  # a^(−s)
    total += a * power / (s - 1) + 0.5 * power
    rising = np.ones_like(a)  # s(s+1)…(s+2j−2)
    for j, factor in enumerate(_EM_FACTORS):
        rising *= s + 2 * j
        power /= a
        total += factor * rising * power
        rising *= s + 2 * j + 1
        power /= a
    total[s == 1] = np.inf
    total[s < 1] = np.nan
    on_pole = (q <= 0) & (q == np.floor(q)) & np.isfinite(q)
    total[on_pole] = np.inf
    total[(q <= -_MAX_STEPS) & ~on_pole] = np.nan
    total[np.isnan(s) | np.isnan(q)] = np.nan
    total[(q == np.inf) & (s > 1)] = 0.0
    return total.reshape(np.broadcast_shapes(np.shape(s), np.shape(q)))


# ----------------------------------------------------------------------------------------
# Trigonometry of πx with exact argument reduction (for the reflection formulas)
# ----------------------------------------------------------------------------------------
def _pi_times_fraction(x: np.ndarray) -> np.ndarray:
    """π·(x − round(x)): the subtraction is exact, so sin and tan of πx keep their digits
    even for large x (where π·x itself would have lost them)."""
    return math.pi * (x - np.round(x))


# ----------------------------------------------------------------------------------------
# lgamma: series around 1 and 2, recurrence down to them, Stirling above 8, reflection
# ----------------------------------------------------------------------------------------
def _zeta_values(count: int, q: float) -> np.ndarray:
    """ζ(k, q) for k = 2, 3, ..., count + 1."""
    return zeta(np.arange(2, count + 2, dtype=np.float64), np.full(count, q))


# log Γ(1 + z) = −γz + Σ_{k≥2} (−1)ᵏ ζ(k)/k · zᵏ           (for |z| ≤ 1/2: 50 terms)
# log Γ(2 + z) = (1 − γ)z + Σ_{k≥2} (−1)ᵏ (ζ(k) − 1)/k · zᵏ  (ζ(k) − 1 = ζ(k, 2) ≈ 2⁻ᵏ: 30)
_K1 = np.arange(2, 52)
_AROUND_ONE = [0.0, -_EULER_GAMMA, *((-1.0) ** _K1 * _zeta_values(50, 1.0) / _K1)]
_K2 = np.arange(2, 32)
_AROUND_TWO = [0.0, 1 - _EULER_GAMMA, *((-1.0) ** _K2 * _zeta_values(30, 2.0) / _K2)]
# Stirling: log Γ(x) = (x − ½)(log x − 1) + (log(2π) − 1)/2 + Σⱼ B₂ⱼ/(2j(2j−1) x^(2j−1))
_STIRLING = [float(b / (2 * j * (2 * j - 1))) for j, b in enumerate(_BERNOULLI[:10], start=1)]
_HALF_LOG_2PI_MINUS_HALF = 0.5 * math.log(2 * math.pi) - 0.5


def _lgamma_positive(x: np.ndarray) -> np.ndarray:
    """log Γ(x) for x > 0 (finite)."""
    out = np.empty_like(x)
    tiny = x < 0.5  # log Γ(x) = log Γ(1 + x) − log x
    out[tiny] = horner(_AROUND_ONE, x[tiny]) - np.log(x[tiny])
    near_one = (x >= 0.5) & (x < 1.5)
    out[near_one] = horner(_AROUND_ONE, x[near_one] - 1)  # (x − 1 is exact here)
    middle = (x >= 1.5) & (x < 8)
    xm = x[middle]
    # Down to [1.5, 2.5): log Γ(x) = log Γ(x − n) + log((x − 1)(x − 2)…(x − n)), all terms
    # positive, so nothing cancels.
    shift = np.maximum(np.floor(xm - 1.5), 0)
    product = np.ones_like(xm)
    for n in range(1, 7):
        product = np.where(shift >= n, product * (xm - n), product)
    out[middle] = horner(_AROUND_TWO, xm - shift - 2) + np.log(product)
    large = x >= 8
    xl = x[large]
    inverse = 1 / xl
    series = horner(_STIRLING, inverse * inverse) * inverse
    out[large] = (xl - 0.5) * (np.log(xl) - 1) + _HALF_LOG_2PI_MINUS_HALF + series
    return out


def lgamma(x: np.ndarray) -> np.ndarray:
    """``log|Γ(x)|``: inf at 0, the negative integers and ±inf; nan at nan."""
    out = np.full_like(x, np.inf)  # poles and ±inf
    positive = (x > 0) & np.isfinite(x)
    out[positive] = _lgamma_positive(x[positive])
    negative = (x < 0) & (x != np.floor(x)) & np.isfinite(x)
    xn = x[negative]
    # Reflection: Γ(x)Γ(−x) = −π/(x sin πx), so log|Γ(x)| = log(π/|x sin πx|) − log|Γ(−x)|.
    sine = np.abs(np.sin(_pi_times_fraction(xn)))
    out[negative] = np.log(math.pi / np.abs(xn * sine)) - _lgamma_positive(-xn)
    out[np.isnan(x)] = np.nan
    return out


# ----------------------------------------------------------------------------------------
# digamma: recurrence up to x ≥ 10, then the asymptotic series; reflection below 0
# ----------------------------------------------------------------------------------------
# ψ(x) ~ log x − 1/(2x) − Σⱼ B₂ⱼ/(2j x^(2j))
_PSI_ASYMPTOTIC = [0.0, *(float(-b / (2 * j)) for j, b in enumerate(_BERNOULLI[:9], start=1))]
# Around ψ's positive root x₀ the recurrence would cancel to nothing, so there ψ is its
# Taylor series: ψ(x₀ + h) = ψ(x₀) + Σ_{n≥1} (−1)ⁿ⁺¹ ζ(n + 1, x₀) hⁿ (as SciPy does).
_PSI_ROOT = 1.4616321449683622  # the float64 nearest to the root,
_PSI_AT_ROOT = -9.2412655217294275e-17  # where ψ is not quite 0
_PSI_AROUND_ROOT = [_PSI_AT_ROOT,
                    *((-1.0) ** np.arange(2, 42) * _zeta_values(40, _PSI_ROOT))]


def _digamma_positive(x: np.ndarray) -> np.ndarray:
    """ψ(x) for x > 0 (finite)."""
    out = np.empty_like(x)
    near_root = np.abs(x - _PSI_ROOT) < 0.5  # (|h/x₀| < 0.35: 40 terms are enough)
    out[near_root] = horner(_PSI_AROUND_ROOT, x[near_root] - _PSI_ROOT)
    rest = ~near_root
    y = x[rest].copy()
    correction = np.zeros_like(y)
    active = np.flatnonzero(y < 10)  # ψ(y) = ψ(y + 1) − 1/y
    while active.size:
        correction[active] -= 1 / y[active]
        y[active] += 1
        active = active[y[active] < 10]
    inverse_square = 1 / (y * y)
    out[rest] = (np.log(y) - 0.5 / y + horner(_PSI_ASYMPTOTIC, inverse_square)) + correction
    return out


def digamma(x: np.ndarray) -> np.ndarray:
    """ψ(x) = Γ′(x)/Γ(x): nan at the negative integers and −inf; ψ(±0) = ∓inf (PyTorch's)."""
    out = np.full_like(x, np.nan)
    positive = x > 0  # (nan compares False)
    out[positive] = _digamma_positive(x[positive])
    out[x == np.inf] = np.inf
    zero = x == 0
    out[zero] = -1 / x[zero]  # −1/(+0) = −inf, −1/(−0) = +inf
    negative = (x < 0) & (x != np.floor(x)) & np.isfinite(x)
    xn = x[negative]
    # Reflection: ψ(x) = ψ(1 − x) − π/tan(πx).
    out[negative] = _digamma_positive(1 - xn) - math.pi / np.tan(_pi_times_fraction(xn))
    return out


def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """The n-th derivative of ψ: ``ψ⁽ⁿ⁾(x) = (−1)ⁿ⁺¹ n! ζ(n + 1, x)`` for n ≥ 1."""
    if n == 0:
        return digamma(x)
    sign = -1.0 if n % 2 == 0 else 1.0
    result = sign * math.factorial(n) * zeta(np.full_like(x, n + 1.0), x)
    if n >= 2:  # PyTorch's kernel is then its zeta's (n = 1 has its own, trigamma), which
        # gives nan at q = inf and inf at q = -inf, not the limits 0 and nan
        result = np.where(x == np.inf, np.nan, np.where(x == -np.inf, sign * np.inf, result))
    return result
