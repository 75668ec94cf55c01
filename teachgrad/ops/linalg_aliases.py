"""The linear algebra of the top-level namespace: ``torch.det``, ``torch.svd``, ``x.inverse()`` ...

PyTorch keeps these beside ``torch.linalg``: some are the same functions under short
names (``torch.det`` is ``torch.linalg.det``), some are older interfaces kept for old code
(``torch.svd`` returns V, not Vᵀ; ``torch.qr`` takes ``some=``; ``torch.cholesky`` is
deprecated). Each is written here once, on top of :mod:`.decompositions`, and registered
as a ``Tensor`` method too.
"""

from __future__ import annotations

from typing import NoReturn

import numpy as np

from .._input_check import refuse_non_tensor_input
from .._missing_arguments import REQUIRED, missing
from .._tensor import Tensor, _make, tensor_method
from .._warn import warn_user
from . import decompositions as dec
from . import matrix_functions, shape
from .pointwise import where


@tensor_method()
def det(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """The determinant (``torch.linalg.det``).

    >>> import teachgrad as torch
    >>> torch.tensor([[1., 2.], [3., 4.]]).det()
    tensor(-2.)
    """
    return dec.det(input)


SlogdetResult = dec.named_result("slogdet", ("sign", "logabsdet"))


@tensor_method()
def slogdet(input: Tensor) -> tuple:  # noqa: A002
    """``(sign, logabsdet)`` of the determinant (``torch.linalg.slogdet``)."""
    return SlogdetResult(*dec.slogdet(input))


@tensor_method()
def logdet(input: Tensor) -> Tensor:  # noqa: A002
    """``log(det(A))``: ``nan`` for a negative determinant, ``-inf`` for a singular matrix.

    PyTorch computes it from ``slogdet`` (hence its ``WhereBackward0``).

    >>> import teachgrad as torch
    >>> torch.logdet(torch.tensor([[2., 0.], [0., 3.]]))
    tensor(1.7918)
    """
    dec.check_matrix("logdet", input, square=True)
    sign, logabsdet = dec.LinalgSlogdetBackward0.apply(input)
    nan = _make(np.asarray(np.nan, input._data.dtype))
    return where(_make(sign._data == -1), nan, logabsdet)


@tensor_method()
def inverse(input: Tensor) -> Tensor:  # noqa: A002
    """The inverse matrix (``torch.linalg.inv``)."""
    return dec.inv(input)


@tensor_method()
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:  # noqa: A002
    """The pseudo-inverse, with singular values below ``rcond · σ_max`` treated as zero."""
    refuse_non_tensor_input("pinverse", (input,), {})  # (linalg.pinv's own check reads it)
    return dec.pinv(input, rtol=rcond)


@tensor_method()
def matrix_exp(input: Tensor) -> Tensor:  # noqa: A002
    """The matrix exponential (``torch.linalg.matrix_exp``)."""
    return dec.matrix_exp(input)


SvdResult = dec.named_result("svd", ("U", "S", "V"))


@tensor_method()
def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> tuple:  # noqa: A002
    """The older SVD interface: ``(U, S, V)`` with ``A = U diag(S) Vᵀ`` (V, not Vᵀ).

    ``some=True`` is the reduced SVD. With ``compute_uv=False``, U and V are zero matrices.
    New code should use ``torch.linalg.svd``, which returns Vᵀ (``Vh``).
    """
    if input._data.ndim < 2:  # (this older entry point words it its own way)
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input._data.ndim} dimensions instead")
    dec.check_matrix("linalg.svd", input)
    if not compute_uv:
        m, n = input._data.shape[-2:]
        batch = input._data.shape[:-2]
        zeros_u = _make(np.zeros(batch + (m, m), input._data.dtype))
        zeros_v = _make(np.zeros(batch + (n, n), input._data.dtype))
        return SvdResult(zeros_u, dec.svdvals(input), zeros_v)
    U, S, Vh = dec.svd(input, full_matrices=not some)
    return SvdResult(U, S, shape.transpose(Vh, -2, -1))


QrResult = dec.named_result("qr", ("Q", "R"))


