"""An op's backward formula recorded as ONE node: PyTorch's ``...BackwardBackward0``.

With ``create_graph=True`` the gradient of ``tanh`` is itself a tensor with a graph. PyTorch
records tanh's backward as a single node, ``TanhBackwardBackward0``, whose own backward is
derived by hand; written with NumPy on tensors, the same formula would be recorded as the
elementary ops it is made of (``grad * (1 - out * out)``: MulBackward0, RSubBackward1 ...).
Both differentiate correctly; what a learner prints differs.

:class:`RecordedBackward` is how an op gets PyTorch's node. The first-order formula stays
where it is, in the op's ``backward``, run on arrays as always; under ``create_graph`` that
``backward`` hands its values to the recorded op instead::

    class TanhBackward0(Op):
        @staticmethod
        def backward(ctx, grad):
            (out,) = ctx.saved_tensors
            if type(grad) is not Tensor:  # a plain backward: arrays, nothing extra
                return grad * (1 - out * out)
            return TanhBackwardBackward0.record(ctx, grad, out)

    class TanhBackwardBackward0(RecordedBackward):
        formula = "tanh's backward g·(1 − y²):  ∂/∂g = 1 − y²    ∂/∂y = −2·g·y"

        @staticmethod
        def backward(ctx, gg):                # one grad per input of record(): g, then y
            g, out = ctx.saved_tensors
            return gg * (1 - out * out), -2 * gg * g * out

``record(node, *values)`` runs ``node.backward`` on the values' arrays (so the formula is
written once) and records the result as one op whose inputs are ``values``; its
``backward`` gets ``ctx.saved_tensors == values``, ``ctx.node`` (for the first op's
parameters: ``ctx.node.dim``...) and, where ``node.backward`` returns several gradients,
one gradient for each that is not ``None`` (``ctx.missing`` says which are). A plain
backward pays one ``type`` check.
"""

from __future__ import annotations

from .._tensor import Tensor
from .op import Op


class _ArrayContext:
    """What ``node.backward`` sees inside a recorded backward: the arrays as saved values.

    Every other attribute (``dim``, ``reduction``, ``needs_input_grad`` ...) is the node's.
    """

    __slots__ = ("node", "saved_tensors")

    def __init__(self, node: Op, saved: tuple) -> None:
        self.node = node
        self.saved_tensors = saved

    def __getattr__(self, name: str):
        return getattr(self.node, name)


class RecordedBackward(Op):
    """Base class of a first-order backward recorded as one node (see the module docstring).

    A subclass is named as PyTorch's node (``TanhBackwardBackward0``) and defines
    ``formula`` and ``backward(ctx, gg)``: the derivative of the first-order formula with
    respect to each value given to :meth:`record` (``None`` for a non-tensor value).
    """

    formula = "the derivative of a backward formula"

    @classmethod
    def record(cls, node: Op, grad: Tensor, *saved):
        """``node``'s backward on ``grad`` and ``saved`` (tensors), recorded as this op.

        The values are the op's inputs, in order: ``grad`` first, then what the formula
        reads (PyTorch's inputs of the same node). Gradients ``node.backward`` does not
        compute come back as ``None``.
        """
        missing: list = []  # forward notes which gradients node.backward left as None
        out = cls.apply(grad, *saved, node=node, missing=missing)
        if type(out) is not tuple:
            return out
        present = iter(out)
        return tuple([None if gone else next(present) for gone in missing])

    @classmethod
    def forward(cls, ctx, grad, *saved, node, missing):
        ctx.node, ctx.missing = node, missing
        ctx.save_for_backward(grad, *saved)
        grads = node.backward(_ArrayContext(node, saved), grad)  # its arrays' branch
        if type(grads) is not tuple:
            return grads
        missing.extend([g is None for g in grads])  # an op's outputs are tensors only
        return tuple([g for g in grads if g is not None])
