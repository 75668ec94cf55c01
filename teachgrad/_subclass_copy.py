"""Pickling and deep-copying a subclass of Tensor, as PyTorch does.

A pickled subclass instance is rebuilt as a plain tensor made the subclass again with
``as_subclass`` (its ``__init__`` does not run), then given back its state: its
``__dict__`` and the ``__slots__`` its own classes declare (through the class's
``__setstate__``, if it has one). So ``pickle.loads(pickle.dumps(s))`` keeps the type
and the attributes; as in PyTorch, a subclass that requires grad comes back as an alias
of the rebuilt leaf (``grad_fn=<AliasBackward0>``).

``copy.deepcopy`` follows PyTorch's ``Tensor.__deepcopy__``: the copy starts as
``self.new_empty([])``, which must be of the subclass. Inside ``Tensor.__torch_function__``
(where the copy runs, the call being dispatched) results are plain tensors, so a
subclass that does not override ``new_empty`` cannot be deep-copied, in PyTorch as here.
"""

from __future__ import annotations

import copy
import copyreg

from ._tensor import Tensor

_TENSOR_SLOTS = frozenset(copyreg._slotnames(Tensor))  # (teachgrad's own: not state)


def subclass_state(tensor: Tensor):
    """PyTorch's ``_get_obj_state``: the ``__dict__``, or ``(__dict__, slots)`` when the
    subclass declares ``__slots__`` of its own."""
    slots = {name: getattr(tensor, name) for name in _own_slots(type(tensor))
             if hasattr(tensor, name)}
    attributes = tensor.__dict__
    return (attributes, slots) if slots else attributes


def _own_slots(cls: type) -> list[str]:
    return [name for name in copyreg._slotnames(cls)
            if name not in _TENSOR_SLOTS and name not in ("__dict__", "__weakref__")]


def rebuild_from_type(func, new_type: type, args: tuple, state) -> Tensor:
    """PyTorch's ``_rebuild_from_type_v2``: ``func(*args)`` made a ``new_type`` and given
    ``state`` back."""
    result = func(*args)
    if type(result) is not new_type:
        result = result.as_subclass(new_type)
    setstate = getattr(new_type, "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None):
        result.__setstate__(state)  # (the subclass's own)
        return result
    attributes, slots = state if isinstance(state, tuple) else (state, None)
    for name, value in (attributes or {}).items():
        setattr(result, name, value)
    for name, value in (slots or {}).items():
        setattr(result, name, value)
    return result


def deepcopy_subclass(tensor: Tensor, memo: dict) -> Tensor:
    """The subclass part of PyTorch's ``Tensor.__deepcopy__`` (a leaf, not in ``memo``)."""
    new = tensor.new_empty([])
    if type(new) is not type(tensor):
        raise RuntimeError(
            "The default implementation of __deepcopy__() for non-wrapper subclasses only "
            "works for subclass types that implement new_empty() and for which that "
            "function returns another instance of the same subclass. You should either "
            "properly implement new_empty() for your subclass or override __deepcopy__() "
            "if it is intended behavior for new_empty() to return an instance of a "
            "different type.\nHint: give the class a new_empty that returns "
            f"super().new_empty(*args, **kwargs).as_subclass({type(tensor).__name__}).")
    new._data = tensor._data.copy()  # (PyTorch's set_ on a copy of the storage)
    if tensor.requires_grad:
        new.requires_grad_()
    if tensor._grad is not None:
        new.grad = copy.deepcopy(tensor._grad, memo)
    for name in _own_slots(type(tensor)):
        if hasattr(tensor, name):
            setattr(new, name, copy.deepcopy(getattr(tensor, name), memo))
    new.__dict__ = copy.deepcopy(tensor.__dict__, memo)
    memo[id(tensor)] = new
    return new
