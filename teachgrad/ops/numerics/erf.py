"""The error function family, vectorised: erf, erfc, erfcx, erfinv, ndtri, log_ndtr.

erf and erfc use the rational approximations of Sun's fdlibm (``s_erf.c``, 1993; the same
method as W. J. Cody's, "Rational Chebyshev approximations for the error function",
Math. Comp. 1969). Their coefficients are below, as published ("Permission to use, copy,
modify, and distribute this software is freely granted, provided that this notice is
preserved" -- Copyright (C) 1993 by Sun Microsystems, Inc.). The error of each
approximation is below 2⁻⁵⁷, so erf is within 1 ulp of the true value and erfc within 3
(the rounding of two exponentials and a division).

The input is split into three regions, each with its own formula:

==================  ==========================================================
|x| < 0.84375       erf(x) = x + x·P(x²)/Q(x²)          (the Taylor series' shape)
0.84375 ≤ |x| < 1.25  erf(x) = c + P(s)/Q(s), s = |x| − 1  (expanded around 1)
1.25 ≤ |x|          erfc(x) = exp(−x² − 0.5625 + R(1/x²)/S(1/x²)) / x
==================  ==========================================================

The last line is the asymptotic shape of erfc, ``e^(−x²)/(x√π)`` times a correction, so
erfc keeps its digits far into the tail (down to the subnormal numbers near x = 27) where
``1 − erf(x)`` would be 0.
"""

from __future__ import annotations

import math

import numpy as np

from . import horner

# --- fdlibm s_erf.c coefficients (see the module docstring) ------------------------------
_ERX = 8.45062911510467529297e-01  # erf(1) rounded to single precision
_EFX = 1.28379167095512586316e-01  # 2/√π − 1
_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01,
       -2.84817495755985104766e-02, -5.77027029648944159157e-03,
       -2.37630166566501626084e-05)
_QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02,
       5.08130628187576562776e-03, 1.32494738004321644526e-04,
       -3.96022827877536812320e-06)
_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01,
       -3.72207876035701323847e-01, 3.18346619901161753674e-01,
       -1.10894694282396677476e-01, 3.54783043256182359371e-02,
       -2.16637559486879084300e-03)
_QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01,
       7.18286544141962662868e-02, 1.26171219808761642112e-01,
       1.36370839120290507362e-02, 1.19844998467991074170e-02)
_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01,
       -1.05586262253232909814e+01, -6.23753324503260060396e+01,
       -1.62396669462573470355e+02, -1.84605092906711035994e+02,
       -8.12874355063065934246e+01, -9.81432934416914548592e+00)
_SA = (1.0, 1.96512716674392571292e+01, 1.37657754143519042600e+02,
       4.34565877475229228821e+02, 6.45387271733267880336e+02,
       4.29008140027567833386e+02, 1.08635005541779435134e+02,
       6.57024977031928170135e+00, -6.04244152148580987438e-02)
_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01,
       -1.77579549177547519889e+01, -1.60636384855821916062e+02,
       -6.37566443368389627722e+02, -1.02509513161107724954e+03,
       -4.83519191608651397019e+02)
_SB = (1.0, 3.03380607434824582924e+01, 3.25792512996573918826e+02,
       1.53672958608443695994e+03, 3.19985821950859553908e+03,
       2.55305040643316442583e+03, 4.74528541206955367215e+02,
       -2.24409524465858183362e+01)
# ------------------------------------------------------------------------------------------

_SMALL, _MID = 0.84375, 1.25
_TINY = 2.0**-28  # below it erf(x) = x·2/√π to double precision
_SQRT_PI = math.sqrt(math.pi)
_SQRT2 = math.sqrt(2.0)


def _small_ratio(x2: np.ndarray) -> np.ndarray:
    """(erf(x) − x)/x for |x| < 0.84375, from x²."""
    return horner(_PP, x2) / horner(_QQ, x2)


