"""Lesson 17 (backpropagation through time) in JupyterLab: it runs, and what it shows renders.

Run All with the teachgrad kernel, then, in the light and the dark theme: the unrolled
graph and its stepper are drawn, with ``W``'s box; the table of gradient norms and the
plot (all five values of ρ named) are there; the graph cut by ``detach()`` has as many
boxes as the three-step graph of section 1, fewer than the uncut one; the inspector table
of the detached state says it needs no gradient.
"""

from __future__ import annotations

import pytest

from .lab_page import check_ran_once_in_order, opened, plot_texts

pytestmark = pytest.mark.browser

LESSON = "17_backpropagation_through_time.ipynb"


@pytest.fixture(scope="module")
def lesson(chromium, lab_server, screenshots):
    """Lesson 17 open in JupyterLab, every cell run with the teachgrad kernel."""
    with opened(chromium, lab_server, LESSON, timeout_ms=30_000) as notebook:
        notebook.run_all()  # waits until the kernel has done every cell (see LabNotebook.run_all)
        yield notebook


def test_every_cell_runs_and_only_the_marked_one_fails(lesson):
    cells = check_ran_once_in_order(lesson.model())
    assert "✔ Correct!" in "".join(o.get("text", "") for o in cells[-1]["outputs"])


def test_the_second_backward_error_is_shown_with_its_hint(lesson):
    shown = lesson.cell(lesson.code_cell("# 6 inputs: 2 chunks of 3")).inner_text()
    assert "Trying to backward through the graph a second time" in shown
    assert "Hint:" in shown


def drawing(cell):
    """The visible SVG drawing of a cell, once drawn."""
    svg = cell.locator("svg >> visible=true").first
    svg.wait_for(state="visible")
    return svg


@pytest.mark.parametrize("theme, light", [("JupyterLab Light", True),
                                          ("JupyterLab Dark", False)],
                         ids=["light", "dark"])
def test_graphs_stepper_table_and_plot_render(lesson, screenshots, theme, light):
    lesson.set_theme(theme, light)
    name = "light" if light else "dark"
    try:
        unrolled = lesson.cell(lesson.code_cell("draw(L, names=locals())"))
        three_steps = drawing(unrolled).locator("g.node").count()
        assert "AccumulateGrad" in unrolled.inner_text()
        screenshots.take(unrolled, f"lesson17-unrolled-{name}")

        stepper = lesson.cell(lesson.code_cell("step_backward(L,"))
        drawing(stepper)
        text = stepper.inner_text()
        assert "TanhBackward0" in text and "h3" in text
        screenshots.take(stepper, f"lesson17-stepper-{name}")

        table = lesson.cell(lesson.code_cell("small_inputs = {"))
        for row in ("ρ = 0.5", "ρ = 1.5", "per step"):
            assert row in table.inner_text()

        plot_cell = lesson.cell(lesson.code_cell("line_plot(small_inputs,"))
        image = plot_cell.locator("img.tg-plot")
        image.wait_for(state="visible")
        svg = plot_texts(image)
        for rho in ("0.5", "0.9", "1.0", "1.1", "1.5"):
            assert f"ρ = {rho}" in svg
        assert image.bounding_box()["width"] > 400
        screenshots.take(plot_cell, f"lesson17-plot-{name}")

        uncut = lesson.cell(lesson.code_cell("carried = h "))
        before = drawing(uncut).locator("g.node").count()
        screenshots.take(uncut, f"lesson17-before-detach-{name}")
        cut = lesson.cell(lesson.code_cell("h = carried\n"))
        after = drawing(cut).locator("g.node").count()
        screenshots.take(cut, f"lesson17-after-detach-{name}")
        # six copies of the cell before the cut; after it, three, like section 1's graph
        assert after == three_steps < before, (three_steps, after, before)

        detached = lesson.cell(lesson.code_cell("carried = carried.detach()")).inner_text()
        assert "requires_grad" in detached and "False" in detached
    finally:
        if not light:
            lesson.set_theme("JupyterLab Light", light=True)
