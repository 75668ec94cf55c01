"""``torch.overrides``: the Python side of the ``__torch_function__`` protocol.

For functions written in Python that should take part in the protocol as PyTorch's own
do, and for the authors of Tensor-like types who want to know what to override::

    def my_function(input, other):
        if has_torch_function((input, other)):
            return handle_torch_function(my_function, (input, other), input, other)
        ...

A *mode* sees every call made inside its ``with`` block, plain tensors' too (a
tutorial's call logger)::

    class LoggingMode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            print(resolve_name(func))
            return func(*args, **(kwargs or {}))

    with LoggingMode():
        torch.ones(2) * 2  # prints torch.Tensor.mul

The protocol itself is in teachgrad/_torch_function.py.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from . import _torch_function as _tf
from ._tensor import Tensor

__all__ = [
    "get_ignored_functions", "get_overridable_functions", "handle_torch_function",
    "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
    "is_tensor_like", "is_tensor_method_or_property", "resolve_name",
    "get_default_nowrap_functions", "TorchFunctionMode", "BaseTorchFunctionMode",
]


def has_torch_function(relevant_args: Iterable) -> bool:
    """Is some value of ``relevant_args`` (a plain tensor is not) one whose
    ``__torch_function__`` a call with it should ask?"""
    return _tf.has_overloaded(tuple(relevant_args), None)


def has_torch_function_unary(value) -> bool:
    """``has_torch_function((value,))``."""
    return _tf.has_overloaded((value,), None)


def has_torch_function_variadic(*args) -> bool:
    """``has_torch_function(args)``."""
    return _tf.has_overloaded(args, None)


def handle_torch_function(public_api: Callable, relevant_args: Iterable, *args, **kwargs):
    """Call ``public_api(*args, **kwargs)`` through the ``__torch_function__`` of the
    values in ``relevant_args`` that have one (subclasses first, then left to right);
    TypeError if all of them return NotImplemented."""
    overloaded = _tf.overloaded_arguments(tuple(relevant_args))
    return _tf.dispatch(public_api, overloaded, args, kwargs, python=True)


def is_tensor_like(inp) -> bool:
    """A tensor, or an object whose type has a ``__torch_function__``."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def is_tensor_method_or_property(func: Callable) -> bool:
    """Is ``func`` a method of ``torch.Tensor`` or a property's getter
    (``torch.Tensor.add``, ``torch.Tensor.shape.__get__``)? Such a func is called with the
    tensor first."""
    owner = getattr(func, "__self__", None)
    if isinstance(owner, property):
        return any(owner is member for member in vars(Tensor).values())
    name = getattr(func, "__name__", None)
    return name is not None and any(func is member for member in vars(Tensor).values())


def resolve_name(f: Callable) -> str | None:
    """The name PyTorch's messages give ``f`` (``torch.add``, ``torch.Tensor.add``)."""
    return _tf.resolve_name(f)


def get_default_nowrap_functions() -> set:
    """The functions whose result ``Tensor.__torch_function__`` hands back as it is
    (a subclass's ``.grad`` is not converted)."""
    return {Tensor.grad.__get__}


def get_ignored_functions() -> set:
    """The public functions that take no part in the protocol: factories, settings."""
    import teachgrad

    return {value for name, value in vars(teachgrad).items()
            if name in _tf.IGNORED_TORCH and inspect.isfunction(value)}


def get_overridable_functions() -> dict:
    """The functions that take part in the protocol, by namespace: ``torch``,
    ``torch.functional``, ``torch.nn.functional``, ``torch.linalg``, ``torch.special``
    (their functions in name order) and ``torch.Tensor`` (its methods and properties)."""
    import teachgrad

    result: dict = {}
    for module in (teachgrad, teachgrad.functional, teachgrad.nn.functional,
                   teachgrad.linalg, teachgrad.special):
        functions = [value for name, value in sorted(vars(module).items())
                     if callable(value)
                     and getattr(value, "dispatches_torch_function", None) is value
                     and not name.startswith("_")]
        result[module] = functions
    members = [member.__get__ if isinstance(member, property) else member
               for name, member in sorted(vars(Tensor).items())
               if not name.startswith("_") and (callable(member) or isinstance(member, property))
               and not isinstance(member, (classmethod, staticmethod))]
    result[Tensor] = members
    return result


# ----------------------------------------------------------------------------------------
# Modes
# ----------------------------------------------------------------------------------------
class TorchFunctionMode:
    """A context manager whose ``__torch_function__(func, types, args, kwargs)`` is asked
    first for every ``torch.*``, ``torch.nn.functional`` and Tensor method, operator and
    property call made inside its ``with`` block, plain tensors' included. While it runs,
    the mode is off the stack, so ``func(*args, **kwargs)`` inside it runs the call (or
    asks the mode below); returning NotImplemented hands the call on to the arguments'
    own ``__torch_function__``."""

    def __torch_function__(self, func: Callable, types: tuple, args: tuple = (),
                           kwargs: dict | None = None):
        raise NotImplementedError

    def __enter__(self) -> TorchFunctionMode:
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _pop_mode()


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every call unchanged: a base for modes that override only what
    they need."""

    def __torch_function__(self, func: Callable, types: tuple, args: tuple = (),
                           kwargs: dict | None = None):
        return func(*args, **(kwargs or {}))


def _push_mode(mode: TorchFunctionMode) -> None:
    """Make ``mode`` the current mode (what ``with mode:`` does on entering)."""
    if not _tf.STATE.modes:  # (plain tensors' methods and factories reach a mode now)
        import teachgrad

        _tf.install_tensor_dispatch()
        _tf.install_mode_factories(vars(teachgrad))
    _tf.STATE.modes.append(mode)
    _tf.STATE.update()


def _pop_mode() -> TorchFunctionMode:
    """Take the current mode off the stack and return it."""
    if not _tf.STATE.modes:
        raise RuntimeError("trying to pop from empty mode stack")
    mode = _tf.STATE.modes.pop()
    _tf.STATE.update()
    return mode


@contextmanager
def _pop_mode_temporarily() -> Iterator[TorchFunctionMode]:
    """The current mode, off the stack for the ``with`` block."""
    mode = _pop_mode()
    try:
        yield mode
    finally:
        _push_mode(mode)


def _get_current_function_mode() -> TorchFunctionMode | None:
    """The mode that is asked first (the innermost ``with``), or None."""
    return _tf.STATE.modes[-1] if _tf.STATE.modes else None


def _get_current_function_mode_stack() -> list:
    """The active modes, outermost first."""
    return list(_tf.STATE.modes)
