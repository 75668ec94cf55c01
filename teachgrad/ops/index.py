"""Indexing: reading ``x[...]``, writing ``x[...] = v``, and the gather/scatter family.

Reading, as PyTorch does it, in two stages:

1. *Basic* indices are applied one dimension at a time, each by a view op of its own:
   an int is a ``select`` (``SelectBackward0``), a slice a ``slice`` (``SliceBackward0``),
   ``None`` an ``unsqueeze``; ``...`` skips dimensions. ``x[0, 1:3]`` is
   ``SliceBackward0`` over ``SelectBackward0``. The results share memory with ``x``.
2. *Advanced* indices (integer lists/tensors, boolean masks) are then applied all at
   once by ``IndexBackward0``, which copies. Its backward adds each element's gradient
   back where it was picked from, so an element picked twice gets both gradients.

Writing ``x[index] = v`` selects the region with the same basic indices (a view) and
changes it in place with ``copy_`` / ``fill_``, or with ``index_put_`` when advanced
indices are left: through the one in-place mechanism of :mod:`.inplace`.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from .._arguments import Signatures, checks_types
from .._missing_arguments import REQUIRED, missing
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _make, _wrap_dim, python_type_name, tensor_method
from .._warn import warn_user
from ..autograd.graph import check_saved_constant, save_input, saved_value, unpack_saved
from ..autograd.saved_hooks import PackedSaved
from .fill_value import check_fill_value
from .inplace import (
    _OVERLAP_RULES,
    EXPANDED_WRITERS,
    _check_output_shape,
    apply_inplace,
    inplace_method,
    refresh_view,
    warn_expanded_write,
)
from .layout import row_major, zeros_keeping_layout
from .op import NO_CONTEXT, Op
from .reduce import _return_type
from .saved_values import given, keep_given
from .select_grad import keep_where, masked_fill_zero
from .shape import (
    AliasBackward0,
    EmbedOp,
    SelectBackward0,
    SliceBackward0,
    UnsqueezeBackward0,
    _along,
    _shape_str,
    embed,
    expand,
    unbind,
    view,
)


# ----------------------------------------------------------------------------------------
# The ops
# ----------------------------------------------------------------------------------------
class IndexPutImplBackward0(EmbedOp):
    """Zeros with the gradient *added* at the indexed positions (repeats accumulate)."""

    accumulate = True


class PickOp(Op):
    """Base of the ops that pick elements at a NumPy index ``key`` (a copy).

    x[[0, 0, 2]], index_select, gather, take, masked_select, sort, topk: the backward is
    the same for all. Each picked element's gradient goes back to where it was picked
    from, and an element picked twice gets both gradients added (np.add.at, recorded
    as IndexPutImplBackward0 under create_graph).
    """

    formula = "each picked element's gradient goes back where it was picked (repeats add up)"

    #: under saved_tensors_hooks: the key made from the saved values as the unpack hook
    #: gives them back (a function of them; see _key_for_backward), or None
    rekey = None

    @staticmethod
    def forward(ctx, a, key, index=(), rekey=None):
        # ``index``: the index arrays, saved as PyTorch saves its index tensors (backward
        # checks them, see saving_indices, and a second backward is refused).
        if index:
            ctx.save_for_backward(*index)
            if rekey is not None and ctx is not NO_CONTEXT:
                ctx.rekey = rekey
        a = _at_least_1d(a)  # the engine sums the (1,)-shaped gradient back to a 0-d input
        ctx.shape, ctx.key = a.shape, key
        out = a[key]
        # NumPy lays out x[:, [2, 0]] column by column; PyTorch's result is contiguous (so
        # x[:, idx].view(-1) works). The copy happens only for such layouts.
        return out if out.flags.c_contiguous else out.copy(order="C")

    @staticmethod
    def backward(ctx, grad):
        _key_for_backward(ctx)
        return embed(grad, ctx.shape, ctx.key, IndexPutImplBackward0)


def _key_for_backward(ctx) -> None:
    """Read what a PickOp saved (for its check: an index changed in place since?), and
    made inside saved_tensors_hooks, make ``ctx.key`` from the index as the unpack hook
    gives it back: PyTorch's backward uses the unpacked index, not the one forward read."""
    if ctx._saved is None:
        return
    saved = ctx.saved_tensors
    if ctx.rekey is not None and type(ctx._saved) is PackedSaved:
        ctx.key = ctx.rekey([v._data if type(v) is Tensor else v for v in saved])


def saving_indices(out: Tensor, tensors: tuple, first: int = 0) -> Tensor:
    """``out``, its backward made to refuse an index tensor changed in place since.

    PyTorch saves the index (or mask) tensors an op reads, and checks their versions like
    any saved tensor: after ``idx.fill_(0)``, backward fails with its "modified by an
    inplace operation" error instead of using the new (or the old) indices. The op saved
    the arrays of ``tensors`` from position ``first`` on; an item that is not a tensor (a
    list index, None) is skipped. See graph.check_saved_constant.
    """
    if out._grad_fn is not None:
        for position, t in enumerate(tensors, first):
            if isinstance(t, Tensor):
                check_saved_constant(out, position, t)
    return out


def _written_back(node: type[Op], ctx, grad: Tensor, **params) -> Tensor:
    """Zeros with ``grad`` written in at ``ctx.key`` by ``node``: a PickOp's backward under
    create_graph, recorded as PyTorch records it (gather's as ScatterAddBackward0...)."""
    zeros = _make(np.zeros(ctx.shape, grad._data.dtype))
    return node.apply(zeros, grad, key=ctx.key, **params)


def _at_least_1d(a):
    """gather, scatter, index_select and take read a 0-d tensor as a vector of one element."""
    return np.reshape(a, (1,)) if np.ndim(a) == 0 else a


class IndexBackward0(PickOp):
    """``x[advanced index]``."""

    reads_index_tensor = True  # (see Op)
    # PyTorch's: the index tensors by dimension of the sliced view (None where it is taken
    # whole: x[:, i] saved (None, i)), and that view's shape
    saved_attributes = {"indices": lambda node: _saved_indices(node),
                        "self_sym_sizes": lambda node: tuple(node.shape)}
    #: the view's dimension each saved index array starts at (set by getitem)
    index_dims: tuple[int, ...] = ()


def _saved_indices(node: IndexBackward0) -> tuple:
    """``grad_fn._saved_indices``: each saved index as a tensor, at its dimension."""
    indices: list = [None] * (node.index_dims[-1] + 1 if node.index_dims else 0)
    for position, dim in enumerate(node.index_dims):
        indices[dim] = saved_value(node, position)  # (PyTorch's error once freed)
    return tuple(indices)


class IndexPutBackward0(Op):
    # (indices: each index tensor, as index_put was given them; see IndexBackward0)
    saved_attributes = {"accumulate": "accumulate",
                        "indices": lambda node: tuple(saved_value(node, k)
                                                      for k in range(node.index_count))}
    index_count = 0  # (how many index arrays forward saved: none under create_graph)
    reads_index_tensor = True  # (see Op)
    formula = (
        "index_put: ∂/∂self = 1 except where values were written (0 there; 1 everywhere if "
        "accumulate), ∂/∂values = the gradient at the written positions"
    )

    @staticmethod
    def forward(ctx, a, values, key, accumulate, index=()):
        if index:  # the index arrays (see PickOp.forward)
            ctx.save_for_backward(*index)
            ctx.index_count = len(index)
        ctx.key, ctx.accumulate = key, accumulate
        out = a.copy()
        if accumulate:
            np.add.at(out, key, values)
        else:
            out[key] = values
        return out

    @staticmethod
    def backward(ctx, grad):
        if ctx._saved is not None:
            ctx.saved_tensors  # noqa: B018 - read for its check (an index changed since?)
        values_grad = grad[ctx.key]  # the engine sums it down to the values' shape
        if ctx.accumulate:
            return grad, values_grad
        if isinstance(grad, Tensor):  # under create_graph: PyTorch's formula, so its node
            zero = np.zeros((), grad._data.dtype)  # (grad.index_put(key, 0): IndexPutBackward0)
            return IndexPutBackward0.apply(grad, zero, key=ctx.key, accumulate=False), values_grad
        overwritten = np.zeros(np.shape(grad), bool)
        overwritten[ctx.key] = True
        return np.where(overwritten, 0, grad), values_grad


