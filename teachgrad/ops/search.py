"""Searching, counting and sets: searchsorted, bucketize, isin, unique, unique_consecutive,
bincount, histc.

These answer questions *about* values (where would it go? is it there? how many?), so
their results are indices, counts and masks, which have no gradient. Two of them return
values of the input: ``unique`` (and ``unique_consecutive``) and ``bincount`` with float
weights. PyTorch records those with a node whose backward refuses ("the derivative for
'_unique2' is not implemented"), and so does teachgrad: a gradient cannot silently vanish.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._dtypes import result_type
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _make, _wrap_dim, python_type_name, tensor_method
from .op import NoDerivative


# ----------------------------------------------------------------------------------------
# Nodes without a derivative
# ----------------------------------------------------------------------------------------
class Unique2Backward0(NoDerivative):
    message = "the derivative for '_unique2' is not implemented."

    @staticmethod
    def forward(ctx, a, return_inverse, return_counts):
        values, inverse, counts = np.unique(a.reshape(-1), return_inverse=True,
                                            return_counts=True, equal_nan=False)
        return _unique_outputs(values, inverse.reshape(a.shape), counts, return_inverse,
                               return_counts)


class UniqueDimBackward0(NoDerivative):
    message = "the derivative for 'unique_dim' is not implemented."

    @staticmethod
    def forward(ctx, a, dim, return_inverse, return_counts):
        values, inverse, counts = np.unique(a, axis=dim, return_inverse=True,
                                            return_counts=True, equal_nan=False)
        return _unique_outputs(values, inverse.reshape(-1), counts, return_inverse,
                               return_counts)


class UniqueConsecutiveBackward0(NoDerivative):
    message = "the derivative for 'unique_consecutive' is not implemented."

    @staticmethod
    def forward(ctx, a, dim, return_inverse, return_counts):
        if dim is None:
            flat = a.reshape(-1)
            starts = _run_starts(flat[1:] != flat[:-1], flat.size)
            values = flat[starts]
            inverse_shape = a.shape
        else:
            moved = np.moveaxis(a, dim, 0)
            rows = moved.reshape(moved.shape[0], -1)
            starts = _run_starts((rows[1:] != rows[:-1]).any(axis=1), rows.shape[0])
            values = np.moveaxis(moved[starts], 0, dim)
            inverse_shape = (a.shape[dim],)
        n = a.size if dim is None else a.shape[dim]
        counts = np.diff(np.append(starts, n))
        inverse = np.repeat(np.arange(starts.size), counts).reshape(inverse_shape)
        return _unique_outputs(values, inverse, counts, return_inverse, return_counts)


def _run_starts(changes: np.ndarray, n: int) -> np.ndarray:
    """Where each run of equal neighbours starts, from the "differs from the previous" mask."""
    if n == 0:
        return np.zeros(0, np.int64)
    return np.concatenate([[0], np.flatnonzero(changes) + 1]).astype(np.int64)


def _unique_outputs(values, inverse, counts, return_inverse: bool, return_counts: bool):
    out = [values]
    if return_inverse:
        out.append(inverse.astype(np.int64))
    if return_counts:
        out.append(counts.astype(np.int64))
    return tuple(out) if len(out) > 1 else values


class _BincountNode(NoDerivative):
    """``bincount`` with float weights that require grad: PyTorch's node is named
    ``NotImplemented`` (a placeholder for "no derivative"), so this class takes that name
    below (a Python class statement cannot, without hiding the built-in)."""

    @staticmethod
    def forward(ctx, weights, index, length):
        return np.bincount(index, weights=weights, minlength=length).astype(weights.dtype)

    @classmethod
    def backward(cls, ctx, *grads):
        raise RuntimeError("derivative for aten::bincount is not implemented")


BincountBackward = type("NotImplemented", (_BincountNode,), {"__slots__": ()})


# ----------------------------------------------------------------------------------------
# unique, unique_consecutive
# ----------------------------------------------------------------------------------------
@tensor_method()
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Tensor | tuple[Tensor, ...]:
    """The distinct values of ``input``, sorted (or, with ``dim``, its distinct slices).

    ``return_inverse`` adds where each element went (``values[inverse]`` is the input);
    ``return_counts`` how often each value occurs. NaNs are all distinct, as in PyTorch.

    >>> import teachgrad as torch
    >>> torch.unique(torch.tensor([3, 1, 2, 3, 1, 1]), return_counts=True)
    (tensor([1, 2, 3]), tensor([3, 1, 2]))
    """
    a = input._data
    if dim is None:
        source = input if a.ndim else input.reshape(1)
        out = Unique2Backward0.apply(source, return_inverse=return_inverse,
                                     return_counts=return_counts)
        if return_inverse and not a.ndim:  # a 0-d input has a 0-d inverse
            out = (out[0], out[1].reshape(()), *out[2:])
        return out
    d = _unique_dim(dim, a.shape)
    return UniqueDimBackward0.apply(input, dim=d, return_inverse=return_inverse,
                                    return_counts=return_counts)


def _unique_dim(dim: int, shape: tuple) -> int:
    """``dim`` wrapped; a 0-d tensor has no dimension to take slices along, and an empty
    one's slices must not be empty (PyTorch cannot tell such slices apart)."""
    if not shape:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, len(shape))
    if 0 in shape[:d] + shape[d + 1:]:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    return d


