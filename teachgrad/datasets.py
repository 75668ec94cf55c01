"""Small data sets for lessons, generated with NumPy: no downloads, same numbers every run.

Each function returns ``(X, y)`` as teachgrad tensors: ``X`` float32 with one row per
sample; ``y`` int64 class labels (classification) or float32 values (regression). The
``seed`` fixes the random numbers, so a lesson's results are reproducible.

>>> from teachgrad import datasets
>>> X, y = datasets.make_moons(200, noise=0.1, seed=0)
>>> X.shape, y.shape, X.dtype, y.dtype
(teachgrad.Size([200, 2]), teachgrad.Size([200]), teachgrad.float32, teachgrad.int64)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._tensor import Tensor, _make


def _tensors(X: np.ndarray, y: np.ndarray, y_dtype: type) -> tuple[Tensor, Tensor]:
    return _make(np.ascontiguousarray(X, dtype=np.float32)), _make(
        np.ascontiguousarray(y, dtype=y_dtype)
    )


def _check_count(n_samples: int, minimum: int = 1) -> None:
    if not isinstance(n_samples, (int, np.integer)) or n_samples < minimum:
        raise ValueError(f"n_samples must be an integer >= {minimum}, got {n_samples!r}")


def make_moons(n_samples: int = 200, noise: float = 0.1, seed: int | None = 0,
               shuffle: bool = True) -> tuple[Tensor, Tensor]:
    """Two interleaving half circles in 2-D: classes 0 and 1, not linearly separable.

    The classic first data set for a small neural network: a straight line cannot split
    the moons, one hidden layer can. ``noise`` is the standard deviation of the Gaussian
    jitter added to every point.
    """
    _check_count(n_samples, 2)
    rng = np.random.default_rng(seed)
    n_upper = n_samples // 2
    n_lower = n_samples - n_upper
    angle_upper = np.linspace(0, np.pi, n_upper)
    angle_lower = np.linspace(0, np.pi, n_lower)
    upper = np.stack([np.cos(angle_upper), np.sin(angle_upper)], axis=1)
    lower = np.stack([1 - np.cos(angle_lower), 0.5 - np.sin(angle_lower)], axis=1)
    X = np.concatenate([upper, lower])
    y = np.concatenate([np.zeros(n_upper), np.ones(n_lower)])
    if shuffle:
        order = rng.permutation(n_samples)
        X, y = X[order], y[order]
    X = X + rng.normal(0.0, noise, X.shape)
    return _tensors(X, y, np.int64)


def make_spirals(n_samples: int = 300, n_classes: int = 3, noise: float = 0.2,
                 seed: int | None = 0, shuffle: bool = True) -> tuple[Tensor, Tensor]:
    """``n_classes`` spiral arms winding out of the origin in 2-D, one class per arm.

    Harder than the moons: it needs a wider or deeper network. ``n_samples`` are split as
    evenly as possible between the classes; ``noise`` jitters each point's angle.
    """
    _check_count(n_samples, n_classes)
    if n_classes < 1:
        raise ValueError(f"n_classes must be at least 1, got {n_classes}")
    rng = np.random.default_rng(seed)
    points, labels = [], []
    for k, count in enumerate(np.diff(np.linspace(0, n_samples, n_classes + 1).astype(int))):
        radius = np.linspace(0.0, 1.0, count)
        # Each arm turns through 4 radians, starting where the previous one started + 4.
        angle = np.linspace(4.0 * k, 4.0 * (k + 1), count) + rng.normal(0.0, noise, count)
        points.append(np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1))
        labels.append(np.full(count, k))
    X, y = np.concatenate(points), np.concatenate(labels)
    if shuffle:
        order = rng.permutation(n_samples)
        X, y = X[order], y[order]
    return _tensors(X, y, np.int64)


def make_regression(n_samples: int = 100, weights: Sequence[float] = (2.0,),
                    bias: float = 3.0, noise: float = 0.1,
                    seed: int | None = 0) -> tuple[Tensor, Tensor]:
    """Noisy linear data ``y = X @ weights + bias + noise``, to fit with ``nn.Linear``.

    ``X`` has one column per weight, drawn uniformly from [-1, 1); ``y`` has shape
    ``(n_samples, 1)`` (the shape a ``Linear(len(weights), 1)`` outputs). A fit should
    recover ``weights`` and ``bias`` up to the noise.

    >>> from teachgrad import datasets
    >>> X, y = datasets.make_regression(50, weights=(2.0,), bias=3.0, noise=0.0)
    >>> bool(((y - (2 * X + 3)).abs() < 1e-5).all())
    True
    """
    _check_count(n_samples)
    rng = np.random.default_rng(seed)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    X = rng.uniform(-1.0, 1.0, (n_samples, w.size))
    y = X @ w + bias + rng.normal(0.0, noise, n_samples)
    return _tensors(X, y.reshape(n_samples, 1), np.float32)


__all__ = ["make_moons", "make_spirals", "make_regression"]