# ----------------------------------------------------------------------------------------
# Reading the index: what each item of x[a, b, ...] means
# ----------------------------------------------------------------------------------------
_INT64_MAX = (1 << 63) - 1  # PyTorch's end of a slice written without one (x[1:])

_LEGACY_SEQUENCE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result"
)


def _index_items(index) -> tuple:
    """The items of an index: ``x[a, b]`` gives a tuple; anything else is one item.

    A short list holding slices, ``None``, ``...``, tensors or lists is taken as a tuple,
    NumPy's old rule that PyTorch still follows (with a warning).
    """
    if isinstance(index, tuple):
        return index
    if isinstance(index, (list, str)) and len(index) < 32:
        for item in index:
            if item is None or item is Ellipsis or isinstance(
                item, (Tensor, list, tuple, str, np.ndarray, slice)
            ):
                warn_user(_LEGACY_SEQUENCE_WARNING, UserWarning)
                return tuple(index)
    return (index,)


def _is_bool(obj) -> bool:
    return isinstance(obj, (bool, np.bool_))


def _is_int(obj) -> bool:
    return isinstance(obj, (int, np.integer)) and not isinstance(obj, bool)


def _counts(obj) -> int:
    """How many dimensions of the tensor an item uses up (a k-d mask uses k)."""
    if obj is None or obj is Ellipsis or _is_bool(obj):
        return 0
    data = obj._data if isinstance(obj, Tensor) else obj
    if isinstance(data, np.ndarray) and data.dtype in (np.bool_, np.uint8):
        return data.ndim
    return 1


def _index_array(obj) -> np.ndarray:
    """An integer or boolean NumPy array from a tensor, an ndarray or a (nested) list."""
    if isinstance(obj, Tensor):
        arr = obj._data
    elif isinstance(obj, np.ndarray):
        arr = obj
    elif isinstance(obj, (list, tuple)):
        arr = _list_index(obj)
    elif isinstance(obj, range):  # x[range(n), target]: the nn tutorial's NLL loss
        arr = np.arange(obj.start, obj.stop, obj.step, dtype=np.int64)
    elif isinstance(obj, str):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    else:
        try:
            return np.asarray(operator.index(obj))
        except TypeError:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                f"Variables are valid indices (got {python_type_name(obj)})"
                + real_pytorch_hint(obj)
            ) from None
    if arr.dtype == np.uint8:
        warn_user(
            "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
            "instead.", UserWarning,
        )
        arr = arr.astype(bool)
    if arr.dtype not in (np.int64, np.int32, np.bool_):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return arr


def _list_index(obj: list | tuple) -> np.ndarray:
    """A list index as an int64 (or bool) array: PyTorch reads lists as integers, x[[]] too."""
    if obj and all(type(i) is int for i in obj):
        return np.array(obj, dtype=np.int64)  # the common case, quickly
    from .._creation import tensor

    arr = tensor(obj)._data  # PyTorch's rules and errors for anything else
    return arr if arr.dtype == np.bool_ else arr.astype(np.int64)


def _select(t: Tensor, dim: int, index: int, position: int) -> Tensor:
    """``t[..., index]`` at ``dim`` (``position`` is the item's place, for the error)."""
    shape = t._data.shape
    if not shape:
        if index == 0:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        raise IndexError(f"index {index} is out of bounds for dimension 0 with size 0")
    if dim >= len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    size = shape[dim]
    if not -size <= index < size:
        raise IndexError(
            f"index {index} is out of bounds for dimension {position} with size {size}"
        )
    out = SelectBackward0.apply(t, dim=dim, index=index % size)
    if index < 0 and out._grad_fn is not None:  # (PyTorch shows the index as written:
        out._grad_fn._given = {"index": index}  # x[-1] keeps -1; see saved_values)
    return out


def _slice(t: Tensor, dim: int, s: slice, skip_whole: bool) -> Tensor:
    """``t[..., start:stop:step]`` at ``dim``; a slice of everything may be skipped."""
    step = 1 if s.step is None else operator.index(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError(
            "step must be greater than zero\nHint: PyTorch has no negative steps; use "
            "x.flip(dim) to reverse a dimension."
        )
    shape = t._data.shape
    if not shape:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if dim >= len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    start = None if s.start is None else operator.index(s.start)
    stop = None if s.stop is None else operator.index(s.stop)
    size = shape[dim]
    if skip_whole and not start and step == 1 and (stop is None or stop >= size):
        return t  # x[:, :] records nothing for the second ':'
    given_start, given_end = start, stop
    start, stop, _ = slice(start, stop, step).indices(size)
    out = SliceBackward0.apply(t, dim=dim, start=start, stop=max(start, stop), step=step)
    node = out._grad_fn
    if node is not None:  # PyTorch keeps the slice as written: x[-2:] starts at -2, x[1:]
        # ends at 2⁶³ - 1 (see saved_values.keep_given; inline: slicing is frequent)
        node._given = {"start": 0 if given_start is None else given_start,
                       "end": _INT64_MAX if given_end is None else given_end}
    return out


def _unsqueeze(t: Tensor, dim: int) -> Tensor:
    """A new size-1 dimension at ``dim`` (PyTorch's error if ``...`` pushed it too far)."""
    return UnsqueezeBackward0.apply(t, dim=_wrap_dim(dim, t._data.ndim + 1))


def _record(advanced: list, dim: int, arr: np.ndarray) -> int:
    """Note an index array starting at ``dim``; return the next dimension (a k-d mask
    covers k dimensions)."""
    advanced.append((dim, arr))
    return dim + (arr.ndim if arr.dtype == np.bool_ else 1)


def _bool_index(value: bool) -> np.ndarray:
    """``True`` indexes a new size-1 dimension with [0]; ``False`` with [] (nothing)."""
    return np.zeros(1 if value else 0, np.int64)


def apply_basic(t: Tensor, items: tuple, skip_whole: bool = True) -> tuple[Tensor, list]:
    """Stage 1: apply the basic items dimension by dimension (views).

    Returns the view and the advanced index arrays left for stage 2, as a list of
    ``(first dimension of the view it indexes, array)``.
    """
    ndim = t._data.ndim
    specified = sum(_counts(obj) for obj in items)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result, dim, advanced = t, 0, []
    for position, obj in enumerate(items):
        if obj is None:
            result = _unsqueeze(result, dim)
            dim += 1
        elif obj is Ellipsis:
            dim += ndim - specified
        elif _is_bool(obj):
            result = _unsqueeze(result, dim)
            dim = _record(advanced, dim, _bool_index(bool(obj)))
        elif _is_int(obj):
            result = _select(result, dim, int(obj), position)
        elif isinstance(obj, slice):
            result = _slice(result, dim, obj, skip_whole)
            dim += 1
        else:
            arr = _index_array(obj)
            if arr.ndim:
                dim = _record(advanced, dim, arr)
            elif arr.dtype == np.bool_:  # a 0-d bool tensor acts like True / False
                result = _unsqueeze(result, dim)
                dim = _record(advanced, dim, _bool_index(bool(arr)))
            else:  # a 0-d integer tensor acts like an int
                result = _select(result, dim, int(arr), position)
    return result, advanced


def advanced_key(shape: tuple, advanced: list, check_bounds: bool = True) -> tuple:
    """Stage 2's NumPy index, after PyTorch's checks (masks, broadcasting, bounds).

    Dimensions without an index array are taken whole (``slice(None)``). Masks become the
    integer arrays of their true positions (``nonzero``), as PyTorch converts them, so the
    backward only ever sees integer arrays.
    """
    key: list = []
    for dim, arr in advanced:
        key.extend([slice(None)] * (dim - len(key)))
        d = len(key)
        if d + (arr.ndim if arr.dtype == np.bool_ else 1) > len(shape):
            raise IndexError(
                f"too many indices for tensor of dimension {len(shape)} (got {advanced[-1][0] + 1})"
            )
        if arr.dtype == np.bool_:
            for j in range(arr.ndim):
                if arr.shape[j] != shape[d + j]:
                    raise IndexError(
                        f"The shape of the mask {_shape_str(arr.shape)} at index {j} does not "
                        f"match the shape of the indexed tensor {_shape_str(shape)} at index "
                        f"{d + j}"
                    )
            key.extend(np.nonzero(arr))
        else:
            key.append(arr.astype(np.int64, copy=False))
    arrays = [(d, k) for d, k in enumerate(key) if not isinstance(k, slice)]
    try:
        np.broadcast_shapes(*(k.shape for _, k in arrays))
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes "
            + ", ".join(_shape_str(k.shape) for _, k in arrays)
        ) from None
    return checked_bounds(shape, tuple(key)) if check_bounds else tuple(key)


