"""The inverses of views: write ``src`` where a view would read, into a copy of the input.

``select_scatter(x, src, dim, i)`` is a copy of ``x`` whose ``x.select(dim, i)`` is ``src``;
``slice_scatter`` and ``diagonal_scatter`` do the same for ``x[start:end:step]`` (along a
dimension) and ``x.diagonal(...)``. ``diag_embed`` and ``diagflat`` write onto the diagonal
of zeros. Out of place, so nothing is a view of anything here:

* the input's gradient is the output's, with zeros where ``src`` was written
  (PyTorch's formula: ``select_scatter(grad, zeros_like(src), ...)``)
* ``src``'s gradient is the output gradient read back through the same view

Both are the view op and its scatter again, so gradients of any order follow.
"""

from __future__ import annotations

import numpy as np

from .._missing_arguments import REQUIRED, missing
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _wrap_dim, python_type_name, tensor_method
from .op import NO_CONTEXT, Op
from .saved_values import keep_given
from .shape import DiagEmbedBackward0, _along, _shape_str, diagonal, diagonal_view, reshape


class _ViewScatterOp(Op):
    """Write ``src`` through a view of a copy of ``a``; the backward uses the same view."""

    @classmethod
    def forward(cls, ctx, a, src, **where):
        ctx.where = where
        out = a.copy()
        cls.region(out, **where)[...] = src
        return out

    @classmethod
    def backward(cls, ctx, grad):
        need_input, need_src = ctx.needs_input_grad
        src_grad = cls.read(grad, **ctx.where) if need_src else None
        if not need_input:
            return None, src_grad
        if isinstance(grad, Tensor):  # recorded: the scatter itself, with zeros as src
            zeros = np.zeros_like(cls.read(grad, **ctx.where))
            return cls.apply(grad, zeros, **ctx.where), src_grad
        return cls.forward(NO_CONTEXT, grad, 0, **ctx.where), src_grad


class SelectScatterBackward0(_ViewScatterOp):
    formula = "∂/∂input = 1 except at the selected slice (0);  ∂/∂src = the gradient there"

    @staticmethod
    def region(a, dim, index):
        return a[_along(dim, index)]

    @staticmethod
    def read(grad, dim, index):
        return grad[_along(dim, index)]


class SliceScatterBackward0(_ViewScatterOp):
    formula = "∂/∂input = 1 except in the slice (0);  ∂/∂src = the gradient in the slice"

    @staticmethod
    def region(a, dim, start, stop, step):
        return a[_along(dim, slice(start, stop, step))]

    read = region


class DiagonalScatterBackward0(_ViewScatterOp):
    formula = "∂/∂input = 1 except on the diagonal (0);  ∂/∂src = the gradient's diagonal"

    @staticmethod
    def region(a, offset, dim1, dim2):
        return diagonal_view(a, offset, dim1, dim2)

    @staticmethod
    def read(grad, offset, dim1, dim2):
        return np.diagonal(grad, offset, dim1, dim2)


def _check_src(input: Tensor, src: Tensor, region_shape: tuple) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(f"argument 'src' (position 2) must be Tensor, not {python_type_name(src)}"
                        + real_pytorch_hint(src))
    if src._data.shape != tuple(region_shape):
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{_shape_str(src._data.shape)}, slice size = {_shape_str(region_shape)}"
        )
    return src if src._data.dtype == input._data.dtype else src.to(input.dtype)


@tensor_method()
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``src`` written at ``input.select(dim, index)``.

    >>> import teachgrad as torch
    >>> torch.select_scatter(torch.zeros(2, 2), torch.ones(2), 0, 1)
    tensor([[0., 0.],
            [1., 1.]])
    """
    region = input.detach().select(dim, index)  # PyTorch's checks and errors
    d = _wrap_dim(dim, input._data.ndim)
    src = _check_src(input, src, region._data.shape)
    return SelectScatterBackward0.apply(input, src, dim=d, index=int(index) % input.shape[d])


@tensor_method()
def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written at ``input[start:end:step]`` along ``dim``.

    >>> import teachgrad as torch
    >>> torch.slice_scatter(torch.zeros(4), torch.ones(2), start=1, end=3)
    tensor([0., 1., 1., 0.])
    """
    if input._data.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input._data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    first, stop, _ = slice(start, end, step).indices(input._data.shape[d])
    stop = max(first, stop)
    region = input._data[_along(d, slice(first, stop, step))]
    src = _check_src(input, src, region.shape)
    return SliceScatterBackward0.apply(input, src, dim=d, start=first, stop=stop, step=step)


@tensor_method()
def diagonal_scatter(input: Tensor, src: Tensor = REQUIRED, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written on ``input.diagonal(offset, dim1, dim2)``.

    >>> import teachgrad as torch
    >>> torch.diagonal_scatter(torch.zeros(2, 2), torch.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    if src is REQUIRED:  # (x.diagonal_scatter(): PyTorch's words, see _missing_arguments)
        raise missing("diagonal_scatter", diagonal_scatter, input, src)
    region = diagonal(input.detach(), offset, dim1, dim2)  # PyTorch's checks and errors
    n = input._data.ndim
    src = _check_src(input, src, region._data.shape)
    return DiagonalScatterBackward0.apply(input, src, offset=int(offset),
                                          dim1=_wrap_dim(dim1, n), dim2=_wrap_dim(dim2, n))


@tensor_method()
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices with the last dimension of ``input`` on their diagonal (zeros elsewhere); the
    new matrix dimensions are ``dim1`` and ``dim2`` of the result.

    >>> import teachgrad as torch
    >>> torch.diag_embed(torch.tensor([[1, 2], [3, 4]]))
    tensor([[[1, 0],
             [0, 2]],
    <BLANKLINE>
            [[3, 0],
             [0, 4]]])
    """
    n = input._data.ndim + 1
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    out = DiagEmbedBackward0.apply(input, offset=int(offset), dim1=d1, dim2=d2)
    keep_given(out, DiagEmbedBackward0, dim1=dim1, dim2=dim2)  # (as PyTorch shows them)
    return out


@tensor_method()
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with all of ``input``'s elements (flattened) on a diagonal.

    >>> import teachgrad as torch
    >>> torch.diagflat(torch.tensor([[1, 2], [3, 4]])).diagonal()
    tensor([1, 2, 3, 4])
    """
    out = DiagEmbedBackward0.apply(reshape(input, (-1,)), offset=int(offset), dim1=0, dim2=1)
    keep_given(out, DiagEmbedBackward0, dim1=-2, dim2=-1)  # (PyTorch's diag_embed's dims)
    return out


__all__ = ["select_scatter", "slice_scatter", "diagonal_scatter", "diag_embed", "diagflat"]
