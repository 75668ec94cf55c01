"""Replay how a graph was built, op by op: ``teachgrad.notebook.step_forward(out)``.

Every node of the graph was numbered when the forward pass created it (its *sequence
number*, the same number the backward engine uses to pick which ready node runs first).
So the order in which the graph grew needs no recording: sorting the nodes by that number
replays the forward pass. Each frame adds one op to the picture (same layout as the
backward stepper, so the two can be compared box by box) and its panel says what the op
took in, what it produced, and what it saved for backward.

Nothing is run or changed: this only reads the graph.

::

    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    out = (y * y * 3).mean()
    step_forward(out, names=locals())   # x, then AddBackward0 (y), MulBackward0 ...
"""

from __future__ import annotations

from collections.abc import Mapping

from ..autograd.graph import AccumulateGrad
from .chain_rule import Panel, PanelWriter, input_symbols, snapshot_saved
from .graph import no_graph_notes
from .graph_model import MAX_NODES, GraphModel, as_tensors, build, node_name
from .naming import Names
from .stepper import FramesView
from .timeline import Timeline, work_runs
from .values import count, shape_text


def step_forward(
    out, names: Mapping | None = None, *, max_nodes: int = MAX_NODES, hide_no_grad: bool = False
) -> ForwardReplay:
    """Show the graph of ``out`` growing, one op per frame, in the order it was built.

    >>> import teachgrad as torch
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> replay = step_forward((x * 3).exp(), names={"x": x})
    >>> [node.name() for node in replay.ops]
    ['MulBackward0', 'ExpBackward0']
    """
    outputs = as_tensors(out, "step_forward")
    model = build(outputs, max_nodes=max_nodes, hide_no_grad=hide_no_grad,
                  function="step_forward")
    return ForwardReplay(model, Names(names))


class ForwardReplay(FramesView):
    """The forward pass replayed: frame 0 shows the leaves, frame ``k`` the k-th op."""

    legend = (("none", "not made yet"), ("current", "made in this step"), ("done", "made"))
    log_note = "Every op of the forward pass at once, under the finished graph."

    def __init__(self, model: GraphModel, names: Names) -> None:
        #: the ops in the order the forward pass created them
        self.ops = sorted(
            (n for n in model.index_of if type(n) is not AccumulateGrad),
            key=lambda n: n._seq_nr,
        )
        writer = _ForwardPanels(names, model.roots, snapshot_saved(self.ops))
        super().__init__(
            model, names, _timeline(model, self.ops), writer.panels(self.ops), {}, {}
        )

    def __repr__(self) -> str:
        return (f"<teachgrad forward replay: {count(len(self.ops), 'op')}, "
                f"{count(self.model.total, 'node')}>")


def _timeline(model: GraphModel, ops: list) -> Timeline:
    """Leaves exist from the start; op ``k`` is current in frame ``k``, done after it."""
    made = {node: k + 1 for k, node in enumerate(ops)}
    last = len(ops)
    states: dict = {}
    for box in model.boxes:
        if box.kind == "root":
            states[box.id] = [("done", last, None)]
        elif box.kind == "leaf":
            states[box.id] = [("done", 0, None)]
        elif box.kind in ("op", "chain", "summary"):
            frames = sorted({made[n] for n in box.members if n in made})
            leaves_only = not frames  # a summary box may hold only leaves
            runs = [("done", 0, None)] if leaves_only else work_runs(
                frames, True, "current", "active", "done"
            )
            states[box.id] = runs
    for arrow in model.arrows:
        frames = sorted({last if node is None else made[node] for node, _ in arrow.members
                         if node is None or node in made})
        states[arrow.id] = work_runs(frames, True, "current", "active", "done")
    return Timeline(n_frames=last + 1, states=states)


class _ForwardPanels(PanelWriter):
    """Panels that describe building the graph (no gradients yet)."""

    def __init__(self, names: Names, roots: tuple, saved: dict) -> None:
        super().__init__(None, names, roots, saved)

    def panels(self, ops: list) -> list[Panel]:
        return [self._start(ops)] + [self._op(k, node, len(ops)) for k, node in enumerate(ops)]

    def _start(self, ops: list) -> Panel:
        out = self.new_panel()
        title = "Forward: the tensors you made"
        out.heading(title)
        leaves = sorted(
            {n for op in ops for n, _ in op.next_functions if type(n) is AccumulateGrad},
            key=lambda n: self.label(n),
        )
        if leaves:
            out.para("These leaves require grad, so every op that uses them is recorded as a "
                     "node of the graph (its grad_fn):")
            for leaf in leaves:
                out.value(self._tensor_name(leaf, 0), leaf.variable._data)
        if not ops:  # ("0 ops follow, in the order the forward pass ran them" said nothing)
            for note in no_graph_notes(self.roots, self.names):
                out.para(note.replace("the AccumulateGrad drawn here", "its AccumulateGrad"))
            out.para("No op was recorded, so there is nothing to replay.")
            return out.panel(0, title)
        verb = "follows" if len(ops) == 1 else "follow"
        out.para(f"{count(len(ops), 'op')} {verb}, in the order the forward pass ran them.")
        return out.panel(0, title)

    def _op(self, k: int, node, total: int) -> Panel:
        out = self.new_panel()
        title = f"Op {k + 1} of {total}: {self.label(node)}"
        out.heading(title)
        symbols = input_symbols(node)
        inputs = []
        for i, (source, nr) in enumerate(node.next_functions):
            where = self._tensor_name(source, nr) if source is not None else (
                "a constant, or a tensor that needs no gradient"
            )
            inputs.append(f"{symbols[i]} = {where}")
        out.para("inputs: " + "; ".join(inputs) if inputs else "no inputs")
        made = self._made(node)
        shapes = ", ".join(shape_text(shape) if shape else "scalar" for shape, _ in node._meta)
        out.para(f"makes {made} ({shapes}), whose grad_fn is this {node_name(node)}")
        self._saved(out, node)
        if getattr(node, "formula", ""):
            out.formula(node.formula)
            out.para("Backward will use this local derivative here.")
        return out.panel(k + 1, title)

    def _made(self, node) -> str:
        """What an op made: ``y``, ``a new tensor``; ``p, q`` for a multi-output op
        (``unbind``, ``split``), which makes several tensors at once."""
        n_outputs = len(node._meta)
        if n_outputs == 1:
            return self.names.of_output(node) or self._root_name_of(node) or "a new tensor"
        names = [self.names.of_output(node, nr) for nr in range(n_outputs)]
        if not any(names):
            return f"{n_outputs} new tensors"
        return ", ".join(name or f"output {nr}" for nr, name in enumerate(names))

    def _tensor_name(self, node, output_nr: int) -> str:
        """``'x (a leaf)'``, ``'y (made by AddBackward0)'``: a tensor named by its node."""
        if type(node) is AccumulateGrad:
            return f"{self.names.of_tensor(node.variable) or 'a leaf'} (a leaf)"
        name = self.names.of_output(node, output_nr) or self._root_name_of(node)
        return f"{name or 'the result'} (made by {node_name(node)})"


__all__ = ["step_forward", "ForwardReplay"]