def checked_bounds(shape: tuple, key: tuple) -> tuple:
    """``key``, after PyTorch's error for an index that points outside its dimension.

    When the result is empty (x[False, [7]], x[0:0, [7]]) no index is ever used, and
    PyTorch does not complain; those indices are then set to 0 so that NumPy does not.
    """
    arrays = [(d, k) for d, k in enumerate(key) if not isinstance(k, slice)]
    if 0 in indexed_shape(shape, key):
        return tuple(k if isinstance(k, slice) else np.zeros_like(k) for k in key)
    for position, (d, k) in enumerate(arrays):
        size = shape[d]
        bad = (k < -size) | (k >= size)
        if bad.any():  # PyTorch counts the index arrays here, not the dimensions
            raise IndexError(
                f"index {k[bad].flat[0]} is out of bounds for dimension {position} with size "
                f"{size}"
            )
    return key


def indexed_shape(shape: tuple, key: tuple) -> tuple:
    """The shape of ``x[key]`` (slices whole, index arrays), worked out without indexing."""
    array_dims = [d for d, k in enumerate(key) if not isinstance(k, slice)]
    picked = np.broadcast_shapes(*(key[d].shape for d in array_dims))
    rest = [n for d, n in enumerate(shape) if d not in array_dims]
    first = array_dims[0]
    if array_dims == list(range(first, first + len(array_dims))):  # side by side: in place
        return tuple(rest[:first]) + picked + tuple(rest[first:])
    return picked + tuple(rest)  # apart: NumPy's (and PyTorch's) rule puts them first


# ----------------------------------------------------------------------------------------
# x[index]
# ----------------------------------------------------------------------------------------
@tensor_method("__getitem__")
def getitem(self: Tensor, index) -> Tensor:
    """``self[index]``: ints, slices (positive steps), ``None``, ``...``, integer lists or
    tensors, boolean masks, and any mix of them, with PyTorch's ``grad_fn`` chain.

    >>> import teachgrad as torch
    >>> x = torch.arange(12.).reshape(3, 4).requires_grad_()
    >>> x[0, 1:3]
    tensor([1., 2.], grad_fn=<SliceBackward0>)
    >>> x[[0, 0, 2]].sum().backward()
    >>> x.grad[:, 0]
    tensor([2., 0., 1.])
    """
    # The common simple cases first, as PyTorch does (a lone slice is always recorded).
    if _is_int(index):
        return _select(self, 0, int(index), 0)
    if isinstance(index, slice):
        return _slice(self, 0, index, skip_whole=False)
    if index is None:
        return UnsqueezeBackward0.apply(self, dim=0)
    if index is Ellipsis:
        return AliasBackward0.apply(self)

    items = _index_items(index)
    sliced, advanced = apply_basic(self, items)
    if not advanced:
        return AliasBackward0.apply(sliced) if sliced is self else sliced
    shape, dims = sliced._data.shape, [d for d, _ in advanced]
    out = IndexBackward0.apply(sliced, key=advanced_key(shape, advanced),
                               index=tuple(arr for _, arr in advanced),
                               rekey=lambda saved: advanced_key(shape, list(zip(dims, saved))))
    if out._grad_fn is not None:  # (for grad_fn._saved_indices)
        out._grad_fn.index_dims = tuple(dims)
    return saving_indices(out, _index_tensors(items, advanced))


def _index_tensors(items, advanced: list) -> tuple:
    """The tensor each index array of ``advanced`` is the data of (None for an array made
    from a list or a bool): the ones whose versions backward checks."""
    tensors = {id(obj._data): obj for obj in items if isinstance(obj, Tensor)}
    found = tuple(tensors.get(id(arr)) for _, arr in advanced)
    masks = [obj for obj in items if isinstance(obj, Tensor) and obj._data.dtype == np.uint8]
    if masks:  # deprecated uint8 masks, which _index_array read as bool copies
        found = _with_byte_masks(found, advanced, masks)
    return found


def _with_byte_masks(found: tuple, advanced: list, masks: list) -> tuple:
    """``found`` with each uint8 mask tensor put where its bool copy is: PyTorch saves
    (and checks) the uint8 tensor itself. Masks make their bool arrays in item order, so
    the next mask of the same shape is the one; a bool array found by no tensor and matching
    no mask came from a list."""
    masks = list(masks)
    found = list(found)
    for position, (_, arr) in enumerate(advanced):
        if found[position] is None and arr.dtype == np.bool_:
            for i, mask in enumerate(masks):
                if mask._data.shape == arr.shape and np.array_equal(mask._data != 0, arr):
                    found[position] = masks.pop(i)
                    break
    return tuple(found)


# ----------------------------------------------------------------------------------------
# x[index] = value
# ----------------------------------------------------------------------------------------
def _value_tensor(target: Tensor, value) -> Tensor:
    """The value to write, as a tensor (Python numbers take the target's dtype)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (numbers.Number, np.generic)):
        value = check_fill_value(value, target._data.dtype)
        return _make(np.asarray(value, dtype=target._data.dtype))
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    raise TypeError(
        f"can't assign a {name} to a torch.{target.dtype._legacy}"
        "\nHint: make the value a tensor first, e.g. x[0] = torch.tensor(value)."
    )


def _strip_leading_ones(shape: tuple) -> tuple:
    """``[1, 1, 4] -> [4]``: leading size-1 dimensions never matter for assignment."""
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return shape[i:]


def copy_to(dst: Tensor, src: Tensor) -> None:
    """Write ``src`` into ``dst`` (a view) in place, broadcasting it as PyTorch does:
    ``copy_`` for equal shapes, ``fill_`` for a 0-d value, else view + expand + ``copy_``."""
    if dst._data.shape == src._data.shape:
        dst.copy_(src)
    elif src._data.ndim == 0:
        dst.fill_(src)
    else:
        src = view(src, _strip_leading_ones(src._data.shape))
        if src._data.shape != dst._data.shape:
            src = expand(src, dst._data.shape)
        dst.copy_(src)


def _type_name(t: Tensor) -> str:
    return t.dtype._legacy.removesuffix("Tensor")  # "Float", "Long" ... as PyTorch says


def _checked_values(target: Tensor, key: tuple, values: Tensor, advanced: list,
                    accumulate: bool, setitem: bool = False) -> Tensor:
    """``values`` ready to be put at ``target[key]``, after PyTorch's shape and dtype checks
    (the indices are checked after them, with :func:`checked_bounds`). ``setitem``:
    ``x[idx] = v``, which drops v's leading size-1 dimensions first."""
    if _fills_a_mask(values, advanced, accumulate):
        # PyTorch's index_put_ hands this to masked_fill_(mask, value.item()): the value
        # is a number then, any dtype, range-checked as a fill value (seeds 22, 25, 52)
        check_fill_value(values._data.item(), target._data.dtype)
        if values._data.ndim:  # (a number: any shape of one element, [[0.5]] too)
            values = view(values, ())
        if values._data.dtype != target._data.dtype:
            values = values.to(target.dtype)
    indexed = indexed_shape(target._data.shape, key)
    if setitem:
        stripped = _strip_leading_ones(values._data.shape)
        if stripped != values._data.shape:
            values = view(values, stripped)
    try:
        fits = np.broadcast_shapes(values._data.shape, indexed) == indexed
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {_shape_str(values._data.shape)} cannot be "
            f"broadcast to indexing result of shape {_shape_str(indexed)}"
        )
    if values._data.dtype != target._data.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{_type_name(target)} for the destination and {_type_name(values)} for the source."
        )
    return values


def _fills_a_mask(values: Tensor, advanced: list, accumulate: bool) -> bool:
    """Does PyTorch's index_put_ run this as masked_fill_ (canDispatchToMaskedFill): one
    value, not accumulated, and a single index that is a mask?"""
    return (not accumulate and values._data.size == 1 and len(advanced) == 1
            and advanced[0][1].dtype in (np.bool_, np.uint8))


