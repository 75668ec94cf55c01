"""Shape ops: view/reshape ... cat, stack, split, flip, repeat, roll, tril/triu.

Most expectations come from fixtures/shape_index_cases.json (recorded from PyTorch by
fixtures/make_shape_index_cases.py). The rest: gradients against finite differences
(gradcheck / gradgradcheck in float64), hand-derived gradients, and which results are
views (sharing memory and the version counter with their input) and which are copies.
"""

from __future__ import annotations

import numpy as np
import pytest
from torch_cases import cases, check_case

import teachgrad as torch
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck


@pytest.mark.parametrize("case", cases("shape"))
def test_same_as_pytorch(case):
    """Value, dtype, grad_fn graph, views, gradients and errors, as PyTorch recorded them."""
    check_case(case)


def _x(*shape, seed=0):
    data = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(data, dtype=torch.float64, requires_grad=True)


SHAPE_OPS = {
    "view": lambda x: x.view(4, 3),
    "reshape_copy": lambda x: x.t().reshape(12),
    "reshape_alias": lambda x: x.t().reshape(4, 3),
    "flatten": lambda x: x.unsqueeze(0).flatten(1),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "squeeze_dims": lambda x: x.unsqueeze(0).unsqueeze(2).squeeze((0, 2)),
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.unsqueeze(1).permute(2, 0, 1),
    "movedim": lambda x: x.movedim(0, 1),
    "T": lambda x: x.T,
    "expand": lambda x: x.unsqueeze(0).expand(2, 3, 4),
    "select": lambda x: x.select(1, -1),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "split": lambda x: x.split(2),
    "split_sizes": lambda x: x.split([1, 3], 1),
    "chunk": lambda x: x.chunk(2, 1),
    "unbind": lambda x: x.unbind(1),
    "diagonal": lambda x: x.diagonal(1),
    "diag_matrix": lambda x: x.diag(-1),
    "diag_vector": lambda x: x[0].diag(1),
    "cat": lambda x: torch.cat([x, x * 2], 1),
    "stack": lambda x: torch.stack([x, x.flip(0)], 2),
    "hstack": lambda x: torch.hstack([x, x]),
    "vstack": lambda x: torch.vstack([x[0], x[1]]),
    "flip": lambda x: x.flip(0, 1),
    "repeat": lambda x: x.repeat(2, 1, 3),
    "tile": lambda x: x.tile(2),
    "roll_flat": lambda x: x.roll(5),
    "roll_dims": lambda x: x.roll((1, -2), (0, 1)),
    "tril": lambda x: x.tril(),
    "triu": lambda x: x.triu(1),
}


@pytest.mark.parametrize("name", SHAPE_OPS)
def test_gradients_match_finite_differences(name):
    x = _x(3, 4)
    assert gradcheck(SHAPE_OPS[name], (x,))


@pytest.mark.parametrize("name", SHAPE_OPS)
def test_second_derivatives_match_finite_differences(name):
    """The backward formulas are themselves differentiable (create_graph=True)."""
    x = _x(3, 4)
    assert gradgradcheck(SHAPE_OPS[name], (x,))


def test_repeat_gradient_counts_the_copies():
    x = torch.ones(2, 3, requires_grad=True)
    x.repeat(2, 1, 3).sum().backward()
    assert x.grad.tolist() == [[6.0] * 3] * 2


def test_cat_gradient_is_split_back_to_each_input():
    a = torch.ones(2, 2, requires_grad=True)
    b = torch.ones(1, 2, requires_grad=True)
    weights = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    (torch.cat([a, b]) * weights).sum().backward()
    assert a.grad.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert b.grad.tolist() == [[5.0, 6.0]]


def test_split_pieces_are_outputs_of_one_node():
    x = _x(5, 3)
    pieces = x.split(2)
    assert len({id(p.grad_fn) for p in pieces}) == 1
    assert [p._output_nr for p in pieces] == [0, 1, 2]
    (pieces[0].sum() + 3 * pieces[2].sum()).backward()  # the middle piece is never used
    assert x.grad.tolist() == [[1.0] * 3] * 2 + [[0.0] * 3] * 2 + [[3.0] * 3]


