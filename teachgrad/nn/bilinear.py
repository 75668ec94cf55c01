"""``F.bilinear``: ``y_o = x1ᵀ · W_o · x2 + b_o``, one matrix ``W_o`` per output feature.

PyTorch computes it with one op, ``_trilinear`` (node ``TrilinearBackward0``), on the two
inputs flattened to 2-D; teachgrad does the same, with ``einsum`` inside: forward
``out[b,o] = Σᵢⱼ x1[b,i] W[o,i,j] x2[b,j]``, and each gradient is the same sum with the
output's gradient in place of one factor. The backward calls ``np.einsum``, which becomes
teachgrad's ``einsum`` under ``create_graph``, so gradients of any order work.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, python_type_name
from ..ops.linalg import _cpp_name  # PyTorch's C++ names: float, double ...
from ..ops.op import Op

#: PyTorch's bilinear calls _trilinear(x1, W, x2, expand1=[1, 3], expand2=[0],
#: expand3=[1, 2], sumdim=[2, 3]): in a 4-d (b, o, i, j) frame, which size-1 dimensions
#: each factor gets, and which dimensions are summed
BILINEAR_FRAME = ((1, 3), (0,), (1, 2), (2, 3))
_FRAME_LETTERS = "boij"


def _letters(expanded: tuple) -> str:
    """The frame's dimensions a factor has (all but its expanded ones), as einsum letters."""
    return "".join(letter for k, letter in enumerate(_FRAME_LETTERS) if k not in expanded)


def _einsum_spec(frame: tuple) -> str:
    """``"bi,oij,bj->bo"`` for bilinear's frame: the three factors, then the result (the
    frame without the summed dimensions)."""
    *expands, sumdim = frame
    return ",".join(_letters(e) for e in expands) + "->" + _letters(sumdim)


class TrilinearBackward0(Op):
    formula = ("out[b,o] = Σᵢⱼ x1[b,i]·W[o,i,j]·x2[b,j]:  ∂/∂x1 = Σ grad·W·x2, "
               "∂/∂W = grad ⊗ x1 ⊗ x2, ∂/∂x2 = Σ grad·x1·W")
    saved_names = ("i1", "i2", "i3")  # grad_fn._saved_...: the flattened inputs, the weight
    saved_attributes = {"expand1": lambda node: node.frame[0],
                        "expand2": lambda node: node.frame[1],
                        "expand3": lambda node: node.frame[2],
                        "sumdim": lambda node: node.frame[3]}

    @staticmethod
    def forward(ctx, i1, i2, i3, frame=BILINEAR_FRAME):
        ctx.save_for_backward(i1, i2, i3)
        ctx.frame = frame
        # (einsum may hand back a transposed layout; PyTorch's result is row-major)
        return np.ascontiguousarray(np.einsum(_einsum_spec(frame), i1, i2, i3))

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's _trilinear_backward: each gradient is _trilinear again, the output's
        # gradient in place of one factor, its dimensions swapped with the summed ones (so
        # under create_graph it is a TrilinearBackward0 node, as PyTorch's)
        i1, i2, i3 = ctx.saved_tensors
        e1, e2, e3, summed = ctx.frame
        frames = ((summed, e2, e3, e1), (e1, summed, e3, e2), (e1, e2, summed, e3))
        factors = ((grad, i2, i3), (i1, grad, i3), (i1, i2, grad))
        return tuple(_trilinear(f, frame) if need else None
                     for need, f, frame in zip(ctx.needs_input_grad, factors, frames))


def _trilinear(factors: tuple, frame: tuple):
    """``_trilinear`` of three factors: recorded (TrilinearBackward0) when any is a tensor
    (under create_graph), else NumPy's einsum."""
    if any(type(f) is Tensor for f in factors):
        return TrilinearBackward0.apply(*factors, frame=frame)
    return np.einsum(_einsum_spec(frame), *factors)


def _flat(t: Tensor) -> Tensor:
    """``t`` as ``(-1, features)``: a view, as PyTorch's ``reshape`` of a contiguous tensor."""
    return t.reshape(-1, t.shape[-1])


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Tensor | None = None) -> Tensor:
    """``y = x1ᵀ A x2 + b`` for every output feature: ``weight (out, in1, in2)``.

    ``input1 (*, in1)`` and ``input2 (*, in2)`` share their leading dimensions; the result
    is ``(*, out)``.

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> F.bilinear(torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0]]), torch.ones(1, 2, 1))
    tensor([[9.]])
    """
    if bias is not None and not isinstance(bias, Tensor):
        # (PyTorch's words for bias=...; given by position, it adds "(position 4)")
        raise TypeError(f"bilinear(): argument 'bias' must be Tensor, not "
                        f"{python_type_name(bias)}\nHint: a bias is a tensor with one value "
                        "per output feature; pass bias=None for no bias.")
    if not input1.dtype == input2.dtype == weight.dtype:
        names = (_cpp_name(t) for t in (input1, input2, weight))
        raise RuntimeError(
            "All tensors must have the same dtype, got input1: {}, input2: {}, weight: {}"
            .format(*names)
        )
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got "
                f"{input1.shape[i]} and {input2.shape[i]}"
            )
    checks = (("input1", input1.shape[-1], weight.shape[1]),
              ("input2", input2.shape[-1], weight.shape[2]))
    if bias is not None:
        checks += (("bias", bias.shape[0], weight.shape[0]),)
    for name, got, expected in checks:
        if got != expected:
            raise RuntimeError(
                f"bilinear(): {name} size does not match weight size: got {got} but expected "
                f"{expected}"
            )
    out = TrilinearBackward0.apply(_flat(input1), weight, _flat(input2))
    out = out.reshape(*input1.shape[:-1], weight.shape[0])
    return out if bias is None else out + bias


__all__ = ["bilinear"]
