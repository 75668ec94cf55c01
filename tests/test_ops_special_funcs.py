"""The special functions: erf family, gamma family, Bessel, and the smaller pointwise ops.

* accuracy: the vectorised kernels against Python's ``math`` (erf, erfc, lgamma), against
  identities (recurrences, reflection, known values), against numerical integrals (Bessel)
  and, when mpmath is installed, against 40-digit values, in ulps;
* gradients: finite differences (gradcheck, gradgradcheck, float64);
* PyTorch parity (``torch`` marker): values, dtypes, grad_fn names, gradients, errors;
* ``teachgrad.special`` and the in-place twins (``x.erf_()``...).
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck
from teachgrad.ops.inplace import INPLACE_GRAD_FN_NAMES, NO_INPLACE_DERIVATIVE
from teachgrad.ops.numerics import bessel as bessel_kernels
from teachgrad.ops.numerics import erf as erf_kernels
from teachgrad.ops.numerics import gamma as gamma_kernels

RNG = np.random.default_rng(11)
EULER_GAMMA = 0.5772156649015329


def leaf(data, dtype=teachgrad.float64):
    return teachgrad.tensor(data, dtype=dtype, requires_grad=True)


def ulps(ours, reference) -> np.ndarray:
    """|ours − reference| in units of the reference's last place (subnormals: 2⁻¹⁰⁷⁴)."""
    reference = np.asarray(reference, dtype=np.float64)
    spacing = np.maximum(np.spacing(np.abs(reference)), 5e-324)
    return np.abs(np.asarray(ours, dtype=np.float64) - reference) / spacing


def tails_grid() -> np.ndarray:
    """Dense in [−27, 27], plus geometric runs down to the subnormals, both signs."""
    tiny = np.geomspace(1e-320, 27, 4000)
    return np.concatenate([np.linspace(-27, 27, 54001), tiny, -tiny, [0.0, -0.0, 26.55, 27.3]])


# ----------------------------------------------------------------------------------------
# erf, erfc, erfinv: accuracy
# ----------------------------------------------------------------------------------------
def test_erf_and_erfc_agree_with_math_across_the_tails():
    xs = tails_grid()
    # math.erf/erfc (the C library's) are within 1 and 3 ulps of the truth; ours too
    # (see the mpmath test below): so the two may differ by their sum at most.
    assert ulps(erf_kernels.erf(xs), [math.erf(v) for v in xs]).max() <= 2
    assert ulps(erf_kernels.erfc(xs), [math.erfc(v) for v in xs]).max() <= 6


def test_erfc_reaches_the_subnormals_and_underflows_where_it_should():
    xs = np.array([26.0, 26.5, 27.0, 27.2, 28.0, 1e10, np.inf])
    ours = erf_kernels.erfc(xs)
    expected = np.array([math.erfc(v) for v in xs])
    assert 0 < ours[2] < 1e-317  # erfc(27) ≈ 5e-319 is subnormal, not 0
    assert ulps(ours, expected).max() <= 2
    assert ours[-3:].tolist() == [0.0, 0.0, 0.0]


def test_erf_family_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan])
    out = erf_kernels.erf(x)
    assert out[:4].tolist() == [0.0, 0.0, 1.0, -1.0] and np.isnan(out[4])
    assert np.signbit(out[1]) and not np.signbit(out[0])  # erf(−0) = −0
    out = erf_kernels.erfc(x)
    assert out[:4].tolist() == [1.0, 1.0, 0.0, 2.0] and np.isnan(out[4])
    out = erf_kernels.erfinv(np.array([1.0, -1.0, 1.5, -2.0, np.nan, 0.0, -0.0]))
    assert out[:2].tolist() == [math.inf, -math.inf]
    assert np.isnan(out[2:5]).all()
    assert out[5:].tolist() == [0.0, 0.0] and np.signbit(out[6])


def test_erf_of_float32_is_the_rounded_float64_value():
    x = RNG.uniform(-6, 6, 20000).astype(np.float32)
    ours = teachgrad.erf(teachgrad.tensor(x)).numpy()
    assert ours.dtype == np.float32
    expected = np.array([math.erf(float(v)) for v in x]).astype(np.float32)
    # Within one float32 ulp (the float64 value can round either side of a tie).
    assert np.max(np.abs(ours - expected) / np.spacing(np.abs(expected))) <= 1


def test_erfinv_inverts_erf_to_the_last_digit():
    ys = np.concatenate([np.linspace(-0.999, 0.999, 20001), np.geomspace(1e-310, 0.5, 500)])
    xs = erf_kernels.erfinv(ys)
    central = np.abs(ys) < 0.7
    # |erf(x) − y| ≤ 2 ulps of y, plus what 2 ulps of x move erf by.
    slack = 2 * np.spacing(np.abs(ys)) + 2 * np.spacing(np.abs(xs)) * 2 / math.sqrt(math.pi)
    residual = np.abs(np.array([math.erf(v) for v in xs]) - ys)
    assert (residual[central] <= slack[central]).all()
    # In the tails the digits are in 1 − y, so compare erfc(x) with 1 − |y| (exact there).
    tail = ~central
    complement = 1 - np.abs(ys[tail])
    erfc_x = np.array([math.erfc(abs(v)) for v in xs[tail]])
    assert np.max(np.abs(erfc_x - complement) / complement) < 1e-13


