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


class TrilinearBackward0(Op):
    formula = ("out[b,o] = Σᵢⱼ x1[b,i]·W[o,i,j]·x2[b,j]:  ∂/∂x1 = Σ grad·W·x2, "
               "∂/∂W = grad ⊗ x1 ⊗ x2, ∂/∂x2 = Σ grad·x1·W")
    saved_names = ("i1", "i2", "i3")  # grad_fn._saved_...: the flattened inputs, the weight
    # PyTorch's bilinear calls _trilinear(x1, W, x2, expand1=[1, 3], expand2=[0],
    # expand3=[1, 2], sumdim=[2, 3]): in a 4-d (b, o, i, j) frame, where each factor gets
    # size-1 dimensions and which dimensions are summed. Always these, for bilinear.
    saved_attributes = {"expand1": lambda node: (1, 3), "expand2": lambda node: (0,),
                        "expand3": lambda node: (1, 2), "sumdim": lambda node: (2, 3)}

    @staticmethod
    def forward(ctx, x1, weight, x2):
        ctx.save_for_backward(x1, weight, x2)
        # (einsum may hand back a transposed layout; PyTorch's result is row-major)
        return np.ascontiguousarray(np.einsum("bi,oij,bj->bo", x1, weight, x2))

    @staticmethod
    def backward(ctx, grad):
        x1, weight, x2 = ctx.saved_tensors
        needs = ctx.needs_input_grad
        return (
            np.einsum("bo,oij,bj->bi", grad, weight, x2) if needs[0] else None,
            np.einsum("bo,bi,bj->oij", grad, x1, x2) if needs[1] else None,
            np.einsum("bo,bi,oij->bj", grad, x1, weight) if needs[2] else None,
        )


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
