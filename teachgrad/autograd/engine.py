"""The backward engine: the one place where gradients are computed.

``loss.backward()`` comes here. The engine

1. walks the graph from the output(s) and counts, for every node, how many edges lead to
   it (its *dependencies*): a node may only run once *all* its gradient contributions have
   arrived (think of ``a`` used twice: ``y = a * a``);
2. keeps a queue of nodes that are ready, and always runs the newest one first (PyTorch's
   order: nodes are numbered as the forward pass creates them; AccumulateGrad goes first);
3. runs each node's backward (a vector-Jacobian product), fits each resulting gradient to
   the shape and dtype of the input it is for (un-broadcasting by summation), and adds it
   into the buffer of the next node;
4. at the leaves, adds the gradient into ``.grad`` (or hands it back, for
   ``autograd.grad``);
5. frees what each node saved unless ``retain_graph=True``.

Everything is iterative: a 100,000-op chain needs no recursion.

Observers (see :func:`observe`) get a :class:`Step` for every node the engine runs, with
the gradient that arrived, the gradients sent along each edge and the queue that is
ready next. The notebook stepper shows exactly these reports, so what the student sees
is what really ran. When nobody observes, none of that is collected.
"""

from __future__ import annotations

import itertools
import operator
import sys
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from heapq import heappop, heappush

import numpy as np

from .._real_pytorch import real_pytorch_hint
from .._tensor import Size, Tensor, _make, _make_gradient, python_type_name
from .._warn import warn_user
from . import anomaly_mode, graph, inference
from .anomaly_mode import state as _anomaly
from .function import BackwardCFunction
from .grad_mode import state as _grad_state
from .graph import _FREED, AccumulateGrad, GradientEdge, Node, edge_of

# ----------------------------------------------------------------------------------------
# Observers
# ----------------------------------------------------------------------------------------
_observers: list[Callable[[Step], None]] = []


class Step:
    """What the engine did at one node (sent to observers).

    ``node``            the node that ran
    ``grads_in``        the gradient(s) that arrived at it, one per output (after hooks)
    ``grads_out``       the gradient sent along each edge of ``node.next_functions``
                        (``None`` where nothing was sent), already fitted to the input
    ``variable``        for an AccumulateGrad node: the leaf tensor
    ``grad_before``     ... its ``.grad`` before this step (``None`` if it had none)
    ``grad_after``      ... and after
    ``ready``           the nodes ready to run next, in the order they will run
    ``index``           0, 1, 2 ... in execution order
    """

    __slots__ = (
        "node", "grads_in", "grads_out", "variable", "grad_before", "grad_after",
        "ready", "index", "captured",
    )

    def __init__(self, node: Node, grads_in: tuple, index: int) -> None:
        self.node = node
        self.grads_in = grads_in
        self.grads_out: tuple = ()
        self.variable = None
        self.grad_before = None
        self.grad_after = None
        self.ready: list = []
        self.index = index
        self.captured = False

    def __repr__(self) -> str:
        return f"<Step {self.index}: {self.node.name()}>"


@contextmanager
def observe(callback: Callable[[Step], None]) -> Iterator[None]:
    """Call ``callback(step)`` for every node any backward pass runs inside the block.

    >>> import teachgrad as torch
    >>> from teachgrad.autograd import engine
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> names = []
    >>> with engine.observe(lambda step: names.append(step.node.name())):
    ...     (x * x).backward()
    >>> names
    ['MulBackward0', 'torch::autograd::AccumulateGrad']
    """
    _observers.append(callback)
    try:
        yield
    finally:
        _observers.remove(callback)


class GraphRetention:
    """Whether a backward pass must keep the graph for samples still to come.

    ``vmap`` calls its function once per sample, where PyTorch's runs it once on the whole
    batch; a backward inside the function (``autograd.grad(y, x, v)`` for each row ``v``
    of a Jacobian) then runs once per sample through one graph, and must not free it
    before the last. ``vmap`` sets ``more_samples`` while samples remain.
    """

    __slots__ = ("more_samples",)

    def __init__(self) -> None:
        self.more_samples = False


retention = GraphRetention()


# ----------------------------------------------------------------------------------------
# Public entry points
# ----------------------------------------------------------------------------------------
def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs=None,
) -> None:
    """Accumulate d(tensors)/d(leaf) into ``.grad`` of every leaf (``autograd.backward``)."""
    if type(create_graph) is not bool or (
            retain_graph is not None and type(retain_graph) is not bool):
        retain_graph, create_graph = _flags(retain_graph=retain_graph,
                                            create_graph=create_graph)
    tensors = _as_roots(tensors)
    if _grad_state.inference:  # inside inference_mode(): see _in_inference_mode
        retain_graph, create_graph = _in_inference_mode(retain_graph, create_graph)
    grads = _root_grads(tensors, grad_tensors, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    if retention.more_samples:  # inside vmap, before its last sample (see GraphRetention)
        retain_graph = True
    if create_graph:
        warn_user(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after "
            "use to break the cycle and avoid the leak.",
            UserWarning,
        )
    targets = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for t in inputs:
            _check_input_type(t)
        for t in inputs:  # (PyTorch retains the inputs' gradients first, and says so)
            if isinstance(t, Tensor) and not t._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        targets = [_target(t, i) for i, t in enumerate(inputs)]
    if _grad_state.inference:
        captured = _execute_making_inference_gradients(tensors, grads, retain_graph, targets)
    else:
        captured = _execute(tensors, grads, retain_graph, create_graph, targets,
                            accumulate=True)
    # Leaves got theirs at their AccumulateGrad; a non-leaf in ``inputs`` gets its gradient
    # accumulated into its .grad too, as in PyTorch.
    done = set()
    for node, _nr, tensor, i in targets or ():
        if tensor is None:  # a GradientEdge: no tensor to give the gradient to
            continue
        if type(node) is not AccumulateGrad and i in captured and id(tensor) not in done:
            done.add(id(tensor))  # (inputs=[v, v] accumulates once)
            if not tensor.retains_grad:  # (retain_grad() already wrote it)
                _retain(tensor, captured[i], create_graph)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """Return d(outputs)/d(inputs) without touching any ``.grad`` (``autograd.grad``).

    ``only_inputs`` is PyTorch's old argument, ignored (with its warning when False).

    >>> import teachgrad as torch
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> torch.autograd.grad(x ** 2, x)
    (tensor(6.),)
    """
    if not only_inputs:
        warn_user(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
        )
    retain_graph, create_graph, allow_unused = _flags(
        retain_graph=retain_graph, create_graph=create_graph, allow_unused=allow_unused)
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    outputs = _as_roots(outputs)
    names = None
    if type(inputs) is dict:  # {name: input} gives {name: gradient}
        names, inputs = list(inputs), tuple(inputs.values())
    elif isinstance(inputs, Mapping):
        raise TypeError(
            f"`inputs` argument to `grad()` must be a dict, not {type(inputs).__name__}. "
            "Other Mapping types are not supported."
        )
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    result = _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                   is_grads_batched, materialize_grads)
    return result if names is None else dict(zip(names, result))


