"""``record_function``: name a block of code so it shows up in the profile.

::

    with torch.profiler.profile() as prof:
        with torch.profiler.record_function("model_inference"):
            model(inputs)

The block becomes one row (``model_inference``) whose total time holds every op inside
it. As a decorator, every call of the function is a range. With no profiler running it
does nothing (and costs one check).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from . import recording

__all__ = ["record_function"]


class record_function:  # noqa: N801 - PyTorch's name
    """Context manager / decorator: label a block of code in the profile.

    >>> import teachgrad as torch
    >>> with torch.profiler.profile() as prof:
    ...     with torch.profiler.record_function("scale"):
    ...         y = torch.ones(3) * 2
    >>> [event.name for event in prof.events()]
    ['scale', 'aten::ones', 'aten::mul']
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._event = None
        self._recorder = None

    def __enter__(self) -> record_function:
        recorder = recording.active
        if recorder is not None:
            self._recorder = recorder
            self._event = recorder.open(self.name, is_user_annotation=True)
        return self

    def __exit__(self, *exc: Any) -> None:
        # Close only in the recording it was opened in (a profiler may have stopped since).
        if self._event is not None and self._recorder is recording.active:
            self._recorder.close(self._event)
        self._event = self._recorder = None

    def __call__(self, fn: Callable) -> Callable:
        """Decorate ``fn``: each call is a range named ``self.name``."""

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapper
