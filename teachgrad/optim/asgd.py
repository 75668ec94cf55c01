"""``ASGD``: SGD that also keeps a running average of the weights it visits.

For each parameter ``p`` with gradient ``g``, at step ``t`` (PyTorch's exact rule)::

    g = g + weight_decay * p                      (if weight_decay)
    p = p · (1 − λ·η)                             a decay towards 0
    p = p − η · g                                 the SGD step
    ax = p  while μ = 1,  else  ax = ax + μ·(p − ax)     the averaged weights
    η = lr / (1 + λ·lr·t)^α                       the next step size
    μ = 1 / max(1, t − t0)                        averaging starts after t0 steps

The averaged weights ``state[p]['ax']`` (Polyak–Ruppert averaging) are what you would
evaluate with; the parameters themselves follow plain SGD.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._creation import as_tensor, tensor, zeros_like
from .optimizer import Optimizer, check_tensor_lr, check_unsupported


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky, 1992). ``lambd``: decay term, ``alpha``: power
    for the step-size decay, ``t0``: the step at which averaging starts.

    >>> import teachgrad as torch
    >>> w = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.ASGD([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['ax', 'eta', 'mu', 'step']
    """

    # what PyTorch's __setstate__ fills in for a checkpoint of an older version
    _OLD_CHECKPOINT_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False,
                                "capturable": False}
    _TENSOR_STATE = ("step", "eta", "mu")

    def __init__(self, params: Iterable, lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        check_unsupported(differentiable)
        defaults = {
            "lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
            "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, param, group: dict) -> None:
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        grad = param.grad if not group["maximize"] else -param.grad

        state = self.state[param]
        if len(state) == 0:
            state["step"] = tensor(0.0)
            state["eta"] = tensor(float(lr))  # float32 scalars, as in PyTorch
            state["mu"] = tensor(1.0)
            state["ax"] = zeros_like(param)
        eta, mu, ax = state["eta"], state["mu"], state["ax"]

        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])

        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)

        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:  # averaging has not started: the "average" is the current point
            ax.copy_(param)

        # As PyTorch's: each new value becomes a tensor of the default dtype (float32) first
        # and is then copied in, so a float64 parameter's eta and mu (float64 after a
        # load_state_dict) hold float32-rounded values.
        step = state["step"].item()
        eta.copy_(as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(as_tensor(1 / max(1, step - t0)))


__all__ = ["ASGD"]
