"""``ConvolutionBackward0``: the op behind ``F.conv1d``/``F.conv2d`` and
``F.conv_transpose1d``/``F.conv_transpose2d`` (and its own backward).

A convolution is *linear* in its input and in its weight, so its gradients are
convolutions again (see :mod:`teachgrad.nn.im2col` for the arithmetic):

* ``∂L/∂x`` — the output gradient spread back over the patches with the kernel
  ("transposed convolution", col2im);
* ``∂L/∂w`` — the output gradient correlated with the input patches;
* ``∂L/∂b`` — the output gradient summed over every position of each channel.

A *transposed* convolution (``transposed=True``) is the first of these maps used as a
layer: ``convᵀ(x, w)`` spreads every input value over a patch of the output. Its gradients
swap the roles: ``∂L/∂x = conv(grad, w)`` and ``∂L/∂w`` correlates ``grad`` (now on the
convolution's input side) with ``x``. So one flag serves both, as in PyTorch.

As in PyTorch, the two first ones are computed by one node,
``ConvolutionBackwardBackward0`` (it appears under ``create_graph=True``). Its own
backward needs only the forward convolution and itself again, so gradients of any order
work with these two ops.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..ops.op import Op
from . import im2col


def _apply(x, w, stride, padding, dilation, groups, transposed, size):
    """The map itself, on arrays: ``conv(x, w)``, or its transpose (output spatial ``size``)."""
    if transposed:
        shape = (x.shape[0], w.shape[1] * groups, *size)
        return im2col.input_grad(x, w, shape, stride, padding, dilation, groups)
    return im2col.convolve(x, w, stride, padding, dilation, groups, size)


def _output_padding(x_shape, w_shape, params, size) -> tuple:
    """The extra rows/columns a transposed convolution's output got beyond
    (in − 1)·stride − padding + dilation·(kernel − 1) + 1 (0 for a convolution)."""
    stride, padding, dilation, _, transposed = params
    if not transposed:
        return (0,) * len(stride)
    return tuple(
        out - ((n - 1) * s - lo - hi + d * (k - 1) + 1)
        for out, n, k, s, (lo, hi), d in zip(size, x_shape[2:], w_shape[2:], stride, padding,
                                            dilation)
    )


def convolution(x, w, stride, padding, dilation, groups, transposed=False, size=None):
    """``conv(x, w)`` (or ``convᵀ(x, w)`` with output spatial ``size``) without bias:
    recorded when given tensors, plain NumPy on arrays."""
    if isinstance(x, Tensor) or isinstance(w, Tensor):
        return ConvolutionBackward0.apply(x, w, None, stride=stride, padding=padding,
                                          dilation=dilation, groups=groups,
                                          transposed=transposed, size=size)
    return _apply(x, w, stride, padding, dilation, groups, transposed, size)


def convolution_grads(grad, x, w, stride, padding, dilation, groups, transposed=False,
                      output_mask=(True, True)) -> tuple:
    """``(∂L/∂x, ∂L/∂w)`` from the output gradient; recorded when given tensors.

    A third flag in ``output_mask`` adds ``∂L/∂b`` (as PyTorch's node, whose three outputs
    all depend on x and w: a bias's gradient requires grad and differentiates, to 0).
    """
    if isinstance(grad, Tensor) or isinstance(x, Tensor) or isinstance(w, Tensor):
        return ConvolutionBackwardBackward0.apply(
            grad, x, w, stride=stride, padding=padding, dilation=dilation, groups=groups,
            transposed=transposed, output_mask=output_mask,
        )
    return _grads(grad, x, w, stride, padding, dilation, groups, transposed, output_mask)


def _grads(grad, x, w, stride, padding, dilation, groups, transposed, output_mask) -> tuple:
    # A gradient nobody asked for is not computed (None), as PyTorch's output_mask does.
    gx = gw = None
    if output_mask[0]:
        # The input's gradient is the *other* map: convᵀ for a convolution, conv for convᵀ.
        gx = _apply(grad, w, stride, padding, dilation, groups, not transposed, x.shape[2:])
    if output_mask[1]:
        # The kernel met (conv input, conv output) pairs: for convᵀ, its output is the
        # convolution's input.
        inputs, outputs = (grad, x) if transposed else (x, grad)
        gw = im2col.weight_grad(inputs, outputs, w.shape, stride, padding, dilation, groups)
    if len(output_mask) == 2:
        return gx, gw
    return gx, gw, np.sum(grad, axis=(0, *range(2, np.ndim(grad))))


class ConvolutionBackward0(Op):
    """``out = conv(x, w) + b``: a sliding dot product of each kernel with the input."""

    formula = (
        "out[o, p] = Σ w[o]·patch_p(x) + b[o]    ∂L/∂x: each output spreads grad·w back over "
        "its patch    ∂L/∂w = Σ_p grad[o, p]·patch_p(x)    ∂L/∂b = Σ_p grad[o, p]"
    )
    saved_names = ("input", "weight")  # grad_fn._saved_input, grad_fn._saved_weight
    # PyTorch's other _saved_ values: the options as tuples, one number per spatial axis
    saved_attributes = {
        "stride": lambda node: node.params[0],
        "padding": lambda node: tuple(lo if lo == hi else (lo, hi) for lo, hi in node.params[1]),
        "dilation": lambda node: node.params[2],
        "groups": lambda node: node.params[3],
        "transposed": lambda node: node.params[4],
        "output_padding": "output_padding",
        "bias_sym_sizes_opt": "bias_sizes",
    }

    @staticmethod
    def forward(ctx, x, w, b, stride, padding, dilation, groups, transposed=False, size=None):
        ctx.save_for_backward(x, w)
        ctx.params = params = (stride, padding, dilation, groups, transposed)
        ctx.has_bias = b is not None
        ctx.bias_sizes = b.shape if b is not None else (0,)
        ctx.output_padding = _output_padding(x.shape, w.shape, params, size)
        out = _apply(x, w, stride, padding, dilation, groups, transposed, size)
        if x.shape[1] != 0:  # (an empty batch of another dtype than w: x's dtype, as PyTorch)
            out = out.astype(x.dtype, copy=False)
        if b is not None:
            # Bias per output channel: shape (O, 1, 1) broadcasts over the positions.
            out += b.reshape(-1, *(1,) * (x.ndim - 2))
        return out

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        gx = gw = gb = None
        if need_b and isinstance(grad, Tensor):  # create_graph: ∂L/∂b from the same node
            return convolution_grads(grad, x, w, *ctx.params, output_mask=(need_x, need_w, True))
        if need_x or need_w:
            gx, gw = convolution_grads(grad, x, w, *ctx.params, output_mask=(need_x, need_w))
        if need_b:
            gb = np.sum(grad, axis=(0, *range(2, np.ndim(grad))))
        return gx, gw, gb


class ConvolutionBackwardBackward0(Op):
    """``(∂L/∂x, ∂L/∂w)`` of a convolution (and ``∂L/∂b``, if it has a bias): the node
    ``create_graph=True`` records.

    Both are linear in the output gradient ``g``: ``∂L/∂x = A(g, w)`` and
    ``∂L/∂w = B(x, g)``, where ``<conv(x, w), g> = <x, A(g, w)> = <w, B(x, g)>``.
    """

    formula = (
        "∂L/∂x = convᵀ(g, w), ∂L/∂w = corr(x, g), ∂L/∂b = Σ g    back: ∂/∂g = conv(ḡx, w) + "
        "conv(x, ḡw) + ḡb   ∂/∂x = convᵀ(g, ḡw)   ∂/∂w = corr(ḡx, g)"
    )

    @staticmethod
    def forward(ctx, grad, x, w, stride, padding, dilation, groups, transposed, output_mask):
        ctx.save_for_backward(grad, x, w)
        ctx.params = (stride, padding, dilation, groups, transposed)
        grads = _grads(grad, x, w, stride, padding, dilation, groups, transposed, output_mask)
        # A multi-output node needs arrays for both outputs: zeros stand for "not asked".
        gx, gw = grads[:2]
        return (gx if gx is not None else np.zeros_like(x),
                gw if gw is not None else np.zeros_like(w), *grads[2:])

    @staticmethod
    def backward(ctx, grad_gx, grad_gw, grad_gb=None):
        grad, x, w = ctx.saved_tensors
        params = ctx.params
        need_grad, need_x, need_w = ctx.needs_input_grad
        d_grad = d_x = d_w = None
        if need_grad:
            # gx = A(g, w) and gw = B(x, g) are linear in g: their adjoints are convolutions;
            # gb sums g over all but the channels: its adjoint spreads ḡb over them.
            size = tuple(grad.shape[2:])
            terms = []
            if grad_gx is not None:
                terms.append(convolution(grad_gx, w, *params, size=size))
            if grad_gw is not None:
                terms.append(convolution(x, grad_gw, *params, size=size))
            if grad_gb is not None:
                spread = grad_gb.reshape(-1, *(1,) * (np.ndim(grad) - 2))
                terms.append(spread + np.zeros_like(grad) if not terms else spread)
            d_grad = sum(terms[1:], terms[0]) if terms else None
        if (need_x and grad_gw is not None) or (need_w and grad_gx is not None):
            # ∂<B(x, g), ḡw>/∂x = A(g, ḡw) and ∂<A(g, w), ḡx>/∂w = B(ḡx, g): this very node.
            mask = (need_x and grad_gw is not None, need_w and grad_gx is not None)
            d_x, d_w = convolution_grads(
                grad,
                grad_gx if grad_gx is not None else np.zeros_like(x),
                grad_gw if grad_gw is not None else np.zeros_like(w),
                *params, output_mask=mask,
            )
            d_x = d_x if mask[0] else None
            d_w = d_w if mask[1] else None
        return d_grad, d_x, d_w


__all__ = ["ConvolutionBackward0", "ConvolutionBackwardBackward0", "convolution",
           "convolution_grads"]
