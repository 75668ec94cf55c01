"""Maps that work along each axis separately: reflection and replication padding, nearest
and (bi)linear interpolation, average pooling.

All of these compute an output value from a few input values, and they do it *one axis at
a time*: along an axis, output position ``o`` reads the input positions ``index[o, t]``
and adds them up with the weights ``weights[o, t]`` (``t`` counts the "taps"). Reflection
padding of ``[a, b, c]`` by one on each side reads positions ``[1, 0, 1, 2, 1]``; linear
interpolation reads two neighbours and weighs them by how close they are; average pooling
reads the positions of its window, each with weight ``1/count``. A 2-d map is the 1-d map
along the rows, then along the columns.

Position ``-1`` is a *hole*: that tap reads nothing (padding inside an average window, or
a window shorter than the longest). Every output touches only the positions it reads, so
an ``inf`` or ``nan`` stays in the outputs whose window holds it (``0 · inf`` would be
``nan``: never multiplying a value by a zero weight is the whole point).

Such a map is linear in the input, so its gradient is its *adjoint*: every output's
gradient goes back, times the same weight, to the positions it read (where several outputs
read one position, their gradients add up). The adjoint is itself a map of this kind, read
from the same table the other way round (:attr:`AxisMap.adjoint`: input position ``i``
reads the outputs that read ``i``), so the backward is a gather too; where a tap reads
evenly spaced positions (pooling windows), its values simply go back into that slice. And
the adjoint of the adjoint is the map again, so the two ops below are each other's
backward: gradients of any order.

>>> import numpy as np
>>> reflect = AxisMap(index=np.array([[1], [0], [1], [2], [1]]), weights=None, size=3)
>>> gather(np.array([10.0, 20.0, 30.0]), (reflect,))
array([20., 10., 20., 30., 20.])
>>> scatter(np.ones(5), (reflect,))          # position 1 was read three times
array([1., 3., 1.])
>>> mean_of_pairs = AxisMap(index=np.array([[-1, 0], [1, 2]]),   # pad 1, windows of 2
...                         weights=np.array([[0.0, 0.5], [0.5, 0.5]]), size=3)
>>> gather(np.array([np.inf, 1.0, 1.0]), (mean_of_pairs,))       # no nan next to the inf
array([inf,  1.])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._tensor import Tensor
from ..ops.op import NO_CONTEXT, Op


@dataclass(frozen=True, eq=False)
class AxisMap:
    """Along one axis, output position ``o`` is ``Σ_t weights[o, t] · input[index[o, t]]``.

    ``weights=None`` means one tap of weight 1: a plain copy (padding, nearest neighbour),
    which keeps the values exact whatever their dtype (integers, ``inf``, ``nan``).
    ``index[o, t] = -1`` is a hole: that tap adds nothing.
    """

    index: np.ndarray          # (out, taps) input positions, -1 for a hole
    weights: np.ndarray | None  # (out, taps), or None: copy index[:, 0]
    size: int                  # the input's length along the axis

    @property
    def columns(self) -> np.ndarray:
        """``(out, taps)``: the positions the taps really read (a copy reads tap 0 only)."""
        return self.index[:, :1] if self.weights is None else self.index

    @cached_property
    def adjoint(self) -> AxisMap:
        """The transposed map: input position ``i`` reads back every output that read it,
        with the same weight (``-1`` fills the rows of positions read fewer times).

        >>> means = AxisMap(index=np.array([[0, 1], [1, 2]]), weights=np.full((2, 2), 0.5),
        ...                 size=3)             # output 0 = mean(x0, x1), 1 = mean(x1, x2)
        >>> means.adjoint.index                  # 0 was read by output 0, 1 by both ...
        array([[ 0, -1],
               [ 0,  1],
               [ 1, -1]])
        >>> means.adjoint.weights
        array([[0.5, 0. ],
               [0.5, 0.5],
               [0.5, 0. ]])
        """
        read = self.columns
        outputs = len(read)
        weights = np.ones(read.shape) if self.weights is None else self.weights
        by = np.broadcast_to(np.arange(outputs)[:, None], read.shape)  # which output reads
        real = read >= 0
        read, by, weights = read[real], by[real], weights[real]
        order = np.argsort(read, kind="stable")
        read, by, weights = read[order], by[order], weights[order]
        counts = np.bincount(read, minlength=self.size)
        # Where each entry goes in its position's row: 0, 1, ... within a run of equal reads.
        slot = np.arange(len(read)) - np.repeat(np.cumsum(counts) - counts, counts)
        width = int(counts.max()) if len(read) else 0
        index = np.full((self.size, max(width, 1)), -1, np.int64)
        index[read, slot] = by
        if self.weights is None and width <= 1:  # read at most once: still a plain copy
            return AxisMap(index=index, weights=None, size=outputs)
        table = np.zeros((self.size, width), weights.dtype)
        table[read, slot] = weights
        return AxisMap(index=index[:, :width], weights=table, size=outputs)

    @cached_property
    def shared_weights(self) -> np.ndarray | None:
        """``(out,)``: when every output gives all the positions it reads one weight (a
        mean: ``1/count``), those weights; else ``None``."""
        if self.weights is None or self.weights.shape[1] == 0:
            return None
        real = self.index >= 0
        first = self.weights[np.arange(len(self.index)), real.argmax(axis=1)]
        alike = np.where(real, self.weights == first[:, None], True).all()
        return first if alike else None

    @cached_property
    def runs(self) -> tuple[tuple[int, int, slice] | None, ...]:
        """For each tap, when the positions it reads are one evenly spaced run (a pooling
        window's tap: holes only before and after it), the outputs it fills and the input
        slice it reads; else ``None``. A slice is much faster than a list of positions.

        >>> AxisMap(index=np.array([[-1, 0], [1, 2], [3, 4]]), weights=None, size=5).runs
        ((1, 3, slice(1, 4, 2)),)
        """
        return tuple(_evenly_spaced_run(column) for column in self.columns.T)


def _axis(ndim: int, maps: tuple[AxisMap, ...], i: int) -> int:
    """The maps act on the last ``len(maps)`` axes: map ``i`` on this one."""
    return ndim - len(maps) + i


def _evenly_spaced_run(positions: np.ndarray) -> tuple[int, int, slice] | None:
    real = np.flatnonzero(positions >= 0)
    if len(real) == 0 or real[-1] + 1 - real[0] != len(real):
        return None
    run = positions[real[0]:real[-1] + 1]
    step = int(run[1] - run[0]) if len(run) > 1 else 1
    if step <= 0 or (np.diff(run) != step).any():
        return None
    return int(real[0]), int(real[-1]) + 1, slice(int(run[0]), int(run[-1]) + 1, step)


def _read(x: np.ndarray, positions: np.ndarray, run, axis: int) -> np.ndarray:
    """``x`` at ``positions`` along ``axis``, zero where a position is -1 (``run``: see
    :attr:`AxisMap.runs`). May be a view of ``x``: never write to it."""
    before = (slice(None),) * axis
    if run is not None:
        first, end, source = run
        if first == 0 and end == len(positions):
            return x[before + (source,)]
        shape = list(x.shape)
        shape[axis] = len(positions)
        picked = np.zeros(shape, x.dtype)
        picked[before + (slice(first, end),)] = x[before + (source,)]
        return picked
    if x.shape[axis] == 0:  # nothing to read (an empty output's gradient): all holes
        shape = list(x.shape)
        shape[axis] = len(positions)
        return np.zeros(shape, x.dtype)
    picked = np.take(x, positions, axis=axis)  # -1 reads the last position: zeroed below
    holes = positions < 0
    if holes.any():
        picked[before + (holes,)] = 0
    return picked


def _weights(weights: np.ndarray, x: np.ndarray, axis: int) -> np.ndarray:
    """One weight per position along ``axis``, shaped to broadcast over ``x``'s other axes."""
    column = [1] * x.ndim
    column[axis] = -1
    return weights.astype(x.dtype, copy=False).reshape(column)


def _gather_axis(x: np.ndarray, m: AxisMap, axis: int) -> np.ndarray:
    """One tap at a time: read the tap's positions, scale them by its weights, add up.
    (When every output weighs what it reads alike, as a mean does, add first, scale once.)"""
    if m.weights is None:
        return _read(x, m.index[:, 0], m.runs[0], axis)
    shared = m.shared_weights
    total = None
    for t, run in enumerate(m.runs):
        term = _read(x, m.index[:, t], run, axis)
        if shared is None:
            term = term * _weights(m.weights[:, t], x, axis)
        if total is None:
            total = term
        elif t == 1:
            total = total + term  # a new array: ``total`` may be a view of ``x``
        else:
            total += term
    if total is None:  # no taps at all (an empty output, or an input nobody reads)
        shape = list(x.shape)
        shape[axis] = len(m.index)
        return np.zeros(shape, x.dtype)
    if shared is None:
        return total
    if len(m.runs) == 1:
        return total * _weights(shared, x, axis)  # ``total`` may be a view of ``x``
    total *= _weights(shared, x, axis)
    return total


def _scatter_axis(grad: np.ndarray, m: AxisMap, axis: int) -> np.ndarray:
    """The adjoint of :func:`_gather_axis`: when every tap reads an evenly spaced run, add
    each tap's values back into its slice; otherwise gather with the adjoint map."""
    if any(run is None for run in m.runs):
        return _gather_axis(grad, m.adjoint, axis)
    before = (slice(None),) * axis
    shape = list(grad.shape)
    shape[axis] = m.size
    out = np.zeros(shape, grad.dtype)
    shared = m.shared_weights
    if shared is not None:
        grad = grad * _weights(shared, grad, axis)
    for t, (first, end, source) in enumerate(m.runs):
        values = grad[before + (slice(first, end),)]
        if m.weights is not None and shared is None:
            values = values * _weights(m.weights[first:end, t], values, axis)
        out[before + (source,)] += values  # a run never repeats a position
    return out


def gather(x: np.ndarray, maps: tuple[AxisMap, ...]) -> np.ndarray:
    """Apply each map along its axis (the last ``len(maps)`` axes of ``x``)."""
    original = x
    with np.errstate(invalid="ignore"):  # inf - inf is nan, silently, as in PyTorch
        for i, m in enumerate(maps):
            x = _gather_axis(x, m, _axis(x.ndim, maps, i))
    # A copy that is only a slice would share the input's memory: the output must not.
    return x.copy() if np.may_share_memory(x, original) else x


def scatter(grad: np.ndarray, maps: tuple[AxisMap, ...]) -> np.ndarray:
    """The adjoint of :func:`gather`: send every value back to the positions it was read
    from (values read more than once add up)."""
    original = grad
    with np.errstate(invalid="ignore"):
        for i in reversed(range(len(maps))):
            grad = _scatter_axis(grad, maps[i], _axis(grad.ndim, maps, i))
    return grad.copy() if np.may_share_memory(grad, original) else grad


def _run(op: type[Op], value, **params):
    """Record ``op`` when ``value`` is a tensor (under ``create_graph``), else just compute."""
    if isinstance(value, Tensor):
        return op.apply(value, **params)
    return op.forward(NO_CONTEXT, value, **params)


class GatherOp(Op):
    """``out = gather(x, maps)``; subclasses only give PyTorch's name and a formula."""

    adjoint: type[ScatterOp]
    #: PyTorch's padding backward also takes the input (for its shape): so does ours, and
    #: under ``create_graph`` the node it records then has an edge to the input, as there.
    backward_takes_input = False

    @classmethod
    def forward(cls, ctx, x, maps):
        ctx.maps = maps
        if cls.backward_takes_input:
            ctx.save_for_backward(x)
        return gather(x, maps)

    @staticmethod
    def backward(ctx, grad):
        inputs = ctx.saved_tensors if type(ctx).backward_takes_input else ()
        adjoint = type(ctx).adjoint
        if isinstance(grad, Tensor) or any(isinstance(x, Tensor) for x in inputs):
            return adjoint.apply(grad, *inputs, maps=ctx.maps)
        return adjoint.forward(NO_CONTEXT, grad, *inputs, maps=ctx.maps)


class ScatterOp(Op):
    """``out = scatter(g, maps)``: the backward of a :class:`GatherOp`, whose own backward
    is that gather again (the input, if given, only gives the graph its edge)."""

    primal: type[GatherOp]

    @staticmethod
    def forward(ctx, grad, *input, maps):
        ctx.maps = maps
        return scatter(grad, maps)

    @staticmethod
    def backward(ctx, grad):
        d_grad = _run(type(ctx).primal, grad, maps=ctx.maps)
        if len(ctx.next_functions) == 1:
            return d_grad
        # The input only gave the shape: its derivative is 0 (PyTorch's zeros_like(self),
        # so a second derivative reaches it as zeros, not None). grad has its shape.
        return d_grad, np.zeros_like(grad)


def op_pair(name: str, formula: str,
            backward_takes_input: bool = False) -> tuple[type[GatherOp], type[ScatterOp]]:
    """The two nodes of one map, named as PyTorch names them: ``{name}Backward0`` and
    ``{name}BackwardBackward0`` (the one ``create_graph=True`` records)."""
    forward = type(f"{name}Backward0", (GatherOp,), {
        "__doc__": f"{name}: out = Σ_t w[o, t]·x[index[o, t]] along each axis.",
        "formula": formula, "__module__": __name__, "__slots__": (),
        "backward_takes_input": backward_takes_input})
    backward = type(f"{name}BackwardBackward0", (ScatterOp,), {
        "__doc__": f"The backward of {name}: each gradient goes back to what it read.",
        "formula": "∂L/∂x[i] = Σ over outputs o that read i of w·grad[o]    (its backward "
                   "is the forward map again)",
        "__module__": __name__, "__slots__": ()})
    forward.adjoint, backward.primal = backward, forward
    return forward, backward


_PAD_FORMULA = ("out[o] = x[source(o)]    ∂L/∂x[i] = Σ grad[o] over every o whose source "
                "is i (the border values are read twice)")
ReflectionPad1DBackward0, ReflectionPad1DBackwardBackward0 = op_pair("ReflectionPad1D",
                                                                     _PAD_FORMULA, True)
ReflectionPad2DBackward0, ReflectionPad2DBackwardBackward0 = op_pair("ReflectionPad2D",
                                                                     _PAD_FORMULA, True)
ReflectionPad3DBackward0, ReflectionPad3DBackwardBackward0 = op_pair("ReflectionPad3D",
                                                                     _PAD_FORMULA, True)
ReplicationPad1DBackward0, ReplicationPad1DBackwardBackward0 = op_pair("ReplicationPad1D",
                                                                       _PAD_FORMULA, True)
ReplicationPad2DBackward0, ReplicationPad2DBackwardBackward0 = op_pair("ReplicationPad2D",
                                                                       _PAD_FORMULA, True)
ReplicationPad3DBackward0, ReplicationPad3DBackwardBackward0 = op_pair("ReplicationPad3D",
                                                                       _PAD_FORMULA, True)

_NEAREST_FORMULA = ("out[o] = x[⌊o·scale⌋]    ∂L/∂x[i] = Σ grad[o] over the outputs that copied "
                    "x[i]")
_LINEAR_FORMULA = ("out[o] = (1-λ)·x[i] + λ·x[i+1] per axis    ∂L/∂x[i] += (1-λ)·grad[o], "
                   "∂L/∂x[i+1] += λ·grad[o]")
UpsampleNearest1DBackward0, UpsampleNearest1DBackwardBackward0 = op_pair(
    "UpsampleNearest1D", _NEAREST_FORMULA)
UpsampleNearest2DBackward0, UpsampleNearest2DBackwardBackward0 = op_pair(
    "UpsampleNearest2D", _NEAREST_FORMULA)
UpsampleNearestExact1DBackward0, UpsampleNearestExact1DBackwardBackward0 = op_pair(
    "UpsampleNearestExact1D", _NEAREST_FORMULA.replace("⌊o·scale⌋", "⌊(o+½)·scale⌋"))
UpsampleNearestExact2DBackward0, UpsampleNearestExact2DBackwardBackward0 = op_pair(
    "UpsampleNearestExact2D", _NEAREST_FORMULA.replace("⌊o·scale⌋", "⌊(o+½)·scale⌋"))
UpsampleNearest3DBackward0, UpsampleNearest3DBackwardBackward0 = op_pair(
    "UpsampleNearest3D", _NEAREST_FORMULA)
UpsampleNearestExact3DBackward0, UpsampleNearestExact3DBackwardBackward0 = op_pair(
    "UpsampleNearestExact3D", _NEAREST_FORMULA.replace("⌊o·scale⌋", "⌊(o+½)·scale⌋"))
UpsampleLinear1DBackward0, UpsampleLinear1DBackwardBackward0 = op_pair(
    "UpsampleLinear1D", _LINEAR_FORMULA)
UpsampleBilinear2DBackward0, UpsampleBilinear2DBackwardBackward0 = op_pair(
    "UpsampleBilinear2D", _LINEAR_FORMULA)
UpsampleTrilinear3DBackward0, UpsampleTrilinear3DBackwardBackward0 = op_pair(
    "UpsampleTrilinear3D", _LINEAR_FORMULA)
UpsampleBicubic2DBackward0, UpsampleBicubic2DBackwardBackward0 = op_pair(
    "UpsampleBicubic2D", "out[o] = Σ_{t=-1..2} cubic(λ - t)·x[i + t] per axis (4 neighbours)    "
    "∂L/∂x[i+t] += cubic(λ - t)·grad[o]")

_ANTIALIAS_FORMULA = ("out[o] = Σ_i w(i, o)·x[i] per axis, over the inputs under the stretched "
                      "filter    ∂L/∂x[i] += w(i, o)·grad[o]")
UpsampleBilinear2DAaBackward0, UpsampleBilinear2DAaBackwardBackward0 = op_pair(
    "UpsampleBilinear2DAa", _ANTIALIAS_FORMULA)
UpsampleBicubic2DAaBackward0, UpsampleBicubic2DAaBackwardBackward0 = op_pair(
    "UpsampleBicubic2DAa", _ANTIALIAS_FORMULA)
UpsampleLanczos2DAaBackward0, UpsampleLanczos2DAaBackwardBackward0 = op_pair(
    "UpsampleLanczos2DAa", _ANTIALIAS_FORMULA)


__all__ = [
    "AxisMap", "GatherOp", "ScatterOp", "gather", "op_pair", "scatter",
    "ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0",
    "ReplicationPad1DBackward0", "ReplicationPad2DBackward0", "ReplicationPad3DBackward0",
    "UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0",
    "UpsampleNearestExact1DBackward0", "UpsampleNearestExact2DBackward0",
    "UpsampleNearest3DBackward0", "UpsampleNearestExact3DBackward0",
    "UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0", "UpsampleTrilinear3DBackward0",
    "UpsampleBicubic2DBackward0", "UpsampleBilinear2DAaBackward0", "UpsampleBicubic2DAaBackward0",
    "UpsampleLanczos2DAaBackward0",
]
