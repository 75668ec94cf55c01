"""``functionalize``: in PyTorch, a transform that removes in-place operations and views.

``functionalize(f)`` computes what ``f`` computes, but PyTorch rewrites every in-place
operation on an intermediate (``b.add_(1)``) into its out-of-place twin
(``b = b.add(1)``), so that the program can be traced (``make_fx``) and handed to a
compiler that has no notion of mutation; mutations of the inputs are copied back into
them at the end, so callers see the same effects.

teachgrad runs eagerly and has no tracer or compiler to hand a program to, so the
rewriting would change nothing you can observe: here ``functionalize(f)`` returns a
function that calls ``f`` as it is -- the same values, the same changes to the inputs --
after checking ``remove`` as PyTorch does. Use it to run code written for PyTorch; it
does not remove anything.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_VALID_REMOVE = ("mutations", "mutations_and_views")


def functionalize(func: Callable[..., Any], *, remove: str = "mutations") -> Callable[..., Any]:
    """A function with the same inputs and results as ``func`` (``remove`` is
    ``'mutations'`` or ``'mutations_and_views'``).

    PyTorch's version replaces in-place operations (and, with
    ``remove='mutations_and_views'``, views) by copies inside ``func`` so the program can
    be traced and compiled; teachgrad has no tracer, so it calls ``func`` unchanged (see
    the module docstring): the values are the same.

    >>> import teachgrad as torch
    >>> from teachgrad.func import functionalize
    >>> def f(a):
    ...     b = a + 1
    ...     b.view(-1).add_(1)
    ...     return b
    >>> functionalize(f)(torch.zeros(2))
    tensor([2., 2.])
    """
    if remove not in _VALID_REMOVE:
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for "
            f"remove={remove}. Valid options are:\n"
            "     remove='mutations': all inplace and out= operators will be removed from "
            "the program, and replaced with their out-of-place equivalents.\n"
            "     remove='mutations_and_views': In addition to the above, all aliasing "
            "operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n"
        )

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapped


__all__ = ["functionalize"]
