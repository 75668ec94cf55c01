"""``Adamax``: Adam with the infinity norm in place of the root mean square.

For each parameter ``p`` with gradient ``g``, at step ``t`` (PyTorch's exact rule)::

    g = g + weight_decay * p                  (if weight_decay)
    m = β1·m + (1 − β1)·g                     first moment, as in Adam
    u = max(β2·u, |g| + eps)                  a decaying maximum of |g|
    p = p − lr / (1 − β1ᵗ) · m / u

``u`` needs no bias correction: a maximum does not start biased towards 0 the way an
average of zeros does.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._creation import tensor, zeros_like
from .optimizer import Optimizer, check_tensor_lr, check_unsupported


def check_betas(betas: tuple[float, float]) -> None:
    """PyTorch's check of Adam-style ``betas`` (shared with NAdam and RAdam)."""
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


class Adamax(Optimizer):
    """Adamax (Kingma & Ba, 2014, section 7), default ``lr=2e-3``.

    >>> import teachgrad as torch
    >>> w = torch.tensor([1.0, -3.0], requires_grad=True)
    >>> opt = torch.optim.Adamax([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step()
    >>> w          # the first step is lr · sign(g)
    tensor([ 0.9000, -2.9000], requires_grad=True)
    """

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False,
                                "capturable": False}
    _TENSOR_STATE = ("step",)

    def __init__(self, params: Iterable, lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        check_unsupported(differentiable)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, param, group: dict) -> None:
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        grad = param.grad if not group["maximize"] else -param.grad

        state = self.state[param]
        if len(state) == 0:
            state["step"] = tensor(0.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_inf"] = zeros_like(param)
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]

        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])

        exp_avg.lerp_(grad, 1 - beta1)  # m = β1·m + (1−β1)·g, as PyTorch
        exp_inf.copy_(exp_inf.mul_(beta2).maximum(grad.abs().add_(eps)))

        clr = lr / (1 - beta1 ** state["step"].item())
        param.add_(-clr * exp_avg / exp_inf)  # addcdiv_(exp_avg, exp_inf, value=-clr)


__all__ = ["Adamax"]
