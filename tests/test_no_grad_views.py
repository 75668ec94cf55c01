"""In-place changes, with grad mode on, of views made under ``no_grad``.

PyTorch 2.13 marks such a view (CreationMeta::NO_GRAD_MODE) and refuses to record an
in-place change of it: should the change be part of the graph or not? The messages quoted
here were printed by PyTorch 2.13; the torch-marked test at the end runs the same programs
with PyTorch itself.
"""

from __future__ import annotations

import re

import pytest
from program_outcome import state_outcome, view_program_outcome

import teachgrad as torch

TAIL = (" in no_grad mode and is being modified inplace with grad mode enabled. Given that "
        "this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
        "code by moving both the view and the inplace either both inside the no_grad block "
        "(if you don't want the inplace to be tracked) or both outside (if you want the "
        "inplace to be tracked).")
DIRECT = "^" + re.escape("A view was created" + TAIL)


def of_a_view(node: str) -> str:
    return "^" + re.escape(f"Output 0 of {node} is a view of a view which was created" + TAIL)


def computed() -> torch.Tensor:
    return torch.ones(4, 3, requires_grad=True) * 2


@pytest.mark.parametrize("view", [
    lambda b: b[:2], lambda b: b[1], lambda b: b.t(), lambda b: b.view(-1),
    lambda b: b.expand(2, 4, 3), lambda b: b.split(2)[0], lambda b: b.unbind()[1],
    lambda b: b.diagonal(),
])
@pytest.mark.parametrize("change", [
    lambda v: v.mul_(2), lambda v: v.add_(1), lambda v: v.zero_(),
    lambda v: v.copy_(torch.zeros(v.shape)), lambda v: v.__iadd__(torch.ones(v.shape)),
])
def test_a_view_made_under_no_grad_of_a_tensor_requiring_grad(view, change):
    base = computed()
    with torch.no_grad():
        v = view(base)
    with pytest.raises(RuntimeError, match=DIRECT):
        change(v)
    assert torch.equal(base, torch.full((4, 3), 2.0))  # nothing was changed


def test_the_view_of_a_leaf_gets_this_error_not_the_leaf_view_one():
    leaf = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        v = leaf[:2]
    with pytest.raises(RuntimeError, match=DIRECT):
        v.mul_(2)


def test_a_constant_base_is_refused_only_when_the_change_is_recorded():
    base = torch.ones(3)
    with torch.no_grad():
        v = base[:2]
    v.mul_(2)  # nothing requires grad: nothing to record, allowed
    assert base.tolist() == [2.0, 2.0, 1.0]
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=DIRECT):
        v.mul_(w)


@pytest.mark.parametrize("change, node", [
    (lambda v: v[:1].mul_(2), "Slice"),
    (lambda v: v.__setitem__(0, 5.0), "Select"),  # (y[0] = 5 writes through a select)
])
def test_a_view_of_such_a_view_made_in_grad_mode(change, node):
    base = computed()
    with torch.no_grad():
        v = base.view(-1)
    with pytest.raises(RuntimeError, match=of_a_view(node)):
        change(v)


def test_what_pytorch_allows():
    base = computed()
    with torch.no_grad():
        v = base[:2]
        v.mul_(3)  # the view and the change both under no_grad
    assert base[0].tolist() == [6.0, 6.0, 6.0]
    v.data.mul_(2)  # through .data: not recorded
    d = base.detach()  # (detach is not a view autograd follows)
    with torch.no_grad():
        d2 = base.detach()
    d.mul_(1)
    d2.mul_(1)
    u = base[2:]  # a view made in grad mode is recorded as usual
    u.mul_(2)
    assert u.grad_fn.name() == "AsStridedBackward0"


PROGRAMS = [
    "b = x * 2\nwith torch.no_grad():\n    v = b[:2]\nv.mul_(2)",
    "with torch.no_grad():\n    v = x[1]\nv.zero_()",
    "b = x * 2\nwith torch.no_grad():\n    v = b.view(-1)\nv[0] = 5.0",
    "b = x * 2\nwith torch.no_grad():\n    v = b.t()\nv.t()[0].add_(1)",
    "b = x.detach()\nwith torch.no_grad():\n    v = b[:2]\nv.mul_(2)",
    "b = x.detach()\nwith torch.no_grad():\n    v = b[:2]\nv.mul_(x[:2])",
    "b = x.detach()\nwith torch.no_grad():\n    v = b[:2]\nv[:1].mul_(x[:1])",
    "b = x * 2\nwith torch.no_grad():\n    v = b.chunk(2)[1]\nv.sigmoid_()",
    "b = x * 2\nwith torch.no_grad():\n    v = b[:2]\n    v.mul_(2)",
]


@pytest.mark.torch
@pytest.mark.parametrize("program", PROGRAMS)
def test_same_outcome_as_pytorch(program):
    real = pytest.importorskip("torch")
    assert view_program_outcome(torch, program) == view_program_outcome(real, program)


