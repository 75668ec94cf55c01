"""The regularised incomplete gamma function and its derivative in the shape parameter.

``P(a, x) = γ(a, x) / Γ(a)`` is the CDF of a Gamma(a, 1) variable; ``Q = 1 - P``. Two
classical expansions compute them (Numerical Recipes §6.2), both in log space so that
tails far below the smallest float stay usable:

* the series ``P = x^a e^{-x} / Γ(a+1) · Σ_n x^n / ((a+1)…(a+n))`` where ``x < a + 1``;
* Lentz's continued fraction for ``Q`` where ``x ≥ a + 1``.

``dlog_p_da`` / ``dlog_q_da`` give the derivative of ``log P`` (series side, exactly, term
by term) or ``log Q`` (continued-fraction side, by a Richardson-extrapolated central
difference of the log-space fraction: about 10 correct digits). They feed the *implicit
reparameterisation* gradient of a gamma sample (Figurnov et al., 2018): holding the
sample's CDF value ``u = P(a, x)`` fixed, ``dx/da = -(∂P/∂a) / pdf(x)``.

Everything here is NumPy on float64 arrays.
"""

from __future__ import annotations

import numpy as np

from . import gamma as _gamma_kernels

_MAX_TERMS = 100_000  # each loop stops as soon as every element has converged
_EPS = 1e-17  # a series term this small (relative to the sum) no longer changes it
_CF_TOLERANCE = 4e-16  # a Lentz factor this close to 1 no longer changes the fraction
_TINY = 1e-300


