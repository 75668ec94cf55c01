"""Inference tensors: what ``inference_mode()`` makes, and what PyTorch forbids them later.

The messages quoted here were printed by PyTorch 2.13; the torch-marked test at the end
runs the same programs with PyTorch itself (see teachgrad/autograd/inference.py).
"""

from __future__ import annotations

import re

import pytest
from program_outcome import state_outcome

import teachgrad as torch

CANNOT_SAVE = "^" + re.escape(
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
    "of `torch.inference_mode()`.\nHint:")
INPLACE = "^" + re.escape(
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.\nHint:")
NO_VERSION = "^Inference tensors do not track version counter.$"
VIEW_TAIL = (" Given that this use case is ambiguous and error-prone, it is forbidden. You can "
             "clarify your code by moving both the view and the inplace either both inside the "
             "inference_mode block (if you don't want the inplace to be tracked) or both "
             "outside (if you want the inplace to be tracked).")


def made_inside():
    """``(x, a)``: x = [1, 2, 3] requires grad (made outside); a = x * 2 made inside."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.inference_mode():
        a = x * 2
    return x, a


@pytest.mark.parametrize("make", [
    lambda x: torch.ones(2), lambda x: torch.tensor([1.0]), lambda x: torch.arange(3),
    lambda x: torch.zeros_like(x), lambda x: x * 2, lambda x: x.clone(), lambda x: x.exp(),
    lambda x: x.sum(), lambda x: x.split(1)[0] * 1, lambda x: x.max(0).values,
    lambda x: torch.Tensor(2), lambda x: x.double(), lambda x: x.unsqueeze(0).repeat(2, 1),
])
def test_what_an_op_or_factory_makes_inside_is_an_inference_tensor(make):
    x = torch.ones(3, requires_grad=True)
    with torch.inference_mode():
        t = make(x)
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
    assert t.is_inference() and torch.is_inference(t)
    assert not t.requires_grad and t.grad_fn is None  # nothing was recorded
    assert not x.is_inference() and not torch.ones(1).is_inference()


def test_views_take_their_base_s_kind():
    x, a = made_inside()
    with torch.inference_mode():
        of_ordinary, of_inference = x[:2], a[:2]
        same = x.float()  # (returns x itself)
    assert not of_ordinary.is_inference() and of_inference.is_inference() and same is x
    assert of_ordinary.requires_grad and of_ordinary.grad_fn is None  # as a no_grad view
    assert a[1:].is_inference() and a.detach().is_inference() and a.data.is_inference()
    assert not a.clone().is_inference() and not (a * 1).is_inference()


def test_it_keeps_no_version_counter():
    x, a = made_inside()
    with pytest.raises(RuntimeError, match=NO_VERSION):
        a._version  # noqa: B018 - reading it raises
    with torch.inference_mode():
        a.add_(1)  # allowed inside; still no version to show
        x.add_(1)  # an ordinary tensor changed inside: counted
        with pytest.raises(RuntimeError, match=NO_VERSION):
            a._version  # noqa: B018
    assert x._version == 1 and a.tolist() == [3.0, 5.0, 7.0]


def test_outside_it_can_be_read_but_not_saved_for_backward():
    x, a = made_inside()
    y = a * 3 + x  # reading it, and an add, which saves nothing
    assert not (a * 3).is_inference() and y.grad_fn.name() == "AddBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    for save in (lambda: a * x, lambda: x * a, lambda: torch.mm(x.view(1, 3), a.view(3, 1)),
                 lambda: (x * 1).mul_(a)):
        with pytest.raises(RuntimeError, match=CANNOT_SAVE):
            save()
    with torch.no_grad():
        assert (a * x).tolist() == [2.0, 8.0, 18.0]  # nothing is saved under no_grad


def test_a_custom_function_cannot_save_it_either():
    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, p, q):
            ctx.save_for_backward(p, q)
            return p * q

        @staticmethod
        def backward(ctx, g):
            p, q = ctx.saved_tensors
            return g * q, g * p

    x, a = made_inside()
    with pytest.raises(RuntimeError, match=CANNOT_SAVE):
        Mul.apply(x, a)


@pytest.mark.parametrize("change", [
    lambda a: a.add_(1), lambda a: a.zero_(), lambda a: a.copy_(torch.ones(3)),
    lambda a: a.__setitem__(0, 5.0), lambda a: a[1:].mul_(2), lambda a: a.uniform_(),
    lambda a: a.unsqueeze_(0), lambda a: a.logical_and_(a), lambda a: a.resize_(4),
    lambda a: torch.add(torch.ones(3), 1, out=a), lambda a: torch.nn.init.zeros_(a),
    lambda a: a.masked_fill_(a > 2, 0.0),
])
@pytest.mark.parametrize("grad_mode", [True, False])
def test_outside_it_cannot_be_changed_in_place_even_under_no_grad(change, grad_mode):
    _, a = made_inside()
    with torch.set_grad_enabled(grad_mode), pytest.raises(RuntimeError, match=INPLACE):
        change(a)
    assert a.tolist() == [2.0, 4.0, 6.0]  # nothing was changed
    assert a.resize_(3) is a  # a resize that changes nothing is allowed


def test_requires_grad_only_inside():
    _, a = made_inside()
    message = "^Setting requires_grad=True on inference tensor outside InferenceMode is not"
    for ask in (lambda: a.requires_grad_(), lambda: setattr(a, "requires_grad", True),
                lambda: torch.nn.Parameter(a)):
        with pytest.raises(RuntimeError, match=message):
            ask()
    a.requires_grad_(False)
    assert not torch.nn.Parameter(a, requires_grad=False).is_inference()  # as PyTorch
    with torch.inference_mode():
        b = torch.ones(2).requires_grad_()
    assert b.is_inference() and b.requires_grad and b.is_leaf


def test_a_model_built_inside_cannot_be_trained_outside():
    with torch.inference_mode():
        model = torch.nn.Linear(2, 1)
    assert model.weight.is_inference() and model.weight.requires_grad
    for p in model.parameters():
        p.grad = torch.ones_like(p)
    with pytest.raises(RuntimeError, match=INPLACE):
        torch.optim.SGD(model.parameters(), lr=0.1).step()


def test_a_gradient_is_not_accumulated_into_an_inference_grad():
    p = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        p.grad = torch.ones(2)
    with pytest.raises(RuntimeError, match=INPLACE):
        (p * 2).sum().backward()


def test_inference_mode_false_switches_it_off_with_grad_mode_on():
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode(), torch.no_grad(), torch.inference_mode(False):
        assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
        y = x * 2
        t = torch.ones(2)
    assert y.grad_fn.name() == "MulBackward0" and not y.is_inference()
    assert not t.is_inference()


def test_enable_grad_inside_says_grad_is_on_but_records_nothing():
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        with torch.enable_grad():
            assert torch.is_grad_enabled()
            y = x * 2
        assert not torch.is_grad_enabled()
    assert y.is_inference() and not y.requires_grad
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()


def test_decorators():
    @torch.inference_mode
    def bare():
        return torch.ones(1)

    @torch.inference_mode(mode=False)
    def off():
        return torch.ones(1), torch.is_grad_enabled()

    assert bare().is_inference()
    with torch.inference_mode():
        made, grad_on = off()
    assert not made.is_inference() and grad_on


def test_a_view_of_an_ordinary_tensor_made_inside_is_refused_in_place_outside():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    with torch.inference_mode():
        v = y[:2]
    with pytest.raises(RuntimeError, match="^" + re.escape(
            "A view was created in inference mode and is being modified inplace in normal "
            "mode." + VIEW_TAIL)):
        v.add_(1)
    with pytest.raises(RuntimeError, match="^" + re.escape(
            "Output 0 of Slice is a view of a view which was created in inference mode and is "
            "being modified inplace in normal mode.")):
        v[1:].add_(1)
    y.mul_(2)  # its base changes: using it now is refused
    with pytest.raises(RuntimeError, match="^" + re.escape(
            "A view was created in inference mode and its base or another view of its base "
            "has been modified inplace in normal mode.")):
        v * 2


PROGRAMS = [
    # (program, expression whose value both libraries must agree on); x is a 4x3 leaf
    ("with torch.inference_mode():\n    a = x * 2", "(a.is_inference(), a.requires_grad)"),
    ("with torch.inference_mode():\n    a = torch.ones(2)\n    b = a[:1]", "b.is_inference()"),
    ("with torch.inference_mode():\n    v = x[1]", "(v.is_inference(), v.requires_grad)"),
    ("with torch.inference_mode():\n    a = x.detach()", "a.is_inference()"),
    ("with torch.inference_mode():\n    a = torch.ones(2)", "a._version"),
    ("with torch.inference_mode():\n    a = torch.ones(3)\n(a + x[0]).sum().backward()",
     "x.grad.tolist()"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "x[0] * a"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "x[0] * (a + 1)"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "torch.where(a > 0, x[0], a)"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "a.add_(1)"),
    ("with torch.inference_mode():\n    a = torch.ones(3)\nwith torch.no_grad():\n"
     "    a.add_(1)", "None"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "a.copy_(x[0])"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "a.t_()"),
    ("with torch.inference_mode():\n    a = torch.ones(3)\nwith torch.no_grad():\n"
     "    b = a[:1]", "(b.is_inference(), b.add_(1))"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "a.requires_grad_()"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "a.requires_grad_(False)"),
    ("with torch.inference_mode():\n    a = torch.ones(3)\n    a.requires_grad_()",
     "(a.requires_grad, a.is_leaf)"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "(a.clone().is_inference(), "
     "torch.ones_like(a).is_inference(), a.double().is_inference(), a.float() is a)"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "a.data.is_inference()"),
    ("import copy\nwith torch.inference_mode():\n    a = torch.ones(3)",
     "copy.deepcopy(a).is_inference()"),
    ("with torch.inference_mode():\n    with torch.inference_mode(False):\n        a = x * 2",
     "(a.is_inference(), a.grad_fn.name())"),
    ("with torch.inference_mode():\n    with torch.enable_grad():\n        a = x * 2\n"
     "        g = torch.is_grad_enabled()", "(a.is_inference(), a.requires_grad, g)"),
    ("with torch.no_grad():\n    with torch.inference_mode(False):\n"
     "        g = torch.is_grad_enabled()", "g"),
    ("with torch.inference_mode():\n    with torch.no_grad():\n        a = torch.ones(1)",
     "a.is_inference()"),
    ("with torch.inference_mode():\n    with torch.set_grad_enabled(True):\n"
     "        g = torch.is_grad_enabled()\n    h = torch.is_grad_enabled()", "(g, h)"),
    ("b = x * 2\nwith torch.inference_mode():\n    v = b[1]", "v.add_(1)"),
    ("b = x * 2\nwith torch.inference_mode():\n    v = b[1]", "v[:1].add_(1)"),
    ("b = x * 2\nwith torch.inference_mode():\n    v = b[1]\nwith torch.no_grad():\n"
     "    w = v[:1]", "w.add_(1)"),
    ("b = x * 2\nwith torch.inference_mode():\n    v = b[1]\nb.add_(1)", "v * 2"),
    ("b = x * 2\nwith torch.inference_mode():\n    v = b[1]\n    v.add_(1)", "v.grad_fn"),
    ("b = x * 2\nwith torch.inference_mode():\n    v = b[1]\nwith torch.no_grad():\n"
     "    v.add_(1)", "v.sum()"),
    ("b = x * 2\nwith torch.no_grad():\n    v = b[1]\nwith torch.inference_mode():\n"
     "    w = v[:1]", "w.add_(1)"),
    ("b = x * 2\nwith torch.inference_mode():\n    with torch.no_grad():\n        v = b[1]",
     "v.add_(1)"),
    ("with torch.inference_mode():\n    v = x[1]", "(v * 2).grad_fn.next_functions[0][0]"),
    ("with torch.inference_mode():\n    v = x[1]", "v.backward(torch.ones(3))"),
    ("with torch.inference_mode():\n    m = torch.nn.Linear(3, 1)", "m.weight.is_inference()"),
    ("with torch.inference_mode():\n    a = torch.ones(3)\nn = torch.ones(3)\nn.add_(a)",
     "(n.is_inference(), n._version)"),
    ("with torch.inference_mode():\n    a = torch.ones(3)\na.data = torch.zeros(3)",
     "a.add_(1)"),
    ("with torch.inference_mode():\n    a = torch.ones(3)", "torch.nn.Parameter(a)"),
]


@pytest.mark.torch
@pytest.mark.parametrize("program, expression", PROGRAMS)
def test_same_outcome_as_pytorch(program, expression):
    real = pytest.importorskip("torch")
    assert state_outcome(torch, program, expression) == state_outcome(real, program,
                                                                       expression)
