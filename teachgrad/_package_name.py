"""The package name that reprs print: ``teachgrad.float32``, ``teachgrad.Size([2])``.

A module cannot know the name code imported it as (``import teachgrad as torch`` binds a
name in that code only), so the reprs say ``teachgrad``. Once
``teachgrad.install_as_torch()`` has made ``import torch`` mean teachgrad, they say
``torch``, as PyTorch's own do (see ``_as_torch.py``).
"""

from __future__ import annotations

printed = "teachgrad"


def qualified(name: str) -> str:
    """``name`` as the package prints it: ``qualified("float32")`` is ``"teachgrad.float32"``."""
    return f"{printed}.{name}"
