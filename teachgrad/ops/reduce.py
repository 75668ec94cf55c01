"""Reductions: sum, mean, prod, max/min, var/std, norm, logsumexp, cumsum/cumprod/logcumsumexp,
all/any.

A reduction's backward "un-reduces": the gradient of each output element is spread back
over the input elements it summarised. How it is spread is the op's local derivative:

* sum, mean      every element gets it (divided by n for a mean)
* prod           each element gets it times the product of the *other* elements
* max, amax ...  only the element(s) that won; ties share it equally (PyTorch's rule)
* var, std       in proportion to each element's distance from the mean
* norm           in proportion to each element's share of the norm
* logsumexp      weighted by softmax: exp(aᵢ − logsumexp(a))
* cumsum         each element gets the sum of the gradients of all outputs it entered
* logcumsumexp   the same, each weighted by a running softmax e^(aᵢ − outₖ)

Masks (which element won, where the input is zero) are computed from the raw values, so
they are constants when the backward pass is itself recorded (``create_graph=True``).
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
import warnings

import numpy as np

from .._arguments import NOT_GIVEN, checks_types
from .._dtypes import get_default_dtype
from .._missing_arguments import missing_message
from .._tensor import Tensor, _make, _wrap_dim, numpy_names, tensor_method
from .._warn import warn_user
from ..return_types import structseq
from . import numpy_protocol
from .layout import row_major
from .number_factor import over_number, times_number
from .op import Op
from .pointwise import _value, sgn_of
from .quiet_mean import mean_of
from .saved_values import given, keep_given, negative
from .select_grad import masked_fill_zero


def normalize_dims(dim, ndim: int) -> tuple[int, ...] | None:
    """``dim`` as a sorted tuple of non-negative axes (``None`` means all dimensions).

    An empty tuple also means "all dimensions" (as in PyTorch: ``x.sum(())``). A 0-d tensor
    accepts dim 0 or -1 and has nothing to reduce, so its dims are ``()``.
    """
    if dim is None:
        return None
    one = isinstance(dim, (int, np.integer)) or isinstance(dim, Tensor) and not dim._data.ndim
    dims = (dim,) if one else tuple(dim)  # (np.int64 and a 0-d integer tensor are ints too)
    if not dims:
        return tuple(range(ndim))
    wrapped = [_wrap_dim(d, ndim) for d in dims]  # (refuses a bool, a float ...)
    seen = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return tuple(sorted(seen)) if ndim else ()


def unreduce(grad, shape: tuple, dims: tuple | None, keepdim: bool):
    """Broadcast ``grad`` (a reduction's output gradient) back to the input ``shape``."""
    if dims and not keepdim:
        grad = np.expand_dims(grad, dims)
    return np.broadcast_to(grad, shape)


def _sum(a: np.ndarray, dims, keepdim: bool, dtype) -> np.ndarray:
    """``np.sum``, except that float16 adds up in float32, as PyTorch's kernels do.

    (In float16, 60000 + 60000 is already inf, and 2048 + 1 is 2048.)
    """
    # (np.add.reduce is what np.sum calls: called here, NumPy's "invalid value" warning
    # for inf + -inf comes from this module, which teachgrad's filter quiets, as PyTorch is)
    if dtype is None and a.dtype == np.float16:
        out = np.add.reduce(a, axis=dims, keepdims=keepdim, dtype=np.float32).astype(np.float16)
    else:
        out = np.add.reduce(a, axis=dims, keepdims=keepdim, dtype=dtype)
    return row_major(out)


def _mean_dtype(a: np.ndarray):
    """The dtype ``np.mean`` accumulates in: the input's, but float32 for float16 (the
    result is still float16: NumPy's own default for half, and PyTorch's)."""
    return None if a.dtype == np.float16 else a.dtype


def _numel(node: Op) -> int:
    """``grad_fn._saved_self_sym_numel``: how many elements the input had."""
    return int(np.prod(node.shape))


class SumBackward0(Op):
    """Sum of all elements."""

    formula = "∂(Σa)/∂aᵢ = 1"

    saved_attributes = {"self_sym_sizes": "shape"}  # grad_fn._saved_...
    @staticmethod
    def forward(ctx, a, dtype=None):
        ctx.shape = a.shape
        return _sum(a, None, False, dtype)

    @staticmethod
    def backward(ctx, grad):
        return np.broadcast_to(grad, ctx.shape)


class SumBackward1(Op):
    """Sum over some dimensions."""

    formula = "∂(Σₖa)/∂aᵢ = 1"

    saved_attributes = {"dim": given("dim", lambda node: node.dims), "keepdim": "keepdim",
                        "self_sym_sizes": "shape"}
    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype=None):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return _sum(a, dims, keepdim, dtype)

    @staticmethod
    def backward(ctx, grad):
        return unreduce(grad, ctx.shape, ctx.dims, ctx.keepdim)


class MeanBackward0(Op):
    """Mean of all elements."""
    inference_out_name = "sum"  # (see Op: PyTorch's composite writes through sum_out)

    formula = "∂(mean a)/∂aᵢ = 1/n"

    saved_attributes = {"self_sym_numel": _numel, "self_sym_sizes": "shape"}
    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return mean_of(a, dtype=_mean_dtype(a))

    @staticmethod
    def backward(ctx, grad):
        n = builtins.max(int(np.prod(ctx.shape)), 1)
        if type(grad) is not Tensor:  # a plain backward: divide the one number, then spread
            return np.broadcast_to(grad / n, ctx.shape)
        # PyTorch's order, spread then divide: DivBackward1 under create_graph
        return over_number(np.broadcast_to(grad, ctx.shape), n)


class MeanBackward1(Op):
    """Mean over some dimensions."""
    inference_out_name = "sum"  # (see Op: PyTorch's composite writes through sum_out)

    formula = "∂(meanₖ a)/∂aᵢ = 1/n"

    saved_attributes = {"dim": given("dim", lambda node: node.dims), "keepdim": "keepdim",
                        "self_sym_numel": _numel,
                        "self_sym_sizes": "shape"}
    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return row_major(mean_of(a, axis=dims, keepdims=keepdim, dtype=_mean_dtype(a)))

    @staticmethod
    def backward(ctx, grad):
        n = 1
        for d in ctx.dims:
            n *= ctx.shape[d]
        n = builtins.max(n, 1)
        if type(grad) is not Tensor:  # a plain backward: divide the reduced gradient, then spread
            return unreduce(grad / n, ctx.shape, ctx.dims, ctx.keepdim)
        # PyTorch's order, spread then divide: DivBackward1 under create_graph
        return over_number(unreduce(grad, ctx.shape, ctx.dims, ctx.keepdim), n)


def _sum_dtype(input: Tensor, dtype):
    """The dtype sum/prod/cumsum accumulate in: ``dtype`` if given, int64 for integers/bools."""
    if dtype is not None:
        from .._dtypes import to_dtype

        return to_dtype(dtype).numpy
    if input._data.dtype.kind in "biu":
        return np.dtype(np.int64)  # PyTorch sums integers and bools as int64
    return None


@tensor_method()
@checks_types("sum", "(*, torch.dtype dtype = None)",
              "(tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None)",
              function=(
    "(Tensor input, *, torch.dtype dtype = None)",
    "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None, "
    "Tensor out = None)"))
def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    """Sum of all elements, or over ``dim`` (an int or a tuple), keeping it if ``keepdim``.

    >>> import teachgrad as torch
    >>> torch.tensor([[1., 2.], [3., 4.]]).sum(0)
    tensor([4., 6.])
    """
    dims = normalize_dims(dim, input._data.ndim)
    d = _sum_dtype(input, dtype)
    if dims is None:
        if keepdim:
            dims = tuple(range(input._data.ndim))
        else:
            return SumBackward0.apply(input, dtype=d)
    out = SumBackward1.apply(input, dims=dims, keepdim=keepdim, dtype=d)
    # (a negative dim is shown as given, see saved_values; an int dim without a call)
    if dim is not None and (dim < 0 if type(dim) is int else negative(dim)):
        keep_given(out, SumBackward1, dim=_given_dims(dim))
    return out


@tensor_method()
@checks_types("mean", "(*, torch.dtype dtype = None)",
              "(tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None)",
              function=(
    "(Tensor input, *, torch.dtype dtype = None, Tensor out = None)",
    "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None, "
    "Tensor out = None)"))
def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean of all elements, or over ``dim``.

    >>> import teachgrad as torch
    >>> torch.tensor([1., 2., 3., 4.]).mean()
    tensor(2.5000)
    """
    if dtype is not None:
        input = input.to(dtype)
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {_scalar_type_name(input)}"
            "\nHint: convert first, e.g. x.float().mean()."
        )
    dims = normalize_dims(dim, input._data.ndim)
    if dims is None:
        if not keepdim:
            return MeanBackward0.apply(input)
        dims = tuple(range(input._data.ndim))
    out = MeanBackward1.apply(input, dims=dims, keepdim=keepdim)
    # (a negative dim is shown as given, see saved_values; an int dim without a call)
    if dim is not None and (dim < 0 if type(dim) is int else negative(dim)):
        keep_given(out, MeanBackward1, dim=_given_dims(dim))
    return out


@tensor_method()
def sum_to_size(input: Tensor, *size) -> Tensor:
    """Sum ``input`` down to ``size`` (the inverse of broadcasting it up)."""
    if not size:  # (x.sum_to_size(): PyTorch's words, not an empty shape)
        raise TypeError(missing_message("sum_to_size", ["size"]))
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    lead = input._data.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and input._data.shape[lead + i] != 1
    )
    out = input
    if dims:
        out = sum(out, dims, keepdim=True)
    if lead:
        out = out.reshape(shape)
    return out


# ----------------------------------------------------------------------------------------
# Shared helpers
# ----------------------------------------------------------------------------------------
def _expand_reduced(x, dims: tuple | None, keepdim: bool):
    """Give a reduction result its reduced dimensions back (as size 1), ready to broadcast."""
    if dims and not keepdim:
        return np.expand_dims(x, dims)
    return x


def _count(shape: tuple, dims: tuple | None) -> int:
    """How many input elements each output element summarises."""
    if dims is None:
        return math.prod(shape)
    return math.prod(shape[d] for d in dims)


def _require_floating(input: Tensor, message: str) -> None:
    if input._data.dtype.kind != "f":
        raise RuntimeError(message)


def _require_nonempty(input: Tensor, dims: tuple | None, name: str) -> None:
    """PyTorch's errors for max/min/amax/argmax... over nothing (they have no identity)."""
    shape = input._data.shape
    if dims is None:
        if input._data.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _scalar_type_name(t: Tensor) -> str:
    """PyTorch's scalar type name, as its error messages print it ('Float', 'Long' ...)."""
    return t.dtype._legacy.removesuffix("Tensor")