@tensor_method()
def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Tensor | tuple[Tensor, ...]:
    """Collapse each run of equal neighbours to one element (the input need not be sorted).

    >>> import teachgrad as torch
    >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]))
    tensor([1, 2, 3, 1])
    """
    a = input._data
    if dim is not None:
        dim = _unique_dim(dim, a.shape)
    source = input if a.ndim or dim is not None else input.reshape(1)
    out = UniqueConsecutiveBackward0.apply(source, dim=dim, return_inverse=return_inverse,
                                           return_counts=return_counts)
    if return_inverse and not a.ndim:
        out = (out[0], out[1].reshape(()), *out[2:])
    return out


# ----------------------------------------------------------------------------------------
# searchsorted, bucketize
# ----------------------------------------------------------------------------------------
def _as_values(x, like: Tensor) -> tuple[np.ndarray, bool]:
    """The values to look up as an array, and whether they were a single number."""
    if isinstance(x, Tensor):
        return x._data, False
    if isinstance(x, (numbers.Number, np.generic)):
        return np.asarray(x), True
    raise TypeError(
        f"searchsorted(): argument 'input' must be Tensor or Number, not {python_type_name(x)}"
        + real_pytorch_hint(x)
    )


def _side(side: str | None, right: bool) -> str:
    if side is None:
        return "right" if right else "left"
    if side not in ("left", "right"):
        raise RuntimeError(
            f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
        )
    if right and side == "left":
        raise RuntimeError(
            "torch.searchsorted(): side and right can't be set to opposites, got side of left "
            "while right was True"
        )
    return side


def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Tensor | None = None
                 ) -> Tensor:
    """Where ``input``'s values would go in the sorted last dimension of ``sorted_sequence``.

    ``side='left'`` (default) gives the first such index, ``'right'`` (or ``right=True``)
    the last. A 1-D sequence serves every value; an N-D one has one row per value row.
    ``sorter`` holds the indices that sort an unsorted sequence.

    >>> import teachgrad as torch
    >>> torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([3, 6]))
    tensor([1, 3])
    """
    where = _side(side, right)
    seq = sorted_sequence._data
    values, scalar = _as_values(input, sorted_sequence)
    if seq.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
            "dimension"
        )
    if scalar and seq.ndim != 1:
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
            f"dimension is 1, but we got boundaries tensor dim({seq.ndim}) and input value's "
            f"dim(0) numel(1)"
        )
    if seq.ndim > 1 and (values.ndim != seq.ndim or values.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(seq.shape)} and input value tensor {list(values.shape)}"
        )
    if sorter is not None:
        if sorter._data.shape != seq.shape:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {list(seq.shape)}and got sorter tensor "
                f"{list(sorter._data.shape)}"
            )
        seq = np.take_along_axis(seq, sorter._data, axis=-1)
    common = np.result_type(seq.dtype, values.dtype)  # compare in a type that holds both
    if common == np.bool_:  # (a bool beside an int is searched as 0 or 1)
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'\n"
                                  "Hint: search int or float tensors (x.long()).")
    seq, values = seq.astype(common, copy=False), values.astype(common, copy=False)
    if seq.ndim == 1:
        found = np.searchsorted(seq, values, side=where)
    else:
        rows, queries = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
        found = np.stack([np.searchsorted(r, q, side=where) for r, q in zip(rows, queries)])
        found = found.reshape(values.shape)
    return _make(np.asarray(found, dtype=np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False
              ) -> Tensor:
    """The bucket of each value of ``input``: its index among the 1-D sorted ``boundaries``.

    ``boundaries[i-1] < x <= boundaries[i]`` gives ``i`` (with ``right=True``:
    ``boundaries[i-1] <= x < boundaries[i]``).

    >>> import teachgrad as torch
    >>> torch.bucketize(torch.tensor([0, 3, 6, 9]), torch.tensor([1, 3, 5, 7]))
    tensor([0, 1, 3, 4])
    """
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ----------------------------------------------------------------------------------------
# isin
# ----------------------------------------------------------------------------------------
def _isin_operand(x) -> np.ndarray:
    data = x._data if isinstance(x, Tensor) else np.asarray(x)
    if data.dtype == np.bool_:
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    return data


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False
         ) -> Tensor:
    """True where an element of ``elements`` is among ``test_elements`` (either may be a
    number); ``invert=True`` asks "not among". NaN is never found, as NaN ≠ NaN.

    >>> import teachgrad as torch
    >>> torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 9]))
    tensor([False,  True, False])
    """
    a, b = _isin_operand(elements), _isin_operand(test_elements)
    common = result_type(elements, test_elements).numpy
    found = np.isin(a.astype(common), b.astype(common).reshape(-1), invert=invert)
    return _make(np.asarray(found))


