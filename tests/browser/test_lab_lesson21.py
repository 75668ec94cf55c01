"""Lesson 21 (batch norm's backward pass) in JupyterLab: it runs, and it renders.

Run All with the teachgrad kernel (no cell fails: this lesson has no error on purpose),
then: the by-hand steps print True against autograd and the three incomplete guesses print
False; the library's batch norm is drawn as one NativeBatchNormBackward0 node and the
by-hand version as its dozen nodes; and, in the light and the dark theme, the live stepper
of ``L = (x̂ * dy).sum()`` for one feature and three samples walks its ten nodes in
PyTorch's order, with the DivBackward0 panel sending dy/σ to x_c and the summed 0.4286 to σ,
the SubBackward0 panel adding the direct and the variance's contributions, and the last
step storing a gradient that sums to 0 in ``x.grad``, each with its box drawn as the one
running.
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

#: the boxes the stepper highlights, step by step (PyTorch's order, as in the lesson)
STEPS = ["SumBackward0", "MulBackward0", "DivBackward0", "SqrtBackward0", "AddBackward0",
         "MeanBackward1", "PowBackward0", "SubBackward0", "MeanBackward1", "AccumulateGrad"]
# for x = [1, 2, 6] and dy = [1, 0, 0]: dy/σ, dσ, dx_c and dx of section 3's formulas
# (tests/test_lesson_21_claims.py checks these numbers against NumPy in float64)
DY_OVER_SIGMA = "[[0.4629], [0.0000], [0.0000]]"
DSIGMA = "[[0.4286]]"
DXC = "[[ 0.3306], [-0.0661], [ 0.1984]]"
DX = "[[ 0.1763], [-0.2204], [ 0.0441]]"

lesson = ran_lesson("21_batch_norms_backward_pass.ipynb")
test_every_cell_runs_and_none_fails = every_cell_runs_and_none_fails


def test_the_steps_say_true_and_the_incomplete_guesses_false(lesson):
    shown = flat(lesson.cell(lesson.code_cell("print(torch.allclose(dxc, xc.grad")).inner_text())
    assert "True True True" in shown
    shown = flat(lesson.cell(lesson.code_cell("with torch.no_grad():\n    direct =")).inner_text())
    assert "False False False True" in shown


@pytest.mark.parametrize("what, code, nodes", [
    ("library", "layer.train()", ("NativeBatchNormBackward0", "AccumulateGrad")),
    ("by-hand", "draw(y, names=", ("DivBackward0", "SqrtBackward0", "PowBackward0",
                                   "SubBackward0", "MeanBackward1", "AccumulateGrad")),
], ids=["library", "by-hand"])
def test_both_graphs_are_drawn(lesson, screenshots, what, code, nodes):
    graph_cell, texts = drawn_graph(lesson, code)
    for node in nodes:
        assert node in texts, texts
    if what == "library":
        assert "DivBackward0" not in texts   # one node does it all
    screenshots.take(graph_cell, f"lesson21-graph-{what}")


@THEMES
def test_the_stepper_walks_batch_norms_backward_pass(lesson, screenshots, theme, light):
    with in_theme(lesson, theme, light) as name:
        cell, view = live_stepper_at_start(lesson, "x = torch.tensor([[1.0], [2.0], [6.0]]", "L")
        for frame, _, panel in walk(view, STEPS):
            shown = flat(panel)
            if frame == 3:       # x̂ = x_c / σ: dy/σ to x_c, the column's sum to σ
                assert DY_OVER_SIGMA in shown and DSIGMA in shown
                assert "summed over the broadcast dimensions" in shown
            if frame == 8:       # x_c: the direct and the variance's contributions added
                assert "2 contributions arrived" in shown and DXC in shown
                screenshots.take(view, f"lesson21-stepper-sub-{name}")
        assert f"x.grad: None before → {DX} after" in flat(visible_panel(view))
        assert "backward() is finished" in visible_panel(view)
