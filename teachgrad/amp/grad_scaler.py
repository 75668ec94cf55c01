"""``torch.amp.GradScaler``: loss scaling for float16 gradients, switched off here.

See :mod:`teachgrad.amp` for why teachgrad has it and what it does.
"""

from __future__ import annotations

import warnings
from typing import Any

from .autocast_mode import _HINT

__all__ = ["GradScaler"]


class GradScaler:
    """Loss scaling for float16 gradients: switched off here, as PyTorch's is without CUDA.

    Disabled, it is the identity: ``scale(loss)`` is ``loss``, ``step(opt)`` is
    ``opt.step()``, ``update()`` does nothing and the scale is 1.0.
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        kind = str(device)  # (PyTorch's scaler does not parse it)
        if enabled and kind == "cuda":
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            enabled = False
        if enabled:
            raise RuntimeError(f"GradScaler on '{kind}' is not available in teachgrad" + _HINT)
        self._device, self._enabled = kind, False

    def is_enabled(self) -> bool:
        """False: the scaler is switched off."""
        return self._enabled

    def scale(self, outputs: Any) -> Any:
        """``outputs`` times the scale, which is 1 when switched off: ``outputs`` itself."""
        return outputs

    def unscale_(self, optimizer: Any) -> None:
        """Divide the optimizer's gradients by the scale: nothing to do when off."""
        return None

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """``optimizer.step(*args, **kwargs)``, as PyTorch's switched-off scaler does."""
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: Any = None) -> None:
        """Grow or shrink the scale after a step: nothing to do when off."""
        return None

    def get_scale(self) -> float:
        """The current scale: 1.0 when switched off."""
        return 1.0

    def state_dict(self) -> dict:
        """The scaler's state for a checkpoint: empty when switched off."""
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a checkpoint's scaler state: nothing to load when switched off."""
        return None
