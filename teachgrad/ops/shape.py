"""Shape ops: view/reshape, squeeze/unsqueeze, transpose/permute, expand.

They move numbers around without changing them, so each backward moves the gradient
back: a reshape's backward reshapes, a transpose's backward transposes back, an expand's
backward sums over the expanded dimensions. Most are *views*: the output shares memory
(and the version counter) with the input, as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Size, Tensor, _wrap_dim, tensor_method
from .op import Op


def _size_args(size) -> tuple:
    """Accept ``view(2, 3)``, ``view((2, 3))`` and ``view([2, 3])``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    return tuple(int(s) for s in size)


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one ``-1`` in ``shape`` and check the element count (PyTorch's errors)."""
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = math.prod(s for s in shape if s != -1)
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(
                f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}"
            )
        shape = shape[: unknown[0]] + (numel // known,) + shape[unknown[0] + 1 :]
    elif known != numel:
        raise RuntimeError(
            f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}"
            "\nHint: the new shape must hold exactly as many elements as the tensor has "
            f"({numel}); use -1 for one dimension to let it be inferred."
        )
    return shape


class ViewBackward0(Op):
    formula = "reshape: the gradient is reshaped back"
    is_view = True

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return np.reshape(a, shape)

    @staticmethod
    def backward(ctx, grad):
        return np.reshape(grad, ctx.shape)


class UnsafeViewBackward0(ViewBackward0):
    """A reshape that had to copy (the input was not contiguous): not a view."""

    is_view = False

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return np.reshape(a, shape).copy()


def _viewable(a: np.ndarray, shape: tuple) -> bool:
    try:
        np.reshape(a, shape, copy=False)
    except ValueError:
        return False
    return True


@tensor_method()
def view(input: Tensor, *shape) -> Tensor:
    """The same data seen with another shape (no copy; errors if impossible).

    >>> import teachgrad as torch
    >>> torch.arange(6).view(2, 3)
    tensor([[0, 1, 2],
            [3, 4, 5]])
    """
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Size)):
        return input.to(shape[0])  # view(dtype)
    new = infer_shape(_size_args(shape), input._data.size)
    if not _viewable(input._data, new):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return ViewBackward0.apply(input, shape=new)


@tensor_method()
def reshape(input: Tensor, *shape) -> Tensor:
    """Like :func:`view`, but copies when the data cannot be viewed in the new shape."""
    new = infer_shape(_size_args(shape), input._data.size)
    if _viewable(input._data, new):
        return ViewBackward0.apply(input, shape=new)
    return UnsafeViewBackward0.apply(input.clone(), shape=new)


@tensor_method()
def view_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.view(other.shape)``."""
    return view(input, other._data.shape)


@tensor_method()
def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.reshape(other.shape)``."""
    return reshape(input, other._data.shape)


@tensor_method()
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim..end_dim`` into one."""
    ndim = input._data.ndim
    if ndim == 0:
        return reshape(input, (1,))
    start, end = _wrap_dim(start_dim, ndim), _wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input._data.shape
    new = shape[:start] + (math.prod(shape[start : end + 1]),) + shape[end + 1 :]
    return reshape(input, new)


@tensor_method()
def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """Split dimension ``dim`` into ``sizes``."""
    d = _wrap_dim(dim, input._data.ndim)
    shape = input._data.shape
    sizes = infer_shape(tuple(sizes), shape[d])
    return view(input, shape[:d] + tuple(sizes) + shape[d + 1 :])


class UnsqueezeBackward0(Op):
    formula = "unsqueeze: the added dimension is squeezed away again"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return np.expand_dims(a, dim)

    @staticmethod
    def backward(ctx, grad):
        return np.squeeze(grad, ctx.dim)


@tensor_method()
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dimension of size 1 at ``dim``."""
    return UnsqueezeBackward0.apply(input, dim=_wrap_dim(dim, input._data.ndim + 1))


class SqueezeBackward0(Op):
    """Squeeze every size-1 dimension."""

    formula = "squeeze: the gradient gets its size-1 dimensions back"
    is_view = True

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return np.squeeze(a)

    @staticmethod
    def backward(ctx, grad):
        return np.reshape(grad, ctx.shape)


class SqueezeBackward1(SqueezeBackward0):
    """Squeeze one dimension (if it has size 1)."""

    @staticmethod
    def forward(ctx, a, dim):
        ctx.shape = a.shape
        return np.squeeze(a, dim) if a.shape[dim] == 1 else a.view()


