"""The pooling ops: ``MaxPool2DWithIndicesBackward0``, ``AvgPool2DBackward0`` and
``AdaptiveAvgPool2DBackward0``.

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
from .im2col import patches


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


class MaxPool2DWithIndicesBackward0(Op):
    """The largest value of every window; the gradient goes to where it was."""

    formula = "out = max(window)    ∂out/∂x = 1 at the (first) largest element, 0 elsewhere"

    @staticmethod
    def forward(ctx, x, kernel, stride, padding, dilation, extra):
        """``x`` is ``(..., H, W)``; ``extra`` is the padding ceil_mode adds after."""
        *lead, h, w = x.shape
        planes = x.reshape(-1, 1, h, w)
        # Padding must never win the max: fill with the lowest value of the dtype.
        low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        pads = tuple((p, p + e) for p, e in zip(padding, extra))
        windows = patches(planes, kernel, stride, pads, dilation, fill=low)
        out_h, out_w = windows.shape[2:4]
        windows = windows.reshape(planes.shape[0], out_h, out_w, -1)
        which = np.argmax(windows, axis=-1)  # the first largest: PyTorch's choice on ties
        values = np.take_along_axis(windows, which[..., None], axis=-1)[..., 0]
        # Where that element sits in its H·W plane (PyTorch's ``indices``).
        ki, kj = np.divmod(which, kernel[1])
        rows = np.arange(out_h)[:, None] * stride[0] + ki * dilation[0] - padding[0]
        cols = np.arange(out_w)[None, :] * stride[1] + kj * dilation[1] - padding[1]
        indices = (rows * w + cols).astype(np.int64)
        ctx.plane_shape = (planes.shape[0], h * w)
        ctx.input_shape = x.shape
        ctx.indices = indices.reshape(planes.shape[0], -1)
        shape = (*lead, out_h, out_w)
        return values.reshape(shape), indices.reshape(shape)

    @staticmethod
    def backward(ctx, grad, grad_indices):
        planes = ctx.indices.shape[0]
        key = (np.arange(planes)[:, None], ctx.indices)
        # Scatter-add into zeros (windows can overlap: one element may win twice).
        flat = embed(grad.reshape(planes, -1), ctx.plane_shape, key, IndexPutImplBackward0)
        return flat.reshape(ctx.input_shape)


__all__ = [
    "AdaptiveAvgPool2DBackward0", "AvgPool2DBackward0", "MaxPool2DWithIndicesBackward0",
    "adaptive_matrix", "average_matrix",
]