def test_erfinv_far_in_the_tail():
    # y = 1 − 2⁻⁵³ is the last float64 below 1: erfc(x) must be 2⁻⁵³.
    for c in (2.0**-53, 1e-12, 1e-7):
        x = erf_kernels.erfinv(np.array([1 - c]))[0]
        assert math.erfc(x) == pytest.approx(1 - (1 - c), rel=1e-13)


def test_ndtri_inverts_the_normal_cdf_down_to_the_subnormals():
    ps = np.concatenate([np.geomspace(1e-300, 0.5, 300), np.linspace(0.01, 0.99, 99)])
    xs = erf_kernels.ndtri(ps)
    cdf = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in xs])
    # Φ is evaluated at √2-rounded arguments: allow the relative slope of Φ times an ulp.
    assert np.max(np.abs(cdf - ps) / ps) < 1e-12
    assert erf_kernels.ndtri(np.array([0.0, 1.0, 0.5]))[:2].tolist() == [-math.inf, math.inf]
    assert erf_kernels.ndtri(np.array([0.5]))[0] == 0.0 and not np.signbit(
        erf_kernels.ndtri(np.array([0.5]))[0])
    assert np.isnan(erf_kernels.ndtri(np.array([-0.1, 1.1, np.nan]))).all()


def test_log_ndtr_and_erfcx_where_the_plain_formulas_fail():
    x = np.array([-40.0, -1e5, 0.0, 3.0])
    out = erf_kernels.log_ndtr(x)
    # log Φ(x) ≈ −x²/2 − log(−x√(2π)) for x ≪ 0 (Φ itself underflows).
    assert out[0] == pytest.approx(-800 - math.log(40 * math.sqrt(2 * math.pi))
                                   - 1 / 1600, rel=1e-8)
    assert out[1] == pytest.approx(-5e9 - math.log(1e5 * math.sqrt(2 * math.pi)), rel=1e-15)
    assert out[2] == pytest.approx(math.log(0.5), rel=1e-15)
    assert out[3] == pytest.approx(math.log1p(-0.5 * math.erfc(3 / math.sqrt(2))), rel=1e-14)
    # erfcx(x) = exp(x²)·erfc(x) ≈ 1/(x√π) for large x, finite where both factors are not.
    big = erf_kernels.erfcx(np.array([30.0, 1e200, np.inf, -30.0, 0.0]))
    u = 1 / (2 * 30.0**2)  # the asymptotic series 1/(x√π)·Σ (−1)ᵏ(2k−1)!!·uᵏ, 5 terms
    series = 1 - u + 3 * u**2 - 15 * u**3 + 105 * u**4
    assert big[0] == pytest.approx(series / (30 * math.sqrt(math.pi)), rel=1e-15)
    assert big[1] == pytest.approx(1 / (1e200 * math.sqrt(math.pi)), rel=1e-15)
    assert big[2:].tolist() == [0.0, math.inf, 1.0]
    small = np.linspace(-5, 1.2, 500)
    expected = np.array([math.exp(v * v) * math.erfc(v) for v in small])
    np.testing.assert_allclose(erf_kernels.erfcx(small), expected, rtol=2e-14)


# ----------------------------------------------------------------------------------------
# lgamma, digamma, polygamma, zeta: accuracy
# ----------------------------------------------------------------------------------------
def test_lgamma_agrees_with_math():
    xs = np.concatenate([np.linspace(0.01, 40, 8000), np.geomspace(1e-300, 1e300, 400),
                         RNG.uniform(-30, 0, 3000)])
    ours = gamma_kernels.lgamma(xs)
    expected = np.array([math.lgamma(v) for v in xs])
    # math.lgamma loses digits next to the roots (x = 1, 2 and the negative ones), so the
    # comparison is relative to max(|lgamma|, 1) there.
    error = np.abs(ours - expected) / np.maximum(np.abs(expected), 1)
    assert error[xs > 0].max() < 2e-15
    assert error[xs < 0].max() < 1e-13


def test_lgamma_special_values_and_exact_points():
    x = np.array([1.0, 2.0, 0.0, -0.0, -1.0, -7.0, np.inf, -np.inf, np.nan, 1e306, 0.5, 3.0])
    out = gamma_kernels.lgamma(x)
    assert out[:2].tolist() == [0.0, 0.0]
    assert out[2:8].tolist() == [math.inf] * 6 and np.isnan(out[8]) and out[9] == math.inf
    assert out[10] == pytest.approx(0.5 * math.log(math.pi), rel=1e-16)
    assert out[11] == pytest.approx(math.log(2), rel=1e-16)


