"""A backward graph taller than the window: the running node stays in view, beside its panel.

A 25-step chain ``x = (x * 1.1).tanh()`` is drawn about 5,000 pixels tall. Measured
before the fix at 1280 x 900, step 20: the panel and the controls sat at the top of the
picture (y = 531) and the running node 1,900 pixels below them (y = 2,460): a student
could see the node or its explanation, never both, and Play walked off the screen.
Now the picture scrolls in a box of its own (at most 70% of the window) that snaps to
the running node when the step changes (teachgrad/notebook/follow.py, stepper.css).
The static (CSS-only) stepper of exported notebooks does the same, checked on its own
page here.
"""

from __future__ import annotations

import pytest

from .lab_page import live_stepper

pytestmark = pytest.mark.browser

NOTEBOOK = "stepper_tall_graph.ipynb"

CHAIN = """\
import teachgrad as torch
from teachgrad.notebook import step_backward

x = torch.tensor([0.5], requires_grad=True)
h = x
for _ in range(25):
    h = (h * 1.1).tanh()
out = h.sum()
stepper = step_backward(out, names=locals())
stepper"""

# The box drawn as "running now" (stepper.css: a 3 px outline; see stepper_dom.py).
RUNNING_BOX = """root => {
    const box = [...root.querySelectorAll('svg g.node')].find(g => {
        const outline = g.querySelector(':scope > path, :scope > polygon');
        return outline && getComputedStyle(outline).strokeWidth === '3px';
    });
    return box ? box.getBoundingClientRect().toJSON() : null;
}"""


def inside(box, area) -> bool:
    """``box`` lies within ``area`` (bounding boxes in page pixels, 1 pixel of slack)."""
    return all(
        box[start] >= area[start] - 1 and box[start] + box[size] <= area[start] + area[size] + 1
        for start, size in (("x", "width"), ("y", "height")))


def settle(page) -> None:
    """Two animation frames: the snap that follows a restyle has been applied."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


@pytest.fixture(scope="module")
def tall(chromium, lab_server, lessons_copy):
    with live_stepper(chromium, lab_server, lessons_copy, NOTEBOOK, CHAIN) as opened_view:
        yield opened_view


def test_the_running_node_its_panel_and_the_buttons_are_on_screen_together(tall, screenshots):
    notebook, view = tall
    page = notebook.page
    svg = view.locator(".tg-live svg")
    natural_px = float(svg.get_attribute("height").removesuffix("pt")) * 96 / 72
    window = page.evaluate("() => innerHeight")
    assert natural_px > 3 * window, "the test graph is not tall enough to mean anything"
    # The notebook's own scrolling area: what of the page a student sees of the notebook.
    notebook_area = page.locator(".jp-NotebookPanel .jp-WindowedPanel-outer").bounding_box()
    view.evaluate("view => view.scrollIntoView({block: 'start'})")
    next_button = view.locator('button[title="Next step"]:visible')
    for frame in range(1, 53):
        next_button.click()
        panel = view.locator(f'.tg-panel-live[data-frame="{frame}"]')
        panel.wait_for(state="visible")
        if frame not in (20, 52):
            continue
        settle(page)
        running = view.evaluate(RUNNING_BOX)
        assert running is not None, f"no running node at step {frame}"
        for name, box in (("running node", running), ("panel", panel.bounding_box()),
                          ("Next step", next_button.bounding_box())):
            # The panel may be taller than the screen; its top (its heading) must show.
            top = dict(box, height=min(box["height"], 40))
            assert inside(top, notebook_area), (frame, name, box, notebook_area)
        if frame == 20:
            screenshots.take(view, "stepper-tall-graph-step20")


def test_the_student_can_still_scroll_around_the_graph(tall):
    # The box snaps only while nobody is in it (stepper.css: :hover, :focus-within).
    notebook, view = tall
    page = notebook.page
    scroller = view.locator(".tg-live .tg-scroll")
    assert scroller.evaluate("e => e.scrollHeight > 2 * e.clientHeight")
    view.locator('button[title="Last step"]:visible').click()  # the graph's bottom
    view.locator('.tg-panel-live[data-frame="52"]').wait_for(state="visible")
    settle(page)
    before = scroller.evaluate("e => e.scrollTop")
    scroller.hover()
    page.mouse.wheel(0, -1200)
    page.wait_for_function("([e, before]) => e.scrollTop < before - 600",
                           arg=[scroller.element_handle(), before])
    page.wait_for_timeout(500)  # a snap back would be over by now (it took 80 ms)
    assert scroller.evaluate("e => e.scrollTop") < before - 600
    # Back to the buttons: the box returns to the running node.
    view.locator('button[title="Previous step"]:visible').hover()
    page.wait_for_function("([e, before]) => Math.abs(e.scrollTop - before) < 2",
                           arg=[scroller.element_handle(), before])


def test_the_static_stepper_follows_the_running_node_too(chromium, screenshots):
    import teachgrad as torch
    from teachgrad.notebook import step_backward

    x = torch.tensor([0.5], requires_grad=True)
    h = x
    for _ in range(25):
        h = (h * 1.1).tanh()
    out = h.sum()
    static = step_backward(out, names={"x": x, "out": out}).static_html()
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.set_content(f"<!doctype html><meta charset=utf-8><body>{static}</body>")
        stepper = page.locator(".tg-static")
        for frame in range(1, 21):
            page.locator(f'.tg-f{frame - 1} label[title="Next step"]').click()
            page.locator(f".tg-f{frame}").wait_for(state="visible")
        page.mouse.move(0, 0)  # off the graph: it snaps only while nobody is in it
        settle(page)
        running = stepper.evaluate(RUNNING_BOX)
        window = {"x": 0, "y": 0, "width": 1280, "height": 900}
        heading = page.locator(".tg-f20 h4").bounding_box()
        assert running is not None and inside(running, window), running
        assert inside(heading, window), heading
        screenshots.window(page, "static-stepper-tall-graph-step20")
    finally:
        context.close()
