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
