"""The stepper as one self-contained HTML fragment that steps with CSS alone.

No JavaScript, no network: an exported notebook (``jupyter nbconvert --to html``), a
book or any viewer without a kernel can still step through backward. How:

* one invisible radio button per frame (``<input type=radio id=P_f3>``), all siblings at
  the top of the stepper; clicking a ``<label for=P_f3>`` (the ◀ ▶ buttons, the numbered
  timeline) checks it, which browsers do without any script, and so do the arrow keys
  once Tab has reached the group (each radio is labelled with its frame's title);
* CSS selects on which radio is checked: ``#P_f3:checked ~ .tg-stage .tg-f3`` shows the
  panel of frame 3. For the graph, a box whose look changes at frame ``a`` and again at
  ``b`` gets one rule: "a radio at or after ``P_fa`` and before ``P_fb`` is checked",
  written ``#P_fa ~ :checked ~ #P_fb ~ .tg-stage #box`` (plus ``#P_fa:checked ~ ...``).
  So the CSS grows with the number of *changes*, not frames × boxes;
* the rules only set CSS variables (``--tg-node-fill``...) on a box; ``stepper.css``
  turns the variables into colours, so the look lives in one stylesheet.

The SVG is laid out once; frames differ only in these styles, so nothing moves.

Without CSS (a renderer that strips ``<style>``, such as JupyterLab for a notebook it does
not trust) all panels show one after the other: the text log of every step, under the
graph as it looks at the end, with a note that says so. The controls carry the
``hidden`` attribute, so they only appear where the CSS that makes them work is applied
(written ``hidden="hidden"``: JupyterLab's sanitiser drops attributes without a value).
"""

from __future__ import annotations

import html

from .assets import css
from .chain_rule import Panel
from .follow import FOLLOW_VARS
from .timeline import Timeline

#: what each state sets; stepper.css reads these variables (and holds the colours).
STATE_VARS = {
    "partial": "--tg-node-fill:var(--tg-partial-fill);--tg-node-dash:4 3;--tg-node-opacity:1;",
    "ready": "--tg-node-fill:var(--tg-ready-fill);--tg-node-opacity:1;--tg-grad-vis:visible;",
    "current": (
        "--tg-node-fill:var(--tg-current-fill);--tg-node-stroke:var(--tg-current);"
        "--tg-node-width:3;--tg-node-opacity:1;--tg-grad-vis:visible;"
        "--tg-arrow-color:var(--tg-current);--tg-arrow-width:2.4;--tg-arrow-opacity:1;"
        "--tg-label-vis:visible;--tg-label-weight:bold;"
    ),
    "active": (
        "--tg-node-fill:var(--tg-active-fill);--tg-node-opacity:1;"
        "--tg-arrow-opacity:1;--tg-label-vis:visible;"
    ),
    "done": (
        "--tg-node-fill:var(--tg-done-fill);--tg-node-opacity:1;--tg-grad-vis:visible;"
        "--tg-arrow-opacity:1;--tg-label-vis:visible;"
    ),
}
#: The ``hidden`` attribute with a value: JupyterLab's sanitiser (untrusted notebooks)
#: drops every attribute whose value is empty, and a bare ``hidden`` with it, which put
#: dead ◀ ▶ controls, radio buttons and the legend's list on screen.
HIDDEN = 'hidden="hidden"'
TIMELINE_LIMIT = 160  # more frames than this: no numbered strip, the ◀ ▶ buttons remain
LEGEND = (
    ("none", "no gradient yet"), ("partial", "some contributions"),
    ("ready", "complete, queued"), ("current", "running now"), ("done", "done"),
)


