"""Global switches PyTorch programs set, that change nothing in teachgrad's answers.

teachgrad computes on the CPU with NumPy, one way: its results are already deterministic,
its matmuls always run in full float32/float64 precision, and its only device is ``cpu``.
So ``use_deterministic_algorithms(True)``, ``set_float32_matmul_precision('high')`` or
``set_default_device('cpu')`` are remembered (and checked as PyTorch checks them), and the
matching getters report them: lesson code that sets them runs unchanged.
"""

from __future__ import annotations

from . import _device

__all__ = [
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
    "get_deterministic_debug_mode", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled",
    "set_default_device", "get_default_device", "typename",
]

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest",
          "warn_always": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms (teachgrad's always are: this only remembers it)."""
    if not isinstance(mode, bool):
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
            f"{type(mode).__name__}"
        )
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """What :func:`use_deterministic_algorithms` was last given (False at first)."""
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """The ``warn_only`` last given to :func:`use_deterministic_algorithms`."""
    return _state["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """``'default'``/0, ``'warn'``/1 or ``'error'``/2: the same switch as
    :func:`use_deterministic_algorithms`, spelled as a mode."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 (off), 1 (warn) or 2 (error): see :func:`set_deterministic_debug_mode`."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_float32_matmul_precision(precision: str) -> None:
    """``'highest'``, ``'high'`` or ``'medium'``: remembered (NumPy always uses full float32)."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(
            f"Invalid value for float32 matmul precision: {precision}. Expected one of "
            "'highest', 'high', 'medium'."
        )
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """The precision last set (``'highest'`` at first)."""
    return _state["matmul_precision"]


def set_warn_always(b: bool) -> None:
    """Whether warnings PyTorch gives once should be given every time (remembered)."""
    _state["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    """What :func:`set_warn_always` was last given."""
    return _state["warn_always"]


def set_default_device(device) -> None:
    """Only ``'cpu'`` (or None) exists here: anything else is refused."""
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError(
            f"teachgrad has no device '{device}': it computes on the CPU only."
            "\nHint: leave the default device as 'cpu' (torch.cuda.is_available() is False)."
        )


def get_default_device() -> _device.device:
    """``device(type='cpu')``: teachgrad's one device."""
    return _device.CPU


def typename(obj) -> str:
    """The type's name: ``'torch.FloatTensor'`` for a tensor (as ``x.type()``); for a
    class or function its own module and name (``torch.nn.Parameter`` gives
    ``'teachgrad.nn.parameter.Parameter'``); else the class's module and name (``'int'``
    for builtins). The same steps as PyTorch's."""
    from ._tensor import Tensor

    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        module = type(obj).__module__ or ""
        name = type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"
