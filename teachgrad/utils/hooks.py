"""``torch.utils.hooks``: the handle every ``register_*hook`` returns.

>>> import teachgrad as torch
>>> from teachgrad.utils.hooks import RemovableHandle
>>> x = torch.ones(2, requires_grad=True)
>>> handle = x.register_hook(lambda grad: grad * 2)
>>> isinstance(handle, RemovableHandle)
True
>>> handle.remove()  # the hook is gone; removing twice is harmless
"""

from __future__ import annotations

from ..autograd.graph import RemovableHandle

__all__ = ["RemovableHandle"]
