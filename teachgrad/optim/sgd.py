"""``SGD``: stochastic gradient descent, with optional momentum and weight decay.

The update, for each parameter ``p`` with gradient ``g`` (PyTorch's exact rule)::

    g = g + weight_decay * p                      (if weight_decay)
    buf = g                       on the first step, then
    buf = momentum * buf + (1 - dampening) * g    (if momentum)
    g = g + momentum * buf  if nesterov  else  buf
    p = p - lr * g
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, check_common, check_tensor_lr, check_unsupported


class SGD(Optimizer):
    """Stochastic gradient descent: ``p -= lr * grad`` (plus momentum if asked).

    >>> import teachgrad as torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.1)
    >>> (w ** 2).sum().backward()
    >>> opt.step()
    >>> w
    tensor([0.8000, 1.6000], requires_grad=True)
    """

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"nesterov": False, "maximize": False, "foreach": None,
                                "differentiable": False, "fused": False}

    def __init__(self, params: Iterable, lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        check_tensor_lr(lr)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        check_common(lr, weight_decay)
        check_unsupported(differentiable)
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening,
            "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
            "foreach": foreach, "differentiable": differentiable, "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()`` if given."""
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                lr, momentum = group["lr"], group["momentum"]
                dampening, weight_decay = group["dampening"], group["weight_decay"]
                maximize, nesterov = group["maximize"], group["nesterov"]
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue  # this parameter took no part in the loss
                    if maximize:
                        grad = -grad

                    if weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)

                    if momentum != 0:
                        state = self.state[p]
                        buf = state.get("momentum_buffer")
                        if buf is None:
                            buf = grad.detach().clone()
                            state["momentum_buffer"] = buf
                        else:
                            buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                        grad = grad.add(buf, alpha=momentum) if nesterov else buf

                    p.add_(grad, alpha=-lr)
        return loss


__all__ = ["SGD"]
