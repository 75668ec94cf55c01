"""Is forward-mode AD on? The few facts the core reads about it.

:mod:`teachgrad.autograd.forward_ad` does the work; this tiny module sits below the
Tensor class (like ``grad_mode``) so that the places which must know about tangents (an
in-place op, a custom ``Function``, a fast path that would skip ``Op.apply``) can ask one
cheap question, ``state.level is not None``, without importing forward AD.

A tensor's tangent lives in its ``_extra`` dict as ``"tangent": (generation, tangent)``:
each entered dual level has a new generation number, so the tangents of a level that was
exited are simply not seen any more.
"""

from __future__ import annotations

from .grad_mode import state as _grad_state


class _DualState:
    __slots__ = ("level", "generation", "busy")

    def __init__(self) -> None:
        self.level: int | None = None  # the entered dual level (0), or None outside
        self.generation = 0  # bumped by every enter_dual_level
        self.busy = False  # True while forward AD itself computes (no tangents then)


state = _DualState()


_UNSET = (-1, None)


def own_entry(t) -> tuple:
    """``(found, tangent)``: was a tangent (or an explicit "none") set on ``t`` itself at
    the current level? (A primal from ``unpack_dual`` says "none" although its base is dual.)
    Inside ``inference_mode`` no tangent is seen at all: it switches forward AD off too,
    as in PyTorch.
    """
    extra = t._extra
    if extra is None or _grad_state.inference:
        return False, None
    entry = extra.get("tangent", _UNSET)
    if entry[0] != state.generation or state.level is None:
        return False, None
    return True, entry[1]


def own_tangent(t):
    """The tangent stored on ``t`` itself at the current level, or None (no view lookup)."""
    return own_entry(t)[1]


def carries_tangent(x) -> bool:
    """Does ``x`` (anything) carry a tangent at the current level (itself or its base)?"""
    if state.level is None or state.busy or not hasattr(x, "_extra"):
        return False
    if own_tangent(x) is not None:
        return True
    base = x._base
    return base is not None and own_tangent(base) is not None


def needs_derivative(x) -> bool:
    """Must an op on ``x`` be differentiated: does it require grad or carry a tangent?"""
    return bool(getattr(x, "_requires_grad", False)) or carries_tangent(x)
