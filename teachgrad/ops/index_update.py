"""Updating a copy at indices: index_add, index_copy, index_fill, scatter_reduce,
masked_scatter, put (and their in-place forms ``index_add_`` ... ``put_``).

They are the writing side of :mod:`.index` (which has ``scatter``, ``scatter_add`` and
``index_put``). Each returns a copy of ``input`` changed at some positions; the gradients
follow from what happened at each position:

* a position that was *overwritten* (index_copy, index_fill, masked_scatter, put) gives
  its old value no gradient, and the written value gets the gradient there
* a position that was *added to* (index_add, put with accumulate) passes the gradient to
  both the old value and the added one
* ``scatter_reduce`` combines with sum, prod, mean, amax or amin, and each source gets the
  derivative of that combination (PyTorch's formulas, ties in amax/amin shared)

The masks and positions are constants computed from the indices, so the backward is made
of gathers (``grad[key]``) and ``np.where`` and is itself differentiable. Each op also saves
the index (or mask) array it was given, ``index`` (PyTorch's ``_saved_index``), and its
backward reads it back: changed in place since, backward refuses (index.saving_indices).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._missing_arguments import REQUIRED, missing
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _make, _wrap_dim, python_type_name, tensor_method
from ..autograd.graph import save_input
from .fill_value import check_fill_value
from .index import (
    GatherBackward0,
    IndexPutImplBackward0,
    ScatterBackward1,
    _broadcast_shape,
    _check_bounds,
    _check_scatter_sizes,
    _integer_index,
    _region,
    _type_name,
    key_along,
    saving_indices,
)
from .inplace import EXPANDED_WRITERS, inplace_method, warn_expanded_write
from .number_factor import times_number
from .op import NO_CONTEXT, Op
from .pointwise import _value
from .saved_values import given, keep_given
from .shape import SliceBackwardBackward0, _along, _shape_str, embed


def _positions(shape: tuple, key: tuple) -> np.ndarray:
    """A bool mask of ``shape``, True where ``key`` points (a constant)."""
    mask = np.zeros(shape, bool)
    mask[key] = True
    return mask


# ----------------------------------------------------------------------------------------
# index_add, index_copy, index_fill: whole slices along a dimension
# ----------------------------------------------------------------------------------------
class IndexAddBackward0(Op):

    reads_index_tensor = True  # (see Op)
    formula = "∂/∂input = 1    ∂/∂source = α · the gradient at the slice it was added to"

    # PyTorch keeps source when it needs a gradient (its formula's expand_as(source)): an
    # in-place change of it then makes backward refuse. (dim as given, see index_add)
    saved_names = ("index", "source")
    saved_attributes = {"alpha": "alpha", "dim": given("dim"),
                        "source_dim": given("source_dim")}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, source, key, alpha, index=()):
        ctx.save_for_backward(*(index or (None,)), None)  # (source: see _saving_source)
        ctx.key, ctx.alpha = key, alpha
        out = a.copy()
        np.add.at(out, key, source if alpha == 1 else alpha * source)
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only
        return grad, _source_grad(grad, ctx.key, ctx.alpha)


def _saving_source(out: Tensor, source: Tensor) -> Tensor:
    """``out``, its node keeping ``source`` when source needs a gradient, as PyTorch's
    index_add and index_copy do (their formula reads ``expand_as(source)``): changed in
    place since, backward refuses. Saved after the index, PyTorch's order (graph.save_input)."""
    if out._grad_fn is not None and source.requires_grad:
        save_input(out, 1, source)
    return out


def _source_grad(grad, key: tuple, alpha=1):
    """index_add's and index_copy's gradient for source: the slices of ``grad`` it went to,
    times alpha. PyTorch's formula is grad.index_select(dim, index).expand_as(source) (times
    alpha, a number), so under create_graph the graph ends in ExpandBackward0, or in
    MulBackward1 (focused fuzz seeds 81, 1108, 1416)."""
    part = grad[key]
    if not isinstance(part, Tensor):
        return part if alpha == 1 else part * alpha
    if part._data.ndim:
        part = part.expand(part.shape)
    return part if alpha == 1 else times_number(part, alpha)


