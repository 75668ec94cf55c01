"""The Airy function Ai, vectorised.

Ai solves ``y″ = x·y`` and decays for x → +∞. The method and coefficients are Stephen
Moshier's (Cephes Math Library, ``airy.c``; 3-clause BSD), as in PyTorch's kernel:

==================  ========================================================================
x < −2.09           oscillating: ``Ai(x) = (sin(ζ + π/4)·(1 + F(1/ζ²)) − cos(ζ + π/4)·G/ζ)
                    / (√π·|x|^¼)``, ``ζ = ⅔|x|^(3/2)``, F and G rational functions
−2.09 ≤ x < 2.09    the Maclaurin series ``Ai(x) = c₁·f(x) − c₂·g(x)`` with
                    ``f = Σ 3ᵏ(⅓)ₖ x³ᵏ/(3k)!`` and ``g = Σ 3ᵏ(⅔)ₖ x³ᵏ⁺¹/(3k+1)!``
2.09 ≤ x ≤ 103.892  decaying: ``Ai(x) = e^(−ζ)/(2√π·x^¼) · N(1/ζ)/D(1/ζ)``
x > 103.892         0 (below the smallest double)
==================  ========================================================================

``Ai(±inf)`` is nan, as in PyTorch (Cephes' answer for an infinite argument).
"""

from __future__ import annotations

import math

import numpy as np

from . import horner

# --- Cephes airy.c coefficients, highest power first --------------------------------------
_AN = (3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
       1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
       1.40264691163389668864e+01, 9.99999999999999995305e-01)
_AD = (5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
       1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
       1.40959135607834029598e+01, 1.00000000000000000470e+00)
_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
        -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
        -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)
_AFD = (1.0, 1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
        9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
        4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07)
_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
        9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
        5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
        8.11789239554389293311e-08, 3.41551784765923618484e-10)
_AGD = (1.0, 9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
        5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
        4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
        4.91834570062930015649e-09)  # (the leading 1 is implicit in Cephes' p1evl)
_C1 = 0.355028053887817239260  # Ai(0)
_C2 = 0.258819403792806798405  # −Ai′(0)
_ONE_OVER_SQRT_PI = 5.64189583547756286948e-01
# ------------------------------------------------------------------------------------------

_OSCILLATING, _DECAYING, _UNDERFLOW = -2.09, 2.09, 103.892


def _poly(coefficients_high_first, t):
    return horner(coefficients_high_first[::-1], t)


def _oscillating(x: np.ndarray) -> np.ndarray:
    zeta = -2 * x * np.sqrt(-x) / 3
    z = 1 / zeta
    zz = z * z
    f = 1 + zz * _poly(_AFN, zz) / _poly(_AFD, zz)
    g = z * _poly(_AGN, zz) / _poly(_AGD, zz)
    theta = zeta + 0.25 * math.pi
    return _ONE_OVER_SQRT_PI / np.sqrt(np.sqrt(-x)) * (np.sin(theta) * f - np.cos(theta) * g)


def _maclaurin(x: np.ndarray) -> np.ndarray:
    """c₁f − c₂g, the two series summed until their terms fall below one ulp (|x| < 2.09:
    at most some 15 terms)."""
    z = x * x * x
    f, g = np.ones_like(x), x.copy()
    m, n = np.ones_like(x), x.copy()  # the current terms of f and g
    k = 1.0
    for _ in range(100):
        m = m * z / ((k + 1) * (k + 2))
        n = n * z / ((k + 2) * (k + 3))
        k += 3
        f += m
        g += n
        if not np.any(np.abs(m) > np.finfo(np.float64).eps * np.abs(f)):
            break
    return _C1 * f - _C2 * g


def _decaying(x: np.ndarray) -> np.ndarray:
    zeta = 2 * x * np.sqrt(x) / 3
    ratio = _poly(_AN, 1 / zeta) / _poly(_AD, 1 / zeta)
    return _ONE_OVER_SQRT_PI * ratio / (2 * np.sqrt(np.sqrt(x)) * np.exp(zeta))


def airy_ai(x: np.ndarray) -> np.ndarray:
    """The Airy function of the first kind, ``Ai(x)``."""
    out = np.full_like(x, np.nan)  # nan and ±inf
    finite = np.isfinite(x)
    left = finite & (x < _OSCILLATING)
    out[left] = _oscillating(x[left])
    middle = (x >= _OSCILLATING) & (x < _DECAYING)
    out[middle] = _maclaurin(x[middle])
    right = finite & (x >= _DECAYING)
    out[right] = _decaying(x[right])
    out[finite & (x > _UNDERFLOW)] = 0.0
    return out