def _return_type(name: str, fields: tuple[str, ...] = ("values", "indices")) -> type:
    """PyTorch's named tuple ``teachgrad.return_types.<name>`` (see that module)."""
    return structseq(name, fields)


return_types_max = _return_type("max")
return_types_min = _return_type("min")
return_types_median = _return_type("median")


# ----------------------------------------------------------------------------------------
# prod
# ----------------------------------------------------------------------------------------
def product_of_others(a, axis: int):
    """For each element, the product of all the *other* elements along ``axis``.

    That is the derivative of a product: ∂(a₀·a₁·a₂)/∂a₁ = a₀·a₂. Dividing the product by
    the element would be simpler, and wrong as soon as an element is zero.

    As PyTorch's ``prod_safe_zeros_backward``: (the product of the elements before it) ·
    (the product of those after it), two running products. No division, so a zero is
    exact, and an infinite element times a zero gives nan as IEEE says. Written with NumPy
    calls that teachgrad routes for tensors, so under ``create_graph`` it is recorded and
    differentiates again.
    """
    axis = axis % np.ndim(a)
    n = np.shape(a)[axis]

    def part(start, stop):  # a[..., start:stop, ...] along axis
        key = [slice(None)] * np.ndim(a)
        key[axis] = slice(start, stop)
        return a[tuple(key)]

    ones = np.ones_like(part(0, 1))
    before = np.cumprod(np.concatenate([ones, part(0, n - 1)], axis=axis), axis=axis)
    after = np.cumprod(np.concatenate([ones, np.flip(part(1, n), axis)], axis=axis), axis=axis)
    return before * np.flip(after, axis)


def _prod_safe_zeros_backward(grad, a, axis: int):
    """The gradient of a product along ``axis`` when ``a`` holds a zero (``grad`` expanded).

    As PyTorch's ``prod_safe_zeros_backward``: along a dimension of size 1 the product is
    the element itself, so the gradient is passed through as it is -- not multiplied by
    a product of no others (1), which under ``create_graph`` would record a MulBackward0
    and make a constant gradient require grad.
    """
    if np.shape(a)[axis] == 1:
        return grad
    return grad * product_of_others(a, axis)


class ProdBackward0(Op):
    """Product of all elements."""
    saved_names = ("self", "result")  # grad_fn._saved_...

    formula = "∂(Πa)/∂aᵢ = product of the other elements (= Πa / aᵢ when aᵢ ≠ 0)"

    @staticmethod
    def forward(ctx, a, dtype=None):
        out = np.asarray(np.multiply.reduce(a, axis=None, dtype=dtype))  # (quiet: see _sum)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if np.ndim(a) == 0:  # the element itself: slope 1 (out / a would be nan at inf)
            return grad
        zeros = np.count_nonzero(_value(a) == 0)
        if not zeros:
            return grad * (out / a)  # (PyTorch's order of operations)
        if zeros > 1 and not isinstance(grad, Tensor):
            # Two zeros: every product of the others has a zero in it. PyTorch returns
            # zeros here (outside create_graph), so an inf gradient gives 0, not nan.
            return np.zeros(np.shape(a), np.result_type(_value(grad)))
        flat = np.reshape(a, (-1,))
        # (multiplied flat, then shaped: PyTorch's prod_safe_zeros_backward(...).view_as(a),
        # so under create_graph the gradient ends in ViewBackward0)
        return np.reshape(_prod_safe_zeros_backward(grad, flat, 0), np.shape(a))


