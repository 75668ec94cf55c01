"""``Flatten``: turn each sample into a vector (e.g. an image into a row of pixels)."""

from __future__ import annotations

from ..._tensor import Tensor
from .module import Module


class Flatten(Module):
    """Flatten dimensions ``start_dim`` to ``end_dim`` (by default all but the batch one).

    >>> import teachgrad as torch
    >>> torch.nn.Flatten()(torch.zeros(8, 2, 3)).shape
    teachgrad.Size([8, 6])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


__all__ = ["Flatten"]
