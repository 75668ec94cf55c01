"""PyTorch's TypeError for a number parameter given something else.

``nn.functional`` passes numbers such as ``negative_slope`` or ``eps`` to PyTorch's C++
functions, whose argument parser refuses a string or ``None`` with a TypeError naming the
argument. teachgrad's NumPy code would fail with NumPy's words instead (or, where the
number goes unused, take it silently): the functions check with :func:`scalar_argument`.
"""

from __future__ import annotations

import numpy as np

from .._arguments import is_number
from .._tensor import Tensor, python_type_name


def scalar_argument(value, function: str, name: str, position: int | None = None,
                    kind: str = "Number"):
    """``value`` as a Python number, or PyTorch's TypeError when a ``Number`` (or ``float``)
    parameter gets something else (``F.leaky_relu(x, 'a')``: "leaky_relu(): argument
    'negative_slope' (position 2) must be Number, not str"), where NumPy's words came out
    or the value was taken silently. A NumPy scalar or a 0-d tensor is a number, as in
    PyTorch. A plain int or float costs one type test."""
    if type(value) is float or type(value) is int:
        return value
    if is_number(value) if kind == "Number" else is_real_number(value):
        return value.item() if isinstance(value, Tensor | np.generic) else value
    at = f" (position {position})" if position is not None else ""
    raise TypeError(f"{function}(): argument '{name}'{at} must be {kind}, not "
                    f"{python_type_name(value)}\nHint: give a number, e.g. 0.1.")


def is_real_number(value) -> bool:
    return is_number(value) and not isinstance(value, complex) and not (
        isinstance(value, Tensor) and value._data.dtype.kind == "c")


def bool_argument(value, function: str, name: str, position: int | None = None) -> None:
    """PyTorch's TypeError when a ``bool`` parameter gets anything else (``1`` and ``None``
    too: its parser takes only True and False)."""
    if type(value) is not bool:
        at = f" (position {position})" if position is not None else ""
        raise TypeError(f"{function}(): argument '{name}'{at} must be bool, not "
                        f"{python_type_name(value)}\nHint: pass True or False.")
