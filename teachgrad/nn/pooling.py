"""``F.max_pool2d``, ``F.avg_pool2d``, ``F.adaptive_avg_pool2d`` ... in 1, 2 and 3 dimensions:
argument checks in PyTorch's words, then the ops of :mod:`teachgrad.nn.pooling_ops` (one
code path for 2 and 3 pooled axes; 1-d pooling runs the 2-d ops, as PyTorch does).

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

import operator
from collections.abc import Iterable, Sequence

import numpy as np

from .._input_check import BUILTIN, takes_ints
from .._tensor import Tensor, _make, python_type_name
from .argument_types import argument_error, operand_argument, takes_arguments
from .axis_maps import AxisMap, gather
from .pooling_ops import (
    AdaptiveAvgPool2DBackward0,
    AdaptiveAvgPool3DBackward0,
    AdaptiveMaxPool2DBackward0,
    AdaptiveMaxPool3DBackward0,
    AvgPool2DBackward0,
    AvgPool3DBackward0,
    FractionalMaxPool2DBackward0,
    FractionalMaxPool3DBackward0,
    MaxPool2DWithIndicesBackward0,
    MaxPool3DWithIndicesBackward0,
    adaptive_average_map,
    adaptive_positions,
    fractional_positions,
    window_average_map,
    window_divisors,
    window_positions,
)

IntOrPair = int | Sequence[int]

_COUNT_WORDS = {2: "two", 3: "three"}
_AXIS_LETTERS = {2: "HW", 3: "THW"}  # PyTorch's messages: kH kW, or kT kH kW
_AXES = {2: "H, W", 3: "D, H, W"}


def _per_axis(value: IntOrPair, d: int, function: str, name: str, wording: str) -> tuple:
    """``2`` -> ``(2, 2)`` (or ``(2, 2, 2)``); a sequence must have 1 or ``d`` values."""
    values = tuple(value) if isinstance(value, tuple | list) else (operator.index(value),)
    if len(values) not in (1, d):
        raise RuntimeError(f"{function}: {name} must {wording} {_COUNT_WORDS[d]} ints")
    return values * d if len(values) == 1 else values


def _letters(prefix: str, values: tuple, d: int) -> str:
    """``kH: 2 kW: 3`` (PyTorch's way of listing a value per axis)."""
    return " ".join(f"{prefix}{axis}: {v}" for axis, v in zip(_AXIS_LETTERS[d], values))


def _check_padding(kernel, pad, dil) -> None:
    """Each axis's padding: not negative, at most half the (dilated) kernel."""
    for k, p, x in zip(kernel, pad, dil):
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > int(((k - 1) * x + 1) / 2):  # (C's division, toward zero: a bad dilation)
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={x}"
            )


def _check_padding_undilated(kernel, pad) -> None:
    """Max pooling's kernel checks the padding again, against half the kernel *without*
    its dilation (kernel 3, dilation 2, padding 2 passes the first check, not this one)."""
    if any(p > k // 2 for k, p in zip(kernel, pad)):
        if len(kernel) == 2:
            got = f"padW = {pad[1]}, padH = {pad[0]}, kW = {kernel[1]}, kH = {kernel[0]}"
        else:  # (PyTorch lists the 3-d sizes in the order T, W, H)
            got = (f"kT: {kernel[0]} kW: {kernel[2]} kH: {kernel[1]} "
                   f"padT: {pad[0]} padW: {pad[2]} padH: {pad[1]}")
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but "
                           f"got {got}")


