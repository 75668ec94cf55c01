"""teachgrad.datasets: shapes, dtypes, determinism, and the geometry each set promises."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import datasets


@pytest.mark.parametrize("make,n", [(datasets.make_moons, 101), (datasets.make_spirals, 301)])
def test_classification_sets_shapes_and_dtypes(make, n):
    X, y = make(n)
    assert isinstance(X, torch.Tensor) and isinstance(y, torch.Tensor)
    assert X.shape == (n, 2) and y.shape == (n,)
    assert X.dtype == torch.float32 and y.dtype == torch.int64
    assert not X.requires_grad


def test_regression_shapes_and_dtypes():
    X, y = datasets.make_regression(40, weights=(1.0, 2.0, 3.0))
    assert X.shape == (40, 3) and y.shape == (40, 1)
    assert X.dtype == y.dtype == torch.float32


@pytest.mark.parametrize("make", [datasets.make_moons, datasets.make_spirals,
                                  datasets.make_regression])
def test_the_seed_decides_the_numbers(make):
    a, b, c = make(seed=1), make(seed=1), make(seed=2)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[0], c[0])


def test_moons_without_noise_lie_on_two_half_circles():
    X, y = datasets.make_moons(200, noise=0.0)
    X, y = X.numpy(), y.numpy()
    upper, lower = X[y == 0], X[y == 1]
    assert len(upper) == len(lower) == 100
    np.testing.assert_allclose(np.hypot(upper[:, 0], upper[:, 1]), 1.0, rtol=1e-6)
    assert (upper[:, 1] >= -1e-6).all()
    centre = np.array([1.0, 0.5])  # the lower moon: a half circle around (1, 0.5)
    np.testing.assert_allclose(np.linalg.norm(lower - centre, axis=1), 1.0, rtol=1e-6)
    assert (lower[:, 1] <= 0.5 + 1e-6).all()


def test_noise_moves_points_by_about_its_size():
    clean, _ = datasets.make_moons(2000, noise=0.0, seed=5)
    noisy, _ = datasets.make_moons(2000, noise=0.1, seed=5)
    assert abs(float((noisy - clean).numpy().std()) - 0.1) < 0.01


def test_spirals_classes_and_radii():
    X, y = datasets.make_spirals(300, n_classes=3, noise=0.0)
    X, y = X.numpy(), y.numpy()
    assert np.bincount(y).tolist() == [100, 100, 100]
    radius = np.hypot(X[:, 0], X[:, 1])
    assert radius.min() == 0.0 and radius.max() == pytest.approx(1.0)


def test_regression_recovers_its_coefficients():
    X, y = datasets.make_regression(500, weights=(2.0, -1.0), bias=3.0, noise=0.05)
    A = np.hstack([X.numpy(), np.ones((500, 1))]).astype(np.float64)
    coef, *_ = np.linalg.lstsq(A, y.numpy()[:, 0].astype(np.float64), rcond=None)
    np.testing.assert_allclose(coef, [2.0, -1.0, 3.0], atol=0.02)


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="n_samples"):
        datasets.make_moons(1)
    with pytest.raises(ValueError, match="n_samples"):
        datasets.make_spirals(2, n_classes=3)
