"""``Adadelta``: a step size that needs no learning rate (almost).

For each parameter ``p`` with gradient ``g`` (PyTorch's exact rule)::

    g = g + weight_decay * p                          (if weight_decay)
    v = ρ·v + (1 − ρ)·g²                              running mean of squared gradients
    Δ = √(u + eps) / √(v + eps) · g                   the step, in the units of p
    u = ρ·u + (1 − ρ)·Δ²                              running mean of squared steps
    p = p − lr · Δ

The ratio √u/√v gives the step the units of the parameter (Zeiler's argument), so the
default ``lr=1.0`` works: ``lr`` only rescales the step.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._creation import tensor, zeros_like
from .optimizer import Optimizer, check_tensor_lr, check_unsupported


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012). ``rho`` is the decay of both running means.

    >>> import teachgrad as torch
    >>> w = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.Adadelta([w])
    >>> (w ** 2).sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['acc_delta', 'square_avg', 'step']
    """

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False,
                                "capturable": False}
    _TENSOR_STATE = ("step",)

    def __init__(self, params: Iterable, lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None,
                 *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        check_unsupported(differentiable)
        defaults = {
            "lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
            "maximize": maximize, "capturable": capturable, "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, param, group: dict) -> None:
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        grad = param.grad if not group["maximize"] else -param.grad

        state = self.state[param]
        if len(state) == 0:
            state["step"] = tensor(0.0)
            state["square_avg"] = zeros_like(param)
            state["acc_delta"] = zeros_like(param)
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]

        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])

        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)


__all__ = ["Adadelta"]
