"""``F.batch_norm``: normalise every channel with the batch's statistics (or running ones).

The statistics are computed here (and the running ones updated); the normalisation itself
is one ``NativeBatchNormBackward0`` node, as in PyTorch, whose gradient is in
:mod:`teachgrad.nn.normalization_ops`.

>>> import teachgrad as torch
>>> x = torch.tensor([[1.0, 10.0], [3.0, 30.0]])
>>> torch.nn.functional.batch_norm(x, None, None, training=True)
tensor([[-1.0000, -1.0000],
        [ 1.0000,  1.0000]])
"""

from __future__ import annotations

import math

import numpy as np

from .._input_check import refuses_complex
from .._tensor import Tensor, _make
from ..autograd.grad_mode import no_grad
from ..ops.index import saving_indices
from ..ops.quiet_mean import mean_of
from .argument_types import argument_error, scalar_argument
from .normalization_ops import NativeBatchNormBackward0, check_parameter_dtypes


@refuses_complex("batch_norm", momentum=7)
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float | None = 0.1, eps: float = 1e-5) -> Tensor:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` per channel (dimension 1).

    Training: mean and *biased* variance of this batch (over every dimension but 1), and
    the running statistics, if given, move towards the batch's:
    ``running = (1 - momentum) · running + momentum · batch`` with the *unbiased*
    variance. Evaluation: the running statistics are used instead.
    """
    # PyTorch's _verify_batch_size: exactly one value per channel is refused (an empty
    # batch is not: its output is empty and the running statistics stay as they are)
    if training and input.shape[0] * math.prod(input.shape[2:]) == 1:
        raise ValueError(
            "Expected more than 1 value per channel when training, got input size "
            f"{input.shape}"
        )
    if training and eps <= 0.0:  # (PyTorch 2.13's Python checks, in its words)
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return native_batch_norm(input, running_mean, running_var, weight, bias, training,
                             momentum, eps)


def native_batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                      weight: Tensor | None, bias: Tensor | None, training: bool,
                      momentum: float | None, eps: float) -> Tensor:
    """``batch_norm`` without the checks of PyTorch's Python function (the batch size, the
    sign of ``eps``): what ``instance_norm`` calls, as PyTorch's ``torch.instance_norm``
    reaches ATen's ``batch_norm`` directly, so that a negative ``eps`` gives nan there."""
    channels = input.shape[1] if input.ndim > 1 else 1
    dims = (0, *range(2, input.ndim))
    count = input.numel() // max(channels, 1)
    # (PyTorch's parser, after its Python's checks in batch_norm)
    error = argument_error("batch_norm", "training", "bool", training, 6)
    if error is not None:
        raise error
    if momentum is None:  # (nn.BatchNorm's momentum=None is resolved by the module)
        raise TypeError("batch_norm(): argument 'momentum' (position 7) must be float, not "
                        "NoneType")
    momentum = scalar_argument(momentum, "batch_norm", "momentum", 7, kind="float")
    if input.numel() == 0:
        return _empty_batch_norm(input, weight, bias)
    # PyTorch checks each statistic's size first, then that both or neither are given
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat is None and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
        if stat is not None and stat.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {stat.numel()}")
    if training and (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither "
                         "be None")
    check_parameter_dtypes(input, weight, bias, *((running_mean, running_var) if not training
                                                 else ()))
    shape = (1, channels, *(1,) * (input.ndim - 2))  # broadcast over all but the channel
    # float16 data is normalised in float32 and rounded at the end, as PyTorch's kernel
    # does (float16 squares overflow above 256; its parameters may be float32).
    half = input._data.dtype == np.float16
    data = input.float() if half else input
    x = data._data
    if training:
        mean = mean_of(x, axis=dims, keepdims=True)
        centered = x - mean
        var = mean_of(centered * centered, axis=dims, keepdims=True)  # biased: ÷ count
        if running_mean is not None and momentum is not None and count:
            with no_grad():  # the running statistics are state, not part of the graph
                # The running variance is the unbiased estimate (divides by count - 1).
                batch_mean = _make(mean.reshape(channels))
                unbiased = _make(var.reshape(channels) * (count / (count - 1)))
                # Written as PyTorch's kernel writes them: their versions do not change
                # (a later in-place change is what backward looks for, below).
                new_mean = running_mean * (1 - momentum) + batch_mean * momentum
                new_var = running_var * (1 - momentum) + unbiased * momentum
                running_mean._data[...] = new_mean._data
                running_var._data[...] = new_var._data
    else:
        mean = running_mean._data.reshape(shape).astype(x.dtype, copy=False)
        var = running_var._data.reshape(shape).astype(x.dtype, copy=False)
    rstd = 1 / np.sqrt(var + eps)
    running = (running_mean, running_var) if running_mean is not None else ()
    out = NativeBatchNormBackward0.apply(data, weight, bias, mean=mean, rstd=rstd,
                                         training=training, eps=eps,
                                         running=tuple(t._data for t in running))
    saving_indices(out, running, first=2)  # (backward refuses them changed since)
    return out.to(input.dtype) if half else out


def _empty_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """PyTorch's answer for an empty input: nothing is checked or updated, and the output
    is a copy (not a view, not a new empty tensor) so that the graph reaches the input,
    and the weight and bias too, through their first elements."""
    out = input.clone()
    if weight is not None:
        out = out * weight[0]
    if bias is not None:
        out = out + bias[0]
    return out


__all__ = ["batch_norm", "native_batch_norm"]
