"""The order in which ``saved_tensors_hooks``' pack hook sees an op's saved tensors.

PyTorch packs them in the order its derivative formula names them: gather and take save
``[index, self]``, masked_select ``[mask, self]``, nll_loss ``[self, target, weight (if
given), total_weight]``; cross_entropy is log_softmax (its result) then nll_loss. teachgrad
packed the input first and left out nll_loss's input and total weight. The expected
orders are written from PyTorch 2.13's output; the torch test runs the same programs.
"""

from __future__ import annotations

import pytest

import teachgrad

# (name, the op on x, the tensors packed: "x" for the input itself, else dtype and shape)
CASES = [
    ("gather", lambda t, x: x.gather(1, t.tensor([[0, 2], [1, 0]])),
     ["int64[2, 2]", "x"]),
    ("take", lambda t, x: x.take(t.tensor([0, 5, 3])), ["int64[3]", "x"]),
    ("take_along_dim", lambda t, x: t.take_along_dim(x, t.tensor([[0, 2], [1, 0]]), 1),
     ["int64[2, 2]", "x"]),
    ("masked_select", lambda t, x: x.masked_select(x > 0), ["bool[2, 3]", "x"]),
    ("masked_select_broadcast", lambda t, x: x.masked_select(t.tensor([True, False, True])),
     ["bool[3]", "x"]),
    ("nll_loss", lambda t, x: t.nn.functional.nll_loss(x, t.tensor([0, 2])),
     ["x", "int64[2]", "float32[]"]),
    ("nll_loss_weight", lambda t, x: t.nn.functional.nll_loss(
        x, t.tensor([0, 2]), weight=t.tensor([1.0, 2.0, 3.0])),
     ["x", "int64[2]", "float32[3]", "float32[]"]),
    ("nll_loss_none", lambda t, x: t.nn.functional.nll_loss(x, t.tensor([0, 2]),
                                                            reduction="none"),
     ["x", "int64[2]", "float32[]"]),
    ("nll_loss_one_sample", lambda t, x: t.nn.functional.nll_loss(x[0], t.tensor(1)),
     ["float32[3]", "int64[]", "float32[]"]),
    ("cross_entropy", lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([0, 2])),
     ["float32[2, 3]", "float32[2, 3]", "int64[2]", "float32[]"]),
]


def _packed(lib, op):
    x = lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], requires_grad=True)
    seen = []

    def pack(t):
        if t.shape == x.shape and t.dtype == x.dtype and t.equal(x.detach()):
            seen.append("x")
        else:
            seen.append(f"{str(t.dtype).split('.')[-1]}{list(t.shape)}")
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = op(lib, x)
    out.sum().backward()
    return seen, x.grad.tolist()


@pytest.mark.parametrize(("name", "op", "order"), CASES, ids=[c[0] for c in CASES])
def test_pack_hook_sees_pytorchs_order(name, op, order):
    assert _packed(teachgrad, op)[0] == order


@pytest.mark.parametrize(("name", "op", "order"), CASES, ids=[c[0] for c in CASES])
def test_pytorch_packs_in_that_order(name, op, order):
    torch = pytest.importorskip("torch")
    theirs, their_grad = _packed(torch, op)
    assert theirs == order
    ours = _packed(teachgrad, op)[1]
    for our_row, their_row in zip(ours, their_grad):
        assert our_row == pytest.approx(their_row, abs=1e-6)


def test_gradients_with_the_hooks_are_right():
    """By hand: gather picks x[0,0], x[0,2], x[1,1], x[1,0] once each; nll_loss (mean of
    two) puts -1/2 at each target."""
    assert _packed(teachgrad, CASES[0][1])[1] == [[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    assert _packed(teachgrad, CASES[5][1])[1] == [[-0.5, 0.0, 0.0], [0.0, 0.0, -0.5]]


def test_saved_values_read_the_same_with_and_without_hooks():
    x = teachgrad.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], requires_grad=True)
    weight = teachgrad.tensor([1.0, 2.0, 3.0])
    plain = teachgrad.nn.functional.nll_loss(x, teachgrad.tensor([0, 2]), weight=weight)
    with teachgrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        hooked = teachgrad.nn.functional.nll_loss(x, teachgrad.tensor([0, 2]), weight=weight)
        picked = x.gather(1, teachgrad.tensor([[1], [0]]))
    for node in (plain.grad_fn, hooked.grad_fn):
        assert node._saved_target.tolist() == [0, 2]
        assert node._saved_weight.tolist() == [1.0, 2.0, 3.0]
    assert hooked.grad_fn._saved_self.shape == (2, 3)
    assert hooked.grad_fn._saved_total_weight.item() == 4.0  # weight[0] + weight[2]
    assert picked.grad_fn._saved_index.tolist() == [[1], [0]]
    assert picked.grad_fn._saved_self.shape == (2, 3)
