"""Lesson 23 (where the derivative does not exist) in JupyterLab: it runs, and it renders.

Run All with the teachgrad kernel (no cell fails: this lesson has no error on purpose),
then: the three ways of writing ReLU print their gradients at 0 (0, 1 and 0.5) and the
inspector shows the three leaves side by side with those gradients; the straight-through
estimator's graph is drawn without a RoundBackward0 box; and, in the light and the dark
theme, the live stepper of ``L = x.max() * 2`` with a tie walks its three nodes, with the
MaxBackward1 panel receiving 2 and sending [0., 1., 1., 0.] to x, each step with its box
drawn as the one running.
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

#: the boxes the stepper highlights, step by step (tests/test_lesson_23_claims.py checks
#: the split against NumPy and the subgradient inequality)
STEPS = ["MulBackward0", "MaxBackward1", "AccumulateGrad"]

lesson = ran_lesson("23_where_the_derivative_does_not_exist.ipynb")
test_every_cell_runs_and_none_fails = every_cell_runs_and_none_fails


def test_three_relus_and_the_inspector_table(lesson, screenshots):
    shown = flat(lesson.cell(lesson.code_cell("ways = {")).inner_text())
    assert "torch.relu(x): values [0.0, 0.0, 2.0], gradient [0.0, 0.0, 1.0]" in shown
    assert "x.clamp(min=0): values [0.0, 0.0, 2.0], gradient [0.0, 1.0, 1.0]" in shown
    assert "torch.maximum(x, 0): values [0.0, 0.0, 2.0], gradient [0.0, 0.5, 1.0]" in shown
    cell = lesson.cell(lesson.code_cell("inspect(relu_x, clamp_x, maximum_x)"))
    table = cell.locator("table.tg-table")
    table.wait_for(state="visible")
    assert table.locator("thead th.tg-name").all_inner_texts() == [
        "relu_x", "clamp_x", "maximum_x"]
    grads = table.locator("tr.tg-grad td").all_inner_texts()
    assert [flat(g) for g in grads] == ["[0., 0., 1.]", "[0., 1., 1.]",
                                        "[0.0000, 0.5000, 1.0000]"], grads
    screenshots.take(cell, "lesson23-inspector")


def test_the_straight_through_graph_has_no_round(lesson, screenshots):
    graph_cell, texts = drawn_graph(lesson, "draw(quantized, names=")
    for node in ("AddBackward0", "MulBackward0", "AccumulateGrad"):
        assert node in texts, texts
    assert "RoundBackward0" not in texts
    screenshots.take(graph_cell, "lesson23-straight-through-graph")


@THEMES
def test_the_stepper_splits_the_tie(lesson, screenshots, theme, light):
    with in_theme(lesson, theme, light) as name:
        cell, view = live_stepper_at_start(lesson, "m = x.max()", "L")
        for frame, _, panel in walk(view, STEPS):
            shown = flat(panel)
            if frame == 2:       # the max: 2 arrives, a half of it each to the tied 3s
                assert "Gradient arriving ∂L/∂m" in shown
                assert "[0., 1., 1., 0.]" in shown
                assert "1/k for the k elements equal to the max" in shown
                screenshots.take(view, f"lesson23-stepper-max-{name}")
        assert "x.grad: None before → [0., 1., 1., 0.] after" in flat(visible_panel(view))
        assert "backward() is finished" in visible_panel(view)
