"""A fused multiply-add on NumPy: ``a * b + c`` rounded once, as PyTorch's kernels compute it.

PyTorch's CPU kernels for ``lerp`` and ``addcmul`` use the processor's fused multiply-add
instruction (``fmadd``): the product is not rounded before it is added, only the sum is.
NumPy has no such function, and ``a * b + c`` rounds twice, so the last bit sometimes
differs (and where the sum cancels, as in a variance ``E[g²] − E[g]²``, the difference is
no longer in the last bit only). Both are emulated exactly here:

* float32: the product of two float32 numbers is exact in float64. The float64 sum is
  rounded *to odd* (a sum that is not exact keeps its last bit set), which makes the final
  rounding to float32 the same as rounding the exact sum once (Boldo & Melquiond, 2008).
* float64: the product is split into its rounded value and its exact error (Dekker's
  product), the sum likewise (Knuth's two-sum); the small parts are added rounded to odd
  and the result rounded once (the same paper's emulated FMA).

Other dtypes (integers, complex, half precision) compute ``a * b + c`` as it stands.

The emulation costs about ten passes over the data where the plain formula takes two, so
it is used where exactness shows (optimizer averages) and not everywhere PyTorch fuses:
``add``/``sub``/``add_`` with an ``alpha`` are fused in PyTorch too, but SGD's
``p.add_(g, alpha=-lr)`` runs for every parameter at every step and stays the plain formula
(it may differ from PyTorch's in the last bit).
"""

from __future__ import annotations

import numpy as np

_SPLITTER = 134217729.0  # 2**27 + 1: splits a float64 into two 26-bit halves


def multiply_add(a, b, c) -> np.ndarray:
    """``a * b + c`` with one rounding (float32 and float64), in the operands' common dtype."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dtype = np.result_type(a, b, c)
    if dtype == np.float32:
        return _multiply_add_float32(a, b, c)
    if dtype == np.float64:
        return _multiply_add_float64(a.astype(dtype, copy=False), b.astype(dtype, copy=False),
                                     c.astype(dtype, copy=False))
    return a * b + c


# A float64 whose low 29 bits (those float32 lacks) are 1000...0 lies halfway between two
# float32 numbers: rounding it to float32 is then a tie, decided by a digit it lost.
_LOW_29_BITS = (1 << 29) - 1
_HALFWAY = 1 << 28
_SMALLEST_NORMAL_FLOAT32 = 2.0**-126


def _multiply_add_float32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        # (the ufuncs convert to float64 as they go: no float64 copies of b and c)
        exact_product = np.multiply(a, b, dtype=np.float64)
        total = np.atleast_1d(np.add(exact_product, c, dtype=np.float64))
        # Rounding the float64 sum to float32 is already the one correct rounding, except
        # when that sum sits exactly halfway between two float32 numbers (or in float32's
        # subnormal range): those few are redone from the sum rounded to odd.
        redo = (total.view(np.int64) & _LOW_29_BITS) == _HALFWAY
        tiny = np.abs(total) < _SMALLEST_NORMAL_FLOAT32
        if tiny.any():
            redo |= tiny & (total != 0)
        if redo.any():
            where = np.flatnonzero(redo)  # (few: index them, no pass over whole arrays)
            product_there, c_there = (np.broadcast_to(x, total.shape).reshape(-1)[where]
                                      for x in (exact_product, c))
            total.reshape(-1)[where] = _sum_rounded_to_odd(product_there,
                                                           c_there.astype(np.float64))
    return total.astype(np.float32).reshape(np.broadcast_shapes(a.shape, b.shape, c.shape))


def _multiply_add_float64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        product, product_error = _exact_product(a, b)
        total, total_error = _exact_sum(c, product)
        fused = total + _sum_rounded_to_odd(total_error, product_error)
        if not fused.all():
            # An exact zero takes its sign from c + a·b, as IEEE's fused multiply-add
            # (-0 + 0·-1 is -0): adding the zero correction would make every zero +0.
            fused = np.where(fused == 0, total, fused)
        if np.isfinite(fused).all():
            return fused
        # infinities, NaNs, and products too large to split: IEEE's rules for the
        # special values are what plain arithmetic gives
        return np.where(np.isfinite(fused), fused, a * b + c)


def _exact_sum(a: np.ndarray, b: np.ndarray) -> tuple:
    """``(s, e)`` with ``s = a + b`` rounded and ``s + e == a + b`` exactly (Knuth)."""
    s = a + b
    b_part = s - a
    return s, (a - (s - b_part)) + (b - b_part)


def _exact_product(a: np.ndarray, b: np.ndarray) -> tuple:
    """``(p, e)`` with ``p = a * b`` rounded and ``p + e == a * b`` exactly (Dekker)."""
    p = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    e = ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low
    return p, e


def _split(x: np.ndarray) -> tuple:
    """``x`` as a high and a low half whose products with another half are exact."""
    scaled = _SPLITTER * x
    high = scaled - (scaled - x)
    return high, x - high


def _sum_rounded_to_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` in float64, rounded to odd: when the sum is not exact, of the two float64
    numbers around it, the one whose last bit is 1."""
    s, error = _exact_sum(a, b)
    # (written as two comparisons so that a NaN error, from an infinite operand, is no bump)
    inexact_even = ((error > 0) | (error < 0)) & ((s.view(np.int64) & 1) == 0)
    if inexact_even.any():
        other_neighbour = np.nextafter(s, np.where(error > 0, np.inf, -np.inf))
        s = np.where(inexact_even, other_neighbour, s)
    return s
