"""Lesson 22 (build your own autograd engine) in JupyterLab: it runs, and it renders.

Run All with the teachgrad kernel (no cell fails: this lesson has no error on purpose),
then: our Value graph and teachgrad's are printed side by side, nine nodes each; the
fan-out test passes with ``+=`` and fails with ``=``; teachgrad's graph of
``L = tanh(x w + bias)² + exp(tanh(x w + bias))`` is drawn with its nine nodes; and, in the
light and the dark theme, the live stepper walks it in PyTorch's order, with the
TanhBackward0 panel adding y's 2 contributions (0.7473 + -0.5826 = 0.1647) before sending
0.1507 on, the MulBackward0 panel sending -0.1808 to x and 0.0753 to w, and the last step
storing w.grad, each with its box drawn as the one running.
"""

from __future__ import annotations

import pytest

from .lesson_run import (
    THEMES,
    drawn_graph,
    every_cell_runs_and_none_fails,
    in_theme,
    ran_lesson,
    walk,
)
from .stepper_dom import flat, live_stepper_at_start, visible_panel

pytestmark = pytest.mark.browser

#: the boxes the stepper highlights, step by step (PyTorch's order, as in the lesson;
#: tests/test_lesson_22_claims.py checks it against PyTorch's engine and the numbers below
#: against the chain rule in float64)
STEPS = ["AddBackward0", "ExpBackward0", "PowBackward0", "TanhBackward0", "AddBackward0",
         "AccumulateGrad", "MulBackward0", "AccumulateGrad", "AccumulateGrad"]

lesson = ran_lesson("22_build_your_own_autograd_engine.ipynb")
test_every_cell_runs_and_none_fails = every_cell_runs_and_none_fails


def test_the_two_graphs_side_by_side_and_the_fan_out_test(lesson):
    shown = lesson.cell(lesson.code_cell("def side_by_side(v, node, seen):")).inner_text()
    rows = [line for line in shown.splitlines() if "↔" in line and "print(" not in line]
    assert len(rows) == 9, rows
    assert "* -0.6000 ↔ MulBackward0" in flat(shown)
    assert flat(shown).count("↔ AccumulateGrad") == 3
    shown = flat(lesson.cell(lesson.code_cell("class Overwriting(Value):")).inner_text())
    assert "failed: a.grad is 3.0, not 6.0" in shown


def test_teachgrads_graph_is_drawn(lesson, screenshots):
    graph_cell, texts = drawn_graph(lesson, "draw(tL, names=")
    for node in ("AddBackward0", "ExpBackward0", "PowBackward0", "TanhBackward0",
                 "MulBackward0", "AccumulateGrad", "bias"):
        assert node in texts, texts
    screenshots.take(graph_cell, "lesson22-graph")


@THEMES
def test_the_stepper_adds_ys_two_contributions_before_tanh(lesson, screenshots, theme, light):
    with in_theme(lesson, theme, light) as name:
        cell, view = live_stepper_at_start(lesson, "step_backward(tL, names=", "L")
        for frame, _, panel in walk(view, STEPS):
            shown = flat(panel)
            if frame == 4:       # y: exp's and the power's contributions added, then tanh
                assert "2 contributions arrived" in shown
                assert ("0.7473 step 2, ExpBackward0 + -0.5826 step 3, PowBackward0 = 0.1647 "
                        "total") in shown
                assert "0.9151 local = 0.1507 to AddBackward0 (n)" in shown
                screenshots.take(view, f"lesson22-stepper-tanh-{name}")
            if frame == 7:       # the product: 0.1507 · w to x, 0.1507 · x to w
                assert "-0.1808" in shown and "0.0753" in shown
        assert "w.grad: None before → 0.0753 after" in flat(visible_panel(view))
        assert "backward() is finished" in visible_panel(view)
