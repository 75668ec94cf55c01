"""``F.pixel_shuffle``, ``F.pixel_unshuffle`` and ``F.channel_shuffle``: rearrange values
between the channels and the pixels (or among the channels), without computing anything.

*Pixel shuffle* (the upsampling of "sub-pixel convolution" super-resolution networks)
turns ``r²`` channels of an ``H x W`` image into one channel of an ``rH x rW`` image: the
``r²`` values of each pixel become an ``r x r`` block. *Pixel unshuffle* is its inverse.
*Channel shuffle* (ShuffleNet) interleaves the channels of ``groups`` groups, so that the
next grouped convolution mixes information across them.

Each is a permutation of the input's values, so its gradient is the inverse permutation
of the output's gradient: the two pixel ops are each other's backward, and the backward
of a channel shuffle is another channel shuffle.

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> F.pixel_shuffle(torch.arange(4.0).reshape(1, 4, 1, 1), 2)
tensor([[[[0., 1.],
          [2., 3.]]]])
>>> F.channel_shuffle(torch.arange(6.0).reshape(1, 6, 1), 2).flatten()
tensor([0., 3., 1., 4., 2., 5.])
"""

from __future__ import annotations

import numpy as np

from .._input_check import BUILTIN, takes_ints
from .._tensor import Tensor
from ..ops.op import NO_CONTEXT, Op


def _shuffle(x: np.ndarray, r: int) -> np.ndarray:
    """``(*, C·r², H, W)`` -> ``(*, C, H·r, W·r)``."""
    *lead, c, h, w = x.shape
    blocks = x.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    order = (*range(n), n, n + 3, n + 1, n + 4, n + 2)  # (*, C, H, r, W, r)
    return np.ascontiguousarray(blocks.transpose(order)).reshape(*lead, c // (r * r), h * r,
                                                                  w * r)


def _unshuffle(x: np.ndarray, r: int) -> np.ndarray:
    """``(*, C, H·r, W·r)`` -> ``(*, C·r², H, W)``."""
    *lead, c, h, w = x.shape
    blocks = x.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    order = (*range(n), n, n + 2, n + 4, n + 1, n + 3)  # (*, C, r, r, H, W)
    return np.ascontiguousarray(blocks.transpose(order)).reshape(*lead, c * r * r, h // r,
                                                                  w // r)


def _run(op: type[Op], value, **params):
    """Record ``op`` on a tensor (under ``create_graph``), or just compute it."""
    if isinstance(value, Tensor):
        return op.apply(value, **params)
    return op.forward(NO_CONTEXT, value, **params)


class PixelShuffleBackward0(Op):
    """``(*, C·r², H, W)`` -> ``(*, C, H·r, W·r)``: each pixel's ``r²`` channels become an
    ``r x r`` block."""

    formula = "out = a permutation of x    ∂L/∂x = pixel_unshuffle(grad)"
    saved_attributes = {"upscale_factor": "factor"}

    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return _shuffle(x, factor)

    @staticmethod
    def backward(ctx, grad):
        return _run(PixelUnshuffleBackward0, grad, factor=ctx.factor)


class PixelUnshuffleBackward0(Op):
    """``(*, C, H·r, W·r)`` -> ``(*, C·r², H, W)``: each ``r x r`` block becomes ``r²``
    channels."""

    formula = "out = a permutation of x    ∂L/∂x = pixel_shuffle(grad)"
    saved_attributes = {"downscale_factor": "factor"}

    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return _unshuffle(x, factor)

    @staticmethod
    def backward(ctx, grad):
        return _run(PixelShuffleBackward0, grad, factor=ctx.factor)


class ChannelShuffleBackward0(Op):
    """Channel ``g·(C/groups) + i`` moves to ``i·groups + g``: the groups interleave."""

    formula = "out = x with its channels interleaved    ∂L/∂x = the inverse shuffle of grad"
    saved_attributes = {"groups": "groups"}

    @staticmethod
    def forward(ctx, x, groups):
        n, c = x.shape[:2]
        ctx.groups, ctx.channels = groups, c
        rest = x.shape[2:]
        out = x.reshape(n, groups, c // groups, *rest).swapaxes(1, 2)
        return np.ascontiguousarray(out).reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        # Undoing an interleave of `groups` groups is an interleave of C/groups groups.
        return _run(ChannelShuffleBackward0, grad, groups=ctx.channels // ctx.groups)


@takes_ints("pixel_shuffle", upscale_factor=BUILTIN)
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C·r², H, W)`` -> ``(*, C, H·r, W·r)`` with ``r = upscale_factor``."""
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    return PixelShuffleBackward0.apply(input, factor=r)


@takes_ints("pixel_unshuffle", downscale_factor=BUILTIN)
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``(*, C, H·r, W·r)`` -> ``(*, C·r², H, W)`` with ``r = downscale_factor``."""
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for dim, name in ((-2, "height"), (-1, "width")):
        if input.shape[dim] % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                f"input.size({dim})={input.shape[dim]} is not divisible by {r}"
            )
    return PixelUnshuffleBackward0.apply(input, factor=r)


@takes_ints("channel_shuffle", groups=BUILTIN)
def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels (dimension 1) of ``groups`` groups (ShuffleNet)."""
    if input.ndim <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes [{', '.join(map(str, input.shape))}]")
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    return ChannelShuffleBackward0.apply(input, groups=groups)


native_channel_shuffle = channel_shuffle

__all__ = ["ChannelShuffleBackward0", "PixelShuffleBackward0", "PixelUnshuffleBackward0",
           "channel_shuffle", "native_channel_shuffle", "pixel_shuffle", "pixel_unshuffle"]
