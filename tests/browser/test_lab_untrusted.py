"""A notebook opened fresh, before it runs: JupyterLab does not trust it yet.

Every stored lesson is opened this way first. JupyterLab then sanitises each HTML
output: ``<style>`` and ``<svg>`` go (their text stays), attributes without a value go.
The drawing used to show as one line of jumbled labels, and the static stepper as that
line plus radio buttons, a numbered strip and ◀ ▶ labels that did nothing. Now both
show the picture (an ``<img>`` copy), and the stepper the log of its steps under it.

The outputs are written by this teachgrad (not the stored lessons, which may predate
it) into a notebook that is opened and never run.
"""

from __future__ import annotations

import nbformat
import pytest

import teachgrad as torch
from teachgrad.notebook import draw, step_backward
from teachgrad.notebook.stepper import _StaticView

from .lab_page import opened, teachgrad_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "untrusted.ipynb"


def outputs_of_lesson_one() -> list[tuple[str, dict]]:
    """(source, display bundle) of lesson 1's drawing and stepper."""
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    names = {"x": x, "y": y, "z": z, "out": out}
    drawing = draw(out, names=names)._repr_mimebundle_()
    stepper = _StaticView(step_backward(out, names=names))._repr_mimebundle_()
    return [("draw(out, names=locals())", drawing),
            ("step_backward(out, names=locals())", stepper)]


@pytest.fixture(scope="module")
def untrusted(chromium, lab_server, lessons_copy):
    cells = []
    for source, bundle in outputs_of_lesson_one():
        cell = nbformat.v4.new_code_cell(source)
        cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
        cells.append(cell)
    # unsigned: JupyterLab will not trust it
    nbformat.write(teachgrad_notebook(cells), lessons_copy / NOTEBOOK)
    with opened(chromium, lab_server, NOTEBOOK) as notebook:
        yield notebook


def shown_picture(output):
    """The output's picture: a visible <img> whose SVG loaded (naturalWidth > 0)."""
    image = output.locator("img.tg-untrusted")
    image.wait_for(state="visible")
    assert image.evaluate("img => img.complete && img.naturalWidth > 100")
    return image


def test_an_untrusted_drawing_is_a_picture_not_a_line_of_labels(untrusted, screenshots):
    cell = untrusted.cell(0)
    output = cell.locator(".jp-OutputArea-output").first
    shown_picture(output)
    assert output.locator("svg").count() == 0  # sanitised away: what we test is real
    assert "MulBackward0" not in output.inner_text()
    screenshots.take(cell, "untrusted-drawing")


def test_an_untrusted_stepper_shows_its_log_and_no_dead_controls(untrusted, screenshots):
    cell = untrusted.cell(1)
    output = cell.locator(".jp-OutputArea-output").first
    shown_picture(output)
    text = output.inner_text()
    assert text.startswith("Every step of backward() at once")
    assert "Step 5 of 5: AccumulateGrad (x)" in text
    for dead in ("|◀", "▶|", "some contributions"):
        assert dead not in text
    assert output.locator("input[type=radio]").filter(visible=True).count() == 0
    assert "MeanBackward0 · scalar" not in text  # the SVG's tooltips as text
    cell.locator(".jp-InputArea").scroll_into_view_if_needed()
    screenshots.window(untrusted.page, "untrusted-stepper")  # the cell is taller than this
