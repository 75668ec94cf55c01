"""``teachgrad.special``: PyTorch's ``torch.special``, special functions by their SciPy names.

Most are the functions of the top-level namespace under another name (``expit`` is
``sigmoid``, ``gammaln`` is ``lgamma``, ``psi`` is ``digamma``, ``gammainc`` is
``igamma``); a few exist only here, as in PyTorch: ``erfcx``, ``ndtr``, ``ndtri``,
``log_ndtr``, ``entr``, ``xlog1py``, ``i0e``, ``i1``, ``i1e``, ``zeta``. Every one of
these records its PyTorch ``grad_fn`` and can be differentiated (``zeta`` in its second
argument only, as in PyTorch).

The Bessel and Airy functions (``bessel_j0`` ... ``airy_ai``) and the orthogonal
polynomials (``chebyshev_polynomial_t`` ... ``legendre_polynomial_p``) have, as in
PyTorch, no derivative: their results do not require grad.

>>> import teachgrad as torch
>>> torch.special.expit(torch.tensor([0.]))
tensor([0.5000])
>>> torch.special.gammaln(torch.tensor([5.]))  # log(4!)
tensor([3.1781])

The numbers come from vectorised NumPy kernels (``teachgrad/ops/numerics/``): erf and erfc
within 1 and 3 ulps of the true value in float64, erfinv within 2, lgamma and digamma within
a few ulps for positive arguments (more next to the roots of lgamma and digamma at negative
arguments, where every method loses digits to cancellation).
"""

from .ops.activation import log_softmax, softmax
from .ops.bessel import i0, i0e, i1, i1e
from .ops.bessel_functions import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    spherical_bessel_j0,
)
from .ops.elementary import logit, sinc
from .ops.gamma import digamma, lgamma, mvlgamma, polygamma
from .ops.incomplete_gamma import gammainc, gammaincc
from .ops.orthogonal_polynomials import (
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
)
from .ops.pointwise import exp2, expm1, log1p, sigmoid
from .ops.pointwise import special_round as round  # noqa: A004 - PyTorch's name
from .ops.reduce import logsumexp
from .ops.special import (
    entr,
    erf,
    erfc,
    erfcx,
    erfinv,
    log_ndtr,
    ndtr,
    ndtri,
    xlog1py,
    xlogy,
)
from .ops.zeta import zeta

expit = sigmoid  # the logistic function's name in SciPy
gammaln = lgamma
psi = digamma
multigammaln = mvlgamma
del sigmoid, lgamma, mvlgamma  # torch.special has them only under the names above

__all__ = [
    "expit", "logit", "erf", "erfc", "erfcx", "erfinv", "gammaln", "digamma", "psi",
    "polygamma", "multigammaln", "log1p", "expm1", "exp2", "logsumexp", "softmax",
    "log_softmax", "xlogy", "xlog1py", "sinc", "entr", "ndtr", "ndtri", "log_ndtr", "i0",
    "i0e", "i1", "i1e", "round", "gammainc", "gammaincc", "zeta",
    # Bessel and Airy functions (no derivative, as in PyTorch)
    "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
    "airy_ai",
    # orthogonal polynomials (no derivative, as in PyTorch)
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p",
]
