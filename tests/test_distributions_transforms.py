"""teachgrad.distributions.transforms and constraint_registry (biject_to / transform_to).

* PyTorch parity (``torch`` marker): forward, inverse, log_abs_det_jacobian, shapes,
  domains and reprs of every transform;
* without PyTorch: ``inv(t(x)) == x``, and ``log_abs_det_jacobian`` against the log of the
  determinant of the Jacobian that autograd computes (``autograd.functional.jacobian``);
* ``biject_to(c)`` / ``transform_to(c)`` land inside ``c``.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
import teachgrad.distributions as dist
from teachgrad.distributions import biject_to, constraints, transform_to
from teachgrad.distributions import transforms as T


def t64(M, data):
    return M.tensor(np.asarray(data, dtype=np.float64))


# name: (transform builder (M, transforms module), an input x in its domain)
TRANSFORMS = {
    "Exp": (lambda M, TT: TT.ExpTransform(), [-1.0, 0.5, 2.0]),
    "Sigmoid": (lambda M, TT: TT.SigmoidTransform(), [-3.0, 0.1, 4.0]),
    "Tanh": (lambda M, TT: TT.TanhTransform(), [-2.0, 0.1, 1.5]),
    "Softplus": (lambda M, TT: TT.SoftplusTransform(), [-2.0, 0.1, 3.0]),
    "Affine": (lambda M, TT: TT.AffineTransform(t64(M, [1.0, -1.0, 0.0]),
                                                t64(M, [2.0, -0.5, 3.0])), [-1.0, 0.5, 2.0]),
    "Affine_scalar": (lambda M, TT: TT.AffineTransform(1.0, -2.0), [-1.0, 0.5, 2.0]),
    "Affine_event": (lambda M, TT: TT.AffineTransform(0.5, t64(M, [2.0, 3.0, 0.5]), event_dim=1),
                     [-1.0, 0.5, 2.0]),
    "Power": (lambda M, TT: TT.PowerTransform(t64(M, [2.0, 0.5, -1.0])), [0.5, 2.0, 3.0]),
    "Abs_inverse_of_identity": (lambda M, TT: TT.ComposeTransform([TT.ExpTransform(),
                                                                  TT.AbsTransform()]),
                                [-1.0, 0.5, 2.0]),
    "Compose": (lambda M, TT: TT.ComposeTransform([TT.AffineTransform(0.5, 2.0),
                                                   TT.SigmoidTransform(),
                                                   TT.AffineTransform(-1.0, 2.0)]),
                [-1.0, 0.5, 2.0]),
    "Inverse": (lambda M, TT: TT.ExpTransform().inv, [0.5, 1.0, 3.0]),
    "StickBreaking": (lambda M, TT: TT.StickBreakingTransform(), [0.3, -1.0, 2.0]),
    "Softmax": (lambda M, TT: TT.SoftmaxTransform(), [0.3, -1.0, 2.0]),
    "LowerCholesky": (lambda M, TT: TT.LowerCholeskyTransform(),
                      [[0.3, 5.0], [-1.0, 2.0]]),
    "PositiveDefinite": (lambda M, TT: TT.PositiveDefiniteTransform(),
                         [[0.3, 5.0], [-1.0, 2.0]]),
    "CorrCholesky": (lambda M, TT: TT.CorrCholeskyTransform(), [0.3, -1.0, 2.0]),
    "Independent": (lambda M, TT: TT.IndependentTransform(TT.ExpTransform(), 1),
                    [[0.3, -1.0], [2.0, 0.0]]),
    "Reshape": (lambda M, TT: TT.ReshapeTransform((2, 2), (4,)), [[0.3, -1.0], [2.0, 0.0]]),
    "Cat": (lambda M, TT: TT.CatTransform([TT.ExpTransform(), TT.SigmoidTransform()], 0, [2, 1]),
            [0.3, -1.0, 2.0]),
    "Stack": (lambda M, TT: TT.StackTransform([TT.ExpTransform(), TT.TanhTransform()], 1),
              [[0.3, -1.0], [2.0, 0.5]]),
    "CumulativeDistribution": (
        lambda M, TT: TT.CumulativeDistributionTransform(
            M.distributions.Normal(t64(M, [0.0]), t64(M, [2.0]))), [-1.0, 0.5, 2.0]),
}


def _evaluate(M, name):
    make, x = TRANSFORMS[name]
    t = make(M, M.distributions.transforms)
    x = t64(M, x)
    y = t(x)
    out = {"y": y.numpy(), "x_back": t.inv(y).numpy(),
           "repr": repr(t), "domain": repr(t.domain).replace("torch.", "teachgrad."),
           "codomain": repr(t.codomain).replace("torch.", "teachgrad."),
           "bijective": t.bijective,
           "forward_shape": tuple(t.forward_shape(tuple(x.shape))),
           "inverse_shape": tuple(t.inverse_shape(tuple(y.shape)))}
    try:
        out["log_abs_det_jacobian"] = t.log_abs_det_jacobian(x, y).numpy()
    except NotImplementedError:
        out["log_abs_det_jacobian"] = NotImplementedError
    try:
        sign = t.sign
        out["sign"] = sign if isinstance(sign, int) else sign.numpy()
    except NotImplementedError:
        out["sign"] = NotImplementedError
    return out


@pytest.mark.torch
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transforms_match_pytorch(name):
    torch = pytest.importorskip("torch")
    expected = _evaluate(torch, name)
    got = _evaluate(teachgrad, name)
    assert got.keys() == expected.keys()
    for key, want in expected.items():
        have = got[key]
        if isinstance(want, np.ndarray):
            np.testing.assert_allclose(have, want, rtol=1e-12, atol=1e-14, err_msg=key)
        else:
            assert have == want, key


BIJECTIONS = ["Exp", "Sigmoid", "Tanh", "Softplus", "Affine", "Affine_scalar", "Power",
              "Compose", "Inverse", "StickBreaking", "CorrCholesky",
              "Independent", "Reshape", "Cat", "Stack", "CumulativeDistribution"]


@pytest.mark.parametrize("name", BIJECTIONS)
def test_inverse_undoes_the_transform(name):
    make, x = TRANSFORMS[name]
    t = make(teachgrad, dist.transforms)
    x = teachgrad.tensor(x, dtype=teachgrad.float64)
    y = t(x)
    assert t.bijective
    assert bool(t.codomain.check(y).all())
    np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), rtol=1e-10, atol=1e-12)


ELEMENTWISE = ["Exp", "Sigmoid", "Tanh", "Softplus", "Affine", "Affine_scalar", "Power",
               "Compose", "Inverse", "CumulativeDistribution"]


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_log_abs_det_jacobian_is_the_log_derivative(name):
    make, x = TRANSFORMS[name]
    t = make(teachgrad, dist.transforms)
    x = teachgrad.tensor(x, dtype=teachgrad.float64, requires_grad=True)
    y = t(x)
    (dy_dx,) = teachgrad.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(t.log_abs_det_jacobian(x, y).detach().numpy(),
                               np.log(np.abs(dy_dx.numpy())), rtol=1e-10, atol=1e-12)


def _log_abs_det(matrix: np.ndarray) -> float:
    return float(np.linalg.slogdet(matrix)[1])


def test_vector_transforms_log_abs_det_jacobian_against_autograd():
    jacobian = teachgrad.autograd.functional.jacobian
    x = teachgrad.tensor([0.3, -1.0, 2.0], dtype=teachgrad.float64)
    # StickBreaking: R^3 -> simplex in R^4; the first 3 coordinates determine the point.
    t = T.StickBreakingTransform()
    J = jacobian(lambda v: t(v)[:-1], x).numpy()
    assert t.log_abs_det_jacobian(x, t(x)).item() == pytest.approx(_log_abs_det(J), rel=1e-10)
    # CorrCholesky: R^3 -> the strictly-lower entries of a 3x3 unit-row Cholesky factor.
    t = T.CorrCholeskyTransform()
    J = jacobian(lambda v: dist.utils.tril_matrix_to_vec(t(v), diag=-1), x).numpy()
    assert t.log_abs_det_jacobian(x, t(x)).item() == pytest.approx(_log_abs_det(J), rel=1e-10)
    # Affine with event_dim=1: the log-determinant of diag(scale).
    scale = teachgrad.tensor([2.0, 3.0, 0.5], dtype=teachgrad.float64)
    t = T.AffineTransform(0.5, scale, event_dim=1)
    assert t.log_abs_det_jacobian(x, t(x)).item() == pytest.approx(np.log(3.0), rel=1e-14)


def test_corr_cholesky_gives_correlation_matrices():
    x = teachgrad.tensor([[0.3, -1.0, 2.0], [5.0, -3.0, 0.0]], dtype=teachgrad.float64)
    L = T.CorrCholeskyTransform()(x)
    corr = (L @ L.mT).numpy()
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, rtol=1e-12)
    assert bool(constraints.corr_cholesky.check(L).all())


@pytest.mark.parametrize("constraint", [
    constraints.real, constraints.positive, constraints.nonnegative,
    constraints.greater_than(2.0), constraints.greater_than_eq(-1.0), constraints.less_than(3.0),
    constraints.unit_interval, constraints.interval(-2.0, 5.0),
    constraints.half_open_interval(0.0, 2.0), constraints.simplex, constraints.real_vector,
    constraints.independent(constraints.positive, 1), constraints.corr_cholesky,
])
def test_biject_to_and_transform_to_land_inside_the_constraint(constraint):
    x = teachgrad.tensor([[0.3, -1.5, 2.0], [4.0, 0.0, -3.0]], dtype=teachgrad.float64)
    for registry in (biject_to, transform_to):
        t = registry(constraint)
        y = t(x)
        assert bool(constraint.check(y).all()), (registry, constraint)
        if registry is biject_to:
            np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), rtol=1e-9, atol=1e-9)


def test_transform_to_matrix_constraints():
    x = teachgrad.tensor([[0.3, 5.0], [-1.0, 2.0]], dtype=teachgrad.float64)
    assert bool(constraints.lower_cholesky.check(transform_to(constraints.lower_cholesky)(x)))
    pd = transform_to(constraints.positive_definite)(x)
    assert bool(constraints.positive_definite.check(pd))
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
        biject_to(constraints.lower_cholesky)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint"):
        biject_to.register(int, lambda c: None)


def test_constrained_optimisation_through_transform_to():
    # Fit a positive scale by optimising an unconstrained number: exp keeps it positive.
    unconstrained = teachgrad.zeros(1, requires_grad=True)
    opt = teachgrad.optim.SGD([unconstrained], lr=0.1)
    data = teachgrad.tensor([2.0, -2.0, 1.0, -1.0])
    for _ in range(300):
        scale = transform_to(constraints.positive)(unconstrained)
        loss = -dist.Normal(0.0, scale).log_prob(data).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    # The maximum-likelihood scale is the root mean square of the data.
    assert scale.item() == pytest.approx(float(np.sqrt(np.mean([4.0, 4.0, 1.0, 1.0]))), rel=1e-3)


def test_transform_cache_returns_the_same_tensor():
    t = T.SigmoidTransform().with_cache(1)
    x = teachgrad.tensor([30.0])  # sigmoid rounds to 1: the inverse alone could not recover x
    y = t(x)
    assert t.inv(y) is x
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)
