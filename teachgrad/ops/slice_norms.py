"""``renorm``: shrink every slice whose p-norm is above ``maxnorm`` back to ``maxnorm``.

A slice is everything with one index along ``dim`` (``x.renorm(2, 0, 1.)`` looks at each
row of a matrix). Slices already small enough are left alone. Embedding layers use it
(``max_norm``) to keep rows of weights bounded.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap_dim, tensor_method
from .inplace import inplace_method
from .number_factor import plus_number, times_number
from .op import Op
from .pointwise import _value
from .saved_values import given, keep_given

__all__ = ["renorm"]

_EPS = 1e-7  # PyTorch's: maxnorm / (norm + 1e-7), so a renormed norm sits just below maxnorm


def _norms(a, p: float, axes: tuple):
    """The p-norm of each slice (kept as size-1 dims so it broadcasts against ``a``)."""
    if p == np.inf:
        return np.max(np.abs(a), axis=axes, keepdims=True)
    return np.sum(np.abs(a) ** p, axis=axes, keepdims=True) ** (1.0 / p)


class RenormBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    # (as given: renorm(2, 0, 1) keeps ints; see renorm)
    saved_attributes = {"p": given("p", lambda node: node.p), "dim": given("dim"),
                        "maxnorm": given("maxnorm", lambda node: node.maxnorm)}
    formula = (
        "y = x·m/‖x‖ on slices with ‖x‖ > m (else y = x):  "
        "∂y/∂x = m/‖x‖·(I − x·(∂‖x‖/∂x)ᵀ/‖x‖)"
    )

    @staticmethod
    def forward(ctx, a, p, axes, maxnorm):
        ctx.p, ctx.axes, ctx.maxnorm = p, axes, maxnorm
        ctx.save_for_backward(a)
        norm = _norms(a, p, axes)
        factor = np.where(norm > maxnorm, maxnorm / (norm + _EPS), 1.0)
        return (a * factor).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        p, axes, maxnorm = ctx.p, ctx.axes, ctx.maxnorm
        if type(grad) is Tensor:
            return _renorm_gradient_recorded(grad, a, p, axes, maxnorm)
        if p == np.inf:
            # The largest |x| of each slice, written as the mean of |x| over the entries
            # that reach it (a constant mask): the same number, and differentiable again.
            raw = np.abs(_value(a))
            top = (raw == np.max(raw, axis=axes, keepdims=True)).astype(raw.dtype)
            count = np.sum(top, axis=axes, keepdims=True)
            norm = np.sum(np.abs(a) * top, axis=axes, keepdims=True) / count
        else:
            norm = _norms(a, p, axes)
        over = _value(norm) > maxnorm  # a mask: constant for higher derivatives
        inv = 1.0 / (norm + _EPS)
        factor = inv * maxnorm
        along = np.sum(a * grad, axis=axes, keepdims=True)  # ⟨x, grad⟩ per slice
        if p == np.inf:
            dnorm = np.sign(a) * top / count
        elif p == 1:
            dnorm = np.sign(a)
        elif p == 2:
            dnorm = a / norm
        else:
            dnorm = np.sign(a) * np.abs(a) ** (p - 1) / norm ** (p - 1)
        return np.where(over, factor * grad - inv * factor * along * dnorm, grad)


def _renorm_gradient_recorded(grad: Tensor, a: Tensor, p: float, axes: tuple, maxnorm):
    """renorm's gradient under create_graph, as PyTorch's renorm_backward records it:
    with n = vector_norm(a) per slice, where n > maxnorm,
    (maxnorm / (n + ε))·(grad − (1 / (n + ε))·∂n/∂a·Σ a·grad), else grad."""
    from .reduce import vector_norm, vector_norm_backward

    norm = vector_norm(a, p, dim=axes, keepdim=True)
    along = (a * grad).sum(axes, keepdim=True)  # ⟨a, grad⟩ per slice
    through_norm = vector_norm_backward(along, a, norm, p, axes, True)
    inverse = plus_number(norm, _EPS).reciprocal()
    factor = times_number(inverse, maxnorm)
    over = _value(norm) > maxnorm  # (a mask: constant for higher derivatives)
    return np.where(over, factor * (grad - inverse * through_norm), grad)


@tensor_method()
def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """A copy of ``input`` whose slices along ``dim`` have p-norm at most ``maxnorm``.

    >>> import teachgrad as torch
    >>> torch.tensor([[3., 4.], [0.3, 0.4]]).renorm(2, 0, 1.)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    data = input._data
    if data.ndim < 2:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {data.ndim} dimensions"
        )
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if data.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{input.dtype._legacy.removesuffix('Tensor')}"
        )
    d = _wrap_dim(dim, data.ndim)
    axes = tuple(k for k in range(data.ndim) if k != d)
    out = RenormBackward0.apply(input, p=float(p), axes=axes, maxnorm=float(maxnorm))
    keep_given(out, RenormBackward0, p=p, dim=dim, maxnorm=maxnorm)
    return out


Tensor.renorm_ = inplace_method(renorm, "renorm_")
