"""Lesson 18 (softmax, cross-entropy and layer norm) in JupyterLab: it runs, and it renders.

Run All with the teachgrad kernel (no cell fails: this lesson has no error on purpose),
then, in the light and the dark theme: the graph of ``F.cross_entropy`` is drawn with its
two nodes, ``NllLossBackward0`` over ``LogSoftmaxBackward0``; the live stepper of the
written-out loss walks Neg, Select, LogSoftmax, AccumulateGrad, and at step 3 its panel
shows the chain rule the lesson reads there (the local derivative δᵢⱼ − sⱼ, and p − onehot
sent on to ``z``) with the LogSoftmax box drawn as the one running.
"""

from __future__ import annotations

import pytest

from .lab_page import check_ran_once_in_order, opened
from .stepper_dom import go_to, highlighted, live_stepper_at_start, svg_texts, visible_panel

pytestmark = pytest.mark.browser

LESSON = "18_softmax_cross_entropy_and_layer_norm.ipynb"
#: the boxes the stepper highlights, step by step (PyTorch's order, as in the lesson)
STEPS = ["NegBackward0", "SelectBackward0", "LogSoftmaxBackward0", "AccumulateGrad"]
P_MINUS_ONEHOT = "[-0.3410,  0.2424,  0.0986]"  # softmax([2, 1, 0.1]) − [1, 0, 0]


@pytest.fixture(scope="module")
def lesson(chromium, lab_server, screenshots):
    """Lesson 18 open in JupyterLab, every cell run with the teachgrad kernel."""
    with opened(chromium, lab_server, LESSON, timeout_ms=30_000) as notebook:
        notebook.run_all()  # waits until the kernel has done every cell (see LabNotebook.run_all)
        yield notebook


def test_every_cell_runs_and_none_fails(lesson):
    cells = check_ran_once_in_order(lesson.model(), failing=0)
    assert "✔ Correct!" in "".join(o.get("text", "") for o in cells[-1]["outputs"])


@pytest.mark.parametrize("theme, light", [("JupyterLab Light", True),
                                          ("JupyterLab Dark", False)],
                         ids=["light", "dark"])
def test_graph_and_stepper_show_the_chain_rule_at_log_softmax(lesson, screenshots, theme,
                                                              light):
    lesson.set_theme(theme, light)
    name = "light" if light else "dark"
    try:
        graph_cell = lesson.cell(lesson.code_cell("draw(F.cross_entropy(z, y)"))
        svg = graph_cell.locator("svg >> visible=true").first
        svg.wait_for(state="visible")
        texts = svg_texts(svg.evaluate("e => e.outerHTML"))
        for node in ("NllLossBackward0", "LogSoftmaxBackward0", "AccumulateGrad", "z"):
            assert node in texts, texts
        screenshots.take(graph_cell, f"lesson18-cross-entropy-graph-{name}")

        cell, view = live_stepper_at_start(lesson, "step_backward(L,", "L")
        for frame, node in enumerate(STEPS, start=1):
            view.locator('button[title="Next step"]:visible').click()
            go_to(view, frame)
            (box,) = highlighted(view.locator(".tg-live"))
            assert node in box, (frame, box)
            panel = visible_panel(view)
            assert panel.startswith(f"Step {frame} of 4: {node}"), panel[:80]
            if node == "LogSoftmaxBackward0":
                flat = " ".join(panel.split())
                assert "δᵢⱼ − sⱼ" in flat and "[-1., 0., 0.]" in flat
                assert " ".join(P_MINUS_ONEHOT.split()) in flat
                screenshots.take(view, f"lesson18-stepper-log-softmax-{name}")
        assert "backward() is finished" in visible_panel(view)
    finally:
        if not light:
            lesson.set_theme("JupyterLab Light", light=True)
