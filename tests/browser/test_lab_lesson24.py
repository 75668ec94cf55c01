"""Lesson 24 (inside the optimizer) in JupyterLab: it runs, and it renders.

Run All with the teachgrad kernel (no cell fails: the two wrong updates are caught and
printed), then: the optimizer at the end of section 3 shows as the kernel's table, with
its group's settings and a momentum buffer for each of the four parameters; the fused
optimizer's cell prints the backward order and one live ``.grad`` at each hook; in the
light and the dark theme, the live stepper of the L2-penalised loss walks its seven nodes
and its last step, ``AccumulateGrad (w)``, adds the two contributions 0.2 and 30; and the
network's stepper reaches the four ``AccumulateGrad`` nodes at steps 5, 7, 10 and 12,
last layer first.
"""

from __future__ import annotations

import pytest

from .lab_page import source
from .lesson_run import THEMES, every_cell_runs_and_none_fails, in_theme, ran_lesson, walk
from .stepper_dom import flat, live_stepper_at_start, visible_panel

pytestmark = pytest.mark.browser

#: the boxes the steppers highlight, step by step (tests/test_lesson_24_claims.py checks
#: the gradient 30.2 by hand and the order of the AccumulateGrad nodes)
L2_STEPS = ["AddBackward0", "MulBackward0", "PowBackward0", "PowBackward0", "SubBackward0",
            "MulBackward0", "AccumulateGrad"]
MODEL_STEPS = ["MeanBackward0", "PowBackward0", "SubBackward0", "AddmmBackward0",
               "AccumulateGrad", "TBackward0", "AccumulateGrad", "TanhBackward0",
               "AddmmBackward0", "AccumulateGrad", "TBackward0", "AccumulateGrad"]
ACCUMULATED = {5: "model.2.bias", 7: "model.2.weight", 10: "model.0.bias",
               12: "model.0.weight"}

lesson = ran_lesson("24_inside_the_optimizer.ipynb")
test_every_cell_runs_and_none_fails = every_cell_runs_and_none_fails


def test_the_caught_errors_are_printed(lesson):
    shown = flat(lesson.cell(lesson.code_cell("model = make_model()\nloss_of(model).backward()"))
                 .inner_text())
    assert ("RuntimeError: a leaf Variable that requires grad is being used in an in-place "
            "operation.") in shown
    shown = flat(lesson.cell(lesson.code_cell("loss_before = loss_of(model).item()"))
                 .inner_text())
    assert "loss before 1.0265 after 1.0265" in shown
    assert "TypeError: cannot assign 'torch.FloatTensor' as parameter 'weight'" in shown


def test_the_optimizer_shows_as_a_table_with_its_state(lesson, screenshots):
    (index,) = [i for i, c in enumerate(lesson.model()["cells"])
                if c["cell_type"] == "code" and source(c) == "optimizer"]
    cell = lesson.cell(index)
    view = cell.locator(".tg-optimizer")
    view.locator("table.tg-table").wait_for(state="visible")
    shown = flat(view.inner_text())
    for text in ("SGD, 1 parameter group", "with_sgd.0.weight", "with_sgd.2.bias",
                 "lr 0.1", "momentum 0.9", "momentum_buffer for 4 of 4 tensors, 21 numbers"):
        assert text in shown, (text, shown)
    screenshots.take(view, "lesson24-optimizer-table")


def test_the_fused_optimizer_prints_its_order(lesson):
    shown = flat(lesson.cell(lesson.code_cell("fused = make_model()")).inner_text())
    assert "equal to the usual loop: [True, True, True, True]" in shown
    assert "order in one backward(): ['2.bias', '2.weight', '0.bias', '0.weight']" in shown
    assert ".grad tensors alive at each hook: [1, 1, 1, 1]" in shown


@THEMES
def test_the_l2_stepper_adds_the_two_paths(lesson, screenshots, theme, light):
    with in_theme(lesson, theme, light) as name:
        _, view = live_stepper_at_start(lesson, "w = torch.tensor(2.0, requires_grad=True)",
                                        "L")
        for frame, _, panel in walk(view, L2_STEPS):
            if frame == 7:
                shown = flat(panel)
                assert "2 contributions arrived" in shown
                # each contribution with the step it came from: the penalty's, the fit's
                assert ("0.2000 step 3, PowBackward0 + 30. step 6, MulBackward0 "
                        "= 30.2000 total") in shown
                screenshots.take(view, f"lesson24-stepper-l2-{name}")
        assert "w.grad: None before → 30.2000 after" in flat(visible_panel(view))
        assert "backward() is finished" in visible_panel(view)


def test_the_network_stepper_accumulates_the_last_layer_first(lesson, screenshots):
    _, view = live_stepper_at_start(lesson, "model = make_model()\nloss = loss_of(model)",
                                    "loss")
    for frame, _, panel in walk(view, MODEL_STEPS):
        if frame in ACCUMULATED:
            assert panel.startswith(
                f"Step {frame} of 12: AccumulateGrad ({ACCUMULATED[frame]})"), panel[:80]
        if frame == 7:
            screenshots.take(view, "lesson24-stepper-network")
    assert "backward() is finished" in visible_panel(view)
