"""``teachgrad.cuda``: PyTorch's GPU questions, answered as a CPU-only PyTorch answers them.

teachgrad computes with NumPy on the CPU, so there is no GPU. Tutorials still ask about
one, to choose their device or to tidy up after training::

    device = "cuda" if torch.cuda.is_available() else "cpu"   # "cpu"
    torch.cuda.manual_seed_all(0)                             # nothing to seed
    torch.cuda.empty_cache()                                  # nothing to free

Each of these gives what PyTorch built without CUDA gives (False, 0, None, ...). A
question only a GPU can answer (``current_device()``, ``get_device_name()``,
``synchronize()`` ...) is PyTorch's ``AssertionError: Torch not compiled with CUDA
enabled``, with a hint. ``teachgrad.cuda.amp`` holds the old names of ``torch.amp``'s
tools (see :mod:`teachgrad.cuda.amp`).
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

from .._device import device as _device_class
from .._runtime import OutOfMemoryError  # (PyTorch's torch.cuda.OutOfMemoryError is torch's)

__all__ = [
    "device", "device_count", "empty_cache", "get_arch_list", "get_device_capability",
    "get_device_name", "get_device_properties", "get_gencode_flags", "get_rng_state",
    "get_rng_state_all", "init", "initial_seed", "ipc_collect", "is_available",
    "is_bf16_supported", "is_initialized", "is_tf32_supported", "manual_seed",
    "manual_seed_all", "max_memory_allocated", "max_memory_reserved", "mem_get_info",
    "memory_allocated", "memory_reserved", "memory_stats", "memory_summary",
    "reset_accumulated_memory_stats", "reset_max_memory_allocated", "reset_peak_memory_stats",
    "seed", "seed_all", "set_device", "synchronize", "OutOfMemoryError", "set_rng_state",
    "set_rng_state_all", "memory_cached", "max_memory_cached", "reset_max_memory_cached",
    "device_of",
]


def _no_cuda() -> None:
    """PyTorch's error for a question only a GPU can answer, with a hint."""
    raise AssertionError(
        "Torch not compiled with CUDA enabled"
        "\nHint: teachgrad computes on the CPU only; guard GPU code with "
        "`if torch.cuda.is_available():`."
    )


# --- What there is: nothing, and it is safe to ask. ---

def is_available() -> bool:
    """False: teachgrad has no GPU."""
    return False


def device_count() -> int:
    """0 GPUs."""
    return 0


def is_initialized() -> bool:
    """False: there is no CUDA to have started."""
    return False


def get_arch_list() -> list[str]:
    """The GPU architectures this build supports: none."""
    return []


def get_gencode_flags() -> str:
    """The compiler flags of this build's GPU code: none (``''``)."""
    return ""


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: no GPU, so no GPU bfloat16."""
    return False


def is_tf32_supported() -> bool:
    """False: no GPU, so no TensorFloat-32."""
    return False


# --- Seeding: nothing to seed, as in a CPU-only PyTorch (the CPU generator is
# torch.manual_seed's). ---

def manual_seed(seed: int) -> None:
    """Seed the current GPU's generator: there is none, so nothing happens."""
    return None


def manual_seed_all(seed: int) -> None:
    """Seed every GPU's generator: there are none, so nothing happens."""
    return None


def seed() -> None:
    """Seed the current GPU's generator randomly: nothing happens."""
    return None


def seed_all() -> None:
    """Seed every GPU's generator randomly: nothing happens."""
    return None


def get_rng_state_all() -> list:
    """The generator states of all GPUs: an empty list."""
    return []


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Restore a GPU generator's state (a checkpoint's ``cuda_rng_state``): there is no
    GPU, so nothing is restored. As in PyTorch, the state is copied first, so it must be
    a tensor."""
    new_state.clone()  # (PyTorch copies it for later: "'str' object has no attribute 'clone'")


def set_rng_state_all(new_states: Any) -> None:
    """Restore every GPU generator's state, one state per GPU: nothing is restored."""
    for state in new_states:
        set_rng_state(state)


# --- Memory: clean-up and counters that training scripts call; nothing is on a GPU. ---

def empty_cache() -> None:
    """Free the GPU memory cache: there is none, so nothing happens."""
    return None


