"""``out=`` for functions that return several tensors: a tuple of tensors, one per result.

``torch.sort(x, out=(values, indices))`` writes into the given tensors (resized as for one
tensor) and returns PyTorch's ``sort_out`` named tuple of them. Their dtypes must be the
results' own (PyTorch 2.13's kernels write the results as they are). The messages were
printed by PyTorch 2.13; the torch-marked test runs the same calls in it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgrad as torch

X = [[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]
A = [[4.0, 1.0], [1.0, 3.0]]


def _empty(dtype=None):
    return torch.empty(0, dtype=dtype)


def test_sort_writes_into_the_given_tensors():
    values, indices = _empty(), _empty(torch.long)
    result = torch.sort(torch.tensor(X), out=(values, indices))
    assert result.values is values and result.indices is indices
    assert type(result).__name__ == "sort_out"
    assert values.tolist() == [[1.0, 2.0, 3.0], [0.0, 4.0, 5.0]]
    assert indices.tolist() == [[1, 2, 0], [0, 2, 1]]


def test_max_with_dim_and_without():
    values, indices = torch.empty(2), torch.empty(2, dtype=torch.long)
    torch.max(torch.tensor(X), 1, out=[values, indices])  # (a list works too)
    assert values.tolist() == [3.0, 5.0] and indices.tolist() == [0, 1]
    one = torch.empty(())
    assert torch.max(torch.tensor(X), out=one) is one and one.item() == 5.0


def test_linalg_functions():
    eigenvalues, eigenvectors = _empty(), _empty()
    result = torch.linalg.eigh(torch.tensor(A), out=(eigenvalues, eigenvectors))
    assert type(result).__name__ == "linalg_eigh_out" and result.eigenvalues is eigenvalues
    # the eigenvalues of [[4, 1], [1, 3]]: (7 ± √5)/2
    assert eigenvalues.tolist() == pytest.approx([(7 - 5 ** 0.5) / 2, (7 + 5 ** 0.5) / 2],
                                                 rel=1e-6)
    lu, pivots = _empty(), _empty(torch.int32)
    torch.linalg.lu_factor(torch.tensor(A), out=(lu, pivots))
    # no row swap; L's multiplier 1/4, U = [[4, 1], [0, 3 - 1/4]]
    assert pivots.tolist() == [1, 2]
    assert lu.flatten().tolist() == pytest.approx([4.0, 1.0, 0.25, 2.75])


@pytest.mark.parametrize("call, message", [
    (lambda: torch.sort(torch.tensor(X), out=(_empty(torch.float64), _empty(torch.long))),
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda: torch.sort(torch.tensor(X), out=(_empty(), _empty(torch.int32))),
     "Expected out tensor to have dtype long int, but got int instead"),
    (lambda: torch.linalg.lu_factor(torch.tensor(A), out=(_empty(), _empty(torch.long))),
     "Expected out tensor to have dtype int, but got long int instead"),
    (lambda: torch.sort(torch.tensor(X, requires_grad=True), out=(_empty(),
                                                                   _empty(torch.long))),
     "sort(): functions with out=... arguments don't support automatic differentiation, "
     "but one of the arguments requires grad."),
])
def test_what_is_refused(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value).split("\nHint:")[0] == message


def test_a_tuple_of_the_wrong_length_or_a_single_tensor_is_a_type_error():
    with pytest.raises(TypeError, match="^expected tuple of 2 elements but got 3$"):
        torch.sort(torch.tensor(X), out=(_empty(), _empty(torch.long), _empty()))
    with pytest.raises(TypeError):
        torch.sort(torch.tensor(X), out=_empty())


CALLS = [
    "torch.sort(x, out=(e(), e(torch.long)))",
    "torch.sort(x, 0, descending=True, out=(e(), e(torch.long)))",
    "torch.max(x, 1, out=(e(), e(torch.long)))",
    "torch.min(x, 0, keepdim=True, out=(e(), e(torch.long)))",
    "torch.max(x, 1, out=(e(torch.float64), e(torch.long)))",
    "torch.topk(x, 2, out=(e(), e(torch.long)))",
    "torch.kthvalue(x, 2, out=(e(), e(torch.long)))",
    "torch.median(x, 1, out=(e(), e(torch.long)))",
    "torch.mode(x, 1, out=(e(), e(torch.long)))",
    "torch.cummax(x, 1, out=(e(), e(torch.long)))",
    "torch.cummin(x, 1, out=(e(), e(torch.long)))",
    "torch.aminmax(x, out=(e(), e()))",
    "torch.frexp(x, out=(e(), e(torch.int32)))",
    "torch.linalg.eigh(a, out=(e(), e()))",
    "torch.linalg.qr(a, out=(e(), e()))",
    "torch.linalg.slogdet(a, out=(e(), e()))",
    "torch.linalg.svd(a, out=(e(), e(), e()))",
    "torch.linalg.lu_factor(a, out=(e(), e(torch.int32)))",
    "torch.linalg.lu(a, out=(e(), e(), e()))",
    "torch.linalg.ldl_factor(a, out=(e(), e(torch.int32)))",
    "torch.linalg.inv_ex(a, out=(e(), e(torch.int32)))",
    "torch.linalg.cholesky_ex(a, out=(e(), e(torch.int32)))",
    "torch.slogdet(a, out=(e(), e()))",
    "torch.linalg.qr(a, out=(e(torch.float64), e()))",
    "torch.sort(x, out=(e(), e(torch.long), e()))",
]


@pytest.mark.torch
@pytest.mark.parametrize("call", CALLS)
def test_same_outcome_as_pytorch(call):
    real = pytest.importorskip("torch")

    def run(lib):
        scope = {"torch": lib, "x": lib.tensor(X), "a": lib.tensor(A),
                 "e": lambda dtype=None: lib.empty(0, dtype=dtype)}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = eval(call, scope)
        except (RuntimeError, TypeError) as e:
            return type(e).__name__, str(e).split("\nHint:")[0]
        return (type(result).__name__, [str(t.dtype).split(".")[1] for t in result],
                [np.concatenate([np.ravel(t.tolist()) for t in result])])

    ours, theirs = run(torch), run(real)
    if ours[0] == theirs[0] == "TypeError":  # (PyTorch's argument parser words its own)
        return
    assert ours[:2] == theirs[:2]
    for mine, its in zip(ours[2:], theirs[2:]):  # the values, where there are some
        assert np.allclose(np.array(mine[0], dtype=float), np.array(its[0], dtype=float),
                           atol=1e-5) or mine[0] == its[0]
