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
    """``enabled``: do ops record (what every op reads). ``inference``: inside
    ``inference_mode()``, where nothing is recorded whatever the grad mode says; the grad
    mode set in there (``enable_grad`` inside ``inference_mode``) is ``grad_in_inference``."""

    __slots__ = ("enabled", "inference", "grad_in_inference")

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False
        self.grad_in_inference = False


state = _GradModeState()


def is_grad_enabled() -> bool:
    """True when ops record the graph for backward (the default)."""
    return state.grad_in_inference if state.inference else state.enabled


def _set_grad_mode(mode: bool) -> bool:
    """Set grad mode; return the one it replaces. Inside ``inference_mode`` this changes
    what ``is_grad_enabled()`` says but not that nothing is recorded (as in PyTorch)."""
    if state.inference:
        previous, state.grad_in_inference = state.grad_in_inference, mode
    else:
        previous, state.enabled = state.enabled, mode
    return previous


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return state.inference


class _Mode:
    """Base of the grad-mode context managers: set a flag on enter, restore it on exit."""

    _target: bool = True

    def __enter__(self) -> None:
        if state.inference:  # (_set_grad_mode, inline: optimizers enter no_grad each step)
            self._previous, state.grad_in_inference = state.grad_in_inference, self._target
        else:
            self._previous, state.enabled = state.enabled, self._target

    def __exit__(self, *exc_info: Any) -> None:
        if state.inference:
            state.grad_in_inference = self._previous
        else:
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
        # takes effect at once, like torch.set_grad_enabled(False)
        self._previous = _set_grad_mode(self._target)

    def __enter__(self) -> None:
        pass

    def clone(self) -> set_grad_enabled:
        """A fresh copy of this context manager (PyTorch's API for decorators)."""
        return set_grad_enabled(self._target)

    def __call__(self, func: Callable) -> Callable:
        """Decorate ``func`` so that it runs with grad mode set as this object says."""
        _set_grad_mode(self._previous)  # used as a decorator: don't change the mode now
        return super().__call__(func)


class inference_mode(_Mode):
    """Run code without autograd, faster still than ``no_grad``: what it makes are
    *inference tensors* (``t.is_inference()``), which autograd may never see later.

    As in PyTorch, outside the block an inference tensor cannot be saved for backward,
    changed in place, or made to require grad (see ``autograd/inference.py``); use
    ``t.clone()`` to get an ordinary tensor. ``inference_mode(False)`` switches it off
    inside an ``inference_mode`` block (grad mode on).

    >>> import teachgrad as torch
    >>> with torch.inference_mode():
    ...     y = torch.ones(2) * 2
    >>> y.is_inference(), y.requires_grad
    (True, False)
    """

    def __new__(cls, mode: bool | Callable = True):
        """The context manager; ``@inference_mode`` without parentheses decorates at once."""
        if callable(mode):  # ``@inference_mode`` without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self._mode = bool(mode)

    def __enter__(self) -> None:
        self._previous_state = (state.enabled, state.inference, state.grad_in_inference)
        # PyTorch's InferenceMode(mode) sets grad mode to ``not mode`` as well
        state.enabled = not self._mode
        state.inference = self._mode
        state.grad_in_inference = False

    def __exit__(self, *exc_info: Any) -> None:
        state.enabled, state.inference, state.grad_in_inference = self._previous_state

    def clone(self) -> inference_mode:
        """A fresh copy of this context manager (PyTorch's API for decorators)."""
        return inference_mode(self._mode)
