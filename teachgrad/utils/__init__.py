"""``teachgrad.utils``: as in PyTorch, home of :mod:`teachgrad.utils.data`
(``Dataset``, ``DataLoader`` ...) and :mod:`teachgrad.utils.checkpoint` (gradient
checkpointing)."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
