"""``RMSNorm``: divide each sample by its root mean square (no mean subtracted, no bias)."""

from __future__ import annotations

import numbers
from typing import Any

from ..._creation import _check_device, empty
from ..._tensor import Tensor
from .. import init
from ..parameter import Parameter
from ..rms_norm import rms_norm
from .module import Module


class RMSNorm(Module):
    """``y = x / sqrt(mean(x²) + eps) * weight`` over the last ``normalized_shape`` dims.

    ``weight`` (ones, shape ``normalized_shape``) with ``elementwise_affine=True``;
    ``eps=None`` means the machine epsilon of the input's dtype.

    >>> import teachgrad as torch
    >>> norm = torch.nn.RMSNorm(2)
    >>> norm
    RMSNorm((2,), eps=None, elementwise_affine=True)
    >>> norm(torch.tensor([[3.0, 4.0]]))
    tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """

    def __init__(self, normalized_shape: int | tuple[int, ...] | list[int],
                 eps: float | None = None, elementwise_affine: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        _check_device(device)
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """``weight`` back to ones."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


__all__ = ["RMSNorm"]
