"""The tensor inspector: a tensor's autograd state as a table.

The seed lessons keep printing the same five attributes by hand::

    for t, name in zip([x, y, z], "xyz"):
        print(name, t.data, t.requires_grad, t.grad, t.grad_fn, t.is_leaf)

:func:`inspect` shows them at a glance, one column per tensor::

    >>> import teachgrad as torch
    >>> from teachgrad.notebook import inspect
    >>> x = torch.tensor(1.0, requires_grad=True)
    >>> y = torch.tensor(2.0)
    >>> z = x * y
    >>> inspect(x, y, z)
                   x        y        z
    shape          []       []       []
    dtype          float32  float32  float32
    data           1.       2.       2.
    requires_grad  True     False    True
    grad           None     None     not kept: non-leaf, call .retain_grad()
    grad_fn        None     None     MulBackward0 → AccumulateGrad, —
    is_leaf        True     True     False

In Jupyter the same table is drawn in HTML (``%load_ext teachgrad`` does this for every
tensor a cell displays).

How it works, in three steps, each a small function below:

1. **Read** each tensor into a :class:`Column` of plain-text cells (:func:`describe`).
   The inspector only *reads*: it looks at ``t._grad`` rather than ``t.grad`` (which warns
   for non-leaf tensors) and never creates graph nodes, so showing a tensor cannot change
   it or what ``backward()`` will do.
2. **Lay out** the columns as text (:func:`_text_table`): ``repr()``, plain consoles, and
   the fallback shown when a notebook viewer strips the CSS.
3. **Draw** them as an HTML table (:meth:`Inspection._repr_html_`), styled by
   ``static/inspector.css`` with JupyterLab's theme variables, so it follows the light
   or dark theme. No JavaScript, and the HTML is the same every time for the same tensors
   (no random ids, no memory addresses), so saved notebooks compare cleanly.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping

from .._printing import format_data
from .._tensor import Tensor
from ..autograd import forward_ad
from .assets import css, escape_text
from .short_traceback import ArgumentError

__all__ = ["Column", "Inspection", "describe", "inspect", "names_in", "table_name", "tensor_html"]

#: The table's rows, top to bottom: two header rows, then the five autograd attributes.
HEADER_ROWS = ("shape", "dtype")
BODY_ROWS = ("data", "requires_grad", "grad", "grad_fn", "is_leaf")
#: Inside ``forward_ad.dual_level()``, a table with a dual tensor gains this last row.
TANGENT_ROW = "tangent"

#: What the table says about the gradient of a non-leaf tensor that backward() does not keep.
NOT_KEPT = "not kept: non-leaf, call .retain_grad()"

#: Shown for an edge of ``next_functions`` that leads nowhere (an input that needs no grad).
NO_EDGE = "—"

# A node with very many inputs (a cat of 100 tensors) would make a very wide cell.
_MAX_EDGES_SHOWN = 8


# ---------------------------------------------------------------------------------------
# Step 1: read a tensor into text cells
# ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Cell:
    """One table cell: its text, and what kind of text it is.

    ``kind`` becomes a CSS class, so that ``None`` (nothing there) looks different from a
    value such as a zero gradient ``0.``: ``"value"``, ``"none"``, ``"note"`` (an
    explanation rather than a value), ``"true"`` or ``"false"``.
    """

    text: str
    kind: str = "value"


@dataclasses.dataclass(frozen=True)
class Column:
    """Everything the table shows about one tensor, already turned into text."""

    name: str
    cells: dict[str, Cell]


def node_name(node) -> str:
    """A ``grad_fn`` node's name as the lessons write it: ``MulBackward0``, ``AccumulateGrad``.

    PyTorch calls the leaf node ``torch::autograd::AccumulateGrad``; the C++ namespace only
    adds noise in a table.
    """
    return node.name().rsplit("::", 1)[-1]


def _grad_fn_cell(t: Tensor) -> Cell:
    """``MulBackward0 → AccumulateGrad, —``: the node, then where each of its edges leads."""
    node = t._grad_fn
    if node is None:
        return Cell("None", "none")
    edges = [NO_EDGE if fn is None else node_name(fn) for fn, _ in node.next_functions]
    if len(edges) > _MAX_EDGES_SHOWN:
        hidden = len(edges) - _MAX_EDGES_SHOWN
        edges = edges[:_MAX_EDGES_SHOWN] + [f"… ({hidden} more)"]
    if not edges:
        return Cell(node_name(node))
    return Cell(f"{node_name(node)} → {', '.join(edges)}")


def _grad_cell(t: Tensor) -> Cell:
    """The gradient, ``None``, or why a non-leaf has none."""
    grad = t._grad  # not t.grad: that property warns when read on a non-leaf tensor
    if grad is not None:
        text = format_data(grad._data)
        if grad._grad_fn is not None:  # backward(create_graph=True) records the grad too
            text += f"\n(grad_fn=<{node_name(grad._grad_fn)}>)"
        return Cell(text)
    if t._grad_fn is not None and not t.retains_grad:
        # backward() never stores a gradient here, so "None" would hide the reason.
        return Cell(NOT_KEPT, "note")
    return Cell("None", "none")


def _bool_cell(value: bool) -> Cell:
    return Cell(str(value), "true" if value else "false")


def _shape_text(t: Tensor) -> str:
    """``[2, 3]``; ``[]`` for a 0-d tensor (a single number)."""
    return "[" + ", ".join(str(n) for n in t._data.shape) + "]"


def describe(t: Tensor, name: str) -> Column:
    """Read ``t`` into a :class:`Column` of text cells, without changing it.

    Data and gradient are formatted by PyTorch's printing rules
    (:func:`teachgrad._printing.format_data`), which summarise large tensors, so a
    million-element tensor costs a few dozen formatted numbers.
    """
    cells = {
        "shape": Cell(_shape_text(t)),
        "dtype": Cell(t.dtype.name),
        "data": Cell(format_data(t._data)),
        "requires_grad": _bool_cell(t._requires_grad),
        "grad": _grad_cell(t),
        "grad_fn": _grad_fn_cell(t),
        "is_leaf": _bool_cell(t._grad_fn is None),
    }
    tangent = forward_ad.unpack_dual(t).tangent  # None outside a dual level
    if tangent is not None:
        cells[TANGENT_ROW] = Cell(format_data(tangent._data))
    return Column(name, cells)


def _body_rows(columns: tuple[Column, ...]) -> tuple[str, ...]:
    """The attribute rows: the five, and ``tangent`` when a column is a dual tensor."""
    if any(TANGENT_ROW in c.cells for c in columns):
        return (*BODY_ROWS, TANGENT_ROW)
    return BODY_ROWS


def _cell(column: Column, row: str) -> Cell:
    """``column``'s cell in ``row``; a tensor that is not dual has no tangent."""
    return column.cells.get(row) or Cell("None", "none")


