"""Torch-level functions made to match PyTorch in the twentieth session (found by
tests/sweep_functions_against_torch.py): meshgrid's first check, tensorinv and tensorsolve
with more dimensions asked for than A has (a silent result before), randint_like's
Tensor ``high``.

Expected messages are PyTorch 2.13's, written out, so these tests run without PyTorch;
the parity tests compare with PyTorch where it is installed."""

from __future__ import annotations

import pytest

import teachgrad as tg

CASES = {
    # meshgrid checks the dtypes before the dimensions
    "torch.meshgrid(torch.ones(2, 2, dtype=torch.float64), torch.ones(3), indexing='ij')":
        (RuntimeError, "meshgrid expects all tensors to have the same dtype"),
    # ind beyond A's dimensions: refused (teachgrad's slicing of the shape gave a result)
    "torch.linalg.tensorinv(torch.tensor(2.5))":
        (RuntimeError, "ArrayRef: invalid slice, N = 2; size = 0"),
    "torch.linalg.tensorinv(torch.ones(6))":
        (RuntimeError, "ArrayRef: invalid slice, N = 2; size = 1"),
    "torch.linalg.tensorinv(torch.eye(2), ind=3)":
        (RuntimeError, "ArrayRef: invalid slice, N = 3; size = 2"),
    "torch.linalg.tensorsolve(torch.tensor(2.5), torch.ones(6))":
        (RuntimeError, "cannot create std::vector larger than max_size()"),
    # randint_like(input, high) with a tensor high: a 0-d one only
    "torch.randint_like(torch.ones(3), torch.tensor([4, 5]))":
        (RuntimeError, "high must be a scalar tensor and on CPU"),
    # repeat_interleave checks the counts' shape, then their number, then their dtype
    "torch.repeat_interleave(torch.ones(3), torch.ones(2, 2))":
        (RuntimeError, "repeats must be 0-dim or 1-dim tensor"),
    "torch.repeat_interleave(torch.tensor(2.5), torch.ones(6))":
        (RuntimeError, "repeats must have the same size as input along dim, but got "
                       "repeats.size(0) = 6 and input.size(0) = 1"),
    "torch.repeat_interleave(torch.tensor(2))":
        (RuntimeError, "repeat_interleave only accept 1D vector as repeat"),
    # histogram's edges: one dimension, at least one edge (NumPy's errors leaked before)
    "torch.histogram(torch.ones(3), torch.ones(2, 2))":
        (RuntimeError, "torch.histogramdd: bins tensor should have one dimension, but got 2 "
                       "dimensions in the bins tensor for dimension 0"),
    "torch.histogram(torch.ones(3), torch.tensor([]))":
        (RuntimeError, "torch.histogramdd: bins tensor should have at least 1 element, but "
                       "got 0 elements in the bins tensor for dimension 0"),
    "torch.histogram(torch.ones(3), torch.tensor(2.0))":
        (RuntimeError, "torch.histogramdd: bins tensor should have one dimension, but got 0 "
                       "dimensions in the bins tensor for dimension 0"),
    # cumulative_trapezoid names itself; a 0-d y is refused in PyTorch's words
    "torch.cumulative_trapezoid(torch.ones(2, 3), torch.ones(2))":
        (RuntimeError, "cumulative_trapezoid: There must be one `x` value for each sample "
                       "point"),
    "torch.cumulative_trapezoid(torch.tensor(2.5))":
        (IndexError, "slice() cannot be applied to a 0-dim tensor."),
    "torch.cumulative_trapezoid(torch.ones(2, 3), torch.ones(3, 3))":
        (RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at "
                       "non-singleton dimension 0"),
    "torch.repeat_interleave(torch.tensor(2.0))":
        (NotImplementedError, "\"repeat_interleave_cpu\" not implemented for 'Float'"),
}


def _raised(source: str, library) -> Exception:
    with pytest.raises(Exception) as caught:  # (the type is compared by the caller)
        eval(source, {"torch": library})
    return caught.value


@pytest.mark.parametrize("source", sorted(CASES))
def test_as_pytorch_says(source):
    error = _raised(source, tg)
    kind, message = CASES[source]
    assert type(error) is kind
    assert str(error).split("\nHint: ")[0] == message


def test_tensorinv_hints_at_what_ind_counts():
    with pytest.raises(RuntimeError, match=r"Hint: ind counts A's leading dimensions .* A has 1"):
        tg.linalg.tensorinv(tg.ones(6))


def test_tensorinv_and_randint_like_still_work():
    a = tg.tensor([[2.0, 1.0], [1.0, 1.0]])
    assert tg.linalg.tensorinv(a, ind=1).tolist() == [[1.0, -1.0], [-1.0, 2.0]]  # (by hand)
    tg.manual_seed(0)
    drawn = tg.randint_like(tg.ones(50), tg.tensor(3))
    assert drawn.shape == (50,) and set(drawn.tolist()) <= {0.0, 1.0, 2.0}


def test_randint_like_names_itself_for_a_wrong_combination():
    with pytest.raises(TypeError, match=r"^randint_like\(\) received an invalid combination "
                                        r"of arguments - got \(Tensor, Tensor, Tensor\)"):
        tg.randint_like(tg.ones(3), tg.tensor(1), tg.tensor([4, 5]))


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted(CASES))
def test_as_pytorch(source):
    real = pytest.importorskip("torch")
    error = _raised(source, real)
    assert (type(error), str(error)) == CASES[source]


# ---------------------------------------------------------------- out= on five more functions

@pytest.mark.parametrize("source, expected", [
    ("torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2]), out=out_bool)",
     [False, True, False]),
    ("torch.hardshrink(torch.tensor([-1.0, 0.25, 2.0]), out=out_float)", [-1.0, 0.0, 2.0]),
    ("torch.bernoulli(torch.ones(3), out=out_float)", [1.0, 1.0, 1.0]),
    ("torch.squeeze_copy(torch.tensor([[1.0], [2.0]]), out=out_float)", [1.0, 2.0]),
    ("torch.view_copy(torch.tensor([[1.0, 2.0]]), (2,), out=out_float)", [1.0, 2.0]),
])
def test_out_is_written(source, expected):
    names = {"torch": tg, "out_bool": tg.empty(0, dtype=tg.bool), "out_float": tg.empty(0)}
    result = eval(source, names)
    assert result.tolist() == expected
    assert result is names["out_bool"] or result is names["out_float"]


@pytest.mark.parametrize("source, message", [
    ("torch.isin(torch.tensor([1.0]), torch.tensor([1.0]), out=torch.empty(0))",
     "Expected out tensor to have dtype bool, but got float instead"),
    ("torch.hardshrink(torch.ones(2), out=torch.empty(0, dtype=torch.long))",
     "Found dtype Long but expected Float"),
    ("torch.squeeze_copy(torch.ones(2), out=torch.empty(0, dtype=torch.long))",
     "Expected out tensor to have dtype float, but got long int instead"),
])
def test_out_of_another_dtype_is_refused(source, message):
    with pytest.raises(RuntimeError) as caught:
        eval(source, {"torch": tg})
    assert str(caught.value).split("\nHint: ")[0] == message
