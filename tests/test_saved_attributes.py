"""``grad_fn._saved_self`` / ``_saved_other`` / ``_saved_result``: what a node keeps.

PyTorch's autograd notes ("Saved tensors") suggest looking at these attributes to see what
an operation saved for its backward. Expectations follow the notes (and PyTorch itself when
it is installed).
"""

from __future__ import annotations

import pytest

import teachgrad as torch


def test_the_autograd_notes_examples():
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    assert x.equal(y.grad_fn._saved_self) and x is y.grad_fn._saved_self
    y = x.exp()
    saved = y.grad_fn._saved_result
    assert y.equal(saved) and y is not saved  # the output, rebuilt: same values and node
    assert saved.grad_fn is y.grad_fn


def test_a_value_no_gradient_needs_is_not_saved():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    y = a * b  # a's gradient needs b; nothing needs a (b does not require grad)
    assert y.grad_fn._saved_self is None and y.grad_fn._saved_other is b
    q = a / b
    assert q.grad_fn._saved_self is None and q.grad_fn._saved_other is b


def test_saved_values_are_gone_after_backward_and_unknown_names_are_attribute_errors():
    y = torch.tensor([1.0, 2.0], requires_grad=True).sigmoid()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        _ = y.grad_fn._saved_result
    with pytest.raises(AttributeError, match="'SigmoidBackward0' object has no attribute "
                                             "'_saved_self'"):
        _ = y.grad_fn._saved_self
    assert not hasattr(y.grad_fn, "_saved_other")


@pytest.mark.torch
@pytest.mark.parametrize("expression, attribute", [
    ("x * w", "_saved_self"), ("x * w", "_saved_other"), ("x / w", "_saved_other"),
    ("x ** 2", "_saved_self"), ("x.exp()", "_saved_result"), ("x.log()", "_saved_self"),
    ("x.sqrt()", "_saved_result"), ("x.sin()", "_saved_self"), ("x.cos()", "_saved_self"),
    ("x.tanh()", "_saved_result"), ("x.sigmoid()", "_saved_result"),
    ("x.relu()", "_saved_result"),
])
def test_saved_attributes_match_pytorch(expression, attribute):
    real = pytest.importorskip("torch")

    def saved(lib):
        x = lib.tensor([0.5, 1.5, 2.0], requires_grad=True)
        w = lib.tensor([2.0, -1.0, 0.25], requires_grad=True)
        out = eval(expression, {"x": x, "w": w})
        value = getattr(out.grad_fn, attribute)
        same = "x" if value is x else "w" if value is w else "output" if (
            value.grad_fn is out.grad_fn) else "other"
        return type(out.grad_fn).__name__, [round(v, 5) for v in value.tolist()], same

    assert saved(torch) == saved(real)
