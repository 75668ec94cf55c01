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
them*: for the length of the backward, each packed value's unpack hook is wrapped in a
watcher that calls it once, as backward asked, keeps a copy of what it returned, and
returns that unchanged. ``pack`` is never called again, ``unpack`` exactly as often as
``backward()`` alone calls it, and the hooks are put back as they were afterwards (a
``retain_graph=True`` graph unpacks through the learner's own hooks next time).

A node whose values backward never unpacked (``inputs=`` stopped before it, or an error
ended backward) shows none: the stepper does not make them up.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from .._tensor import Tensor
from ..autograd import graph as autograd_graph
from ..autograd.saved_hooks import PackedSaved


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


class _Watcher:
    """An unpack hook, called exactly as backward calls it, that remembers its result."""

    __slots__ = ("hook", "got", "index")

    def __init__(self, hook, got: dict, index: int) -> None:
        self.hook = hook
        self.got = got  # position -> a copy of the unpacked tensor's values
        self.index = index

    def __call__(self, packed):
        tensor = self.hook(packed)
        # (anything but a tensor is refused by the caller, with PyTorch's TypeError)
        if isinstance(tensor, Tensor) and self.index not in self.got:
            # a copy: the values of *this* moment, as the step records keep gradients
            self.got[self.index] = (tensor, np.array(tensor._data, copy=True))
        return tensor


@contextmanager
def unpacked_by_backward(nodes) -> Iterator[dict]:
    """Watch the unpack hooks of ``nodes`` while the block runs (the real backward).

    Yields a dict that, once the block ends, maps each node whose packed values were
    unpacked to ``Unpacked((values, sources))``: its saved values, each packed one as
    ``unpack`` returned it, and sources that ``chain_rule.saved_with_labels`` reads as
    it reads a plain node's.
    """
    watched = []  # (node, saved, got, original packed dict)
    for node in nodes:
        saved = getattr(node, "_saved", None)
        if type(saved) is not PackedSaved or not saved.packed:
            continue
        got: dict = {}
        original = dict(saved.packed)
        saved.packed = {index: (packed, _Watcher(hook, got, index))
                        for index, (packed, hook) in original.items()}
        watched.append((node, saved, got, original))
    snapshot: dict = {}
    try:
        yield snapshot
    finally:
        for node, saved, got, original in watched:
            saved.packed = original  # the learner's hooks again (a retained graph)
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
