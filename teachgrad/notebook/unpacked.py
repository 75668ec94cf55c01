"""What backward got back from ``saved_tensors_hooks``: the saved values the stepper shows.

Inside ``torch.autograd.graph.saved_tensors_hooks(pack, unpack)`` (and under
``checkpoint(..., use_reentrant=False)``, which is built on them) a node keeps only what
``pack`` returned. The values its backward computes with are what ``unpack`` gives back,
when the node runs; they may differ from the forward's (``unpack`` of a float16 copy
returns rounded numbers) and may not exist before then at all (checkpointing recomputes
them).

Why not simply unpack them ourselves, before or after backward? Unpacking twice is not
harmless. Every call of ``unpack`` is one the learner can see: a printing hook prints
twice (lesson 15 counts the calls), a checkpointed block runs its function once more, and
a hook that hands its storage back once (``storage.pop(key)``, a file it deletes) makes
the real backward fail. So the stepper takes the values *as the real backward unpacks
them*: for the length of the backward, the core reports each tensor an unpack hook
returns (``saved_hooks.observe_unpacks``, as ``engine.observe`` reports each step), and
a copy of its values is kept. Nothing of the graph or the hooks is changed: ``pack`` is
never called again, and ``unpack`` exactly as often as ``backward()`` alone calls it.

A node whose values backward never unpacked (``inputs=`` stopped before it, or an error
ended backward) shows none: the stepper does not make them up.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from ..autograd import graph as autograd_graph
from ..autograd.saved_hooks import PackedSaved, observe_unpacks


class Unpacked(tuple):
    """``(values, sources)`` of a node whose saved values came back through an unpack
    hook: the chain-rule panel says so (see ``PanelWriter._saved``)."""

    __slots__ = ()


class Packed(tuple):
    """``(values, sources)`` of a node whose saved tensors are still packed (the forward
    replay runs no backward): the values the op kept as they are (numbers, shapes), None
    for each packed one; ``count`` says how many were packed."""

    def __new__(cls, values: tuple, sources: tuple, count: int) -> Packed:
        pair = super().__new__(cls, (values, sources))
        pair.count = count
        return pair


@contextmanager
def unpacked_by_backward(nodes) -> Iterator[dict]:
    """Watch what the unpack hooks of ``nodes`` return while the block runs (the real
    backward).

    Yields a dict that, once the block ends, maps each node whose packed values were
    unpacked to ``Unpacked((values, sources))``: its saved values, each packed one as
    ``unpack`` returned it, and sources that ``chain_rule.saved_with_labels`` reads as
    it reads a plain node's.
    """
    # id(PackedSaved) -> (its node, it, {position: (tensor, a copy of its values)}); holding
    # each PackedSaved here keeps it alive, so no other object can take its id meanwhile
    owners = {}
    for node in nodes:
        saved = getattr(node, "_saved", None)
        if type(saved) is PackedSaved and saved.packed:
            owners[id(saved)] = (node, saved, {})

    def remember(saved: PackedSaved, index: int, tensor) -> None:
        owner = owners.get(id(saved))
        if owner is not None and index not in owner[2]:
            # a copy: the values of *this* moment, as the step records keep gradients
            owner[2][index] = (tensor, np.array(tensor._data, copy=True))

    snapshot: dict = {}
    try:
        with observe_unpacks(remember):
            yield snapshot
    finally:
        for node, saved, got in owners.values():
            if got:
                snapshot[node] = _as_snapshot(node, saved, got)


def _as_snapshot(node, saved: PackedSaved, got: dict) -> Unpacked:
    """The node's ``(values, sources)`` with the unpacked values filled in.

    A packed input keeps only its place in the graph (``graph.SavedInput``); its source
    becomes the tensor backward saw, on that place (``graph._reconnect``, as backward of
    backward does), so the panel names it by its edge (``a (_saved_self)``).
    """
    values, sources = list(saved.values), list(saved.sources)
    for index, (tensor, array) in got.items():
        values[index] = array
        source = sources[index]
        if type(source) is autograd_graph.SavedInput:
            tensor = autograd_graph._reconnect(node, tensor, source)
            sources[index] = (tensor, tensor._vc[0])
    # a packed value never unpacked (its op's backward did not read it) stays None
    return Unpacked((tuple(values), tuple(sources)))


__all__ = ["Packed", "Unpacked", "unpacked_by_backward"]
