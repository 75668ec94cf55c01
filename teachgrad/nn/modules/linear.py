"""``Linear`` (a fully connected layer) and ``Identity``."""

from __future__ import annotations

import math
from typing import Any

from ..._creation import _check_device, empty
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class Identity(Module):
    """Returns its input unchanged (a placeholder, e.g. to switch a layer off).

    Any constructor arguments are accepted and ignored.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``: every output is a weighted sum of all inputs.

    ``weight`` has shape ``(out_features, in_features)``, ``bias`` ``(out_features,)``.
    Both start uniform in ``±1/√in_features``, as in PyTorch. The input may have any
    number of leading dimensions; its last one must be ``in_features``.

    >>> import teachgrad as torch
    >>> layer = torch.nn.Linear(2, 3)
    >>> layer
    Linear(in_features=2, out_features=3, bias=True)
    >>> layer(torch.ones(4, 2)).shape
    teachgrad.Size([4, 3])
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        _check_device(device)
        self.in_features = in_features
        self.out_features = out_features
        # (a tuple: a size that is not an int gets PyTorch's message, which names empty())
        self.weight = Parameter(empty((out_features, in_features), dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw fresh starting values (PyTorch's scheme; see :mod:`teachgrad.nn.init`)."""
        # kaiming_uniform_ with a=√5 gives gain √(2/(1+5)) = √(1/3), hence the bound
        # √3·√(1/3)/√fan_in = 1/√fan_in.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


__all__ = ["Identity", "Linear"]
