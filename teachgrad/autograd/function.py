"""``autograd.Function``: write your own op, with its forward and its backward.

This is PyTorch's extension point, and the way every built-in op of teachgrad works too
(see :mod:`teachgrad.ops.op`), only with tensors instead of NumPy arrays::

    class MyExp(teachgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):             # tensors in (grad mode is off in here)
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):         # d(loss)/d(output) in, d(loss)/d(input) out
            (y,) = ctx.saved_tensors
            return grad * y

    y = MyExp.apply(x)                   # y.grad_fn is a <MyExpBackward ...> node

How it fits together: every ``Function`` subclass gets a twin class ``<Name>Backward``
(made by :class:`FunctionMeta`). ``apply`` creates one instance of it; that object is the
``ctx`` that ``forward`` fills in, and afterwards it *is* the output's ``grad_fn``: a node
of the backward graph like any other, which the engine runs by calling its
``_run_backward``. Between the engine (NumPy arrays in a plain backward) and your code
(tensors, always), that method wraps and unwraps.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from .. import _package_name
from .._tensor import Tensor, _make
from .._warn import warn_user
from ..ops.op import Op
from . import anomaly_mode, graph
from .dual_state import state as _dual
from .grad_mode import no_grad
from .grad_mode import state as _grad_state
from .graph import Node, edge_of


class FunctionCtx:
    """What ``forward`` can tell ``backward`` (the ``ctx`` argument).

    Besides the methods below, any attribute can be stored: ``ctx.k = 3``.
    """

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for ``backward`` (read them back with ``ctx.saved_tensors``).

        Saved tensors are checked for in-place changes before backward uses them, and
        freed after backward unless ``retain_graph=True``: use this, not ``ctx.x = x``,
        for inputs and outputs.
        """
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{i} is of type {type(t).__name__}"
                )
        self.to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for ``jvp`` (forward AD), which reads them as ``ctx.saved_tensors``."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_forward expects all arguments to be tensors; but got "
                    f"{type(t).__name__} at position {i}."
                )
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare inputs that ``forward`` modified in place (and returns as outputs)."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Declare outputs that have no gradient (indices, masks...)."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """``False``: ``backward`` gets ``None`` (not zeros) for outputs nobody used."""
        self.materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """The node a custom Function leaves in the graph (named ``<Function>Backward``).

    It is the ``ctx`` of ``forward`` and ``backward`` at the same time, as in PyTorch.
    """

    _forward_cls: type  # the Function subclass this node belongs to
    materialize_grads = True

    def __repr__(self) -> str:
        where = _package_name.qualified("autograd.function")  # (torch's, under the alias)
        return f"<{where}.{type(self).__name__} object at {id(self):#x}>"

    @property
    def saved_tensors(self) -> tuple:
        """The tensors ``forward`` saved, after checking none was changed in place."""
        if self.__dict__.get("_in_jvp"):  # forward AD's jvp: what save_for_forward kept
            return tuple(self.__dict__.get("saved_for_forward", ()))
        # Always tensors: custom backward code is written with tensor ops. Switching the
        # unpack mode makes graph.unpack_saved hand back the connected tensors.
        previous = graph.unpack_mode.as_tensors
        graph.unpack_mode.as_tensors = True
        try:
            return graph.unpack_saved(self)
        finally:
            graph.unpack_mode.as_tensors = previous

    @property
    def needs_input_grad(self) -> tuple:
        """One bool per input of ``forward``: does a gradient have to flow there?"""
        return self.__dict__.get("_needs_input_grad", ())

    def backward(self, *grads):
        """Call the Function's own ``backward`` with this node as ``ctx``."""
        return self._forward_cls.backward(self, *grads)

    def __call__(self, *grads):
        """Apply the node by hand (``grad_fn(grad)``, as in PyTorch): run its backward."""
        return self.backward(*grads)

    def _run_backward(self, grads: tuple) -> tuple:
        """What the engine calls: arrays (or tensors under create_graph) in and out."""
        create_graph = _grad_state.enabled  # the engine runs backward in this grad mode
        received = iter(grads)
        user_grads = []
        for position in self._output_is_tensor:
            g = next(received) if position else None
            if g is not None and not isinstance(g, Tensor):
                g = _make(g)
            user_grads.append(g)
        result = self.backward(*user_grads)
        return self._check_grads(result if type(result) is tuple else (result,), create_graph)

    def _check_grads(self, result: tuple, create_graph: bool) -> tuple:
        """One gradient per forward argument, as PyTorch checks; keep the tensors' ones."""
        expected = len(self._arg_is_tensor)
        if len(result) > expected and all(g is None for g in result[expected:]):
            result = result[:expected]
        if len(result) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(result)})"
            )
        grads = []
        for position, (g, is_tensor) in enumerate(zip(result, self._arg_is_tensor)):
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {position + 1}, but the corresponding forward input was "
                        "not a Variable"
                    )
                continue
            if g is None:
                grads.append(None)
            elif isinstance(g, Tensor):
                grads.append(g if create_graph else g._data)
            else:
                raise RuntimeError(
                    f"expected Variable or None (got {_c_type_name(g)})\n"
                    "Hint: backward must return one tensor (or None) per forward input; "
                    "turn an array or a number into one with torch.as_tensor(value)."
                )
        return tuple(grads)


