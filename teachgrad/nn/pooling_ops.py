"""The pooling ops: ``MaxPool2DWithIndicesBackward0``, ``AdaptiveMaxPool2DBackward0``,
``AvgPool2DBackward0`` and ``AdaptiveAvgPool2DBackward0``.

*Max pooling* keeps the largest value of every window. Its gradient goes to that one
element (the first one, if several tie), nothing to the others; the position is kept as
an index into each ``H·W`` plane, the ``indices`` PyTorch returns with
``return_indices=True``.

*Average pooling* is linear and *separable*: averaging a window of rows and columns is
averaging over the rows, then over the columns. So it is two matrix products,
``out = R @ x @ Cᵀ``, where row ``i`` of ``R`` holds ``1/count`` on the input rows that
window ``i`` covers (padding simply has no column in ``R``). The backward is the
transposed products, ``∂L/∂x = Rᵀ @ g @ C``; adaptive pooling only builds other matrices.

>>> import numpy as np
>>> average_matrix(4, 2, kernel=2, stride=2, pad=0)      # windows {0, 1} and {2, 3}
array([[0.5, 0.5, 0. , 0. ],
       [0. , 0. , 0.5, 0.5]])
"""

from __future__ import annotations

import math

import numpy as np

from ..ops.index import IndexPutImplBackward0
from ..ops.op import Op
from ..ops.shape import embed


def average_matrix(size: int, out: int, kernel: int, stride: int, pad: int,
                   count_include_pad: bool = True, dtype=np.float64) -> np.ndarray:
    """``(out, size)``: row ``o`` averages window ``o`` of a padded line of ``size`` values.

    As PyTorch, the window is clipped to the padded line; the divisor counts the padding
    it covers (``count_include_pad=True``) or only the real values.
    """
    matrix = np.zeros((out, size), dtype)
    for o in range(out):
        start = o * stride - pad
        end = min(start + kernel, size + pad)
        real_start, real_end = max(start, 0), min(end, size)
        count = end - start if count_include_pad else real_end - real_start
        matrix[o, real_start:real_end] = 1.0 / count
    return matrix


def adaptive_matrix(size: int, out: int, dtype=np.float64) -> np.ndarray:
    """``(out, size)``: PyTorch's adaptive bins, ``[⌊o·size/out⌋, ⌈(o+1)·size/out⌉)``."""
    matrix = np.zeros((out, size), dtype)
    for o in range(out):
        start, end = (o * size) // out, math.ceil((o + 1) * size / out)
        matrix[o, start:end] = 1.0 / (end - start)
    return matrix


class AvgPool2DBackward0(Op):
    """``out = R @ x @ Cᵀ``: the mean of every window (see the module docstring)."""

    formula = "out = R·x·Cᵀ (window means)    ∂L/∂x = Rᵀ·g·C: each window's grad/count to its cells"

    @staticmethod
    def forward(ctx, x, rows, cols):
        ctx.rows, ctx.cols = rows, cols
        out = rows @ x.astype(rows.dtype, copy=False) @ cols.T
        return out.astype(x.dtype, copy=False)  # integer input: truncated, as in PyTorch

    @staticmethod
    def backward(ctx, grad):
        return ctx.rows.T @ grad @ ctx.cols


class AdaptiveAvgPool2DBackward0(AvgPool2DBackward0):
    """Average pooling to a fixed output size: the same products, other bins."""

    formula = "out = R·x·Cᵀ (bin means)    ∂L/∂x = Rᵀ·g·C: each bin's grad/count to its cells"


def window_positions(size: int, out: int, kernel: int, stride: int, pad: int,
                     dilation: int = 1) -> np.ndarray:
    """``(out, kernel)``: the input positions window ``o`` covers along one dimension.

    ``-1`` marks padding (and, with ``ceil_mode``, a last window reaching past the end).

    >>> window_positions(5, 3, kernel=2, stride=2, pad=1)
    array([[-1,  0],
           [ 1,  2],
           [ 3,  4]])
    """
    positions = (np.arange(out)[:, None] * stride + np.arange(kernel)[None, :] * dilation
                 - pad)
    return np.where((positions >= 0) & (positions < size), positions, -1)


