"""Describing data: ``cov``, ``corrcoef`` (composed, so differentiable), ``histogram`` and
``histogramdd`` (counts: not differentiable).

``cov`` reads a matrix as *variables × observations*: row i holds every observation of
variable i, and entry (i, j) of the result is how variables i and j vary together.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import return_types
from .._tensor import Tensor, _make, tensor_method
from .._warn import warn_user
from .linalg import _cpp_name
from .op import Op

__all__ = ["cov", "corrcoef", "histogram", "histogramdd"]


def _type_name(t: Tensor) -> str:
    return t.dtype._legacy.removesuffix("Tensor")


def _check_weights(w: Tensor, name: str, count: int, integral: bool) -> None:
    if w._data.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{w._data.ndim} dimensions"
        )
    if integral and w._data.dtype.kind not in "iu":
        raise RuntimeError(
            f"cov(): expected {name} to have integral dtype but got {name} with "
            f"{_type_name(w)} dtype"
        )
    if not integral and w._data.dtype.kind != "f":
        raise RuntimeError(
            f"cov(): expected {name} to have floating point dtype but got {name} with "
            f"{_type_name(w)} dtype"
        )
    if w._data.size != count:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {w._data.size} != {count}"
        )
    if count and w._data.min() < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")


@tensor_method()
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in ``input``'s rows (observations in columns).

    ``correction=1`` divides by N − 1 (Bessel's correction), 0 by N. ``fweights`` (integer
    repeat counts) and ``aweights`` (importance) weigh the observations.

    >>> import teachgrad as torch
    >>> torch.cov(torch.tensor([[0., 1., 2.], [2., 1., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    if input._data.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input._data.ndim} dimensions"
        )
    if input._data.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input._data.ndim < 2 else input
    observations = x._data.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", observations, integral=True)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", observations, integral=False)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = _make(np.asarray(observations, np.int64))
    else:
        w_sum = w.sum()
        if w_sum.item() == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    mean = (x if w is None else x * w).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    if norm_factor.item() <= 0:
        warn_user(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.", UserWarning,
        )
        # Clamped to +0 as PyTorch (times 0 would give -0: a -inf covariance).
        norm_factor = norm_factor.clamp(min=0)
    centered = x - mean.unsqueeze(1)
    products = centered.mm((centered if w is None else centered * w).t())
    return products.true_divide(norm_factor).squeeze()


@tensor_method()
def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in ``input``'s rows (in [-1, 1]).

    >>> import teachgrad as torch
    >>> torch.corrcoef(torch.tensor([[0., 1., 2.], [4., 2., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    if input._data.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input._data.ndim} dimensions"
        )
    c = cov(input)
    if c._data.ndim == 0:
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)


# ----------------------------------------------------------------------------------------
# Histograms
# ----------------------------------------------------------------------------------------
def _edges(values: np.ndarray, bins, low_high, dim: int, dtype: np.dtype,
           name: str) -> np.ndarray:
    """The bin edges along one dimension: given as a tensor, or ``bins`` equal widths."""
    if isinstance(bins, Tensor):
        if bins._data.dtype != dtype:  # edges are compared with the values as they are
            from .._out import _cpp_name

            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {_cpp_name(dtype)} and bins for dimension {dim} "
                f"with dtype {_cpp_name(bins._data.dtype)}\nHint: make the edges in the "
                "input's dtype, e.g. bins.to(input.dtype).")
        if bins._data.ndim != 1:  # (NumPy would fail to broadcast, or to index a 0-d array)
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension, but got "
                f"{bins._data.ndim} dimensions in the bins tensor for dimension {dim}")
        if not bins._data.size:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have at least 1 element, but got 0 "
                f"elements in the bins tensor for dimension {dim}")
        return bins._data
    bins = int(bins)
    if bins <= 0:
        raise RuntimeError(f"{name}(): bins must be > 0, but got {bins} for dimension {dim}")
    if low_high is None:
        # No values: PyTorch's default range [0, 1].
        low, high = ((float(values.min()), float(values.max())) if values.size else (0.0, 1.0))
    else:
        low, high = float(low_high[0]), float(low_high[1])
        if low > high:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {low:g} max "
                f"{high:g} for dimension {dim}"
            )
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(
            f"torch.histogramdd: dimension {dim}'s range [{low:g}, {high:g}] is not finite"
        )
    if low == high:  # one value: a bin of width 1 around it, as PyTorch (and NumPy) do
        low, high = low - 0.5, high + 0.5
    from .._creation import _even_steps  # (linspace's values, to PyTorch's last bit)

    return _even_steps(low, high, bins + 1, np.dtype(dtype))


def _bin_of(values: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each value's bin (the last bin includes its right edge) and whether it is inside."""
    inside = (values >= edges[0]) & (values <= edges[-1])
    position = np.searchsorted(edges, values, side="right") - 1
    return np.clip(position, 0, len(edges) - 2), inside


def _check_float(input: Tensor, name: str) -> None:
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{name}\" not implemented for '{_type_name(input)}'")


def _count(data: np.ndarray, edges: list, weight: Tensor | None, density: bool,
           dtype: np.dtype) -> np.ndarray:
    positions, inside = zip(*(_bin_of(data[:, k], e) for k, e in enumerate(edges)))
    keep = np.logical_and.reduce(inside) if inside else np.ones(len(data), bool)
    shape = tuple(len(e) - 1 for e in edges)
    flat = np.ravel_multi_index(tuple(p[keep] for p in positions), shape)
    weights = None if weight is None else weight._data.reshape(-1)[keep]
    hist = np.bincount(flat, weights, minlength=int(np.prod(shape))).reshape(shape)
    if density:
        total = hist.sum()
        volume = np.ones(shape)
        for k, e in enumerate(edges):
            volume = volume * np.diff(e).reshape([-1 if j == k else 1 for j in range(len(shape))])
        hist = hist / (total * volume)
    return hist.astype(dtype)


