"""``F.unfold`` / ``F.fold`` (``nn.Unfold`` / ``nn.Fold``): im2col and col2im as layers.

``unfold`` cuts every ``kernel_size`` block out of an image and lays it out as a column:
``(N, C, H, W)`` becomes ``(N, C·kH·kW, L)``, ``L`` blocks. A convolution is then one
matrix product, ``weight.view(O, -1) @ unfold(x)``: this is what :mod:`teachgrad.nn.im2col`
does inside ``conv2d``. ``fold`` puts the columns back, *adding* where blocks overlap; so
``fold`` is the adjoint of ``unfold`` and each is the other's backward.

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> x = torch.arange(9.0).reshape(1, 1, 3, 3)
>>> F.unfold(x, 2)                      # four 2x2 blocks, one per column
tensor([[[0., 1., 3., 4.],
         [1., 2., 4., 5.],
         [3., 4., 6., 7.],
         [4., 5., 7., 8.]]])
>>> F.fold(F.unfold(x, 2), (3, 3), 2)   # the centre was in all four blocks
tensor([[[[ 0.,  2.,  2.],
          [ 6., 16., 10.],
          [ 6., 14.,  8.]]]])
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from .._tensor import Tensor
from ..ops.op import NO_CONTEXT, Op
from . import im2col
from .argument_types import argument_error

IntOrPair = int | Sequence[int]


def _unfold(x: np.ndarray, kernel, stride, padding, dilation) -> np.ndarray:
    if x.ndim == 3:  # unbatched: a batch of one
        return _unfold(x[None], kernel, stride, padding, dilation)[0]
    n, c = x.shape[:2]
    blocks = im2col.patches(x, kernel, stride, padding, dilation)   # (N, C, oh, ow, kh, kw)
    blocks = blocks.transpose(0, 1, 4, 5, 2, 3)                     # (N, C, kh, kw, oh, ow)
    # (the block count written out: -1 cannot be inferred for an empty batch)
    return blocks.reshape(n, c * kernel[0] * kernel[1], math.prod(blocks.shape[-2:]))


def _fold(cols: np.ndarray, output_size, kernel, stride, padding, dilation) -> np.ndarray:
    if cols.ndim == 2:  # unbatched: a batch of one
        return _fold(cols[None], output_size, kernel, stride, padding, dilation)[0]
    n = cols.shape[0]
    c = cols.shape[1] // (kernel[0] * kernel[1])
    blocks = tuple(_blocks(output_size, kernel, stride, padding, dilation))
    cols = cols.reshape(n, c, *kernel, *blocks)
    return im2col.col2im(cols, (n, c, *output_size), stride, padding, dilation)


def _blocks(size, kernel, stride, padding, dilation) -> list[int]:
    return [im2col.output_size(n, k, s, p, d)
            for n, k, s, p, d in zip(size, kernel, stride, padding, dilation)]


def _run(op: type[Op], value, **params):
    if isinstance(value, Tensor):  # create_graph: record, to differentiate again
        return op.apply(value, **params)
    return op.forward(NO_CONTEXT, value, **params)


def _each_side(padding) -> tuple[int, ...]:
    """The padding as F.unfold took it, one number per dimension (kept here as the
    (before, after) pairs im2col pads with)."""
    return tuple(p[0] if isinstance(p, tuple) else p for p in padding)


class Im2ColBackward0(Op):
    """``unfold``: every block of the image as a column (values are copied, not changed)."""

    formula = "out[:, c·k, l] = x_padded[:, c, block l at offset k]    ∂L/∂x = fold(grad)"
    # grad_fn._saved_...: the block parameters, and the image's last two sizes
    saved_attributes = {
        "kernel_size": lambda node: node.params[1], "stride": lambda node: node.params[2],
        "padding": lambda node: _each_side(node.params[3]),
        "dilation": lambda node: node.params[4],
        "self_sym_argsize_minus_2": lambda node: node.params[0][0],
        "self_sym_argsize_minus_1": lambda node: node.params[0][1],
    }

    @staticmethod
    def forward(ctx, x, kernel, stride, padding, dilation):
        ctx.params = (tuple(x.shape[-2:]), kernel, stride, padding, dilation)
        return _unfold(x, kernel, stride, padding, dilation)

    @staticmethod
    def backward(ctx, grad):
        size, kernel, stride, padding, dilation = ctx.params
        return _run(Col2ImBackward0, grad, output_size=size, kernel=kernel, stride=stride,
                    padding=padding, dilation=dilation)


class Col2ImBackward0(Op):
    """``fold``: columns back into an image, overlapping blocks adding up."""

    formula = "out = Σ over blocks of each column put back in place    ∂L/∂cols = unfold(grad)"
    saved_attributes = {  # grad_fn._saved_...
        "kernel_size": lambda node: node.params[0], "stride": lambda node: node.params[1],
        "padding": lambda node: _each_side(node.params[2]),
        "dilation": lambda node: node.params[3],
    }

    @staticmethod
    def forward(ctx, cols, output_size, kernel, stride, padding, dilation):
        ctx.params = (kernel, stride, padding, dilation)
        return _fold(cols, output_size, kernel, stride, padding, dilation)

    @staticmethod
    def backward(ctx, grad):
        kernel, stride, padding, dilation = ctx.params
        return _run(Im2ColBackward0, grad, kernel=kernel, stride=stride, padding=padding,
                    dilation=dilation)


def _pair(value: IntOrPair, name: str) -> tuple[int, int]:
    values = (value,) * 2 if isinstance(value, int) else tuple(value)
    if len(values) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")
    return values


def _check_types(function: str, **values) -> None:
    """PyTorch's TypeError for a value that is not an int or ints. Its Python makes each a
    pair first (anything iterable as a tuple, anything else twice) and passes them to
    ``im2col`` / ``col2im`` in this order (so a bad element is named at its position)."""
    for position, (name, value) in enumerate(values.items(), start=2):
        pair = tuple(value) if isinstance(value, Iterable) else (value, value)
        error = argument_error(function, name, "tuple of ints", pair, position)
        if error is not None:
            raise error


def _arguments(kernel_size, dilation, padding, stride):
    """Pairs, checked in PyTorch's order and words."""
    kernel, dil = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    pad, step = _pair(padding, "padding"), _pair(stride, "stride")
    for name, values, rule, low in (("kernel size", kernel, "greater than zero", 1),
                                    ("dilation", dil, "greater than zero", 1),
                                    ("padding", pad, "non-negative", 0),
                                    ("stride", step, "greater than zero", 1)):
        if any(v < low for v in values):
            short = {"kernel size": "kernel", "padding": "pad"}.get(name, name)
            raise RuntimeError(f"{name} should be {rule}, but got {short}_height: {values[0]} "
                               f"{short}_width: {values[1]}")
    return kernel, dil, pad, step


