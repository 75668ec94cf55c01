"""Shape ops: reshape, squeeze, transpose, expand, slice, split, join, flip, repeat ...

They move numbers around without changing them, so each backward moves the gradient
back: a reshape's backward reshapes, a transpose's backward transposes back, an expand's
backward sums over the expanded dimensions, a slice's backward puts the gradient back
into a zero tensor at the sliced positions, a split's backward concatenates.

Most of the first kind are *views*: the output shares memory (and the version counter)
with the input, as in PyTorch (``is_view = True``). cat, stack, flip, repeat, roll,
tril/triu copy.

The module has five parts: reshaping views, dimension views, slicing views (select,
narrow, split, unbind, diagonal), copying ops (cat, stack, flip, repeat, roll, tril) and,
at the end, the NumPy functions the backward formulas use, routed to these ops so that
``create_graph=True`` records them.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._arguments import NOT_GIVEN, Signatures, checks_types
from .._dtypes import result_type
from .._missing_arguments import REQUIRED, missing, missing_message
from .._real_pytorch import real_pytorch_hint
from .._tensor import Size, Tensor, _wrap_dim, python_type_name, tensor_method
from .._warn import warn_user
from . import numpy_protocol
from .layout import (
    contiguous_format,
    contiguous_strides,
    copy_keeping_layout,
    element_strides,
    empty_slice_at,
    row_major,
    with_pytorch_strides,
    with_strides,
)
from .op import NO_CONTEXT, Op
from .saved_values import given, keep_given, negative, shown


# ----------------------------------------------------------------------------------------
# Argument helpers
# ----------------------------------------------------------------------------------------
def _size_args(size) -> tuple:
    """Accept ``view(2, 3)``, ``view((2, 3))`` and ``view([2, 3])``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    return tuple(map(operator.index, size))  # (an int, not a float: PyTorch's TypeError)


def _dim_list(dims, ndim: int) -> tuple:
    """Wrapped dims of ``flip(0, 1)`` / ``flip((0, 1))``, refusing repeats (PyTorch's error)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    wrapped = tuple(_wrap_dim(d, ndim) for d in dims)
    for i, d in enumerate(wrapped):
        if d in wrapped[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return wrapped


def _no_dims_message(dim: int) -> str:
    return f"Dimension specified as {dim} but tensor has no dimensions"


def _shape_str(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _legacy_name(t: Tensor) -> str:
    """PyTorch's old type name used in some messages, e.g. ``torch.FloatTensor``."""
    return f"torch.{t.dtype._legacy}"


