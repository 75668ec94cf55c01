"""The normalisation ops: ``NativeLayerNormBackward0`` and ``NativeBatchNormBackward0``.

Both standardise ``x`` over some dimensions and then scale and shift it::

    x̂ = (x − mean) · rstd          rstd = 1 / sqrt(var + eps)   (biased variance)
    y = x̂ · weight + bias

Layer norm takes the statistics over each sample's last dimensions; batch norm over the
batch (every dimension but the channels), or uses running statistics in evaluation mode.
PyTorch records either as one node, and so does teachgrad: the stepper shows one box with
the formula below instead of the eight small ops it is made of.

The gradient through the standardisation, with ``ĝ = ∂L/∂x̂ = g · weight`` and means over
the normalised dimensions (``N`` elements each), is::

    ∂L/∂x = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ · x̂))

The two means are the paths through ``mean`` and through ``var``: moving one input moves
the statistics of all the others. With fixed statistics (batch norm in evaluation mode)
only the first term is left: ``∂L/∂x = rstd · ĝ``.

Higher-order gradients: a plain backward reuses the statistics forward computed; under
``create_graph=True`` they are recomputed from the saved input with differentiable ops,
because the second derivative has to see how they depend on ``x``.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..ops.op import Op


def check_parameter_dtypes(input, *parameters) -> None:
    """PyTorch's rule for the dtypes of a normalisation's weight, bias and statistics.

    They must have the input's dtype, except that float16 data may come with float32
    parameters (a half-precision model that keeps its parameters in float32).
    """
    dtypes = {p._data.dtype for p in parameters if p is not None}
    data = input._data.dtype
    if not dtypes or dtypes == {data} or (data == np.float16 and dtypes == {np.dtype(np.float32)}):
        return
    if data == np.float32:
        sentence = "expect parameter to have scalar type of Float"
    else:
        sentence = "all inputs must share same datatype."
    raise RuntimeError(
        f"mixed dtype (CPU): {sentence}"
        f"\nHint: the input is {data.name} but a weight, bias or running statistic is not; "
        "convert one side, e.g. model.to(x.dtype) or x.to(model.weight.dtype)."
    )


def standardize_statistics(x, dims: tuple, eps: float):
    """``(mean, rstd)`` of ``x`` over ``dims`` (kept as size-1 dims), biased variance.

    Written with NumPy functions, so it works on arrays and, under ``create_graph``, on
    tensors (then it records a graph).
    """
    mean = np.mean(x, axis=dims, keepdims=True)
    centered = x - mean
    variance = np.mean(centered * centered, axis=dims, keepdims=True)
    return mean, 1 / np.sqrt(variance + eps)


def standardize_backward(grad_hat, x_hat, rstd, dims: tuple):
    """``∂L/∂x`` from ``∂L/∂x̂`` when ``x̂ = (x − mean(x)) · rstd(x)`` over ``dims``."""
    return rstd * (grad_hat - np.mean(grad_hat, axis=dims, keepdims=True)
                   - x_hat * np.mean(grad_hat * x_hat, axis=dims, keepdims=True))


def _statistics_for_backward(ctx, x):
    """The statistics forward used: kept ones in a plain backward, recomputed (so that
    they are differentiable) when backward runs on tensors under ``create_graph``."""
    if isinstance(x, np.ndarray):
        return ctx.statistics
    return standardize_statistics(x, ctx.dims, ctx.eps)


class NativeLayerNormBackward0(Op):
    """Layer normalisation over the last dimensions ``dims``, then ``· weight + bias``."""

    formula = ("x̂ = (x − mean)·rstd, y = x̂·w + b:  "
               "∂L/∂x = rstd·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)) with ĝ = g·w;  "
               "∂L/∂w = Σ g·x̂;  ∂L/∂b = Σ g")

    @staticmethod
    def forward(ctx, x, weight, bias, dims, eps):
        mean, rstd = standardize_statistics(x, dims, eps)
        ctx.dims, ctx.eps, ctx.statistics = dims, eps, (mean, rstd)
        ctx.save_for_backward(x, weight)
        out = (x - mean) * rstd
        if weight is not None:
            out = out * weight
        return out if bias is None else out + bias

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        need_x, need_weight, need_bias = ctx.needs_input_grad
        mean, rstd = _statistics_for_backward(ctx, x)
        x_hat = (x - mean) * rstd
        grad_hat = grad if weight is None else grad * weight
        # weight and bias broadcast from the right: the engine sums these gradients over
        # the leading (batch) dimensions.
        return (standardize_backward(grad_hat, x_hat, rstd, ctx.dims) if need_x else None,
                grad * x_hat if need_weight else None,
                grad if need_bias else None)


class NativeBatchNormBackward0(Op):
    """Batch normalisation per channel (dimension 1) with given statistics.

    ``mean`` and ``rstd`` have shape ``(1, C, 1, ...)``. In training they are the batch's
    own (and the gradient flows through them); in evaluation they are the running
    statistics, constants.
    """

    formula = ("x̂ = (x − mean)·rstd, y = x̂·w + b per channel:  training "
               "∂L/∂x = rstd·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)), evaluation ∂L/∂x = rstd·ĝ, "
               "ĝ = g·w;  ∂L/∂w = Σ g·x̂;  ∂L/∂b = Σ g")

    @staticmethod
    def forward(ctx, x, weight, bias, mean, rstd, training, eps):
        dims = (0, *range(2, x.ndim))  # every dimension but the channels
        shape = mean.shape  # (1, C, 1, ...): weight and bias broadcast like this
        ctx.dims, ctx.eps, ctx.training, ctx.statistics = dims, eps, training, (mean, rstd)
        ctx.save_for_backward(x, weight)
        out = (x - mean) * rstd
        if weight is not None:
            out = out * weight.reshape(shape)
        return out if bias is None else out + bias.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        need_x, need_weight, need_bias = ctx.needs_input_grad
        if ctx.training:
            mean, rstd = _statistics_for_backward(ctx, x)
        else:
            mean, rstd = ctx.statistics  # running statistics: constants
        x_hat = (x - mean) * rstd
        grad_hat = grad if weight is None else grad * np.reshape(weight, mean.shape)
        if not need_x:
            grad_x = None
        elif ctx.training:
            grad_x = standardize_backward(grad_hat, x_hat, rstd, ctx.dims)
        else:
            grad_x = grad_hat * rstd
        # weight and bias have one value per channel: sum over everything else.
        return (grad_x,
                np.sum(grad * x_hat, axis=ctx.dims) if need_weight else None,
                np.sum(grad, axis=ctx.dims) if need_bias else None)


class NativeGroupNormBackward0(Op):
    """Group normalisation: the channels of each sample split into ``groups`` groups, each
    standardised over its channels and positions, then ``· weight + bias`` per channel.

    It is layer norm on the input seen as ``(N, groups, C/groups · positions)``, with a
    per-channel affine step: the same gradient, on that view.
    """

    formula = ("x̂ = (x − mean)·rstd per group, y = x̂·w + b per channel:  "
               "∂L/∂x = rstd·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)) over each group, ĝ = g·w;  "
               "∂L/∂w = Σ g·x̂;  ∂L/∂b = Σ g")

    @staticmethod
    def forward(ctx, x, weight, bias, groups, eps):
        grouped = x.reshape(x.shape[0], groups, -1)  # one row per group of one sample
        mean, rstd = standardize_statistics(grouped, (2,), eps)
        ctx.groups, ctx.dims, ctx.eps, ctx.statistics = groups, (2,), eps, (mean, rstd)
        ctx.save_for_backward(x, weight)
        out = ((grouped - mean) * rstd).reshape(x.shape)
        channel = (1, x.shape[1], *(1,) * (x.ndim - 2))  # broadcast over all but dim 1
        if weight is not None:
            out = out * weight.reshape(channel)
        return out if bias is None else out + bias.reshape(channel)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        need_x, need_weight, need_bias = ctx.needs_input_grad
        shape, grouped_shape = np.shape(x), (np.shape(x)[0], ctx.groups, -1)
        grouped = np.reshape(x, grouped_shape)
        mean, rstd = _statistics_for_backward(ctx, grouped)
        x_hat = np.reshape((grouped - mean) * rstd, shape)
        channel = (1, shape[1], *(1,) * (len(shape) - 2))
        others = (0, *range(2, len(shape)))  # every dimension but the channels
        grad_hat = grad if weight is None else grad * np.reshape(weight, channel)
        grad_x = None
        if need_x:
            grad_x = np.reshape(standardize_backward(
                np.reshape(grad_hat, grouped_shape), np.reshape(x_hat, grouped_shape), rstd,
                (2,)), shape)
        grad_weight = np.sum(grad * x_hat, axis=others) if need_weight else None
        grad_bias = np.sum(grad, axis=others) if need_bias else None
        if type(grad) is Tensor:  # create_graph: PyTorch's sums end in a view to (C,)
            grad_weight, grad_bias = (None if g is None else np.reshape(g, (shape[1],))
                                      for g in (grad_weight, grad_bias))
        return grad_x, grad_weight, grad_bias
