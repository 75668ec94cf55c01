"""``F.max_pool2d``, ``F.avg_pool2d``, ``F.adaptive_avg_pool2d``: argument checks in
PyTorch's words, then the ops of :mod:`teachgrad.nn.pooling_ops`.

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> x = torch.tensor([[[[1.0, 3.0, 2.0, 0.0],
...                     [2.0, 4.0, 1.0, 1.0]]]])
>>> F.max_pool2d(x, 2)
tensor([[[[4., 2.]]]])
>>> F.avg_pool2d(x, 2)
tensor([[[[2.5000, 1.0000]]]])
"""

from __future__ import annotations

from collections.abc import Sequence

from .._tensor import Tensor
from .pooling_ops import (
    AdaptiveAvgPool2DBackward0,
    AvgPool2DBackward0,
    MaxPool2DWithIndicesBackward0,
    adaptive_matrix,
    average_matrix,
)

IntOrPair = int | Sequence[int]


def _pair(value: IntOrPair, function: str, name: str, wording: str) -> tuple[int, int]:
    values = (value,) if isinstance(value, int) else tuple(value)
    if len(values) not in (1, 2):
        raise RuntimeError(f"{function}: {name} must {wording}")
    return (values[0], values[0]) if len(values) == 1 else values


def _arguments(function: str, kernel_size, stride, padding, dilation=1):
    """Kernel, stride, padding, dilation as pairs, checked as PyTorch checks them."""
    kernel = _pair(kernel_size, function, "kernel_size",
                   "either be a single int, or a tuple of two ints")
    if stride is None or (not isinstance(stride, int) and len(stride) == 0):
        stride_pair = kernel  # PyTorch's default: windows side by side
    else:
        stride_pair = _pair(stride, function, "stride",
                            "either be omitted, a single int, or a tuple of two ints")
    pad = _pair(padding, function, "padding", "either be a single int, or a tuple of two ints")
    dil = _pair(dilation, function, "dilation", "be either a single int, or a tuple of two ints")
    if any(k <= 0 for k in kernel):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}"
        )
    if any(s == 0 for s in stride_pair):
        raise RuntimeError("stride should not be zero")
    if any(d <= 0 for d in dil):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {dil[0]} "
            f"dilationW: {dil[1]}"
        )
    for k, p, d in zip(kernel, pad, dil):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )
    return kernel, stride_pair, pad, dil


