"""Rearranging channels: ``pixel_shuffle`` / ``pixel_unshuffle`` (channels <-> space, for
sub-pixel upsampling) and ``channel_shuffle`` (mix channel groups, as in ShuffleNet).

Each is a fixed permutation of the elements: a reshape, a transpose and a reshape. Its
gradient is the inverse permutation of the output's gradient, so each op's backward is its
partner op (``pixel_shuffle`` ↔ ``pixel_unshuffle``; a channel shuffle with ``g`` groups
is undone by one with ``C / g`` groups). Under ``create_graph`` the backward calls the
partner *op*, so gradients of any order work and the graph shows PyTorch's nodes.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..ops.op import Op


def _shuffle_array(a: np.ndarray, r: int) -> np.ndarray:
    """``(*, C·r², H, W)`` → ``(*, C, H·r, W·r)``."""
    *lead, c, h, w = a.shape
    out = a.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    # (*, C, r_h, r_w, H, W) -> (*, C, H, r_h, W, r_w)
    out = out.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return np.ascontiguousarray(out).reshape(*lead, c // (r * r), h * r, w * r)


def _unshuffle_array(a: np.ndarray, r: int) -> np.ndarray:
    """``(*, C, H·r, W·r)`` → ``(*, C·r², H, W)``."""
    *lead, c, h, w = a.shape
    out = a.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    # (*, C, H, r_h, W, r_w) -> (*, C, r_h, r_w, H, W)
    out = out.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return np.ascontiguousarray(out).reshape(*lead, c * r * r, h // r, w // r)


def _channel_shuffle_array(a: np.ndarray, groups: int) -> np.ndarray:
    """``(N, C, *)``: channel ``g·(C/groups) + k`` moves to position ``k·groups + g``."""
    n, c, *rest = a.shape
    out = a.reshape(n, groups, c // groups, *rest).swapaxes(1, 2)
    return np.ascontiguousarray(out).reshape(a.shape)


class PixelShuffleBackward0(Op):
    formula = "a permutation: grad_in = pixel_unshuffle(grad, r)"

    @staticmethod
    def forward(ctx, a, upscale_factor):
        ctx.r = upscale_factor
        return _shuffle_array(a, upscale_factor)

    @staticmethod
    def backward(ctx, grad):
        if isinstance(grad, Tensor):
            return PixelUnshuffleBackward0.apply(grad, downscale_factor=ctx.r)
        return _unshuffle_array(grad, ctx.r)


class PixelUnshuffleBackward0(Op):
    formula = "a permutation: grad_in = pixel_shuffle(grad, r)"

    @staticmethod
    def forward(ctx, a, downscale_factor):
        ctx.r = downscale_factor
        return _unshuffle_array(a, downscale_factor)

    @staticmethod
    def backward(ctx, grad):
        if isinstance(grad, Tensor):
            return PixelShuffleBackward0.apply(grad, upscale_factor=ctx.r)
        return _shuffle_array(grad, ctx.r)


class ChannelShuffleBackward0(Op):
    formula = "a permutation: grad_in = channel_shuffle(grad, C / groups)"

    @staticmethod
    def forward(ctx, a, groups):
        ctx.inverse = a.shape[1] // groups
        return _channel_shuffle_array(a, groups)

    @staticmethod
    def backward(ctx, grad):
        if isinstance(grad, Tensor):
            return ChannelShuffleBackward0.apply(grad, groups=ctx.inverse)
        return _channel_shuffle_array(grad, ctx.inverse)


def _check_factor(name: str, kind: str, factor: int) -> None:
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {kind}, but got {factor}")


def _check_rank(name: str, input: Tensor) -> None:
    if input.dim() < 3:
        raise RuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C·r², H, W)`` → ``(*, C, H·r, W·r)``: each group of ``r²`` channels becomes an
    ``r × r`` block of pixels (sub-pixel convolution upsampling, r = ``upscale_factor``).

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> F.pixel_shuffle(torch.arange(4.).view(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    _check_rank("pixel_shuffle", input)
    _check_factor("pixel_shuffle", "upscale_factor", upscale_factor)
    channels = input.shape[-3]
    if channels % (upscale_factor * upscale_factor):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={channels} is not divisible by "
            f"{upscale_factor * upscale_factor}"
        )
    return PixelShuffleBackward0.apply(input, upscale_factor=upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``(*, C, H·r, W·r)`` → ``(*, C·r², H, W)``: the inverse of :func:`pixel_shuffle`."""
    _check_rank("pixel_unshuffle", input)
    _check_factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    for name, axis in (("height", -2), ("width", -1)):
        if input.shape[axis] % downscale_factor:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                f"input.size({axis})={input.shape[axis]} is not divisible by {downscale_factor}"
            )
    return PixelUnshuffleBackward0.apply(input, downscale_factor=downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Split the ``C`` channels (dimension 1) into ``groups`` groups and interleave them:
    ``(N, g, C/g, *)`` → transpose → ``(N, C, *)``. Lets grouped convolutions exchange
    information (ShuffleNet).

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> F.channel_shuffle(torch.arange(4.).view(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if input.dim() <= 2:
        raise RuntimeError(
            "channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and "
            f"{groups} groups."
        )
    return ChannelShuffleBackward0.apply(input, groups=groups)


__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]
