"""In-place changes of the views ``split``, ``chunk`` and ``unbind`` return.

Their pieces share one backward node, which PyTorch cannot rewrite when one piece changes
in place, so PyTorch 2.13 refuses (CreationMeta::MULTI_OUTPUT_NODE in its autograd). The
messages quoted here are PyTorch's, printed by PyTorch 2.13; the torch-marked test at the
end runs the same programs with PyTorch itself.
"""

from __future__ import annotations

import re

import pytest
from program_outcome import view_program_outcome

import teachgrad as torch

TAIL = (" This view is the output of a function that returns multiple views. Such functions "
        "do not allow the output views to be modified inplace. You should replace the "
        "inplace operation by an out-of-place one.")


def direct(piece: str) -> str:
    return "^" + re.escape(f"Output {piece} is a view and is being modified inplace." + TAIL)


def indirect(piece: str) -> str:
    return "^" + re.escape(f"Output {piece} is a view and its base or another view of its "
                           "base has been modified inplace." + TAIL)


def computed() -> torch.Tensor:
    return torch.arange(12.0).reshape(4, 3).requires_grad_() * 2


@pytest.mark.parametrize("change, piece", [
    (lambda y: y.split(2)[0].mul_(2), "0 of Split"),
    (lambda y: torch.split(y, 2)[1].add_(1), "1 of Split"),
    (lambda y: y.split(4)[0].add_(1), "0 of Split"),  # one piece only: refused all the same
    (lambda y: y.chunk(2)[1].zero_(), "1 of Split"),
    (lambda y: y.unbind()[2].add_(1), "2 of Unbind"),
    (lambda y: y.unbind(1)[1].fill_(0.0), "1 of Unbind"),
    (lambda y: y.split([1, 3])[1].sigmoid_(), "1 of SplitWithSizes"),
    (lambda y: y.split_with_sizes([1, 3])[1].copy_(torch.ones(3, 3)), "1 of SplitWithSizes"),
    (lambda y: y.split(2)[0].t_(), "0 of Split"),
    (lambda y: y.split(2)[0].__iadd__(1), "0 of Split"),
    (lambda y: y.split(2)[0].__setitem__(Ellipsis, 1.0), "0 of Split"),
])
def test_changing_a_piece_in_place_is_refused(change, piece):
    with pytest.raises(RuntimeError, match=direct(piece)):
        change(computed())


@pytest.mark.parametrize("view, node", [
    (lambda s: s[0], "Select"), (lambda s: s[:, 1:], "Slice"), (lambda s: s.t(), "T"),
    (lambda s: s.view(-1), "View"), (lambda s: s.reshape(3, 2), "View"),
    (lambda s: s.unsqueeze(0), "Unsqueeze"), (lambda s: s.transpose(0, 1), "Transpose"),
    (lambda s: s.unsqueeze(0).squeeze(0), "Squeeze1"), (lambda s: s.diagonal(), "Diagonal"),
    (lambda s: s.permute(1, 0), "Permute"), (lambda s: s[...], "Alias"),
])
def test_so_is_changing_a_view_of_a_piece(view, node):
    # PyTorch names the last view's node, without "Backward0" ("Squeeze1" for
    # SqueezeBackward1), and says output 0.
    with pytest.raises(RuntimeError, match=direct(f"0 of {node}")):
        view(computed().split(2)[0]).add_(1)
    with pytest.raises(RuntimeError, match=direct("0 of Select")):  # y[0][1] = v too
        computed().split(2)[0][0][1] = 5.0


def test_pieces_of_a_leaf_get_this_error_not_the_leaf_view_one():
    x = torch.ones(4, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=direct("0 of Split")):
        x.split(2)[0].mul_(2)


def test_iterating_gives_the_rows_of_unbind():
    # PyTorch iterates over unbind(0): the rows' node is UnbindBackward0, and a row cannot
    # be changed in place.
    y = computed()
    rows = list(y)
    assert {type(r.grad_fn).__name__ for r in rows} == {"UnbindBackward0"}
    assert [r.tolist() for r in rows] == y.tolist()
    with pytest.raises(RuntimeError, match=direct("1 of Unbind")):
        rows[1].mul_(2)
    # and the rows' gradients arrive at the right places
    x = torch.arange(6.0).reshape(3, 2).requires_grad_()
    first, _, last = x
    (first.sum() + 10 * last.sum()).backward()
    assert x.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [10.0, 10.0]]


