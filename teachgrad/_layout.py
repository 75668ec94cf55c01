"""``torch.layout`` and ``torch.strided``: how a tensor's elements are stored.

PyTorch has dense ("strided") tensors and several sparse layouts. teachgrad's tensors are
all dense NumPy arrays, so ``strided`` is the only layout a tensor has, and every tensor's
``.layout`` is it (as it is for every tensor the tutorials make). The sparse layouts exist
as names only, so that code comparing with them runs and ``layout=torch.sparse_coo`` gets
a clear refusal from the creation functions (see :func:`check_layout`).
"""

from __future__ import annotations

from ._package_name import qualified

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
           "sparse_bsc", "check_layout"]


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
        return qualified(self.name)  # as the dtypes: teachgrad.float32

    def __reduce__(self):  # pickled by name, so torch.save/load keep the singleton
        return (_by_name, (self.name,))


def _by_name(name: str) -> layout:
    return globals()[name]


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")


def check_layout(function: str, value) -> None:
    """The ``layout=`` argument of a creation function: ``None`` or ``torch.strided``.

    Anything that is not a layout gets PyTorch's argument-type error; a sparse layout is
    refused because teachgrad has dense tensors only (PyTorch would make a sparse tensor).

    >>> import teachgrad as torch
    >>> torch.zeros(2, layout=torch.strided)
    tensor([0., 0.])
    """
    if value is None or value is strided:
        return
    if not isinstance(value, layout):
        raise TypeError(
            f"{function}(): argument 'layout' must be torch.layout, not {type(value).__name__}"
        )
    raise RuntimeError(
        f"teachgrad has dense tensors only (layout=torch.strided); got layout=torch.{value.name}"
    )
