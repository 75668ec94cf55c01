"""Draw the backward graph: ``teachgrad.notebook.draw(out)``.

::

    import teachgrad as torch
    from teachgrad.notebook import draw

    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    out = (y * y * 3).mean()
    draw(out, names=locals())     # in Jupyter: the graph backward() will walk

Each box is one node of the graph (one ``grad_fn``, named as PyTorch names it, e.g.
``MulBackward0``); leaves that require grad appear as their ``AccumulateGrad`` with the
leaf's name and shape; the output tensor is the box where the first gradient starts.
Arrows point the way gradients flow. ``None`` boxes are inputs that need no gradient
(constants, tensors with ``requires_grad=False``), drawn faded.

The result is a :class:`Drawing`: Jupyter shows it as a picture, and ``.graph`` is the
``graphviz.Digraph`` (``.source`` is the DOT text; ``.render()``/``.save()`` write files).
"""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import os
import re
import secrets
from collections.abc import Mapping

from ..autograd import graph as autograd_graph
from ..autograd.graph import Node
from . import graph_model
from .assets import css
from .graph_model import MAX_NODES, GraphModel, as_saved, count_names, node_name
from .layout import LayoutUnavailable, layout_svg, node_positions, tidy_svg
from .naming import Names
from .values import count, shape_text, short_value

FONT = "Helvetica,Arial,sans-serif"
# Colours written into the SVG itself. They are what a viewer without our CSS shows
# (an <img>, a GitHub preview), so they must read well on white *and* on dark pages:
# light fills with dark text inside boxes, mid-grey arrows and arrow labels outside.
FILL = {
    "root": "#d4efd6", "op": "#eeeeee", "leaf": "#d3e5fb", "none": "#f7f7f7",
    "chain": "#eadcf2", "summary": "#eadcf2",
}
BORDER = {
    "root": "#43a047", "op": "#8a8a8a", "leaf": "#1e78d2", "none": "#b0b0b0",
    "chain": "#8e44ad", "summary": "#8e44ad",
}
DIM = "#6b6b6b"      # secondary lines (shapes); graph.css recolours exactly this value
GRAD = "#b35900"     # gradient values; graph.css recolours exactly this value
ARROW = "#8c8c8c"
NSLIMIT = "10"  # see to_digraph
STRAIGHT_ARROWS_ABOVE = 100  # boxes; see to_digraph
CHAIN_WEIGHT = "2"  # arrows between real boxes; see to_digraph
LABELS_BESIDE_ABOVE = 500  # boxes; see to_digraph
KEEP_ROWS_UP_TO = 100  # boxes; see plain_rows

_prefixes = itertools.count()
#: Set by notebooks/tools/build.py to the lesson's name in the kernel that runs the lesson.
MARK_SEED_VARIABLE = "TEACHGRAD_MARK_SEED"


def kernel_mark(seed: str | None = None) -> str:
    """A mark for this kernel's ids: ``k`` and six hex digits.

    Random without a ``seed`` (a live kernel), so two kernels' outputs never share an id.
    With one, it is drawn from the seed's hash: the lesson build gives each lesson its own
    name as the seed, so rebuilding a lesson writes the very same ids into its file (its
    git diff shows only what really changed), and two lessons still differ from each other.
    """
    if not seed:
        return "k" + secrets.token_hex(3)
    return "k" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:6]


#: This process's (this kernel's) mark in every id: the counter alone starts at 0 in every
#: kernel, so two notebooks' outputs exported into one page (a book) both had ``tgs0``,
#: and one stepper's ◀ ▶ stepped the other. tests/nbval_sanitize.cfg removes it when
#: stored outputs are compared. Random, unless the environment gives a seed (see
#: :func:`kernel_mark`).
KERNEL_MARK = kernel_mark(os.environ.get(MARK_SEED_VARIABLE))


def new_prefix(kind: str = "g") -> str:
    """A fresh id prefix (``tgg0k3fa9c1``, ``tgg1k3fa9c1``...) so several pictures can
    share a page: a counter, unique in this kernel, then :data:`KERNEL_MARK`, which tells
    this kernel's ids from another's."""
    return f"tg{kind}{next(_prefixes)}{KERNEL_MARK}"


