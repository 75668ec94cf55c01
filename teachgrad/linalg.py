"""``teachgrad.linalg``: PyTorch's ``torch.linalg``.

Products and powers (``matmul``, ``multi_dot``, ``matrix_power``), decompositions
(``cholesky``, ``qr``, ``eigh``, ``svd``, ``lu``, ``householder_product``), solvers
(``solve``, ``solve_triangular``, ``lu_solve``, ``lstsq``), inverses (``inv``, ``pinv``),
determinants, norms and ``cond``, each with its gradient. The ops live in
:mod:`teachgrad.ops.decompositions`, :mod:`teachgrad.ops.lu_decomposition`,
:mod:`teachgrad.ops.householder` and :mod:`teachgrad.ops.matrix_functions`; this module
only gathers PyTorch's names.

>>> import teachgrad as torch
>>> torch.linalg.det(torch.tensor([[2., 1.], [1., 2.]]))
tensor(3.)
"""

from .ops.decompositions import (
    LinAlgError,
    cholesky,
    cholesky_ex,
    det,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    inv,
    inv_ex,
    lstsq,
    matrix_exp,
    matrix_rank,
    pinv,
    qr,
    slogdet,
    solve,
    solve_ex,
    solve_triangular,
    svd,
    svdvals,
)
from .ops.householder import householder_product
from .ops.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from .ops.linalg import matmul, matrix_power
from .ops.lu_decomposition import linalg_lu as lu
from .ops.lu_decomposition import linalg_lu_solve as lu_solve
from .ops.lu_decomposition import lu_factor, lu_factor_ex
from .ops.matrix_functions import (
    cond,
    cross,
    diagonal,
    matrix_norm,
    multi_dot,
    norm,
    tensorinv,
    tensorsolve,
    vander,
    vecdot,
)
from .ops.reduce import vector_norm

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
    "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor",
    "ldl_factor_ex", "ldl_solve", "lstsq", "lu",
    "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm",
    "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve",
    "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander",
    "vecdot", "vector_norm",
]
