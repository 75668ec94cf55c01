"""Strides and storage offsets of empty (and sorted) results, and addmm's signed zeros
with beta=0, as PyTorch gives them.

The expected values are derived by hand from PyTorch's rules (quoted at each test); with
PyTorch installed, the same programs are also compared with it.
"""

from __future__ import annotations

import math

import pytest

import teachgrad as torch


def _permuted_empty(library):
    # empty(0, 3, 2) has strides (6, 2, 1) (a size 0 counts as 1); permute(2, 0, 1) makes
    # them (1, 6, 2), shape (2, 0, 3)
    return library.empty(0, 3, 2).permute(2, 0, 1)


# name -> (program, expected (shape, strides, storage offset))
CASES = {
    # roll of an empty tensor along dims is PyTorch's clone(): its strides kept exactly
    "roll": (lambda L: _permuted_empty(L).roll(1, 0), ((2, 0, 3), (1, 6, 2), 0)),
    "roll of a transposed empty": (lambda L: L.empty(3, 0).t().roll(1, 1),
                                   ((0, 3), (1, 1), 0)),
    # (without dims, roll flattens: a new row-major tensor)
    "roll without dims": (lambda L: _permuted_empty(L).roll(1), ((2, 0, 3), (3, 3, 1), 0)),
    # sort sorts a clone in place: values and indices are laid out as the input
    "sort values": (lambda L: _permuted_empty(L).sort(0)[0], ((2, 0, 3), (1, 6, 2), 0)),
    "sort indices": (lambda L: _permuted_empty(L).sort(2)[1], ((2, 0, 3), (1, 6, 2), 0)),
    "argsort": (lambda L: _permuted_empty(L).argsort(0), ((2, 0, 3), (1, 6, 2), 0)),
    # ones(2, 3, 4).permute(2, 0, 1): strides (1, 12, 4), dense: kept
    "sort of a permuted tensor": (lambda L: L.ones(2, 3, 4).permute(2, 0, 1).sort(1)[0],
                                  ((4, 2, 3), (1, 12, 4), 0)),
    "sort indices of a permuted tensor": (
        lambda L: L.ones(2, 3, 4).permute(2, 0, 1).sort(0)[1], ((4, 2, 3), (1, 12, 4), 0)),
    # a slice with gaps: clone lays it out dense, in its order (row-major here)
    "sort of a strided slice": (lambda L: L.ones(4, 6)[:, ::2].sort(0)[0],
                                ((4, 3), (3, 1), 0)),
    # an empty slice starts where its first element would be: 5, 2, 2·4 + 1, 7
    "x[5:5]": (lambda L: L.arange(10.0)[5:5], ((0,), (1,), 5)),
    "x[12:15]": (lambda L: L.arange(10.0)[12:15], ((0,), (1,), 10)),  # (start clamped)
    "x[:, 2:2]": (lambda L: L.arange(12.0).view(3, 4)[:, 2:2], ((3, 0), (4, 1), 2)),
    "x[2:2, 1:]": (lambda L: L.arange(12.0).view(3, 4)[2:2, 1:], ((0, 3), (4, 1), 9)),
    "x[7:3]": (lambda L: L.arange(10.0)[7:3], ((0,), (1,), 7)),
    "narrow": (lambda L: L.arange(10.0).narrow(0, 5, 0), ((0,), (1,), 5)),
    "x[1, 2:2]": (lambda L: L.arange(12.0).view(3, 4)[1, 2:2], ((0,), (1,), 6)),
    "a slice of an empty slice": (lambda L: L.arange(12.0).view(3, 4)[1:][:, 3:3][1:1],
                                  ((0, 0), (4, 1), 11)),
    "split": (lambda L: L.arange(10.0).split([5, 0, 5])[1], ((0,), (1,), 5)),
    "tensor_split": (lambda L: L.arange(6.0).tensor_split([3, 3])[1], ((0,), (1,), 3)),
    # an empty pointwise result whose operands differ in shape: TensorIterator's order
    # (from x.t()'s strides (1, 2): dim 1 inside dim 2) with strides the products of the
    # sizes inside: dim 1: 1, dim 2: 2, dim 0: 2·3
    "x.t() + empty(0, 1, 1)": (lambda L: L.ones(3, 2).t() + L.empty(0, 1, 1),
                               ((0, 2, 3), (6, 1, 2), 0)),
}


