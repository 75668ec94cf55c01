"""``RMSprop``: divide each gradient by a running root-mean-square of its recent values.

For each parameter ``p`` with gradient ``g`` (PyTorch's exact rule)::

    g = g + weight_decay * p                        (if weight_decay)
    v = α·v + (1 − α)·g²                            running mean of squared gradients
    centered: a = α·a + (1 − α)·g ; d = √(v − a²)   (subtract the squared mean gradient)
    else:     d = √v
    momentum: buf = momentum·buf + g / (d + eps) ; p = p − lr·buf
    else:     p = p − lr · g / (d + eps)
"""

from __future__ import annotations

from collections.abc import Iterable

from .._creation import tensor, zeros_like
from .optimizer import Optimizer, check_common, check_tensor_lr, check_unsupported


class RMSprop(Optimizer):
    """RMSprop (Hinton's lecture notes), with optional momentum and centering."""

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"momentum": 0, "centered": False, "foreach": None,
                                "maximize": False, "differentiable": False, "capturable": False}
    _TENSOR_STATE = ("step",)

    def __init__(self, params: Iterable, lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        check_common(lr, 0.0, eps)
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        check_common(lr, weight_decay)
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        check_unsupported(differentiable)
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
            "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, param, group: dict) -> None:
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        grad = param.grad if not group["maximize"] else -param.grad

        state = self.state[param]
        if len(state) == 0:
            state["step"] = tensor(0.0)
            state["square_avg"] = zeros_like(param)
            if momentum > 0:
                state["momentum_buffer"] = zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = zeros_like(param)
        square_avg = state["square_avg"]

        state["step"] += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)

        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)  # as PyTorch (rounding from the nearer end)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)

        if momentum > 0:
            buf = state["momentum_buffer"]
            buf.mul_(momentum).add_(grad / avg)
            param.add_(buf, alpha=-lr)
        else:
            param.add_(-lr * grad / avg)


__all__ = ["RMSprop"]
