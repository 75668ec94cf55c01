"""A graph much wider than the notebook stays readable: it shrinks only so far, then scrolls.

Graphviz lays out ``sum(w * w for w in ws)`` over 40 leaves as a band several thousand
points wide. Scaled down to the cell's width, its 11-point labels became specks; now the
picture shrinks to at most ``MIN_SCALE`` of its size and its container scrolls sideways.
"""

from __future__ import annotations

import nbformat
import pytest

from teachgrad.notebook.layout import MIN_SCALE

from .lab_page import opened, teachgrad_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "wide_graph.ipynb"
PX_PER_PT = 96 / 72

CODE = """\
import teachgrad as torch
from teachgrad.notebook import draw

ws = [torch.tensor(float(i), requires_grad=True) for i in range(40)]
total = sum(w * w for w in ws)
draw(total, names=locals())"""


@pytest.fixture(scope="module")
def wide(chromium, lab_server, lessons_copy, screenshots):
    nbformat.write(teachgrad_notebook([nbformat.v4.new_code_cell(CODE)]), lessons_copy / NOTEBOOK)
    with opened(chromium, lab_server, NOTEBOOK) as notebook:
        assert notebook.run_all()
        yield notebook


def test_a_very_wide_graph_keeps_readable_labels_and_scrolls(wide, screenshots):
    cell = wide.cell(0)
    svg = cell.locator(".jp-RenderedHTMLCommon .tg-graph svg").first
    svg.wait_for(state="visible")
    natural_px = float(svg.get_attribute("width").removesuffix("pt")) * PX_PER_PT
    shown_px = svg.bounding_box()["width"]
    container = cell.locator(".tg-graph").first
    visible_px = container.evaluate("e => e.clientWidth")
    assert natural_px > 2 * visible_px, "the test graph is not wide enough to mean anything"
    assert shown_px >= MIN_SCALE * natural_px - 2, (shown_px, natural_px)
    assert container.evaluate("e => e.scrollWidth > e.clientWidth"), "no way to scroll to it"
    screenshots.take(cell, "wide-graph-scrolls")