def _flags(**flags) -> tuple:
    """The flags as booleans (None stays None), or PyTorch's TypeError before anything ran.

    PyTorch reads them as C++ bools, through Python's integer protocol: ``True``, ``1`` and
    ``None`` pass, ``"yes"`` or ``1.5`` do not. Without this check ``retain_graph="no"``
    would be a true string and keep the graph.
    """
    result = []
    for name, value in flags.items():
        if value is not None and type(value) is not bool:
            if isinstance(value, np.bool_):
                value = bool(value)
            else:
                try:
                    value = bool(operator.index(value))
                except TypeError as error:
                    raise TypeError(
                        f"{error}\nHint: {name} takes True or False (or None), not "
                        f"{python_type_name(value)} {value!r}."
                    ) from None
        result.append(value)
    return tuple(result)


def _grad(outputs: tuple, inputs: tuple, grad_outputs, retain_graph, create_graph,
          allow_unused, is_grads_batched, materialize_grads) -> tuple:
    """:func:`grad` once its arguments are tuples (and any output edge a stand-in)."""
    if allow_unused is None:
        allow_unused = materialize_grads
    if _grad_state.inference:  # inside inference_mode(): see _in_inference_mode
        retain_graph, create_graph = _in_inference_mode(retain_graph, create_graph)
    if is_grads_batched:
        return _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    grads = _root_grads(outputs, grad_outputs, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    if retention.more_samples:  # inside vmap, before its last sample (see GraphRetention)
        retain_graph = True
    targets = [_target(t, i) for i, t in enumerate(inputs)]
    captured = _execute(outputs, grads, retain_graph, create_graph, targets, accumulate=False)
    result = []
    for i, t in enumerate(inputs):
        g = captured.get(i)
        if g is None:
            if materialize_grads:
                if type(t) is GradientEdge:
                    raise RuntimeError(
                        "materialize_grads cannot be used when the given input is a "
                        "GradientEdge")
                result.append(_make(np.zeros_like(t._data)))
                continue
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
        else:
            result.append(g if isinstance(g, Tensor) else _make(_owned(g)))
    return tuple(result)


def _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads) -> tuple:
    """``grad(..., is_grads_batched=True)``: one vector-Jacobian product per row of each
    ``grad_outputs`` tensor (its first dimension is the batch), stacked.

    PyTorch runs one batched backward (with vmap); teachgrad runs one backward per row,
    keeping the graph until the last. An unused input gets ``None`` (or, with
    ``materialize_grads``, zeros shaped like the input, unbatched, as PyTorch gives).
    """
    if grad_outputs is None:
        _root_grads(outputs, None, create_graph)  # PyTorch's error for non-scalar outputs
        raise RuntimeError(
            "is_grads_batched=True needs grad_outputs: for each output, a batch of "
            "gradients stacked along a new first dimension."
        )
    grad_outputs = _as_tuple(grad_outputs)
    sizes = []
    for k, (g, out) in enumerate(zip(grad_outputs, outputs)):
        if g is None:
            continue
        if g.ndim == 0 or tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions "
                "are expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{k}] has a shape of {Size(g.shape[1:])} and "
                f"output[{k}] has a shape of {Size(out.shape)}. If you only want some "
                "tensors in `grad_output` to be considered batched, consider using vmap."
            )
        sizes.append(g.shape[0])
    if len(set(sizes)) > 1:
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    if not sizes or sizes[0] == 0:
        raise ValueError("is_grads_batched=True: grad_outputs hold an empty batch (size 0); "
                         "teachgrad runs backward once per row, so it needs one row at least.")
    rows = []
    for row in range(sizes[0]):
        last = row == sizes[0] - 1
        row_grads = tuple(None if g is None else g[row] for g in grad_outputs)
        rows.append(grad(outputs, inputs, row_grads, retain_graph=retain_graph if last else True,
                         create_graph=create_graph, allow_unused=allow_unused))
    from ..ops import stack  # (not at the top: the ops import this module)

    result = []
    for i, t in enumerate(inputs):
        column = [r[i] for r in rows]
        if column[0] is None:  # unused (allowed, or the first row would have raised)
            result.append(_make(np.zeros_like(t._data)) if materialize_grads else None)
        else:
            result.append(stack(column))
    return tuple(result)


def _in_inference_mode(retain_graph: bool | None, create_graph: bool) -> tuple:
    """``(retain_graph, create_graph)`` for a backward pass inside ``inference_mode``: grad
    mode is off there, so no graph of the backward pass is recorded (PyTorch's gradients
    come out as inference tensors that do not require grad), though the graph is kept
    as asked."""
    return (create_graph if retain_graph is None else retain_graph), False


