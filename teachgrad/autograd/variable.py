"""``Variable``: the tensor wrapper of PyTorch before 0.4, kept so old code still runs.

Once, a ``Variable`` wrapped a tensor and held its autograd state; since PyTorch 0.4
every tensor can do that itself, and ``Variable(t)`` simply returns a tensor. Old
tutorials still write ``Variable(x, requires_grad=True)``; here, as in PyTorch, that
is a detached tensor sharing ``x``'s memory, with ``requires_grad`` set.

>>> import teachgrad as torch
>>> from teachgrad.autograd import Variable
>>> Variable(torch.ones(2), requires_grad=True)
tensor([1., 1.], requires_grad=True)
>>> isinstance(torch.ones(2), Variable)
True
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from .._warn import warn_user


class _VariableMeta(type):
    # Every tensor "is a" Variable, as in PyTorch (isinstance(t, Variable) is True).
    def __instancecheck__(cls, other: object) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: returns a tensor (see the module docstring)."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = False,
                volatile: bool = False) -> Tensor:  # type: ignore[misc]
        """A detached tensor sharing ``data`` (a new empty one without it), not a Variable."""
        if volatile:
            warn_user(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` "
                "instead.",
                UserWarning,
            )
        if data is None:
            return _make(np.zeros((0,), dtype=np.float32), bool(requires_grad))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_()
        return out


__all__ = ["Variable"]