def _sizes(values) -> str:
    return "(" + ", ".join(map(str, values)) + ")"


def unfold(input: Tensor, kernel_size: IntOrPair, dilation: IntOrPair = 1,
           padding: IntOrPair = 0, stride: IntOrPair = 1) -> Tensor:
    """Every ``kernel_size`` block of ``(N, C, H, W)`` as a column: ``(N, C·kH·kW, L)``.

    >>> import teachgrad as torch
    >>> torch.nn.functional.unfold(torch.zeros(2, 3, 8, 8), 3, padding=1).shape
    teachgrad.Size([2, 27, 64])
    """
    _check_types("im2col", kernel_size=kernel_size, dilation=dilation, padding=padding,
                 stride=stride)
    # (PyTorch's order: the arguments' lengths and values, then the input's dimensions)
    kernel, dil, pad, step = _arguments(kernel_size, dilation, padding, stride)
    if input.ndim == 0:  # (ATen reads input.size(1) first)
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    if input.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.ndim}, {input.ndim - 1}], but got {input.ndim})")
    if input.ndim not in (3, 4) or 0 in input.shape[-3:]:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: [{', '.join(map(str, input.shape))}]"
        )
    blocks = _blocks(input.shape[-2:], kernel, step, ((p, p) for p in pad), dil)
    if any(b < 1 for b in blocks):
        raise RuntimeError(
            f"Given input with spatial size {_sizes(input.shape[-2:])}, kernel_size="
            f"{_sizes(kernel)}, dilation={_sizes(dil)}, padding={_sizes(pad)}, calculated "
            f"shape of the array of sliding blocks as {_sizes(blocks)}, but its components "
            "must be at least one."
        )
    return Im2ColBackward0.apply(input, kernel=kernel, stride=step,
                                 padding=tuple((p, p) for p in pad), dilation=dil)


def fold(input: Tensor, output_size: IntOrPair, kernel_size: IntOrPair, dilation: IntOrPair = 1,
         padding: IntOrPair = 0, stride: IntOrPair = 1) -> Tensor:
    """Columns ``(N, C·kH·kW, L)`` back into an ``output_size`` image, overlaps summed.

    >>> import teachgrad as torch
    >>> torch.nn.functional.fold(torch.ones(1, 4, 4), (3, 3), 2)[0, 0]
    tensor([[1., 2., 1.],
            [2., 4., 2.],
            [1., 2., 1.]])
    """
    _check_types("col2im", output_size=output_size, kernel_size=kernel_size,
                 dilation=dilation, padding=padding, stride=stride)
    size = _pair(output_size, "output_size")
    kernel, dil, pad, step = _arguments(kernel_size, dilation, padding, stride)
    if input.ndim not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: [{', '.join(map(str, input.shape))}]"
        )
    per_block = kernel[0] * kernel[1]
    if input.shape[-2] % per_block != 0:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={input.shape[-2]} and "
            f"kernel_size={_sizes(kernel)}."
        )
    blocks = _blocks(size, kernel, step, ((p, p) for p in pad), dil)
    where = (f"Given output_size={_sizes(size)}, kernel_size={_sizes(kernel)}, "
             f"dilation={_sizes(dil)}, padding={_sizes(pad)}, stride={_sizes(step)}, ")
    if blocks[0] * blocks[1] != input.shape[-1]:
        raise RuntimeError(
            where + "expected size of input's dimension 2 to match the calculated number of "
            f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={input.shape[-1]}."
        )
    if any(b < 1 for b in blocks):
        raise RuntimeError(where + "calculated shape of the array of sliding blocks as "
                           f"{_sizes(blocks)}, which is too small (non-positive).")
    return Col2ImBackward0.apply(input, output_size=size, kernel=kernel, stride=step,
                                 padding=tuple((p, p) for p in pad), dilation=dil)


__all__ = ["Col2ImBackward0", "Im2ColBackward0", "fold", "unfold"]