def _arguments(function: str, kernel_size, stride, padding, dilation=1, d: int = 2,
               average: bool = False):
    """Kernel, stride, padding, dilation as one value per axis, checked as PyTorch does.

    PyTorch words the tuple errors of ``avg_pool3d`` a little differently ("must be",
    not "must either be"): ``average`` with ``d = 3`` says so. The padding is checked
    first (PyTorch does so while sizing the output), then the kernel, stride and dilation.
    """
    either = "" if average and d == 3 else "either "
    kernel = _per_axis(kernel_size, d, function, "kernel_size",
                       f"{either}be a single int, or a tuple of")
    if stride is None or (not isinstance(stride, int) and len(stride) == 0):
        strides = kernel  # PyTorch's default: windows side by side
    else:
        strides = _per_axis(stride, d, function, "stride",
                            f"{either}be omitted, a single int, or a tuple of")
    pad = _per_axis(padding, d, function, "padding", f"{either}be a single int, or a tuple of")
    dil = _per_axis(dilation, d, function, "dilation", "be either a single int, or a tuple of")
    if any(s == 0 for s in strides):  # PyTorch checks this first (stride=kernel=0)
        raise RuntimeError("stride should not be zero")
    _check_padding(kernel, pad, dil)
    if any(k <= 0 for k in kernel):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got {_letters('k', kernel, d)}")
    if any(s < 0 for s in strides):
        raise RuntimeError(
            f"stride should be greater than zero, but got {_letters('d', strides, d)}")
    if any(x <= 0 for x in dil):
        raise RuntimeError(
            f"dilation should be greater than zero, but got {_letters('dilation', dil, d)}")
    return kernel, strides, pad, dil


def _output_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's pooling output size (with ceil_mode, the last window must start inside)."""
    span = d * (k - 1) + 1
    out = (size + 2 * p - span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _output_shape(input: Tensor, kernel, stride, pad, dil, ceil_mode) -> tuple[int, ...]:
    d = len(kernel)
    sizes = input.shape[-d:]
    out = tuple(_output_size(n, k, s, p, x, ceil_mode)
                for n, k, s, p, x in zip(sizes, kernel, stride, pad, dil))
    if any(n < 1 for n in out):
        c = input.shape[-d - 1]
        raise RuntimeError(
            f"Given input size: ({'x'.join(map(str, (c, *sizes)))}). Calculated output size: "
            f"({'x'.join(map(str, (c, *out)))}). Output size is too small"
        )
    return out


def _shape_text(input: Tensor) -> str:
    return f"[{', '.join(map(str, input.shape))}]"


def _check_max_input(input: Tensor, d: int) -> None:
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(
            f"non-empty {d + 1}D or {d + 2}D (batch mode) tensor expected for input"
            f"\nHint: pooling wants (N, C, {_AXES[d]}) or (C, {_AXES[d]}); this input has "
            f"shape {tuple(input.shape)}."
        )
    if d == 2 and 0 in input.shape[-3:]:  # (an empty batch is fine, an empty channel not)
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{_shape_text(input)}\nHint: every dimension but the batch must be "
            "non-empty."
        )
    _check_non_batch_sizes(input, d, "max_pool3d_with_indices_out_cpu_template")


def _check_non_batch_sizes(input: Tensor, d: int, function: str) -> None:
    """PyTorch's 3-d pooling refuses an empty non-batch dimension (its message always says
    "dimension 0", whichever one it is: so does ours)."""
    if 0 in input.shape[-d - 1:]:
        raise RuntimeError(
            f"{function}(): Expected input's non-batch dimensions to have positive length, but "
            f"input has a shape of {_shape_text(input)} and non-batch dimension 0 has length "
            "zero!"
        )


def _as_given(value, d: int) -> tuple:
    """An int-list argument as PyTorch's binding passes it on: an int repeated ``d`` times,
    a sequence as a tuple, None (no stride) as ``()``."""
    if value is None:
        return ()
    return (value,) * d if isinstance(value, int) else tuple(value)


def note_arguments(result: Tensor, **arguments) -> None:
    """Keep a pooling's arguments on ``result``'s node, for PyTorch's
    ``grad_fn._saved_kernel_size`` ... (pooling_ops._pooling_arguments reads them)."""
    node = result._grad_fn
    if node is not None:
        node.arguments = arguments


def _max_pool(input: Tensor, d: int, kernel_size, stride, padding, dilation, ceil_mode,
              return_indices: bool, op: type):
    """Max pooling over the last ``d`` axes (``d`` = 2 or 3)."""
    _check_max_input(input, d)
    given = dict(kernel_size=_as_given(kernel_size, d), stride=_as_given(stride, d),
                 padding=_as_given(padding, d), dilation=_as_given(dilation, d),
                 ceil_mode=ceil_mode)  # (for grad_fn._saved_..., before the defaults)
    kernel, stride, pad, dil = _arguments(f"max_pool{d}d", kernel_size, stride, padding,
                                          dilation, d)
    _check_padding_undilated(kernel, pad)
    out = _output_shape(input, kernel, stride, pad, dil, ceil_mode)
    windows = tuple(window_positions(*a) for a in zip(input.shape[-d:], out, kernel, stride,
                                                     pad, dil))
    values, indices = op.apply(input, windows=windows)
    note_arguments(values, **given)
    return (values, indices) if return_indices else values


