"""``Rprop``: resilient backpropagation (Riedmiller & Braun, 1993).

Only the *sign* of each gradient is used; every weight has its own step size, which grows
(×1.2) while the gradient keeps its sign and shrinks (×0.5) when the sign flips (the last
step jumped over a minimum). For each parameter, at each step (PyTorch's exact rule)::

    s = sign(g · g_prev)
    step_size = clamp(step_size · (η+ if s > 0, η− if s < 0, 1 if s = 0), min, max)
    g = 0 where s < 0                  (after a flip, wait one step before moving)
    p = p − sign(g) · step_size
    g_prev = g

Made for full-batch training: with mini-batches the signs flip by noise alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._creation import full_like, tensor, zeros_like
from .optimizer import Optimizer, check_tensor_lr, check_unsupported


class Rprop(Optimizer):
    """Rprop. ``lr`` is the initial step size of every weight; ``etas`` = (η−, η+) the
    factors that shrink and grow it; ``step_sizes`` = (min, max) its bounds."""

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False,
                                "capturable": False}
    _TENSOR_STATE = ("step",)

    def __init__(self, params: Iterable, lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        check_unsupported(differentiable)
        defaults = {
            "lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, param, group: dict) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        grad = param.grad if not group["maximize"] else -param.grad

        state = self.state[param]
        if len(state) == 0:
            state["step"] = tensor(0.0)
            state["prev"] = zeros_like(param)
            state["step_size"] = full_like(grad, group["lr"])
        prev, step_size = state["prev"], state["step_size"]
        state["step"] += 1

        sign = grad.mul(prev).sign()
        factor = sign.clone()
        factor[sign.gt(0)] = etaplus
        factor[sign.lt(0)] = etaminus
        factor[sign.eq(0)] = 1
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)

        grad = grad.clone()
        grad[factor.eq(etaminus)] = 0  # the sign flipped: no move this step
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)


__all__ = ["Rprop"]
