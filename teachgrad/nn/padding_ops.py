"""``ConstantPadNdBackward0``: pad with a constant (or crop, with negative padding).

Padding puts the input inside a larger array filled with ``value``; negative padding cuts
values off. The gradient is the same thing with the padding negated: cut the border off
the output's gradient (and put zeros where the forward cut). So this op is its own
backward, and gradients of any order come for free.

Reflection, replication (:mod:`teachgrad.nn.axis_maps`) and circular padding
(:func:`teachgrad.nn.padding.pad`) read the border from the input instead.

>>> import numpy as np
>>> constant_pad(np.array([[1, 2], [3, 4]]), ((1, 0), (1, -1)), value=9)  # crop a column
array([[9, 9],
       [9, 1],
       [9, 3]])
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..ops.layout import row_major
from ..ops.op import NO_CONTEXT, Op

Pairs = tuple[tuple[int, int], ...]


def constant_pad(x: np.ndarray, pads: Pairs, value=0) -> np.ndarray:
    """Pad (or crop, where negative) the last ``len(pads)`` axes of ``x`` by ``(before, after)``."""
    lead = x.ndim - len(pads)
    crop = tuple(slice(max(-b, 0), size - max(-a, 0))
                 for size, (b, a) in zip(x.shape[lead:], pads))
    x = x[(Ellipsis, *crop)]
    grow = ((0, 0),) * lead + tuple((max(b, 0), max(a, 0)) for b, a in pads)
    # a fresh row-major result, as PyTorch allocates it (np.pad keeps a transposed order)
    return row_major(np.pad(x, grow, constant_values=np.array(value).astype(x.dtype)))


class ConstantPadNdBackward0(Op):
    """``out = x`` inside a border of ``value`` (a crop where the padding is negative)."""

    formula = "out = x surrounded by value    ∂L/∂x = grad with the border cut off"
    # PyTorch's flat pad (last dimension first), as grad_fn._saved_pad
    saved_attributes = {"pad": lambda node: tuple(p for pair in reversed(node.pads) for p in pair)}

    @staticmethod
    def forward(ctx, x, pads, value):
        ctx.pads = pads
        return constant_pad(x, pads, value)

    @staticmethod
    def backward(ctx, grad):
        undo = tuple((-b, -a) for b, a in ctx.pads)
        if isinstance(grad, Tensor):  # create_graph: record it, to differentiate again
            return ConstantPadNdBackward0.apply(grad, pads=undo, value=0)
        return ConstantPadNdBackward0.forward(NO_CONTEXT, grad, undo, 0)


__all__ = ["ConstantPadNdBackward0", "constant_pad"]