class Drawing:
    """A drawn backward graph. Displays as SVG in Jupyter.

    ``.graph`` (also ``.digraph``) is the ``graphviz.Digraph``; ``.source`` its DOT text;
    ``.svg()`` the laid-out picture; ``.render(...)`` / ``.save(...)`` as in graphviz.
    """

    def __init__(self, digraph, model: GraphModel, prefix: str, titles: dict,
                 notes: tuple[str, ...] = ()) -> None:
        self.graph = digraph
        self.model = model
        self.prefix = prefix
        self._titles = titles
        #: sentences shown under the picture: why a tensor has no graph (see no_graph_notes)
        self.notes = notes
        self._svg: str | None = None

    @property
    def digraph(self):
        """The same ``graphviz.Digraph`` as ``.graph``."""
        return self.graph

    @property
    def source(self) -> str:
        """The DOT text of the graph."""
        return self.graph.source

    def render(self, *args, **kwargs):
        """Write the graph to a file (``graphviz.Digraph.render``; needs the ``dot`` program)."""
        return self.graph.render(*args, **kwargs)

    def save(self, *args, **kwargs):
        """Save the DOT text to a file (``graphviz.Digraph.save``)."""
        return self.graph.save(*args, **kwargs)

    def svg(self) -> str:
        """The laid-out SVG (computed once). Raises LayoutUnavailable without Graphviz."""
        if self._svg is None:
            self._svg = tidy_svg(layout_svg(self.source), self._titles, prefix=self.prefix)
        return self._svg

    # --- Jupyter display ----------------------------------------------------------------
    def _repr_svg_(self) -> str | None:
        try:
            return self.svg()
        except LayoutUnavailable:
            return None

    def _repr_html_(self) -> str:
        notes = "".join(f'<p class="tg-graph-note">{html.escape(n)}</p>' for n in self.notes)
        try:
            svg = self.svg()
        except LayoutUnavailable as error:
            return unavailable_html(str(error), self.source) + notes
        return (
            f'<div class="tg-graph" id="{self.prefix}"><style>{css("graph.css")}</style>'
            f"{svg_html(svg)}{notes}</div>"
        )

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """SVG for viewers that want a picture; HTML (SVG + theme-aware CSS) for Jupyter."""
        bundle = {"text/plain": repr(self), "text/html": self._repr_html_()}
        svg = self._repr_svg_()
        if svg is not None:
            bundle["image/svg+xml"] = svg
        else:
            bundle["text/plain"] = f"{repr(self)}\n{_unavailable_message()}\n\n{self.source}"
        return bundle

    def __repr__(self) -> str:
        m = self.model
        what = count(m.total, "autograd node")
        if m.mode != "full":
            what += f", drawn {m.mode} as {count(len(m.boxes), 'box', 'boxes')}"
        return "\n".join([f"<teachgrad graph of {what}; .source has the DOT text>",
                          *self.notes])


#: Above this many characters of SVG, an HTML output carries no ``<img>`` copy for
#: untrusted viewers (see :func:`svg_html`), only a note: the copy would add a third more
#: than the SVG itself to the notebook, and big drawings are rare in lessons.
UNTRUSTED_COPY_LIMIT = 100_000
UNTRUSTED_NOTE = (
    "(The picture shows when the notebook is trusted or this cell runs again: "
    "it is too big to carry a second copy for viewers that strip inline SVG.)"
)


def svg_html(svg: str, untrusted_copy: bool = True) -> str:
    """The laid-out SVG for an HTML output, readable where the page strips SVG and CSS.

    JupyterLab sanitises the HTML outputs of a notebook it does not trust (every lesson
    opened fresh, before it runs): ``<style>`` and ``<svg>`` elements go, their text
    stays, and a drawing became one line of jumbled labels. What survives is an inline
    ``style="display:none"`` and an ``<img>`` with a ``data:`` URI. So the SVG sits in a
    box hidden inline, which graph.css (applied only where the page keeps styles) shows,
    and an ``<img>`` of the same SVG follows, which graph.css hides. ``untrusted_copy=False``
    leaves the copy out (the live widget: it renders only with a kernel, unsanitised).
    """
    box = f'<div class="tg-pic" style="display:none">{svg}</div>'
    if not untrusted_copy:
        return box
    if len(svg) > UNTRUSTED_COPY_LIMIT:
        return box + f'<p class="tg-untrusted">{html.escape(UNTRUSTED_NOTE)}</p>'
    # The picture inside the <img> is a document of its own, where nothing looks for an
    # id; without them, it is the same in every kernel (ids carry a kernel's mark, which
    # the sanitizer of stored outputs could not find in base64).
    image = _ID_ATTRIBUTE.sub("", svg)
    data = base64.b64encode(image.encode("utf-8")).decode("ascii")
    named = _SVG_NAME.search(svg)  # (escaped already, as the SVG's attribute)
    alt = named.group(1) if named else "the backward graph"
    return (box + f'<img class="tg-untrusted" src="data:image/svg+xml;base64,{data}" '
            f'alt="{alt}" style="max-width:100%;height:auto">')


