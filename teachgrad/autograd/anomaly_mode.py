"""Anomaly detection: find the forward line whose backward failed or produced NaN.

A backward error names a node (``SqrtBackward0``) but not the line of *your* code that
created it. With anomaly detection on, every node remembers the Python stack of the
forward call that made it; when its backward raises, the engine first warns with
``Traceback of forward call that caused the error:`` and that stack. With
``check_nan=True`` (the default) a backward that returns NaN is an error too::

    with teachgrad.autograd.detect_anomaly():
        y = x.sqrt()          # x contains 0
        (y * 0).sum().backward()
    # UserWarning: Error detected in SqrtBackward0. Traceback of forward call ...
    # RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.

It costs nothing when off: ops check ``state.enabled`` once, and only while recording.
"""

from __future__ import annotations

import os
import traceback
from typing import Any

import numpy as np

from .._warn import warn_user


class _AnomalyState:
    __slots__ = ("enabled", "check_nan")

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


state = _AnomalyState()


def is_anomaly_enabled() -> bool:
    """True while anomaly detection is on."""
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """True when anomaly detection also checks backward results for NaN."""
    return state.check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Switch anomaly detection on or off (``torch.set_anomaly_enabled``)."""
    state.enabled = bool(enabled)
    state.check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager: anomaly detection on inside the block (warns that it is slow).

    >>> import teachgrad as torch
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with torch.autograd.detect_anomaly():
    ...         print(torch.is_anomaly_enabled())
    True
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = state.enabled
        self.check_nan = check_nan
        self.prev_check_nan = state.check_nan
        warn_user(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
        )

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc_info: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off, as a function call or as a context manager.

    >>> import teachgrad as torch
    >>> _ = torch.autograd.set_detect_anomaly(True)
    >>> torch.is_anomaly_enabled()
    True
    >>> _ = torch.autograd.set_detect_anomaly(False)
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = state.enabled
        self.prev_check_nan = state.check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# ----------------------------------------------------------------------------------------
# What ops and the engine call (only while anomaly detection is on)
# ----------------------------------------------------------------------------------------
# teachgrad's own machinery plays the part of PyTorch's C++ core, whose frames PyTorch
# cannot show either: the traceback starts and ends in the user's code.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_HIDDEN = tuple(
    os.path.join(_PACKAGE, part) for part in ("autograd", "ops", "_tensor.py", "_creation.py")
)


# In Jupyter the stack starts some forty frames before the cell: runpy, the kernel's event
# loop, ipykernel and IPython, ending in the shell's ``exec`` of the cell. Those frames say
# nothing about the learner's code (and name paths and line numbers of the installed
# versions), so the trace starts at the cell, after the shell's last frame.
_SHELL = os.path.join("IPython", "core", "interactiveshell.py")


def forward_trace() -> traceback.StackSummary:
    """The current stack without teachgrad's internal frames (kept on the new node), and
    in IPython without the shell's frames before the cell."""
    stack = traceback.extract_stack()[:-1]
    shell = [i for i, f in enumerate(stack) if f.filename.endswith(_SHELL)]
    if shell:
        stack = stack[shell[-1] + 1:]
    frames = [f for f in stack if not f.filename.startswith(_HIDDEN)]
    return traceback.StackSummary.from_list(frames)


def run_backward(node, grads: tuple) -> tuple:
    """Run ``node``'s backward as the engine does, reporting failures like PyTorch.

    On an exception (or NaN in a result, when ``check_nan``) it warns with the forward
    traceback the node recorded, then raises.
    """
    try:
        outputs = node._run_backward(grads)
        if state.check_nan:
            for i, g in enumerate(outputs):
                if g is not None and _has_nan(g):
                    raise RuntimeError(
                        f"Function '{node.name()}' returned nan values in its {i}th output."
                    )
    except Exception:
        trace = node.__dict__.get("_forward_trace")
        if trace is not None:
            warn_user(
                f"Error detected in {node.name()}. Traceback of forward call that caused "
                "the error:\n" + "".join(trace.format()).rstrip("\n"),
                UserWarning,
            )
        raise
    return outputs


def _has_nan(g) -> bool:
    data = getattr(g, "_data", g)  # a tensor under create_graph, an array otherwise
    data = np.asarray(data)
    return data.dtype.kind in "fc" and bool(np.isnan(data).any())


__all__ = [
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "set_anomaly_enabled",
]
