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

import numpy as np

from .._tensor import Tensor, _make
from .axis_maps import AxisMap, gather
from .pooling_ops import (
    AdaptiveAvgPool2DBackward0,
    AdaptiveMaxPool2DBackward0,
    AvgPool2DBackward0,
    MaxPool2DWithIndicesBackward0,
    adaptive_average_map,
    adaptive_positions,
    window_average_map,
    window_divisors,
    window_positions,
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
    if any(s == 0 for s in stride_pair):  # PyTorch checks this first (stride=kernel=0)
        raise RuntimeError("stride should not be zero")
    if any(k <= 0 for k in kernel):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}"
        )
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
    h, w = input.shape[-2:]
    values, indices = MaxPool2DWithIndicesBackward0.apply(
        input, rows=window_positions(h, out_h, kernel[0], stride[0], pad[0], dil[0]),
        cols=window_positions(w, out_w, kernel[1], stride[1], pad[1], dil[1]),
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
    if 0 in input.shape[-3:]:  # only a batch may be empty
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:[{', '.join(map(str, input.shape))}]"
        )
    out_h, out_w = _output_shape(input, kernel, stride, pad, (1, 1), ceil_mode)
    _check_average_dtype(input, "avg_pool2d", integers_too=True)
    h, w = input.shape[-2:]
    # One map per axis. divisor_override divides each window's sum once: along the rows
    # (the columns only add up).
    row_divisor, col_divisor = (None, None) if divisor_override is None else (divisor_override, 1)
    axes = [(h, out_h, kernel[0], stride[0], pad[0], count_include_pad, row_divisor),
            (w, out_w, kernel[1], stride[1], pad[1], count_include_pad, col_divisor)]
    if input._data.dtype.kind != "f":
        return _integer_means(input, axes)
    return AvgPool2DBackward0.apply(input, maps=tuple(window_average_map(*a) for a in axes))


def _check_average_dtype(input: Tensor, kernel: str, integers_too: bool = False) -> None:
    """PyTorch averages floating tensors (and int64 ones, except adaptively)."""
    kind = input._data.dtype
    if kind.kind != "f" and not (integers_too and kind == np.int64):
        name = input.dtype._legacy.removesuffix("Tensor")
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{name}\''
            "\nHint: convert the input to float first, e.g. x.float()."
        )


def _integer_means(input: Tensor, axes: list[tuple]) -> Tensor:
    """Integer windows (no gradient): each exact sum, divided as C divides (toward zero)."""
    maps, divisors = [], np.ones((1, 1), np.int64)
    for axis, (size, out, kernel, stride, pad, count_include_pad, divisor) in enumerate(axes):
        positions = window_positions(size, out, kernel, stride, pad)
        maps.append(AxisMap(positions, (positions >= 0).astype(np.int64), size))
        along = (window_divisors(size, out, kernel, stride, pad, count_include_pad)
                 if divisor is None else np.full(out, divisor))
        divisors = divisors * (along[:, None] if axis == 0 else along[None, :])
    sums = gather(input._data, tuple(maps))
    quotient = np.abs(sums) // np.abs(divisors)
    return _make(np.where((sums < 0) != (divisors < 0), -quotient, quotient))


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
        return input.mean((-1, -2), keepdim=True)  # PyTorch's shortcut, before its checks
    for dim in (input.ndim - 2, input.ndim - 1):
        if input.shape[dim] == 0:  # nothing to average
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes [{', '.join(map(str, input.shape))}] with "
                f"dimension {dim} being empty"
            )
    _check_average_dtype(input, "adaptive_avg_pool2d")
    return AdaptiveAvgPool2DBackward0.apply(
        input, maps=(adaptive_average_map(h, out_h), adaptive_average_map(w, out_w)))


def adaptive_max_pool2d(input: Tensor, output_size: int | None | Sequence[int | None],
                        return_indices: bool = False):
    """The largest value of each cell of an ``output_size`` grid laid over the input
    (PyTorch's adaptive bins, which may overlap when the sizes do not divide).

    >>> import teachgrad as torch
    >>> x = torch.tensor([[[1.0, 5.0, 2.0], [0.0, 3.0, 4.0]]])
    >>> torch.nn.functional.adaptive_max_pool2d(x, (1, 2), return_indices=True)
    (tensor([[[5., 5.]]]), tensor([[[1, 1]]]))
    """
    if isinstance(output_size, int):
        sizes: tuple = (output_size, output_size)
    else:
        sizes = tuple(output_size)
        if len(sizes) >= input.ndim:  # PyTorch's _list_with_default
            raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
        sizes = tuple(input.shape[-len(sizes):][i] if v is None else v
                      for i, v in enumerate(sizes))
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"[{', '.join(map(str, input.shape))}]")
    if len(sizes) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(
                "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes [{', '.join(map(str, input.shape))}] with "
                f"dimension {dim} being empty"
            )
    h, w = input.shape[-2:]
    values, indices = AdaptiveMaxPool2DBackward0.apply(
        input, rows=adaptive_positions(h, sizes[0]), cols=adaptive_positions(w, sizes[1])
    )
    return (values, indices) if return_indices else values


