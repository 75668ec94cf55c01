"""``NAdam``: Adam with Nesterov momentum (Dozat, 2016).

For each parameter ``p`` with gradient ``g``, at step ``t`` (PyTorch's exact rule)::

    g = g + weight_decay * p              (decoupled_weight_decay: p = p·(1 − lr·wd) instead)
    μₜ = β1·(1 − ½·0.96^(t·ψ))            a momentum that warms up (ψ: momentum_decay)
    Πₜ = μ₁·μ₂·…·μₜ                        kept in the state as ``mu_product``
    m = β1·m + (1 − β1)·g,   v = β2·v + (1 − β2)·g²
    d = √(v / (1 − β2ᵗ)) + eps
    p = p − lr·(1 − μₜ)/(1 − Πₜ) · g/d − lr·μₜ₊₁/(1 − Πₜ·μₜ₊₁) · m/d

The last line looks one step ahead (μₜ₊₁): Nesterov's "move with the momentum first,
then correct with the gradient", applied to Adam's moving average.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._creation import tensor, zeros_like
from .adamax import check_betas
from .optimizer import Optimizer, check_tensor_lr, check_unsupported


class NAdam(Optimizer):
    """NAdam, default ``lr=2e-3``; ``decoupled_weight_decay=True`` gives NAdamW.

    >>> import teachgrad as torch
    >>> w = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.NAdam([w])
    >>> (w ** 2).sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['exp_avg', 'exp_avg_sq', 'mu_product', 'step']
    """

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"maximize": False, "foreach": None, "capturable": False,
                                "differentiable": False, "decoupled_weight_decay": False}
    _TENSOR_STATE = ("step", "mu_product")

    def __init__(self, params: Iterable, lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        check_unsupported(differentiable)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
            "foreach": foreach, "capturable": capturable, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, param, group: dict) -> None:
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        momentum_decay = group["momentum_decay"]
        grad = param.grad if not group["maximize"] else -param.grad

        state = self.state[param]
        if len(state) == 0:
            state["step"] = tensor(0.0)
            state["mu_product"] = tensor(1.0)  # float32, as in PyTorch: it rounds alike
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        mu_product = state["mu_product"]

        state["step"] += 1
        step = state["step"].item()
        bias_correction2 = 1 - beta2**step
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        # The momentum schedule: this step's μ and the next one's.
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product.mul_(mu)

        exp_avg.lerp_(grad, 1 - beta1)  # m = β1·m + (1−β1)·g, as PyTorch
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)

        product = mu_product.item()
        mu_product_next = product * mu_next
        # Two addcdiv_ calls: the gradient's share, then the momentum's (looking ahead).
        param.add_((-lr * (1.0 - mu) / (1.0 - product)) * grad / denom)
        param.add_((-lr * mu_next / (1.0 - mu_product_next)) * exp_avg / denom)


__all__ = ["NAdam"]
