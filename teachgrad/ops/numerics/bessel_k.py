"""Modified Bessel functions of the second kind, vectorised: K₀, K₁ and their scaled forms.

The method and the coefficients are Stephen Moshier's (Cephes Math Library, ``k0.c`` and
``k1.c``; 3-clause BSD), as in PyTorch's kernels: Chebyshev series in two regions.

* ``0 < x ≤ 2``: ``K₀(x) = A(x² − 2) − log(x/2)·I₀(x)`` and
  ``K₁(x) = log(x/2)·I₁(x) + A₁(x² − 2)/x``, where A is a Chebyshev series on [−2, 2].
* ``x > 2``: ``K(x) = e^(−x)/√x · B(8/x − 2)``: K decays like e^(−x)/√x and B is smooth.

The scaled functions ``eˣ·K(x)`` (``scaled_modified_bessel_k0``/``k1``) skip the factor
e^(−x), so they stay finite where K underflows to 0 (x > 745). K is +inf at 0 (a
logarithmic pole for K₀, 1/x for K₁) and nan for x < 0, where it is not real.
"""

from __future__ import annotations

import numpy as np

from .bessel import i0 as _i0
from .bessel import i1 as _i1

# --- Cephes k0.c / k1.c Chebyshev coefficients (first = highest order, as published) -------
_K0_A = (1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
         1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
         1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
         -5.35327393233902768720e-01)
_K0_B = (5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
         -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
         6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
         -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
         1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
         -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
         2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
         -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
         2.44030308206595545468e+00)
_K1_A = (-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
         -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
         -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
         -3.53155960776544875667e-01, 1.52530022733894777053e+00)
_K1_B = (-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
         1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
         -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
         3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
         -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
         2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
         -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
         1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
         2.72062619048444266945e+00)
# ------------------------------------------------------------------------------------------


def chebyshev_series(coefficients, y: np.ndarray) -> np.ndarray:
    """``Σ' cₖ·Tₖ(y/2)`` by Clenshaw's recurrence (Cephes' ``chbevl``; y in [−2, 2]).

    The coefficients are listed from the highest order down, and the constant term counts
    half (hence the ``½`` at the end).
    """
    b0 = np.full_like(y, coefficients[0])
    b1 = np.zeros_like(y)
    b2 = b1
    for c in coefficients[1:]:
        b2 = b1
        b1 = b0
        b0 = y * b1 - b2 + c
    return 0.5 * (b0 - b2)


def _k(order: int, x: np.ndarray, scaled: bool) -> np.ndarray:
    """K_order(x), or eˣ·K_order(x) when ``scaled``, for order 0 or 1."""
    out = np.full_like(x, np.nan)  # x < 0 and nan
    small = (x > 0) & (x <= 2)
    xs = x[small]
    if order == 0:
        near = chebyshev_series(_K0_A, xs * xs - 2) - np.log(0.5 * xs) * _i0(xs)
    else:
        near = np.log(0.5 * xs) * _i1(xs) + chebyshev_series(_K1_A, xs * xs - 2) / xs
    out[small] = near * np.exp(xs) if scaled else near
    large = x > 2  # (+inf included: the result is 0)
    xl = x[large]
    far = chebyshev_series(_K0_B if order == 0 else _K1_B, 8 / xl - 2) / np.sqrt(xl)
    out[large] = far if scaled else np.exp(-xl) * far
    out[x == 0] = np.inf
    return out


def k0(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the second kind of order 0, ``K₀(x)``."""
    return _k(0, x, scaled=False)


def k1(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the second kind of order 1, ``K₁(x)``."""
    return _k(1, x, scaled=False)


def k0e(x: np.ndarray) -> np.ndarray:
    """``eˣ·K₀(x)``, finite for large x."""
    return _k(0, x, scaled=True)


def k1e(x: np.ndarray) -> np.ndarray:
    """``eˣ·K₁(x)``, finite for large x."""
    return _k(1, x, scaled=True)
