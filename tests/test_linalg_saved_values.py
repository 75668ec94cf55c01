"""What the linear-algebra nodes keep for backward, under PyTorch's ``grad_fn._saved_*``
names (the stepper shows them as "saved in forward").

Each saved value is checked against what it must be: the op's own outputs or inputs (the
eigenvectors eigh returned, the solution X, the matrix A ...), and, with PyTorch
installed, against PyTorch's node for the same program.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad

A_VALUES = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]
B_VALUES = [[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]]


def _programs(lib):
    """{case: (grad_fn, {saved name: what it must equal})} for ``lib``."""
    A = lib.tensor(A_VALUES, dtype=lib.float64, requires_grad=True)
    B = lib.tensor(B_VALUES, dtype=lib.float64, requires_grad=True)
    values, vectors = lib.linalg.eigh(A)
    U, S, Vh = lib.linalg.svd(A, full_matrices=False)
    Q, R = lib.linalg.qr(A)
    P, L, U_lu = lib.linalg.lu(A)
    LU, pivots = lib.linalg.lu_factor(A)
    X_lu = lib.linalg.lu_solve(LU, pivots, B)
    C = lib.linalg.cholesky(A)
    X_chol = lib.cholesky_solve(B, C)
    X = lib.linalg.solve(A, B)
    return {
        "eigh": (vectors.grad_fn, {"eigenvalues": values, "eigenvectors": vectors}),
        "svd": (U.grad_fn, {"U": U, "S": S, "Vh": Vh, "full_matrices": False}),
        "qr": (Q.grad_fn, {"Q": Q, "R": R, "mode": "reduced"}),
        "lu": (L.grad_fn, {"P": P, "L": L, "U": U_lu}),
        "lu_factor": (LU.grad_fn, {"LU": LU}),
        "lu_solve": (X_lu.grad_fn, {"LU": LU, "result": X_lu, "left": True,
                                    "adjoint": False}),
        "cholesky_solve": (X_chol.grad_fn, {"input2": C, "result": X_chol, "upper": False}),
        "solve": (X.grad_fn, {"A": A, "result": X, "left": True}),
    }


def _plain(value):
    return np.array(value.tolist()) if hasattr(value, "tolist") else value


CASES = sorted(_programs(teachgrad))


@pytest.mark.parametrize("case", CASES)
def test_each_saved_value_is_what_the_op_kept(case):
    node, expected = _programs(teachgrad)[case]
    for name, value in expected.items():
        saved = getattr(node, f"_saved_{name}")
        if isinstance(value, (bool, str)):  # a flag or a mode, kept as given
            assert saved == value, (case, name)
        else:
            np.testing.assert_array_equal(_plain(saved), _plain(value),
                                          err_msg=f"{case}: _saved_{name}")


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES)
def test_pytorch_keeps_the_same_values_under_the_same_names(case):
    torch = pytest.importorskip("torch")
    ours, _ = _programs(teachgrad)[case]
    theirs, expected = _programs(torch)[case]
    assert type(ours).__name__ == type(theirs).__name__
    for name in expected:
        mine, real = getattr(ours, f"_saved_{name}"), getattr(theirs, f"_saved_{name}")
        if isinstance(real, torch.Tensor):
            np.testing.assert_allclose(_plain(mine), real.detach().numpy(), rtol=1e-12,
                                       atol=1e-12, err_msg=f"{case}: _saved_{name}")
        else:
            assert mine == real, (case, name)
