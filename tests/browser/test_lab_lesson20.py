"""Lesson 20 (attention's backward pass) in JupyterLab: it runs, and it renders.

Run All with the teachgrad kernel (no cell fails: this lesson has no error on purpose),
then: the graph of section 1's attention is drawn with its softmax, division and products;
the causal mask's gradients show their zeros; and, in the light and the dark theme, the
live stepper of ``L = (softmax(Q Kᵀ/√2) V * dO).sum()`` walks its ten nodes in PyTorch's
order, with the MmBackward0 of ``O = AV`` sending dO Vᵀ and Aᵀ dO, the SoftmaxBackward0
panel showing lesson 18's VJP and the dS it sends, and the last step storing dK in
``K.grad``, each with its box drawn as the one running.
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

LESSON = "20_attentions_backward_pass.ipynb"
#: the boxes the stepper highlights, step by step (PyTorch's order, as in the lesson)
STEPS = ["SumBackward0", "MulBackward0", "MmBackward0", "AccumulateGrad", "SoftmaxBackward0",
         "DivBackward0", "MmBackward0", "AccumulateGrad", "PermuteBackward0", "AccumulateGrad"]
# softmax(Q Kᵀ/√2) for the lesson's small Q and K, and the gradients of section 2's formulas
# (tests/test_lesson_20_claims.py checks these numbers against NumPy in float64)
DA = "[[ 1.0000, 0.0000, -1.0000], [ 0.0000, -2.0000, -1.0000], [ 0.5000, 2.0000, 0.5000]]"
DV = "[[ 0.7569, 0.0295], [ 0.2188, -0.0397], [ 0.5243, 0.0102]]"
DS = "[[ 0.4011, 0.0000, -0.4011], [ 0.2726, -0.1308, -0.1418], [-0.0449, 0.0604, -0.0155]]"
DK = "[[ 0.2519, 0.1610], [ 0.0427, -0.0498], [-0.2946, -0.1112]]"


lesson = ran_lesson(LESSON)
test_every_cell_runs_and_none_fails = every_cell_runs_and_none_fails


def test_the_checks_say_true_and_the_masked_gradients_are_zero(lesson):
    shown = flat(lesson.cell(lesson.code_cell("print(torch.allclose(dQ, Q.grad")).inner_text())
    assert "True True" in shown
    shown = flat(lesson.cell(lesson.code_cell("print(masked.grad)")).inner_text())
    assert "tensor([[ 0.0000, 0.0000, 0.0000]," in shown    # scores.grad's first row
    assert "[-0.1145, 0.1145, 0.0000]," in shown


def test_the_graph_of_attention_is_drawn(lesson, screenshots):
    graph_cell, texts = drawn_graph(lesson, "draw(O, names=")
    for node in ("SoftmaxBackward0", "DivBackward0", "MmBackward0", "PermuteBackward0",
                 "AccumulateGrad"):
        assert node in texts, texts
    screenshots.take(graph_cell, "lesson20-attention-graph")


@THEMES
def test_the_stepper_walks_attentions_backward_pass(lesson, screenshots, theme, light):
    with in_theme(lesson, theme, light) as name:
        cell, view = live_stepper_at_start(lesson, "step_backward(L,", "L")
        for frame, _, panel in walk(view, STEPS):
            shown = flat(panel)
            if frame == 3:       # O = AV: dA = dO Vᵀ to the softmax, dV = Aᵀ dO to V
                assert "∂(A B)/∂A = grad Bᵀ" in shown and "∂(A B)/∂B = Aᵀ grad" in shown
                assert DA in shown and DV in shown
            if frame == 5:       # lesson 18's softmax VJP
                assert "grad_in = s·(grad − Σ grad·s)" in shown and DS in shown
                screenshots.take(view, f"lesson20-stepper-softmax-{name}")
        assert f"K.grad: None before → {DK} after" in flat(visible_panel(view))
        assert "backward() is finished" in visible_panel(view)
