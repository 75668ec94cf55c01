"""``AdamW``: Adam with decoupled weight decay (Loshchilov & Hutter, 2017).

Adam's ``weight_decay`` adds ``wd·p`` to the gradient, which then gets divided by √v̂ like
the rest of it: weights with large gradients are hardly decayed. AdamW instead shrinks
every weight directly, ``p = p·(1 − lr·wd)``, before the Adam step.
"""

from __future__ import annotations

from collections.abc import Iterable

from .adam import Adam


class AdamW(Adam):
    """Adam whose weight decay shrinks the weights directly (default ``weight_decay=1e-2``)."""

    def __init__(self, params: Iterable, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict) -> None:
        """Load a pickled optimizer; every group is AdamW's, whatever the checkpoint says."""
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True  # (as PyTorch: set, not defaulted)


__all__ = ["AdamW"]
