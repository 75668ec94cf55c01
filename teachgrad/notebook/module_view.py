"""``nn.Module`` and optimizer views: what ``%load_ext teachgrad`` shows for ``model`` and ``opt``.

PyTorch prints a model as its structure only::

    Sequential(
      (0): Linear(in_features=2, out_features=3, bias=True)
      (1): ReLU()
    )

After ``loss.backward()`` a learner wants to know about every parameter: did it get a
gradient, and how big is it? The module view keeps that text (its structure) and puts a
table of the parameters beside it: qualified name (``0.weight``, as ``named_parameters()``
and ``state_dict()`` say), shape, dtype, ``requires_grad``, and the gradient.

The gradient column shows ``None`` or the gradient's **norm** (its length, ``‖g‖₂``).
The norm, rather than the largest entry, because it is the number the tools a learner
meets next use: ``clip_grad_norm_`` clips by it and returns the norm of all gradients
together (the view's last line shows that same number), and "vanishing" or "exploding"
gradients are told apart by it. A zero gradient shows ``0``, not ``None``: after
``optimizer.zero_grad()`` (which sets ``.grad`` to None) and after a backward pass that
reached a parameter with zeros, a learner must see the difference.

Parameters are listed once each, as ``parameters()`` gives them (what an optimizer
updates); a shared (tied) parameter names its other names. Buffers (``running_mean`` of
a batch norm...) follow in their own part: saved with the model, not trained. A big model
keeps the view small: past :data:`MAX_ROWS` rows the middle is summarised in one row, and
the totals still count everything.

An optimizer shows one column per parameter group: which parameters it holds (named
after the notebook's models when it can find them), every hyperparameter, and what
``step()`` has stored so far (``exp_avg``, momentum buffers...) and how many numbers that is.

Both views, like the tensor table, only *read*: ``._grad`` (no warning), no graph nodes,
no entries added to ``optimizer.state`` (a ``defaultdict``: ``.get``, never ``[]``). Where a
viewer strips the CSS (GitHub, an untrusted notebook) the view is PyTorch's own text,
exactly ``repr(model)`` / ``repr(optimizer)``; ``text/plain`` is left as it is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from .._tensor import Tensor
from ..nn.modules.module import Module
from ..optim.optimizer import Optimizer
from .assets import css, escape_text
from .inspector import Cell, _bool_cell

__all__ = ["module_html", "optimizer_html", "parameter_names", "MAX_ROWS"]

#: More parameters (or buffers) than this: the first and last ones, and a row between.
MAX_ROWS = 24
_HEAD, _TAIL = 16, 4
#: The columns of the parameter table (the first, the name, is the row's header).
COLUMNS = ("shape", "dtype", "requires_grad", "grad")
#: An optimizer's parameter group names at most this many of its parameters.
_NAMES_SHOWN = 6


def _stylesheet() -> str:
    return css("inspector.css") + "\n" + css("module.css")


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _numel(t: Tensor) -> int:
    return int(t._data.size)


def _norm(t: Tensor) -> float:
    """The 2-norm of a tensor's values, in float64 (float16 grads would overflow)."""
    return float(np.linalg.norm(np.asarray(t._data, dtype=np.float64).ravel()))


def _number(x: float) -> str:
    """Four significant digits: ``0.8132``, ``1.2e-07``, ``0``, ``nan``, ``inf``."""
    if math.isnan(x) or math.isinf(x):
        return str(x)
    return f"{x:.4g}"


# ---------------------------------------------------------------------------------------
# The parameter table of a module
# ---------------------------------------------------------------------------------------


def _aliases(model: Module, registry: str) -> dict[int, list[str]]:
    """Every name of each tensor, by ``id``: a tied weight has two (``0.weight``, ``2.weight``)."""
    if registry == "params":
        pairs = model.named_parameters(remove_duplicate=False)
    else:
        pairs = model.named_buffers(remove_duplicate=False)
    names: dict[int, list[str]] = {}
    for name, t in pairs:
        names.setdefault(id(t), []).append(name)
    return names