def _execute_making_inference_gradients(roots, root_grads, retain_graph, targets) -> dict:
    """``_execute`` for ``backward()`` inside ``inference_mode``: a leaf's new ``.grad`` is
    an inference tensor, as PyTorch's (outside, ``_make_gradient`` skips asking)."""
    global _make_gradient
    ordinary = _make_gradient
    _make_gradient = _make
    try:
        return _execute(roots, root_grads, retain_graph, False, targets, accumulate=True)
    finally:
        _make_gradient = ordinary


# ----------------------------------------------------------------------------------------
# Set-up: roots and targets
# ----------------------------------------------------------------------------------------
def _as_tuple(x) -> tuple:
    if isinstance(x, Tensor):
        return (x,)
    if x is None:
        return ()
    if type(x) is GradientEdge:  # (a named tuple, but one edge)
        return (x,)
    return tuple(x)


def _as_roots(x) -> tuple:
    """The tensors (or GradientEdges) to run backward from, as tensors (see _stand_in)."""
    if isinstance(x, Tensor):
        return (x,)
    if x is None:
        return ()
    if type(x) is GradientEdge:
        return (_stand_in(x),)
    roots = tuple(x)
    for root in roots:
        if type(root) is GradientEdge:
            return tuple(map(_stand_in, roots))
    return roots


def _stand_in(output):
    """An output as ``_execute`` takes it: a GradientEdge becomes a tensor that stands for
    that output of its node (its shape and dtype, no values), which the graph is then run
    back from as from the real one (PyTorch takes edges as outputs too)."""
    if type(output) is not GradientEdge:
        return output
    node, nr = output.node, output.output_nr
    shape, dtype = node._meta[nr]
    stand_in = _make(np.broadcast_to(np.zeros((), dtype), shape), requires_grad=True,
                     grad_fn=node)
    stand_in._output_nr = nr
    return stand_in


def _root_grads(tensors: tuple, grad_tensors, create_graph: bool) -> list:
    """The starting gradient of each root: ones for a scalar, else what the user passed."""
    if grad_tensors is None:
        grad_tensors = (None,) * len(tensors)
    elif isinstance(grad_tensors, Tensor):
        grad_tensors = (grad_tensors,)
    else:
        if real_pytorch_hint(grad_tensors):  # (tuple() would take it apart element by element)
            raise TypeError("the gradient must be a teachgrad tensor, not "
                            f"{python_type_name(grad_tensors)}" + real_pytorch_hint(grad_tensors))
        grad_tensors = tuple(grad_tensors)
    # Each gradient must be a tensor or None; PyTorch checks this pair by pair (zip: as
    # far as the shorter goes) before it counts them, and never converts a number or list.
    for g in grad_tensors[:len(tensors)]:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(
                f"gradients can be either Tensors or None, but got {python_type_name(g)}"
                + (real_pytorch_hint(g) or
                   "\nHint: give one gradient tensor per output, shaped like it, e.g. "
                   "out.backward(torch.ones_like(out)); numbers and lists are not converted."))
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(
            f"got {len(tensors)} tensors and {len(grad_tensors)} gradients"
        )
    grads = []
    i = 0  # (an index loop: every backward call runs this, and enumerate(zip()) costs more)
    for t in tensors:
        g = grad_tensors[i]
        if not isinstance(t, Tensor):
            raise TypeError(f"expected a Tensor to differentiate, got {python_type_name(t)}"
                            + real_pytorch_hint(t))
        data = t._data
        if not t._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
                "\nHint: nothing that led to this tensor has requires_grad=True, so there is "
                "no graph to go back through. Create the inputs with requires_grad=True "
                "(and not inside `with no_grad():`)."
            )
        if t._grad_fn is None and t._base is not None and edge_of(t)[0] is None:
            raise RuntimeError(  # a view made under no_grad: it requires grad, has no edge
                f"element {i} of tensors does not require grad and does not have a grad_fn"
                "\nHint: this tensor is a view made under no_grad (or inference_mode) of a "
                "tensor that requires grad. It requires grad as its base does, but it has no "
                "history to go back through. Make the view outside that block."
            )
        if g is None:
            if data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs"
                    f"\nHint: this output has shape torch.Size({list(t.shape)}), so backward() "
                    "does not know how to weigh its elements. Reduce it to a scalar first (e.g. "
                    "out.sum().backward()) or pass the vector of the vector-Jacobian product: "
                    "out.backward(gradient=torch.ones_like(out))."
                )
            if data.dtype.kind != "f":
                raise RuntimeError("grad can be implicitly created only for real scalar outputs")
            # (np.array of a number is several times cheaper than np.ones for a 0-d array)
            one = _array(1, data.dtype) if data.ndim == 0 else np.ones(data.shape, data.dtype)
            grads.append(_make(one) if create_graph else one)
            i += 1
            continue
        if g._data.shape != data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} "
                f"and output[{i}] has a shape of {Size(data.shape)}."
            )
        if g._data.dtype != data.dtype:
            g = _make(g._data.astype(data.dtype)) if not create_graph else g.to(t.dtype)
        grads.append(g if create_graph else g._data)
        i += 1
    return grads


_array = np.array


def _check_input_type(t) -> None:
    if not isinstance(t, Tensor) and type(t) is not GradientEdge:
        raise RuntimeError(
            f"all inputs have to be Tensors or GradientEdges, but got {python_type_name(t)}"
            + real_pytorch_hint(t)
        )


def _target(t: Tensor, i: int) -> tuple:
    """The graph position of an input we differentiate with respect to."""
    if not isinstance(t, Tensor):
        _check_input_type(t)
        return t.node, t.output_nr, None, i  # a GradientEdge: the gradient arriving there
    if not t._requires_grad:
        if t._base is not None and graph.views_late_leaf(t):
            # a view of a leaf made to require grad after it was taken: a leaf to PyTorch,
            # whose gradient node nothing reaches (ops on it send its gradient nowhere)
            return AccumulateGrad(t), 0, t, i
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    node, nr = edge_of(t)
    return node, nr, t, i


