"""``torch.autograd.graph.register_multi_grad_hook``: one hook for several tensors' gradients.

Mode ``"all"``: ``fn(grads)`` runs once per backward pass, when every one of the tensors
whose gradient that pass computes has got it; ``grads`` holds ``None`` for the others (a
tensor outside the graph, or not needed for the ``inputs=`` asked for). Mode ``"any"``:
``fn(grad)`` runs once per pass, with the first of the gradients computed.

It is built, as PyTorch builds it, from one ordinary tensor hook per tensor, and asks the
engine two things: which backward pass is running (a hook may itself call backward), and
whether that pass will run a given node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import graph  # (graph imports this module: its names are read at call time)


class _MultiHandle:
    """The handle ``register_multi_grad_hook`` returns: ``remove()`` takes every per-tensor
    hook away."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        """Remove the hook from every tensor (doing it twice is harmless)."""
        for handle in self.handles:
            handle.remove()

    def __enter__(self) -> _MultiHandle:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.remove()


def _running_pass():
    """The backward pass in progress (the innermost one), as the engine describes it."""
    from . import engine  # (the engine imports graph, and graph this module)

    run = engine.current_pass()
    if run is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return run


def register_multi_grad_hook(tensors: Sequence, fn: Callable, *,
                             mode: str = "all") -> _MultiHandle:
    """Call ``fn`` once the gradients of all of ``tensors`` (``mode="all"``: ``fn(grads)``)
    or the first of them (``mode="any"``: ``fn(grad)``) are computed in a backward pass.

        >>> import teachgrad as torch
        >>> a = torch.ones(2, requires_grad=True)
        >>> b = torch.ones(2, requires_grad=True)
        >>> c = a * b
        >>> d = a * b
        >>> handle = torch.autograd.graph.register_multi_grad_hook(
        ...     (a, b, c, d), lambda grads: print([g is not None for g in grads]))
        >>> c.sum().backward(retain_graph=True)
        [True, True, True, False]
        >>> c.sum().backward(inputs=(a,))
        [True, False, True, False]
    """
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    from . import engine

    engine.track_passes()  # (backward passes say what they run only once this is used)
    if mode == "any":
        first_only = _first_gradient_hook(fn)  # (one for all tensors: once per pass)
        return _MultiHandle(tuple(t.register_hook(first_only)
                                  for t in tensors if t.requires_grad))
    nodes = [_node_of(t) for t in tensors]
    # per backward pass (by its number): [hooks run, hooks expected, the gradients]
    waiting: dict[int, list] = {}

    def hook_for(index: int) -> Callable:
        def inner_hook(grad) -> None:
            run = _running_pass()
            entry = waiting.get(run.number)
            if entry is None:  # the first of them in this pass: how many will come?
                expected = sum(map(run.will_execute, nodes))
                entry = waiting[run.number] = [0, expected, [None] * len(nodes)]
            entry[0] += 1
            entry[2][index] = grad
            if entry[0] == entry[1]:
                del waiting[run.number]
                fn(entry[2])

        return inner_hook

    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))


def _node_of(tensor):
    """The node whose run computes ``tensor``'s gradient (its AccumulateGrad for a leaf)."""
    if not tensor.requires_grad:  # (PyTorch's message: it looks for the grad_fn)
        raise AssertionError("Expected gradient function to be set")
    return graph.edge_of(tensor)[0]


def _first_gradient_hook(fn: Callable) -> Callable:
    passes_seen: set = set()  # (the numbers of the passes it ran in, as PyTorch keeps them)

    def wrapped(grad) -> None:
        number = _running_pass().number
        if number in passes_seen:
            return
        passes_seen.add(number)
        fn(grad)

    return wrapped


__all__ = ["register_multi_grad_hook"]
