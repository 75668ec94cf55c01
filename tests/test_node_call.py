"""Applying a graph node by hand, ``grad_fn(grad)``, and ``increment_version``: as PyTorch
lets a learner poke at the graph. Values are hand-derived; the printed results are
compared with PyTorch where it is installed."""

from __future__ import annotations

import pytest

import teachgrad as torch


def test_a_node_runs_its_formula_on_tensors():
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = torch.tensor([6.0, 4.0], requires_grad=True)
    grad_a, grad_b = (a * b).grad_fn(torch.ones(2))  # ∂(ab)/∂a = b, ∂(ab)/∂b = a
    assert grad_a.tolist() == [6.0, 4.0] and grad_b.tolist() == [2.0, 3.0]
    # saved tensors that require grad make the results part of a graph, as under
    # create_graph: the formula itself was recorded
    assert grad_a.grad_fn is not None and grad_a.grad_fn.name() == "MulBackward0"


def test_no_gradient_where_none_is_needed_and_one_result_comes_back_bare():
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    grad_a, grad_other = (a * torch.ones(2)).grad_fn(torch.ones(2))
    assert grad_a.tolist() == [1.0, 1.0] and grad_other is None
    summed = torch.ones(2, 2, requires_grad=True).sum()
    result = summed.grad_fn(torch.tensor(3.0))
    assert isinstance(result, torch.Tensor) and result.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_a_broadcast_gradient_is_not_reduced_by_the_node():
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = torch.ones(3, 1, requires_grad=True)
    grads = (a * b).grad_fn(torch.ones(3, 2))
    assert [tuple(g.shape) for g in grads] == [(3, 2), (3, 2)]  # the engine sums them


def test_under_no_grad_nothing_is_recorded():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    e = a.exp()
    with torch.no_grad():
        (g,) = (e.grad_fn(torch.ones(2)),)
    assert not g.requires_grad
    assert g.allclose(a.detach().exp())  # d eᵃ/da = eᵃ


def test_an_accumulate_grad_node_accumulates():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    node = (x * 1).grad_fn.next_functions[0][0]
    assert node(torch.ones(2)) == ()
    assert node(torch.ones(2)) == ()
    assert x.grad.tolist() == [2.0, 2.0]


def test_wrong_arguments_get_pytorchs_errors():
    node = (torch.ones(2, requires_grad=True) * 2).grad_fn
    with pytest.raises(TypeError, match="^expected 1 arguments, got 0 instead$"):
        node()
    with pytest.raises(TypeError, match="^argument 0 is not a Variable$"):
        node(1.0)


def test_after_backward_freed_the_graph_it_is_the_backward_twice_error():
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    q = a * a
    q.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        q.grad_fn(torch.ones(2))


def test_increment_version_counts_a_change_autograd_did_not_see():
    a = torch.ones(2, requires_grad=True)
    b = a * 1
    c = b * b  # saves b
    b.detach().numpy()[0] = 5.0  # the memory changed behind autograd's back
    torch.autograd.graph.increment_version([b])
    assert b._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()
    with torch.inference_mode():
        frozen = torch.ones(1)
    torch.autograd.graph.increment_version(frozen)  # no counter: nothing to do


def test_same_as_pytorch():
    real = pytest.importorskip("torch")

    def program(lib):
        a = lib.tensor([2.0, 3.0], requires_grad=True)
        b = lib.tensor([[1.0], [2.0], [4.0]], requires_grad=True)
        out = []
        for y in (a * b, a / b, a ** 3, (a * b).sum(1), a.exp(), a.sin() - b, a.unsqueeze(0)):
            grads = y.grad_fn(lib.ones(y.shape))
            grads = grads if isinstance(grads, tuple) else (grads,)
            # (rounded: NumPy's exp and PyTorch's differ in the last bit of float32)
            out.append([None if g is None else (g.detach().round(decimals=4).tolist(),
                                                g.grad_fn is not None) for g in grads])
        return out

    assert program(torch) == program(real)


# --- the sequence number and input metadata, read as PyTorch reads them --------------------
def _order_of_two_branches(lib, renumber_first: bool) -> list[str]:
    """Which of two independent branches backward runs first (node hooks log it)."""
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    first, second = a * 2, a.exp()  # made in this order: MulBackward0, then ExpBackward0
    if renumber_first:  # give the older node the newest number: it now runs first
        first.grad_fn._set_sequence_nr(second.grad_fn._sequence_nr() + 10)
    ran: list[str] = []
    for t in (first, second):
        t.grad_fn.register_prehook(lambda grads, node=t.grad_fn: ran.append(node.name()))
    (first + second).sum().backward()
    return ran


@pytest.mark.parametrize("renumber_first", [False, True])
def test_the_engine_runs_the_newest_node_first_by_its_sequence_number(renumber_first):
    expected = (["MulBackward0", "ExpBackward0"] if renumber_first
                else ["ExpBackward0", "MulBackward0"])
    assert _order_of_two_branches(torch, renumber_first) == expected
    real = pytest.importorskip("torch")
    assert _order_of_two_branches(real, renumber_first) == expected


def test_sequence_numbers_count_up_and_a_leafs_node_has_the_largest():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = b.exp()
    numbers = [b.grad_fn._sequence_nr(), c.grad_fn._sequence_nr()]
    assert all(type(n) is int for n in numbers) and numbers[0] < numbers[1]
    accumulate = b.grad_fn.next_functions[0][0]
    assert accumulate._sequence_nr() == 2**64 - 1  # PyTorch's UINT64_MAX


def test_input_metadata_describes_each_gradient_the_node_receives():
    a = torch.ones(3, 3, dtype=torch.float64, requires_grad=True)
    first, _ = a.split([1, 2])
    (meta,) = a.sum(0).grad_fn._input_metadata
    assert (meta.shape, meta.dtype, meta.device) == ([3], torch.float64, "cpu")
    assert [m.shape for m in first.grad_fn._input_metadata] == [[1, 3], [2, 3]]
    real = pytest.importorskip("torch")
    r = real.ones(3, 3, dtype=real.float64, requires_grad=True)
    (real_meta,) = r.sum(0).grad_fn._input_metadata
    assert (list(real_meta.shape), str(real_meta.dtype)) == ([3], "torch.float64")
    assert [list(m.shape) for m in r.split([1, 2])[0].grad_fn._input_metadata] == [[1, 3], [2, 3]]
