"""``Bilinear``: ``y = x1ᵀ A x2 + b``, a learned bilinear form per output feature."""

from __future__ import annotations

import math
from typing import Any

from ..._creation import _check_device, empty
from ..._tensor import Tensor
from .. import init
from ..bilinear import bilinear
from ..parameter import Parameter
from .module import Module


class Bilinear(Module):
    """``y_o = x1ᵀ · weight[o] · x2 + bias[o]``.

    ``weight (out_features, in1_features, in2_features)`` and ``bias (out_features,)``
    start uniform in ``±1/√in1_features``, as in PyTorch.

    >>> import teachgrad as torch
    >>> layer = torch.nn.Bilinear(3, 4, 5)
    >>> layer
    Bilinear(in1_features=3, in2_features=4, out_features=5, bias=True)
    >>> layer(torch.ones(2, 3), torch.ones(2, 4)).shape
    teachgrad.Size([2, 5])
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        _check_device(device)
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Uniform in ``±1/√in1_features`` (weight and bias)."""
        if self.in1_features <= 0:  # (before 1/√0: PyTorch's check)
            raise ValueError(
                f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


__all__ = ["Bilinear"]
