"""What to draw: the backward graph of some tensors, as boxes and arrows with stable ids.

:func:`build` walks the graph that ``backward()`` will walk, starting at the output
tensor(s), and decides which boxes and arrows to draw. Each box gets an id that stays the
same for as long as the drawing lives, so the stepper can restyle boxes (current, done...)
without laying the graph out again:

=========  ==================================================================
``t0``     the output tensor (where the first gradient, usually 1, starts)
``n3``     an autograd node: the 4th found walking back from the output
``z3_1``   ``None`` in ``n3.next_functions[1]``: an input that needs no gradient
``c0``     a collapsed chain of nodes (large graphs)
``s0``     "everything else" (graphs too large even after collapsing chains)
``e3_1``   the arrow for ``n3.next_functions[1]`` (``r0`` from the output tensor)
=========  ==================================================================

Arrows point the way gradients flow: from the output towards the leaves.

Large graphs: above ``max_nodes`` boxes, chains (a node with one arrow in and one out,
as in ``x.exp().exp().exp()...``) are collapsed into one box; if that is still too many,
everything below the output's own node becomes one summary box with counts. Everything
here is a loop over a list, never recursion: 100,000-node chains are fine.
"""

from __future__ import annotations

import operator
from collections import Counter
from dataclasses import dataclass, field

from .._tensor import Tensor
from ..autograd.graph import AccumulateGrad, Node, edge_of
from .short_traceback import ArgumentError

MAX_NODES = 300  # more boxes than this and nobody can read the drawing anyway
MIN_CHAIN = 3    # collapsing shorter chains would not make the drawing smaller enough


@dataclass(eq=False)
class Box:
    """One box of the drawing.

    ``kind`` is ``"root"`` (an output tensor), ``"op"`` (a grad_fn), ``"leaf"`` (an
    AccumulateGrad), ``"none"`` (a ``None`` edge), ``"chain"`` or ``"summary"``.
    ``members`` are the autograd nodes the box stands for (several for chain/summary).
    """

    id: str
    kind: str
    members: list = field(default_factory=list)
    #: the output tensor of a "root" box; for a "none" box, the tensor that went in there
    #: when the node saved it (see :func:`input_tensor`), so the box can carry its name
    tensor: Tensor | None = None


@dataclass(eq=False)
class Arrow:
    """One arrow: ``tail`` box sends gradient to ``head`` box.

    ``members`` are the graph edges it stands for, each ``(node, index)`` meaning
    ``node.next_functions[index]``; ``(None, k)`` is the edge from output tensor ``k``.
    """

    id: str
    tail: str
    head: str
    members: list = field(default_factory=list)


@dataclass(eq=False)
class GraphModel:
    """The boxes and arrows for some output tensors, plus the look-ups the stepper needs."""

    roots: tuple
    boxes: list
    arrows: list
    box_of: dict          # autograd Node -> id of the box showing it
    arrow_of: dict        # (node, index) -> id of the arrow showing that edge
    index_of: dict        # autograd Node -> its number (the n in "n3")
    mode: str             # "full", "collapsed" (chains folded) or "summary"
    counts: Counter       # how many nodes of each kind (for summaries)
    total: int            # autograd nodes reachable from the outputs
    limit: int = MAX_NODES  # the max_nodes this drawing was built with

    def box(self, box_id: str) -> Box:
        """The box whose id is ``box_id``."""
        return self._boxes_by_id[box_id]

    def __post_init__(self) -> None:
        self._boxes_by_id = {b.id: b for b in self.boxes}


_names_by_type: dict = {}


def node_name(node: Node) -> str:
    """The name shown for a node: PyTorch's, without the ``torch::autograd::`` prefix."""
    kind = type(node)
    name = _names_by_type.get(kind)
    if name is None:  # name() is the same for every node of a class: ask once per class
        name = _names_by_type[kind] = node.name().rsplit("::", 1)[-1]
    return name


def count_names(nodes) -> Counter:
    """How many nodes of each name (``{'MulBackward0': 3, ...}``), counted per class."""
    by_type = Counter(map(type, nodes))
    counts: Counter = Counter()
    for kind, n in by_type.items():
        counts[node_name(_example(nodes, kind))] += n
    return counts


def _example(nodes, kind):
    return next(n for n in nodes if type(n) is kind)


