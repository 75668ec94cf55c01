"""Lesson 17's stepper after the window is made narrow: its graph is still drawn.

Lesson 17 run in a laptop window (1280 pixels), stepped a little, then the window made
700 pixels wide (a browser window put beside another): the stepper's graph area went
blank. This checks, after the resize, that the graph's box is on the page with a size,
that the picture is in it, and that boxes of the graph are in its visible part.
"""

from __future__ import annotations

import pytest

from .lab_page import opened

pytestmark = pytest.mark.browser

LESSON = "17_backpropagation_through_time.ipynb"
NARROW = 700

# What of the graph a student sees: the scrolling box's rectangle on screen, the picture's
# and those of the boxes (g.node) that are inside the scrolling box's visible rectangle.
_SEEN = """view => {
    const rect = e => { const r = e.getBoundingClientRect();
                        return {x: r.x, y: r.y, width: r.width, height: r.height}; };
    const scroll = [...view.querySelectorAll('.tg-live .tg-scroll')].find(e => e.offsetParent);
    if (!scroll) return null;
    const box = rect(scroll), svg = scroll.querySelector('svg');
    const inside = r => r.width > 0 && r.height > 0 && r.x < box.x + box.width &&
        r.x + r.width > box.x && r.y < box.y + box.height && r.y + r.height > box.y;
    const nodes = [...svg.querySelectorAll('g.node')].map(rect);
    return {box, svg: rect(svg), nodes: nodes.length, seen: nodes.filter(inside).length,
            pic: getComputedStyle(scroll.querySelector('.tg-pic')).display};
}"""


def test_the_stepper_graph_is_still_drawn_after_the_window_narrows(chromium, lab_server,
                                                                   screenshots):
    with opened(chromium, lab_server, LESSON, timeout_ms=30_000) as notebook:
        assert notebook.run_all().unintended == []
        cell = notebook.cell(notebook.code_cell("step_backward(L,"))
        view = cell.locator(".jp-OutputArea-child", has=cell.page.locator(".tg-live"))
        view.locator('button[title="Next step"]:visible').click()
        view.locator('.tg-panel-live[data-frame="1"]').wait_for(state="visible")
        wide = view.evaluate(_SEEN)
        assert wide and wide["seen"] > 0, wide

        notebook.page.set_viewport_size({"width": NARROW, "height": 900})
        notebook.page.wait_for_timeout(1000)  # JupyterLab lays its panels out again
        cell.scroll_into_view_if_needed()
        view.locator('button[title="Next step"]:visible').click()
        view.locator('.tg-panel-live[data-frame="2"]').wait_for(state="visible")
        narrow = view.evaluate(_SEEN)
        screenshots.take(view, "lesson17-stepper-after-resize-700")
        assert narrow is not None, "no graph box on show after the resize"
        assert narrow["box"]["width"] > 100 and narrow["box"]["height"] > 100, narrow
        assert narrow["svg"]["width"] > 100 and narrow["svg"]["height"] > 100, narrow
        assert narrow["pic"] != "none", narrow
        assert narrow["seen"] > 0, narrow  # boxes of the graph in the visible part
        page_width = notebook.page.viewport_size["width"]
        assert narrow["box"]["x"] + narrow["box"]["width"] <= page_width + 1, narrow
