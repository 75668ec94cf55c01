"""What PyTorch keeps at the top level besides tensors: math constants and thread counts.

``teachgrad.pi``, ``e``, ``inf`` and ``nan`` are Python floats, as in PyTorch.

Threads: teachgrad computes with NumPy, which chooses how many threads its BLAS library
uses when it is imported (from ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS``), and has no
call to change that later. So ``set_num_threads(n)`` checks ``n`` as PyTorch does and
remembers it, ``get_num_threads()`` reports it, and neither limits or adds any thread:
lesson code that calls them runs unchanged.
"""

from __future__ import annotations

import math
import os

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan

_threads = {"count": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else (os.cpu_count() or 1)}


def get_num_threads() -> int:
    """The thread count last given to :func:`set_num_threads` (at first, the usable CPUs).

    Only a number teachgrad remembers: see the module's docstring.
    """
    return _threads["count"]


def set_num_threads(num: int) -> None:
    """Remember ``num`` as the thread count (PyTorch's checks); it changes no computation.

    NumPy's BLAS keeps the thread count it chose when it was imported: set
    ``OMP_NUM_THREADS`` before starting Python to really limit it.
    """
    if isinstance(num, bool) or not isinstance(num, int):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _threads["count"] = num


_interop = {"count": _threads["count"]}


def get_num_interop_threads() -> int:
    """The inter-op thread count last given to :func:`set_num_interop_threads` (at first,
    the usable CPUs). teachgrad runs one op at a time: only a number it remembers."""
    return _interop["count"]


def set_num_interop_threads(num: int) -> None:
    """Remember ``num`` as the inter-op thread count (PyTorch's checks); PyTorch runs
    independent ops of a TorchScript graph on these threads, teachgrad runs one at a time."""
    if isinstance(num, bool) or not isinstance(num, int):
        raise RuntimeError(
            f"set_num_interop_threads expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _interop["count"] = num


def init_num_threads() -> None:
    """PyTorch passes its thread count on to a new thread; teachgrad's counts are only
    remembered numbers (see the module's docstring), so there is nothing to do."""


class OutOfMemoryError(RuntimeError):
    """An accelerator ran out of memory (``torch.cuda.OutOfMemoryError`` is this class).

    teachgrad has no accelerator, so it never raises it; it is here for training code that
    catches it (``except torch.cuda.OutOfMemoryError:`` to retry with a smaller batch).
    Memory the CPU cannot give is NumPy's ``MemoryError``.
    """


class AcceleratorError(RuntimeError):
    """An error an accelerator reported: never raised by teachgrad, which has none."""


__all__ = ["pi", "e", "inf", "nan", "get_num_threads", "set_num_threads",
           "get_num_interop_threads", "set_num_interop_threads", "init_num_threads",
           "OutOfMemoryError", "AcceleratorError"]