@tensor_method()
def squeeze(input: Tensor, dim=None) -> Tensor:
    """Remove size-1 dimensions (all, or just ``dim``)."""
    if dim is None:
        return SqueezeBackward0.apply(input)
    if isinstance(dim, (tuple, list)):
        out = input
        for d in sorted((_wrap_dim(d, input._data.ndim) for d in dim), reverse=True):
            out = SqueezeBackward1.apply(out, dim=d)
        return out
    return SqueezeBackward1.apply(input, dim=_wrap_dim(dim, input._data.ndim))


class TransposeBackward0(Op):
    formula = "transpose: the gradient is transposed back"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        ctx.dims = (dim0, dim1)
        return np.swapaxes(a, dim0, dim1)

    @staticmethod
    def backward(ctx, grad):
        return np.swapaxes(grad, *ctx.dims)


@tensor_method("transpose", "swapaxes", "swapdims")
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dimensions ``dim0`` and ``dim1``."""
    n = input._data.ndim
    return TransposeBackward0.apply(input, dim0=_wrap_dim(dim0, n), dim1=_wrap_dim(dim1, n))


class TBackward0(Op):
    formula = "t: the gradient is transposed back"
    is_view = True

    @staticmethod
    def forward(ctx, a):
        return a.T

    @staticmethod
    def backward(ctx, grad):
        return np.transpose(grad)


@tensor_method()
def t(input: Tensor) -> Tensor:
    """Transpose a matrix (0-d and 1-d tensors are returned as they are)."""
    if input._data.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D"
        )
    return TBackward0.apply(input)


class PermuteBackward0(Op):
    formula = "permute: the gradient is permuted back"
    is_view = True

    @staticmethod
    def forward(ctx, a, dims):
        ctx.inverse = tuple(np.argsort(dims))
        return np.transpose(a, dims)

    @staticmethod
    def backward(ctx, grad):
        return np.transpose(grad, ctx.inverse)


@tensor_method()
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
    dims = tuple(_wrap_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return PermuteBackward0.apply(input, dims=dims)


@tensor_method()
def movedim(input: Tensor, source, destination) -> Tensor:
    """Move dimension(s) ``source`` to position(s) ``destination``."""
    n = input._data.ndim
    order = np.moveaxis(np.arange(n), source, destination)
    return permute(input, *(int(i) for i in order))


def _T(self: Tensor) -> Tensor:
    """The tensor with its dimensions reversed (a matrix transpose for 2-d)."""
    n = self._data.ndim
    if n == 2:
        return permute(self, 1, 0)
    return permute(self, *range(n - 1, -1, -1))


def _mT(self: Tensor) -> Tensor:
    """Transpose the last two dimensions (batches of matrices)."""
    if self._data.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self._data.ndim}-D tensor.")
    return transpose(self, -2, -1)


Tensor.T = property(_T)
Tensor.mT = property(_mT)


class ExpandBackward0(Op):
    formula = "expand: the gradient is summed over the expanded dimensions"
    is_view = True

    @staticmethod
    def forward(ctx, a, shape):
        return np.broadcast_to(a, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad  # the engine sums it back to the input's shape


@tensor_method("expand", "broadcast_to")
def expand(input: Tensor, *sizes) -> Tensor:
    """Repeat size-1 dimensions (without copying) to ``sizes``; -1 keeps a size."""
    sizes = _size_args(sizes)
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{[{', '.join(map(str, shape))}]}}, "
            f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    target = list(sizes)
    for i, s in enumerate(shape):
        want = sizes[lead + i]
        if want == -1:
            target[lead + i] = s
        elif s != 1 and s != want:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({s}) "
                f"at non-singleton dimension {lead + i}.  Target sizes: "
                f"[{', '.join(map(str, sizes))}].  Tensor sizes: [{', '.join(map(str, shape))}]"
            )
    return ExpandBackward0.apply(input, shape=tuple(target))


@tensor_method()
def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.expand(other.shape)``."""
    return expand(input, other._data.shape)


__all__ = [
    "view", "reshape", "view_as", "reshape_as", "flatten", "unflatten", "unsqueeze", "squeeze",
    "transpose", "t", "permute", "movedim", "expand", "expand_as", "infer_shape",
]
