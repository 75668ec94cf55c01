"""``symeig``, ``eig``, ``lstsq``, ``solve``: linear-algebra functions PyTorch removed.

PyTorch 2.13 still has these names (as functions and as Tensor methods) so that old code
fails with a message saying what to write instead; teachgrad raises the same
RuntimeError. (``matrix_rank``, removed the same way, is in :mod:`.linalg_aliases`.)
"""

from __future__ import annotations

from typing import NoReturn

from .._tensor import Tensor

__all__ = ["symeig", "eig", "lstsq", "solve"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "

_SYMEIG = (
    _REMOVED + "The default behavior has changed from using the upper triangular portion of "
    "the matrix by default to using the lower triangular portion.\n\n"
    "L, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
    "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
    "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
    "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
)
_EIG = (
    _REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
    "rather than real tensors mimicking complex tensors.\n\n"
    "L, _ = torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\n"
    "and\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
    "L_complex, V_complex = torch.linalg.eig(A)"
)
_LSTSQ = (
    _REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
    "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition in "
    "the returned tuple (although it returns other information about the problem).\n\n"
    "To get the QR decomposition consider using `torch.linalg.qr`.\n\n"
    "The returned solution in `torch.lstsq` stored the residuals of the solution in the last "
    "m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals "
    "are in the field 'residuals' of the returned named tuple.\n\n"
    "The unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
    "should be replaced with:\nX = torch.linalg.lstsq(A, B).solution"
)
_SOLVE = (
    _REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
    "`torch.linalg.solve` has its arguments reversed and does not return the LU "
    "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with "
    "`torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
    "replaced with:\nX = torch.linalg.solve(A, B)"
)


def symeig(input, eigenvectors=False, upper=True, *, out=None) -> NoReturn:  # noqa: A002
    """Removed from PyTorch (since 1.9): raises PyTorch's error naming ``linalg.eigh``."""
    raise RuntimeError(_SYMEIG)


def eig(self, eigenvectors=False, *, e=None, v=None) -> NoReturn:
    """Removed from PyTorch (since 1.9): raises PyTorch's error naming ``linalg.eig``."""
    raise RuntimeError(_EIG)


def lstsq(input, A, *, out=None) -> NoReturn:  # noqa: A002, N803 - PyTorch's names
    """Removed from PyTorch (since 1.9): raises PyTorch's error naming ``linalg.lstsq``."""
    raise RuntimeError(_LSTSQ)


def solve(input, A, *, out=None) -> NoReturn:  # noqa: A002, N803 - PyTorch's names
    """Removed from PyTorch (since 1.9): raises PyTorch's error naming ``linalg.solve``."""
    raise RuntimeError(_SOLVE)


def _symeig_method(self, eigenvectors=False) -> NoReturn:
    """Removed from PyTorch (since 1.9): raises PyTorch's error naming ``linalg.eigh``."""
    raise RuntimeError(_SYMEIG)


def _eig_method(self, eigenvectors=False) -> NoReturn:
    """Removed from PyTorch (since 1.9): raises PyTorch's error naming ``linalg.eig``."""
    raise RuntimeError(_EIG)


def _lstsq_method(self, other) -> NoReturn:
    """Removed from PyTorch (since 1.9): raises PyTorch's error naming ``linalg.lstsq``."""
    raise RuntimeError(_LSTSQ)


def _solve_method(self, other) -> NoReturn:
    """Removed from PyTorch (since 1.9): raises PyTorch's error naming ``linalg.solve``."""
    raise RuntimeError(_SOLVE)


# Tensor.symeig(...) etc. exist in PyTorch too, with the signatures of the old methods.
# (lstsq and solve are Python methods of PyTorch's Tensor: Python's TypeError for a missing
# argument names them by their qualified name, "Tensor.lstsq() missing 1 required ...")
for _name, _method in (("symeig", _symeig_method), ("eig", _eig_method),
                       ("lstsq", _lstsq_method), ("solve", _solve_method)):
    _method.__name__ = _method.__qualname__ = _name
    if _name in ("lstsq", "solve"):
        _method.__qualname__ = f"Tensor.{_name}"
    setattr(Tensor, _name, _method)
del _name, _method