def frame_rules(prefix: str, timeline: Timeline) -> str:
    """The CSS that restyles the graph for every frame, from the radio that is checked."""
    by_state: dict[str, list[str]] = {}
    follow: list[str] = []  # the running node's anchor (follow.py)
    for element_id, runs in timeline.states.items():
        target = f"#{prefix}_{element_id}"
        for state, start, end in runs:
            if end is not None and end >= timeline.n_frames:
                end = None  # "until the last frame": there is no radio after the last one
            by_state.setdefault(state, []).extend(_when(prefix, start, end, target))
            if state == "current":
                follow.extend(_when(prefix, start, end, f"{target}_at"))
    rules = [f":is({','.join(selectors)}){{{STATE_VARS[state]}}}"
             for state, selectors in by_state.items()]
    if follow:
        rules.append(f":is({','.join(follow)}){{{FOLLOW_VARS}}}")
    return "\n".join(rules)


def _when(prefix: str, start: int, end: int | None, target: str) -> list[str]:
    """Selectors matching ``target`` while the checked frame is in ``[start, end)``."""
    before_end = f"#{prefix}_f{end}~" if end is not None else ""
    if start == 0:
        return [f":checked~{before_end}.tg-stage {target}"] if before_end else [target]
    at = f"#{prefix}_f{start}"
    return [
        f"{at}:checked~{before_end}.tg-stage {target}",
        f"{at}~:checked~{before_end}.tg-stage {target}",
    ]


def live_rules(prefix: str, timeline: Timeline, frame: int) -> str:
    """The CSS for one frame, for the live widget (it swaps this, and nothing else)."""
    states = timeline.frame_states(frame)
    rules = [f":is({','.join(f'#{prefix}_{i}' for i in ids)}){{{STATE_VARS[state]}}}"
             for state, ids in states.items()]
    if states.get("current"):  # the running node's anchor (follow.py)
        rules.append(f":is({','.join(f'#{prefix}_{i}_at' for i in states['current'])})"
                     f"{{{FOLLOW_VARS}}}")
    return "\n".join(rules)


def legend_html(legend=LEGEND) -> str:
    """What the colours mean: ``legend`` is ``((state, words), ...)``."""
    items = "".join(
        f'<li><i class="tg-sw tg-sw-{state}"></i>{html.escape(text)}</li>' for state, text in legend
    )
    return f'<ul class="tg-legend" {HIDDEN}>{items}</ul>'


def nav_html(prefix: str, frame: int, last: int) -> str:
    """The |◀ ◀ ▶ ▶| controls of one frame: labels that check a neighbouring frame's radio."""

    def button(target: int, text: str, title: str) -> str:
        if target == frame or not 0 <= target <= last:
            return f'<span class="tg-btn tg-off" aria-hidden="true">{text}</span>'
        return (
            f'<label class="tg-btn" for="{prefix}_f{target}" title="{title}">{text}</label>'
        )

    where = "start" if frame == 0 else f"step {frame} of {last}"
    return (
        f'<nav class="tg-nav" {HIDDEN}>'
        + button(0, "|◀", "First step")  # the names of the live view's buttons
        + button(frame - 1, "◀", "Previous step")
        + f'<span class="tg-pos">{where}</span>'
        + button(frame + 1, "▶", "Next step")
        + button(last, "▶|", "Last step")
        + "</nav>"
    )


def _dead_widget_rule(prefix: str) -> str:
    """Hide the live widget's output next to this copy while it holds only text.

    A notebook saved and opened again (a new kernel) keeps the live widget's output, whose
    model is gone: JupyterLab writes "Error displaying widget: model not found" there, as
    bare text, under this copy, which steps on its own. A rendered widget has elements
    (and hides this copy); "Loading widget..." is bare text too and goes the same way.
    """
    return (f".jp-OutputArea-child:has(#{prefix}.tg-static)+.jp-OutputArea-child"
            ">.jupyter-widgets:not(:has(*)){display:none}")


def graph_box_style(graph_width) -> str:
    """`` style="..."`` for the graph's column: grow to its full width, shrink to the basis
    before the panel beside it wraps below (``""`` without a width)."""
    if graph_width is None:
        return ""
    basis, most = graph_width
    return f' style="flex:1 1 {basis}px;max-width:min(100%,{most}px)"'


