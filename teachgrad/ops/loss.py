"""loss ops (being written: see the open issue for the autograd core)."""

from __future__ import annotations

__all__: list[str] = []
