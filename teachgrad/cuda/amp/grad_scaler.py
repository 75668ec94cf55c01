"""``torch.cuda.amp.GradScaler``: ``torch.amp.GradScaler("cuda", ...)`` under its old,
deprecated name. Using it warns as PyTorch's does."""

from __future__ import annotations

import warnings

from ... import amp as _amp

__all__ = ["GradScaler"]


class GradScaler(_amp.GradScaler):
    """``torch.amp.GradScaler("cuda", ...)``: switched off here (with PyTorch's warning
    when enabled), after a FutureWarning for the old name."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