def _name_cell(name: str, aliases: list[str]) -> str:
    others = [a for a in aliases if a != name]
    text = _escape(name)
    if others:  # shared: listed once, as parameters() lists it
        text += f'<span class="tg-alias"> = {_escape(" = ".join(others))}</span>'
    return text


def _grad_cell(t: Tensor) -> Cell:
    grad = t._grad  # not .grad: reading it never warns or changes anything
    if grad is None:
        return Cell("None", "none")
    return Cell(f"norm {_number(_norm(grad))}")


def _row(name: str, aliases: list[str], t: Tensor) -> str:
    cells = {
        "shape": Cell("[" + ", ".join(str(n) for n in t._data.shape) + "]"),
        "dtype": Cell(t.dtype.name),
        "requires_grad": _bool_cell(t._requires_grad),
        "grad": _grad_cell(t),
    }
    tds = "".join(f'<td class="tg-{cells[c].kind} tg-col-{c}">{_escape(cells[c].text)}</td>'
                  for c in COLUMNS)
    return f'<tr><th scope="row">{_name_cell(name, aliases)}</th>{tds}</tr>'


def _rows(items: list[tuple[str, Tensor]], aliases: dict[int, list[str]], what: str,
          listing: str) -> list[str]:
    """One row per tensor; past MAX_ROWS the first and last ones and a row that counts the rest."""
    if len(items) <= MAX_ROWS:
        return [_row(n, aliases[id(t)], t) for n, t in items]
    hidden = len(items) - _HEAD - _TAIL
    skipped = (f'<tr class="tg-more"><td colspan="{len(COLUMNS) + 1}">… {hidden:,} more {what}s'
               f" ({_escape(listing)} lists them all)</td></tr>")
    return ([_row(n, aliases[id(t)], t) for n, t in items[:_HEAD]] + [skipped]
            + [_row(n, aliases[id(t)], t) for n, t in items[-_TAIL:]])


def _section(title: str) -> str:
    return (f'<tr class="tg-section"><th scope="rowgroup" colspan="{len(COLUMNS) + 1}">'
            f"{_escape(title)}</th></tr>")


def _summary(params: list[tuple[str, Tensor]], buffers: list[tuple[str, Tensor]]) -> str:
    """``3 parameters (1 frozen) · 1 buffer``.

    Tensors are counted, not their numbers: "how many numbers does this model learn?" is
    an exercise of lesson 11, answered from the shapes in the table.
    """
    text = _count(len(params), "parameter")
    frozen = sum(1 for _, p in params if not p._requires_grad)
    if frozen:
        text += f" ({frozen:,} frozen)"
    if buffers:
        text += f" · {_count(len(buffers), 'buffer')}"
    return text


def _total_norm(params: list[tuple[str, Tensor]]) -> str:
    """The norm of all gradients together, as ``clip_grad_norm_`` computes it (or '')."""
    norms = [_norm(p._grad) for _, p in params if p._grad is not None]
    if not norms:
        return ""
    total = math.sqrt(sum(n * n for n in norms))
    return (f'<p class="tg-total">norm of all {_count(len(norms), "gradient")} together: '
            f"<b>{_number(total)}</b> (what <code>clip_grad_norm_</code> returns)</p>")


def module_html(model: Module, name: str | None = None) -> str:
    """The HTML view of ``model``: its structure (``repr``) and its parameters and buffers.

    ``name`` titles it (the notebook's variable, e.g. ``model``); else the module's class.
    """
    params = list(model.named_parameters())
    buffers = list(model.named_buffers())
    head = "".join(f'<th scope="col">{c}</th>' for c in ("parameter", *COLUMNS))
    body = []
    if params:
        body += _rows(params, _aliases(model, "params"), "parameter",
                      "model.named_parameters()")
    else:
        body.append(f'<tr class="tg-more"><td colspan="{len(COLUMNS) + 1}">no parameters: '
                    "nothing here for an optimizer to train</td></tr>")
    if buffers:
        body.append(_section("buffers: saved in state_dict(), not trained"))
        body += _rows(buffers, _aliases(model, "buffers"), "buffer", "model.named_buffers()")
    title = f"<b>{_escape(name or model._get_name())}</b>: {_escape(_summary(params, buffers))}"
    # display:none is undone by the stylesheet: where a viewer strips <style>, only the
    # structure shows, which is exactly PyTorch's text.
    table = (
        '<div class="tg-params" style="display:none">'
        f'<p class="tg-title">{title}</p>'
        f'<table class="tg-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>{_total_norm(params)}</div>"
    )
    return (f'<div class="tg-inspect tg-module"><style>{_stylesheet()}</style>'
            f'<pre class="tg-structure">{_escape(repr(model))}</pre>{table}</div>')