# ----------------------------------------------------------------------------------------
# Such a view of a tensor that requires grad: it requires grad, has no history, and no
# gradient flows through it (PyTorch 2.13: requires_grad is its base's, grad_fn None).
# ----------------------------------------------------------------------------------------
INDIRECT = "^" + re.escape(
    "A view was created in no_grad mode and its base or another view of its base has been "
    "modified inplace with grad mode enabled.")


def no_grad_view(of_a_leaf: bool = True):
    """``(x, base, v)``: x = [1, 2, 3] requires grad, base is x or x * 2, v = base[:2]."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = x if of_a_leaf else x * 2
    with torch.no_grad():
        v = base[:2]
    return x, base, v


@pytest.mark.parametrize("of_a_leaf", [True, False])
def test_it_requires_grad_as_its_base_but_is_a_leaf_without_history(of_a_leaf):
    x, base, v = no_grad_view(of_a_leaf)
    assert v.requires_grad and v.grad_fn is None and v.is_leaf
    assert v._base is base
    assert repr(v).endswith("requires_grad=True)")
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        v.numpy()


@pytest.mark.parametrize("of_a_leaf", [True, False])
def test_ops_on_it_are_recorded_but_no_gradient_reaches_the_base(of_a_leaf):
    x, base, v = no_grad_view(of_a_leaf)
    y = (v * x[:2]).sum()  # d/dx of v·x[:2], v held constant: v on x's first two elements
    assert y.requires_grad
    mul = y.grad_fn.next_functions[0][0]
    assert mul.next_functions[0] == (None, 0)  # v's edge: empty
    y.backward()
    assert x.grad.tolist() == (v.tolist() + [0.0])
    z = v * 3  # every input's edge empty: a node all the same, as in PyTorch
    assert z.requires_grad and z.grad_fn.next_functions == ((None, 0), (None, 0))
    z.sum().backward()  # runs, and reaches nothing
    assert x.grad.tolist() == v.tolist() + [0.0] and v.grad is None


def test_it_cannot_start_a_backward_nor_be_differentiated_against():
    x, _, v = no_grad_view()
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and "
                       "does not have a grad_fn\nHint: this tensor is a view made under"):
        v.backward(torch.ones(2))
    for inputs in (v, x):
        with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
            torch.autograd.grad((v * 2).sum(), inputs)
    assert torch.autograd.grad((v * 2).sum(), x, allow_unused=True) == (None,)
    (v * 2).sum().backward(inputs=[v])  # PyTorch lets this run: nothing arrives
    assert v.grad is None and x.grad is None


def test_requires_grad_false_changes_nothing_true_gives_it_a_gradient_of_its_own():
    x, _, v = no_grad_view()
    v.requires_grad_(False)
    assert v.requires_grad  # its base requires grad: so does it (PyTorch ignores False)
    v.requires_grad_(True)
    (v * torch.tensor([2.0, 5.0])).sum().backward()
    assert v.grad.tolist() == [2.0, 5.0] and x.grad is None  # d(2·v0 + 5·v1)/dv


def test_its_hooks_can_be_registered_and_never_run():
    _, _, v = no_grad_view()
    ran = []
    v.register_hook(ran.append)
    v.retain_grad()  # a leaf: nothing to do
    (v * 2).sum().backward()
    assert ran == []


@pytest.mark.parametrize("change", [
    lambda x, base, v: base.mul_(2),
    lambda x, base, v: v.mul_(2),
    lambda x, base, v: base[2:].zero_(),  # another view of the base
])
@pytest.mark.parametrize("of_a_leaf", [True, False])
def test_changed_in_place_under_no_grad_it_cannot_be_used_in_grad_mode(change, of_a_leaf):
    x, base, v = no_grad_view(of_a_leaf)
    with torch.no_grad():
        change(x, base, v)
    for use in (lambda: v.grad_fn, lambda: v.is_leaf, lambda: v * 2, lambda: v.view(2)):
        with pytest.raises(RuntimeError, match=INDIRECT):
            use()
    assert "grad_fn=<Invalid>" in repr(v)  # PyTorch's repr says so, not raises
    assert v.requires_grad
    with torch.no_grad():
        assert not (v * 2).requires_grad  # without grad mode it is an ordinary tensor


def test_a_view_of_it_made_in_grad_mode_has_an_empty_edge_and_goes_stale_too():
    _, base, v = no_grad_view(of_a_leaf=False)
    w = v.view(2)
    assert w.requires_grad and not w.is_leaf and w.grad_fn.name() == "ViewBackward0"
    assert w.grad_fn.next_functions == ((None, 0),)
    base.mul_(2)  # (base is not a leaf: allowed in grad mode)
    with pytest.raises(RuntimeError, match="^" + re.escape(
            "Output 0 of View is a view of a view which was created in no_grad mode and its "
            "base or another view of its base has been modified inplace")):
        w * 2


def test_a_view_in_another_dtype_is_not_differentiable():
    x = torch.ones(4, requires_grad=True)
    with torch.no_grad():
        as_ints = x.view(torch.int32)
    assert not as_ints.requires_grad


def test_views_cannot_be_detached_in_place():
    x = torch.ones(3, requires_grad=True)
    for v in (x[:2], torch.ones(3)[:2], no_grad_view()[2]):
        with pytest.raises(RuntimeError, match="^Can't detach views in-place. Use detach"):
            v.detach_()
    y = x * 2
    assert y.detach_() is y and not y.requires_grad and y.grad_fn is None


STATE_PROGRAMS = [
    # (program, expression whose value both libraries must agree on)
    ("with torch.no_grad():\n    v = x[1:]", "(v.requires_grad, v.grad_fn is None, v.is_leaf)"),
    ("b = x * 2\nwith torch.no_grad():\n    v = b.t()",
     "(v.requires_grad, v.grad_fn is None, v.is_leaf)"),
    ("with torch.no_grad():\n    v = x.split(2)[1]", "(v.requires_grad, v.is_leaf)"),
    ("with torch.no_grad():\n    v = x.unbind()[1]\n    w = v[0]", "(w.requires_grad, w.is_leaf)"),
    ("a = x[1:]\nwith torch.no_grad():\n    v = a[:2]", "(v.requires_grad, v._base is x)"),
    ("with torch.no_grad():\n    v = x.view(torch.int32)", "v.requires_grad"),
    # a view of a view of a constant, given requires_grad: its base needs no gradient
    ("b = torch.arange(3.0).view(3).requires_grad_()\nwith torch.no_grad():\n    v = b[1:]",
     "(v.requires_grad, b.is_leaf)"),
    ("with torch.no_grad():\n    v = x[1]\nz = v * x[1]",
     "(z.requires_grad, [e[0] is None for e in z.grad_fn.next_functions])"),
    ("with torch.no_grad():\n    v = x[1]\nz = v.clone()", "(z.grad_fn.name(), z.is_leaf)"),
    ("with torch.no_grad():\n    v = x[1]\nz = v.view(3)",
     "(z.grad_fn.name(), z.grad_fn.next_functions[0][0] is None)"),
    ("with torch.no_grad():\n    v = x[1]\n(v * x[1]).sum().backward()", "x.grad.tolist()"),
    ("with torch.no_grad():\n    v = x[1]\nv.requires_grad_(True)\n(v * 2).sum().backward()",
     "(v.grad.tolist(), x.grad)"),
    ("with torch.no_grad():\n    v = x[1]\nv.requires_grad = False", "v.requires_grad"),
    ("with torch.no_grad():\n    v = x[1]\nv.sum().backward()", "x.grad"),
    ("with torch.no_grad():\n    v = x[1]\nv.backward(torch.ones(3))", "None"),
    ("with torch.no_grad():\n    v = x[1]\ntorch.autograd.grad(v.sum(), v)", "None"),
    ("with torch.no_grad():\n    v = x[1]\n    x.mul_(2)", "v * 2"),
    ("with torch.no_grad():\n    v = x[1]\n    v.mul_(2)", "v.is_leaf"),
    ("with torch.no_grad():\n    v = x[1]\n    x.mul_(2)", "'Invalid' in repr(v)"),
    ("b = x * 2\nwith torch.no_grad():\n    v = b[1]\nw = v[1:]\nb.add_(1)", "w.grad_fn"),
    ("b = x * 2\nwith torch.no_grad():\n    v = b[1]\nw = v.unsqueeze(0)\nb.add_(1)", "w * 2"),
    ("b = x * 2\nwith torch.no_grad():\n    v = b[1]\nb.add_(1)", "v.requires_grad"),
    ("with torch.no_grad():\n    v = x[1]\nw = v.split(1)[0]", "w.add_(1)"),
    ("with torch.no_grad():\n    v = x[1]\nv.t_()", "None"),
    ("with torch.no_grad():\n    v = x[1]\nv.unsqueeze_(0)", "None"),
    ("with torch.no_grad():\n    v = x[1]\ntorch.add(torch.ones(3), 1, out=v)", "None"),
    ("with torch.no_grad():\n    v = x[1]\nv.detach_()", "None"),
    ("with torch.no_grad():\n    v = x[1]\nd = v.detach()", "(d.requires_grad, d._base is x)"),
    ("import copy\nwith torch.no_grad():\n    v = x[1]\nc = copy.deepcopy(v)",
     "(c.requires_grad, c.is_leaf)"),
    ("with torch.no_grad():\n    v = x[1]\nv.register_hook(print)\nv.retain_grad()",
     "v.retains_grad"),
    ("with torch.no_grad():\n    v = x[1]\nwith torch.enable_grad():\n    w = v * 2",
     "w.requires_grad"),
    ("with torch.no_grad():\n    v = x[1]\n    with torch.enable_grad():\n        w = x[1]",
     "(w.grad_fn.name(), w.is_leaf)"),
    ("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n"
     "        return a * 2\n    @staticmethod\n    def backward(ctx, g):\n        return g\n"
     "with torch.no_grad():\n    v = x[1]\ny = F.apply(v)",
     "(y.requires_grad, y.grad_fn.next_functions[0][0] is None)"),
]


@pytest.mark.torch
@pytest.mark.parametrize("program, expression", STATE_PROGRAMS)
def test_same_state_as_pytorch(program, expression):
    real = pytest.importorskip("torch")
    assert state_outcome(torch, program, expression) == state_outcome(real, program,
                                                                       expression)
