"""``torch.lobpcg``: a few extreme eigenpairs of a large symmetric (generalized) eigenproblem.

LOBPCG (Locally Optimal Block Preconditioned Conjugate Gradient, Knyazev 2001) finds the
k largest (or smallest) eigenvalues λ and eigenvectors x of ``A x = λ B x`` without
decomposing A: it only multiplies A (and B) by thin m×n blocks. Each step

1. keeps a *search space* S of at most 3n columns: the current approximations X, the
   previous step's direction P, and W, the (preconditioned) residuals ``R = A X - B X Λ``;
2. solves the small eigenproblem of A restricted to S (the *Rayleigh-Ritz* step) and takes
   its n best eigenpairs as the new X and Λ;
3. counts the leading eigenpairs whose relative residual is below ``tol``: these are
   *converged* and leave the search space.

It stops when k pairs have converged or after ``niter`` steps. This is PyTorch's
``torch/_lobpcg.py`` (method ``"ortho"``, the default, keeps S B-orthonormal with the
SVQB method of Stathopoulos and Wu 2002; ``"basic"`` orthonormalizes with a Cholesky
factor instead), rewritten in NumPy: the iteration itself is not differentiated.

The gradient, where PyTorch has one (dense A, no B), comes from the eigenpairs alone, as
for :func:`teachgrad.linalg.eigh`: see :class:`LOBPCGAutogradFunctionBackward`.

>>> import teachgrad as torch
>>> _ = torch.manual_seed(0)
>>> A = torch.diag(torch.arange(1.0, 13.0, dtype=torch.float64))
>>> E, X = torch.lobpcg(A, k=2)
>>> E.round(decimals=8).tolist()  # (to its tolerance: an iterative method)
[12.0, 11.0]
"""

from __future__ import annotations

import numpy as np

from . import _dtypes
from ._tensor import Tensor, _make
from .ops.op import Op

__all__ = ["lobpcg"]

# sqrt(machine epsilon) is the default tolerance; PyTorch's table has these two dtypes
_EPS = {"float32": 1.2e-07, "float64": 2.23e-16}


# ----------------------------------------------------------------------------------------
# Small helpers on NumPy arrays (PyTorch's torch/_linalg_utils.py)
# ----------------------------------------------------------------------------------------
def _mm(A: np.ndarray | None, X: np.ndarray) -> np.ndarray:
    """``A @ X``, where a missing matrix (B or the preconditioner) is the identity."""
    return X if A is None else A @ X


def _qform(A: np.ndarray | None, S: np.ndarray) -> np.ndarray:
    """The quadratic form ``Sᵀ A S``: A restricted to S's columns."""
    return S.T @ _mm(A, S)


