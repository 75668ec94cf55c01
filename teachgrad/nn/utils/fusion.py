"""Fold an evaluation-mode BatchNorm into the convolution or linear layer before it.

In eval mode BatchNorm is an affine map per channel, ``y = (x − μ)/√(σ² + ε)·γ + β``,
and so is the layer before it: their composition is one layer with
``W' = W · γ/√(σ² + ε)`` (per output channel) and ``b' = (b − μ)·γ/√(σ² + ε) + β``.
One layer instead of two gives the same outputs for less work at inference time.
"""

from __future__ import annotations

import copy

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                         bn_eps: float, bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The weight and bias of the convolution that does conv then (eval) BatchNorm.

    ``transpose``: the weight is a transposed convolution's (output channels on dim 1).
    """
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    conv_b = bn_rm.new_zeros(bn_rm.shape) if conv_b is None else conv_b
    bn_w = bn_rm.new_ones(bn_rm.shape) if bn_w is None else bn_w
    bn_b = bn_rm.new_zeros(bn_rm.shape) if bn_b is None else bn_b
    bn_var_rsqrt = (bn_rv + bn_eps).rsqrt()
    rest = [1] * (conv_w.ndim - 2)
    shape = [1, -1, *rest] if transpose else [-1, 1, *rest]
    fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=bias_dtype)
    return (Parameter(fused_w.detach(), conv_w.requires_grad),
            Parameter(fused_b.detach(), conv_b.requires_grad))


def fuse_conv_bn_eval(conv: Module, bn: Module, transpose: bool = False) -> Module:
    """A copy of ``conv`` that computes ``bn(conv(x))`` (both must be in eval mode)."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    with no_grad():
        fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
            fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps,
            bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor,
                           bn_rv: Tensor, bn_eps: float, bn_w: Tensor,
                           bn_b: Tensor) -> tuple[Parameter, Parameter]:
    """The weight and bias of the linear layer that does linear then (eval) BatchNorm."""
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    linear_b = bn_rm.new_zeros(bn_rm.shape) if linear_b is None else linear_b
    bn_scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=bias_dtype)
    return (Parameter(fused_w.detach(), linear_w.requires_grad),
            Parameter(fused_b.detach(), linear_b.requires_grad))


def fuse_linear_bn_eval(linear: Module, bn: Module) -> Module:
    """A copy of ``linear`` that computes ``bn(linear(x))`` (both must be in eval mode)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    with no_grad():
        fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
            fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps,
            bn.weight, bn.bias)
    return fused_linear