_SVG_NAME = re.compile(r'<svg\b[^>]*?\saria-label="([^"]*)"')
_ID_ATTRIBUTE = re.compile(r'\sid="[^"]*"')


def _unavailable_message() -> str:
    try:
        layout_svg("digraph {}")
    except LayoutUnavailable as error:
        return str(error)
    return ""


def unavailable_html(message: str, source: str) -> str:
    """What we show instead of a picture when no Graphviz is installed."""
    return (
        '<div class="tg-graph tg-graph-unavailable">'
        f"<p><b>No picture:</b> {html.escape(message)}</p>"
        f"<pre>{html.escape(source)}</pre></div>"
    )


def draw(
    out,
    names: Mapping | None = None,
    show_data: bool = False,
    show_grad: bool = False,
    show_saved: bool = False,
    hide_no_grad: bool = False,
    max_nodes: int = MAX_NODES,
) -> Drawing:
    """Draw the graph ``backward()`` would walk from ``out`` (a tensor or several).

    Args:
        out: the output tensor(s) whose graph to draw.
        names: ``locals()`` (or a dict ``{"x": x}`` / ``{x: "x"}``): label boxes with the
            names of the tensors they stand for.
        show_data: also show the values of tensors we can reach (outputs, leaves, named).
        show_grad: also show ``.grad`` of leaves and of tensors that ``retain_grad()``.
        show_saved: also list what each node saved for backward.
        hide_no_grad: leave out the faded ``None`` boxes (inputs needing no gradient).
        max_nodes: above this many boxes, fold chains and then summarise.

    >>> import teachgrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> drawing = draw((x * 3).sum(), names={"x": x})
    >>> "MulBackward0" in drawing.source
    True
    """
    model = graph_model.build(out, max_nodes=max_nodes, hide_no_grad=hide_no_grad)
    prefix = new_prefix("g")
    labels = Labels(Names(names), model.roots, show_data, show_grad, show_saved)
    rows = None
    if show_data or show_grad or show_saved:  # bigger boxes: keep the plain drawing's rows
        rows = rows_or_none(model, Labels(labels.names, model.roots))
    digraph = to_digraph(model, labels, prefix, rows=rows)
    return Drawing(digraph, model, prefix, labels.titles(model, prefix),
                   no_graph_notes(model.roots, labels.names))


def no_graph_notes(roots, names: Names) -> tuple[str, ...]:
    """Why each drawn tensor without a ``grad_fn`` has no graph above it, in words.

    A tensor made under ``no_grad``, by ``.detach()`` or without ``requires_grad=True``
    drew as one faded box with nothing to say why; a leaf that requires grad drew as its
    AccumulateGrad alone. (The three ways look the same afterwards: ``requires_grad`` is
    False and there is no ``grad_fn``; PyTorch cannot tell them apart either.)
    """
    notes = []
    for tensor in roots:
        if tensor.grad_fn is not None:
            continue
        # (one name in a sentence: "x.grad", not "x, t.grad" for a tensor with two)
        name = names.of_tensor(tensor).split(", ")[0]
        if tensor.requires_grad:
            notes.append(
                f"{name or 'This tensor'} is a leaf: it has no grad_fn, so backward() ends "
                f"at it, in the AccumulateGrad drawn here, which adds the gradient into "
                f"{name + '.grad' if name else 'its .grad'}.")
        else:
            notes.append(
                f"{name or 'This tensor'} has no graph: requires_grad is False and grad_fn "
                "is None, so no operation that made it was recorded (it was made without "
                "requires_grad=True, under torch.no_grad(), or by .detach()). "
                f"{name + '.backward()' if name else 'backward() from it'} would raise "
                '"element 0 of tensors does not require grad and does not have a grad_fn".')
    return tuple(notes)


