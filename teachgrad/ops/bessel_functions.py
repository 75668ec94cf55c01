"""``torch.special``'s Bessel and Airy functions: J₀, J₁, Y₀, Y₁, I₀, I₁, K₀, K₁, j₀, Ai.

``bessel_j0``, ``modified_bessel_k1``, ``airy_ai`` ... take one tensor (integers become
float32) and give their values; the numbers come from :mod:`.numerics.bessel_jy`,
:mod:`.numerics.bessel_k`, :mod:`.numerics.airy` and, for I₀ and I₁, the same kernels as
``torch.i0`` and ``torch.special.i1`` (:mod:`.numerics.bessel`).

As in PyTorch these have no derivative: the result does not require grad (see
:mod:`.untracked_special`). The derivatives are known in closed form, should you want
to build them from other functions: ``J₀′ = −J₁``, ``Y₀′ = −Y₁``, ``I₀′ = I₁``,
``K₀′ = −K₁``, ``Ai′`` (not in torch.special).

Differences from PyTorch 2.13: PyTorch's CPU kernels for J₀, J₁, Y₀, Y₁ and Ai (for
x < −2.09) evaluate Cephes' denominators without their leading coefficient 1 (Cephes'
``p1evl``), which makes them off by up to 2·10⁻⁵ (relative) in places, e.g. J₀(4.9) and
Y₁ near 3; teachgrad keeps the 1 and is within about 10⁻¹⁵ of the true values (absolute,
near the zeros of the oscillating functions; relative elsewhere). And PyTorch's
``modified_bessel_i0``/``i1`` give nan at ±inf and inf from |x| ≈ 709.8 on (its eˣ
overflows first); teachgrad gives ±inf and the finite values, as ``torch.i0`` does.

>>> import teachgrad as torch
>>> torch.special.bessel_j0(torch.tensor([0., 1.]))
tensor([1.0000, 0.7652])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._tensor import Tensor
from .numerics import airy as _airy
from .numerics import bessel as _bessel_i
from .numerics import bessel_jy as _bessel_jy
from .numerics import bessel_k as _bessel_k
from .numerics import in_float64
from .untracked_special import float_arrays, untracked


def _evaluate(name: str, kernel: Callable[[np.ndarray], np.ndarray], input) -> Tensor:
    (x,), _dtype = float_arrays(f"{name}_cpu", input)
    return untracked(in_float64(kernel)(x))


def bessel_j0(input: Tensor) -> Tensor:
    """The Bessel function of the first kind of order 0, ``J₀(x) = Σₖ (−x²/4)ᵏ/(k!)²``."""
    return _evaluate("bessel_j0", _bessel_jy.j0, input)


def bessel_j1(input: Tensor) -> Tensor:
    """The Bessel function of the first kind of order 1, ``J₁ = −J₀′``."""
    return _evaluate("bessel_j1", _bessel_jy.j1, input)


def bessel_y0(input: Tensor) -> Tensor:
    """The Bessel function of the second kind of order 0 (−inf at 0, nan for x < 0)."""
    return _evaluate("bessel_y0", _bessel_jy.y0, input)


def bessel_y1(input: Tensor) -> Tensor:
    """The Bessel function of the second kind of order 1 (−inf at 0, nan for x < 0)."""
    return _evaluate("bessel_y1", _bessel_jy.y1, input)


def modified_bessel_i0(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 0 (the values of
    ``torch.i0``, without its gradient)."""
    return _evaluate("modified_bessel_i0", _bessel_i.i0, input)


def modified_bessel_i1(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 1 (``torch.special.i1``'s
    values, without its gradient)."""
    return _evaluate("modified_bessel_i1", _bessel_i.i1, input)


def modified_bessel_k0(input: Tensor) -> Tensor:
    """The modified Bessel function of the second kind of order 0 (inf at 0, nan below)."""
    return _evaluate("modified_bessel_k0", _bessel_k.k0, input)


def modified_bessel_k1(input: Tensor) -> Tensor:
    """The modified Bessel function of the second kind of order 1 (inf at 0, nan below)."""
    return _evaluate("modified_bessel_k1", _bessel_k.k1, input)


def scaled_modified_bessel_k0(input: Tensor) -> Tensor:
    """``exp(x)·K₀(x)``: finite for large x, where K₀ underflows to 0.

    >>> import teachgrad as torch
    >>> torch.special.scaled_modified_bessel_k0(torch.tensor([1000.]))  # ≈ √(π/2000)
    tensor([0.0396])
    """
    return _evaluate("scaled_modified_bessel_k0", _bessel_k.k0e, input)


def scaled_modified_bessel_k1(input: Tensor) -> Tensor:
    """``exp(x)·K₁(x)``: finite for large x, where K₁ underflows to 0."""
    return _evaluate("scaled_modified_bessel_k1", _bessel_k.k1e, input)


def spherical_bessel_j0(input: Tensor) -> Tensor:
    """The spherical Bessel function of the first kind of order 0, ``sin(x)/x`` (1 at 0)."""
    return _evaluate("spherical_bessel_j0", _bessel_jy.spherical_j0, input)


def airy_ai(input: Tensor) -> Tensor:
    """The Airy function ``Ai(x)``, the solution of ``y″ = x·y`` that decays for x → ∞.

    >>> import teachgrad as torch
    >>> torch.special.airy_ai(torch.tensor([0.]))  # 1/(3^(2/3)·Γ(2/3))
    tensor([0.3550])
    """
    return _evaluate("airy_ai", _airy.airy_ai, input)


__all__: list[str] = []  # torch.special only (teachgrad.special exports them)