# ----------------------------------------------------------------------------------------
# The main loop
# ----------------------------------------------------------------------------------------
# PyTorch's backward never warns about nan/inf. (As a decorator, np.errstate costs about half
# of what a ``with`` block does, on every backward call.)
@np.errstate(all="ignore")
def _execute(roots, root_grads, retain_graph, create_graph, targets, accumulate) -> dict:
    """Run backward from ``roots``. Returns captured gradients ``{input index: grad}``."""
    root_edges = list(map(edge_of, roots))
    root_nodes = [node for node, _ in root_edges]
    dependencies = _count_dependencies(root_nodes)

    # With ``inputs=``/``autograd.grad`` only the part of the graph that leads to the
    # targets runs; ``needed`` is that part (None = the whole graph).
    needed = None
    captures: dict = {}
    target_leaves = None
    if targets is not None:
        target_leaves = set()
        needed = _nodes_leading_to({t[0] for t in targets}, root_nodes)
        for node, nr, tensor, i in targets:
            if isinstance(node, AccumulateGrad):
                target_leaves.add(node)
            captures.setdefault(node, []).append((nr, tensor, i))
        dependencies = _count_dependencies(root_nodes, needed)
    captured: dict = {}

    buffers: dict = {}
    # Ready nodes wait in two queues. AccumulateGrad nodes go first, in the order they became
    # ready (PyTorch gives them the largest sequence number: a leaf's gradient is written as
    # soon as it is complete), so they need only a first-in-first-out list. Other nodes wait
    # in a heap of (-sequence_nr, node): the newest node first.
    leaves: deque = deque()
    ready: list = []
    for (node, nr), g in zip(root_edges, root_grads):
        if needed is not None and node not in needed:
            continue
        _add_to_buffer(buffers, node, nr, g)
    for node in buffers:
        if dependencies.get(node, 0) == 0:
            if type(node) is AccumulateGrad:
                leaves.append(node)
            else:
                heappush(ready, (-node._seq_nr, node))

    observers = list(_observers)
    previous_mode = _grad_state.enabled
    previous_unpack = graph.unpack_mode.as_tensors
    _grad_state.enabled = create_graph  # the backward pass records a graph only if asked
    graph.unpack_mode.as_tensors = create_graph
    step_index = 0
    # ``following`` is a node that became ready while nothing else was: it runs next
    # without going through the heap (a chain never needs the heap). Observers are shown
    # the whole ready queue, so with observers every ready node goes through the heap.
    following = None
    shortcut = not observers
    try:
        while True:
            if leaves:
                node = leaves.popleft()
            elif following is not None:
                node, following = following, None
            elif ready:
                node = heappop(ready)[1]
            else:
                break
            grads = buffers.pop(node)
            is_leaf = type(node) is AccumulateGrad
            hooks = node._hooks  # (read once: most nodes have none)
            if hooks is not None or (is_leaf and node.variable._extra):
                grads = _run_tensor_hooks(node, grads, create_graph)
            # A target's gradient is what arrived, after its tensor's hooks and before
            # the node's own pre-hooks (PyTorch's order).
            was_captured = bool(captures) and node in captures
            if was_captured:
                for nr, _tensor, i in captures[node]:
                    if grads[nr] is not None:
                        captured[i] = grads[nr]
            if hooks is not None and hooks.pre and (
                accumulate or not was_captured or _leads_on(node, needed)
            ):  # (autograd.grad stops at a target: its node does not run, nor its hooks)
                grads = _run_node_pre_hooks(node, grads, create_graph)
            step = Step(node, tuple(grads), step_index) if observers else None
            step_index += 1
            if step is not None and was_captured:
                step.captured = True

            # 1. This node's backward: one gradient per edge (or none to send).
            if is_leaf:
                if accumulate and (targets is None or node in target_leaves):
                    if grads[0] is not None:
                        _accumulate(node, grads[0], create_graph, step)
                    elif node.variable._extra:  # (PyTorch runs them even when None arrived)
                        _run_post_accumulate_hooks(node.variable)
                    if hooks is not None and hooks.post:
                        # hook(grad_inputs=(), grad_outputs=(g,)), after the leaf's .grad
                        # and its post-accumulate hooks; what it returns must be () or None
                        _run_post_hooks(node, (), grads, create_graph)
                continue_edges = False
            elif needed is not None and not _leads_on(node, needed):
                continue_edges = False  # a non-leaf target: its gradient is captured
            else:
                if len(grads) == 1 and grads[0] is not None and not _anomaly.enabled:
                    outputs = node._run_backward(grads)  # the common case, inlined
                    if len(outputs) != len(node.next_functions) or hooks is not None:
                        outputs = _check_outputs(node, outputs, grads, create_graph)
                else:
                    outputs = _run_node(node, grads, create_graph)
                if not retain_graph and node._saved is not None:
                    node._saved = _FREED
                continue_edges = True

            # 2. Send each gradient along its edge; a node is ready when all arrived.
            if continue_edges:
                sent = [] if step is not None else None
                index = -1
                for (nxt, nr), g in zip(node.next_functions, outputs):
                    index += 1
                    if nxt is None or (needed is not None and nxt not in needed):
                        if sent is not None:
                            sent.append(None)
                        continue
                    to_leaf = type(nxt) is AccumulateGrad
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] if to_leaf else [None] * len(nxt._meta)
                    if g is not None:
                        if to_leaf:  # (AccumulateGrad._meta, inline: the leaf's own array)
                            data = nxt.variable._data
                            shape, dtype = data.shape, data.dtype
                        else:  # the (shape, dtype) of each output of nxt
                            shape, dtype = nxt._meta[nr]
                        # Most gradients fit already (an array or a NumPy scalar of
                        # the right shape and dtype); a Python number has no shape.
                        if create_graph or getattr(g, "shape", None) != shape or (
                            g.dtype is not dtype and g.dtype != dtype
                        ):
                            g = fit_gradient(g, (shape, dtype), node, index)
                        # Out of place on purpose: ``g`` may be shared with another edge.
                        old = buf[nr]
                        buf[nr] = g if old is None else old + g
                    if sent is not None:
                        sent.append(g)
                    remaining = dependencies[nxt] - 1
                    dependencies[nxt] = remaining
                    if remaining == 0:
                        if to_leaf:
                            leaves.append(nxt)
                        elif shortcut and following is None and not ready:
                            following = nxt
                        else:
                            if following is not None:  # two are ready now: use the heap
                                heappush(ready, (-following._seq_nr, following))
                                following = None
                            heappush(ready, (-nxt._seq_nr, nxt))
                if step is not None:
                    step.grads_out = tuple(sent)

            if step is not None:
                step.ready = [*leaves, *(entry[1] for entry in sorted(ready))]
                for callback in observers:
                    callback(step)
            # Hold no gradient past its step: one that only the buffers refer to can then
            # become a leaf's ``.grad`` without a copy (see ``_unshared``).
            outputs = grads = g = old = None
    finally:
        _grad_state.enabled = previous_mode
        graph.unpack_mode.as_tensors = previous_unpack
    return captured


