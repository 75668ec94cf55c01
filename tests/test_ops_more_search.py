"""Searching, counting and sets (ops/search.py): unique, unique_consecutive, searchsorted,
bucketize, isin, bincount, histc.

Values by hand, the refusal to differentiate (as PyTorch refuses), and parity with
PyTorch for values, dtypes, tuples, grad_fn names and errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from parity import same_as_torch, same_error

import teachgrad

RNG = np.random.default_rng(31)


def test_unique_by_hand():
    x = teachgrad.tensor([3, 1, 2, 3, 1, 1])
    values, inverse, counts = teachgrad.unique(x, return_inverse=True, return_counts=True)
    assert values.tolist() == [1, 2, 3]
    assert inverse.tolist() == [2, 0, 1, 2, 0, 0]
    assert counts.tolist() == [3, 1, 2]
    assert values[inverse].tolist() == x.tolist()  # the inverse rebuilds the input
    rows = teachgrad.tensor([[1, 2], [3, 4], [1, 2]])
    assert teachgrad.unique(rows, dim=0).tolist() == [[1, 2], [3, 4]]
    runs = teachgrad.unique_consecutive(teachgrad.tensor([1, 1, 2, 2, 3, 1, 1]),
                                        return_counts=True)
    assert runs[0].tolist() == [1, 2, 3, 1] and runs[1].tolist() == [2, 2, 1, 2]


def test_unique_refuses_to_differentiate_as_pytorch_does():
    x = teachgrad.tensor([2.0, 1.0, 2.0], requires_grad=True)
    out = teachgrad.unique(x)
    assert out.grad_fn.name() == "Unique2Backward0"
    with pytest.raises(NotImplementedError, match="derivative for '_unique2' is not"):
        out.sum().backward()
    counted = teachgrad.bincount(teachgrad.tensor([1, 1]), weights=x[:2])
    assert counted.tolist() == [0.0, 3.0] and counted.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::bincount is not implemented"):
        counted.sum().backward()


def test_searchsorted_and_bucketize_by_hand():
    seq = teachgrad.tensor([1, 3, 5, 7, 9])
    assert teachgrad.searchsorted(seq, teachgrad.tensor([3, 6, 9])).tolist() == [1, 3, 4]
    assert teachgrad.searchsorted(seq, teachgrad.tensor([3, 6, 9]), right=True).tolist() == [
        2, 3, 5]
    assert teachgrad.searchsorted(seq, 4).item() == 2
    assert teachgrad.bucketize(teachgrad.tensor([0, 1, 2, 10]), seq).tolist() == [0, 0, 1, 5]


def test_isin_bincount_histc_by_hand():
    assert teachgrad.isin(teachgrad.tensor([1, 2, 3]), teachgrad.tensor([2, 9])).tolist() == [
        False, True, False]
    assert not teachgrad.isin(teachgrad.tensor([math.nan]), teachgrad.tensor([math.nan])).item()
    assert teachgrad.bincount(teachgrad.tensor([1, 1, 3]), minlength=5).tolist() == [
        0, 2, 0, 1, 0]
    # bins [0, 1), [1, 2), [2, 3]: 3 (= max) falls in the last bin; 5 is outside
    counts = teachgrad.histc(teachgrad.tensor([0.0, 1.0, 2.5, 3.0, 5.0]), bins=3, min=0, max=3)
    assert counts.tolist() == [1.0, 1.0, 2.0]


# ----------------------------------------------------------------------------------------
# Parity with PyTorch
# ----------------------------------------------------------------------------------------
INTS = np.array([3, 1, 2, 3, 1, 1, 7, 2])
ROWS = np.array([[1, 2], [3, 4], [1, 2], [0, 9]])
FLOATS = RNG.uniform(-3, 3, (4, 5))

PARITY = {
    "unique": (lambda lib, x: lib.unique(x), (INTS,)),
    "unique all": (lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True),
                   (INTS,)),
    "unique 2-d inverse": (lambda lib, x: x.unique(return_inverse=True), (ROWS,)),
    "unique dim 0": (lambda lib, x: lib.unique(x, dim=0, return_inverse=True,
                                               return_counts=True), (ROWS,)),
    "unique dim 1": (lambda lib, x: lib.unique(x, dim=1, return_counts=True), (ROWS,)),
    "unique nan": (lambda lib, x: lib.unique(x), (np.array([1.0, np.nan, np.nan, 1.0]),)),
    "unique floats grad": (lambda lib, x: lib.unique(x.round()), (FLOATS,)),
    "unique 0-d": (lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True),
                   (np.array(3),)),
    "unique bool": (lambda lib, x: lib.unique(x, return_counts=True),
                    (np.array([True, False, True]),)),
    "unique empty": (lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True),
                     (np.zeros(0, np.int64),)),
    "unique_consecutive": (lambda lib, x: lib.unique_consecutive(
        x, return_inverse=True, return_counts=True), (np.array([1, 1, 2, 2, 3, 1, 1, 2]),)),
    "unique_consecutive dim": (lambda lib, x: x.unique_consecutive(dim=0, return_counts=True),
                               (np.array([[1, 2], [1, 2], [3, 4], [1, 2]]),)),
    "unique_consecutive 2-d": (lambda lib, x: lib.unique_consecutive(x, return_inverse=True),
                               (ROWS,)),
    "unique_consecutive 0-d": (lambda lib, x: lib.unique_consecutive(
        x, return_inverse=True, return_counts=True), (np.array(2),)),
    "searchsorted": (lambda lib, s, v: lib.searchsorted(s, v), (np.arange(0, 20, 3), INTS)),
    "searchsorted right": (lambda lib, s, v: lib.searchsorted(s, v, right=True),
                           (np.arange(0, 20, 3), INTS)),
    "searchsorted side": (lambda lib, s, v: lib.searchsorted(s, v, side="right"),
                          (np.array([1, 3, 3, 5]), np.array([3, 0, 6]))),
    "searchsorted rows": (lambda lib, s, v: lib.searchsorted(s, v),
                          (np.sort(FLOATS, axis=1), RNG.uniform(-3, 3, (4, 3)))),
    "searchsorted number": (lambda lib, s: lib.searchsorted(s, 4), (np.array([1, 3, 5]),)),
    "searchsorted int32": (lambda lib, s, v: lib.searchsorted(s, v, out_int32=True),
                           (np.array([1, 3, 5]), np.array([4, 0]))),
    "searchsorted sorter": (lambda lib, s, v, o: lib.searchsorted(s, v, sorter=o),
                            (np.array([5, 1, 3]), np.array([4, 0, 6]), np.array([1, 2, 0]))),
    "searchsorted mixed": (lambda lib, s, v: lib.searchsorted(s, v),
                           (np.array([1.0, 3.0, 5.0]), np.array([4, 1]))),
    "bucketize": (lambda lib, x, b: lib.bucketize(x, b), (ROWS, np.array([1, 3, 5, 7, 9]))),
    "bucketize right": (lambda lib, x, b: lib.bucketize(x, b, right=True),
                        (INTS, np.array([1, 3, 5]))),
    "bucketize number": (lambda lib, b: lib.bucketize(3, b), (np.array([1, 3, 5]),)),
    "isin": (lambda lib, x, t: lib.isin(x, t), (ROWS, np.array([2, 3, 9]))),
    "isin invert": (lambda lib, x, t: lib.isin(x, t, invert=True), (INTS, np.array([1, 7]))),
    "isin number": (lambda lib, x: lib.isin(x, 2), (INTS,)),
    "isin number elements": (lambda lib, t: lib.isin(2, t), (INTS,)),
    "isin mixed": (lambda lib, x, t: lib.isin(x, t), (np.array([1.0, 2.5]), np.array([1, 2]))),
    "bincount": (lambda lib, x: lib.bincount(x), (INTS,)),
    "bincount minlength": (lambda lib, x: x.bincount(minlength=10), (INTS,)),
    "bincount weights": (lambda lib, x, w: lib.bincount(x, w), (INTS, RNG.uniform(0, 1, 8))),
    "bincount int weights": (lambda lib, x, w: lib.bincount(x, weights=w), (INTS, INTS)),
    "bincount f32 weights": (lambda lib, x, w: lib.bincount(x, weights=w),
                             (INTS, RNG.uniform(0, 1, 8).astype(np.float32))),
    "bincount empty": (lambda lib, x: lib.bincount(x), (np.zeros(0, np.int64),)),
    "bincount int8": (lambda lib, x: lib.bincount(x), (np.array([1, 2], np.int8),)),
    "histc": (lambda lib, x: lib.histc(x, bins=4, min=0, max=3),
              (np.array([1.0, 2.0, 1.0, 4.0, 2.5]),)),
    "histc own range": (lambda lib, x: lib.histc(x, bins=7), (FLOATS,)),
    "histc f32": (lambda lib, x: x.histc(bins=10, min=-2, max=2), (FLOATS.astype(np.float32),)),
    "histc one value": (lambda lib, x: lib.histc(x, bins=4), (np.array([2.0, 2.0]),)),
    "histc edges": (lambda lib, x: lib.histc(x, bins=3, min=0, max=3),
                    (np.array([0.0, 1.0, 2.0, 3.0]),)),
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(PARITY))
def test_matches_torch(case):
    expr, arrays = PARITY[case]
    f32 = any(a.dtype == np.float32 for a in arrays)
    same_as_torch(expr, *arrays, rtol=1e-6 if f32 else 1e-12, grads=False)


ERRORS = {
    "searchsorted shapes": (lambda lib, s, v: lib.searchsorted(s, v),
                            (np.array([[1, 3, 5]]), np.array([[3], [4]]))),
    "searchsorted opposite": (lambda lib, s, v: lib.searchsorted(s, v, right=True, side="left"),
                              (np.array([1, 3]), np.array([2]))),
    "searchsorted side": (lambda lib, s, v: lib.searchsorted(s, v, side="up"),
                          (np.array([1, 3]), np.array([2]))),
    "searchsorted 0-d": (lambda lib, s, v: lib.searchsorted(s, v), (np.array(1), np.array([2]))),
    "searchsorted sorter": (lambda lib, s, v, o: lib.searchsorted(s, v, sorter=o),
                            (np.array([5, 1, 3]), np.array([4]), np.array([1, 2]))),
    "searchsorted scalar rows": (lambda lib, s: lib.searchsorted(s, 4), (np.array([[1, 3, 5]]),)),
    "bucketize 2-d": (lambda lib, x, b: lib.bucketize(x, b), (np.array([3]), np.array([[1, 3]]))),
    "isin bool": (lambda lib, x, t: lib.isin(x, t), (np.array([True]), np.array([1]))),
    "unique dim": (lambda lib, x: lib.unique(x, dim=1), (np.array([1, 2]),)),
    "bincount negative": (lambda lib, x: lib.bincount(x), (np.array([-1, 1]),)),
    "bincount 2-d": (lambda lib, x: lib.bincount(x), (np.array([[1]]),)),
    "bincount floats": (lambda lib, x: lib.bincount(x), (np.array([1.0]),)),
    "bincount minlength": (lambda lib, x: lib.bincount(x, minlength=-1), (np.array([1]),)),
    "bincount weights": (lambda lib, x, w: lib.bincount(x, w), (np.array([1, 2]), np.ones(1))),
    "histc ints": (lambda lib, x: lib.histc(x, bins=4), (np.array([1, 2]),)),
    "histc bins": (lambda lib, x: lib.histc(x, bins=0), (np.array([1.0, 2.0]),)),
    "histc range": (lambda lib, x: lib.histc(x, bins=3, min=3, max=1), (np.array([1.0, 2.0]),)),
    "histc inf": (lambda lib, x: lib.histc(x, bins=3), (np.array([1.0, np.inf]),)),
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    expr, arrays = ERRORS[case]
    same_error(expr, *arrays)
