"""``linalg.ldl_factor``, ``ldl_factor_ex``, ``ldl_solve``: LAPACK's symmetric indefinite
factorization (``sytrf``, Bunch–Kaufman pivoting) and its solver (``sytrs``).

A symmetric matrix that is not positive-definite has no Cholesky factor, and plain
Gaussian elimination would break its symmetry. Bunch and Kaufman (1977) write it as
``A = P L D Lᵀ Pᵀ`` with D block diagonal, of 1×1 and 2×2 blocks: at each step the
diagonal entry is used as a 1×1 pivot if it is large enough against its column
(``|a_kk| ≥ α·colmax``, ``α = (1 + √17)/8`` bounds the growth of the entries); otherwise
another row is swapped in, or a 2×2 block is taken. As LAPACK returns it, ``LD`` holds L
below the diagonal and D on it (and just below it for a 2×2 block); ``pivots`` holds the
interchanges, 1-based, negative (twice) for a 2×2 block.

The functions below follow LAPACK's unblocked ``dsytf2`` and ``dsytrs`` (lower triangle),
one matrix at a time. As in PyTorch, neither has a derivative.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..return_types import structseq
from . import decompositions as dec
from .not_implemented import NotImplementedNode

__all__: list[str] = []  # torch.linalg's names: teachgrad.linalg exports them

LdlFactorResult = structseq("linalg_ldl_factor", ("LD", "pivots"))
LdlFactorExResult = structseq("linalg_ldl_factor_ex", ("LD", "pivots", "info"))

ALPHA = (1 + np.sqrt(17.0)) / 8  # Bunch–Kaufman's constant


def _symmetric_from_lower(s: np.ndarray) -> np.ndarray:
    """The symmetric matrix whose lower triangle is ``s``'s (LAPACK reads only that one)."""
    return np.tril(s) + np.tril(s, -1).T