# ----------------------------------------------------------------------------------------
# Labels
# ----------------------------------------------------------------------------------------
class Labels:
    """Writes the text of each box: name, node type, shape, and the optional extras."""

    def __init__(
        self, names: Names, roots=(), show_data=False, show_grad=False, show_saved=False
    ):
        self.names = names
        self._cache: dict = {}
        # An output tensor has its own box with its name; its grad_fn's box does not
        # repeat it.
        self._root_outputs = {
            (id(r._grad_fn), r._output_nr) for r in roots if r._grad_fn is not None
        }
        self.show_data = show_data
        self.show_grad = show_grad
        self.show_saved = show_saved

    def lines(self, model: GraphModel, box) -> list[tuple[str, str]]:
        """``[(style, text), ...]`` for one box; style is name/type/dim/value."""
        cached = self._cache.get(box.id)
        if cached is None:
            cached = self._cache[box.id] = self._lines(model, box)
        return cached

    def _lines(self, model: GraphModel, box) -> list[tuple[str, str]]:
        kind = box.kind
        if kind == "root":
            return self._root_lines(box.tensor)
        if kind == "none":  # with the name of what went in there, when it is known
            name = self.names.of_tensor(box.tensor) if box.tensor is not None else ""
            return [("name", name)] * bool(name) + [("type", "None"), ("dim", "no grad needed")]
        if kind in ("chain", "summary"):
            return self._group_lines(model, box)
        node = box.members[0]
        lines = []
        name = self.names.of_node(node)
        if name and (id(node), 0) not in self._root_outputs:
            lines.append(("name", name))
        lines.append(("type", node_name(node)))
        if kind == "leaf":
            leaf = node.variable
            lines.append(("dim", _shape_dtype(leaf._data.shape, leaf._data.dtype)))
            if self.show_data:
                lines.append(("value", "data " + short_value(leaf._data)))
            if self.show_grad:
                lines.append(("value", "grad " + short_value(leaf._grad)))
            return lines
        meta = node._meta
        lines.append(("dim", "  ".join(_shape_dtype(s, d) for s, d in meta) or "?"))
        for nr in range(len(meta)):
            tensor = self.names.tensor_of_output(node, nr)
            if tensor is None or (id(node), nr) in self._root_outputs:
                continue
            if self.show_data:
                lines.append(("value", "data " + short_value(tensor._data)))
            if self.show_grad and tensor.retains_grad:
                lines.append(("value", "grad " + short_value(tensor._grad)))
        if self.show_saved:
            lines.extend(("value", text) for text in saved_lines(node))
        return lines

    def _root_lines(self, tensor) -> list:
        lines = [("name", self.names.of_tensor(tensor) or "output")]  # "output" as in panels
        lines.append(("dim", _shape_dtype(tensor._data.shape, tensor._data.dtype)))
        if not tensor._requires_grad:
            lines.append(("dim", "requires_grad=False"))
        if self.show_data:
            lines.append(("value", "data " + short_value(tensor._data)))
        if self.show_grad and (tensor.retains_grad or tensor._grad_fn is None):
            lines.append(("value", "grad " + short_value(tensor._grad)))
        return lines

    def _group_lines(self, model: GraphModel, box) -> list:
        members = box.members
        top = sorted(count_names(members).items(), key=lambda kv: (-kv[1], kv[0]))
        if box.kind == "chain":
            lines = [("type", f"chain of {len(members):,} nodes")]
            lines.append(("dim", f"{node_name(members[0])} … {node_name(members[-1])}"))
        else:
            lines = [("type", f"{len(members):,} more nodes")]
            lines.append(("dim", f"too many to draw (limit {model.limit:,} boxes)"))
        for name, n in top[:6]:
            lines.append(("dim", f"{name} × {n:,}"))
        if len(top) > 6:
            lines.append(("dim", f"… {len(top) - 6} more kinds"))
        return lines

    def titles(self, model: GraphModel, prefix: str) -> dict:
        """Hover text per SVG element id: what a box stands for, in words. Under the
        key ``"svg"``: the picture's own name (:meth:`graph_name`)."""
        titles = {"svg": self.graph_name(model)}
        for box in model.boxes:
            text = " · ".join(t for _, t in self.lines(model, box))
            titles[f"{prefix}_{box.id}"] = text
        return titles

    def graph_name(self, model: GraphModel) -> str:
        """What a screen reader says for the whole picture, before its boxes (each of
        which it names by its hover text): ``"Backward graph of L: 7 boxes, 6 arrows"``.
        Without it the picture was an unnamed image."""
        roots = [self.names.of_tensor(box.tensor) for box in model.boxes
                 if box.kind == "root" and box.tensor is not None]
        of = ", ".join(name for name in roots if name) or "the output"
        return (f"Backward graph of {of}: {count(len(model.boxes), 'box', 'boxes')}, "
                f"{count(len(model.arrows), 'arrow')}")


