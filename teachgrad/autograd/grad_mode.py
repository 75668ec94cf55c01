"""Switching graph recording on and off: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

Every op asks one question before doing autograd bookkeeping: "is grad mode on, and does
any input require grad?" The answer to the first half lives in :data:`state`, a tiny object
whose attribute read is as cheap as Python allows (ops run it millions of times).

Each context manager also works as a decorator, as in PyTorch::

    @teachgrad.no_grad()
    def evaluate(model, x):
        return model(x)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


class _GradModeState:
    __slots__ = ("enabled", "inference")

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False


state = _GradModeState()


def is_grad_enabled() -> bool:
    """True when ops record the graph for backward (the default)."""
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return state.inference


class _Mode:
    """Base of the grad-mode context managers: set a flag on enter, restore it on exit."""

    _target: bool = True

    def __enter__(self) -> None:
        self._previous = state.enabled
        state.enabled = self._target

    def __exit__(self, *exc_info: Any) -> None:
        state.enabled = self._previous

    def __call__(self, func: Callable) -> Callable:
        """Use the mode as a decorator: the whole function runs inside it."""

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self) -> _Mode:
        return type(self)()


class _BareDecoratorMode(_Mode):
    """A mode that also decorates without parentheses: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, func: Callable | None = None):
        if func is None:
            return super().__new__(cls)
        return cls()(func)  # ``@no_grad`` called the class with the function


class no_grad(_BareDecoratorMode):
    """Run code without recording the graph: results have ``requires_grad=False``.

    >>> import teachgrad as torch
    >>> x = torch.tensor(1.0, requires_grad=True)
    >>> with torch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    _target = False


class enable_grad(_BareDecoratorMode):
    """Turn recording back on, e.g. inside a ``no_grad`` block."""

    _target = True


class set_grad_enabled(_Mode):
    """Set grad mode to ``mode``. Works as a function call, a context manager or a decorator.

    >>> import teachgrad as torch
    >>> _ = torch.set_grad_enabled(False)
    >>> torch.is_grad_enabled()
    False
    >>> _ = torch.set_grad_enabled(True)
    """

    def __init__(self, mode: bool) -> None:
        self._target = bool(mode)
        self._previous = state.enabled
        state.enabled = self._target  # takes effect at once, like torch.set_grad_enabled(False)

    def __enter__(self) -> None:
        pass

    def clone(self) -> set_grad_enabled:
        """A fresh copy of this context manager (PyTorch's API for decorators)."""
        return set_grad_enabled(self._target)

    def __call__(self, func: Callable) -> Callable:
        """Decorate ``func`` so that it runs with grad mode set as this object says."""
        state.enabled = self._previous  # used as a decorator: don't change the mode now
        return super().__call__(func)


class inference_mode(_Mode):
    """Like ``no_grad`` (teachgrad has no separate inference tensors): nothing is recorded."""

    def __new__(cls, mode: bool | Callable = True):
        """The context manager; ``@inference_mode`` without parentheses decorates at once."""
        if callable(mode):  # ``@inference_mode`` without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self._target = not mode
        self._mode = mode

    def __enter__(self) -> None:
        super().__enter__()
        self._previous_inference = state.inference
        state.inference = self._mode

    def __exit__(self, *exc_info: Any) -> None:
        super().__exit__()
        state.inference = self._previous_inference

    def clone(self) -> inference_mode:
        """A fresh copy of this context manager (PyTorch's API for decorators)."""
        return inference_mode(self._mode)