def test_a_piece_of_a_constant_given_a_history_in_place_is_refused():
    # PyTorch: the piece has no history, so its message starts "A view was created in
    # no_grad mode" (its wording for a view without a grad_fn).
    w = torch.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^" + re.escape(
            "A view was created in no_grad mode and is being modified inplace with grad mode "
            "enabled." + TAIL)):
        torch.zeros(4, 3).split(2)[0].add_(w)


@pytest.mark.parametrize("change", [
    lambda y, pieces: y.add_(1),
    lambda y, pieces: y[:1].add_(1),  # another region of the base: still refused
    lambda y, pieces: pieces[0].detach().mul_(2),  # detach() shares the version counter
])
def test_a_piece_whose_base_changed_cannot_be_used(change):
    y = computed()
    pieces = y.split(2)
    change(y, pieces)
    with pytest.raises(RuntimeError, match=indirect("1 of Split")):
        pieces[1] * 2
    with pytest.raises(RuntimeError, match=indirect("1 of Split")):
        pieces[1].grad_fn  # noqa: B018 - reading it raises
    assert "grad_fn=<Invalid>" in repr(pieces[1])  # PyTorch's repr says so, not raises


def test_a_change_without_grad_mode_is_allowed_and_refused_later():
    y = computed()
    piece = y.split(2)[0]
    with torch.no_grad():
        piece.add_(1)  # allowed, as in PyTorch
    assert piece.tolist() == [[1.0, 3.0, 5.0], [7.0, 9.0, 11.0]]
    with pytest.raises(RuntimeError, match=indirect("0 of Split")):
        piece.sum()
    with torch.no_grad():
        assert (piece * 2).tolist()[0] == [2.0, 6.0, 10.0]  # using it without grad is fine


@pytest.mark.parametrize("change", [
    lambda: torch.arange(12.0).reshape(4, 3).split(2)[0].add_(1),  # needs no gradient
    lambda: torch.arange(6).split(2)[0].add_(1),  # integer pieces
    lambda: computed().split(2)[0].detach().add_(1),
    lambda: computed().split(2)[0].data.add_(1),
    lambda: computed().tensor_split(2)[1].add_(1),  # slices in PyTorch, not split
    lambda: computed().hsplit(3)[1].add_(1),
    lambda: torch.unsafe_split(computed(), 2)[0].add_(1),  # "unsafe": not views
    lambda: torch.unsafe_chunk(computed(), 2)[0].add_(1),
    lambda: computed().split(2)[0].logical_and_(torch.ones(2, 3)),  # not recorded
    lambda: computed().split(2)[0].clone().add_(1),
])
def test_what_pytorch_allows(change):
    change()


def test_a_sibling_changed_without_grad_mode_makes_the_others_unusable():
    # the pieces share the base's version counter: changing b marks a as changed too
    x = torch.arange(4.0).requires_grad_()
    a, b = (x * 1).split(2)
    with torch.no_grad():
        b.zero_()
    with pytest.raises(RuntimeError, match=indirect("0 of Split")):
        (a * 3).sum()
    c, d = (x * 1).split(2)  # untouched pieces differentiate as usual
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 0.0, 0.0]


def test_logical_ops_in_place_on_a_leaf_are_allowed():
    # PyTorch records nothing for logical_and_ & co., so it does not check the leaf either
    x = torch.tensor([1.0, 0.0, 2.0], requires_grad=True)
    x.logical_and_(torch.tensor([1.0, 1.0, 0.0]))
    assert x.tolist() == [1.0, 0.0, 0.0] and x.is_leaf


PROGRAMS = [
    "y = x * 2; y.split(2)[0].mul_(2)",
    "x.split(2)[1].add_(1)",
    "y = x * 2; y.chunk(2)[1][0].zero_()",
    "y = x * 2; y.unbind(1)[0].view(2, 2).add_(1)",
    "y = x * 2; y.split([1, 3])[1].unsqueeze(0).squeeze(0).add_(1)",
    "y = x * 2; [r.mul_(2) for r in y]",
    "torch.zeros(4, 3).split(2)[0].add_(x[:2])",
    "y = x * 2; s = y.split(2); y.add_(1); s[0] * 2",
    "y = x * 2; s = y.split(2); s[0].detach().add_(1); s[1].sum()",
    "y = x * 2; s = y.unbind(); s[3].tanh_()",
    "y = x * 2; s = y.split(2)[0]; s.data.add_(1); s.sum().backward()",
    "y = x * 2; s = y.tensor_split(2)[0]; s.add_(1); s.sum().backward()",
]


@pytest.mark.torch
@pytest.mark.parametrize("program", PROGRAMS)
def test_same_outcome_as_pytorch(program):
    real = pytest.importorskip("torch")
    assert view_program_outcome(torch, program) == view_program_outcome(real, program)
