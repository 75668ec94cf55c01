"""Torch-level functions made to match PyTorch in the nineteenth session (found by
tests/sweep_functions_against_torch.py): broadcast_shapes' checks, result strides of
cross and rot90, pinv's tensor rcond, the deprecated norms' warnings, the out= errors.

Expected messages are PyTorch 2.13's, written out, so these tests run without PyTorch;
the parity tests at the end compare with PyTorch where it is installed."""

import pytest

import teachgrad as tg

# ---------------------------------------------------------------- broadcast_shapes

@pytest.mark.parametrize("shapes, error, message", [
    # tensors are not shapes: refused (their elements were taken as sizes)
    ((tg.tensor([1.5, 2.0]), tg.tensor([1.0, 2.0])), RuntimeError,
     "Input shapes should be of type ints, a tuple of ints, or a list of ints, got "
     "tensor([1.5000, 2.0000])"),
    ((tg.tensor(2.5),), RuntimeError,  # (a 0-d tensor formats as its number)
     "Input shapes should be of type ints, a tuple of ints, or a list of ints, got 2.5"),
    (((2,), 2.5), RuntimeError,
     "Input shapes should be of type ints, a tuple of ints, or a list of ints, got 2.5"),
    (((2, -1),), ValueError, "Attempting to broadcast a dimension with negative length!"),
    (([2.0],), TypeError, "torch.Size() takes an iterable of 'int' (item 0 is 'float')"),
    # the common shape is padded with 1s to the longest shape before any comparison
    (((1,), (2, 3), [3, 3]), RuntimeError,
     "Attempting to broadcast a dimension of length 3 at -2! Mismatching argument at index 2 "
     "had [3, 3]; but expected shape should be broadcastable to [2, 3]"),
])
def test_broadcast_shapes_refuses_as_pytorch(shapes, error, message):
    with pytest.raises(error) as caught:
        tg.broadcast_shapes(*shapes)
    assert str(caught.value).split("\nHint: ")[0] == message


def test_broadcast_shapes_hints_at_shape_for_tensors():
    with pytest.raises(RuntimeError, match=r"Hint: pass shapes, e.g. torch.broadcast_shapes"):
        tg.broadcast_shapes(tg.ones(3), tg.ones(3))


@pytest.mark.parametrize("shapes, expected", [
    (((2, 1), (3,)), (2, 3)),
    ((None, (2,)), (2,)),  # None is left out, as PyTorch's
    ((None,), ()),
    ((), ()),
    ((3, (3, 1)), (3, 3)),
    (((0,), (1,)), (0,)),
    ((tg.Size([2, 1]), [4, 1, 5]), (4, 2, 5)),
])
def test_broadcast_shapes_values(shapes, expected):
    result = tg.broadcast_shapes(*shapes)
    assert isinstance(result, tg.Size) and tuple(result) == expected
