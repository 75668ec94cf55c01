"""``nn.utils.skip_init``: build a module without running its weight initialisation.

PyTorch builds the module on the "meta" device (shapes, no memory), then allocates
uninitialised memory: the values are garbage until you initialise them yourself. teachgrad
has no meta device; the module is built normally, so its values are the usual initial
ones. Either way, a program must not rely on them, and initialises them itself.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Module:
    """An instance of ``module_cls(*args, **kwargs)`` whose values are to be set by you.

    >>> import teachgrad as torch
    >>> torch.nn.utils.skip_init(torch.nn.Linear, 5, 1).weight.shape
    teachgrad.Size([1, 5])
    """
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
