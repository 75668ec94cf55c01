"""kl_divergence and register_kl.

* PyTorch parity (``torch`` marker): every registered pair, on the same parameters;
* without PyTorch: each KL against a Monte Carlo estimate ``mean(log p(x) - log q(x))``
  over samples of ``p`` (within five standard errors), KL(p ‖ p) = 0, and a few
  hand-derived values;
* gradients in both distributions' parameters by finite differences (gradcheck, float64);
* dispatch: the most specific registered pair wins, subclasses inherit, unknown pairs
  raise NotImplementedError.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad
import teachgrad.distributions as dist
from teachgrad.autograd.gradcheck import gradcheck
from teachgrad.distributions import kl_divergence, register_kl


def t64(M, data):
    return M.tensor(np.asarray(data, dtype=np.float64))


# (name, p, q): each builds the distribution in torch or teachgrad (M, D).
PAIRS = {
    "Normal-Normal": (lambda M, D: D.Normal(t64(M, [0.0, 1.0]), t64(M, [1.0, 0.5])),
                      lambda M, D: D.Normal(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Bernoulli-Bernoulli": (lambda M, D: D.Bernoulli(t64(M, [0.3, 0.9])),
                            lambda M, D: D.Bernoulli(t64(M, [0.5, 0.2]))),
    "Categorical-Categorical": (
        lambda M, D: D.Categorical(t64(M, [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
        lambda M, D: D.Categorical(logits=t64(M, [[0.0, 1.0, -1.0], [2.0, 0.0, 0.5]]))),
    "OneHotCategorical-OneHotCategorical": (
        lambda M, D: D.OneHotCategorical(t64(M, [0.2, 0.3, 0.5])),
        lambda M, D: D.OneHotCategorical(t64(M, [0.4, 0.4, 0.2]))),
    "MultivariateNormal-MultivariateNormal": (
        lambda M, D: D.MultivariateNormal(t64(M, [0.0, 1.0]),
                                          covariance_matrix=t64(M, [[2.0, 0.3], [0.3, 1.0]])),
        lambda M, D: D.MultivariateNormal(t64(M, [[1.0, 0.0], [0.0, 0.5]]),
                                          scale_tril=t64(M, [[1.5, 0.0], [-0.4, 0.8]]))),
    "Uniform-Uniform": (lambda M, D: D.Uniform(t64(M, [0.0, 0.2]), t64(M, [1.0, 0.5])),
                        lambda M, D: D.Uniform(t64(M, [-1.0, 0.0]), t64(M, [2.0, 1.0]))),
    "Exponential-Exponential": (lambda M, D: D.Exponential(t64(M, [0.5, 2.0])),
                                lambda M, D: D.Exponential(t64(M, [1.0, 0.3]))),
    "Gamma-Gamma": (lambda M, D: D.Gamma(t64(M, [0.7, 3.0]), t64(M, [1.0, 2.0])),
                    lambda M, D: D.Gamma(t64(M, [2.0, 1.5]), t64(M, [0.5, 1.0]))),
    "Beta-Beta": (lambda M, D: D.Beta(t64(M, [0.7, 3.0]), t64(M, [1.5, 2.0])),
                  lambda M, D: D.Beta(t64(M, [2.0, 1.0]), t64(M, [2.0, 4.0]))),
    "Dirichlet-Dirichlet": (lambda M, D: D.Dirichlet(t64(M, [[0.7, 3.0, 1.0]])),
                            lambda M, D: D.Dirichlet(t64(M, [[2.0, 1.0, 0.5]]))),
    "Laplace-Laplace": (lambda M, D: D.Laplace(t64(M, [0.0, 1.0]), t64(M, [1.0, 0.5])),
                        lambda M, D: D.Laplace(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Poisson-Poisson": (lambda M, D: D.Poisson(t64(M, [0.5, 4.0])),
                        lambda M, D: D.Poisson(t64(M, [1.5, 3.0]))),
    "Independent-Independent": (
        lambda M, D: D.Independent(D.Normal(t64(M, [[0.0, 1.0]]), t64(M, [[1.0, 0.5]])), 1),
        lambda M, D: D.Independent(D.Normal(t64(M, [[0.5, 0.0]]), t64(M, [[2.0, 1.0]])), 1)),
    "Cauchy-Cauchy": (lambda M, D: D.Cauchy(t64(M, [0.0, 1.0]), t64(M, [1.0, 0.5])),
                      lambda M, D: D.Cauchy(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Gumbel-Gumbel": (lambda M, D: D.Gumbel(t64(M, [0.0, 1.0]), t64(M, [1.0, 0.5])),
                      lambda M, D: D.Gumbel(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Geometric-Geometric": (lambda M, D: D.Geometric(t64(M, [0.3, 0.8])),
                            lambda M, D: D.Geometric(t64(M, [0.5, 0.4]))),
    "HalfNormal-HalfNormal": (lambda M, D: D.HalfNormal(t64(M, [1.0, 2.0])),
                              lambda M, D: D.HalfNormal(t64(M, [0.5, 3.0]))),
    "Binomial-Binomial": (lambda M, D: D.Binomial(6, t64(M, [0.3, 0.8])),
                          lambda M, D: D.Binomial(6, t64(M, [0.5, 0.4]))),
    "LogNormal-LogNormal": (lambda M, D: D.LogNormal(t64(M, [0.0, 1.0]), t64(M, [1.0, 0.5])),
                            lambda M, D: D.LogNormal(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Chi2-Chi2": (lambda M, D: D.Chi2(t64(M, [1.0, 4.0])), lambda M, D: D.Chi2(t64(M, [2.0, 3.0]))),
    "Normal-Laplace": (lambda M, D: D.Normal(t64(M, [0.0, 1.0]), t64(M, [1.0, 0.5])),
                       lambda M, D: D.Laplace(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Laplace-Normal": (lambda M, D: D.Laplace(t64(M, [0.0, 1.0]), t64(M, [1.0, 0.5])),
                       lambda M, D: D.Normal(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Gamma-Normal": (lambda M, D: D.Gamma(t64(M, [0.7, 3.0]), t64(M, [1.0, 2.0])),
                     lambda M, D: D.Normal(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Exponential-Gamma": (lambda M, D: D.Exponential(t64(M, [0.5, 2.0])),
                          lambda M, D: D.Gamma(t64(M, [2.0, 1.5]), t64(M, [0.5, 1.0]))),
    "Gamma-Exponential": (lambda M, D: D.Gamma(t64(M, [0.7, 3.0]), t64(M, [1.0, 2.0])),
                          lambda M, D: D.Exponential(t64(M, [1.0, 0.3]))),
    "Uniform-Normal": (lambda M, D: D.Uniform(t64(M, [0.0, 0.2]), t64(M, [1.0, 0.5])),
                       lambda M, D: D.Normal(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Uniform-Beta": (lambda M, D: D.Uniform(t64(M, [0.1, 0.2]), t64(M, [0.9, 0.5])),
                     lambda M, D: D.Beta(t64(M, [2.0, 1.0]), t64(M, [2.0, 4.0]))),
    "Uniform-Gamma": (lambda M, D: D.Uniform(t64(M, [0.1, 0.2]), t64(M, [0.9, 3.5])),
                      lambda M, D: D.Gamma(t64(M, [2.0, 1.0]), t64(M, [2.0, 4.0]))),
    "Uniform-Exponential": (lambda M, D: D.Uniform(t64(M, [0.1, 0.2]), t64(M, [0.9, 3.5])),
                            lambda M, D: D.Exponential(t64(M, [1.0, 0.3]))),
    "Beta-Normal": (lambda M, D: D.Beta(t64(M, [0.7, 3.0]), t64(M, [1.5, 2.0])),
                    lambda M, D: D.Normal(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Beta-Gamma": (lambda M, D: D.Beta(t64(M, [0.7, 3.0]), t64(M, [1.5, 2.0])),
                   lambda M, D: D.Gamma(t64(M, [2.0, 1.0]), t64(M, [2.0, 4.0]))),
    "Beta-Exponential": (lambda M, D: D.Beta(t64(M, [0.7, 3.0]), t64(M, [1.5, 2.0])),
                         lambda M, D: D.Exponential(t64(M, [1.0, 0.3]))),
    "Beta-Uniform": (lambda M, D: D.Beta(t64(M, [0.7, 3.0]), t64(M, [1.5, 2.0])),
                     lambda M, D: D.Uniform(t64(M, [0.0, -1.0]), t64(M, [1.0, 2.0]))),
    "Exponential-Normal": (lambda M, D: D.Exponential(t64(M, [0.5, 2.0])),
                           lambda M, D: D.Normal(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Bernoulli-Poisson": (lambda M, D: D.Bernoulli(t64(M, [0.3, 0.9])),
                          lambda M, D: D.Poisson(t64(M, [1.5, 3.0]))),
    "LowRankMultivariateNormal-LowRankMultivariateNormal": (
        lambda M, D: D.LowRankMultivariateNormal(t64(M, [0.0, 1.0, -1.0]),
                                                 t64(M, [[1.0], [0.5], [-0.3]]),
                                                 t64(M, [0.5, 1.0, 2.0])),
        lambda M, D: D.LowRankMultivariateNormal(t64(M, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
                                                 t64(M, [[0.2, 0.1], [0.0, 1.0], [1.0, -1.0]]),
                                                 t64(M, [1.0, 0.7, 1.5]))),
    "MultivariateNormal-LowRankMultivariateNormal": (
        lambda M, D: D.MultivariateNormal(t64(M, [0.0, 1.0, -1.0]),
                                          scale_tril=t64(M, [[1.0, 0, 0], [0.5, 2.0, 0],
                                                             [-1.0, 0.3, 0.7]])),
        lambda M, D: D.LowRankMultivariateNormal(t64(M, [1.0, 0.0, 0.0]),
                                                 t64(M, [[0.2, 0.1], [0.0, 1.0], [1.0, -1.0]]),
                                                 t64(M, [1.0, 0.7, 1.5]))),
    "LowRankMultivariateNormal-MultivariateNormal": (
        lambda M, D: D.LowRankMultivariateNormal(t64(M, [0.0, 1.0, -1.0]),
                                                 t64(M, [[1.0], [0.5], [-0.3]]),
                                                 t64(M, [0.5, 1.0, 2.0])),
        lambda M, D: D.MultivariateNormal(t64(M, [1.0, 0.0, 0.0]),
                                          covariance_matrix=t64(M, [[2.0, 0.3, 0.0],
                                                                    [0.3, 1.0, 0.2],
                                                                    [0.0, 0.2, 1.5]]))),
    "Pareto-Pareto": (lambda M, D: D.Pareto(t64(M, [1.0, 2.0]), t64(M, [3.0, 5.0])),
                      lambda M, D: D.Pareto(t64(M, [0.5, 1.0]), t64(M, [2.0, 4.0]))),
    "Pareto-Exponential": (lambda M, D: D.Pareto(t64(M, [1.0, 2.0]), t64(M, [3.0, 5.0])),
                           lambda M, D: D.Exponential(t64(M, [1.0, 0.3]))),
    "Pareto-Gamma": (lambda M, D: D.Pareto(t64(M, [1.0, 2.0]), t64(M, [3.0, 5.0])),
                     lambda M, D: D.Gamma(t64(M, [2.0, 1.5]), t64(M, [0.5, 1.0]))),
    "Pareto-Normal": (lambda M, D: D.Pareto(t64(M, [1.0, 2.0]), t64(M, [3.0, 5.0])),
                      lambda M, D: D.Normal(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Uniform-Pareto": (lambda M, D: D.Uniform(t64(M, [1.1, 2.2]), t64(M, [1.9, 3.5])),
                       lambda M, D: D.Pareto(t64(M, [1.0, 2.0]), t64(M, [3.0, 5.0]))),
    "Exponential-Gumbel": (lambda M, D: D.Exponential(t64(M, [0.5, 2.0])),
                           lambda M, D: D.Gumbel(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Gamma-Gumbel": (lambda M, D: D.Gamma(t64(M, [0.7, 3.0]), t64(M, [1.0, 2.0])),
                     lambda M, D: D.Gumbel(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Gumbel-Normal": (lambda M, D: D.Gumbel(t64(M, [0.0, 1.0]), t64(M, [1.0, 0.5])),
                      lambda M, D: D.Normal(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Normal-Gumbel": (lambda M, D: D.Normal(t64(M, [0.0, 1.0]), t64(M, [1.0, 0.5])),
                      lambda M, D: D.Gumbel(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Uniform-Gumbel": (lambda M, D: D.Uniform(t64(M, [0.0, 0.2]), t64(M, [1.0, 0.5])),
                       lambda M, D: D.Gumbel(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "Gumbel-Exponential (infinite)": (
        lambda M, D: D.Gumbel(t64(M, [0.0]), t64(M, [1.0])),
        lambda M, D: D.Exponential(t64(M, [1.0]))),
    "Normal-Pareto (infinite)": (lambda M, D: D.Normal(t64(M, [0.0]), t64(M, [1.0])),
                                 lambda M, D: D.Pareto(t64(M, [1.0]), t64(M, [2.0]))),
    "ContinuousBernoulli-ContinuousBernoulli": (
        lambda M, D: D.ContinuousBernoulli(t64(M, [0.2, 0.7, 0.4999])),
        lambda M, D: D.ContinuousBernoulli(t64(M, [0.6, 0.1, 0.3]))),
    "Beta-ContinuousBernoulli": (lambda M, D: D.Beta(t64(M, [0.7, 3.0]), t64(M, [1.5, 2.0])),
                                 lambda M, D: D.ContinuousBernoulli(t64(M, [0.6, 0.1]))),
    "ContinuousBernoulli-Normal": (lambda M, D: D.ContinuousBernoulli(t64(M, [0.2, 0.7])),
                                   lambda M, D: D.Normal(t64(M, [0.5, -1.0]), t64(M, [2.0, 0.7]))),
    "ContinuousBernoulli-Exponential": (lambda M, D: D.ContinuousBernoulli(t64(M, [0.2, 0.7])),
                                        lambda M, D: D.Exponential(t64(M, [1.0, 0.3]))),
    "Uniform-ContinuousBernoulli": (
        lambda M, D: D.Uniform(t64(M, [0.1, 0.2]), t64(M, [0.9, 0.5])),
        lambda M, D: D.ContinuousBernoulli(t64(M, [0.6, 0.1]))),
    "Normal-Uniform (infinite)": (lambda M, D: D.Normal(t64(M, [0.0]), t64(M, [1.0])),
                                  lambda M, D: D.Uniform(t64(M, [-1.0]), t64(M, [1.0]))),
    "Uniform-Uniform (infinite)": (lambda M, D: D.Uniform(t64(M, [0.0]), t64(M, [2.0])),
                                   lambda M, D: D.Uniform(t64(M, [0.5]), t64(M, [3.0]))),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(PAIRS))
def test_kl_matches_pytorch(name):
    torch = pytest.importorskip("torch")

    make_p, make_q = PAIRS[name]
    expected = torch.distributions.kl_divergence(make_p(torch, torch.distributions),
                                                 make_q(torch, torch.distributions))
    got = kl_divergence(make_p(teachgrad, dist), make_q(teachgrad, dist))
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-9, atol=1e-12)


# Pairs whose KL is finite and whose log-ratio has a finite variance under p.
MONTE_CARLO = [n for n in PAIRS if "infinite" not in n and n not in ("Cauchy-Cauchy",)]
N = 40000


@pytest.mark.parametrize("name", MONTE_CARLO)
def test_kl_agrees_with_a_monte_carlo_estimate(name):
    teachgrad.manual_seed(0)
    make_p, make_q = PAIRS[name]
    p, q = make_p(teachgrad, dist), make_q(teachgrad, dist)
    p = p.expand(teachgrad.broadcast_shapes(p.batch_shape, q.batch_shape))
    x = p.sample((N,))
    log_ratio = (p.log_prob(x) - q.log_prob(x)).numpy()
    kl = kl_divergence(p, q).numpy()
    se = log_ratio.std(0) / math.sqrt(N)
    assert np.all(np.abs(log_ratio.mean(0) - kl) <= 5 * se + 1e-9)
    assert np.all(kl >= 0)


def test_cauchy_kl_against_a_quadrature():
    # The log-ratio of two Cauchys has heavy-ish tails: integrate p·log(p/q) numerically.
    p = dist.Cauchy(teachgrad.tensor(0.3, dtype=teachgrad.float64),
                    teachgrad.tensor(1.2, dtype=teachgrad.float64))
    q = dist.Cauchy(teachgrad.tensor(-1.0, dtype=teachgrad.float64),
                    teachgrad.tensor(0.5, dtype=teachgrad.float64))
    # x = tan(θ) maps (-π/2, π/2) onto the line; midpoint rule in θ.
    theta = (np.arange(200000) + 0.5) / 200000 * math.pi - math.pi / 2
    x = teachgrad.tensor(0.3 + 1.2 * np.tan(theta))
    integrand = (p.log_prob(x) - q.log_prob(x)).numpy()  # p(x)dx = dθ/π here
    assert integrand.mean() == pytest.approx(kl_divergence(p, q).item(), rel=1e-6)


@pytest.mark.parametrize("name", [n for n in PAIRS if "-" in n and "infinite" not in n
                                  and n.split("-")[0] == n.split("-")[1]])
def test_kl_of_a_distribution_with_itself_is_zero(name):
    p = PAIRS[name][0](teachgrad, dist)
    np.testing.assert_allclose(kl_divergence(p, p).numpy(), 0.0, atol=1e-12)


def test_normal_kl_matches_the_textbook_formula():
    # KL(N(μ1, σ1²) ‖ N(μ2, σ2²)) = log(σ2/σ1) + (σ1² + (μ1-μ2)²)/(2σ2²) - 1/2
    m1, s1, m2, s2 = 0.3, 0.8, -1.0, 1.7
    p = dist.Normal(teachgrad.tensor(m1, dtype=teachgrad.float64),
                    teachgrad.tensor(s1, dtype=teachgrad.float64))
    q = dist.Normal(teachgrad.tensor(m2, dtype=teachgrad.float64),
                    teachgrad.tensor(s2, dtype=teachgrad.float64))
    expected = math.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5
    assert kl_divergence(p, q).item() == pytest.approx(expected, rel=1e-14)


def test_infinite_kl_where_q_does_not_cover_p():
    assert math.isinf(kl_divergence(dist.Normal(0.0, 1.0), dist.Uniform(-1.0, 1.0)).item())
    assert math.isinf(kl_divergence(dist.Uniform(0.0, 2.0), dist.Uniform(0.5, 3.0)).item())
    p = dist.Bernoulli(teachgrad.tensor([0.5]))
    assert math.isinf(kl_divergence(p, dist.Bernoulli(teachgrad.tensor([0.0]))).item())


def leaf(data):
    return teachgrad.tensor(np.asarray(data, dtype=np.float64), requires_grad=True)


@pytest.mark.parametrize("make, params", [
    (lambda a, b, c, d: kl_divergence(dist.Normal(a, b), dist.Normal(c, d)),
     [[0.0, 1.0], [1.0, 0.5], [0.5, -1.0], [2.0, 0.7]]),
    (lambda a, b: kl_divergence(dist.Bernoulli(logits=a), dist.Bernoulli(logits=b)),
     [[0.3, -1.0], [1.0, 0.5]]),
    (lambda a, b: kl_divergence(dist.Categorical(logits=a), dist.Categorical(logits=b)),
     [[0.3, -1.0, 0.2], [1.0, 0.5, -0.3]]),
    (lambda a, b, c, d: kl_divergence(dist.Gamma(a, b), dist.Gamma(c, d)),
     [[0.7, 3.0], [1.0, 2.0], [2.0, 1.5], [0.5, 1.0]]),
    (lambda a, b, c, d: kl_divergence(dist.Beta(a, b), dist.Beta(c, d)),
     [[0.7, 3.0], [1.5, 2.0], [2.0, 1.0], [2.0, 4.0]]),
    (lambda a, b: kl_divergence(dist.Dirichlet(a), dist.Dirichlet(b)),
     [[0.7, 3.0, 1.0], [2.0, 1.0, 0.5]]),
    (lambda a, b: kl_divergence(dist.Exponential(a), dist.Exponential(b)),
     [[0.5, 2.0], [1.0, 0.3]]),
    (lambda a, b: kl_divergence(dist.Poisson(a), dist.Poisson(b)), [[0.5, 2.0], [1.0, 0.3]]),
    (lambda a, b, c, d: kl_divergence(dist.Laplace(a, b), dist.Laplace(c, d)),
     [[0.0, 1.0], [1.0, 0.5], [0.5, -1.0], [2.0, 0.7]]),
    (lambda a, b, c, d: kl_divergence(dist.Uniform(a, b), dist.Uniform(c, d)),
     [[0.0, 0.2], [1.0, 0.5], [-1.0, 0.0], [2.0, 1.0]]),
    (lambda m1, f1, m2, f2: kl_divergence(
        dist.MultivariateNormal(m1, scale_tril=f1.tril()),
        dist.MultivariateNormal(m2, scale_tril=f2.tril())),
     [[0.0, 1.0], [[1.5, 0.0], [0.3, 0.8]], [1.0, 0.0], [[1.0, 0.0], [-0.4, 2.0]]]),
    (lambda a, b, c, d: kl_divergence(dist.Independent(dist.Normal(a, b), 1),
                                      dist.Independent(dist.Normal(c, d), 1)),
     [[0.0, 1.0], [1.0, 0.5], [0.5, -1.0], [2.0, 0.7]]),
])
def test_kl_gradients_match_finite_differences(make, params):
    assert gradcheck(make, tuple(leaf(p) for p in params))


def test_vae_kl_term_trains_toward_the_prior():
    # One step of gradient descent on KL(q ‖ N(0, 1)) moves q's parameters toward 0 and 1.
    mu = teachgrad.tensor([2.0, -1.0], requires_grad=True)
    log_sigma = teachgrad.tensor([1.0, -1.0], requires_grad=True)
    kl = kl_divergence(dist.Normal(mu, log_sigma.exp()), dist.Normal(0.0, 1.0)).sum()
    kl.backward()
    np.testing.assert_allclose(mu.grad.numpy(), [2.0, -1.0], rtol=1e-6)  # ∂/∂μ = μ
    sigma2 = np.exp(2 * np.array([1.0, -1.0]))
    np.testing.assert_allclose(log_sigma.grad.numpy(), sigma2 - 1, rtol=1e-5)  # σ² - 1


def test_register_kl_dispatches_to_the_most_specific_pair():
    class Fancy(dist.Normal):
        pass

    p, q = Fancy(0.0, 1.0), dist.Normal(1.0, 1.0)
    assert kl_divergence(p, q).item() == pytest.approx(0.5)  # inherited Normal-Normal

    @register_kl(Fancy, dist.Normal)
    def _kl_fancy(p, q):
        return teachgrad.tensor(42.0)

    try:
        assert kl_divergence(p, q).item() == 42.0
        assert kl_divergence(q, q).item() == 0.0
    finally:
        from teachgrad.distributions import kl as kl_module

        del kl_module._KL_REGISTRY[Fancy, dist.Normal]
        kl_module._KL_MEMOIZE.clear()
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        register_kl(int, dist.Normal)


def test_unregistered_pairs_raise_not_implemented():
    with pytest.raises(NotImplementedError,
                       match="No KL\\(p \\|\\| q\\) is implemented for p type Cauchy and q type "
                             "Normal"):
        kl_divergence(dist.Cauchy(0.0, 1.0), dist.Normal(0.0, 1.0))
    with pytest.raises(NotImplementedError, match="different exponential families"):
        kl_divergence(dist.Normal(0.0, 1.0), dist.Poisson(1.0))
