"""``torch.svd_lowrank`` and ``torch.pca_lowrank``: randomized SVD of a (nearly) low-rank matrix.

The method is Halko, Martinsson and Tropp's (2009, arXiv:0909.4061), as PyTorch writes it
in ``torch/_lowrank.py``:

1. *Range finder* (their Algorithm 4.4): multiply A by a random n×q Gaussian matrix; the q
   columns of ``A @ R`` span (nearly) the same space as A's q leading left singular
   vectors. Orthonormalize them with QR, and sharpen the estimate with ``niter`` *power
   iterations* (multiply by Aᴴ, then by A, orthonormalizing after each product), which
   damp the smaller singular values.
2. *Small SVD* (their Algorithm 5.1): with Q's orthonormal columns, ``A ≈ Q Qᴴ A``; the
   SVD of the small q×n matrix ``B = Qᴴ A`` gives ``A ≈ (Q U) diag(S) Vᴴ``.

Everything is made of teachgrad ops (``matmul``, ``linalg.qr``, ``linalg.svd``), so
autograd differentiates through the whole computation, as in PyTorch. The random matrix
is drawn with ``torch.randn`` from the global generator: after the same ``manual_seed``
teachgrad and PyTorch draw the same numbers.

>>> import teachgrad as torch
>>> _ = torch.manual_seed(0)
>>> A = torch.randn(8, 2, dtype=torch.float64) @ torch.randn(2, 5, dtype=torch.float64)
>>> U, S, V = torch.svd_lowrank(A, q=2)
>>> torch.allclose(U @ torch.diag(S) @ V.mT, A)
True
"""

from __future__ import annotations

from . import _dtypes
from ._tensor import Tensor

__all__ = ["pca_lowrank", "svd_lowrank"]


def _floating_dtype(A: Tensor):
    """The dtype of the random draws: A's if it is a float type, float32 otherwise
    (PyTorch's ``_linalg_utils.get_floating_dtype``)."""
    if A.dtype in (_dtypes.float16, _dtypes.float32, _dtypes.float64):
        return A.dtype
    return _dtypes.float32


def get_approximate_basis(A: Tensor, q: int, niter: int | None = 2,
                          M: Tensor | None = None) -> Tensor:
    """Q with q orthonormal columns such that ``Q Qᴴ (A - M)`` approximates ``A - M``
    (Halko et al.'s Algorithm 4.4, randomized range finder with power iterations).

    ``M`` (optional) is subtracted from A without forming ``A - M``: each product with A
    is followed by the same product with M.
    """
    from . import linalg, randn  # the package's functions, after it has been built

    niter = 2 if niter is None else niter

    def times(X: Tensor, Y: Tensor, X_minus: Tensor | None) -> Tensor:
        """``(X - X_minus) @ Y`` without forming the difference."""
        product = X.matmul(Y)
        return product if X_minus is None else product - X_minus.matmul(Y)

    R = randn(A.shape[-1], q, dtype=_floating_dtype(A), device=A.device)
    Q = linalg.qr(times(A, R, M)).Q
    for _ in range(niter):  # power iterations: apply (A Aᴴ) once more, re-orthonormalizing
        Q = linalg.qr(times(A.mH, Q, None if M is None else M.mH)).Q
        Q = linalg.qr(times(A, Q, M)).Q
    return Q


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2,
                M: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    r"""The approximate SVD ``(U, S, V)`` of a matrix or batch, ``A ≈ U diag(S) Vᴴ``.

    ``q`` is a slightly overestimated rank of A (U is m×q, S has q values, V is n×q: note V,
    not Vᴴ as ``linalg.svd`` returns); ``niter`` the number of power iterations (more is
    more accurate when the singular values decay slowly). Given ``M`` (broadcast to A's
    shape), the SVD is that of ``A - M``. The method is randomized: seed the generator
    (``torch.manual_seed``) for repeatable results. For a dense matrix that fits in
    memory, ``torch.linalg.svd`` is exact and usually faster.

    >>> import teachgrad as torch
    >>> _ = torch.manual_seed(0)
    >>> U, S, V = torch.svd_lowrank(torch.eye(4, dtype=torch.float64), q=2)
    >>> tuple(U.shape), tuple(S.shape), tuple(V.shape)
    ((4, 2), (2,), (4, 2))
    """
    from . import linalg

    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:  # work with the tall matrix Aᴴ: the range finder then needs fewer columns
        A = A.mH
        if M is not None:
            M = M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:  # the SVD of Aᴴ is (V, S, U) of A
        U, V = V, U
    return U, S, V


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True,
                niter: int = 2) -> tuple[Tensor, Tensor, Tensor]:
    r"""Principal component analysis of a data matrix A (m samples × n features), by
    :func:`svd_lowrank` of A with each column's mean subtracted (``center=True``).

    Returns ``(U, S, V)``: V's columns are the principal directions, ``S ** 2 / (m - 1)``
    the variances along them, and ``A @ V[:, :k]`` projects the data onto the first k
    components. ``q`` defaults to ``min(6, m, n)`` and may not exceed ``min(m, n)``.

    >>> import teachgrad as torch
    >>> _ = torch.manual_seed(0)
    >>> X = torch.randn(100, 3, dtype=torch.float64) * torch.tensor([5.0, 1.0, 0.1])
    >>> U, S, V = torch.pca_lowrank(X, q=3)
    >>> V[:, 0].abs().argmax().item()  # the first direction is the widest feature's
    0
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)  # each feature's mean over the samples
    return svd_lowrank(A - C, q, niter=niter, M=None)
