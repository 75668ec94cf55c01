"""``LayerNorm``: normalize each sample over its last dimensions (Transformers use it)."""

from __future__ import annotations

import numbers
from typing import Any

from ..._creation import _check_device, empty
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class LayerNorm(Module):
    """``y = (x - mean) / sqrt(var + eps) * weight + bias`` over the last dimensions.

    The mean and (biased) variance are computed per sample over the trailing
    ``normalized_shape`` dimensions, unlike batch norm which averages over the batch.
    With ``elementwise_affine=True`` (default) ``weight`` starts at ones and ``bias`` at
    zeros, both of shape ``normalized_shape``; ``bias=False`` drops the bias.

    >>> import teachgrad as torch
    >>> norm = torch.nn.LayerNorm(2)
    >>> norm
    LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True)
    >>> norm(torch.tensor([[1.0, 3.0], [5.0, 5.0]]))
    tensor([[-1.0000,  1.0000],
            [ 0.0000,  0.0000]], grad_fn=<AddBackward0>)
    """

    def __init__(self, normalized_shape: int | tuple[int, ...] | list[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        _check_device(device)
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(*self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(*self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """``weight`` back to ones and ``bias`` to zeros."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


__all__ = ["LayerNorm"]