def build(
    roots, max_nodes: int = MAX_NODES, hide_no_grad: bool = False, function: str = "draw"
) -> GraphModel:
    """Walk back from ``roots`` (a tensor or several) and decide the boxes and arrows.

    ``function``: the public function called (``draw``, ``step_backward``...), which a
    wrong argument's error names."""
    roots = as_tensors(roots, function)
    max_nodes = checked_max_nodes(max_nodes, function)
    root_nodes = [edge_of(r)[0] if r._requires_grad else None for r in roots]
    order = _walk(root_nodes)
    index_of = {node: k for k, node in enumerate(order)}
    counts = count_names(order)

    group = {}  # node -> box id, for nodes folded into a chain or summary box
    mode = "full"
    nones = 0 if hide_no_grad else sum(
        1 for n in order for nxt, _ in n.next_functions if nxt is None
    )
    if len(order) + nones + len(roots) > max_nodes:
        mode = "collapsed"
        group = _fold_chains(order, set(root_nodes))
        if len(order) - len(group) + len(set(group.values())) + len(roots) > max_nodes:
            mode = "summary"
            group = {n: "s0" for n in order if n not in root_nodes}

    boxes: list[Box] = []
    box_of: dict = {}
    for k, r in enumerate(roots):
        boxes.append(Box(f"t{k}", "root", tensor=r))
    seen_groups: dict[str, Box] = {}
    for node in order:
        gid = group.get(node)
        if gid is None:
            kind = "leaf" if type(node) is AccumulateGrad else "op"
            box = Box(f"n{index_of[node]}", kind, [node])
            boxes.append(box)
        else:
            box = seen_groups.get(gid)
            if box is None:
                box = seen_groups[gid] = Box(gid, "summary" if gid == "s0" else "chain")
                boxes.append(box)
            box.members.append(node)
        box_of[node] = box.id

    arrows: list[Arrow] = []
    arrow_of: dict = {}
    merged: dict[tuple[str, str], Arrow] = {}
    for k, node in enumerate(root_nodes):
        if node is not None:
            arrow = Arrow(f"r{k}", f"t{k}", box_of[node], [(None, k)])
            arrows.append(arrow)
            arrow_of[(None, k)] = arrow.id
    for node in order:
        tail = box_of[node]
        n = index_of[node]
        for i, (nxt, _nr) in enumerate(node.next_functions):
            if nxt is None:
                if mode == "full" and not hide_no_grad:
                    none_box = Box(f"z{n}_{i}", "none", [], input_tensor(node, i))
                    boxes.append(none_box)
                    arrows.append(Arrow(f"e{n}_{i}", tail, none_box.id, [(node, i)]))
                continue
            head = box_of[nxt]
            if head == tail:
                continue  # inside a folded chain: not drawn
            if node in group or nxt in group:
                # Arrows into or out of a folded box: one arrow per pair of boxes.
                arrow = merged.get((tail, head))
                if arrow is None:
                    arrow = merged[(tail, head)] = Arrow(f"e_{tail}_{head}", tail, head)
                    arrows.append(arrow)
                arrow.members.append((node, i))
            else:
                arrow = Arrow(f"e{n}_{i}", tail, head, [(node, i)])
                arrows.append(arrow)
            arrow_of[(node, i)] = arrow.id
    return GraphModel(
        roots=roots, boxes=boxes, arrows=arrows, box_of=box_of, arrow_of=arrow_of,
        index_of=index_of, mode=mode, counts=counts, total=len(order), limit=max_nodes,
    )


#: PyTorch's names of what a two-input op saves, by input (``W @ h`` saves self and vec)
_SAVED_INPUT = {"self": 0, "other": 1, "vec": 1, "mat2": 1}


def input_tensor(node: Node, slot: int, sources: tuple | None = None) -> Tensor | None:
    """The tensor that went into input ``slot`` of ``node`` (an input that needs no
    gradient, such as a detached state), when the node saved it; else None.

    A ``None`` edge says nothing about what went in there; what the node saved does:
    ``W @ h`` with a detached ``h`` keeps ``h`` for W's gradient. It is that input when it
    is the node's only saved tensor that needs no gradient and the node's only ``None``
    edge, or when PyTorch's name for it says which input it was (``vec``: the second).
    ``sources``: where the saved values came from, as taken before backward freed them
    (``chain_rule.snapshot_saved``); by default, the node's own.
    """
    if sources is None:
        try:
            _values, sources = node._saved
        except (AttributeError, TypeError, ValueError):  # nothing saved, or already freed
            return None
    names = getattr(node, "saved_names", ())
    found = {}  # id -> (position, tensor): the saved tensors that need no gradient
    for position, source in enumerate(sources):
        tensor = source[0] if isinstance(source, tuple) and len(source) == 2 else None
        if isinstance(tensor, Tensor) and not tensor._requires_grad:
            found.setdefault(id(tensor), (position, tensor))
    none_slots = [i for i, (nxt, _) in enumerate(node.next_functions) if nxt is None]
    if len(found) == 1 and none_slots == [slot]:
        return next(iter(found.values()))[1]
    if len(node.next_functions) == 2 and len(names) == len(sources):
        for position, tensor in found.values():
            if _SAVED_INPUT.get(names[position]) == slot:
                return tensor
    return None


