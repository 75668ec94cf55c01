"""``CosineSimilarity`` and ``PairwiseDistance``: compare two batches of vectors."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class PairwiseDistance(Module):
    """The p-norm distance between corresponding rows (see ``F.pairwise_distance``).

    >>> import teachgrad as torch
    >>> torch.nn.PairwiseDistance(eps=0.0)(torch.tensor([[0.0, 3.0]]), torch.tensor([[4.0, 0.0]]))
    tensor([5.])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p  # PyTorch's attribute name
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """The cosine of the angle between corresponding vectors along ``dim``.

    >>> import teachgrad as torch
    >>> torch.nn.CosineSimilarity()(torch.tensor([[1.0, 0.0]]), torch.tensor([[-2.0, 0.0]]))
    tensor([-1.])
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


__all__ = ["PairwiseDistance", "CosineSimilarity"]
