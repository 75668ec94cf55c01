"""``torch.cuda.amp.autocast``, ``custom_fwd``, ``custom_bwd``: deprecated spellings of
``torch.amp``'s, with ``device_type="cuda"`` filled in. Each use warns as PyTorch's does."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ... import amp as _amp
from ..._dtypes import float16

__all__ = ["autocast", "custom_fwd", "custom_bwd"]


def _deprecated(old: str, new: str) -> None:
    """PyTorch's FutureWarning for a ``torch.cuda.amp`` name, pointing at the caller's
    caller (the line that used the old name)."""
    warnings.warn(f"`{old}` is deprecated. Please use `{new}` instead.", FutureWarning,
                  stacklevel=3)


class autocast(_amp.autocast):  # noqa: N801 - PyTorch's name
    """``torch.amp.autocast("cuda", ...)`` under its old name: switched off here (with
    PyTorch's warning when enabled), after a FutureWarning."""

    def __init__(self, enabled: bool = True, dtype: Any = float16,
                 cache_enabled: bool = True) -> None:
        _deprecated("torch.cuda.amp.autocast(args...)", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd: Callable | None = None, *, cast_inputs: Any = None) -> Callable:
    """``torch.amp.custom_fwd(fwd, device_type="cuda", cast_inputs=...)``, after a
    FutureWarning."""
    _deprecated("torch.cuda.amp.custom_fwd(args...)",
                "torch.amp.custom_fwd(args..., device_type='cuda')")
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Callable) -> Callable:
    """``torch.amp.custom_bwd(bwd, device_type="cuda")``, after a FutureWarning."""
    _deprecated("torch.cuda.amp.custom_bwd(args...)",
                "torch.amp.custom_bwd(args..., device_type='cuda')")
    return _amp.custom_bwd(bwd, device_type="cuda")