def as_saved(value, source):
    """A saved input as PyTorch keeps it: the input tensor's own values and dtype.

    An op that promotes (``x * y``, int ``x``, float ``y``) keeps the promoted copy it
    computed with; PyTorch's ``_saved_self`` is ``x`` itself. The input's own array is
    that value only while ``x`` is unchanged since forward (its version then is the
    saved one); after an in-place change the copy is all that is left of it.
    """
    if type(source) is not tuple or len(source) != 2 or getattr(value, "dtype", None) is None:
        return value
    tensor, version = source
    own = getattr(tensor, "_data", None)
    if own is None or own.dtype == value.dtype or tensor._vc[0] != version:
        return value
    return own


def as_tensors(out, function: str) -> tuple:
    """``out`` (a tensor, or a list or tuple of them) as a tuple of tensors.

    Anything else is a ``TypeError`` that names ``function`` (``draw``, ``step_backward``)
    and what it got, rather than "'int' object is not iterable" from deep inside.
    """
    if isinstance(out, Tensor):
        return (out,)
    items = tuple(out) if isinstance(out, (list, tuple)) else (out,)
    for item in items:
        if not isinstance(item, Tensor):
            raise ArgumentError(f"{function}() expects a Tensor or a list of Tensors, "
                                f"got {type(item).__name__}\nHint: {_not_a_tensor(item, function)}")
    return items


def _not_a_tensor(item, function: str) -> str:
    """What the learner probably meant, for the slips seen most: a grad_fn, a model, a
    number or NumPy array, None."""
    if isinstance(item, Node):
        return (f"{type(item).__name__} is a grad_fn, a node of the graph, not a tensor. "
                f"Pass the tensor whose grad_fn it is: {function}(out), not "
                f"{function}(out.grad_fn).")
    if hasattr(item, "parameters") and hasattr(item, "forward"):  # an nn.Module
        return (f"a {type(item).__name__} is a model, not a graph: the graph is made when "
                f"it runs. Pass its output: {function}(model(x)), or the loss computed "
                "from it.")
    if item is None:
        return ("None is often what a function without `return` gives back, or the .grad "
                "of a tensor before backward() ran.")
    return ("the graph starts at tensors made with requires_grad=True: "
            "x = torch.tensor(..., requires_grad=True), then the ops on x.")


def checked_max_nodes(max_nodes, function: str) -> int:
    """``max_nodes`` as an int, or Python's TypeError with a hint (it was "'>' not
    supported between instances of 'int' and 'str'", from inside build)."""
    if not isinstance(max_nodes, bool):
        try:
            return operator.index(max_nodes)  # (a NumPy integer too)
        except TypeError:
            pass
    raise ArgumentError(
        f"{function}() argument 'max_nodes' must be int, not {type(max_nodes).__name__}"
        f"\nHint: max_nodes is how many boxes to draw before long chains are folded "
        f"(the default is {MAX_NODES}), e.g. max_nodes=500."
    )


def _walk(root_nodes: list) -> list:
    """All nodes reachable from the roots, breadth first (so ids read top to bottom)."""
    order: list = []
    seen: set = set()
    for r in root_nodes:
        if r is not None and r not in seen:
            seen.add(r)
            order.append(r)
    i = 0
    while i < len(order):  # ``order`` doubles as the queue
        for nxt, _ in order[i].next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
        i += 1
    return order


def _fold_chains(order: list, keep: set) -> dict:
    """Map every node inside a long chain to its chain's box id (``c0``, ``c1``...).

    A *link* has exactly one arrow in and one arrow out (``None`` edges do not count:
    ``x * 3`` is still a link). A chain is a maximal run of links; runs shorter than
    ``MIN_CHAIN`` stay as they are. The output's own node is never folded.
    """
    indegree: Counter = Counter()
    parent: dict = {}
    child: dict = {}  # the only child of a node with exactly one outgoing arrow
    for node in order:
        outgoing = [nxt for nxt, _ in node.next_functions if nxt is not None]
        for nxt in outgoing:
            indegree[nxt] += 1
            parent[nxt] = node
        if len(outgoing) == 1:
            child[node] = outgoing[0]
    links = {
        node for node in child
        if indegree[node] == 1 and node not in keep and type(node) is not AccumulateGrad
    }

    group: dict = {}
    chains = 0
    for node in order:
        if node not in links or parent[node] in links:
            continue  # not the first link of a chain
        run = [node]
        while child[run[-1]] in links:
            run.append(child[run[-1]])
        if len(run) >= MIN_CHAIN:
            gid = f"c{chains}"
            chains += 1
            for member in run:
                group[member] = gid
    return group



__all__ = [
    "Box", "Arrow", "GraphModel", "build", "as_tensors", "node_name", "count_names", "MAX_NODES",
    "as_saved", "input_tensor",
]
