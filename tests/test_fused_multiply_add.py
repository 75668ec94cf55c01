"""The fused multiply-add (``teachgrad/ops/fused.py``) and the ops that use it as PyTorch's
kernels do: ``lerp`` and ``addcmul`` (and ``addcdiv``'s order of operations).

The emulation is checked against exact rational arithmetic (``fractions``); the ops are
checked bit for bit against PyTorch where it is installed.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import teachgrad
from teachgrad.ops.fused import multiply_add


def _correctly_rounded(a, b, c, dtype) -> float:
    """``a·b + c`` computed exactly, then rounded once to ``dtype`` (nearest, ties to even)."""
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if dtype == np.float64:
        return float(exact)  # (Fraction → float rounds correctly)
    near = np.float32(float(exact))  # may be one off (double rounding): look at neighbours
    candidates = [near, np.nextafter(near, np.float32(np.inf)),
                  np.nextafter(near, np.float32(-np.inf))]
    return min(candidates, key=lambda x: (abs(Fraction(float(x)) - exact),
                                          int(np.asarray(x).view(np.int32)) & 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_rounding_of_the_exact_result(dtype):
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(3000) * np.exp(rng.uniform(-20, 20, 3000))
               for _ in range(3))
    # half the cases cancel almost completely: c ≈ −a·b, where two roundings go wrong
    c[::2] = -(a[::2] * b[::2]) * (1 + rng.standard_normal(1500) * 1e-12)
    a, b, c = a.astype(dtype), b.astype(dtype), c.astype(dtype)
    fused = multiply_add(a, b, c)
    assert fused.dtype == dtype
    expected = [_correctly_rounded(x, y, z, dtype) for x, y, z in zip(a, b, c)]
    assert fused.tolist() == [float(e) for e in expected]
    assert (a * b + c != fused).any()  # (the two-rounding formula does differ)


def test_a_float64_sum_halfway_between_two_float32_numbers_is_rounded_from_the_exact_one():
    # a·b = 2⁻²⁴ − 2⁻⁶⁴ and c = 1 + 2⁻²³: the float64 sum drops the 2⁻⁶⁴ and is exactly
    # halfway between c and the next float32, a tie that goes up (to the even one); the
    # exact sum is just below halfway, so the right answer is c.
    a = np.float32(2.0**-12 * (1 + 2.0**-20))
    b = np.float32(2.0**-12 * (1 - 2.0**-20))
    c = np.float32(1 + 2.0**-23)
    assert multiply_add(a, b, c) == c == _correctly_rounded(a, b, c, np.float32)
    assert np.float32(np.float64(a) * np.float64(b) + np.float64(c)) != c


def test_float32_results_in_the_subnormal_range_round_once_too():
    # products and sums below float32's smallest normal number (1.2e-38), where it keeps
    # fewer digits and the float64 sum's rounding to float32 is no longer the only one
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal(2000).astype(np.float32) * np.float32(1e-20) for _ in range(2))
    c = (rng.standard_normal(2000) * 1e-40).astype(np.float32)
    fused = multiply_add(a, b, c)
    assert (np.abs(fused) < 1.2e-38).mean() > 0.9
    expected = [_correctly_rounded(x, y, z, np.float32) for x, y, z in zip(a, b, c)]
    assert fused.tolist() == [float(e) for e in expected]
    # a case made to go wrong with two roundings: a·b = 2⁻¹⁵⁰ − 2⁻¹⁹⁰ and c = (2²² + 1)·2⁻¹⁴⁹
    # (odd). The float64 sum drops the 2⁻¹⁹⁰ and lands halfway between two float32
    # neighbours, a tie that goes up to the even one; the exact sum is just below it.
    a = np.float32(2.0**-75 * (1 + 2.0**-20))
    b = np.float32(2.0**-75 * (1 - 2.0**-20))
    c = np.float32((2**22 + 1) * 2.0**-149)
    assert multiply_add(a, b, c) == c == _correctly_rounded(a, b, c, np.float32)
    assert np.float32(np.float64(a) * np.float64(b) + np.float64(c)) != c


def test_special_values_follow_ieee():
    inf, nan = np.inf, np.nan
    got = multiply_add(np.array([inf, 2.0, nan, 1e300, inf]), np.array([2.0, 3.0, 1.0, 1e10, 0.0]),
                       np.array([1.0, -inf, 1.0, 1.0, 1.0]))
    assert got[:2].tolist() == [inf, -inf] and np.isnan(got[2]) and got[3] == inf
    assert np.isnan(got[4])  # inf·0
    got32 = multiply_add(np.float32([inf, 1.0]), np.float32(2), np.float32([1.0, -inf]))
    assert got32.dtype == np.float32 and got32.tolist() == [inf, -inf]


def test_other_dtypes_compute_the_plain_formula():
    ints = multiply_add(np.array([2, 3]), np.array([4, 5]), np.array([1, 1]))
    assert ints.tolist() == [9, 16] and ints.dtype.kind == "i"


OPS = {
    "addcmul": lambda L, a, b, c: L.addcmul(a, b, c, value=0.3),
    "addcmul value 1": lambda L, a, b, c: L.addcmul(a, b, c),
    "addcmul_ value -1": lambda L, a, b, c: a.addcmul_(b, c, value=-1),
    "addcdiv": lambda L, a, b, c: L.addcdiv(a, b, c, value=0.3),
    "lerp near start": lambda L, a, b, c: L.lerp(a, b, 0.1),
    "lerp near end": lambda L, a, b, c: L.lerp(a, b, 0.9),
    "lerp tensor weight": lambda L, a, b, c: L.lerp(a, b, c.abs() / 2),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_ops_agree_with_pytorch_to_the_bit(name, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(200).astype(dtype) for _ in range(3)]

    def run(lib):
        return OPS[name](lib, *(lib.from_numpy(x.copy()) for x in arrays)).numpy().tobytes()

    assert run(teachgrad) == run(torch)
