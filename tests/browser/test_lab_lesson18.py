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

from .lesson_run import (
    THEMES,
    drawn_graph,
    every_cell_runs_and_none_fails,
    in_theme,
    ran_lesson,
    walk,
)
from .stepper_dom import live_stepper_at_start, visible_panel

pytestmark = pytest.mark.browser

LESSON = "18_softmax_cross_entropy_and_layer_norm.ipynb"
#: the boxes the stepper highlights, step by step (PyTorch's order, as in the lesson)
STEPS = ["NegBackward0", "SelectBackward0", "LogSoftmaxBackward0", "AccumulateGrad"]
P_MINUS_ONEHOT = "[-0.3410,  0.2424,  0.0986]"  # softmax([2, 1, 0.1]) − [1, 0, 0]


lesson = ran_lesson(LESSON)
test_every_cell_runs_and_none_fails = every_cell_runs_and_none_fails


@THEMES
def test_graph_and_stepper_show_the_chain_rule_at_log_softmax(lesson, screenshots, theme,
                                                              light):
    with in_theme(lesson, theme, light) as name:
        graph_cell, texts = drawn_graph(lesson, "draw(F.cross_entropy(z, y)")
        for node in ("NllLossBackward0", "LogSoftmaxBackward0", "AccumulateGrad", "z"):
            assert node in texts, texts
        screenshots.take(graph_cell, f"lesson18-cross-entropy-graph-{name}")

        cell, view = live_stepper_at_start(lesson, "step_backward(L,", "L")
        for _, node, panel in walk(view, STEPS):
            if node == "LogSoftmaxBackward0":
                flat = " ".join(panel.split())
                assert "δᵢⱼ − sⱼ" in flat and "[-1., 0., 0.]" in flat
                assert " ".join(P_MINUS_ONEHOT.split()) in flat
                screenshots.take(view, f"lesson18-stepper-log-softmax-{name}")
        assert "backward() is finished" in visible_panel(view)