def _mid_ratio(ax: np.ndarray) -> np.ndarray:
    """erf(|x|) − c for 0.84375 ≤ |x| < 1.25."""
    s = ax - 1
    return horner(_PA, s) / horner(_QA, s)


def _high_part(ax: np.ndarray) -> np.ndarray:
    """``ax`` with its last 32 bits of mantissa cleared: its square is exact in float64."""
    return (ax.view(np.uint64) & np.uint64(0xFFFFFFFF00000000)).view(np.float64)


def _tail_correction(ax: np.ndarray) -> np.ndarray:
    """−0.5625 + R/S in erfc(x) = exp(−x² − 0.5625 + R/S)/x, for |x| ≥ 1.25."""
    s = 1 / (ax * ax)
    ratio = np.empty_like(s)
    near = ax < 1 / 0.35  # two fits: [1.25, 2.857) and [2.857, 28]
    for fit, (r, q) in ((np.flatnonzero(near), (_RA, _SA)), (np.flatnonzero(~near), (_RB, _SB))):
        ratio[fit] = horner(r, s[fit]) / horner(q, s[fit])
    return ratio - 0.5625


def _tail_erfc(ax: np.ndarray) -> np.ndarray:
    """erfc(|x|) for |x| ≥ 1.25 (0 beyond 28, where it underflows, and at inf)."""
    ax = np.minimum(ax, 28.0)
    # exp(−x²) with x² = z² + (x − z)(x + z): z² is exact, so no digit of x² is lost
    # (an error of one ulp in x² = 700 would be an error of 700 ulps in the result).
    z = _high_part(ax)
    # exp(−z²) may be subnormal: multiplying it by a factor < 1 last keeps its digits.
    # (−z² − 0.5625 is exact too: z has 21 significant bits.)
    return np.exp(-z * z - 0.5625) * (
        np.exp((z - ax) * (z + ax) + (_tail_correction(ax) + 0.5625)) / ax)


def _regions(ax: np.ndarray) -> tuple[np.ndarray, ...]:
    """Where each formula applies (small, tiny, mid, tail), as arrays of flat indices.

    Integer indices rather than boolean masks: gathering ``x[indices]`` and scattering
    ``out[indices] = ...`` is about ten times faster in NumPy than with a mask.
    """
    small = np.flatnonzero((ax < _SMALL) & (ax >= _TINY))
    tiny = np.flatnonzero(ax < _TINY)
    mid = np.flatnonzero((ax >= _SMALL) & (ax < _MID))
    tail = np.flatnonzero(ax >= _MID)  # (nan is in no region: it stays as it is)
    return small, tiny, mid, tail


def erf(x: np.ndarray) -> np.ndarray:
    """The error function ``2/√π ∫₀ˣ e^(−t²) dt`` of a float64 array."""
    ax = np.abs(x)
    out = np.array(x, dtype=np.float64, copy=True)  # nan stays nan, ±0 stays ±0
    small, tiny, mid, tail = _regions(ax)
    xs = x[small]
    out[small] = xs + xs * _small_ratio(xs * xs)
    # (8x + 8·efx·x)/8: no underflow of efx·x for subnormal x, as fdlibm does it.
    out[tiny] = 0.125 * (8 * x[tiny] + 8 * _EFX * x[tiny])
    out[mid] = np.copysign(_ERX + _mid_ratio(ax[mid]), x[mid])
    out[tail] = np.copysign(1 - _tail_erfc(ax[tail]), x[tail])
    return out