# ---------------------------------------------------------------------------------------
# Step 2: the text table
# ---------------------------------------------------------------------------------------

_GAP = "  "  # between text columns


def _text_table(columns: tuple[Column, ...]) -> str:
    """The columns as aligned plain text; cells may span several lines (matrices)."""
    body_rows = _body_rows(columns)
    label_width = max(len(row) for row in HEADER_ROWS + body_rows)
    # Each row: a label and, per column, the lines of its cell.
    rows = [("", [[c.name] for c in columns])]
    rows += [(row, [_cell(c, row).text.split("\n") for c in columns]) for row in HEADER_ROWS]
    rows += [(row, [_cell(c, row).text.split("\n") for c in columns]) for row in body_rows]
    widths = [max(len(line) for _, cells in rows for line in cells[i]) for i in range(len(columns))]

    out = []
    for label, cells in rows:
        height = max(len(lines) for lines in cells)
        for k in range(height):
            parts = [(label if k == 0 else "").ljust(label_width)]
            for lines, width in zip(cells, widths):
                parts.append((lines[k] if k < len(lines) else "").ljust(width))
            out.append(_GAP.join(parts).rstrip())
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# Step 3: the HTML table
# ---------------------------------------------------------------------------------------


def stylesheet() -> str:
    """``static/inspector.css`` without its comments (every displayed table carries a copy
    of the CSS)."""
    return css("inspector.css")


def _escape(text: str) -> str:
    return escape_text(text)  # a 3-d tensor's blank lines must not end a Markdown export's HTML


def _html_text(cell: Cell) -> str:
    # A grad_fn list may wrap after a comma, but a "—" (an edge to nothing) wrapped onto a
    # line of its own reads like a stray dash: a no-break space keeps it with its comma.
    return _escape(cell.text.replace(f", {NO_EDGE}", f",\u00a0{NO_EDGE}"))


def _html_row(label: str, cells: list[Cell], section: str) -> str:
    tds = "".join(f'<td class="tg-{cell.kind}">{_html_text(cell)}</td>' for cell in cells)
    # The row's own class (tg-grad_fn ...) lets the stylesheet treat rows differently.
    return f'<tr class="tg-{section} tg-{label}"><th scope="row">{_escape(label)}</th>{tds}</tr>'


def table_name(columns: tuple[Column, ...]) -> str:
    """What a screen reader calls the table: ``autograd attributes of x, y and z``."""
    names = [c.name for c in columns]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"autograd attributes of {listed}"


