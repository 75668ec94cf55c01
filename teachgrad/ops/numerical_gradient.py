"""``torch.gradient``: estimate a function's derivative from its samples.

Given ``f`` sampled at evenly spaced points ``h`` apart, the derivative at an inner point
is the *central difference* ``(f[i+1] − f[i−1]) / 2h`` (exact for parabolas); at the two
ends only one neighbour exists, so a one-sided difference is used (``edge_order=1``), or a
one-sided formula through three points (``edge_order=2``). With coordinates instead of a
spacing, the same idea weighs the neighbours by their distances (as ``numpy.gradient``).

Composed of slices, products and ``cat``, so the result is differentiable with respect to
the samples (the spacing is a constant).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._tensor import Tensor, _make, _wrap_dim
from .shape import cat, narrow

__all__ = ["gradient"]


def _part(f: Tensor, dim: int, start: int, stop: int) -> Tensor:
    """``f[start:stop]`` along ``dim`` (negative ends count from the end)."""
    n = f._data.shape[dim]
    start, stop = start % n if start < 0 else start, stop + n if stop <= 0 else stop
    return narrow(f, dim, start, stop - start)


def _weights(values: np.ndarray, dim: int, ndim: int, dtype: np.dtype) -> Tensor:
    """Per-position weights along ``dim``, shaped to broadcast against the samples."""
    shape = [1] * ndim
    shape[dim] = -1
    return _make(np.asarray(values, dtype).reshape(shape))


def _uniform(f: Tensor, d: int, h: float, edge_order: int) -> Tensor:
    inner = (_part(f, d, 2, 0) - _part(f, d, 0, -2)) / (2 * h)
    if edge_order == 1:
        first = (_part(f, d, 1, 2) - _part(f, d, 0, 1)) / h
        last = (_part(f, d, -1, 0) - _part(f, d, -2, -1)) / h
    else:
        first = (-1.5 * _part(f, d, 0, 1) + 2 * _part(f, d, 1, 2) - 0.5 * _part(f, d, 2, 3)) / h
        last = (0.5 * _part(f, d, -3, -2) - 2 * _part(f, d, -2, -1) + 1.5 * _part(f, d, -1, 0)) / h
    return cat([first, inner, last], d)


def _coordinates(f: Tensor, d: int, x: np.ndarray, edge_order: int, dtype) -> Tensor:
    dx = np.diff(x.astype(np.float64))
    left, right = dx[:-1], dx[1:]
    nd = f._data.ndim

    def w(v):
        return _weights(v, d, nd, dtype)

    a = -right / (left * (left + right))
    b = (right - left) / (left * right)
    c = left / (right * (left + right))
    inner = w(a) * _part(f, d, 0, -2) + w(b) * _part(f, d, 1, -1) + w(c) * _part(f, d, 2, 0)
    if edge_order == 1:
        first = (_part(f, d, 1, 2) - _part(f, d, 0, 1)) / float(dx[0])
        last = (_part(f, d, -1, 0) - _part(f, d, -2, -1)) / float(dx[-1])
    else:
        h1, h2 = dx[0], dx[1]
        a0 = -(2 * h1 + h2) / (h1 * (h1 + h2))
        b0, c0 = (h1 + h2) / (h1 * h2), -h1 / (h2 * (h1 + h2))
        first = (float(a0) * _part(f, d, 0, 1) + float(b0) * _part(f, d, 1, 2)
                 + float(c0) * _part(f, d, 2, 3))
        h1, h2 = dx[-2], dx[-1]
        a1, b1 = h2 / (h1 * (h1 + h2)), -(h2 + h1) / (h1 * h2)
        c1 = (2 * h2 + h1) / (h2 * (h1 + h2))
        last = (float(a1) * _part(f, d, -3, -2) + float(b1) * _part(f, d, -2, -1)
                + float(c1) * _part(f, d, -1, 0))
    return cat([first, inner, last], d)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """The derivative of the sampled function ``input`` along each dimension in ``dim``
    (all by default), one tensor per dimension.

    ``spacing``: one number for every dimension, a number per dimension, or a 1-D tensor
    of coordinates per dimension.

    >>> import teachgrad as torch
    >>> torch.gradient(torch.tensor([1., 4., 9., 16.]))
    (tensor([3., 4., 6., 7.]),)
    """
    nd = input._data.ndim
    if nd == 0 and dim is not None:
        first = dim if isinstance(dim, int) else next(iter(dim), 0)
        raise IndexError(f"Dimension specified as {first} but tensor has no dimensions")
    dims = (list(range(nd)) if dim is None
            else [_wrap_dim(k, nd) for k in ((dim,) if isinstance(dim, int) else dim)])
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if isinstance(spacing, (numbers.Number, Tensor)) and not (
            isinstance(spacing, Tensor) and spacing._data.ndim):
        spacing = [float(spacing)] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        if dim is None:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar, or a list of "
                f"length equal to 'self.dim() = {nd}', since dim argument was not given, but "
                f"got a list of length {len(spacing)}"
            )
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{len(spacing)} and a dim argument of length {len(dims)}."
        )
    for d in dims:
        if input._data.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    if input._data.dtype == np.bool_:  # (PyTorch's differences subtract two bool tensors)
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead.\nHint: a gradient needs numbers; "
            "convert the tensor first: input.float()."
        )
    f = input if input._data.dtype.kind == "f" else input.float()
    out = []
    for d, step in zip(dims, spacing):
        if isinstance(step, Tensor) and step._data.ndim:
            # Float coordinates take part in type promotion (float64 ones give float64).
            dtype = (np.promote_types(f._data.dtype, step._data.dtype)
                     if step._data.dtype.kind == "f" else f._data.dtype)
            out.append(_coordinates(f, d, step._data, edge_order, dtype))
        else:
            out.append(_uniform(f, d, float(step), edge_order))
    return tuple(out)
