"""Gradient checkpointing: keep less for backward, compute it again when backward needs it.

A forward pass saves what each backward formula will need (``exp`` keeps its result,
``a * b`` keeps ``a`` and ``b``), and for a deep network that memory is most of the cost
of training. ``checkpoint(function, *args)`` runs ``function`` but keeps none of what its
ops save; when backward reaches those ops, ``function`` runs again (the *recomputation*)
to make the saved values anew. Memory for time::

    >>> import teachgrad as torch
    >>> from teachgrad.utils.checkpoint import checkpoint
    >>> x = torch.tensor([0.0, 1.0], requires_grad=True)
    >>> y = checkpoint(lambda t: t.exp() * t, x, use_reentrant=False)
    >>> y.sum().backward()          # exp and * run again here
    >>> x.grad                      # eˣ·(1 + x)
    tensor([1.0000, 5.4366])

Two ways, as in PyTorch (``use_reentrant=``):

* ``False`` (recommended): the ops are recorded as usual, but inside
  ``saved_tensors_hooks`` whose pack hook keeps only a placeholder (:class:`_Frame`).
  The first unpack re-runs ``function`` under other hooks that collect what its ops save,
  in the same order, and hands each placeholder its value. ``torch.autograd.grad`` works.
* ``True``: ``function`` runs under ``no_grad`` inside one custom Function,
  ``CheckpointFunctionBackward``; its backward re-runs ``function`` with grad on and calls
  ``backward()`` on the result (a backward pass inside a backward pass, hence
  "reentrant"). Only ``.backward()`` without ``inputs=`` can drive it.

The random numbers ``function`` draws (dropout) are the same in the recomputation: the
generator's state is saved before the forward run and restored around the second.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from typing import Any

from .. import _random
from .._tensor import Tensor
from ..autograd import engine
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.saved_hooks import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "detach_variable",
           "check_backward_validity", "noop_context_fn"]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the forward pass saved."""


def noop_context_fn() -> tuple:
    """The default ``context_fn``: two context managers that do nothing."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(
    function: Callable,
    *args,
    use_reentrant: bool | None = None,
    context_fn: Callable = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    **kwargs,
) -> Any:
    """Run ``function(*args, **kwargs)`` keeping nothing for backward; recompute it then.

    ``use_reentrant`` should be given (PyTorch warns without it and takes ``True``);
    ``preserve_rng_state=False`` skips saving and restoring the random generator.
    See the module docstring for the two variants.
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.",
            UserWarning, stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        engine.track_passes()  # (so that backward can ask which pass is running)
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(
            "determinism_check should be one of ['default', 'none'], but got "
            f"{determinism_check}"
        )
    return _checkpoint_without_reentrant(function, preserve, context_fn,
                                         determinism_check == "default", args, kwargs)


