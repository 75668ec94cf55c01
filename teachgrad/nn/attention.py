"""``teachgrad.nn.attention``: the names of ``torch.nn.attention`` that tutorials use.

PyTorch has several kernels ("backends") for ``F.scaled_dot_product_attention`` (fused
flash attention, memory-efficient attention, the plain "math" composition) and lets you
choose with ``sdpa_kernel``. teachgrad has one: the math composition, whose graph you can
look at node by node. ``sdpa_kernel`` is therefore accepted and changes nothing; every
backend gives PyTorch's values up to rounding.

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
    """The attention kernels PyTorch can choose from (teachgrad computes ``MATH`` always)."""

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


@contextlib.contextmanager
def sdpa_kernel(backends: SDPBackend | Iterable[SDPBackend],
                set_priority: bool = False) -> Iterator[None]:
    """Choose attention kernels for the ``with`` block. In teachgrad every choice runs the
    same math composition, so the block runs unchanged."""
    yield


__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]
