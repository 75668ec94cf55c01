"""The live stepper: ipywidgets controls around the graph and the chain-rule panel.

Stepping happens in the browser, without a round trip to the kernel: each frame is a
small HTML widget (the frame's ``<style>`` plus its panel) inside an ipywidgets ``Stack``,
and the step box's value is linked to the stack's selected child with ``jslink``. The
``Stack`` shows one child at a time, so exactly one frame's style is active; the graph
widget itself never changes (the SVG is not re-rendered, it is only restyled). ``Play``
drives the step box, and a speed box drives Play's speed, all linked in the browser,
so a saved notebook whose widget state is embedded still steps without a kernel, and a
student can step while the kernel is busy with another cell.

The step buttons |◀ ◀ ▶ ▶| step in the browser too. A ``Button`` can only tell the kernel
it was clicked (60-160 ms a click, nothing at all while the kernel runs a cell), so each
of the four is a ``ToggleButtons`` with one button per frame, its ``index`` linked to the
step box: clicking button ``k`` selects frame ``k``, in the browser. ``stepper.css``
shows one button of each group, picked from the selected one (``.mod-active``): the one
after it (▶), the one before it (◀), the first (|◀), the last (▶|). A small script
(``static/step_buttons.js``) keeps the keyboard focus on the group after a step, and lets
each group find its buttons directly (ipywidgets searched for each of them at every step:
4 x 400 searches through up to 400 buttons at the 400-frame limit) and change the class of
only the two buttons whose selection changes (ipywidgets rewrote all 4 x 400); where it
does not run, the step buttons still step, more slowly.

Above ``CLIENT_SIDE_LIMIT`` frames one widget per frame would be slow to open, so the
kernel swaps a single frame widget's content instead (needs the running kernel).

The widget's CSS also hides the static (CSS-only) copy of the same stepper, which is
displayed as a separate output for viewers without widgets (see ``Stepper._ipython_display_``).
"""

from __future__ import annotations

import html

from .assets import css, script
from .static_html import HIDDEN, legend_html

PLAY_INTERVAL_MS = 900
CLIENT_SIDE_LIMIT = 400
#: the step buttons: (which, spoken name); stepper.css draws the glyphs
STEP_BUTTONS = (("first", "First step"), ("previous", "Previous step"),
                ("next", "Next step"), ("last", "Last step"))