class IndexCopyBackward0(Op):

    reads_index_tensor = True  # (see Op)
    formula = "∂/∂input = 0 at the copied slices, else 1    ∂/∂source = the gradient there"

    saved_names = ("index", "source")  # (as index_add's)
    saved_attributes = {"dim": given("dim"), "source_dim": given("source_dim")}

    @staticmethod
    def forward(ctx, a, source, key, index=()):
        ctx.save_for_backward(*(index or (None,)), None)  # (source: see _saving_source)
        ctx.key = key
        out = a.copy()
        out[key] = source  # a repeated index: the last copy wins, as in PyTorch
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only
        written = _positions(np.shape(grad), ctx.key)
        return np.where(written, 0, grad), _source_grad(grad, ctx.key)


class IndexFillBackward0(Op):

    reads_index_tensor = True  # (see Op)
    formula = "∂/∂input = 0 at the filled slices, else 1"

    saved_names = ("index",)
    saved_attributes = {"dim": given("dim")}  # grad_fn._saved_... (as index_fill was given it)

    @staticmethod
    def forward(ctx, a, key, value, index=()):
        ctx.save_for_backward(*index)
        ctx.key = key
        out = a.copy()
        out[key] = value
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only
        return np.where(_positions(np.shape(grad), ctx.key), 0, grad)


class IndexFillBackward1(Op):

    reads_index_tensor = True  # (see Op)
    formula = "∂/∂input = 0 at the filled slices, else 1    ∂/∂value = Σ the gradient there"

    saved_names = ("index",)
    saved_attributes = {"dim": given("dim")}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, value, key, index=()):
        ctx.save_for_backward(*index)
        ctx.key = key
        out = a.copy()
        out[key] = value
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only
        written = _positions(np.shape(grad), ctx.key)  # (a repeated index counts once)
        return np.where(written, 0, grad), np.sum(np.where(written, grad, 0))


def _slice_key(input: Tensor, dim: int, index: Tensor, name: str, dtypes: tuple,
               dtype_message: str, out_of_bounds: type[Exception]) -> tuple:
    """``(dim, indices, NumPy key)`` of whole slices ``index`` along ``dim``, after PyTorch's
    checks (a 0-d input is read as a vector of one element)."""
    if not isinstance(index, Tensor) or index._data.dtype not in dtypes:
        got = _type_name(index) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(dtype_message.format(got=got))
    idx = index._data
    if idx.ndim > 1:
        raise IndexError(
            f"{name}(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
            f"{_type_name(index)} and size: {_shape_str(idx.shape)}"
        )
    d = _wrap_dim(dim, input._data.ndim)
    idx = idx.reshape(-1).astype(np.int64)
    size = input._data.shape[d] if input._data.ndim else 1
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        prefix = f"{name}(): " if out_of_bounds is IndexError else ""
        raise out_of_bounds(
            f"{prefix}index {idx[bad][0]} is out of bounds for dimension {d} with size {size}"
        )
    return d, idx, _along(d, idx) if input._data.ndim else (idx,)


def _check_source(input: Tensor, source: Tensor, d: int, count: int, name: str) -> None:
    if not isinstance(source, Tensor):
        raise TypeError(
            f"{name[:-1]}(): argument 'source' (position 3) must be Tensor, not "
            f"{python_type_name(source)}" + real_pytorch_hint(source)
        )
    shape, src = input._data.shape, source._data.shape
    if len(src) != len(shape) or any(a != b for k, (a, b) in enumerate(zip(shape, src)) if k != d):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {_shape_str(shape)} source.shape = {_shape_str(src)}"
        )