class ProdBackward1(Op):
    """Product along one dimension."""
    saved_attributes = {"dim": given("dim", lambda node: node.dim),
                        "keepdim": "keepdim"}  # grad_fn._saved_...
    saved_names = ("self", "result")  # grad_fn._saved_...

    formula = "∂(Πₖa)/∂aᵢ = product of the other elements along the dimension"

    @staticmethod
    def forward(ctx, a, dim, keepdim, dtype=None):
        ctx.dim, ctx.keepdim = dim, keepdim
        out = row_major(np.asarray(np.multiply.reduce(a, axis=dim, keepdims=keepdim,
                                                      dtype=dtype)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if np.ndim(a) == 0:  # the element itself: slope 1
            return grad
        dims = (ctx.dim,)
        grad = _expand_reduced(grad, dims, ctx.keepdim)
        if not (_value(a) == 0).any():
            return grad * (_expand_reduced(out, dims, ctx.keepdim) / a)
        return _prod_safe_zeros_backward(grad, a, ctx.dim)


@tensor_method()
@checks_types("prod", "(*, torch.dtype dtype = None)",
              "(int dim, bool keepdim = False, *, torch.dtype dtype = None)", function=(
    "(Tensor input, *, torch.dtype dtype = None)",
    "(Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, "
    "Tensor out = None)"),
              hint="prod reduces over one dimension at a time (or over all of them, without "
                   "dim).")
def prod(input: Tensor, dim: int = NOT_GIVEN, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product of all elements, or along one dimension ``dim``.

    Integers multiply as int64. The gradient is exact even where elements are zero.

    >>> import teachgrad as torch
    >>> torch.tensor([[1., 2.], [3., 4.]]).prod(1)
    tensor([ 2., 12.])
    """
    d = _sum_dtype(input, dtype)
    if dim is NOT_GIVEN:  # (a None given is refused below, as PyTorch's parser does)
        return ProdBackward0.apply(input, dtype=d)
    n = input._data.ndim
    if n == 0:
        return ProdBackward1.apply(input, dim=(), keepdim=keepdim, dtype=d)
    out = ProdBackward1.apply(input, dim=_wrap_dim(dim, n), keepdim=keepdim, dtype=d)
    if negative(dim):
        keep_given(out, ProdBackward1, dim=dim)  # (shown as given: see saved_values)
    return out


# ----------------------------------------------------------------------------------------
# max / min / amax / amin / median: the gradient goes to the element(s) that were picked
# ----------------------------------------------------------------------------------------
def _winners(a, out):
    """Where ``a`` equals the reduced value ``out`` (NaN counts as equal to NaN)."""
    return (a == out) | (np.isnan(a) & np.isnan(out)) if a.dtype.kind == "f" else a == out


def spread_evenly(grad, a, out, dims: tuple | None, keepdim: bool):
    """The gradient of a max-like reduction: the winners share it equally, others get 0.

    ``max(tensor([1., 3., 3.]))`` sends half the gradient to each 3, as PyTorch does.
    """
    a_raw = _value(a)
    out_raw = _expand_reduced(_value(out), dims, keepdim)
    winners = _winners(a_raw, out_raw)
    count = winners.sum(axis=dims, keepdims=True).astype(a_raw.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):  # no winner at all: empty input
        return np.where(winners, _expand_reduced(grad, dims, keepdim) / count, 0)


def scale_grad_by_count(grad, winners, dims: tuple | None, keepdim: bool):
    """The gradient of amax/amin: ``grad / k`` times the mask of the k winners of each slice.

    This is PyTorch's ``scale_grad_by_count``, a product and not a select: an ``inf``
    gradient gives ``inf · 0 = nan`` at the other elements (and a negative one ``-0.``), and
    a slice whose result is nan, which no element equals, gets ``grad / 0 · 0 = nan``
    everywhere. (``max()`` of all elements selects instead: see :func:`spread_evenly`.)
    """
    raw = _value(winners)
    count = raw.sum(axis=dims, keepdims=True).astype(_value(grad).dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (_expand_reduced(grad, dims, keepdim) / count) * raw


def select_backward(grad, indices, shape: tuple, dim: int, keepdim: bool):
    """The gradient of "pick one element along ``dim``": it goes to the picked index only."""
    if not shape:  # a 0-d input: the element picked itself
        if type(grad) is Tensor:  # create_graph: PyTorch still scatters (ScatterBackward0)
            from .index import ScatterBackward0  # (index imports this module)

            zeros = _make(np.zeros((), _value(grad).dtype))
            return ScatterBackward0.apply(zeros, grad, key=(np.zeros(1, np.int64),))
        return grad
    index = _value(indices)
    if not keepdim:
        grad = np.expand_dims(grad, dim)
        index = np.expand_dims(index, dim)
    if type(grad) is Tensor:  # create_graph: PyTorch's zeros.scatter_(dim, index, grad)
        from .index import ScatterBackward0, key_along  # (index imports this module)

        zeros = _make(np.zeros(shape, _value(grad).dtype))
        return ScatterBackward0.apply(zeros, grad, key=key_along(index, dim))
    positions = np.arange(shape[dim]).reshape([-1 if d == dim else 1 for d in range(len(shape))])
    return np.where(positions == index, grad, 0)


class _ExtremeAll(Op):
    """max() / min() of all elements (the winners share the gradient)."""

    numpy_fn = staticmethod(np.max)

    @classmethod
    def forward(cls, ctx, a):
        out = np.asarray(cls.numpy_fn(a), dtype=a.dtype)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if type(grad) is not Tensor:
            return spread_evenly(grad, a, out, None, False)
        # PyTorch's evenly_distribute_backward: zeros with grad / k filled in at the k
        # winners, recorded as MaskedFillBackward1 (a tensor filled in)
        a, out = _value(a), _value(out)
        winners = _winners(a, out)
        return _make(np.zeros_like(a)).masked_fill(winners, grad / winners.sum())


class MaxBackward1(_ExtremeAll):
    saved_names = ("self", "result")  # grad_fn._saved_...
    formula = "∂(max a)/∂aᵢ = 1/k for the k elements equal to the max, else 0"
    numpy_fn = staticmethod(np.max)


class MinBackward1(_ExtremeAll):
    saved_names = ("self", "result")  # grad_fn._saved_...
    formula = "∂(min a)/∂aᵢ = 1/k for the k elements equal to the min, else 0"
    numpy_fn = staticmethod(np.min)


class _SelectAlongDim(Op):
    """max/min/median along a dimension: ``(values, indices)``; the index picked gets it."""

    @classmethod
    def forward(cls, ctx, a, dim, keepdim):
        ctx.shape, ctx.dim, ctx.keepdim = a.shape, dim, keepdim
        if a.ndim == 0:
            values, indices = a.copy(), np.zeros((), np.int64)
        else:
            indices = np.expand_dims(cls.pick(a, dim), dim)
            values = np.take_along_axis(a, indices, dim)
            if not keepdim:
                values, indices = np.squeeze(values, dim), np.squeeze(indices, dim)
            values, indices = row_major(values), row_major(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad, _grad_indices=None):
        (indices,) = ctx.saved_tensors
        return select_backward(grad, indices, ctx.shape, ctx.dim, ctx.keepdim)


def _lower_median_index(a: np.ndarray, dim: int) -> np.ndarray:
    """Index of the lower median along ``dim`` (the first NaN if there is one, as PyTorch)."""
    order = np.argsort(a, axis=dim, kind="stable")  # NaNs sort last, ties keep their order
    n = a.shape[dim]
    rank = np.full(np.delete(a.shape, dim), (n - 1) // 2)
    if a.dtype.kind == "f":
        nans = np.isnan(a).sum(axis=dim)
        rank = np.where(nans > 0, n - nans, rank)
    return np.take_along_axis(order, np.expand_dims(rank, dim), dim).squeeze(dim)


class MaxBackward0(_SelectAlongDim):
    saved_names = ("indices",)  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim", lambda node: node.dim), "keepdim": "keepdim",
                        "self_sym_sizes": "shape"}
    formula = "∂(maxₖ a)/∂aᵢ = 1 at the index returned, else 0"
    pick = staticmethod(lambda a, dim: np.argmax(a, axis=dim))


class MinBackward0(_SelectAlongDim):
    saved_names = ("indices",)  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim", lambda node: node.dim), "keepdim": "keepdim",
                        "self_sym_sizes": "shape"}
    formula = "∂(minₖ a)/∂aᵢ = 1 at the index returned, else 0"
    pick = staticmethod(lambda a, dim: np.argmin(a, axis=dim))


class MedianBackward1(_SelectAlongDim):
    saved_names = ("indices",)  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim", lambda node: node.dim), "keepdim": "keepdim",
                        "self_sym_sizes": "shape"}
    formula = "∂(medianₖ a)/∂aᵢ = 1 at the index returned, else 0"
    pick = staticmethod(_lower_median_index)


class MedianBackward0(_ExtremeAll):
    saved_names = ("self", "result")  # grad_fn._saved_...
    formula = "∂(median a)/∂aᵢ = 1/k for the k elements equal to the median, else 0"
    numpy_fn = staticmethod(
        lambda a: np.nan if a.size == 0 else a.reshape(-1)[_lower_median_index(a.reshape(-1), 0)]
    )


class _ExtremeOverDims(Op):
    """amax/amin over some dimensions (the winners share the gradient)."""

    # (PyTorch's dim as given, () for all: see amax)
    saved_attributes = {"dim": given("dim", ()), "keepdim": "keepdim"}  # grad_fn._saved_...

    @classmethod
    def forward(cls, ctx, a, dims, keepdim, sums_back=False):
        ctx.dims, ctx.keepdim, ctx.sums_back = dims, keepdim, sums_back
        out = row_major(np.asarray(cls.numpy_fn(a, axis=dims, keepdims=keepdim)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        result = scale_grad_by_count(grad, _equal_to_reduced(a, out, ctx.dims, ctx.keepdim),
                                     ctx.dims, ctx.keepdim)
        if ctx.sums_back and type(result) is Tensor:
            # create_graph: PyTorch gives the gradient of a 0-d input reduced over dim 0
            # its dim back (shape (1,)), and summing it to () records SumBackward0
            result = result.sum()
        return result


def _equal_to_reduced(a, out, dims: tuple | None, keepdim: bool):
    """Where ``a`` equals its reduction ``out`` (a nan equals nothing, as in PyTorch's mask)."""
    return _value(a) == _expand_reduced(_value(out), dims, keepdim)


class AmaxBackward0(_ExtremeOverDims):
    saved_names = ("self", "result")  # grad_fn._saved_...
    formula = "∂(amax a)/∂aᵢ = 1/k for the k elements equal to the max, else 0"
    numpy_fn = staticmethod(np.amax)


class AminBackward0(_ExtremeOverDims):
    saved_names = ("self", "result")  # grad_fn._saved_...
    formula = "∂(amin a)/∂aᵢ = 1/k for the k elements equal to the min, else 0"
    numpy_fn = staticmethod(np.amin)


def _extreme(name: str, all_op, dim_op, input: Tensor, dim, keepdim: bool):
    if isinstance(dim, Tensor):  # max(a, b): the elementwise maximum
        from . import pointwise

        return (pointwise.maximum if name == "max" else pointwise.minimum)(input, dim)
    if dim is NOT_GIVEN:  # (a None given is refused below, as PyTorch's parser does)
        _require_nonempty(input, None, name)
        return all_op.apply(input)
    d = _wrap_dim(dim, input._data.ndim)
    _require_nonempty(input, (d,) if input._data.ndim else (), name)
    values, indices = dim_op.apply(input, dim=d, keepdim=keepdim)
    if negative(dim):
        keep_given(values, dim_op, dim=dim)  # (shown as given: see saved_values)
    return {"max": return_types_max, "min": return_types_min}[name](values, indices)


_MAX_MIN_FUNCTION = (
    "(Tensor input, *, Tensor out = None)", "(Tensor input, Tensor other, *, Tensor out = None)",
    "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)")


@tensor_method()
@checks_types("max", "()", "(Tensor other)", "(int dim, bool keepdim = False)",
              function=_MAX_MIN_FUNCTION)
def max(input: Tensor, dim: int | Tensor = NOT_GIVEN,  # noqa: A001 - PyTorch's name
        keepdim: bool = False) -> Tensor | return_types_max:
    """The largest element; with ``dim``, ``(values, indices)`` along that dimension.

    ``max(a, b)`` with a tensor ``b`` is the elementwise :func:`maximum`. Without ``dim``,
    elements that tie for the maximum share the gradient equally; with ``dim``, the
    gradient goes to the index returned.

    >>> import teachgrad as torch
    >>> x = torch.tensor([[1., 5.], [7., 2.]])
    >>> x.max()
    tensor(7.)
    >>> x.max(1).indices
    tensor([1, 0])
    """
    return _extreme("max", MaxBackward1, MaxBackward0, input, dim, keepdim)


@tensor_method()
@checks_types("min", "()", "(Tensor other)", "(int dim, bool keepdim = False)",
              function=_MAX_MIN_FUNCTION)
def min(input: Tensor, dim: int | Tensor = NOT_GIVEN,  # noqa: A001 - PyTorch's name
        keepdim: bool = False) -> Tensor | return_types_min:
    """The smallest element; with ``dim``, ``(values, indices)`` (see :func:`max`)."""
    return _extreme("min", MinBackward1, MinBackward0, input, dim, keepdim)


@tensor_method()
@checks_types("median", "()", "(int dim, bool keepdim = False)", function=(
    "(Tensor input)",
    "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)"))
def median(input: Tensor, dim: int | None = None,
           keepdim: bool = False) -> Tensor | return_types_median:
    """The lower median; with ``dim``, ``(values, indices)`` along that dimension.

    NaN is the median of anything that contains a NaN (PyTorch's rule).

    >>> import teachgrad as torch
    >>> torch.tensor([4., 1., 3., 2.]).median()
    tensor(2.)
    """
    if dim is None:
        empty = empty_median(input)
        if empty is not None:
            return empty
        refuse_bool_median(input, dim)
        return MedianBackward0.apply(input)
    d = _wrap_dim(dim, input._data.ndim)
    _require_nonempty(input, (d,) if input._data.ndim else (), "median")
    refuse_bool_median(input, dim)  # (after the checks of dim: PyTorch's order)
    values, indices = MedianBackward1.apply(input, dim=d, keepdim=keepdim)
    if negative(dim):
        keep_given(values, MedianBackward1, dim=dim)  # (shown as given: see saved_values)
    return return_types_median(values, indices)


def _sums_back(input: Tensor, dim, keepdim: bool) -> bool:
    """A 0-d input reduced over an explicit dim 0 (see _ExtremeOverDims.backward)."""
    return input._data.ndim == 0 and not keepdim and dim is not None and (
        not isinstance(dim, (tuple, list)) or len(dim) > 0)


def _given_dims(dim) -> tuple | None:
    """The dims as the user gave them, as a tuple of ints (PyTorch's ``_saved_dim``), or
    None."""
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        return tuple(operator.index(d) for d in dim)
    return (operator.index(dim),)


def _amax_dims(input: Tensor, dim, name: str) -> tuple:
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):  # all dimensions
        _require_nonempty(input, None, name)
        return tuple(range(input._data.ndim))
    dims = normalize_dims(dim, input._data.ndim)
    if input._data.ndim:  # (PyTorch's message names a dim as given: -1 stays -1)
        for given in dim if isinstance(dim, (tuple, list)) else (dim,):
            if input._data.shape[_wrap_dim(given, input._data.ndim)] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {given} to have non-zero "
                                 "size.")
    return dims


@tensor_method()
@checks_types("amax", "(tuple of ints[1] dim = (), bool keepdim = False)")
def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The maximum over ``dim`` (an int or a tuple; all dimensions by default).

    Unlike ``max(dim)`` it returns no indices, and ties share the gradient equally.

    >>> import teachgrad as torch
    >>> torch.tensor([[1., 5.], [7., 2.]]).amax(0)
    tensor([7., 5.])
    """
    out = AmaxBackward0.apply(input, dims=_amax_dims(input, dim, "amax"), keepdim=keepdim,
                              sums_back=_sums_back(input, dim, keepdim))
    keep_given(out, AmaxBackward0, dim=_given_dims(dim))
    return out


@tensor_method()
@checks_types("amin", "(tuple of ints[1] dim = (), bool keepdim = False)")
def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The minimum over ``dim`` (see :func:`amax`)."""
    out = AminBackward0.apply(input, dims=_amax_dims(input, dim, "amin"), keepdim=keepdim,
                              sums_back=_sums_back(input, dim, keepdim))
    keep_given(out, AminBackward0, dim=_given_dims(dim))
    return out


def refuse_bool_median(input: Tensor, dim) -> None:
    """PyTorch has no bool kernel for median and nanmedian (names as its errors do)."""
    if input._data.dtype == np.bool_:
        kernel = "median_cpu" if dim is None else "median_out"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def empty_median(input: Tensor) -> Tensor | None:
    """median() and nanmedian() of an empty integer or bool tensor, else None.

    PyTorch gives nan cast to the dtype, before it looks for a kernel: True for bool and,
    as x86 converts nan to an integer, the most negative int32 (int64 for 8-byte types),
    narrowed to smaller types (0). (Float tensors give nan through the usual op.)
    """
    data = input._data
    if data.size or data.dtype.kind == "f":
        return None
    if data.dtype == np.bool_:
        return _make(np.array(True))
    indefinite = np.iinfo(np.int64 if data.dtype.itemsize == 8 else np.int32).min
    return _make(np.array(indefinite).astype(data.dtype))  # (wraps to 0 for int8, int16)


def _arg_extreme(name: str, np_fn, input: Tensor, dim, keepdim: bool) -> Tensor:
    data = input._data
    if data.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if data.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        index = np.asarray(np_fn(data), dtype=np.int64)
        return _make(index.reshape((1,) * data.ndim) if keepdim else index)
    d = _wrap_dim(dim, data.ndim)
    if data.ndim == 0:
        return _make(np.zeros((), np.int64))
    _require_nonempty(input, (d,), name)
    return _make(np.asarray(np_fn(data, axis=d, keepdims=keepdim), dtype=np.int64))


@tensor_method()
@checks_types("argmax", "(int? dim = None, bool keepdim = False)")
def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (of the flattened tensor without ``dim``). Not differentiable.

    >>> import teachgrad as torch
    >>> torch.tensor([[1., 5.], [7., 2.]]).argmax()
    tensor(2)
    """
    return _arg_extreme("argmax", np.argmax, input, dim, keepdim)


@tensor_method()
@checks_types("argmin", "(int? dim = None, bool keepdim = False)")
def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (see :func:`argmax`)."""
    return _arg_extreme("argmin", np.argmin, input, dim, keepdim)


# ----------------------------------------------------------------------------------------
# var / std
# ----------------------------------------------------------------------------------------


def _shown_correction(dim, unbiased, correction):
    """var/std's ``grad_fn._saved_correction`` as PyTorch shows it: ``correction`` as given;
    else ``unbiased`` as 0 or 1; else 1 when a ``dim`` is given, None when nothing is."""
    if isinstance(dim, bool):  # x.var(False): the bool is `unbiased`
        dim, unbiased = None, dim
    if correction is not None:
        return correction
    if unbiased is not None:
        return int(unbiased)
    return None if dim is None else 1


_VAR_SAVED = {"correction": given("correction"), "dim": given("dim"),
              "keepdim": "keepdim"}  # grad_fn._saved_... (see var)


class VarBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = _VAR_SAVED
    inference_out_name = "sum"  # (see Op: PyTorch's composite writes through sum_out)
    formula = "∂var(a)/∂aᵢ = 2·(aᵢ − mean a) / (N − correction)"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        ctx.dims, ctx.keepdim = dims, keepdim
        ctx.dof = _count(a.shape, dims) - correction
        ctx.save_for_backward(a)
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # PyTorch's own warning is given
            return row_major(np.asarray(np.var(a, axis=dims, ddof=correction, keepdims=keepdim)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if type(grad) is Tensor:
            return _var_recorded_grad(ctx, grad, a)
        grad = _expand_reduced(grad, ctx.dims, ctx.keepdim)
        if ctx.dof <= 0 and (ctx.dims is None or a.ndim == 0):
            return grad * _no_dof_slope(a)
        centred = a - mean_of(a, axis=ctx.dims, keepdims=True)
        with np.errstate(invalid="ignore"):  # no degrees of freedom: inf·0 is NaN, as PyTorch
            return grad * (2 / ctx.dof if ctx.dof else math.inf) * centred


class StdBackward0(Op):
    saved_names = ("self", "result")  # grad_fn._saved_...
    saved_attributes = _VAR_SAVED
    inference_out_name = "sum"  # (see Op: PyTorch's composite writes through sum_out)
    formula = "∂std(a)/∂aᵢ = (aᵢ − mean a) / ((N − correction)·std a)   (0 where std = 0)"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        ctx.dims, ctx.keepdim = dims, keepdim
        ctx.dof = _count(a.shape, dims) - correction
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out = row_major(np.asarray(np.std(a, axis=dims, ddof=correction, keepdims=keepdim)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if type(grad) is Tensor:
            # create_graph: PyTorch's std_backward, var's gradient of
            # (grad / (std·2)).masked_fill_(std == 0, 0): differentiated again, the
            # division's slope meets the mask's 0 at std = 0, 0·inf = nan, as PyTorch's
            # second derivative (seed 107241)
            with np.errstate(divide="ignore", invalid="ignore"):
                flat = _std_flat(_value(a), _value(out), ctx.dims, ctx.keepdim)
                half = masked_fill_zero(flat, grad / times_number(out, 2))
            return _var_recorded_grad(ctx, half, a)
        flat = _std_flat(_value(a), _value(out), ctx.dims, ctx.keepdim)
        grad = _expand_reduced(grad, ctx.dims, ctx.keepdim)
        out = _expand_reduced(out, ctx.dims, ctx.keepdim)
        # A constant slice has std 0 and no slope there: PyTorch sends 0, not 0/0.
        flat = _expand_reduced(flat, ctx.dims, ctx.keepdim)
        per_std = np.where(flat, 0, grad / np.where(flat, 1, out))
        if ctx.dof <= 0 and (ctx.dims is None or a.ndim == 0):
            return per_std / 2 * _no_dof_slope(a)  # (var's slope times ∂std/∂var)
        centred = a - mean_of(a, axis=ctx.dims, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):  # no degrees of freedom
            return per_std / ctx.dof * centred  # (PyTorch's order: MulBackward0 last)


def _std_flat(a: np.ndarray, out: np.ndarray, dims, keepdim: bool) -> np.ndarray:
    """Where std has no slope and PyTorch sends 0: std 0, and, when std is taken per slice,
    the slices of equal (finite) values. PyTorch sums those with Welford's updates, which
    give exactly 0 for equal values; NumPy's two-pass sum (PyTorch's too, over all
    elements at once) leaves ~1e-16, whose slope would be (x − mean) / std, of order 1."""
    flat = out == 0
    if np.size(out) <= 1 or a.size == 0:
        return flat
    top = np.max(a, axis=dims, keepdims=keepdim)
    same = (top == np.min(a, axis=dims, keepdims=keepdim)) & np.isfinite(top)
    return flat | (same & np.isfinite(out))  # (no degrees of freedom: std nan, slope nan)


def _var_recorded_grad(ctx, grad: Tensor, a: Tensor) -> Tensor:
    """var's gradient under ``create_graph``, as PyTorch's var_backward records it:
    ``(2 / dof) · grad · (a − a.mean(dim, keepdim=True))``, the number times grad being
    MulBackward1 and the mean over everything ``a.mean()`` (MeanBackward0)."""
    grad = _expand_reduced(grad, ctx.dims, ctx.keepdim)
    if ctx.dof <= 0 and (ctx.dims is None or a.ndim == 0):
        return grad * _no_dof_slope(a)
    mean = a.mean() if ctx.dims is None else a.mean(ctx.dims, keepdim=True)
    with np.errstate(invalid="ignore"):  # no degrees of freedom: inf·0 is NaN, as PyTorch
        return times_number(grad, 2 / ctx.dof if ctx.dof else math.inf) * (a - mean)


def _no_dof_slope(a) -> np.ndarray:
    """var's slope without degrees of freedom (N ≤ correction), over all elements.

    2·(aᵢ − mean)/(N − correction) divides by 0 (or less). PyTorch 2.13 then gives a
    constant, recorded in no graph: +inf, or nan where aᵢ equals the mean (0/0: a 0-d
    tensor, a constant one). Only over all elements (or a 0-d tensor): with ``dim`` given
    it keeps the formula.
    """
    values = _value(a)
    with np.errstate(invalid="ignore"):
        equal = values == mean_of(values)
    return np.where(equal, np.nan, np.inf).astype(values.dtype)


def _var_args(name: str, input: Tensor, dim, unbiased, keepdim, correction):
    """Sort out PyTorch's overloads: ``var(dim, unbiased, keepdim)``, ``var(unbiased)``,
    ``var(dim, *, correction, keepdim)``."""
    if isinstance(dim, bool):  # x.var(False): the bool is `unbiased`
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:  # (only reached from inside)
        raise TypeError(f"{name}(): pass either unbiased or correction, not both")
    _require_floating(input, "std and var only support floating point and complex dtypes")
    if correction is None:
        correction = 1 if unbiased is None else int(unbiased)
    dims = normalize_dims(dim, input._data.ndim)
    # (PyTorch's reduction factor is input numel / output numel, 0 for an empty input
    # even when the reduced dims are not empty: then it always warns)
    factor = _count(input._data.shape, dims) if input._data.size else 0
    if factor - correction <= 0:
        warn_user(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
        )
    return dims, correction, keepdim


@numpy_names
def var(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction=None) -> Tensor:
    """Variance over ``dim`` (all elements by default), divided by ``N - correction``.

    ``correction=1`` (the default, Bessel's correction) gives the sample variance;
    ``correction=0`` or ``unbiased=False`` the population variance.

    >>> import teachgrad as torch
    >>> torch.tensor([1., 2., 3., 4.]).var()
    tensor(1.6667)
    """
    dims, c, keepdim = _var_args("var", input, dim, unbiased, keepdim, correction)
    out = VarBackward0.apply(input, dims=dims, correction=c, keepdim=keepdim)
    keep_given(out, VarBackward0, correction=_shown_correction(dim, unbiased, correction),
               dim=None if isinstance(dim, bool) else _given_dims(dim))
    return out


@numpy_names
def std(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction=None) -> Tensor:
    """Standard deviation: the square root of :func:`var` (same arguments)."""
    dims, c, keepdim = _var_args("std", input, dim, unbiased, keepdim, correction)
    out = StdBackward0.apply(input, dims=dims, correction=c, keepdim=keepdim)
    keep_given(out, StdBackward0, correction=_shown_correction(dim, unbiased, correction),
               dim=None if isinstance(dim, bool) else _given_dims(dim))
    return out


# PyTorch's argument parser knows three signatures of std/var (and std_mean/var_mean), and
# refuses a call that fits none, e.g. ``x.std(unbiased=False, keepdim=True)`` (keepdim
# needs a dim there) or ``unbiased=`` with ``correction=``. teachgrad's single Python
# signature would accept those, so the call is checked as PyTorch's parser checks it.
_VAR_SIGNATURES = (
    ("tuple of ints dim", "bool unbiased = True", "bool keepdim = False"),
    ("tuple of ints dim = None", "*", "Number correction = None", "bool keepdim = False"),
    ("bool unbiased = True",),
)
_NUMPY_SPELLING = {"axis": "dim", "keepdims": "keepdim"}


def _fits_a_var_signature(args: tuple, keywords: set) -> bool:
    """Does a call with these arguments (after ``input``) fit one of _VAR_SIGNATURES?"""
    keywords = {_NUMPY_SPELLING.get(k, k) for k in keywords} - {"out"}
    first_is_dim = bool(args) and not isinstance(args[0], bool) and (
        args[0] is None or isinstance(args[0], (tuple, list)) or hasattr(args[0], "__index__"))
    with_dim = (first_is_dim or "dim" in keywords) and (not args or first_is_dim)
    if with_dim and len(args) <= 3 and keywords <= {"dim", "unbiased", "keepdim"}:
        return True  # (dim, unbiased, keepdim)
    if len(args) <= 1 and (not args or first_is_dim) and keywords <= {
            "dim", "correction", "keepdim"}:
        return True  # (dim=None, *, correction, keepdim)
    return len(args) <= 1 and keywords <= {"unbiased"} and (
        not args or isinstance(args[0], bool))  # (unbiased)


def _pytorch_type_name(value) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def _no_var_signature_error(name: str, args: tuple, kwargs: dict, method: bool,
                            has_out: bool) -> TypeError:
    """PyTorch's message: what was given (keywords last, in reverse order), and the
    signatures it expected."""
    given = [_pytorch_type_name(a) for a in args]
    named = [f"{k}={_pytorch_type_name(v)}" for k, v in reversed(kwargs.items())]
    got = ", ".join(given + named) + (", " if named and not given else "")
    signatures = []
    for signature in _VAR_SIGNATURES:
        parts = list(signature) if method else ["Tensor input", *signature]
        if has_out and not method and len(signature) > 1:
            parts += ["Tensor out = None"] if "*" in parts else ["*", "Tensor out = None"]
        signatures.append(" * (" + ", ".join(parts) + ")\n")
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected "
        "one of:\n" + "".join(signatures)
        + "\nHint: keepdim= and correction= go with a dim (dim=None for all elements); "
        "unbiased= and correction= are two spellings of one thing: give one."
    )


def _var_signature_text(signature: tuple, function: bool, has_out: bool) -> str:
    """One of _VAR_SIGNATURES as _arguments reads it (``dim`` is ``int[1]?``: an int, or
    None, is taken for it)."""
    parts = [p.replace("tuple of ints dim", "tuple of ints[1]? dim") for p in signature]
    if function:
        parts.insert(0, "Tensor input")
        if has_out and len(signature) > 1:
            parts += ["Tensor out = None"] if "*" in parts else ["*", "Tensor out = None"]
    return "(" + ", ".join(parts) + ")"


def _parsed_like_pytorch(name: str, fn, has_out: bool):
    """``fn`` as a function and as a Tensor method that check the call against
    _VAR_SIGNATURES first (each names the form PyTorch would name); a call that fails
    with arguments of the wrong types (``x.std('a')``) gets PyTorch's TypeError."""
    by_type = checks_types(
        name, *(_var_signature_text(s, False, has_out) for s in _VAR_SIGNATURES),
        function=tuple(_var_signature_text(s, True, has_out) for s in _VAR_SIGNATURES))(fn)

    @functools.wraps(fn)
    def function(input, *args, **kwargs):
        if (kwargs or len(args) > 1) and not _fits_a_var_signature(args, set(kwargs)):
            raise _no_var_signature_error(name, (input, *args), kwargs, False, has_out)
        return by_type(input, *args, **kwargs)

    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        if (kwargs or len(args) > 1) and not _fits_a_var_signature(args, set(kwargs)):
            raise _no_var_signature_error(name, args, kwargs, True, has_out)
        return by_type.method_form(self, *args, **kwargs)

    return function, method


var, Tensor.var = _parsed_like_pytorch("var", var, has_out=True)
std, Tensor.std = _parsed_like_pytorch("std", std, has_out=True)


# ----------------------------------------------------------------------------------------
# norm
# ----------------------------------------------------------------------------------------
def _one_element_each(shape: tuple, dims) -> bool:
    """Does each reduction over ``dims`` (None: all) see exactly one element?"""
    axes = range(len(shape)) if dims is None else dims
    return math.prod(shape[d] for d in axes) == 1


class LinalgVectorNormBackward0(Op):
    saved_names = ("self", "result")  # grad_fn._saved_...
    saved_attributes = {"ord": given("ord", lambda node: node.ord), "keepdim": "keepdim",
                        "dim": given("dim", lambda node: None if node.dims is None
                                     else tuple(node.dims))}  # (None: all of them)
    formula = "∂‖a‖ₚ/∂aᵢ = sign(aᵢ)·|aᵢ|ᵖ⁻¹ / ‖a‖ₚᵖ⁻¹    (p = 2: aᵢ / ‖a‖)"

    @staticmethod
    def forward(ctx, a, ord, dims, keepdim, dtype=None):  # noqa: A002 - PyTorch's name
        ctx.ord, ctx.dims, ctx.keepdim = ord, dims, keepdim
        x = np.abs(a if dtype is None else a.astype(dtype))
        if ord == math.inf:
            out = np.amax(x, axis=dims, keepdims=keepdim)
        elif ord == -math.inf:
            out = np.amin(x, axis=dims, keepdims=keepdim)
        elif ord == 0:
            out = np.sum(x != 0, axis=dims, keepdims=keepdim).astype(x.dtype)
        elif ord == 1:
            out = np.sum(x, axis=dims, keepdims=keepdim)
        elif ord == 2:
            out = np.sqrt(np.sum(x * x, axis=dims, keepdims=keepdim))
        elif _one_element_each(x.shape, dims):
            # The p-norm of one number is its absolute value, exactly (as PyTorch's; the
            # float32 round trip |x|ᵖ then ^(1/p) can miss it by an ulp, and a clamp_min at
            # eps in normalize then sends the gradient the other way)
            out = np.sum(x, axis=dims, keepdims=keepdim)
        else:
            with np.errstate(divide="ignore"):
                out = np.sum(x**ord, axis=dims, keepdims=keepdim) ** (1.0 / ord)
        out = row_major(np.asarray(out, dtype=x.dtype))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors  # (first: PyTorch unpacks them, and checks, for p = 0 too)
        if ctx.ord == 0:  # counting nonzeros is flat: PyTorch sends no gradient at all
            return None  # (x.grad stays None), not zeros
        return vector_norm_backward(grad, a, out, ctx.ord, ctx.dims, ctx.keepdim)


def vector_norm_backward(grad, a, out, p: float, dims, keepdim: bool):
    """The gradient of ``out = ‖a‖ₚ`` over ``dims`` (also used by ``dist`` and ``cdist``)."""
    if p == 0:
        return np.zeros_like(a)
    if p in (math.inf, -math.inf):  # the largest (smallest) |aᵢ| wins, ties share
        # PyTorch's: sgn(a) · scale_grad_by_count over the winners and any nan (whose
        # sgn is 0: a nan norm sends 0, not nan, back to a finite gradient).
        size = np.abs(_value(a))
        winners = (size == _expand_reduced(_value(out), dims, keepdim)) | np.isnan(size)
        return sgn_of(a) * scale_grad_by_count(grad, winners, dims, keepdim)
    grad = _expand_reduced(grad, dims, keepdim)
    if p == 1:
        # (0 at a nan element, as PyTorch's sgn; sgn first, as PyTorch's self.sgn() * grad
        # records it)
        return sgn_of(a) * grad
    out = _expand_reduced(out, dims, keepdim)
    zero_norm = _value(out) == 0  # all elements 0: PyTorch's gradient there is 0
    safe_out = np.where(zero_norm, 1, out)
    if p == 2:  # PyTorch's grad · (a / norm, 0 where the norm is 0): an inf grad gives nan
        if isinstance(a, Tensor):  # create_graph: PyTorch's (a / norm).masked_fill_(...),
            # whose derivative at a zero norm is nan (0/0), as PyTorch's
            return grad * masked_fill_zero(zero_norm, a / out)
        return grad * np.where(zero_norm, 0, a / safe_out)
    if isinstance(a, Tensor) and p > 1:  # create_graph: PyTorch's norm_backward, node for
        # node: self·|self|^(p−2) (sgn(self)·|self|^(p−1) below 2) times
        # (grad / norm^(p−1)).masked_fill_(norm == 0, 0)
        scaled = a * a.abs() ** (p - 2) if p > 2 else sgn_of(a) * a.abs() ** (p - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return scaled * masked_fill_zero(zero_norm, grad / out ** (p - 1))
    if isinstance(a, Tensor) and p < 1:  # create_graph: PyTorch's norm_backward,
        # sgn(self) · |self|^(p−1).masked_fill_(self == 0, 0) · grad · norm^(1−p) (its
        # second derivative at a zero element is nan, 0 · ∞, as PyTorch's)
        with np.errstate(divide="ignore"):
            powered = a.abs() ** (p - 1)
        scaled = sgn_of(a) * masked_fill_zero(_value(a) == 0, powered)
        return scaled * grad * out ** (1 - p)
    if p < 1:  # |a|^(p-1) is infinite at 0; that element's gradient is 0 (PyTorch)
        zero = _value(a) == 0
        scaled = np.where(zero, 0, np.abs(np.where(zero, 1, a)) ** (p - 1))
        return np.sign(a) * scaled * grad * out ** (1 - p)
    scale = np.where(zero_norm, 0, grad / safe_out ** (p - 1))
    return np.sign(a) * np.abs(a) ** (p - 1) * scale


@numpy_names
def vector_norm(input: Tensor, ord: float = 2, dim=None, keepdim: bool = False, *,  # noqa: A002
                dtype=None) -> Tensor:
    """The vector p-norm ``(Σ|aᵢ|ᵖ)^(1/p)`` over ``dim`` (all elements by default).

    ``ord`` may be any number, ``inf`` (largest magnitude), ``-inf`` (smallest) or 0 (count
    of non-zeros). This is ``torch.linalg.vector_norm``.

    >>> import teachgrad as torch
    >>> vector_norm(torch.tensor([3., 4.]))
    tensor(5.)
    """
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{_scalar_type_name(input)}\nHint: convert first, e.g. x.float().norm()."
        )
    written = ord  # (PyTorch shows ord as given: an int stays an int)
    ord = float(ord)  # noqa: A001
    dims = normalize_dims(dim, input._data.ndim)
    check_norm_of_nothing(input, ord, dim, dims)
    if dtype is not None:
        from .._dtypes import to_dtype

        dtype = to_dtype(dtype, "linalg_vector_norm").numpy
    out = LinalgVectorNormBackward0.apply(input, ord=ord, dims=dims, keepdim=keepdim,
                                          dtype=dtype)
    if type(written) is int or negative(dim):
        keep_given(out, LinalgVectorNormBackward0, ord=written, dim=_given_dims(dim))
    return out


def check_norm_of_nothing(input: Tensor, ord: float, dim, dims) -> None:  # noqa: A002
    """A negative or infinite norm over an empty dimension is undefined (a max or a
    reciprocal sum of nothing has no identity): PyTorch's error, the dim named as given."""
    if not (ord < 0 or ord == math.inf):
        return
    shape = input._data.shape
    if dims is None and input._data.size == 0:
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor because "
            "the operation does not have an identity"
        )
    given = () if dims is None or not shape else (
        tuple(dim) if isinstance(dim, (tuple, list)) else (dim,))
    for d in given:  # (named as given: -1 stays -1)
        if shape[_wrap_dim(d, input._data.ndim)] == 0:
            raise RuntimeError(  # (PyTorch's sentence lacks the space after {d})
                f"linalg.vector_norm cannot compute the {ord:g} norm on the dimension {d}"
                "because this dimension is empty and the operation does not have an "
                "identity"
            )


@tensor_method()
def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """The p-norm of all elements, or over ``dim`` (``'fro'`` is the 2-norm, ``'nuc'`` the
    nuclear norm of a matrix: the sum of its singular values).

    >>> import teachgrad as torch
    >>> torch.tensor([[3., 4.], [0., 0.]]).norm(dim=1)
    tensor([5., 0.])
    """
    if p is None or (p == "fro" and (dim is None or isinstance(dim, (int, np.integer))
                                     or len(dim) <= 2)):
        p = 2
    elif isinstance(p, str):  # 'nuc' (or an unknown name): a matrix norm, as in PyTorch
        from .matrix_functions import matrix_norm

        dims = tuple(range(input._data.ndim)) if dim is None else dim
        return matrix_norm(input, p, dims, keepdim, dtype=dtype)
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


# ----------------------------------------------------------------------------------------
# logsumexp
# ----------------------------------------------------------------------------------------
class LogsumexpBackward0(Op):
    saved_names = ("self", "result")  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim", lambda node: tuple(node.dims)), "keepdim": "keepdim"}
    inference_out_name = "logsumexp"  # (see Op: PyTorch's composite writes through logsumexp_out)
    formula = "∂logΣexp(a)/∂aᵢ = exp(aᵢ − logΣexp(a))   (the softmax of a)"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.dims, ctx.keepdim = dims, keepdim
        # Subtract the max before exp so that large inputs (1000.) do not overflow.
        if a.size:
            m = np.amax(a, axis=dims, keepdims=True)
            m = np.where(np.isfinite(m), m, 0)
        else:
            m = np.zeros((1,) * a.ndim, a.dtype)
        with np.errstate(divide="ignore"):
            out = np.log(np.sum(np.exp(a - m), axis=dims, keepdims=True)) + m
        if not keepdim:
            out = np.squeeze(out, axis=dims)
        out = row_major(np.asarray(out, dtype=a.dtype))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        grad = _expand_reduced(grad, ctx.dims, ctx.keepdim)
        with np.errstate(invalid="ignore"):  # all -inf: (-inf) - (-inf) is NaN, as PyTorch
            return grad * np.exp(a - _expand_reduced(out, ctx.dims, ctx.keepdim))


@tensor_method()
@checks_types("logsumexp", "(tuple of ints[1] dim, bool keepdim = False)")
def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input), dim))``, computed without overflow.

    >>> import teachgrad as torch
    >>> torch.tensor([1000., 1000.]).logsumexp(0)
    tensor(1000.6932)
    """
    if input._data.dtype.kind != "f":
        input = _make(input._data.astype(get_default_dtype().numpy))
    dims = normalize_dims(dim, input._data.ndim)
    out = LogsumexpBackward0.apply(input, dims=dims, keepdim=keepdim)
    if negative(dim):
        keep_given(out, LogsumexpBackward0, dim=_given_dims(dim))  # (shown as given)
    return out


# ----------------------------------------------------------------------------------------
# cumsum / cumprod
# ----------------------------------------------------------------------------------------
def reverse_cumsum(x, dim: int):
    """``Σ_{k ≥ i} x_k`` along ``dim``: how a cumulative sum's gradient flows back."""
    return np.flip(np.cumsum(np.flip(x, dim), dim), dim)


class CumsumBackward0(Op):
    saved_attributes = {"dim": given("dim", lambda node: node.dim)}  # grad_fn._saved_...
    formula = "∂(cumsum a)ₖ/∂aᵢ = 1 for k ≥ i: each aᵢ gets the sum of the later gradients"

    @staticmethod
    def forward(ctx, a, dim, dtype=None):
        ctx.dim = dim
        if a.ndim == 0:
            return a.astype(dtype) if dtype is not None else a.copy()
        if dtype is None and a.dtype == np.float16:
            # Added up in float16, 1 + 1 + ... stalls at 2048: accumulate in float32 and
            # round back, as PyTorch's CPU kernel does.
            out = row_major(np.cumsum(a, axis=dim, dtype=np.float32).astype(np.float16))
        else:
            out = row_major(np.add.accumulate(a, axis=dim, dtype=dtype))  # (see cumprod)
        if out.dtype.kind == "f":
            # PyTorch's running sum starts from +0.0, so no partial sum is -0.0 (+0.0 +
            # -0.0 is +0.0); NumPy's starts from the first element and keeps a leading
            # -0.0. Adding +0.0 changes exactly those zeros (1/x and atan2 tell them apart).
            out += 0.0
        return out

    @staticmethod
    def backward(ctx, grad):
        shape = np.shape(grad)
        if math.prod(shape) <= 1 or shape[ctx.dim] == 1:  # PyTorch's trivial cases (one
            return grad  # element, or none): the gradient as it is (no flips recorded)
        return reverse_cumsum(grad, ctx.dim)


class CumprodBackward0(Op):
    saved_names = ("self", "result")  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim", lambda node: node.dim)}
    formula = "∂(cumprod a)ₖ/∂aᵢ = Π_{j ≤ k, j ≠ i} aⱼ for k ≥ i"

    @staticmethod
    def forward(ctx, a, dim, dtype=None):
        ctx.dim = dim
        if a.ndim == 0:
            out = a.astype(dtype) if dtype is not None else a.copy()
        else:
            # the ufunc's own accumulate: a warning (inf · 0) is then raised from this
            # module, where teachgrad's filter silences it (np.cumprod's comes from NumPy's)
            out = row_major(np.multiply.accumulate(a, axis=dim, dtype=dtype))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        shape = np.shape(a)
        if not shape or shape[ctx.dim] == 1 or 0 in shape:  # the identity (PyTorch's
            return grad  # shortcut: dividing by an inf or nan input would give nan)
        zero = _value(a) == 0
        if not zero.any():
            return reverse_cumsum(grad * out, ctx.dim) / a
        if isinstance(grad, Tensor):  # under create_graph: PyTorch's O(n²) formula
            return _cumprod_backward_recorded(grad, a, ctx.dim)
        # A plain backward follows PyTorch's O(n) one, nan and inf included: before a
        # slice's first zero, the division by aᵢ (so a slice without zeros gives what the
        # zero-free formula gives); at the first zero, the product formula; after it, 0.
        dim = ctx.dim
        seen = np.cumsum(zero, axis=dim)
        before = seen == 0
        w = np.where(before, out * grad, 0)
        divided = reverse_cumsum(w, dim) / np.where(before, a, 1)
        # At the first zero z: (Π_{j<z} aⱼ)·(grad_z + Σ_{z<k<z₂} grad_k·Π_{z<j≤k} aⱼ), in
        # that order, as PyTorch (−∞·(g − 2.157g) is +∞, not nan), the sum stopping before
        # the second zero z₂ (its terms are 0, and 0·∞ would be nan).
        position = np.arange(a.shape[dim]).reshape([-1 if d == dim else 1
                                                    for d in range(a.ndim)])
        z = np.argmax(zero, axis=dim, keepdims=True)
        head = np.prod(np.where(position < z, a, 1), axis=dim, keepdims=True)
        tail = np.cumprod(np.where(position > z, a, 1), axis=dim)
        at_zero = head * np.sum(np.where(seen == 1, grad * tail, 0), axis=dim, keepdims=True)
        return np.where(before, divided, np.where(zero & (seen == 1), at_zero, 0))


def _cumprod_backward_recorded(grad: Tensor, a: Tensor, dim: int) -> Tensor:
    """cumprod's gradient at zeros under create_graph, PyTorch's loop step for step.

    ``gradₖ = Σ_{m ≥ k} grad_m · Π_{j ≤ m, j ≠ k} aⱼ``: for each k, the products that omit
    aₖ (those before it times the running products after it), written into row k of a
    zero tensor. Its graph is PyTorch's: a CopySlices per k over SumBackward1 nodes.
    """
    from .. import _creation
    from . import shape

    n = a.shape[dim]
    grad_input = _creation.zeros(a.shape, dtype=grad.dtype)
    ones_size = list(a.shape)
    ones_size[dim] = 1
    ones = _creation.ones(1, dtype=grad.dtype).expand(ones_size)
    for k in range(n):
        after = shape.narrow(a, dim, k + 1, n - k - 1)
        if k == 0:
            omitted = shape.cat([ones, cumprod(after, dim)], dim)
        elif k == n - 1:
            omitted = prod(shape.narrow(a, dim, 0, k), dim, keepdim=True)
        else:
            until_k = prod(shape.narrow(a, dim, 0, k), dim, keepdim=True)
            from_k_plus_1 = cumprod(after, dim)
            omitted = shape.cat([until_k, until_k.expand_as(from_k_plus_1) * from_k_plus_1],
                                  dim)
        grad_slice = sum(shape.narrow(grad, dim, k, n - k) * omitted, dim)
        grad_input.select(dim, k).copy_(grad_slice)
    return grad_input


def _cumulative(op: type[Op], input: Tensor, dim: int, dtype) -> Tensor:
    d = _wrap_dim(dim, input._data.ndim)
    out = op.apply(input, dim=d, dtype=_sum_dtype(input, dtype))
    if d != dim:  # (grad_fn._saved_dim shows the dim as given: see saved_values)
        keep_given(out, op, dim=dim)
    return out


@tensor_method()
@checks_types("cumsum", "(int dim, *, torch.dtype dtype = None)")
def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Running sum along ``dim``.

    >>> import teachgrad as torch
    >>> torch.tensor([1., 2., 3.]).cumsum(0)
    tensor([1., 3., 6.])
    """
    return _cumulative(CumsumBackward0, input, dim, dtype)


@tensor_method()
@checks_types("cumprod", "(int dim, *, torch.dtype dtype = None)")
def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Running product along ``dim`` (gradient exact at zeros).

    >>> import teachgrad as torch
    >>> torch.tensor([1., 2., 3.]).cumprod(0)
    tensor([1., 2., 6.])
    """
    return _cumulative(CumprodBackward0, input, dim, dtype)


# ----------------------------------------------------------------------------------------
# cummax / cummin / logcumsumexp: the other running reductions
# ----------------------------------------------------------------------------------------
return_types_cummax = _return_type("cummax")
return_types_cummin = _return_type("cummin")


def _running_extreme(a: np.ndarray, dim: int, ufunc) -> tuple[np.ndarray, np.ndarray]:
    """Running max (or min) along ``dim`` and where it was found, as PyTorch counts it.

    The index is the *last* position that set the running value: a tie takes the newer
    index, and once a NaN appears the value stays NaN (each later NaN takes over the index).
    """
    values = ufunc.accumulate(a, axis=dim)  # np.maximum propagates NaN, as PyTorch does
    sets_value = a == values
    if a.dtype.kind == "f":
        sets_value |= np.isnan(a) & np.isnan(values)
    positions = np.arange(a.shape[dim]).reshape([-1 if d == dim else 1 for d in range(a.ndim)])
    indices = np.maximum.accumulate(np.where(sets_value, positions, -1), axis=dim)
    return values, indices.astype(np.int64)


class _CumulativeExtreme(Op):
    """cummax / cummin: each output is one input element, so the gradient goes back to the
    index it came from (an element that stays the max for k steps collects k gradients)."""

    saved_names = ("self", "indices")  # grad_fn._saved_...
    formula = "∂(cummax a)ₖ/∂aᵢ = 1 if i is the index of the running max at k, else 0"
    ufunc = np.maximum

    saved_attributes = {"dim": given("dim", lambda node: node.dim)}  # grad_fn._saved_...

    @classmethod
    def forward(cls, ctx, a, dim):
        ctx.shape, ctx.dim = a.shape, dim
        if a.ndim == 0:
            values, indices = a.copy(), np.zeros((), np.int64)
        else:
            values, indices = _running_extreme(a, dim, cls.ufunc)
            # fresh row-major results, as PyTorch's cumulative ops allocate
            values, indices = row_major(values), row_major(indices)
        # (the input too, as PyTorch keeps it: a later in-place change of it makes
        # backward refuse, though the gradient needs only its shape)
        ctx.save_for_backward(a, indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad, _grad_indices=None):
        from .index import IndexPutImplBackward0, key_along  # (index imports this module)
        from .shape import embed

        _, indices = ctx.saved_tensors
        if not ctx.shape:
            return grad
        # scatter_add: out[indices[k]] += grad[k] along dim (repeats add up)
        return embed(grad, ctx.shape, key_along(_value(indices), ctx.dim), IndexPutImplBackward0)


class CummaxBackward0(_CumulativeExtreme):
    inference_out_name = "cummax"  # (see Op: PyTorch's composite writes through cummax_out)
    pass


class CumminBackward0(_CumulativeExtreme):
    formula = "∂(cummin a)ₖ/∂aᵢ = 1 if i is the index of the running min at k, else 0"
    ufunc = np.minimum


def _cumulative_extreme(op: type[Op], result: type, input: Tensor, dim: int):
    d = _wrap_dim(dim, input._data.ndim)
    values, indices = op.apply(input, dim=d)
    if d != dim:
        keep_given(values, op, dim=dim)  # (shown as given: see saved_values)
    return result(values, indices)


@tensor_method()
@checks_types("cummax", "(int dim)", function=(
    "(Tensor input, int dim, *, tuple of Tensors out = None)",))
def cummax(input: Tensor, dim: int) -> return_types_cummax:
    """The running maximum along ``dim`` and the index where each was found.

    >>> import teachgrad as torch
    >>> torch.tensor([1., 3., 2., 5.]).cummax(0)
    teachgrad.return_types.cummax(
    values=tensor([1., 3., 3., 5.]),
    indices=tensor([0, 1, 1, 3]))
    """
    return _cumulative_extreme(CummaxBackward0, return_types_cummax, input, dim)


@tensor_method()
@checks_types("cummin", "(int dim)", function=(
    "(Tensor input, int dim, *, tuple of Tensors out = None)",))
def cummin(input: Tensor, dim: int) -> return_types_cummin:
    """The running minimum along ``dim`` and the index where each was found."""
    return _cumulative_extreme(CumminBackward0, return_types_cummin, input, dim)


def _logcumsumexp(x, dim: int):
    """``log Σ_{j ≤ i} exp(x_j)`` along ``dim``: NumPy's running logaddexp on arrays, the
    teachgrad op on tensors (so the backward below can be differentiated again)."""
    if isinstance(x, Tensor):
        return logcumsumexp(x, dim)
    if x.dtype == np.float16:  # as PyTorch: add up in float32, round back
        return np.logaddexp.accumulate(x.astype(np.float32), axis=dim).astype(np.float16)
    return np.logaddexp.accumulate(x, axis=dim)


class LogcumsumexpBackward0(Op):
    formula = "∂(logcumsumexp a)ₖ/∂aᵢ = exp(aᵢ − outₖ) for k ≥ i (a running softmax)"
    saved_names = ("self", "result")  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim", lambda node: node.dim)}

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        out = a.copy() if a.ndim == 0 else row_major(_logcumsumexp(a, dim))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if np.ndim(a) == 0:
            return grad
        # gradᵢ = Σ_{k ≥ i} gₖ·exp(aᵢ − outₖ), in log space so that nothing overflows: the
        # positive and negative gₖ separately (PyTorch's formula, from TensorFlow's).
        dim = ctx.dim
        raw = _value(grad)
        lowest = np.finfo(np.asarray(raw).dtype).min
        with np.errstate(divide="ignore", invalid="ignore"):
            log_abs = np.log(np.abs(grad))

            def part(mask):
                logs = np.where(mask, log_abs, lowest) - out
                return np.exp(np.flip(_logcumsumexp(np.flip(logs, dim), dim), dim) + a)

            return part(raw > 0) - part(raw < 0)


@tensor_method()
@checks_types("logcumsumexp", "(int dim)", function=(
    "(Tensor input, int dim, *, Tensor out = None)",))
def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input), dim))``, computed without overflow.

    >>> import teachgrad as torch
    >>> torch.tensor([0., 0., 10.]).logcumsumexp(0)
    tensor([ 0.0000,  0.6931, 10.0001])
    """
    wrapped = _wrap_dim(dim, input._data.ndim)  # (PyTorch checks dim before the dtype)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{_scalar_type_name(input)}'"
        )
    out = LogcumsumexpBackward0.apply(input, dim=wrapped)
    if dim < 0:
        keep_given(out, LogcumsumexpBackward0, dim=dim)  # (shown as given)
    return out


# ----------------------------------------------------------------------------------------
# aminmax, std_mean / var_mean: two reductions in one node
# ----------------------------------------------------------------------------------------
return_types_aminmax = _return_type("aminmax", ("min", "max"))


class AminmaxBackward0(Op):
    formula = "min and max at once: each gradient is shared by the elements that tie for it"
    saved_names = ("self", "min", "max")  # grad_fn._saved_..., as PyTorch's
    saved_attributes = {"dim": given("dim"), "keepdim": "keepdim"}  # (dim as aminmax got it)
    # An output nobody used sends no gradient (None, not zeros): with a nan in a slice a
    # zero gradient would still give 0 / 0 = nan, and with ties 0 instead of -0. as PyTorch.
    materialize_grads = False

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.dims, ctx.keepdim = dims, keepdim
        low = np.asarray(np.amin(a, axis=dims, keepdims=keepdim))
        high = np.asarray(np.amax(a, axis=dims, keepdims=keepdim))
        ctx.save_for_backward(a, low, high)
        return low, high

    @staticmethod
    def backward(ctx, grad_min, grad_max):
        a, low, high = ctx.saved_tensors
        total = None
        for grad, out in ((grad_min, low), (grad_max, high)):  # amin's and amax's gradients
            if grad is not None:
                part = scale_grad_by_count(
                    grad, _equal_to_reduced(a, out, ctx.dims, ctx.keepdim), ctx.dims, ctx.keepdim)
                total = part if total is None else total + part
        return total


@tensor_method()
@checks_types("aminmax", "(*, int? dim = None, bool keepdim = False)", function=(
    "(Tensor input, *, int? dim = None, bool keepdim = False, tuple of Tensors out = None)",))
def aminmax(input: Tensor, *, dim: int | None = None,
            keepdim: bool = False) -> return_types_aminmax:
    """``(min, max)`` of all elements, or along ``dim``, in one pass: a named tuple.

    >>> import teachgrad as torch
    >>> torch.aminmax(torch.tensor([[1., 5.], [3., 2.]]), dim=0)
    teachgrad.return_types.aminmax(
    min=tensor([1., 2.]),
    max=tensor([3., 5.]))
    """
    ndim = input._data.ndim
    if dim is None:
        if input._data.size == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity."
            )
        dims = tuple(range(ndim)) if keepdim else None
    else:
        d = _wrap_dim(dim, ndim)
        dims = (d,) if ndim else ()
        if ndim and input._data.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    low, high = AminmaxBackward0.apply(input, dims=dims, keepdim=keepdim)
    keep_given(low, AminmaxBackward0, dim=dim)  # (a rare op: kept always, None included)
    return return_types_aminmax(low, high)


class VarMeanBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_... (var's forward saves it)
    saved_attributes = _VAR_SAVED
    formula = "var and mean at once: ∂var/∂aᵢ = 2·(aᵢ − mean)/(N − correction), ∂mean/∂aᵢ = 1/N"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        variance = VarBackward0.forward(ctx, a, dims, correction, keepdim)
        ctx.shape = a.shape
        return variance, np.asarray(mean_of(a, axis=dims, keepdims=keepdim))

    materialize_grads = False  # an unused output adds nothing (no AddBackward0), as PyTorch

    @staticmethod
    def backward(ctx, grad_var, grad_mean):
        return _sum_defined(VarBackward0.backward(ctx, grad_var) if grad_var is not None else None,
                            _mean_grad(ctx, grad_mean) if grad_mean is not None else None)


class StdMeanBackward0(Op):
    saved_names = ("self", "result0")  # grad_fn._saved_... (std's forward saves them)
    saved_attributes = _VAR_SAVED
    formula = "std and mean at once: ∂std/∂aᵢ = (aᵢ − mean)/((N − correction)·std), ∂mean/∂aᵢ = 1/N"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        deviation = StdBackward0.forward(ctx, a, dims, correction, keepdim)
        ctx.shape = a.shape
        return deviation, np.asarray(mean_of(a, axis=dims, keepdims=keepdim))

    materialize_grads = False  # an unused output adds nothing (no AddBackward0), as PyTorch

    @staticmethod
    def backward(ctx, grad_std, grad_mean):
        return _sum_defined(StdBackward0.backward(ctx, grad_std) if grad_std is not None else None,
                            _mean_grad(ctx, grad_mean) if grad_mean is not None else None)


def _sum_defined(a, b):
    """``a + b`` where both are gradients; the one that is, where the other is ``None``."""
    return b if a is None else a if b is None else a + b


def _mean_grad(ctx, grad):
    """The gradient of the mean part: 1/N for every element that was averaged."""
    return unreduce(grad / builtins.max(_count(ctx.shape, ctx.dims), 1), ctx.shape, ctx.dims,
                    ctx.keepdim)


@numpy_names
def var_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction=None) -> tuple[Tensor, Tensor]:
    """``(var, mean)`` over ``dim`` in one node (the arguments of :func:`var`).

    >>> import teachgrad as torch
    >>> torch.var_mean(torch.tensor([1., 2., 3., 4.]))
    (tensor(1.6667), tensor(2.5000))
    """
    _require_floating(input, "var_mean only support floating point and complex dtypes")
    dims, c, keepdim = _var_args("var_mean", input, dim, unbiased, keepdim, correction)
    out = VarMeanBackward0.apply(input, dims=dims, correction=c, keepdim=keepdim)
    keep_given(out, VarMeanBackward0, correction=_shown_correction(dim, unbiased, correction),
               dim=None if isinstance(dim, bool) else _given_dims(dim))
    return out


@numpy_names
def std_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction=None) -> tuple[Tensor, Tensor]:
    """``(std, mean)`` over ``dim`` in one node (the arguments of :func:`std`)."""
    _require_floating(input, "std_mean only support floating point and complex dtypes")
    dims, c, keepdim = _var_args("std_mean", input, dim, unbiased, keepdim, correction)
    out = StdMeanBackward0.apply(input, dims=dims, correction=c, keepdim=keepdim)
    keep_given(out, StdMeanBackward0, correction=_shown_correction(dim, unbiased, correction),
               dim=None if isinstance(dim, bool) else _given_dims(dim))
    return out


var_mean = _parsed_like_pytorch("var_mean", var_mean, has_out=False)[0]
std_mean = _parsed_like_pytorch("std_mean", std_mean, has_out=False)[0]


# ----------------------------------------------------------------------------------------
# nansum / nanmean: sum and mean that skip NaN
# ----------------------------------------------------------------------------------------
class NansumBackward0(Op):
    formula = "∂(Σ non-NaN a)/∂aᵢ = 1, and 0 where aᵢ is NaN"
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim"), "keepdim": "keepdim"}  # (dim: see nansum)

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype=None):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        ctx.save_for_backward(a)
        if a.dtype.kind != "f":
            return np.asarray(_sum(a, dims, keepdim, dtype))
        return np.asarray(_sum(np.where(np.isnan(a), 0, a), dims, keepdim, dtype))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        raw = _value(a)
        if raw.dtype.kind != "f":
            return unreduce(grad, ctx.shape, ctx.dims, ctx.keepdim)
        # A product with the mask, not np.where: a NaN gradient stays NaN (PyTorch's rule).
        kept = np.logical_not(np.isnan(raw)).astype(raw.dtype)
        return unreduce(grad, ctx.shape, ctx.dims, ctx.keepdim) * kept


@tensor_method()
@checks_types("nansum",
              "(tuple of ints[1]? dim = None, bool keepdim = False, *, torch.dtype dtype = None)",
              function=("(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, *, "
                        "torch.dtype dtype = None, Tensor out = None)",))
def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum over ``dim`` (all elements by default), counting NaN as zero.

    >>> import teachgrad as torch
    >>> torch.tensor([1., float('nan'), 2.]).nansum()
    tensor(3.)
    """
    dims = normalize_dims(dim, input._data.ndim)
    if keepdim and dims is None:
        dims = tuple(range(input._data.ndim))
    out = NansumBackward0.apply(input, dims=dims, keepdim=keepdim,
                                dtype=_sum_dtype(input, dtype))
    keep_given(out, NansumBackward0, dim=_given_dims(dim))
    return out


