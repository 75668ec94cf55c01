"""``Unfold`` and ``Fold``: ``F.unfold`` / ``F.fold`` (im2col / col2im) as layers."""

from __future__ import annotations

from collections.abc import Sequence

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

IntOrPair = int | Sequence[int]


class Unfold(Module):
    """Every ``kernel_size`` block of an image as a column: ``(N, C·kH·kW, L)``.

    >>> import teachgrad as torch
    >>> torch.nn.Unfold(kernel_size=(2, 3), padding=1, stride=2)
    Unfold(kernel_size=(2, 3), dilation=1, padding=1, stride=2)
    """

    def __init__(self, kernel_size: IntOrPair, dilation: IntOrPair = 1, padding: IntOrPair = 0,
                 stride: IntOrPair = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """Columns back into an ``output_size`` image, overlapping blocks summed."""

    def __init__(self, output_size: IntOrPair, kernel_size: IntOrPair, dilation: IntOrPair = 1,
                 padding: IntOrPair = 0, stride: IntOrPair = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


__all__ = ["Fold", "Unfold"]
