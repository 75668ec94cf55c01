"""The short numbers written on graph boxes and arrows (teachgrad.notebook.values).

Expected texts are written by hand from the arrays.
"""

import numpy as np
import pytest

from teachgrad.notebook.values import short_value


@pytest.mark.parametrize("array, shown", [
    (np.array(4.5), "4.5"),
    (np.array(3.0), "3."),                      # PyTorch's "a float" dot
    (np.array([1.0, 2.0]), "[1., 2.]"),
    (np.full((2, 2), 4.5), "all 4.5"),
    (np.array(np.nan), "nan"),
])
def test_short_values(array, shown):
    assert short_value(array) == shown


def test_a_number_that_rounds_to_a_whole_one_is_not_written_as_exactly_that():
    # 0.99999 was written "1", as if exactly 1 (and as an integer): a gradient that is
    # almost, not quite, 1 is what a student needs to notice.
    assert short_value(np.array(0.99999)) == "1.000"
    assert short_value(np.array([-0.99999, 0.5])) == "[-1.000, 0.5]"
    assert short_value(np.array(99.99999)) == "100.0"
    assert short_value(np.array(1234.5678)) == "1234.6"  # not "1235.", a whole number


def test_a_summarised_tensor_names_its_shape_so_it_cannot_be_read_as_numbers():
    # Was "[2, 3] mean 2.5", and for integers only "[2, 3]": the values 2 and 3?
    assert short_value(np.arange(6.0).reshape(2, 3)) == "mean 2.5 (2×3)"
    assert short_value(np.arange(40.0)) == "mean 19.5 (40 values)"
    assert short_value(np.arange(6).reshape(2, 3)) == "int64 (2×3)"
    assert short_value(np.ones(5, dtype=bool) == np.arange(5)) == "bool (5 values)"


def test_a_few_numbers_keep_their_rows():
    # Was flattened: [[1, 2], [3, 4]] read as the 1-d [1, 2, 3, 4].
    assert short_value(np.array([[1.0, 2.0], [3.0, 4.0]])) == "[[1., 2.], [3., 4.]]"
