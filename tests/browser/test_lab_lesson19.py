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

from .lab_page import check_ran_once_in_order, opened
from .stepper_dom import flat, go_to, highlighted, svg_texts, visible_panel

pytestmark = pytest.mark.browser

LESSON = "19_convolutions_gradient_is_a_convolution.ipynb"
#: the boxes the stepper highlights, step by step (PyTorch's order, as in the lesson)
STEPS = ["SumBackward0", "MulBackward0", "ConvolutionBackward0", "AccumulateGrad",
         "AccumulateGrad"]
G = "[[[ 1., -1., 2.]]]"                     # ∂L/∂y, arriving at the convolution
X_GRAD = "[[[ 1., -1., 0., 2., -4.]]]"       # the full convolution with the flipped kernel
W_GRAD = "[[[-3.0000, 4.0000, 4.5000]]]"     # x convolved with g


@pytest.fixture(scope="module")
def lesson(chromium, lab_server, screenshots):
    """Lesson 19 open in JupyterLab, every cell run with the teachgrad kernel."""
    with opened(chromium, lab_server, LESSON, timeout_ms=30_000) as notebook:
        notebook.run_all()  # waits until the kernel has done every cell (see LabNotebook.run_all)
        yield notebook


def test_every_cell_runs_and_none_fails(lesson):
    cells = check_ran_once_in_order(lesson.model(), failing=0)
    assert "✔ Correct!" in "".join(o.get("text", "") for o in cells[-1]["outputs"])


def test_the_printed_gradients_are_there(lesson):
    # section 3: conv_transpose1d's forward pass is x's gradient, as printed
    shown = flat(lesson.cell(lesson.code_cell("F.conv_transpose1d(g[None, None]")).inner_text())
    assert "tensor([ 1., -1., 0., 2., -4.])" in shown


@pytest.mark.parametrize("theme, light", [("JupyterLab Light", True),
                                          ("JupyterLab Dark", False)],
                         ids=["light", "dark"])
def test_the_stepper_shows_the_chain_rule_at_convolution_backward(lesson, screenshots, theme,
                                                                  light):
    lesson.set_theme(theme, light)
    name = "light" if light else "dark"
    try:
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
        for frame, node in enumerate(STEPS, start=1):
            view.locator('button[title="Next step"]:visible').click()
            go_to(view, frame)
            (box,) = highlighted(view.locator(".tg-live"))
            assert node in box, (frame, box)
            panel = visible_panel(view)
            assert panel.startswith(f"Step {frame} of 5: {node}"), panel[:80]
            if node == "ConvolutionBackward0":
                shown = flat(panel)
                assert "each output spreads grad·w back over its patch" in shown
                for value in (G, X_GRAD, W_GRAD):
                    assert value in shown, value
                screenshots.take(view, f"lesson19-stepper-convolution-{name}")
        assert f"w.grad: None before → {W_GRAD} after" in flat(visible_panel(view))
        assert "backward() is finished" in visible_panel(view)
    finally:
        if not light:
            lesson.set_theme("JupyterLab Light", light=True)
