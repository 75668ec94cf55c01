"""In-place changes, with grad mode on, of views made under ``no_grad``.

PyTorch 2.13 marks such a view (CreationMeta::NO_GRAD_MODE) and refuses to record an
in-place change of it: should the change be part of the graph or not? The messages quoted
here were printed by PyTorch 2.13; the torch-marked test at the end runs the same programs
with PyTorch itself.
"""

from __future__ import annotations

import re

import pytest
from program_outcome import view_program_outcome

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
