"""Step through a backward pass, node by node: ``teachgrad.notebook.step_backward(out)``.

::

    import teachgrad as torch
    from teachgrad.notebook import step_backward

    a = torch.ones(1, requires_grad=True)
    b = w1 * a; c = w2 * a; d = w3 * b + w4 * c; L = d ** 2
    step_backward(L, names=locals())   # instead of L.backward()

``step_backward`` *is* ``L.backward()`` (same arguments, same result: afterwards every
leaf's ``.grad`` holds what ``L.backward()`` would have put there), run under the
engine's observer. It returns a :class:`Stepper`, which Jupyter shows as

* the graph, laid out once; each step highlights the node that runs, marks finished
  nodes, writes the gradient sent along each arrow and colours every box by the state of
  its gradient (none yet / partial / complete and queued / done);
* the chain-rule panel of the step (:mod:`.chain_rule`): the local derivative, the
  numbers of ``upstream × local = contribution``, ``x.grad: old + new``, the ready queue;
* controls: |◀ ◀ ▶ ▶| buttons, a slider, and Play (with a speed slider).

The output carries both a live ipywidgets view (needs a running kernel) and a static
HTML version with every frame precomputed that steps with CSS alone
(:mod:`.static_html`), so exported notebooks still step.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from .._tensor import Tensor
from .assets import css
from .chain_rule import Panel, PanelWriter, snapshot_saved
from .graph import Labels, new_prefix, to_digraph, unavailable_html
from .graph_model import MAX_NODES, GraphModel, build
from .layout import LayoutUnavailable, layout_svg, tidy_svg
from .naming import Names
from .static_html import live_rules, static_stepper
from .steps import Recording, record_backward
from .timeline import Timeline, build_timeline
from .values import short_value

PLAY_INTERVAL_MS = 900


def step_backward(
    out,
    gradient=None,
    names: Mapping | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs=None,
    *,
    max_nodes: int = MAX_NODES,
    hide_no_grad: bool = False,
) -> Stepper:
    """Run ``out.backward(...)`` for real, recording every step, and return a stepper.

    Args:
        out: the tensor (or tensors) to differentiate, as in ``out.backward()``.
        gradient, retain_graph, create_graph, inputs: exactly as in ``Tensor.backward``.
        names: ``locals()`` or a dict, to label the graph and the panel with your names.
        max_nodes: above this many boxes the graph folds chains / summarises.
        hide_no_grad: leave out the faded ``None`` boxes.

    >>> import teachgrad as torch
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> stepper = step_backward(x * x, names={"x": x})
    >>> x.grad                      # the real backward ran
    tensor(6.)
    >>> [step.node.name() for step in stepper.steps]
    ['MulBackward0', 'torch::autograd::AccumulateGrad']
    """
    outputs = (out,) if isinstance(out, Tensor) else tuple(out)
    model = build(outputs, max_nodes=max_nodes, hide_no_grad=hide_no_grad)
    saved = snapshot_saved(model.index_of)  # backward frees these; the panels show them
    recording = record_backward(
        outputs, gradient, retain_graph=retain_graph, create_graph=create_graph,
        inputs=inputs, graph_nodes=model.index_of,
    )
    return Stepper(model, recording, Names(names), saved)


class Stepper:
    """A recorded backward pass, shown frame by frame.

    Frame 0 is "about to start"; frame ``k`` shows step ``k - 1`` having run.
    ``.steps`` are the engine's reports (copied), ``.panels`` the chain-rule panel of each
    frame, ``.timeline`` the look of every box per frame. ``.widget()`` is the live view;
    ``.static_html()`` the CSS-only one; ``.log()`` the plain-text log.
    """

    def __init__(self, model: GraphModel, recording: Recording, names: Names, saved: dict):
        self.model = model
        self.recording = recording
        self.names = names
        self.prefix = new_prefix("s")
        self.timeline: Timeline = build_timeline(model, recording)
        writer = PanelWriter(recording, names, model.roots, saved)
        self.panels: list[Panel] = writer.panels()
        labels = Labels(names, model.roots)
        self.digraph = to_digraph(
            model, labels, self.prefix, self._grad_lines(), self._arrow_labels()
        )
        self._titles = labels.titles(model, self.prefix)
        self._svg: str | None = None
        self._widget = None

    # --- what is shown ---------------------------------------------------------------------
    @property
    def steps(self) -> list:
        """The engine's step reports, in execution order (copies of the values)."""
        return self.recording.steps

    @property
    def n_frames(self) -> int:
        return len(self.panels)

    def _grad_lines(self) -> dict:
        """An extra last line per box: the gradient that arrived at it (hidden until then)."""
        lines = {}
        for record in self.recording.steps:
            box_id = self.model.box_of.get(record.node)
            if box_id is None or self.model.box(box_id).kind not in ("op", "leaf"):
                continue
            values = "; ".join(short_value(g) for g in record.grads_in)
            lines[box_id] = [("grad", f"grad {values}")]
        for k, seed in enumerate(self.recording.seeds):
            lines[f"t{k}"] = [("grad", f"grad {short_value(seed)}")]
        return lines

    def _arrow_labels(self) -> dict:
        """Each arrow that stands for one edge shows the gradient sent along it."""
        arrows = {a.id: a for a in self.model.arrows}
        labels = {}
        for record in self.recording.steps:
            for sent in record.sent:
                arrow_id = self.model.arrow_of.get((record.node, sent.index))
                if arrow_id is None or sent.value is None or sent.target is None:
                    continue
                if len(arrows[arrow_id].members) == 1:
                    labels[arrow_id] = short_value(sent.value)
        for k, seed in enumerate(self.recording.seeds):
            if f"r{k}" in arrows:
                labels[f"r{k}"] = short_value(seed)
        return labels

    def svg(self) -> str:
        """The graph, laid out once for all frames (raises LayoutUnavailable)."""
        if self._svg is None:
            self._svg = tidy_svg(layout_svg(self.digraph.source), self._titles)
        return self._svg

    def _graph_or_message(self) -> str:
        try:
            return self.svg()
        except LayoutUnavailable as error:
            return unavailable_html(str(error), self.digraph.source)

    def frame_css(self, frame: int) -> str:
        """The CSS of one frame for the live view (only styles change between frames)."""
        return live_rules(self.prefix, self.timeline, frame)

    def static_html(self, start: int = 0) -> str:
        """The stepper as HTML that steps without JavaScript (all frames included)."""
        return static_stepper(
            self.prefix, self._graph_or_message(), self.panels, self.timeline, start
        )

    def log(self) -> str:
        """Every frame's panel as plain text: what ran, in order, with the numbers."""
        return "\n\n".join(p.text for p in self.panels)

    # --- the live widget -----------------------------------------------------------------
    def widget(self):
        """The ipywidgets view: graph, chain-rule panel, |◀ ◀ ▶ ▶|, slider, Play + speed."""
        if self._widget is None:
            self._widget = _LiveView(self)
        return self._widget.box

    @property
    def frame(self) -> int:
        """The frame the live view shows (set it to move there)."""
        return self._widget.slider.value if self._widget is not None else 0

    @frame.setter
    def frame(self, value: int) -> None:
        self.widget()
        self._widget.slider.value = max(0, min(int(value), self.n_frames - 1))

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """Live widget for a running kernel, static HTML for exports, text for consoles."""
        bundle = {"text/plain": repr(self) + "\n\n" + self.log(), "text/html": self.static_html()}
        try:
            widget_bundle = self.widget()._repr_mimebundle_()
        except ImportError:
            widget_bundle = None
        if widget_bundle:
            key = "application/vnd.jupyter.widget-view+json"
            if key in widget_bundle:
                bundle[key] = widget_bundle[key]
        return bundle

    def __repr__(self) -> str:
        root = self.names.of_tensor(self.model.roots[0]) if self.model.roots else ""
        return (
            f"<teachgrad backward stepper{' of ' + root if root else ''}: "
            f"{len(self.steps)} steps, {self.model.total} autograd nodes>"
        )


