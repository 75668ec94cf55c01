"""``F.group_norm``, ``F.instance_norm`` and ``F.local_response_norm``: normalise over
groups of channels, over each sample's own channel, or across neighbouring channels.

Group norm is one ``NativeGroupNormBackward0`` node, as in PyTorch (its gradient is in
:mod:`teachgrad.nn.normalization_ops`, shared with layer and batch norm). Instance norm is
batch norm on the input seen as one sample with ``N·C`` channels, as PyTorch computes it;
local response norm is built from ordinary differentiable ops, as PyTorch builds it.

What is averaged, for an input of shape ``(N, C, L)``:

* batch norm: each channel over the batch and length (``N·L`` values per channel)
* instance norm: each channel of each sample over its length (``L`` values)
* group norm: each group of ``C/G`` channels of each sample (``C/G·L`` values)
* layer norm: each sample over the trailing dimensions

>>> import teachgrad as torch
>>> x = torch.tensor([[[1.0, 3.0], [10.0, 30.0]]])
>>> torch.nn.functional.instance_norm(x)
tensor([[[-1.0000,  1.0000],
         [-1.0000,  1.0000]]])
"""

from __future__ import annotations

import math

from .. import _dtypes
from .._input_check import refuses_complex
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .argument_types import (
    argument_error,
    operand_argument,
    scalar_argument,
    takes_arguments,
)
from .batch_norm import native_batch_norm
from .normalization_ops import NativeGroupNormBackward0, check_parameter_dtypes
from .padding import pad
from .pooling import avg_pool2d, avg_pool3d