@takes_arguments("max_pool2d", kernel_size=("tuple of ints", 2), stride=("tuple of ints?", 3),
                 padding=("tuple of ints", 4), dilation=("tuple of ints", 5), ceil_mode=("bool", 6))
def max_pool2d(input: Tensor, kernel_size: IntOrPair, stride: IntOrPair | None = None,
               padding: IntOrPair = 0, dilation: IntOrPair = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of every ``kernel_size`` window (stride defaults to the kernel).

    The gradient flows only to each window's largest element (the first one on ties).
    With ``return_indices=True`` also returns where, as an index into each ``H·W`` plane.

    >>> import teachgrad as torch
    >>> x = torch.tensor([[[[1.0, 3.0, 3.0, 0.0], [2.0, 3.0, 1.0, 1.0]]]])
    >>> torch.nn.functional.max_pool2d(x, 2, return_indices=True)[1]
    tensor([[[[1, 2]]]])
    """
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices, MaxPool2DWithIndicesBackward0)


@takes_arguments("max_pool3d", kernel_size=("tuple of ints", 2), stride=("tuple of ints?", 3),
                 padding=("tuple of ints", 4), dilation=("tuple of ints", 5), ceil_mode=("bool", 6))
def max_pool3d(input: Tensor, kernel_size: IntOrPair, stride: IntOrPair | None = None,
               padding: IntOrPair = 0, dilation: IntOrPair = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of every ``kernel_size`` box of a volume ``(N, C, D, H, W)``;
    ``indices`` (with ``return_indices=True``) count into each ``D·H·W`` volume.

    >>> import teachgrad as torch
    >>> torch.nn.functional.max_pool3d(torch.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[7.]]]]])
    """
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices, MaxPool3DWithIndicesBackward0)


def _check_avg_input(input: Tensor, d: int, divisor_override) -> None:
    # PyTorch refuses a zero divisor first (avg_pool3d after the number of dimensions)
    zero_divisor = divisor_override is not None and divisor_override == 0
    if d == 2:
        if zero_divisor:
            raise RuntimeError("divisor must be not zero")
        if input.ndim not in (3, 4):
            n = max(input.ndim, 1)
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got "
                "-3)\nHint: pooling wants (N, C, H, W) or (C, H, W)."
            )
        return
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input"
                           "\nHint: pooling wants (N, C, D, H, W) or (C, D, H, W).")
    if zero_divisor:
        raise RuntimeError("divisor must be not zero")
    _check_non_batch_sizes(input, 3, "avg_pool3d")


def _avg_pool(input: Tensor, d: int, kernel_size, stride, padding, ceil_mode,
              count_include_pad, divisor_override, op: type) -> Tensor:
    """Average pooling over the last ``d`` axes: one average map per axis."""
    name = f"avg_pool{d}d"
    _check_avg_input(input, d, divisor_override)
    given = dict(kernel_size=_as_given(kernel_size, d), stride=_as_given(stride, d),
                 padding=_as_given(padding, d), ceil_mode=ceil_mode,
                 count_include_pad=count_include_pad, divisor_override=divisor_override)
    kernel, stride, pad, _ = _arguments(name, kernel_size, stride, padding, d=d, average=True)
    sizes = input.shape[-d:]
    if d == 2 and 0 in input.shape[-3:]:  # only a batch may be empty
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{_shape_text(input)}"
        )
    if d == 3 and any(n < k for n, k in zip(sizes, kernel)):
        raise RuntimeError(
            f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller than kernel size "
            f"({_letters('k', kernel, 3)})"
        )
    out = _output_shape(input, kernel, stride, pad, (1,) * d, ceil_mode)
    _check_average_dtype(input, name if d == 2 else "avg_pool3d_out_frame", integers_too=True)
    # One map per axis. divisor_override divides each window's sum once: along the first
    # axis (the others only add up).
    divisors = (None,) * d if divisor_override is None else (divisor_override,) + (1,) * (d - 1)
    axes = [(n, o, k, s_, p, count_include_pad, div)
            for n, o, k, s_, p, div in zip(sizes, out, kernel, stride, pad, divisors)]
    if input._data.dtype.kind != "f":
        return _integer_means(input, axes)
    out = op.apply(input, maps=tuple(window_average_map(*a) for a in axes))
    note_arguments(out, **given)
    return out


