"""``teachgrad.testing.assert_close``: PyTorch's tolerances and failure messages.

Expected messages are written out by hand from the rule |actual - expected| <= atol +
rtol * |expected| (and compared with PyTorch's own when it is installed).
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.testing import assert_close


def test_close_values_pass_with_the_dtypes_default_tolerances():
    assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-6]))  # float32: 1e-5
    assert_close(torch.tensor([1.0], dtype=torch.float64), torch.tensor([1.0 + 1e-8],
                                                                        dtype=torch.float64))
    assert_close([torch.tensor(1.0), (torch.tensor([2, 3]),)],
                 [torch.tensor(1.0), (torch.tensor([2, 3]),)])
    assert_close(torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]),
                 equal_nan=True)
    assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.01]), rtol=0.1, atol=0.0)


def test_a_mismatch_reports_count_and_greatest_differences():
    with pytest.raises(AssertionError) as failure:
        assert_close(torch.tensor([0.0, 2.0, 3.0]), torch.tensor([1.0, 2.0, 3.0]))
    assert str(failure.value) == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 1.0 at index (0,) (up to 1.3e-06 allowed)"
    )
    with pytest.raises(AssertionError) as failure:
        assert_close(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[1, 2], [3, 5]]))
    assert str(failure.value).startswith(
        "Tensor-likes are not equal!\n\nMismatched elements: 1 / 4 (25.0%)\n"
        "Greatest absolute difference: 1 at index (1, 1)\n")


def test_scalars_shapes_dtypes_and_sequences():
    with pytest.raises(AssertionError, match=r"^Scalars are not equal!\n\nExpected 3 but got 2\.\n"
                                             r"Absolute difference: 1\n"):
        assert_close(2, 3)
    with pytest.raises(AssertionError, match=r"^Scalars are not close!\n\nExpected 1\.5 but got "
                                             r"1\.0\.\nAbsolute difference: 0\.5 \(up to 1e-05"):
        assert_close(torch.tensor(1.0), torch.tensor(1.5))
    with pytest.raises(AssertionError, match="attribute 'shape' do not match"):
        assert_close(torch.ones(2), torch.ones(3))
    with pytest.raises(AssertionError, match="attribute 'dtype' do not match"):
        assert_close(torch.ones(2), torch.ones(2, dtype=torch.float64))
    assert_close(torch.ones(2), torch.ones(2, dtype=torch.float64), check_dtype=False)
    with pytest.raises(AssertionError, match=r"\n\nThe failure occurred for item \[1\]$"):
        assert_close([torch.ones(1), torch.ones(2)], [torch.ones(1), torch.zeros(2)])
    with pytest.raises(AssertionError, match="^The length of the sequences mismatch: 2 != 3$"):
        assert_close([1, 2], [1, 2, 3])
    with pytest.raises(AssertionError, match="^custom$"):
        assert_close(torch.ones(1), torch.zeros(1), msg="custom")
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs"):
        assert_close(torch.tensor(1.0), 1.0)
    with pytest.raises(ValueError, match="must be either specified or omitted, but got no atol"):
        assert_close(torch.ones(1), torch.ones(1), rtol=0.1)


def test_numpy_arrays_compare_as_tensors():
    expected = np.array([1e0, 1e-1, 1e-2])
    assert_close(np.arccos(np.cos(expected)), expected)  # PyTorch's docstring example
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 2 \(50.0%\)"):
        assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.1]))
    with pytest.raises(AssertionError, match="attribute 'dtype' do not match"):
        assert_close(np.array([1, 2]), np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="No comparison pair"):  # a tensor and an array: no
        assert_close(torch.tensor([1.0]), np.array([1.0]))


def test_mappings_match_key_by_key_in_any_order():
    from collections import OrderedDict

    expected = OrderedDict([("foo", torch.tensor(1.0)), ("bar", 2.0), ("baz", np.array(3.0))])
    assert_close({"baz": np.array(3.0), "bar": 2.0, "foo": torch.tensor(1.0)}, expected)
    with pytest.raises(AssertionError) as failure:
        assert_close({"a": 1.0, "c": 1.0}, {"a": 1.0, "b": 1.0})
    assert str(failure.value) == (
        "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['b']\n"
        "Additional keys in the actual mapping: ['c']")
    with pytest.raises(AssertionError, match=r"The failure occurred for item \['a'\]\[1\]$"):
        assert_close({"a": [1.0, 2.0]}, {"a": [1.0, 2.5]})


@pytest.mark.torch
@pytest.mark.parametrize("actual, expected", [
    ({"a": 1.0, "c": 1.0}, {"a": 1.0, "b": 1.0}),
    ({"a": [1.0, 2.0]}, {"a": [1.0, 2.5]}),
    ({"w": np.array([1.0, 2.0])}, {"w": np.array([1.0, 3.0])}),
])
def test_mapping_messages_match_pytorch(actual, expected):
    real = pytest.importorskip("torch")

    def message(lib):
        with pytest.raises(AssertionError) as failure:
            lib.testing.assert_close(actual, expected)
        return str(failure.value)

    assert message(torch) == message(real)


@pytest.mark.torch
def test_numpy_array_messages_match_pytorch():
    real = pytest.importorskip("torch")

    def message(lib):
        with pytest.raises(AssertionError) as failure:
            lib.testing.assert_close(np.array([[1.0, 2.0]]), np.array([[1.0, 2.5]]))
        return str(failure.value)

    assert message(torch) == message(real)


@pytest.mark.torch
@pytest.mark.parametrize("actual, expected", [
    ([1.0, 2.0, 3.0], [1.0, 2.1, 3.0]),
    ([1.0, float("nan")], [1.0, float("nan")]),
    ([[1, 2], [3, 4]], [[1, 2], [3, 5]]),
    ([True], [False]),
    (1.0, 1.5),
])
def test_messages_match_pytorch(actual, expected):
    real = pytest.importorskip("torch")

    def message(lib):
        with pytest.raises(AssertionError) as failure:
            lib.testing.assert_close(lib.tensor(actual), lib.tensor(expected))
        return str(failure.value)

    assert message(torch) == message(real)
