"""``Dropout``: randomly switch units off while training, to fight overfitting."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class Dropout(Module):
    """Zero each element with probability ``p`` while training (scaling the rest by
    ``1/(1-p)``); do nothing in evaluation mode (``model.eval()``).

    >>> import teachgrad as torch
    >>> drop = torch.nn.Dropout(0.5).eval()
    >>> drop(torch.ones(3))
    tensor([1., 1., 1.])
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


__all__ = ["Dropout"]