def erfc(x: np.ndarray) -> np.ndarray:
    """``1 − erf(x)``, computed without cancellation (it keeps its digits up to x ≈ 27)."""
    ax = np.abs(x)
    out = np.array(x, dtype=np.float64, copy=True)
    small, tiny, mid, tail = _regions(ax)
    small = np.concatenate([small, tiny])
    xs = x[small]
    r = xs * _small_ratio(xs * xs)
    # Above 1/4, 1 − erf(x) loses a bit; 0.5 − (x·R + (x − 0.5)) does not.
    out[small] = np.where(xs < 0.25, 1 - (xs + r), 0.5 - (r + (xs - 0.5)))
    xm, rm = x[mid], _mid_ratio(ax[mid])
    out[mid] = np.where(xm > 0, (1 - _ERX) - rm, 1 + (_ERX + rm))
    xt, et = x[tail], _tail_erfc(ax[tail])
    out[tail] = np.where(xt > 0, et, 2 - et)
    return out


def _exp_square(x: np.ndarray) -> np.ndarray:
    """``exp(x²)`` without losing the digits x² rounds away (see :func:`_tail_erfc`)."""
    z = _high_part(np.abs(x))
    ax = np.abs(x)
    low_bits = np.where(np.isinf(ax), 0, (ax - z) * (ax + z))  # (inf − inf would be nan)
    return np.exp(z * z) * np.exp(low_bits)


def _erfcx_asymptotic(x: np.ndarray, terms: int = 12) -> np.ndarray:
    """erfcx(x) ≈ 1/(x√π) · Σ (−1)ᵏ (2k−1)!!/(2x²)ᵏ, for x ≥ 28 (the terms fall fast)."""
    u = 1 / (2 * x * x)
    coefficients = [1.0]
    for k in range(1, terms):
        coefficients.append(-coefficients[-1] * (2 * k - 1))
    return horner(coefficients, u) / (x * _SQRT_PI)


def erfcx(x: np.ndarray) -> np.ndarray:
    """The scaled complement ``exp(x²)·erfc(x)``: about 1/(x√π) for large x, no underflow."""
    out = np.array(x, dtype=np.float64, copy=True)
    low = np.flatnonzero(x < _MID)  # exp(x²)·erfc(x) directly (inf below about −26.6)
    out[low] = _exp_square(x[low]) * erfc(x[low])
    middle = np.flatnonzero((x >= _MID) & (x < 28))
    # exp(x²)·exp(−x² − 0.5625 + R/S)/x: the squares cancel exactly, on paper.
    out[middle] = np.exp(_tail_correction(x[middle])) / x[middle]
    high = np.flatnonzero(x >= 28)
    out[high] = _erfcx_asymptotic(x[high])
    return out


# ----------------------------------------------------------------------------------------
# Inverses: erfinv and ndtri, by Newton's method on erf (or on log erfc in the tails)
# ----------------------------------------------------------------------------------------
_GILES_CENTRAL = (1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087,
                  -4.39150654e-06, -3.5233877e-06, 3.43273939e-07, 2.81022636e-08)
_GILES_TAIL = (2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773,
               -0.00367342844, 0.00134934322, 0.000100950558, -0.000200214257)


def _first_guess(y: np.ndarray, c: np.ndarray) -> np.ndarray:
    """erfinv(y) to about 1e-4 (relative), from Giles' fits and, far out, the asymptotics."""
    w = -np.log(c * (2 - c))  # −log((1 − y)(1 + y))
    z = np.empty_like(w)
    central, tail, far = (np.flatnonzero(m) for m in (w < 5, (w >= 5) & (w < 16), w >= 16))
    z[central] = horner(_GILES_CENTRAL, w[central] - 2.5) * y[central]
    z[tail] = horner(_GILES_TAIL, np.sqrt(w[tail]) - 3)
    # Beyond w = 16 (c < 1e-7) Giles' fit was not made for; solve the leading terms of
    # erfc(z) ≈ e^(−z²)/(z√π)·(1 − 1/(2z²)) = c for z² by fixed-point iteration instead.
    log_c = np.log(c[far])
    z_far = np.sqrt(-log_c)
    for _ in range(3):
        z_far = np.sqrt(-log_c - np.log(_SQRT_PI * z_far) + np.log1p(-0.5 / (z_far * z_far)))
    z[far] = z_far
    return z