@tensor_method()
@checks_types("nanmean",
              "(tuple of ints[1]? dim = None, bool keepdim = False, *, torch.dtype dtype = None)",
              function=("(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, *, "
                        "torch.dtype dtype = None, Tensor out = None)",))
def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean over ``dim`` of the elements that are not NaN (NaN if there are none).

    As in PyTorch it is ``nansum(input) / (number of non-NaN elements)``.

    >>> import teachgrad as torch
    >>> torch.tensor([1., float('nan'), 2.]).nanmean()
    tensor(1.5000)
    """
    if input._data.dtype.kind != "f":  # (the input's own dtype, even with dtype=)
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{_scalar_type_name(input)}"
        )
    if dtype is not None:
        input = input.to(dtype)
    counts = _make(np.logical_not(np.isnan(input._data)))
    return nansum(input, dim, keepdim) / sum(counts, dim, keepdim)


# ----------------------------------------------------------------------------------------
# all / any / count_nonzero: not differentiable
# ----------------------------------------------------------------------------------------
def _logical_reduction(np_fn, input: Tensor, dim, keepdim: bool) -> Tensor:
    dims = normalize_dims(dim, input._data.ndim)
    out = np.asarray(np_fn(input._data, axis=dims, keepdims=keepdim))
    if input._data.dtype == np.uint8:  # PyTorch keeps uint8 for uint8 input
        out = out.astype(np.uint8)
    return _make(out)


@tensor_method()
@checks_types("all", "()", "(tuple of ints? dim = None, bool keepdim = False)",
              "(int dim, bool keepdim = False)")
def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True if every element (over ``dim``) is non-zero; a bool tensor.

    >>> import teachgrad as torch
    >>> torch.tensor([1., 0.]).all()
    tensor(False)
    """
    return _logical_reduction(np.all, input, dim, keepdim)


