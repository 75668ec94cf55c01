"""``Unflatten``: split one dimension into several (the inverse of ``Flatten``)."""

from __future__ import annotations

from ..._tensor import Tensor
from .module import Module


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size`` (one entry may be -1).

    >>> import teachgrad as torch
    >>> torch.nn.Unflatten(1, (2, 5))(torch.zeros(3, 10)).shape
    teachgrad.Size([3, 2, 5])
    """

    def __init__(self, dim: int, unflattened_size: tuple[int, ...] | list[int]) -> None:
        super().__init__()
        # (dim is not checked here, as in PyTorch 2.13: forward's unflatten() refuses a dim
        # that is not an int in its own words)
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                "unflattened_size must be a tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        for index, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError(
                    "unflattened_size must be tuple of ints, but found element of type "
                    f"{type(size).__name__} at pos {index}"
                )
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


__all__ = ["Unflatten"]