def saved_lines(node: Node, limit: int = 4) -> list[str]:
    """What ``node`` saved for backward, one short line each."""
    saved = getattr(node, "_saved", None)
    if saved is None:
        return []
    if saved is autograd_graph._FREED:
        return ["saved: freed by backward()"]
    try:
        values, sources = saved
    except (TypeError, ValueError):
        return []
    # None: a slot the op chose not to fill; an input as PyTorch keeps it (an int x, not
    # the float32 copy x * y computed with: "saved 4", as _saved_self prints tensor(4))
    values = [as_saved(v, s) for v, s in zip(values, sources) if v is not None]
    lines = [f"saved {short_value(v)}" for v in values[:limit]]
    if len(values) > limit:
        lines.append(f"… {len(values) - limit} more saved")
    return lines


def _shape_dtype(shape, dtype) -> str:
    text = shape_text(shape) if len(shape) else "scalar"
    if str(dtype) != "float32":  # the default dtype goes unsaid, as in PyTorch's repr
        text += f" {dtype}"
    return text


_STYLE = {
    "name": ('<B>', '</B>'),
    "type": ("", ""),
    "dim": (f'<FONT POINT-SIZE="9" COLOR="{DIM}">', "</FONT>"),
    "value": ('<FONT POINT-SIZE="9">', "</FONT>"),
    "grad": (f'<FONT POINT-SIZE="9" COLOR="{GRAD}">', "</FONT>"),
}


def html_label(lines: list[tuple[str, str]], max_chars: int = 48, pad: int = 0) -> str:
    """A Graphviz HTML-like label (``<...>``), every text escaped.

    ``pad`` puts the text in a borderless table with that much padding (arrow labels:
    keeps the labels of two parallel arrows from touching).
    """
    parts = []
    for style, text in lines:
        if len(text) > max_chars:
            text = text[: max_chars - 1] + "…"
        start, end = _STYLE[style]
        parts.append(f"{start}{html.escape(text)}{end}")
    body = "<BR/>".join(parts)
    if pad:
        body = (f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="{pad}">'
                f"<TR><TD>{body}</TD></TR></TABLE>")
    return "<" + body + ">"


# ----------------------------------------------------------------------------------------
# The graphviz.Digraph
# ----------------------------------------------------------------------------------------
def to_digraph(
    model: GraphModel,
    labels: Labels,
    prefix: str,
    extra_lines: dict | None = None,
    arrow_labels: dict | None = None,
    rows: list[list[str]] | None = None,
):
    """Build the ``graphviz.Digraph``: one DOT node per box, one DOT edge per arrow.

    ``extra_lines`` adds ``(style, text)`` lines to boxes and ``arrow_labels`` text on
    arrows (the stepper shows gradients there). SVG ids are ``<prefix>_<box or arrow id>``.
    ``rows`` (from :func:`plain_rows`) keeps the boxes in those rows, in that order.
    """
    try:
        import graphviz
    except ImportError as error:
        raise ImportError(
            "Drawing graphs needs the graphviz Python package: pip install graphviz pygraphviz"
        ) from error
    extra_lines = extra_lines or {}
    arrow_labels = arrow_labels or {}
    # An arrow's label is a box of its own to dot, in a row of its own: it doubles the rows
    # and its last phase (placing boxes sideways) grows faster than the boxes squared. A
    # stepper of 1,000 boxes took 1.3 s of CPU to lay out, of 2,000 boxes 7 to 16 s. Above
    # LABELS_BESIDE_ABOVE boxes the gradients are written beside their arrows (xlabel,
    # placed after the layout, in rows spaced wider for them): 2,000 boxes in 1.9 s.
    labels_beside = bool(arrow_labels) and len(model.boxes) > LABELS_BESIDE_ABOVE
    g = graphviz.Digraph(
        name=prefix,
        graph_attr={
            "rankdir": "TB", "bgcolor": "transparent", "nodesep": "0.25",
            # (gradients beside the arrows need the room a row of labels had: see below)
            "ranksep": "0.6" if labels_beside else "0.32",
            "pad": "0.08", "fontname": FONT,
            # A cap on dot's last phase (network simplex placing boxes sideways): without
            # it, a 180-box graph where every layer reuses one input took 15 s to 3 min;
            # with it, 1.5 s. Small graphs converge long before the cap: same picture.
            "nslimit": NSLIMIT,
            # Curved arrows are routed around every box, and with gradient labels on the
            # arrows (the stepper) that took 90 s for 240 boxes. Big drawings get
            # straight arrows, laid out in 3 s; small ones keep their curves.
            **({"splines": "line"} if len(model.boxes) > STRAIGHT_ARROWS_ABOVE else {}),
        },
        node_attr={
            "shape": "box", "style": "rounded,filled", "fontname": FONT, "fontsize": "11",
            "margin": "0.1,0.04", "penwidth": "1.2", "height": "0.3",
        },
        edge_attr={
            "color": ARROW, "arrowsize": "0.7", "fontname": FONT, "fontsize": "9",
            "fontcolor": ARROW, "penwidth": "1.2",
        },
    )
    for box in model.boxes:
        extra = extra_lines.get(box.id, [])
        lines = labels.lines(model, box) + extra
        classes = f"tg-{box.kind}"
        if extra and extra[-1][0] == "grad":
            classes += " tg-hasgrad"  # the stepper hides this last line until it is due
        attrs = {
            "id": f"{prefix}_{box.id}", "class": classes,
            "fillcolor": FILL[box.kind], "color": BORDER[box.kind],
        }
        if box.kind == "none":
            attrs.update(style="rounded,dashed,filled", fontcolor="#8c8c8c")
        elif box.kind in ("chain", "summary"):
            attrs["style"] = "rounded,dashed,filled"
        g.node(box.id, label=html_label(lines), **attrs)
    label_attribute = "xlabel" if labels_beside else "label"
    for arrow in model.arrows:
        attrs = {"id": f"{prefix}_{arrow.id}"}
        if model.box(arrow.head).kind == "none":
            attrs.update(style="dashed", color="#b0b0b0", arrowhead="empty")
        else:
            # dot centres a box over its inputs; with a None beside every real input
            # (``h = h * 0.9 + 1`` in a loop) the chain drifts sideways at each op, and
            # 40 layers became a staircase 4,000 points wide, mostly empty. Heavier
            # arrows between real boxes are kept straight; the None boxes move instead.
            attrs["weight"] = CHAIN_WEIGHT
        text = arrow_labels.get(arrow.id)
        if text:
            attrs[label_attribute] = html_label([("grad", text)], max_chars=28, pad=3)
        g.edge(arrow.tail, arrow.head, **attrs)
    for row in rows or ():
        _keep_in_order(g, row)
    return g