@tensor_method()
@checks_types("any", "()", "(tuple of ints? dim = None, bool keepdim = False)",
              "(int dim, bool keepdim = False)")
def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True if some element (over ``dim``) is non-zero; a bool tensor."""
    return _logical_reduction(np.any, input, dim, keepdim)


@tensor_method()
@checks_types("count_nonzero", "(int? dim = None)", "(tuple of ints dim)")
def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """How many elements (over ``dim``) are non-zero, as int64.

    >>> import teachgrad as torch
    >>> torch.tensor([[0., 1.], [2., 3.]]).count_nonzero(1)
    tensor([1, 2])
    """
    dims = normalize_dims(dim, input._data.ndim)
    return _make(np.asarray(np.count_nonzero(input._data, axis=dims), dtype=np.int64))


# ----------------------------------------------------------------------------------------
# NumPy functions the backward formulas above call, routed to teachgrad ops when they
# receive tensors (create_graph=True), so second derivatives work. (np.flip, used by
# reverse_cumsum, is routed by the shape family.)
# ----------------------------------------------------------------------------------------
@numpy_protocol.register(np.prod)
def _np_prod(a, axis=None, dtype=None, out=None, keepdims=False, **_):
    if axis is None:
        out = prod(a)
        return out.reshape((1,) * a.ndim) if keepdims else out
    (d,) = normalize_dims(axis, a.ndim) if a.ndim else (0,)
    return prod(a, d, keepdim=keepdims)


@numpy_protocol.register(np.cumsum)
def _np_cumsum(a, axis=None, dtype=None, out=None):
    return cumsum(a if axis is not None else a.reshape(-1), 0 if axis is None else axis)


@numpy_protocol.register(np.cumprod)
def _np_cumprod(a, axis=None, dtype=None, out=None):
    return cumprod(a if axis is not None else a.reshape(-1), 0 if axis is None else axis)


@numpy_protocol.register(np.amax)
def _np_amax(a, axis=None, out=None, keepdims=False, **_):
    return amax(a, () if axis is None else axis, keepdims)


@numpy_protocol.register(np.amin)
def _np_amin(a, axis=None, out=None, keepdims=False, **_):
    return amin(a, () if axis is None else axis, keepdims)


__all__ = [
    "sum", "mean", "prod", "max", "min", "median",
    "amax", "amin", "argmax", "argmin", "var", "std", "norm", "logsumexp", "cumsum", "cumprod",
    "all", "any", "count_nonzero", "cummax", "cummin", "logcumsumexp", "aminmax", "var_mean",
    "std_mean", "nansum", "nanmean",
]
