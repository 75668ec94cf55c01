"""``LayerNorm`` (each sample over its last dimensions: Transformers use it), ``GroupNorm``
(groups of channels of each sample) and ``LocalResponseNorm`` (across neighbouring channels)."""

from __future__ import annotations

import numbers
from typing import Any

from ..._creation import _check_device, empty
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _affine_parameters(module: Module, enabled: bool, bias: bool, shape: tuple, dtype) -> None:
    """``weight`` (ones) and ``bias`` (zeros) of ``shape``, or ``None`` where not wanted:
    the learnable scale and shift that LayerNorm and GroupNorm end with."""
    weight = Parameter(init.ones_(empty(shape, dtype=dtype))) if enabled else None
    module.register_parameter("weight", weight)
    shift = Parameter(init.zeros_(empty(shape, dtype=dtype))) if enabled and bias else None
    module.register_parameter("bias", shift)


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
            [ 0.0000,  0.0000]], grad_fn=<NativeLayerNormBackward0>)
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
        _affine_parameters(self, elementwise_affine, bias, self.normalized_shape, dtype)

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


class GroupNorm(Module):
    """Normalise groups of channels of each sample: ``num_channels`` split into
    ``num_groups`` groups, each normalised over its channels and positions, then
    ``* weight + bias`` per channel (see ``F.group_norm``).

    ``num_groups=1`` normalises all channels together (like LayerNorm over ``(C, *)``);
    ``num_groups=num_channels`` normalises each channel alone (like InstanceNorm).

    >>> import teachgrad as torch
    >>> norm = torch.nn.GroupNorm(2, 4)
    >>> norm
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    >>> norm(torch.tensor([[1.0, 3.0, 10.0, 30.0]]))
    tensor([[-1.0000,  1.0000, -1.0000,  1.0000]],
           grad_fn=<NativeGroupNormBackward0>)
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        _check_device(device)
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, affine, bias, (num_channels,), dtype)

    def reset_parameters(self) -> None:
        """``weight`` back to ones and ``bias`` to zeros."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class LocalResponseNorm(Module):
    """Divide by ``(k + alpha · mean of x² over `size` neighbouring channels)^beta``
    (see ``F.local_response_norm``; AlexNet used it).

    >>> import teachgrad as torch
    >>> torch.nn.LocalResponseNorm(3)
    LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


__all__ = ["LayerNorm", "GroupNorm", "LocalResponseNorm"]