def _layout(t) -> tuple:
    return tuple(t.shape), tuple(t.stride()), t.storage_offset()


@pytest.mark.parametrize("name", sorted(CASES))
def test_layout_as_pytorchs(name):
    program, expected = CASES[name]
    assert _layout(program(torch)) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_pytorch_lays_it_out_the_same(name):
    real = pytest.importorskip("torch")
    program, _ = CASES[name]
    assert _layout(program(real)) == _layout(program(torch))


def test_sorting_a_permuted_tensor_keeps_its_values_and_gradient():
    # The values are sorted along dim 1 of the permuted view: rows [3, 1, 2] -> [1, 2, 3];
    # d(sum(w * sorted))/dx is w at each value's place before sorting.
    x = torch.tensor([[3.0, 1.0, 2.0], [6.0, 5.0, 4.0]], requires_grad=True)
    values, indices = x.t().sort(0)
    assert values.stride() == (1, 3) and indices.stride() == (1, 3)  # (x.t()'s)
    assert values.tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    assert indices.tolist() == [[1, 2], [2, 1], [0, 0]]
    weights = torch.tensor([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]])
    (values * weights).sum().backward()
    assert x.grad.tolist() == [[3.0, 1.0, 2.0], [30.0, 20.0, 10.0]]


def test_an_empty_slice_points_into_its_base():
    x = torch.arange(10.0)
    piece = x[5:5]
    assert piece.data_ptr() - x.data_ptr() == 5 * 4  # (float32: 4 bytes an element)
    piece.add_(1)  # (nothing written)
    assert x.tolist() == list(map(float, range(10)))
    y = torch.arange(4.0, requires_grad=True)
    (y[2:2].sum() + (y[1:3] * 2).sum()).backward()
    assert y.grad.tolist() == [0.0, 2.0, 2.0, 0.0]


def _signs(t) -> list:
    return [math.copysign(1, v) for v in t.flatten().tolist()]


def test_addmm_with_beta_0_keeps_the_minus_zeros_of_an_outer_product():
    # PyTorch's BLAS zeroes the output for beta = 0 and adds the product to +0, except for
    # an outer product (n x 1 @ 1 x m, n and m > 1), whose terms it writes as they are:
    # -0·1 = -0, -0·-0 = +0, 1·1 = 1, 1·-0 = -0; nan in input is not read.
    a, b = torch.tensor([[-0.0], [1.0]]), torch.tensor([[1.0, -0.0]])
    out = torch.addmm(torch.full((2, 2), math.nan), a, b, beta=0)
    assert out.tolist() == [[0.0, 0.0], [1.0, 0.0]]
    assert _signs(out) == [-1, 1, 1, -1]
    out = torch.addmm(torch.full((1, 2), math.nan), a[:1], b, beta=0)  # one row: from +0
    assert _signs(out) == [1, 1]
    out = torch.addmm(torch.zeros(2, 2), torch.tensor([[-0.0, 1.0], [1.0, 0.0]]),
                      torch.tensor([[1.0, -0.0], [-0.0, 1.0]]), beta=0)  # k = 2: from +0
    assert _signs(out) == [1, 1, 1, 1]


@pytest.mark.torch
def test_addmm_with_beta_0_signs_zeros_as_pytorch():
    real = pytest.importorskip("torch")
    programs = [
        lambda L: L.addmm(L.full((2, 2), math.nan), L.tensor([[-0.0], [1.0]]),
                          L.tensor([[1.0, -0.0]]), beta=0),
        lambda L: L.addmm(L.zeros(3, 2), L.tensor([[-0.0], [0.0], [-1.0]]),
                          L.tensor([[2.0, -0.0]]), beta=0, alpha=-1),
        lambda L: L.addmm(L.zeros(1, 2), L.tensor([[-0.0]]), L.tensor([[1.0, -0.0]]), beta=0),
    ]
    for program in programs:
        assert _signs(program(real)) == _signs(program(torch))
