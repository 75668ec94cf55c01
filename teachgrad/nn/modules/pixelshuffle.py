"""``PixelShuffle``, ``PixelUnshuffle`` and ``ChannelShuffle``: move values between the
channels and the pixels, or among the channels (see :mod:`teachgrad.nn.pixel_shuffle`)."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class PixelShuffle(Module):
    """``(*, C·r², H, W)`` -> ``(*, C, H·r, W·r)``: sub-pixel upsampling.

    >>> import teachgrad as torch
    >>> torch.nn.PixelShuffle(3)(torch.zeros(1, 9, 4, 4)).shape
    teachgrad.Size([1, 1, 12, 12])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H·r, W·r)`` -> ``(*, C·r², H, W)``: the inverse of :class:`PixelShuffle`."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave the channels of ``groups`` groups (ShuffleNet's channel shuffle).

    >>> import teachgrad as torch
    >>> torch.nn.ChannelShuffle(2)
    ChannelShuffle(groups=2)
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


__all__ = ["ChannelShuffle", "PixelShuffle", "PixelUnshuffle"]