def test_digamma_by_its_identities():
    assert gamma_kernels.digamma(np.array([1.0]))[0] == pytest.approx(-EULER_GAMMA, rel=1e-16)
    assert gamma_kernels.digamma(np.array([0.5]))[0] == pytest.approx(
        -EULER_GAMMA - 2 * math.log(2), rel=1e-15)
    x = np.concatenate([np.linspace(0.05, 30, 3000), np.geomspace(1e-8, 1e8, 200)])
    # ψ(x + 1) − ψ(x) = 1/x
    step = gamma_kernels.digamma(x + 1) - gamma_kernels.digamma(x)
    # (the subtraction itself loses up to an ulp or two of ψ ≈ 18 at x = 1e8: the atol)
    np.testing.assert_allclose(step, 1 / x, rtol=1e-12, atol=1e-14)
    # reflection: ψ(1 − x) − ψ(x) = π/tan(πx), on negative non-integers
    xn = RNG.uniform(-20, 0, 2000)
    xn = xn[np.abs(xn - np.round(xn)) > 0.01]
    reflected = gamma_kernels.digamma(1 - xn) - gamma_kernels.digamma(xn)
    np.testing.assert_allclose(reflected, math.pi / np.tan(math.pi * xn), rtol=1e-12, atol=1e-12)
    # the positive root, where the recurrence would cancel: ψ(x₀) ≈ 0
    root = 1.4616321449683622
    assert abs(gamma_kernels.digamma(np.array([root]))[0]) < 1e-16


def test_digamma_special_values_as_pytorch():
    out = gamma_kernels.digamma(np.array([0.0, -0.0, -1.0, -5.0, np.inf, -np.inf, np.nan, 1e-300]))
    assert out[:2].tolist() == [-math.inf, math.inf]
    assert np.isnan(out[[2, 3, 5, 6]]).all()
    assert out[4] == math.inf and out[7] == pytest.approx(-1e300, rel=1e-15)


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_polygamma_by_its_recurrence_and_known_values(n):
    # ψ⁽ⁿ⁾(x + 1) = ψ⁽ⁿ⁾(x) + (−1)ⁿ n!/xⁿ⁺¹; at negative x the direct sum over
    # (x + k)^−(n+1) alternates in sign and loses digits: a looser tolerance there.
    for x, rtol in ((np.linspace(0.1, 25, 1500), 1e-11),
                    (-RNG.uniform(0.05, 0.95, 50) - 3, 1e-8)):
        # (written with ψ⁽ⁿ⁾(x) alone on the left: the larger side, so nothing cancels)
        lhs = gamma_kernels.polygamma(n, x)
        rhs = gamma_kernels.polygamma(n, x + 1) - (-1) ** n * math.factorial(n) / x ** (n + 1)
        np.testing.assert_allclose(lhs, rhs, rtol=rtol, atol=1e-14)
    zeta_n = {1: math.pi**2 / 6, 2: 1.2020569031595942, 3: math.pi**4 / 90,
              6: 1.0083492773819228}[n]
    value = gamma_kernels.polygamma(n, np.array([1.0]))[0]
    assert value == pytest.approx((-1) ** (n + 1) * math.factorial(n) * zeta_n, rel=2e-15)


def test_zeta_domain():
    out = gamma_kernels.zeta(np.array([2.0, 1.0, 0.5, 2.0, 2.5, 2.0, 2.0]),
                             np.array([1.0, 1.0, 1.0, -2.0, -1.5, np.inf, np.nan]))
    assert out[0] == pytest.approx(math.pi**2 / 6, rel=1e-15)
    assert out[1] == math.inf and np.isnan(out[2])  # pole at s = 1, nothing below
    assert out[3] == math.inf and np.isnan(out[4])  # q on a pole; q < 0 with s not integer
    assert out[5] == 0.0 and np.isnan(out[6])


# ----------------------------------------------------------------------------------------
# Bessel functions: against their integrals
# ----------------------------------------------------------------------------------------
def bessel_by_integral(order: int, x: float) -> float:
    """Iₙ(x) = (1/π)∫₀^π e^(x cos θ) cos(nθ) dθ, by the trapezoid rule (exponentially
    accurate for a periodic integrand), scaled by e^(−|x|) to keep it finite."""
    theta = np.linspace(0, math.pi, 2001)
    values = np.exp(x * np.cos(theta) - abs(x)) * np.cos(order * theta)
    return float((values.sum() - (values[0] + values[-1]) / 2) / (len(theta) - 1))