# ---------------------------------------------------------------------------------------
# Optimizers
# ---------------------------------------------------------------------------------------


def parameter_names(namespace: Mapping | None) -> dict[int, str]:
    """``id(parameter) -> "model.0.weight"`` for the modules among a notebook's variables."""
    names: dict[int, str] = {}
    for variable, value in list((namespace or {}).items()):
        if isinstance(value, Module) and not str(variable).startswith("_"):
            for name, p in value.named_parameters():
                names.setdefault(id(p), f"{variable}.{name}")
    return names


def _params_cell(group: Mapping, names: Mapping[int, str]) -> str:
    params = list(group["params"])
    shown = [names.get(id(p), f"[{'×'.join(map(str, p._data.shape))}] tensor")
             for p in params[:_NAMES_SHOWN]]
    if len(params) > _NAMES_SHOWN:
        shown.append(f"… {len(params) - _NAMES_SHOWN} more")
    return f"{_count(len(params), 'tensor')}:\n" + "\n".join(shown)


def _state_cell(optimizer: Optimizer, params: Iterable[Tensor]) -> Cell:
    """What step() keeps for this group's parameters (read with .get: state is a defaultdict)."""
    params = list(params)
    states = [s for s in (optimizer.state.get(p) for p in params) if s]
    if not states:
        return Cell("empty (step() has not stored anything yet)", "note")
    keys = sorted({k for s in states for k in s})
    numbers = sum(_numel(v) for s in states for v in s.values() if isinstance(v, Tensor))
    return Cell(f"{', '.join(keys)}\nfor {len(states)} of {_count(len(params), 'tensor')}"
                f", {_count(numbers, 'number')}")


def optimizer_html(optimizer: Optimizer, name: str | None = None,
                   namespace: Mapping | None = None) -> str:
    """The HTML view of ``optimizer``: one column per parameter group (its parameters,
    hyperparameters and state). ``namespace`` (the notebook's variables) names parameters
    after the models that hold them."""
    groups = optimizer.param_groups
    names = parameter_names(namespace)
    keys = sorted({k for g in groups for k in g if k != "params"})
    header = "".join(f'<th scope="col" class="tg-name">group {i}</th>' for i in range(len(groups)))
    rows = ['<tr class="tg-attr"><th scope="row">params</th>'
            + "".join(f'<td class="tg-value">{_escape(_params_cell(g, names))}</td>'
                      for g in groups) + "</tr>"]
    for key in keys:
        cells = "".join(f'<td class="tg-value">{_escape(str(g[key]))}</td>' if key in g
                        else '<td class="tg-none">—</td>' for g in groups)
        rows.append(f'<tr class="tg-attr"><th scope="row">{_escape(key)}</th>{cells}</tr>')
    state = [_state_cell(optimizer, g["params"]) for g in groups]
    rows.append('<tr class="tg-attr tg-state"><th scope="row">state</th>'
                + "".join(f'<td class="tg-{c.kind}">{_escape(c.text)}</td>' for c in state)
                + "</tr>")
    title = f"<b>{_escape(name or type(optimizer).__name__)}</b>: {type(optimizer).__name__}"
    title += f", {_count(len(groups), 'parameter group')}"
    table = (
        '<div class="tg-params" style="display:none">'
        f'<p class="tg-title">{title}</p><table class="tg-table">'
        f'<thead><tr><th class="tg-corner"></th>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
    return (f'<div class="tg-inspect tg-module tg-optimizer"><style>{_stylesheet()}</style>'
            f'<pre class="tg-fallback">{_escape(repr(optimizer))}</pre>{table}</div>')


def _escape(text: str) -> str:
    return escape_text(text)
