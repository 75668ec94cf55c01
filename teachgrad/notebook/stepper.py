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
* controls: |◀ ◀ ▶ ▶| buttons, a step box, and Play (with a speed box).

Displaying it gives two outputs: a static HTML stepper with every frame precomputed that
steps with CSS alone (:mod:`.static_html`), and the live ipywidgets view
(:mod:`.live`), which hides the static copy wherever it renders. So a running notebook
shows the widget, and an exported one (nbconvert, a book, no kernel) still steps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .._tensor import Tensor
from ..autograd import graph as autograd_graph
from ..autograd.saved_hooks import PackedSaved
from .chain_rule import Panel, PanelWriter, snapshot_saved
from .follow import following
from .graph import Labels, new_prefix, rows_or_none, svg_html, to_digraph, unavailable_html
from .graph_model import MAX_NODES, GraphModel, as_tensors, build
from .layout import LayoutUnavailable, layout_svg, tidy_svg, width_px
from .naming import Names
from .short_traceback import ArgumentError, ShortTraceback
from .static_html import LEGEND, live_rules, static_stepper
from .steps import Recording, record_backward
from .timeline import Timeline, build_timeline
from .unpacked import unpacked_by_backward
from .values import count, short_value


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
    outputs = as_tensors(out, "step_backward")
    gradient = _checked_gradient(gradient)
    if gradient is None:
        _refuse_an_implicit_gradient(outputs, Names(names))
    model = build(outputs, max_nodes=max_nodes, hide_no_grad=hide_no_grad,
                  function="step_backward")
    if inputs is None:  # (with inputs=, the engine may never reach such a node)
        _refuse_a_used_graph(model, Names(names))
        _refuse_a_modified_graph(model)
    saved = snapshot_saved(model.index_of)  # backward frees these; the panels show them
    # (values packed by saved_tensors_hooks: as the real backward unpacks them, once)
    with unpacked_by_backward(model.index_of) as unpacked:
        recording = record_backward(
            outputs, gradient, retain_graph=retain_graph, create_graph=create_graph,
            inputs=inputs, graph_nodes=model.index_of,
        )
    saved.update(unpacked)
    return Stepper(model, recording, Names(names), saved)


def _checked_gradient(gradient):
    """``gradient`` as ``backward()`` takes it (a generator read into a list), or
    PyTorch's TypeError, before anything runs.

    The usual slip is ``step_backward(out, locals())`` or ``step_backward(out, {"x": x})``:
    the dict lands in ``gradient``, the second argument, as in ``out.backward(gradient)``,
    and NumPy failed deep inside ("could not convert string to float: 'x'").
    """
    if gradient is None or isinstance(gradient, Tensor):
        return gradient
    if isinstance(gradient, Mapping):
        raise ArgumentError(
            f"gradients can be either Tensors or None, but got {type(gradient).__name__}\n"
            "Hint: the second argument of step_backward() is gradient=, as in "
            "out.backward(gradient). To label the graph with your names, pass them by "
            "keyword: step_backward(out, names=locals()) or names={'x': x}."
        )
    items = list(gradient) if isinstance(gradient, Iterable) else [gradient]
    for item in items:
        if item is not None and not isinstance(item, Tensor):
            raise ArgumentError(
                f"gradients can be either Tensors or None, but got {type(item).__name__}\n"
                "Hint: gradient= is the gradient of each output, a tensor of its shape, "
                "e.g. gradient=torch.ones_like(out)."
            )
    return items


class NonScalarOutput(ShortTraceback, RuntimeError):
    """PyTorch's RuntimeError for ``backward()`` of a non-scalar without ``gradient=``,
    raised by ``step_backward`` before it starts, with a hint in step_backward's terms."""

    shown_as = RuntimeError


def _refuse_an_implicit_gradient(outputs: list, names: Names) -> None:
    """Raise PyTorch's "only for scalar outputs" error for an output of several elements.

    The engine would raise it too, but its hint speaks of ``out.backward(gradient=...)``;
    the learner here called ``step_backward(out)`` and should read how to call that. (An
    output that does not require grad is left to the engine, whose error comes first.)
    """
    for out in outputs:
        if out.requires_grad and out.numel() != 1:
            name = names.of_tensor(out).split(",")[0] or "out"
            raise NonScalarOutput(
                "grad can be implicitly created only for scalar outputs\n"
                f"Hint: {name} has shape torch.Size({list(out.shape)}), so backward() does "
                "not know how to weigh its elements. Step through a scalar, "
                f"step_backward({name}.sum()), or pass the vector of the vector-Jacobian "
                f"product: step_backward({name}, gradient=torch.ones_like({name}))."
            )


