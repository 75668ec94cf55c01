"""DLPack: handing a tensor's memory to another library, and taking theirs, without a copy.

DLPack is the data-interchange protocol of the array libraries (PyTorch, NumPy, JAX,
CuPy ...): the producer's ``__dlpack__()`` returns a capsule describing its memory (a
pointer, a dtype, a shape and strides), and the consumer's ``from_dlpack`` wraps that
memory in one of its own arrays. teachgrad's memory is a NumPy array, so teachgrad passes
the protocol through to NumPy in both directions, with PyTorch's rules on top:

* a tensor that requires grad is not exported by ``__dlpack__`` (the consumer could change
  the values behind autograd's back); ``t.detach()`` first, as PyTorch says. The legacy
  ``to_dlpack`` exports it all the same, as PyTorch's does;
* the result of ``from_dlpack`` shares memory with its source, so an in-place change of one
  shows in the other.

This is how values cross between teachgrad and the real PyTorch on purpose (their tensors
refuse each other otherwise, see ``_real_pytorch``)::

    >>> import teachgrad
    >>> t = teachgrad.arange(4.)
    >>> teachgrad.from_dlpack(t)[0] = -1.   # (one memory)
    >>> t
    tensor([-1.,  1.,  2.,  3.])
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from . import _dtypes
from ._creation import _check_device
from ._tensor import Tensor, _make, python_type_name
from ._warn import warn_user

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes, as in ``torch.utils.dlpack`` (teachgrad's tensors are all
    ``kDLCPU``)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def dlpack(self: Tensor, *, stream: Any = None, max_version: tuple[int, int] | None = None,
           dl_device: tuple | None = None, copy: bool | None = None):
    """``Tensor.__dlpack__``: a DLPack capsule of this tensor's memory, for another
    library's ``from_dlpack`` (which calls it; you rarely do)."""
    if self._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream not in (None, -1):  # (a CUDA stream: meaningless for memory on the CPU)
        raise BufferError(f"stream {stream!r} was given for a tensor on the CPU, which has "
                          "no streams\nHint: leave stream out (None).")
    if dl_device is not None and tuple(dl_device) != (DLDeviceType.kDLCPU, 0):
        raise BufferError(f"teachgrad's tensors live on the CPU (DLPack device (1, 0)); "
                          f"cannot export to device {tuple(dl_device)}")
    return self._data.__dlpack__(max_version=max_version, copy=copy)


def dlpack_device(self: Tensor) -> tuple[DLDeviceType, int]:
    """``Tensor.__dlpack_device__``: where the memory is, as DLPack codes it: the CPU."""
    return (DLDeviceType.kDLCPU, 0)


Tensor.__dlpack__ = dlpack
Tensor.__dlpack_device__ = dlpack_device


class _Capsule:
    """A bare DLPack capsule (from ``to_dlpack``) dressed as a producer, for NumPy's
    ``from_dlpack``, which takes producers only."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **_):
        return self.capsule

    def __dlpack_device__(self):
        return (DLDeviceType.kDLCPU, 0)


def from_dlpack(ext_tensor: Any, *, device=None, copy: bool | None = None) -> Tensor:
    """A tensor over another library's memory, or a copy of it (``copy=True``).

    ``ext_tensor`` is a tensor or array of a library that speaks DLPack (it has
    ``__dlpack__``: a PyTorch tensor, a NumPy array, a JAX array ...) or a capsule from
    ``to_dlpack``. Unless copied, the two share memory.

    >>> import numpy as np
    >>> import teachgrad
    >>> teachgrad.from_dlpack(np.arange(3.0))
    tensor([0., 1., 2.], dtype=teachgrad.float64)
    """
    _check_device(device)
    if not hasattr(ext_tensor, "__dlpack__"):
        if type(ext_tensor).__name__ != "PyCapsule":
            raise RuntimeError(
                "from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
                "consumed only once, so you might have already constructed a tensor from it "
                f"once.\nHint: from_dlpack takes a tensor or an array of a library that "
                f"speaks DLPack (it has __dlpack__), or a capsule; this is "
                f"{python_type_name(ext_tensor)}. For Python data use torch.tensor(...)."
            )
        ext_tensor = _Capsule(ext_tensor)
    bare_capsule = type(ext_tensor) is _Capsule
    device_type, _ = ext_tensor.__dlpack_device__()
    if device_type != DLDeviceType.kDLCPU:
        raise RuntimeError(
            f"from_dlpack: the memory is on DLPack device {int(device_type)} "
            f"({_device_name(device_type)}), and teachgrad runs on the CPU only\nHint: move "
            "it to the CPU in its own library first (for PyTorch: t.cpu())."
        )
    try:
        array = np.from_dlpack(ext_tensor, copy=copy)
    except RuntimeError as error:  # (NumPy's "Unsupported dtype in DLTensor": bfloat16 ...)
        raise RuntimeError(
            f"{error}\nHint: teachgrad's dtypes are NumPy's (no bfloat16, no complex); "
            "convert it in its own library first (for PyTorch: t.float())."
        ) from None
    _dtypes.from_numpy_dtype(array.dtype)  # (refuses what teachgrad has not: complex ...)
    if not array.flags.writeable:
        why = ("A bare DLPack capsule (from to_dlpack) cannot say whether its memory may be "
               "written, so NumPy, which holds teachgrad's memory, takes it as read-only."
               if bare_capsule else "The tensor given to from_dlpack is read-only.")
        warn_user(
            f"{why} teachgrad refuses to change this tensor in place (PyTorch would write "
            "into the memory anyway). Pass the tensor itself rather than a capsule, or use "
            "copy=True to get memory of your own.", UserWarning)
    return _make(array)


def to_dlpack(tensor: Tensor) -> object:
    """A DLPack capsule of ``tensor`` (the legacy way: prefer passing the tensor itself to
    the other library's ``from_dlpack``). A capsule (a ``PyCapsule``) can be consumed once.

    Unlike ``tensor.__dlpack__()``, it exports a tensor that requires grad too, as
    PyTorch's ``to_dlpack`` does: the capsule is the learner's explicit request for the
    memory (the consumer's tensor is outside autograd, as ``tensor.detach()`` is)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'tensor' must be Tensor, not "
                        f"{python_type_name(tensor)}")
    return tensor.detach().__dlpack__()


def _device_name(code: int) -> str:
    try:
        return DLDeviceType(code).name
    except ValueError:
        return "unknown"
