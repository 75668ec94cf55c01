"""Pooling layers (``MaxPool2d``, ``AvgPool2d``, ``AdaptiveAvgPool2d`` ... and their 1-d and
3-d versions): downsample sequences, images and volumes window by window; ``MaxUnpool*d``
put the maxima back."""

from __future__ import annotations

from collections.abc import Sequence

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

IntOrPair = int | Sequence[int]


class MaxPool2d(Module):
    """Keep the largest value of every window (``stride`` defaults to ``kernel_size``).

    >>> import teachgrad as torch
    >>> pool = torch.nn.MaxPool2d(2, 2)          # the CIFAR-10 tutorial's pooling
    >>> pool
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> pool(torch.zeros(4, 6, 28, 28)).shape
    teachgrad.Size([4, 6, 14, 14])
    """

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None,
                 padding: IntOrPair = 0, dilation: IntOrPair = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    """The mean of every window (``stride`` defaults to ``kernel_size``).

    >>> import teachgrad as torch
    >>> torch.nn.AvgPool2d(2)(torch.arange(4.0).reshape(1, 1, 2, 2))
    tensor([[[[1.5000]]]])
    """

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None,
                 padding: IntOrPair = 0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average into a fixed ``output_size`` grid, whatever the input size.

    ``AdaptiveAvgPool2d((1, 1))`` is global average pooling: one number per channel.

    >>> import teachgrad as torch
    >>> torch.nn.AdaptiveAvgPool2d((1, 1))(torch.ones(2, 3, 7, 5)).shape
    teachgrad.Size([2, 3, 1, 1])
    """

    def __init__(self, output_size: int | None | Sequence[int | None]) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class MaxPool1d(MaxPool2d):
    """Keep the largest value of every window of a sequence ``(N, C, L)``.

    >>> import teachgrad as torch
    >>> torch.nn.MaxPool1d(3, stride=2)
    MaxPool1d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    def forward(self, input: Tensor):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


def _single(value) -> tuple:
    """PyTorch's ``_single``: ``2`` -> ``(2,)``, a sequence stays as it is (as a tuple)."""
    return (value,) if isinstance(value, int) else tuple(value)


class AvgPool1d(Module):
    """The mean of every window of a sequence ``(N, C, L)``.

    >>> import teachgrad as torch
    >>> torch.nn.AvgPool1d(2)
    AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    def __init__(self, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None = None,
                 padding: int | Sequence[int] = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """Average a sequence into ``output_size`` bins, whatever its length.

    >>> import teachgrad as torch
    >>> torch.nn.AdaptiveAvgPool1d(4)(torch.ones(2, 3, 10)).shape
    teachgrad.Size([2, 3, 4])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(Module):
    """The largest value of each cell of an ``output_size`` grid (``None``: keep that size).

    >>> import teachgrad as torch
    >>> torch.nn.AdaptiveMaxPool2d((1, 1))(torch.ones(2, 3, 7, 5)).shape
    teachgrad.Size([2, 3, 1, 1])
    """

    def __init__(self, output_size: int | None | Sequence[int | None],
                 return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """The largest value of each of ``output_size`` bins of a sequence."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class LPPool2d(Module):
    """The p-norm ``(Σ x^p)^(1/p)`` of every window (p = 1: sum pooling)."""

    def __init__(self, norm_type: float, kernel_size: IntOrPair,
                 stride: IntOrPair | None = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(LPPool2d):
    """The p-norm of every window of a sequence."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class MaxPool3d(MaxPool2d):
    """Keep the largest value of every box of a volume ``(N, C, D, H, W)``.

    >>> import teachgrad as torch
    >>> torch.nn.MaxPool3d(2)(torch.zeros(1, 3, 4, 6, 8)).shape
    teachgrad.Size([1, 3, 2, 3, 4])
    """

    def forward(self, input: Tensor):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(AvgPool2d):
    """The mean of every box of a volume ``(N, C, D, H, W)``.

    >>> import teachgrad as torch
    >>> torch.nn.AvgPool3d(2, stride=1)
    AvgPool3d(kernel_size=2, stride=1, padding=0)
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """Average a volume into a fixed ``output_size`` grid, whatever its size.

    >>> import teachgrad as torch
    >>> torch.nn.AdaptiveAvgPool3d((1, 2, 2))(torch.ones(2, 3, 5, 7, 4)).shape
    teachgrad.Size([2, 3, 1, 2, 2])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """The largest value of each cell of an ``output_size`` grid laid over a volume."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool3d(LPPool2d):
    """The p-norm of every box of a volume."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class _FractionalMaxPoolNd(Module):
    """What FractionalMaxPool2d and 3d share: a kernel, and an output size or ratio (one
    per axis); ``_random_samples`` (a buffer, if given) fixes the windows' placement."""

    _dims = 0

    def __init__(self, kernel_size: IntOrPair, output_size: IntOrPair | None = None,
                 output_ratio: float | Sequence[float] | None = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None) -> None:
        super().__init__()
        d = self._dims
        self.kernel_size = _n_tuple(kernel_size, d)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _n_tuple(output_size, d) if output_size is not None else None
        self.output_ratio = (_n_tuple(output_ratio, d) if output_ratio is not None
                             else None)
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, "
                             "or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        pool = getattr(F, f"fractional_max_pool{self._dims}d")
        return pool(input, self.kernel_size, self.output_size, self.output_ratio,
                    self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling with pseudo-random overlapping windows, to a fractional output size.

    >>> import teachgrad as torch
    >>> torch.nn.FractionalMaxPool2d(3, output_ratio=0.5)(torch.zeros(1, 2, 10, 9)).shape
    teachgrad.Size([1, 2, 5, 4])
    """

    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-d fractional max pooling."""

    _dims = 3


def _n_tuple(value, d: int) -> tuple:
    """PyTorch's ``_single``/``_pair``/``_triple``: a number repeated, a sequence as a tuple."""
    return (value,) * d if isinstance(value, int | float) else tuple(value)


class _MaxUnpoolNd(Module):
    """What the unpooling layers share: the pooling's kernel, stride and padding, one per
    axis (``stride`` defaults to the kernel, as in pooling)."""

    _dims = 0

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None,
                 padding: IntOrPair = 0) -> None:
        super().__init__()
        self.kernel_size = _n_tuple(kernel_size, self._dims)
        self.stride = _n_tuple(stride if stride is not None else kernel_size, self._dims)
        self.padding = _n_tuple(padding, self._dims)

    def forward(self, input: Tensor, indices: Tensor,
                output_size: Sequence[int] | None = None) -> Tensor:
        unpool = getattr(F, f"max_unpool{self._dims}d")
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Undo ``MaxPool1d(return_indices=True)``: values back at their indices, zeros elsewhere.

    >>> import teachgrad as torch
    >>> torch.nn.MaxUnpool1d(2)
    MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Undo ``MaxPool2d(return_indices=True)`` (the decoder half of SegNet-style models).

    >>> import teachgrad as torch
    >>> pool, unpool = torch.nn.MaxPool2d(2, return_indices=True), torch.nn.MaxUnpool2d(2)
    >>> x = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> unpool(*pool(x))
    tensor([[[[0., 0.],
              [0., 4.]]]])
    """

    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Undo ``MaxPool3d(return_indices=True)``."""

    _dims = 3


__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d",
           "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]
