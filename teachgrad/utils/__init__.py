"""``teachgrad.utils``: as in PyTorch, home of :mod:`teachgrad.utils.data`
(``Dataset``, ``DataLoader`` ...), :mod:`teachgrad.utils.checkpoint` (gradient
checkpointing) and :mod:`teachgrad.utils.hooks` (``RemovableHandle``)."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