class GraphAlreadyUsed(ShortTraceback, RuntimeError):
    """PyTorch's RuntimeError for a second backward through a freed graph, raised by
    ``step_backward`` before it starts; in a notebook it shows the cell and the message."""

    shown_as = RuntimeError


def _refuse_a_used_graph(model: GraphModel, names: Names) -> None:
    """Raise PyTorch's "backward through the graph a second time" error up front.

    Re-running a ``step_backward`` cell without re-running the cells that build the graph
    is the usual way to get here. The engine would raise too, but only when it reaches
    the first node whose saved tensors are gone, after earlier steps may already have
    added to some leaves' ``.grad``; checking first leaves every ``.grad`` untouched.
    """
    if not any(getattr(node, "_saved", None) is autograd_graph._FREED for node in model.index_of):
        return
    what = ", ".join(filter(None, (names.of_tensor(r) for r in model.roots))) or "the output"
    raise GraphAlreadyUsed(
        f"{autograd_graph.BACKWARD_TWICE}\nHint: step_backward() calls backward(), and the "
        f"graph of {what} was already used by a backward pass (did this cell run before?). "
        f"Run the cells that compute {what} again, then this one; nothing was changed."
    )


class SavedTensorModified(ShortTraceback, RuntimeError):
    """PyTorch's RuntimeError for a saved tensor changed in place, raised by
    ``step_backward`` before it starts."""

    shown_as = RuntimeError


def _refuse_a_modified_graph(model: GraphModel) -> None:
    """Raise PyTorch's "modified by an inplace operation" error up front.

    The engine raises it too, but only at the node that saved the changed tensor, after
    the steps before it may have written some leaves' ``.grad`` (lesson 8's pitfall,
    stepped: a failed cell left ``b.grad`` filled in). The words are the engine's own.
    """
    for node in model.index_of:
        for value, source in _saved_pairs(node):
            if source is None:
                continue
            cell = source[0]._vc if len(source) == 2 else source[0]
            if cell[0] == source[1]:
                continue
            try:
                autograd_graph._raise_modified(node, value, source)
            except RuntimeError as error:
                raise SavedTensorModified(
                    f"{error}\nstep_backward() checked this before running backward(): "
                    "nothing was changed."
                ) from None


def _saved_pairs(node) -> list:
    """``[(value, source)]`` of what ``node`` saved and still holds (none once freed);
    a value packed by saved_tensors_hooks has no version to check (source None)."""
    saved = getattr(node, "_saved", None)
    if saved is None or saved is autograd_graph._FREED:
        return []
    if type(saved) is PackedSaved:
        return [(v, None if i in saved.packed else s)
                for i, (v, s) in enumerate(zip(saved.values, saved.sources))]
    try:
        values, sources = saved
    except (TypeError, ValueError):
        return []
    return list(zip(values, sources))


#: how far the graph may shrink to keep the chain-rule panel beside it (see graph_width)
SHRINK_BESIDE_PANEL = 0.8


