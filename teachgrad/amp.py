"""``torch.amp``: automatic mixed precision, as PyTorch runs it on a machine without a GPU.

Mixed precision computes in float16/bfloat16 on an accelerator, and ``GradScaler``
multiplies the loss so that small float16 gradients do not round to zero. teachgrad
computes with NumPy on the CPU, in the dtype you choose. It still has ``autocast`` and
``GradScaler``, because PyTorch's mixed-precision recipe is written to run anywhere::

    use_amp = True
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()

On a machine without CUDA, PyTorch warns once for each and switches both off: the loop
runs in float32, and ``scaler.step(opt)`` is ``opt.step()``. teachgrad, which has no CUDA,
does the same, with PyTorch's warnings; with ``enabled=False`` both are silent no-ops.
What teachgrad cannot do is what PyTorch does with ``device_type="cpu"``: compute in
bfloat16 (NumPy has none), and scale float16 gradients. Asking for that is refused.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from ._device import device as _device

__all__ = ["autocast", "GradScaler", "is_autocast_enabled"]

_HINT = ("\nHint: teachgrad computes on the CPU with NumPy, in the dtype you choose, and "
         "has no mixed precision there. Pass enabled=False (the recipe's use_amp = False), "
         "or make the model float16 yourself with model.half().")


def _device_type(device: Any) -> str:
    """The device's type, with PyTorch's error for a string that names none."""
    return _device(device).type if isinstance(device, str) else str(device)


class autocast:  # noqa: N801 - PyTorch's name
    """Mixed precision for a block (``with``) or a function (decorator): off here.

    >>> import teachgrad as torch
    >>> with torch.autocast("cpu", enabled=False):
    ...     print(torch.ones(2, 2) @ torch.ones(2, 2))
    tensor([[2., 2.],
            [2., 2.]])
    """

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        kind = _device_type(device_type)
        if enabled and kind == "cuda":  # (PyTorch's words on a machine without CUDA)
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                          "autocast.", UserWarning, stacklevel=2)
            enabled = False
        if enabled:
            raise RuntimeError(f"autocast on '{kind}' is not available in teachgrad" + _HINT)
        self.device, self.fast_dtype, self._enabled = kind, dtype, False

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None

    def __call__(self, function: Callable) -> Callable:
        """Used as a decorator: ``function`` runs inside this autocast (here: as it is)."""

        @functools.wraps(function)
        def run(*args, **kwargs):
            with self:
                return function(*args, **kwargs)

        return run


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on: never, in teachgrad (see the module's docstring)."""
    return False


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
