"""``teachgrad.save`` / ``teachgrad.load``: write tensors, state dicts and checkpoints to files.

The file is a Python pickle of the object. Tensors are pickled as their raw bytes plus
dtype, shape and ``requires_grad``, so a file does not depend on NumPy's internals::

    >>> import io, teachgrad as torch
    >>> buffer = io.BytesIO()
    >>> torch.save({"w": torch.ones(2), "epoch": 3}, buffer)
    >>> _ = buffer.seek(0)
    >>> torch.load(buffer)
    {'w': tensor([1., 1.]), 'epoch': 3}

Loading a pickle can run arbitrary code: a pickle names functions, and the loader calls
them. So, as in PyTorch (since 2.6), ``load`` reads with ``weights_only=True`` by default:
only tensors, containers (dict, OrderedDict, list, tuple, set), numbers, strings, bytes,
None, dtypes and ``Size`` are accepted; any other global is refused with PyTorch's error.
Pass ``weights_only=False`` for files you trust (a whole pickled model, say), or allow
your own classes with :func:`add_safe_globals`.

Shared memory is kept, as in PyTorch: tensors that are views of one array are written
with that array's bytes once (a *storage*) plus where each reads it (offset, shape,
strides), so after loading they share memory again, and a tensor that is a slice of a big
one saves the whole of it (``.clone()`` it first to save only the slice). What is *not*
kept, as in PyTorch: ``.grad`` and the graph (a saved non-leaf tensor loads as a leaf).
The format is teachgrad's own; it does not read PyTorch's ``.pt`` files, nor does PyTorch
read teachgrad's.
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import pickle
from collections.abc import Iterator
from typing import IO, Any

import numpy as np

from . import _device, _dtypes
from ._as_torch import teachgrad_class
from ._tensor import Size, Tensor, _make

# ----------------------------------------------------------------------------------------
# How a tensor is written and read back
# ----------------------------------------------------------------------------------------


def _rebuild_tensor(data: bytes, dtype: str, shape: tuple, requires_grad: bool) -> Tensor:
    """The tensor pickled by ``_reduce_tensor`` (called by the unpickler)."""
    return _make(_array_from_bytes(data, dtype, shape), bool(requires_grad))


def _rebuild_parameter(data: bytes, dtype: str, shape: tuple, requires_grad: bool):
    """The ``nn.Parameter`` pickled by ``_reduce_tensor``."""
    from .nn.parameter import Parameter

    return Parameter(_make(_array_from_bytes(data, dtype, shape)), bool(requires_grad))


def _array_from_bytes(data: bytes, dtype: str, shape: tuple) -> np.ndarray:
    # Check what the file says before trusting it: a known dtype, and as many bytes as
    # the shape needs (a corrupt file gets an error here, not a strange tensor later).
    if dtype not in _TENSOR_DTYPES:
        raise pickle.UnpicklingError(f"unsupported tensor dtype in file: {dtype!r}")
    if not (isinstance(data, bytes) and isinstance(shape, tuple)
            and all(type(n) is int and n >= 0 for n in shape)):
        raise pickle.UnpicklingError("malformed tensor record in file")
    item = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if len(data) != count * item.itemsize:
        raise pickle.UnpicklingError(
            f"tensor data of {len(data)} bytes does not fit shape {tuple(shape)} of {dtype}"
        )
    # frombuffer is read-only and shares the file's bytes: copy, so the tensor can change.
    return np.frombuffer(data, dtype=item).reshape(shape).copy()


def _rebuild_storage(data: bytes) -> np.ndarray:
    """The bytes of an array several saved tensors read (one object: pickle's memo shares it)."""
    if not isinstance(data, bytes):
        raise pickle.UnpicklingError("malformed storage record in file")
    return np.frombuffer(data, dtype=np.uint8).copy()  # (copied: the tensors may change)


def _rebuild_tensor_in_storage(storage: np.ndarray, dtype: str, offset: int, shape: tuple,
                               strides: tuple, requires_grad: bool, parameter: bool):
    """A tensor reading ``storage`` from ``offset`` (bytes) with ``shape`` and ``strides``."""
    if dtype not in _TENSOR_DTYPES:
        raise pickle.UnpicklingError(f"unsupported tensor dtype in file: {dtype!r}")
    numbers = (offset, *shape, *strides)
    if not (type(storage) is np.ndarray and storage.dtype == np.uint8 and storage.ndim == 1
            and isinstance(shape, tuple) and isinstance(strides, tuple)
            and len(shape) == len(strides) and all(type(n) is int for n in numbers)
            and all(n > 0 for n in shape) and offset >= 0):
        raise pickle.UnpicklingError("malformed tensor record in file")
    low, high = _byte_extent(offset, shape, strides, np.dtype(dtype).itemsize)
    if low < 0 or high > storage.nbytes:
        raise pickle.UnpicklingError(
            f"tensor of shape {shape} at offset {offset} reads outside its storage of "
            f"{storage.nbytes} bytes")
    array = np.ndarray(shape, dtype=np.dtype(dtype), buffer=storage, offset=offset,
                       strides=strides)
    if parameter:
        from .nn.parameter import Parameter

        return Parameter(_make(array), bool(requires_grad))
    return _make(array, bool(requires_grad))


def _byte_extent(offset: int, shape: tuple, strides: tuple, itemsize: int) -> tuple:
    """The first byte and one past the last byte that an array's elements occupy."""
    low = high = offset
    for n, stride in zip(shape, strides):
        reach = (n - 1) * stride
        low, high = (low + reach, high) if reach < 0 else (low, high + reach)
    return low, high + itemsize


def _memory_owner(array: np.ndarray) -> np.ndarray | None:
    """The array that owns ``array``'s memory, when it is an ordinary contiguous one.

    Views (slices, transposes, ``expand``) keep a ``base`` chain to it. Memory owned by
    something else (a buffer, a memory map) or laid out unusually gives None: the tensor is
    then written as its own values.
    """
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if owner.base is not None or not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return None
    if owner.dtype.byteorder == ">" or array.dtype.byteorder == ">":
        return None
    return owner


class _Storage:
    """What the pickler writes once for all the tensors reading one array's memory."""

    def __init__(self, owner: np.ndarray) -> None:
        self.owner = owner

    def __reduce__(self) -> tuple:
        raw = self.owner.reshape(-1, order="A").view(np.uint8)  # memory order, no copy
        return (_rebuild_storage, (raw.tobytes(),))


# Little-endian names as ``dtype.str`` gives them ("<f4"); "|" for one-byte types.
_TENSOR_DTYPES = {np.dtype(d.numpy).newbyteorder("<").str for d in _dtypes._ALL}


def _reduce_tensor(t: Tensor, storages: dict | None = None) -> tuple:
    """How the pickler writes a tensor: its bytes (or its place in a storage that
    ``storages``, one per file, writes once), dtype, shape and requires_grad."""
    from .nn.parameter import Parameter

    array = t._data
    if array.dtype.byteorder == ">":  # files are little-endian, whatever the machine
        array = array.astype(array.dtype.newbyteorder("<"))
    owner = _memory_owner(array) if storages is not None and array.size else None
    if owner is not None:  # where it sits in its owner's memory, written once per owner
        storage = storages.get(id(owner))
        if storage is None:
            storage = storages[id(owner)] = _Storage(owner)
        offset = (array.__array_interface__["data"][0]
                  - owner.__array_interface__["data"][0])
        arguments = (storage, array.dtype.str, offset, tuple(array.shape),
                     tuple(array.strides), t._requires_grad, type(t) is Parameter)
        rebuild = _rebuild_tensor_in_storage
    else:
        rebuild = _rebuild_parameter if type(t) is Parameter else _rebuild_tensor
        # ascontiguousarray: a transposed or sliced tensor is written as its values in order.
        data = np.ascontiguousarray(array).tobytes()
        arguments = (data, array.dtype.str, tuple(array.shape), t._requires_grad)
    if t.__dict__:  # attributes a user set (an nn.Buffer's mark): restored after rebuilding
        return (rebuild, arguments, dict(t.__dict__))
    return (rebuild, arguments)


_OWN_PACKAGES = ("teachgrad", "torch")


class _Pickler(pickle.Pickler):
    """A pickler that writes teachgrad tensors with ``_reduce_tensor``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.storages: dict = {}  # id(memory owner) -> _Storage, so each is written once

    def reducer_override(self, obj: Any) -> Any:
        # (teachgrad's own classes: Tensor's module prints as "teachgrad", or "torch"
        # once install_as_torch() has run; a user's subclass is pickled its usual way)
        if isinstance(obj, Tensor) and type(obj).__module__.split(".")[0] in _OWN_PACKAGES:
            return _reduce_tensor(obj, self.storages)
        return NotImplemented  # everything else: pickle's usual way


# ----------------------------------------------------------------------------------------
# save
# ----------------------------------------------------------------------------------------


def save(obj: Any, f: str | os.PathLike | IO[bytes], pickle_module: Any = pickle,
         pickle_protocol: int = pickle.DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True) -> None:
    """Write ``obj`` (a tensor, a ``state_dict``, a dict of them ...) to a file.

    ``f`` is a path or a file opened for writing in binary mode. The usual checkpoint::

        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": epoch}, "checkpoint.pt")

    ``pickle_module`` and ``_use_new_zipfile_serialization`` are accepted for PyTorch
    compatibility; teachgrad always writes its own pickle format (see the module docstring).
    """
    _check_save_target(f)
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle_protocol).dump(obj)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            file.write(buffer.getvalue())
    else:
        f.write(buffer.getvalue())


def _check_save_target(f: Any) -> None:
    """PyTorch's refusals of where ``save`` is asked to write, before anything is written:
    a path whose directory is missing, or something that is neither a path nor writable."""
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.fspath(f))
        if parent and not os.path.isdir(parent):
            raise RuntimeError(
                f"Parent directory {parent} does not exist."
                f"\nHint: create it first, e.g. os.makedirs({parent!r}, exist_ok=True).")
    elif not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'write' attribute")


# ----------------------------------------------------------------------------------------
# load, and what weights_only allows
# ----------------------------------------------------------------------------------------

# (module, name) of every global a weights-only load may call: the tensor rebuilders and
# the few safe types pickle refers to by name.
_SAFE_GLOBALS: dict[tuple[str, str], Any] = {
    (__name__, "_rebuild_tensor"): _rebuild_tensor,
    (__name__, "_rebuild_parameter"): _rebuild_parameter,
    (__name__, "_rebuild_storage"): _rebuild_storage,
    (__name__, "_rebuild_tensor_in_storage"): _rebuild_tensor_in_storage,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("builtins", "complex"): complex,
    ("builtins", "set"): set,
    ("teachgrad._dtypes", "_by_name"): _dtypes._by_name,
    ("teachgrad._tensor", "Size"): Size,
    ("teachgrad._device", "device"): _device.device,  # checkpoints that record their device
    # (the names they have once install_as_torch() has made teachgrad torch: PyTorch's)
    ("torch", "Size"): Size,
    ("torch", "device"): _device.device,
}
_USER_SAFE_GLOBALS: dict[tuple[str, str], Any] = {}


def _global_name(module: str, name: str) -> str:
    """How PyTorch's message names a global: ``len`` for builtins, else ``module.name``."""
    return name if module == "builtins" else f"{module}.{name}"


def _key_of(obj: Any) -> tuple[str, str]:
    return (obj.__module__, obj.__qualname__)


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes/functions in ``load(..., weights_only=True)``.

    Only for classes you trust: loading calls them with arguments from the file.

    >>> import teachgrad as torch
    >>> class Config:
    ...     pass
    >>> torch.serialization.add_safe_globals([Config])
    >>> [c.__name__ for c in torch.serialization.get_safe_globals()]
    ['Config']
    >>> torch.serialization.clear_safe_globals()  # (allowed until then, for the process)
    """
    for obj in safe_globals:
        _USER_SAFE_GLOBALS[_key_of(obj)] = obj


def get_safe_globals() -> list:
    """The globals allowed by :func:`add_safe_globals` (not the built-in ones)."""
    return list(_USER_SAFE_GLOBALS.values())


def clear_safe_globals() -> None:
    """Forget every global allowed by :func:`add_safe_globals`."""
    _USER_SAFE_GLOBALS.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list) -> Iterator[None]:
    """``with safe_globals([Config]): ...``: allow these globals inside the block only."""
    before = dict(_USER_SAFE_GLOBALS)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _USER_SAFE_GLOBALS.clear()
        _USER_SAFE_GLOBALS.update(before)


class _Unpickler(pickle.Unpickler):
    """Pickle's own way (``weights_only=False``), except that the classes of a file saved
    after ``install_as_torch()``, named ``torch.…`` there, are teachgrad's."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "torch" or module.startswith("torch."):
            return teachgrad_class(module, name)
        return super().find_class(module, name)


class _WeightsUnpickler(pickle.Unpickler):
    """An unpickler that calls nothing but the allowed globals (``weights_only=True``)."""

    def find_class(self, module: str, name: str) -> Any:
        found = _SAFE_GLOBALS.get((module, name))
        if found is None:
            found = _USER_SAFE_GLOBALS.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(_unsupported_global(module, name))
        return found


def _unsupported_global(module: str, name: str) -> str:
    """The core of PyTorch's 'Unsupported global' message (wrapped by ``_weights_only_error``)."""
    shown = _global_name(module, name)
    return (
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please "
        f"use `torch.serialization.add_safe_globals([{shown}])` or the "
        f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this "
        "global if you trust this class/function."
    )


def _weights_only_error(reason: str) -> pickle.UnpicklingError:
    """PyTorch's full message for a refused weights-only load (bold as it prints it)."""
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two "
        "options, \x1b[1mdo those steps only if you trust the source of the checkpoint"
        "\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the default value of the "
        "`weights_only` argument in `torch.load` from `False` to `True`. Re-running "
        "`torch.load` with `weights_only` set to `False` will likely succeed, but it can "
        "result in arbitrary code execution. Do it only if you got the file from a trusted "
        "source.\n\t(2) Alternatively, to load with `weights_only=True` please check the "
        "recommended steps in the following error message.\n\tWeightsUnpickler error: "
        f"{reason}\n\nCheck the documentation of torch.load to learn more about types "
        "accepted by default with weights_only "
        "https://pytorch.org/docs/stable/generated/torch.load.html."
        "\nHint: save model.state_dict() rather than the model itself; load a file you "
        "trust with weights_only=False."
    )


