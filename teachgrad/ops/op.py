"""``Op``: how every built-in operation is written, forward and backward side by side.

An op is a class named after the ``grad_fn`` PyTorch gives its result, with two static
methods, exactly like a custom ``autograd.Function``::

    class MulBackward0(Op):
        formula = "∂(a·b)/∂a = b    ∂(a·b)/∂b = a"

        @staticmethod
        def forward(ctx, a, b):          # NumPy arrays in, a NumPy array out
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):         # grad of the output in, one grad per input out
            a, b = ctx.saved_tensors
            return grad * b, grad * a

``MulBackward0.apply(x, y)`` runs ``forward`` on the tensors' arrays and, when grad mode
is on and an input requires grad, turns ``ctx`` into the output's ``grad_fn``: it records
the edges to the inputs, what was saved (and at which version), and the output's shape.

The backward formulas are written with NumPy operators and ``np.*`` functions only. In a
normal backward pass they run on plain arrays (fast). With ``create_graph=True`` the
engine hands them tensors instead, and the *same* code then records a graph of its own,
because :class:`~teachgrad.Tensor` implements NumPy's ``__array_ufunc__`` and
``__array_function__`` protocols. One formula, first and higher-order gradients.

Broadcasting needs no code in the formulas: the engine sums each gradient down to the
shape of the input it is for (see ``engine.fit_gradient``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._dtypes import complex_refused, result_type
from .._tensor import Tensor
from ..autograd import graph
from ..autograd.anomaly_mode import forward_trace
from ..autograd.anomaly_mode import state as _anomaly
from ..autograd.grad_mode import state as _grad_state
from ..autograd.graph import Node, accumulator_of, next_sequence_nr, record_saved
from ..autograd.graph import unpack_mode as _unpack_mode
from ..autograd.inference import new_version as new_inference_version
from ..autograd.inference import only_inference_tensors
from .fill_value import LONG_MAX as _LONG_MAX
from .fill_value import LONG_MIN as _LONG_MIN
from .fill_value import ULONG_MAX as _ULONG_MAX
from .fill_value import bool_with_uint64, check_real_value, int_too_big
from .layout import laid_out_as_pointwise

_ndarray = np.ndarray
_asarray = np.asarray
_new = object.__new__


class _NoContext:
    """The ``ctx`` ops get when nothing is recorded: saving is a no-op, attributes are dropped."""

    __slots__ = ()
    needs_input_grad = (False, False, False, False)

    def save_for_backward(self, *values) -> None:
        pass

    def __setattr__(self, name, value) -> None:
        pass


NO_CONTEXT = _NoContext()


class Op(Node):
    """Base class of built-in differentiable operations (see the module docstring)."""

    __slots__ = ()

    #: binary pointwise ops: cast inputs to PyTorch's result dtype before NumPy runs
    promotes: bool = False
    #: for those, which inputs (positions, or names of keyword parameters; in PyTorch's
    #: order) decide the result's memory layout where they are laid out differently
    #: (see layout.pointwise_order)
    layout_inputs: tuple[int | str, ...] = (0, 1)
    #: the output is a view of input 0 (shares memory and version counter)
    is_view: bool = False
    #: PyTorch's kernel also reads an index or mask tensor, which teachgrad passes as a
    #: constant (an array in ``params``); it is almost always an ordinary tensor, so the op
    #: is recorded even when its tensor inputs are inference tensors (autograd/inference.py)
    reads_index_tensor: bool = False
    #: where every tensor input is an inference tensor and one requires grad (so nothing is
    #: recorded): PyTorch's kernel is a composite that writes through an ``out=`` variant,
    #: and refuses with that variant's name (``abs``, ``sum`` for mean) ...
    inference_out_name: str | None = None
    #: ... or a composite ``empty_like(self).copy_(self)`` (clone, a dtype conversion),
    #: whose ``copy_`` is recorded: an ordinary tensor with grad_fn CopyBackwards
    inference_copies: bool = False
    #: PyTorch's names for what forward saves, in save_for_backward's order, e.g.
    #: ``("self", "other")``: they become ``grad_fn._saved_self`` ... (see __init_subclass__)
    saved_names: tuple[str, ...] = ()
    #: a float16 tensor with a number: PyTorch's kernel keeps the number in float32 and
    #: rounds the result once (mul and div; see _half_operands)
    opmath_scalar: bool = False
    #: the plain values (numbers, dims, flags) a node keeps besides tensors, PyTorch's name
    #: to where they are: the name of the ``ctx`` attribute forward sets (or the class
    #: default), or a function of the node for a value stored differently, e.g.
    #: ``{"exponent": "exponent"}`` gives ``grad_fn._saved_exponent``
    saved_attributes: dict[str, str | Callable[[Op], object]] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        """Give an op that names what it saves PyTorch's ``grad_fn._saved_<name>`` properties.

        PyTorch's autograd notes suggest looking at these to see which tensors a node keeps
        for backward. They are made once per class, as properties: a ``__getattr__`` on
        ``Op`` would slow down every attribute read of every node (Python can no longer
        take its fast path for them), here about 5 % of a whole training step.
        """
        super().__init_subclass__(**kwargs)
        for index, name in enumerate(cls.__dict__.get("saved_names", ())):
            setattr(cls, f"_saved_{name}", property(
                lambda node, index=index: graph.saved_value(node, index),
                doc=f"What forward saved as PyTorch's ``{name}`` (see ``saved_names``)."))
            setattr(cls, f"_raw_saved_{name}", property(
                lambda node, index=index: graph.SavedTensor(node, index),
                doc=f"``{name}`` as a SavedTensor, to give it its own hooks."))
        # Plain values are not freed by backward (in PyTorch neither): they are read as is.
        for name, where in cls.__dict__.get("saved_attributes", {}).items():
            read = where if callable(where) else (
                lambda node, attribute=where: getattr(node, attribute))
            setattr(cls, f"_saved_{name}", property(
                read, doc=f"The value forward kept as PyTorch's ``{name}``."))

    @staticmethod
    def forward(ctx, *arrays, **params):  # pragma: no cover - every op defines it
        raise NotImplementedError

    @staticmethod
    def backward(ctx, *grads):  # pragma: no cover - every op defines it
        raise NotImplementedError

    # --- what forward and backward use -----------------------------------------------------
    def save_for_backward(self, *values) -> None:
        """Keep arrays (inputs, the output or anything else) for backward."""
        self._saved = values

    @property
    def saved_tensors(self) -> tuple:
        """What forward saved: arrays in a plain backward, tensors under ``create_graph``."""
        saved = self._saved
        # The common case inline (every backward step asks): unchanged inputs, plain arrays.
        if type(saved) is tuple and not _unpack_mode.as_tensors:
            values, sources = saved
            for source in sources:
                if source is not None:
                    cell = source[0]._vc if len(source) == 2 else source[0]
                    if cell[0] != source[1]:
                        return graph.unpack_saved(self)  # raises PyTorch's error
            return _read_scalars(values) if type(values) is _ScalarValues else values
        return graph.unpack_saved(self)

    @property
    def needs_input_grad(self) -> tuple:
        """One bool per input: does a gradient have to flow there?"""
        edges = self.next_functions
        if len(edges) == 2:  # binary ops ask on every call: spelled out, it costs less
            return (edges[0][0] is not None, edges[1][0] is not None)
        if len(edges) == 3:  # (addmm, nn.Linear's op, asks in forward too)
            return (edges[0][0] is not None, edges[1][0] is not None, edges[2][0] is not None)
        return tuple([edge[0] is not None for edge in edges])

    def _run_backward(self, grads: tuple) -> tuple:
        out = self.backward(self, *grads)
        return out if type(out) is tuple else (out,)

    # --- building the graph ----------------------------------------------------------------
    @classmethod
    def apply(cls, *inputs, **params):
        """Run the op on tensors (or Python scalars); record it if a gradient is needed.

        This runs for every op a program executes, so it is written for speed: the common
        cases (a tensor made by an op, a leaf, one output) are handled inline, without
        helper calls, and nothing is done for autograd unless grad mode is on and an input
        requires grad. The rarer cases go to the helpers below.
        """
        if params:  # a complex number among them would be dropped to its real part
            for value in params.values():
                if type(value) is complex:
                    _refuse_complex_parameter(inputs, value)
        # One pass over the inputs: their arrays, whether any of them requires grad, and
        # (in grad mode) one (node, output_nr) edge per input: where its gradient goes.
        arrays = []
        record = views = relayout = False
        half = None  # float16 computed in float32 and rounded back (see _promote)
        if _grad_state.enabled:
            edges = []
            for x in inputs:
                if isinstance(x, Tensor):
                    arrays.append(x._data)
                    if x._requires_grad:
                        record = True
                        fn = x._grad_fn
                        if fn is None:  # a leaf: its AccumulateGrad (the live one, or new)
                            ref = x._accumulator
                            node = ref() if ref is not None else None
                            if node is None:  # (its first use in this graph, or see below)
                                node = accumulator_of(x)
                                # An inference tensor that requires grad keeps its node aside, so
                                # every op comes here: PyTorch records nothing if all tensors are
                                # inference tensors.
                                if (type(x._vc) is not list and not cls.reads_index_tensor
                                        and only_inference_tensors(inputs)):
                                    return _apply_unrecorded(cls, inputs, params)
                            edges.append((node, 0))
                        elif x._base is None or not graph.is_stale_view(x):  # made by an op
                            edges.append((fn, x._output_nr))
                        else:  # a view whose base changed in place: see below
                            edges.append(None)
                            views = True
                        continue
                    if x._base is not None:
                        if graph.gained_history(x):
                            # a view with no history whose base got one in place: it has
                            # one now too (rebuilt below, as a stale view's)
                            edges.append(None)
                            record = views = True
                            continue
                        if x._base._requires_grad and graph.views_late_leaf(x):
                            record = True  # (its gradient goes nowhere, as PyTorch's)
                else:
                    arrays.append(x)
                edges.append(_NO_EDGE)  # a constant: no gradient goes there
        else:  # no_grad: nothing is recorded
            for x in inputs:
                arrays.append(x._data if isinstance(x, Tensor) else x)
            if _grad_state.inference:  # inside inference_mode(): inference tensors come out
                return _apply_in_inference_mode(cls, inputs, arrays, params)
        if cls.promotes:  # binary pointwise: inputs go to NumPy in PyTorch's result dtype
            a, b = arrays[0], arrays[1]
            # The common cases, inline: a float tensor with a Python number (which becomes
            # an array of the tensor's dtype, see _promote), or two arrays of one dtype.
            if type(b) is float and (a.dtype is _F32 or a.dtype is _F64):
                arrays[1] = _array(b, a.dtype)
            elif type(a) is _ndarray and type(b) is _ndarray and a.dtype is b.dtype:
                pass
            else:
                half = _promote(inputs, arrays, cls)
            # A permuted first operand (x.t() * y): NumPy may lay the result out row-major
            # where PyTorch follows that operand (rare: one test when a is 2-d or more).
            if type(a) is _ndarray and a.ndim > 1 and not a.flags.c_contiguous:
                relayout = True

        if not record:
            out = cls.forward(NO_CONTEXT, *arrays, **params)
            if half is not None:
                out = _rounded_to_half(out)
            if relayout:
                out = _pointwise_layout(cls, NO_CONTEXT, out, arrays, params)
            if type(out) is tuple:
                view_of = inputs[0] if cls.is_view else None
                outputs = tuple([_wrap(o, view_of) for o in out])
                if view_of is not None:
                    if _grad_state.enabled:  # split & co. (see below)
                        _mark_pieces(outputs, cls.__name__)
                    else:  # views made under no_grad (see graph.NO_GRAD_VIEW)
                        for piece in outputs:
                            graph.mark_no_grad_view(piece, view_of, cls.__name__, False)
                return outputs
            if cls.is_view:
                view = _wrap(out, inputs[0])
                # Made under no_grad, or a view of such a view: PyTorch refuses to record
                # an in-place change of it later (see graph.NO_GRAD_VIEW).
                if not _grad_state.enabled or inputs[0]._extra is not None:
                    graph.mark_no_grad_view(view, inputs[0], cls.__name__,
                                            _grad_state.enabled)
                return view
            if type(out) is not _ndarray:
                out = _asarray(out)  # NumPy returns a 0-d result as a scalar
            if out.dtype.kind == "c":  # a complex number got in (see _dtypes.complex_refused)
                raise complex_refused(f"{cls.__name__}'s result")
            t = _new(Tensor)
            t._data = out
            t._requires_grad = False
            t._grad = t._grad_fn = t._base = t._accumulator = t._extra = None
            t._output_nr = 0
            t._vc = [0]
            return t

        ctx = _new(cls)
        ctx._saved = ctx._hooks = None
        ctx._seq_nr = next_sequence_nr()
        if views:  # a stale view's history is rebuilt (see _edge) after ctx, as in PyTorch
            edges = [_edge(x) if e is None else e for x, e in zip(inputs, edges)]
        ctx.next_functions = tuple(edges)
        if _anomaly.enabled:  # detect_anomaly(): remember which line of user code this was
            ctx._forward_trace = forward_trace()

        # (without ``**params`` when there are none: an empty dict still costs a call to
        # unpack it, and most ops take none)
        out = cls.forward(ctx, *arrays, **params) if params else cls.forward(ctx, *arrays)
        if half is not None:
            out = _rounded_to_half(out)
        if relayout:
            out = _pointwise_layout(cls, ctx, out, arrays, params)

        if type(out) is tuple or cls.is_view:  # several outputs, or a view: the general way
            return _record_outputs(ctx, out, inputs, arrays)
        saved = ctx._saved
        if type(out) is not _ndarray:
            # NumPy returns a 0-d result as a scalar (np.float32), not an array. Turn it into
            # the array the output tensor will hold, and use that same array where forward
            # saved the scalar: record_saved recognises the output by identity.
            scalar, out = out, _asarray(out)
            if saved is not None:
                for v in saved:  # (is the scalar among them? by identity: `in` uses ==)
                    if v is scalar:
                        saved = tuple([out if v is scalar else v for v in saved])
                        break
                # A scalar op: backward computes with NumPy scalars (see _ScalarValues).
                saved = _ScalarValues(saved)
        t = _new(Tensor)
        t._data = out
        t._grad = t._base = t._accumulator = t._extra = None
        t._output_nr = 0
        t._vc = [0]
        dtype = out.dtype
        if dtype.kind == "f":
            t._requires_grad = True
            t._grad_fn = ctx
        else:  # integer and bool results are never differentiable
            if dtype.kind == "c":  # a complex number got in (see _dtypes.complex_refused)
                raise complex_refused(f"{cls.__name__}'s result")
            t._requires_grad = False
            t._grad_fn = None
        meta = _METAS.get(out.shape)  # _meta_of, inline
        ctx._meta = meta if meta is not None and meta[0][1] is dtype else _meta_of(out)
        if saved is not None:
            ctx._saved = record_saved(saved, inputs, arrays, (t,))
        return t


class NoDerivative(Op):
    """An op recorded only so that a backward reaching it stops with PyTorch's error.

    PyTorch records such nodes where it has no derivative (``unique``, the derivative of
    ``_standard_gamma_grad`` ...): a gradient must never silently vanish there. A subclass
    sets ``message`` (PyTorch's sentence) and defines ``forward``.
    """

    formula = "not differentiable: PyTorch has no derivative for it either"
    message = ""

    @classmethod
    def backward(cls, ctx, *grads):
        raise NotImplementedError(cls.message)


class _ScalarValues(tuple):
    """The saved values of an op on 0-d tensors: ``saved_tensors`` hands out their 0-d
    arrays as NumPy scalars.

    Its gradients arrive as NumPy scalars too, and NumPy computes scalar * scalar about
    ten times faster than scalar * 0-d array. The arrays themselves stay saved: the
    scalars are read when backward runs, so it sees what PyTorch's would (a change
    through ``.data`` included). (Values packed by saved_tensors_hooks are unpacked as
    they are.)
    """

    __slots__ = ()


def _read_scalars(values: tuple) -> tuple:
    scalars = []
    for v in values:
        scalars.append(v[()] if type(v) is _ndarray and v.ndim == 0 else v)
    return tuple(scalars)


def _record_outputs(ctx: Op, out, inputs: tuple, arrays: list):
    """The general end of ``Op.apply``: several outputs (split, unbind) and views."""
    view_of = inputs[0] if ctx.is_view else None
    if type(out) is not tuple and type(out) is not _ndarray:
        scalar, out = out, _asarray(out)
        if ctx._saved is not None:
            ctx._saved = tuple([out if v is scalar else v for v in ctx._saved])
    if view_of is not None:  # a view: if its base changes in place, it goes stale
        if type(view_of._vc) is not list:  # of an inference tensor: PyTorch records none
            return _untracked_outputs(out, view_of)
        ctx.view_version = view_of._vc[0]
    if type(out) is tuple:  # several outputs: output_nr tells them apart
        outputs = tuple([_tracked(o, ctx, nr, view_of) for nr, o in enumerate(out)])
        ctx._meta = tuple([(o._data.shape, o._data.dtype) for o in outputs])
        if view_of is not None:  # split, chunk, unbind: pieces PyTorch won't change in place
            _mark_pieces(outputs, type(ctx).__name__)
    else:
        outputs = _tracked(out, ctx, 0, view_of)
        ctx._meta = _meta_of(outputs._data)
        if view_of is not None and view_of._extra is not None:
            if graph.is_multi_output_view(view_of):  # a view of such a piece is refused
                graph.mark_multi_output_view(outputs, type(ctx).__name__, 0,  # in place too
                                             graph.view_made_by(view_of))
            elif graph.is_no_grad_view(view_of):  # and so is a view of a no_grad view
                graph.mark_no_grad_view(outputs, view_of, type(ctx).__name__, True)
    if ctx._saved is not None:
        ctx._saved = record_saved(
            ctx._saved, inputs, arrays, outputs if type(outputs) is tuple else (outputs,)
        )
    return outputs


def _refuse_complex_parameter(inputs: tuple, value: complex) -> None:
    """PyTorch's error for a complex number argument (a slope, a threshold, a fill value)
    of an op on real tensors; teachgrad has no complex tensors at all."""
    dtype = next((x._data.dtype for x in inputs if isinstance(x, Tensor)), np.dtype(np.float64))
    if dtype.kind != "b":  # (a bool takes any number: nonzero is True)
        check_real_value(value, dtype)


def _apply_in_inference_mode(cls: type[Op], inputs: tuple, arrays: list, params: dict):
    """``Op.apply`` inside ``inference_mode()``: nothing is recorded, and what the op makes
    is an inference tensor. A view takes its base's kind; a view of an ordinary tensor is
    marked as made in inference mode (see ``autograd/inference.py``)."""
    half = _promote(inputs, arrays, cls) if cls.promotes else None
    out = cls.forward(NO_CONTEXT, *arrays, **params)
    if half is not None:
        out = _rounded_to_half(out)
    view_of = inputs[0] if cls.is_view else None
    outputs = _untracked_outputs(out, view_of)
    if view_of is None:
        for t in outputs if type(outputs) is tuple else (outputs,):
            t._vc = new_inference_version()
    elif type(view_of._vc) is list:  # a view of an ordinary tensor
        for t in outputs if type(outputs) is tuple else (outputs,):
            graph.mark_no_grad_view(t, view_of, cls.__name__, False, inference=True)
    return outputs


def _apply_unrecorded(cls: type[Op], inputs: tuple, params: dict):
    """``Op.apply`` outside ``inference_mode`` when every tensor input is an inference
    tensor (and no Python number is among them) but one requires grad: PyTorch keeps no
    autograd state for inference tensors, so it records nothing (see
    ``inference.only_inference_tensors``). A view is one of its base, an inference tensor
    too; anything else is an ordinary tensor."""
    if cls.inference_out_name is not None:
        raise RuntimeError(
            f"{cls.inference_out_name}(): functions with out=... arguments don't support "
            "automatic differentiation, but one of the arguments requires grad.\nHint: this "
            "tensor was made in inference_mode(), where PyTorch keeps no autograd state; "
            "make it outside (or .clone() it there) to differentiate through it."
        )
    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    half = _promote(inputs, arrays, cls) if cls.promotes else None
    out = cls.forward(NO_CONTEXT, *arrays, **params)
    if half is not None:
        out = _rounded_to_half(out)
    if cls.inference_copies:  # an ordinary tensor, which copy_ records (CopyBackwards)
        return _wrap(out, None).copy_(inputs[0])
    return _untracked_outputs(out, inputs[0] if cls.is_view else None)


def _untracked_outputs(out, view_of: Tensor | None):
    """The forward result(s) as tensors with no history (views of ``view_of``, if given)."""
    if type(out) is tuple:
        return tuple([_wrap(o, view_of) for o in out])
    return _wrap(out, view_of)


def _mark_pieces(outputs: tuple, node_name: str) -> None:
    """Mark the views a multi-output op made (see ``graph.mark_multi_output_view``)."""
    for nr, piece in enumerate(outputs):
        graph.mark_multi_output_view(piece, node_name, nr)


_NO_EDGE = (None, 0)
_METAS: dict = {}  # shape -> ((shape, dtype),), shared by the nodes that produce that shape


def _meta_of(data: np.ndarray) -> tuple:
    """``((shape, dtype),)`` of a node's one output, shared between nodes.

    A deep graph holds one per node; sharing the equal ones saves ~180 bytes a node (a
    30,000-node chain saves 5 MB) at the cost of one dict lookup.
    """
    shape, dtype = data.shape, data.dtype
    meta = _METAS.get(shape)
    if meta is None or meta[0][1] is not dtype:
        if len(_METAS) > 1024:  # many shapes come and go: start again rather than grow
            _METAS.clear()
        meta = _METAS[shape] = ((shape, dtype),)
    return meta


def _edge(x: Tensor) -> tuple:
    fn = x._grad_fn
    if fn is not None:
        if x._base is not None and graph.is_stale_view(x):
            return (graph.rebuild_view(x), 0)
        return (fn, x._output_nr)
    if x._base is not None and graph.gained_history(x):
        return (graph.rebuild_view(x), 0)
    if x._requires_grad:  # a leaf: its AccumulateGrad (the live one, or a new one)
        ref = x._accumulator
        node = ref() if ref is not None else None
        return (node if node is not None else accumulator_of(x), 0)
    return (None, 0)


def _wrap(out, view_of: Tensor | None) -> Tensor:
    """A plain (untracked) tensor around a forward result."""
    if type(out) is not _ndarray:
        out = _asarray(out)  # NumPy returns scalars for 0-d results
    if out.dtype.kind == "c":
        raise complex_refused("the result")
    t = _new(Tensor)
    t._data = out
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._accumulator = None
    t._extra = None
    if view_of is None:
        t._vc = [0]
        t._base = None
    else:  # a view shares memory, so it shares the version counter too
        t._vc = view_of._vc
        t._base = view_of._base if view_of._base is not None else view_of
    return t


def _tracked(out, ctx: Op, output_nr: int, view_of: Tensor | None) -> Tensor:
    """A tensor around a forward result whose ``grad_fn`` is ``ctx``.

    ``_wrap`` written out again, with the autograd fields set once: this runs for every
    recorded op.
    """
    if type(out) is not _ndarray:
        out = _asarray(out)
    t = _new(Tensor)
    t._data = out
    t._grad = None
    t._accumulator = None
    t._extra = None
    if out.dtype.kind == "f":
        t._requires_grad = True
        t._grad_fn = ctx
        t._output_nr = output_nr
    else:  # integer and bool results are never differentiable
        if out.dtype.kind == "c":
            raise complex_refused(f"{type(ctx).__name__}'s result")
        t._requires_grad = False
        t._grad_fn = None
        t._output_nr = 0
    if view_of is None:
        t._vc = [0]
        t._base = None
    else:
        t._vc = view_of._vc
        t._base = view_of._base if view_of._base is not None else view_of
    return t


def _pointwise_layout(cls: type[Op], ctx, out, arrays: list, params: dict):
    """A binary pointwise op's result in PyTorch's memory layout (layout.pointwise_order),
    and in what forward saved: the output is recognised there by identity."""
    if type(out) is not _ndarray or out.ndim < 2:
        return out
    operands = [arrays[i] if type(i) is int else params[i] for i in cls.layout_inputs]
    if any(np.ndim(x) > out.ndim for x in operands) or np.broadcast_shapes(
            *(np.shape(x) for x in operands)) != out.shape:
        return out  # not an elementwise result (a reduced loss)
    placed = laid_out_as_pointwise(out, operands)
    saved = getattr(ctx, "_saved", None)
    if placed is not out and saved is not None:
        ctx._saved = tuple([placed if v is out else v for v in saved])
    return placed


def _promote(inputs: tuple, arrays: list, op: type | None = None) -> np.dtype | None:
    """Cast the arrays in ``arrays`` to PyTorch's result dtype (see ``_dtypes.result_type``).

    Returns ``float16`` when ``op`` must compute in float32 and round its result to
    float16 (see :func:`_half_operands`), else None.
    """
    a, b = arrays[0], arrays[1]
    if (op is not None and op.opmath_scalar and type(a) is _ndarray and a.dtype is _F16
            and _half_operands(inputs, arrays)):
        return _F16
    # The common cases cost two type checks: a float tensor with a Python number, or two
    # tensors of the same dtype. The number is "weak" (the tensor's dtype wins, as in
    # PyTorch); it becomes a 0-d array of that dtype here, because NumPy multiplies an
    # array by an array of its own dtype faster than by a Python float (it would otherwise
    # work out the weak number's dtype on every call, in forward and again in backward).
    if type(b) in _PY_NUMBER:
        if a.dtype.kind == "f":
            if type(b) is int and not _LONG_MIN <= b <= _ULONG_MAX:  # (x * 2**70)
                raise int_too_big(b)
            arrays[1] = _array(b, a.dtype)
            return
    elif type(a) in _PY_NUMBER:
        if b.dtype.kind == "f":
            if type(a) is int and not _LONG_MIN <= a <= _ULONG_MAX:  # (2**70 ** x)
                raise int_too_big(a)
            arrays[0] = _array(a, b.dtype)
            return
    elif a.dtype is b.dtype or a.dtype == b.dtype:
        return
    target = result_type(*inputs).numpy
    for i, x in enumerate(arrays):
        if isinstance(x, _ndarray) and x.dtype != target:
            arrays[i] = x.astype(target)
        elif type(x) is int and target.kind in "iu":
            bounds = _INT_BOUNDS[target]
            if not bounds[0] <= x <= bounds[1]:  # NumPy refuses it; PyTorch wraps it around
                if (_LONG_MAX < x <= _ULONG_MAX and isinstance(inputs[1 - i], Tensor)
                        and inputs[1 - i]._data.dtype.kind == "b"):
                    raise bool_with_uint64()  # (x is a uint64 to PyTorch)
                arrays[i] = _wrapped_int(x, target)


def _half_operands(inputs: tuple, arrays: list) -> bool:
    """A float16 tensor times (or divided by) a number, or a 0-d tensor of a wider float
    dtype: PyTorch's mul and div kernels keep the number in float32 ("opmath") and round
    only the result to float16, so ``half * 1e5`` is 100.06 for 0.001, not inf (1e5 is
    beyond float16's 65504), and ``3 * 0.1`` is 0.30005, not 0.2998 (0.1 first rounded to
    float16). Puts both operands in float32 (the number kept exact) and returns True, or
    returns False when the usual promotion applies. (Only the second operand counts, as in
    PyTorch: ``tensor(1e5) * half`` is inf there too. add and sub round the number to
    float16 first in PyTorch as well, which NumPy does.)
    """
    other = inputs[1]
    if type(other) not in _PY_NUMBER and not (
            isinstance(other, Tensor) and other._data.ndim == 0
            and other._data.dtype.kind == "f" and other._data.dtype is not _F16):
        return False
    if result_type(*inputs).numpy is not _F16:
        return False
    for i, x in enumerate(arrays):
        if type(x) is int and not _LONG_MIN <= x <= _ULONG_MAX:
            raise int_too_big(x)
        arrays[i] = _array(x, _F32) if type(x) is not _ndarray else x.astype(_F32, copy=False)
    return True


def _rounded_to_half(out):
    """A float32 result (or a tuple of them) computed for float16 inputs, rounded to float16;
    a bool result (a comparison) stays as it is."""
    if type(out) is tuple:
        return tuple([_rounded_to_half(o) for o in out])
    return out.astype(_F16) if getattr(out, "dtype", None) is _F32 else out


_array = np.array
_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_PY_NUMBER = (int, float, bool)  # type() checks: bool is not caught by int
_INT_BOUNDS = {np.dtype(t): (np.iinfo(t).min, np.iinfo(t).max)
               for t in (np.int8, np.int16, np.int32, np.int64, np.uint8)}


def _wrapped_int(x: int, dtype: np.dtype) -> np.ndarray:
    """A Python int outside ``dtype``'s range, as PyTorch's cast makes it: wrapped around
    (``int8_tensor + 300`` adds 44). PyTorch takes ints from -2**63 to 2**64 - 1."""
    if not _LONG_MIN <= x <= _ULONG_MAX:
        raise int_too_big(x)
    return _array(x % 2**64, np.uint64).astype(dtype)


def int_operand(x: int, dtype: np.dtype):
    """A Python int meeting a tensor of ``dtype`` where no op promotes them (comparisons),
    as PyTorch takes it: cast to the tensor's integer type, wrapped around (``int8_tensor
    == 257`` compares with 1), into int64 for a bool tensor; refused beyond 64 bits.
    Returns ``x`` itself when it fits."""
    if dtype.kind == "f":
        if not _LONG_MIN <= x <= _ULONG_MAX:
            raise int_too_big(x)
        return x
    if dtype.kind == "b" and _LONG_MAX < x <= _ULONG_MAX:
        raise bool_with_uint64()
    target = dtype if dtype.kind in "iu" else _INT64
    low, high = _INT_BOUNDS[target]
    return x if low <= x <= high else _wrapped_int(x, target)


_INT64 = np.dtype(np.int64)
