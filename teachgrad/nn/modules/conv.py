"""``Conv1d``/``2d``/``3d`` and ``ConvTranspose1d``/``2d``/``3d``: learnable kernels slid over
sequences, images and volumes (or, transposed, spread over them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..._creation import _check_device, empty
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..convolution import as_tuple, transposed_output_size
from ..parameter import Parameter
from .module import Module

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _pad_for_mode(padding: tuple[int, ...] | str, kernel: tuple[int, ...],
                  dilation: tuple[int, ...]) -> tuple[int, ...]:
    """``padding`` as ``F.pad`` wants it: ``(left, right, top, bottom)`` for ``(H, W)``."""
    if padding == "valid":
        return (0, 0) * len(kernel)
    if padding == "same":  # the odd one out goes after, as conv2d(padding='same') does
        totals = [dil * (k - 1) for k, dil in zip(kernel, dilation)]
        pairs = [(t // 2, t - t // 2) for t in totals]
    else:
        pairs = [(p, p) for p in padding]
    return tuple(p for pair in reversed(pairs) for p in pair)


class _ConvNd(Module):
    """What Conv1d, Conv2d and Conv3d share: arguments, parameters, initialisation, printing."""

    _dims = 0  # spatial dimensions: 1, 2 or 3
    transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        _check_device(device)
        d = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.kernel_size = as_tuple(kernel_size, d, "kernel_size")
        self.stride = as_tuple(stride, d, "stride")
        self.dilation = as_tuple(dilation, d, "dilation")
        if isinstance(padding, str):
            valid_padding_strings = {"same", "valid"}  # (a set, printed as PyTorch prints
            if padding not in valid_padding_strings:  # its own: the same order in a process)
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding: tuple[int, ...] | str = padding
        else:
            self.padding = as_tuple(padding, d, "padding")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's argument for the other padding modes: last dimension first, both sides.
        self._reversed_padding_repeated_twice = _pad_for_mode(
            self.padding, self.kernel_size, self.dilation)
        self.output_padding = (0,) * d  # only transposed convolutions use it
        self.weight = Parameter(empty(self._weight_shape(in_channels, out_channels),
                                      dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _weight_shape(self, in_channels: int, out_channels: int) -> tuple[int, ...]:
        return (out_channels, in_channels // self.groups, *self.kernel_size)

    def _conv_forward(self, input: Tensor, conv) -> Tensor:
        if self.padding_mode != "zeros":
            # Pad first (reflect, replicate or circular), then convolve without padding.
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(input, self.weight, self.bias, self.stride, 0, self.dilation,
                        self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                    self.groups)

    def reset_parameters(self) -> None:
        """PyTorch's scheme: uniform in ±1/√fan_in, fan_in = in_channels/groups · kernel size."""
        # The same as Linear: kaiming_uniform_ with a=√5 is uniform in ±1/√fan_in.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        # PyTorch's format: only the settings that differ from their defaults are shown.
        d = self._dims
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * d:  # a string ('same', 'valid') is always shown
            text += f", padding={self.padding}"
        if self.dilation != (1,) * d:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * d:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    """1-d convolution over ``(N, C_in, L)`` inputs (or ``(C_in, L)``).

    ``weight``: ``(out_channels, in_channels // groups, kernel_size)``; see
    :func:`teachgrad.nn.functional.conv1d`.

    >>> import teachgrad as torch
    >>> conv = torch.nn.Conv1d(3, 8, kernel_size=5, padding=2)
    >>> conv
    Conv1d(3, 8, kernel_size=(5,), stride=(1,), padding=(2,))
    >>> conv(torch.zeros(4, 3, 20)).shape
    teachgrad.Size([4, 8, 20])
    """

    _dims = 1

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, F.conv1d)


class Conv2d(_ConvNd):
    """2-d convolution over images ``(N, C_in, H, W)`` (or ``(C_in, H, W)``).

    Each of the ``out_channels`` kernels ``(in_channels // groups, kH, kW)`` slides over
    the image and gives one output channel. Initialised as in PyTorch (uniform in
    ±1/√fan_in). See :func:`teachgrad.nn.functional.conv2d` for the arguments.

    >>> import teachgrad as torch
    >>> conv = torch.nn.Conv2d(3, 6, 5)      # the CIFAR-10 tutorial's first layer
    >>> conv
    Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1))
    >>> conv(torch.zeros(4, 3, 32, 32)).shape
    teachgrad.Size([4, 6, 28, 28])
    """

    _dims = 2

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, F.conv2d)