def checkpoint_sequential(functions, segments: int, input: Tensor,
                          use_reentrant: bool | None = None, **kwargs) -> Tensor:
    """Run ``functions`` (a list or an ``nn.Sequential``) one after the other, checkpointing
    all but the last of ``segments`` equal runs of them (the last one's saved values are
    needed first, so it keeps them)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs "
            "for more details on the differences between the two variants.",
            UserWarning, stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start: int, end: int) -> Callable:
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor of ``inputs`` detached, keeping its ``requires_grad``; the rest as is."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            detached = x.detach()
            detached.requires_grad = x.requires_grad
            x = detached
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    """Warn when no tensor among ``inputs`` requires grad (the reentrant variant's gradients
    would all be None)."""
    if not any(x.requires_grad for x in inputs if isinstance(x, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      UserWarning, stacklevel=3)


# --------------------------------------------------------------------- use_reentrant=True
class CheckpointFunction(Function):
    """The reentrant variant: one node for the whole function (CheckpointFunctionBackward)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        """Run the function under no_grad, saving only its tensor inputs (and the RNG)."""
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = _random.get_rng_state() if preserve_rng_state else None
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        """Run the function again with grad on, and backward through that."""
        if not _drives_whole_graph():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        inputs = list(ctx.inputs)
        for i, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = tensor
        detached = detach_variable(tuple(inputs))
        with _rng_state(ctx.rng_state), enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(out, g) for out, g in zip(outputs, grads)
                 if isinstance(out, Tensor) and out.requires_grad]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        engine.backward([out for out, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None
                                    for x in detached)


def _drives_whole_graph() -> bool:
    """Is the backward pass running now a plain ``.backward()`` (no ``inputs=``, not
    ``autograd.grad``)? PyTorch's ``torch.autograd._is_checkpoint_valid()``."""
    running = engine.current_pass()
    return running is None or not running._targets


# -------------------------------------------------------------------- use_reentrant=False
class _Holder:
    """What the pack hook keeps instead of a tensor: its place in the order of saving."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class _StopRecomputation(Exception):
    """Raised inside the recomputation once every value is back (the rest need not run)."""


class _SaveInputs(Function):
    """Keeps the checkpoint's tensor inputs alive for the recomputation, as saved tensors:
    reading them back checks they were not changed in place since (a silently different
    recomputation would give wrong gradients)."""

    @staticmethod
    def forward(anchor, *tensors):
        """The output only anchors this node in the graph."""
        return anchor.new_empty((0,))

    @staticmethod
    def setup_context(ctx, inputs: tuple, output) -> None:
        """Save the inputs. (The setup_context form, usable inside torch.func transforms:
        there the checkpoint then refuses saved-tensor hooks, in PyTorch's words.)"""
        ctx.save_for_backward(*inputs[1:])

    @staticmethod
    def backward(ctx, grad):
        """Nothing flows through here."""
        return (None,) * (1 + len(ctx.saved_tensors))


class _Frame:
    """One non-reentrant checkpoint: what was saved in forward, and the recomputation.

    Forward saved tensors only through :meth:`pack`, which keeps their shape and dtype
    and returns a :class:`_Holder`. The first :meth:`unpack` re-runs the function, and
    :meth:`collect` (the recomputation's pack hook) fills ``recomputed`` in the same order.
    """

    def __init__(self, function: Callable, args: tuple, kwargs: dict, rng_state,
                 check_metadata: bool) -> None:
        self.function = function
        self.args, self.kwargs = args, kwargs
        self.rng_state = rng_state
        self.check_metadata = check_metadata
        self.metadata: list[tuple] = []  # (shape, dtype) of each value forward saved
        self.recomputed: dict[int, Tensor] = {}
        self.input_saver: Tensor | None = None
        self.recompute_context = None  # the second of context_fn()'s pair
        self._collected = 0

    # forward
    def pack(self, tensor: Tensor) -> _Holder:
        """Forward's pack hook: remember what was saved, keep nothing."""
        self.metadata.append((tensor.shape, tensor.dtype))
        return _Holder(len(self.metadata) - 1)

    # backward
    def unpack(self, holder: _Holder) -> Tensor:
        """Backward's unpack hook: the recomputed value (recomputing first if needed)."""
        if holder.index not in self.recomputed:
            self.recompute()
        return self.recomputed.pop(holder.index)

    def recompute(self) -> None:
        """Run the function again, collecting what its ops save (see :meth:`collect`)."""
        tensors = iter(self.input_saver.grad_fn.saved_tensors)  # (version-checked here)
        args = [next(tensors) if isinstance(a, Tensor) else a for a in self.args]
        self._collected = 0
        hooks = saved_tensors_hooks(self.collect, _unpack_during_recomputation)
        with _rng_state(self.rng_state), enable_grad(), self.recompute_context, hooks, \
                contextlib.suppress(_StopRecomputation):  # (stopped early: all back)
            self.function(*args, **self.kwargs)
        if self._collected != len(self.metadata):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\nNumber of tensors saved during forward: "
                f"{len(self.metadata)}\nNumber of tensors saved during recomputation: "
                f"{self._collected}.\nHint: the checkpointed function must do the same ops "
                "when it runs again (no branching on state that changes between the runs)."
            )

    def collect(self, tensor: Tensor) -> None:
        """The recomputation's pack hook: the value for the next holder, in order."""
        index = self._collected
        if index >= len(self.metadata):  # (cannot happen: we stop at the last one)
            raise _StopRecomputation
        if self.check_metadata:
            self._check_metadata(index, tensor)
        self.recomputed[index] = tensor.detach()
        self._collected += 1
        if self._collected == len(self.metadata):  # all back: stop early, as PyTorch does
            raise _StopRecomputation

    def _check_metadata(self, index: int, tensor: Tensor) -> None:
        shape, dtype = self.metadata[index]
        if tensor.shape != shape or tensor.dtype != dtype:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                "different metadata than during the forward pass.\n"
                f"tensor at position {index}:\n"
                f"saved metadata: {_describe(shape, dtype)}\n"
                f"recomputed metadata: {_describe(tensor.shape, tensor.dtype)}\n.\n"
                "Hint: the checkpointed function must compute the same shapes and dtypes "
                "when it runs again."
            )


def _describe(shape, dtype) -> str:
    return f"{{'shape': {shape!r}, 'dtype': {dtype!r}, 'device': device(type='cpu')}}"


def _unpack_during_recomputation(value):
    return value  # (the recomputation's own graph is never used for backward)


def _checkpoint_without_reentrant(function: Callable, preserve: bool, context_fn: Callable,
                                  check_metadata: bool, args: tuple, kwargs: dict):
    if not is_grad_enabled():  # nothing will be saved: just run it (as PyTorch does)
        return function(*args, **kwargs)
    frame = _Frame(function, args, kwargs,
                   _random.get_rng_state() if preserve else None, check_metadata)
    frame.input_saver = _SaveInputs.apply(_anchor(), *[a for a in args if isinstance(a, Tensor)])
    forward_context, frame.recompute_context = context_fn()
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


def _anchor() -> Tensor:
    """An empty tensor that requires grad: makes ``_SaveInputs`` record a node even when
    no input requires grad (its saved inputs are read back through that node)."""
    from .._creation import empty

    return empty((0,), requires_grad=True)


class _rng_state:
    """Run a block with the default generator at ``state``, then put back what it was."""

    def __init__(self, state) -> None:
        self.state = state

    def __enter__(self) -> None:
        if self.state is not None:
            self.outer = _random.get_rng_state()
            _random.set_rng_state(self.state)

    def __exit__(self, *exc_info) -> None:
        if self.state is not None:
            _random.set_rng_state(self.outer)

