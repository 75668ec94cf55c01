"""``torch.autocast``: computing a block in float16/bfloat16, switched off here.

See :mod:`teachgrad.amp` for why teachgrad has it and what it does.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from .._device import device as _device

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "is_autocast_enabled"]

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


def is_autocast_available(device_type: str) -> bool:
    """Whether PyTorch has autocast for ``device_type``: teachgrad answers as PyTorch
    does (its autocast still runs only switched off)."""
    return _device_type(device_type) in _AUTOCAST_DEVICE_TYPES


# The device types PyTorch 2.13's CPU build answers True for in is_autocast_available.
_AUTOCAST_DEVICE_TYPES = ("cpu", "cuda", "xpu", "ipu", "hpu", "xla", "mps", "mtia", "maia",
                          "privateuseone")


def _check_device_type(device_type: Any) -> None:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd: Callable | None = None, *, device_type: str,
               cast_inputs: Any = None) -> Callable:
    """Decorate the ``forward`` of an ``autograd.Function`` for mixed precision.

    Inside an enabled autocast, PyTorch runs such a ``forward`` with its floating-point
    inputs cast to ``cast_inputs`` and autocast off. Outside one it is a no-op, and
    teachgrad's autocast is never on: ``forward`` runs as written. It still notes on
    ``ctx`` what :func:`custom_bwd` needs, as PyTorch's does. Used bare
    (``@custom_fwd(device_type="cuda")``) or with ``fwd`` given.
    """
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = None  # (PyTorch notes autocast's dtype: unused while it is off)
        ctx._fwd_used_autocast = False  # autocast is never enabled in teachgrad
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd: Callable | None = None, *, device_type: str) -> Callable:
    """Decorate the ``backward`` of an ``autograd.Function``: it runs with the autocast
    state its ``forward`` had (here always off, so as written)."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                      dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
