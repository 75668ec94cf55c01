"""``PixelShuffle`` / ``PixelUnshuffle`` (channels <-> pixels) and ``ChannelShuffle``."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import shuffle as _functional
from .module import Module


class PixelShuffle(Module):
    """``(*, C·r², H, W)`` → ``(*, C, H·r, W·r)`` (r = ``upscale_factor``).

    >>> import teachgrad as torch
    >>> torch.nn.PixelShuffle(3)(torch.zeros(1, 9, 4, 4)).shape
    teachgrad.Size([1, 1, 12, 12])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return _functional.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H·r, W·r)`` → ``(*, C·r², H, W)`` (r = ``downscale_factor``)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return _functional.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave ``groups`` groups of channels (ShuffleNet); see ``F.channel_shuffle``."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return _functional.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]
