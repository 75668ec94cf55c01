"""torch.special's Bessel and Airy functions, zeta and orthogonal polynomials.

* values without torch: identities (J₀′ = −J₁, Wronskians), integral representations
  summed with the trapezoidal rule (exponentially accurate for these integrands), power
  series in exact or 60-digit arithmetic, closed forms of the polynomials
  (``Tₙ(cos θ) = cos nθ``, explicit sums in fractions), and the special cases;
* zeta: known values, its recurrence in q, gradcheck / gradgradcheck in q;
* PyTorch parity (``torch`` marker): values on grids with edge values, dtypes, untracked
  results, grad_fn names and the errors.
"""

from __future__ import annotations

import decimal
import math
from fractions import Fraction

import numpy as np
import pytest

import teachgrad
import teachgrad.special as special
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

UNARY = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
         "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
         "airy_ai"]
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


def f64(values) -> teachgrad.Tensor:
    return teachgrad.tensor(np.asarray(values, dtype=np.float64))


def call(name: str, *args) -> np.ndarray:
    return getattr(special, name)(*args).numpy()


# ----------------------------------------------------------------------------------------
# Bessel functions of the first and second kind
# ----------------------------------------------------------------------------------------
def trapezoid_periodic(integrand, count: int = 400) -> np.ndarray:
    """(1/π)∫₀^π integrand(t) dt for an integrand that is even and 2π-periodic in t: the
    trapezoidal rule converges exponentially (Bessel's integrals below)."""
    t = np.linspace(0, math.pi, count + 1)
    weights = np.full(count + 1, 1.0)
    weights[[0, -1]] = 0.5
    return (integrand(t[:, None]) * weights[:, None]).sum(axis=0) / count


XS = np.concatenate([np.linspace(0.01, 5, 60), np.linspace(5.05, 80, 120)])


def test_j0_and_j1_match_bessels_integrals():
    # J₀(x) = (1/π)∫₀^π cos(x sin t) dt,  J₁(x) = (1/π)∫₀^π cos(t − x sin t) dt
    j0 = trapezoid_periodic(lambda t: np.cos(XS * np.sin(t)))
    j1 = trapezoid_periodic(lambda t: np.cos(t - XS * np.sin(t)))
    np.testing.assert_allclose(call("bessel_j0", f64(XS)), j0, rtol=0, atol=2e-15)
    np.testing.assert_allclose(call("bessel_j1", f64(XS)), j1, rtol=0, atol=2e-15)


def test_j0_and_j1_match_their_power_series_exactly_summed():
    for x in [0.1, 0.7, 1.5, 2.404825557695773, 3.3, 4.9, 5.0]:
        fx = Fraction(x)
        j0 = sum(Fraction(-1) ** k * (fx / 2) ** (2 * k) / math.factorial(k) ** 2
                 for k in range(40))
        j1 = sum(Fraction(-1) ** k * (fx / 2) ** (2 * k + 1)
                 / (math.factorial(k) * math.factorial(k + 1)) for k in range(40))
        assert call("bessel_j0", f64([x]))[0] == pytest.approx(float(j0), rel=1e-14, abs=1e-16)
        assert call("bessel_j1", f64([x]))[0] == pytest.approx(float(j1), rel=1e-14, abs=1e-16)


def test_the_derivatives_are_the_other_order():
    h = 1e-6
    x = XS[XS > 0.1]
    for zero, one in [("bessel_j0", "bessel_j1"), ("bessel_y0", "bessel_y1")]:
        slope = (call(zero, f64(x + h)) - call(zero, f64(x - h))) / (2 * h)
        np.testing.assert_allclose(slope, -call(one, f64(x)), rtol=0, atol=1e-8)


def test_wronskian_of_j_and_y():
    # J₁(x)·Y₀(x) − J₀(x)·Y₁(x) = 2/(πx): each Y checked against the J's
    x = f64(XS)
    w = call("bessel_j1", x) * call("bessel_y0", x) - call("bessel_j0", x) * call("bessel_y1", x)
    np.testing.assert_allclose(w, 2 / (math.pi * XS), rtol=5e-15)


