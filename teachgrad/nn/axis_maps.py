"""Maps that work along each axis separately: reflection and replication padding, nearest
and (bi)linear interpolation.

All of these compute an output value from a few input values, and they do it *one axis at
a time*: along an axis, output position ``o`` reads the input positions ``index[o, t]``
and adds them up with the weights ``weights[o, t]`` (``t`` counts the "taps"). Reflection
padding of ``[a, b, c]`` by one on each side reads positions ``[1, 0, 1, 2, 1]``; linear
interpolation reads two neighbours and weighs them by how close they are. A 2-d map is
the 1-d map along the rows, then along the columns.

Such a map is linear in the input, so its gradient is its *adjoint*: every output's
gradient goes back, times the same weight, to the positions it read (where several outputs
read one position, their gradients add up). And the adjoint of the adjoint is the map
again, so the two ops below are each other's backward: gradients of any order.

>>> import numpy as np
>>> reflect = AxisMap(index=np.array([[1], [0], [1], [2], [1]]), weights=None, size=3)
>>> gather(np.array([10.0, 20.0, 30.0]), (reflect,))
array([20., 10., 20., 30., 20.])
>>> scatter(np.ones(5), (reflect,), (3,))          # position 1 was read three times
array([1., 3., 1.])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._tensor import Tensor
from ..ops.op import NO_CONTEXT, Op


@dataclass(frozen=True, eq=False)
class AxisMap:
    """Along one axis, output position ``o`` is ``Σ_t weights[o, t] · input[index[o, t]]``.

    ``weights=None`` means one tap of weight 1: a plain copy (padding, nearest neighbour),
    which keeps the values exact whatever their dtype (integers, ``inf``, ``nan``).
    """

    index: np.ndarray          # (out, taps) input positions
    weights: np.ndarray | None  # (out, taps), or None: copy index[:, 0]
    size: int                  # the input's length along the axis


def _axis(ndim: int, maps: tuple[AxisMap, ...], i: int) -> int:
    """The maps act on the last ``len(maps)`` axes: map ``i`` on this one."""
    return ndim - len(maps) + i


def gather(x: np.ndarray, maps: tuple[AxisMap, ...]) -> np.ndarray:
    """Apply each map along its axis (the last ``len(maps)`` axes of ``x``)."""
    for i, m in enumerate(maps):
        axis = _axis(x.ndim, maps, i)
        if m.weights is None:
            x = np.take(x, m.index[:, 0], axis=axis)
            continue
        picked = np.take(x, m.index, axis=axis)  # (..., out, taps, ...)
        trailing = (1,) * (x.ndim - axis - 1)
        weights = m.weights.astype(x.dtype, copy=False).reshape(*m.weights.shape, *trailing)
        x = (picked * weights).sum(axis=axis + 1)
    return x


def scatter(grad: np.ndarray, maps: tuple[AxisMap, ...], shape: tuple[int, ...]) -> np.ndarray:
    """The adjoint of :func:`gather`: send every value back to the positions it was read from.

    ``shape`` is the input's shape; values read more than once add up.
    """
    for i in reversed(range(len(maps))):
        m = maps[i]
        axis = _axis(len(shape), maps, i)
        moved = np.moveaxis(grad, axis, 0)             # (out, *rest)
        if m.weights is None:
            index, values = m.index[:, 0], moved
        else:
            weights = m.weights.astype(grad.dtype, copy=False)
            values = moved[:, None] * weights.reshape(*weights.shape, *(1,) * (moved.ndim - 1))
            index, values = m.index.ravel(), values.reshape(-1, *moved.shape[1:])
        out = np.zeros((m.size, *moved.shape[1:]), grad.dtype)
        np.add.at(out, index, values)  # adds repeated positions (a plain += would not)
        grad = np.moveaxis(out, 0, axis)
    return grad


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
        ctx.maps, ctx.shape = maps, x.shape
        if cls.backward_takes_input:
            ctx.save_for_backward(x)
        return gather(x, maps)

    @staticmethod
    def backward(ctx, grad):
        inputs = ctx.saved_tensors if type(ctx).backward_takes_input else ()
        adjoint = type(ctx).adjoint
        if isinstance(grad, Tensor) or any(isinstance(x, Tensor) for x in inputs):
            return adjoint.apply(grad, *inputs, maps=ctx.maps, shape=ctx.shape)
        return adjoint.forward(NO_CONTEXT, grad, *inputs, maps=ctx.maps, shape=ctx.shape)


class ScatterOp(Op):
    """``out = scatter(g, maps)``: the backward of a :class:`GatherOp`, whose own backward
    is that gather again (the input, if given, only gives the graph its edge)."""

    primal: type[GatherOp]

    @staticmethod
    def forward(ctx, grad, *input, maps, shape):
        ctx.maps = maps
        return scatter(grad, maps, shape)

    @staticmethod
    def backward(ctx, grad):
        d_grad = _run(type(ctx).primal, grad, maps=ctx.maps)
        return (d_grad, None) if len(ctx.next_functions) == 2 else d_grad


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


__all__ = [
    "AxisMap", "GatherOp", "ScatterOp", "gather", "op_pair", "scatter",
    "ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0",
    "ReplicationPad1DBackward0", "ReplicationPad2DBackward0", "ReplicationPad3DBackward0",
    "UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0",
    "UpsampleNearestExact1DBackward0", "UpsampleNearestExact2DBackward0",
    "UpsampleNearest3DBackward0", "UpsampleNearestExact3DBackward0",
    "UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0", "UpsampleTrilinear3DBackward0",
]
