"""``F.max_unpool1d``/``2d``/``3d``: put each pooled maximum back where it came from.

Max pooling with ``return_indices=True`` says where each window's largest value was (a
position in each ``H·W`` plane, or ``D·H·W`` volume). Unpooling is the partial inverse:
an output of the pooled input's size, zero everywhere except at those positions, which get
the values back. It is linear in the values, and its gradient reads the output's gradient
at the same positions (a gather): the two are each other's adjoint.

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> x = torch.tensor([[[1.0, 5.0, 2.0, 3.0, 7.0, 0.0]]])
>>> values, indices = F.max_pool1d(x, 2, return_indices=True)
>>> values, indices
(tensor([[[5., 3., 7.]]]), tensor([[[1, 3, 4]]]))
>>> F.max_unpool1d(values, indices, 2)
tensor([[[0., 5., 0., 3., 7., 0.]]])
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .._tensor import Tensor
from ..ops.index import saving_indices
from ..ops.op import Op

IntOrTuple = int | Sequence[int]

_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int32": "Int",
               "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


class MaxUnpool2DBackward0(Op):
    """``out.flat[indices] = x``, plane by plane; zero elsewhere."""

    formula = ("out[indices[i]] = x[i], 0 elsewhere    ∂L/∂x[i] = grad[indices[i]] "
               "(the gradient read back where each value was put)")

    # The indices (PyTorch's _saved_indices): backward reads them back, so that indices
    # changed in place since make it refuse, as PyTorch's (ops.index.saving_indices).
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx, x, key, shape, indices=None):
        ctx.save_for_backward(indices)
        lead = x.shape[:-len(shape)]  # (N, C) or (C,): one plane each
        ctx.key, ctx.input_shape = key, x.shape
        out = np.zeros((math.prod(lead), math.prod(shape)), x.dtype)
        out[key] = x.reshape(math.prod(lead), -1)
        return out.reshape(*lead, *shape)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check only
        # Works on arrays and (under create_graph) on tensors alike: a reshape and a pick.
        planes = ctx.key[0].shape[0]
        return grad.reshape(planes, -1)[ctx.key].reshape(ctx.input_shape)


class MaxUnpool3DBackward0(MaxUnpool2DBackward0):
    """3-d unpooling: the same op over ``D·H·W`` volumes."""


def _as_tuple(value: IntOrTuple, d: int) -> tuple[int, ...]:
    values = (value,) if isinstance(value, int) else tuple(value)
    return values * d if len(values) == 1 else values


def unpool_output_size(input: Tensor, kernel: tuple, stride: tuple, padding: tuple,
                       output_size: Sequence[int] | None) -> list[int]:
    """The default output size (what pooling came from, ignoring ``ceil_mode``), or the
    given ``output_size`` checked against it (within one stride either way)."""
    d = len(kernel)
    default = [(input.shape[-d + i] - 1) * stride[i] + kernel[i] - 2 * padding[i]
               for i in range(d)]
    if output_size is None:
        return default
    if len(output_size) == d + 2:
        output_size = output_size[2:]  # (kept as given: PyTorch's message shows it so)
    if len(output_size) != d:
        raise ValueError(
            f"output_size should be a sequence containing {d} or {d + 2} elements, but it has "
            f"a length of '{len(output_size)}'"
        )
    for i in range(d):
        low, high = default[i] - stride[i], default[i] + stride[i]
        if not low < output_size[i] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {i} must be between '
                             f"{low} and {high})")
    return list(output_size)


def _unpool(input: Tensor, indices: Tensor, size: Sequence[int], d: int,
            op: type[Op]) -> Tensor:
    """The checks of PyTorch's ``max_unpooling{d}d`` kernels, then the op."""
    if indices._data.dtype != np.int64:
        name = _TYPE_NAMES.get(indices._data.dtype.name, indices._data.dtype.name)
        raise RuntimeError(f"elements in indices should be type int64 but got: {name}")
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(
            f"Input to max_unpooling{d}d should be a {d + 1}d or {d + 2}d Tensor, but got a "
            f"tensor with {input.ndim} dimensions."
        )
    if input.shape != indices.shape:
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({_sizes(input.shape)}) but got indices tensor with shape: "
            f"{_sizes(indices.shape)}"
        )
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(
                f"max_unpooling{d}d_forward_out_cpu(): Expected input to have non-zero size "
                f"for non-batch dimensions, but got {_sizes(input.shape)} with dimension {dim} "
                "being empty."
            )
    volume = math.prod(size)
    flat = indices._data.reshape(math.prod(input.shape[:-d]), -1)
    bad = (flat < 0) | (flat >= volume)
    if bad.any():
        # PyTorch's loop does not stop at a bad index: it names the last one it met (on
        # one thread; with several, the last one met by whichever thread wrote last)
        raise RuntimeError(f"Found an invalid max index: {int(flat[bad][-1])} (output volumes "
                           f"are of size {'x'.join(map(str, size))})"
                           "\nHint: the indices must come from the pooling being undone.")
    key = (np.arange(flat.shape[0])[:, None], flat)
    out = op.apply(input, key=key, shape=tuple(size), indices=indices._data)
    return saving_indices(out, (indices,))


def _sizes(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _arguments(input, kernel_size, stride, padding, output_size, d):
    kernel = _as_tuple(kernel_size, d)
    strides = kernel if stride is None else _as_tuple(stride, d)
    pads = _as_tuple(padding, d)
    return unpool_output_size(input, kernel, strides, pads, output_size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple,
                 stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """Undo ``max_pool1d``: each value back at its index, zeros elsewhere (as PyTorch, the
    2-d op on a width-1 view).

    >>> import teachgrad as torch
    >>> torch.nn.functional.max_unpool1d(torch.tensor([[[4.0]]]), torch.tensor([[[1]]]), 3)
    tensor([[[0., 4., 0.]]])
    """
    size = _arguments(input, kernel_size, stride, padding, output_size, 1)
    return _unpool(input.unsqueeze(-1), indices.unsqueeze(-1), [*size, 1], 2,
                   MaxUnpool2DBackward0).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple,
                 stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """Undo ``max_pool2d``: ``(N, C, H, W)`` values with their indices into ``H_out·W_out``.

    >>> import teachgrad as torch
    >>> x = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> values, indices = torch.nn.functional.max_pool2d(x, 2, return_indices=True)
    >>> torch.nn.functional.max_unpool2d(values, indices, 2)
    tensor([[[[0., 0.],
              [0., 4.]]]])
    """
    size = _arguments(input, kernel_size, stride, padding, output_size, 2)
    return _unpool(input, indices, size, 2, MaxUnpool2DBackward0)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple,
                 stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """Undo ``max_pool3d``: ``(N, C, D, H, W)`` values with their indices into each volume.

    >>> import teachgrad as torch
    >>> x = torch.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> values, indices = torch.nn.functional.max_pool3d(x, 2, return_indices=True)
    >>> torch.nn.functional.max_unpool3d(values, indices, 2).flatten().tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]
    """
    size = _arguments(input, kernel_size, stride, padding, output_size, 3)
    return _unpool(input, indices, size, 3, MaxUnpool3DBackward0)


__all__ = ["MaxUnpool2DBackward0", "MaxUnpool3DBackward0", "max_unpool1d", "max_unpool2d",
           "max_unpool3d", "unpool_output_size"]
