"""Lesson 16 (when gradients go wrong) in JupyterLab: it runs, and what it shows renders.

Run All with the teachgrad kernel, then, in the light and the dark theme: the anomaly
cell's warning names the forward line (and not the kernel's own frames), the two plots of
gradient norms are pictures with both series' names, the table of norms is there, and the
stepper of the ``where`` pitfall and the drawing of its fix are drawn.
"""

from __future__ import annotations

import pytest

from .lab_page import LabNotebook, check_ran_once_in_order, plot_texts
from .stepper_dom import flat, go_to, live_stepper_at_start, visible_panel

pytestmark = pytest.mark.browser

LESSON = "16_when_gradients_go_wrong_nan_vanishing_and_exploding.ipynb"


@pytest.fixture(scope="module")
def lesson(chromium, lab_server, screenshots):
    """Lesson 16 open in JupyterLab, every cell run with the teachgrad kernel."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    notebook = LabNotebook(page, lab_server, LESSON).open()
    # Run All answers False as soon as the cell that fails on purpose has failed; JupyterLab
    # goes on past it (its raises-exception tag): wait for every cell to have run.
    notebook.run_all()
    page.wait_for_function(
        """() => window.jupyterapp.shell.currentWidget.model.toJSON().cells
                 .filter(cell => cell.cell_type === 'code')
                 .every(cell => cell.execution_count !== null)""", timeout=120_000)
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
        " === 'idle'", timeout=120_000)
    yield notebook
    context.close()


def test_every_cell_runs_and_only_the_marked_one_fails(lesson):
    cells = check_ran_once_in_order(lesson.model())
    assert "✔ Correct!" in "".join(o.get("text", "") for o in cells[-1]["outputs"])


def test_the_anomaly_warning_starts_at_the_cell_and_names_the_forward_line(lesson):
    index = lesson.code_cell("detect_anomaly()")
    (stderr,) = [o["text"] for o in lesson.model()["cells"][index]["outputs"]
                 if o["output_type"] == "stream" and o["name"] == "stderr"]
    trace = stderr.split("Traceback of forward call that caused the error:\n", 1)[1]
    assert trace.lstrip().startswith("File "), trace
    assert "    return torch.where(x > 0, x.sqrt(), x)" in trace
    assert "ipykernel_launcher" not in trace and "asyncio" not in trace
    shown = lesson.cell(index).inner_text()
    assert "Function 'SqrtBackward0' returned nan values in its 0th output." in shown


@pytest.mark.parametrize("theme, light", [("JupyterLab Light", True),
                                          ("JupyterLab Dark", False)],
                         ids=["light", "dark"])
def test_plots_table_stepper_and_graph_render(lesson, screenshots, theme, light):
    lesson.set_theme(theme, light)
    name = "light" if light else "dark"
    try:
        table = lesson.cell(lesson.code_cell("results.update("))
        text = table.inner_text()
        for row in ("sigmoid, default init", "tanh, std 0.5", "ReLU, Kaiming", "per layer"):
            assert row in text
        screenshots.take(table, f"lesson16-table-{name}")

        plot_cell = lesson.cell(lesson.code_cell("line_plot(results,"))
        image = plot_cell.locator("img.tg-plot")
        image.wait_for(state="visible")
        svg = plot_texts(image)
        for series in ("sigmoid, default init", "tanh, Xavier", "ReLU, default init"):
            assert series in svg
        assert image.bounding_box()["width"] > 400
        screenshots.take(plot_cell, f"lesson16-plot-{name}")

        stepper = lesson.cell(lesson.code_cell("y = torch.where(x > 0, s, x)"))
        stepper.locator("svg >> visible=true").first.wait_for(state="visible")
        assert "WhereBackward0" in stepper.inner_text()
        screenshots.take(stepper, f"lesson16-where-stepper-{name}")

        drawing = lesson.cell(lesson.code_cell("draw(y.sum()"))
        drawing.locator("svg >> visible=true").first.wait_for(state="visible")
        screenshots.take(drawing, f"lesson16-fixed-graph-{name}")

        anomaly = lesson.cell(lesson.code_cell("detect_anomaly()"))
        screenshots.take(anomaly, f"lesson16-anomaly-{name}")
    finally:
        if not light:
            lesson.set_theme("JupyterLab Light", light=True)



def test_the_stepper_shows_where_the_nan_is_born(lesson, screenshots):
    # Step 3, SqrtBackward0: the upstream is 0 where `where` took the other branch, and
    # the local derivative 1/(2√a) is nan at -1 and inf at 0 (by hand): the panel shows
    # both products, 0 · nan and 0 · inf, each with its three captions.
    cell, view = live_stepper_at_start(lesson, "y = torch.where(x > 0, s, x)", "L")
    step = view.get_by_label("Step", exact=True)
    step.fill("3")
    step.press("Enter")
    go_to(view, 3)
    shown = flat(visible_panel(view))
    assert shown.startswith("Step 3 of 4: SqrtBackward0 (s)"), shown
    assert "nan is born here, along a → AccumulateGrad (x)" in shown
    assert "[0] 0. upstream × nan local = nan contribution" in shown, shown
    assert "[1] 0. upstream × inf local = nan contribution" in shown
    born = view.locator(".tg-panel-live .tg-born").filter(visible=True)
    assert born.count() == 1 and born.bounding_box()["width"] > 100
    screenshots.take(view, "lesson16-where-stepper-born")
