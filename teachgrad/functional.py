"""``torch.functional``: the module where PyTorch writes some of its namespace functions in
Python (``einsum``, ``norm``, ``split``, ``meshgrid`` ...). Tutorials sometimes import it
(``import torch.functional as F``); its functions are the ones of the ``teachgrad``
namespace, the same objects (``torch.functional.einsum is torch.einsum``).

Not to be confused with :mod:`teachgrad.nn.functional` (``relu``, ``max_pool2d``,
``cross_entropy`` ...), which is the module usually imported as ``F``.
"""

from __future__ import annotations

from . import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    cartesian_prod,
    cdist,
    chain_matmul,
    einsum,
    lu,
    meshgrid,
    norm,
    pca_lowrank,
    split,
    svd_lowrank,
    tensordot,
    unique,
    unique_consecutive,
    unravel_index,
)

# (PyTorch's stft and istft are not in teachgrad.)
__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
    "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "lu", "norm",
    "meshgrid", "pca_lowrank", "split", "svd_lowrank", "tensordot", "unique",
    "unique_consecutive", "unravel_index",
]
