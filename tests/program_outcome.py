"""Run a short program under one library and say how it ended, to compare two libraries.

Tests that hold PyTorch's behaviour as the specification run the same text once with
``torch`` meaning teachgrad and once with the real PyTorch, and compare the outcomes.
"""

from __future__ import annotations


def view_program_outcome(lib, program: str) -> str | None:
    """PyTorch's sentence of the RuntimeError ``program`` raised (teachgrad's hint cut
    off), or None when it ran through. ``x`` is a 4x3 leaf that requires grad."""
    scope = {"torch": lib, "x": lib.arange(12.0).reshape(4, 3).requires_grad_()}
    try:
        exec(program, scope)
    except RuntimeError as e:
        return str(e).split("\nHint:")[0]
    return None


def state_outcome(lib, program: str, expression: str):
    """The value of ``expression`` after ``program``, or PyTorch's sentence of the error
    either raised (``x`` is a 4x3 leaf that requires grad, not a view). A tensor value
    comes back as its values and ``requires_grad``."""
    scope = {"torch": lib, "x": lib.arange(12.0).reshape(4, 3).clone().requires_grad_()}
    try:
        exec(program, scope)
        value = eval(expression, scope)
    except RuntimeError as e:
        return "raised: " + str(e).split("\nHint:")[0]
    if isinstance(value, lib.Tensor):
        return ("tensor", value.tolist(), value.requires_grad)
    return value
