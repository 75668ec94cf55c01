"""``Adam``: gradient descent with per-parameter step sizes from moving averages.

For each parameter ``p`` with gradient ``g``, at step ``t`` (PyTorch's exact rule)::

    g = g + weight_decay * p                   (Adam's L2 penalty; AdamW decays p instead)
    m = β1·m + (1 − β1)·g                      first moment: a smoothed gradient
    v = β2·v + (1 − β2)·g²                     second moment: a smoothed squared gradient
    m̂ = m / (1 − β1ᵗ),  v̂ = v / (1 − β2ᵗ)      bias correction (m and v start at 0)
    p = p − lr · m̂ / (√v̂ + eps)

Dividing by √v̂ gives every weight its own step size: about ``lr`` whatever the scale of
its gradient.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._creation import tensor, zeros_like
from .optimizer import Optimizer, check_common, check_tensor_lr, check_unsupported


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2014), optionally with AMSGrad.

    ``betas`` are the decay rates of the two moving averages; ``eps`` keeps the division
    safe. ``decoupled_weight_decay=True`` is AdamW (see :class:`~teachgrad.optim.AdamW`).
    """

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"amsgrad": False, "maximize": False, "foreach": None,
                                "capturable": False, "differentiable": False,
                                "decoupled_weight_decay": False, "fused": None}
    _TENSOR_STATE = ("step",)

    def __init__(self, params: Iterable, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        check_tensor_lr(lr)
        check_common(lr, 0.0, eps)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        check_common(lr, weight_decay)
        check_unsupported(differentiable)
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
            "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
            "capturable": capturable, "differentiable": differentiable, "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _update(self, param, group: dict) -> None:
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        grad = param.grad if not group["maximize"] else -param.grad

        state = self.state[param]
        if len(state) == 0:  # first step: both averages start at zero
            state["step"] = tensor(0.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(param)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]

        state["step"] += 1
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)  # AdamW: shrink the weight itself
            else:
                grad = grad.add(param, alpha=weight_decay)  # Adam: an L2 term in the gradient

        # m = β1·m + (1−β1)·g, as PyTorch: lerp_ (which rounds from the nearer end)
        exp_avg.lerp_(grad, 1 - beta1)
        # v = β2·v + (1−β2)·g²
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

        step = state["step"].item()
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5

        if group["amsgrad"]:
            # AMSGrad: divide by the largest v seen so far, so steps never grow back.
            max_exp_avg_sq = state["max_exp_avg_sq"]
            max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq))
            denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)

        # p = p − lr·m̂/(√v̂ + eps), with both bias corrections folded into the scalars.
        param.add_(-step_size * exp_avg / denom)


__all__ = ["Adam"]
