"""Top-level linear-algebra names PyTorch keeps for old code: ``vdot``, ``chain_matmul``,
``frobenius_norm``, ``nuclear_norm``.

``vdot`` is the dot product that conjugates its first argument; teachgrad's tensors are
real, so it is ``dot`` under its own ``grad_fn`` name. The other three are deprecated in
PyTorch, and warn as PyTorch does, naming the function to use instead.
"""

from __future__ import annotations

from .._missing_arguments import REQUIRED, missing
from .._tensor import Tensor, tensor_method
from .._warn import warn_user
from .linalg import DotBackward0, _check_dot, _require_tensor

__all__ = ["vdot", "chain_matmul", "frobenius_norm", "nuclear_norm"]


class VdotBackward0(DotBackward0):
    """``vdot(a, b) = Σ conj(aᵢ)·bᵢ``: for real tensors, ``dot``'s forward and backward."""


@tensor_method()
def vdot(input: Tensor, other: Tensor = REQUIRED) -> Tensor:
    """``Σ conj(inputᵢ)·otherᵢ`` of two 1-D tensors (``dot`` for real numbers).

    >>> import teachgrad as torch
    >>> torch.vdot(torch.tensor([1., 2.]), torch.tensor([3., 4.]))
    tensor(11.)
    """
    if other is REQUIRED:  # (x.vdot(): PyTorch's words, see _missing_arguments)
        raise missing("vdot", vdot, input, other)
    _require_tensor(input, "input", 1, "vdot")
    _require_tensor(other, "other", 2, "vdot")
    _check_dot(input, other)
    return VdotBackward0.apply(input, other)


def chain_matmul(*matrices: Tensor) -> Tensor:
    """The product of the matrices, left to right (deprecated: ``linalg.multi_dot``)."""
    from .. import linalg

    warn_user(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
        "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
        "rather than multiple parameters.", UserWarning,
    )
    for i, m in enumerate(matrices):  # PyTorch's argument parser first ...
        if not isinstance(m, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(m).__name__}")
    for m in matrices:  # ... then matrices only (multi_dot takes vectors at the ends)
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    return linalg.multi_dot(list(matrices))


def frobenius_norm(input: Tensor, dim=(-2, -1), keepdim: bool = False) -> Tensor:
    """√(Σ x²) over ``dim`` (deprecated: ``linalg.vector_norm(x, 2, dim, keepdim)``)."""
    from .. import linalg
    from .decompositions import _scalar_name

    if isinstance(input, Tensor) and not input.dtype.is_floating_point:
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {_scalar_name(input)} instead.\nHint: convert first, e.g. "
                           "x.float().")
    warn_user(
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will "
        "be removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, "
        "keepdim)` instead", UserWarning,
    )
    return linalg.vector_norm(input, 2.0, dim, keepdim)


def nuclear_norm(input: Tensor, dim=(-2, -1), keepdim: bool = False) -> Tensor:
    """The sum of a matrix's singular values (deprecated: ``linalg.matrix_norm(A, 'nuc')``).

    ``nuclear_norm(A, keepdim)`` (a bool second argument) is PyTorch's other spelling.
    """
    from .. import linalg

    if isinstance(dim, bool):
        dim, keepdim = (-2, -1), dim
    elif isinstance(dim, int):  # (PyTorch's int[2] parameter repeats one int: (d, d))
        dim = (dim, dim)
    warn_user(
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will "
        "be removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', "
        "dim, keepdim)` instead", UserWarning,
    )
    return linalg.matrix_norm(input, "nuc", dim, keepdim)