def test_bessel_functions_match_their_integrals():
    xs = np.concatenate([np.linspace(-60, 60, 241), [0.0, 19.99, 20.0, 20.01]])
    for order, scaled, plain in ((0, bessel_kernels.i0e, bessel_kernels.i0),
                                 (1, bessel_kernels.i1e, bessel_kernels.i1)):
        expected = np.array([bessel_by_integral(order, v) for v in xs])
        np.testing.assert_allclose(scaled(xs), expected, rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(plain(xs), expected * np.exp(np.abs(xs)), rtol=1e-13)


def test_bessel_special_values():
    assert bessel_kernels.i0(np.array([0.0, np.inf, -np.inf, 720.0])).tolist() == [
        1.0, math.inf, math.inf, math.inf]
    assert bessel_kernels.i1(np.array([-0.0, np.inf, -np.inf])).tolist() == [
        0.0, math.inf, -math.inf]
    assert bessel_kernels.i0e(np.array([np.inf, 1e300]))[0] == 0.0
    assert np.isnan(bessel_kernels.i1e(np.array([np.nan]))).all()


# ----------------------------------------------------------------------------------------
# Against 40-digit values (mpmath, when installed)
# ----------------------------------------------------------------------------------------
def test_kernels_in_ulps_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    mp = mpmath.mpf

    def reference(fn, xs):
        return np.array([float(fn(mp(float(v)))) for v in xs])

    grid = np.concatenate([np.linspace(-26, 26, 2601), np.geomspace(1e-300, 26, 200)])
    assert ulps(erf_kernels.erf(grid), reference(mpmath.erf, grid)).max() <= 1
    assert ulps(erf_kernels.erfc(grid), reference(mpmath.erfc, grid)).max() <= 3
    assert ulps(erf_kernels.erfcx(grid), reference(
        lambda v: mpmath.exp(v * v) * mpmath.erfc(v), grid)).max() <= 2
    ys = np.linspace(-0.9999, 0.9999, 2001)
    assert ulps(erf_kernels.erfinv(ys), reference(mpmath.erfinv, ys)).max() <= 2
    positive = np.concatenate([np.linspace(0.01, 30, 1500), np.geomspace(1e-200, 1e200, 100)])
    assert ulps(gamma_kernels.lgamma(positive), reference(mpmath.loggamma, positive)).max() <= 4
    assert ulps(gamma_kernels.digamma(positive), reference(mpmath.digamma, positive)).max() <= 32
    assert ulps(gamma_kernels.polygamma(1, positive[:1500]),
                reference(lambda v: mpmath.polygamma(1, v), positive[:1500])).max() <= 4
    bessel = np.linspace(-50, 50, 801)
    assert ulps(bessel_kernels.i0(bessel), reference(lambda v: mpmath.besseli(0, v),
                                                     bessel)).max() <= 10
    assert ulps(bessel_kernels.i1(bessel), reference(lambda v: mpmath.besseli(1, v),
                                                     bessel)).max() <= 10


# ----------------------------------------------------------------------------------------
# Gradients: finite differences, first and second order
# ----------------------------------------------------------------------------------------
special = teachgrad.special
UNARY = {  # name: (function, domain where it is smooth)
    "lgamma": (teachgrad.lgamma, (0.2, 4)),
    "lgamma negative": (teachgrad.lgamma, (-2.9, -2.1)),
    "digamma": (teachgrad.digamma, (0.2, 4)),
    "polygamma 0": (lambda x: teachgrad.polygamma(0, x), (0.2, 4)),
    "polygamma 1": (lambda x: teachgrad.polygamma(1, x), (0.2, 4)),
    "polygamma 3": (lambda x: x.polygamma(3), (0.5, 4)),
    "mvlgamma": (lambda x: teachgrad.mvlgamma(x, 3), (1.2, 4)),
    "i0": (teachgrad.i0, (-3, 3)),
    "i0e": (special.i0e, (-3, 3)),
    "i1": (special.i1, (-3, 3)),
    "i1e": (special.i1e, (-3, 3)),
    "exp2": (teachgrad.exp2, (-2, 2)),
    "deg2rad": (teachgrad.deg2rad, (-90, 90)),
    "rad2deg": (teachgrad.rad2deg, (-2, 2)),
    "frac": (teachgrad.frac, (0.1, 0.9)),
    "sinc": (teachgrad.sinc, (-2, 2)),
    "logit": (teachgrad.logit, (0.05, 0.95)),
    "logit eps": (lambda x: x.logit(0.3), (0.05, 0.95)),
    "erfcx": (special.erfcx, (-2, 3)),
    "ndtr": (special.ndtr, (-3, 3)),
    "ndtri": (special.ndtri, (0.05, 0.95)),
    "log_ndtr": (special.log_ndtr, (-5, 5)),
    "entr": (special.entr, (0.1, 2)),
    "copysign number": (lambda x: x.copysign(-2.0), (0.1, 2)),
    "logcumsumexp": (lambda x: x.logcumsumexp(1), (-3, 3)),
    "logcumsumexp dim 0": (lambda x: x.logcumsumexp(0) * x, (-3, 3)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_gradients_match_finite_differences(name):
    fn, (low, high) = UNARY[name]
    x = leaf(RNG.uniform(low, high, (2, 3)))
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_sinc_gradient_at_zero_and_logit_gradient_outside_eps():
    x = leaf([0.0, 1.0])
    teachgrad.sinc(x).sum().backward()
    assert x.grad.tolist() == [0.0, -1.0]  # (cos π·π − sin π)/π = −1
    x = leaf([0.1, 0.5, 0.95])
    x.logit(eps=0.2).sum().backward()
    assert x.grad.tolist() == [0.0, 4.0, 0.0]  # clamped where outside [0.2, 0.8]
    x = leaf([-0.5, 0.5, 1.5])
    with np.errstate(invalid="ignore"):
        x.logit().sum().backward()
    # outside [0, 1] logit has no value and no slope: NaN, as PyTorch (it was 1/(x(1−x)))
    assert np.isnan(x.grad.numpy()[[0, 2]]).all() and x.grad[1].item() == 4.0


def test_binary_gradients():
    a, b = leaf(RNG.uniform(0.1, 2, (2, 3))), leaf(RNG.uniform(0.1, 2, (3,)))
    assert gradcheck(special.xlog1py, (a, b))
    assert gradgradcheck(special.xlog1py, (a, b))
    assert gradgradcheck(lambda t: special.xlog1py(2.5, t), (b,))
    assert gradgradcheck(lambda t: special.xlog1py(t, 3.0), (a,))
    signs = leaf([-1.0, 2.0, -3.0])
    assert gradcheck(teachgrad.copysign, (a, signs[None].expand(2, 3).contiguous()))
    out = teachgrad.copysign(a, signs)
    out.sum().backward()
    assert signs.grad.tolist() == [0.0, 0.0, 0.0]  # the sign's source gets no gradient


def test_xlog1py_is_zero_where_its_first_argument_is():
    x, y = leaf([0.0, 2.0]), leaf([-1.0, math.e - 1])
    out = special.xlog1py(x, y)
    assert out.tolist() == [0.0, 2.0]
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]


def test_logcumsumexp_is_stable_and_its_gradient_a_running_softmax():
    x = leaf([0.0, -math.inf, 3.0, 1000.0])
    out = x.logcumsumexp(0)
    assert out.tolist()[:2] == [0.0, 0.0] and out.tolist()[3] == 1000.0
    out.sum().backward()
    # d(Σₖ outₖ)/dxᵢ = Σ_{k ≥ i} e^(xᵢ − outₖ)
    expected = [2 + 1 / (1 + math.e**3), 0.0, math.e**3 / (1 + math.e**3), 1.0]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-15)


def test_heaviside_has_no_derivative_as_in_pytorch():
    x = leaf([-1.0, 0.0, 2.0])
    out = teachgrad.heaviside(x, teachgrad.tensor([0.5], dtype=teachgrad.float64))
    assert out.tolist() == [0.0, 0.5, 1.0]
    assert repr(out).endswith("grad_fn=<NotImplemented>)")
    assert out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        out.sum().backward()


def test_integer_inputs_and_their_dtypes():
    i = teachgrad.tensor([1, 2])
    for fn in (teachgrad.lgamma, teachgrad.digamma, teachgrad.i0, teachgrad.exp2,
               teachgrad.deg2rad, teachgrad.sinc, teachgrad.logit, special.erfcx, special.entr,
               special.ndtr, special.ndtri, special.log_ndtr, special.i1,
               lambda t: teachgrad.polygamma(1, t), lambda t: teachgrad.mvlgamma(t, 1),
               lambda t: teachgrad.copysign(t, -1)):
        assert fn(i).dtype == teachgrad.float32
    assert teachgrad.fix(i).dtype == teachgrad.int64
    assert teachgrad.heaviside(i, teachgrad.tensor([7])).tolist() == [1, 1]
    with pytest.raises(NotImplementedError, match="frac_cpu"):
        i.frac()
    with pytest.raises(NotImplementedError, match="logcumsumexp_out_cpu"):
        i.logcumsumexp(0)


# ----------------------------------------------------------------------------------------
# teachgrad.special and the in-place twins
# ----------------------------------------------------------------------------------------
def test_special_namespace_names_and_aliases():
    # aliases run the same code; each is a function of its own (its errors name it, as
    # PyTorch's: special_expit(), not sigmoid())
    same = [(special.expit, teachgrad.sigmoid), (special.gammaln, teachgrad.lgamma),
            (special.psi, teachgrad.digamma), (special.multigammaln, teachgrad.mvlgamma)]
    for alias, function in same:
        assert inspect.unwrap(alias) is inspect.unwrap(function)
    for name in special.__all__:
        assert getattr(special, name).__doc__, name
    # torch.special-only functions stay out of the top level (as in PyTorch)
    for name in ("erfcx", "ndtr", "ndtri", "log_ndtr", "entr", "xlog1py", "i0e", "i1"):
        assert not hasattr(teachgrad, name) and not hasattr(teachgrad.Tensor, name)
    assert not hasattr(special, "np") and not hasattr(special, "math")


INPLACE = {  # method: (its arguments, domain)
    "asin_": ((), (-0.9, 0.9)), "arcsinh_": ((), (-2, 2)), "sinh_": ((), (-2, 2)),
    "cosh_": ((), (-2, 2)), "atanh_": ((), (-0.9, 0.9)), "erf_": ((), (-2, 2)),
    "erfc_": ((), (-2, 2)), "erfinv_": ((), (-0.9, 0.9)), "lgamma_": ((), (0.5, 3)),
    "digamma_": ((), (0.5, 3)), "polygamma_": ((1,), (0.5, 3)), "mvlgamma_": ((2,), (1, 3)),
    "i0_": ((), (-2, 2)), "exp2_": ((), (-2, 2)), "deg2rad_": ((), (-90, 90)),
    "rad2deg_": ((), (-2, 2)), "frac_": ((), (0.1, 0.9)), "fix_": ((), (-3, 3)),
    "sinc_": ((), (-2, 2)), "logit_": ((), (0.1, 0.9)), "copysign_": ((-1.0,), (0.1, 2)),
    "log2_": ((), (0.5, 3)), "log10_": ((), (0.5, 3)), "nan_to_num_": ((), (-1, 1)),
    "cumsum_": ((1,), (-1, 1)),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_twins_change_self_and_record_the_op(name):
    args, (low, high) = INPLACE[name]
    data = RNG.uniform(low, high, (2, 3))
    x = leaf(data)
    y = x * 1
    version = y._version
    assert getattr(y, name)(*args) is y
    assert y._version == version + 1
    expected = getattr(leaf(data), name[:-1])(*args)
    assert y.tolist() == expected.tolist()
    # PyTorch names some in-place nodes apart (AsinhBackward1, PolygammaBackward1), and has
    # no in-place derivative for asinh_/atanh_ (checked against PyTorch in
    # test_api_parity_more.py)
    own = expected.grad_fn.name()
    assert y.grad_fn.name() == INPLACE_GRAD_FN_NAMES.get(own, own)
    if y.grad_fn.name() in NO_INPLACE_DERIVATIVE:
        with pytest.raises(NotImplementedError, match="the derivative for 'inplace version"):
            y.sum().backward()
        return
    y.sum().backward()
    expected.sum().backward()
    assert x.grad is not None


def test_inplace_twins_refuse_integers_and_leaves():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        teachgrad.tensor([1, 2]).erf_()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf([0.5]).asin_()


def test_docstring_examples():
    import doctest

    from teachgrad.ops import bessel, elementary, gamma

    for module in (teachgrad.special, gamma, bessel, elementary):
        assert doctest.testmod(module).failed == 0


# ----------------------------------------------------------------------------------------
# Parity with PyTorch
# ----------------------------------------------------------------------------------------
def _torch():
    return pytest.importorskip("torch")


def _same(ours, theirs, rtol=1e-13, atol=0.0):
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    np.testing.assert_allclose(ours.detach().numpy().astype(np.float64),
                               theirs.detach().numpy().astype(np.float64),
                               rtol=rtol, atol=atol, equal_nan=True)


PARITY = {  # name: (call with lib and x, values of x, rtol in float64)
    "erf": (lambda lib, x: lib.erf(x), np.linspace(-7, 7, 1401), 1e-15),
    "erfc": (lambda lib, x: lib.erfc(x), np.linspace(-7, 27, 1401), 1e-14),
    "erfinv": (lambda lib, x: lib.erfinv(x), np.linspace(-1, 1, 1401), 1e-14),
    "lgamma": (lambda lib, x: lib.lgamma(x), np.linspace(0.01, 50, 1401), 1e-14),
    "lgamma negative": (lambda lib, x: lib.lgamma(x), -np.linspace(0.01, 7.99, 400) - 1e-3,
                        1e-11),
    "digamma": (lambda lib, x: lib.digamma(x), np.linspace(0.01, 50, 1401), 1e-13),
    "digamma negative": (lambda lib, x: lib.digamma(x), -np.linspace(0.05, 7.95, 400), 1e-10),
    # (PyTorch's trigamma, polygamma(1, ·), is accurate to about 1e-10; ours to 4 ulps)
    "polygamma 1": (lambda lib, x: lib.polygamma(1, x), np.linspace(0.01, 50, 701), 1e-9),
    "polygamma 4": (lambda lib, x: lib.polygamma(4, x), np.linspace(0.01, 50, 701), 1e-13),
    "mvlgamma": (lambda lib, x: lib.mvlgamma(x, 4), np.linspace(1.6, 30, 701), 1e-14),
    "i0": (lambda lib, x: lib.i0(x), np.linspace(-80, 80, 1601), 1e-14),
    "i0e": (lambda lib, x: lib.special.i0e(x), np.linspace(-800, 800, 1601), 1e-14),
    "i1": (lambda lib, x: lib.special.i1(x), np.linspace(-80, 80, 1601), 1e-14),
    "i1e": (lambda lib, x: lib.special.i1e(x), np.linspace(-800, 800, 1601), 1e-14),
    "erfcx": (lambda lib, x: lib.special.erfcx(x), np.linspace(-25, 1e4, 1401), 1e-13),
    "ndtri": (lambda lib, x: lib.special.ndtri(x), np.linspace(0, 1, 1401), 1e-13),
    "log_ndtr": (lambda lib, x: lib.special.log_ndtr(x), np.linspace(-1e3, 8, 1401), 1e-13),
    "ndtr": (lambda lib, x: lib.special.ndtr(x), np.linspace(-8, 8, 1401), 1e-13),
    "entr": (lambda lib, x: lib.special.entr(x), np.linspace(-1, 5, 1401), 1e-15),
    "exp2": (lambda lib, x: lib.exp2(x), np.linspace(-50, 50, 1401), 1e-15),
    "deg2rad": (lambda lib, x: lib.deg2rad(x), np.linspace(-720, 720, 1401), 1e-15),
    "rad2deg": (lambda lib, x: lib.rad2deg(x), np.linspace(-7, 7, 1401), 1e-15),
    "frac": (lambda lib, x: lib.frac(x), np.linspace(-7, 7, 1401), 1e-15),
    "fix": (lambda lib, x: lib.fix(x), np.linspace(-7, 7, 1401), 0),
    "sinc": (lambda lib, x: lib.sinc(x), np.linspace(-7.01, 7, 1401), 1e-13),
    "logit": (lambda lib, x: lib.logit(x), np.linspace(0, 1, 1401), 1e-14),
    "logit eps": (lambda lib, x: lib.logit(x, 1e-3), np.linspace(0, 1, 1401), 1e-14),
    "copysign": (lambda lib, x: lib.copysign(x, -x + 0.3), np.linspace(-7, 7, 1401), 0),
    "expit": (lambda lib, x: lib.special.expit(x), np.linspace(-30, 30, 1401), 1e-15),
    "logcumsumexp": (lambda lib, x: lib.logcumsumexp(x, 0), np.linspace(-7, 70, 1401), 1e-13),
    "xlog1py": (lambda lib, x: lib.special.xlog1py(x, x.abs() * 2 - 0.5),
                np.linspace(-7, 7, 1401), 1e-14),
}


NO_HALF = {"erfcx", "ndtri", "log_ndtr"}  # PyTorch has no float16 kernel for these
ABSOLUTE = {
    "ndtr": 1e-15,  # PyTorch computes (1 + erf(x/√2))/2: its lower tail is rounding noise
    "sinc": 1e-16,  # next to sinc's zeros both are sin(π·x) of a rounded π·x
}
ABSOLUTE_HALF = {"ndtr": 1e-3, "sinc": 1e-3}  # (the same, rounded to float16)
GRADIENT_RTOL = {"digamma": 1e-8, "digamma negative": 1e-8,  # (its trigamma, see above)
                 "log_ndtr": 1e-9}  # PyTorch's e^(−(log Φ + x²/2)) cancels ~1e-10 away


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(PARITY))
def test_values_grad_fn_names_and_gradients_match_torch(name):
    torch = _torch()
    fn, values, rtol = PARITY[name]
    ours, theirs = fn(teachgrad, leaf(values)), fn(torch, torch.tensor(values,
                                                                       requires_grad=True))
    _same(ours, theirs, rtol, atol=ABSOLUTE.get(name, 1e-300))
    if theirs.grad_fn is not None:
        assert ours.grad_fn.name() == theirs.grad_fn.name()
    dtypes = (("float32", 1e-5),) if name in NO_HALF else (("float32", 1e-5), ("float16", 2e-3))
    for dtype, tolerance in dtypes:
        small = values[np.abs(values) < 60]
        atol = ABSOLUTE_HALF.get(name, 1e-6) if dtype == "float16" else 1e-6
        _same(fn(teachgrad, teachgrad.tensor(small, dtype=getattr(teachgrad, dtype))),
              fn(torch, torch.tensor(small, dtype=getattr(torch, dtype))), tolerance, atol)
    # gradients on the interior of the grid (away from the domain's edges)
    inner = values[5:-5:7]
    x, tx = leaf(inner), torch.tensor(inner, requires_grad=True)
    out, tout = fn(teachgrad, x), fn(torch, tx)
    if tout.grad_fn is None:
        return
    weights = RNG.uniform(-1, 1, inner.shape)
    (out * teachgrad.tensor(weights)).sum().backward()
    (tout * torch.tensor(weights)).sum().backward()
    _same(x.grad, tx.grad, GRADIENT_RTOL.get(name, 1e-10), atol=1e-12)


DTYPE_CASES = [
    ("lgamma int", lambda lib: lib.lgamma(lib.tensor([1, 2, 5]))),
    ("lgamma bool", lambda lib: lib.lgamma(lib.tensor([True, False]))),
    ("digamma int", lambda lib: lib.digamma(lib.tensor([1, 2]))),
    ("polygamma int", lambda lib: lib.polygamma(2, lib.tensor([1, 2]))),
    ("mvlgamma int", lambda lib: lib.mvlgamma(lib.tensor([3, 4]), 2)),
    ("i0 bool", lambda lib: lib.i0(lib.tensor([True, False]))),
    ("exp2 int", lambda lib: lib.exp2(lib.tensor([1, 2]))),
    ("deg2rad bool", lambda lib: lib.deg2rad(lib.tensor([True, False]))),
    ("copysign ints", lambda lib: lib.copysign(lib.tensor([1, 2]), lib.tensor([-1, 1]))),
    ("copysign int number", lambda lib: lib.copysign(lib.tensor([1, 2]), -1)),
    ("copysign mixed", lambda lib: lib.copysign(lib.tensor([1.0]),
                                                lib.tensor([-1.0], dtype=lib.float64))),
    ("fix int", lambda lib: lib.fix(lib.tensor([1, -2]))),
    ("heaviside ints", lambda lib: lib.heaviside(lib.tensor([-1, 0, 2]), lib.tensor([7]))),
    ("heaviside floats", lambda lib: lib.heaviside(lib.tensor([-1.0, 0.0, 2.0]),
                                                   lib.tensor([0.5]))),
    ("sinc bool", lambda lib: lib.sinc(lib.tensor([True, False]))),
    ("logit int", lambda lib: lib.logit(lib.tensor([0, 1]))),
    ("xlog1py ints", lambda lib: lib.special.xlog1py(lib.tensor([1, 2]), lib.tensor([1, 2]))),
    ("xlog1py number", lambda lib: lib.special.xlog1py(2, lib.tensor([1, 2]))),
    ("xlog1py nan", lambda lib: lib.special.xlog1py(lib.tensor([0.0, 0.0]),
                                                    lib.tensor([-1.0, math.nan]))),
    ("entr int", lambda lib: lib.special.entr(lib.tensor([0, 2]))),
    ("ndtri int", lambda lib: lib.special.ndtri(lib.tensor([0, 1]))),
    ("lgamma f16", lambda lib: lib.lgamma(lib.tensor([0.5, 30.0], dtype=lib.float16))),
    ("logcumsumexp f16", lambda lib: lib.tensor([1.0, 2.0, 3.0],
                                                dtype=lib.float16).logcumsumexp(0)),
    ("special values digamma", lambda lib: lib.digamma(lib.tensor(
        [0.0, -0.0, -1.0, math.inf, -math.inf, math.nan], dtype=lib.float64))),
    ("special values lgamma", lambda lib: lib.lgamma(lib.tensor(
        [0.0, -0.0, -1.0, math.inf, -math.inf, math.nan], dtype=lib.float64))),
    ("special values i0", lambda lib: lib.i0(lib.tensor([math.nan, 0.0, -0.0]))),
    ("special values erfinv", lambda lib: lib.erfinv(lib.tensor([1.0, -1.0, 2.0, -0.0]))),
    ("0-d", lambda lib: lib.lgamma(lib.tensor(3.5))),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_results_and_dtypes_match_torch(case):
    torch = _torch()
    _, fn = case
    ours, theirs = fn(teachgrad), fn(torch)
    _same(ours, theirs, 2e-3 if ours.dtype == teachgrad.float16 else 1e-6)
    assert tuple(ours.shape) == tuple(theirs.shape)


ERROR_CASES = [
    ("polygamma negative n", lambda lib: lib.polygamma(-1, lib.tensor([1.0]))),
    ("polygamma float n", lambda lib: lib.polygamma(1.5, lib.tensor([1.0]))),
    ("mvlgamma p 0", lambda lib: lib.mvlgamma(lib.tensor([3.0]), 0)),
    ("frac int", lambda lib: lib.frac(lib.tensor([1, 2]))),
    ("frac bool", lambda lib: lib.frac(lib.tensor([True]))),
    ("heaviside dtypes", lambda lib: lib.heaviside(lib.tensor([1.0]), lib.tensor([1]))),
    ("heaviside number", lambda lib: lib.heaviside(lib.tensor([1.0]), 0.5)),
    ("logcumsumexp int", lambda lib: lib.logcumsumexp(lib.tensor([1, 2]), 0)),
    ("logcumsumexp dim", lambda lib: lib.logcumsumexp(lib.ones(2), 1)),
    ("inplace int", lambda lib: lib.tensor([1, 2]).lgamma_()),
    ("heaviside method number", lambda lib: lib.tensor([1.0]).heaviside(0.5)),
    ("erfcx f16", lambda lib: lib.special.erfcx(lib.tensor([0.5], dtype=lib.float16))),
    ("ndtri f16", lambda lib: lib.special.ndtri(lib.tensor([0.5], dtype=lib.float16))),
    ("log_ndtr f16", lambda lib: lib.special.log_ndtr(lib.tensor([0.5], dtype=lib.float16))),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_torch(case):
    torch = _torch()
    _, fn = case
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(Exception) as ours:
        fn(teachgrad)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]


@pytest.mark.torch
def test_special_namespace_matches_torch_special():
    torch = _torch()
    for name in special.__all__:
        assert hasattr(torch.special, name), name
    x = np.linspace(0.05, 0.95, 7)
    for name in ("expit", "logit", "erf", "erfc", "erfinv", "gammaln", "digamma", "psi",
                 "log1p", "expm1", "exp2", "sinc", "entr", "ndtr", "ndtri", "log_ndtr", "i0",
                 "i0e", "i1", "i1e", "round", "erfcx"):
        _same(getattr(special, name)(teachgrad.tensor(x)),
              getattr(torch.special, name)(torch.tensor(x)), 1e-6)
    _same(special.polygamma(2, teachgrad.tensor(x)), torch.special.polygamma(2, torch.tensor(x)),
          1e-6)
    _same(special.multigammaln(teachgrad.tensor(x + 2), 3),
          torch.special.multigammaln(torch.tensor(x + 2), 3), 1e-6)
    _same(special.logsumexp(teachgrad.tensor(x), 0), torch.special.logsumexp(torch.tensor(x), 0))
    _same(special.softmax(teachgrad.tensor(x), 0), torch.special.softmax(torch.tensor(x), 0))
    _same(special.log_softmax(teachgrad.tensor(x), 0),
          torch.special.log_softmax(torch.tensor(x), 0))
    _same(special.xlogy(teachgrad.tensor(x), teachgrad.tensor(x)),
          torch.special.xlogy(torch.tensor(x), torch.tensor(x)))


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_twins_match_torch(name):
    torch = _torch()
    args, (low, high) = INPLACE[name]
    data = RNG.uniform(low, high, (2, 3))
    ours, theirs = teachgrad.tensor(data), torch.tensor(data)
    getattr(ours, name)(*args)
    getattr(theirs, name)(*args)
    _same(ours, theirs, 1e-9 if name == "polygamma_" else 1e-13)  # (PyTorch's trigamma)
