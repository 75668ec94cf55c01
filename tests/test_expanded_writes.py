"""Writing into an expanded tensor (``x.expand(4, 4)``: four rows, one row of memory).

PyTorch refuses almost every in-place op there ("more than one element of the written-to
tensor refers to a single memory location"), but index_put_ (``t[idx] = v``),
index_fill_ and masked_fill_ still write, with a deprecation warning: each position is
written in turn into the memory it shares, so the last write wins and ``accumulate=True``
adds every time. Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import warnings

import pytest

import teachgrad


def _rows(lib):
    base = lib.arange(4.0)  # [0, 1, 2, 3], seen as 4 equal rows
    return base, base.expand(4, 4)


def _columns(lib):
    base = lib.arange(4.0).view(4, 1)  # row r is base[r], repeated 4 times
    return base, base.expand(4, 4)


ROWS_MASK = [[True, False, True, False]] * 4
# (make, code with t the expanded tensor and L the library, base after it)
CASES = [
    # rows 0 and 2 are the base: every element set to 5
    (_rows, "t.index_put_((L.tensor([0, 2]),), L.tensor(5.))", [5.0, 5.0, 5.0, 5.0]),
    # each of rows 0 and 2 adds 5 to the same memory: base + 10
    (_rows, "t.index_put_((L.tensor([0, 2]),), L.tensor(5.), accumulate=True)",
     [10.0, 11.0, 12.0, 13.0]),
    # row 0 is 4 positions of base[0]: 0 + 4 * 5; row 2 likewise: 2 + 20
    (_columns, "t.index_put_((L.tensor([0, 2]),), L.tensor(5.), accumulate=True)",
     [20.0, 1.0, 22.0, 3.0]),
    # the last write wins: position (1, 1) then (3, 1) both are base[1]
    (_rows, "t.index_put_((L.tensor([1, 3]), L.tensor([1, 1])), L.tensor([7., 8.]))",
     [0.0, 8.0, 2.0, 3.0]),
    (_rows, "t.__setitem__(L.tensor([0, 2]), 5.0)", [5.0, 5.0, 5.0, 5.0]),
    (_columns, "t.__setitem__((L.tensor([0, 2]), L.tensor([1, 1])), -1.0)",
     [-1.0, 1.0, -1.0, 3.0]),
    # columns 0 and 2 of every row: base[0] and base[2]
    (_rows, "t.masked_fill_(L.tensor(ROWS_MASK), 2.0)", [2.0, 1.0, 2.0, 3.0]),
    (_columns, "t.masked_fill_(L.tensor(ROWS_MASK), 2.0)", [2.0, 2.0, 2.0, 2.0]),
    (_rows, "t.index_fill_(1, L.tensor([0, 2]), 3.0)", [3.0, 1.0, 3.0, 3.0]),
    (_columns, "t.index_fill_(0, L.tensor([0, 2]), 3.0)", [3.0, 1.0, 3.0, 3.0]),
]
WARNINGS = {"index_put_": "tensor[indices] = tensor", "index_fill_": "tensor[mask] = scalar",
            "masked_fill_": "tensor[mask] = scalar"}


def _run(make, code, lib):
    base, t = make(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        eval(code, {"t": t, "L": lib, "ROWS_MASK": ROWS_MASK})  # noqa: S307
    return base, [str(w.message) for w in caught]


@pytest.mark.parametrize(("make", "code", "expected"), CASES)
def test_pytorch_writes_these_into_an_expanded_tensor(make, code, expected):
    base, messages = _run(make, code, teachgrad)
    assert base.flatten().tolist() == expected
    assert base._version > 0
    name = "masked_fill_" if "masked_fill_" in code else (
        "index_fill_" if "index_fill_" in code else "index_put_")
    sentence = (f"Use of {name} on expanded tensors is deprecated. Please clone() the tensor "
                "before performing this operation. This also applies to advanced indexing "
                f"e.g. {WARNINGS[name]}")
    assert [m.split("\nHint: ")[0] for m in messages] == [sentence]


@pytest.mark.parametrize(("make", "code", "expected"), CASES)
def test_pytorch_gives_the_same_values(make, code, expected):
    torch = pytest.importorskip("torch")
    base, messages = _run(make, code, torch)
    assert base.flatten().tolist() == expected
    assert len(messages) == 1


def test_a_mask_put_warns_as_index_put_and_masked_fill():
    # x[mask] = v is index_put_ run as masked_fill_ in PyTorch: both warn
    _, messages = _run(_rows, "t.__setitem__(t > 100, 5.0)", teachgrad)
    assert [m.split(" on ")[0] for m in messages] == ["Use of index_put_", "Use of masked_fill_"]


@pytest.mark.parametrize("code", [
    "t.index_add_(0, L.tensor([0, 2]), L.ones(2, 4))",
    "t.index_copy_(0, L.tensor([0, 2]), L.ones(2, 4))",
    "t.masked_scatter_(L.tensor(ROWS_MASK), L.arange(16.))",
    "t.scatter_(0, L.tensor([[0, 1, 2, 3]]), 9.0)",
    "t.add_(1)",
])
def test_other_writes_into_an_expanded_tensor_are_refused(code):
    base, t = _rows(teachgrad)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        eval(code, {"t": t, "L": teachgrad, "ROWS_MASK": ROWS_MASK})  # noqa: S307
    assert base.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_a_recorded_write_into_an_expanded_tensor_is_refused():
    # teachgrad does not record these: an error, not a silently wrong gradient
    w = teachgrad.ones(4, requires_grad=True)
    t = (w * 1).expand(4, 4)
    with pytest.raises(RuntimeError, match="more than one element"):
        t.index_put_((teachgrad.tensor([0]),), teachgrad.tensor(5.0))
