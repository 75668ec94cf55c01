"""Check a lesson exercise: ``check(answer, expected, "what it is")``.

Every lesson ends with an exercise in three cells:

1. the student's cell, pre-filled with a placeholder: ``answer = ...``;
2. a checking cell: ``check(answer, expected, "∂L/∂x")``;
3. a collapsed "solution" cell with the reference answer, checked the same way.

:func:`check` tells the three situations apart, with a message a student can act on:

* the placeholder ``...`` is still there (or the answer is a function that raises
  ``NotImplementedError``): it says so without raising, so a notebook run top to bottom
  (and ``pytest --nbval``) goes on to the solution cell;
* the answer is right: it prints ``✔ Correct!``;
* the answer is wrong: it raises :class:`NotYet` (an ``AssertionError``) saying what is off
  (the shape, the value) and, when given, a hint. It never prints the expected value: the
  point is to find it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .short_traceback import ShortTraceback

__all__ = ["NotYet", "check"]

NOT_ANSWERED = (
    "… Not answered yet: replace the ... above with your {what}, then run this cell again."
)
NOT_WRITTEN = (
    "… Not answered yet ({reason}): write your code in the exercise cell above, run it, "
    "then run this cell again."
)
# The value is not repeated: the solution cell prints this too, and must not give it away.
CORRECT = "✔ Correct! That is the right {what}."


class NotYet(ShortTraceback, AssertionError):
    """A wrong exercise answer. The message says what is off, and gives the hint.

    In a notebook it shows the checking cell's line and the message, not ``check``'s code.
    """


def check(
    answer: Any,
    expected: Any,
    what: str = "answer",
    *,
    hint: str | None = None,
    rtol: float = 1e-4,
    atol: float = 1e-6,
) -> None:
    """Compare an exercise answer with the expected one; explain what is wrong if it is.

    Args:
        answer: the student's answer: a number, a bool, a list, an array, a tensor, or a
            function of no arguments that computes it (called here; if it raises
            ``NotImplementedError`` the exercise counts as not answered yet).
        expected: the right answer, of any of those kinds (not a function).
        what: what the answer is, in words or symbols (``"∂L/∂a"``), used in messages
            ("replace the ... above with your ∂L/∂a").
        hint: one sentence shown when the answer is wrong.
        rtol, atol: tolerances for numbers (as in ``numpy.allclose``).

    Prints what it found, and raises :class:`NotYet` when the answer is wrong. (It returns
    nothing, so that a checking cell shows the message alone.)

    >>> check(6.0, 6.0, "dy/dx")
    ✔ Correct! That is the right dy/dx.
    >>> check(..., 6.0, "dy/dx")
    … Not answered yet: replace the ... above with your dy/dx, then run this cell again.
    """
    __tracebackhide__ = True  # IPython and pytest: show the message, not check()'s insides
    if callable(answer) and not _is_value(answer):
        try:
            answer = answer()
        except NotImplementedError as error:
            print(NOT_WRITTEN.format(reason=str(error) or "NotImplementedError"))
            return
    if answer is ...:
        print(NOT_ANSWERED.format(what=what))
        return
    problem = _difference(answer, expected, rtol, atol)
    if problem is None:
        print(CORRECT.format(what=what))
        return
    message = f"✘ Not yet: {_show(answer)} is not the right {what}: {problem}."
    if hint:
        message += f"\nHint: {hint}"
    raise NotYet(message)


def _is_value(obj: Any) -> bool:
    """Whether a callable ``obj`` is itself the answer rather than a function computing it
    (a class, or anything with a shape: an ``nn.Module`` is callable, so are some arrays)."""
    return hasattr(obj, "shape") or isinstance(obj, type)


def _as_array(value: Any) -> np.ndarray | None:
    """Numbers, bools, lists, arrays and tensors as a NumPy array; ``None`` for others."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        value = value.detach().numpy()
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        return None
    return array if array.dtype.kind in "biuf" else None


def _difference(answer: Any, expected: Any, rtol: float, atol: float) -> str | None:
    """What is wrong with ``answer`` (in words), or ``None`` if it matches ``expected``."""
    want = _as_array(expected)
    if want is None:  # strings, None, other objects: plain equality
        return None if answer == expected else "that is not the expected answer"
    got = _as_array(answer)
    if got is None:
        if isinstance(answer, (list, tuple)):
            return _what_is_wrong_in(answer)
        if answer is None:  # typically a function or a backward() that returned nothing
            return "expected a number or a tensor, got None"
        return f"expected a number or a tensor, got {type(answer).__name__}"
    if got.shape != want.shape:
        return _shape_difference(got, want)
    if want.dtype.kind == "b" and got.dtype.kind != "b":
        return "expected True or False"
    close = np.isclose(got.astype(float), want.astype(float), rtol=rtol, atol=atol)
    if close.all():
        return None
    if want.size > 1:
        wrong = int(np.sum(~close))
        return f"{wrong} of its {want.size} values differ from the expected ones"
    return "the value differs from the expected one"


def _what_is_wrong_in(answer: list | tuple) -> str:
    """Why a list is not a list of numbers: an item that is not a number (``'6'``, ``None``),
    or rows of different lengths (``[[6, 8], [14]]``)."""
    for item in _items(answer):
        if item is ...:
            return "a ... placeholder is still in it: replace it with a number"
        if _as_array(item) is None:
            return f"expected a list of numbers, but {_show(item)} in it is not a number"
    return "expected a list of numbers with rows of equal length (like [[1, 2], [3, 4]])"


def _items(nested: Any):
    """The innermost items of nested lists and tuples."""
    for item in nested:
        if isinstance(item, (list, tuple)):
            yield from _items(item)
        else:
            yield item


def _shape_difference(got: np.ndarray, want: np.ndarray) -> str:
    """``'it is a single number, expected shape (2,)'``, ``'its shape is (3,), expected
    (2, 2)'`` ("its shape is a single number" did not read as English)."""
    if got.ndim == 0:
        return f"it is a single number, expected shape {_shape(want)}"
    return f"its shape is {_shape(got)}, expected {_shape(want)}"


def _shape(array: np.ndarray) -> str:
    return "a single number" if array.ndim == 0 else str(tuple(array.shape))


def _show(value: Any) -> str:
    """The answer as a short text (tensors print as PyTorch prints them; a string keeps
    its quotes, so that ``'20'`` is not mistaken for the number 20)."""
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 200 else text[:197] + "..."

