"""``torch.nn.grad``: the gradients of a convolution, as functions of their own.

``conv2d_input(input.shape, weight, grad_output)`` is what backward sends to a
convolution's input, and ``conv2d_weight(input, weight.shape, grad_output)`` what it sends
to its weight: the two vector-Jacobian products of the convolution, for code that writes
its own backward (PyTorch's tutorial fuses a convolution and a batch norm into one custom
Function this way)::

    >>> import teachgrad as torch
    >>> x = torch.ones(1, 1, 3, requires_grad=True)
    >>> w = torch.tensor([[[1.0, 2.0]]])
    >>> out = torch.nn.functional.conv1d(x, w)          # two outputs: x₀+2x₁, x₁+2x₂
    >>> torch.nn.grad.conv1d_input(x.shape, w, torch.ones(1, 1, 2))
    tensor([[[1., 3., 2.]]])

Each is computed by the engine itself: the convolution is recorded on a stand-in for the
other operand (a zero input of ``input_size``: the input's gradient does not depend on the
input's values, only on its shape; likewise for the weight), then differentiated. The
result is differentiable again where ``weight``/``input`` or ``grad_output`` require
grad, as PyTorch's is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .. import _creation
from .._tensor import Tensor
from ..autograd import engine
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight",
           "conv3d_input", "conv3d_weight"]


def conv1d_input(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride=1,
                 padding=0, dilation=1, groups: int = 1) -> Tensor:
    """The gradient ``conv1d`` sends to an input of shape ``input_size``."""
    return _input_gradient(F.conv1d, input_size, weight, grad_output,
                           stride, padding, dilation, groups)


def conv1d_weight(input: Tensor, weight_size: Sequence[int], grad_output: Tensor, stride=1,
                  padding=0, dilation=1, groups: int = 1) -> Tensor:
    """The gradient ``conv1d`` sends to a weight of shape ``weight_size``."""
    return _weight_gradient(F.conv1d, input, weight_size, grad_output,
                            stride, padding, dilation, groups)


def conv2d_input(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride=1,
                 padding=0, dilation=1, groups: int = 1) -> Tensor:
    """The gradient ``conv2d`` sends to an input of shape ``input_size``."""
    return _input_gradient(F.conv2d, input_size, weight, grad_output,
                           stride, padding, dilation, groups)


def conv2d_weight(input: Tensor, weight_size: Sequence[int], grad_output: Tensor, stride=1,
                  padding=0, dilation=1, groups: int = 1) -> Tensor:
    """The gradient ``conv2d`` sends to a weight of shape ``weight_size``."""
    return _weight_gradient(F.conv2d, input, weight_size, grad_output,
                            stride, padding, dilation, groups)


def conv3d_input(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride=1,
                 padding=0, dilation=1, groups: int = 1) -> Tensor:
    """The gradient ``conv3d`` sends to an input of shape ``input_size``."""
    return _input_gradient(F.conv3d, input_size, weight, grad_output,
                           stride, padding, dilation, groups)


def conv3d_weight(input: Tensor, weight_size: Sequence[int], grad_output: Tensor, stride=1,
                  padding=0, dilation=1, groups: int = 1) -> Tensor:
    """The gradient ``conv3d`` sends to a weight of shape ``weight_size``."""
    return _weight_gradient(F.conv3d, input, weight_size, grad_output,
                            stride, padding, dilation, groups)


def _input_gradient(conv: Callable, input_size, weight: Tensor, grad_output: Tensor,
                    *options) -> Tensor:
    stand_in = _creation.zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
    return _vjp(lambda: conv(stand_in, weight, None, *options), stand_in,
                grad_output, weight)


def _weight_gradient(conv: Callable, input: Tensor, weight_size, grad_output: Tensor,
                     *options) -> Tensor:
    stand_in = _creation.zeros(tuple(weight_size), dtype=grad_output.dtype,
                               requires_grad=True)
    return _vjp(lambda: conv(input, stand_in, None, *options), stand_in, grad_output, input)


def _vjp(convolve: Callable, stand_in: Tensor, grad_output: Tensor, other: Tensor) -> Tensor:
    """d<grad_output, convolve()>/d stand_in, with a graph if the caller's values need one."""
    differentiable = is_grad_enabled() and (other.requires_grad or grad_output.requires_grad)
    with enable_grad():
        output = convolve()
        (grad,) = engine.grad((output,), (stand_in,), (grad_output,),
                              create_graph=differentiable)
    return grad