def test_j_and_y_special_values():
    x = f64([0.0, -0.0, -2.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(call("bessel_j0", x)[:2], [1.0, 1.0])
    np.testing.assert_array_equal(call("bessel_j1", x)[:2], [0.0, 0.0])
    assert call("bessel_j0", x)[2] == call("bessel_j0", f64([2.0]))[0]  # even
    assert call("bessel_j1", x)[2] == -call("bessel_j1", f64([2.0]))[0]  # odd
    for name in ["bessel_y0", "bessel_y1"]:
        y = call(name, x)
        assert y[0] == y[1] == -np.inf  # the logarithmic / 1/x pole
        assert np.isnan(y[2]) and np.isnan(y[5])  # not real for x < 0


# ----------------------------------------------------------------------------------------
# Modified Bessel functions
# ----------------------------------------------------------------------------------------
def test_k0_and_k1_match_their_integrals():
    # K₀(x) = ∫₀^∞ e^(−x cosh t) dt,  K₁(x) = ∫₀^∞ e^(−x cosh t)·cosh t dt: the integrands
    # fall double-exponentially, so the trapezoidal rule is exact to rounding.
    x = np.concatenate([np.linspace(0.05, 2, 20), np.linspace(2.1, 40, 30)])
    t = np.arange(0, 12, 0.01)[:, None]
    weights = np.full(t.shape, 0.01)
    weights[0] = 0.005
    # Scaled by eˣ inside the integral: e^(−x(cosh t − 1)) keeps the digits.
    k0e = (np.exp(-x * (np.cosh(t) - 1)) * weights).sum(axis=0)
    k1e = (np.exp(-x * (np.cosh(t) - 1)) * np.cosh(t) * weights).sum(axis=0)
    np.testing.assert_allclose(call("scaled_modified_bessel_k0", f64(x)), k0e, rtol=3e-15)
    np.testing.assert_allclose(call("scaled_modified_bessel_k1", f64(x)), k1e, rtol=3e-15)
    np.testing.assert_allclose(call("modified_bessel_k0", f64(x)), k0e * np.exp(-x), rtol=3e-15)
    np.testing.assert_allclose(call("modified_bessel_k1", f64(x)), k1e * np.exp(-x), rtol=3e-15)


def test_wronskian_of_i_and_k():
    # I₀(x)·K₁(x) + I₁(x)·K₀(x) = 1/x
    x = np.concatenate([np.linspace(0.01, 2, 30), np.linspace(2.5, 600, 60)])
    t = f64(x)
    w = (call("modified_bessel_i0", t) * call("modified_bessel_k1", t)
         + call("modified_bessel_i1", t) * call("modified_bessel_k0", t))
    np.testing.assert_allclose(w, 1 / x, rtol=5e-15)


def test_modified_i_are_the_values_of_i0_and_i1():
    x = f64(np.linspace(-50, 50, 201))
    np.testing.assert_array_equal(call("modified_bessel_i0", x), special.i0(x).numpy())
    np.testing.assert_array_equal(call("modified_bessel_i1", x), special.i1(x).numpy())


def test_scaled_k_stay_finite_where_k_underflows():
    x = f64([800.0, 1e10])
    assert np.all(call("modified_bessel_k0", x) == 0)
    expected = np.sqrt(math.pi / (2 * x.numpy()))  # eˣK(x) ≈ √(π/(2x))·(1 + O(1/x))
    np.testing.assert_allclose(call("scaled_modified_bessel_k0", x), expected, rtol=2e-4)
    np.testing.assert_allclose(call("scaled_modified_bessel_k1", x), expected, rtol=2e-3)


def test_k_special_values():
    for name in ["modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
                 "scaled_modified_bessel_k1"]:
        y = call(name, f64([0.0, -1.0, np.nan, np.inf]))
        assert y[0] == np.inf and np.isnan(y[1]) and np.isnan(y[2])
        assert y[3] == 0


# ----------------------------------------------------------------------------------------
# Spherical j₀ and Airy Ai
# ----------------------------------------------------------------------------------------
def test_spherical_j0_is_sin_x_over_x():
    x = np.concatenate([np.linspace(-30, -0.5, 50), np.linspace(0.5, 30, 50)])
    np.testing.assert_allclose(call("spherical_bessel_j0", f64(x)), np.sin(x) / x, rtol=1e-15)
    small = np.array([1e-300, 1e-8, 0.1, 0.3, 0.49])
    series = [float(sum(Fraction(-1) ** k * Fraction(v) ** (2 * k) / math.factorial(2 * k + 1)
                        for k in range(20))) for v in small]
    np.testing.assert_allclose(call("spherical_bessel_j0", f64(small)), series, rtol=2e-16)
    np.testing.assert_array_equal(call("spherical_bessel_j0", f64([0.0, np.inf, -np.inf])),
                                  [1.0, 0.0, 0.0])


def airy_series(x: float) -> float:
    """Ai(x) from its Maclaurin series in 60-digit decimal arithmetic."""
    with decimal.localcontext() as context:
        context.prec = 60
        x = decimal.Decimal(x)
        c1 = decimal.Decimal("0.355028053887817239260063186004183176397979174199177")
        c2 = decimal.Decimal("0.258819403792806798405183560189203963479091138354934")
        f = g = decimal.Decimal(0)
        term_f, term_g = decimal.Decimal(1), x
        for k in range(200):
            f += term_f
            g += term_g
            term_f *= x ** 3 / ((3 * k + 2) * (3 * k + 3))
            term_g *= x ** 3 / ((3 * k + 3) * (3 * k + 4))
        return float(c1 * f - c2 * g)


def test_airy_ai_matches_its_maclaurin_series_in_every_region():
    xs = np.concatenate([np.linspace(-12, -2.1, 40), [-2.09, -1, 0, 0.5, 2.08, 2.09],
                         np.linspace(2.1, 8, 20)])
    expected = np.array([airy_series(v) for v in xs])
    np.testing.assert_allclose(call("airy_ai", f64(xs)), expected, rtol=1e-13, atol=1e-15)


def test_airy_ai_solves_airys_equation_and_decays():
    x = np.linspace(-8, 8, 81)
    h = 1e-3
    second = (call("airy_ai", f64(x + h)) - 2 * call("airy_ai", f64(x))
              + call("airy_ai", f64(x - h))) / h**2
    np.testing.assert_allclose(second, x * call("airy_ai", f64(x)), atol=2e-6)
    big = np.array([20.0, 50.0, 100.0])
    zeta = 2 / 3 * big**1.5  # Ai(x) ≈ e^(−ζ)/(2√π x^¼)·(1 − 5/(72ζ))
    leading = np.exp(-zeta) / (2 * math.sqrt(math.pi) * big**0.25) * (1 - 5 / (72 * zeta))
    np.testing.assert_allclose(call("airy_ai", f64(big)), leading, rtol=1e-4)
    np.testing.assert_array_equal(call("airy_ai", f64([104.0, 1e300])), [0.0, 0.0])
    assert np.isnan(call("airy_ai", f64([np.inf, -np.inf, np.nan]))).all()  # PyTorch's


def test_accuracy_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(1)
    positive = np.concatenate([rng.uniform(0, 5, 25), rng.uniform(5, 50, 25)])
    both = np.concatenate([-positive, positive])
    airy = np.concatenate([rng.uniform(-30, -2.09, 30), rng.uniform(-2.09, 2.09, 20),
                           rng.uniform(2.09, 60, 20)])
    cases = [  # (name, reference, points, bound, in ulps or absolute)
        ("bessel_j0", lambda v: mpmath.besselj(0, v), both, 5e-16, "absolute"),
        ("bessel_j1", lambda v: mpmath.besselj(1, v), both, 5e-16, "absolute"),
        ("bessel_y0", lambda v: mpmath.bessely(0, v), positive, 2e-15, "absolute"),
        ("bessel_y1", lambda v: mpmath.bessely(1, v), positive, 5e-15, "absolute"),
        ("airy_ai", mpmath.airyai, airy, 5e-15, "absolute"),
        ("modified_bessel_k0", lambda v: mpmath.besselk(0, v), positive, 10, "ulps"),
        ("modified_bessel_k1", lambda v: mpmath.besselk(1, v), positive, 10, "ulps"),
        ("scaled_modified_bessel_k0", lambda v: mpmath.besselk(0, v) * mpmath.exp(v),
         positive, 10, "ulps"),
        ("scaled_modified_bessel_k1", lambda v: mpmath.besselk(1, v) * mpmath.exp(v),
         positive, 10, "ulps"),
        ("spherical_bessel_j0", lambda v: mpmath.sin(v) / v, both, 2, "ulps"),
    ]
    with mpmath.workdps(30):
        for name, reference, xs, bound, unit in cases:
            expected = np.array([float(reference(mpmath.mpf(v))) for v in xs])
            error = np.abs(call(name, f64(xs)) - expected)
            if unit == "ulps":
                error = error / np.spacing(np.abs(expected))
            assert error.max() <= bound, (name, error.max())


# ----------------------------------------------------------------------------------------
# The common rules: dtypes, untracked results, errors
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", UNARY)
def test_unary_dtypes_and_untracked_results(name):
    fn = getattr(special, name)
    assert fn(teachgrad.tensor([1, 2])).dtype == teachgrad.float32
    assert fn(teachgrad.tensor([True])).dtype == teachgrad.float32
    assert fn(teachgrad.tensor([1.5], dtype=teachgrad.float64)).dtype == teachgrad.float64
    x = teachgrad.tensor([1.5], requires_grad=True)
    y = fn(x)
    assert not y.requires_grad and y.grad_fn is None  # no derivative, as in PyTorch
    with pytest.raises(NotImplementedError, match=f'"{name}_cpu" not implemented for .Half.'):
        fn(teachgrad.tensor([1.0], dtype=teachgrad.float16))
    float32 = fn(teachgrad.tensor([0.75, 3.5])).numpy()
    float64 = fn(teachgrad.tensor([0.75, 3.5], dtype=teachgrad.float64)).numpy()
    np.testing.assert_array_equal(float32, float64.astype(np.float32))  # rounded once


# ----------------------------------------------------------------------------------------
# zeta
# ----------------------------------------------------------------------------------------
def test_zeta_known_values_and_recurrence():
    np.testing.assert_allclose(special.zeta(f64([2.0, 4.0, 6.0]), 1.0).numpy(),
                               [math.pi**2 / 6, math.pi**4 / 90, math.pi**6 / 945], rtol=1e-15)
    # ζ(2, ½) = (2² − 1)·ζ(2) = π²/2
    assert special.zeta(2.0, f64([0.5])).item() == pytest.approx(math.pi**2 / 2, rel=1e-15)
    x = f64([1.5, 2.0, 3.7, 10.0])
    q = f64([0.3, 1.0, 2.5, 7.0])
    difference = special.zeta(x, q).numpy() - special.zeta(x, q + 1).numpy()
    np.testing.assert_allclose(difference, q.numpy() ** -x.numpy(), rtol=1e-13)


def test_zeta_special_cases_in_pytorchs_order():
    x = f64([1.0, 1.0, 0.5, 0.5, 2.0, 2.0, 2.5, 2.0, np.inf, np.inf, np.inf, 2.0])
    q = f64([np.nan, -2.0, 1.0, -2.0, -2.0, -np.inf, -1.5, -1.5, 0.5, 1.0, 2.0, np.inf])
    out = special.zeta(x, q).numpy()
    expected = [np.inf, np.inf, np.nan, np.nan, np.inf, np.inf, np.nan, None, np.inf, 1.0,
                np.nan, np.nan]
    for got, want in zip(out, expected):
        if want is None:
            continue
        assert got == want or (np.isnan(got) and np.isnan(want))
    # ζ(2, −1.5) = Σ (k − 1.5)^(−2) = 1/2.25 + 1/0.25 + ζ(2, 0.5)
    assert out[7] == pytest.approx(1 / 2.25 + 4 + math.pi**2 / 2, rel=1e-14)


def test_zeta_gradient_in_q_to_second_order():
    x = f64([2.0, 3.5, 5.0, 1.5])
    q = teachgrad.tensor([1.5, 2.0, 0.3, 4.0], dtype=teachgrad.float64, requires_grad=True)
    assert gradcheck(lambda q: special.zeta(x, q), (q,))
    assert gradgradcheck(lambda q: special.zeta(x, q), (q,))
    assert gradcheck(lambda q: special.zeta(3.0, q), (q,))
    assert special.zeta(x, q).grad_fn.name() == "SpecialZetaBackward0"


def test_zeta_has_no_derivative_in_x():
    x = teachgrad.tensor([2.0], requires_grad=True)
    out = special.zeta(x, 1.0)
    assert out.grad_fn.name() == "SpecialZetaBackward2"  # (PyTorch's name for a number q)
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented"):
        out.backward()


def test_zeta_dtypes_and_errors():
    assert special.zeta(teachgrad.tensor([2, 3]), 1).dtype == teachgrad.float32
    assert special.zeta(2, teachgrad.tensor([1, 2])).dtype == teachgrad.float32
    assert special.zeta(teachgrad.tensor([2.0]), f64([1.0])).dtype == teachgrad.float64
    with pytest.raises(TypeError, match="invalid combination of arguments - got .int, int."):
        special.zeta(2, 3)
    with pytest.raises(RuntimeError, match="must match the size"):
        special.zeta(teachgrad.ones(2), teachgrad.ones(3))
    with pytest.raises(NotImplementedError, match='"zeta_cpu" not implemented for .Half.'):
        special.zeta(teachgrad.tensor([2.0], dtype=teachgrad.float16), 1.0)


# ----------------------------------------------------------------------------------------
# Orthogonal polynomials
# ----------------------------------------------------------------------------------------
THETA = np.linspace(0.05, math.pi - 0.05, 37)
DEGREES = np.arange(0, 25)


@pytest.mark.parametrize(("name", "closed_form"), [
    ("chebyshev_polynomial_t", lambda n, t: np.cos(n * t)),
    ("chebyshev_polynomial_u", lambda n, t: np.sin((n + 1) * t) / np.sin(t)),
    ("chebyshev_polynomial_v", lambda n, t: np.cos((n + 0.5) * t) / np.cos(t / 2)),
    ("chebyshev_polynomial_w", lambda n, t: np.sin((n + 0.5) * t) / np.sin(t / 2)),
])
def test_chebyshev_trigonometric_closed_forms(name, closed_form):
    # Both paths: the recurrence (small n) and PyTorch's closed form (large n).
    n, theta = np.meshgrid(DEGREES, THETA)
    x = np.cos(theta)
    expected = closed_form(n, theta)
    scale = np.maximum(1, np.abs(expected))
    ours = call(name, f64(x), f64(n))
    np.testing.assert_allclose(ours / scale, expected / scale, rtol=0, atol=5e-13)
    shifted = call("shifted_" + name, f64((x + 1) / 2), f64(n))  # Pₙ*(x) = Pₙ(2x − 1)
    np.testing.assert_allclose(shifted / scale, expected / scale, rtol=0, atol=5e-13)


def hermite_exact(n: int, x: Fraction) -> Fraction:
    """Hₙ(x) = n!·Σₘ (−1)ᵐ (2x)^(n−2m) / (m!·(n−2m)!)."""
    return math.factorial(n) * sum(
        Fraction((-1) ** m, math.factorial(m) * math.factorial(n - 2 * m)) * (2 * x) ** (n - 2 * m)
        for m in range(n // 2 + 1))


def hermite_e_exact(n: int, x: Fraction) -> Fraction:
    """Heₙ(x) = n!·Σₘ (−1)ᵐ x^(n−2m) / (m!·(n−2m)!·2ᵐ)."""
    return math.factorial(n) * sum(
        Fraction((-1) ** m, math.factorial(m) * math.factorial(n - 2 * m) * 2**m)
        * x ** (n - 2 * m) for m in range(n // 2 + 1))


def laguerre_exact(n: int, x: Fraction) -> Fraction:
    """Lₙ(x) = Σₖ C(n, k)·(−x)ᵏ/k!."""
    return sum(Fraction(math.comb(n, k), math.factorial(k)) * (-x) ** k for k in range(n + 1))


def legendre_exact(n: int, x: Fraction) -> Fraction:
    """Pₙ(x) = 2⁻ⁿ·Σₖ C(n, k)²·(x − 1)^(n−k)·(x + 1)ᵏ."""
    return sum(math.comb(n, k) ** 2 * (x - 1) ** (n - k) * (x + 1) ** k
               for k in range(n + 1)) / 2**n


@pytest.mark.parametrize(("name", "exact", "rtol"), [
    ("hermite_polynomial_h", hermite_exact, 1e-12),
    ("hermite_polynomial_he", hermite_e_exact, 1e-12),
    ("laguerre_polynomial_l", laguerre_exact, 1e-10),  # (cancellation in the sum's size)
    ("legendre_polynomial_p", legendre_exact, 1e-13),
])
def test_polynomials_match_their_explicit_sums(name, exact, rtol):
    xs = [-2.5, -0.9, -0.3, 0.0, 0.25, 0.7, 1.6, 3.0]
    for n in [0, 1, 2, 3, 5, 8, 13, 20]:
        ours = call(name, f64(xs), float(n))
        expected = np.array([float(exact(n, Fraction(x))) for x in xs])
        scale = np.maximum(1, np.abs(expected))
        np.testing.assert_allclose(ours / scale, expected / scale, rtol=0, atol=rtol,
                                   err_msg=f"n={n}")


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_degree_is_truncated_and_negative_degrees_give_zero(name):
    x = f64([0.3, -0.7, 1.7])
    two = call(name, x, 2.0)
    np.testing.assert_array_equal(call(name, x, 2.9), two)
    np.testing.assert_array_equal(call(name, x, f64([2.5, 2.1, 2.999])), two)
    np.testing.assert_array_equal(call(name, x, -0.5), [1.0, 1.0, 1.0])  # truncated to 0
    for degree in [-1.0, -7.0, np.nan, np.inf, -np.inf]:
        np.testing.assert_array_equal(call(name, x, degree), [0.0, 0.0, 0.0])


def test_polynomial_values_at_the_ends_of_the_interval():
    n = f64(np.arange(0, 12))
    odd = np.arange(0, 12) % 2 == 1
    sign = np.where(odd, -1.0, 1.0)
    m = n.numpy()
    cases = {  # (P(1), P(−1)) for the ordinary ones; the shifted ones at 1 and 0
        "chebyshev_polynomial_t": (np.ones(12), sign),
        "chebyshev_polynomial_u": (m + 1, sign * (m + 1)),
        "chebyshev_polynomial_v": (np.ones(12), sign * (2 * m + 1)),
        "chebyshev_polynomial_w": (2 * m + 1, sign),
        "legendre_polynomial_p": (np.ones(12), sign),
    }
    for name, (at_one, at_minus_one) in cases.items():
        np.testing.assert_array_equal(call(name, 1.0, n), at_one, err_msg=name)
        np.testing.assert_array_equal(call(name, -1.0, n), at_minus_one, err_msg=name)
        if name.startswith("chebyshev"):
            shifted = "shifted_" + name
            np.testing.assert_array_equal(call(shifted, 1.0, n), at_one, err_msg=shifted)
            np.testing.assert_array_equal(call(shifted, 0.0, n), at_minus_one, err_msg=shifted)
    np.testing.assert_array_equal(call("laguerre_polynomial_l", 0.0, n), np.ones(12))


def test_hermite_degree_limits_and_overflow():
    # PyTorch gives nan above degree 512 (float64) and 128 (float32).
    for name in ["hermite_polynomial_h", "hermite_polynomial_he"]:
        assert np.isnan(call(name, f64([0.5]), 513.0)).all()
        assert np.isfinite(call(name, f64([0.5]), 129.0)).all()  # (≈ 10¹¹⁰: fine in float64)
        assert np.isnan(call(name, teachgrad.tensor([0.5]), 129)).all()
        assert np.isfinite(call(name, teachgrad.tensor([0.5]), 30)).all()
    # Outside [−1, 1] the recurrence overflows to inf, then inf − inf stops it at nan.
    assert np.isnan(call("chebyshev_polynomial_t", f64([5.0]), 2000.0)).all()
    assert call("chebyshev_polynomial_t", f64([5.0]), 100.0)[0] == pytest.approx(
        math.cosh(100 * math.acosh(5.0)), rel=1e-12)


def test_polynomial_broadcasting_dtypes_and_errors():
    out = special.legendre_polynomial_p(teachgrad.ones(3, 1), teachgrad.tensor([0, 1, 2, 3]))
    assert out.shape == (3, 4) and out.dtype == teachgrad.float32
    assert not out.requires_grad
    assert special.chebyshev_polynomial_t(0.5, teachgrad.tensor([3, 4])).dtype == teachgrad.float32
    assert special.chebyshev_polynomial_t(f64([0.5]), teachgrad.tensor([3.0])).dtype == \
        teachgrad.float64
    x = teachgrad.tensor([0.5], requires_grad=True)
    y = special.hermite_polynomial_h(x, 3)
    assert not y.requires_grad and y.grad_fn is None
    with pytest.raises(TypeError, match=r"special_chebyshev_polynomial_t\(\) received an invalid"):
        special.chebyshev_polynomial_t(0.5, 3)
    with pytest.raises(RuntimeError, match="must match the size"):
        special.chebyshev_polynomial_t(teachgrad.ones(2), teachgrad.ones(3))
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        special.laguerre_polynomial_l(teachgrad.ones(2, dtype=teachgrad.float16), 2)


def test_special_namespace_is_a_subset_of_torch_special():
    names = set(special.__all__)
    assert set(UNARY + POLYNOMIALS + ["zeta"]) <= names
    for name in names:
        assert callable(getattr(special, name))


# ----------------------------------------------------------------------------------------
# PyTorch parity
# ----------------------------------------------------------------------------------------
def _torch():
    return pytest.importorskip("torch")


EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, -1e-300, 1e-6, -1e-6, 2.0, -2.0, 2.09,
         -2.09, 5.0, -5.0, 8.0, 103.892, 103.9, 700.0, 745.0, 800.0, 1e5, 1e17, 1e300, -1e300]
# PyTorch 2.13's J₀, J₁, Y₀, Y₁ and Ai (x < −2.09) drop the leading 1 of Cephes'
# denominators: off by up to 2·10⁻⁵ (7·10⁻⁵ for Ai) relative, more in float32 (teachgrad
# keeps the 1; its accuracy is tested above).
PARITY_RTOL = {"bessel_j0": 1e-4, "bessel_j1": 1e-4, "bessel_y0": 1e-4, "bessel_y1": 1e-4,
               "airy_ai": 2e-4}


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("name", UNARY)
def test_unary_values_match_torch(name):
    torch = _torch()
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-20, 20, 400), rng.uniform(-3, 3, 200), EDGES])
    if name.startswith("modified_bessel_i"):
        # (PyTorch: I(±inf) = nan and I(710) = inf (its e^x overflows); teachgrad: inf and
        # the finite value, as torch.i0 and torch.special.i1 give.)
        x = x[np.abs(x) < 700]
    for dtype, rtol, atol in [(np.float64, 1e-13, 1e-300), (np.float32, 2e-6, 1e-37)]:
        if dtype == np.float32:
            # (PyTorch computes in float32: for large |x| its phase x − π/4 has lost the
            # digits teachgrad keeps in float64; only the limits are compared there.)
            x = x[(np.abs(x) < 60) | ~np.isfinite(x) | (np.abs(x) > 1e38)]
        xs = x.astype(dtype)
        ours = getattr(special, name)(teachgrad.tensor(xs)).numpy()
        theirs = getattr(torch.special, name)(torch.tensor(xs)).numpy()
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        np.testing.assert_array_equal(np.isinf(ours), np.isinf(theirs))
        finite = np.isfinite(theirs)
        scale = np.maximum(np.abs(theirs[finite]), 1e-3 if name in PARITY_RTOL else 0)
        error = np.abs(ours[finite] - theirs[finite]) / np.maximum(scale, atol)
        assert error.max() <= max(PARITY_RTOL.get(name, 0), rtol * 8), name
    # Untracked in both: no grad_fn, no requires_grad.
    t = torch.tensor([1.5], requires_grad=True)
    assert getattr(torch.special, name)(t).grad_fn is None
    for bad in [teachgrad.float16]:
        with pytest.raises(NotImplementedError) as ours_error:
            getattr(special, name)(teachgrad.ones(1, dtype=bad))
        with pytest.raises(NotImplementedError) as theirs_error:
            getattr(torch.special, name)(torch.ones(1, dtype=torch.float16))
        assert str(ours_error.value).splitlines()[0] == str(theirs_error.value)


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_torch(name):
    torch = _torch()
    rng = np.random.default_rng(5)
    xs = np.concatenate([rng.uniform(-1.5, 1.5, 40), [-1, 1, 0, 0.5, -0.5, 2, -2, np.inf,
                                                       -np.inf, 1e-300, -1 + 1e-16, 30.0]])
    ns = np.array([-3, -1, -0.5, 0, 0.7, 1, 2, 2.9, 3, 5, 6, 7, 8, 9, 10, 15, 40, 100, 128,
                   129, 300, 512, 513, 2000, np.nan, np.inf, -np.inf])
    x, n = (a.ravel() for a in np.meshgrid(xs, ns))
    for dtype in (np.float64, np.float32):
        ours = call(name, teachgrad.tensor(x.astype(dtype)), teachgrad.tensor(n.astype(dtype)))
        theirs = getattr(torch.special, name)(torch.tensor(x.astype(dtype)),
                                              torch.tensor(n.astype(dtype))).numpy()
        assert ours.dtype == theirs.dtype
        same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
        # Rounding differences (acos, cos; PyTorch's compiler) grow with the degree.
        degree = np.maximum(1, np.where(np.isfinite(n), np.abs(n), 1))
        bound = 32 * np.finfo(dtype).eps * degree * np.maximum(1, np.abs(theirs))
        close = same | (np.abs(ours - theirs) <= bound)
        if dtype == np.float32:
            # Where float32 overflows, PyTorch's compiled recurrence (with fused
            # multiply-adds) overflows a step or two later than NumPy's: inf or a huge
            # value there, nan here.
            close |= ~np.isfinite(ours) & ~(np.abs(theirs) < 1e30)
        assert close.all(), list(zip(x[~close], n[~close], ours[~close], theirs[~close]))[:5]
    # Broadcasting and a number on either side.
    a, b = rng.uniform(-1, 1, (3, 1)), np.array([0.0, 1, 4, 11])
    np.testing.assert_allclose(call(name, teachgrad.tensor(a), teachgrad.tensor(b)),
                               getattr(torch.special, name)(torch.tensor(a),
                                                            torch.tensor(b)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(call(name, 0.3, teachgrad.tensor([3, 4])),
                               getattr(torch.special, name)(0.3, torch.tensor([3, 4])).numpy(),
                               rtol=1e-5)
    np.testing.assert_allclose(call(name, teachgrad.tensor([0.3, 0.9]), 5),
                               getattr(torch.special, name)(torch.tensor([0.3, 0.9]), 5).numpy(),
                               rtol=1e-5)
    assert call(name, teachgrad.tensor([1, 2]), teachgrad.tensor([3])).dtype == \
        getattr(torch.special, name)(torch.tensor([1, 2]), torch.tensor([3])).numpy().dtype
    with pytest.raises(TypeError) as ours_error:
        getattr(special, name)(0.5, 3)
    with pytest.raises(TypeError) as theirs_error:
        getattr(torch.special, name)(0.5, 3)
    assert str(theirs_error.value) in str(ours_error.value)


@pytest.mark.torch
def test_zeta_matches_torch_values_gradients_and_errors():
    torch = _torch()
    xv = np.array([-1, 0, 0.5, 1, 1.0000001, 1.5, 2, 3, 4.5, 10, 50, 100, np.inf, np.nan])
    qv = np.array([-10, -3.5, -2, -1.5, -0.5, 0, -0.0, 1e-8, 0.3, 1, 2.5, 10, 1e3, 1e8,
                   np.inf, -np.inf, np.nan])
    x, q = (a.ravel() for a in np.meshgrid(xv, qv))
    ours = special.zeta(f64(x), f64(q)).numpy()
    theirs = torch.special.zeta(torch.tensor(x), torch.tensor(q)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-14)  # (nan and inf in the same places)
    rng = np.random.default_rng(9)
    xr, qr = rng.uniform(1.1, 30, 300), rng.uniform(0.01, 50, 300)
    ours = special.zeta(f64(xr), f64(qr)).numpy()
    np.testing.assert_allclose(ours, torch.special.zeta(torch.tensor(xr), torch.tensor(qr)),
                               rtol=1e-14)
    ours32 = special.zeta(teachgrad.tensor(xr.astype(np.float32)),
                          teachgrad.tensor(qr.astype(np.float32))).numpy()
    theirs32 = torch.special.zeta(torch.tensor(xr.astype(np.float32)),
                                  torch.tensor(qr.astype(np.float32))).numpy()
    # (PyTorch sums in double but takes the powers of float32 values: a few ulps)
    np.testing.assert_allclose(ours32, theirs32, rtol=1e-6, atol=1e-44)
    # The gradient in q, and the error for x.
    for x_number, q_number, backward in [(2.0, None, 1), (None, 1.5, 2)]:
        a = x_number if x_number is not None else teachgrad.tensor([2.0], requires_grad=True)
        b = q_number if q_number is not None else teachgrad.tensor([1.5], requires_grad=True)
        ta = x_number if x_number is not None else torch.tensor([2.0], requires_grad=True)
        tb = q_number if q_number is not None else torch.tensor([1.5], requires_grad=True)
        assert special.zeta(a, b).grad_fn.name() == torch.special.zeta(ta, tb).grad_fn.name() \
            == f"SpecialZetaBackward{backward}"
    q_ours = teachgrad.tensor(qr[:20], dtype=teachgrad.float64, requires_grad=True)
    q_theirs = torch.tensor(qr[:20], requires_grad=True)
    special.zeta(f64(xr[:20]), q_ours).sum().backward()
    torch.special.zeta(torch.tensor(xr[:20]), q_theirs).sum().backward()
    np.testing.assert_allclose(q_ours.grad.numpy(), q_theirs.grad.numpy(), rtol=1e-13)
    x_theirs = torch.tensor([2.0], requires_grad=True)
    out = torch.special.zeta(x_theirs, 1.0)
    assert special.zeta(teachgrad.tensor([2.0], requires_grad=True), 1.0).grad_fn.name() == \
        out.grad_fn.name()
    with pytest.raises(NotImplementedError) as theirs_error:
        out.backward()
    with pytest.raises(NotImplementedError) as ours_error:
        special.zeta(teachgrad.tensor([2.0], requires_grad=True), 1.0).backward()
    assert str(ours_error.value) == str(theirs_error.value)
    for a, b in [(teachgrad.tensor([2, 3]), 1), (2, teachgrad.tensor([1, 2]))]:
        ta = torch.tensor(a.numpy()) if isinstance(a, teachgrad.Tensor) else a
        tb = torch.tensor(b.numpy()) if isinstance(b, teachgrad.Tensor) else b
        assert str(special.zeta(a, b).dtype).split(".")[1] == \
            str(torch.special.zeta(ta, tb).dtype).split(".")[1]


@pytest.mark.torch
def test_every_name_exists_in_torch_special():
    torch = _torch()
    assert set(special.__all__) <= set(dir(torch.special))
