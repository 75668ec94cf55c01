"""Keep the node being stepped in view when the graph is taller (or wider) than its box.

A 25-step chain ``x = (x * 1.1).tanh()`` draws 5,000 pixels tall: the graph now scrolls
inside a box of its own (``stepper.css``: ``.tg-scroll``), and that box follows the
running node, with CSS only (no script, so it works in exported HTML too):

* one invisible anchor per box, ``<i class="tg-at" id="P_n3_at">``, placed over the box's
  centre in percent of the picture (so it stays there when the picture is scaled);
* the frame's CSS (``static_html.frame_rules`` / ``live_rules``) makes the running node's
  anchor a scroll-snap target, and the box snaps (``scroll-snap-type: mandatory``): when
  the frame changes, the browser scrolls the new target into the middle of the box.
  (A ``<g>`` of the SVG cannot be a snap target itself: only HTML boxes can.)

While the pointer is over the box, or the keyboard is in it, it does not snap, so the
student can scroll around the graph; it comes back to the running node afterwards.
"""

from __future__ import annotations

import re

#: what the running node's anchor gets (stepper.css turns it into a snap target)
FOLLOW_VARS = "--tg-follow:center;"

_NUMBER = r"-?\d+(?:\.\d+)?"
_VIEWBOX = re.compile(rf'viewBox="({_NUMBER}) ({_NUMBER}) ({_NUMBER}) ({_NUMBER})"')
# Graphviz's groups are found by their class: their ids carry the picture's prefix
# (tgs0k3fa9c1_graph0, see layout.own_ids), so that two pictures in a page differ.
_TRANSLATE = re.compile(
    rf'<g\b[^>]*\bclass="graph"[^>]*translate\(({_NUMBER}) ({_NUMBER})\)')
_NODE = re.compile(r'<g id="([^"]+)" class="node\b[^"]*">(.*?)</g>', re.S)
_OUTLINE = re.compile(r'<(?:path|polygon)\b[^>]*?\s(?:d|points)="([^"]*)"')
_PAIR = re.compile(rf"({_NUMBER}),({_NUMBER})")


def node_centres(svg: str) -> dict[str, tuple[float, float]]:
    """Each box's centre in percent of the picture's width and height, by element id."""
    box, shift = _VIEWBOX.search(svg), _TRANSLATE.search(svg)
    if box is None or shift is None:
        return {}
    width, height = float(box.group(3)), float(box.group(4))
    dx, dy = float(shift.group(1)), float(shift.group(2))
    centres = {}
    for element_id, body in _NODE.findall(svg):
        outline = _OUTLINE.search(body)
        pairs = _PAIR.findall(outline.group(1)) if outline else []
        if not pairs or width <= 0 or height <= 0:
            continue
        xs = [float(x) for x, _ in pairs]
        ys = [float(y) for _, y in pairs]
        x = (min(xs) + max(xs)) / 2 + dx
        y = (min(ys) + max(ys)) / 2 + dy
        centres[element_id] = (100 * x / width, 100 * y / height)
    return centres


def anchors_html(svg: str) -> str:
    """The invisible anchors over every box of ``svg`` (``""`` if it cannot be read)."""
    return "".join(
        f'<i class="tg-at" id="{element_id}_at" style="left:{x:.2f}%;top:{y:.2f}%"></i>'
        for element_id, (x, y) in node_centres(svg).items()
    )


def following(graph_html: str, svg: str) -> str:
    """``graph_html`` (the picture, or why there is none) in the box that follows the
    running node (see the module's docstring)."""
    return (f'<div class="tg-scroll"><div class="tg-follow">{graph_html}{anchors_html(svg)}'
            "</div></div>")


__all__ = ["anchors_html", "following", "node_centres", "FOLLOW_VARS"]
