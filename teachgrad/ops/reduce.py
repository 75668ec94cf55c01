"""Reductions: sum and mean (more reductions: see the rest of this module's family).

A reduction's backward "un-reduces": the gradient of each output element is spread back
over the input elements it summarised (broadcast for sums, divided by n for means).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap_dim, tensor_method
from .op import Op


def normalize_dims(dim, ndim: int) -> tuple[int, ...] | None:
    """``dim`` as a sorted tuple of non-negative axes (``None`` means all dimensions)."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    out = sorted({_wrap_dim(int(d), ndim) for d in dims})
    if len(out) != len(dims):
        raise RuntimeError(f"dim {dims} appears multiple times in the list of dims")
    return tuple(out)


def unreduce(grad, shape: tuple, dims: tuple | None, keepdim: bool):
    """Broadcast ``grad`` (a reduction's output gradient) back to the input ``shape``."""
    if dims and not keepdim:
        grad = np.expand_dims(grad, dims)
    return np.broadcast_to(grad, shape)


class SumBackward0(Op):
    """Sum of all elements."""

    formula = "∂(Σa)/∂aᵢ = 1"

    @staticmethod
    def forward(ctx, a, dtype=None):
        ctx.shape = a.shape
        return np.sum(a, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        return np.broadcast_to(grad, ctx.shape)


class SumBackward1(Op):
    """Sum over some dimensions."""

    formula = "∂(Σₖa)/∂aᵢ = 1"

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype=None):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return np.sum(a, axis=dims, keepdims=keepdim, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        return unreduce(grad, ctx.shape, ctx.dims, ctx.keepdim)


class MeanBackward0(Op):
    """Mean of all elements."""

    formula = "∂(mean a)/∂aᵢ = 1/n"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return np.mean(a, dtype=a.dtype)

    @staticmethod
    def backward(ctx, grad):
        n = max(int(np.prod(ctx.shape)), 1)
        return np.broadcast_to(grad / n, ctx.shape)


class MeanBackward1(Op):
    """Mean over some dimensions."""

    formula = "∂(meanₖ a)/∂aᵢ = 1/n"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return np.mean(a, axis=dims, keepdims=keepdim, dtype=a.dtype)

    @staticmethod
    def backward(ctx, grad):
        n = 1
        for d in ctx.dims:
            n *= ctx.shape[d]
        return unreduce(grad / max(n, 1), ctx.shape, ctx.dims, ctx.keepdim)


def _sum_dtype(input: Tensor, dtype):
    if dtype is not None:
        from .._dtypes import to_dtype

        return to_dtype(dtype).numpy
    if input._data.dtype.kind in "biu":
        return np.dtype(np.int64)  # PyTorch sums integers and bools as int64
    return None


@tensor_method()
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
    return SumBackward1.apply(input, dims=dims, keepdim=keepdim, dtype=d)


@tensor_method()
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
            f"point or complex dtype. Got: {_torch_type_name(input)}"
            "\nHint: convert first, e.g. x.float().mean()."
        )
    dims = normalize_dims(dim, input._data.ndim)
    if dims is None:
        if not keepdim:
            return MeanBackward0.apply(input)
        dims = tuple(range(input._data.ndim))
    return MeanBackward1.apply(input, dims=dims, keepdim=keepdim)


def _torch_type_name(t: Tensor) -> str:
    return {
        "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
        "bool": "Bool",
    }.get(t.dtype.name, t.dtype.name)


@tensor_method()
def sum_to_size(input: Tensor, *size) -> Tensor:
    """Sum ``input`` down to ``size`` (the inverse of broadcasting it up)."""
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


__all__ = ["sum", "mean", "sum_to_size", "normalize_dims", "unreduce"]
