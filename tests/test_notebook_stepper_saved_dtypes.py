"""A value an op saved is shown as it was saved: in its own dtype, as PyTorch keeps it.

``x * y`` with an int ``x`` and a float ``y`` computes with ``x`` promoted to float32,
and teachgrad's MulBackward0 keeps that float copy for its backward; PyTorch's
``grad_fn._saved_self`` (and teachgrad's) is ``x`` itself, ``tensor(4)``. The panel showed
the float copy, ``a (_saved_self) = 4.``, so what the learner read beside the graph
disagreed with what ``z.grad_fn._saved_self`` printed one cell later. Checked against
PyTorch, which is the spec for what a node saves.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.notebook import step_backward
from teachgrad.notebook.chain_rule import saved_with_labels, snapshot_saved

pytest.importorskip("graphviz")


def saved_values(out) -> dict:
    """``{label: value}`` of what the panel shows ``out.grad_fn`` saved."""
    node = out.grad_fn
    return dict(saved_with_labels(node, *snapshot_saved([node])[node]))


def test_an_int_input_is_shown_as_the_int_it_was_saved_as():
    x = torch.tensor(4)
    y = torch.tensor(2.0, requires_grad=True)
    z = x * y
    panel = step_backward(z, names={"x": x, "y": y, "z": z}).panels[1]
    assert "saved in forward: a (_saved_self) = 4\n" in panel.text + "\n", panel.text
    assert "a (_saved_self) = 4." not in panel.text
    real = pytest.importorskip("torch")
    rz = real.tensor(4) * real.tensor(2.0, requires_grad=True)
    assert repr(rz.grad_fn._saved_self) == "tensor(4)"      # what the panel must agree with
    # The chain rule still multiplies by the promoted 4.: the panel says where it is used.
    assert "1. × (∂(a·b)/∂b = a = 4.) = 4." in panel.text
    assert "`x` is saved as it is, int64; the chain rule uses it promoted to float32" \
        in panel.html.replace("<code>", "`").replace("</code>", "`"), panel.html


@pytest.mark.parametrize("make", [
    lambda t, x, y: t.tensor([1, 2, 3]) * x,                  # int tensor with float
    lambda t, x, y: x / t.tensor([1, 2, 4]),                  # true division by ints
    lambda t, x, y: t.tensor([True, False, True]) * x,        # bool with float
    lambda t, x, y: x.double() * y,                           # float32 promoted to float64
    lambda t, x, y: t.where(x > 1, x, t.tensor([5, 6, 7])),   # where with an int branch
], ids=["int*float", "float/int", "bool*float", "float64*float32", "where"])
def test_every_saved_input_has_pytorchs_dtype(make):
    real = pytest.importorskip("torch")
    ours = make(torch, torch.tensor([0.5, 1.5, 2.5], requires_grad=True),
                torch.tensor([1.0, 2.0, 3.0], requires_grad=True))
    theirs = make(real, real.tensor([0.5, 1.5, 2.5], requires_grad=True),
                  real.tensor([1.0, 2.0, 3.0], requires_grad=True))
    shown = saved_values(ours)
    assert shown, "nothing saved?"
    for label, value in shown.items():
        attribute = label.split("(")[-1].rstrip(")") if "(" in label else label
        expected = getattr(theirs.grad_fn, attribute)
        if expected is None:
            continue
        assert np.asarray(value).dtype == np.dtype(str(expected.dtype).split(".")[1]), label
        np.testing.assert_array_equal(np.asarray(value), expected.detach().numpy())


def test_an_input_changed_in_place_after_forward_is_shown_as_the_op_kept_it():
    # step_forward runs no backward: x may have changed since forward. The saved copy is
    # what forward used; the tensor now holds something else, and must not be shown.
    from teachgrad.notebook import step_forward

    x = torch.tensor([4, 5])
    y = torch.tensor([2.0, 3.0], requires_grad=True)
    z = x * y
    x += 1
    text = step_forward(z, names={"x": x, "y": y, "z": z}).log()
    assert "[5, 6]" not in text and "[6, 7]" not in text
    assert "[4., 5.]" in text, text


def test_draw_with_show_saved_lists_an_int_input_as_the_int_it_is():
    from teachgrad.notebook.graph import saved_lines

    x = torch.tensor([4, 5])
    y = torch.tensor([2.0, 3.0], requires_grad=True)
    z = x * y
    assert saved_lines(z.grad_fn) == ["saved [4, 5]"]   # _saved_self is tensor([4, 5])
    assert repr(z.grad_fn._saved_self) == "tensor([4, 5])"