class Conv3d(_ConvNd):
    """3-d convolution over volumes ``(N, C_in, D, H, W)`` (or ``(C_in, D, H, W)``): video
    frames or medical scans.

    ``weight``: ``(out_channels, in_channels // groups, kD, kH, kW)``; see
    :func:`teachgrad.nn.functional.conv3d`.

    >>> import teachgrad as torch
    >>> conv = torch.nn.Conv3d(1, 4, kernel_size=3, padding=1)
    >>> conv
    Conv3d(1, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))
    >>> conv(torch.zeros(2, 1, 5, 6, 7)).shape
    teachgrad.Size([2, 4, 5, 6, 7])
    """

    _dims = 3

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, F.conv3d)


class _ConvTransposeNd(_ConvNd):
    """What the transposed convolutions share: the weight is ``(in, out/groups, *kernel)``."""

    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {type(self).__name__}'
            )
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)
        self.output_padding = as_tuple(output_padding, self._dims, "output_padding")

    def _weight_shape(self, in_channels: int, out_channels: int) -> tuple[int, ...]:
        # Transposed: the kernels go from each input channel to out_channels // groups outputs.
        return (in_channels, out_channels // self.groups, *self.kernel_size)

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None) -> tuple:
        """PyTorch's rule: ``output_size`` picks the ``output_padding`` that gives it."""
        if output_size is None:
            return self.output_padding
        d = self._dims
        leading = 2 if input.ndim == d + 2 else 1
        if len(output_size) == leading + d:
            output_size = output_size[leading:]
        if len(output_size) != d:
            raise ValueError(
                f"ConvTranspose{d}D: for {input.ndim}D input, output_size must have {d} or "
                f"{leading + d} elements (got {len(output_size)})"
            )
        min_sizes = [transposed_output_size(input.shape[leading + i], self.kernel_size[i],
                                            self.stride[i], self.padding[i], 0,
                                            self.dilation[i]) for i in range(d)]
        max_sizes = [low + s - 1 for low, s in zip(min_sizes, self.stride)]
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if not low <= size <= high:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{min_sizes} to {max_sizes} (for an input of {input.shape[2:]})"
                )
        return tuple(size - low for size, low in zip(output_size, min_sizes))


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution over ``(N, C_in, L)`` (or ``(C_in, L)``): upsamples.

    ``weight``: ``(in_channels, out_channels // groups, kernel_size)``; see
    :func:`teachgrad.nn.functional.conv_transpose1d`.

    >>> import teachgrad as torch
    >>> up = torch.nn.ConvTranspose1d(4, 2, kernel_size=4, stride=2, padding=1)
    >>> up
    ConvTranspose1d(4, 2, kernel_size=(4,), stride=(2,), padding=(1,))
    >>> up(torch.zeros(1, 4, 10)).shape
    teachgrad.Size([1, 2, 20])
    """

    _dims = 1

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution over images ``(N, C_in, H, W)``: the upsampling layer of
    decoders and GANs.

    ``weight``: ``(in_channels, out_channels // groups, kH, kW)``. ``forward(x,
    output_size=...)`` picks the ``output_padding`` that gives that size (a strided
    convolution maps several input sizes to one output size; this says which one to undo).

    >>> import teachgrad as torch
    >>> up = torch.nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1)
    >>> up(torch.zeros(1, 16, 7, 7)).shape
    teachgrad.Size([1, 8, 13, 13])
    >>> up(torch.zeros(1, 16, 7, 7), output_size=(14, 14)).shape
    teachgrad.Size([1, 8, 14, 14])
    """

    _dims = 2

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution over volumes ``(N, C_in, D, H, W)``: upsamples in depth,
    height and width.

    ``weight``: ``(in_channels, out_channels // groups, kD, kH, kW)``.

    >>> import teachgrad as torch
    >>> up = torch.nn.ConvTranspose3d(4, 2, kernel_size=2, stride=2)
    >>> up
    ConvTranspose3d(4, 2, kernel_size=(2, 2, 2), stride=(2, 2, 2))
    >>> up(torch.zeros(1, 4, 3, 3, 3)).shape
    teachgrad.Size([1, 2, 6, 6, 6])
    """

    _dims = 3

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]