def _log_series(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log Σ_n t_n`` and ``(Σ_n t_n·s_n) / Σ_n t_n`` with ``t_n = x^n / ((a+1)…(a+n))`` and
    ``s_n = -Σ_{k≤n} 1/(a+k)`` (``s_n = d log t_n / da``)."""
    term = np.ones_like(a)
    total = np.ones_like(a)
    slope = np.zeros_like(a)  # d log(term) / da
    weighted = np.zeros_like(a)  # Σ term · slope
    active = np.arange(a.size)  # the elements still adding terms
    a_active, x_active = a.ravel(), x.ravel()
    term, total, slope, weighted = (v.ravel().copy() for v in (term, total, slope, weighted))
    t, s = term.copy(), slope.copy()
    for n in range(1, _MAX_TERMS):
        t = t * x_active / (a_active + n)
        s = s - 1.0 / (a_active + n)
        total[active] += t
        weighted[active] += t * s
        going = t > total[active] * _EPS
        if not going.all():  # drop the converged elements: the slow ones run alone
            active, t, s = active[going], t[going], s[going]
            a_active, x_active = a_active[going], x_active[going]
            if active.size == 0:
                break
    return np.log(total).reshape(a.shape), (weighted / total).reshape(a.shape)


def _log_continued_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``log`` of the continued fraction ``1/(x+1-a- 1·(1-a)/(x+3-a- 2·(2-a)/(x+5-a- …)))``
    (modified Lentz)."""
    a_active, x_active = a.ravel(), x.ravel()
    b = x_active + 1.0 - a_active
    c = np.full_like(b, 1.0 / _TINY)
    d = 1.0 / b
    h = d.copy()
    result = h.copy()
    active = np.arange(a.size)
    for i in range(1, _MAX_TERMS):
        an = -i * (i - a_active)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        result[active] = h
        going = np.abs(delta - 1.0) > _CF_TOLERANCE
        if not going.all():
            active, a_active = active[going], a_active[going]
            b, c, d, h = b[going], c[going], d[going], h[going]
            if active.size == 0:
                break
    return np.log(result).reshape(a.shape)


def _log_prefactor(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    return a * np.log(x) - x


def log_p_series(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log P(a, x)`` and ``d log P / da`` from the series (use where ``x < a + 1``)."""
    log_sum, dlog_sum = _log_series(a, x)
    log_p = _log_prefactor(a, x) - _gamma_kernels.lgamma(a + 1.0) + log_sum
    dlog_p = np.log(x) - _gamma_kernels.digamma(a + 1.0) + dlog_sum
    return log_p, dlog_p


def _log_q_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    return _log_prefactor(a, x) - _gamma_kernels.lgamma(a) + _log_continued_fraction(a, x)


def log_q_fraction(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log Q(a, x)`` and ``d log Q / da`` from the continued fraction (``x ≥ a + 1``)."""
    h = 1e-3 * a

    def central(step):
        return (_log_q_fraction(a + step, x) - _log_q_fraction(a - step, x)) / (2 * step)

    # Richardson: the central difference's error is c·h² + O(h⁴), so this cancels c·h².
    dlog_q = (4 * central(h / 2) - central(h)) / 3
    return _log_q_fraction(a, x), dlog_q


def regularized_gamma(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P(a, x)`` and ``∂P/∂a`` (float64 arrays of one broadcast shape; see
    :func:`regularized_gamma_both`)."""
    p, _q, dp = regularized_gamma_both(a, x)
    return p, dp


def regularized_gamma_both(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, ...]:
    """``P(a, x)``, ``Q(a, x) = 1 − P`` and ``∂P/∂a``, float64 arrays of one broadcast shape.

    Q is not computed as ``1 − P``: where the continued fraction runs, Q is what it gives,
    so a tail of 1e-17 keeps its digits instead of rounding to 0 or 2.2e-16.

    At the edges, PyTorch's values: ``P(0, x > 0) = 1``, ``P(a, ∞) = 1``, ``P(∞, x) = 0``
    (``∂P/∂a`` is 0 where P is flat, NaN at ``a = 0`` where it was not worked out), and
    NaN for ``a < 0``, ``x < 0``, ``P(0, 0)`` and ``P(∞, ∞)``.
    """
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    p = np.zeros(a.shape)
    q = np.ones(a.shape)
    dp = np.zeros(a.shape)
    positive = (x > 0) & (a > 0) & np.isfinite(a) & np.isfinite(x)
    series = positive & (x < a + 1)
    fraction = positive & ~series
    if series.any():
        log_p, dlog_p = log_p_series(a[series], x[series])
        p[series] = np.exp(log_p)
        q[series] = 1.0 - p[series]
        dp[series] = p[series] * dlog_p
    if fraction.any():
        log_q, dlog_q = log_q_fraction(a[fraction], x[fraction])
        q[fraction] = np.exp(log_q)
        p[fraction] = 1.0 - q[fraction]
        dp[fraction] = -q[fraction] * dlog_q
    full = np.isposinf(x) | ((a == 0) & (x > 0))  # (P(∞, x) stays 0: where it started)
    p[full] = 1.0
    q[full] = 0.0
    dp[(a == 0) & (x > 0)] = np.nan
    nan = (np.isnan(a) | np.isnan(x) | (a < 0) | (x < 0) | ((a == 0) & (x == 0))
           | (np.isposinf(a) & np.isposinf(x)))
    p[nan] = q[nan] = dp[nan] = np.nan
    return p, q, dp


def standard_gamma_grad(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``dx/da`` for a Gamma(a, 1) sample ``x`` with its CDF value held fixed.

    ``dx/da = -(∂P/∂a) / pdf(x)``, computed as ``∓exp(log P_or_Q - log pdf) · dlog(P_or_Q)/da``
    so that nothing underflows in the tails. NaN (0/0 where a float32 sample was 0) becomes
    0, as in PyTorch's ``_standard_gamma_grad``.
    """
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    x = np.maximum(x, np.finfo(np.float64).tiny)
    log_pdf = (a - 1.0) * np.log(x) - x - _gamma_kernels.lgamma(a)
    out = np.zeros(a.shape)
    series = x < a + 1
    fraction = ~series
    if series.any():
        log_p, dlog_p = log_p_series(a[series], x[series])
        out[series] = -np.exp(log_p - log_pdf[series]) * dlog_p
    if fraction.any():
        log_q, dlog_q = log_q_fraction(a[fraction], x[fraction])
        out[fraction] = np.exp(log_q - log_pdf[fraction]) * dlog_q
    return np.where(np.isnan(out), 0.0, out)
