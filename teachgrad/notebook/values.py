"""Numbers as text, for the graph drawing and the stepper panels.

Two sizes:

* :func:`short_value` fits on a graph edge or in a node box (one short line):
  ``0.25``, ``all 4.5``, ``[1., 2., 3.]``, ``mean 0.417 (2×3)``.
* :func:`long_value` is what ``print(tensor)`` would show inside ``tensor(...)``
  (PyTorch's own number style), summarised with ``...`` so a huge tensor never
  turns into a huge panel.

Both take a NumPy array, a teachgrad Tensor or ``None`` and never change what they are given.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from .._printing import format_data, printoptions

#: panels show at most this many numbers before summarising with "..."
PANEL_THRESHOLD = 24
PANEL_EDGEITEMS = 2


def as_array(value) -> np.ndarray | None:
    """The NumPy array behind ``value`` (a Tensor, an array or a Python number)."""
    if value is None:
        return None
    data = getattr(value, "_data", None)  # a teachgrad Tensor (no import: keep this light)
    if isinstance(data, np.ndarray):
        return data
    return np.asarray(value)


def _number(x: float) -> str:
    """One number, short: ``4.5``, ``0.25``, ``1e-08``, ``3.``."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if not np.isfinite(x):
        return str(float(x))
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x)}."  # PyTorch's "this is a float" dot
    text = f"{x:.4g}"
    if text.lstrip("-").isdigit():  # 0.99999 rounds to "1", which reads as exactly 1
        text = f"{x:#.4g}"          # "1.000": four digits, like the number it rounds
        if text.endswith("."):      # 1234.5678 -> "1235.", PyTorch's "exactly 1235"
            text = f"{x:.1f}"
    return text


def _nested(array: np.ndarray) -> str:
    """``[[1., 2.], [3., 4.]]``: a few numbers, with their rows and columns."""
    if array.ndim == 0:
        return _number(array.item())
    return "[" + ", ".join(_nested(row) for row in array) + "]"


def _dims(shape) -> str:
    """``2×3``, ``40 values``: a shape that cannot be mistaken for numbers."""
    if len(shape) == 1:
        return count(shape[0], "value")
    return "×".join(str(s) for s in shape)


def short_value(value, max_items: int = 4) -> str:
    """One short line for a graph label.

    >>> import numpy as np
    >>> short_value(np.full((2, 2), 4.5))
    'all 4.5'
    >>> short_value(np.array([1.0, 2.0]))
    '[1., 2.]'
    >>> short_value(np.arange(6.0).reshape(2, 3))
    'mean 2.5 (2×3)'
    """
    array = as_array(value)
    if array is None:
        return "None"
    if array.size == 0:
        return "[]"
    flat = array.reshape(-1)
    if array.ndim == 0:
        return _number(flat[0].item())
    first = flat[0]
    # "all 4.5" says more than "[[4.5, 4.5], [4.5, 4.5]]" and stays one short line.
    if array.size > 1 and (flat == first).all():
        return f"all {_number(first.item())}"
    if array.size <= max_items:
        return _nested(array)
    # A shape written [2, 3] here read as the numbers 2 and 3.
    if array.dtype.kind in "fc":
        return f"mean {_number(float(np.mean(flat, dtype=np.float64)))} ({_dims(array.shape)})"
    return f"{array.dtype} ({_dims(array.shape)})"


_panel_options_active = False


@contextmanager
def panel_printing() -> Iterator[None]:
    """Print options for panels, set once around many :func:`long_value` calls."""
    global _panel_options_active
    if _panel_options_active:
        yield
        return
    with printoptions(threshold=PANEL_THRESHOLD, edgeitems=PANEL_EDGEITEMS):
        _panel_options_active = True
        try:
            yield
        finally:
            _panel_options_active = False


def long_value(value) -> str:
    """The numbers as ``print`` shows them (summarised beyond a few dozen).

    >>> import numpy as np
    >>> long_value(np.array([[0.25, 0.25], [0.25, 0.25]], dtype=np.float32))
    '[[0.2500, 0.2500],\\n [0.2500, 0.2500]]'
    """
    array = as_array(value)
    if array is None:
        return "None"
    with panel_printing():
        return format_data(array)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``count(1, "step") == "1 step"``, ``count(2, "step") == "2 steps"``;
    ``count(2, "box", "boxes") == "2 boxes"``."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def shape_text(shape) -> str:
    """``(2, 3) -> '[2, 3]'``: shapes as ``torch.Size`` lists them."""
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


__all__ = ["as_array", "short_value", "long_value", "panel_printing", "shape_text", "count"]