def _symeig(A: np.ndarray, largest: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs of a symmetric matrix (upper triangle), descending if ``largest``."""
    E, Z = np.linalg.eigh(A, UPLO="U")
    if largest:
        E, Z = E[::-1], Z[:, ::-1]
    return E, Z


def _basis(A: np.ndarray) -> np.ndarray:
    """An orthonormal basis of A's columns (QR's Q)."""
    return np.linalg.qr(A)[0]


class LOBPCG:
    """One LOBPCG run on one matrix (PyTorch's ``torch._lobpcg.LOBPCG``).

    The state is kept as in PyTorch, in NumPy arrays: ``X`` (m×n approximations), ``E``
    (their eigenvalues), ``R`` (residuals), ``S`` (the search space, m×3n of which the first
    ``ivars['converged_end']`` columns are in use), and the counters in ``ivars``
    (``istep``, ``converged_count`` ...), ``fvars`` (norms, ``ortho_*`` errors) and
    ``tvars`` (``rerr``, the relative residuals). A ``tracker`` gets this object after
    every step.
    """

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker) -> None:
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method, self.tracker = method, tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = np.zeros((n,), dtype=X.dtype)
        self.R = np.zeros((m, n), dtype=X.dtype)
        self.S = np.zeros((m, 3 * n), dtype=X.dtype)
        self.tvars: dict = {}
        self.ivars: dict = {"istep": 0}
        self.fvars: dict = {"_": 0.0}
        self.bvars: dict = {"_": False}

    # -- the iteration --------------------------------------------------------------------
    def run(self) -> None:
        """Step until k pairs have converged, ``niter`` steps are done, or a tracker sets
        ``bvars['force_stop']``."""
        self.update()
        if self.tracker is not None:
            self.tracker(self)
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.tracker(self)

    def stop_iteration(self) -> bool:
        return (self.bvars.get("force_stop", False)
                or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def update(self) -> None:
        """One step; the first also measures the norms the convergence test divides by."""
        if self.ivars["istep"] == 0:
            X_norm = float(np.linalg.norm(self.X))
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = float(np.linalg.norm(_mm(self.A, self.X))) / X_norm
            self.fvars["B_norm"] = float(np.linalg.norm(_mm(self.B, self.X))) / X_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] -= 1
        self.ivars["istep"] += 1

    def update_residual(self) -> None:
        """``R = A X - B X Λ``: zero for exact eigenpairs."""
        self.R = _mm(self.A, self.X) - _mm(self.B, self.X) * self.E

    def update_converged_count(self) -> int:
        """How many *leading* pairs have a relative residual below ``tol``."""
        prev_count = self.ivars["converged_count"]
        A_norm, B_norm = self.fvars["A_norm"], self.fvars["B_norm"]
        E, X, R = self.E, self.X, self.R
        rerr = np.linalg.norm(R, axis=0) / (
            np.linalg.norm(X, axis=0) * (A_norm + np.abs(E[:X.shape[-1]]) * B_norm))
        converged = rerr < self.fparams["tol"]
        count = int(np.argmin(converged)) if not converged.all() else len(converged)
        if count < prev_count:
            raise AssertionError(f"the number of converged eigenpairs (was {prev_count}, "
                                 f"got {count}) cannot decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def _update_basic(self) -> None:
        """A step of method ``"basic"``: Rayleigh-Ritz on S made B-orthonormal by Cholesky."""
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            E, Z = _symeig(Ri.T @ _qform(self.A, self.X) @ Ri, largest)
            self.X[:] = self.X @ (Ri @ Z)
            self.E[:] = E
            np_ = 0
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            W = _mm(self.iK, self.R)
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._get_rayleigh_ritz_transform(S_)
            E_, Z = _symeig(Ri.T @ _qform(self.A, S_) @ Ri, largest)
            self.X[:, nc:] = S_ @ (Ri @ Z[:, :n - nc])
            self.E[nc:] = E_[:n - nc]
            P = S_ @ (Ri @ Z[:, n:2 * n - nc])
            np_ = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            self.S[:, n:n + np_] = P
            W = _mm(self.iK, self.R[:, nc:])
        self.ivars["converged_end"] = ns = n + np_ + W.shape[-1]
        self.S[:, n + np_:ns] = W

    def _update_ortho(self) -> None:
        """A step of method ``"ortho"`` (the default): S is kept B-orthonormal, so the
        Rayleigh-Ritz step is a plain symmetric eigenproblem."""
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            _E, Z = _symeig(Ri.T @ _qform(self.A, self.X) @ Ri, largest)
            self.X = self.X @ (Ri @ Z)
            self.update_residual()  # (with E still zero, as PyTorch's)
            np_ = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._get_ortho(self.R, self.X)
        else:
            S_ = self.S[:, nc:ns]
            E_, Z = _symeig(_qform(self.A, S_), largest)
            self.X[:, nc:] = S_ @ Z[:, :n - nc]
            self.E[nc:] = E_[:n - nc]
            # the new direction: the rest of the Ritz vectors, combined to be orthogonal
            P = S_ @ (Z[:, n - nc:] @ _basis(Z[:n - nc, n - nc:].T))
            np_ = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            self.S[:, n:n + np_] = P
            W = self._get_ortho(self.R[:, nc:], self.S[:, :n + np_])
        ns = self.ivars["converged_end"] = n + np_ + W.shape[-1]
        self.S[:, n + np_:ns] = W

    # -- orthonormalization -----------------------------------------------------------------
    def _get_rayleigh_ritz_transform(self, S: np.ndarray) -> np.ndarray:
        """Ri such that ``(S Ri)ᵀ B (S Ri) = I``: scale S's B-norms to one, then undo the
        Cholesky factor of the scaled Gram matrix."""
        SBS = _qform(self.B, S)
        d_row = SBS.diagonal() ** -0.5
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = np.linalg.cholesky((SBS * d_row) * d_col).T  # upper: Rᵀ R = D SBS D
        return np.linalg.solve(R.T, np.diag(d_row).T).T  # Ri R = D, i.e. Ri = D R⁻¹

    def _get_svqb(self, U: np.ndarray, drop: bool, tau: float) -> np.ndarray:
        """B-orthonormalize U's columns through the eigenvalues of its scaled Gram matrix
        (SVQB); eigenvalues below ``tau · max`` are dropped (``drop``) or raised to it."""
        if U.size == 0:
            return U
        UBU = _qform(self.B, U)
        d = UBU.diagonal()
        if np.any(d == 0):  # zero columns have no direction: leave them out
            U = U[:, d != 0]
            if U.size == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal()
        d_col = (d ** -0.5).reshape(d.shape[0], 1)
        E, Z = _symeig((UBU * d_col) * d_col.T)
        floor = tau * np.abs(E).max()
        if drop:
            keep = np.greater(E, floor)
            E, Z, d_col = E[keep], Z[:, keep], d_col[keep]
        else:
            E = np.maximum(E, floor)
        return (U * d_col.T) @ (Z * E ** -0.5)

    def _get_ortho(self, U: np.ndarray, V: np.ndarray) -> np.ndarray:
        """U B-orthonormalized and B-orthogonal to V's (already B-orthonormal) columns:
        subtract the V components, SVQB, repeat until both errors are below ``ortho_tol``."""
        m = self.iparams["m"]
        tau_ortho = self.fparams["ortho_tol"]
        tau_drop = self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        i_max, j_max = self.iparams["ortho_i_max"], self.iparams["ortho_j_max"]
        use_drop = self.bparams["ortho_use_drop"]
        for key in [k for k in self.fvars if k.startswith("ortho_") and k.endswith("_rerr")]:
            self.fvars.pop(key)
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        BV_norm = np.linalg.norm(_mm(self.B, V))
        BU = _mm(self.B, U)
        VBU = V.T @ BU
        i = j = 0
        for i in range(i_max):
            U = U - V @ VBU
            drop, tau_svqb = False, tau_drop
            for j in range(j_max):
                if use_drop:
                    U = self._get_svqb(U, drop, tau_svqb)
                    drop, tau_svqb = True, tau_replace
                else:
                    U = self._get_svqb(U, False, tau_replace)
                if U.size == 0:  # everything dropped
                    self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
                    return U
                BU = _mm(self.B, U)
                UBU = U.T @ BU
                R_norm = np.linalg.norm(UBU - np.eye(UBU.shape[-1], dtype=UBU.dtype))
                rerr = float(R_norm) / float(np.linalg.norm(BU) * np.linalg.norm(U))
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            VBU = V.T @ BU
            rerr = float(np.linalg.norm(VBU)) / float(BV_norm * np.linalg.norm(U))
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                raise ValueError(
                    "Overdetermined shape of U:"
                    f" #B-cols(={self.B.shape[-1]}) >= #U-cols(={U.shape[-1]}) + "
                    f"#V-cols(={V.shape[-1]}) must hold")
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return U


# ----------------------------------------------------------------------------------------
# The gradient
# ----------------------------------------------------------------------------------------
class LOBPCGAutogradFunctionBackward(Op):
    """lobpcg as one node: the forward runs the iteration, the backward differentiates the
    k eigenpairs ``A U = U diag(D)`` of the symmetric A (PyTorch's name for the node)."""

    formula = ("A U = U diag(D), k of m pairs:  ∂L/∂A = U (diag(ḡD) + F∘(Uᵀ ḡU)) Uᵀ "
               "+ Q⊥ (dᵢ − Q⊥ᵀ A Q⊥)⁻¹ Q⊥ᵀ ḡuᵢ uᵢᵀ")
    materialize_grads = False

    @staticmethod
    def forward(ctx, A, run=None, has_B=False):
        E, X = run(A)
        ctx.has_B = has_B
        ctx.save_for_backward(A, E, X)
        return E, X

    @staticmethod
    def backward(ctx, grad_D, grad_U):
        A, D, U = ctx.saved_tensors
        if ctx.has_B:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        return _symeig_backward(grad_D, grad_U, np.asarray(A), np.asarray(D), np.asarray(U))


def _symeig_backward(gD, gU, A, D, U):
    """∂L/∂A for k eigenpairs (D, U) of the symmetric A.

    Inside U's span it is eigh's formula (Fᵢⱼ = 1/(dⱼ − dᵢ)). The part of ``duᵢ`` outside
    the span solves ``(dᵢ − A) duᵢ = (I − UUᵀ) dA uᵢ`` on the orthogonal complement Q⊥, so
    its adjoint adds ``Q⊥ (dᵢ − A⊥)⁻¹ Q⊥ᵀ ḡᵢ uᵢᵀ`` with ``A⊥ = Q⊥ᵀ A Q⊥``. (PyTorch reaches
    the same matrix through A's characteristic polynomial.)
    """
    m, k = U.shape[-2], U.shape[-1]
    Ut = np.swapaxes(U, -1, -2)
    inner = np.zeros(U.shape[:-2] + (k, k), dtype=U.dtype)
    if gD is not None:
        inner = inner + gD[..., None, :] * np.eye(k, dtype=U.dtype)
    if gU is None:
        return U @ inner @ Ut
    with np.errstate(divide="ignore"):
        F = 1.0 / (D[..., None, :] - D[..., :, None])
    F[..., np.arange(k), np.arange(k)] = 0.0
    result = U @ (inner + (Ut @ gU) * F) @ Ut
    if k < m:
        # an orthonormal basis of the complement: the eigenvectors of I - UUᵀ with eigenvalue 1
        Q = np.linalg.eigh(np.eye(m, dtype=U.dtype) - U @ Ut)[1][..., k:]
        Qt = np.swapaxes(Q, -1, -2)
        A_perp = Qt @ A @ Q
        shifted = D[..., :, None, None] * np.eye(m - k, dtype=U.dtype) - A_perp[..., None, :, :]
        rhs = np.swapaxes(Qt @ gU, -1, -2)[..., None]          # (..., k, m-k, 1)
        Y = np.swapaxes(np.linalg.solve(shifted, rhs)[..., 0], -1, -2)  # (..., m-k, k)
        result = result + Q @ Y @ Ut
    return result


# ----------------------------------------------------------------------------------------
# torch.lobpcg
# ----------------------------------------------------------------------------------------
def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None,
           n: int | None = None, iK: Tensor | None = None, niter: int | None = None,
           tol: float | None = None, largest: bool | None = None, method: str | None = None,
           tracker=None, ortho_iparams: dict | None = None, ortho_fparams: dict | None = None,
           ortho_bparams: dict | None = None) -> tuple[Tensor, Tensor]:
    """The k largest (``largest=True``, the default) or smallest eigenpairs ``(E, X)`` of
    the symmetric positive definite generalized problem ``A X = B X diag(E)``.

    A (m×m, or a batch) and B (default: the identity) are only multiplied by thin blocks.
    ``X`` is the initial guess (m×n; default random, n = k); m must be at least 3n.
    ``iK`` is a preconditioner (an approximation of A's inverse), ``niter`` the largest
    number of steps (default 1000, ``-1`` until convergence), ``tol`` the relative residual
    of a converged pair (default √eps). ``method`` is ``"ortho"`` (default) or ``"basic"``;
    ``tracker(worker)`` is called after every step. Gradients flow to a dense A when B is
    not given (A is symmetrized first, as in PyTorch).

    >>> import teachgrad as torch
    >>> _ = torch.manual_seed(0)
    >>> A = torch.diag(torch.arange(1.0, 13.0, dtype=torch.float64))
    >>> torch.lobpcg(A, k=1, largest=False)[0].round(decimals=8).tolist()
    [1.0]
    """
    if A.requires_grad or (B is not None and B.requires_grad):
        A = (A + A.mT) / 2  # the gradient of a symmetric matrix is symmetric
        B = (B + B.mT) / 2 if B is not None else None

        def run(A_array):
            return _lobpcg(A_array, k, B, X, n, iK, niter, tol, largest, method, tracker,
                           ortho_iparams, ortho_fparams, ortho_bparams)

        return LOBPCGAutogradFunctionBackward.apply(A.contiguous(), run=run,
                                                    has_B=B is not None)
    E, V = _lobpcg(A._data, k, B, X, n, iK, niter, tol, largest, method, tracker,
                   ortho_iparams, ortho_fparams, ortho_bparams)
    return _make(E), _make(V)


def _array(t: Tensor | None) -> np.ndarray | None:
    return None if t is None else np.asarray(t._data)


def _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker,
            ortho_iparams, ortho_fparams, ortho_bparams) -> tuple[np.ndarray, np.ndarray]:
    """Check the arguments, fill in the defaults, run one LOBPCG per matrix of the batch.
    A is an array; the others are still tensors (or None)."""
    from . import randn  # the package's generator: the same draws as PyTorch after a seed

    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {_size(A.shape)}")
    if B is not None and tuple(A.shape) != tuple(B.shape):
        raise AssertionError(
            f"A and B must have same shape, got {_size(A.shape)} vs {_size(B.shape)}")
    dtype = A.dtype if A.dtype.name in ("float16", "float32", "float64") else np.float32
    if tol is None:
        tol = _EPS[np.dtype(dtype).name] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
            f" is smaller than 3 x the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
        iparams.setdefault("ortho_i_max", 3)
        iparams.setdefault("ortho_j_max", 3)
        fparams.setdefault("ortho_tol", tol)
        fparams.setdefault("ortho_tol_drop", tol)
        fparams.setdefault("ortho_tol_replace", tol)
        bparams.setdefault("ortho_use_drop", False)

    def start(given: np.ndarray | None) -> np.ndarray:
        """The initial guess: the given X (copied: the iteration writes into it) or random."""
        if given is None:
            given = randn((m, n), dtype=_torch_dtype(dtype))._data
        if not (given.ndim == 2 and given.shape == (m, n)):
            raise AssertionError(
                f"X shape mismatch: got {_size(given.shape)}, expected {(m, n)}")
        return np.array(given, dtype=dtype)

    Bs, Xs, iKa = _array(B), _array(X), _array(iK)
    batch = A.shape[:-2]
    if batch:
        N = int(np.prod(batch))
        bA = A.reshape((N, m, m))
        bB = Bs.reshape((N, m, m)) if Bs is not None else None
        bX = Xs.reshape((N,) + Xs.shape[-2:]) if Xs is not None else None
        bE = np.empty((N, k), dtype=dtype)
        bXret = np.empty((N, m, k), dtype=dtype)
        for i in range(N):
            iparams["batch_index"] = i
            worker = LOBPCG(bA[i], None if bB is None else bB[i],
                            start(None if bX is None else bX[i]), iKa,
                            iparams, fparams, bparams, method, tracker)
            worker.run()
            bE[i] = worker.E[:k]
            bXret[i] = worker.X[:, :k]
        return bE.reshape(batch + (k,)), bXret.reshape(batch + (m, k))
    worker = LOBPCG(A, Bs, start(Xs), iKa, iparams, fparams, bparams, method, tracker)
    worker.run()
    return worker.E[:k], worker.X[:, :k]


def _torch_dtype(dtype) -> object:
    """teachgrad's dtype object for a NumPy float dtype."""
    return {"float16": _dtypes.float16, "float32": _dtypes.float32,
            "float64": _dtypes.float64}[np.dtype(dtype).name]


def _size(shape: tuple) -> str:
    """A shape as PyTorch prints it in these messages: ``torch.Size([3, 4])``."""
    from ._tensor import Size

    return repr(Size(shape))
