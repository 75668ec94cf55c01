"""Modified Bessel functions of the first kind, vectorised: i0, i0e, i1, i1e.

``I₀(x) = Σₖ (x²/4)ᵏ/(k!)²`` and ``I₁(x) = (x/2)·Σₖ (x²/4)ᵏ/(k!(k+1)!)``: every term is
positive, so the power series loses nothing to cancellation; it is used for |x| ≤ 20
(50 terms; the roundings of Horner's rule add up to at most 10 ulps). Above, the
asymptotic expansion

    Iᵥ(x) ≈ eˣ/√(2πx) · Σₖ (−1)ᵏ aₖ(ν)/xᵏ,   aₖ(ν) = Πⱼ₌₁ᵏ (4ν² − (2j − 1)²) / (k!·8ᵏ)

is accurate to double precision (its smallest term, near k = 2x, is about e^(−2x)).
The scaled versions ``i0e = e^(−|x|)·I₀`` and ``i1e = e^(−|x|)·I₁`` drop the eˣ factor
instead of computing it, so they stay finite where I₀ overflows (|x| > 713).
"""

from __future__ import annotations

import math

import numpy as np

from . import horner

_SERIES_LIMIT = 20.0
_TERMS = 50


def _series_coefficients(order: int) -> list[float]:
    """1/(k!(k + order)!) for k = 0 .. _TERMS − 1: the power series in t = x²/4."""
    return [1 / (math.factorial(k) * math.factorial(k + order)) for k in range(_TERMS)]


def _asymptotic_coefficients(order: int, terms: int = 30) -> list[float]:
    """(−1)ᵏ aₖ(order), the coefficients of the expansion in 1/x (module docstring)."""
    coefficients, a = [1.0], 1.0
    for k in range(1, terms):
        a *= (4 * order * order - (2 * k - 1) ** 2) / (k * 8)
        coefficients.append((-1) ** k * a)
    return coefficients


_SERIES = {0: _series_coefficients(0), 1: _series_coefficients(1)}
_ASYMPTOTIC = {0: _asymptotic_coefficients(0), 1: _asymptotic_coefficients(1)}


def _scaled(order: int, x: np.ndarray) -> np.ndarray:
    """e^(−|x|)·I_order(|x|), for order 0 or 1."""
    ax = np.abs(x)
    out = np.array(ax, copy=True)  # nan stays nan
    near = np.flatnonzero(ax <= _SERIES_LIMIT)
    an = ax[near]
    series = horner(_SERIES[order], an * an / 4)
    if order == 1:
        series *= an / 2
    out[near] = series * np.exp(-an)
    far = np.flatnonzero(ax > _SERIES_LIMIT)  # (inf included: the expansion gives 0)
    af = ax[far]
    out[far] = horner(_ASYMPTOTIC[order], 1 / af) / np.sqrt(2 * math.pi * af)
    return out


def i0e(x: np.ndarray) -> np.ndarray:
    """The exponentially scaled modified Bessel function ``e^(−|x|)·I₀(x)`` (even)."""
    return _scaled(0, x)


def i1e(x: np.ndarray) -> np.ndarray:
    """``e^(−|x|)·I₁(x)`` (odd, like I₁)."""
    return np.copysign(_scaled(1, x), x)


def _unscaled(order: int, x: np.ndarray) -> np.ndarray:
    ax = np.abs(x)
    out = np.array(ax, copy=True)
    near = np.flatnonzero(ax <= _SERIES_LIMIT)
    an = ax[near]
    series = horner(_SERIES[order], an * an / 4)
    out[near] = series * an / 2 if order == 1 else series
    far = np.flatnonzero(ax > _SERIES_LIMIT)
    af = ax[far]
    # e^x/√(2πx) as e^(x/2)·(e^(x/2)/√(2πx)): finite as long as the result is.
    half = np.exp(af / 2)
    out[far] = horner(_ASYMPTOTIC[order], 1 / af) * (half / np.sqrt(2 * math.pi * af)) * half
    out[ax == np.inf] = np.inf  # (inf/inf above)
    return out


def i0(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the first kind of order 0, ``I₀(x)`` (even)."""
    return _unscaled(0, x)


def i1(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the first kind of order 1, ``I₁(x)`` (odd)."""
    return np.copysign(_unscaled(1, x), x)