def _untrusted_note(log_note: str) -> str:
    """What the page shows above the log where it strips the CSS (graph.css hides
    ``.tg-untrusted``): what this is, and where the stepper that steps is."""
    return (f'<p class="tg-untrusted"><i>{html.escape(log_note)} Run this cell (or trust '
            "the notebook) to step through them one by one.</i></p>")


def spoken_region(panels: list[Panel]) -> str:
    """The polite live region: every frame's words (:attr:`.Panel.spoken`), of which the
    CSS shows (to a screen reader: stepper.css keeps it out of sight) the checked frame's,
    so a step is read out however it was taken (arrow keys, a click on ▶)."""
    words = "".join(f'<span class="tg-s{p.frame}">{html.escape(p.spoken or p.title)}</span>'
                    for p in panels)
    return (f'<p class="tg-say" role="status" aria-live="polite" aria-atomic="true" {HIDDEN}>'
            f"{words}</p>")


def static_stepper(
    prefix: str, svg: str, panels: list[Panel], timeline: Timeline, start: int = 0,
    legend=LEGEND, log_note: str = "Every step at once.", graph_width=None,
) -> str:
    """The whole CSS-only stepper: radios, timeline, graph, panels and their CSS.

    ``log_note`` says what the panels are where they all show at once (no CSS);
    ``graph_width`` is the graph column's ``(flex basis, largest width)`` in pixels."""
    last = len(panels) - 1
    radios = "".join(
        f'<input type="radio" class="tg-r" name="{prefix}" id="{prefix}_f{k}" {HIDDEN}'
        f'{" checked" if k == start else ""} '
        f'aria-label="{html.escape(panels[k].title, quote=True)}">'
        for k in range(len(panels))
    )
    show_panel = ",".join(f"#{prefix}_f{k}:checked~.tg-stage .tg-f{k}" for k in range(len(panels)))
    say = ",".join(f"#{prefix}_f{k}:checked~.tg-say .tg-s{k}" for k in range(len(panels)))
    rules = [css("graph.css"), css("stepper.css"), f"{show_panel}{{display:block}}",
             f"{say}{{display:inline}}", _dead_widget_rule(prefix)]
    strip = ""
    if len(panels) <= TIMELINE_LIMIT:
        marks = ",".join(
            f"#{prefix}_f{k}:checked~.tg-timeline .tg-t{k}" for k in range(len(panels))
        )
        # Dark text on the orange mark: white on it was 3:1 (light theme), 2:1 (dark).
        rules.append(f"{marks}{{background:var(--tg-current);color:#111;border-color:"
                     "var(--tg-current)}")
        strip = f'<div class="tg-timeline" {HIDDEN}>' + "".join(
            f'<label class="tg-t tg-t{k}" for="{prefix}_f{k}" '
            f'title="{html.escape(p.title, quote=True)}">{k}</label>'
            for k, p in enumerate(panels)
        ) + "</div>"
    rules.append(frame_rules(prefix, timeline))
    sections = "".join(
        f'<section class="tg-frame tg-f{p.frame}">{nav_html(prefix, p.frame, last)}{p.html}'
        "</section>"
        for p in panels
    )
    return (
        f'<div class="tg-stepper tg-static" id="{prefix}">'
        f"<style>{''.join(rules)}</style>{_untrusted_note(log_note)}{radios}"
        f"{spoken_region(panels)}{strip}"
        f'<div class="tg-stage"><div class="tg-graphbox"{graph_box_style(graph_width)}>'
        f"{svg}{legend_html(legend)}</div>"
        f'<div class="tg-panels">{sections}</div></div></div>'
    )


__all__ = ["static_stepper", "frame_rules", "live_rules", "nav_html", "STATE_VARS"]