def plain_rows(model: GraphModel, labels: Labels) -> list[list[str]]:
    """The box ids of each row of the plain drawing, top to bottom, left to right.

    Graphviz orders the boxes of a row to avoid crossing arrows, but with ties it goes
    by the boxes' sizes: the stepper's gradient lines and arrow labels, or
    ``show_data=True``, could swap ``a`` and ``b`` between two pictures of one graph. So
    every picture of a graph is laid out with the rows of its plain drawing (this
    layout, without extras), and a learner finds each box where ``draw()`` put it.

    That costs a second layout. Above ``KEEP_ROWS_UP_TO`` boxes it can take seconds (a
    244-box graph: 7 s, nearly all of it Graphviz placing boxes sideways, after it has
    ordered them); there each picture keeps Graphviz's own order.
    """
    if len(model.boxes) > KEEP_ROWS_UP_TO:
        return []
    positions = node_positions(to_digraph(model, labels, "plain").source)
    by_height: dict[float, list] = {}
    for box_id, (x, y) in positions.items():
        by_height.setdefault(round(y, 1), []).append((x, box_id))
    return [[box_id for _, box_id in sorted(row)]
            for _, row in sorted(by_height.items(), reverse=True)]  # y grows upwards


def rows_or_none(model: GraphModel, labels: Labels) -> list[list[str]] | None:
    """:func:`plain_rows`, or None where Graphviz is missing (the picture says so later)."""
    try:
        return plain_rows(model, labels)
    except LayoutUnavailable:
        return None


def _keep_in_order(g, row: list[str]) -> None:
    """Pin ``row``: the same rank, left to right, by invisible arrows between neighbours.

    Graphviz keeps an arrow between two boxes of one rank pointing left to right, so the
    chain fixes the order. (Not with ``weight=0``: such arrows are dropped when boxes
    are ordered.)
    """
    if len(row) < 2:
        return
    with g.subgraph() as same_rank:
        same_rank.attr(rank="same")
        for left, right in zip(row, row[1:]):
            same_rank.edge(left, right, style="invis")


__all__ = ["draw", "Drawing", "Labels", "to_digraph", "plain_rows", "rows_or_none", "html_label",
           "new_prefix", "svg_html"]
