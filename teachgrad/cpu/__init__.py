"""``torch.cpu``: ``torch.cuda``'s questions asked about the CPU, for device-agnostic code.

Code written for any device picks a module by name and asks it the same questions::

    backend = getattr(torch, device.type)     # torch.cuda or torch.cpu
    backend.synchronize()                     # before reading a timer
    print(backend.device_count(), backend.current_device())

PyTorch's ``torch.cpu`` answers them for the one CPU device (the number of devices is 1,
not the number of cores), and so does this module. ``Stream``, ``Event`` and ``stream()``
are there for the same code; on the CPU everything runs in order, so they do nothing.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

__all__ = [
    "is_available", "is_initialized", "synchronize", "current_device", "current_stream",
    "stream", "set_device", "device_count", "Stream", "StreamContext", "Event",
]


def is_available() -> bool:
    """True: there is always a CPU."""
    return True


def is_initialized() -> bool:
    """True: the CPU needs no starting."""
    return True


def device_count() -> int:
    """1: PyTorch counts the CPU as one device (not one per core)."""
    return 1


def current_device() -> str:
    """``'cpu'``, the only device."""
    return "cpu"


def set_device(device: Any) -> None:
    """Nothing to do: there is one CPU device (PyTorch ignores ``device`` too)."""


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: work on the CPU is done when its call returns."""


class Stream:
    """A queue of work, for code written for GPUs: on the CPU work runs in order."""

    def __init__(self, priority: int = -1) -> None:
        pass

    def wait_stream(self, stream: Stream) -> None:
        """Nothing to wait for."""

    def record_event(self) -> None:
        """Nothing to record."""

    def wait_event(self, event: Event) -> None:
        """Nothing to wait for."""


class Event:
    """A point in a stream's work, for code written for GPUs: always reached on the CPU."""

    def query(self) -> bool:
        """True: the work before it is done."""
        return True

    def record(self, stream: Stream | None = None) -> None:
        """Nothing to record."""

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def wait(self, stream: Stream | None = None) -> None:
        """Nothing to wait for."""


_current_stream = _default_stream = Stream()


def current_stream(device: Any = None) -> Stream:
    """The stream work goes to (the default one unless a ``stream(...)`` block chose one)."""
    return _current_stream


class StreamContext(AbstractContextManager):
    """Makes ``stream`` the current stream inside a ``with`` block (``None``: no change)."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream
        self.prev_stream = _default_stream

    def __enter__(self) -> None:
        global _current_stream
        if self.stream is not None:
            self.prev_stream, _current_stream = _current_stream, self.stream

    def __exit__(self, *exc_info: object) -> None:
        global _current_stream
        if self.stream is not None:
            _current_stream = self.prev_stream


def stream(stream: Stream | None) -> StreamContext:
    """``with torch.cpu.stream(s):`` -- ``s`` is the current stream inside the block."""
    return StreamContext(stream)