# ----------------------------------------------------------------------------------------
# 1-d pooling: as in PyTorch, the 2-d ops on a height-1 view (unsqueeze, pool, squeeze).
# ----------------------------------------------------------------------------------------
def _single(value, function: str, name: str, message: str) -> int:
    values = (value,) if isinstance(value, int) else tuple(value)
    if len(values) != 1:
        raise RuntimeError(message.format(function=function, name=name, size=len(values)))
    return values[0]


def _check_1d_input(input: Tensor, function: str) -> None:
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            f"#1 'self' (while checking arguments for {function})"
        )


def _squeezed(result, return_indices: bool):
    values, indices = result
    return (values.squeeze(-2), indices.squeeze(-2)) if return_indices else values.squeeze(-2)


def max_pool1d(input: Tensor, kernel_size: int | Sequence[int],
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               dilation: int | Sequence[int] = 1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The largest value of every window of a ``(N, C, L)`` (or ``(C, L)``) input.

    >>> import teachgrad as torch
    >>> torch.nn.functional.max_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0, 5.0]]), 2)
    tensor([[3., 2.]])
    """
    if input.ndim not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:[{', '.join(map(str, input.shape))}]"
        )
    message = ("max_pool1d() {name} must be an int, list of ints or tuple of ints of size 1 "
               "but got size {size}")
    k = _single(kernel_size, "max_pool1d", "kernel_size", message)
    no_stride = stride is None or (not isinstance(stride, int) and len(stride) == 0)
    s = k if no_stride else _single(stride, "max_pool1d", "stride", message.replace(
        "an int", "None, an int").replace("list of ints or", "list of ints, or"))
    p = _single(padding, "max_pool1d", "padding", message.replace("list of ints or",
                                                                  "list of ints, or"))
    d = _single(dilation, "max_pool1d", "dilation", message)
    if return_indices:  # PyTorch checks these in 2-d, on the unsqueezed input
        return _squeezed(max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d),
                                    ceil_mode, True), True)
    for name, value, low in (("kernel_size", k, 1), ("stride", s, 1), ("padding", p, 0)):
        if value < low:
            rule = "greater than zero" if low else "non-negative"
            raise RuntimeError(f"max_pool1d() {name} must be {rule}, but got {value}")
    if p > k // 2:
        raise RuntimeError("max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _output_size(input.shape[-1], k, s, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    values, _ = MaxPool2DWithIndicesBackward0.apply(
        input.unsqueeze(-2), rows=np.zeros((1, 1), np.int64),
        cols=window_positions(input.shape[-1], out, k, s, p, d),
    )
    return values.squeeze(-2)


def avg_pool1d(input: Tensor, kernel_size: int | Sequence[int],
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """The mean of every window of a ``(N, C, L)`` (or ``(C, L)``) input.

    >>> import teachgrad as torch
    >>> torch.nn.functional.avg_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0, 5.0]]), 2)
    tensor([[2., 1.]])
    """
    _check_1d_input(input, "avg_pool1d")
    message = "avg_pool1d() argument '{name}' should contain one int (got {size})"
    k = _single(kernel_size, "avg_pool1d", "kernel_size", message)
    no_stride = stride is None or (not isinstance(stride, int) and len(stride) == 0)
    s = k if no_stride else _single(stride, "avg_pool1d", "stride", message)
    p = _single(padding, "avg_pool1d", "padding", message)
    return avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode,
                      count_include_pad).squeeze(-2)


def _adaptive_1d(input: Tensor, output_size, function: str) -> int:
    _check_1d_input(input, function)
    if output_size is None:
        raise TypeError(f"{function}(): argument 'output_size' (position 2) must be tuple of "
                        "ints, not NoneType")
    return _single(output_size, function, "output_size",
                   "{function}() argument '{name}' should contain one int (got {size})")


def adaptive_avg_pool1d(input: Tensor, output_size: int | Sequence[int]) -> Tensor:
    """Average into ``output_size`` bins, whatever the input's length.

    >>> import teachgrad as torch
    >>> torch.nn.functional.adaptive_avg_pool1d(torch.tensor([[1.0, 3.0, 2.0, 6.0]]), 2)
    tensor([[2., 4.]])
    """
    size = _adaptive_1d(input, output_size, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size: int | Sequence[int],
                        return_indices: bool = False):
    """The largest value of each of ``output_size`` bins, whatever the input's length.

    >>> import teachgrad as torch
    >>> torch.nn.functional.adaptive_max_pool1d(torch.tensor([[1.0, 3.0, 2.0, 6.0, 0.0]]), 2)
    tensor([[3., 6.]])
    """
    size = _adaptive_1d(input, output_size, "adaptive_max_pool1d")
    return _squeezed(adaptive_max_pool2d(input.unsqueeze(-2), (1, size), True), return_indices)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int,
              stride: int | None = None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of every window, ``(Σ x^p)^(1/p)``, composed as PyTorch composes it."""
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: IntOrPair,
              stride: IntOrPair | None = None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of every 2-d window, ``(Σ x^p)^(1/p)`` (``p = ∞`` would be max pooling)."""
    kw, kh = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kw * kh).pow(1.0 / norm_type)


__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "avg_pool1d", "avg_pool2d", "lp_pool1d", "lp_pool2d",
           "max_pool1d", "max_pool2d"]