@tensor_method()
def qr(input: Tensor, some: bool = True) -> tuple:  # noqa: A002
    """The older QR interface: ``some=True`` is ``mode='reduced'``, else ``'complete'``."""
    warn_user(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
        "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
        "torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning)
    return QrResult(*dec.qr(input, "reduced" if some else "complete"))


@tensor_method()
def cholesky(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    """The deprecated ``torch.cholesky`` (``CholeskyBackward0``); use ``torch.linalg.cholesky``."""
    warn_user(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
        "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
        "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results "
        "for all valid (symmetric positive definite) inputs.", UserWarning)
    if input.numel() == 0:  # (PyTorch's deprecated cholesky returns empty_like first)
        return input.detach().clone()
    dec.check_matrix("cholesky", input, square=True)
    return dec.CholeskyBackward0.apply(input, upper=bool(upper))


def _check_cholesky_factor(name: str, t: Tensor) -> None:
    if t._data.ndim < 2:
        raise RuntimeError(
            f"{name} should have at least 2 dimensions, but has {t._data.ndim} dimensions "
            "instead")


@tensor_method()
def cholesky_solve(input: Tensor, input2: Tensor = REQUIRED, upper: bool = False) -> Tensor:  # noqa: A002
    """Solve ``A X = B`` given B (``input``) and A's Cholesky factor L (``input2``).

    >>> import teachgrad as torch
    >>> L = torch.tensor([[2., 0.], [1., 1.]])          # A = L Lᵀ = [[4, 2], [2, 2]]
    >>> torch.cholesky_solve(torch.tensor([[4.], [2.]]), L)
    tensor([[1.],
            [0.]])
    """
    if input2 is REQUIRED:  # (x.cholesky_solve(): PyTorch's words, see _missing_arguments)
        raise missing("cholesky_solve", cholesky_solve, input, input2)
    _check_cholesky_factor("b", input)
    _check_cholesky_factor("u", input2)
    if input._data.dtype != input2._data.dtype:
        raise RuntimeError(
            "Expected b and A to have the same dtype, but found b of type "
            f"{dec._scalar_name(input)} and A of type {dec._scalar_name(input2)} instead.")
    _check_solve_shapes("cholesky_solve", input, input2)
    dec.check_float("cholesky_solve", input)
    return dec.CholeskySolveBackward0.apply(input, input2, upper=bool(upper))


def _check_solve_shapes(name: str, b: Tensor, A: Tensor) -> None:  # noqa: N803
    """ATen's linearSolveCheckInputs: A's matrices square, with as many rows as b's."""
    rows, cols = A._data.shape[-2:]
    if rows != cols:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {rows} by {cols} matrices"
            "\nHint: the second argument is the Cholesky factor of a square matrix.")
    if cols != b._data.shape[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {name}: each A matrix is {cols} by {cols} but each "
            f"b matrix is {b._data.shape[-2]} by {b._data.shape[-1]}\nHint: solving A X = b "
            "needs as many rows in b as A has.")


@tensor_method()
def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    """The inverse of ``A = L Lᵀ`` (``Uᵀ U`` if ``upper``) from its Cholesky factor."""
    dec.check_matrix("cholesky_inverse", input, square=True)
    return dec.CholeskyInverseBackward0.apply(input, upper=bool(upper))


@tensor_method()
def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """The cross product along ``dim``; without ``dim``, along the first dimension of size 3
    (deprecated: PyTorch warns, as here; ``torch.linalg.cross`` uses the last dimension)."""
    if dim is None:
        dim = matrix_functions.default_cross_dim(input, other)
    return matrix_functions.cross(input, other, dim=dim)


def matrix_rank(*args, **kwargs) -> NoReturn:
    """Removed from PyTorch (since 1.9): raises PyTorch's error naming ``linalg.matrix_rank``."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
        "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
        "`torch.linalg.matrix_rank()` to 'hermitian'.")


for _name in ("kron", "inner", "dist"):
    tensor_method(_name)(getattr(matrix_functions, _name))
del _name

__all__ = [
    "det", "slogdet", "logdet", "inverse", "pinverse", "matrix_exp", "svd", "qr", "cholesky",
    "cholesky_solve", "cholesky_inverse", "cross", "matrix_rank",
]
