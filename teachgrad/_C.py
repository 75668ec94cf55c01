"""``torch._C``: the few names of PyTorch's C++ core that Python code written for PyTorch
uses directly, here those of the ``__torch_function__`` protocol (see _torch_function):
``DisableTorchFunctionSubclass`` (inside a subclass's ``__torch_function__``),
``DisableTorchFunction`` and ``_disabled_torch_function_impl``."""

from ._torch_function import (  # noqa: F401
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
)
from ._torch_function import disabled_torch_function_impl as _disabled_torch_function_impl  # noqa: F401
from ._torch_function import has_overloaded as _has_overloaded


def _has_torch_function(args) -> bool:
    """Does some value of ``args`` take part in ``__torch_function__`` dispatch?"""
    return _has_overloaded(tuple(args), None)


def _has_torch_function_unary(value) -> bool:
    """``_has_torch_function((value,))``."""
    return _has_overloaded((value,), None)


def _has_torch_function_variadic(*args) -> bool:
    """``_has_torch_function(args)``."""
    return _has_overloaded(args, None)


def _len_torch_function_stack() -> int:
    """How many ``TorchFunctionMode``s are active."""
    from ._torch_function import STATE

    return len(STATE.modes)


def _is_torch_function_mode_enabled() -> bool:
    """Is a ``TorchFunctionMode`` active (and the protocol not switched off)?"""
    from ._torch_function import STATE

    return bool(STATE.modes) and not STATE.all_off