class _LiveView:
    """The ipywidgets controls and views of one stepper (built on first display)."""

    def __init__(self, stepper: Stepper) -> None:
        import ipywidgets as w

        self.stepper = stepper
        last = stepper.n_frames - 1
        self.slider = w.IntSlider(
            value=0, min=0, max=last, step=1, description="step", continuous_update=True,
            layout=w.Layout(width="300px"),
        )
        self.play = w.Play(value=0, min=0, max=last, step=1, interval=PLAY_INTERVAL_MS,
                           description="play", tooltip="play")
        self.speed = w.IntSlider(
            value=PLAY_INTERVAL_MS, min=150, max=2500, step=50, description="ms/step",
            readout=True, layout=w.Layout(width="260px"),
        )
        # In the browser: Play drives the slider, the speed slider drives Play.
        w.jslink((self.play, "value"), (self.slider, "value"))
        w.jslink((self.speed, "value"), (self.play, "interval"))

        def button(text: str, tip: str, target) -> w.Button:
            b = w.Button(description=text, tooltip=tip, layout=w.Layout(width="42px"))
            b.on_click(lambda _b: self.go(target()))
            return b

        self.buttons = [
            button("|◀", "first", lambda: 0),
            button("◀", "previous step", lambda: self.slider.value - 1),
            button("▶", "next step", lambda: self.slider.value + 1),
            button("▶|", "last", lambda: last),
        ]
        prefix = stepper.prefix
        self.style = w.HTML(value=self._style(0))
        graph = w.HTML(
            value=(
                f'<div class="tg-stepper tg-live" id="{prefix}_live"><style>{css("graph.css")}'
                f'{css("stepper.css")}</style><div class="tg-stage"><div class="tg-graphbox">'
                f"{stepper._graph_or_message()}</div></div></div>"
            ),
            layout=w.Layout(flex="1 1 55%", min_width="260px"),
        )
        self.panel = w.HTML(value=self._panel(0), layout=w.Layout(flex="1 1 45%",
                                                                   min_width="300px"))
        self.slider.observe(lambda change: self.show(change["new"]), names="value")
        controls = w.HBox([self.buttons[0], self.buttons[1], self.play, self.slider,
                           self.buttons[2], self.buttons[3], self.speed],
                          layout=w.Layout(flex_flow="row wrap", align_items="center"))
        self.box = w.VBox([controls, w.HBox([graph, self.panel],
                                            layout=w.Layout(flex_flow="row wrap")),
                           self.style])

    def go(self, frame: int) -> None:
        self.slider.value = max(0, min(frame, self.stepper.n_frames - 1))

    def show(self, frame: int) -> None:
        """Move to ``frame``: swap the frame's CSS and panel (the SVG is not touched)."""
        self.style.value = self._style(frame)
        self.panel.value = self._panel(frame)

    def _style(self, frame: int) -> str:
        return f"<style>{self.stepper.frame_css(frame)}</style>"

    def _panel(self, frame: int) -> str:
        panel = self.stepper.panels[frame]
        where = "start" if frame == 0 else f"step {frame} of {self.stepper.n_frames - 1}"
        return (
            f'<div class="tg-stepper tg-panel-live" data-frame="{frame}">'
            f'<div class="tg-pos">{html.escape(where)}</div>{panel.html}</div>'
        )


__all__ = ["step_backward", "Stepper"]
