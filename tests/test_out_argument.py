"""``out=`` on the namespace functions (``torch.matmul(a, b, out=c)``, the tensors tutorial).

Expected values are hand-computed; the errors and the resize warning are PyTorch's words
(compared with PyTorch itself when it is installed).
"""

from __future__ import annotations

import warnings

import pytest

import teachgrad as torch
from teachgrad._out import OUT_FUNCTIONS


def test_the_tensors_tutorial_matmul_and_mul_write_into_out():
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    y3 = torch.zeros(2, 2)
    assert torch.matmul(t, t.T, out=y3) is y3
    assert y3.tolist() == [[5.0, 11.0], [11.0, 25.0]]
    z3 = torch.zeros(2, 2)
    version = z3._version
    torch.mul(t, t, out=z3)
    assert z3.tolist() == [[1.0, 4.0], [9.0, 16.0]] and z3._version > version


def test_out_keeps_its_dtype_and_is_resized_as_in_pytorch():
    out = torch.zeros(2)  # float32: the int64 result is cast into it (same kind is fine)
    torch.add(torch.tensor([1, 2]), 3, out=out)
    assert out.dtype == torch.float32 and out.tolist() == [4.0, 5.0]
    empty = torch.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out is resized silently
        torch.cat([torch.ones(2), torch.zeros(1)], out=empty)
    assert empty.tolist() == [1.0, 1.0, 0.0]
    with pytest.warns(UserWarning, match=r"had shape \[3\], which does not match the required "
                                         r"output shape \[2, 2\]"):
        resized = torch.mul(torch.ones(2, 2), 2, out=torch.zeros(3))
    assert resized.shape == (2, 2) and resized.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_creation_functions_fill_out_with_its_dtype():
    c = torch.zeros(2, 2)
    assert torch.rand(2, 2, out=c) is c  # "works for creation too!" (introyt tensors)
    assert c.dtype == torch.float32 and ((c >= 0) & (c < 1)).all()
    counts = torch.zeros(3, dtype=torch.long)
    torch.arange(3, out=counts)
    assert counts.dtype == torch.long and counts.tolist() == [0, 1, 2]
    halves = torch.empty(3, dtype=torch.float64)
    torch.linspace(0, 1, 3, out=halves)
    assert halves.dtype == torch.float64 and halves.tolist() == [0.0, 0.5, 1.0]
    picks = torch.randint(0, 5, (4,), out=torch.empty(0))  # integers into a float out
    assert picks.dtype == torch.float32 and picks.shape == (4,)


def test_out_refuses_autograd_and_narrowing_casts():
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^mul\(\): functions with out=\.\.\. arguments don't "
                                           "support automatic differentiation"):
        torch.mul(w, 2, out=torch.empty(2))
    out = torch.zeros(2)
    with torch.no_grad():  # allowed without grad mode, as in PyTorch
        torch.mul(w, 3, out=out)
    assert out.tolist() == [3.0, 3.0] and not out.requires_grad
    long_out = torch.zeros(2, dtype=torch.long)
    with pytest.raises(RuntimeError,
                       match="^result type Float can't be cast to the desired output type Long$"):
        torch.mul(torch.ones(2), 0.5, out=long_out)
    assert long_out.tolist() == [0, 0]  # nothing written


def test_only_the_namespace_functions_are_wrapped():
    assert "out" not in torch.Tensor.mul.__code__.co_varnames  # x.mul(y) stays direct
    assert torch.mul.__doc__ == torch.Tensor.mul.__doc__
    assert all(callable(getattr(torch, name)) for name in OUT_FUNCTIONS)


@pytest.mark.torch
@pytest.mark.parametrize("name, args", [
    ("matmul", ([[1.0, 2.0], [3.0, 4.0]], [[0.5, 1.0], [2.0, -1.0]])),
    ("add", ([1.0, 2.0], [3.0, 4.0])),
    ("sum", ([[1.0, 2.0], [3.0, 4.0]], 1)),
    ("stack", ([[1.0, 2.0], [3.0, 4.0]],)),
    ("clamp", ([-1.0, 0.5, 2.0], 0.0, 1.0)),
])
def test_out_matches_pytorch(name, args):
    real = pytest.importorskip("torch")

    def run(lib):
        tensors = [lib.tensor(a) if isinstance(a, list) else a for a in args]
        if name == "stack":
            tensors = [[lib.tensor(row) for row in args[0]]]
        out = lib.empty(0)
        result = getattr(lib, name)(*tensors, out=out)
        assert result is out
        return out.tolist(), str(out.dtype).split(".")[-1]

    assert run(torch) == run(real)


def test_more_functions_take_out_hand_computed():
    """Functions PyTorch documents with ``out=`` (its own docstring examples use some)."""
    a, b = torch.tensor([True, True, False, False]), torch.tensor([True, False, True, False])
    into = torch.empty(4, dtype=torch.bool)
    assert torch.logical_xor(a, b, out=into) is into
    assert into.tolist() == [False, True, True, False]
    hyp = torch.empty(0)
    torch.hypot(torch.tensor([3.0, 5.0]), torch.tensor([4.0, 12.0]), out=hyp)
    assert hyp.tolist() == [5.0, 13.0]
    lower = torch.empty(2, 2)
    torch.tril(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), out=lower)
    assert lower.tolist() == [[1.0, 0.0], [3.0, 4.0]]
    picked = torch.empty(2, 1)
    torch.gather(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 1, torch.tensor([[1], [0]]), out=picked)
    assert picked.tolist() == [[2.0], [3.0]]


@pytest.mark.torch
@pytest.mark.parametrize("name, args, kwargs", [
    ("logical_xor", ([1.0, 0.0, 2.0], [0.0, 0.0, 3.0]), {}),
    ("hypot", ([3.0, 1.0], [4.0, 2.0]), {}),
    ("floor_divide", ([7.0, -7.0], [2.0, 2.0]), {}),
    ("amax", ([[1.0, 5.0], [3.0, 2.0]], 1), {}),
    ("std", ([[1.0, 5.0], [3.0, 2.0]], 1), {}),
    ("logsumexp", ([[1.0, 5.0], [3.0, 2.0]], 1), {}),
    ("addcmul", ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]), {"value": 0.5}),
    ("vstack", ([[1.0, 2.0], [3.0, 4.0]],), {}),
    ("tril", ([[1.0, 2.0], [3.0, 4.0]],), {}),
    ("diff", ([1.0, 4.0, 9.0],), {}),
    ("all", ([[1.0, 0.0], [3.0, 2.0]], 1), {}),
])
def test_more_out_functions_match_pytorch(name, args, kwargs):
    real = pytest.importorskip("torch")

    def run(lib):
        tensors = [lib.tensor(a) if isinstance(a, list) else a for a in args]
        if name == "vstack":
            tensors = [[lib.tensor(row) for row in args[0]]]
        like = getattr(lib, name)(*tensors, **kwargs)
        out = lib.empty(0, dtype=like.dtype)
        assert getattr(lib, name)(*tensors, out=out, **kwargs) is out
        return out.tolist(), str(out.dtype).split(".")[-1]

    assert run(torch) == run(real)
