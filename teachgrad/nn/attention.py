"""``teachgrad.nn.attention``: the names of ``torch.nn.attention`` that tutorials use.

PyTorch has several kernels ("backends") for ``F.scaled_dot_product_attention`` (fused
flash attention, memory-efficient attention, the plain "math" composition) and lets you
choose with ``sdpa_kernel``. On a CPU it has two: the fused one, which it takes when the
arguments allow (4-d inputs, no dropout ...: one node, ``ScaledDotProductFlashAttention
ForCpuBackward0``), and the math composition, whose graph you can look at node by node.
teachgrad has both and picks as PyTorch does. ``sdpa_kernel`` without
``FLASH_ATTENTION`` leaves the math composition only; every choice gives PyTorch's values
up to rounding (teachgrad has no "no available kernel" error: the math one is always
there).

>>> import teachgrad as torch
>>> from teachgrad.nn.attention import SDPBackend, sdpa_kernel
>>> q = torch.ones(1, 2, 4)
>>> with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
...     torch.nn.functional.scaled_dot_product_attention(q, q, q).shape
teachgrad.Size([1, 2, 4])
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterable, Iterator

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The attention kernels PyTorch can choose from (teachgrad: ``FLASH_ATTENTION``, the
    fused CPU kernel, where PyTorch takes it, otherwise ``MATH``)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self) -> str:
        return f"<SDPBackend.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"


#: the kernels ``scaled_dot_product_attention`` may use now (``sdpa_kernel`` changes it)
enabled_backends: frozenset = frozenset(SDPBackend) - {SDPBackend.ERROR}


@contextlib.contextmanager
def sdpa_kernel(backends: SDPBackend | Iterable[SDPBackend],
                set_priority: bool = False) -> Iterator[None]:
    """Allow only ``backends`` in the ``with`` block: without ``FLASH_ATTENTION`` the
    fused kernel is not taken, and the graph shows the math composition's nodes."""
    global enabled_backends
    before = enabled_backends
    enabled_backends = frozenset(
        [backends] if isinstance(backends, SDPBackend) else backends)
    try:
        yield
    finally:
        enabled_backends = before


__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]