@tensor_method()
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """A copy of ``input`` with ``alpha * source[i]`` added to slice ``index[i]`` along ``dim``
    (a repeated index adds up).

    >>> import teachgrad as torch
    >>> torch.zeros(3).index_add(0, torch.tensor([0, 0, 2]), torch.tensor([1., 2., 3.]))
    tensor([3., 0., 3.])
    """
    d, idx, key = _slice_key(
        input, dim, index, "index_add_", (np.int64, np.int32),
        "index_add_(): Expected dtype int32/int64 for index but got: {got}", RuntimeError)
    if (input._data.ndim and isinstance(source, Tensor) and source._data.ndim
            and source._data.shape[d] != idx.size):
        raise RuntimeError(
            f"index_add_(): Number of indices ({idx.size}) should be equal to "
            f"source.size(dim): ({source._data.shape[d]}), for dim: {d}"
        )
    if isinstance(source, Tensor) and source._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"index_add_(): self ({_type_name(input)}) and source ({_type_name(source)}) must "
            "have the same scalar type"
        )
    _check_source(input, source, d, idx.size, "index_add_")
    out = IndexAddBackward0.apply(input, source, key=key, alpha=alpha, index=(index._data,))
    keep_given(out, IndexAddBackward0, dim=dim, source_dim=source._data.ndim)
    return _saving_source(saving_indices(out, (index,)), source)


