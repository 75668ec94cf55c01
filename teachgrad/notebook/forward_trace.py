"""The evaluation trace of forward mode: every intermediate value next to its tangent.

Forward-mode AD is easiest to see as a table, one row per operation, in the order they
run: the value computed, and alongside it the tangent (how fast that value moves when
the inputs move along the chosen direction), computed from the tangents of the rows it
reads. This is the "forward primal and tangent trace" of the autodiff textbooks (Griewank
and Walther; Baydin et al., *Automatic differentiation in machine learning: a survey*)::

    def f(x1, x2):
        return torch.log(x1) + x1 * x2 - torch.sin(x2)

    evaluation_trace(f, (torch.tensor(2.), torch.tensor(5.)), (torch.tensor(1.), torch.tensor(0.)))

The rows are what forward AD really ran: the table listens to
:func:`teachgrad.autograd.forward_ad.observe` while ``f`` runs inside a dual level, and
reads the tangents forward AD computed. Nothing is computed twice.
"""

from __future__ import annotations

import dataclasses
import inspect as _inspect
import re
from collections.abc import Callable, Sequence

from .._printing import format_data
from .._tensor import Tensor
from ..autograd import forward_ad
from .assets import escape_text
from .inspector import stylesheet

__all__ = ["EvaluationTrace", "evaluation_trace"]

_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


@dataclasses.dataclass(frozen=True)
class TraceRow:
    """One line of the trace: a name, how it was computed, its value and its tangent."""

    name: str
    expression: str
    value: str
    tangent: str
    derivatives: str  # the op's local derivatives (its ``formula``), "" for an input


def op_label(op: type) -> str:
    """``MulBackward0`` -> ``mul``: the operation, not its backward node."""
    return _BACKWARD_SUFFIX.sub("", op.__name__).lower() or op.__name__


def _text(t) -> str:
    """A tensor's numbers as PyTorch prints them (a Python number as itself)."""
    return format_data(t._data) if isinstance(t, Tensor) else repr(t)


def evaluation_trace(
    func: Callable, primals: tuple, tangents: tuple, names: Sequence[str] | None = None
) -> EvaluationTrace:
    """Run ``func(*primals)`` in forward mode, the inputs moving along ``tangents``, and
    return the table of every intermediate value and its tangent.

    ``names`` label the inputs (default: ``func``'s parameter names); intermediate
    results are ``v1``, ``v2`` ... in the order they were computed.

    >>> import teachgrad as torch
    >>> trace = evaluation_trace(lambda x: torch.sin(x * x), (torch.tensor(1.),),
    ...                          (torch.tensor(1.),))
    >>> [(row.name, row.expression, row.tangent) for row in trace.rows]
    [('x', 'input', '1.'), ('v1', 'mul(x, x)', '2.'), ('v2', 'sin(v1)', '1.0806')]
    """
    if names is None:
        names = _parameter_names(func, len(primals))
    if len(names) != len(primals) or len(tangents) != len(primals):
        raise ValueError(
            f"evaluation_trace: got {len(primals)} primals, {len(tangents)} tangents and "
            f"{len(names)} names; give one tangent and one name per primal."
        )
    steps: list[forward_ad.ForwardStep] = []
    with forward_ad.dual_level(), forward_ad.observe(steps.append):
        duals = [forward_ad.make_dual(p, t) for p, t in zip(primals, tangents)]
        func(*duals)
        rows = _rows(duals, names, steps)
    return EvaluationTrace(rows)


def _parameter_names(func: Callable, count: int) -> list[str]:
    try:
        parameters = list(_inspect.signature(func).parameters)
    except (TypeError, ValueError):
        parameters = []
    if len(parameters) >= count:
        return parameters[:count]
    return [f"x{i + 1}" for i in range(count)]


def _rows(duals: list, names: Sequence[str], steps: list) -> list[TraceRow]:
    """Read the trace while the level is still entered (tangents vanish when it ends)."""
    known: dict[int, str] = {}  # id(tensor) -> its name in the table
    rows = []
    for dual, name in zip(duals, names):
        known[id(dual)] = name
        rows.append(TraceRow(name, "input", _text(dual),
                             _text(forward_ad.unpack_dual(dual).tangent), ""))
    for number, step in enumerate(steps, start=1):
        outputs = step.output if isinstance(step.output, tuple) else (step.output,)
        arguments = ", ".join(known.get(id(x), _text(x)) for x in step.inputs)
        name = f"v{number}"
        for k, out in enumerate(outputs):
            label = name if len(outputs) == 1 else f"{name}[{k}]"
            known[id(out)] = label
            tangent = forward_ad.unpack_dual(out).tangent
            rows.append(TraceRow(
                label, f"{op_label(step.op)}({arguments})", _text(out),
                "None" if tangent is None else _text(tangent), step.op.formula,
            ))
    return rows


_COLUMNS = ("", "computed as", "value", "tangent", "local derivatives")


class EvaluationTrace:
    """What :func:`evaluation_trace` returns: the table, as HTML in Jupyter and as text."""

    def __init__(self, rows: list[TraceRow]) -> None:
        self.rows = tuple(rows)

    def _cells(self) -> list[tuple[str, ...]]:
        return [(r.name, r.expression, r.value, r.tangent, r.derivatives) for r in self.rows]

    def to_text(self) -> str:
        """The trace as aligned plain text."""
        table = [_COLUMNS, *self._cells()]
        widths = [max(len(line) for row in table for line in row[i].split("\n"))
                  for i in range(len(_COLUMNS))]
        out = []
        for row in table:
            height = max(len(cell.split("\n")) for cell in row)
            for k in range(height):
                parts = []
                for cell, width in zip(row, widths):
                    lines = cell.split("\n")
                    parts.append((lines[k] if k < len(lines) else "").ljust(width))
                out.append("  ".join(parts).rstrip())
        return "\n".join(out)

    def _repr_html_(self) -> str:
        head = "".join(f'<th scope="col" class="tg-name">{escape_text(c)}</th>' for c in _COLUMNS)
        body = []
        for name, *cells in self._cells():
            tds = "".join(f'<td class="tg-value">{escape_text(c)}</td>' for c in cells)
            body.append(f'<tr><th scope="row">{escape_text(name)}</th>{tds}</tr>')
        table = (
            '<table class="tg-table tg-trace" style="display:none">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        )
        text = f'<pre class="tg-fallback">{escape_text(self.to_text())}</pre>'
        return f'<div class="tg-inspect"><style>{stylesheet()}</style>{text}{table}</div>'

    def __repr__(self) -> str:
        return self.to_text()