class LiveView:
    """The widgets of one stepper. ``.box`` is what gets displayed."""

    def __init__(self, stepper) -> None:
        import ipywidgets as w

        self.stepper = stepper
        last = stepper.n_frames - 1
        # Every control has a name a screen reader reads (checked in a real browser by
        # tests/browser/test_lab_stepper_access.py). ipywidgets' sliders cannot have one:
        # their handle is a <div role="slider"> that no <label> or trait names, so the
        # step and the speed are number boxes, whose <input> their description labels.
        self.step_box = w.BoundedIntText(
            value=0, min=0, max=last, step=1, description="Step",
            layout=w.Layout(width="130px"), style={"description_width": "initial"},
        )
        # Play's own buttons are icons with no name at all (Chromium reads the icon font's
        # private character), so Play is hidden and driven by a labelled toggle, in the
        # browser: toggle <-> Play's `playing`, Play's value <-> the step box.
        # No "repeat": looping a backward pass only hides where it ends.
        self.play = w.Play(value=0, min=0, max=last, step=1, interval=PLAY_INTERVAL_MS,
                           show_repeat=False, layout=w.Layout(display="none"))
        self.play_button = w.ToggleButton(value=False, description="", tooltip="Play or pause",
                                          layout=w.Layout(width="84px"))
        self.play_button.add_class("tg-play")  # stepper.css writes "Play" or "Pause" in it
        self.speed = w.BoundedIntText(
            value=PLAY_INTERVAL_MS, min=150, max=2500, step=50, description="ms per step",
            layout=w.Layout(width="170px"), style={"description_width": "initial"},
        )
        w.jslink((self.play_button, "value"), (self.play, "playing"))
        w.jslink((self.play, "value"), (self.step_box, "value"))
        w.jslink((self.speed, "value"), (self.play, "interval"))
        client_side = stepper.n_frames <= CLIENT_SIDE_LIMIT
        if client_side:
            # One Layout and one Style for the four groups (fewer widget models to open).
            # The buttons' width is in stepper.css: a Style's button_width is written on
            # every button of the group at every step (ipywidgets re-applies the style
            # after each update), restyling 1,600 buttons per step at 400 frames.
            shared = {"layout": w.Layout(width="auto"), "style": w.ToggleButtonsStyle()}
            self.links: list = []  # the step buttons' jslinks to the step box
            self.buttons = [self._step_buttons(w, which, name, shared)
                            for which, name in STEP_BUTTONS]
        else:  # the frames come from the kernel anyway: plain buttons that ask it
            targets = (lambda: 0, lambda: self.step_box.value - 1,
                       lambda: self.step_box.value + 1, lambda: last)
            self.buttons = [self._button(w, which, name, target)
                            for (which, name), target in zip(STEP_BUTTONS, targets)]
        width = stepper.graph_width()  # see FramesView.graph_width
        graph = w.HTML(
            value=self._graph_html(),
            layout=w.Layout(width="auto", flex="0 1 auto", min_width="240px") if width is None
            else w.Layout(width="auto", flex=f"1 1 {width[0]}px", max_width=f"{width[1]}px",
                          min_width="240px"),
        )
        frame_layout = w.Layout(width="auto", flex="1 1 320px", min_width="300px")
        if client_side:
            # One Layout and one Style shared by all frames: otherwise every frame would
            # bring two more widget models along, tripling the cost of opening.
            # As wide as the Stack and no wider: a wide value scrolls inside the panel
            # (at its content's width, the frame overflowed the Stack and was cut off).
            first = w.HTML(value=self.frame_html(0), layout=w.Layout(width="100%",
                                                                     min_width="0"))
            shared = {"layout": first.layout, "style": first.style}
            self.frames = [first] + [
                w.HTML(value=self.frame_html(k), **shared) for k in range(1, stepper.n_frames)
            ]
            self.stack = w.Stack(children=self.frames, selected_index=0, layout=frame_layout)
            w.jslink((self.step_box, "value"), (self.stack, "selected_index"))
            right = self.stack
        else:
            self.stack = None
            self.single = w.HTML(value=self.frame_html(0), layout=frame_layout)
            self.step_box.observe(self._swap, names="value")
            right = self.single
        # Three groups that wrap as wholes in a narrow cell: the step buttons side by
        # side (Play between ◀ and ▶ read as "next"), the step box, then Play with its
        # speed.
        row = {"align_items": "center"}
        controls = w.HBox(
            [w.HBox(self.buttons, layout=w.Layout(**row, margin="0 12px 0 0")), self.step_box,
             w.HBox([self.play_button, self.speed, self.play],
                    layout=w.Layout(**row, flex_flow="row wrap", margin="0 0 0 12px"))],
            layout=w.Layout(flex_flow="row wrap", **row),
        )
        controls.add_class("tg-controls")  # where step_buttons.js looks for the groups
        row = w.HBox([graph, right], layout=w.Layout(flex_flow="row wrap"))
        row.add_class("tg-steprow")  # stepper.css: a narrow row keeps the panel in view
        self.box = w.VBox([controls, row])

    def _button(self, w, which: str, name: str, target):
        """A step button that asks the kernel to step (steppers above CLIENT_SIDE_LIMIT)."""
        button = w.Button(description="", tooltip=name, layout=w.Layout(width="42px"))
        button.add_class(f"tg-go-{which}")
        button.on_click(lambda _button: self.go(target()))
        return button

    def _step_buttons(self, w, which: str, name: str, shared: dict):
        """One step button (``which``: first, previous, next, last) that steps in the browser.

        A ``ToggleButtons`` with one button per frame whose ``index`` is linked to the
        step box (see the module's docstring); stepper.css shows the one button of the
        group that goes where ``name`` says, with its glyph (|◀ ◀ ▶ ▶|) and ``name`` as
        its spoken text. The ``title`` of each button names it too.
        """
        n = self.stepper.n_frames
        group = w.ToggleButtons(options=frame_labels(n), index=0, tooltips=[name] * n,
                                **shared)
        group.add_class("tg-go")
        group.add_class(f"tg-go-{which}")
        self.links.append(w.jslink((self.step_box, "value"), (group, "index")))
        return group

    def go(self, frame: int) -> None:
        """Move to ``frame`` (clamped to the first and last frame), from the kernel.

        Every widget that shows the frame is set here, not by an observer of the step box:
        jslink moves them in the browser, and the browser sends each one's new value to
        the kernel. A kernel observer would echo each browser step back a moment later,
        and while the student clicked on, that late echo moved the stepper back a frame
        (a test clicking ▶ 52 times lost a step around the tenth).
        """
        frame = max(0, min(frame, self.stepper.n_frames - 1))
        self.step_box.value = frame
        if self.stack is not None:
            self.stack.selected_index = frame
            for group in self.buttons:
                group.index = frame

    def _swap(self, change) -> None:
        self.single.value = self.frame_html(change["new"])

    def current_html(self) -> str:
        """The HTML of the frame on show (its style and its panel)."""
        if self.stack is not None:
            return self.frames[self.stack.selected_index].value
        return self.single.value

    def frame_html(self, frame: int) -> str:
        """One frame: the CSS that restyles the graph, and the chain-rule panel."""
        panel = self.stepper.panels[frame]
        return (
            f"<style>{self.stepper.frame_css(frame)}</style>"
            f'<div class="tg-stepper tg-panel-live" data-frame="{frame}">{panel.html}'
            f"{spoken_html(panel)}</div>"
        )

    def _graph_html(self) -> str:
        static_id = self.stepper.prefix  # the static copy, shown where widgets are not
        # ...and its copies where the stepper is displayed again (tgs3-2: copy_html)
        copies = f':is(#{static_id},[id^="{static_id}-"]).tg-static'
        hide_static = (
            f"{copies}{{display:none}}"
            f".jp-OutputArea-child:has({copies}),"
            f".output_area:has({copies}){{display:none}}"
        )
        graph = self.stepper._graph_or_message(untrusted_copy=False) + legend_html(
            self.stepper.legend)
        onload = html.escape(script("step_buttons.js"), quote=True)
        return (
            f'<div class="tg-stepper tg-live" id="{static_id}_live">'
            f'<style onload="{onload}">{css("graph.css")}'
            f'{css("stepper.css")}{hide_static}</style>{SAY}<div class="tg-stage">'
            f'<div class="tg-graphbox">{graph}</div></div></div>'
        )


