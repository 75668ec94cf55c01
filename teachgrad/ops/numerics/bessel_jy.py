"""Bessel functions of the first and second kind, vectorised: J₀, J₁, Y₀, Y₁.

The method and the coefficients are Stephen Moshier's (Cephes Math Library, ``j0.c`` and
``j1.c``; 3-clause BSD), the ones PyTorch's own kernels use, so the results agree with
``torch.special.bessel_j0`` & co. to the last digit or two. Two regions:

* ``|x| ≤ 5``: a rational function of x². J₀ and J₁ carry their first two zeros as exact
  factors, ``(x² − j₁²)(x² − j₂²)·R(x²)``, so they keep their relative accuracy next to
  those zeros. Y₀ and Y₁ add the logarithmic part:
  ``Y₀ = R(x²) + (2/π)·log(x)·J₀(x)`` and ``Y₁ = x·R(x²) + (2/π)·(J₁(x)·log(x) − 1/x)``.
* ``x > 5``: Hankel's asymptotic form. With the phase ``θ = x − π/4`` (order 0) or
  ``x − 3π/4`` (order 1),

      J(x) = √(2/(πx)) · (P·cos θ − (5/x)·Q·sin θ)
      Y(x) = √(2/(πx)) · (P·sin θ + (5/x)·Q·cos θ)

  where P and Q are rational functions of (5/x)², close to 1 and to −1/(8x)·(x/5).

J₀ is even and J₁ odd; Y₀ and Y₁ are not real for x < 0 (nan) and −inf at 0.
"""

from __future__ import annotations

import math

import numpy as np

from . import horner

# --- Cephes j0.c / j1.c coefficients, highest power first (as published) ------------------
_J0_PP = (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
          5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
          9.99999999999999997821e-01)
_J0_PQ = (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
          5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
          1.00000000000000000218e+00)
_J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
          -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
          -5.14105326766599330220e+01, -6.05014350600728481186e+00)
_J0_QQ = (1.0, 6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
          7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
          2.42005740240291393179e+02)  # (Cephes' p1evl: a leading 1 not stored there)
_J0_RP = (-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
          9.70862251047306323952e+15)
_J0_RQ = (1.0, 4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
          1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
          3.18121955943204943306e+16, 1.71086294081043136091e+18)
_J0_ZEROS_SQUARED = (5.78318596294678452118e+00, 3.04712623436620863991e+01)  # j₀,₁², j₀,₂²
_Y0_YP = (1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09,
          -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15,
          4.42733268572569800351e+16, -1.84950800436986690637e+16)
_Y0_YQ = (1.0, 1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
          8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
          2.50596256172653059228e+17)

_J1_PP = (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
          5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
          1.00000000000000000254e+00)
_J1_PQ = (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
          5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
          9.99999999999999997461e-01)
_J1_QP = (5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
          3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
          2.11688757100572135698e+02, 2.52070205858023719784e+01)
_J1_QQ = (1.0, 7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
          9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
          3.36093607810698293419e+02)
_J1_RP = (-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
          3.68295732863852883286e+15)
_J1_RQ = (1.0, 6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
          2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
          8.95222336184627338078e+16, 5.32278620332680085395e+18)
_J1_ZEROS_SQUARED = (1.46819706421238932572e+01, 4.92184563216946036703e+01)  # j₁,₁², j₁,₂²
_Y1_YP = (1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14,
          -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17)
_Y1_YQ = (1.0, 5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
          1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
          6.87141087355300489866e+16, 3.97270608116560655612e+18)
# ------------------------------------------------------------------------------------------

_TWO_OVER_PI = 2 / math.pi
_SQRT_TWO_OVER_PI = math.sqrt(2 / math.pi)
_SPLIT = 5.0


def _poly(coefficients_high_first, t):
    """A polynomial whose coefficients are listed highest power first (Cephes' order)."""
    return horner(coefficients_high_first[::-1], t)


