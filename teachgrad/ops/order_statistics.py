"""Order statistics: what sorting a dimension tells. quantile, nanquantile, nanmedian, mode.

``median`` (in :mod:`.reduce`) is the middle of the sorted values; these are its relatives:

* ``quantile(q)``   the value a fraction ``q`` of the way along the sorted values, between
                    two neighbours when it falls between them (``interpolation`` says how)
* ``nanquantile``   the same among the values that are not NaN
* ``nanmedian``     the lower median of the values that are not NaN
* ``mode``          the most frequent value (the smallest, when several are as frequent)

Their gradients go to the elements they picked. ``quantile`` is *composed*, as PyTorch
composes it: ``sort``, then ``gather`` of the neighbours below and above, then ``lerp``
between them; so its gradient (and its second derivative) comes from those ops, and the
graph shows PyTorch's nodes (``SqueezeBackward4`` over ``LerpBackward1`` over
``GatherBackward0`` ...).
"""

from __future__ import annotations

import numpy as np

from .._arguments import checks_types
from .._tensor import Tensor, _make, _wrap_dim, tensor_method
from .index import gather, sort
from .linalg import SqueezeBackward4
from .reduce import (
    _ExtremeAll,
    _return_type,
    _SelectAlongDim,
    empty_median,
    refuse_bool_median,
)
from .saved_values import given, keep_given, negative
from .shape import TransposeBackward0, UnsqueezeBackward0, movedim, reshape
from .special import lerp

return_types_nanmedian = _return_type("nanmedian")
return_types_mode = _return_type("mode")


# ----------------------------------------------------------------------------------------
# nanmedian
# ----------------------------------------------------------------------------------------
def _nan_lower_median_index(a: np.ndarray, dim: int) -> np.ndarray:
    """Index of the lower median of the non-NaN values along ``dim`` (NaN sorts last)."""
    order = np.argsort(a, axis=dim, kind="stable")
    counts = np.sum(~np.isnan(a), axis=dim) if a.dtype.kind == "f" else np.full(
        np.delete(a.shape, dim), a.shape[dim])
    rank = np.maximum(counts - 1, 0) // 2  # all NaN: the first NaN
    return np.take_along_axis(order, np.expand_dims(rank, dim), dim).squeeze(dim)


def _nanmedian_all(a: np.ndarray):
    if a.size == 0:
        return np.nan
    flat = a.reshape(-1)
    return flat[_nan_lower_median_index(flat, 0)]


class NanmedianBackward0(_ExtremeAll):
    saved_names = ("self", "result")  # grad_fn._saved_... (as median's)
    formula = "∂(nanmedian a)/∂aᵢ = 1/k for the k elements equal to the result, else 0"
    numpy_fn = staticmethod(_nanmedian_all)


class NanmedianBackward1(_SelectAlongDim):
    saved_names = ("indices",)  # grad_fn._saved_... (as median's)
    saved_attributes = {"dim": given("dim", lambda node: node.dim), "keepdim": "keepdim",
                        "self_sym_sizes": "shape"}
    formula = "∂(nanmedianₖ a)/∂aᵢ = 1 at the index returned, else 0"
    pick = staticmethod(_nan_lower_median_index)


@tensor_method()
@checks_types("nanmedian", "()", "(int dim, bool keepdim = False)", function=(
    "(Tensor input)",
    "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)"))
def nanmedian(input: Tensor, dim: int | None = None,
              keepdim: bool = False) -> Tensor | return_types_nanmedian:
    """The lower median of the values that are not NaN; with ``dim``, ``(values, indices)``.

    Only a slice of NaN gives NaN (``median`` gives NaN as soon as there is one).

    >>> import teachgrad as torch
    >>> torch.tensor([1., float('nan'), 3., 2.]).nanmedian()
    tensor(2.)
    """
    if dim is None:
        empty = empty_median(input)
        if empty is not None:
            return empty
        refuse_bool_median(input, dim)
        return NanmedianBackward0.apply(input)
    d = _wrap_dim(dim, input._data.ndim)
    if input._data.ndim and input._data.shape[d] == 0:  # (PyTorch's words name median)
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    refuse_bool_median(input, dim)  # (after the checks of dim: PyTorch's order)
    values, indices = NanmedianBackward1.apply(input, dim=d, keepdim=keepdim)
    if negative(dim):
        keep_given(values, NanmedianBackward1, dim=dim)  # (shown as given: see saved_values)
    return return_types_nanmedian(values, indices)


# ----------------------------------------------------------------------------------------
# mode
# ----------------------------------------------------------------------------------------
def _mode_index(a: np.ndarray, dim: int) -> np.ndarray:
    """Index of the most frequent value along ``dim`` (the smallest of the most frequent;
    its last occurrence, as PyTorch returns it)."""
    rows = np.moveaxis(a, dim, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    picked = np.empty(flat.shape[0], np.int64)
    for r, row in enumerate(flat):
        values, counts = np.unique(row, return_counts=True)  # sorted, NaNs counted together
        value = values[np.argmax(counts)]  # the first of the most frequent: the smallest
        same = np.isnan(row) if value != value else row == value
        picked[r] = np.flatnonzero(same)[-1]
    return picked.reshape(rows.shape[:-1])


class ModeBackward0(_SelectAlongDim):
    saved_names = ("indices",)  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim", lambda node: node.dim), "keepdim": "keepdim",
                        "self_sym_sizes": "shape"}
    formula = "∂(modeₖ a)/∂aᵢ = 1 at the index returned, else 0"
    pick = staticmethod(_mode_index)


@tensor_method()
@checks_types("mode", "(int dim = -1, bool keepdim = False)", function=(
    "(Tensor input, int dim = -1, bool keepdim = False, *, tuple of Tensors out = None)",))