def _put(t: Tensor, values: Tensor, key: tuple, accumulate: bool, advanced: list = (),
         tensors: tuple = ()) -> Tensor:
    """``t`` with ``values`` put at ``key``; ``advanced`` and ``tensors``: the index arrays
    to save and the tensors they came from (see _index_tensors)."""
    out = IndexPutBackward0.apply(t, values, key=key, accumulate=accumulate,
                                  index=tuple(arr for _, arr in advanced))
    return saving_indices(out, tensors)


@tensor_method("__setitem__")
def setitem(self: Tensor, index, value) -> None:
    """``self[index] = value``: an in-place change of the selected elements.

    It bumps the version counter like every in-place op; when autograd records it, the
    gradient of the old values is zero where ``value`` was written, and ``value`` gets the
    gradient of the positions it was written to (summed when it was broadcast).

    >>> import teachgrad as torch
    >>> y = torch.zeros(2, 3)
    >>> y[0, 1:] = 5
    >>> y
    tensor([[0., 5., 5.],
            [0., 0., 0.]])
    """
    value = _value_tensor(self, value)
    if _is_bool(index) and not index:
        return  # x[False] selects nothing
    if index is Ellipsis:
        target, advanced = self, []
    elif index is None or _is_bool(index):
        target, advanced = UnsqueezeBackward0.apply(self, dim=0), []
    elif _is_int(index):
        target, advanced = _select(self, 0, int(index), 0), []
    elif isinstance(index, slice):
        target, advanced = _slice(self, 0, index, skip_whole=True), []
    else:
        items = _index_items(index)
        target, advanced = apply_basic(self, items)
    if advanced:
        key = advanced_key(target._data.shape, advanced, check_bounds=False)
        value = _checked_values(target, key, value, advanced, False, setitem=True)
        _check_no_overlap(target, value, advanced)
        tensors = _index_tensors(items, advanced)
        _refuse_a_byte_mask_fill(target, advanced, tensors, value, False)
        apply_inplace(target, _put, value, checked_bounds(target._data.shape, key), False,
                      advanced, tensors)
    else:
        copy_to(target, value)
    if target is not self and self._base is not None and target._grad_fn is not None:
        refresh_view(self)  # self is itself a view: its history now goes through the base


def _refuse_a_byte_mask_fill(target: Tensor, advanced: list, tensors: tuple, values: Tensor,
                             accumulate: bool) -> None:
    """PyTorch's index_put_ fills through masked_fill_ when one value goes where a single
    mask of the target's shape points (``x[mask] = 0``), and masked_fill_ refuses a
    deprecated uint8 mask: its error, here too."""
    if accumulate or values._data.size != 1 or len(advanced) != 1:
        return
    mask = tensors[0] if tensors else None
    if mask is None or mask._data.dtype != np.uint8:
        return
    dim = advanced[0][0]
    if mask._data.shape == target._data.shape[dim:dim + mask._data.ndim]:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
            "\nHint: uint8 masks are deprecated; use a bool mask, e.g. x[mask.bool()] = 0."
        )


def _check_no_overlap(target: Tensor, value: Tensor, advanced: list) -> None:
    """PyTorch's index_put_ refuses values that share memory with the tensor written to
    (``x[idx] = x[1]``), when an index is an integer tensor (a mask alone is let through)."""
    if any(arr.dtype != np.bool_ for _, arr in advanced) and np.may_share_memory(
            target._data, value._data):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation."
        )


def _put_advanced(input: Tensor, indices, name: str, method: bool) -> list:
    """The advanced-index records of index_put's ``indices``: a tuple (or list) of index
    tensors, one per leading dimension. PyTorch's argument parser refuses anything else in
    it, None included (``x[None, idx] = v`` is indexing; index_put_ is not)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' (position {1 if method else 2}) must "
                        f"be tuple of Tensors, not {python_type_name(indices)}")
    for k, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(
                f"expected Tensor as element {k} in argument {0 if method else 1}, but got "
                f"{python_type_name(index)}\nHint: index_put takes one index tensor per "
                "leading dimension; to take a dimension whole, use x[:, idx] = v.")
    advanced, dim = [], 0
    for index in indices:
        dim = _record(advanced, dim, _index_array(index))
    return advanced


@tensor_method()
def index_put(input: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``values`` put at ``indices`` (a tuple of index tensors, one
    per leading dimension, as in ``input[indices] = values``); ``accumulate=True`` adds them.

    >>> import teachgrad as torch
    >>> torch.zeros(3).index_put((torch.tensor([0, 0]),), torch.tensor(1.), accumulate=True)
    tensor([2., 0., 0.])
    """
    return _index_put(input, indices, values, accumulate, method=False)


def _index_put(input: Tensor, indices, values, accumulate: bool, method: bool) -> Tensor:
    advanced = _put_advanced(input, indices, "index_put", method)
    key = advanced_key(input._data.shape, advanced, check_bounds=False)
    values = _checked_values(input, key, _value_tensor(input, values), advanced, accumulate)
    tensors = _index_tensors(indices, advanced)
    _refuse_a_byte_mask_fill(input, advanced, tensors, values, accumulate)
    return _put(input, values, checked_bounds(input._data.shape, key), accumulate, advanced,
                tensors)


def _index_put_method(self: Tensor, indices=REQUIRED, values=REQUIRED,
                      accumulate: bool = False) -> Tensor:
    """``x.index_put(indices, values)`` (see :func:`index_put`)."""
    if indices is REQUIRED or values is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("index_put", _index_put_method, self, indices, values)
    return _index_put(self, indices, values, accumulate, method=True)


Tensor.index_put = _index_put_method  # (the argument numbers of its messages differ)


@tensor_method()
def index_put_(input: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """In-place :func:`index_put`."""
    return _index_put_(input, indices, values, accumulate, method=False)


def _index_put_(input: Tensor, indices, values, accumulate: bool, method: bool) -> Tensor:
    advanced = _put_advanced(input, indices, "index_put_", method)
    if isinstance(input, Tensor):  # autograd's checks before the indices (seed 1038)
        input._check_inplace()
    key = advanced_key(input._data.shape, advanced, check_bounds=False)
    values = _checked_values(input, key, _value_tensor(input, values), advanced, accumulate)
    _check_no_overlap(input, values, advanced)
    tensors = _index_tensors(indices, advanced)
    _refuse_a_byte_mask_fill(input, advanced, tensors, values, accumulate)
    return apply_inplace(input, _put, values, checked_bounds(input._data.shape, key), accumulate,
                         advanced, tensors)


def _index_put_method_(self: Tensor, indices=REQUIRED, values=REQUIRED,
                       accumulate: bool = False) -> Tensor:
    """``x.index_put_(indices, values)``: in-place :func:`index_put`."""
    if indices is REQUIRED or values is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("index_put_", _index_put_method_, self, indices, values)
    return _index_put_(self, indices, values, accumulate, method=True)


Tensor.index_put_ = _index_put_method_


# ----------------------------------------------------------------------------------------
# Picking along a dimension: index_select, gather, take, take_along_dim
# ----------------------------------------------------------------------------------------
class IndexSelectBackward0(PickOp):
    """``index_select(dim, index)``: whole slices along ``dim``, in the order of ``index``."""

    reads_index_tensor = True  # (see Op)

    saved_names = ("index",)
    saved_attributes = {"dim": given("dim"),  # (see index_select; PickOp's shape is ≥ 1-d)
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...

    @staticmethod
    def backward(ctx, grad):
        if type(grad) is not Tensor:
            return PickOp.backward(ctx, grad)
        _key_for_backward(ctx)
        from .index_update import IndexAddBackward0  # (index_update imports this module)

        return _written_back(IndexAddBackward0, ctx, grad, alpha=1)  # PyTorch's index_add


class _KeepsInput(PickOp):
    """gather and take: PyTorch keeps the input too (its backward formula takes it), so a
    later in-place change of the input makes backward refuse. The gradient itself needs
    only its shape; backward reads the input back for that check.

    PyTorch saves (and packs, under saved_tensors_hooks) the index first, then the input:
    forward leaves the input's place empty, and the function saves it after the index
    (``saving_input``)."""

    reads_index_tensor = True  # (see Op)

    saved_names = ("index", "self")  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, key, index=(), rekey=None):
        if index:
            ctx.save_for_backward(*index, None)  # (the input: see saving_input)
            if rekey is not None and ctx is not NO_CONTEXT:
                ctx.rekey = rekey
        else:  # (gather recorded by a backward under create_graph: no index tensor)
            ctx.save_for_backward(None, a)
        return PickOp.forward(ctx, a, key)


def saving_input(out: Tensor, tensors: tuple, input: Tensor) -> Tensor:  # noqa: A002
    """``saving_indices(out, tensors)``, then ``input`` saved after them, in PyTorch's
    order (see graph.save_input)."""
    saving_indices(out, tensors)
    save_input(out, len(tensors), input)
    return out


class GatherBackward0(_KeepsInput):
    """``gather(dim, index)``: ``out[i][j] = input[index[i][j]][j]`` (for dim 0)."""

    saved_attributes = {"dim": given("dim"),  # (as gather was given them)
                        "sparse_grad": given("sparse_grad", False)}  # grad_fn._saved_...

    @staticmethod
    def backward(ctx, grad):
        if type(grad) is not Tensor:
            return PickOp.backward(ctx, grad)
        _key_for_backward(ctx)
        return _written_back(ScatterAddBackward0, ctx, grad)  # PyTorch's scatter_add


class TakeBackward0(_KeepsInput):
    """``take(index)``: elements of the flattened input."""


def _integer_index(index, message: str, dtypes=(np.int64, np.int32)) -> np.ndarray:
    arr = index._data if isinstance(index, Tensor) else np.asarray(index)
    if arr.dtype not in dtypes:
        raise RuntimeError(message)
    return arr.astype(np.int64, copy=False)


def key_along(index: np.ndarray, dim: int) -> tuple:
    """The NumPy index that picks ``input[index[p]]`` along ``dim`` and the same position
    ``p`` in every other dimension: the index of gather, scatter and sort."""
    grids = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


def _check_bounds(index: np.ndarray, size: int, dim: int) -> None:
    bad = (index < 0) | (index >= size)
    if bad.any():
        raise RuntimeError(
            f"index {index[bad].flat[0]} is out of bounds for dimension {dim} with size {size}"
        )


def _check_gather_sizes(index: np.ndarray, shape: tuple, dim: int) -> None:
    """gather: ``index`` may be smaller than ``input``, except along ``dim``."""
    for d, n in enumerate(index.shape):
        if d != dim and n > shape[d]:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {_shape_str(index.shape)}"
                f" to be no larger than self {_shape_str(shape)} apart from dimension {dim}"
            )