# ----------------------------------------------------------------------------------------
# Which backward pass is running (for register_multi_grad_hook)
# ----------------------------------------------------------------------------------------
class _Passes:
    """The backward pass running now, as ``(number, roots, targets, accumulate)``: the
    arguments ``_execute`` got. A hook may run a pass inside another; the outer one is put
    back when the inner one ends."""

    __slots__ = ("current",)

    def __init__(self) -> None:
        self.current: tuple | None = None


_passes = _Passes()
_pass_numbers = itertools.count()
_execute_untold = _execute


def _execute_and_tell(roots, root_grads, retain_graph, create_graph, targets,
                      accumulate) -> dict:
    """``_execute``, saying while it runs which pass it is (see :func:`current_pass`)."""
    outer = _passes.current
    _passes.current = (next(_pass_numbers), roots, targets, accumulate)
    try:
        return _execute_untold(roots, root_grads, retain_graph, create_graph, targets,
                               accumulate)
    finally:
        _passes.current = outer


def track_passes() -> None:
    """From now on every backward pass says which it is (``register_multi_grad_hook``
    calls this). Swapped in rather than tested for, so that programs without such hooks
    run the same instructions as before (as the profiler and forward AD do)."""
    global _execute
    _execute = _execute_and_tell


class BackwardPass:
    """A backward pass in progress, as ``register_multi_grad_hook`` asks about it
    (PyTorch's ``_current_graph_task_id`` and ``_will_engine_execute_node``)."""

    def __init__(self, state: tuple) -> None:
        self.number, roots, self._targets, self._accumulate = state
        self._roots = [edge_of(r)[0] for r in roots]
        self._reached: set | None = None  # worked out on the first question
        self._needed: set | None = None

    def will_execute(self, node: Node) -> bool:
        """Does this pass run ``node`` (reach it, and need it for the ``inputs`` asked)?"""
        targets = self._targets
        if targets and not self._accumulate and type(node) is AccumulateGrad and any(
                node is t[0] for t in targets):
            raise RuntimeError(
                "A leaf node was passed to _will_engine_execute_node but we are currently "
                "running autograd.grad(). This is currently not supported."
            )
        if self._reached is None:
            self._reached = set(_count_dependencies(self._roots)).union(self._roots)
            if targets:
                self._needed = _nodes_leading_to({t[0] for t in targets}, self._roots)
        # (a node reached on a path that leads to a target is needed all along that path)
        return node in self._reached and (self._needed is None or node in self._needed)


def current_pass() -> BackwardPass | None:
    """The innermost backward pass running now, or None outside backward (or before
    :func:`track_passes`)."""
    state = _passes.current
    return BackwardPass(state) if state is not None else None


def _run_node(node: Node, grads: list, create_graph: bool) -> tuple:
    """Call ``node``'s backward; outputs that got no gradient are given zeros."""
    arrived = grads  # the node's post-hooks see None where nothing arrived, as PyTorch's
    if all(g is None for g in grads) and not isinstance(node, BackwardCFunction):
        # Nothing arrived (a custom backward returned None for this path): PyTorch's
        # built-in nodes then give None for every input, and its engine still calls the
        # node's post-hooks and sends the Nones on. A custom Function's backward does run
        # (on zeros, unless it turned materialize_grads off), as in PyTorch.
        return _check_outputs(node, (None,) * len(node.next_functions), arrived, create_graph)
    if node.materialize_grads and any(g is None for g in grads):
        grads = [
            g if g is not None else _zeros(node, nr, create_graph)
            for nr, g in enumerate(grads)
        ]
    if _anomaly.enabled:  # records forward tracebacks and checks for NaN (slow, opt-in)
        outputs = anomaly_mode.run_backward(node, grads)
    else:
        outputs = node._run_backward(grads)
    return _check_outputs(node, outputs, arrived, create_graph)


def _check_outputs(node: Node, outputs: tuple, grads: list, create_graph: bool) -> tuple:
    """One gradient per edge, or PyTorch's error; then the node's post-hooks."""
    if len(outputs) != len(node.next_functions):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {len(node.next_functions)}, got {len(outputs)})"
        )
    if node._hooks is not None and node._hooks.post:
        outputs = _run_post_hooks(node, outputs, grads, create_graph)
    return outputs