#: The polite live region of the live stepper: step_buttons.js writes into it what each
#: frame says when it comes on show (its ``spoken_html``), and a screen reader reads it
#: out when the student is done with the key (stepper.css hides it from the eye).
SAY = '<p class="tg-say" role="status" aria-live="polite" aria-atomic="true"></p>'


def spoken_html(panel) -> str:
    """The frame's announcement (:attr:`.Panel.spoken`), hidden: read by step_buttons.js."""
    return f'<p class="tg-spoken" {HIDDEN}>{html.escape(panel.spoken or panel.title)}</p>'


def frame_labels(n: int) -> list[str]:
    """The labels of a step button group's ``n`` buttons: ``"0"``, ``"1"``, ... (hidden).

    Button ``k`` of a group selects frame ``k``. Its label is ``str(k)`` because
    ipywidgets' ToggleButtons view compares each button's ``value``, which it sets to the
    button's index, with the label: where one differs, it throws away and redraws every
    button of the group. With any other labels, each step redrew all four groups, 1,600
    buttons at the 400-frame limit (profiled in Chromium: most of a step's 50 ms of
    JavaScript). stepper.css draws the glyph over a zero-sized label, so a screen reader
    says "Next step 5": the button's name, then the step it goes to.
    """
    return [str(k) for k in range(n)]


__all__ = ["LiveView", "CLIENT_SIDE_LIMIT"]