def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> return_types_mode:
    """The most frequent value along ``dim`` (the smallest if several tie) and an index of it.

    >>> import teachgrad as torch
    >>> torch.tensor([3, 1, 3, 1, 2]).mode()
    teachgrad.return_types.mode(
    values=tensor(1),
    indices=tensor(3))
    """
    d = _wrap_dim(dim, input._data.ndim)
    if input._data.ndim and input._data.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    values, indices = ModeBackward0.apply(input, dim=d, keepdim=keepdim)
    if negative(dim):
        keep_given(values, ModeBackward0, dim=dim)  # (shown as given: see saved_values)
    return return_types_mode(values, indices)


# ----------------------------------------------------------------------------------------
# quantile / nanquantile (composed)
# ----------------------------------------------------------------------------------------
class UnsqueezeBackward1(UnsqueezeBackward0):
    """PyTorch's name for an in-place ``unsqueeze_``; quantile uses one."""


class TransposeBackward1(TransposeBackward0):
    """PyTorch's name for an in-place ``transpose_``; quantile uses one."""


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantiles(input: Tensor, q, name: str, interpolation: str) -> tuple[np.ndarray, bool]:
    """``q`` as a 1-D array of the input's dtype, and whether it was a single number.

    The checks run in PyTorch's order: a number q's range, the interpolation's name, then
    (quantile_checks) a non-empty input, q's dimensions, the input's dtype, q's dtype and
    q's values. nanquantile's are worded as quantile's, as in PyTorch (shared checks)."""
    name = "quantile"
    if not isinstance(q, Tensor):
        if isinstance(q, bool) or not isinstance(q, (int, float, np.floating)):
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got (Tensor, "
                f"{type(q).__name__}), but expected (Tensor input, Tensor q, ...) or "
                "(Tensor input, float q, ...)"
            )
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    if input._data.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if isinstance(q, Tensor) and q._data.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if not isinstance(q, Tensor):
        return np.array([q], dtype=input._data.dtype), True
    if q._data.dtype != input._data.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    values = q._data.reshape(-1)
    if not ((values >= 0) & (values <= 1)).all():
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    return values, q._data.ndim == 0


def _quantile(input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool,
              name: str) -> Tensor:
    qs, scalar_q = _quantiles(input, q, name, interpolation)
    ndim = input._data.ndim
    if dim is None:  # over all elements: one row
        rows = reshape(input, (-1,))
    else:
        d = _wrap_dim(dim, ndim)
        rows = movedim(input, d, -1) if ndim else reshape(input, (1,))
    ordered = sort(rows, -1).values  # NaN sorts last
    n = ordered._data.shape[-1]
    # As PyTorch: view the sorted rows as the output's shape (keepdim's 1s included) + (n,),
    # so keepdim costs no node of its own after the interpolation.
    if dim is None:
        reduced = (1,) * ndim if keepdim else ()
    elif ndim == 0:
        reduced = ()
    else:
        shape = list(input._data.shape)
        reduced = tuple(shape[:d] + [1] + shape[d + 1:] if keepdim else shape[:d] + shape[d + 1:])
    ordered = reshape(ordered, reduced + (n,))
    nan_count = np.isnan(ordered._data).sum(axis=-1, keepdims=True)
    # The rank of the last value counted: among the non-NaN ones for nanquantile (an all-NaN
    # row reads its first NaN); for quantile a row with a NaN reads its last value, a NaN.
    last = np.maximum(n - nan_count - 1, 0) if ignore_nan else np.full(nan_count.shape, n - 1)
    ranks = qs * last.astype(qs.dtype)  # (..., Q)
    if not ignore_nan:
        ranks = np.where(nan_count > 0, n - 1, ranks).astype(qs.dtype)
    below = np.floor(ranks)
    if interpolation == "higher":
        below = np.ceil(ranks)
    elif interpolation == "nearest":
        below = np.round(ranks)  # half to even, as PyTorch rounds
    result = gather(ordered, -1, _make(below.astype(np.int64)))
    if interpolation in ("linear", "midpoint"):
        above = gather(ordered, -1, _make(np.ceil(ranks).astype(np.int64)))
        weights = np.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        result = lerp(result, above, _make(weights.astype(qs.dtype)))
    # The q axis (last) goes first, as in PyTorch; a single q has none.
    if scalar_q:
        result = SqueezeBackward4.apply(result, dim=result._data.ndim - 1)
    else:
        result = UnsqueezeBackward1.apply(result, dim=0)
        result = TransposeBackward1.apply(result, dim0=0, dim1=result._data.ndim - 1)
        result = SqueezeBackward4.apply(result, dim=result._data.ndim - 1)
    # PyTorch runs these steps in place (lerp_, squeeze_ ...): each counts in the result's
    # version, which the error for changing it in place before backward shows
    result._vc[0] += (interpolation in ("linear", "midpoint")) + (1 if scalar_q else 3)
    return result


@tensor_method()
def quantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The ``q``-th quantiles (``q`` a number or a 1-D tensor in [0, 1]) over ``dim``.

    The value at rank ``q·(n−1)`` of the sorted values; between two of them,
    ``interpolation`` chooses: ``'linear'`` (default), ``'lower'``, ``'higher'``,
    ``'midpoint'`` or ``'nearest'``. Several ``q`` give a first dimension of their own.
    A slice holding a NaN gives NaN (see :func:`nanquantile`).

    >>> import teachgrad as torch
    >>> torch.tensor([1., 2., 3., 4.]).quantile(torch.tensor([0.25, 0.5]))
    tensor([1.7500, 2.5000])
    """
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@tensor_method()
def nanquantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """:func:`quantile` of the values that are not NaN (NaN only for a slice of NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "quantile")


__all__ = ["nanmedian", "mode", "quantile", "nanquantile"]
