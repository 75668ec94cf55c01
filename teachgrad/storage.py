"""``tensor.storage()`` and ``tensor.untyped_storage()``: the memory a tensor and its views
share, as PyTorch's tensor-views notes use it (``t.storage().data_ptr() ==
v.storage().data_ptr()`` says that ``v`` is a view of ``t``).

teachgrad keeps a tensor's numbers in a NumPy array; a view's array points into the array
that owns the memory. The storage is that owner, seen as elements of the tensor's dtype
(:class:`TypedStorage`, PyTorch's deprecated kind) or as bytes (:class:`UntypedStorage`).
Read-only here: enough to ask where the memory is and what it holds.

>>> import teachgrad as torch
>>> t = torch.arange(4.)
>>> t[1:].untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
True
>>> t[2:].untyped_storage().nbytes()
16
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _package_name
from ._device import device as _device
from ._dtypes import from_numpy_dtype
from ._tensor import Tensor
from ._warn import warn_user

__all__ = ["TypedStorage", "UntypedStorage"]

_warned_typed_storage = False


def _owner(array: np.ndarray) -> np.ndarray:
    """The array that owns the memory ``array`` looks into."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class UntypedStorage:
    """A tensor's memory as bytes (``tensor.untyped_storage()``)."""

    def __init__(self, array: np.ndarray) -> None:
        owner = _owner(array)
        self._bytes = owner.reshape(-1).view(np.uint8) if owner.flags.c_contiguous else (
            np.frombuffer(owner.tobytes(), np.uint8))
        self._owner = owner

    def data_ptr(self) -> int:
        """The address of the first byte."""
        return self._owner.__array_interface__["data"][0]

    def nbytes(self) -> int:
        """The size in bytes."""
        return self._owner.nbytes

    def size(self) -> int:
        """The size in bytes (as PyTorch's ``UntypedStorage.size``)."""
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def __getitem__(self, index: int) -> int:
        return int(self._bytes[index])

    def tolist(self) -> list:
        """The bytes as ints."""
        return self._bytes.tolist()

    @property
    def device(self) -> _device:
        """Always the CPU."""
        return _device("cpu")

    def __repr__(self) -> str:
        lines = [f" {b}" for b in self._bytes.tolist()]
        lines.append(f"[{_package_name.printed}.storage.UntypedStorage(device=cpu) of size "
                     f"{self.nbytes()}]")
        return "\n".join(lines)


class TypedStorage:
    """A tensor's memory as elements of its dtype (``tensor.storage()``; deprecated in
    PyTorch in favour of :class:`UntypedStorage`)."""

    def __init__(self, array: np.ndarray) -> None:
        owner = _owner(array)
        self._owner = owner
        self._elements = np.frombuffer(owner.tobytes(), array.dtype) if not (
            owner.flags.c_contiguous) else owner.reshape(-1).view(np.uint8).view(array.dtype)

    def data_ptr(self) -> int:
        """The address of the first element."""
        return self._owner.__array_interface__["data"][0]

    def size(self) -> int:
        """The number of elements."""
        return self._elements.size

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        """The size in bytes."""
        return self._elements.nbytes

    def element_size(self) -> int:
        """Bytes per element."""
        return self._elements.itemsize

    @property
    def dtype(self) -> Any:
        """The elements' dtype."""
        return from_numpy_dtype(self._elements.dtype)

    @property
    def device(self) -> _device:
        """Always the CPU."""
        return _device("cpu")

    def __getitem__(self, index: int) -> Any:
        return self._elements[index].item()

    def tolist(self) -> list:
        """The elements as Python numbers."""
        return self._elements.tolist()

    def __repr__(self) -> str:
        lines = [f" {v}" for v in self._elements.tolist()]
        lines.append(f"[{_package_name.printed}.storage.TypedStorage(dtype={self.dtype}, "
                     f"device=cpu) of size {self.size()}]")
        return "\n".join(lines)


def untyped_storage(self) -> UntypedStorage:
    """The memory this tensor (and every view of it) lives in, as bytes."""
    return UntypedStorage(self._data)


def storage(self) -> TypedStorage:
    """The memory this tensor (and every view of it) lives in, as elements of its dtype.

    PyTorch deprecates it (with a warning, once) for :meth:`untyped_storage`.
    """
    global _warned_typed_storage
    if not _warned_typed_storage:
        _warned_typed_storage = True
        warn_user(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage "
            "will be the only storage class. This should only matter to you if you are using "
            "storages directly.  To access UntypedStorage directly, use "
            "tensor.untyped_storage() instead of tensor.storage()",
            UserWarning,
        )
    return TypedStorage(self._data)


Tensor.storage = storage
Tensor.untyped_storage = untyped_storage