@takes_arguments("avg_pool2d", kernel_size=("tuple of ints", BUILTIN),
                 stride=("tuple of ints?", BUILTIN), padding=("tuple of ints", BUILTIN),
                 ceil_mode=("bool", BUILTIN),
                 count_include_pad=("bool", BUILTIN))
@takes_ints("avg_pool2d", optional=("divisor_override",), divisor_override=BUILTIN)
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
    return _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, AvgPool2DBackward0)


@takes_arguments("avg_pool3d", kernel_size=("tuple of ints", BUILTIN),
                 stride=("tuple of ints?", BUILTIN), padding=("tuple of ints", BUILTIN),
                 ceil_mode=("bool", BUILTIN),
                 count_include_pad=("bool", BUILTIN))
@takes_ints("avg_pool3d", optional=("divisor_override",), divisor_override=BUILTIN)
def avg_pool3d(input: Tensor, kernel_size: IntOrPair, stride: IntOrPair | None = None,
               padding: IntOrPair = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of every ``kernel_size`` box of a volume ``(N, C, D, H, W)``.

    >>> import teachgrad as torch
    >>> torch.nn.functional.avg_pool3d(torch.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[3.5000]]]]])
    """
    return _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, AvgPool3DBackward0)


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
    maps, divisors = [], np.ones((1,) * len(axes), np.int64)
    for axis, (size, out, kernel, stride, pad, count_include_pad, divisor) in enumerate(axes):
        positions = window_positions(size, out, kernel, stride, pad)
        maps.append(AxisMap(positions, (positions >= 0).astype(np.int64), size))
        along = (window_divisors(size, out, kernel, stride, pad, count_include_pad)
                 if divisor is None else np.full(out, divisor))
        divisors = divisors * along.reshape([-1 if a == axis else 1 for a in range(len(axes))])
    sums = gather(input._data, tuple(maps))
    quotient = np.abs(sums) // np.abs(divisors)
    return _make(np.where((sums < 0) != (divisors < 0), -quotient, quotient))


def _check_output_size(input: Tensor, output_size, function: str) -> None:
    """What PyTorch's Python (``_list_with_default``) and then its argument parser say of a
    bad ``output_size`` of the 2-d and 3-d adaptive poolings: an int passes as it is (a
    bool too, which the parser then refuses); anything else needs a length, and its
    elements (None: the input's size) must be ints."""
    if not isinstance(output_size, int):
        if not hasattr(output_size, "__len__"):
            raise TypeError(f"object of type '{python_type_name(output_size)}' has no len()"
                            "\nHint: give an int or a tuple of ints, e.g. 2 or (2, 2).")
        if len(output_size) >= input.ndim:
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        output_size = [0 if v is None else v for v in output_size]
    error = argument_error(function, "output_size", "tuple of ints", output_size, 2)
    if error is not None:
        raise error


def _adaptive_avg(input: Tensor, d: int, output_size, op: type) -> Tensor:
    """Adaptive average pooling over the last ``d`` axes."""
    name = f"adaptive_avg_pool{d}d"
    _check_output_size(input, output_size, name)
    if output_size is None or isinstance(output_size, int):
        sizes = (output_size,) * d
    else:
        sizes = tuple(output_size)
        if len(sizes) >= input.ndim:  # PyTorch's _list_with_default
            raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
    if len(sizes) != d:
        raise RuntimeError(f"{name}: output_size must be {d}")
    spatial = input.shape[-d:] if input.ndim >= d else (None,) * d
    out = tuple(n if m is None else m for n, m in zip(spatial, sizes))
    if any(m is not None and m < 0 for m in out):
        # (PyTorch's words; its 3-d message has no space before the last size)
        shown = ", ".join(str(m) for m in out[:2]) + "".join(f",{m}" for m in out[2:])
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal "
                           f"to 0 but received {{{shown}}}")
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"{name}(): Expected {d + 1}D or {d + 2}D tensor, but got "
                           f"{_shape_text(input)}")
    if out == (1,) * d:  # PyTorch's shortcut, before its checks
        return input.mean(tuple(range(-1, -d - 1, -1)), keepdim=True)
    for dim in range(input.ndim - d, input.ndim):
        if input.shape[dim] == 0:  # nothing to average
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {_shape_text(input)} with dimension {dim} being empty"
            )
    _check_average_dtype(input, name if d == 2 else f"{name}_cpu")
    return op.apply(input, maps=tuple(adaptive_average_map(n, m) for n, m in zip(spatial, out)))