@tensor_method()
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` whose slice ``index[i]`` along ``dim`` is ``source``'s slice ``i``.

    >>> import teachgrad as torch
    >>> torch.zeros(3).index_copy(0, torch.tensor([2, 0]), torch.tensor([5., 6.]))
    tensor([6., 0., 5.])
    """
    d, idx, key = _slice_key(
        input, dim, index, "index_copy_", (np.int64,),
        "index_copy_(): Expected a long tensor for index, but got {got}", IndexError)
    if isinstance(source, Tensor) and input._data.ndim and source._data.ndim and (
            source._data.shape[d] != idx.size):
        raise IndexError(
            f"index_copy_(): Number of indices ({idx.size}) should be equal to "
            f"source.size(dim) ({source._data.shape[d]})"
        )
    _check_source(input, source, d, idx.size, "index_copy_")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{_type_name(input)} and (source) {_type_name(source)}"
        )
    out = IndexCopyBackward0.apply(input, source, key=key, index=(index._data,))
    keep_given(out, IndexCopyBackward0, dim=dim, source_dim=source._data.ndim)
    return _saving_source(saving_indices(out, (index,)), source)


@tensor_method()
def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """A copy of ``input`` with ``value`` (a number or a 0-d tensor) in the slices ``index``
    along ``dim``; negative indices count from the end.

    >>> import teachgrad as torch
    >>> torch.zeros(2, 3).index_fill(1, torch.tensor([0, -1]), 7.)
    tensor([[7., 0., 7.],
            [7., 0., 7.]])
    """
    message = "index_fill_(): Expected dtype int64 for index."
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        raise IndexError(message)
    if index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d] if input._data.ndim else 1
    idx = index._data.reshape(-1)
    bad = (idx < -size) | (idx >= size)
    if bad.any():
        raise IndexError(f"index {idx[bad][0]} is out of bounds for dimension {d} with size {size}")
    idx = idx % size
    key = _along(d, idx) if input._data.ndim else (idx,)
    source = input if input._data.ndim else input.reshape(1)  # 0-d: a vector of one
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        if value._data.dtype != input._data.dtype:
            value = value.to(input.dtype)
        out = IndexFillBackward1.apply(source, value, key=key, index=(index._data,))
    elif isinstance(value, (numbers.Number, np.generic)):
        if isinstance(value, (complex, np.complexfloating)) and input._data.dtype.kind != "c":
            raise RuntimeError(
                "index_fill_(): Converting complex Scalar to non-complex type is not supported"
            )
        value = check_fill_value(value, input._data.dtype)
        out = IndexFillBackward0.apply(source, key=key, value=value, index=(index._data,))
    else:
        raise TypeError(
            f"index_fill(): argument 'value' must be Number, not {type(value).__name__}"
        )
    keep_given(out, (IndexFillBackward0, IndexFillBackward1), dim=dim)
    saving_indices(out, (index,))
    return out if input._data.ndim else out.reshape(())


# ----------------------------------------------------------------------------------------
# scatter_reduce
# ----------------------------------------------------------------------------------------
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _identity(reduce: str, dtype: np.dtype):
    """The value that leaves a reduction unchanged: what ``include_self=False`` starts from."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    big = np.inf if dtype.kind == "f" else info.max
    return -big if reduce == "amax" and dtype.kind == "f" else (
        info.min if reduce == "amax" else big)


class ScatterReduceBackward0(Op):

    reads_index_tensor = True  # (see Op)
    saved_names = ("self", "src", "result", "index")  # grad_fn._saved_..., as PyTorch's
    saved_attributes = {"dim": given("dim"), "include_self": "include_self", "reduce": "reduce"}
    picks = GatherBackward0  # (prod's gradient under create_graph picks with PyTorch's gather)
    clears = ScatterBackward1  # (include_self=False: self's gradient scattered to 0 there)
    formula = (
        "scatter_reduce: each source (and the old value, if included) gets the derivative of "
        "the reduction it entered (sum: 1, mean: 1/count, prod: the product of the others, "
        "amax/amin: shared by the ties)"
    )

    @staticmethod
    def forward(ctx, a, src, key, reduce, include_self, index=()):
        ctx.key, ctx.reduce, ctx.include_self = key, reduce, include_self
        ctx.src_shape = src.shape  # src may be larger than the index: the rest is unused
        full_src, src = src, _region(src, key)
        out = a.copy()
        if not include_self:
            out[key] = _identity(reduce, a.dtype)
        if reduce in ("sum", "mean"):
            np.add.at(out, key, src)
        elif reduce == "prod":
            np.multiply.at(out, key, src)
        else:
            (np.maximum if reduce == "amax" else np.minimum).at(out, key, src)
        if reduce == "mean":
            count = np.full(a.shape, 1 if include_self else 0, np.int64)
            np.add.at(count, key, 1)
            count = np.maximum(count, 1)
            out = out // count if a.dtype.kind in "iu" else (out / count).astype(a.dtype)
        # the input array itself, so that changing src in place afterwards is detected
        # (and the index array after them, if given: see the module docstring)
        ctx.save_for_backward(a, full_src, out, *index)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, src, out = ctx.saved_tensors[:3]
        if np.shape(src) != np.broadcast_shapes(*(np.shape(k) for k in ctx.key)):
            src = _region(src, ctx.key)  # (src is larger than the index: the part it used)
        key, reduce, include_self = ctx.key, ctx.reduce, ctx.include_self
        shape = np.shape(grad)
        if reduce == "sum":
            grad_self, grad_src = grad, grad[key]
        elif reduce == "mean":
            count = np.full(shape, 1.0 if include_self else 0.0)
            np.add.at(count, key, 1.0)
            count = np.maximum(count, 1.0).astype(np.asarray(_value(out)).dtype)
            grad_self, grad_src = grad / count, grad[key] / count[key]
        elif reduce == "prod":
            grad_self, grad_src = _prod_grads(grad, a, src, out, key, include_self, type(ctx))
        else:  # amax / amin: the elements equal to the result share its gradient
            a_raw, src_raw, out_raw = _value(a), _value(src), _value(out)
            self_wins = (a_raw == out_raw).astype(out_raw.dtype)
            src_wins = (src_raw == out_raw[key]).astype(out_raw.dtype)
            winners = self_wins.copy()
            np.add.at(winners, key, src_wins)
            # As PyTorch: a product, so a nan result (no winner: grad / 0) gives nan.
            share = grad / winners
            grad_self, grad_src = share * self_wins, share[key] * src_wins
        if not include_self:  # the old values were not used: PyTorch scatters 0 over them
            clears = type(ctx).clears  # (index_reduce's: index_fill)
            grad_self = (clears.apply(grad_self, value=0, key=key)
                         if isinstance(grad_self, Tensor)
                         else clears.forward(NO_CONTEXT, grad_self, value=0, key=key))
        return grad_self, _full_src_grad(grad_src, ctx.src_shape)


def _full_src_grad(grad_src, src_shape: tuple):
    """``src``'s gradient in src's full shape: zero beyond the region the index used."""
    if tuple(np.shape(grad_src)) == tuple(src_shape):
        return grad_src
    if not src_shape:  # a 0-d src, read as a vector of one element
        return np.reshape(grad_src, ())
    region = tuple(slice(0, n) for n in np.shape(grad_src))
    return embed(grad_src, src_shape, region, SliceBackwardBackward0)


def _prod_grads(grad, a, src, out, key, include_self, node: type):
    """The gradients of ``out[p] = self[p] · Π src scattered to p``, as PyTorch computes them.

    Each factor's gradient is the product of the *other* factors, found without dividing
    by zero (PyTorch's ``scatter_reduce_backward``):

    - self: the product with self read as 1 where it is 0, divided by that 1 or self;
    - a source that is the only zero at its position: the product with it read as 1;
    - any other source: ``out / src`` (``out`` is 0 if another source there is 0).

    Written with NumPy calls on arrays, or recorded on tensors under ``create_graph``, so it
    differentiates again. As in PyTorch, that refuses for a position two zero sources
    reach ("Double backward is unsupported..."): the gradient there is not smooth.
    """
    a_raw, src_raw = _value(a), _value(src)
    masked_self = _masked_fill(a, a_raw == 0, 1)
    grad_self = grad * _scatter_prod(masked_self, src, key, include_self, node) / masked_self
    src_zero = src_raw == 0
    zeros_at = np.zeros(a_raw.shape, np.int64)
    np.add.at(zeros_at, key, src_zero.astype(np.int64))
    zeros_here = zeros_at[key]  # how many zero sources share each source's position
    only_zero = src_zero & (zeros_here == 1)
    with_it_as_one = _scatter_prod(a, _masked_fill(src, only_zero, 1), key, include_self,
                                   node)
    grad_src = np.where(only_zero, _gathered(grad * with_it_as_one, key, node),
                        _gathered(grad * out, key, node) / _masked_fill(src, src_zero, 1))
    if isinstance(grad_src, Tensor) and (zeros_here > 1).any():
        from ..autograd.function import DelayedError  # (not at the top: it imports ops)

        (grad_src,) = DelayedError.apply(grad_src, message=_PROD_TWICE)
    return grad_self, grad_src


def _masked_fill(t, mask: np.ndarray, value):
    """``t`` with ``value`` where ``mask``: PyTorch's masked_fill (MaskedFillBackward0) on a
    tensor under create_graph, ``np.where`` on arrays."""
    if type(t) is Tensor:
        return t.masked_fill(_make(mask), value)
    return np.where(mask, value, t)


def _gathered(t, key: tuple, node: type):
    """``t`` at scatter's ``key``: PyTorch's gather (GatherBackward0) on a tensor, or
    index_select (IndexSelectBackward0) for index_reduce (``node.picks``)."""
    if type(t) is Tensor:
        return node.picks.apply(t, key=key)
    return t[key]


_PROD_TWICE = ("scatter_reduce(): Double backward is unsupported for src when >1 zeros in src "
               "are scattered to the same position in self")


def _scatter_prod(a, src, key, include_self, node: type):
    """``a`` with ``src`` multiplied in at ``key``: scatter_reduce's forward (index_reduce's
    for ``node`` IndexReduceBackward0), recorded if a tensor is involved (under
    ``create_graph``)."""
    if isinstance(a, Tensor) or isinstance(src, Tensor):
        return node.apply(a, src, key=key, reduce="prod", include_self=include_self)
    return node.forward(NO_CONTEXT, a, src, key, "prod", include_self)


@tensor_method()
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """A copy of ``input`` where ``src[i]`` is combined into position ``index[i]`` along
    ``dim`` with ``reduce``: ``'sum'``, ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``.

    ``include_self=False`` leaves the old values out of the positions written to.

    >>> import teachgrad as torch
    >>> src = torch.tensor([1., 2., 3., 4.])
    >>> torch.zeros(2).scatter_reduce(0, torch.tensor([0, 1, 0, 1]), src, 'amax')
    tensor([3., 4.])
    """
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    idx = _integer_index(index, "scatter(): Expected dtype int64 for index", (np.int64, np.int32))
    d = _wrap_dim(dim, input._data.ndim)
    shape = input._data.shape
    if max(idx.ndim, 1) != max(len(shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if max(src._data.ndim, 1) != max(len(shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_scatter_sizes(idx, shape, d, src._data.shape)
    _check_bounds(idx, (shape or (1,))[d], d)
    # a 0-d index is read as a vector of one element (a 0-d src then broadcasts to it)
    key = key_along(idx, d) if idx.ndim else (idx.reshape(1),)
    if not shape:  # 0-d: read as vectors of one element
        one = ScatterReduceBackward0.apply(input.reshape(1), src, key=key,
                                           reduce=reduce, include_self=include_self,
                                           index=(index._data,))
        keep_given(one, ScatterReduceBackward0, dim=dim)
        return saving_indices(one, (index,), first=3).reshape(())
    out = ScatterReduceBackward0.apply(input, src, key=key, reduce=reduce,
                                       include_self=include_self, index=(index._data,))
    keep_given(out, ScatterReduceBackward0, dim=dim)  # (shown as given: see saved_values)
    return saving_indices(out, (index,), first=3)


# ----------------------------------------------------------------------------------------
# masked_scatter, put
# ----------------------------------------------------------------------------------------
class MaskedScatterBackward0(Op):

    reads_index_tensor = True  # (see Op)
    formula = "∂/∂input = 0 where the mask is true, else 1    ∂/∂source = the gradient there"

    saved_names = ("mask",)
    saved_attributes = {"source_sym_sizes": "source_shape"}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, source, mask, given_mask=None):
        if given_mask is not None:  # the mask as given, unbroadcast (PyTorch's _saved_mask)
            ctx.save_for_backward(given_mask)
        ctx.mask = mask
        ctx.source_shape = source.shape
        out = a.copy()
        count = int(mask.sum())
        out[mask] = source.reshape(-1)[:count]  # source's first elements, in order
        return out

    @staticmethod
    def backward(ctx, grad):
        if ctx._saved is not None:
            ctx.saved_tensors  # noqa: B018 - read for its check (the mask changed since?)
        picked = grad[ctx.mask]  # (differentiable: an index with a mask)
        size = int(np.prod(ctx.source_shape))
        placed = embed(picked, (size,), (np.arange(np.shape(picked)[0]),), IndexPutImplBackward0)
        return np.where(ctx.mask, 0, grad), np.reshape(placed, ctx.source_shape)


@tensor_method()
def masked_scatter(input: Tensor, mask: Tensor = REQUIRED, source: Tensor = REQUIRED) -> Tensor:
    """A copy of ``input`` where the positions with a true ``mask`` (broadcast) take
    ``source``'s elements one after another, in row-major order.

    >>> import teachgrad as torch
    >>> torch.zeros(4).masked_scatter(torch.tensor([True, False, True, False]),
    ...                               torch.tensor([1., 2., 3.]))
    tensor([1., 0., 2., 0.])
    """
    if mask is REQUIRED or source is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("masked_scatter", masked_scatter, input, mask, source)
    given = mask_arr = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if mask_arr.dtype != np.bool_:
        raise RuntimeError(
            "masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{_type_name(mask) if isinstance(mask, Tensor) else mask_arr.dtype}"
        )
    shape = _broadcast_shape(mask_arr.shape, input._data.shape)
    mask_arr = np.broadcast_to(mask_arr, shape)
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{_type_name(input)} and {_type_name(source)}"
        )
    if int(mask_arr.sum()) > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if input._data.shape != shape:  # input broadcasts to the mask's shape too
        input = input.expand(shape)
    out = MaskedScatterBackward0.apply(input, source, mask=mask_arr, given_mask=given)
    return saving_indices(out, (mask,))


class PutBackward0(Op):

    reads_index_tensor = True  # (see Op)
    formula = (
        "put: ∂/∂input = 0 where written (1 everywhere if accumulate)    ∂/∂source = the "
        "gradient at its flat position"
    )

    saved_names = ("source", "index")  # grad_fn._saved_..., as PyTorch's
    saved_attributes = {"accumulate": "accumulate"}

    @staticmethod
    def forward(ctx, a, source, flat, accumulate, index=()):
        # (source only when its gradient is needed, as PyTorch: it checks its version then)
        ctx.save_for_backward(source if ctx.needs_input_grad[1] else None, *index)
        ctx.flat, ctx.accumulate, ctx.shape = flat, accumulate, a.shape
        ctx.source_shape = source.shape
        out = a.copy().reshape(-1)
        values = source.reshape(-1)
        if accumulate:
            np.add.at(out, flat, values)
        else:
            out[flat] = values
        return out.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only
        flat_grad = np.reshape(grad, (-1,))
        source_grad = np.reshape(flat_grad[ctx.flat], ctx.source_shape)
        if ctx.accumulate:
            return grad, source_grad
        written = _positions((int(np.prod(ctx.shape)),), (ctx.flat,)).reshape(ctx.shape)
        return np.where(written, 0, grad), source_grad


@tensor_method()
def put(input: Tensor, index: Tensor = REQUIRED, source: Tensor = REQUIRED,
        accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``source``'s elements written at the flat positions
    ``index`` (as if ``input`` were 1-D); ``accumulate=True`` adds them instead.

    >>> import teachgrad as torch
    >>> torch.zeros(2, 2).put(torch.tensor([0, 3]), torch.tensor([1., 2.]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    if index is REQUIRED or source is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("put", put, input, index, source)
    idx = index._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_type_name(index)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{_type_name(input)} and source.dtype = {_type_name(source)}"
        )
    if idx.size != source._data.size:
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source._data.size}, index.numel() = {idx.size}"
        )
    n = input._data.size
    flat = idx.reshape(-1)
    bad = (flat < -n) | (flat >= n)
    if bad.any():
        raise IndexError(
            f"out of range: tried to access index {flat[bad][0]} on a tensor of {n} elements."
        )
    out = PutBackward0.apply(input, source, flat=flat % max(n, 1), accumulate=accumulate,
                             index=(idx,))
    return saving_indices(out, (index,), first=1)  # (after source)


__all__ = ["index_add", "index_copy", "index_fill", "scatter_reduce", "masked_scatter", "put"]


def _index_fill_into_expanded(t: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """index_fill_ into an expanded ``t``, as PyTorch still does it (with a warning): the
    slices are written in turn into the memory their positions share."""
    result = index_fill(t, dim, index, value)  # (its checks, and value in t's dtype)
    warn_expanded_write("index_fill_", "tensor[mask] = scalar")
    d = _wrap_dim(dim, t._data.ndim)
    key = _along(d, index._data.reshape(-1) % t._data.shape[d])
    t._data[key] = result._data[key]
    t._vc[0] += 1
    return t


EXPANDED_WRITERS[index_fill] = _index_fill_into_expanded

# (how each checks its operands' memory, as PyTorch's kernels: see inplace._OVERLAP_RULES)
for _name, _op, _overlap in [
    ("index_add_", index_add, "any"), ("index_copy_", index_copy, "any"),
    ("index_fill_", index_fill, None), ("scatter_reduce_", scatter_reduce, "any"),
    ("masked_scatter_", masked_scatter, None), ("put_", put, None),
]:
    setattr(Tensor, _name, inplace_method(_op, _name, _overlap))