def _count_dependencies(roots, within: set | None = None) -> dict:
    """For each node reachable from ``roots``: how many edges point at it."""
    dependencies: dict = {}
    stack = []
    for r in roots:  # (a node may be a root twice, as two outputs of one split: walk it once)
        if r is not None and (within is None or r in within) and r not in stack:
            stack.append(r)
    starts = set(stack)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None or (within is not None and nxt not in within):
                continue
            # (``in`` and ``+=`` rather than ``dependencies.get``: a method call costs more,
            # and a graph of scalars has an edge for every op's every input)
            if nxt in dependencies:
                dependencies[nxt] += 1
            else:
                dependencies[nxt] = 1
                if nxt not in starts:  # first edge to it: walk on from there
                    stack.append(nxt)
    return dependencies


def _nodes_leading_to(targets: set, roots: list) -> set:
    """The nodes from which some target can be reached (the targets included).

    An iterative post-order walk: a node is finished after all nodes it points to, and
    is needed when it is a target or points at a needed node.
    """
    needed: set = set()
    visited: set = set()
    stack = [(r, False) for r in roots if r is not None]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            if node in targets or _leads_on(node, needed):
                needed.add(node)
            continue
        if node in visited:
            continue
        visited.add(node)
        stack.append((node, True))
        stack.extend((n, False) for n, _ in node.next_functions if n is not None)
    return needed


def _leads_on(node: Node, needed: set) -> bool:
    return any(n in needed for n, _ in node.next_functions if n is not None)


def _add_to_buffer(buffers: dict, node: Node, nr: int, g) -> None:
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * len(node._meta)
    # Out of place on purpose: ``g`` may be shared with another edge or read-only.
    buf[nr] = g if buf[nr] is None else buf[nr] + g


def _zeros(node: Node, nr: int, create_graph: bool):
    zeros = graph.zeros_for(node, nr)
    return _make(zeros) if create_graph else zeros


# ----------------------------------------------------------------------------------------
# Gradients arriving at inputs
# ----------------------------------------------------------------------------------------
def fit_gradient(g, meta: tuple, node: Node, index: int):
    """Make ``g`` match the input it is for: same shape (summing broadcast dims), same dtype.

    This is where broadcasting is undone, once for all ops: if ``a`` of shape (3, 1) was
    broadcast to (3, 4) in the forward pass, its gradient arrives as (3, 4) and is summed
    over the broadcast dimension back to (3, 1).
    """
    shape, dtype = meta
    if isinstance(g, Tensor):
        if g._data.shape != shape:
            _check_broadcast(g._data.shape, shape, node, index)
            # PyTorch's sum_to: to a 0-d shape it is g.sum() (SumBackward0, as a learner sees
            # in the gradient's grad_fn under create_graph), else a keepdim sum and a view
            g = g.sum() if shape == () else g.sum_to_size(shape)
        if g._data.dtype != dtype:
            from .._dtypes import from_numpy_dtype

            g = g.to(from_numpy_dtype(dtype))
        return g
    if type(g) is not np.ndarray:
        g = np.asarray(g)
    if g.shape != shape:
        g = sum_to(g, _check_broadcast(g.shape, shape, node, index))
    if g.dtype != dtype:
        g = g.astype(dtype)
    return g


def _check_broadcast(got: tuple, expected: tuple, node: Node, index: int) -> tuple:
    lead = len(got) - len(expected)
    ok = lead >= 0
    if ok:  # (a loop, not all() over a generator: every broadcast gradient comes here)
        for i, e in enumerate(expected):
            if e != 1 and e != got[lead + i]:
                ok = False
                break
    if not ok:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index} - got "
            f"{list(got)} but expected shape compatible with {list(expected)}"
        )
    return expected


_HALF = np.dtype(np.float16)


_add_reduce = np.add.reduce