def _check_scatter_sizes(index: np.ndarray, shape: tuple, dim: int, src: tuple | None) -> None:
    """scatter: ``index`` may be smaller than ``input`` (except along ``dim``) and ``src``."""
    self_sizes, src_sizes = shape or (1,), (src or (1,)) if src is not None else None
    for d, n in enumerate(index.shape):
        if (d != dim and n > self_sizes[d]) or (src_sizes is not None and n > src_sizes[d]):
            raise RuntimeError(
                f"Expected index {_shape_str(index.shape)} to be no larger than self "
                f"{_shape_str(shape)} apart from dimension {dim}"
                + (f" and to be no larger size than src {_shape_str(src)}" if src is not None
                   else "")
            )


@tensor_method()
@checks_types("index_select", "(int dim, Tensor index)")
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices ``index`` (a vector) along ``dim``; repeats allowed.

    >>> import teachgrad as torch
    >>> torch.tensor([[1, 2], [3, 4]]).index_select(0, torch.tensor([1, 1]))
    tensor([[3, 4],
            [3, 4]])
    """
    if not isinstance(index, Tensor):  # (a list would pass: PyTorch's TypeError instead)
        raise TypeError("index must be a Tensor")
    idx = _integer_index(index, "index_select(): Expected dtype int32 or int64 for index")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = _wrap_dim(dim, input._data.ndim)
    if input._data.ndim == 0:  # one element to select: the tensor's only one
        if idx.size != 1:
            raise RuntimeError(
                f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)"
            )
        idx = idx.reshape(())  # picks a 0-d result
    else:
        idx = idx.reshape(-1)  # a 0-d index keeps the dimension, as a 1-element vector
    size = input._data.shape[d] if input._data.ndim else 1
    if ((idx < 0) | (idx >= size)).any():
        raise IndexError("index out of range in self")
    shape = idx.shape  # (the index a backward under saved_tensors_hooks gets back)
    out = IndexSelectBackward0.apply(
        input, key=_along(d, idx), index=(index._data,),
        rekey=lambda saved: _along(d, saved[0].astype(np.int64).reshape(shape)))
    keep_given(out, IndexSelectBackward0, dim=dim)  # (grad_fn._saved_dim, as given)
    return saving_indices(out, (index,))


@tensor_method()
@checks_types("gather", "(int dim, Tensor index, *, bool sparse_grad = False)")
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = input[i][index[i][j]]`` for ``dim=1`` (each position picks along ``dim``).

    >>> import teachgrad as torch
    >>> torch.tensor([[1, 2], [3, 4]]).gather(1, torch.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
    """
    if not isinstance(index, Tensor):  # (a list would pass: PyTorch's TypeError instead)
        raise TypeError("index must be a Tensor")
    idx = _integer_index(index, "gather(): Expected dtype int32/int64 for index")
    d = _wrap_dim(dim, input._data.ndim)
    shape = input._data.shape or (1,)  # a 0-d tensor is read as a vector of one element
    if max(idx.ndim, 1) != len(shape):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    _check_gather_sizes(idx, shape, d)
    _check_bounds(idx, shape[d], d)
    out = GatherBackward0.apply(input, key=key_along(idx, d) if idx.ndim else (idx,),
                                index=(index._data,), rekey=lambda saved: _gather_key(saved, d))
    keep_given(out, GatherBackward0, dim=dim, sparse_grad=sparse_grad)
    return saving_input(out, (index,), input)


def _gather_key(saved: list, dim: int) -> tuple:
    """gather's key from its saved index (what the unpack hook gave back; before the input)."""
    idx = saved[0].astype(np.int64)
    return key_along(idx, dim) if idx.ndim else (idx,)


@tensor_method()
def take(input: Tensor, index: Tensor = REQUIRED) -> Tensor:
    """Elements of ``input`` as if it were flat, at ``index`` (the result has its shape)."""
    if index is REQUIRED:  # (x.take(): PyTorch's words, see _missing_arguments)
        raise missing("take", take, input, index)
    idx = _value_of_index(index)
    if idx.dtype != np.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {_type_name(_make(idx))}"
        )
    n = input._data.size
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        raise IndexError(
            f"out of range: tried to access index {idx[bad].flat[0]} on a tensor of {n} elements."
        )
    shape = input._data.shape
    out = TakeBackward0.apply(input, key=_take_key(idx, shape), index=(idx,),
                              rekey=lambda saved: _take_key(saved[0], shape))
    return saving_input(out, (index,), input)


def _take_key(idx: np.ndarray, shape: tuple) -> tuple:
    """take's key: the flat (in-range) positions ``idx`` as an index of ``shape``."""
    flat = idx.astype(np.int64) % max(int(np.prod(shape)), 1)
    return (flat,) if not shape else np.unravel_index(flat, shape)


def _value_of_index(index) -> np.ndarray:
    return index._data if isinstance(index, Tensor) else np.asarray(index)


@tensor_method()
def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """``gather`` with broadcasting (and over the flattened tensor when ``dim`` is None)."""
    idx = _value_of_index(indices)
    if dim is None and idx.dtype != np.int64:  # PyTorch goes straight to gather here,
        if idx.dtype != np.int32 and idx.size:  # which also takes int32 (and no) indices
            raise RuntimeError("gather(): Expected dtype int32/int64 for index"
                               "\nHint: indices must be integers, e.g. indices.long().")
        indices = _make(idx.astype(np.int64))
        idx = indices._data
    if idx.dtype != np.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{_type_name(_make(idx))}"
        )
    if dim is None:  # (the flat index is a view: backward checks the indices' version)
        flat = view(indices, -1) if isinstance(indices, Tensor) else _make(idx.reshape(-1))
        return gather(view(input, -1), 0, flat)
    if idx.ndim != input._data.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input._data.ndim} dimensions for input, and {idx.ndim} "
            "dimensions for indices"
        )
    d = _wrap_dim(dim, input._data.ndim)
    shape = list(input._data.shape)
    shape[d] = idx.shape[d]
    common = list(_broadcast_shape(tuple(shape), idx.shape))
    index_shape = list(common)
    common[d] = input._data.shape[d]
    # PyTorch gathers with a broadcast copy of the indices here: changing them afterwards
    # changes nothing (backward neither checks them nor sees the new values).
    index = _make(np.broadcast_to(idx.copy(), index_shape))
    return gather(expand(input, tuple(common)), d, index)


