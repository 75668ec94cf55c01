"""``NotImplementedBackward``: a node for a derivative that teachgrad does not have.

Some fused ops give their gradient as plain numbers: right for one backward, but with
nothing behind it to differentiate again (PyTorch marks such places with a
``NotImplemented`` node). Under ``create_graph=True`` those ops return their gradient
through this node: the values pass through, and a backward that reaches it stops with a
clear error instead of silently treating the gradient as a constant.
"""

from __future__ import annotations

from ..ops.op import Op


class NotImplementedBackward(Op):
    """Passes ``values`` on; its backward refuses, naming ``derivative``."""

    formula = "not differentiable further"

    @staticmethod
    def forward(ctx, *inputs, values, derivative, hint):
        ctx.derivative, ctx.hint = derivative, hint
        return tuple(values) if isinstance(values, tuple | list) else values

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"the derivative for '{ctx.derivative}' is not implemented."
                           f"\nHint: {ctx.hint}")


__all__ = ["NotImplementedBackward"]
