"""The pooling ops: ``MaxPool2DWithIndicesBackward0``, ``AdaptiveMaxPool2DBackward0``,
``AvgPool2DBackward0`` and ``AdaptiveAvgPool2DBackward0``, and their 3-d namesakes (the
same ops over one more axis).

*Max pooling* keeps the largest value of every window. Its gradient goes to that one
element (the first one, if several tie), nothing to the others; the position is kept as
an index into each ``H·W`` plane, the ``indices`` PyTorch returns with
``return_indices=True``.

*Average pooling* is linear and *separable*: averaging a window of rows and columns is
averaging over the rows, then over the columns. Along one axis, output ``o`` reads the
positions of its window, each with weight ``1/count`` (:func:`average_map`): one of the
per-axis maps of :mod:`teachgrad.nn.axis_maps`, whose ops give the backward (each
window's ``grad/count`` back to its cells) and gradients of any order. Padding is a hole
in the window, read as nothing; adaptive pooling only has other windows. Each output reads
only its own window, so an ``inf`` or ``nan`` stays in the windows that hold it.

>>> import numpy as np
>>> rows = average_map(window_positions(4, 2, kernel=2, stride=2, pad=0), np.array([2, 2]), 4)
>>> rows.index, rows.weights                            # windows {0, 1} and {2, 3}
(array([[0, 1],
       [2, 3]]), array([[0.5, 0.5],
       [0.5, 0.5]]))
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .._tensor import Tensor, _make
from ..autograd import graph
from ..ops.index import IndexPutImplBackward0
from ..ops.op import Op
from ..ops.shape import embed
from .axis_maps import AxisMap, GatherOp, op_pair


def window_divisors(size: int, out: int, kernel: int, stride: int, pad: int,
                    count_include_pad: bool = True) -> np.ndarray:
    """``(out,)``: what each window's mean divides by along one axis.

    As PyTorch, the window is clipped to the padded line; the divisor counts the padding
    it covers (``count_include_pad=True``) or only the real values.

    >>> window_divisors(5, 3, kernel=2, stride=2, pad=1)        # windows {-1, 0}, {1, 2}, {3, 4}
    array([2, 2, 2])
    >>> window_divisors(5, 3, kernel=2, stride=2, pad=1, count_include_pad=False)
    array([1, 2, 2])
    """
    starts = np.arange(out) * stride - pad
    ends = np.minimum(starts + kernel, size + pad)
    if not count_include_pad:
        starts, ends = np.maximum(starts, 0), np.minimum(ends, size)
    return ends - starts


def adaptive_bins(size: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's adaptive bins ``[⌊o·size/out⌋, ⌈(o+1)·size/out⌉)`` along one axis: their
    positions ``(out, longest bin)``, ``-1`` after a shorter bin's end, and their lengths.

    >>> adaptive_bins(5, 3)                  # bins {0, 1}, {1, 2, 3}, {3, 4}
    (array([[ 0,  1, -1],
           [ 1,  2,  3],
           [ 3,  4, -1]]), array([2, 3, 2]))
    """
    starts = (np.arange(out) * size) // out
    ends = -((-(np.arange(out) + 1) * size) // out)  # ceil((o + 1) * size / out)
    longest = int((ends - starts).max()) if out else 0
    positions = starts[:, None] + np.arange(longest)[None, :]
    return np.where(positions < ends[:, None], positions, -1), ends - starts


def average_map(positions: np.ndarray, divisors: np.ndarray, size: int) -> AxisMap:
    """Along one axis, output ``o`` is ``Σ x[positions[o]] / divisors[o]`` (``-1``:
    padding, read as nothing)."""
    weights = np.where(positions >= 0, 1.0 / divisors[:, None], 0.0)
    return AxisMap(index=positions, weights=weights, size=size)


@lru_cache(maxsize=256)
def window_average_map(size: int, out: int, kernel: int, stride: int, pad: int,
                       count_include_pad: bool = True, divisor: int | None = None) -> AxisMap:
    """The map of average pooling's windows along one axis; ``divisor`` (if given) replaces
    every window's count. Kept once made: a network pools the same shapes at every step."""
    divisors = (window_divisors(size, out, kernel, stride, pad, count_include_pad)
                if divisor is None else np.full(out, divisor))
    return average_map(window_positions(size, out, kernel, stride, pad), divisors, size)


@lru_cache(maxsize=256)
def adaptive_average_map(size: int, out: int) -> AxisMap:
    """The map of adaptive average pooling's bins along one axis."""
    return average_map(*adaptive_bins(size, out), size)


_AVERAGE_FORMULA = ("out = Σ window / count (along the rows, then the columns)    "
                    "∂L/∂x[i] = Σ over the windows that hold i of grad/count")
AvgPool2DBackward0, AvgPool2DBackwardBackward0 = op_pair(
    "AvgPool2D", _AVERAGE_FORMULA, backward_takes_input=True)
AvgPool3DBackward0, AvgPool3DBackwardBackward0 = op_pair(
    "AvgPool3D", _AVERAGE_FORMULA, backward_takes_input=True)



def refuse_an_empty_gradient(kernel: str, grad) -> None:
    """PyTorch's adaptive pooling backward kernels refuse a gradient with an empty dim
    other than the first (an output size of 0, or no channels): the forward gives an empty
    result, its backward fails, in these words."""
    shape = tuple(grad.shape)
    for dim in range(1, len(shape)):
        if shape[dim] == 0:
            sizes = "[" + ", ".join(str(n) for n in shape) + "]"
            raise RuntimeError(
                f"{kernel}(): Expected grad_output to have non-zero size for non-batch "
                f"dimensions, but grad_output has sizes {sizes} with dimension {dim} being empty"
            )


def _adaptive_average_pair(d: int) -> tuple[type, type]:
    """Adaptive average pooling's two nodes; its backward first refuses an empty gradient."""
    gather_op, scatter_op = op_pair(f"AdaptiveAvgPool{d}D", _AVERAGE_FORMULA.replace(
        "window", "bin"), backward_takes_input=True)
    kernel = f"adaptive_avg_pool{d}d_backward"

    def backward(ctx, grad):
        refuse_an_empty_gradient(kernel, grad)
        return GatherOp.backward(ctx, grad)

    gather_op.backward = staticmethod(backward)
    return gather_op, scatter_op


AdaptiveAvgPool2DBackward0, AdaptiveAvgPool2DBackwardBackward0 = _adaptive_average_pair(2)
AdaptiveAvgPool3DBackward0, AdaptiveAvgPool3DBackwardBackward0 = _adaptive_average_pair(3)


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


def _along(axis: int, d: int, window: np.ndarray) -> np.ndarray:
    """A window table shaped to broadcast over ``(P, *out, *kernel)``: its output axis on
    output axis ``axis``, its kernel axis on kernel axis ``axis``, and its plane axis (a
    ``(P, out, k)`` table: one window per plane, as fractional pooling has) on ``P``."""
    shape = [1] * (1 + 2 * d)
    shape[1 + axis], shape[1 + d + axis] = window.shape[-2:]
    if window.ndim == 3:
        shape[0] = window.shape[0]
    return window.reshape(shape)


class _MaxPoolOp(Op):
    """The largest value of every window; the gradient goes to where it was.

    A window is given by the input positions it covers along each pooled axis
    (``windows[i]`` is ``(out_i, k_i)``: see :func:`window_positions` and
    :func:`adaptive_positions`), so regular and adaptive max pooling, in 1, 2 or 3
    dimensions, are one op under PyTorch's different names.
    """

    formula = "out = max(window)    ∂out/∂x = 1 at the (first) largest element, 0 elsewhere"
    saved_names = ("self",)  # grad_fn._saved_self; result1: the indices it returned
    #: the node recording its backward under create_graph (None: the 2-d max pooling's)
    double_backward = None
    saved_attributes = {"result1": lambda node: _max_indices(node)}

    @staticmethod
    def forward(ctx, x, windows):
        """``x`` is ``(..., *spatial)``; ``windows`` one ``(out, kernel)`` array per pooled axis."""
        d = len(windows)
        lead, spatial = x.shape[:-d], x.shape[-d:]
        planes = x.reshape(-1, *spatial)
        # Position -1 (padding) reads one extra row (column, slice) of the lowest value of
        # the dtype, so that padding never wins the max.
        low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        planes = np.pad(planes, ((0, 0),) + ((0, 1),) * d, constant_values=low)
        outs = tuple(w.shape[-2] for w in windows)
        kernels = tuple(w.shape[-1] for w in windows)
        ctx.plane_shape = (planes.shape[0], math.prod(spatial))
        ctx.input_shape = x.shape
        ctx.outs, ctx.dtype = tuple(w.shape[-2] for w in windows), x.dtype
        shape = (*lead, *outs)
        if math.prod(outs) == 0 or planes.shape[0] == 0:  # an empty output (adaptive
            # pooling to size 0, or an empty batch)
            ctx.indices = np.zeros((planes.shape[0], math.prod(outs)), np.int64)
            ctx.constant = None
            return np.zeros(shape, x.dtype), np.zeros(shape, np.int64)
        # (P, *out, *kernel): every window's values, by fancy indexing along each axis.
        plane = np.arange(planes.shape[0]).reshape(-1, *[1] * (2 * d))
        picks = tuple(_along(i, d, w) for i, w in enumerate(windows))
        values = planes[(plane, *picks)].reshape(planes.shape[0], *outs, -1)
        which = np.argmax(values, axis=-1)  # the first largest: PyTorch's choice on ties
        if x.dtype.kind == "f":
            # PyTorch's loop keeps replacing its answer with every nan it meets: the last one.
            nan = np.isnan(values)
            has_nan = nan.any(axis=-1)
            if has_nan.any():
                last = values.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
                which = np.where(has_nan, last, which)
        best = np.take_along_axis(values, which[..., None], axis=-1)[..., 0]
        # Where that element sits in its plane (PyTorch's ``indices``): row-major position.
        offsets = np.unravel_index(which, kernels)
        indices = np.zeros(which.shape, np.int64)
        padding_won = np.zeros(which.shape, bool)
        for i, (w, offset) in enumerate(zip(windows, offsets)):
            out_index = np.arange(outs[i]).reshape([1] + [-1 if a == i else 1 for a in range(d)])
            rows = (plane.reshape(-1, *[1] * d), out_index) if w.ndim == 3 else (out_index,)
            position = w[(*rows, offset)]
            # Where the padding's -inf won (a window of -inf values, or a dilated window
            # wholly in the padding), PyTorch's index is the window's first position inside
            # the input along that axis (0 here when it has none: a window of padding only).
            real = w >= 0
            first = np.maximum(np.take_along_axis(w, np.argmax(real, axis=-1)[..., None],
                                                  axis=-1)[..., 0], 0)
            padding_won |= ~real.any(axis=-1)[rows]
            indices = indices * spatial[i] + np.where(position < 0, first[rows], position)
        ctx.indices = indices.reshape(planes.shape[0], -1)
        # A window of padding only gives a constant: no gradient flows from it.
        ctx.constant = padding_won.reshape(planes.shape[0], -1) if padding_won.any() else None
        ctx.save_for_backward(x)  # (as PyTorch: the double backward's edge to the input)
        return best.reshape(shape), indices.reshape(shape)

    @staticmethod
    def backward(ctx, grad, grad_indices):
        if isinstance(grad, Tensor):  # create_graph: record PyTorch's node, edges and all
            (x,) = ctx.saved_tensors
            double = type(ctx).double_backward or MaxPool2DWithIndicesBackwardBackward0
            return double.apply(grad, x, pool=ctx)
        return _scatter_to_winners(ctx, grad)


def _scatter_to_winners(pool: Op, grad: np.ndarray) -> np.ndarray:
    """Each output's gradient, added at the input position that won its window."""
    planes = pool.indices.shape[0]
    if pool.constant is not None:
        grad = grad * ~pool.constant.reshape(grad.shape)
    key = (np.arange(planes)[:, None], pool.indices)
    # Scatter-add into zeros (windows can overlap: one element may win twice).
    per_plane = pool.indices.shape[1]  # (written out: -1 fails for an empty batch)
    flat = embed(grad.reshape(planes, per_plane), pool.plane_shape, key, IndexPutImplBackward0)
    return flat.reshape(pool.input_shape)


class MaxPool2DWithIndicesBackwardBackward0(Op):
    """Max pooling's backward, recorded under ``create_graph`` as PyTorch records it.

    It is linear in the output's gradient: differentiating it again *gathers* the incoming
    gradient at the winning positions. Its edge to the pooled input carries zeros (which
    element wins does not change when the input moves a little), so a second derivative
    with respect to the input is 0, not an error.
    """

    formula = "∂(scatter to winners)/∂grad = gather at winners    ∂/∂x = 0"

    @staticmethod
    def forward(ctx, grad, x, pool):
        ctx.pool = pool
        return _scatter_to_winners(pool, grad)

    @staticmethod
    def backward(ctx, gg):
        pool = ctx.pool
        planes = pool.indices.shape[0]
        gathered = gg.reshape(planes, -1)[np.arange(planes)[:, None], pool.indices]
        if pool.constant is not None:
            gathered = gathered * ~pool.constant
        out_shape = (*pool.input_shape[: len(pool.input_shape) - len(pool.outs)], *pool.outs)
        zeros = np.zeros(pool.input_shape, dtype=pool.dtype)
        return gathered.reshape(out_shape), zeros


def _max_indices(node) -> Tensor:
    """Max pooling's ``grad_fn._saved_result1``: the indices output (each largest element's
    position within its plane)."""
    lead = node.input_shape[: len(node.input_shape) - len(node.outs)]
    return _make(node.indices.reshape(*lead, *node.outs))


def _pooling_arguments(*names: str) -> dict:
    """``saved_attributes`` reading the pooling's arguments as PyTorch's node saves them
    (kept on the node by the pooling function: see pooling.note_arguments)."""
    return {name: (lambda node, name=name: node.arguments[name]) for name in names}


class MaxPool2DWithIndicesBackward0(_MaxPoolOp):
    """Max pooling over windows of ``kernel_size`` (PyTorch's node for 1-d and 2-d)."""

    saved_attributes = _pooling_arguments("kernel_size", "stride", "padding", "dilation",
                                          "ceil_mode")


class AdaptiveMaxPool2DBackward0(_MaxPoolOp):
    """Max pooling into a fixed output size: the same op, with adaptive windows."""

    @classmethod
    def backward(cls, ctx, grad, grad_indices):
        refuse_an_empty_gradient(cls.kernel, grad)
        return _MaxPoolOp.backward(ctx, grad, grad_indices)

    kernel = "adaptive_max_pool2d_backward"


class MaxPool3DWithIndicesBackward0(MaxPool2DWithIndicesBackward0):
    """3-d max pooling: the same op over three axes."""


class AdaptiveMaxPool3DBackward0(AdaptiveMaxPool2DBackward0):
    """3-d adaptive max pooling: the same op over three axes, with adaptive windows."""

    kernel = "adaptive_max_pool3d_backward"


class FractionalMaxPool2DBackward0(_MaxPoolOp):
    """Fractional max pooling: the same op, with pseudo-random windows per plane."""


class FractionalMaxPool3DBackward0(_MaxPoolOp):
    """3-d fractional max pooling."""


class MaxPool3DWithIndicesBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    """3-d max pooling's backward under ``create_graph`` (PyTorch names it per op)."""


class AdaptiveMaxPool2DBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    """Adaptive max pooling's backward under ``create_graph``."""


class AdaptiveMaxPool3DBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    """3-d adaptive max pooling's backward under ``create_graph``."""


class FractionalMaxPool2DBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    """Fractional max pooling's backward under ``create_graph``."""


class FractionalMaxPool3DBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    """3-d fractional max pooling's backward under ``create_graph``."""


MaxPool3DWithIndicesBackward0.double_backward = MaxPool3DWithIndicesBackwardBackward0
AdaptiveMaxPool2DBackward0.double_backward = AdaptiveMaxPool2DBackwardBackward0
AdaptiveMaxPool3DBackward0.double_backward = AdaptiveMaxPool3DBackwardBackward0
FractionalMaxPool2DBackward0.double_backward = FractionalMaxPool2DBackwardBackward0
FractionalMaxPool3DBackward0.double_backward = FractionalMaxPool3DBackwardBackward0


def fractional_positions(samples: np.ndarray, size: int, out: int, kernel: int) -> np.ndarray:
    """``(P, out, kernel)``: the windows of fractional max pooling along one axis, one row
    of starts per plane from its sample ``u`` in ``[0, 1)`` (PyTorch's arithmetic, in the
    samples' dtype): start ``i`` is ``⌊(i + u)·α⌋ - ⌊u·α⌋`` with ``α = (size - k)/(out - 1)``,
    and the last window ends at the input's end.

    >>> fractional_positions(np.array([0.5]), 7, 3, 2)[0, :, 0]      # α = 2.5
    array([0, 2, 5])
    """
    dtype = samples.dtype.type
    starts = np.zeros((len(samples), out), np.int64)
    if out > 1:
        alpha = dtype(size - kernel) / dtype(out - 1)
        i = np.arange(out - 1).astype(samples.dtype)
        starts[:, :-1] = ((i[None, :] + samples[:, None]) * alpha).astype(np.int64) - (
            samples[:, None] * alpha).astype(np.int64)
    if out > 0:
        starts[:, -1] = size - kernel
    return starts[:, :, None] + np.arange(kernel)


__all__ = [
    "AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool2DBackwardBackward0",
    "AdaptiveAvgPool3DBackward0", "AdaptiveAvgPool3DBackwardBackward0",
    "AdaptiveMaxPool2DBackward0", "AdaptiveMaxPool3DBackward0", "AvgPool2DBackward0",
    "AvgPool2DBackwardBackward0", "AvgPool3DBackward0", "AvgPool3DBackwardBackward0",
    "FractionalMaxPool2DBackward0", "FractionalMaxPool3DBackward0",
    "MaxPool2DWithIndicesBackward0", "MaxPool3DWithIndicesBackward0", "adaptive_average_map",
    "adaptive_bins", "adaptive_positions", "fractional_positions",
    "average_map", "window_average_map", "window_divisors", "window_positions",
]


def _name_saved(op: type, **attributes) -> None:
    """Give a node class made by op_pair PyTorch's ``grad_fn._saved_self`` (the input it
    saved) and ``_saved_<name>`` for ``attributes`` (as Op.__init_subclass__ does)."""
    op._saved_self = property(lambda node: graph.saved_value(node, 0))
    for name, read in attributes.items():
        setattr(op, f"_saved_{name}", property(read))


for _op in (AvgPool2DBackward0, AvgPool3DBackward0):
    _name_saved(_op, **_pooling_arguments("kernel_size", "stride", "padding", "ceil_mode",
                                          "count_include_pad", "divisor_override"))
_name_saved(AdaptiveAvgPool2DBackward0)
_name_saved(AdaptiveAvgPool3DBackward0)
