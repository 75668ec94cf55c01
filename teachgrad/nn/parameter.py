"""``Parameter``: a tensor that a :class:`~teachgrad.nn.Module` learns; ``Buffer``: a tensor
that is a module's state but is not learned.

A parameter is an ordinary leaf tensor with ``requires_grad=True`` and one extra meaning:
assigning it to a module attribute (``self.weight = nn.Parameter(...)``) registers it, so
``module.parameters()`` finds it and an optimizer can update it. Everything you compute
from a parameter is a plain :class:`~teachgrad.Tensor`.

A buffer (batch norm's running mean) is marked the same way: ``self.mean = nn.Buffer(t)``
registers it as ``self.register_buffer('mean', t)`` would.
"""

from __future__ import annotations

import numpy as np

from .._printing import PRINTED_AS_TENSOR
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _init, python_type_name
from .._torch_function import disabled_torch_function_impl
from ..autograd import inference
from ..autograd.grad_mode import is_inference_mode_enabled


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
    # As PyTorch's: a parameter takes no part in the __torch_function__ protocol, so what
    # is computed from it is a plain tensor.
    __torch_function__ = disabled_torch_function_impl

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        """A parameter sharing ``data``'s memory (an empty float tensor without it)."""
        if data is None:
            data = Tensor()  # PyTorch's default: an empty float tensor
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): argument 'data' must be Tensor, not {python_type_name(data)}"
                + real_pytorch_hint(data)
            )
        if type(requires_grad) is not bool:  # (PyTorch's message names its inner helper)
            raise TypeError(
                "_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                f"{python_type_name(requires_grad)}\nHint: write requires_grad=True (or False)."
            )
        param = object.__new__(cls)
        _init(param, data._data)
        # Same memory, same version counter: an in-place change to one is seen by both,
        # exactly as in PyTorch (a parameter is ``data.detach().requires_grad_()``).
        if type(data._vc) is list or is_inference_mode_enabled():
            param._vc = data._vc
        elif requires_grad:  # an inference tensor, outside inference_mode
            inference.check_requires_grad(data, True)
        if requires_grad:
            if data._data.dtype.kind != "f":
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                    f"\nHint: this tensor is {data.dtype}; pass data.float(), or "
                    "requires_grad=False for a parameter that is not learned."
                )
            param._requires_grad = True
            if type(param._vc) is not list:  # made in inference_mode (autograd/inference.py)
                inference.set_requires_grad(param, True)
        return param

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        # Everything happened in __new__; Tensor.__init__ is the legacy constructor and
        # must not run again on the shared data.
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        if self.__dict__:  # attributes a user set travel with it
            return (_rebuild_parameter, (self._data, self._requires_grad), self.__dict__)
        return (_rebuild_parameter, (self._data, self._requires_grad))

    def __deepcopy__(self, memo) -> Parameter:
        result = Parameter(Tensor(0), self._requires_grad)
        result._data = self._data.copy()
        result._vc = [0]
        if self._grad is not None:
            result._grad = self._grad.clone()
        memo[id(self)] = result
        return result  # (without the user's attributes: PyTorch's Parameter drops them here)


PRINTED_AS_TENSOR.add(Parameter)


def _rebuild_parameter(data: np.ndarray, requires_grad: bool) -> Parameter:
    from .._tensor import _make

    return Parameter(_make(data), requires_grad)


class _BufferMeta(type):
    """Makes ``isinstance(t, Buffer)`` true for the tensors ``Buffer(...)`` marked, as PyTorch's
    ``_BufferMeta`` does (a buffer is a plain ``Tensor`` carrying a mark, not a subclass)."""

    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False) is True


class Buffer(metaclass=_BufferMeta):
    """A kind of Tensor that should not be considered a model parameter, but is part of the
    module's state (batch norm's ``running_mean``).

    Assigning one as a module attribute registers it as a buffer (``module.buffers()`` finds
    it; ``state_dict()`` saves it unless ``persistent=False``); assigning a plain tensor does
    not. As in PyTorch, ``Buffer(data)`` returns a plain :class:`~teachgrad.Tensor`
    (``data.detach()``, keeping ``requires_grad``) marked as a buffer, with a ``persistent``
    attribute::

        >>> import teachgrad as torch
        >>> class Counter(torch.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.count = torch.nn.Buffer(torch.zeros(1))
        >>> list(Counter().state_dict().items())
        [('count', tensor([0.]))]
        >>> torch.nn.Buffer(torch.ones(2), persistent=False).persistent
        False
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:
        if data is None:
            data = Tensor()  # PyTorch's default: an empty float tensor
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        buffer = data.detach().requires_grad_(data.requires_grad)
        _mark_as_buffer(buffer, persistent)
        return buffer


def _mark_as_buffer(tensor: Tensor, persistent: bool) -> None:
    # Plain attributes, as PyTorch sets them: copies and pickles of the tensor keep them.
    tensor.persistent = persistent
    tensor._is_buffer = True

def is_lazy(param: object) -> bool:
    """Whether ``param`` is a lazy module's parameter or buffer that has no shape yet."""
    from .modules.lazy import _Uninitialized  # (lazy.py imports this module)

    return isinstance(param, _Uninitialized)


_LAZY_NAMES = {"UninitializedParameter": "UninitializedParameter",
               "UninitializedBuffer": "UninitializedBuffer",
               "UninitializedTensorMixin": "_Uninitialized"}


def __getattr__(name: str):
    """``nn.parameter.UninitializedParameter`` and friends, as in PyTorch: they live with the
    lazy modules (which import this module, so they are looked up on first use)."""
    if name in _LAZY_NAMES:
        from .modules import lazy

        return getattr(lazy, _LAZY_NAMES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Buffer", "Parameter", "is_lazy"]
