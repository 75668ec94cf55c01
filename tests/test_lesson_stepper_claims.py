"""What the lessons' prose says the stepper will show, checked against the stepper.

A lesson that says "in the final step, a's node receives two contributions" while the
stepper shows them at step 3 of 4 teaches the student to distrust one of the two. Each
test here quotes the lesson's sentence (so a rewrite of the prose shows up here) and
runs the lesson's graph through ``step_backward``; the numbers are derived by hand.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import teachgrad as torch

pytest.importorskip("graphviz")
from teachgrad.notebook import step_backward  # noqa: E402  (needs Graphviz)

SOURCES = Path(__file__).resolve().parent.parent / "notebooks" / "tools" / "src"


def lesson_text(prefix: str) -> str:
    """The lesson's source with its lines joined (sentences wrap across lines)."""
    (path,) = SOURCES.glob(f"{prefix}_*.md")
    return " ".join(path.read_text(encoding="utf-8").split())


def test_lesson_6_a_gets_1_then_5_and_runs_at_step_3_of_4():
    text = lesson_text("06")
    assert ("`a`'s node gets two contributions: $1$ from `AddBackward0` in step 1 (its box "
            "turns \"some contributions\"), and $5$ from `MulBackward0` in step 2. In step 3 "
            "it runs") in text
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(5.0, requires_grad=True)
    p = a * b
    L = p + a
    stepper = step_backward(L, names={"a": a, "b": b, "p": p, "L": L})
    titles = [panel.title for panel in stepper.panels]
    assert titles[1] == "Step 1 of 4: AddBackward0 (L)"
    assert titles[2] == "Step 2 of 4: MulBackward0 (p)"
    assert titles[3] == "Step 3 of 4: AccumulateGrad (a)"
    # ∂L/∂a through the sum (1) and through the product (b = 5): 1 + 5 = 6
    assert "1. + 5. = 6." in stepper.panels[3].text
    # after step 1 a gradient has reached a, but a's node is not ready yet
    assert "ready next: MulBackward0 (p)" in stepper.panels[1].text
    assert "AccumulateGrad (a)" not in stepper.panels[1].text.split("ready next:")[1]


def test_lesson_3_the_branches_carry_66_and_88_then_176():
    text = lesson_text("03")
    assert ("multiplied by $w_3 = 3$ then $w_1 = 1$ on one branch ($66$) and by $w_4 = 4$ "
            "then $w_2 = 2$ on the other ($88$, then $176$)") in text
    w1, w2, w3, w4 = (torch.tensor(v) for v in (1, 2, 3, 4))
    a = torch.ones(1, requires_grad=True)
    b = w1 * a
    c = w2 * a
    d = (w3 * b) + (w4 * c)
    L = d ** 2
    log = step_backward(L, names=locals()).log()
    # 2d = 22 at d = 11, then 22·3 = 66, 22·4 = 88, 88·2 = 176, 66·1 = 66; 66 + 176 = 242
    for sent in ("= [22.]", "= [66.]", "= [88.]", "= [176.]"):
        assert sent in log
    assert "[66.] + [176.] = [242.]" in log or "[176.] + [66.] = [242.]" in log


def test_lesson_5_the_local_derivatives_of_its_table_are_on_the_panels():
    text = lesson_text("05")
    assert "the local derivatives of the table, $3$, $-0.6282$ and $3$" in text
    x = torch.tensor(1.5, requires_grad=True)
    u = x ** 2
    v = torch.sin(u)
    L = v * 3
    log = step_backward(L, names={"x": x, "u": u, "v": v, "L": L}).log()
    # dL/dv = 3, dv/du = cos(2.25) = -0.6282, du/dx = 2·1.5 = 3
    assert "= b = 3.) = 3." in log
    assert "= cos a = -0.6282) = -1.8845" in log
    assert "= n·aⁿ⁻¹ = 3.) = -5.6536" in log


# sqrt(-1): NumPy's RuntimeWarning, which teachgrad filters at import and pytest re-enables
@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")
def test_lesson_16_where_sends_zeros_into_sqrt_whose_saved_result_holds_the_nan():
    text = lesson_text("16")
    assert ("`x`, the other branch, gets $[1, 1, 0]$, and `s` gets $[0, 0, 1]$: zero where "
            "`where` took the other branch.") in text
    assert "computed from its saved result, `[nan, 0., 2.]`" in text
    assert "**Step 4**: `x` gets both contributions added" in text
    x = torch.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    s = x.sqrt()
    y = torch.where(x > 0, s, x)
    L = y.sum()
    stepper = step_backward(L, names={"x": x, "s": s, "y": y, "L": L})
    titles = [panel.title for panel in stepper.panels]
    assert titles[2] == "Step 2 of 4: WhereBackward0 (y)"
    assert titles[3] == "Step 3 of 4: SqrtBackward0 (s)"
    assert titles[4] == "Step 4 of 4: AccumulateGrad (x)"
    # where passes the gradient 1 to the branch it took, 0 to the other: x > 0 only at 4
    assert "= [0., 0., 1.]" in stepper.panels[2].text
    assert "= [1., 1., 0.]" in stepper.panels[2].text
    # sqrt(-1) is nan and sqrt(0) = 0 (derivative 1/(2·0) = inf): 0·nan and 0·inf are nan;
    # at 4, 1/(2·2) = 0.25
    assert "result = [nan, 0., 2.]" in stepper.panels[3].text
    assert "= [   nan,    nan, 0.2500]" in stepper.panels[3].text
    assert "[1., 1., 0.] + [   nan,    nan, 0.2500]" in stepper.panels[4].text


def test_lesson_16_three_sigmoids_multiply_by_0_2236_0_2194_0_1966():
    text = lesson_text("16")
    assert ("here $0.2236$, then $0.2194$, then $0.1966$, and `x.grad` is $0.0096$ after only "
            "three layers") in text
    x = torch.tensor(1.0, requires_grad=True)
    h1 = torch.sigmoid(x)
    h2 = torch.sigmoid(h1)
    h3 = torch.sigmoid(h2)
    stepper = step_backward(h3, names={"x": x, "h1": h1, "h2": h2, "h3": h3})
    # σ'(a) = σ(a)(1 − σ(a)) at a = h2, h1, x (the order backward meets them), by hand
    def sigmoid(a):
        return 1 / (1 + math.exp(-a))

    a1 = sigmoid(1.0)
    a2 = sigmoid(a1)
    derivatives = [sigmoid(a) * (1 - sigmoid(a)) for a in (a2, a1, 1.0)]
    assert [f"{d:.4f}" for d in derivatives] == ["0.2236", "0.2194", "0.1966"]
    for step, d in enumerate(derivatives, start=1):
        assert f"σ(a)·(1 − σ(a)) = {d:.4f})" in stepper.panels[step].text
    assert f"{math.prod(derivatives):.4f}" == "0.0096"
    assert "x.grad: None → 0.0096" in stepper.panels[4].text
