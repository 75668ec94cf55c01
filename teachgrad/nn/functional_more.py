"""More of ``nn.functional``: the in-place activations (``F.relu_``, ``F.elu_`` ...),
``gumbel_softmax``, ``pdist`` and ``conv_tbc``.

``F.relu_(x)`` is ``F.relu(x, inplace=True)``: it overwrites ``x`` and returns it, with
PyTorch's in-place ``grad_fn`` name (``EluBackward1`` for ``elu_``: see
:mod:`teachgrad.ops.inplace`).
"""

from __future__ import annotations

import numpy as np

from .._input_check import BUILTIN, DOUBLE, refuses_complex, takes_ints, takes_tensors
from .._tensor import Tensor, _make
from .._warn import warn_user
from ..ops.op import Op
from ..ops.recorded_backward import RecordedBackward
from ..ops.reduce import vector_norm, vector_norm_backward
from . import functional as F
from .argument_types import operand_argument, takes_arguments

__all__ = [
    "relu_", "elu_", "leaky_relu_", "hardtanh_", "threshold_", "rrelu_", "selu_", "celu_",
    "gumbel_softmax", "pdist", "conv_tbc",
]


def relu_(input: Tensor) -> Tensor:
    """``F.relu(input, inplace=True)``."""
    return F.relu(input, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``F.elu(input, alpha, inplace=True)``."""
    return F.elu(input, alpha, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``F.leaky_relu(input, negative_slope, inplace=True)``."""
    return F.leaky_relu(input, negative_slope, inplace=True)


@refuses_complex("hardtanh_", in_place=True, min_val=DOUBLE, max_val=DOUBLE)
def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``F.hardtanh(input, min_val, max_val, inplace=True)``, but ATen's: ``min_val`` above
    ``max_val`` is not refused (only F.hardtanh checks it); the clamp then gives
    ``max_val`` everywhere, as ``clamp`` does."""
    if min_val > max_val:
        return F.hardtanh(input, max_val, max_val, inplace=True)
    return F.hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """``F.threshold(input, threshold, value, inplace=True)``."""
    return F.threshold(input, threshold, value, inplace=True)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """``F.rrelu(input, lower, upper, training, inplace=True)``."""
    return F.rrelu(input, lower, upper, training, inplace=True)


def selu_(input: Tensor) -> Tensor:
    """``F.selu(input, inplace=True)``."""
    return F.selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``F.celu(input, alpha, inplace=True)``."""
    return F.celu(input, alpha, inplace=True)


def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """A differentiable sample of a categorical distribution with log-probabilities
    ``logits`` (up to a constant): ``softmax((logits + g) / tau)`` with Gumbel noise ``g``.

    A small ``tau`` makes the sample nearly one-hot. ``hard=True`` returns the exact one-hot
    vector of the largest entry, with the soft sample's gradient (the straight-through
    trick: ``y_hard - y_soft.detach() + y_soft``).
    """
    if eps != 1e-10:
        warn_user("`eps` parameter is deprecated and has no effect.", UserWarning)
    # -log(Exp(1)) is a Gumbel(0, 1) draw.
    gumbels = -logits.new_empty(logits.shape).exponential_().log()
    y_soft = ((logits + gumbels) / operand_argument(tau, "/")).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = logits.new_zeros(logits.shape).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


@refuses_complex("pdist", p=BUILTIN)
@takes_arguments("pdist", p=("float", BUILTIN))
def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distances between every pair of rows of ``input`` (N × M), as the upper
    triangle of the distance matrix read row by row: N·(N−1)/2 numbers.

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> F.pdist(torch.tensor([[0., 0.], [3., 4.], [6., 8.]]))
    tensor([ 5., 10.,  5.])
    """
    if input._data.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input._data.ndim}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return PdistBackward0.apply(input, p=float(p))


class PdistBackward0(Op):
    """``pdist``'s one node (PyTorch's): the distances of every pair of rows ``i < j``."""

    formula = ("out[k] = ‖x[i] − x[j]‖ₚ for the k-th pair i < j    ∂/∂x[i] += the p-norm's "
               "gradient at x[i] − x[j], ∂/∂x[j] −= it")

    saved_names = ("self", "result")  # grad_fn._saved_...
    saved_attributes = {"p": "p"}

    @staticmethod
    def forward(ctx, x, p):
        first, second = np.triu_indices(x.shape[0], 1)
        out = vector_norm(_make(x[first] - x[second]), p, -1)._data
        ctx.p = p
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        if type(grad) is not np.ndarray:  # create_graph: PyTorch has no formula for it
            return PdistBackwardBackward0.record(ctx, grad, x, out)
        first, second = np.triu_indices(x.shape[0], 1)
        g = vector_norm_backward(grad, x[first] - x[second], out, ctx.p, (1,), False)
        rows = np.zeros_like(x)
        np.add.at(rows, first, g)  # each row takes its share from every pair it is in
        np.add.at(rows, second, -g)
        return rows


class PdistBackwardBackward0(RecordedBackward):
    """PyTorch has no derivative for pdist's backward: differentiating it again raises."""

    formula = "not differentiable: PyTorch has no derivative for it either"

    @staticmethod
    def backward(ctx, gg):
        raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


@takes_tensors("conv_tbc", input=BUILTIN, weight=BUILTIN, bias=BUILTIN)
@takes_ints("conv_tbc", pad=BUILTIN)
def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-d convolution over time-first sequences: ``input`` ``(time, batch, in_channels)``,
    ``weight`` ``(kernel_width, in_channels, out_channels)``, ``bias`` ``(out_channels,)``;
    ``pad`` zeros at both ends of time. The output is ``(time + 2·pad − kernel_width + 1,
    batch, out_channels)``.

    It is ``F.conv1d`` with the axes moved: ``conv1d(input.permute(1, 2, 0),
    weight.permute(2, 1, 0), bias, padding=pad).permute(2, 0, 1)``, which is how it is
    computed here (a negative ``pad`` crops time instead, as in PyTorch).
    """
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    pad = int(pad)
    out_length = input.shape[0] + 2 * pad - weight.shape[0] + 1
    if out_length < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {out_length}: "
                           f"[{out_length}, {input.shape[1]}, {weight.shape[2]}]")
    if pad < 0:  # conv1d pads only outwards: crop the time steps a negative pad removes
        input = input[-pad:input.shape[0] + pad]
        pad = 0
    output = F.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return output.permute(2, 0, 1)