# ----------------------------------------------------------------------------------------
# bincount, histc
# ----------------------------------------------------------------------------------------
@tensor_method()
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, 2 ... occurs in a 1-D non-negative integer tensor.

    With ``weights``, each occurrence adds its weight instead of 1 (a float result).

    >>> import teachgrad as torch
    >>> torch.bincount(torch.tensor([1, 1, 3]))
    tensor([0, 2, 0, 1])
    """
    a = input._data
    if a.dtype.kind not in "iu":
        name = input.dtype._legacy.removesuffix("Tensor")
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{name}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _make(np.bincount(a, minlength=minlength).astype(np.int64))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if w.dtype.kind != "f":  # integer weights count in float64, as in PyTorch
        return _make(np.bincount(a, weights=w, minlength=minlength).astype(np.float64))
    return BincountBackward.apply(weights, index=a, length=minlength)


@tensor_method()
def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """A histogram: ``bins`` equal-width bins between ``min`` and ``max`` (the data's own
    range when both are 0); values outside are not counted; the last bin includes ``max``.

    >>> import teachgrad as torch
    >>> torch.histc(torch.tensor([1., 2., 1., 4.]), bins=4, min=0, max=4)
    tensor([0., 2., 1., 1.])
    """
    a = input._data
    if a.dtype.kind != "f":  # (PyTorch's kernel stops at its first step for bools)
        name = input.dtype._legacy.removesuffix("Tensor")
        kernel = "linspace_cpu" if a.dtype.kind == "b" else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    low, high = float(min), float(max)
    if low == high and a.size:  # the data's own range
        low, high = float(np.min(a)), float(np.max(a))
    if low == high:  # (one value): a bin of width 2/bins around it, as PyTorch does
        low, high = low - 1, high + 1
    if not (np.isfinite(low) and np.isfinite(high)):
        def show(v):
            return "-nan" if np.isnan(v) else f"{v:g}"

        raise RuntimeError(f"torch.histc: range of [{show(low)}, {show(high)}] is not finite")
    if high < low:
        raise RuntimeError("torch.histc: max must be larger than min")
    from .._creation import _even_steps  # (linspace's values, to PyTorch's last bit)

    edges = _even_steps(low, high, bins + 1, a.dtype)
    left, right = edges[0], edges[-1]
    flat = a.reshape(-1)
    inside = flat[(flat >= left) & (flat <= right)]
    # PyTorch's histc finds a bin by arithmetic in the input's dtype, not by comparing
    # with the edges, so a value on an edge can land on either side of it, as there.
    position = ((inside - left) * a.dtype.type(bins) / (right - left)).astype(np.int64)
    position = np.minimum(position, bins - 1)  # max itself belongs to the last bin
    return _make(np.bincount(position, minlength=bins).astype(a.dtype))


__all__ = ["unique", "unique_consecutive", "searchsorted", "bucketize", "isin", "bincount",
           "histc"]
