"""Record what the engine does during a real backward pass.

The stepper must show what *really* ran, so it never re-derives the order or the
gradients: :func:`record_backward` calls the one engine
(``teachgrad.autograd.engine.backward``) inside ``engine.observe(...)`` and keeps a copy
of every :class:`~teachgrad.autograd.engine.Step` report. A copy, because the engine
works in place where it can (a leaf's ``.grad`` grows in place across backward calls) and
the stepper must keep showing the values of *that* moment.

On top of the reports we note, for each node, which earlier steps sent it gradient (its
*arrivals*): a node used twice receives two contributions, and the stepper shows them
being summed.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from .._tensor import Tensor
from ..autograd import engine
from ..autograd.graph import Node
from .values import as_array


def _copy(value) -> np.ndarray | None:
    """A private copy of a gradient (array or Tensor) as a NumPy array."""
    array = as_array(value)
    return None if array is None else np.array(array, copy=True)


@dataclass(eq=False)
class Arrival:
    """One gradient contribution that reached a node.

    ``step`` is the index of the step that sent it (``-1``: the starting gradient of
    ``backward()``), ``sender`` that step's node (``None`` for the start), ``edge`` the
    index into ``sender.next_functions``.
    """

    step: int
    sender: Node | None
    edge: int
    value: np.ndarray


@dataclass(eq=False)
class Sent:
    """What a step sent along one edge ``next_functions[index] == (target, output_nr)``."""

    index: int
    target: Node | None
    output_nr: int
    value: np.ndarray | None


@dataclass(eq=False)
class StepRecord:
    """One engine step, copied: everything the stepper shows about it."""

    index: int
    node: Node
    grads_in: list                 # per output: the gradient that arrived (after hooks)
    arrivals: list                 # per output: the Arrival list that summed to it
    sent: list                     # one Sent per next_functions edge
    ready: list                    # nodes ready next, in the order they will run
    variable: Tensor | None = None  # AccumulateGrad: the leaf
    grad_before: np.ndarray | None = None
    grad_after: np.ndarray | None = None
    retained: list = field(default_factory=list)  # [(tensor, before, after)] retain_grad
    captured: bool = False  # a non-leaf among inputs=: its gradient stops here
    written: list = field(default_factory=list)   # [(tensor, before, after)] such inputs=


class Recording:
    """The observer: turns each engine Step into a StepRecord."""

    def __init__(self, seeds: dict) -> None:
        #: arrivals waiting at each node: {node: [[Arrival, ...] per output]}
        self._pending: dict = {}
        self.steps: list[StepRecord] = []
        self.seeds: list = []  # the starting gradient of each output
        #: the ``gradient=`` passed for each output (``None``: not passed, an implicit 1)
        self.given: list = []
        self._retained_before: dict = {}
        for node, per_output in seeds.items():
            self._pending[node] = per_output

    def remember_retained(self, nodes) -> None:
        """Note the current ``.grad`` of every tensor that called ``retain_grad()``."""
        for node in nodes:
            for ref in _retained_refs(node):
                tensor = ref()
                if tensor is not None:
                    self._retained_before[id(tensor)] = _copy(tensor._grad)

    def __call__(self, step) -> None:
        """Record one backward step: the gradients that arrived at its node and left it."""
        node = step.node
        n_out = max(len(step.grads_in), 1)
        arrivals = self._pending.pop(node, None) or [[] for _ in range(n_out)]
        sent = []
        for i, ((target, nr), g) in enumerate(zip(node.next_functions, step.grads_out)):
            value = _copy(g)
            sent.append(Sent(i, target, nr, value))
            if target is not None and value is not None:
                slots = self._pending.setdefault(target, [[] for _ in range(len(target._meta))])
                slots[nr].append(Arrival(step.index, node, i, value))
        record = StepRecord(
            index=step.index,
            node=node,
            grads_in=[_copy(g) for g in step.grads_in],
            arrivals=arrivals,
            sent=sent,
            ready=list(step.ready),
            captured=step.captured,
        )
        if step.variable is not None:
            record.variable = step.variable
            record.grad_before = _copy(step.grad_before)
            record.grad_after = _copy(step.grad_after)
        for ref in _retained_refs(node):
            tensor = ref()
            if tensor is not None:
                before = self._retained_before.get(id(tensor))
                after = _copy(tensor._grad)
                record.retained.append((tensor, before, after))
                self._retained_before[id(tensor)] = after
        self.steps.append(record)


def _retained_refs(node: Node) -> list:
    """Weak references to the tensors whose ``retain_grad()`` made ``node`` keep a grad."""
    hooks = getattr(node, "_hooks", None)
    return list(hooks.retained.values()) if hooks is not None else []


def seed_gradients(outputs: tuple, gradient) -> list:
    """The gradient each output starts with: what you passed, or 1 for a scalar."""
    if gradient is None or isinstance(gradient, Tensor):
        gradient = [gradient] * len(outputs) if gradient is None else [gradient]
    seeds = []
    for out, g in zip(outputs, gradient):
        seeds.append(np.ones_like(out._data) if g is None else _copy(g).astype(out._data.dtype))
    return seeds


def record_backward(
    outputs: tuple,
    gradient=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs=None,
    graph_nodes=(),
) -> Recording:
    """Run the real ``backward()`` of ``outputs`` and return what each step did.

    Afterwards every leaf's ``.grad`` holds exactly what ``outputs.backward(...)`` would
    have put there: this *is* that call, only watched.
    """
    # gradient= and inputs= may be generators, as in backward(): read each one once, here.
    if gradient is not None and not isinstance(gradient, Tensor):
        gradient = list(gradient)
    if inputs is not None and not isinstance(inputs, Tensor):
        inputs = list(inputs)
    seeds: dict = {}
    starting = seed_gradients(outputs, gradient)
    for out, g in zip(outputs, starting):
        fn = out._grad_fn
        if fn is None and out._requires_grad:
            fn = out._accumulator() if out._accumulator is not None else None
        if fn is not None:
            slots = seeds.setdefault(fn, [[] for _ in range(len(fn._meta))])
            slots[out._output_nr if out._grad_fn is not None else 0].append(
                Arrival(-1, None, 0, g)
            )
    recording = Recording(seeds)
    recording.seeds = starting
    if gradient is None or isinstance(gradient, Tensor):
        recording.given = [gradient] * len(outputs) if gradient is None else [gradient]
    else:
        recording.given = gradient
    recording.remember_retained(graph_nodes)
    # Non-leaf tensors among inputs= get their .grad at the end of backward(), not at
    # their step: note them now, and what they hold, to show it at their step.
    non_leaf_inputs = [t for t in _as_list(inputs) if t._grad_fn is not None and
                       not t.retains_grad]
    before = [_copy(t._grad) for t in non_leaf_inputs]
    with _warnings_from_the_callers_line(), engine.observe(recording):
        engine.backward(
            outputs if len(outputs) > 1 else outputs[0],
            gradient,
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=inputs,
        )
    for record in recording.steps:
        if record.captured:
            record.written = [(t, old, _copy(t._grad)) for t, old in zip(non_leaf_inputs, before)
                              if t._grad_fn is record.node]
    return recording


@contextmanager
def _warnings_from_the_callers_line() -> Iterator[None]:
    """Show the warnings of backward() (create_graph=True warns) at the student's line.

    ``backward()`` warns as if called from the code that called it, which here is this
    module: the notebook would show ``steps.py:...`` and a line of teachgrad's. The
    warnings are caught and issued again from the first frame outside this package,
    the cell that called ``step_backward``, as ``out.backward()`` there would show them.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # catch each one; the filters apply when re-issued
        try:
            yield
        finally:
            frame = sys._getframe(1)
            package = os.path.dirname(__file__)
            while frame.f_back is not None and (
                os.path.dirname(frame.f_code.co_filename) == package
                or frame.f_code.co_filename == contextlib.__file__
            ):
                frame = frame.f_back
    for warning in caught:
        _warn_at(warning, frame)


def _warn_at(warning, frame) -> None:
    """Issue ``warning`` again as if from ``frame``'s line (its source line shown)."""
    where = {"module": frame.f_globals.get("__name__"),
             "registry": frame.f_globals.setdefault("__warningregistry__", {})}
    try:
        warnings.warn_explicit(warning.message, warning.category, frame.f_code.co_filename,
                               frame.f_lineno, module_globals=frame.f_globals, **where)
    except ImportError:
        # ``python -c``: __main__'s loader is the built-in importer, which has no source
        # for it and raised ImportError from inside warn_explicit, instead of the warning
        warnings.warn_explicit(warning.message, warning.category, frame.f_code.co_filename,
                               frame.f_lineno, **where)


def _as_list(inputs) -> list:
    """``inputs=`` as a list of tensors (``None``, one tensor, or a sequence)."""
    if inputs is None:
        return []
    return [inputs] if isinstance(inputs, Tensor) else list(inputs)


__all__ = ["Arrival", "Sent", "StepRecord", "Recording", "record_backward", "seed_gradients"]