def _check_weight(input: Tensor, points: tuple, weight: Tensor | None) -> None:
    """``weight`` needs ``input``'s dtype and one entry per point (``points``: the
    ``(N..., D)`` shape)."""
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
            f"should have the same dtype, but got input({_cpp_name(input)}), and "
            f"weight({_cpp_name(weight)})")
    if weight is not None and tuple(weight.shape) != points[:-1]:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"{list(points)} and weight with shape {list(weight.shape)}")


class HistogramNotImplemented(Op):
    """The ``grad_fn`` of a histogram of a tensor that requires grad: PyTorch records one,
    with no derivative (counts do not move when the values move a little)."""

    formula = "a histogram has no derivative in PyTorch (its counts are piecewise constant)"

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, a, count, aten_name):
        ctx.aten_name = aten_name
        # PyTorch makes its NotImplemented nodes without a sequence number (2⁶⁴ − 1, as an
        # AccumulateGrad's): once ready, the engine runs them before any other node
        ctx._seq_nr = float("inf")
        return count(a)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{ctx.aten_name} is not implemented")


# PyTorch prints the node as ``<NotImplemented>`` (see elementary.HeavisideNotImplemented).
HistogramNotImplemented.__name__ = HistogramNotImplemented.__qualname__ = "NotImplemented"


def histogram(input: Tensor, bins: int | Tensor = 100, *,
              range: tuple[float, float] | None = None,  # noqa: A002
              weight: Tensor | None = None, density: bool = False) -> tuple[Tensor, Tensor]:
    """Count the values of ``input`` in bins: ``(hist, bin_edges)``.

    ``bins`` is a number of equal-width bins over ``range`` (the data's own range by
    default), or a tensor of edges. The last bin includes its right edge; values outside
    are not counted. ``weight`` adds weights instead of ones; ``density`` scales the
    counts so that they integrate to 1.

    >>> import teachgrad as torch
    >>> torch.histogram(torch.tensor([1., 2., 1.]), bins=4, range=(0., 3.)).hist
    tensor([0., 2., 1., 0.])
    """
    # (PyTorch's kernel for edges given as a tensor is histogram_cpu, else histogramdd's)
    _check_float(input, "histogram_cpu" if isinstance(bins, Tensor) else "histogramdd")
    # (PyTorch flattens both: the weight needs as many entries as the input)
    _check_weight(input, (input._data.size, 1), None if weight is None else weight.reshape(-1))

    def count(a: np.ndarray) -> tuple:
        data = a.reshape(-1, 1)
        edges = _edges(data[:, 0], bins, range, 0, data.dtype, "torch.histogram")
        return _count(data, [edges], weight, density, data.dtype), edges

    hist, edges = HistogramNotImplemented.apply(input, count=count, aten_name="histogram")
    return return_types.structseq("histogram", ("hist", "bin_edges"))(hist, edges)


def histogramdd(input: Tensor, bins: int | Sequence[int] | Sequence[Tensor] = 10, *,
                range: Sequence[float] | None = None,  # noqa: A002
                weight: Tensor | None = None,
                density: bool = False) -> tuple[Tensor, tuple[Tensor, ...]]:
    """A D-dimensional histogram of the points in ``input``'s rows (shape ``(N, D)``):
    ``(hist, bin_edges)``, with one tensor of edges per dimension.

    ``bins``: one count for every dimension, a count per dimension, or edge tensors;
    ``range``: ``[min₀, max₀, min₁, max₁, ...]``.
    """
    if input.ndim < 2:  # (checked before the dtype, as PyTorch does)
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    _check_float(input, "histogramdd")
    _check_weight(input, input._data.shape, weight)
    dims = input._data.shape[-1]
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
    ranges = [None] * dims if range is None else [range[2 * k: 2 * k + 2] for k in np.arange(dims)]

    def find_edges(a: np.ndarray) -> tuple:
        data = a.reshape(-1, dims)
        return tuple(_edges(data[:, k], b, r, k, data.dtype, "torch.histogramdd")
                     for k, (b, r) in enumerate(zip(per_dim, ranges)))

    def count(a: np.ndarray) -> np.ndarray:
        return _count(a.reshape(-1, dims), edge_arrays, weight, density, a.dtype)

    # As PyTorch: edge tensors given are used as they are (the edges record no node);
    # counts of bins are two ops, one finding the edges, one counting (each its own node)
    if all(isinstance(b, Tensor) for b in per_dim):
        edge_arrays = list(find_edges(input._data))
        edges = [_make(e) for e in edge_arrays]
        aten_name = "_histogramdd_from_bin_tensors"
    else:
        edges = HistogramNotImplemented.apply(input, count=find_edges,
                                              aten_name="_histogramdd_bin_edges")
        edges = list(edges) if isinstance(edges, (tuple, list)) else [edges]
        edge_arrays = [e._data for e in edges]
        aten_name = "_histogramdd_from_bin_cts"
    hist = HistogramNotImplemented.apply(input, count=count, aten_name=aten_name)
    return return_types.structseq("histogramdd", ("hist", "bin_edges"))(hist, tuple(edges))


Tensor.histogram = histogram