def sum_to(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum ``g`` over the dimensions that broadcasting added or stretched, to ``shape``."""
    lead = g.ndim - len(shape)
    stretched = tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1
    )
    if not stretched and g.dtype is not _HALF:
        # Only leading dimensions were added (a bias): one sum leaves exactly ``shape``.
        # (np.add.reduce is g.sum without the Python frame ndarray.sum runs first)
        return _add_reduce(g, tuple(range(lead))) if lead else g
    axes = tuple(range(lead)) + stretched
    if axes:
        if g.dtype == np.float16:  # half adds up in float32, as in PyTorch (65504 + 1 is inf)
            g = g.sum(axis=axes, keepdims=True, dtype=np.float32).astype(np.float16)
        else:
            g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape) if lead else g


# ----------------------------------------------------------------------------------------
# Leaves, hooks, retain_grad
# ----------------------------------------------------------------------------------------
def _accumulate(node: AccumulateGrad, g, create_graph: bool, step: Step | None) -> None:
    """Add ``g`` into ``leaf.grad`` as PyTorch's AccumulateGrad does."""
    leaf = node.variable
    old = leaf._grad
    if step is not None:
        step.variable = leaf
        step.grad_before = None if old is None else _make(old._data.copy())
    if create_graph:
        g = g if isinstance(g, Tensor) else _make(g)
        # PyTorch stores a copy of the first gradient (so x.grad has grad_fn=<CopyBackwards>).
        leaf._grad = _make(np.empty_like(g._data)).copy_(g) if old is None else old + g
    elif old is None:
        # As PyTorch: a new gradient nothing else refers to becomes ``.grad`` itself
        # ("stolen"); a shared one (AddBackward0 sends one array to both inputs), a
        # read-only broadcast view or a transposed one is copied.
        leaf._grad = _make_gradient(g if _unshared(g) else _owned(g))
    elif not old._data.flags.writeable:
        leaf._grad = _make(old._data + g)
    else:
        if type(old._vc) is not list:  # a .grad made in inference mode: PyTorch refuses
            inference.check_inplace(old)  # to add to it, except in inference mode again
        # In place, as PyTorch: code holding ``x.grad`` sees the new value (and a grad
        # made by an earlier create_graph=True pass keeps its grad_fn).
        np.add(old._data, g, out=old._data, casting="unsafe")
        old._vc[0] += 1
    if step is not None:
        step.grad_after = leaf._grad
    if leaf._extra:
        _run_post_accumulate_hooks(leaf)


def _run_post_accumulate_hooks(leaf: Tensor) -> None:
    """``leaf.register_post_accumulate_grad_hook`` hooks: ``hook(leaf)``, in order.

    They must return None. As PyTorch (``_call_hooks``): a hook that returns something else
    than a tensor, or a tensor of another shape or dtype, fails at once; one that returns
    another tensor passes it to the next hooks in place of the leaf, and once all have
    run, backward() fails (returning the leaf itself is allowed)."""
    hooks = leaf._extra.get("post_accumulate_hooks")
    if not hooks:
        return
    argument, replaced = leaf, False
    for hook in list(hooks.values()):
        result = hook(argument)
        if result is None or result is argument:
            continue
        if not isinstance(result, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{python_type_name(result)}'"
                            "\nHint: a post-accumulate-grad hook returns None; it reads or "
                            "changes the leaf (its .grad) in place.")
        _check_hook_result(hook, argument._data, result)
        argument, replaced = result, True
    if replaced:
        raise RuntimeError("Tensor post accumulate grad hooks should return None."
                           "\nHint: to change the gradient, change p.grad in place in the hook "
                           "(p.grad.mul_(0.5)), or use p.register_hook, whose return value "
                           "replaces the gradient before it is accumulated.")


def _unshared(g) -> bool:
    """True when ``g`` can be kept as a leaf's ``.grad`` without a copy.

    It must be a writable, C-ordered array that only the engine refers to: the engine's
    buffer list, ``_accumulate``'s argument, this function's argument and
    ``getrefcount``'s own make 4 references; any more is someone else's (another edge, a
    hook, the stepper's report, a saved tensor, the user). A view qualifies only if it is
    all of an array nobody else refers to (the transpose of a fresh matrix product), so
    nothing else can see or change the memory ``.grad`` then owns.
    """
    # References are counted before ``flags`` is read: the flags object refers to g too.
    if not _COUNTS_ARE_RELIABLE or type(g) is not _ndarray or _refcount(g) != 4:
        return False
    flags = g.flags
    if not (flags.c_contiguous and flags.writeable):
        return False
    base = g.base
    if base is None:
        return True
    # references to base: g's, this variable, getrefcount's argument
    return (type(base) is _ndarray and base.base is None and base.nbytes == g.nbytes
            and _refcount(base) == 3)


_ndarray = np.ndarray
_refcount = sys.getrefcount


def _reference_counts_work() -> bool:
    """Check, once, that ``_unshared`` counts references as this interpreter does.

    Reference counts are a CPython detail (newer versions skip some increments, PyPy has
    none). The check replays the engine's path (a buffer list, then two calls) with a fresh
    array, which must be found unshared, and with an extra reference, which must not. If
    either answer is wrong, gradients are always copied: slower, never wrong.
    """

    def accumulate(g) -> bool:  # stands for _accumulate(node, grads[0], ...)
        return _unshared(g)

    fresh = [np.zeros(2)]
    if not accumulate(fresh[0]):
        return False
    shared = [np.zeros(2)]
    keep = shared[0]  # noqa: F841 - the extra reference is the point
    return not accumulate(shared[0])


_COUNTS_ARE_RELIABLE = True
_COUNTS_ARE_RELIABLE = _reference_counts_work()


def _owned(g: np.ndarray) -> np.ndarray:
    """A private, writable, contiguous copy of an incoming gradient.

    Gradients arriving at a leaf may be shared with another edge (AddBackward0 sends the
    same array to both inputs) or be read-only broadcast views, so ``.grad`` gets its own.
    """
    return np.array(g, copy=True, order="C")


def _run_tensor_hooks(node: Node, grads: list, create_graph: bool) -> list:
    """The hooks of the tensors this node produced, then their retain_grad (PyTorch's order).

    As PyTorch's engine: the tensors in the order their first hook was registered, each
    tensor's hooks in order; a hook is called even when no gradient arrived (with None).
    (The node's own pre-hooks come after these: see ``_run_node_pre_hooks``.)
    """
    grads = list(grads)
    hooks = node._hooks
    if type(node) is AccumulateGrad:
        leaf_hooks = node.variable._extra and node.variable._extra.get("hooks")
        groups = ((0, leaf_hooks),) if leaf_hooks else ()
    else:
        groups = tuple(hooks.tensor.items()) if hooks is not None else ()
    for nr, tensor_hooks in groups:
        for hook in list(tensor_hooks.values()):
            grads[nr] = _call_tensor_hook(hook, grads[nr], create_graph)
    if hooks is not None and hooks.retained:
        for nr, ref in hooks.retained.items():
            tensor = ref()
            if tensor is not None and grads[nr] is not None:
                _retain(tensor, grads[nr], create_graph)
    return grads


def _call_tensor_hook(hook: Callable, grad, create_graph: bool):
    """``hook(grad)``; what it returns (if not None) replaces the gradient."""
    if grad is None:  # nothing arrived for this tensor: PyTorch still calls the hook
        if hook(None) is not None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        return None
    result = hook(_as_tensor(grad))
    if result is None:
        return grad
    if not isinstance(result, Tensor):  # (PyTorch's check: a list is not read as a tensor)
        raise TypeError(f"expected Variable, but hook returned '{python_type_name(result)}'"
                        "\nHint: a tensor hook returns a new gradient tensor, or None to keep "
                        "the gradient (dict.setdefault and list.append return values too).")
    _check_hook_result(hook, grad, result)
    return result if create_graph else _as_array(result)


def _check_hook_result(hook: Callable, grad, result) -> None:
    """A tensor hook may replace a gradient, but not change its shape or dtype (PyTorch)."""
    before, after = _as_array(grad), _as_array(result)
    name = getattr(hook, "__name__", repr(hook))
    if after.shape != before.shape:
        raise RuntimeError(
            f"hook '{name}' has changed the size of value"
            f"\nHint: the hook got a gradient of shape {list(before.shape)} and returned one "
            f"of shape {list(after.shape)}; a hook must return a gradient shaped like its "
            "tensor (or None to keep it)."
        )
    if after.dtype != before.dtype:
        from .._dtypes import from_numpy_dtype

        was, got = (from_numpy_dtype(d)._legacy for d in (before.dtype, after.dtype))
        raise RuntimeError(
            f"hook '{name}' has changed the type of value "
            f"(was torch.{was} got torch.{got})"
        )


def _run_node_pre_hooks(node: Node, grads: list, create_graph: bool) -> list:
    """The node's own pre-hooks, ``hook(grad_outputs)``; each may return new gradients."""
    for hook in list(node._hooks.pre.values()):
        result = hook(tuple(_as_tensor(g) if g is not None else None for g in grads))
        if result is not None:
            _check_node_hook_result(hook, grads, result)
            grads = [_as_array(g) if not create_graph and g is not None else g for g in result]
    return grads


def _check_node_hook_result(hook: Callable, grads, result) -> None:
    """A node's hook returns a tuple with one gradient per slot: ``None``, or a tensor
    shaped and typed like the gradient it replaces (PyTorch's ``check_result``)."""
    if type(result) is not tuple:
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'"
                        "\nHint: return a tuple, e.g. (grad,) for a single gradient.")
    if len(result) != len(grads):
        hint = ("return one gradient per input of the node (None where there is none), or "
                "return nothing to keep the gradients as they are." if grads else
                "this node has no inputs (a leaf's AccumulateGrad): return None or ().")
        raise RuntimeError(
            f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number "
            f"of values (got {len(result)}, but expected {len(grads)})\nHint: {hint}"
        )
    for grad, new in zip(grads, result):
        if new is None:
            continue
        if grad is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        if not isinstance(new, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
        _check_hook_result(hook, grad, new)


def _fitted_to_inputs(node: Node, grads: tuple) -> tuple:
    """The gradients ``node`` sends, broadcasting undone, as a hook on it sees them.

    teachgrad sums a broadcast gradient back to its input's shape when it crosses the edge
    (``fit_gradient``); PyTorch's nodes do it themselves, so their hooks see, e.g.,
    shape (2,) for the bias of ``a + bias``. Only nodes with hooks pay for this.
    """
    fitted = []
    for index, ((nxt, nr), g) in enumerate(zip(node.next_functions, grads)):
        if g is not None and nxt is not None:
            g = fit_gradient(g, nxt._meta[nr], node, index)
        fitted.append(g)
    return tuple(fitted)


def _retain(tensor: Tensor, g, create_graph: bool) -> None:
    old = tensor._grad
    if create_graph:
        g = g if isinstance(g, Tensor) else _make(g)
        tensor._grad = g if old is None else old + g
    elif old is None:
        tensor._grad = _make(_owned(g))
    else:
        tensor._grad = _make(old._data + g)


def _run_post_hooks(node: Node, grad_inputs: tuple, grad_outputs: list, create_graph) -> tuple:
    """The node's own hooks, ``hook(grad_inputs, grad_outputs)``, in the order registered.

    As in PyTorch, a hook may return new gradients for the node's inputs; the next hook,
    and the rest of the graph, get those.
    """
    outs = tuple(_as_tensor(g) if g is not None else None for g in grad_outputs)
    grad_inputs = _fitted_to_inputs(node, grad_inputs)
    for hook in list(node._hooks.post.values()):
        ins = tuple(_as_tensor(g) if g is not None else None for g in grad_inputs)
        result = hook(ins, outs)
        if result is None:
            continue
        _check_node_hook_result(hook, grad_inputs, result)
        grad_inputs = tuple(
            g if g is None or create_graph else _as_array(g) for g in result
        )
    return grad_inputs


def call_node(node: Node, grads: tuple):
    """``grad_fn(grad)``: run one node by hand, as PyTorch lets a learner do.

    The node's backward formula runs on tensors (its saved values unpacked as tensors), so
    in grad mode what it computes is recorded, as under ``create_graph``. Its results come
    back as the formula gives them: a broadcast gradient is not yet summed to the input's
    shape (the engine does that between nodes), and None where no gradient is needed. One
    result comes back bare, several as a tuple. An ``AccumulateGrad`` adds its gradient
    into ``.grad`` and gives back ``()``.

    >>> import teachgrad as torch
    >>> a = torch.tensor([2.0, 3.0], requires_grad=True)
    >>> (a * 3).grad_fn(torch.ones(2))
    (tensor([3., 3.]), None)
    """
    expected = len(node._meta)
    if len(grads) != expected:
        raise TypeError(f"expected {expected} arguments, got {len(grads)} instead")
    for i, g in enumerate(grads):
        if not isinstance(g, Tensor):
            raise TypeError(f"argument {i} is not a Variable")
    if type(node) is AccumulateGrad:
        _accumulate(node, grads[0], _grad_state.enabled, None)
        return ()
    previous = graph.unpack_mode.as_tensors
    graph.unpack_mode.as_tensors = True
    try:
        outputs = node._run_backward(grads)
    finally:
        graph.unpack_mode.as_tensors = previous
    outputs = tuple(None if g is None else _as_tensor(g) for g in outputs)
    return outputs[0] if len(outputs) == 1 else outputs


def _as_tensor(g) -> Tensor:
    return g if isinstance(g, Tensor) else _make(np.asarray(g))


def _as_array(g) -> np.ndarray:
    return g._data if isinstance(g, Tensor) else np.asarray(g)


__all__ = ["backward", "grad", "observe", "Step", "fit_gradient", "sum_to"]
