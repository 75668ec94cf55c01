"""Hooks for saved tensors: see, move or compress what autograd keeps for backward.

A backward formula needs values from the forward pass (``a * b`` keeps ``a`` and ``b``;
``exp`` keeps its result). Inside ``saved_tensors_hooks(pack, unpack)`` every tensor an op
saves goes through ``pack(tensor)``, and the graph keeps only what ``pack`` returned; when
backward (or ``grad_fn._saved_self``) needs the tensor back, ``unpack(packed)`` must
return it::

    >>> import teachgrad as torch
    >>> def pack(x):
    ...     print("packing", x.shape)
    ...     return x
    >>> def unpack(x):
    ...     print("unpacking", x.shape)
    ...     return x
    >>> a = torch.ones(3, requires_grad=True)
    >>> with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    ...     y = a.exp()
    packing teachgrad.Size([3])
    >>> y.sum().backward()
    unpacking teachgrad.Size([3])

As in PyTorch: the hooks are the innermost pair active when the op runs; the values an op
computes for itself (masks, shapes) and Python numbers are not packed; a tensor changed in
place after it was packed is not detected (``unpack`` returns whatever it returns).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class _HooksState:
    """The active (pack, unpack) pairs, innermost last, and a refusal message if disabled."""

    def __init__(self) -> None:
        self.stack: list[tuple[Callable, Callable]] = []
        self.disabled: str | None = None


state = _HooksState()


class saved_tensors_hooks:
    """Pass every tensor ops save for backward through ``pack_hook``, and what it returned
    through ``unpack_hook`` when backward needs it (see the module docstring)."""

    def __init__(self, pack_hook: Callable[[Any], Any],
                 unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        if state.disabled is not None:
            raise RuntimeError(state.disabled)
        state.stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc_info) -> None:
        state.stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors in CPU memory (PyTorch moves GPU tensors there to save GPU memory).

    teachgrad's tensors are always in CPU memory, so the tensors are kept as they are.
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(_keep, _keep)


def _keep(tensor):
    return tensor


class _AllowMutationOnSavedContext:
    """One ``allow_mutation_on_saved_tensors`` block (what ``with ... as ctx`` gives)."""

    def __init__(self) -> None:
        self.open = True

    def clear(self) -> None:
        """End the block: the graph recorded in it can no longer run backward."""
        self.open = False


_mutation_block_open = False


class allow_mutation_on_saved_tensors:
    """Let code change a saved tensor in place; backward still sees the saved values.

    Without it, ``b = a.clone(); out = (b ** 2).sum(); b.sin_()`` makes ``out.backward()``
    fail (``b`` was saved for the power's gradient, and it changed). Inside this block every
    saved tensor is packed with a copy of its values, and backward uses the copy when the
    tensor has changed since. (PyTorch copies at the moment of the change instead; the
    values backward sees are the same.) Backward must run inside the same block::

        >>> import teachgrad as torch
        >>> with torch.autograd.graph.allow_mutation_on_saved_tensors():
        ...     a = torch.ones(3, requires_grad=True)
        ...     b = a.clone()
        ...     out = (b ** 2).sum()
        ...     _ = b.sin_()
        ...     out.backward()
        >>> a.grad
        tensor([2., 2., 2.])
    """

    def __enter__(self) -> _AllowMutationOnSavedContext:
        global _mutation_block_open
        self.context = _AllowMutationOnSavedContext()
        self.hooks = saved_tensors_hooks(self._pack, self._unpack)
        self.hooks.__enter__()
        if _mutation_block_open:
            self.hooks.__exit__()
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        _mutation_block_open = True
        return self.context

    def __exit__(self, *exc_info) -> None:
        global _mutation_block_open
        self.hooks.__exit__()
        self.context.clear()
        _mutation_block_open = False

    def _pack(self, tensor) -> tuple:
        return (self.context, tensor, tensor._version, tensor.detach().clone())

    @staticmethod
    def _unpack(packed: tuple):
        context, tensor, version, copy = packed
        if not context.open:
            raise RuntimeError(
                "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                "in which the graph was originally recorded."  # (PyTorch's words, as written)
            )
        return tensor if tensor._version == version else copy


class disable_saved_tensors_hooks:
    """Refuse ``saved_tensors_hooks`` inside this block with ``error_message``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        self.previous = state.disabled
        state.disabled = self.error_message

    def __exit__(self, *exc_info) -> None:
        state.disabled = self.previous


class PackedSaved:
    """What an op saved while hooks were active: packed tensors instead of arrays.

    ``values`` holds the op's own values (``None`` where a tensor was packed), ``sources``
    says what each value is (see ``graph.record_saved``), ``packed`` maps a position to
    ``(what pack returned, unpack)``.
    """

    __slots__ = ("values", "sources", "packed")

    def __init__(self, values: tuple, sources: tuple, packed: dict) -> None:
        self.values = values
        self.sources = sources
        self.packed = packed

    def unpack(self, as_tensors: bool) -> tuple:
        """The saved values, each packed tensor through its unpack hook (backward's read)."""
        values = list(self.values)
        for i in self.packed:
            tensor = self.unpack_one(i)
            values[i] = tensor if as_tensors else tensor._data
        return tuple(values)

    def unpack_one(self, index: int):
        """The packed tensor at ``index``, through its unpack hook: reading one
        ``grad_fn._saved_<name>`` unpacks that tensor only, as in PyTorch."""
        from .._tensor import Tensor

        packed, unpack_hook = self.packed[index]
        tensor = unpack_hook(packed)
        if not isinstance(tensor, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got "
                f"result of type {type(tensor).__name__}"
            )
        for callback in _unpack_observers:
            callback(self, index, tensor)
        return tensor


# Who wants to see each unpacked tensor (the notebook's stepper, while its backward runs).
_unpack_observers: list[Callable[[PackedSaved, int, Any], None]] = []


@contextmanager
def observe_unpacks(callback: Callable[[PackedSaved, int, Any], None]) -> Iterator[None]:
    """Call ``callback(saved, index, tensor)`` each time a packed tensor is unpacked
    inside the block: ``saved`` is the node's :class:`PackedSaved` (``node._saved``),
    ``tensor`` what the unpack hook returned.

    This lets a reader see the values backward really computed with without calling
    ``unpack`` again (a second call is visible: a printing hook prints, a checkpoint
    recomputes, a hook that pops its storage fails).

    >>> import teachgrad as torch
    >>> a = torch.zeros(2, requires_grad=True)
    >>> with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 2, lambda x: x):
    ...     y = a.exp()                  # exp saves its result, e^0 = 1, packed as 2
    >>> seen = []
    >>> with observe_unpacks(lambda saved, i, tensor: seen.append(tensor.tolist())):
    ...     y.sum().backward()
    >>> seen
    [[2.0, 2.0]]
    """
    _unpack_observers.append(callback)
    try:
        yield
    finally:
        _unpack_observers.remove(callback)


def pack(values: tuple, sources: tuple, inputs: tuple, outputs: tuple) -> PackedSaved:
    """Pack the saved inputs and outputs through the innermost hooks (``record_saved``)."""
    pack_hook, unpack_hook = state.stack[-1]
    values, packed = list(values), {}
    for i, source in enumerate(sources):
        if source is None:  # a constant the op made itself: kept as it is
            continue
        # an input: the tensor itself; the op's output: by its output number
        tensor = source[0] if len(source) == 2 else outputs[source[2]]
        packed[i] = (pack_hook(tensor), unpack_hook)
        values[i] = None
    return PackedSaved(tuple(values), sources, packed)


__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors"]
