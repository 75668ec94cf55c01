"""``teachgrad.utils``: as in PyTorch, home of :mod:`teachgrad.utils.data`
(``Dataset``, ``DataLoader`` ...), :mod:`teachgrad.utils.checkpoint` (gradient
checkpointing), :mod:`teachgrad.utils.hooks` (``RemovableHandle``) and
:mod:`teachgrad.utils.dlpack` (memory shared with other libraries)."""

from . import checkpoint, data, dlpack, hooks

__all__ = ["checkpoint", "data", "dlpack", "hooks"]