def unravel_index(indices, shape) -> tuple:
    """Flat indices into a tensor of ``shape`` as one index tensor per dimension (the
    inverse of flattening; indices wrap around as in PyTorch, -1 is the last element).

    >>> import teachgrad as torch
    >>> torch.unravel_index(torch.tensor([4, 1]), (2, 3))
    (tensor([1, 0]), tensor([1, 1]))
    """
    idx = _value_of_index(indices)
    if idx.dtype.kind not in "iu":
        dtype = indices.dtype if isinstance(indices, Tensor) else idx.dtype
        raise TypeError(f"expected 'indices' to be integer dtype, but got {dtype}")
    ints = (int, np.integer)
    if not isinstance(shape, ints) and not (
            isinstance(shape, (tuple, list)) and all(isinstance(s, ints) for s in shape)):
        kind = "<class 'teachgrad.Tensor'>" if isinstance(shape, Tensor) else str(type(shape))
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {kind}")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not shape:
        return ()
    flat = idx.astype(np.int64) % max(int(np.prod(shape)), 1)
    return tuple(_make(np.asarray(c, dtype=np.int64)) for c in np.unravel_index(flat, shape))


# ----------------------------------------------------------------------------------------
# Writing along a dimension: scatter, scatter_add, index_put
# ----------------------------------------------------------------------------------------
class _ScatterOp(Op):
    """What scatter and scatter_add share: ``key`` indexes the input read as at least 1-d.

    Each forward saves ``index`` (the index array, when the op's user gave a tensor; see
    PickOp.forward) and each backward reads it back, for its version check."""

    reads_index_tensor = True  # (see Op)

    saved_names = ("index",)
    saved_attributes = {"dim": given("dim")}  # grad_fn._saved_... (see scatter)

    @staticmethod
    def written(grad, key) -> np.ndarray:
        """True at the positions ``key`` writes to (a constant mask, shaped like ``grad``)."""
        mask = _at_least_1d(np.zeros(np.shape(grad), bool))
        mask[key] = True
        return np.reshape(mask, np.shape(grad))

    @classmethod
    def cleared(cls, grad, key):
        """The gradient with 0 at the positions ``key`` writes to (what ``self`` gets)."""
        if type(grad) is Tensor:  # create_graph: PyTorch's grad.scatter(dim, index, 0)
            return ScatterBackward1.apply(grad, value=0, key=key)
        return np.where(cls.written(grad, key), 0, grad)

    @staticmethod
    def picked(grad, key):
        """The gradient at the positions ``key`` writes to (what the source gets)."""
        if type(grad) is Tensor:  # create_graph: PyTorch's grad.gather(dim, index)
            return GatherBackward0.apply(grad, key=key)
        return _at_least_1d(grad)[key]