def adaptive_avg_pool2d(input: Tensor, output_size: int | None | Sequence[int | None]) -> Tensor:
    """Average into an ``output_size`` grid whatever the input's size (``None``: keep it).

    ``(1, 1)`` is the mean of every channel (global average pooling), recorded as a mean
    (``MeanBackward1``) as in PyTorch.

    >>> import teachgrad as torch
    >>> torch.nn.functional.adaptive_avg_pool2d(torch.arange(8.0).reshape(1, 2, 4), 1)
    tensor([[[3.5000]]])
    """
    return _adaptive_avg(input, 2, output_size, AdaptiveAvgPool2DBackward0)


def adaptive_avg_pool3d(input: Tensor, output_size: int | None | Sequence[int | None]) -> Tensor:
    """Average a volume into an ``output_size`` grid ``(D_out, H_out, W_out)``.

    >>> import teachgrad as torch
    >>> torch.nn.functional.adaptive_avg_pool3d(torch.ones(2, 3, 5, 4, 6), (1, 2, 3)).shape
    teachgrad.Size([2, 3, 1, 2, 3])
    """
    return _adaptive_avg(input, 3, output_size, AdaptiveAvgPool3DBackward0)


def _adaptive_max(input: Tensor, d: int, output_size, return_indices: bool, op: type):
    """Adaptive max pooling over the last ``d`` axes."""
    name = f"adaptive_max_pool{d}d"
    _check_output_size(input, output_size, name)
    if isinstance(output_size, int):
        sizes: tuple = (output_size,) * d
    else:
        sizes = tuple(output_size)
        if len(sizes) >= input.ndim:  # PyTorch's _list_with_default
            raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
        sizes = tuple(input.shape[-len(sizes):][i] if v is None else v
                      for i, v in enumerate(sizes))
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"{name}(): Expected {d + 1}D or {d + 2}D tensor, but got: "
                           f"{_shape_text(input)}")
    if len(sizes) != d:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {d}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {_shape_text(input)} with dimension {dim} being empty"
            )
    if any(m < 0 for m in sizes):  # (no check of its own in PyTorch: the output's shape)
        shape = [*input.shape[:-d], *sizes]
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{next(m for m in sizes if m < 0)}: {shape}")
    if input._data.dtype.kind != "f":
        _check_average_dtype(input, name if d == 2 else f"{name}_cpu")
    windows = tuple(adaptive_positions(n, m) for n, m in zip(input.shape[-d:], sizes))
    values, indices = op.apply(input, windows=windows)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input: Tensor, output_size: int | None | Sequence[int | None],
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of each cell of an ``output_size`` grid laid over the input
    (PyTorch's adaptive bins, which may overlap when the sizes do not divide).

    >>> import teachgrad as torch
    >>> x = torch.tensor([[[1.0, 5.0, 2.0], [0.0, 3.0, 4.0]]])
    >>> torch.nn.functional.adaptive_max_pool2d(x, (1, 2), return_indices=True)
    (tensor([[[5., 5.]]]), tensor([[[1, 1]]]))
    """
    return _adaptive_max(input, 2, output_size, return_indices, AdaptiveMaxPool2DBackward0)


def adaptive_max_pool3d(input: Tensor, output_size: int | None | Sequence[int | None],
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of each cell of an ``output_size`` grid laid over a volume.

    >>> import teachgrad as torch
    >>> torch.nn.functional.adaptive_max_pool3d(torch.arange(8.0).reshape(1, 2, 2, 2), 1)
    tensor([[[[7.]]]])
    """
    return _adaptive_max(input, 3, output_size, return_indices, AdaptiveMaxPool3DBackward0)


# ----------------------------------------------------------------------------------------
# 1-d pooling: as in PyTorch, the 2-d ops on a height-1 view (unsqueeze, pool, squeeze).
# ----------------------------------------------------------------------------------------
def _single(value, function: str, name: str, message: str) -> int:
    # (a NumPy integer or a 0-d integer tensor is an int, as to PyTorch)
    values = tuple(value) if isinstance(value, tuple | list) else (operator.index(value),)
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


@takes_arguments("max_pool1d", kernel_size=("tuple of ints", 2), stride=("tuple of ints?", 3),
                 padding=("tuple of ints", 4), dilation=("tuple of ints", 5), ceil_mode=("bool", 6))
def max_pool1d(input: Tensor, kernel_size: int | Sequence[int],
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               dilation: int | Sequence[int] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of every window of a ``(N, C, L)`` (or ``(C, L)``) input.

    >>> import teachgrad as torch
    >>> torch.nn.functional.max_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0, 5.0]]), 2)
    tensor([[3., 2.]])
    """
    if return_indices and input.ndim not in (2, 3):  # (max_pool1d_with_indices' check)
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
            "argument #1 'self' (while checking arguments for max_pool1d)")
    if not return_indices and (input.ndim not in (2, 3) or 0 in input.shape[-2:]):
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
        input.unsqueeze(-2), windows=(np.zeros((1, 1), np.int64),
                                      window_positions(input.shape[-1], out, k, s, p, d)),
    )
    # (as PyTorch's max_pool1d calls its 2-d kernel: the stride given, or the kernel's)
    note_arguments(values, kernel_size=(1, k), stride=(1, s), padding=(0, p), dilation=(1, d),
                   ceil_mode=ceil_mode)
    return values.squeeze(-2)


@takes_arguments("avg_pool1d", kernel_size=("tuple of ints", BUILTIN),
                 stride=("tuple of ints?", BUILTIN), padding=("tuple of ints", BUILTIN),
                 ceil_mode=("bool", BUILTIN),
                 count_include_pad=("bool", BUILTIN))
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
    return _single(output_size, function, "output_size",
                   "{function}() argument '{name}' should contain one int (got {size})")


@takes_arguments("adaptive_avg_pool1d", output_size=("tuple of ints", BUILTIN))
def adaptive_avg_pool1d(input: Tensor, output_size: int | Sequence[int]) -> Tensor:
    """Average into ``output_size`` bins, whatever the input's length.

    >>> import teachgrad as torch
    >>> torch.nn.functional.adaptive_avg_pool1d(torch.tensor([[1.0, 3.0, 2.0, 6.0]]), 2)
    tensor([[2., 4.]])
    """
    size = _adaptive_1d(input, output_size, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


@takes_arguments("adaptive_max_pool1d", output_size=("tuple of ints", 2))
def adaptive_max_pool1d(input: Tensor, output_size: int | Sequence[int],
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of each of ``output_size`` bins, whatever the input's length.

    >>> import teachgrad as torch
    >>> torch.nn.functional.adaptive_max_pool1d(torch.tensor([[1.0, 3.0, 2.0, 6.0, 0.0]]), 2)
    tensor([[3., 6.]])
    """
    size = _adaptive_1d(input, output_size, "adaptive_max_pool1d")
    for dim in range(1, input.ndim):  # (checked here too, in the 1-d input's words)
        if input.shape[dim] == 0:
            raise RuntimeError(
                "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {_shape_text(input)} with dimension {dim} "
                "being empty"
            )
    return _squeezed(adaptive_max_pool2d(input.unsqueeze(-2), (1, size), True), return_indices)


