"""``teachgrad.linalg``: the few ``torch.linalg`` functions a first course meets.

They are the same ops as the methods (``x.norm()``, ``a @ b``), under PyTorch's
``torch.linalg`` names, so code written for PyTorch finds them where it expects.
"""

from __future__ import annotations

from ._tensor import Tensor, numpy_names
from .ops.linalg import matmul, matrix_power
from .ops.reduce import vector_norm

__all__ = ["vector_norm", "norm", "matmul", "matrix_power", "vecdot"]


@numpy_names
def norm(input: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``torch.linalg.norm`` for vectors: the 2-norm by default, or ``vector_norm(ord)``.

    >>> import teachgrad as torch
    >>> torch.linalg.norm(torch.tensor([3., 4.]))
    tensor(5.)
    """
    if isinstance(ord, str) or (ord is not None and input.ndim == 2 and dim is None):
        raise NotImplementedError(
            "teachgrad.linalg.norm computes vector norms only; matrix norms (ord="
            f"{ord!r} on a matrix) are not implemented. Flatten first for the Frobenius norm: "
            "x.flatten().norm()."
        )
    return vector_norm(input, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


@numpy_names
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product along ``dim`` (batched): ``(x * y).sum(dim)``."""
    return (x * y).sum(dim)
