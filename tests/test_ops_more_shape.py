"""The shape additions: rot90, ravel, narrow_copy, Tensor.unfold, atleast_3d (shape.py);
tensor_split ... repeat_interleave (split_join.py); the *_scatter ops, diag_embed,
diagflat (view_scatter.py); tril_indices/triu_indices, unravel_index.

Gradients: finite differences (first and second order) and hand derivations. Values,
dtypes, grad_fn names, views and errors: PyTorch (tests marked ``torch``).
"""

from __future__ import annotations

import numpy as np
import pytest
from parity import same_as_torch, same_error

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(41)


def leaf(*shape):
    return teachgrad.tensor(RNG.standard_normal(shape), requires_grad=True)


DIFFERENTIABLE = {
    "rot90": lambda y: teachgrad.rot90(y),
    "rot90 k=-1 dims (1, 0)": lambda y: y.rot90(-1, (1, 0)),
    "rot90 k=2": lambda y: teachgrad.rot90(y, 2),
    "ravel of a transpose": lambda y: y.t().ravel(),
    "narrow_copy": lambda y: teachgrad.narrow_copy(y, 1, -3, 2),
    "unfold": lambda y: y.unfold(1, 2, 1),
    "unfold with gaps": lambda y: y.unfold(1, 1, 3),
    "unfold squared (second order)": lambda y: y.unfold(0, 2, 1) ** 2,
    "tensor_split": lambda y: teachgrad.tensor_split(y, 3, 1)[1],
    "tensor_split indices": lambda y: y.tensor_split([1, 3], dim=1)[2],
    "hsplit": lambda y: teachgrad.hsplit(y, 2)[1],
    "vsplit": lambda y: y.vsplit([1])[1],
    "column_stack": lambda y: teachgrad.column_stack([y, y[:, 0]]),
    "dstack": lambda y: teachgrad.dstack([y, y]),
    "block_diag": lambda y: teachgrad.block_diag(y, y[0], y[0, 0]),
    "cartesian_prod": lambda y: teachgrad.cartesian_prod(y[0], y[1, :2]),
    "combinations": lambda y: teachgrad.combinations(y[0], 3),
    "combinations with replacement": lambda y: teachgrad.combinations(y[1], 2, True),
    "repeat_interleave": lambda y: teachgrad.repeat_interleave(y, 2, dim=1),
    "repeat_interleave flat": lambda y: y.repeat_interleave(3),
    "repeat_interleave counts": lambda y: y.repeat_interleave(teachgrad.tensor([0, 2, 1]), 0),
    "broadcast_tensors": lambda y: teachgrad.broadcast_tensors(y, y[0])[1],
    "select_scatter": lambda y: teachgrad.select_scatter(y, y[1] * 2, 0, 0),
    "slice_scatter": lambda y: y.slice_scatter(y[:, :2] ** 2, 1, 1, 4, 2),
    "diagonal_scatter": lambda y: teachgrad.diagonal_scatter(y, y[0, :3] * 3),
    "diagonal_scatter offset": lambda y: y.diagonal_scatter(y[1, :2], -1),
    "diag_embed": lambda y: teachgrad.diag_embed(y),
    "diag_embed dims": lambda y: y.diag_embed(1, 0, 2),
    "diagflat": lambda y: teachgrad.diagflat(y, -1),
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradients_match_finite_differences(name):
    y = leaf(3, 4)
    assert gradcheck(DIFFERENTIABLE[name], (y,))
    assert gradgradcheck(DIFFERENTIABLE[name], (y,))


def test_unfold_is_a_view_and_overlapping_windows_add_their_gradients():
    x = teachgrad.arange(5.0).requires_grad_()
    windows = x.unfold(0, 3, 1)  # [0 1 2], [1 2 3], [2 3 4]
    assert windows.tolist() == [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
    assert windows._base is x and windows.stride() == (1, 1)
    windows.sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 3.0, 2.0, 1.0]  # how many windows saw each element
    plain = teachgrad.arange(4.0)
    plain.unfold(0, 2, 2)[1, 0] = 9.0  # writing through the view writes the tensor
    assert plain.tolist() == [0.0, 1.0, 9.0, 3.0]


def test_scatters_by_hand():
    x = teachgrad.zeros(2, 3, requires_grad=True)
    src = teachgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = teachgrad.select_scatter(x, src, 0, 1)
    assert out.tolist() == [[0, 0, 0], [1, 2, 3]]
    (out * teachgrad.tensor([[1.0, 2, 3], [4, 5, 6]])).sum().backward()
    assert x.grad.tolist() == [[1, 2, 3], [0, 0, 0]]  # zero where src was written
    assert src.grad.tolist() == [4, 5, 6]


def test_atleast_nd_take_one_tensor_or_several():
    x, y = teachgrad.tensor(0.5), teachgrad.tensor([1.0, 2.0])
    assert teachgrad.atleast_1d(x).shape == (1,)  # one tensor: a tensor
    pair = teachgrad.atleast_2d((x, y))  # a tuple of tensors: a tuple
    assert isinstance(pair, tuple) and [t.shape for t in pair] == [(1, 1), (1, 2)]
    assert [t.shape for t in teachgrad.atleast_3d(x, y)] == [(1, 1, 1), (1, 2, 1)]


def test_repeat_interleave_and_splits_by_hand():
    x = teachgrad.tensor([[1, 2], [3, 4]])
    assert x.repeat_interleave(2).tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert x.repeat_interleave(teachgrad.tensor([1, 2]), dim=0).tolist() == [
        [1, 2], [3, 4], [3, 4]]
    assert teachgrad.repeat_interleave(teachgrad.tensor([2, 0, 1])).tolist() == [0, 0, 2]
    pieces = teachgrad.tensor_split(teachgrad.arange(7), 3)
    assert [p.tolist() for p in pieces] == [[0, 1, 2], [3, 4], [5, 6]]
    assert all(p._base is not None for p in pieces)  # views, as PyTorch's
    assert teachgrad.tril_indices(3, 3).tolist() == [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    rows, cols = teachgrad.unravel_index(teachgrad.tensor([5, 1]), (2, 3))
    assert (rows.tolist(), cols.tolist()) == ([1, 0], [2, 1])
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
        teachgrad.unravel_index(teachgrad.tensor([1.0]), (2, 3))


# ----------------------------------------------------------------------------------------
# Parity with PyTorch
# ----------------------------------------------------------------------------------------
def _data(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


M = _data(3, 4)
INTS = np.arange(12).reshape(3, 4)

PARITY = {
    "rot90": (lambda lib, x: lib.rot90(x), (M,)),
    "rot90 k=5 ints": (lambda lib, x: lib.rot90(x, 5), (INTS,)),
    "rot90 -dims": (lambda lib, x: x.rot90(-1, [-1, 0]), (_data(2, 3, 4),)),
    "rot90 k=0": (lambda lib, x: lib.rot90(x, 0), (M,)),
    "ravel": (lambda lib, x: lib.ravel(x), (M,)),
    "ravel transposed": (lambda lib, x: x.t().ravel(), (M,)),
    "narrow_copy": (lambda lib, x: lib.narrow_copy(x, 1, -3, 2), (M,)),
    "unfold": (lambda lib, x: x.unfold(1, 2, 1), (M,)),
    "unfold step": (lambda lib, x: x.unfold(0, 2, 2), (_data(5, 2),)),
    "unfold empty window": (lambda lib, x: x.unfold(1, 0, 1), (M,)),
    "unfold 0-d": (lambda lib, x: x.unfold(0, 1, 1), (np.array(2.0),)),
    "atleast_3d": (lambda lib, x: lib.atleast_3d(x), (_data(4),)),
    "atleast_1d tuple": (lambda lib, x, y: lib.atleast_1d((x, y)), (np.array(1.5), _data(2))),
    "atleast_2d several": (lambda lib, x, y: lib.atleast_2d(x, y), (np.array(1.5), _data(2))),
    "atleast_3d list": (lambda lib, x, y: lib.atleast_3d([x, y]), (_data(2), M)),
    "tensor_split sections": (lambda lib, x: lib.tensor_split(x, 3, dim=1), (M,)),
    "tensor_split indices": (lambda lib, x: x.tensor_split([1, 5, 5, 9]), (_data(7),)),
    "tensor_split decreasing": (lambda lib, x: lib.tensor_split(x, [4, 2]), (_data(7),)),
    "tensor_split negative": (lambda lib, x: lib.tensor_split(x, [-2]), (_data(7),)),
    "tensor_split 0-d tensor": (lambda lib, x: lib.tensor_split(x, lib.tensor(3)), (_data(7),)),
    "tensor_split 1-d tensor": (lambda lib, x: lib.tensor_split(x, lib.tensor([2, 4])),
                                (_data(7),)),
    "hsplit": (lambda lib, x: lib.hsplit(x, 2), (M,)),
    "hsplit vector": (lambda lib, x: x.hsplit(3), (_data(6),)),
    "vsplit list": (lambda lib, x: lib.vsplit(x, [1]), (M,)),
    "dsplit": (lambda lib, x: lib.dsplit(x, 2), (_data(2, 3, 4),)),
    "column_stack": (lambda lib, a, b: lib.column_stack([a, b]), (_data(3), M)),
    "column_stack numbers": (lambda lib, a, b, c: lib.column_stack([a, b, c]),
                             (np.array(1.0), _data(1), _data(1, 2))),
    "dstack": (lambda lib, a, b: lib.dstack([a, b]), (M, M)),
    "dstack vectors": (lambda lib, a, b: lib.dstack([a, b]), (_data(3), _data(3))),
    "block_diag": (lambda lib, a, b, c: lib.block_diag(a, b, c),
                   (np.array(1.0), _data(2), _data(2, 1))),
    "block_diag promotes": (lambda lib, a, b: lib.block_diag(a, b),
                            (np.array([1, 2]), _data(2, 2, dtype=np.float32))),
    "block_diag none": (lambda lib: lib.block_diag(), ()),
    "cartesian_prod": (lambda lib, a, b: lib.cartesian_prod(a, b), (_data(2), _data(3))),
    "cartesian_prod ints": (lambda lib, a, b, c: lib.cartesian_prod(a, b, c),
                            (np.array([1, 2]), np.array([3, 4, 5]), np.array([6]))),
    "cartesian_prod one": (lambda lib, a: lib.cartesian_prod(a), (_data(3),)),
    "combinations": (lambda lib, a: lib.combinations(a), (_data(4),)),
    "combinations r=3 replacement": (lambda lib, a: lib.combinations(a, 3, True), (_data(3),)),
    "combinations r=1": (lambda lib, a: lib.combinations(a, 1), (np.array([1, 2, 3]),)),
    "combinations r=0": (lambda lib, a: lib.combinations(a, 0), (np.array([1, 2, 3]),)),
    "combinations r>n": (lambda lib, a: lib.combinations(a, 4), (np.array([1, 2, 3]),)),
    "broadcast_tensors": (lambda lib, a, b: lib.broadcast_tensors(a, b), (_data(2, 1), _data(3))),
    "broadcast_tensors same": (lambda lib, a, b: lib.broadcast_tensors(a, b),
                               (_data(2), _data(2))),
    "repeat_interleave": (lambda lib, x: lib.repeat_interleave(x, 2, dim=0), (M,)),
    "repeat_interleave flat": (lambda lib, x: x.repeat_interleave(2), (M,)),
    "repeat_interleave counts": (lambda lib, x: lib.repeat_interleave(
        x, lib.tensor([1, 0, 2]), dim=0, output_size=3), (M,)),
    "repeat_interleave one count": (lambda lib, x: lib.repeat_interleave(x, lib.tensor([2]),
                                                                          dim=1), (M,)),
    "repeat_interleave 0-d count": (lambda lib, x: lib.repeat_interleave(x, lib.tensor(2),
                                                                          dim=-1), (INTS,)),
    "repeat_interleave alone": (lambda lib, c: lib.repeat_interleave(c), (np.array([1, 2, 0]),)),
    "repeat_interleave 0-d": (lambda lib, x: lib.repeat_interleave(x, 3), (np.array(2.0),)),
    "select_scatter": (lambda lib, x, s: lib.select_scatter(x, s, 0, -1), (M, _data(4))),
    "select_scatter dtype": (lambda lib, x, s: lib.select_scatter(x, s, 1, 0),
                             (M.astype(np.float32), _data(3))),
    "slice_scatter": (lambda lib, x, s: lib.slice_scatter(x, s, 1, 0, 4, 2), (M, _data(3, 2))),
    "slice_scatter start": (lambda lib, x, s: x.slice_scatter(s, 1, start=-1), (M, _data(3, 1))),
    "slice_scatter default": (lambda lib, x, s: lib.slice_scatter(x, s), (M, _data(3, 4))),
    "diagonal_scatter": (lambda lib, x, s: lib.diagonal_scatter(x, s, 1), (M, _data(3))),
    "diagonal_scatter dims": (lambda lib, x, s: x.diagonal_scatter(s, 0, 2, 0),
                              (_data(2, 3, 2), _data(3, 2))),
    "diag_embed": (lambda lib, x: lib.diag_embed(x), (M,)),
    "diag_embed offset dims": (lambda lib, x: x.diag_embed(1, 0, 2), (M,)),
    "diag_embed vector": (lambda lib, x: lib.diag_embed(x, -1), (_data(3),)),
    "diagflat": (lambda lib, x: lib.diagflat(x, 1), (M,)),
    "diagflat vector": (lambda lib, x: x.diagflat(), (_data(3),)),
    "diagflat 0-d": (lambda lib, x: lib.diagflat(x), (np.array(3.0),)),
    "tril_indices": (lambda lib: lib.tril_indices(3, 4, 1), ()),
    "triu_indices": (lambda lib: lib.triu_indices(4, 3, -1, dtype=lib.int32), ()),
    "tril_indices empty": (lambda lib: lib.tril_indices(0, 3), ()),
    "unravel_index": (lambda lib, i: lib.unravel_index(i, (2, 3)), (np.array([[4, 1], [0, 5]]),)),
    "unravel_index wraps": (lambda lib, i: lib.unravel_index(i, (2, 3)), (np.array([-1, 6]),)),
    "unravel_index 0-d": (lambda lib, i: lib.unravel_index(i, lib.Size([2, 3])), (np.array(4),)),
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(PARITY))
def test_matches_torch(case):
    expr, arrays = PARITY[case]
    f32 = any(a.dtype == np.float32 for a in arrays)
    same_as_torch(expr, *arrays, rtol=1e-6 if f32 else 1e-12)


@pytest.mark.torch
def test_views_match_torch():
    torch = pytest.importorskip("torch")
    assert tuple(teachgrad.broadcast_shapes((2, 1), (3,), 1)) == tuple(
        torch.broadcast_shapes((2, 1), (3,), 1))
    for lib in (teachgrad, torch):
        x = lib.arange(12.0).reshape(3, 4).clone()
        assert x.unfold(1, 2, 1)._base is x
        assert all(p._base is x for p in lib.tensor_split(x, 2, 1))
        assert lib.narrow_copy(x, 0, 0, 1)._base is None
        assert lib.ravel(x)._base is x and lib.ravel(x.t())._base is not x  # (a copy)
        assert x.unfold(1, 2, 1).stride() == (4, 1, 1)


ERRORS = {
    "rot90 one dim": (lambda lib, x: lib.rot90(x, 1, [0]), (M,)),
    "rot90 same dims": (lambda lib, x: lib.rot90(x, 1, [1, 1]), (M,)),
    "rot90 vector": (lambda lib, x: lib.rot90(x), (_data(3),)),
    "rot90 dim range": (lambda lib, x: lib.rot90(x, 1, [0, 2]), (M,)),
    "unfold too big": (lambda lib, x: x.unfold(1, 5, 1), (M,)),
    "unfold step 0": (lambda lib, x: x.unfold(1, 2, 0), (M,)),
    "unfold negative size": (lambda lib, x: x.unfold(1, -1, 1), (M,)),
    "narrow_copy range": (lambda lib, x: lib.narrow_copy(x, 1, 3, 2), (M,)),
    "tensor_split 0 sections": (lambda lib, x: lib.tensor_split(x, 0), (_data(7),)),
    "tensor_split 0-d": (lambda lib, x: lib.tensor_split(x, 2), (np.array(1.0),)),
    "tensor_split float tensor": (lambda lib, x: lib.tensor_split(x, lib.tensor([2.0])),
                                  (_data(7),)),
    "tensor_split 2-d tensor": (lambda lib, x: lib.tensor_split(x, lib.tensor([[2]])),
                                (_data(7),)),
    "hsplit uneven": (lambda lib, x: lib.hsplit(x, 3), (M,)),
    "hsplit 0-d": (lambda lib, x: lib.hsplit(x, 1), (np.array(1.0),)),
    "vsplit vector": (lambda lib, x: lib.vsplit(x, 3), (_data(6),)),
    "dsplit matrix": (lambda lib, x: lib.dsplit(x, 1), (M,)),
    "column_stack empty": (lambda lib: lib.column_stack([]), ()),
    "block_diag 3-d": (lambda lib, x: lib.block_diag(x), (_data(2, 2, 2),)),
    "cartesian_prod matrix": (lambda lib, x: lib.cartesian_prod(x), (M,)),
    "combinations matrix": (lambda lib, x: lib.combinations(x), (M,)),
    "combinations negative": (lambda lib, x: lib.combinations(x, -1), (_data(3),)),
    "broadcast_tensors": (lambda lib, a, b: lib.broadcast_tensors(a, b), (_data(2), _data(3))),
    "broadcast_shapes": (lambda lib: lib.broadcast_shapes((2,), (3,)), ()),
    "repeat_interleave negative": (lambda lib, x: lib.repeat_interleave(x, -1), (M,)),
    "repeat_interleave negative counts": (
        lambda lib, x: lib.repeat_interleave(x, lib.tensor([1, -1, 1]), dim=0), (M,)),
    "repeat_interleave counts size": (
        lambda lib, x: lib.repeat_interleave(x, lib.tensor([1, 2]), dim=0), (M,)),
    "repeat_interleave float counts": (
        lambda lib, x: lib.repeat_interleave(x, lib.tensor([1.0, 2.0, 1.0]), dim=0), (M,)),
    "repeat_interleave 2-d counts": (lambda lib: lib.repeat_interleave(lib.tensor([[1, 2]])), ()),
    "repeat_interleave output_size": (
        lambda lib, x: lib.repeat_interleave(x, lib.tensor([1, 2, 1]), dim=0, output_size=3),
        (M,)),
    "select_scatter src": (lambda lib, x, s: lib.select_scatter(x, s, 0, 0), (M, _data(3))),
    "select_scatter index": (lambda lib, x, s: lib.select_scatter(x, s, 0, 5), (M, _data(4))),
    "slice_scatter src": (lambda lib, x, s: lib.slice_scatter(x, s, 1, 0, 3), (M, _data(3, 2))),
    "diagonal_scatter src": (lambda lib, x, s: lib.diagonal_scatter(x, s), (M, _data(4))),
    "diag_embed same dims": (lambda lib, x: lib.diag_embed(x, 0, 0, 0), (_data(3),)),
    "diag_embed 0-d": (lambda lib, x: lib.diag_embed(x), (np.array(1.0),)),
    "tril_indices negative": (lambda lib: lib.tril_indices(-1, 2), ()),
    "triu_indices negative col": (lambda lib: lib.triu_indices(2, -1), ()),
    "tril_indices float": (lambda lib: lib.tril_indices(2, 2, dtype=lib.float32), ()),
    "unravel_index shape": (lambda lib, i: lib.unravel_index(i, (2, -3)), (np.array([1]),)),
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    expr, arrays = ERRORS[case]
    same_error(expr, *arrays)