def _hankel(order: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For x > 5: the amplitude √(2/(πx)), the phase θ, and the two factors P, (5/x)·Q."""
    pp, pq, qp, qq = ((_J0_PP, _J0_PQ, _J0_QP, _J0_QQ) if order == 0
                      else (_J1_PP, _J1_PQ, _J1_QP, _J1_QQ))
    w = 5 / x
    t = w * w
    p = _poly(pp, t) / _poly(pq, t)
    q = w * _poly(qp, t) / _poly(qq, t)
    theta = x - (0.25 if order == 0 else 0.75) * math.pi
    return _SQRT_TWO_OVER_PI / np.sqrt(x), theta, p, q


def _j0_small(x: np.ndarray) -> np.ndarray:
    t = x * x
    z1, z2 = _J0_ZEROS_SQUARED
    out = (t - z1) * (t - z2) * _poly(_J0_RP, t) / _poly(_J0_RQ, t)
    return np.where(x < 1e-5, 1 - t / 4, out)  # (the series' first terms, as Cephes)


def _j1_small(x: np.ndarray) -> np.ndarray:
    t = x * x
    z1, z2 = _J1_ZEROS_SQUARED
    return _poly(_J1_RP, t) / _poly(_J1_RQ, t) * x * (t - z1) * (t - z2)


def j0(x: np.ndarray) -> np.ndarray:
    """The Bessel function of the first kind of order 0, ``J₀(x)`` (even)."""
    ax = np.abs(x)
    out = np.empty_like(ax)
    small = ax <= _SPLIT
    out[small] = _j0_small(ax[small])
    large = ~small  # (nan lands here and stays nan)
    amplitude, theta, p, q = _hankel(0, ax[large])
    out[large] = amplitude * (p * np.cos(theta) - q * np.sin(theta))
    return out


def j1(x: np.ndarray) -> np.ndarray:
    """The Bessel function of the first kind of order 1, ``J₁(x)`` (odd)."""
    ax = np.abs(x)
    out = np.empty_like(ax)
    small = ax <= _SPLIT
    out[small] = _j1_small(ax[small])
    large = ~small
    amplitude, theta, p, q = _hankel(1, ax[large])
    out[large] = amplitude * (p * np.cos(theta) - q * np.sin(theta))
    return np.where(np.signbit(x), -out, out)  # (odd: J₁(−0) = −0, as in PyTorch)


def y0(x: np.ndarray) -> np.ndarray:
    """The Bessel function of the second kind of order 0, ``Y₀(x)``: −inf at 0, nan below."""
    out = np.full_like(x, np.nan)
    small = (x > 0) & (x <= _SPLIT)
    xs = x[small]
    t = xs * xs
    out[small] = _poly(_Y0_YP, t) / _poly(_Y0_YQ, t) + _TWO_OVER_PI * np.log(xs) * _j0_small(xs)
    large = x > _SPLIT
    amplitude, theta, p, q = _hankel(0, x[large])
    out[large] = amplitude * (p * np.sin(theta) + q * np.cos(theta))
    out[x == 0] = -np.inf
    return out


def y1(x: np.ndarray) -> np.ndarray:
    """The Bessel function of the second kind of order 1, ``Y₁(x)``: −inf at 0, nan below."""
    out = np.full_like(x, np.nan)
    small = (x > 0) & (x <= _SPLIT)
    xs = x[small]
    t = xs * xs
    log_part = _TWO_OVER_PI * (_j1_small(xs) * np.log(xs) - 1 / xs)
    out[small] = xs * (_poly(_Y1_YP, t) / _poly(_Y1_YQ, t)) + log_part
    large = x > _SPLIT
    amplitude, theta, p, q = _hankel(1, x[large])
    out[large] = amplitude * (p * np.sin(theta) + q * np.cos(theta))
    out[x == 0] = -np.inf
    return out


def spherical_j0(x: np.ndarray) -> np.ndarray:
    """The spherical Bessel function ``j₀(x) = sin(x)/x`` (1 at 0, 0 at ±inf).

    Below |x| = ½ its Taylor series ``1 − x²/6 + x⁴/120 − ...`` (7 terms, as PyTorch), which
    avoids 0/0 at the origin.
    """
    t = x * x
    series = horner([1.0, -1 / 6, 1 / 120, -1 / 5040, 1 / 362880, -1 / 39916800,
                     1 / 6227020800], t)
    out = np.where(np.abs(x) < 0.5, series, np.sin(x) / x)
    return np.where(np.isinf(x), 0.0, out)
