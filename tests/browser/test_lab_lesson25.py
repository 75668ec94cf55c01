"""Lesson 25 (per-sample gradients) in JupyterLab: it runs, and it renders.

Run All with the teachgrad kernel (no cell fails), then: the loop's cell prints the four
per-example norms and their sum against the norm of the sum; the cost cell shows
teachgrad's ``vmap`` calling the loss once per example (256 times); and in the light and
the dark theme the live stepper of the linear layer's batch loss walks its seven nodes,
its step 4, ``AddmmBackward0``, showing the gradient arriving one row per example, the
layer's input saved as ``_saved_mat1`` and ``Xᵀ G`` sent on to ``TBackward0``, and its last
step storing the batch gradient in ``layer.weight.grad``.
"""

from __future__ import annotations

import pytest

from .lesson_run import THEMES, every_cell_runs_and_none_fails, in_theme, ran_lesson, walk
from .stepper_dom import flat, live_stepper_at_start, visible_panel

pytestmark = pytest.mark.browser

#: the boxes the stepper highlights, step by step (tests/test_lesson_25_claims.py checks
#: the same titles, and the numbers against the per-example gradients in NumPy)
STEPS = ["SumBackward0", "PowBackward0", "SubBackward0", "AddmmBackward0", "AccumulateGrad",
         "TBackward0", "AccumulateGrad"]

lesson = ran_lesson("25_per_sample_gradients.ipynb")
test_every_cell_runs_and_none_fails = every_cell_runs_and_none_fails


def test_the_loop_prints_the_per_example_norms(lesson):
    shown = flat(lesson.cell(lesson.code_cell("per_example = []")).inner_text())
    assert "shape: (4, 2, 3)" in shown
    assert "their sum is the batch gradient: True" in shown
    assert "each example's norm: [7.554, 6.739, 1.728, 3.98]" in shown
    assert "the sum of the norms: 20.001 | the norm of the sum: 13.697" in shown


def test_the_three_ways_agree_and_vmap_loops(lesson):
    shown = flat(lesson.cell(lesson.code_cell("def loss_of_one(params, x, y):")).inner_text())
    assert "weight: as the loop: True | as the outer products: True" in shown
    shown = flat(lesson.cell(lesson.code_cell("def fastest(f, runs=5):")).inner_text())
    assert "calls of loss_of_one by vmap, for 256 examples: 256" in shown
    assert "the closed form is more than 10 times faster than the loop: True" in shown


@THEMES
def test_the_stepper_shows_the_examples_added_up(lesson, screenshots, theme, light):
    with in_theme(lesson, theme, light) as name:
        _, view = live_stepper_at_start(lesson, "layer.zero_grad()\nloss = loss_fn(layer(X), Y)",
                                        "loss")
        for frame, _, panel in walk(view, STEPS):
            shown = flat(panel)
            if frame == 4:
                # G, one row g_i per example, arriving; X saved; Xᵀ G sent to TBackward0
                assert ("[[ 2.2835, -1.6438], [ 3.2742, 1.5562], [ 1.2491, -0.7751], "
                        "[ 2.8768, 4.5195]]") in shown, shown
                assert ("[[ 1.5410, -0.2934, -2.1788], [ 0.5684, -1.0845, -1.3986], "
                        "[ 0.4033, 0.8380, -0.7193], [-0.4033, -0.5966, 0.1820]] "
                        "_saved_mat1") in shown                               # X
                assert ("upstream × ∂/∂mat2 = α·mat1ᵀ grad local = [[ 4.7236, -3.7840], "
                        "[-4.8907, -4.5515], [-9.9294, 2.7852]] to TBackward0") in shown
                screenshots.take(view, f"lesson25-stepper-addmm-{name}")
            if frame == 5:
                assert panel.startswith("Step 5 of 7: AccumulateGrad (layer.bias)")
            if frame == 7:
                assert panel.startswith("Step 7 of 7: AccumulateGrad (layer.weight)")
        final = flat(visible_panel(view))
        assert "layer.weight.grad" in final and "-9.9294" in final
        assert "backward() is finished" in final
