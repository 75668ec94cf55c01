"""``Upsample`` (and ``UpsamplingNearest2d`` / ``UpsamplingBilinear2d``): ``F.interpolate``
as a layer."""

from __future__ import annotations

from collections.abc import Sequence

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class Upsample(Module):
    """Resize to ``size`` or by ``scale_factor`` (see :func:`teachgrad.nn.functional.interpolate`).

    >>> import teachgrad as torch
    >>> up = torch.nn.Upsample(scale_factor=2, mode="bilinear")
    >>> up
    Upsample(scale_factor=2.0, mode='bilinear')
    >>> up(torch.zeros(1, 3, 8, 8)).shape
    teachgrad.Size([1, 3, 16, 16])
    """

    def __init__(self, size: int | Sequence[int] | None = None,
                 scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample(mode='nearest')`` for images."""

    def __init__(self, size: int | Sequence[int] | None = None,
                 scale_factor: float | Sequence[float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(mode='bilinear', align_corners=True)`` for images."""

    def __init__(self, size: int | Sequence[int] | None = None,
                 scale_factor: float | Sequence[float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