class FramesView:
    """A graph laid out once, plus one look and one panel per frame.

    Shared by the backward stepper and the forward replay: ``timeline`` says how every
    box looks in each frame, ``panels`` what the side panel says. ``extra_lines`` and
    ``arrow_labels`` add text to boxes and arrows before the one and only layout (the
    timeline's CSS decides when that text is visible). ``.widget()`` is the live view;
    ``.static_html()`` the CSS-only one; ``.log()`` the plain-text log.
    """

    #: what the colours of the boxes mean in this view
    legend = LEGEND
    #: what the panels are, where a page without CSS shows them all at once
    log_note = "Every step of backward() at once, under the graph as it ends."

    def __init__(
        self,
        model: GraphModel,
        names: Names,
        timeline: Timeline,
        panels: list[Panel],
        extra_lines: dict,
        arrow_labels: dict,
    ) -> None:
        self.model = model
        self.names = names
        self.timeline = timeline
        self.panels = panels
        self.prefix = new_prefix("s")
        labels = Labels(names, model.roots)
        # The same rows as draw() of this graph, though the extra text makes boxes bigger.
        rows = rows_or_none(model, labels)
        self.digraph = to_digraph(model, labels, self.prefix, extra_lines, arrow_labels, rows)
        self._titles = labels.titles(model, self.prefix)
        self._svg: str | None = None
        self._static: dict = {}
        self._widget = None
        self._copies = 0  # static copies displayed so far (see copy_html)

    @property
    def n_frames(self) -> int:
        """How many frames (panels) there are."""
        return len(self.panels)

    def svg(self) -> str:
        """The graph, laid out once for all frames (raises LayoutUnavailable)."""
        if self._svg is None:
            self._svg = tidy_svg(layout_svg(self.digraph.source), self._titles,
                                 prefix=self.prefix)
        return self._svg

    def _graph_or_message(self, untrusted_copy: bool = True) -> str:
        """The graph for an HTML output (see :func:`.graph.svg_html`), or why there is none.

        The picture sits in a box that scrolls to the running node (see :mod:`.follow`)."""
        try:
            return following(svg_html(self.svg(), untrusted_copy), self.svg())
        except LayoutUnavailable as error:
            return unavailable_html(str(error), self.digraph.source)

    def graph_width(self) -> tuple[int, int] | None:
        """The graph column's flex basis and largest width, in pixels (None: no picture).

        Beside the panel the graph may shrink to ``SHRINK_BESIDE_PANEL`` of its size; the
        panel wraps below it only when even that leaves it no room. (With its full width
        as basis, lesson 3's 540-pixel graph pushed the panel under it in an 850-pixel
        cell, a screen away from the box it explains.)
        """
        try:
            natural = width_px(self.svg())
        except LayoutUnavailable:
            return None
        if natural is None:
            return None
        return round(natural * SHRINK_BESIDE_PANEL), round(natural)

    def frame_css(self, frame: int) -> str:
        """The CSS of one frame for the live view (only styles change between frames)."""
        return live_rules(self.prefix, self.timeline, frame)

    def static_html(self, start: int = 0) -> str:
        """The stepper as HTML that steps without JavaScript (all frames included)."""
        page = self._static.get(start)
        if page is None:
            page = self._static[start] = static_stepper(
                self.prefix, self._graph_or_message(), self.panels, self.timeline, start,
                self.legend, self.log_note, self.graph_width(),
            )
        return page

    def copy_html(self) -> str:
        """The static stepper for one more display of this stepper, with ids of its own.

        Its radio buttons, labels and CSS find each other by id. The first display uses
        the stepper's prefix (``tgs3``); showing the same stepper again (a cell ending
        with ``s`` after the one that made it) gets ``tgs3-2``, ``tgs3-3``...: with the
        same ids twice on one page (an exported notebook), the second copy's ◀ ▶ checked
        the first copy's radios, so it stepped the other stepper and never itself.
        """
        self._copies += 1
        page = self.static_html()
        if self._copies == 1:
            return page
        # The prefix where no letter, digit or dash runs into it (tgs3_f1, #tgs3.tg-static),
        # never part of another (tgs31).
        own = re.compile(rf"(?<![\w-]){re.escape(self.prefix)}(?![0-9A-Za-z-])")
        return own.sub(f"{self.prefix}-{self._copies}", page)

    def log(self, limit: int | None = None) -> str:
        """Every frame's panel as plain text: what ran, in order, with the numbers.

        ``limit``: keep only the first and last ``limit // 2`` frames (long passes).
        """
        panels = self.panels
        if limit is None or len(panels) <= limit:
            return "\n\n".join(p.text for p in panels)
        half = limit // 2
        skipped = f"… {len(panels) - 2 * half} more steps (the HTML view has them all) …"
        return "\n\n".join([p.text for p in panels[:half]] + [skipped]
                             + [p.text for p in panels[-half:]])

    # --- display ----------------------------------------------------------------------
    def widget(self):
        """The ipywidgets view: graph, chain-rule panel, |◀ ◀ ▶ ▶|, step box, Play + speed."""
        if self._widget is None:
            from .live import LiveView

            self._widget = LiveView(self)
        return self._widget.box

    @property
    def frame(self) -> int:
        """The frame the live view shows (set it to move there)."""
        return self._widget.step_box.value if self._widget is not None else 0

    @frame.setter
    def frame(self, value: int) -> None:
        self.widget()
        self._widget.go(int(value))

    def _ipython_display_(self) -> None:
        """Show two outputs: the static stepper, then the live widget.

        Two outputs, not one bundle, so that every viewer shows a stepper that works:
        Jupyter with a kernel shows both, and the live widget's CSS hides the static
        copy; an exported notebook (nbconvert, a book) shows the static one even when
        the widget state was saved and the widget manager cannot load (offline), because
        the static copy is an output of its own.
        """
        from IPython.display import display

        display(_StaticView(self))
        try:
            box = self.widget()
        except ImportError:  # no ipywidgets: the static stepper is all there is
            return
        display(_WidgetOnly(box))

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """The static stepper and the text log (for callers outside IPython's display)."""
        return _StaticView(self)._repr_mimebundle_()

