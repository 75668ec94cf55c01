"""The live stepper: ipywidgets controls around the graph and the chain-rule panel.

Stepping happens in the browser, without a round trip to the kernel: each frame is a
small HTML widget (the frame's ``<style>`` plus its panel) inside an ipywidgets ``Stack``,
and the slider's value is linked to the stack's selected child with ``jslink``. The
``Stack`` shows one child at a time, so exactly one frame's style is active; the graph
widget itself never changes (the SVG is not re-rendered, it is only restyled). ``Play``
drives the slider, and a second slider drives Play's speed, all linked in the browser,
so a saved notebook whose widget state is embedded still steps without a kernel.

Above ``CLIENT_SIDE_LIMIT`` frames one widget per frame would be slow to open, so the
kernel swaps a single frame widget's content instead (needs the running kernel).

The widget's CSS also hides the static (CSS-only) copy of the same stepper, which is
displayed as a separate output for viewers without widgets (see ``Stepper._ipython_display_``).
"""

from __future__ import annotations

from .assets import css
from .static_html import legend_html

PLAY_INTERVAL_MS = 900
CLIENT_SIDE_LIMIT = 400


class LiveView:
    """The widgets of one stepper. ``.box`` is what gets displayed."""

    def __init__(self, stepper) -> None:
        import ipywidgets as w

        self.stepper = stepper
        last = stepper.n_frames - 1
        self.slider = w.IntSlider(
            value=0, min=0, max=last, step=1, description="step", continuous_update=True,
            layout=w.Layout(width="300px"),
        )
        # No "repeat" toggle: looping a backward pass only hides where it ends.
        self.play = w.Play(value=0, min=0, max=last, step=1, interval=PLAY_INTERVAL_MS,
                           description="play", tooltip="play", show_repeat=False)
        self.speed = w.IntSlider(
            value=PLAY_INTERVAL_MS, min=150, max=2500, step=50, description="ms/step",
            layout=w.Layout(width="260px"),
        )
        # In the browser: Play drives the slider, the speed slider drives Play.
        w.jslink((self.play, "value"), (self.slider, "value"))
        w.jslink((self.speed, "value"), (self.play, "interval"))
        self.buttons = [
            self._button(w, "|◀", "first", lambda: 0),
            self._button(w, "◀", "previous step", lambda: self.slider.value - 1),
            self._button(w, "▶", "next step", lambda: self.slider.value + 1),
            self._button(w, "▶|", "last", lambda: last),
        ]
        width = stepper.graph_width()  # see FramesView.graph_width
        graph = w.HTML(
            value=self._graph_html(),
            layout=w.Layout(width="auto", flex="0 1 auto", min_width="240px") if width is None
            else w.Layout(width="auto", flex=f"1 1 {width[0]}px", max_width=f"{width[1]}px",
                          min_width="240px"),
        )
        frame_layout = w.Layout(width="auto", flex="1 1 320px", min_width="300px")
        if stepper.n_frames <= CLIENT_SIDE_LIMIT:
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
            w.jslink((self.slider, "value"), (self.stack, "selected_index"))
            # The kernel's copy follows too (jslink only runs in the browser).
            self.slider.observe(self._select, names="value")
            right = self.stack
        else:
            self.stack = None
            self.single = w.HTML(value=self.frame_html(0), layout=frame_layout)
            self.slider.observe(self._swap, names="value")
            right = self.single
        # Three groups that wrap as wholes in a narrow cell: the step buttons side by
        # side (Play's ▷ icon between ◀ and ▶ read as "next"), the step slider, then
        # Play with its speed.
        row = {"align_items": "center"}
        controls = w.HBox(
            [w.HBox(self.buttons, layout=w.Layout(**row, margin="0 12px 0 0")), self.slider,
             w.HBox([self.play, self.speed], layout=w.Layout(**row, flex_flow="row wrap"))],
            layout=w.Layout(flex_flow="row wrap", **row),
        )
        self.box = w.VBox([controls, w.HBox([graph, right],
                                            layout=w.Layout(flex_flow="row wrap"))])

    def _button(self, w, text: str, tip: str, target):
        button = w.Button(description=text, tooltip=tip, layout=w.Layout(width="42px"))
        button.on_click(lambda _button: self.go(target()))
        return button

    def go(self, frame: int) -> None:
        """Move to ``frame`` (clamped to the first and last frame)."""
        self.slider.value = max(0, min(frame, self.stepper.n_frames - 1))

    def _select(self, change) -> None:
        self.stack.selected_index = change["new"]

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
            f'<div class="tg-stepper tg-panel-live" data-frame="{frame}">{panel.html}</div>'
        )

    def _graph_html(self) -> str:
        static_id = self.stepper.prefix  # the static copy, shown where widgets are not
        hide_static = (
            f"#{static_id}.tg-static{{display:none}}"
            f".jp-OutputArea-child:has(#{static_id}.tg-static),"
            f".output_area:has(#{static_id}.tg-static){{display:none}}"
        )
        graph = self.stepper._graph_or_message(untrusted_copy=False) + legend_html(
            self.stepper.legend)
        return (
            f'<div class="tg-stepper tg-live" id="{static_id}_live"><style>{css("graph.css")}'
            f'{css("stepper.css")}{hide_static}</style><div class="tg-stage">'
            f'<div class="tg-graphbox">{graph}</div></div></div>'
        )


__all__ = ["LiveView", "CLIENT_SIDE_LIMIT"]
