"""``NotImplemented``: the node PyTorch records for an op that has no derivative formula.

A tensor made by such an op from one that requires grad still requires grad (so the graph
is not silently cut), and its ``grad_fn`` prints as ``<NotImplemented>``; only a backward
pass that reaches it fails, with PyTorch's sentence ``derivative for aten::<op> is not
implemented``. ``linalg.ldl_factor``, ``linalg.ldl_solve`` and ``detach_copy`` are such ops.
"""

from __future__ import annotations

from collections.abc import Callable

from .op import Op

__all__: list[str] = []


class NotImplementedNode(Op):
    """Runs ``compute(*arrays)``; its backward raises PyTorch's error naming ``aten_name``."""

    formula = "no derivative: PyTorch has no formula for this op either"

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, *arrays, compute: Callable, aten_name: str):
        ctx.aten_name = aten_name
        # PyTorch makes its NotImplemented nodes without a sequence number (2⁶⁴ − 1, as an
        # AccumulateGrad's): once ready, the engine runs them before any other node
        ctx._seq_nr = float("inf")
        return compute(*arrays)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{ctx.aten_name} is not implemented")


# PyTorch prints the node as ``<NotImplemented>``.
NotImplementedNode.__name__ = NotImplementedNode.__qualname__ = "NotImplemented"