class Stepper(FramesView):
    """A recorded backward pass, shown frame by frame.

    Frame 0 is "about to start"; frame ``k`` shows step ``k - 1`` having run.
    ``.steps`` are the engine's reports (copied), ``.panels`` the chain-rule panel of each
    frame, ``.timeline`` the look of every box per frame.
    """

    def __init__(self, model: GraphModel, recording: Recording, names: Names, saved: dict):
        self.recording = recording
        super().__init__(
            model,
            names,
            build_timeline(model, recording),
            PanelWriter(recording, names, model.roots, saved).panels(),
            _grad_lines(model, recording),
            _arrow_labels(model, recording),
        )

    @property
    def steps(self) -> list:
        """The engine's step reports, in execution order (copies of the values)."""
        return self.recording.steps

    def __repr__(self) -> str:
        root = self.names.of_tensor(self.model.roots[0]) if self.model.roots else ""
        return (
            f"<teachgrad backward stepper{' of ' + root if root else ''}: "
            f"{count(len(self.steps), 'step')}, {count(self.model.total, 'autograd node')}>"
        )


def _grad_lines(model: GraphModel, recording: Recording) -> dict:
    """An extra last line per box: the gradient that arrived at it (hidden until then)."""
    lines = {}
    for record in recording.steps:
        box_id = model.box_of.get(record.node)
        if box_id is None or model.box(box_id).kind not in ("op", "leaf"):
            continue
        values = "; ".join(short_value(g) for g in record.grads_in)
        lines[box_id] = [("grad", f"grad {values}")]
    for k, seed in enumerate(recording.seeds):
        lines[f"t{k}"] = [("grad", f"grad {short_value(seed)}")]
    return lines


def _arrow_labels(model: GraphModel, recording: Recording) -> dict:
    """Each arrow that stands for one edge shows the gradient sent along it."""
    arrows = {a.id: a for a in model.arrows}
    labels = {}
    for record in recording.steps:
        for sent in record.sent:
            arrow_id = model.arrow_of.get((record.node, sent.index))
            if arrow_id is None or sent.value is None or sent.target is None:
                continue
            if len(arrows[arrow_id].members) == 1:
                labels[arrow_id] = short_value(sent.value)
    for k, seed in enumerate(recording.seeds):
        if f"r{k}" in arrows:
            labels[f"r{k}"] = short_value(seed)
    return labels


class _StaticView:
    """The CSS-only stepper as one output (HTML, with the text log for consoles)."""

    def __init__(self, stepper: FramesView) -> None:
        self.stepper = stepper

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        s = self.stepper
        # The text twin is for consoles: long passes keep their beginning and end only.
        return {"text/html": s.copy_html(), "text/plain": f"{s!r}\n\n{s.log(limit=200)}"}


class _WidgetOnly:
    """The live widget as an output that shows nothing where widgets cannot render.

    (An ipywidget's own bundle carries ``text/plain`` like ``VBox(children=...)``, which
    an export without the widget state would print.)
    """

    def __init__(self, box) -> None:
        self.box = box

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        key = "application/vnd.jupyter.widget-view+json"
        return {key: self.box._repr_mimebundle_()[key], "text/plain": "", "text/html": ""}


__all__ = ["step_backward", "Stepper", "FramesView"]
