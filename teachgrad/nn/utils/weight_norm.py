"""Weight normalisation (Salimans & Kingma, 2016): ``w = g · v / ‖v‖``.

The weight is split into a *direction* ``v`` and a *length* ``g`` (one per output unit),
both learned. Gradient descent on (g, v) behaves better than on w itself: the length and
the direction no longer fight each other.

This module has the old API, ``nn.utils.weight_norm`` (a forward pre-hook recomputes
``module.weight`` from ``weight_g`` and ``weight_v`` before every call; deprecated in
PyTorch, and it warns so) and the op both APIs use, ``WeightNormInterfaceBackward0``. The
new API is :func:`teachgrad.nn.utils.parametrizations.weight_norm`.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ..._warn import warn_user
from ...autograd.grad_mode import no_grad
from ...ops.op import Op
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def _other_axes(ndim: int, dim: int) -> tuple:
    """Every axis but ``dim`` (all of them for ``dim=-1``: one norm for the whole tensor)."""
    return tuple(range(ndim)) if dim == -1 else tuple(k for k in range(ndim) if k != dim)


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002
    """The ``pow``-norm of ``v`` over every dimension but ``dim``, kept as size-1 dims
    (a 0-d tensor for ``dim=-1``, the norm of everything)."""
    if dim == -1:
        return v.norm(pow)
    axes = _other_axes(v.ndim, dim)
    if not axes:  # a 1-d v: the norm of each element alone (norm(dim=()) would take all)
        return v.unsqueeze(-1).norm(pow, dim=-1)
    return v.norm(pow, dim=axes, keepdim=True)


class WeightNormInterfaceBackward0(Op):
    formula = (
        "w = g·v/‖v‖:  ∂/∂g = Σ grad·v / ‖v‖    "
        "∂/∂v = (g/‖v‖)·(grad − v·Σ(grad·v)/‖v‖²)"
    )

    @staticmethod
    def forward(ctx, v, g, axes):
        ctx.axes = axes
        ctx.save_for_backward(v, g)
        norm = np.sqrt(np.sum(v * v, axis=axes, keepdims=True))
        return (v * (g / norm)).astype(v.dtype)

    @staticmethod
    def backward(ctx, grad):
        v, g = ctx.saved_tensors
        axes = ctx.axes
        norm = np.sqrt(np.sum(v * v, axis=axes, keepdims=True))
        along = np.sum(grad * v, axis=axes, keepdims=True)
        grad_v = (g / norm) * (grad - v * (along / (norm * norm)))
        return grad_v, along / norm


def weight_norm_interface(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v · g / norm_except_dim(v, 2, dim)`` (PyTorch's ``torch._weight_norm``).

    A fused op (``WeightNormInterfaceBackward0``) when ``dim`` is the first or last
    dimension, as in PyTorch; otherwise composed of ordinary ops.
    """
    if dim == -1 or dim not in (0, v.ndim - 1):
        return v * (g / norm_except_dim(v, 2, dim))
    return WeightNormInterfaceBackward0.apply(v, g, axes=_other_axes(v.ndim, dim))


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm`: recompute ``module.<name>`` from
    ``<name>_g`` and ``<name>_v`` before each call."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        """``g * v / ‖v‖``: the weight from its length ``<name>_g`` and direction ``<name>_v``."""
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return weight_norm_interface(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        """Split ``module.<name>`` into ``<name>_g`` and ``<name>_v`` and register the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Undo :meth:`apply`: the current weight becomes a plain parameter again."""
        with no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs) -> None:
        """The forward pre-hook: recompute ``module.<name>`` from ``g`` and ``v``."""
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Replace parameter ``name`` by a length ``<name>_g`` and a direction ``<name>_v``
    (deprecated in PyTorch: use ``nn.utils.parametrizations.weight_norm``).

    ``dim``: the dimension that keeps its own length (0: one per output unit; None: one
    length for the whole tensor).
    """
    warn_user(
        "`torch.nn.utils.weight_norm` is deprecated in favor of "
        "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
    )
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`weight_norm`: ``<name>`` is a plain parameter again (its current value)."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
