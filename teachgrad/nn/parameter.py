"""``Parameter``: a tensor that a :class:`~teachgrad.nn.Module` learns.

A parameter is an ordinary leaf tensor with ``requires_grad=True`` and one extra meaning:
assigning it to a module attribute (``self.weight = nn.Parameter(...)``) registers it, so
``module.parameters()`` finds it and an optimizer can update it. Everything you compute
from a parameter is a plain :class:`~teachgrad.Tensor`.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _init


class Parameter(Tensor):
    """A leaf tensor that is a module's learnable state.

    ``Parameter(data)`` shares ``data``'s memory (no copy) and requires grad::

        >>> import teachgrad as torch
        >>> w = torch.nn.Parameter(torch.ones(2))
        >>> w
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
        >>> (w * 3).sum().backward()
        >>> w.grad
        tensor([3., 3.])
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        """A parameter sharing ``data``'s memory (an empty float tensor without it)."""
        if data is None:
            data = Tensor()  # PyTorch's default: an empty float tensor
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}"
            )
        param = object.__new__(cls)
        _init(param, data._data)
        # Same memory, same version counter: an in-place change to one is seen by both,
        # exactly as in PyTorch (a parameter is ``data.detach().requires_grad_()``).
        param._vc = data._vc
        if requires_grad:
            if data._data.dtype.kind != "f":
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                    f"\nHint: this tensor is {data.dtype}; pass data.float(), or "
                    "requires_grad=False for a parameter that is not learned."
                )
            param._requires_grad = True
        return param

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        # Everything happened in __new__; Tensor.__init__ is the legacy constructor and
        # must not run again on the shared data.
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data, self._requires_grad))

    def __deepcopy__(self, memo) -> Parameter:
        result = Parameter(Tensor(0), self._requires_grad)
        result._data = self._data.copy()
        result._vc = [0]
        if self._grad is not None:
            result._grad = self._grad.clone()
        memo[id(self)] = result
        return result


def _rebuild_parameter(data: np.ndarray, requires_grad: bool) -> Parameter:
    from .._tensor import _make

    return Parameter(_make(data), requires_grad)


__all__ = ["Parameter"]