def _output_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's pooling output size (with ceil_mode, the last window must start inside)."""
    span = d * (k - 1) + 1
    out = (size + 2 * p - span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _output_shape(input: Tensor, kernel, stride, pad, dil, ceil_mode) -> tuple[int, int]:
    h, w = input.shape[-2:]
    out = (_output_size(h, kernel[0], stride[0], pad[0], dil[0], ceil_mode),
           _output_size(w, kernel[1], stride[1], pad[1], dil[1], ceil_mode))
    if out[0] < 1 or out[1] < 1:
        c = input.shape[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: "
            f"({c}x{out[0]}x{out[1]}). Output size is too small"
        )
    return out


def _check_max_input(input: Tensor) -> None:
    if input.ndim not in (3, 4) or input.shape[-3] == 0 or input.shape[-2] * input.shape[-1] == 0:
        raise RuntimeError(
            "non-empty 3D or 4D (batch mode) tensor expected for input"
            f"\nHint: pooling wants (N, C, H, W) or (C, H, W); this input has shape "
            f"{tuple(input.shape)}."
        )


def max_pool2d(input: Tensor, kernel_size: IntOrPair, stride: IntOrPair | None = None,
               padding: IntOrPair = 0, dilation: IntOrPair = 1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The largest value of every ``kernel_size`` window (stride defaults to the kernel).

    The gradient flows only to each window's largest element (the first one on ties).
    With ``return_indices=True`` also returns where, as an index into each ``H·W`` plane.

    >>> import teachgrad as torch
    >>> x = torch.tensor([[[[1.0, 3.0, 3.0, 0.0], [2.0, 3.0, 1.0, 1.0]]]])
    >>> torch.nn.functional.max_pool2d(x, 2, return_indices=True)[1]
    tensor([[[[1, 2]]]])
    """
    _check_max_input(input)
    kernel, stride, pad, dil = _arguments("max_pool2d", kernel_size, stride, padding, dilation)
    out_h, out_w = _output_shape(input, kernel, stride, pad, dil, ceil_mode)
    # ceil_mode's last window may reach past the padding: pad a little more after.
    h, w = input.shape[-2:]
    extra = tuple(
        max(0, (n - 1) * s + d * (k - 1) + 1 - (size + 2 * p))
        for n, s, d, k, size, p in zip((out_h, out_w), stride, dil, kernel, (h, w), pad)
    )
    values, indices = MaxPool2DWithIndicesBackward0.apply(
        input, kernel=kernel, stride=stride, padding=pad, dilation=dil, extra=extra
    )
    return (values, indices) if return_indices else values


def avg_pool2d(input: Tensor, kernel_size: IntOrPair, stride: IntOrPair | None = None,
               padding: IntOrPair = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of every ``kernel_size`` window (stride defaults to the kernel).

    ``count_include_pad=False`` divides by the number of real (unpadded) values;
    ``divisor_override`` divides every window's sum by that number instead.

    >>> import teachgrad as torch
    >>> torch.nn.functional.avg_pool2d(torch.ones(1, 1, 2, 2), 2, stride=1, padding=1)
    tensor([[[[0.2500, 0.5000, 0.2500],
              [0.5000, 1.0000, 0.5000],
              [0.2500, 0.5000, 0.2500]]]])
    """
    if input.ndim not in (3, 4):
        n = max(input.ndim, 1)
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got -3)"
            "\nHint: pooling wants (N, C, H, W) or (C, H, W)."
        )
    kernel, stride, pad, _ = _arguments("avg_pool2d", kernel_size, stride, padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out_h, out_w = _output_shape(input, kernel, stride, pad, (1, 1), ceil_mode)
    dtype = input._data.dtype if input._data.dtype.kind == "f" else "float64"
    h, w = input.shape[-2:]
    rows = average_matrix(h, out_h, kernel[0], stride[0], pad[0], count_include_pad, dtype)
    cols = average_matrix(w, out_w, kernel[1], stride[1], pad[1], count_include_pad, dtype)
    if divisor_override is not None:
        # Sum each window, then divide by the override: the matrices become 0/1 masks.
        rows = (rows != 0).astype(dtype) / divisor_override
        cols = (cols != 0).astype(dtype)
    return AvgPool2DBackward0.apply(input, rows=rows, cols=cols)


def adaptive_avg_pool2d(input: Tensor, output_size: int | None | Sequence[int | None]) -> Tensor:
    """Average into an ``output_size`` grid whatever the input's size (``None``: keep it).

    ``(1, 1)`` is the mean of every channel (global average pooling), recorded as a mean
    (``MeanBackward1``) as in PyTorch.

    >>> import teachgrad as torch
    >>> torch.nn.functional.adaptive_avg_pool2d(torch.arange(8.0).reshape(1, 2, 4), 1)
    tensor([[[3.5000]]])
    """
    sizes = (output_size,) * 2 if output_size is None or isinstance(output_size, int) else (
        tuple(output_size))
    if len(sizes) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if input.ndim not in (3, 4):
        raise RuntimeError(
            "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
            f"[{', '.join(map(str, input.shape))}]"
        )
    h, w = input.shape[-2:]
    out_h, out_w = (h if sizes[0] is None else sizes[0]), (w if sizes[1] is None else sizes[1])
    if (out_h, out_w) == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    dtype = input._data.dtype if input._data.dtype.kind == "f" else "float64"
    return AdaptiveAvgPool2DBackward0.apply(
        input, rows=adaptive_matrix(h, out_h, dtype), cols=adaptive_matrix(w, out_w, dtype)
    )


__all__ = ["adaptive_avg_pool2d", "avg_pool2d", "max_pool2d"]
