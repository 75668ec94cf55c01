"""``teachgrad.utils``: as in PyTorch, home of :mod:`teachgrad.utils.data`
(``Dataset``, ``DataLoader`` ...)."""

from . import data

__all__ = ["data"]
