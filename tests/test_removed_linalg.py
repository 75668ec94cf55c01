"""torch.symeig, eig, lstsq, solve: removed in PyTorch 1.9, still named so old code gets told
what to write instead (PyTorch 2.13's RuntimeError, from the function and the method)."""

from __future__ import annotations

import pytest

import teachgrad

_REMOVED = "^This function was deprecated since version 1.9 and is now removed. "

# name, call on the module, call as a method, what the message points to instead
_CASES = [
    ("symeig", lambda m, a: m.symeig(a, eigenvectors=True), lambda a: a.symeig(True),
     "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"),
    ("eig", lambda m, a: m.eig(a), lambda a: a.eig(),
     "L_complex, V_complex = torch.linalg.eig(A)"),
    ("lstsq", lambda m, a: m.lstsq(a, a), lambda a: a.lstsq(a),
     "X = torch.linalg.lstsq(A, B).solution"),
    ("solve", lambda m, a: m.solve(a, a), lambda a: a.solve(a),
     "X = torch.linalg.solve(A, B)"),
]


@pytest.mark.parametrize(("name", "function", "method", "instead"), _CASES)
def test_removed_linear_algebra_raises_pytorchs_error(name, function, method, instead):
    a = teachgrad.eye(2)
    for call in (lambda: function(teachgrad, a), lambda: method(a)):
        with pytest.raises(RuntimeError, match=_REMOVED) as error:
            call()
        assert str(error.value).endswith(instead)


def test_linalg_namespace_keeps_the_working_functions():
    a = teachgrad.tensor([[2.0, 0.0], [0.0, 4.0]])
    b = teachgrad.tensor([[2.0], [8.0]])
    assert teachgrad.linalg.solve(a, b).tolist() == [[1.0], [2.0]]


@pytest.mark.torch
@pytest.mark.parametrize(("name", "function", "method", "instead"), _CASES)
def test_removed_linear_algebra_message_is_pytorchs(name, function, method, instead):
    real = pytest.importorskip("torch")
    messages = []
    for library in (real, teachgrad):
        a = library.eye(2)
        with pytest.raises(RuntimeError) as error:
            function(library, a)
        messages.append(str(error.value))
        with pytest.raises(RuntimeError) as error:
            method(a)
        messages.append(str(error.value))
    assert len(set(messages)) == 1