@refuses_complex("group_norm", eps=5)
@takes_arguments("group_norm", eps=("float", 5))
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Split the ``C`` channels into ``num_groups`` groups and normalise each group of each
    sample (mean 0, variance 1 over its channels and positions), then ``* weight + bias``
    per channel. Independent of the batch size: it behaves the same in training and eval.

    >>> import teachgrad as torch
    >>> x = torch.tensor([[1.0, 3.0, 10.0, 30.0]])
    >>> torch.nn.functional.group_norm(x, 2)
    tensor([[-1.0000,  1.0000, -1.0000,  1.0000]])
    """
    return group_norm_outputs(input, num_groups, weight, bias, eps)[0]


def group_norm_outputs(input: Tensor, num_groups: int, weight: Tensor | None = None,
                       bias: Tensor | None = None, eps: float = 1e-5) -> tuple:
    """``(group_norm(...), mean, rstd)``: the one node's three outputs, as PyTorch's
    ``native_group_norm`` returns them (the statistics shaped ``(N, num_groups)``; for a
    float16 input they stay float32, the precision they were computed in)."""
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    n, c, *spatial = input.shape
    if num_groups == 0:  # (PyTorch's _verify_batch_size divides by it first)
        raise ZeroDivisionError("integer division or modulo by zero")
    if n * c // num_groups * math.prod(spatial) == 1:  # PyTorch's _verify_batch_size,
        raise ValueError(                                # in its Python, before its kernel
            "Expected more than 1 value per channel when training, got input size "
            f"{[n * c // num_groups, num_groups, *spatial]}"
        )
    # (PyTorch's Python has divided by it: only now does its parser see the type)
    error = argument_error("group_norm", "num_groups", "int", num_groups, 2)
    if error is not None:
        raise error
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and (param.dim() != 1 or param.numel() != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(param.shape)} and input of shape "
                f"{list(input.shape)}"
            )
    check_parameter_dtypes(input, weight, bias)
    # float16 is normalised in float32 and rounded at the end, as PyTorch's kernel does.
    x = input.float() if input.dtype is _dtypes.float16 else input
    out, mean, rstd = NativeGroupNormBackward0.apply(x, weight, bias, groups=num_groups,
                                                     eps=eps)
    return (out if x is input else out.to(input.dtype)), mean, rstd


@refuses_complex("instance_norm", momentum=7, eps=8)
@takes_arguments("instance_norm", use_input_stats=("bool", 6),
                 momentum=("float", 7), eps=("float", 8))
def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample over its own positions (``(N, C, *)``).

    With ``use_input_stats`` (training) the statistics are the instance's own, and the
    running statistics, if given, move towards their average over the batch:
    ``running = (1 − momentum)·running + momentum·mean over samples`` (unbiased variance).
    Otherwise the running statistics normalise every instance. This is PyTorch's rule, which
    runs batch norm on the input seen as one sample of ``N·C`` channels.
    """
    eps = scalar_argument(eps, "instance_norm", "eps", 8, kind="float")
    if momentum is None:  # (the module turns its momentum=None into 0.0)
        raise TypeError(
            "instance_norm(): argument 'momentum' (position 7) must be float, not "
            "NoneType\nHint: give a number; momentum=None (a cumulative "
            "average) is something only the InstanceNorm modules accept."
        )
    if use_input_stats and math.prod(input.shape[2:]) == 1:  # (a 0-d input too: first)
        raise ValueError(
            "Expected more than 1 spatial element when training, got input size "
            f"{input.size()}"
        )
    n, c = input.shape[0], input.shape[1] if input.dim() > 1 else 1
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    # PyTorch repeats the per-channel tensors over the batch (t.repeat(N)), which refuses
    # one of more dimensions than that one repeat count; then its messages count N·C.
    for param in (weight, bias, running_mean, running_var):
        if param is not None and param.dim() > 1:
            raise RuntimeError(
                "Number of dimensions of repeat dims can not be smaller than number of "
                "dimensions of tensor\nHint: instance_norm's running_mean, running_var, "
                f"weight and bias hold one value per channel: 1-D, of size {c}.")
    for name, param in (("running_mean", running_mean), ("running_var", running_var),
                        ("weight", weight), ("bias", bias)):
        if param is not None and param.numel() * n != n * c:
            raise RuntimeError(f"{name} should contain {n * c} elements not {param.numel() * n}")

    if n * c == 0 and (weight is not None or bias is not None):
        # PyTorch's kernel reads the first of the N·C repeated weights (or biases), and
        # there are none: an empty batch (or no channels) with affine parameters fails.
        raise IndexError(
            "select(): index 0 out of range for tensor of size [0] at dimension 0\nHint: "
            f"instance_norm with weight or bias needs a sample and a channel (input of shape "
            f"{list(input.shape)}); skip the call for an empty batch."
        )
    # As PyTorch: batch norm of the input seen as one sample with N·C channels (so the
    # per-channel tensors are repeated N times), viewed back to the input's shape.
    as_channels = input.reshape(1, n * c, *input.shape[2:])
    repeated = [None if t is None else t.repeat(n) for t in (running_mean, running_var)]
    out = native_batch_norm(as_channels, *repeated,
                            None if weight is None else weight.repeat(n),
                            None if bias is None else bias.repeat(n),
                            training=use_input_stats, momentum=momentum, eps=eps)
    if use_input_stats and running_mean is not None and running_var is not None:
        with no_grad():  # each instance moved its copy: the running stats are their mean
            running_mean.copy_(repeated[0].view(n, c).mean(0))
            running_var.copy_(repeated[1].view(n, c).mean(0))
    return out.view(input.shape)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """Divide each value by ``(k + alpha · mean of x² over `size` neighbouring
    channels)^beta`` (AlexNet's normalisation; neighbours beyond the edges count as 0).

    >>> import teachgrad as torch
    >>> x = torch.tensor([[[2.0], [0.0]]])
    >>> torch.nn.functional.local_response_norm(x, size=2, alpha=1.0, beta=1.0, k=0.0)
    tensor([[[1.],
             [0.]]])
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            "dimensions)"
        )
    if input.numel() == 0:
        return input
    squares = input.mul(input)
    if dim > 4:
        # PyTorch views the squares as (N, 1, C, H, rest), which a transposed input's
        # layout may not allow: the same view here gives its error.
        squares.view(squares.shape[0], 1, squares.shape[1], squares.shape[2], -1)
    _check_window(size, dim)
    # As PyTorch records it: zero channels before and after (pad), then the mean over each
    # window of `size` channels (average pooling with a (size, 1) window, stride 1).
    before, after = size // 2, (size - 1) // 2
    if dim == 3:
        padded = pad(squares.unsqueeze(1), (0, 0, before, after))
        div = avg_pool2d(padded, (size, 1), stride=1).squeeze(1)
    else:
        sizes = squares.shape
        padded = pad(squares.view(sizes[0], 1, sizes[1], sizes[2], -1),
                     (0, 0, 0, 0, before, after))
        div = avg_pool3d(padded, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(operand_argument(alpha, "mul"))
    div = div.add(operand_argument(k, "add")).pow(operand_argument(beta, "pow"))
    return input / div


def _check_window(size: int, dim: int) -> None:
    """PyTorch's errors for a window ``size`` that is no positive int: it pads the squares
    with ``size // 2`` channels (F.pad refuses a float), then average-pools them with a
    window of ``size`` channels (2-d pooling for a 3-d input, else 3-d)."""
    try:
        size // 2  # (PyTorch's Python computes this first: Python's words for no number)
    except TypeError as error:
        raise TypeError(f"{error}\nHint: size is a number of channels, an int.") from None
    if isinstance(size, bool):
        raise TypeError(f"avg_pool{2 if dim == 3 else 3}d(): argument 'kernel_size' (position 2) "
                        "must be tuple of ints, but found element of type bool at pos 0"
                        "\nHint: size is a number of channels, an int.")
    if isinstance(size, float):
        position = 3 if dim == 3 else 5  # (the channel padding's place in pad's tuple)
        raise TypeError(f"pad(): argument 'pad' failed to unpack the object at pos {position} "
                        'with error "type must be tuple of ints,but got float"'
                        "\nHint: size is a number of channels, an int.")
    if size <= 0:
        window = f"kH: {size} kW: 1" if dim == 3 else f"kT: {size} kH: 1 kW: 1"
        raise RuntimeError(f"kernel size should be greater than zero, but got {window}")


__all__ = ["group_norm", "instance_norm", "local_response_norm"]
