"""``Adagrad``: each weight's step shrinks with the sum of its squared gradients so far.

For each parameter ``p`` with gradient ``g``, at step ``t`` (PyTorch's exact rule)::

    g = g + weight_decay * p                     (if weight_decay)
    clr = lr / (1 + (t − 1) · lr_decay)          (an optional 1/t decay of the rate)
    sum = sum + g²                               every squared gradient, never forgotten
    p = p − clr · g / (√sum + eps)

Weights that saw large gradients take small steps; rarely-updated weights keep large
ones (why it suited sparse features). The sum only grows, so the steps only shrink:
RMSprop and Adam replace it by a moving average.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._creation import full_like, tensor
from .optimizer import Optimizer, check_tensor_lr, check_unsupported


class Adagrad(Optimizer):
    """Adagrad (Duchi, Hazan & Singer, 2011).

    ``initial_accumulator_value`` is where every ``sum`` starts; ``lr_decay`` divides the
    learning rate by ``1 + (t − 1)·lr_decay``. As in PyTorch, the state (``step``, ``sum``)
    is created for every parameter right away, not at the first step.

    >>> import teachgrad as torch
    >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = torch.optim.Adagrad([w], lr=0.5)
    >>> (w ** 2).sum().backward(); opt.step()
    >>> w          # the first step is lr · sign(g), whatever the gradient's size
    tensor([ 0.5000, -1.5000], requires_grad=True)
    """

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False,
                                "fused": None}
    _TENSOR_STATE = ("step",)

    def __init__(self, params: Iterable, lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_unsupported(differentiable)
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, param) -> None:
        state = self.state[param]
        state["step"] = tensor(0.0)
        # PyTorch reads the constructor's value here, not the group's.
        state["sum"] = full_like(param, self.defaults["initial_accumulator_value"])

    def _update(self, param, group: dict) -> None:
        state = self.state[param]
        if len(state) == 0:  # a parameter group added after construction
            self._init_state(param)
        state_sum = state["sum"]
        grad = param.grad if not group["maximize"] else -param.grad

        state["step"] += 1
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])

        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(group["eps"])
        param.add_(-clr * grad / std)  # addcdiv_(grad, std, value=-clr)


__all__ = ["Adagrad"]
