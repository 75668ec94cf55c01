"""``torch.layout`` and ``torch.strided``: how a tensor's elements are stored.

PyTorch has dense ("strided") tensors and several sparse layouts. teachgrad's tensors are
all dense NumPy arrays, so ``strided`` is the only layout there is, and every tensor's
``.layout`` is it (as it is for every tensor the tutorials make).
"""

from __future__ import annotations

__all__ = ["layout", "strided"]


class layout:  # noqa: N801 - PyTorch's name
    """A storage layout; teachgrad has one, ``teachgrad.strided`` (dense).

    >>> import teachgrad as torch
    >>> torch.ones(2, 3).layout
    teachgrad.strided
    >>> torch.ones(2).layout == torch.strided
    True
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"teachgrad.{self.name}"  # as the dtypes: teachgrad.float32

    def __reduce__(self):  # pickled by name, so torch.save/load keep the singleton
        return (_by_name, (self.name,))


def _by_name(name: str) -> layout:
    return globals()[name]


strided = layout("strided")