def sytf2(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Bunch–Kaufman on one symmetric matrix (its lower triangle): ``(LD, pivots, info)``."""
    n = a.shape[0]
    a = _symmetric_from_lower(np.array(a, dtype=a.dtype))
    pivots = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        step = 1
        absakk = abs(a[k, k])
        if k + 1 < n:
            imax = k + 1 + int(np.argmax(np.abs(a[k + 1:, k])))
            colmax = abs(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            info = info or k + 1  # a zero column: D[k, k] = 0, nothing to eliminate
            pivots[k] = k + 1
            k += 1
            continue
        if absakk >= ALPHA * colmax:
            kp = k  # the diagonal entry is large enough: a 1×1 pivot, no interchange
        else:
            others = np.abs(np.delete(a[k:, imax], imax - k))
            rowmax = others.max()
            if absakk >= ALPHA * colmax * (colmax / rowmax):
                kp = k
            elif abs(a[imax, imax]) >= ALPHA * rowmax:
                kp = imax  # swap row imax in, then a 1×1 pivot
            else:
                kp, step = imax, 2  # a 2×2 pivot from rows k and imax
        kk = k + step - 1
        if kp != kk:  # swap rows and columns kk and kp of the part still to factor
            a[[kk, kp], k:] = a[[kp, kk], k:]
            a[k:, [kk, kp]] = a[k:, [kp, kk]]
        rest = slice(k + step, n)
        if step == 1:
            d11 = 1 / a[k, k]
            x = a[rest, k].copy()
            a[rest, rest] = _symmetric_from_lower(a[rest, rest] + np.outer(x, -d11 * x))
            a[rest, k] *= d11
            pivots[k] = kp + 1
        else:
            if k + 2 < n:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                t = 1 / (d11 * d22 - 1)
                d21 = t / d21
                wk = d21 * (d11 * a[rest, k] - a[rest, k + 1])
                wkp1 = d21 * (d22 * a[rest, k + 1] - a[rest, k])
                # (two subtractions, in LAPACK's order: the roundings then match)
                a[rest, rest] = _symmetric_from_lower(
                    a[rest, rest] - np.outer(a[rest, k], wk) - np.outer(a[rest, k + 1], wkp1))
                a[rest, k], a[rest, k + 1] = wk, wkp1
            pivots[k] = pivots[k + 1] = -(kp + 1)
        k += step
    return np.tril(a), pivots, info


def sytrs(LD: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:  # noqa: N803
    """``A X = B`` from ``sytf2``'s result (LAPACK's ``dsytrs``, lower): L D Lᵀ, with swaps."""
    n = LD.shape[0]
    b = np.array(b, dtype=np.result_type(LD, b))
    k = 0
    while k < n:  # L D Y = B, forward
        if pivots[k] > 0:
            kp = pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= np.outer(LD[k + 1:, k], b[k])
            b[k] /= LD[k, k]
            k += 1
        else:
            kp = -pivots[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= np.outer(LD[k + 2:, k], b[k]) + np.outer(LD[k + 2:, k + 1], b[k + 1])
            akm1k = LD[k + 1, k]
            akm1, ak = LD[k, k] / akm1k, LD[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # Lᵀ X = Y, backward
        if pivots[k] > 0:
            b[k] -= LD[k + 1:, k] @ b[k + 1:]
            kp = pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= LD[k + 1:, k] @ b[k + 1:]
            b[k - 1] -= LD[k + 1:, k - 1] @ b[k + 1:]
            kp = -pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def _factor_batch(A: np.ndarray) -> tuple:
    n = A.shape[-1]
    count = math.prod(A.shape[:-2])  # spelled out: reshape's -1 fails on empty matrices
    flat = A.reshape((count, n, n))
    results = [sytf2(m) for m in flat]
    LD = np.stack([r[0] for r in results]) if results else flat.copy()
    pivots = np.array([r[1] for r in results], np.int32).reshape((count, n))
    info = np.array([r[2] for r in results], np.int32)
    return (dec.column_major(LD.reshape(A.shape)), pivots.reshape(A.shape[:-1]),
            info.reshape(A.shape[:-2]))  # LD column by column, as LAPACK's sytrf writes it


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False) -> tuple:
    """``(LD, pivots, info)``: ``A = P L D Lᵀ Pᵀ`` (Bunch–Kaufman), read from A's lower
    triangle. ``info`` is the 1-based position of a zero 1×1 block of D (0 if none).

    >>> import teachgrad as torch
    >>> torch.linalg.ldl_factor_ex(torch.tensor([[4., 1.], [1., 3.]])).LD
    tensor([[4.0000, 0.0000],
            [0.2500, 2.7500]])
    """
    dec.check_matrix("torch.linalg.ldl_factor_ex", A, square=True)
    LD, pivots, info = NotImplementedNode.apply(A, compute=_factor_batch,
                                               aten_name="linalg_ldl_factor_ex")
    if check_errors and info._data.any():
        raise _zero_block_error("torch.linalg.ldl_factor_ex", info._data)
    return LdlFactorExResult(LD, pivots, info)


def _zero_block_error(fn: str, info: np.ndarray) -> RuntimeError:
    code = int(info.reshape(-1)[np.flatnonzero(info)[0]])
    return RuntimeError(
        f"{fn}: Unknown error code: {code}.\nHint: D[{code},{code}] is exactly zero: the matrix "
        "is singular (PyTorch reports this as an internal assert); linalg.ldl_factor_ex returns "
        "it as info instead.")


def ldl_factor(A: Tensor, *, hermitian: bool = False) -> tuple:
    """``(LD, pivots)``: the symmetric indefinite factorization, for :func:`ldl_solve`.

    >>> import teachgrad as torch
    >>> LD, pivots = torch.linalg.ldl_factor(torch.tensor([[0., 1.], [1., 0.]]))
    >>> pivots.tolist()          # a 2×2 block: the zero diagonal cannot be a 1×1 pivot
    [-2, -2]
    """
    dec.check_matrix("torch.linalg.ldl_factor_ex", A, square=True)
    LD, pivots, info = NotImplementedNode.apply(A, compute=_factor_batch,
                                               aten_name="linalg_ldl_factor_ex")
    if info._data.any():
        raise _zero_block_error("torch.linalg.ldl_factor", info._data)
    return LdlFactorResult(LD, pivots)


def _solve_batch(LD: np.ndarray, pivots: np.ndarray, B: np.ndarray) -> np.ndarray:
    n = LD.shape[-1]
    batch = dec._broadcast_batches(B.shape[:-2], LD.shape[:-2])
    count = math.prod(batch)  # spelled out: reshape's -1 fails on empty matrices
    LD = np.broadcast_to(LD, batch + (n, n)).reshape((count, n, n))
    pivots = np.broadcast_to(pivots, batch + (n,)).reshape((count, n))
    B_flat = np.broadcast_to(B, batch + B.shape[-2:]).reshape((count,) + B.shape[-2:])
    with np.errstate(divide="ignore", invalid="ignore"):
        X = [sytrs(LD[i], pivots[i], B_flat[i]) for i in range(len(B_flat))]
    out = np.stack(X) if X else B_flat.copy()
    return dec.column_major(out.reshape(batch + B.shape[-2:]))  # as LAPACK's sytrs leaves it


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:  # noqa: N803
    """Solve ``A X = B`` from the result of :func:`ldl_factor`.

    >>> import teachgrad as torch
    >>> A = torch.tensor([[0., 1.], [1., 0.]])
    >>> torch.linalg.ldl_solve(*torch.linalg.ldl_factor(A), torch.tensor([[2.], [3.]]))
    tensor([[3.],
            [2.]])
    """
    dec.check_matrix("torch.linalg.ldl_solve", LD, "LD", square=True)
    if B._data.ndim < 2:
        raise RuntimeError("torch.linalg.ldl_solve: The input tensor B must have at least 2 "
                           "dimensions.")
    n = LD._data.shape[-1]
    if B._data.shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is {n} by {n} "
            f"but each b matrix is {B._data.shape[-2]} by {B._data.shape[-1]}")
    if B._data.dtype != LD._data.dtype:
        raise RuntimeError(
            "Expected b and A to have the same dtype, but found b of type "
            f"{dec._scalar_name(B)} and A of type {dec._scalar_name(LD)} instead.")
    if pivots._data.dtype.kind not in "iu" or pivots._data.shape != LD._data.shape[:-1]:
        raise RuntimeError(
            "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, "
            f"but got pivots with shape {list(pivots._data.shape)} instead")
    return NotImplementedNode.apply(LD, pivots, B, compute=_solve_batch,
                                    aten_name="linalg_ldl_solve")
