"""``Adafactor`` (Shazeer & Stern, 2018): Adam-like steps with far less memory.

Adam keeps a second-moment estimate ``v`` as large as the weight. For a matrix Adafactor
keeps only its row means and column means, and rebuilds ``v ≈ row ⊗ col / mean(row)``
(a rank-one *factored* estimate): O(n + m) numbers instead of O(n·m). It also needs no
first moment, scales the step by the weight's own size, and clips updates that are too
large. PyTorch's rule, for each parameter at step t::

    β2_t = 1 − t^beta2_decay                        (the averages forget less and less)
    ρ = min(lr, 1/√t)
    α = max(eps2, RMS(p)) · ρ                       (a step relative to the weight's size)
    p = p · (1 − lr·weight_decay)
    matrix: row = lerp(row, mean_cols(g²), 1 − β2_t); col = lerp(col, mean_rows(g²), ...)
            v = row·col / max(mean(row), eps1)
    vector: v = lerp(v, g², 1 − β2_t)
    u = g / √max(v, eps1²)
    p = p − α / max(1, RMS(u)/d) · u
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._creation import tensor, zeros_like
from .optimizer import Optimizer, check_tensor_lr


class Adafactor(Optimizer):
    """Adafactor. ``eps`` = (eps1, eps2): eps1 (default: the dtype's machine epsilon)
    bounds the variance estimate from below, eps2 the weight scale; ``d`` clips the
    update's RMS; ``beta2_decay`` sets how fast the averages' memory grows."""

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"foreach": None}
    _TENSOR_STATE = ("step",)

    def __init__(self, params: Iterable, lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
            "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
        }
        super().__init__(params, defaults)

    def _update(self, param, group: dict) -> None:
        lr, d, weight_decay = group["lr"], group["d"], group["weight_decay"]
        eps1, eps2 = group["eps"]
        grad = param.grad if not group["maximize"] else -param.grad
        if eps1 is None:
            eps1 = float(np.finfo(param._data.dtype).eps)

        state = self.state[param]
        if len(state) == 0:
            state["step"] = tensor(0.0)
            if grad.dim() > 1:
                row_shape, col_shape = list(grad.shape), list(grad.shape)
                row_shape[-1], col_shape[-2] = 1, 1
                state["row_var"] = grad.new_zeros(row_shape)  # one mean of g² per row
                state["col_var"] = grad.new_zeros(col_shape)  # ... and per column
            else:
                state["variance"] = zeros_like(grad)

        state["step"] += 1
        step = state["step"].item()
        one_minus_beta2_t = step**group["beta2_decay"]
        rho_t = min(lr, 1 / (step**0.5))
        alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho_t

        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)

        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_mean = grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1))
            row_var.lerp_(row_mean, one_minus_beta2_t)
            col_mean = grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2))
            col_var.lerp_(col_mean, one_minus_beta2_t)
            var_estimate = row_var @ col_var  # the rank-one estimate of E[g²]
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance = state["variance"]
            variance.lerp_(grad * grad, one_minus_beta2_t)
            var_estimate = variance.clone()

        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()  # (eps1² before the root)
        update.mul_(grad)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
        param.add_(update, alpha=-alpha / denom)


__all__ = ["Adafactor"]
