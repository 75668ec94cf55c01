"""Lesson 19 (convolution's gradient is a convolution) in JupyterLab: it runs, and it renders.

Run All with the teachgrad kernel (no cell fails: this lesson has no error on purpose),
then, in the light and the dark theme: the live stepper of ``L = (conv1d(x, w) * g).sum()``
walks Sum, Mul, Convolution and the two AccumulateGrad nodes; at step 3 its panel shows the
chain rule the lesson reads there (the convolution's local derivative in words, g arriving,
the input gradient sent to ``x`` and the kernel gradient sent to ``w``), with the
ConvolutionBackward0 box drawn as the one running; and the last step ends the pass.
"""

from __future__ import annotations

import pytest

from .lesson_run import (
    THEMES,
    every_cell_runs_and_none_fails,
    in_theme,
    ran_lesson,
    walk,
)
from .stepper_dom import flat, go_to, svg_texts, visible_panel

pytestmark = pytest.mark.browser

LESSON = "19_convolutions_gradient_is_a_convolution.ipynb"
#: the boxes the stepper highlights, step by step (PyTorch's order, as in the lesson)
STEPS = ["SumBackward0", "MulBackward0", "ConvolutionBackward0", "AccumulateGrad",
         "AccumulateGrad"]
G = "[[[ 1., -1., 2.]]]"                     # ∂L/∂y, arriving at the convolution
X_GRAD = "[[[ 1., -1., 0., 2., -4.]]]"       # the full convolution with the flipped kernel
W_GRAD = "[[[-3.0000, 4.0000, 4.5000]]]"     # x convolved with g


lesson = ran_lesson(LESSON)
test_every_cell_runs_and_none_fails = every_cell_runs_and_none_fails


def test_the_printed_gradients_are_there(lesson):
    # section 3: conv_transpose1d's forward pass is x's gradient, as printed
    shown = flat(lesson.cell(lesson.code_cell("F.conv_transpose1d(g[None, None]")).inner_text())
    assert "tensor([ 1., -1., 0., 2., -4.])" in shown


@THEMES
def test_the_stepper_shows_the_chain_rule_at_convolution_backward(lesson, screenshots, theme,
                                                                  light):
    with in_theme(lesson, theme, light) as name:
        cell = lesson.cell(lesson.code_cell("step_backward(L,"))
        view = cell.locator(".jp-OutputArea-child", has=lesson.page.locator(".tg-live"))
        view.locator(".jupyter-button:visible").first.wait_for(state="visible")
        assert cell.locator(".tg-static").is_hidden()  # one stepper on screen: the live one
        svg = view.locator(".tg-live svg >> visible=true").first
        texts = svg_texts(svg.evaluate("e => e.outerHTML"))
        for node in ("SumBackward0", "MulBackward0", "ConvolutionBackward0", "AccumulateGrad"):
            assert node in texts, texts
        view.locator('button[title="First step"]:visible').click()
        go_to(view, 0)
        assert visible_panel(view).startswith("Start: backward() from L")
        for _, node, panel in walk(view, STEPS):
            if node == "ConvolutionBackward0":
                shown = flat(panel)
                assert "each output spreads grad·w back over its patch" in shown
                for value in (G, X_GRAD, W_GRAD):
                    assert value in shown, value
                screenshots.take(view, f"lesson19-stepper-convolution-{name}")
        assert f"w.grad: None before → {W_GRAD} after" in flat(visible_panel(view))
        assert "backward() is finished" in visible_panel(view)
