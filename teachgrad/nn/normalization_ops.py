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

Higher-order gradients: a plain backward reuses the statistics forward computed. Under
``create_graph=True`` layer and batch norm record their backward as PyTorch does, one node
(``NativeLayerNormBackwardBackward0``, ``NativeBatchNormBackwardBackward0``) whose own
backward is derived by hand (:func:`standardize_double_backward`); group norm's backward
is PyTorch's formula written with the node's own mean and 1/std outputs, so the second
derivative reaches ``x`` through them (and the node's backward for those outputs).
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.forward_formulas import sum_present
from ..ops.number_factor import over_number, times_number
from ..ops.op import Op
from ..ops.quiet_mean import mean_of
from ..ops.recorded_backward import RecordedBackward


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
    mean = mean_of(x, axis=dims, keepdims=True)
    centered = x - mean
    variance = mean_of(centered * centered, axis=dims, keepdims=True)
    return mean, 1 / np.sqrt(variance + eps)


def standardize_backward(grad_hat, x_hat, rstd, dims: tuple):
    """``∂L/∂x`` from ``∂L/∂x̂`` when ``x̂ = (x − mean(x)) · rstd(x)`` over ``dims``."""
    return rstd * (grad_hat - mean_of(grad_hat, axis=dims, keepdims=True)
                   - x_hat * mean_of(grad_hat * x_hat, axis=dims, keepdims=True))


def _statistics_for_backward(ctx, x):
    """The statistics forward used: kept ones in a plain backward, recomputed (so that
    they are differentiable) when backward runs on tensors under ``create_graph``."""
    if isinstance(x, np.ndarray):
        return ctx.statistics
    return standardize_statistics(x, ctx.dims, ctx.eps)


def _statistic(node, which: int, per_channel: bool = False, per_group: bool = False):
    """A normalisation node's ``grad_fn._saved_result1`` (the mean, ``which`` 0) or
    ``result2`` (1/std, 1) as PyTorch's kernel returns it: with the kept dimensions (layer
    norm), one per channel (batch norm; empty in evaluation) or ``(N, groups)`` (group
    norm)."""
    value = node.statistics[which]
    if per_channel:
        value = np.reshape(value, -1) if node.training else np.zeros(0, np.asarray(value).dtype)
    elif per_group:
        value = np.reshape(value, np.shape(value)[:2])
    return _make(np.array(value))


class NativeLayerNormBackward0(Op):
    """Layer normalisation over the last dimensions ``dims``, then ``· weight + bias``."""
    saved_names = ("input", "weight", "bias")  # grad_fn._saved_... (None if not given)
    # the statistics as PyTorch's kernel returns them: the mean and 1/std, kept dims
    saved_attributes = {
        "normalized_shape": lambda node: node.input_meta[-len(node.dims):],
        "result1": lambda node: _statistic(node, 0),
        "result2": lambda node: _statistic(node, 1),
    }

    formula = ("x̂ = (x − mean)·rstd, y = x̂·w + b:  "
               "∂L/∂x = rstd·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)) with ĝ = g·w;  "
               "∂L/∂w = Σ g·x̂;  ∂L/∂b = Σ g")

    @staticmethod
    def forward(ctx, x, weight, bias, dims, eps):
        mean, rstd = standardize_statistics(x, dims, eps)
        ctx.input_meta = x.shape  # (for grad_fn._saved_...: sizes)
        ctx.dims, ctx.eps, ctx.statistics = dims, eps, (mean, rstd)
        # (the bias as PyTorch saves it: an input of the recorded double backward, and
        # changing it in place before backward is an error there too)
        ctx.save_for_backward(x, weight, bias)
        out = (x - mean) * rstd
        if weight is not None:
            out = out * weight
        return out if bias is None else out + bias

    @staticmethod
    def backward(ctx, grad):
        x, weight, bias = ctx.saved_tensors
        if type(grad) is Tensor:  # create_graph: one node, as PyTorch records it
            return NativeLayerNormBackwardBackward0.record(ctx, grad, x, weight, bias)
        need_x, need_weight, need_bias = ctx.needs_input_grad
        mean, rstd = ctx.statistics
        x_hat = (x - mean) * rstd
        grad_hat = grad if weight is None else grad * weight
        # weight and bias broadcast from the right: their gradients sum over the leading
        # (batch) dimensions.
        batch = _leading_dims(x, ctx.dims)
        return (standardize_backward(grad_hat, x_hat, rstd, ctx.dims) if need_x else None,
                np.sum(grad * x_hat, axis=batch) if need_weight else None,
                np.sum(grad, axis=batch) if need_bias else None)


def _leading_dims(x, dims: tuple) -> tuple:
    """The dimensions of ``x`` before the normalised ones (``dims`` counts from the end)."""
    return tuple(range(np.ndim(x) - len(dims)))


class NativeLayerNormBackwardBackward0(RecordedBackward):
    """Layer norm's backward (the gradients of ``x``, ``weight``, ``bias``) as one node.

    Its inputs are PyTorch's: ``grad``, ``x``, ``weight`` and ``bias`` (which is not in
    the formula: its derivative is none, but the gradients require grad when it does);
    the formula is :func:`standardize_double_backward`'s.
    """

    formula = ("layer norm's backward (∂L/∂x, ∂L/∂w, ∂L/∂b) differentiated in g, x and w: "
               "see standardize_double_backward")

    @staticmethod
    def backward(ctx, *ggs):
        grad, x, weight, _bias = ctx.saved_tensors
        node = ctx.node
        gg_x, gg_weight, gg_bias = _per_output(ctx.missing, ggs)
        mean, rstd = _statistics_for_backward(node, x)
        d_grad, d_x, d_weight = standardize_double_backward(
            grad, (x - mean) * rstd, rstd, weight, node.dims, gg_x, gg_weight, gg_bias,
            ctx.needs_input_grad[:3])
        batch = _leading_dims(x, node.dims)
        return d_grad, d_x, None if d_weight is None else np.sum(d_weight, axis=batch), None


def _per_output(missing: list, ggs: tuple) -> list:
    """The gradients a recorded node got, one per output of the first backward (``None``
    for the outputs it did not compute)."""
    present = iter(ggs)
    return [None if gone else next(present, None) for gone in missing]


def standardize_double_backward(grad, x_hat, rstd, weight, dims: tuple, gg_x, gg_weight,
                                gg_bias, needs: tuple, fixed_statistics: bool = False):
    """The derivatives of the normalisation's backward in ``grad``, ``x`` and ``weight``.

    The backward computes ``gx = rstd·P(ĝ)`` (``ĝ = g·w``; ``P(v) = v − mean(v) −
    x̂·mean(v·x̂)``, or ``P(v) = v`` with fixed statistics), ``gw = Σ g·x̂`` and ``gb = Σ g``.
    Given ``u``, ``gg_w``, ``gg_b`` (the gradients arriving for ``gx``, ``gw``, ``gb``;
    ``weight``, ``gg_weight`` and ``gg_bias`` already shaped to broadcast against ``x``),
    with ``P`` symmetric and ``c`` meaning centred (``v − mean(v)``)::

        ∂/∂g = w·rstd·P(u) + gg_w·x̂ + gg_b
        ∂/∂w = g·rstd·P(u)                         (per element: the caller sums)
        ∂/∂x = rstd·P(gg_w·g)
               + rstd²·(x̂·(3·mean(uc·x̂)·mean(ĝc·x̂) − mean(uc·ĝc))
                        − mean(ĝc·x̂)·uc − mean(uc·x̂)·ĝc)

    ``∂/∂g`` of ``Σ u·rstd·P(ĝ)`` is ``rstd·P(u)`` (times ``w``) because ``P`` is
    symmetric. The second line of ``∂/∂x`` is the path through the statistics: over one
    normalised group of ``N``, ``Σ u·gx = rstd·N·(mean(uc·ĝc) − mean(uc·x̂)·mean(ĝc·x̂))``,
    differentiated with ``∂x̂/∂x = rstd·P`` and ``∂rstd/∂x = −rstd²·x̂/N``. With fixed
    statistics (batch norm in evaluation) it is gone and ``P`` is the identity.
    ``needs`` says which of the three are wanted (``None`` for the others).
    """
    def project(v):  # rstd·P(v)
        if fixed_statistics:
            return rstd * v
        return standardize_backward(v, x_hat, rstd, dims)

    def mean(v):
        return mean_of(v, axis=dims, keepdims=True)

    need_grad, need_x, need_weight = needs
    projected = None if gg_x is None else project(gg_x)  # rstd·P(u)
    d_grad = d_x = d_weight = None
    if need_grad:
        weighted = projected if projected is None or weight is None else projected * weight
        d_grad = sum_present(weighted, None if gg_weight is None else gg_weight * x_hat)
        if gg_bias is not None:  # gb = Σ g: every g gets all of gg_b
            d_grad = (np.broadcast_to(gg_bias, np.shape(grad)) if d_grad is None
                      else d_grad + gg_bias)
    if need_weight and projected is not None:
        d_weight = grad * projected
    if need_x:
        through_statistics = None
        if gg_x is not None and not fixed_statistics:
            grad_hat = grad if weight is None else grad * weight
            u_c, g_c = gg_x - mean(gg_x), grad_hat - mean(grad_hat)
            u_x, g_x = mean(u_c * x_hat), mean(g_c * x_hat)
            through_statistics = rstd * rstd * (
                x_hat * (3 * u_x * g_x - mean(u_c * g_c)) - g_x * u_c - u_x * g_c)
        d_x = sum_present(None if gg_weight is None else project(gg_weight * grad),
                     through_statistics)
    return d_grad, d_x, d_weight


class NativeBatchNormBackward0(Op):
    """Batch normalisation per channel (dimension 1) with given statistics.

    ``mean`` and ``rstd`` have shape ``(1, C, 1, ...)``. In training they are the batch's
    own (and the gradient flows through them); in evaluation they are the running
    statistics, constants.
    """
    # (the running statistics: None unless given; in evaluation PyTorch's kernel returns
    # no statistics of its own, so result1 and result2 are empty)
    saved_names = ("input", "weight", "running_mean", "running_var")
    saved_attributes = {
        "eps": "eps", "training": "training",
        "result1": lambda node: _statistic(node, 0, per_channel=True),
        "result2": lambda node: _statistic(node, 1, per_channel=True),
    }

    formula = ("x̂ = (x − mean)·rstd, y = x̂·w + b per channel:  training "
               "∂L/∂x = rstd·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)), evaluation ∂L/∂x = rstd·ĝ, "
               "ĝ = g·w;  ∂L/∂w = Σ g·x̂;  ∂L/∂b = Σ g")

    @staticmethod
    def forward(ctx, x, weight, bias, mean, rstd, training, eps, running=()):
        dims = (0, *range(2, x.ndim))  # every dimension but the channels
        shape = mean.shape  # (1, C, 1, ...): weight and bias broadcast like this
        ctx.input_meta = x.shape  # (for grad_fn._saved_...: sizes)
        ctx.dims, ctx.eps, ctx.training, ctx.statistics = dims, eps, training, (mean, rstd)
        # (``running``: the running statistics' arrays, saved as PyTorch saves them, so
        # that backward refuses them changed in place since: see batch_norm)
        ctx.save_for_backward(x, weight, *running)
        out = (x - mean) * rstd
        if weight is not None:
            out = out * weight.reshape(shape)
        return out if bias is None else out + bias.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors[:2]
        if type(grad) is Tensor:  # create_graph: one node, as PyTorch records it
            return NativeBatchNormBackwardBackward0.record(ctx, grad, x, weight)
        need_x, need_weight, need_bias = ctx.needs_input_grad
        mean, rstd = ctx.statistics  # the batch's, or the running ones (constants)
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


class NativeBatchNormBackwardBackward0(RecordedBackward):
    """Batch norm's backward (the gradients of ``x``, ``weight``, ``bias``) as one node.

    Its inputs are PyTorch's: ``grad``, ``x`` and ``weight``; the formula is
    :func:`standardize_double_backward`'s, per channel (with fixed statistics in
    evaluation mode).
    """

    formula = ("batch norm's backward (∂L/∂x, ∂L/∂w, ∂L/∂b) differentiated in g, x and w: "
               "see standardize_double_backward")

    @staticmethod
    def backward(ctx, *ggs):
        grad, x, weight = ctx.saved_tensors
        node = ctx.node
        if node.training:
            mean, rstd = _statistics_for_backward(node, x)
        else:
            mean, rstd = node.statistics  # running statistics: constants
        channel = np.shape(mean)  # (1, C, 1, ...): per-channel values broadcast like this
        gg_x, gg_weight, gg_bias = (
            gg if gg is None or i == 0 else np.reshape(gg, channel)
            for i, gg in enumerate(_per_output(ctx.missing, ggs)))
        d_grad, d_x, d_weight = standardize_double_backward(
            grad, (x - mean) * rstd, rstd, None if weight is None else np.reshape(weight, channel),
            node.dims, gg_x, gg_weight, gg_bias, ctx.needs_input_grad,
            fixed_statistics=not node.training)
        return d_grad, d_x, None if d_weight is None else np.sum(d_weight, axis=node.dims)


class NativeGroupNormBackward0(Op):
    """Group normalisation: the channels of each sample split into ``groups`` groups, each
    standardised over its channels and positions, then ``· weight + bias`` per channel.

    It is layer norm on the input seen as ``(N, groups, C/groups · positions)``, with a
    per-channel affine step: the same gradient, on that view. As PyTorch's
    ``native_group_norm`` it has three outputs: the result, and each group's mean and
    1/std, shaped ``(N, groups)``. Under ``create_graph`` its gradient is PyTorch's
    ``infinitely_differentiable_native_group_norm_backward``, built from those two outputs,
    so the gradient's graph leads back to this node, as PyTorch's does.
    """
    saved_names = ("input", "weight", "result1", "result2")  # grad_fn._saved_...
    saved_attributes = {
        "N": lambda node: node.input_meta[0], "C": lambda node: node.input_meta[1],
        "HxW": lambda node: math.prod(node.input_meta[2:]), "group": "groups", "eps": "eps",
    }

    formula = ("x̂ = (x − mean)·rstd per group, y = x̂·w + b per channel:  "
               "∂L/∂x = rstd·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)) over each group, ĝ = g·w;  "
               "∂L/∂w = Σ g·x̂;  ∂L/∂b = Σ g")

    materialize_grads = False  # (the statistics' gradients: None unless they are used)

    @staticmethod
    def forward(ctx, x, weight, bias, groups, eps):
        # One row per group of one sample (its length spelled out: no -1 for an empty batch).
        grouped = x.reshape(x.shape[0], groups, math.prod(x.shape[1:]) // groups)
        mean, rstd = standardize_statistics(grouped, (2,), eps)
        ctx.input_meta = x.shape  # (for grad_fn._saved_...: sizes)
        ctx.groups, ctx.dims, ctx.eps, ctx.statistics = groups, (2,), eps, (mean, rstd)
        result1, result2 = mean.reshape(mean.shape[:2]), rstd.reshape(rstd.shape[:2])
        ctx.save_for_backward(x, weight, result1, result2)
        out = ((grouped - mean) * rstd).reshape(x.shape)
        channel = (1, x.shape[1], *(1,) * (x.ndim - 2))  # broadcast over all but dim 1
        if weight is not None:
            out = out * weight.reshape(channel)
        return out if bias is None else out + bias.reshape(channel), result1, result2

    @staticmethod
    def backward(ctx, grad, grad_mean=None, grad_rstd=None):
        x, weight, mean, rstd = ctx.saved_tensors
        if type(x) is Tensor:  # create_graph: PyTorch's formula, node for node
            return _group_norm_backward_recorded(ctx, grad, grad_mean, grad_rstd, x, weight,
                                                 mean, rstd)
        grads = (None, None, None)
        if grad is not None:
            grads = _group_norm_backward(ctx, grad, x, weight)
        if grad_mean is None and grad_rstd is None:
            return grads
        # the statistics' own gradients (a second derivative through the gradient's graph)
        rstd4 = np.reshape(rstd, (*np.shape(rstd), 1, 1))
        through_statistics = np.reshape(_statistics_backward(
            ctx, grad_mean, grad_rstd, _grouped_4d(ctx, x), rstd4), np.shape(x))
        return (sum_present(grads[0], through_statistics), *grads[1:])


def _group_norm_backward(ctx, grad, x, weight) -> tuple:
    """group norm's first-order gradients on arrays, with the statistics forward kept."""
    need_x, need_weight, need_bias = ctx.needs_input_grad
    shape = np.shape(x)
    grouped_shape = (shape[0], ctx.groups, math.prod(shape[1:]) // ctx.groups)
    grouped = np.reshape(x, grouped_shape)
    mean, rstd = ctx.statistics
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
    return grad_x, grad_weight, grad_bias


def _grouped_4d(ctx, t):
    """``t`` (the input's shape) as PyTorch's formula sees it: ``(N, G, C/G, HxW)``."""
    n, c = ctx.input_meta[0], ctx.input_meta[1]
    return t.reshape(n, ctx.groups, c // ctx.groups, math.prod(ctx.input_meta[2:]))


def _statistics_backward(ctx, grad_mean, grad_rstd, x4, rstd4):
    """∂L/∂x through the group's mean and 1/std (PyTorch's var_mean_backward, with
    ∂L/∂var = −½·rstd³·∂L/∂rstd), on arrays or tensors."""
    n, groups = ctx.input_meta[0], ctx.groups
    count = x4.shape[2] * x4.shape[3]
    out = None
    if grad_rstd is not None:
        d_var = times_number(rstd4 * rstd4 * rstd4, -0.5) * grad_rstd.reshape(n, groups, 1, 1)
        centred = x4 - mean_of(x4, axis=(2, 3), keepdims=True)
        out = times_number(d_var, 2.0 / count) * centred
    if grad_mean is not None:  # each of the group's count elements moves its mean by 1/count
        per_group = grad_mean.reshape(n, groups, 1, 1)
        spread = (per_group.expand(*x4.shape) if type(per_group) is Tensor
                  else np.broadcast_to(per_group, x4.shape))
        out = sum_present(out, over_number(spread, count))
    return out


def _group_norm_backward_recorded(ctx, grad, grad_mean, grad_rstd, x, weight, mean, rstd):
    """PyTorch's infinitely_differentiable_native_group_norm_backward on tensors: the
    gradient written with the node's own mean and rstd outputs (so it leads back to it)."""
    need_x, need_weight, need_bias = ctx.needs_input_grad
    n, c = ctx.input_meta[0], ctx.input_meta[1]
    groups = ctx.groups
    per_group = c // groups
    s = 1.0 / (per_group * math.prod(ctx.input_meta[2:]))
    x4 = _grouped_4d(ctx, x)
    mean4, rstd4 = mean.reshape(n, groups, 1, 1), rstd.reshape(n, groups, 1, 1)
    gamma4 = None if weight is None else weight.reshape(1, groups, per_group, 1)
    grad_x = grad_weight = grad_bias = None
    if grad is not None:
        dy4 = _grouped_4d(ctx, grad)
        ds = (dy4 * x4).sum(3).unsqueeze_(-1)
        db = dy4.sum(3).unsqueeze_(-1)
        if need_x:
            a = rstd4 if gamma4 is None else rstd4 * gamma4
            b = (ds.sum(2) if gamma4 is None else (ds * gamma4).sum(2)).unsqueeze_(-2)
            c_ = (db.sum(2) if gamma4 is None else (db * gamma4).sum(2)).unsqueeze_(-2)
            rstd_cube = rstd4 * rstd4 * rstd4
            b = times_number((c_ * mean4 - b) * rstd_cube, s)
            c_ = -b * mean4 - times_number(c_ * rstd4, s)
            grad_x = a * dy4 + b * x4 + c_
        if need_weight:
            grad_weight = ((ds - db * mean4) * rstd4).sum(0).reshape(c)
        if need_bias:
            grad_bias = db.sum(0).reshape(c)
    if need_x and (grad_mean is not None or grad_rstd is not None):
        grad_x = sum_present(grad_x, _statistics_backward(ctx, grad_mean, grad_rstd, x4, rstd4))
    if grad_x is not None:
        grad_x = grad_x.reshape_as(x)
    return grad_x, grad_weight, grad_bias