def memory_allocated(device: Any = None) -> int:
    """Bytes of GPU memory held by tensors: 0."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    """The most GPU memory tensors have held: 0."""
    return 0


def memory_reserved(device: Any = None) -> int:
    """Bytes of GPU memory the allocator keeps: 0."""
    return 0


def max_memory_reserved(device: Any = None) -> int:
    """The most GPU memory the allocator has kept: 0."""
    return 0


def memory_cached(device: Any = None) -> int:
    """The old name of :func:`memory_reserved` (PyTorch warns): 0."""
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device: Any = None) -> int:
    """The old name of :func:`max_memory_reserved` (PyTorch warns): 0."""
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def memory_stats(device: Any = None) -> OrderedDict:
    """The allocator's statistics: none (an empty ``OrderedDict``, as PyTorch's)."""
    return OrderedDict()


# --- Questions only a GPU can answer: PyTorch's CPU-only error. ---
# (Where PyTorch's CPU build fails by accident, with an AttributeError about torch._C
# (set_device, reset_peak_memory_stats) or a KeyError (memory_summary), teachgrad raises
# the error PyTorch means, the one above.)

def init() -> None:
    """Start CUDA: there is none."""
    _no_cuda()


def current_device() -> int:
    """The index of the current GPU: there is none."""
    _no_cuda()


def set_device(device: Any) -> None:
    """Choose the current GPU: there is none. A negative index means "leave it", as in
    PyTorch, and does nothing."""
    if isinstance(device, int) and not isinstance(device, bool) and device < 0:
        return None
    _no_cuda()


def get_device_name(device: Any = None) -> str:
    """The GPU's name: there is none."""
    _no_cuda()


def get_device_capability(device: Any = None) -> tuple[int, int]:
    """The GPU's compute capability: there is none."""
    _no_cuda()


def get_device_properties(device: Any = None) -> Any:
    """The GPU's properties (name, memory ...): there is none."""
    _no_cuda()


def synchronize(device: Any = None) -> None:
    """Wait for the GPU to finish: there is none."""
    _no_cuda()


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """Free and total GPU memory: there is none."""
    _no_cuda()


def memory_summary(device: Any = None, abbreviated: bool = False) -> str:
    """A printable table of the allocator's statistics: there is none."""
    _no_cuda()


def reset_peak_memory_stats(device: Any = None) -> None:
    """Reset the peak-memory counters: there is no GPU."""
    _no_cuda()


def reset_max_memory_allocated(device: Any = None) -> None:
    """Reset ``max_memory_allocated``: there is no GPU."""
    _no_cuda()


def reset_max_memory_cached(device: Any = None) -> None:
    """The old name of ``reset_peak_memory_stats``: there is no GPU."""
    _no_cuda()


def reset_accumulated_memory_stats(device: Any = None) -> None:
    """Reset the allocator's running totals: there is no GPU."""
    _no_cuda()


def initial_seed() -> int:
    """The current GPU generator's seed: there is none."""
    _no_cuda()


def get_rng_state(device: Any = "cuda") -> Any:
    """The current GPU generator's state: there is none."""
    _no_cuda()


def ipc_collect() -> None:
    """Free GPU memory shared with other processes: there is no GPU."""
    _no_cuda()


def _device_index(device: Any) -> int:
    """A GPU's index from ``0``, ``'cuda:1'``, ``torch.device('cuda', 1)`` or None (-1,
    "the current one"), with PyTorch's error for a device that is not a GPU."""
    if device is None:
        return -1
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, str):
        device = _device_class(device)
    if isinstance(device, _device_class):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return -1 if device.index is None else device.index
    raise ValueError(f"Expected a torch.device with a specified index or an integer, but "
                     f"got:{device}")


class device:  # noqa: N801 - PyTorch's name
    """``with torch.cuda.device(1):`` runs a block on GPU 1. There is none, so entering
    fails as in a CPU-only PyTorch, except for index -1 ("the current one": a no-op)."""

    def __init__(self, device: Any) -> None:
        self.idx = _device_index(device)
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx != -1:
            raise RuntimeError(
                "PyTorch was compiled without CUDA support"
                "\nHint: teachgrad computes on the CPU only; guard GPU code with "
                "`if torch.cuda.is_available():`."
            )

    def __exit__(self, *exc_info: object) -> bool:
        return False


class device_of(device):  # noqa: N801 - PyTorch's name
    """``with torch.cuda.device_of(x):`` runs a block on the GPU ``x`` is on; teachgrad's
    tensors are on the CPU, so it does nothing."""

    def __init__(self, obj: Any) -> None:
        super().__init__(obj.get_device() if obj.is_cuda else -1)


from . import amp  # noqa: E402, F401 - torch.cuda.amp (the old names of torch.amp's tools)
