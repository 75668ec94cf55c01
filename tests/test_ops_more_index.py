"""index_add, index_copy, index_fill, scatter_reduce, masked_scatter, put (ops/index_update.py)
and their in-place forms; diff, trapezoid/trapz, cumulative_trapezoid (ops/calculus.py).

Gradients: finite differences (first and second order) and hand derivations. Values,
dtypes, grad_fn names and errors: PyTorch (tests marked ``torch``).
"""

from __future__ import annotations

import numpy as np
import pytest
from parity import same_as_torch, same_error

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(51)


def leaf(*shape):
    return teachgrad.tensor(RNG.standard_normal(shape), requires_grad=True)


INDEX = teachgrad.tensor([[0, 1, 0, 2], [2, 1, 0, 1]])

DIFFERENTIABLE = {
    "index_add": lambda a, s: a.index_add(0, teachgrad.tensor([2, 2]), s, alpha=3),
    "index_add dim 1": lambda a, s: teachgrad.index_add(a, 1, teachgrad.tensor([3, 0]), s.t()[:3]),
    "index_copy": lambda a, s: a.index_copy(0, teachgrad.tensor([2, 0]), s),
    "index_fill tensor value": lambda a, s: a.index_fill(1, teachgrad.tensor([1, 1, 3]), s[0, 0]),
    "index_fill number": lambda a, s: teachgrad.index_fill(a, 0, teachgrad.tensor([-1]), 2.0),
    "masked_scatter": lambda a, s: a.masked_scatter(a > 0, s),
    "masked_scatter broadcast mask": lambda a, s: teachgrad.masked_scatter(
        a, teachgrad.tensor([True, False, False, True]), s),
    "masked_scatter broadcast input": lambda a, s: a[0].masked_scatter(
        teachgrad.tensor([[True, False, False, True], [False, True, True, False]]), s),
    "put": lambda a, s: a.put(teachgrad.tensor([1, 5, -1]), s[0, :3]),
    "put accumulate": lambda a, s: teachgrad.put(a, teachgrad.tensor([1, 1, 11]), s[0, :3], True),
    "diff": lambda a, s: teachgrad.diff(a),
    "diff n=2 dim 0 append": lambda a, s: a.diff(2, 0, append=s),
    "trapezoid dx": lambda a, s: teachgrad.trapezoid(a, dx=0.3, dim=0),
    "trapezoid x": lambda a, s: teachgrad.trapezoid(a, s[0].cumsum(0)),
    "trapz": lambda a, s: teachgrad.trapz(a, s[0] ** 2),
    "cumulative_trapezoid": lambda a, s: teachgrad.cumulative_trapezoid(a, dx=2.0),
    "cumulative_trapezoid x": lambda a, s: teachgrad.cumulative_trapezoid(a, s[1], dim=1),
}
for _reduce in ("sum", "mean", "amax", "amin"):
    for _include in (True, False):
        DIFFERENTIABLE[f"scatter_reduce {_reduce} include_self={_include}"] = (
            lambda a, s, r=_reduce, i=_include: a.scatter_reduce(0, INDEX, s, r, include_self=i))


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradients_match_finite_differences(name):
    a, s = leaf(3, 4), leaf(2, 4)
    assert gradcheck(DIFFERENTIABLE[name], (a, s))
    assert gradgradcheck(DIFFERENTIABLE[name], (a, s))


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_first_and_second_derivatives(include_self):
    a, s = leaf(3, 4), leaf(3, 5)  # src larger than the index: the rest gets no gradient
    index = teachgrad.tensor([[0, 1, 0], [2, 1, 0], [3, 3, 3]])
    assert gradcheck(lambda a, s: a.scatter_reduce(1, index, s, "prod",
                                                   include_self=include_self), (a, s))
    assert gradgradcheck(lambda a, s: a.scatter_reduce(1, index, s, "prod",
                                                       include_self=include_self), (a, s))


