"""``F.interpolate``: resize the last 1, 2 or 3 dimensions (``nearest``, ``nearest-exact``,
``linear`` / ``bilinear`` / ``trilinear``, ``bicubic``, ``area``).

Every mode works one axis at a time (see :mod:`teachgrad.nn.axis_maps`): along an axis,
output position ``o`` looks at the *source coordinate* ``src(o)`` in the input, and

* ``nearest`` copies the input at ``⌊src⌋`` with ``src = o · in/out`` (PyTorch's rule,
  which is not the closest pixel: ``nearest-exact`` uses ``(o + ½) · in/out`` instead);
* ``linear`` mixes the two inputs around ``src``: ``(1 - λ)·x[i] + λ·x[i + 1]``, where
  ``i = ⌊src⌋`` and ``λ = src - i``. With ``align_corners=False`` (the default) pixels
  are squares and their *centres* are lined up, ``src = (o + ½) · in/out - ½``; with
  ``align_corners=True`` the first and last pixels' centres are, ``src = o · (in-1)/(out-1)``;
* ``bicubic`` mixes the four inputs ``i-1 .. i+2`` around ``src`` with the weights of a
  cubic kernel (Keys' cubic convolution, ``a = -0.75``): smoother than linear, and it can
  overshoot (a value a little outside the input's range).

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> x = torch.tensor([[[0.0, 10.0]]])
>>> F.interpolate(x, scale_factor=2)
tensor([[[ 0.,  0., 10., 10.]]])
>>> F.interpolate(x, size=4, mode="linear")
tensor([[[ 0.0000,  2.5000,  7.5000, 10.0000]]])
>>> F.interpolate(x, size=4, mode="linear", align_corners=True)
tensor([[[ 0.0000,  3.3333,  6.6667, 10.0000]]])
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

from .._arguments import _described, is_int, is_number
from .._tensor import Tensor, python_type_name
from .._warn import warn_user
from . import axis_maps
from .axis_maps import AxisMap
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}
_OPS = {
    ("nearest", 1): axis_maps.UpsampleNearest1DBackward0,
    ("nearest", 2): axis_maps.UpsampleNearest2DBackward0,
    ("nearest", 3): axis_maps.UpsampleNearest3DBackward0,
    ("nearest-exact", 1): axis_maps.UpsampleNearestExact1DBackward0,
    ("nearest-exact", 2): axis_maps.UpsampleNearestExact2DBackward0,
    ("nearest-exact", 3): axis_maps.UpsampleNearestExact3DBackward0,
    ("linear", 1): axis_maps.UpsampleLinear1DBackward0,
    ("bilinear", 2): axis_maps.UpsampleBilinear2DBackward0,
    ("trilinear", 3): axis_maps.UpsampleTrilinear3DBackward0,
    ("bicubic", 2): axis_maps.UpsampleBicubic2DBackward0,
}
_ANTIALIAS_OPS = {"bilinear": axis_maps.UpsampleBilinear2DAaBackward0,
                  "bicubic": axis_maps.UpsampleBicubic2DAaBackward0,
                  "lanczos": axis_maps.UpsampleLanczos2DAaBackward0}
#: The cubic convolution kernel's free parameter: PyTorch's (and OpenCV's) -0.75.
CUBIC_A = -0.75


def nearest_map(size: int, out: int, scale: float | None, exact: bool = False,
                shortcuts: bool = False) -> AxisMap:
    """Which input position each output copies (PyTorch's arithmetic, in float32).

    ``scale`` is the user's ``scale_factor`` (then the step is ``1/scale``), or None
    (then ``size/out``). ``shortcuts``: PyTorch's 2-d kernel copies when ``out == size``
    and halves when ``out == 2·size`` whatever the scale factor; its 1-d and 3-d ones don't.

    >>> nearest_map(3, 5, None).index[:, 0]          # step 0.6: 0, 0.6, 1.2, 1.8, 2.4
    array([0, 0, 1, 1, 2])
    """
    o = np.arange(out)
    if shortcuts and not exact and out == size:
        source = o
    elif shortcuts and not exact and out == 2 * size:
        source = o >> 1
    else:
        step = np.float32(1.0 / scale) if scale else np.float32(size) / np.float32(out)
        position = (o + 0.5) * np.float64(step) if exact else o.astype(np.float32) * step
        source = np.minimum(np.floor(np.float32(position)).astype(np.int64), size - 1)
    return AxisMap(index=source[:, None], weights=None, size=size)


def linear_map(size: int, out: int, scale: float | None, align_corners: bool,
               dtype) -> AxisMap:
    """Each output mixes two neighbours: ``(1 - λ)·x[i] + λ·x[i + 1]``.

    >>> m = linear_map(2, 4, None, align_corners=False, dtype=np.float64)
    >>> m.index.tolist(), m.weights.tolist()
    ([[0, 1], [0, 1], [0, 1], [1, 1]], [[1.0, 0.0], [0.75, 0.25], [0.25, 0.75], [0.75, 0.25]])
    """
    dtype = np.dtype(dtype)
    o = np.arange(out)
    if out == size:  # PyTorch copies (whatever the scale factor)
        return AxisMap(index=np.stack([o, o], 1), weights=np.stack(
            [np.ones(out, dtype), np.zeros(out, dtype)], 1), size=size)
    if align_corners:
        step = dtype.type(size - 1) / dtype.type(out - 1) if out > 1 else dtype.type(0)
        source = step * o.astype(dtype)
    else:
        step = dtype.type(1.0 / scale) if scale else dtype.type(size) / dtype.type(out)
        source = np.maximum(step * (o.astype(dtype) + dtype.type(0.5)) - dtype.type(0.5),
                            dtype.type(0))
    first = np.minimum(np.floor(source).astype(np.int64), size - 1)
    lam = np.clip(source - first.astype(dtype), 0, 1).astype(dtype)
    second = first + (first < size - 1)
    return AxisMap(index=np.stack([first, second], 1),
                   weights=np.stack([dtype.type(1) - lam, lam], 1), size=size)


def cubic_weights(t: np.ndarray, a: float = CUBIC_A) -> np.ndarray:
    """``(len(t), 4)``: the weights of the neighbours at ``-1, 0, 1, 2`` of a point ``t``
    past the neighbour ``0`` (Keys' cubic convolution, in PyTorch's formulation).

    The kernel is ``(a+2)|x|³ - (a+3)|x|² + 1`` within one step and ``a|x|³ - 5a|x|² +
    8a|x| - 4a`` from one to two steps away; the four weights add up to 1.

    >>> cubic_weights(np.array([0.0, 0.5])).tolist()
    [[0.0, 1.0, 0.0, 0.0], [-0.09375, 0.59375, 0.59375, -0.09375]]
    """
    a = t.dtype.type(a)

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    one = t.dtype.type(1)
    return np.stack([far(t + one), near(t), near(one - t), far(one - t + one)], axis=1)


def cubic_map(size: int, out: int, scale: float | None, align_corners: bool,
              dtype) -> AxisMap:
    """Each output mixes four neighbours ``i-1 .. i+2`` of its source point (clamped at the
    border, so an edge value can be read more than once) with :func:`cubic_weights`.

    Unlike ``linear``, the source point is not clamped at 0: the first outputs reach a
    little before the first pixel (as PyTorch's bicubic does).

    >>> m = cubic_map(3, 6, None, align_corners=False, dtype=np.float64)
    >>> m.index[0].tolist(), np.round(m.weights[0], 4).tolist()   # source point -0.25
    ([0, 0, 0, 1], [-0.0352, 0.2617, 0.8789, -0.1055])
    """
    dtype = np.dtype(dtype)
    o = np.arange(out).astype(dtype)
    if align_corners:
        step = dtype.type(size - 1) / dtype.type(out - 1) if out > 1 else dtype.type(0)
        source = step * o
    else:
        step = dtype.type(1.0 / scale) if scale else dtype.type(size) / dtype.type(out)
        source = step * (o + dtype.type(0.5)) - dtype.type(0.5)
    first = np.floor(source).astype(np.int64)
    t = (source - first.astype(dtype)).astype(dtype)
    index = np.clip(first[:, None] + np.arange(-1, 3)[None, :], 0, size - 1)
    return AxisMap(index=index, weights=cubic_weights(t), size=size)


def triangle(x: np.ndarray) -> np.ndarray:
    """The linear filter, a tent one step wide on each side: ``max(0, 1 - |x|)``."""
    x = np.abs(x)
    return np.where(x < 1, 1 - x, x.dtype.type(0))


def keys_cubic(x: np.ndarray) -> np.ndarray:
    """The cubic filter antialiasing uses: Keys' kernel with ``a = -0.5`` (PIL's choice;
    plain bicubic keeps ``a = -0.75``), zero from two steps away."""
    a = x.dtype.type(-0.5)
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, x.dtype.type(0)))


def lanczos3(x: np.ndarray) -> np.ndarray:
    """The Lanczos filter, three steps wide: ``sinc(x)·sinc(x/3)`` within 3, else 0."""
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), x.dtype.type(0))


#: filter name -> (its reach in input steps on either side, the filter)
ANTIALIAS_FILTERS = {"bilinear": (1.0, triangle), "bicubic": (2.0, keys_cubic),
                     "lanczos": (3.0, lanczos3)}


def antialias_map(size: int, out: int, scale: float | None, align_corners: bool, dtype,
                  mode: str = "bilinear") -> AxisMap:
    """Shrinking with ``antialias=True``: each output averages every input its filter covers.

    Plain interpolation reads 2 (or 4) neighbours of the source point, so shrinking by 4
    skips three pixels in four and fine detail turns into noise (aliasing). Here the
    filter (``mode``: a tent, a cubic or Lanczos, reaching 1, 2 or 3 steps) is stretched
    by the shrink factor ``s = in/out``: output ``o``, centred at ``c = s·(o + ½)``, reads
    the inputs within ``reach·s`` of ``c`` with weights ``filter((i + ½ - c) / s)``,
    divided by their sum so they add up to 1 (also at the borders, where the filter is
    cut). Growing (``s < 1``) does not stretch it. PyTorch's (and PIL's) rule, in the
    input's precision.

    >>> m = antialias_map(6, 3, None, align_corners=False, dtype=np.float64)
    >>> m.index[1].tolist(), m.weights[1].tolist()    # centre 3: a tent 2 wide each side
    ([1, 2, 3, 4, -1], [0.125, 0.375, 0.375, 0.125, 0.0])
    >>> m.weights[0].round(4).tolist()                # cut at the border: 3/7 3/7 1/7
    [0.4286, 0.4286, 0.1429, 0.0, 0.0]
    """
    real = np.dtype(dtype).type  # PyTorch's scalar_t; some steps go through double
    if align_corners:
        step = real(size - 1) / real(out - 1) if out > 1 else real(0)
    else:
        step = real(1.0 / scale) if scale else real(size) / real(out)
    reach, filter = ANTIALIAS_FILTERS[mode]
    support = real(reach * float(step)) if step >= 1 else real(reach)
    taps = math.ceil(support) * 2 + 1
    centre = (float(step) * (np.arange(out) + 0.5)).astype(real)
    inverse = real(1.0 / float(step)) if step >= 1 else real(1)
    # C++ casts to int64 (toward zero), then clamps to the input
    first = np.maximum(np.trunc((centre - support).astype(np.float64) + 0.5), 0).astype(np.int64)
    end = np.minimum(np.trunc((centre + support).astype(np.float64) + 0.5), size).astype(np.int64)
    count = np.clip(end - first, 0, taps)
    position = first[:, None] + np.arange(taps)[None, :]
    read = np.arange(taps)[None, :] < count[:, None]
    x = (((position.astype(real) - centre[:, None]).astype(np.float64) + 0.5)
         * float(inverse)).astype(real)
    weights = np.where(read, filter(x), real(0))
    total = np.zeros(out, real)
    for t in range(taps):  # one tap at a time, as PyTorch adds them (float32 sums differ)
        total = total + weights[:, t]
    weights = np.where(total[:, None] != 0, weights / np.where(total != 0, total, 1)[:, None],
                       weights).astype(real)
    return AxisMap(index=np.where(read, position, -1), weights=weights, size=size)


def _spatial(input: Tensor, d: int, size, scale_factor, recompute_scale_factor, mode,
             antialias: bool = False):
    """The output sizes, and the scale factors the kernels use (None: in/out)."""
    shape = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, list | tuple):
            if len(size) != d:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {shape} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                    "size in (o1, o2, ...,oK) format."
                )
            if not all(isinstance(n, numbers.Integral) for n in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(n) for n in size]}"
                )
            out = [int(n) for n in size]
        elif is_int(size):
            out = [int(size)] * d
        else:  # (PyTorch's kernel refuses it, after the mode checks: _check_kernel_types)
            out = [size] * d
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        return out, [None] * d
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, list | tuple):
        if len(scale_factor) != d:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {shape} and scale_factor of shape "
                f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                "format and scale_factor in (s1, s2, ...,sK) format."
            )
        given = list(scale_factor)
    else:
        given = [scale_factor] * d
    if not (recompute_scale_factor or mode == "area") and not all(map(_is_real, given)):
        return None, given  # (the kernel refuses them, after the mode checks)
    for s in given:
        if isinstance(s, complex):  # (PyTorch's Python computes the sizes with int())
            raise TypeError("int() argument must be a string, a bytes-like object or a real "
                            "number, not 'complex'")
    scales = [float(s) for s in given]
    out = [math.floor(n * s) for n, s in zip(shape, scales)]
    if recompute_scale_factor or mode == "area":
        return out, [None] * d  # the kernels then step by in/out, as for an explicit size
    return out, scales


def _check_kernel_types(input: Tensor, d: int, size, scale_factor, mode, align_corners,
                        antialias: bool, recompute: bool | None) -> None:
    """PyTorch's TypeError where its kernel's argument parser refuses what interpolate hands
    it: a size that is not an int (``size=2.5`` would otherwise be truncated silently), an
    ``align_corners`` that is not a bool (``1`` too), a scale factor that is not a number.

    PyTorch's Python makes ``[size] * d`` of a single size and passes it on (lists of sizes
    it checks itself, see ``_spatial``). Called once the mode fits the input, as the kernel
    is chosen then."""
    sizes = None
    if size is not None and not isinstance(size, list | tuple):
        sizes = [size] * d
        if not is_int(size):
            if mode == "area":  # (adaptive average pooling gets the sizes)
                raise TypeError(
                    f"adaptive_avg_pool{d}d(): argument 'output_size' (position 2) must be "
                    f"tuple of ints, but found element of type {python_type_name(size)} at "
                    "pos 0\nHint: an output size is a whole number (an int).")
            raise _kernel_error(input, d, sizes, None, mode, align_corners, antialias)
    corners = mode in _LINEAR or mode in ("bicubic", "lanczos")
    if corners and align_corners is not None and not isinstance(align_corners, bool):
        scales = None if scale_factor is None or isinstance(scale_factor, list | tuple) else (
            [scale_factor] * d)
        raise _kernel_error(input, d, sizes, scales, mode, align_corners, antialias)
    if scale_factor is not None and size is None and mode != "area" and not recompute:
        given = list(scale_factor) if isinstance(scale_factor, list | tuple) else (
            [scale_factor] * d)
        # The parser takes the list for floats when its first item is a number (a complex
        # one too), and then names the first item it cannot convert; otherwise no
        # signature fits.
        if not is_number(given[0]):
            raise _kernel_error(input, d, None, given, mode, align_corners, antialias)
        for position, s in enumerate(given, start=1):
            if not _is_real(s):
                raise _scale_type_error(d, mode, antialias, position, s)


def _kernel_name(d: int, mode: str, antialias: bool) -> str:
    """The ATen kernel interpolate calls for ``mode`` on ``d`` spatial dimensions."""
    kernel = {"nearest": f"upsample_nearest{d}d", "nearest-exact": f"_upsample_nearest_exact{d}d",
              "linear": "upsample_linear1d", "bilinear": "upsample_bilinear2d",
              "bicubic": "upsample_bicubic2d", "trilinear": "upsample_trilinear3d",
              "lanczos": "_upsample_lanczos2d"}.get(mode, f"upsample_{mode}")
    return f"_{kernel.lstrip('_')}_aa" if antialias else kernel


def _kernel_error(input: Tensor, d: int, sizes, scales, mode: str, align_corners,
                  antialias: bool) -> TypeError:
    """The kernel parser's "invalid combination of arguments" for ``(input, sizes,
    [align_corners,] scales)``, each refused argument marked ``!...!`` as PyTorch does."""
    corners = mode in _LINEAR or mode in ("bicubic", "lanczos")
    if corners and align_corners is None:
        align_corners = False
    args = [input, sizes, *([align_corners] if corners else []), scales]
    fits = [True, isinstance(sizes, list) and all(is_int(n) for n in sizes),
            *([isinstance(align_corners, bool)] if corners else []),
            isinstance(scales, list) and all(_is_real(s) for s in scales)]
    got = ", ".join(python_type_name(a) for a in args)
    # (PyTorch marks a list as not fitting whenever the call fails, even a list of ints)
    marked = ", ".join(_described(a) if ok and not isinstance(a, list) else f"!{_described(a)}!"
                       for a, ok in zip(args, fits))
    flag = "bool align_corners, " if corners else ""
    names = {1: ["scales"], 2: ["scales_h", "scales_w"], 3: ["scales_d", "scales_h", "scales_w"]}
    one_by_one = ", ".join(f"float {n} = None" for n in names[d])
    return TypeError(
        f"{_kernel_name(d, mode, antialias)}() received an invalid combination of arguments - "
        f"got ({got}), but expected one of:\n"
        f" * (Tensor input, tuple of ints output_size, {flag}tuple of floats scale_factors)\n"
        f"      didn't match because some of the arguments have invalid types: ({marked})\n"
        f" * (Tensor input, tuple of ints output_size, {flag}{one_by_one}, *, Tensor out = "
        "None)\n"
        "\nHint: size takes whole numbers (ints), scale_factor real numbers, align_corners "
        "True or False."
    )


def _is_real(value) -> bool:
    return is_number(value) and not isinstance(value, complex)


def _scale_type_error(d: int, mode: str, antialias: bool, position: int,
                      value) -> TypeError:
    """The kernel parser's error for a scale factor that is not a real number (where the
    kernel gets the scales: not in area mode, nor with recompute_scale_factor)."""
    kernel = _kernel_name(d, mode, antialias)
    return TypeError(f"{kernel}(): argument 'scale_factors' must be tuple of floats, but found "
                     f"element of type {python_type_name(value)} at pos {position}"
                     "\nHint: scale factors are real numbers.")


def interpolate(input: Tensor, size: int | Sequence[int] | None = None,
                scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize ``input`` ``(N, C, *spatial)`` to ``size``, or by ``scale_factor``.

    ``mode``: ``'nearest'`` (default), ``'nearest-exact'``, ``'linear'`` (3-d input),
    ``'bilinear'`` or ``'bicubic'`` (4-d), ``'trilinear'`` (5-d) or ``'area'`` (adaptive
    average pooling). ``antialias=True`` (bilinear, bicubic, and ``'lanczos'``, which
    needs it; 4-d): when shrinking, each output averages all the inputs it covers (see
    :func:`antialias_map`), as PIL does, instead of sampling a few and aliasing.

    >>> import teachgrad as torch
    >>> image = torch.arange(4.0).reshape(1, 1, 2, 2)
    >>> torch.nn.functional.interpolate(image, scale_factor=2, mode="bilinear")
    tensor([[[[0.0000, 0.2500, 0.7500, 1.0000],
              [0.5000, 0.7500, 1.2500, 1.5000],
              [1.5000, 1.7500, 2.2500, 2.5000],
              [2.0000, 2.2500, 2.7500, 3.0000]]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    d = input.ndim - 2
    out, scales = _spatial(input, d, size, scale_factor, recompute_scale_factor, mode,
                           antialias)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if d not in (1, 2, 3) or mode not in (*_LINEAR, "nearest", "nearest-exact", "area",
                                          "bicubic", "lanczos"):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            f"the modes: {_MODES} (got {mode})"
        )
    if mode in _LINEAR and _LINEAR[mode] != d:
        wanted = {1: "3D", 2: "4D", 3: "5D"}[_LINEAR[mode]]
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {wanted} input")
    if mode in ("bicubic", "lanczos") and d != 2:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            f"the modes: {_MODES} (got {mode})"
        )
    _check_kernel_types(input, d, size, scale_factor, mode, align_corners, antialias,
                        recompute_scale_factor)
    if mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if mode == "area":
        pools = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}
        return pools[d](input, out)
    if any(n <= 0 for n in out) or any(n <= 0 for n in input.shape[2:]):
        names = "DHW"[3 - d:]
        given = ", ".join(f"{k}: {n}" for k, n in zip(names, input.shape[2:]))
        wanted = ", ".join(f"{k}: {n}" for k, n in zip(names, out))
        glue = " and" if d == 1 else ""
        raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                           f"({given}){glue} output ({wanted})")
    if antialias:
        if input._data.dtype not in (np.float32, np.float64):  # (float16 too, as PyTorch)
            raise NotImplementedError(
                f'"compute_index_ranges_weights" not implemented for \'{_type_name(input)}\''
            )
        maps = tuple(antialias_map(n, m, s, align_corners, input._data.dtype, mode)
                     for n, m, s in zip(input.shape[2:], out, scales))
        return _ANTIALIAS_OPS[mode].apply(input, maps=maps)
    if mode == "bicubic":
        if input._data.dtype.kind != "f":
            raise NotImplementedError(
                f'"compute_indices_weights_cubic" not implemented for \'{_type_name(input)}\''
            )
        maps = tuple(cubic_map(n, m, s, align_corners, input._data.dtype)
                     for n, m, s in zip(input.shape[2:], out, scales))
    elif mode in _LINEAR:
        if input._data.dtype.kind != "f":
            raise NotImplementedError(
                f'"upsample_{mode}{d}d" not implemented for \'{_type_name(input)}\''
            )
        maps = tuple(linear_map(n, m, s, align_corners, input._data.dtype)
                     for n, m, s in zip(input.shape[2:], out, scales))
    else:
        maps = tuple(nearest_map(n, m, s, exact=mode == "nearest-exact", shortcuts=d == 2)
                     for n, m, s in zip(input.shape[2:], out, scales))
    result = _OPS[mode, d].apply(input, maps=maps)
    if result._grad_fn is not None:  # what PyTorch's node shows as grad_fn._saved_...
        arguments = {"self_sym_sizes": tuple(input.shape), "output_size": tuple(out),
                     **dict(zip(_scale_names(d), scales))}
        if mode not in ("nearest", "nearest-exact"):
            arguments["align_corners"] = bool(align_corners)
        result._grad_fn.arguments = arguments
    return result


def _scale_names(d: int) -> tuple[str, ...]:
    """PyTorch's names of the upsampling nodes' saved scales: one per axis."""
    return ("scales",) if d == 1 else ("scales_d", "scales_h", "scales_w")[3 - d:]


# PyTorch's grad_fn._saved_<name> of the upsampling nodes (interpolate keeps the values)
for (_mode, _d), _op in _OPS.items():
    _names = ("self_sym_sizes", "output_size", *_scale_names(_d))
    if _mode not in ("nearest", "nearest-exact"):
        _names += ("align_corners",)
    for _name in _names:
        setattr(_op, f"_saved_{_name}",
                property(lambda node, name=_name: node.arguments[name]))


def _type_name(t: Tensor) -> str:
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "float16": "Half"}.get(t._data.dtype.name, t._data.dtype.name)


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated in PyTorch: :func:`interpolate` with a warning."""
    warn_user("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", UserWarning)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated in PyTorch: ``interpolate(mode='nearest')`` with a warning."""
    warn_user("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", UserWarning)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated in PyTorch: ``interpolate(mode='bilinear', align_corners=True)``."""
    warn_user("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", UserWarning)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


__all__ = ["antialias_map", "interpolate", "upsample", "upsample_bilinear", "upsample_nearest"]