def adaptive_positions(size: int, out: int) -> np.ndarray:
    """``(out, longest bin)``: PyTorch's adaptive bins ``[⌊o·size/out⌋, ⌈(o+1)·size/out⌉)``.

    A shorter bin repeats its last position (harmless for a maximum).

    >>> adaptive_positions(5, 3)          # bins {0, 1}, {1, 2, 3}, {3, 4}
    array([[0, 1, 1],
           [1, 2, 3],
           [3, 4, 4]])
    """
    starts = (np.arange(out) * size) // out
    ends = -((-(np.arange(out) + 1) * size) // out)  # ceil((o + 1) * size / out)
    longest = int((ends - starts).max()) if out else 0
    return np.minimum(starts[:, None] + np.arange(longest)[None, :], ends[:, None] - 1)


class MaxPool2DWithIndicesBackward0(Op):
    """The largest value of every window; the gradient goes to where it was.

    A window is given by the input rows and columns it covers (``rows[i]``, ``cols[j]``:
    see :func:`window_positions` and :func:`adaptive_positions`), so regular and adaptive
    max pooling are one op.
    """

    formula = "out = max(window)    ∂out/∂x = 1 at the (first) largest element, 0 elsewhere"

    @staticmethod
    def forward(ctx, x, rows, cols):
        """``x`` is ``(..., H, W)``; ``rows`` ``(H_out, kH)`` and ``cols`` ``(W_out, kW)``."""
        *lead, h, w = x.shape
        planes = x.reshape(-1, h, w)
        # Position -1 (padding) reads one extra row and column of the lowest value of the
        # dtype, so that padding never wins the max.
        low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        planes = np.pad(planes, ((0, 0), (0, 1), (0, 1)), constant_values=low)
        out_h, out_w = len(rows), len(cols)
        ctx.plane_shape = (planes.shape[0], h * w)
        ctx.input_shape = x.shape
        shape = (*lead, out_h, out_w)
        if out_h * out_w == 0:  # an empty output (adaptive pooling to size 0)
            ctx.indices = np.zeros((planes.shape[0], 0), np.int64)
            return np.zeros(shape, x.dtype), np.zeros(shape, np.int64)
        windows = planes[:, rows[:, None, :, None], cols[None, :, None, :]]  # (P, oh, ow, kh, kw)
        windows = windows.reshape(planes.shape[0], out_h, out_w, -1)
        which = np.argmax(windows, axis=-1)  # the first largest: PyTorch's choice on ties
        if x.dtype.kind == "f":
            # PyTorch's loop keeps replacing its answer with every nan it meets: the last one.
            nan = np.isnan(windows)
            has_nan = nan.any(axis=-1)
            if has_nan.any():
                last = windows.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
                which = np.where(has_nan, last, which)
        values = np.take_along_axis(windows, which[..., None], axis=-1)[..., 0]
        # Where that element sits in its H·W plane (PyTorch's ``indices``).
        ki, kj = np.divmod(which, cols.shape[1])
        indices = (rows[np.arange(out_h)[:, None], ki] * w
                   + cols[np.arange(out_w)[None, :], kj]).astype(np.int64)
        ctx.indices = indices.reshape(planes.shape[0], -1)
        return values.reshape(shape), indices.reshape(shape)

    @staticmethod
    def backward(ctx, grad, grad_indices):
        planes = ctx.indices.shape[0]
        key = (np.arange(planes)[:, None], ctx.indices)
        # Scatter-add into zeros (windows can overlap: one element may win twice).
        flat = embed(grad.reshape(planes, -1), ctx.plane_shape, key, IndexPutImplBackward0)
        return flat.reshape(ctx.input_shape)


class AdaptiveMaxPool2DBackward0(MaxPool2DWithIndicesBackward0):
    """Max pooling into a fixed output size: the same op, with adaptive windows."""


__all__ = [
    "AdaptiveAvgPool2DBackward0", "AdaptiveMaxPool2DBackward0", "AvgPool2DBackward0",
    "MaxPool2DWithIndicesBackward0", "adaptive_matrix", "adaptive_positions", "average_matrix",
    "window_positions",
]