class ScatterBackward0(_ScatterOp):
    formula = "scatter: ∂/∂self = 0 where src was written, else 1; ∂/∂src = the gradient there"

    @staticmethod
    def forward(ctx, a, src, key, index=()):
        ctx.save_for_backward(*index)
        ctx.key = key
        out = _at_least_1d(a.copy())
        out[key] = _region(src, key)
        return out.reshape(a.shape)

    @classmethod
    def backward(cls, ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only
        return cls.cleared(grad, ctx.key), cls.picked(grad, ctx.key)


class ScatterBackward1(_ScatterOp):
    formula = "scatter of a number: ∂/∂self = 0 where it was written, else 1"

    @staticmethod
    def forward(ctx, a, value, key, index=()):
        ctx.save_for_backward(*index)
        ctx.key = key
        out = _at_least_1d(a.copy())
        out[key] = value
        return out.reshape(a.shape)

    @classmethod
    def backward(cls, ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only
        return cls.cleared(grad, ctx.key)


class ScatterAddBackward0(_ScatterOp):
    formula = "scatter_add: ∂/∂self = 1, ∂/∂src = the gradient where each element was added"

    @staticmethod
    def forward(ctx, a, src, key, index=()):
        ctx.save_for_backward(*index)
        ctx.key = key
        out = _at_least_1d(a.copy())
        np.add.at(out, key, _region(src, key))
        return out.reshape(a.shape)

    @classmethod
    def backward(cls, ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only
        return grad, cls.picked(grad, ctx.key)


def _region(src: np.ndarray, key: tuple) -> np.ndarray:
    """The part of ``src`` that scatter uses: as large as the index (it may be larger)."""
    if not src.ndim:
        return src
    return src[tuple(slice(0, n) for n in np.broadcast_shapes(*(k.shape for k in key)))]


def _scatter_key(input: Tensor, dim: int, index, src) -> tuple:
    """The NumPy key of scatter/scatter_add, after PyTorch's checks."""
    idx = _integer_index(index, "scatter(): Expected dtype int64 for index", (np.int64,))
    d = _wrap_dim(dim, input._data.ndim)
    shape = input._data.shape
    # 0-d tensors are read as vectors of one element (their sizes print as []).
    if max(idx.ndim, 1) != max(len(shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    src_shape = None
    if isinstance(src, Tensor):
        src_shape = src._data.shape
        if max(len(src_shape), 1) != max(len(shape), 1):
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as src tensor"
            )
        if src._data.dtype != input._data.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_scatter_sizes(idx, shape, d, src_shape)
    _check_bounds(idx, (shape or (1,))[d], d)
    return key_along(idx, d) if idx.ndim else (idx,)


@tensor_method()
def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None,
            reduce: str | None = None) -> Tensor:
    """A copy of ``input`` with ``src`` (a tensor or a number) written at ``index`` along
    ``dim``: for ``dim=1``, ``out[i][index[i][j]] = src[i][j]``. The inverse of gather.

    ``reduce='add'`` or ``'multiply'`` combines instead of writing (PyTorch's older form of
    ``scatter_reduce``, deprecated for a tensor ``src``, and with no derivative)."""
    src = value if src is None else src
    if reduce is not None:
        return _scatter_with_reduce(input, dim, index, src, reduce)
    key = _scatter_key(input, dim, index, src)
    saved = (_value_of_index(index),)
    if isinstance(src, Tensor):
        out = ScatterBackward0.apply(input, src, key=key, index=saved)
    else:
        out = ScatterBackward1.apply(input, value=src, key=key, index=saved)
    keep_given(out, _ScatterOp, dim=dim)
    return saving_indices(out, (index,))


def _scatter_with_reduce(input: Tensor, dim: int, index: Tensor, src, reduce: str) -> Tensor:
    """``scatter(..., reduce='add' | 'multiply')``: scatter_reduce's sum or prod with
    ``input`` included; like PyTorch, the result has no derivative."""
    from ..autograd.grad_mode import is_grad_enabled, no_grad
    from .index_update import scatter_reduce
    from .not_implemented import NotImplementedNode

    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if isinstance(src, Tensor):
        warn_user(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.", UserWarning)
        tensor_src = src
    else:
        idx = index._data if isinstance(index, Tensor) else np.asarray(index)
        tensor_src = _make(np.full(idx.shape, src, dtype=input._data.dtype))
    with no_grad():
        result = scatter_reduce(input, dim, index, tensor_src,
                                "sum" if reduce == "add" else "prod", include_self=True)
    inputs = [t for t in (input, src) if isinstance(t, Tensor) and t.requires_grad]
    if not (inputs and is_grad_enabled()):
        return result
    # PyTorch's node for an op without a derivative, <NotImplemented>: one edge per tensor
    # that requires grad
    return NotImplementedNode.apply(*inputs, compute=lambda *arrays: result._data,
                                    aten_name="scatter")


@tensor_method()
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src`` *added* at ``index`` along ``dim`` (repeats add up).

    >>> import teachgrad as torch
    >>> torch.zeros(3).scatter_add(0, torch.tensor([0, 0, 2]), torch.ones(3))
    tensor([2., 0., 1.])
    """
    if not isinstance(src, Tensor):
        raise TypeError(
            f"scatter_add(): argument 'src' (position 3) must be Tensor, not "
            f"{python_type_name(src)}"
            + real_pytorch_hint(src)
        )
    out = ScatterAddBackward0.apply(input, src, key=_scatter_key(input, dim, index, src),
                                    index=(_value_of_index(index),))
    keep_given(out, ScatterAddBackward0, dim=dim)
    return saving_indices(out, (index,))


# ----------------------------------------------------------------------------------------
# Masks: masked_fill, masked_select
# ----------------------------------------------------------------------------------------
class MaskedFillBackward0(Op):
    reads_index_tensor = True  # (see Op)
    formula = "masked_fill: ∂/∂a = 0 where the mask is true, else 1"
    # The mask is saved (PyTorch's _saved_mask): masked_fill then has backward check it
    # was not changed in place since (see graph.check_saved_constant).
    saved_names = ("mask",)

    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.save_for_backward(mask)
        return row_major(np.where(mask, np.asarray(value, a.dtype), a))

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return masked_fill_zero(mask, grad)


class MaskedFillBackward1(Op):
    reads_index_tensor = True  # (see Op)
    formula = "masked_fill: ∂/∂a = 0 where the mask is true, else 1; ∂/∂value = Σ over the mask"
    saved_names = ("mask",)  # (as MaskedFillBackward0's)

    @staticmethod
    def forward(ctx, a, value, mask):
        ctx.save_for_backward(mask)
        return row_major(np.where(mask, value.astype(a.dtype), a))

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return masked_fill_zero(mask, grad), keep_where(mask, grad)


_CPP_TYPE_NAMES = {  # how PyTorch's C++ spells dtypes in some messages
    "float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long int",
    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
}


def _bool_mask(mask, message: str) -> np.ndarray:
    arr = _value_of_index(mask)
    if arr.dtype != np.bool_:
        raise RuntimeError(message.format(dtype=_CPP_TYPE_NAMES.get(arr.dtype.name, arr.dtype)))
    return arr


def _broadcast_shape(a: tuple, b: tuple) -> tuple:
    """The broadcast shape of ``a`` and ``b``, or PyTorch's error naming ``a`` first."""
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        i = next(i for i in range(1, min(len(a), len(b)) + 1)
                 if a[-i] != b[-i] and 1 not in (a[-i], b[-i]))
        raise RuntimeError(
            f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) at "
            f"non-singleton dimension {max(len(a), len(b)) - i}"
        ) from None


_MASKED_FILL = Signatures("masked_fill", "(Tensor mask, Tensor value)",
                          "(Tensor mask, Number value)")


@tensor_method()
def masked_fill(input: Tensor, mask: Tensor = REQUIRED, value=REQUIRED) -> Tensor:
    """``input`` with ``value`` wherever ``mask`` (a bool tensor, broadcast) is true.

    >>> import teachgrad as torch
    >>> x = torch.tensor([1., -2., 3.])
    >>> x.masked_fill(x < 0, 0.)
    tensor([1., 0., 3.])
    """
    if mask is REQUIRED or value is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("masked_fill", masked_fill, input, mask, value)
    mask_arr = _bool_mask(mask, "masked_fill_ only supports boolean masks, but got mask with "
                                "dtype {dtype}")
    _broadcast_shape(mask_arr.shape, input._data.shape)  # (PyTorch's error if they do not)
    if isinstance(value, Tensor):  # (the mask is saved as it is: np.where broadcasts it)
        if value._data.ndim:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        check_fill_value(value._data.item(), input._data.dtype)  # (inf into int64: seed 97)
        out = MaskedFillBackward1.apply(input, value, mask=mask_arr)
    else:
        if not isinstance(value, (numbers.Number, np.generic)):
            _MASKED_FILL.check((mask, value))
        value = check_fill_value(value, input._data.dtype)
        out = MaskedFillBackward0.apply(input, mask=mask_arr, value=value)
    if isinstance(mask, Tensor):  # backward refuses a mask changed in place since
        check_saved_constant(out, 0, mask)
    return out


class MaskedSelectBackward0(PickOp):
    """``masked_select(mask)``: the elements where the (broadcast) mask is true, as a vector."""

    reads_index_tensor = True  # (see Op)

    saved_names = ("mask", "self")  # (PyTorch keeps the input too: its formula takes it)

    @staticmethod
    def forward(ctx, a, shape, key, mask):
        # (read back by PickOp.backward, for its check; the input is saved after the mask,
        # in PyTorch's order: see saving_input)
        ctx.save_for_backward(mask, None)
        ctx.shape, ctx.key = shape, key
        return np.broadcast_to(a, shape)[key]


@tensor_method()
def masked_select(input: Tensor, mask: Tensor = REQUIRED) -> Tensor:
    """The elements of ``input`` where ``mask`` is true, as a vector (``input[mask]``)."""
    if mask is REQUIRED:  # (x.masked_select(): PyTorch's words, see _missing_arguments)
        raise missing("masked_select", masked_select, input, mask)
    mask_arr = _bool_mask(mask, "masked_select: expected BoolTensor for mask")
    shape = _broadcast_shape(mask_arr.shape, input._data.shape)
    key = np.nonzero(np.broadcast_to(mask_arr, shape))
    out = MaskedSelectBackward0.apply(input, shape=shape, key=key, mask=mask_arr)
    return saving_input(out, (mask,), input)


@tensor_method()
def nonzero(input: Tensor, *, as_tuple: bool = False) -> Tensor | tuple[Tensor, ...]:
    """The indices of the non-zero elements: an ``(n, ndim)`` int64 tensor, or with
    ``as_tuple=True`` one vector per dimension (what ``x[...]`` accepts)."""
    if as_tuple:  # PyTorch returns the columns of the (n, ndim) result, as views of it
        return unbind(_make(_nonzero_indices(np.atleast_1d(input._data))), 1)
    return _make(_nonzero_indices(input._data))


def _nonzero_indices(a: np.ndarray) -> np.ndarray:
    """The (n, ndim) int64 indices of ``a``'s non-zero elements, laid out as PyTorch's
    kernel writes them: column by column (strides (1, n)), so each column is contiguous."""
    found = np.argwhere(a).astype(np.int64)
    return np.asfortranarray(found) if found.size else found  # (empty: as before)


@tensor_method()
def argwhere(input: Tensor) -> Tensor:
    """``nonzero(input)``."""
    return nonzero(input)


# ----------------------------------------------------------------------------------------
# Sorting: sort, argsort, msort, topk, kthvalue (the values are differentiable)
# ----------------------------------------------------------------------------------------
class _PickAlongDim(PickOp):
    """sort, topk, kthvalue: each position along ``dim`` is picked at most once, so
    PyTorch writes the gradient back with a scatter (``ScatterBackward0`` under
    create_graph); a plain backward is PickOp's."""

    saved_attributes = {"dim": given("dim"),  # (as the user gave it, see _sorted)
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...

    @staticmethod
    def backward(ctx, grad):
        if ctx._saved is not None:  # the indices (see _keep_indices): read for the check
            unpack_saved(ctx)
        if type(grad) is not Tensor:
            return PickOp.backward(ctx, grad)
        return _written_back(ScatterBackward0, ctx, grad)


def _keep_indices(values: Tensor, indices: Tensor) -> None:
    """PyTorch's sort/topk/kthvalue keep their indices output for backward: changed in
    place, backward refuses ("[torch.LongTensor [3]] is at version 1"), and a second
    backward without retain_graph finds them freed. The gradient itself uses the key the
    node already holds, so the indices are kept for that check only."""
    node = values._grad_fn
    if node is not None and isinstance(node, _PickAlongDim):
        node._saved = ((indices._data,), ((indices._vc, indices._vc[0], 1),))


class SortBackward0(_PickAlongDim):
    """``sort``: the values are picked from the input, so the gradient goes back to them.
    PyTorch sorts a clone of the input in place: the values (and indices) are laid out in
    memory as the input is (``x.t().sort(0)`` is transposed too, see _like_input)."""
    saved_names = ("indices",)  # grad_fn._saved_... (see _keep_indices)

    @staticmethod
    def forward(ctx, a, key):
        return _like_input(PickOp.forward(ctx, a, key), a)


class SortBackward1(SortBackward0):
    """``sort(stable=...)``."""
    saved_names = ("indices",)  # grad_fn._saved_... (see _keep_indices)


class TopkBackward0(_PickAlongDim):
    """``topk``: the k largest (or smallest) values."""
    saved_names = ("indices",)  # grad_fn._saved_... (see _keep_indices)


class KthvalueBackward0(_PickAlongDim):
    """``kthvalue``: the k-th smallest value."""
    saved_names = ("indices",)  # grad_fn._saved_... (see _keep_indices)
    saved_attributes = {"dim": given("dim"), "keepdim": given("keepdim"),
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...
    inference_out_name = "kthvalue"  # (see Op: PyTorch's composite writes through kthvalue_out)


return_types_sort = _return_type("sort")
return_types_topk = _return_type("topk")
return_types_kthvalue = _return_type("kthvalue")


def _like_input(out: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``out`` (of ``a``'s shape) laid out in memory as ``clone`` lays out ``a``: row-major
    ``out`` as it is when ``a`` is row-major too, else a copy."""
    if out.shape != a.shape or (a.flags.c_contiguous and a.size > 1
                                and out.strides == a.strides):
        return out  # (a row-major a: out is row-major already, see PickOp.forward)
    placed = zeros_keeping_layout(a, out.dtype)
    np.copyto(placed, out)
    return placed


def _order(a: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Stable argsort along ``dim``; descending keeps equal elements in their order too."""
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    reversed_order = np.argsort(np.flip(a, dim), axis=dim, kind="stable")
    return a.shape[dim] - 1 - np.flip(reversed_order, dim)


def _sorted(op: type[Op], input: Tensor, dim: int, descending: bool, k: int | None = None,
            pick: int | None = None, keepdim: bool = True, given_dim: int | None = None):
    """Sort along ``dim``, keep the first ``k`` (or the one at ``pick``), as (values, indices).

    ``given_dim``: the dim as the user wrote it (-1 is 2⁶⁴ - 1 on ``grad_fn._saved_dim``)."""
    a = input._data
    if a.ndim == 0:  # one element: itself, at index 0
        order = np.zeros((), np.int64)
        values = op.apply(input, key=(np.zeros((), np.intp),))
        indices = _make(order)
        _keep_indices(values, indices)
        keep_given(values, op, dim=given_dim, keepdim=keepdim)
        return values, indices
    order = _order(a, dim, descending)
    if k is not None:
        order = order[_along(dim, slice(0, k))]
    if pick is not None:
        order = order[_along(dim, slice(pick, pick + 1))]
    key = key_along(order, dim)
    if not keepdim:  # every key array has size 1 along dim: drop it there
        key = tuple(np.squeeze(k, dim) for k in key)
        order = np.squeeze(order, dim)
    order = order.astype(np.int64)
    if issubclass(op, SortBackward0):  # (laid out as the input, as the values are)
        order = _like_input(order, a)
    values, indices = op.apply(input, key=key), _make(order)
    _keep_indices(values, indices)
    keep_given(values, op, dim=given_dim, keepdim=keepdim)
    return values, indices


@tensor_method()
@checks_types("sort", "(*, bool stable, int dim = -1, bool descending = False)",
              "(int dim = -1, bool descending = False)", function=(
    "(Tensor input, *, bool stable, int dim = -1, bool descending = False, "
    "tuple of Tensors out = None)",
    "(Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None)"))
def sort(input: Tensor, dim: int = -1, descending: bool = False, *,
         stable: bool | None = None) -> return_types_sort:
    """``(values, indices)`` sorted along ``dim``; equal values keep their order.

    >>> import teachgrad as torch
    >>> torch.tensor([3., 1., 2.]).sort()
    teachgrad.return_types.sort(
    values=tensor([1., 2., 3.]),
    indices=tensor([1, 2, 0]))
    """
    op = SortBackward0 if stable is None else SortBackward1
    d = _wrap_dim(dim, input._data.ndim)
    return return_types_sort(*_sorted(op, input, d, descending, given_dim=dim))


@tensor_method()
@checks_types("argsort", "(*, bool stable, int dim = -1, bool descending = False)",
              "(int dim = -1, bool descending = False)", function=(
    "(Tensor input, *, bool stable, int dim = -1, bool descending = False, Tensor out = None)",
    "(Tensor input, int dim = -1, bool descending = False)"))
def argsort(input: Tensor, dim: int = -1, descending: bool = False,
            stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim``."""
    return sort(input, dim, descending)[1]


@tensor_method()
def msort(input: Tensor) -> Tensor:
    """``sort(input, dim=0).values``."""
    return sort(input, 0)[0]


@tensor_method()
@checks_types("topk", "(int k, int dim = -1, bool largest = True, bool sorted = True)")
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True,
         sorted: bool = True) -> return_types_topk:  # noqa: A002
    """The ``k`` largest values along ``dim`` (smallest with ``largest=False``) and their
    indices."""
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d] if input._data.ndim else 1
    if not 0 <= operator.index(k) <= size:  # (k=1.5: PyTorch's TypeError)
        raise RuntimeError("selected index k out of range")
    return return_types_topk(*_sorted(TopkBackward0, input, d, largest, k=k, given_dim=dim))


@tensor_method()
@checks_types("kthvalue", "(int k, int dim = -1, bool keepdim = False)", function=(
    "(Tensor input, int k, int dim = -1, bool keepdim = False, *, tuple of Tensors out = None)",))
def kthvalue(input: Tensor, k: int, dim: int = -1,
             keepdim: bool = False) -> return_types_kthvalue:
    """The ``k``-th smallest value along ``dim`` (k counts from 1) and its index."""
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d] if input._data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return return_types_kthvalue(
        *_sorted(KthvalueBackward0, input, d, False, pick=k - 1, keepdim=keepdim,
                 given_dim=dim)
    )


__all__ = [
    "index_put", "index_put_", "index_select", "gather", "take", "take_along_dim", "scatter",
    "scatter_add", "masked_fill", "masked_select", "nonzero", "argwhere", "sort", "argsort",
    "msort", "topk", "kthvalue", "unravel_index",
]

def _masked_fill_in_place(input: Tensor, mask: Tensor, value) -> Tensor:
    """masked_fill for masked_fill_: PyTorch broadcasts self with the mask (self is tensor
    a in its message) and compares the result with self's shape before it converts the
    value (focused fuzz seeds 5, 141)."""
    if isinstance(mask, Tensor) and mask._data.dtype in (np.bool_, np.uint8):
        _check_output_shape(input, mask)
    return masked_fill(input, mask, value)


def _put_into_expanded(t: Tensor, values: Tensor, key: tuple, accumulate: bool,
                       advanced: list = (), tensors: tuple = ()) -> Tensor:
    """index_put_ (``t[idx] = v``) into an expanded ``t``, as PyTorch still does it: each
    position in turn (its memory is shared: the last write wins, or every one adds)."""
    warn_expanded_write("index_put_", "tensor[indices] = tensor")
    if _fills_a_mask(values, advanced, accumulate):  # (PyTorch runs it as masked_fill_)
        warn_expanded_write("masked_fill_", "tensor[mask] = scalar")
    new = values._data.astype(t._data.dtype, copy=False)
    if accumulate:
        np.add.at(t._data, key, new)  # (unbuffered: each addition sees the ones before)
    else:
        t._data[key] = new
    t._vc[0] += 1
    return t


def _masked_fill_into_expanded(t: Tensor, mask: Tensor, value) -> Tensor:
    """masked_fill_ into an expanded ``t`` (see _put_into_expanded)."""
    result = _masked_fill_in_place(t, mask, value)  # (its checks, and value in t's dtype)
    warn_expanded_write("masked_fill_", "tensor[mask] = scalar")
    where = np.broadcast_to(mask._data.astype(bool), t._data.shape)
    t._data[where] = result._data[where]
    t._vc[0] += 1
    return t


EXPANDED_WRITERS[_put] = _put_into_expanded
EXPANDED_WRITERS[_masked_fill_in_place] = _masked_fill_into_expanded

# (how each checks its operands' memory, as PyTorch's kernels: see inplace._OVERLAP_RULES;
# index_put_ has its own check, _check_no_overlap)
_OVERLAP_RULES[_put] = None
for _name, _op, _overlap in [("scatter_", scatter, "any"), ("scatter_add_", scatter_add, "any"),
                             ("masked_fill_", _masked_fill_in_place, None)]:
    setattr(Tensor, _name, inplace_method(_op, _name, _overlap))
