"""teachgrad.notebook.evaluation_trace: forward mode's table of values and tangents."""

from __future__ import annotations

import math

import pytest

import teachgrad as torch
from teachgrad.autograd import forward_ad
from teachgrad.notebook import evaluation_trace


def f(x1, x2):
    """Baydin et al.'s example (Automatic differentiation in machine learning, Table 2)."""
    return torch.log(x1) + x1 * x2 - torch.sin(x2)


def baydin_trace():
    primals = (torch.tensor(2.0, dtype=torch.float64), torch.tensor(5.0, dtype=torch.float64))
    tangents = (torch.tensor(1.0, dtype=torch.float64), torch.tensor(0.0, dtype=torch.float64))
    return evaluation_trace(f, primals, tangents)


def test_rows_follow_the_program_with_values_and_tangents():
    rows = baydin_trace().rows
    assert [r.name for r in rows] == ["x1", "x2", "v1", "v2", "v3", "v4", "v5"]
    assert [r.expression for r in rows] == [
        "input", "input", "log(x1)", "mul(x1, x2)", "add(v1, v2)", "sin(x2)", "sub(v3, v4)",
    ]
    value = {r.name: float(r.value) for r in rows}
    tangent = {r.name: float(r.tangent) for r in rows}
    # By hand: v1 = ln 2, v̇1 = 1/2; v2 = 10, v̇2 = ẋ1·x2 + x1·ẋ2 = 5; v4 = sin 5, v̇4 = 0.
    assert value["v1"] == pytest.approx(math.log(2), abs=1e-4)
    assert tangent["v1"] == pytest.approx(0.5)
    assert tangent["v2"] == pytest.approx(5.0)
    assert tangent["v4"] == 0.0
    # The result: f = ln 2 + 10 − sin 5, ∂f/∂x1 = 1/x1 + x2 = 5.5.
    assert value["v5"] == pytest.approx(math.log(2) + 10 - math.sin(5), abs=1e-4)
    assert tangent["v5"] == pytest.approx(5.5)
    assert rows[3].derivatives == "∂(a·b)/∂a = b    ∂(a·b)/∂b = a"


def test_text_and_html_tables():
    trace = baydin_trace()
    lines = repr(trace).splitlines()
    assert lines[0].split() == ["computed", "as", "value", "tangent", "local", "derivatives"]
    assert lines[-1].split()[:2] == ["v5", "sub(v3,"]
    html = trace._repr_html_()
    assert '<table class="tg-table tg-trace"' in html
    assert "∂(a−b)/∂a = 1" in html and html.count("<tr>") == 1 + 7


def test_constants_show_their_values_and_names_can_be_given():
    trace = evaluation_trace(lambda t: t * 3.0 + torch.tensor([1.0, 2.0]),
                             (torch.tensor([1.0, 1.0]),), (torch.tensor([1.0, 0.0]),),
                             names=["u"])
    assert [r.expression for r in trace.rows] == ["input", "mul(u, 3.0)", "add(v1, [1., 2.])"]
    assert trace.rows[-1].tangent == "[3., 0.]"
    assert "<b>" not in evaluation_trace(lambda t: t, (torch.tensor(1.0),),
                                         (torch.tensor(1.0),), names=["<b>"])._repr_html_()


def test_nothing_is_left_behind_and_bad_calls_are_refused():
    x = torch.tensor(2.0)
    evaluation_trace(lambda t: t * t, (x,), (torch.tensor(1.0),))
    assert forward_ad.unpack_dual(x).tangent is None
    with forward_ad.dual_level():  # a later level starts clean
        assert forward_ad.unpack_dual(x).tangent is None
    with pytest.raises(ValueError, match="one tangent and one name per primal"):
        evaluation_trace(lambda a, b: a * b, (x, x), (x,))