def load(f: str | os.PathLike | IO[bytes], map_location: Any = None, pickle_module: Any = None,
         *, weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args: Any) -> Any:
    """Read back what :func:`save` wrote.

    ``weights_only`` (default ``True``, as in PyTorch 2.6+) accepts only tensors, plain
    containers, numbers, strings and dtypes: safe for files from anywhere. Use
    ``weights_only=False`` only for files you trust. ``map_location`` is accepted for
    PyTorch compatibility (everything lives on the CPU here; a CUDA device is refused, as
    PyTorch refuses it on a machine without CUDA).

    >>> import io, teachgrad as torch
    >>> buffer = io.BytesIO()
    >>> torch.save(torch.nn.Linear(2, 1).state_dict(), buffer)
    >>> _ = buffer.seek(0)
    >>> list(torch.load(buffer))
    ['weight', 'bias']
    """
    if weights_only is None:
        weights_only = True
    if weights_only and pickle_module is not None:
        raise RuntimeError(
            "Can not safely load weights when explicit pickle_module is specified"
        )
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            data = file.read()
    else:
        data = f.read()
    if data[:4] == b"PK\x03\x04":  # a zip file: what PyTorch writes
        raise RuntimeError(
            "This file was written by PyTorch (a zip archive); teachgrad.load reads only "
            "files written by teachgrad.save."
            "\nHint: in PyTorch, load it and save the tensors' values with numpy.save, "
            "or re-create the checkpoint with teachgrad."
        )
    _check_map_location(map_location, data)
    buffer = io.BytesIO(data)
    if not weights_only:
        if pickle_module is not None:
            return pickle_module.Unpickler(buffer, **pickle_load_args).load()
        return _Unpickler(buffer, **pickle_load_args).load()
    try:
        return _WeightsUnpickler(buffer, **pickle_load_args).load()
    except pickle.UnpicklingError as e:
        raise _weights_only_error(str(e)) from None


def _maps_to_cuda(map_location: Any) -> bool:
    """Whether ``map_location`` sends the file's (CPU) tensors to a CUDA device: a device
    or its name, or a dict whose entry for ``'cpu'`` is one. (A function is not called.)"""
    if isinstance(map_location, dict):
        map_location = map_location.get("cpu")
    if not isinstance(map_location, (str, _device.device)):
        return False
    try:
        return _device.device(map_location).type == "cuda"
    except RuntimeError:  # not a device name: nothing is mapped to CUDA
        return False


def _check_map_location(map_location: Any, data: bytes) -> None:
    """PyTorch's refusal to load tensors onto CUDA on a machine without it (teachgrad's).

    Only a file with tensors is refused, as in PyTorch: the tensors' records name this
    module's ``_rebuild_...`` functions, which the pickled bytes then contain."""
    if map_location is not None and _maps_to_cuda(map_location) and b"_rebuild_" in data:
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU."
            "\nHint: teachgrad runs on the CPU only; load with map_location='cpu' (or "
            "leave map_location out).")


__all__ = [
    "add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "safe_globals", "save",
]
