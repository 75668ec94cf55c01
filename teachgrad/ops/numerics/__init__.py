"""Special functions on NumPy arrays: the numbers behind erf, lgamma, digamma, i0 ...

NumPy has no error function, no gamma function and no Bessel functions (and SciPy is not a
dependency), so these modules compute them, vectorised: each region of the input gets its
own formula, applied to all of that region's elements at once.

======================  ====================================================================
erf                     erf, erfc, erfcx (rational approximations), erfinv and ndtri (Newton)
gamma                   Hurwitz zeta, lgamma, digamma, polygamma (series, recurrences,
                        reflection)
zeta                    torch.special.zeta: gamma's zeta with PyTorch's special cases
bessel                  i0, i0e, i1, i1e (power series and asymptotic expansions)
bessel_jy               J₀, J₁, Y₀, Y₁, spherical j₀ (Cephes' rational approximations)
bessel_k                K₀, K₁, eˣK₀, eˣK₁ (Cephes' Chebyshev series)
airy                    Ai (Cephes: asymptotic forms and the Maclaurin series)
orthogonal_polynomials  Chebyshev, Hermite, Laguerre, Legendre (PyTorch's recurrences)
======================  ====================================================================

Everything is computed in float64 (except the orthogonal polynomials, which follow
PyTorch's arithmetic in the input's dtype); :func:`in_float64` wraps a kernel so a float32 or
float16 input gets a float64 result rounded to its own dtype (so float32 results are the
correctly rounded value, or one ulp away).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

_BLOCK = 32768  # elements: 256 kB of float64, a few arrays of it fit in the L2 cache


def in_float64(kernel: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Run ``kernel`` on a flat float64 copy of its input; round the result to the input dtype.

    The kernels take and return 1-d float64 arrays (they pick regions by flat index).
    """

    @functools.wraps(kernel)
    def wrapper(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
        flat = x.astype(np.float64).ravel()  # (a 1-d copy: the kernels index flat)
        out = np.empty_like(flat)
        with np.errstate(all="ignore"):  # (inf and nan are expected results here)
            # In blocks that stay in the CPU's cache: a kernel makes some thirty passes
            # over its input, and on a million elements each pass would go to memory
            # (this halves the time of erf on 10⁶ elements).
            for start in range(0, flat.size, _BLOCK):
                out[start:start + _BLOCK] = kernel(flat[start:start + _BLOCK])
            return out.reshape(x.shape).astype(dtype, copy=False)  # (may overflow float16)

    return wrapper


def horner(coefficients: Sequence[float], x: np.ndarray) -> np.ndarray:
    """The polynomial ``c[0] + c[1]·x + c[2]·x² + ...`` at ``x`` (lowest power first)."""
    result = np.full(np.shape(x), coefficients[-1], dtype=np.float64)
    for c in coefficients[-2::-1]:  # (in place: no new array per coefficient)
        result *= x
        result += c
    return result