def test_scatter_reduce_prod_gradient_at_zeros_by_hand():
    base = teachgrad.tensor([1.0, 2.0, 0.0], requires_grad=True)
    src = teachgrad.tensor([2.0, 0.0, 3.0, 0.0, 5.0], requires_grad=True)
    out = base.scatter_reduce(0, teachgrad.tensor([0, 1, 1, 2, 2]), src, "prod")
    assert out.tolist() == [2.0, 0.0, 0.0]
    out.sum().backward()
    # each factor's gradient is the product of the other factors of its position
    assert base.grad.tolist() == [2.0, 0.0, 0.0]
    assert src.grad.tolist() == [1.0, 6.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_refuses_a_source_changed_in_place(reduce):
    # Its backward reads src: changed in place after the forward, the gradient would be
    # silently wrong (the prod gradient halves here), so backward must refuse, as in PyTorch.
    s = teachgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    src = s * 1
    out = teachgrad.ones(3).scatter_reduce(0, teachgrad.tensor([0, 1, 1]), src, reduce)
    src.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_values_by_hand():
    x = teachgrad.zeros(3)
    assert x.index_add(0, teachgrad.tensor([0, 0, 2]), teachgrad.tensor([1.0, 2, 3])).tolist() == [
        3.0, 0.0, 3.0]
    assert x.index_copy(0, teachgrad.tensor([0, 0]), teachgrad.tensor([7.0, 8])).tolist() == [
        8.0, 0.0, 0.0]  # the last copy wins
    src = teachgrad.tensor([1.0, 2.0, 3.0, 4.0])
    index = teachgrad.tensor([0, 1, 0, 1])
    assert x[:2].scatter_reduce(0, index, src, "mean", include_self=False).tolist() == [2.0, 3.0]
    assert x.masked_scatter(teachgrad.tensor([True, False, True]), src).tolist() == [1.0, 0, 2.0]
    # input broadcasts to the mask's shape (PyTorch's docstring example)
    mask = teachgrad.tensor([[0, 0, 0, 1, 1], [1, 1, 0, 1, 1]], dtype=teachgrad.bool)
    source = teachgrad.tensor([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
    assert teachgrad.zeros(5, dtype=teachgrad.int64).masked_scatter(mask, source).tolist() == [
        [0, 0, 0, 0, 1], [2, 3, 0, 4, 5]]
    assert teachgrad.diff(teachgrad.tensor([1, 4, 9, 16]), n=2).tolist() == [2, 2]
    # ∫₀² x² dx by trapezoids of width 1: (0 + 1)/2 + (1 + 4)/2 = 3
    assert teachgrad.trapezoid(teachgrad.tensor([0.0, 1.0, 4.0])).item() == 3.0


def test_in_place_forms():
    x = teachgrad.zeros(2, 2)
    x.index_add_(0, teachgrad.tensor([1]), teachgrad.ones(1, 2))
    x.index_fill_(1, teachgrad.tensor([0]), 5)
    assert x.tolist() == [[5.0, 0.0], [5.0, 1.0]]
    x.put_(teachgrad.tensor([1]), teachgrad.tensor([9.0])).masked_scatter_(
        teachgrad.tensor([[False, False], [False, True]]), teachgrad.tensor([7.0]))
    assert x.tolist() == [[5.0, 9.0], [5.0, 7.0]]
    x.scatter_reduce_(1, teachgrad.tensor([[0], [0]]), teachgrad.tensor([[1.0], [10.0]]), "amax")
    x.index_copy_(0, teachgrad.tensor([0]), teachgrad.tensor([[0.0, 0.0]]))
    assert x.tolist() == [[0.0, 0.0], [10.0, 7.0]]
    # recorded: the tensor takes the op's node, and its old values get the right gradient
    a = teachgrad.ones(3, requires_grad=True)
    b = a * 2
    b.index_fill_(0, teachgrad.tensor([1]), 0.0)
    assert b.grad_fn.name() == "IndexFillBackward0"
    b.sum().backward()
    assert a.grad.tolist() == [2.0, 0.0, 2.0]


# ----------------------------------------------------------------------------------------
# Parity with PyTorch
# ----------------------------------------------------------------------------------------
def _data(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


A, S = _data(3, 4), _data(2, 4)
SRC6 = np.array([1.0, 7.0, 3.0, 7.0, 5.0, 6.0])
BASE4 = np.array([10.0, 7.0, 0.0, 40.0])
IDX6 = np.array([0, 1, 1, 2, 2, 1])

PARITY = {
    "index_add": (lambda lib, a, s: a.index_add(0, lib.tensor([2, 0]), s, alpha=2), (A, S)),
    "index_add repeats": (lambda lib, a, s: lib.index_add(a, 0, lib.tensor([1, 1]), s), (A, S)),
    "index_add ints": (lambda lib, a, s: a.index_add(0, lib.tensor([1, 1]), s),
                       (np.arange(4), np.array([5, 6]))),
    "index_add int32 index": (lambda lib, a, s: a.index_add(0, lib.tensor([1], dtype=lib.int32),
                                                            s), (_data(3), _data(1))),
    "index_add 0-d index": (lambda lib, a, s: a.index_add(0, lib.tensor(1), s),
                            (_data(3), _data(1))),
    "index_copy": (lambda lib, a, s: a.index_copy(1, lib.tensor([3, 0]), s),
                   (_data(2, 4), _data(2, 2))),
    "index_copy repeats": (lambda lib, a, s: lib.index_copy(a, 0, lib.tensor([0, 0]), s),
                           (A, S)),
    "index_fill": (lambda lib, a: a.index_fill(1, lib.tensor([1, -1]), -1.5), (A,)),
    "index_fill tensor": (lambda lib, a, v: lib.index_fill(a, 0, lib.tensor([2]), v),
                          (A, np.array(3.0))),
    "index_fill int by float": (lambda lib, a: a.index_fill(0, lib.tensor([0]), 1.5),
                                (np.arange(3),)),
    "masked_scatter": (lambda lib, a, s: a.masked_scatter(a > 0, s), (A, _data(12))),
    "masked_scatter broadcast": (lambda lib, a, s: lib.masked_scatter(
        a, lib.tensor([True, False, True, False]), s), (A, _data(3, 4))),
    "put": (lambda lib, a, s: a.put(lib.tensor([0, 5, -1]), s), (A, _data(3))),
    "put accumulate": (lambda lib, a, s: lib.put(a, lib.tensor([[0, 0], [11, 3]]), s, True),
                       (A, _data(2, 2))),
    "put function": (lambda lib, a, s: lib.put(a, lib.tensor([1]), s), (A, _data(1))),
    "scatter_reduce 2-d": (lambda lib, a, s: a.scatter_reduce(
        1, lib.tensor([[0, 1, 0], [2, 1, 0], [3, 3, 3]]), s, "amax"), (A, _data(3, 5))),
    "scatter_reduce int mean": (lambda lib, a, s: a.scatter_reduce(
        0, lib.tensor([0, 1, 0, 1, 2, 1]), s, "mean"),
        (np.array([10, 20, 30, 40]), np.array([1, 2, 3, 4, 5, 6]))),
    "scatter_reduce int amin": (lambda lib, a, s: a.scatter_reduce(
        0, lib.tensor([0, 1, 0, 1, 2, 1]), s, "amin", include_self=False),
        (np.array([10, 20, 30, 40]), np.array([1, 2, 3, 4, 5, 6]))),
    "diff": (lambda lib, a: lib.diff(a), (A,)),
    "diff n=2 dim 0": (lambda lib, a: a.diff(2, 0), (A,)),
    "diff n too large": (lambda lib, a: lib.diff(a, n=7), (A,)),
    "diff n=0": (lambda lib, a: lib.diff(a, n=0), (A,)),
    "diff bool": (lambda lib, a: lib.diff(a), (np.array([True, False, False, True]),)),
    "diff ints": (lambda lib, a: lib.diff(a), (np.array([1, 4, 9, 16]),)),
    "diff prepend append": (lambda lib, a, p, q: lib.diff(a, dim=0, prepend=p, append=q),
                            (A, _data(1, 4), _data(2, 4))),
    "diff prepend promotes": (lambda lib, a, p: lib.diff(a, prepend=p),
                              (A.astype(np.float32), _data(3, 1))),
    "trapezoid": (lambda lib, y: lib.trapezoid(y), (A,)),
    "trapezoid dx dim": (lambda lib, y: lib.trapezoid(y, dx=0.5, dim=0), (A,)),
    "trapezoid x": (lambda lib, y, x: lib.trapezoid(y, x), (A, np.array([0.0, 1.0, 3.0, 3.5]))),
    "trapezoid x full": (lambda lib, y, x: lib.trapezoid(y, x, dim=0), (A, _data(3, 4))),
    "trapezoid ints": (lambda lib, y: lib.trapezoid(y), (np.array([1, 2, 3]),)),
    "trapezoid ints x": (lambda lib, y, x: lib.trapezoid(y, x),
                         (np.array([1, 2, 3]), np.array([1, 2, 4]))),
    "trapezoid empty": (lambda lib, y: lib.trapezoid(y), (np.zeros(0),)),
    "trapezoid one sample": (lambda lib, y: lib.trapezoid(y), (np.array([3.0]),)),
    "trapz": (lambda lib, y: lib.trapz(y, dx=2), (A,)),
    "trapz x": (lambda lib, y, x: lib.trapz(y, x), (A, np.array([0.0, 1.0, 3.0, 3.5]))),
    "cumulative_trapezoid": (lambda lib, y: lib.cumulative_trapezoid(y), (A,)),
    "cumulative_trapezoid x": (lambda lib, y, x: lib.cumulative_trapezoid(y, x),
                               (A, np.array([0.0, 1.0, 3.0, 3.5]))),
    "cumulative_trapezoid dx": (lambda lib, y: lib.cumulative_trapezoid(y, dx=2, dim=0), (A,)),
    "cumulative_trapezoid f32": (lambda lib, y: lib.cumulative_trapezoid(y),
                                 (A.astype(np.float32),)),
    "cumulative_trapezoid empty": (lambda lib, y: lib.cumulative_trapezoid(y), (np.zeros((2, 0)),)),
    "cumulative_trapezoid empty x": (lambda lib, y, x: lib.cumulative_trapezoid(y, x),
                                     (np.zeros((2, 0)), np.zeros(0))),
}
PARITY["masked_scatter broadcast input"] = (
    lambda lib, a, s: a[0].masked_scatter(lib.tensor([[True, False, True, False],
                                                      [False, True, True, True]]), s),
    (BASE4, SRC6))
for _reduce in ("sum", "prod", "mean", "amax", "amin"):
    for _include in (True, False):
        PARITY[f"scatter_reduce {_reduce} {_include}"] = (
            lambda lib, a, s, r=_reduce, i=_include: a.scatter_reduce(
                0, lib.tensor(IDX6), s, r, include_self=i), (BASE4, SRC6))


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(PARITY))
def test_matches_torch(case):
    expr, arrays = PARITY[case]
    f32 = any(a.dtype == np.float32 for a in arrays)
    # (PyTorch's own backward of scatter_reduce fails when src is larger than the index.)
    same_as_torch(expr, *arrays, rtol=1e-6 if f32 else 1e-12, atol=1e-6 if f32 else 1e-12,
                  grads=case != "scatter_reduce 2-d")


ERRORS = {
    "index_add source size": (lambda lib, a, s: a.index_add(0, lib.tensor([0, 2, 0]), s),
                              (A, S)),
    "index_add dtype": (lambda lib, a, s: a.index_add(0, lib.tensor([0, 1]), s),
                        (A.astype(np.float32), S)),
    "index_add float index": (lambda lib, a, s: a.index_add(0, lib.tensor([0.0]), s[:1]),
                              (A, S)),
    "index_add out of bounds": (lambda lib, a, s: a.index_add(0, lib.tensor([5]), s[:1]), (A, S)),
    "index_add negative": (lambda lib, a, s: a.index_add(0, lib.tensor([-1]), s[:1]), (A, S)),
    "index_add 2-d index": (lambda lib, a, s: a.index_add(0, lib.tensor([[0]]), s[:1]), (A, S)),
    "index_add 0-d source": (lambda lib, a: a.index_add(0, lib.tensor([1]), lib.tensor(5.0)),
                             (_data(3),)),
    "index_copy size": (lambda lib, a, s: a.index_copy(0, lib.tensor([2, 0, 1]), s), (A, S)),
    "index_copy dtype": (lambda lib, a, s: a.index_copy(0, lib.tensor([2, 0]), s),
                         (A.astype(np.float32), S)),
    "index_copy out of bounds": (lambda lib, a, s: a.index_copy(0, lib.tensor([5]), s[:1]),
                                 (A, S)),
    "index_copy int32 index": (lambda lib, a, s: a.index_copy(
        0, lib.tensor([0], dtype=lib.int32), s[:1]), (A, S)),
    "index_fill 1-d value": (lambda lib, a: a.index_fill(0, lib.tensor([0]), lib.tensor([1.0])),
                             (A,)),
    "index_fill out of bounds": (lambda lib, a: a.index_fill(1, lib.tensor([4]), 0), (A,)),
    "index_fill 2-d index": (lambda lib, a: a.index_fill(1, lib.tensor([[0]]), 0), (A,)),
    "index_fill int32 index": (lambda lib, a: a.index_fill(
        1, lib.tensor([1], dtype=lib.int32), 0), (A,)),
    "scatter_reduce reduce": (lambda lib, a, s: a.scatter_reduce(0, lib.tensor([0]), s, "foo"),
                              (_data(3), _data(1))),
    "scatter_reduce index dims": (lambda lib, a, s: a.scatter_reduce(
        0, lib.tensor([[0]]), s, "sum"), (_data(3), _data(1))),
    "scatter_reduce out of bounds": (lambda lib, a, s: a.scatter_reduce(
        0, lib.tensor([5]), s, "sum"), (_data(3), _data(1))),
    "scatter_reduce index size": (lambda lib, a, s: a.scatter_reduce(
        0, lib.tensor([0, 1]), s, "sum"), (_data(3), _data(1))),
    "scatter_reduce dtype": (lambda lib, a, s: a.scatter_reduce(0, lib.tensor([0]), s, "sum"),
                             (_data(3, dtype=np.float32), _data(1))),
    "masked_scatter short": (lambda lib, a, s: a.masked_scatter(lib.tensor([True, False, True]),
                                                                s), (_data(2, 3), _data(3))),
    "masked_scatter dtype": (lambda lib, a, s: a.masked_scatter(a > 0, s),
                             (_data(2, 3, dtype=np.float32), _data(6))),
    "masked_scatter mask": (lambda lib, a, s: a.masked_scatter(lib.tensor([1, 0, 1]), s),
                            (_data(2, 3), _data(6))),
    "put out of bounds": (lambda lib, a, s: a.put(lib.tensor([12]), s), (A, _data(1))),
    "put size": (lambda lib, a, s: a.put(lib.tensor([0, 1]), s), (A, _data(1))),
    "put dtype": (lambda lib, a, s: a.put(lib.tensor([0]), s), (A.astype(np.float32), _data(1))),
    "put int32 index": (lambda lib, a, s: a.put(lib.tensor([0], dtype=lib.int32), s),
                        (A, _data(1))),
    "diff negative n": (lambda lib, a: lib.diff(a, n=-1), (A,)),
    "diff 0-d": (lambda lib, a: lib.diff(a), (np.array(1.0),)),
    "diff prepend dims": (lambda lib, a, p: lib.diff(a, prepend=p), (A, _data(4))),
    "trapezoid x size": (lambda lib, y, x: lib.trapezoid(y, x), (A, _data(2))),
    "trapezoid x and dx": (lambda lib, y, x: lib.trapezoid(y, x, dx=1), (A, _data(4))),
    "trapezoid 0-d": (lambda lib, y: lib.trapezoid(y), (np.array(3.0),)),
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    expr, arrays = ERRORS[case]
    same_error(expr, *arrays)
