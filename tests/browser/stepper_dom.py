"""Read a stepper's state from the page, as a student sees it (live widget or static HTML).

Both views restyle the same laid-out SVG: the node running now gets the "current" look
(``stepper.css``: a 3 px outline), so "which node is highlighted" is read from the
computed style of each box, i.e. from what is actually drawn, not from a class name.
"""

from __future__ import annotations

import html
import re

# The SVG of a stepper draws each box as <g class="node" id=...> with its outline
# (<path> or <polygon>) and its lines of text.
_BOXES = """(root) => [...root.querySelectorAll('svg g.node')].map(box => {
    const outline = box.querySelector(':scope > path, :scope > polygon');
    return {
        id: box.id,
        text: [...box.querySelectorAll('text')].map(t => t.textContent).join(' '),
        outline: outline ? getComputedStyle(outline).strokeWidth : null,
    };
})"""

CURRENT_OUTLINE = "3px"


def boxes(root) -> list[dict]:
    """Every box of the graph under ``root``: ``{"id", "text", "outline"}``."""
    return root.evaluate(_BOXES)


def highlighted(root) -> list[str]:
    """The text of the boxes drawn as "running now" (one box, or none at the start)."""
    return [box["text"] for box in boxes(root) if box["outline"] == CURRENT_OUTLINE]


def visible_panel(view) -> str:
    """The live stepper's chain-rule panel on show (one frame's panel at a time)."""
    panels = view.locator(".tg-panel-live").filter(visible=True)
    assert panels.count() == 1
    return panels.inner_text()


def go_to(view, frame: int) -> None:
    """Wait until the step box reads ``frame`` and that frame's panel is the one shown."""
    from playwright.sync_api import expect

    expect(view.get_by_label("Step", exact=True)).to_have_value(str(frame))
    expect(view.locator(f'.tg-panel-live[data-frame="{frame}"]')).to_be_visible()


def flat(text: str) -> str:
    """``text`` with every run of white space made one space (panels lay values out)."""
    return " ".join(text.split())


def live_stepper_at_start(lesson, code_start: str, output: str):
    """The live stepper of the code cell starting ``code_start``, on its first frame.

    Returns ``(cell, view)``: the cell's locator and that of its live stepper's output.
    Checks on the way what a student sees first: one stepper on screen (the live widget
    hides the static copy exports use), and a panel saying where backward() starts.
    """
    cell = lesson.cell(lesson.code_cell(code_start))
    view = cell.locator(".jp-OutputArea-child", has=lesson.page.locator(".tg-live"))
    view.locator(".jupyter-button:visible").first.wait_for(state="visible")
    assert cell.locator(".tg-static").is_hidden()
    view.locator('button[title="First step"]:visible').click()
    go_to(view, 0)
    assert visible_panel(view).startswith(f"Start: backward() from {output}")
    return cell, view


def svg_texts(svg_source: str) -> list[str]:
    """The text lines of an SVG document (node names, shapes...), in document order."""
    return [html.unescape(t) for t in re.findall(r"<text\b[^>]*>([^<]*)</text>", svg_source)]