def _repeated(value, n: int) -> tuple:
    """PyTorch's ``_ntuple``: anything iterable as it is, anything else ``n`` times."""
    return tuple(value) if isinstance(value, Iterable) else (value,) * n


def _lp_infinity(pool, input: Tensor, norm_type, kernel_size, stride, ceil_mode):
    """``p = ±∞``: the largest magnitude of each window (or minus the smallest), by max
    pooling, as in PyTorch (the composed formula would give 1s); otherwise None."""
    if isinstance(norm_type, int | float) and abs(norm_type) == float("inf"):
        if norm_type > 0:
            return pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    return None


def _lp_average(pool, powers: Tensor, kernel_size, stride, ceil_mode) -> Tensor:
    """The average pooling of an ``lp_pool``, called as PyTorch's Python calls it (so that a
    bad argument gets its words: ``ceil_mode`` is a keyword argument when there is no
    stride)."""
    if stride is not None:
        return pool(powers, kernel_size, stride, 0, ceil_mode)
    return pool(powers, kernel_size, padding=0, ceil_mode=ceil_mode)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int,
              stride: int | None = None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of every window, ``(Σ x^p)^(1/p)``, composed as PyTorch composes it."""
    infinite = _lp_infinity(max_pool1d, input, norm_type, kernel_size, stride,
                            ceil_mode)
    if infinite is not None:
        return infinite
    out = _lp_average(avg_pool1d, input.pow(operand_argument(norm_type, "pow")), kernel_size,
                      stride, ceil_mode)
    scale = operand_argument(kernel_size, "mul")  # (a tuple: mul's words, as PyTorch)
    return (out.sign() * out.abs().relu()).mul(scale).pow(1.0 / norm_type)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: IntOrPair,
              stride: IntOrPair | None = None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of every 2-d window, ``(Σ x^p)^(1/p)`` (``p = ∞``: max pooling of ``|x|``)."""
    kw, kh = _repeated(kernel_size, 2)  # (first, as PyTorch's Python: 'a' fails to unpack)
    infinite = _lp_infinity(max_pool2d, input, norm_type, kernel_size, stride,
                            ceil_mode)
    if infinite is not None:
        return infinite
    out = _lp_average(avg_pool2d, input.pow(operand_argument(norm_type, "pow")), kernel_size,
                      stride, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: IntOrPair,
              stride: IntOrPair | None = None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of every 3-d box, ``(Σ x^p)^(1/p)``, composed as PyTorch composes it."""
    kd, kh, kw = _repeated(kernel_size, 3)
    infinite = _lp_infinity(max_pool3d, input, norm_type, kernel_size, stride,
                            ceil_mode)
    if infinite is not None:
        return infinite
    out = _lp_average(avg_pool3d, input.pow(operand_argument(norm_type, "pow")), kernel_size,
                      stride, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kd * kh * kw).pow(1.0 / norm_type)


# ----------------------------------------------------------------------------------------
# Fractional max pooling: windows of pseudo-random starts, one set per plane
# ----------------------------------------------------------------------------------------
def _fractional(input: Tensor, d: int, kernel_size, output_size, output_ratio,
                return_indices: bool, samples: Tensor | None, op: type):
    name = f"fractional_max_pool{d}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratios = (output_ratio,) * d if isinstance(output_ratio, int | float) else tuple(
            output_ratio)
        if len(ratios) > d:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple "
                             "of Ints.")
        ratios = ratios * d if len(ratios) == 1 else ratios
        output_size = [int(n * r) for n, r in zip(input.shape[-d:], ratios)]
    if samples is None:
        from .._random import rand

        batch = 1 if input.ndim == d + 1 else input.size(0)
        samples = rand(batch, input.size(-d - 1), d, dtype=input.dtype)
    kernel = (kernel_size,) * d if isinstance(kernel_size, int) else tuple(kernel_size)
    sizes = (output_size,) * d if isinstance(output_size, int) else tuple(output_size)
    where = name if d == 2 else f"{name}_out"
    for value, what in ((kernel, "kernel_size"), (sizes, "output_size")):
        if len(value) != d:
            raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of Ints")
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"{where}(): Expected {d + 1}D or {d + 2}D tensor, but got: "
                           f"{_shape_text(input)}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(
                f"{where}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"got{_shape_text(input)} with dimension {dim} being empty.")
    names = ("height", "width") if d == 2 else ("time", "height", "width")
    checks = list(zip(input.shape[-d:], kernel, sizes, names))
    if d == 3:  # PyTorch's 3-d kernel checks time, then width, then height
        checks = [checks[0], checks[2], checks[1]]
    for n, k, m, axis in checks:
        # PyTorch's 3-d check is strict (a window may not end at the last position).
        if m + k - 1 > n or (d == 3 and m + k - 1 == n):
            raise RuntimeError(f"{where}(): pool {axis} {k} too large relative to input {axis} "
                               f"{n}")
    if min(kernel) <= 0:
        # PyTorch 2.13 has no check here: it returns -inf with made-up indices, and its
        # backward then fails an internal assert. max_pool's words, and a hint.
        raise RuntimeError(
            f"{name}(): kernel_size must be greater than zero, but got {tuple(kernel)}"
            "\nHint: every window needs at least one element to take the largest of "
            "(PyTorch 2.13 returns -inf here and fails in backward).")
    batch = 1 if input.ndim == d + 1 else input.shape[0]
    channels = input.shape[-d - 1]
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != d:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {d}; got "
                           f"{samples.shape[2]}.")
    # PyTorch's samples: (batch, channel, axis), the width's first in 2-d, time's first in 3-d.
    per_plane = samples._data[:batch].reshape(batch * channels, d)
    order = (1, 0) if d == 2 else (0, 1, 2)
    windows = tuple(fractional_positions(per_plane[:, order[i]], n, m, k)
                    for i, (n, m, k) in enumerate(zip(input.shape[-d:], sizes, kernel)))
    values, indices = op.apply(input, windows=windows)
    return (values, indices) if return_indices else values


def fractional_max_pool2d(input: Tensor, kernel_size: IntOrPair,
                          output_size: IntOrPair | None = None,
                          output_ratio: float | Sequence[float] | None = None,
                          return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """Max pooling to ``output_size`` (or ``output_ratio`` of the input) with windows of
    ``kernel_size`` placed at pseudo-random, overlapping positions (Graham's fractional
    max pooling): a new placement per call unless ``_random_samples`` fixes it.

    >>> import teachgrad as torch
    >>> x = torch.arange(16.0).reshape(1, 1, 4, 4)
    >>> torch.nn.functional.fractional_max_pool2d(x, 2, output_size=2,
    ...                                           _random_samples=torch.full((1, 1, 2), 0.5))
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    return _fractional(input, 2, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples, FractionalMaxPool2DBackward0)


def fractional_max_pool3d(input: Tensor, kernel_size: IntOrPair,
                          output_size: IntOrPair | None = None,
                          output_ratio: float | Sequence[float] | None = None,
                          return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """Fractional max pooling of volumes ``(N, C, T, H, W)``."""
    return _fractional(input, 3, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples, FractionalMaxPool3DBackward0)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: IntOrPair,
                                       output_size: IntOrPair | None = None,
                                       output_ratio: float | Sequence[float] | None = None,
                                       return_indices: bool = False,
                                       _random_samples: Tensor | None = None,
                                       ) -> tuple[Tensor, Tensor]:
    """``fractional_max_pool2d(..., return_indices=True)``: ``(values, indices)``."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: IntOrPair,
                                       output_size: IntOrPair | None = None,
                                       output_ratio: float | Sequence[float] | None = None,
                                       return_indices: bool = False,
                                       _random_samples: Tensor | None = None,
                                       ) -> tuple[Tensor, Tensor]:
    """``fractional_max_pool3d(..., return_indices=True)``: ``(values, indices)``."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


# PyTorch's ``*_with_indices`` names: the max poolings that always return the indices too.
def max_pool1d_with_indices(input: Tensor, kernel_size: int | Sequence[int],
                            stride: int | Sequence[int] | None = None,
                            padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                            ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``max_pool1d(..., return_indices=True)``: ``(values, indices)``."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size: IntOrPair,
                            stride: IntOrPair | None = None, padding: IntOrPair = 0,
                            dilation: IntOrPair = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``max_pool2d(..., return_indices=True)``: ``(values, indices)``."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input: Tensor, kernel_size: IntOrPair,
                            stride: IntOrPair | None = None, padding: IntOrPair = 0,
                            dilation: IntOrPair = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``max_pool3d(..., return_indices=True)``: ``(values, indices)``."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: int | Sequence[int],
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``adaptive_max_pool1d(..., return_indices=True)``: ``(values, indices)``."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: int | None | Sequence[int | None],
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``adaptive_max_pool2d(..., return_indices=True)``: ``(values, indices)``."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: int | None | Sequence[int | None],
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``adaptive_max_pool3d(..., return_indices=True)``: ``(values, indices)``."""
    return adaptive_max_pool3d(input, output_size, True)


__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
           "adaptive_max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices",
           "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool1d", "max_pool1d_with_indices",
           "max_pool2d", "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices"]
