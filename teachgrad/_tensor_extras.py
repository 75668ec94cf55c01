"""Tensor methods about memory and Python callables: ``data_ptr``, ``storage_offset``,
``is_cpu``, ``new``, ``apply_`` and ``map_`` (and ``is_inference``).

teachgrad keeps a tensor's numbers in a NumPy array; its memory address and its offset
into the memory it shares with other views are the array's, so these answer what PyTorch
answers (``x[1].data_ptr() - x.data_ptr()`` is the same number of bytes).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._layout import strided
from ._missing_arguments import REQUIRED, missing
from ._real_pytorch import real_pytorch_hint
from ._tensor import Tensor, _make, python_type_name
from ._warn import warn_user
from .autograd.grad_mode import state as _grad_state
from .autograd.inference import is_inference_tensor
from .ops.inplace import write_into

__all__: list[str] = []


def data_ptr(self: Tensor) -> int:
    """The address of the tensor's first element in memory (an int)."""
    return self._data.__array_interface__["data"][0]


def storage_offset(self: Tensor) -> int:
    """How many elements into its storage the tensor starts (0 unless it is a view).

    >>> import teachgrad as torch
    >>> torch.arange(6.).view(2, 3)[1].storage_offset()
    3
    """
    root = self._data
    while isinstance(root.base, np.ndarray):  # the array that owns the memory
        root = root.base
    start = root.__array_interface__["data"][0]
    return (data_ptr(self) - start) // self._data.itemsize


def new(self: Tensor, *args, **kwargs) -> Tensor:
    """PyTorch's legacy constructor, with ``self``'s dtype: ``x.new(2, 3)`` (zeros here,
    uninitialised in PyTorch), ``x.new([1, 2])`` (data), ``x.new()`` (empty).

    >>> import teachgrad as torch
    >>> torch.tensor([1, 2]).new([1.7])
    tensor([1])
    """
    from ._legacy_types import _BY_NAME

    return _BY_NAME[self.dtype._legacy](*args, **kwargs)


def _check_python_callable(self: Tensor, name: str) -> None:
    if self._requires_grad and _grad_state.enabled:
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            "instead."
        )


def apply_(self: Tensor, callable: Callable) -> Tensor:  # noqa: A002 - PyTorch's name
    """Replace each element ``v`` by ``callable(v)`` (a Python number), in place.

    One Python call per element: slow, for small experiments only (as in PyTorch).

    >>> import teachgrad as torch
    >>> torch.tensor([1., 2.]).apply_(lambda v: v * 10)
    tensor([10., 20.])
    """
    _check_python_callable(self, "apply_")
    values = [callable(v) for v in self._data.reshape(-1).tolist()]
    write_into(self, _make(np.array(values, self._data.dtype).reshape(self._data.shape)))
    return self


def map_(self: Tensor, tensor: Tensor = REQUIRED,
         callable: Callable = REQUIRED) -> Tensor:  # noqa: A002
    """Replace each element ``a`` by ``callable(a, b)``, ``b`` the element of ``tensor``
    (broadcast to ``self``'s shape) at the same place, in place."""
    if tensor is REQUIRED or callable is REQUIRED:  # (PyTorch's words: _missing_arguments)
        raise missing("map_", map_, self, tensor, callable)
    _check_python_callable(self, "map_")
    shape = self._data.shape
    try:
        other = np.broadcast_to(tensor._data, shape)
    except ValueError:
        raise RuntimeError(
            f"The expanded size of the tensor ({shape[-1] if shape else 1}) must match the "
            f"existing size ({tensor._data.shape[-1]}) at non-singleton dimension "
            f"{len(shape) - 1}.  Target sizes: [{', '.join(map(str, shape))}].  Tensor sizes: "
            f"[{', '.join(map(str, tensor._data.shape))}]"
        ) from None
    values = [callable(a, b) for a, b in zip(self._data.reshape(-1).tolist(),
                                             other.reshape(-1).tolist())]
    write_into(self, _make(np.array(values, self._data.dtype).reshape(shape)))
    return self


def const_data_ptr(self: Tensor) -> int:
    """The address of the first element, for reading only: the same as :meth:`data_ptr`."""
    return data_ptr(self)


def _memory_root(array: np.ndarray) -> object:
    """The object at the end of an array's chain of views: the memory it shares."""
    while getattr(array, "base", None) is not None:  # (a broadcast view's base is NumPy's
        array = array.base  # DummyArray, whose base is the array it views)
    return array


def is_set_to(self: Tensor, tensor: Tensor = REQUIRED) -> bool:
    """Whether both tensors are the very same memory seen the same way: one storage, the
    same first element, sizes and strides (``x.is_set_to(x[:])`` is True, a clone's False).
    """
    if tensor is REQUIRED:
        raise missing("is_set_to", is_set_to, self, tensor)
    if not isinstance(tensor, Tensor):
        raise TypeError("is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{python_type_name(tensor)}" + real_pytorch_hint(tensor))
    # (one storage: the same array at the end of both chains of views; two empty tensors
    # made apart are two storages, as in PyTorch, even where NumPy gives one address)
    return (_memory_root(self._data) is _memory_root(tensor._data)
            and data_ptr(self) == data_ptr(tensor) and self.shape == tensor.shape
            and self.stride() == tensor.stride())


def share_memory_(self: Tensor) -> Tensor:
    """Returns ``self``: PyTorch moves the memory where other processes can reach it
    (``torch.multiprocessing``); teachgrad runs in one process, so there is nothing to do
    (``is_shared()`` stays False)."""
    return self


def _volatile(self: Tensor) -> bool:
    """False, with PyTorch's warning: ``volatile`` (PyTorch 0.3's way to switch off
    autograd) was removed; write ``with torch.no_grad():`` instead."""
    warn_user("volatile was removed (Variable.volatile is always False)", UserWarning)
    return False


def is_inference(input: Tensor) -> bool:  # noqa: A002 - PyTorch's name
    """Whether ``input`` is an *inference tensor*: made inside ``inference_mode()`` (or a
    view of one). Autograd may never use it later (see ``autograd/inference.py``).

    >>> import teachgrad as torch
    >>> with torch.inference_mode():
    ...     made_inside = torch.ones(2)
    >>> made_inside.is_inference(), torch.ones(2).is_inference()
    (True, False)
    """
    if not isinstance(input, Tensor):
        raise TypeError("is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{python_type_name(input)}" + real_pytorch_hint(input))
    return is_inference_tensor(input)


def contains(self: Tensor, element) -> bool:
    """``element in tensor``: whether any element equals it (a number or a tensor, which
    is compared by broadcasting, as PyTorch's ``(element == self).any()``)."""
    if not isinstance(element, (Tensor, bool, int, float, complex, np.number, np.bool_)):
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")
    return bool((element == self).any().item())


Tensor.__contains__ = contains
Tensor.is_inference = is_inference
Tensor.data_ptr = data_ptr
Tensor.const_data_ptr = const_data_ptr
Tensor.is_set_to = is_set_to
share_memory_.__qualname__ = "Tensor.share_memory_"  # (as Python names it in errors)
Tensor.share_memory_ = share_memory_
Tensor.volatile = property(_volatile, doc=_volatile.__doc__)
Tensor.storage_offset = storage_offset
Tensor.layout = property(lambda self: strided,
                         doc="``teachgrad.strided``: every tensor here is dense.")
Tensor.is_cpu = property(lambda self: True, doc="Always True: teachgrad computes on the CPU.")
Tensor.new = new
Tensor.apply_ = apply_
Tensor.map_ = map_