VIEWS = {
    "view": lambda x: x.view(12),
    "reshape": lambda x: x.reshape(2, 6),
    "reshape_alias": lambda x: x.t().reshape(4, 3),
    "transpose": lambda x: x.transpose(0, 1),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "permute": lambda x: x.permute(1, 0),
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "expand": lambda x: x.expand(2, 3, 4),
    "select": lambda x: x.select(0, 1),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "split_piece": lambda x: x.split(2, 1)[1],
    "unbind_piece": lambda x: x.unbind()[2],
    "diagonal": lambda x: x.diagonal(),
    "movedim": lambda x: x.movedim(1, 0),
}


@pytest.mark.parametrize("name", VIEWS)
def test_view_shares_memory_and_version_counter(name):
    x = torch.zeros(3, 4)
    v = VIEWS[name](x)
    assert v._base is x
    with torch.no_grad():
        x.add_(1)
    assert (v.numpy() == 1).all()  # the change shows through the view
    assert v._version == x._version == 1


COPIES = {
    "reshape_copy": lambda x: x.t().reshape(12),
    "cat": lambda x: torch.cat([x, x]),
    "stack": lambda x: torch.stack([x, x]),
    "flip": lambda x: x.flip(0),
    "repeat": lambda x: x.repeat(1, 2),
    "roll": lambda x: x.roll(1),
    "tril": lambda x: x.tril(),
    "diag": lambda x: x.diag(),
}


@pytest.mark.parametrize("name", COPIES)
def test_copying_ops_do_not_share_memory(name):
    x = torch.zeros(3, 4)
    out = COPIES[name](x)
    assert out._base is None
    with torch.no_grad():
        x.add_(1)
    assert (out.numpy() == 0).all()
    assert out._version == 0


def test_writing_through_an_expanded_view_is_refused():
    x = torch.zeros(3)
    y = x.expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        y.add_(1.0)
    assert x.tolist() == [0.0, 0.0, 0.0] and x._version == 0
    # ... except by fill_(number) and zero_(), which write one value everywhere: PyTorch
    # 2.13 lets them (x becomes [1, 1, 1], version 1)
    y.fill_(1.0)
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 1


def test_diagonal_is_a_writable_view():
    x = torch.zeros(3, 3)
    x.diagonal().fill_(1.0)
    assert x.tolist() == np.eye(3).tolist()


def test_saved_view_changed_through_its_base_is_detected():
    x = _x(3, 4)
    y = x * 2
    v = y.t()
    w = v * v  # saves v
    with torch.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.sum().backward()


def test_numpy_functions_route_to_these_ops_for_tensors():
    a, b = _x(2, 3), _x(1, 3, seed=1)
    out = np.concatenate([a, b])
    assert isinstance(out, torch.Tensor) and out.grad_fn.name() == "CatBackward0"
    assert np.flip(a, 0).grad_fn.name() == "FlipBackward0"
    assert np.reshape(a, (3, 2)).grad_fn.name() == "ViewBackward0"
    assert np.stack([a, a], 1).grad_fn.name() == "StackBackward0"
    assert np.tril(a).grad_fn.name() == "TrilBackward0"


def test_squeeze_method_takes_the_dims_one_by_one():
    # PyTorch's method accepts x.squeeze(0, 1) as well as x.squeeze((0, 1)).
    x = torch.ones(1, 1, 3, 1, requires_grad=True)
    y = x.squeeze(0, 3)
    assert y.shape == torch.Size([1, 3]) and y.grad_fn.name() == "SqueezeBackward2"
    assert x.squeeze(0, 1).shape == x.squeeze((0, 1)).shape == torch.Size([3, 1])
    assert x.squeeze(dim=0).shape == torch.Size([1, 3, 1])
    (y * 2).sum().backward()
    assert x.grad.shape == x.shape and x.grad.sum().item() == 6.0  # 2 for each of 3 elements
    z = torch.ones(1, 1, 3)
    z.squeeze_(0, 1)
    assert z.shape == torch.Size([3])
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        x.squeeze(0, 0)