def _c_type_name(value: Any) -> str:
    """The type's name as C's ``tp_name`` spells it: ``numpy.ndarray``, ``float``, ``Foo``."""
    cls = type(value)
    is_python_class = cls.__flags__ & (1 << 9)  # Py_TPFLAGS_HEAPTYPE: tp_name is the bare name
    if is_python_class or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


class FunctionMeta(type):
    """Gives every ``Function`` subclass its node class, ``<Name>Backward``."""

    def __init__(cls, name: str, bases: tuple, attrs: dict) -> None:
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls.__module__ = __name__
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of user-defined differentiable operations (see the module docstring).

    Subclass it, define ``forward`` and ``backward`` as ``@staticmethod``, and call
    ``YourFunction.apply(*args)``; never instantiate it.

    >>> import teachgrad as torch
    >>> class Square(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * grad
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> y = Square.apply(x)
    >>> y
    tensor(9., grad_fn=<SquareBackward>)
    >>> y.backward()
    >>> x.grad
    tensor(6.)
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:

        warn_user(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
        )

    def __call__(self, *args: Any, **kwargs: Any):
        """Refused, as in PyTorch: call ``MyFunction.apply(...)`` on the class instead."""
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        """Compute the outputs from the inputs (runs with grad mode off)."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        """Optional: fill ``ctx`` here instead of in a ``forward(ctx, ...)``."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Return d(loss)/d(input) for each input of ``forward`` (None where there is none)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward AD: the outputs' tangents from the inputs' tangents (``J·t``).

        Needed only under :mod:`teachgrad.autograd.forward_ad`. Tensors it needs from
        ``forward`` are kept with ``ctx.save_for_forward`` and read as
        ``ctx.saved_tensors``.
        """
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it "
            "with forward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` on ``args`` and, if a gradient is needed, record the node."""
        if cls._backward_cls._forward_cls is Function:
            raise NotImplementedError(
                "You must implement the forward function for custom autograd.Function."
            )
        if transform_state.depth and not _uses_setup_context(cls):
            raise RuntimeError(_NEEDS_SETUP_CONTEXT)
        if kwargs:  # PyTorch binds keyword arguments to forward's parameters
            args = _bind(cls, args, kwargs)
        ctx = cls._backward_cls()  # numbered now, like any node, before forward runs
        is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx._arg_is_tensor = is_tensor
        ctx._needs_input_grad = tuple(
            t and a._requires_grad for t, a in zip(is_tensor, args)
        )
        record = _grad_state.enabled and any(ctx._needs_input_grad)
        if record:
            # The edges are taken before forward runs: mark_dirty may rewrite an input's
            # history, but the gradient must still flow to what the input *was*.
            ctx.next_functions = tuple(edge_of(a) for a, t in zip(args, is_tensor) if t)
            if anomaly_mode.state.enabled:
                ctx._forward_trace = anomaly_mode.forward_trace()

        dual = _dual.level is not None and not _dual.busy and _forward_ad().function_has_tangents(
            args
        )
        if dual and cls.jvp is Function.jvp:
            raise NotImplementedError(
                "You must implement the jvp function for custom autograd.Function to use it "
                "with forward mode AD."
            )
        _dual.busy = _dual.busy or dual  # forward itself carries no tangents: jvp gives them
        try:
            with no_grad():
                if _uses_setup_context(cls):
                    outputs = cls.forward(*args)
                    cls.setup_context(ctx, args, outputs)
                else:
                    outputs = cls.forward(ctx, *args)
        finally:
            if dual:
                _dual.busy = False
        if record:
            outputs = _connect_outputs(ctx, args, outputs)
        if dual:
            _forward_ad().function_jvp(cls, ctx, args, outputs)
        return outputs


class _TransformState:
    """How many torch.func transforms (grad, vmap, jvp ...) are running their function."""

    depth = 0


transform_state = _TransformState()

_NEEDS_SETUP_CONTEXT = (
    "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
    "jacrev, ...), it must override the setup_context staticmethod. For more details, please "
    "see https://pytorch.org/docs/main/notes/extending.func.html"
)


def run_transformed(func: Any, *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` as a torch.func transform runs it: a custom Function used
    inside must have the ``forward(*args)`` + ``setup_context`` form, as in PyTorch."""
    transform_state.depth += 1
    try:
        return func(*args, **kwargs)
    finally:
        transform_state.depth -= 1


def _forward_ad():
    from . import forward_ad  # (loaded on first use: it imports the ops)

    return forward_ad


def _bind(cls: type, args: tuple, kwargs: dict) -> tuple:
    parameters = list(inspect.signature(cls.forward).parameters.values())
    if not _uses_setup_context(cls):
        parameters = parameters[1:]  # ctx
    bound = inspect.Signature(parameters).bind(*args, **kwargs)
    return tuple(bound.arguments.values())


def _uses_setup_context(cls: type) -> bool:
    return cls.setup_context is not Function.setup_context


def _connect_outputs(ctx: BackwardCFunction, args: tuple, outputs: Any) -> Any:
    """Make ``ctx`` the ``grad_fn`` of the outputs, and record what was saved."""
    single = not isinstance(outputs, tuple)
    results = [outputs] if single else list(outputs)
    dirty = ctx.__dict__.pop("dirty_tensors", ())
    non_differentiable = ctx.__dict__.pop("non_differentiable", ())

    tensor_outputs = []
    counters = []  # the version counters of the outputs that are views of inputs
    ctx._output_is_tensor = tuple(isinstance(o, Tensor) for o in results)
    for position, out in enumerate(results):
        if not isinstance(out, Tensor):
            continue
        output_nr = len(tensor_outputs)
        # (asked before an input returned as is is replaced by a view of it below)
        differentiable = not _contains(non_differentiable, out)
        if _contains(dirty, out):
            if out._grad_fn is None and out._requires_grad:
                raise RuntimeError(
                    "a leaf Variable that requires grad has been used in an in-place "
                    "operation.\nHint: don't mark_dirty (modify in place) a leaf that "
                    "requires grad; clone it first."
                )
            out._vc[0] += 1  # as PyTorch: the in-place change is a new version
        elif _contains(args, out):
            # An input returned as is: the output is a new tensor (a view of it), so the
            # input keeps its own history.
            view = _make(out._data)
            view._vc = out._vc
            view._base = out._base if out._base is not None else out
            out = results[position] = view
        if not differentiable or out._data.dtype.kind != "f":
            out._requires_grad = False
            if out._base is not None:  # a view that stays outside autograd
                graph.mark_non_differentiable_view(out)
        else:
            out._grad_fn = ctx
            out._output_nr = output_nr
            out._requires_grad = True
            if out._base is not None and not _contains(dirty, out):
                # a view of an input (or the input itself): PyTorch refuses to change it
                # in place, its custom backward would be bypassed
                graph.mark_multi_output_view(out, type(ctx).__name__, output_nr, "custom")
                # and once its base changes in place, using it is refused (is_stale_view;
                # one version per node: left out if the views have different bases)
                counters.append(out._vc)
        tensor_outputs.append(out)
    if counters and all(vc is counters[0] for vc in counters):
        ctx.view_version = counters[0][0]
    if counters and sum(o._grad_fn is ctx for o in tensor_outputs) > 1:
        # several differentiable outputs: PyTorch's multiple-views error instead
        for nr, out in enumerate(tensor_outputs):
            if out._base is not None and graph.is_multi_output_view(out):
                graph.mark_multi_output_view(out, type(ctx).__name__, nr, "multi")
    ctx._meta = tuple((o._data.shape, o._data.dtype) for o in tensor_outputs)

    to_save = ctx.__dict__.pop("to_save", None)
    if to_save is not None:
        # graph.record_saved tells inputs (kept as they are) from outputs (rebuilt with
        # this node as grad_fn, which avoids a reference cycle); intermediates count as
        # inputs. Every saved tensor gets its version checked at backward time.
        kept = [t for t in to_save if t is not None and not _contains(tensor_outputs, t)]
        ctx._saved = graph.record_saved(
            tuple(None if t is None else t._data for t in to_save),
            tuple(kept),
            [t._data for t in kept],
            tuple(tensor_outputs),
        )
    return results[0] if single else tuple(results)


def _contains(items, x) -> bool:
    """``x in items`` by identity (``==`` on tensors is elementwise)."""
    return any(item is x for item in items)


# ----------------------------------------------------------------------------------------
# once_differentiable
# ----------------------------------------------------------------------------------------
_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


def once_differentiable(fn: Callable) -> Callable:
    """Decorate a ``backward`` that is not itself differentiable (e.g. uses NumPy).

    It runs with grad mode off; under ``create_graph=True`` its results get a graph node
    that raises if anyone tries to differentiate through them.
    """

    @functools.wraps(fn)
    def wrapper(ctx, *grads):
        with no_grad():
            outputs = fn(ctx, *grads)
        if not _grad_state.enabled:
            return outputs
        if not any(isinstance(g, Tensor) and g._requires_grad for g in grads):
            return outputs
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        tensors = [o for o in outputs if isinstance(o, Tensor)]
        fakes = [o.detach().requires_grad_() for o in tensors]
        guarded = DelayedError.apply(*fakes) if fakes else ()
        guarded = iter(guarded if type(guarded) is tuple else (guarded,))
        outputs = tuple(next(guarded) if isinstance(o, Tensor) else o for o in outputs)
        return outputs[0] if single else outputs

    return wrapper


class DelayedError(Op):
    """Identity forward; its backward refuses to run (see :func:`once_differentiable`).

    ``message`` is the error it raises then (by default, once_differentiable's).
    """

    formula = "differentiating this a second time is not supported"
    message = _TWICE

    def name(self) -> str:
        return "torch::autograd::Error"

    @staticmethod
    def forward(ctx, *arrays, message=_TWICE):
        if message != _TWICE:
            ctx.message = message
        return arrays

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.message)


DelayedError.__name__ = DelayedError.__qualname__ = "Error"  # grad_fn=<Error>, as PyTorch


__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]
