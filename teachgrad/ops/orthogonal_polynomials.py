"""``torch.special``'s orthogonal polynomials: Chebyshev, Hermite, Laguerre, Legendre.

Each takes ``(input, n)``: the point x and the degree n, tensors or one of them a number,
broadcast together. The degree is truncated to an integer, as PyTorch does (``n = 2.5``
gives degree 2; a negative, nan or infinite n gives 0). The result dtype is the promoted
dtype of x and n (integers become float32). The numbers come from
:mod:`.numerics.orthogonal_polynomials`, computed in that dtype with PyTorch's recurrences.

As in PyTorch they have no derivative (the result does not require grad). One
difference: at x = nan PyTorch's Chebyshev, Laguerre and Legendre kernels return an
uninitialised variable for n ≥ 2 (often inf); teachgrad returns nan.

>>> import teachgrad as torch
>>> x = torch.tensor([0.5, 2.0])
>>> torch.special.chebyshev_polynomial_t(x, 2)   # T₂(x) = 2x² − 1
tensor([-0.5000,  7.0000])
>>> torch.special.hermite_polynomial_h(x, torch.tensor([3., 3.]))   # H₃(x) = 8x³ − 12x
tensor([-5., 40.])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._tensor import Tensor
from .numerics import orthogonal_polynomials as _kernels
from .untracked_special import float_arrays, untracked


def _evaluate(name: str, kernel: Callable, x, n) -> Tensor:
    if not isinstance(x, Tensor) and not isinstance(n, Tensor):
        raise TypeError(
            f"special_{name}() received an invalid combination of arguments - got "
            f"({type(x).__name__}, {type(n).__name__}), but expected one of:\n"
            " * (Tensor x, Tensor n, *, Tensor out = None)\n"
            " * (Number x, Tensor n, *, Tensor out = None)\n"
            " * (Tensor x, Number n, *, Tensor out = None)\n"
            "\nHint: make x or n a tensor, e.g. torch.tensor(0.5)."
        )
    (xa, na), _dtype = float_arrays(f"{name}_cpu", x, n)
    xa, na = np.broadcast_arrays(xa, na)
    with np.errstate(all="ignore"):  # (overflow to inf, then nan, is the expected result)
        out = kernel(xa.ravel(), na.ravel())
    return untracked(out.reshape(xa.shape))


def chebyshev_polynomial_t(input: Tensor, n: Tensor) -> Tensor:
    """The Chebyshev polynomial of the first kind ``Tₙ(x)``: ``Tₙ(cos θ) = cos(nθ)``."""
    return _evaluate("chebyshev_polynomial_t", _kernels.chebyshev_t, input, n)


def chebyshev_polynomial_u(input: Tensor, n: Tensor) -> Tensor:
    """The Chebyshev polynomial of the second kind ``Uₙ``: ``Uₙ(cos θ) = sin((n+1)θ)/sin θ``."""
    return _evaluate("chebyshev_polynomial_u", _kernels.chebyshev_u, input, n)


def chebyshev_polynomial_v(input: Tensor, n: Tensor) -> Tensor:
    """The Chebyshev polynomial of the third kind ``Vₙ``: ``Vₙ(cos θ) = cos((n+½)θ)/cos(θ/2)``."""
    return _evaluate("chebyshev_polynomial_v", _kernels.chebyshev_v, input, n)


def chebyshev_polynomial_w(input: Tensor, n: Tensor) -> Tensor:
    """The Chebyshev polynomial of the fourth kind ``Wₙ``: ``Wₙ(cos θ) = sin((n+½)θ)/sin(θ/2)``."""
    return _evaluate("chebyshev_polynomial_w", _kernels.chebyshev_w, input, n)


def shifted_chebyshev_polynomial_t(input: Tensor, n: Tensor) -> Tensor:
    """``Tₙ(2x − 1)``, the Chebyshev polynomial of the first kind moved to [0, 1]."""
    return _evaluate("shifted_chebyshev_polynomial_t", _kernels.shifted_chebyshev_t, input, n)


def shifted_chebyshev_polynomial_u(input: Tensor, n: Tensor) -> Tensor:
    """``Uₙ(2x − 1)``, the Chebyshev polynomial of the second kind on [0, 1]."""
    return _evaluate("shifted_chebyshev_polynomial_u", _kernels.shifted_chebyshev_u, input, n)


def shifted_chebyshev_polynomial_v(input: Tensor, n: Tensor) -> Tensor:
    """``Vₙ(2x − 1)``, the Chebyshev polynomial of the third kind on [0, 1]."""
    return _evaluate("shifted_chebyshev_polynomial_v", _kernels.shifted_chebyshev_v, input, n)


def shifted_chebyshev_polynomial_w(input: Tensor, n: Tensor) -> Tensor:
    """``Wₙ(2x − 1)``, the Chebyshev polynomial of the fourth kind on [0, 1]."""
    return _evaluate("shifted_chebyshev_polynomial_w", _kernels.shifted_chebyshev_w, input, n)


def hermite_polynomial_h(input: Tensor, n: Tensor) -> Tensor:
    """The physicists' Hermite polynomial ``Hₙ`` (H₂ = 4x² − 2; nan above degree 128 in
    float32, 512 in float64, as in PyTorch)."""
    return _evaluate("hermite_polynomial_h", _kernels.hermite_h, input, n)


def hermite_polynomial_he(input: Tensor, n: Tensor) -> Tensor:
    """The probabilists' Hermite polynomial ``Heₙ`` (He₂ = x² − 1; nan above degree 128
    in float32, 512 in float64)."""
    return _evaluate("hermite_polynomial_he", _kernels.hermite_he, input, n)


def laguerre_polynomial_l(input: Tensor, n: Tensor) -> Tensor:
    """The Laguerre polynomial ``Lₙ`` (L₂ = (x² − 4x + 2)/2)."""
    return _evaluate("laguerre_polynomial_l", _kernels.laguerre_l, input, n)


def legendre_polynomial_p(input: Tensor, n: Tensor) -> Tensor:
    """The Legendre polynomial ``Pₙ`` (P₂ = (3x² − 1)/2)."""
    return _evaluate("legendre_polynomial_p", _kernels.legendre_p, input, n)


__all__: list[str] = []  # torch.special only (teachgrad.special exports them)