def _along(dim: int, index) -> tuple:
    """The NumPy index that applies ``index`` to dimension ``dim``: ``(:, :, index)``."""
    return (slice(None),) * dim + (index, Ellipsis)


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one ``-1`` in ``shape`` and check the element count (PyTorch's errors)."""
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(
                f"invalid shape dimension {s} at index {i} of shape {_shape_str(shape)}"
            )
    known = math.prod(s for s in shape if s != -1)
    if unknown:
        if known == 0 and numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {_shape_str(shape)} "
                "because the unspecified dimension size -1 can be any value and is ambiguous"
            )
        if known == 0 or numel % known:
            raise RuntimeError(
                f"shape '{_shape_str(shape)}' is invalid for input of size {numel}"
            )
        shape = shape[: unknown[0]] + (numel // known,) + shape[unknown[0] + 1 :]
    elif known != numel:
        raise RuntimeError(
            f"shape '{_shape_str(shape)}' is invalid for input of size {numel}"
            "\nHint: the new shape must hold exactly as many elements as the tensor has "
            f"({numel}); use -1 for one dimension to let it be inferred."
        )
    return shape


# ----------------------------------------------------------------------------------------
# Reshaping views: view, reshape, flatten, unflatten
# ----------------------------------------------------------------------------------------
class ViewBackward0(Op):
    saved_attributes = {"self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...
    formula = "reshape: the gradient is reshaped back"
    is_view = True

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        out = np.reshape(a, shape)
        if out.size == 0:
            if out.shape != a.shape:  # PyTorch's strides: row-major ones
                out = with_strides(out, contiguous_strides(out.shape))
        elif 1 in out.shape and (1 in a.shape or not a.flags.c_contiguous):
            # NumPy and PyTorch may give a size-1 dim different strides (not when the input
            # is row-major, and its strides all are: both then give row-major strides)
            strides = view_strides(a.shape, element_strides(a), out.shape)
            if out.strides != tuple([s * a.itemsize for s in strides]):
                out = with_strides(out, strides)
        return out

    @staticmethod
    def backward(ctx, grad):
        return np.reshape(grad, ctx.shape)


def _as_strided_like(a: np.ndarray, byte_strides: tuple) -> np.ndarray:
    """A view of ``a`` with these strides in bytes (writable if ``a`` is)."""
    return as_strided(a, a.shape, byte_strides, writeable=a.flags.writeable)


def view_strides(old_shape: tuple, old_strides: tuple, new_shape: tuple) -> tuple:
    """The strides PyTorch gives ``view(new_shape)`` of a tensor of ``old_shape`` and
    ``old_strides`` (its ``computeStride``; the view is known to exist, with the same
    number of elements, not 0). Dims are grouped into chunks that are contiguous with
    each other; each chunk of the old shape is cut into the new dims, innermost first."""
    if not old_shape:
        return (1,) * len(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                             old_strides[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if tensor_d > 0:
                chunk_base = old_strides[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(new_strides)


class ReshapeAliasBackward0(ViewBackward0):
    """``reshape`` of a non-contiguous tensor whose strides still allow a view."""


class UnsafeViewBackward0(ViewBackward0):
    """The reshape of a copy: ``reshape`` of a tensor that cannot be viewed clones it first."""

    is_view = False


def _viewable(a: np.ndarray, shape: tuple) -> bool:
    try:
        np.reshape(a, shape, copy=False)
    except ValueError:
        return False
    return True


_VIEW = Signatures("view", "(torch.dtype dtype)", "(tuple of ints size)")


@tensor_method()
@checks_types("view", "(torch.dtype dtype)", "(tuple of ints size)")
def view(input: Tensor, *shape) -> Tensor:
    """The same data seen with another shape (no copy; errors if impossible).

    >>> import teachgrad as torch
    >>> torch.arange(6).view(2, 3)
    tensor([[0, 1, 2],
            [3, 4, 5]])
    """
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Size)):
        return _view_as_dtype(input, shape[0])
    if not shape:  # (x.view() is no shape at all, not the shape of a 0-d tensor)
        _VIEW.check(())
    new = infer_shape(_size_args(shape), input._data.size)
    if not _viewable(input._data, new):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return ViewBackward0.apply(input, shape=new)


def _view_as_dtype(input: Tensor, dtype) -> Tensor:
    """``view(dtype)``: the same bytes read as another dtype (not a conversion!).

    As in PyTorch the result is cut off from autograd, but it shares the memory and the
    version counter: ``torch.ones(1).view(torch.int32)`` is ``tensor([1065353216])``.
    """
    from .._dtypes import to_dtype
    from .._tensor import _make

    target = to_dtype(dtype)
    a = input._data
    if target.itemsize != a.itemsize:
        source_name = input.dtype._legacy.removesuffix("Tensor")  # "Float", "Long" ...
        names = f"{source_name} as {target._legacy.removesuffix('Tensor')}"
        if a.ndim == 0:
            raise RuntimeError(
                f"self.dim() cannot be 0 to view {names} (different element sizes)"
            )
        if a.shape[-1] != 1 and a.strides[-1] != a.itemsize:
            raise RuntimeError(
                f"self.stride(-1) must be 1 to view {names} (different element sizes), but got "
                f"{a.strides[-1] // a.itemsize}"
            )
        ratio = max(target.itemsize, a.itemsize) // min(target.itemsize, a.itemsize)
        if target.itemsize > a.itemsize and a.shape[-1] % ratio:
            raise RuntimeError(
                f"self.size(-1) must be divisible by {ratio} to view {names} (different element "
                f"sizes), but got {a.shape[-1]}"
            )
    out = _make(a.view(target.numpy))
    out._vc = input._vc  # the same memory: in-place changes show (and count) in both
    return out


@tensor_method()
@checks_types("reshape", "(tuple of ints shape)")
def reshape(input: Tensor, *shape) -> Tensor:
    """Like :func:`view`, but copies when the data cannot be viewed in the new shape.

    The graph shows which case it was, as PyTorch records it: ``ViewBackward0`` for a
    contiguous tensor, ``ReshapeAliasBackward0`` for another view, and
    ``UnsafeViewBackward0`` over ``CloneBackward0`` for a copy.
    """
    new = infer_shape(_size_args(shape), input._data.size)
    if input._data.flags.c_contiguous:
        return ViewBackward0.apply(input, shape=new)
    if _viewable(input._data, new):
        return ReshapeAliasBackward0.apply(input, shape=new)
    copy = input.clone(memory_format=contiguous_format)  # row-major, so the view is free
    return UnsafeViewBackward0.apply(copy, shape=new)


@tensor_method()
def view_as(input: Tensor, other: Tensor = REQUIRED) -> Tensor:
    """``input.view(other.shape)``."""
    if other is REQUIRED:  # (x.view_as(): PyTorch's words, see _missing_arguments)
        raise missing("view_as", view_as, input, other)
    return view(input, other._data.shape)


@tensor_method()
def reshape_as(input: Tensor, other: Tensor = REQUIRED) -> Tensor:
    """``input.reshape(other.shape)``."""
    if other is REQUIRED:  # (x.reshape_as(): PyTorch's words, see _missing_arguments)
        raise missing("reshape_as", reshape_as, input, other)
    return reshape(input, other._data.shape)


@tensor_method()
@checks_types("flatten", "(int start_dim = 0, int end_dim = -1)")
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim..end_dim`` into one (nothing to merge: ``input`` itself).

    >>> import teachgrad as torch
    >>> torch.zeros(2, 3, 4).flatten(1).shape
    teachgrad.Size([2, 12])
    """
    ndim = input._data.ndim
    start, end = _wrap_dim(start_dim, ndim), _wrap_dim(end_dim, ndim)
    if ndim == 0:
        return reshape(input, (1,))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input._data.shape
    new = shape[:start] + (math.prod(shape[start : end + 1]),) + shape[end + 1 :]
    return reshape(input, new)


@tensor_method()
@checks_types("unflatten", "(int dim, tuple of ints sizes)")
def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """Split dimension ``dim`` into ``sizes`` (one of them may be -1)."""
    d = _wrap_dim(dim, input._data.ndim)
    if sizes and type(sizes[0]) is bool:  # (PyTorch's parser looks at the first only)
        raise TypeError("a bool is not a size")  # (reworded by checks_types)
    sizes = tuple(map(operator.index, sizes))  # (2.0 is not a size either)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if input._data.ndim == 0:
        raise RuntimeError(f"unflatten got an unexpected error:\n{_no_dims_message(d)}")
    shape = input._data.shape
    try:
        sizes = infer_shape(sizes, shape[d])
    except RuntimeError as e:
        if "is invalid for input of size" not in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(
            f"unflatten: Provided sizes {_shape_str(sizes)} don't multiply up to the size of "
            f"dim {d} ({shape[d]}) in the input tensor"
        ) from None
    return view(input, shape[:d] + tuple(sizes) + shape[d + 1 :])


_checked_unflatten_method = Tensor.unflatten


def _unflatten_method(self: Tensor, dim: int, sizes) -> Tensor:
    """Split dimension ``dim`` into ``sizes`` (one of them may be -1)."""
    if not sizes:  # (PyTorch's method asks first: None, (), a tensor's truth value)
        raise RuntimeError("unflatten: sizes must be non-empty")
    return _checked_unflatten_method(self, dim, sizes)


# PyTorch's Tensor.unflatten is a Python method: a missing or extra argument is Python's
# own TypeError ("Tensor.unflatten() missing 1 required positional argument: 'sizes'"),
# the wrong kind of argument the parser's of the method it calls.
_unflatten_method.__qualname__ = "Tensor.unflatten"
_unflatten_method.__name__ = "unflatten"
Tensor.unflatten = _unflatten_method


# ----------------------------------------------------------------------------------------
# Dimension views: unsqueeze, squeeze, transpose, t, permute, movedim, .T, .mT, expand
# ----------------------------------------------------------------------------------------
class UnsqueezeBackward0(Op):
    saved_attributes = {"dim": given("dim", lambda node: node.dim)}  # grad_fn._saved_...
    formula = "unsqueeze: the added dimension is squeezed away again"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        shape = a.shape
        out = a.reshape(shape[:dim] + (1,) + shape[dim:])  # (np.expand_dims, without its
        # argument handling.) PyTorch's strides: the new dim's is size * stride of the dim
        # after it (NumPy may choose another, and change another size-1 dim's; an empty
        # array's are 0)
        if a.size:  # (in bytes, the usual case: NumPy's are mostly these already)
            old = a.strides
            strides = old[:dim] + (
                shape[dim] * old[dim] if dim < len(old) else a.itemsize,) + old[dim:]
            return out if out.strides == strides else _as_strided_like(out, strides)
        strides = list(element_strides(a))
        strides.insert(dim, a.shape[dim] * strides[dim] if dim < a.ndim else 1)
        return with_strides(out, strides)

    @staticmethod
    def backward(ctx, grad):
        return np.squeeze(grad, ctx.dim)


@tensor_method()
@checks_types("unsqueeze", "(int dim)")
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dimension of size 1 at ``dim``.

    >>> import teachgrad as torch
    >>> torch.zeros(3).unsqueeze(0).shape
    teachgrad.Size([1, 3])
    """
    out = UnsqueezeBackward0.apply(input, dim=_wrap_dim(dim, input._data.ndim + 1))
    if dim < 0:  # (grad_fn._saved_dim shows it as given: see saved_values)
        keep_given(out, UnsqueezeBackward0, dim=dim)
    return out


class SqueezeBackward0(Op):
    """Squeeze every size-1 dimension."""

    formula = "squeeze: the gradient gets its size-1 dimensions back"
    is_view = True
    saved_attributes = {"self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a):
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        ctx.shape = a.shape
        ctx.dims = tuple(d for d, n in enumerate(a.shape) if n == 1)  # the squeezed ones
        return np.squeeze(a)

    @staticmethod
    def backward(ctx, grad):
        if not ctx.dims:  # nothing was squeezed: the gradient as it is (as PyTorch)
            return grad
        if isinstance(grad, Tensor):  # create_graph: PyTorch unsqueezes each dimension
            for d in ctx.dims:  # back (UnsqueezeBackward0 nodes, not a reshape's view)
                grad = UnsqueezeBackward0.apply(grad, dim=d)
            return grad
        return np.reshape(grad, ctx.shape)


class SqueezeBackward1(SqueezeBackward0):
    """Squeeze one dimension (if it has size 1)."""
    saved_attributes = {"dim": given("dim", lambda node: node.dims[0]),
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, dim):
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        ctx.shape = a.shape
        squeezed = a.ndim and a.shape[dim] == 1
        ctx.dims = (dim,) if squeezed else ()
        return np.squeeze(a, dim) if squeezed else a.view()


class SqueezeBackward2(SqueezeBackward0):
    """Squeeze several dimensions (those of them that have size 1)."""

    @staticmethod
    def forward(ctx, a, dims):
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        ctx.shape = a.shape
        ctx.dims = squeezed = tuple(sorted(d for d in dims if a.ndim and a.shape[d] == 1))
        return np.squeeze(a, squeezed)


@tensor_method()
@checks_types("squeeze", "()", "(int dim)", "(tuple of ints dim)")
def squeeze(input: Tensor, *dims, dim=NOT_GIVEN) -> Tensor:
    """Remove size-1 dimensions: all of them, or those among ``dim`` (an int or a tuple).

    As in PyTorch, the method also takes the dimensions one by one: ``x.squeeze(0, 1)``.

    >>> import teachgrad as torch
    >>> torch.zeros(1, 3, 1).squeeze().shape
    teachgrad.Size([3])
    >>> torch.zeros(1, 1, 3).squeeze(0, 1).shape
    teachgrad.Size([3])
    """
    if dims:
        if dim is not NOT_GIVEN:
            raise TypeError("squeeze() got multiple values for argument 'dim'")
        dim = dims[0] if len(dims) == 1 else dims
    if dim is NOT_GIVEN:  # (a None given is refused below, as PyTorch's parser does)
        return SqueezeBackward0.apply(input)
    if isinstance(dim, (tuple, list)):
        return SqueezeBackward2.apply(input, dims=_dim_list((dim,), input._data.ndim))
    out = SqueezeBackward1.apply(input, dim=_wrap_dim(dim, input._data.ndim))
    if dim < 0:  # (shown as given: see saved_values)
        keep_given(out, SqueezeBackward1, dim=dim)
    return out


class TransposeBackward0(Op):
    saved_attributes = {"dim0": given("dim0", lambda node: node.dims[0]),
                        "dim1": given("dim1", lambda node: node.dims[1])}  # grad_fn._saved_...
    formula = "transpose: the gradient is transposed back"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        ctx.dims = (dim0, dim1)
        return np.swapaxes(a, dim0, dim1) if a.ndim else a.view()

    @staticmethod
    def backward(ctx, grad):
        if type(grad) is Tensor:  # create_graph: recorded, even for a 0-d tensor (PyTorch's)
            return transpose(grad, *ctx.dims)
        return np.swapaxes(grad, *ctx.dims) if np.ndim(grad) else grad


@tensor_method("transpose", "swapaxes", "swapdims")
@checks_types("transpose", "(int dim0, int dim1)")
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dimensions ``dim0`` and ``dim1``.

    >>> import teachgrad as torch
    >>> torch.zeros(2, 3).transpose(0, 1).shape
    teachgrad.Size([3, 2])
    """
    n = input._data.ndim
    out = TransposeBackward0.apply(input, dim0=_wrap_dim(dim0, n), dim1=_wrap_dim(dim1, n))
    if dim0 < 0 or dim1 < 0:  # (x.mT: -2 and -1, shown as given: see saved_values)
        keep_given(out, TransposeBackward0, dim0=dim0, dim1=dim1)
    return out


# (PyTorch's swapaxes names its parameters as NumPy does, in its messages too)
Tensor.swapaxes = transpose.method_form.renamed("swapaxes", "(int axis0, int axis1)")


class TBackward0(Op):
    formula = "t: the gradient is transposed back"
    is_view = True

    @staticmethod
    def forward(ctx, a):
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        return a.T

    @staticmethod
    def backward(ctx, grad):
        if type(grad) is not Tensor:
            return grad.T  # (np.transpose(grad), without NumPy's Python-level dispatch)
        return grad.t()  # (PyTorch's: t back, TBackward0 under create_graph, not a permute)


@tensor_method()
def t(input: Tensor) -> Tensor:
    """Transpose a matrix (0-d and 1-d tensors come back unchanged, as views)."""
    if input._data.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D"
        )
    return TBackward0.apply(input)


class PermuteBackward0(Op):
    # (it keeps the inverse permutation, for backward; PyTorch shows the one asked for)
    saved_attributes = {"dims": given("dims", lambda node: tuple(int(d) for d in
                                                                 np.argsort(node.inverse)))}
    formula = "permute: the gradient is permuted back"
    is_view = True

    @staticmethod
    def forward(ctx, a, dims):
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        ctx.inverse = tuple(int(i) for i in np.argsort(dims))
        return np.transpose(a, dims)

    @staticmethod
    def backward(ctx, grad):
        return np.transpose(grad, ctx.inverse)


@tensor_method()
@checks_types("permute", "(tuple of ints dims)")
def permute(input: Tensor, *dims) -> Tensor:
    """Reorder the dimensions: ``x.permute(2, 0, 1)``."""
    dims = _size_args(dims)
    n = input._data.ndim
    if len(dims) != n:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    written, dims = dims, tuple(_wrap_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    out = PermuteBackward0.apply(input, dims=dims)
    if negative(written):  # (shown as given: see saved_values)
        keep_given(out, PermuteBackward0, dims=written)
    return out


@tensor_method("movedim", "moveaxis")
@checks_types("movedim", "(int source, int destination)",
              "(tuple of ints source, tuple of ints destination)")
def movedim(input: Tensor, source, destination) -> Tensor:
    """Move dimension(s) ``source`` to position(s) ``destination`` (a permute)."""
    n = input._data.ndim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    src_w = [_wrap_dim(d, n) for d in src]
    dst_w = [_wrap_dim(d, n) for d in dst]
    for name, written, wrapped in (("source", src, src_w), ("destination", dst, dst_w)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(written)})")
    if n == 0:  # nothing to move (PyTorch returns an alias)
        return AliasBackward0.apply(input)
    order = [d for d in range(n) if d not in src_w]
    for d_dst, d_src in sorted(zip(dst_w, src_w)):
        order.insert(d_dst, d_src)
    return PermuteBackward0.apply(input, dims=tuple(order))


_T_DEPRECATED = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
    "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
    "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
    "dimensions of a tensor."
)


def _T(self: Tensor) -> Tensor:
    """The tensor with its dimensions reversed (the transpose, for a matrix)."""
    n = self._data.ndim
    if n == 0:
        warn_user(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
            "cases.", UserWarning,
        )
    elif n != 2:
        warn_user(_T_DEPRECATED, UserWarning)
    return PermuteBackward0.apply(self, dims=tuple(range(n - 1, -1, -1)))


def _mT(self: Tensor) -> Tensor:
    """Transpose the last two dimensions (batches of matrices)."""
    n = self._data.ndim
    if n == 0:
        warn_user(
            "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these "
            "cases.", UserWarning,
        )
        return self
    if n < 2:
        raise RuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. "
            f"Got {n}-D tensor."
        )
    return transpose(self, -2, -1)


Tensor.T = property(_T)
Tensor.mT = property(_mT)


class ExpandBackward0(Op):
    formula = "expand: the gradient is summed over the expanded dimensions"
    is_view = True
    saved_attributes = {"self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        # np.broadcast_to, but writable like its input: x.expand(2, 3)[0] = 1 writes into x
        # (a write to the whole expanded tensor is refused, see inplace.write_into).
        return as_strided(a, shape, _expanded_strides(a, shape), writeable=a.flags.writeable)

    @staticmethod
    def backward(ctx, grad):
        if type(grad) is Tensor and grad._data.ndim == 0:
            # create_graph, a 0-d tensor expanded to 0-d: PyTorch's sum_to(grad, ()) still
            # sums (SumBackward0), where the engine has nothing to sum
            return grad.sum()
        return grad  # the engine sums it back to the input's shape


def _expanded_strides(a: np.ndarray, shape: tuple) -> tuple:
    """The (byte) strides PyTorch gives ``a`` expanded to ``shape``: 0 for an expanded dim;
    a new leading dim of size 1 gets the stride of a dim just outside the next one (as
    ``unsqueeze(0)`` would), so that ``zeros(3).expand(1, 3)`` has strides (3, 1)."""
    strides = [0] * len(shape)
    lead = len(shape) - a.ndim
    outer = 0  # (a 0-d tensor's expansion has stride 0 everywhere, (1, 1) too)
    for i in reversed(range(len(shape))):
        if i >= lead:
            size, stride = a.shape[i - lead], a.strides[i - lead]
        else:
            size, stride = 1, outer
        strides[i] = stride if size == shape[i] else 0
        outer = shape[i] * strides[i]
    return tuple(strides)


@tensor_method("expand", "broadcast_to")
@checks_types("expand", "(tuple of ints size, *, bool implicit = False)")
def expand(input: Tensor, *sizes) -> Tensor:
    """Repeat size-1 dimensions (without copying) to ``sizes``; -1 keeps a size.

    >>> import teachgrad as torch
    >>> torch.tensor([[1], [2]]).expand(2, 3)
    tensor([[1, 1, 1],
            [2, 2, 2]])
    """
    sizes = _size_args(sizes)
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand({_legacy_name(input)}{{{_shape_str(shape)}}}, size={_shape_str(sizes)}): "
            f"the number of sizes provided ({len(sizes)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    target = list(sizes)
    for i in reversed(range(len(sizes))):  # PyTorch checks from the last dimension
        want = sizes[i]
        if i < lead:  # a new leading dimension
            if want < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            continue
        s = shape[i - lead]
        if want == -1:
            target[i] = s
        elif s != 1 and s != want:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({s}) "
                f"at non-singleton dimension {i}.  Target sizes: {_shape_str(sizes)}.  "
                f"Tensor sizes: {_shape_str(shape)}"
            )
    return ExpandBackward0.apply(input, shape=tuple(target))


Tensor.broadcast_to = expand.method_form.renamed("broadcast_to", "(tuple of ints size)")


@tensor_method()
def expand_as(input: Tensor, other: Tensor = REQUIRED) -> Tensor:
    """``input.expand(other.shape)``."""
    if other is REQUIRED:  # (x.expand_as(): PyTorch's words, see _missing_arguments)
        raise missing("expand_as", expand_as, input, other)
    return expand(input, other._data.shape)


# ----------------------------------------------------------------------------------------
# Slicing views: select, narrow (slice), split, chunk, unbind, diagonal
# ----------------------------------------------------------------------------------------
def embed(grad, shape: tuple, key, op: type[Op]):
    """A zero array of ``shape`` with ``grad`` written at ``key``: the backward of a slice.

    ``op`` is the op that records this (``SelectBackwardBackward0``...) when ``grad`` is a
    tensor, i.e. under ``create_graph=True``, so that the gradient can be differentiated
    again; on plain arrays the same ``op.forward`` simply runs.
    """
    if isinstance(grad, Tensor):
        return op.apply(grad, shape=shape, key=key)
    return op.forward(NO_CONTEXT, grad, shape, key)


class EmbedOp(Op):
    """Write the gradient into zeros at a NumPy index; its own backward reads it back out.

    With ``accumulate = True`` repeated positions add up (``np.add.at``) instead of the
    last write winning: that is the backward of picking the same element twice.
    """

    formula = "the gradient goes back to the positions it came from, zero elsewhere"
    accumulate = False

    @classmethod
    def forward(cls, ctx, grad, shape, key):
        ctx.key = key
        out = np.zeros(shape, grad.dtype)
        if cls.accumulate:
            np.add.at(out, key, grad)
        else:
            out[key] = grad
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad[ctx.key]


class SelectBackwardBackward0(EmbedOp):
    pass


class SliceBackwardBackward0(EmbedOp):
    pass


def _select_dim(key: tuple) -> int:
    """The dimension a SelectBackward0's NumPy key picks from (its one int)."""
    return next(d for d, k in enumerate(key) if not isinstance(k, slice))


class SelectBackward0(Op):
    saved_attributes = {"dim": given("dim", lambda node: _select_dim(node.key)),
                        "index": given("index", lambda node: node.key[_select_dim(node.key)]),
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...
    formula = "select: the gradient goes back to the selected position, zero elsewhere"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim, index):
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        key = _along(dim, index)
        ctx.shape, ctx.key = a.shape, key
        return a[key]

    @staticmethod
    def backward(ctx, grad):
        return embed(grad, ctx.shape, ctx.key, SelectBackwardBackward0)


def _sliced(node: Op) -> slice:
    """The slice a SliceBackward0's NumPy key applies (its one non-``:`` item)."""
    return node.key[len(node.key) - 2]  # (see _along: ``(:, ..., :, slice, ...)``)


class _SlicingOp(Op):
    """What slice and narrow_copy share: a slice ``start:stop:step`` along ``dim``."""

    formula = "slice: the gradient goes back to the sliced positions, zero elsewhere"

    @staticmethod
    def backward(ctx, grad):
        return embed(grad, ctx.shape, ctx.key, SliceBackwardBackward0)


class SliceBackward0(_SlicingOp):
    # PyTorch keeps start and end as given (x[1:] has end 2⁶³ − 1, x[-2:] start -2) and
    # narrow's as it computes them: keep_given puts the given ones on the node
    saved_attributes = {"dim": given("dim", lambda node: len(node.key) - 2),
                        "start": given("start", lambda node: _sliced(node).start),
                        "end": given("end", lambda node: _sliced(node).stop),
                        "step": lambda node: _sliced(node).step,
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...
    is_view = True

    @staticmethod
    def forward(ctx, a, dim, start, stop, step):
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        key = _along(dim, slice(start, stop, step))
        ctx.shape, ctx.key = a.shape, key
        out = a[key]
        if step != 1 and out.shape[dim] < 2:  # NumPy keeps the stride of a dim of size
            strides = list(element_strides(a))  # 0 or 1 as it was; PyTorch multiplies it
            strides[dim] *= step
            out = with_strides(out, strides)
        if not out.size:  # (x[5:5] starts at element 5, as in PyTorch)
            out = empty_slice_at(out, a, dim, slice(start, stop, step).indices(a.shape[dim])[0])
        return out


class AliasBackward0(Op):
    """``x[...]``: a new tensor object viewing the same data."""

    formula = "alias: ∂a/∂a = 1"
    is_view = True

    @staticmethod
    def forward(ctx, a):
        return a.view()

    @staticmethod
    def backward(ctx, grad):
        return grad


def _no_0d(input: Tensor, name: str) -> None:
    if input._data.ndim == 0:
        raise IndexError(f"{name}() cannot be applied to a 0-dim tensor.")


@tensor_method()
@checks_types("select", "(int dim, int index)")
def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``, without that dimension (``x[:, 2]`` is
    ``x.select(1, 2)``)."""
    _no_0d(input, "select")
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size "
            f"{_shape_str(input._data.shape)} at dimension {d}"
        )
    out = SelectBackward0.apply(input, dim=d, index=index % size)
    if dim < 0 or index < 0:  # (PyTorch shows both as given)
        keep_given(out, SelectBackward0, dim=dim, index=index)
    return out


@tensor_method()
@checks_types("narrow", "(int dim, Tensor start, int length)", "(int dim, int start, int length)")
def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """Elements ``start .. start+length-1`` along ``dim`` (a view: ``SliceBackward0``)."""
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    # (ints: a float is PyTorch's TypeError; start may also be a tensor)
    start = int(start) if isinstance(start, Tensor) else operator.index(start)
    length = operator.index(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    out = SliceBackward0.apply(input, dim=d, start=start, stop=start + length, step=1)
    keep_given(out, SliceBackward0, dim=dim)  # (PyTorch's dim as given, its start wrapped)
    return out


class _SplitOp(Op):
    """One node, several outputs: each piece is a view; the gradients are concatenated."""

    formula = "split: the pieces' gradients are concatenated back"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim, sizes):
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        ctx.dim, ctx.sizes, ctx.shape = dim, tuple(sizes), a.shape  # (for _saved_...)
        bounds = np.cumsum((0,) + tuple(sizes))
        return tuple(_piece(a, dim, int(b0), int(b1)) for b0, b1 in zip(bounds, bounds[1:]))

    @staticmethod
    def backward(ctx, *grads):
        return np.concatenate(grads, axis=ctx.dim)


def _piece(a: np.ndarray, dim: int, start: int, stop: int) -> np.ndarray:
    """``a``'s elements ``start:stop`` along ``dim`` (an empty piece starts at ``start``,
    as in PyTorch: see layout.empty_slice_at)."""
    piece = a[_along(dim, slice(start, stop))]
    if start == stop:
        return empty_slice_at(piece, a, dim, start)
    return piece


class SplitBackward0(_SplitOp):
    """Pieces of one size (the last may be smaller): ``split(int)`` and ``chunk``."""
    saved_attributes = {"dim": given("dim", lambda node: node.dim),
                        "split_size": lambda node: node.sizes[0],
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...


class SplitWithSizesBackward0(_SplitOp):
    """Pieces of the given sizes: ``split([sizes])``."""
    saved_attributes = {"dim": given("dim", lambda node: node.dim), "split_sizes": "sizes",
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...


# (PyTorch's Tensor.split passes sizes that are not an int on to split_with_sizes)
_SPLIT_WITH_SIZES = Signatures("split_with_sizes",
                               "(Tensor input, tuple of ints split_sizes, int dim = 0)")


@tensor_method()
def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Cut ``tensor`` along ``dim`` into pieces of ``split_size`` (an int) or of the given sizes.

    >>> import teachgrad as torch
    >>> [p.tolist() for p in torch.arange(5).split(2)]
    [[0, 1], [2, 3], [4]]
    """
    if not isinstance(split_size_or_sections, (int, np.integer, list, tuple)):
        _SPLIT_WITH_SIZES.check((tensor, split_size_or_sections, dim))
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, tensor._data.ndim)
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = tuple(map(operator.index, split_size_or_sections))
        if any(s < 0 for s in sizes):
            raise RuntimeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={_shape_str(sizes)}"
            )
        if sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                f"size at dimension {dim}), but got split_sizes={_shape_str(sizes)}"
            )
        pieces = SplitWithSizesBackward0.apply(tensor, dim=d, sizes=sizes)
        if dim < 0 and pieces:  # (shown as given: see saved_values)
            keep_given(pieces, SplitWithSizesBackward0, dim=dim)
        return pieces
    size = int(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0 and n != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
        )
    # (an empty dimension gives one empty piece, as PyTorch's split, whatever the size)
    sizes = (size,) * (n // size) + ((n % size,) if n % size else ()) if size and n else (0,)
    pieces = SplitBackward0.apply(tensor, dim=d, sizes=sizes)
    if dim < 0:  # (shown as given: see saved_values)
        keep_given(pieces, SplitBackward0, dim=dim)
    return pieces


@tensor_method()
@checks_types("chunk", "(int chunks, int dim = 0)")
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """Cut into ``chunks`` pieces of equal size (the last may be smaller, and there may be
    fewer pieces), e.g. 10 elements in 4 chunks: 3, 3, 3, 1."""
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    chunks = operator.index(chunks)  # (2.0 is a TypeError, as in PyTorch)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    if n == 0:  # PyTorch: `chunks` empty pieces (sizes ⌈0/chunks⌉ = 0 each)
        return split(input, [0] * chunks, dim)
    return split(input, max(-(-n // chunks), 1), dim)


class UnbindBackward0(Op):
    saved_attributes = {"dim": given("dim", lambda node: node.dim)}  # grad_fn._saved_...
    formula = "unbind: the slices' gradients are stacked back"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim):
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        ctx.dim = dim
        return tuple(a[_along(dim, i)] for i in range(a.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return np.stack(grads, axis=ctx.dim)


@tensor_method()
def unbind(input: Tensor, dim: int = 0) -> tuple:
    """All slices along ``dim``, as a tuple (``x.unbind(0)`` is ``tuple(x)``)."""
    d = _wrap_dim(dim, input._data.ndim)
    if input._data.ndim == 0:
        raise IndexError(_no_dims_message(d))
    pieces = UnbindBackward0.apply(input, dim=d)
    if dim < 0 and pieces:  # (shown as given: see saved_values)
        keep_given(pieces, UnbindBackward0, dim=dim)
    return pieces


def diagonal_view(a: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """A *writable* NumPy view of a diagonal (``np.diagonal`` gives a read-only one).

    The diagonal is a strided view: one step along it moves one step along both
    dimensions, so its stride is the sum of theirs.
    """
    n1, n2 = a.shape[dim1], a.shape[dim2]
    length = max(min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2), 0)
    others = [d for d in range(a.ndim) if d not in (dim1, dim2)]
    shape = tuple(a.shape[d] for d in others) + (length,)
    a = with_pytorch_strides(a)  # (an empty diagonal has PyTorch's strides too)
    strides = tuple(a.strides[d] for d in others) + (a.strides[dim1] + a.strides[dim2],)
    if length == 0 or a.size == 0:  # no first element: nothing to start at
        return as_strided(a, shape, strides, writeable=a.flags.writeable)
    start = [slice(None)] * a.ndim
    start[dim1 if offset < 0 else dim2] = slice(abs(offset), None)
    first = a[tuple(start)]  # starts at the diagonal's first element
    return as_strided(first, shape, strides, writeable=first.flags.writeable)


class DiagonalBackwardBackward0(Op):
    formula = "the gradient of a diagonal goes back to the diagonal, zero elsewhere"

    @staticmethod
    def forward(ctx, grad, shape, key):
        ctx.key = key
        out = np.zeros(shape, grad.dtype)
        diagonal_view(out, *key)[...] = grad
        return out

    @staticmethod
    def backward(ctx, grad):
        offset, dim1, dim2 = ctx.key
        return np.diagonal(grad, offset, dim1, dim2)


class DiagonalBackward0(Op):
    formula = "diagonal: the gradient goes back to the diagonal, zero elsewhere"
    is_view = True
    saved_attributes = {"offset": given("offset", lambda node: node.key[0]),
                        "dim1": given("dim1", lambda node: node.key[1]),
                        "dim2": given("dim2", lambda node: node.key[2]),
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        ctx.shape, ctx.key = a.shape, (offset, dim1, dim2)
        return diagonal_view(a, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad):
        return embed(grad, ctx.shape, ctx.key, DiagonalBackwardBackward0)


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801 - PyTorch's name
    """``diag`` of a matrix: the diagonal as a new tensor (a copy, not a view)."""

    is_view = False

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        ctx.shape, ctx.key = a.shape, (offset, dim1, dim2)
        return diagonal_view(a, offset, dim1, dim2).copy()


@tensor_method()
def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal over ``dim1`` and ``dim2`` (above it for ``offset > 0``), as a view."""
    n = input._data.ndim
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    out = DiagonalBackward0.apply(input, offset=int(offset), dim1=d1, dim2=d2)
    keep_given(out, DiagonalBackward0, dim1=dim1, dim2=dim2)
    return out


class DiagEmbedBackward0(Op):
    """Vectors (the last dimension) put on the diagonal of new ``dim1`` × ``dim2`` matrices:
    ``diag`` of a vector, ``diag_embed``, ``diagflat``."""

    formula = "diag of a vector: the gradient is the matrix gradient's diagonal"
    saved_attributes = {"offset": given("offset", lambda node: node.key[0]),
                        "dim1": given("dim1", lambda node: node.key[1]),
                        "dim2": given("dim2", lambda node: node.key[2])}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, offset, dim1=0, dim2=1):
        ctx.key = (offset, dim1, dim2)
        n = a.shape[-1] + abs(offset)
        shape = list(a.shape[:-1])
        for d in sorted((dim1, dim2)):
            shape.insert(d, n)
        out = np.zeros(shape, a.dtype)
        diagonal_view(out, offset, dim1, dim2)[...] = a
        return out

    @staticmethod
    def backward(ctx, grad):
        return np.diagonal(grad, *ctx.key)


@tensor_method()
def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """Vector -> square matrix with it on a diagonal; matrix -> its diagonal (a copy)."""
    n = input._data.ndim
    if n == 1:  # (PyTorch's diag_embed, with its dims as given: -2 and -1)
        out = DiagEmbedBackward0.apply(input, offset=int(diagonal))
        keep_given(out, DiagEmbedBackward0, dim1=-2, dim2=-1)
        return out
    if n == 2:
        return DiagonalBackward0_copy.apply(input, offset=int(diagonal), dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


# ----------------------------------------------------------------------------------------
# Copying ops: cat, stack, flip, repeat/tile, roll, tril/triu
# ----------------------------------------------------------------------------------------
def _tensor_list(tensors, name: str) -> list:
    if isinstance(tensors, Tensor):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"
        )
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {python_type_name(t)}"
                + real_pytorch_hint(t)
            )
    return tensors


class CatBackward0(Op):
    saved_attributes = {"dim": given("dim", lambda node: node.dim)}  # grad_fn._saved_...
    formula = "cat: each input gets its own slice of the gradient"

    @staticmethod
    def forward(ctx, *arrays, dim, dtype):
        # PyTorch skips 1-d empty tensors in cat (a legacy rule); their gradient is empty.
        ctx.dim = dim
        ctx.pieces = [None if _legacy_empty(a) else a.shape[dim] for a in arrays]
        kept = [a for a in arrays if not _legacy_empty(a)]
        if not kept:  # all of them skipped: an empty vector (PyTorch's result)
            return np.zeros((0,), dtype)
        return row_major(np.concatenate(kept, axis=dim, dtype=dtype))

    @staticmethod
    def backward(ctx, grad):
        grads, start = [], 0
        for size in ctx.pieces:
            if size is None:  # a skipped 1-d empty input: an empty gradient, as PyTorch's
                # (new zeros, with no history even under create_graph, as PyTorch's)
                grads.append(np.zeros((0,), grad.dtype if type(grad) is not Tensor
                                      else grad._data.dtype))
                continue
            if type(grad) is Tensor:  # create_graph: PyTorch narrows (SliceBackward0 even
                grads.append(grad.narrow(ctx.dim, start, size))  # when it is the whole)
            else:
                grads.append(grad[_along(ctx.dim, slice(start, start + size))])
            start += size
        return tuple(grads)


def _legacy_empty(a: np.ndarray) -> bool:
    return a.ndim == 1 and a.shape[0] == 0


@checks_types("cat", "(tuple of Tensors tensors, int dim = 0, *, Tensor out = None)", function=(
    "(tuple of Tensors tensors, int dim = 0, *, Tensor out = None)",))
def cat(tensors: Sequence[Tensor], dim: int = 0, *, axis: int | None = None) -> Tensor:
    """Join tensors along an existing dimension ``dim``.

    >>> import teachgrad as torch
    >>> torch.cat([torch.zeros(1, 2), torch.ones(1, 2)]).tolist()
    [[0.0, 0.0], [1.0, 1.0]]
    """
    tensors = _tensor_list(tensors, "cat")
    if axis is not None:
        dim = axis
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {i}) cannot be concatenated"
            )
    shaped = [t for t in tensors if not _legacy_empty(t._data)]
    if shaped:
        first = shaped[0]._data.shape
        d = _wrap_dim(dim, len(first))
        for i, t in enumerate(tensors):
            s = t._data.shape
            if _legacy_empty(t._data):
                continue
            if len(s) != len(first):
                raise RuntimeError(
                    f"Tensors must have same number of dimensions: got {len(first)} and {len(s)}"
                )
            for k, (a, b) in enumerate(zip(first, s)):
                if k != d and a != b:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {d}. Expected size "
                        f"{a} but got size {b} for tensor number {i} in the list."
                    )
    else:
        d = _wrap_dim(dim, 1)
    dtype = result_type(*tensors).numpy
    out = CatBackward0.apply(*tensors, dim=d, dtype=dtype)
    if dim < 0:  # (shown as given: see saved_values)
        keep_given(out, CatBackward0, dim=dim)
    return out


concat = cat
concatenate = cat


class StackBackward0(Op):
    saved_attributes = {"dim": given("dim", lambda node: node.dim)}  # grad_fn._saved_...
    formula = "stack: each input gets its own slice of the gradient"

    @staticmethod
    def forward(ctx, *arrays, dim, dtype):
        ctx.dim, ctx.count = dim, len(arrays)
        return row_major(np.stack(arrays, axis=dim, dtype=dtype))

    @staticmethod
    def backward(ctx, grad):
        return tuple(grad[_along(ctx.dim, i)] for i in range(ctx.count))


@checks_types("stack", "(tuple of Tensors tensors, int dim = 0, *, Tensor out = None)", function=(
    "(tuple of Tensors tensors, int dim = 0, *, Tensor out = None)",))
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of one shape along a new dimension ``dim``.

    >>> import teachgrad as torch
    >>> torch.stack([torch.zeros(2), torch.ones(2)], dim=1).tolist()
    [[0.0, 1.0], [0.0, 1.0]]
    """
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], start=1):
        if t._data.shape != first:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {_shape_str(first)} at "
                f"entry 0 and {_shape_str(t._data.shape)} at entry {i}"
            )
    d = _wrap_dim(dim, len(first) + 1)
    out = StackBackward0.apply(*tensors, dim=d, dtype=result_type(*tensors).numpy)
    if dim < 0:  # (shown as given: see saved_values)
        keep_given(out, StackBackward0, dim=dim)
    return out


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dimension 1 (dimension 0 for vectors)."""
    tensors = [atleast_1d(t) for t in _tensor_list(tensors, "hstack")]
    return cat(tensors, 0 if tensors and tensors[0]._data.ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dimension 0, vectors becoming rows."""
    return cat([atleast_2d(t) for t in _tensor_list(tensors, "vstack")], 0)


row_stack = vstack


def _each(make_atleast):
    """PyTorch's ``atleast_nd`` signature around a one-tensor function: one tensor gives a
    tensor; several tensors, or one tuple/list of them, give a tuple."""

    @functools.wraps(make_atleast)
    def atleast(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
            return tuple(make_atleast(t) for t in _tensor_list(tensors[0], "atleast"))
        if len(tensors) == 1:
            return make_atleast(tensors[0])
        return tuple(make_atleast(t) for t in _tensor_list(tensors, "atleast"))

    return atleast


@_each
def atleast_1d(input: Tensor) -> Tensor:
    """``input`` with at least one dimension (a 0-d tensor becomes shape [1]).

    Given several tensors (or a tuple of them) it returns a tuple, one for each.
    """
    return reshape(input, (1,)) if input._data.ndim == 0 else input


@_each
def atleast_2d(input: Tensor) -> Tensor:
    """``input`` with at least two dimensions (a vector becomes a row); several tensors give
    a tuple."""
    n = input._data.ndim
    if n == 0:
        return reshape(input, (1, 1))
    return unsqueeze(input, 0) if n == 1 else input


@_each
def atleast_3d(input: Tensor) -> Tensor:
    """``input`` with at least three dimensions: a vector ``(n)`` becomes ``(1, n, 1)``, a
    matrix ``(m, n)`` becomes ``(m, n, 1)`` (what ``dstack`` joins along); several tensors
    give a tuple."""
    n = input._data.ndim
    if n == 0:
        return reshape(input, (1, 1, 1))
    if n == 1:
        return unsqueeze(unsqueeze(input, 0), -1)
    return unsqueeze(input, -1) if n == 2 else input


class FlipBackward0(Op):
    saved_attributes = {"dims": given("dims", lambda node: tuple(node.dims))}  # grad_fn._saved_...
    formula = "flip: the gradient is flipped back"

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return copy_keeping_layout(np.flip(a, dims) if a.ndim else a)

    @staticmethod
    def backward(ctx, grad):
        return np.flip(grad, ctx.dims) if np.ndim(grad) else grad


@tensor_method()
@checks_types("flip", "(tuple of ints dims)")
def flip(input: Tensor, *dims) -> Tensor:
    """Reverse the order of elements along ``dims`` (a copy, unlike NumPy's view)."""
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    out = FlipBackward0.apply(input, dims=_dim_list(dims, input._data.ndim))
    written = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    if negative(written):  # (shown as given: see saved_values)
        keep_given(out, FlipBackward0, dims=tuple(written))
    return out


@tensor_method()
def fliplr(input: Tensor) -> Tensor:
    """Flip left-right: ``flip(1)``."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


@tensor_method()
def flipud(input: Tensor) -> Tensor:
    """Flip up-down: ``flip(0)``."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class RepeatBackward0(Op):
    saved_attributes = {"repeats": lambda node: tuple(node.repeats),
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...
    formula = "repeat: each input element gets the sum of its copies' gradients"

    @staticmethod
    def forward(ctx, a, repeats):
        ctx.shape, ctx.repeats = a.shape, repeats
        return np.tile(a, repeats)

    @staticmethod
    def backward(ctx, grad):
        # View the gradient as (r0, s0, r1, s1, ...) and add up the r axes; the same sum
        # drops the leading size-1 s axes of dimensions repeat added, so it comes out in the
        # input's shape with the sum last, as PyTorch's (SumBackward1 under create_graph).
        added = len(ctx.repeats) - len(ctx.shape)
        if not added and all(r == 1 for r in ctx.repeats):  # as PyTorch: nothing to add up,
            return grad  # the gradient as it is (no sum recorded under create_graph)
        shape = (1,) * added + tuple(ctx.shape)
        interleaved = tuple(x for pair in zip(ctx.repeats, shape) for x in pair)
        axes = tuple(range(0, len(interleaved), 2)) + tuple(range(1, 2 * added, 2))
        if not axes:  # a 0-d tensor repeated ()
            return np.reshape(grad, ctx.shape)
        return np.sum(np.reshape(grad, interleaved), axis=tuple(sorted(axes)))


@tensor_method()
@checks_types("repeat", "(tuple of ints repeats)")
def repeat(input: Tensor, *sizes) -> Tensor:
    """Repeat the whole tensor ``sizes[i]`` times along each dimension (a copy).

    >>> import teachgrad as torch
    >>> torch.tensor([1, 2]).repeat(2)
    tensor([1, 2, 1, 2])
    """
    sizes = _size_args(sizes)
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    padded = (1,) * (len(sizes) - len(shape)) + tuple(shape)
    out_shape = [r * s for r, s in zip(sizes, padded)]
    for s in out_shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {_shape_str(out_shape)}"
            )
    return RepeatBackward0.apply(input, repeats=sizes)


@tensor_method()
def tile(input: Tensor, *dims) -> Tensor:
    """Like :func:`repeat`, but missing leading repeat counts are taken as 1."""
    if not dims:  # (x.tile(): PyTorch's words, not an empty shape)
        raise TypeError(missing_message("tile", ["dims"]))
    dims = _size_args(dims)
    dims = (1,) * (input._data.ndim - len(dims)) + dims
    return repeat(input, dims)


class RollBackward0(Op):
    formula = "roll: the gradient is rolled back"
    # (PyTorch's are tuples, () for no dims; the dims as given)
    saved_attributes = {"shifts": lambda node: shown(node.shifts if type(node.shifts) is tuple
                                                     else (node.shifts,)),
                        "dims": given("dims", lambda node: node.dims or ())}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        if not a.size and dims is not None:  # PyTorch's roll returns an empty input's
            return copy_keeping_layout(a)  # clone(), in its layout (strides and all)
        return row_major(np.roll(a, shifts, dims))

    @staticmethod
    def backward(ctx, grad):
        back = tuple(-s for s in ctx.shifts) if isinstance(ctx.shifts, tuple) else -ctx.shifts
        return np.roll(grad, back, ctx.dims)


@tensor_method()
@checks_types("roll", "(tuple of ints[1] shifts, tuple of ints[1] dims = [])")
def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Shift elements along ``dims`` (those falling off one end come back at the other);
    without ``dims``, over the flattened tensor."""
    shift_t = (shifts,) if isinstance(shifts, int) else tuple(map(operator.index, shifts))
    if dims is None:
        if len(shift_t) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shift_t)}, dims:0")
        return RollBackward0.apply(input, shifts=shift_t[0], dims=None)
    dim_t = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shift_t) != len(dim_t):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shift_t)}, dims:{len(dim_t)}"
        )
    if input._data.ndim == 0:
        raise IndexError(_no_dims_message(dim_t[0]))
    given_dims = dim_t
    dim_t = tuple(_wrap_dim(d, input._data.ndim) for d in dim_t)
    out = RollBackward0.apply(input, shifts=shift_t, dims=dim_t)
    keep_given(out, RollBackward0, dims=given_dims)
    return out


class TrilBackward0(Op):
    saved_attributes = {"diagonal": lambda node: shown(node.diagonal)}  # grad_fn._saved_...
    formula = "tril: the gradient of the lower triangle, zero above"

    @staticmethod
    def forward(ctx, a, diagonal):
        ctx.diagonal = diagonal
        return row_major(np.tril(a, diagonal))

    @staticmethod
    def backward(ctx, grad):
        return np.tril(grad, ctx.diagonal)


class TriuBackward0(Op):
    saved_attributes = {"diagonal": lambda node: shown(node.diagonal)}  # grad_fn._saved_...
    formula = "triu: the gradient of the upper triangle, zero below"

    @staticmethod
    def forward(ctx, a, diagonal):
        ctx.diagonal = diagonal
        return row_major(np.triu(a, diagonal))

    @staticmethod
    def backward(ctx, grad):
        return np.triu(grad, ctx.diagonal)


@tensor_method()
@checks_types("tril", "(int diagonal = 0)", function=(
    "(Tensor input, int diagonal = 0, *, Tensor out = None)",))
def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of a matrix (of each matrix in a batch); zeros above ``diagonal``."""
    if input._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return TrilBackward0.apply(input, diagonal=int(diagonal))


@tensor_method()
@checks_types("triu", "(int diagonal = 0)", function=(
    "(Tensor input, int diagonal = 0, *, Tensor out = None)",))
def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of a matrix (of each matrix in a batch); zeros below ``diagonal``."""
    if input._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return TriuBackward0.apply(input, diagonal=int(diagonal))


# ----------------------------------------------------------------------------------------
# rot90, ravel, narrow_copy, unfold
# ----------------------------------------------------------------------------------------
class Rot90Backward0(Op):
    formula = "rot90 by k: the gradient is rotated back by −k"
    saved_attributes = {"k": given("k", lambda node: node.k),
                        "dims": given("dims", lambda node: node.dims)}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, k, dims):
        ctx.k, ctx.dims = k, dims
        # Laid out as PyTorch's: its rot90 is flip(...).transpose_(...) for odd k, and a
        # flip keeps its input's layout (order="K"), so rot90(x) has x.t()'s strides
        if k == 0:
            return np.ascontiguousarray(a)
        if k == 2:
            return np.array(np.flip(a, dims), order="K")
        flipped = np.array(np.flip(a, dims[1] if k == 1 else dims[0]), order="K")
        return np.swapaxes(flipped, *dims)

    @staticmethod
    def backward(ctx, grad):
        return np.rot90(grad, -ctx.k, ctx.dims)


@tensor_method()
def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate by 90° ``k`` times in the plane of ``dims``, from the first toward the second.

    >>> import teachgrad as torch
    >>> torch.tensor([[1, 2], [3, 4]]).rot90()
    tensor([[2, 4],
            [1, 3]])
    """
    dims = tuple(dims)
    n = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    wrapped = (_wrap_dim(dims[0], n), _wrap_dim(dims[1], n))
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and "
            f"dim1 = {dims[1]}"
        )
    out = Rot90Backward0.apply(input, k=int(k) % 4, dims=wrapped)
    keep_given(out, Rot90Backward0, k=int(k), dims=dims)
    return out


@tensor_method()
def ravel(input: Tensor) -> Tensor:
    """The elements as a vector: ``contiguous().view(-1)`` (a copy only when needed).

    >>> import teachgrad as torch
    >>> torch.tensor([[1, 2], [3, 4]]).t().ravel()
    tensor([1, 3, 2, 4])
    """
    from .conversion import contiguous

    return view(contiguous(input), -1)


class NarrowCopyBackward0(_SlicingOp):
    """``narrow_copy``: a slice, copied (a new tensor, not a view)."""

    saved_attributes = {"dim": given("dim", lambda node: len(node.key) - 2),
                        "start": lambda node: _sliced(node).start,
                        "length": lambda node: _sliced(node).stop - _sliced(node).start,
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, dim, start, stop, step):
        key = _along(dim, slice(start, stop, step))
        ctx.shape, ctx.key = a.shape, key
        return a[key].copy()


@tensor_method()
def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """:func:`narrow`, but a copy of the elements instead of a view."""
    narrow(input.detach(), dim, start, length)  # PyTorch's checks and errors
    d = _wrap_dim(dim, input._data.ndim)
    first = int(start) + (input._data.shape[d] if start < 0 else 0)
    out = NarrowCopyBackward0.apply(input, dim=d, start=first, stop=first + int(length), step=1)
    keep_given(out, NarrowCopyBackward0, dim=dim)
    return out


class UnfoldBackwardBackward0(Op):
    """The backward of ``unfold``: each window's gradient is added back where the window
    read (overlapping windows add up); its own backward unfolds again."""

    formula = "the windows' gradients are added back where the windows were taken"

    @staticmethod
    def forward(ctx, grad, shape, dim, size, step):
        ctx.dim, ctx.size, ctx.step = dim, size, step
        out = np.zeros(shape, grad.dtype)
        if not shape:  # a 0-d input: its one window (of size 1), or none (size 0)
            return grad.reshape(()) if size else out
        moved = np.moveaxis(out, dim, -1)
        windows = np.moveaxis(grad, dim, -2)  # (..., count, size)
        for j in range(size):  # one slice-add per position inside the window
            moved[..., j : j + step * windows.shape[-2] : step] += windows[..., j]
        return out

    @staticmethod
    def backward(ctx, grad):
        if isinstance(grad, Tensor):
            return unfold(grad, ctx.dim, ctx.size, ctx.step)
        return UnfoldBackward0.forward(NO_CONTEXT, grad, ctx.dim, ctx.size, ctx.step)


class UnfoldBackward0(Op):
    formula = "unfold: each window's gradient goes back to the elements it showed (summed)"
    is_view = True
    saved_attributes = {"dimension": given("dimension", lambda node: node.dim),
                        "size": "size", "step": "step",
                        "self_sym_sizes": lambda node: tuple(node.shape)}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, dim, size, step):
        ctx.shape, ctx.dim, ctx.size, ctx.step = a.shape, dim, size, step
        if not a.size:  # empty, maybe with NumPy's all-zero strides: see layout.py
            a = with_pytorch_strides(a)
        if a.ndim == 0:  # PyTorch: shape (size,), a window of 1 element or none
            return a.reshape(1)[:size]
        count = (a.shape[dim] - size) // step + 1
        shape = a.shape[:dim] + (count,) + a.shape[dim + 1 :] + (size,)
        strides = (a.strides[:dim] + (a.strides[dim] * step,) + a.strides[dim + 1 :]
                   + (a.strides[dim],))
        return as_strided(a, shape, strides, writeable=a.flags.writeable)

    @staticmethod
    def backward(ctx, grad):
        if isinstance(grad, Tensor):
            return UnfoldBackwardBackward0.apply(grad, shape=ctx.shape, dim=ctx.dim,
                                                 size=ctx.size, step=ctx.step)
        return UnfoldBackwardBackward0.forward(NO_CONTEXT, grad, ctx.shape, ctx.dim, ctx.size,
                                               ctx.step)


def unfold(input: Tensor, dimension: int = REQUIRED, size: int = REQUIRED,
           step: int = REQUIRED) -> Tensor:
    """All windows of ``size`` elements along ``dimension``, ``step`` apart, as a new last
    dimension: a view (the windows share the input's memory, as in PyTorch).

    >>> import teachgrad as torch
    >>> torch.arange(5).unfold(0, 2, 2)
    tensor([[0, 1],
            [2, 3]])
    """
    if dimension is REQUIRED or size is REQUIRED or step is REQUIRED:
        raise missing("unfold", unfold, input, dimension, size, step)
    d = _wrap_dim(dimension, input._data.ndim)
    length = input._data.shape[d] if input._data.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is "
                           f"{size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    out = UnfoldBackward0.apply(input, dim=d, size=int(size), step=int(step))
    keep_given(out, UnfoldBackward0, dimension=dimension)
    return out


Tensor.unfold = unfold  # a method only: torch.unfold does not exist


# ----------------------------------------------------------------------------------------
# NumPy functions used by the backward formulas above, routed to these ops for tensors
# (so that a backward pass run with create_graph=True is itself recorded)
# ----------------------------------------------------------------------------------------
def _tensors(arrays) -> list:
    from .._tensor import _make

    return [a if isinstance(a, Tensor) else _make(np.asarray(a)) for a in arrays]


@numpy_protocol.register(np.reshape)
def _np_reshape(a, shape, *args, **kwargs):
    return reshape(a, shape)


@numpy_protocol.register(np.transpose)
def _np_transpose(a, axes=None):
    return permute(a, *(range(a.ndim - 1, -1, -1) if axes is None else axes))


@numpy_protocol.register(np.swapaxes)
def _np_swapaxes(a, axis1, axis2):
    return transpose(a, axis1, axis2)


@numpy_protocol.register(np.moveaxis)
def _np_moveaxis(a, source, destination):
    return movedim(a, source, destination)


@numpy_protocol.register(np.expand_dims)
def _np_expand_dims(a, axis):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = a
    for d in sorted(ax % (a.ndim + len(axes)) for ax in axes):
        out = unsqueeze(out, d)
    return out


@numpy_protocol.register(np.squeeze)
def _np_squeeze(a, axis=None):
    return squeeze(a) if axis is None else squeeze(a, axis)  # (squeeze refuses a None dim)


@numpy_protocol.register(np.broadcast_to)
def _np_broadcast_to(array, shape, subok=False):
    return expand(array, tuple(shape))


@numpy_protocol.register(np.concatenate)
def _np_concatenate(arrays, axis=0, **_):
    return cat(_tensors(arrays), axis)


@numpy_protocol.register(np.stack)
def _np_stack(arrays, axis=0, **_):
    return stack(_tensors(arrays), axis)


@numpy_protocol.register(np.flip)
def _np_flip(m, axis=None):
    axes = range(m.ndim) if axis is None else ((axis,) if isinstance(axis, int) else axis)
    return flip(m, tuple(axes))


@numpy_protocol.register(np.roll)
def _np_roll(a, shift, axis=None):
    return roll(a, shift, axis)


@numpy_protocol.register(np.tril)
def _np_tril(m, k=0):
    return tril(m, k)


@numpy_protocol.register(np.triu)
def _np_triu(m, k=0):
    return triu(m, k)


@numpy_protocol.register(np.rot90)
def _np_rot90(m, k=1, axes=(0, 1)):
    return rot90(m, k, axes)


@numpy_protocol.register(np.diagonal)
def _np_diagonal(a, offset=0, axis1=0, axis2=1):
    return diagonal(a, offset, axis1, axis2)


__all__ = [
    "view", "reshape", "view_as", "reshape_as", "flatten", "unflatten", "unsqueeze", "squeeze",
    "transpose", "swapaxes", "swapdims", "t", "permute", "movedim", "moveaxis", "expand",
    "expand_as", "broadcast_to", "select", "narrow", "split", "chunk", "unbind", "diagonal",
    "diag", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack",
    "atleast_1d", "atleast_2d", "atleast_3d", "flip", "fliplr", "flipud", "repeat", "tile",
    "roll", "tril", "triu", "infer_shape", "rot90", "ravel", "narrow_copy",
]

swapaxes = swapdims = transpose
moveaxis = movedim
broadcast_to = expand
