"""``RAdam``: Adam whose adaptive step is switched on only once it can be trusted.

In the first steps Adam's ``v`` averages only a few squared gradients, so ``1/√v`` has a
huge variance. RAdam (Liu et al., 2019) measures that with ``ρₜ``, the length of the
moving average, and (PyTorch's exact rule, step ``t``)::

    g = g + weight_decay * p          (decoupled_weight_decay: p = p·(1 − lr·wd) instead)
    m = β1·m + (1 − β1)·g,   v = β2·v + (1 − β2)·g²,   m̂ = m / (1 − β1ᵗ)
    ρ∞ = 2/(1 − β2) − 1,     ρₜ = ρ∞ − 2t·β2ᵗ/(1 − β2ᵗ)
    ρₜ > 5:   r = √((ρₜ−4)(ρₜ−2)ρ∞ / ((ρ∞−4)(ρ∞−2)ρₜ))      the rectification
              p = p − lr · m̂ · √(1 − β2ᵗ)/(√v + eps) · r       (Adam, scaled by r)
    else:     p = p − lr · m̂                                   (SGD with momentum)
"""

from __future__ import annotations

from collections.abc import Iterable

from .._creation import tensor, zeros_like
from .adamax import check_betas
from .optimizer import Optimizer, check_tensor_lr, check_unsupported


class RAdam(Optimizer):
    """Rectified Adam; ``decoupled_weight_decay=True`` decays like AdamW.

    >>> import teachgrad as torch
    >>> w = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.RAdam([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step()
    >>> w          # ρ₁ = 1 ≤ 5: a plain momentum step, 0.1 · m̂ = 0.1 · 2
    tensor([0.8000], requires_grad=True)
    """

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False,
                                "decoupled_weight_decay": False, "capturable": False}
    _TENSOR_STATE = ("step",)

    def __init__(self, params: Iterable, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
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
            "maximize": maximize, "foreach": foreach, "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, param, group: dict) -> None:
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        grad = param.grad if not group["maximize"] else -param.grad

        state = self.state[param]
        if len(state) == 0:
            state["step"] = tensor(0.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]

        state["step"] += 1
        step = state["step"].item()
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        exp_avg.lerp_(grad, 1 - beta1)  # m = β1·m + (1−β1)·g, as PyTorch
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        bias_corrected_exp_avg = exp_avg / bias_correction1

        rho_inf = 2 / (1 - beta2) - 1  # the longest the moving average can get
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(eps)
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:  # too few squared gradients averaged yet: no adaptive step
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)


__all__ = ["RAdam"]
