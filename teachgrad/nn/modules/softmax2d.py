"""``Softmax2d``: a softmax over the channels at every pixel."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class Softmax2d(Module):
    """Softmax over the channel dimension of ``(N, C, H, W)`` or ``(C, H, W)``: at every
    pixel the ``C`` values become probabilities (e.g. per-pixel class scores).

    >>> import teachgrad as torch
    >>> torch.nn.Softmax2d()(torch.zeros(1, 2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3)


__all__ = ["Softmax2d"]