def _inverse(y: np.ndarray, c: np.ndarray, steps: int = 3) -> np.ndarray:
    """The z ≥ 0 with erf(z) = y, given y ∈ [0, 1] and its complement c = 1 − y.

    The caller passes c exactly (for erfinv, ``1 − y`` is exact when y ≥ 0.5; for ndtri,
    c is ``2p``), because in the tail c holds all the information: y = 1 − 1e-300 is 1.

    The first guess is M. Giles' approximation ("Approximating the erfinv function", GPU
    Computing Gems, 2010), good to about 1e-7 in the middle. Each Newton step then about
    doubles the number of correct digits. Where y ≥ 0.7 the step is taken on
    log erfc(z) = log c instead: erfc falls like e^(−z²), nearly a straight line in log
    space, and its value is known to full relative precision even when c is 1e-300.
    Three steps give erfinv to 2 ulps.
    """
    z = _first_guess(y, c)
    tail = y >= 0.7  # (from 0.5 up the step on erf is 2-4 ulps less accurate)
    log_c = np.log(c)
    for _ in range(steps):
        # erfc(z)/erf′(z) = √π/2 · erfcx(z): it neither underflows nor divides 0 by 0.
        scaled = erfcx(z)
        log_erfc = np.log(scaled) - z * z
        tail_step = (log_erfc - log_c) * scaled * (_SQRT_PI / 2)
        central_step = (y - erf(z)) * (_SQRT_PI / 2) * np.exp(z * z)
        z = z + np.where(tail, tail_step, central_step)
    return z


def erfinv(y: np.ndarray) -> np.ndarray:
    """The x with erf(x) = y: ±inf at ±1, nan outside [−1, 1]."""
    ay = np.abs(y)
    inside = np.flatnonzero(ay < 1)
    out = np.where(ay == 1, np.copysign(np.inf, y), np.nan)
    a = ay[inside]
    out[inside] = np.copysign(_inverse(a, 1 - a), y[inside])  # 1 − a: exact where it counts
    return out


def ndtri(p: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal CDF: the x with Φ(x) = p (±inf at 1 and 0).

    Φ(x) = erfc(−x/√2)/2, so x = −√2·z where erfc(z) = 2p; below p = 0.5 the complement
    2p is exact, above it 2(1 − p) is.
    """
    out = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, np.nan))
    lower = np.flatnonzero((p > 0) & (p < 0.5))
    c = 2 * p[lower]
    out[lower] = -_SQRT2 * _inverse(1 - c, c)
    upper = np.flatnonzero((p >= 0.5) & (p < 1))
    c = 2 * (1 - p[upper])
    out[upper] = _SQRT2 * _inverse(1 - c, c)
    return out


def ndtr(x: np.ndarray) -> np.ndarray:
    """The standard normal CDF Φ(x) = erfc(−x/√2)/2 (accurate in the lower tail too)."""
    return 0.5 * erfc(-x / _SQRT2)


def log_ndtr(x: np.ndarray) -> np.ndarray:
    """log Φ(x), accurate where Φ(x) underflows (x ≪ 0) and where it is close to 1 (x ≫ 0)."""
    out = np.array(x, dtype=np.float64, copy=True)
    t = -x / _SQRT2
    upper = np.flatnonzero(x > 0)  # Φ(x) = 1 − erfc(x/√2)/2: log1p keeps the small part
    out[upper] = np.log1p(-0.5 * erfc(-t[upper]))
    middle = np.flatnonzero((x <= 0) & (x > -1))
    out[middle] = np.log(0.5 * erfc(t[middle]))
    lower = np.flatnonzero(x <= -1)  # erfc(t) = erfcx(t)·e^(−t²): take the log before multiplying
    out[lower] = np.log(0.5 * erfcx(t[lower])) - 0.5 * x[lower] * x[lower]
    return out