def _html_table(columns: tuple[Column, ...]) -> str:
    names = "".join(f'<th scope="col" class="tg-name">{_escape(c.name)}</th>' for c in columns)
    # The corner heads the column of row labels: a screen reader says "attribute" with each
    # of them, where an empty header cell was read as nothing (or "blank"). Out of sight:
    # the labels below say what they are.
    corner = '<th scope="col" class="tg-corner"><span class="tg-sr">attribute</span></th>'
    head = [f"<tr>{corner}{names}</tr>"]
    head += [_html_row(row, [c.cells[row] for c in columns], "meta") for row in HEADER_ROWS]
    body = [_html_row(row, [_cell(c, row) for c in columns], "attr") for row in _body_rows(columns)]
    # display:none is undone by the stylesheet; where a viewer strips <style> (GitHub,
    # untrusted notebooks), the table stays hidden and the <pre> text version shows.
    return (
        f'<table class="tg-table" style="display:none" aria-label="{_escape(table_name(columns))}">'
        f"<thead>{''.join(head)}</thead><tbody>{''.join(body)}</tbody></table>"
    )


class Inspection:
    """What :func:`inspect` returns: a table of tensors that shows itself.

    In Jupyter it displays as an HTML table (``_repr_html_``); ``repr()`` and ``print()``
    give the same table as text. It is a snapshot: the values are read when it is created.
    """

    def __init__(self, columns: list[Column]) -> None:
        self.columns = tuple(columns)

    def to_text(self) -> str:
        """The table as aligned plain text."""
        if not self.columns:
            return "(no tensors to inspect)"
        return _text_table(self.columns)

    def _repr_html_(self) -> str:
        text = f'<pre class="tg-fallback">{_escape(self.to_text())}</pre>'
        table = _html_table(self.columns) if self.columns else ""
        return f'<div class="tg-inspect"><style>{stylesheet()}</style>{text}{table}</div>'

    def __repr__(self) -> str:
        return self.to_text()


# ---------------------------------------------------------------------------------------
# The public entry points
# ---------------------------------------------------------------------------------------


def names_in(t: Tensor, *scopes: Mapping) -> str | None:
    """The variable name(s) ``t`` goes by in the first scope that has one: ``"x"``, or
    ``"a = b"`` for aliases; ``None`` when no variable refers to it.

    Only public names count: IPython keeps every output in ``_``, ``_7`` ... as well.
    """
    for scope in scopes:
        names = [n for n, v in list(scope.items()) if v is t and not str(n).startswith("_")]
        if names:
            return " = ".join(names)
    return None


def _names_in_caller(t: Tensor, frame) -> str | None:
    """The variable name(s) the caller uses for ``t`` (its locals first, then its globals)."""
    if frame is None:
        return None
    if frame.f_globals is frame.f_locals:
        return names_in(t, frame.f_locals)
    return names_in(t, frame.f_locals, frame.f_globals)


def inspect(*tensors: Tensor | Mapping[str, object], **named: Tensor) -> Inspection:
    """Show tensors side by side: one column each with shape, dtype, data, requires_grad,
    grad, grad_fn and is_leaf.

    Three ways to name the columns::

        inspect(x, y, z)            # the caller's variable names: x, y, z
        inspect(w=x * 2)            # keyword names
        inspect(locals())           # every tensor in a dict (names starting with _ skipped)

    A tensor passed positionally that no variable refers to (``inspect(x * 2)``) is labelled
    by its position, ``Tensor #1``. Reading never changes a tensor: no warnings, no graph
    nodes created.
    """
    caller = sys._getframe(1)  # only to find the names the caller gave its tensors
    columns = []
    for position, item in enumerate(tensors, start=1):
        if isinstance(item, Tensor):
            name = _names_in_caller(item, caller) or f"{type(item).__name__} #{position}"
            columns.append(describe(item, name))
        elif isinstance(item, Mapping):
            for name, value in item.items():
                if isinstance(value, Tensor) and not str(name).startswith("_"):
                    columns.append(describe(value, str(name)))
        else:
            raise ArgumentError(
                f"inspect() expected tensors or a dict of them (argument {position}), but got "
                f"{type(item).__name__}"
            )
    for name, value in named.items():
        if not isinstance(value, Tensor):
            raise ArgumentError(
                f"inspect() expected a tensor for {name!r}, but got {type(value).__name__}"
            )
        columns.append(describe(value, name))
    return Inspection(columns)


def tensor_html(t: Tensor, name: str | None = None) -> str:
    """The HTML table for one tensor: what ``%load_ext teachgrad`` shows for a tensor.

    The column is titled ``name`` (the extension passes the notebook's variable names),
    or the tensor's class, ``Tensor``, for a value no variable holds (``x * 2``).
    """
    return Inspection([describe(t, name or type(t).__name__)])._repr_html_()
