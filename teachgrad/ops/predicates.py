"""Elementwise yes/no questions about values: ``isposinf``, ``isneginf``, ``isreal``.

Bool results, never differentiable (a question's answer does not move a little).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make, tensor_method

__all__ = ["isposinf", "isneginf", "isreal"]


@tensor_method()
def isposinf(input: Tensor) -> Tensor:
    """True where ``input`` is +∞ (never for integer tensors).

    >>> import teachgrad as torch
    >>> torch.tensor([1., float('inf'), -float('inf')]).isposinf()
    tensor([False,  True, False])
    """
    return _make(np.asarray(np.isposinf(input._data)) if input._data.dtype.kind == "f"
                 else np.zeros(input._data.shape, bool))


@tensor_method()
def isneginf(input: Tensor) -> Tensor:
    """True where ``input`` is −∞ (never for integer tensors)."""
    return _make(np.asarray(np.isneginf(input._data)) if input._data.dtype.kind == "f"
                 else np.zeros(input._data.shape, bool))


@tensor_method()
def isreal(input: Tensor) -> Tensor:
    """True where the imaginary part is 0: everywhere, teachgrad has no complex tensors."""
    return _make(np.ones(input._data.shape, bool))
