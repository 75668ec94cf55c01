"""In-place ops: ``x += 1``, ``add_``, ``mul_``, ``zero_``, ``fill_``, ``copy_`` ...

One mechanism serves them all: compute the out-of-place result, then write it into the
tensor's own memory and bump its version counter. If autograd is recording, the tensor
also takes over the result's ``grad_fn`` (its history now ends with this op), and the op
was computed from a *copy* of the old values, so its own backward still sees them.

The version bump is what makes in-place changes safe: any node that saved this tensor
for backward notices the new version and refuses to compute a wrong gradient.

Writing through a *view* (``y[0] = v``, ``y[:, 1].mul_(2)``, ``y.t().zero_()``) changes the
view's base as well, so the base's history has to change too. As in PyTorch, the base
gets a ``CopySlices`` node: "the base's gradient flows to its old history, except in the
region the view covers, where the in-place op's own backward decides". The view itself
gets an ``AsStridedBackward0`` node that reads its region out of the new base.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable

import numpy as np

from .._arguments import Signatures, is_number
from .._dtypes import from_numpy_dtype
from .._missing_arguments import REQUIRED, missing, missing_arguments_error
from .._tensor import Tensor, _make
from .._warn import warn_user
from ..autograd import graph
from ..autograd.dual_state import state as _dual
from ..autograd.grad_mode import state as _grad_state
from ..autograd.graph import Node, edge_of, unpack_saved
from . import bessel, elementary, gamma, pointwise, reduce, special  # noqa: F401 - their
from .fill_value import check_fill_value
from .layout import contiguous_format
from .op import Op  # methods must exist before _MATH_METHODS below gives them in-place twins
from .shape import EmbedOp, embed


def _torch_name(dtype: np.dtype) -> str:
    return {
        "float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
        "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    }[dtype.name]


# How an in-place op checks its tensor operands' memory against the tensor it writes, by
# the op apply_inplace runs (see inplace_method): "partial" (the default: pointwise ops,
# copy_), "any" (the very same elements refused too: index_add_, scatter_ ... read and
# write in another order), None (fill values, masked_scatter_, index_put_'s own check).
_OVERLAP_RULES: dict = {}


def apply_inplace(self: Tensor, op: Callable[..., Tensor], *args, **kwargs) -> Tensor:
    """Compute ``op(self, *args)`` and store the result in ``self`` (see module docstring)."""
    if _dual.level is not None and not _dual.busy:  # forward AD: the tangent is written too
        from ..autograd import forward_ad

        return forward_ad.apply_inplace(_apply_inplace, self, op, *args, **kwargs)
    return _apply_inplace(self, op, *args, **kwargs)


# index_put_ (x[idx] = v), index_fill_ and masked_fill_ still write an expanded tensor in
# PyTorch (deprecated, with a warning): each position written is written into the memory
# it shares with the others, one after the other (accumulate=True adds every time). Their
# writers, by the op apply_inplace runs: writer(self, *args) writes self._data directly.
# (Recorded by autograd, they are refused, as every other op is.)
EXPANDED_WRITERS: dict = {}


def warn_expanded_write(name: str, example: str) -> None:
    """PyTorch's deprecation warning for ``name`` writing an expanded tensor."""
    warn_user(
        f"Use of {name} on expanded tensors is deprecated. Please clone() the tensor before "
        "performing this operation. This also applies to advanced indexing e.g. "
        f"{example}\nHint: an expanded tensor repeats one element of memory; writing one "
        "of its positions changes all the positions that share it.", UserWarning)


def _apply_inplace(self: Tensor, op: Callable[..., Tensor], *args, **kwargs) -> Tensor:
    self._check_inplace()
    tracked = _grad_state.enabled and (
        self._requires_grad or any(isinstance(a, Tensor) and a._requires_grad for a in args)
    )
    # fill_(number) and zero_() write one value everywhere, so PyTorch lets them write an
    # expanded tensor, whose elements share memory; every other op is refused there.
    overlap_ok = op is _zero or (op is _fill and not (args and isinstance(args[0], Tensor)))
    dtype_first = getattr(op, "checks_dtype_first", False)
    precheck = getattr(op, "precheck", None)  # what PyTorch checks before its kernel's
    if precheck is not None:  # checks of memory, shapes and dtypes (addcdiv_'s integers)
        precheck(self, *args, **kwargs)
    if not dtype_first:
        try:
            _check_writable(self._data, overlap_ok)  # (before the op can object to the operands)
        except RuntimeError:  # expanded: a few ops still write it, with a warning
            writer = EXPANDED_WRITERS.get(op)
            if writer is None or tracked or not self._data.flags.writeable:
                raise
            return writer(self, *args, **kwargs)
        overlap_ok = True  # (checked: write_into need not again)
        _check_operands_memory(self, op, args, kwargs)  # ... and then the operands' memory
    if not tracked:
        result = op(self, *args, **kwargs)
        if dtype_first:
            _check_operands_memory(self, op, args, kwargs)
        write_into(self, result, overlap_ok)
        return self
    if self._base is not None and self._extra is not None and graph.is_no_grad_view(self):
        raise graph.no_grad_view_error(self)  # (an argument requires grad: recorded)
    if not self._requires_grad and self._base is not None and graph.is_multi_output_view(self):
        # a piece of split & co. of a constant, given a history by the values written
        raise graph.multi_output_view_error(self, indirect=False)
    # Keep the old values for the op's backward: self is about to be overwritten.
    # (a view whose base changed in place since: its history rebuilt first, as PyTorch's)
    history = self.grad_fn if self._base is not None else self._grad_fn
    source = _make(self._data.copy(), self._requires_grad, history)
    source._output_nr = self._output_nr
    result = op(source, *args, **kwargs)
    if dtype_first:
        _check_operands_memory(self, op, args, kwargs)
    fn = result._grad_fn
    if fn is not None and type(fn).__name__ in INPLACE_GRAD_FN_NAMES:
        fn.__class__ = inplace_twin(type(fn))
        if type(fn).__name__ in SAVES_RESULT:
            _save_result_too(fn, result)
    if self._base is not None and fn is not None:
        positions = view_positions(self._base._data, self._data)
        write_into(self, result, overlap_ok)
        _record_through_view(self, fn, positions)
    else:
        write_into(self, result, overlap_ok)
        self._grad_fn = fn
        self._output_nr = result._output_nr
        self._requires_grad = result._requires_grad
        if fn is not None and result._data.dtype is not self._data.dtype:
            # a float32 tensor given a float64 result (v32.mul_(w64)): PyTorch's node takes
            # the gradients of what it wrote, float32 (seed 161792)
            _written_as(fn, self)
    if fn is not None:
        _saved_output_is_now(fn, result, self)
    return self


def _written_as(fn: graph.Node, self: Tensor) -> None:
    """Make ``fn``'s output ``self._output_nr`` look like ``self`` (shape and dtype) to
    the engine, which casts the gradients arriving there to it."""
    meta = list(fn._meta)
    meta[self._output_nr] = (self._data.shape, self._data.dtype)
    fn._meta = tuple(meta)


# Some ops have their own derivative formula in PyTorch when they run in place, written
# with the result instead of the overwritten input, and so their own grad_fn name
# (``x.elu_()`` gives ``EluBackward1`` where ``elu(x)`` gives ``EluBackward0``). Here the
# op's backward still sees the old input (a copy, above), so the formula is the same: only
# the name changes. Found by running every in-place op in PyTorch 2.13 next to its
# out-of-place twin and comparing the grad_fn names.
INPLACE_GRAD_FN_NAMES = {
    "EluBackward0": "EluBackward1",  # elu_, selu_ (selu is elu with a scale)
    "CeluBackward0": "CeluBackward1",
    "LeakyReluBackward0": "LeakyReluBackward1",
    "RreluWithNoiseBackward0": "RreluWithNoiseBackward1",
    "ThresholdBackward0": "ThresholdBackward1",
    "PolygammaBackward0": "PolygammaBackward1",
    "AcoshBackward0": "AcoshBackward1",
    "AsinhBackward0": "AsinhBackward1",
    "AtanhBackward0": "AtanhBackward1",
    # views made in place (inplace_more: ``x.t_()``, ``x.squeeze_(1)``...)
    "TBackward0": "TBackward1",
    "AsStridedBackward0": "AsStridedBackward1",  # as_strided_()
    "TransposeBackward0": "TransposeBackward1",  # transpose_, swapaxes_, swapdims_
    "UnsqueezeBackward0": "UnsqueezeBackward1",
    "SqueezeBackward0": "SqueezeBackward3",  # squeeze_()
    "SqueezeBackward1": "SqueezeBackward4",  # squeeze_(dim)
    "SqueezeBackward2": "SqueezeBackward5",  # squeeze_(dims)
}
# ...and of those, the ones whose in-place derivative PyTorch does not implement: backward
# through them raises, as in PyTorch.
NO_INPLACE_DERIVATIVE = {"AcoshBackward1": "acosh", "AsinhBackward1": "asinh",
                         "AtanhBackward1": "atanh"}
# ...and the ones whose PyTorch node then saves its result, not its input (elu_'s formula
# is written in the result): they show ``_saved_result`` (no ``_saved_self``) and keep the
# result with a version check, so changing it in place again before backward is refused.
# Their backward still computes from the old input, kept unnamed after the result (see
# _save_result_too): the gradients are the out-of-place op's, as PyTorch's.
SAVES_RESULT = {"EluBackward1", "CeluBackward1", "LeakyReluBackward1"}
_TWINS: dict[type, type] = {}


def inplace_twin(cls: type) -> type:
    """The node class an in-place run of op ``cls`` records: ``cls`` under PyTorch's
    in-place name (a subclass: same forward, backward and formula)."""
    twin = _TWINS.get(cls)
    if twin is None:
        name = INPLACE_GRAD_FN_NAMES[cls.__name__]
        namespace = {"__slots__": (), "__module__": cls.__module__,
                     "__doc__": f"``{cls.__name__}`` run in place (PyTorch's name for it)."}
        if name in NO_INPLACE_DERIVATIVE:
            namespace["backward"] = staticmethod(_no_inplace_derivative(name))
        if name == "LeakyReluBackward1":
            namespace["backward"] = staticmethod(_leaky_relu_inplace_backward(cls.backward))
        if name in SAVES_RESULT:
            namespace.update(_result_saving_namespace(name, cls))
        if name in ("EluBackward1", "CeluBackward1"):
            namespace["backward"] = staticmethod(_elu_inplace_backward(cls.backward))
        twin = _TWINS[cls] = type(name, (cls,), namespace)
    return twin


def _result_saving_namespace(name: str, cls: type) -> dict:
    """A SAVES_RESULT twin's members: ``_saved_result`` first of what it saved, backward
    given the rest (the old input), and no ``_saved_self``, as PyTorch's node."""

    def saved_tensors(node):
        values = Op.saved_tensors.fget(node)  # (checks every version, the result's too)
        return values[1:] if node.__dict__.get("_result_first") else values

    def no_self(node):
        raise AttributeError(f"'{name}' object has no attribute '_saved_self'")

    def names(node):
        return [n for n in cls.__dir__(node) if n != "_saved_self"]

    return {"saved_names": ("result",), "saved_tensors": property(saved_tensors),
            "_saved_self": property(no_self), "__dir__": names}


def _save_result_too(fn: Node, result: Tensor) -> None:
    """Put the result first in what ``fn`` saved, as an output (a version check), before
    the old input its backward reads (see SAVES_RESULT)."""
    saved = getattr(fn, "_saved", None)
    if type(saved) is not tuple or len(saved) != 2:  # (packed by saved_tensors_hooks: as is)
        return
    values, sources = saved
    output = (result._vc, result._vc[0], result._output_nr)
    fn._saved = (type(values)((result._data, *values)), (output, *sources))
    fn._result_first = True


def _leaky_relu_inplace_backward(backward):
    """PyTorch's in-place leaky_relu derivative reads the sign from the result, which a
    negative slope flips: it refuses to run then (its words)."""

    def checked(ctx, grad):
        if ctx.negative_slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope "
                "which is not supported. This is caused by calling in-place forward function "
                "with a negative slope, please call out-of-place version instead. File an "
                "issue at https://github.com/pytorch/pytorch if you do require supporting "
                "in-place leakRelu backward calculation with negative slope"
            )
        return backward(ctx, grad)

    return checked


def _elu_inplace_backward(backward):
    """PyTorch's in-place elu (and celu, selu) derivative is written in the result, whose
    sign a negative alpha flips: it refuses to run then (its words)."""

    def checked(ctx, grad):
        if ctx.alpha < 0:
            raise RuntimeError(
                "In-place elu backward calculation is triggered with a negative slope which "
                "is not supported. This is caused by calling in-place forward function with "
                "a negative slope, please call out-of-place version instead."
                "\nHint: write F.elu(x, alpha) without inplace=True (or x = x.elu()).")
        return backward(ctx, grad)

    return checked


def _no_inplace_derivative(name: str):
    op = NO_INPLACE_DERIVATIVE[name]

    def backward(ctx, *grads):
        raise NotImplementedError(
            f"the derivative for 'inplace version of {op}' is not implemented."
            f"\nHint: write x = x.{op}() (out of place) where the gradient is needed."
        )

    return backward


def _saved_output_is_now(fn: Node, result: Tensor, self: Tensor) -> None:
    """An op that saved its own output (``exp_``, ``sigmoid_``, ``relu_``...) saved ``result``,
    whose values now live in ``self``: save ``self``'s memory and version instead.

    So a later in-place change of ``self`` makes backward refuse, as PyTorch does ("...
    which is output 0 of ExpBackward0, is at version 2; expected version 1 instead").
    A source is ``(version_cell, version, output_nr)`` for an output (graph.record_saved).
    """
    saved = getattr(fn, "_saved", None)
    if type(saved) is not tuple or len(saved) != 2:
        return
    values, sources = saved
    mine = [s is not None and len(s) == 3 and s[0] is result._vc for s in sources]
    if any(mine):
        now = (self._vc, self._vc[0])
        if self._base is not None:
            # Written through a view: PyTorch's saved output remembers (weakly) the view's
            # new grad_fn, and its in-place error names that node while it lives ("output
            # 0 of AsStrided"); see graph._raise_modified.
            now += (weakref.ref(self._grad_fn),)
        # (values may be a tuple subclass that marks 0-d saves: keep its type)
        fn._saved = (
            type(values)(self._data if m else v for v, m in zip(values, mine)),
            tuple(now[:2] + (s[2],) + now[2:] if m else s for s, m in zip(sources, mine)),
        )


def write_into(self: Tensor, result: Tensor, overlap_ok: bool = False) -> None:
    """Copy ``result``'s values into ``self``'s memory, with PyTorch's shape/dtype checks.

    ``overlap_ok``: ``self`` may be expanded (several elements one number in memory), as
    for ``fill_`` and ``zero_``, whose result is one value throughout.
    """
    data, new = self._data, result._data
    _check_writable(data, overlap_ok)
    if new.shape != data.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, data.shape))}] doesn't match the "
            f"broadcast shape [{', '.join(map(str, np.broadcast_shapes(data.shape, new.shape)))}]"
            if _broadcastable(data.shape, new.shape) else
            f"The size of tensor a ({data.shape[-1] if data.shape else 1}) must match the size "
            f"of tensor b ({new.shape[-1] if new.shape else 1})"
        )
    if not np.can_cast(new.dtype, data.dtype, "same_kind"):
        raise RuntimeError(
            f"result type {_torch_name(new.dtype)} can't be cast to the desired output type "
            f"{_torch_name(data.dtype)}"
        )
    np.copyto(data, new, casting="unsafe")
    self._vc[0] += 1


# PyTorch writes into a non-writable NumPy array's memory anyway ("undefined behavior", it
# warns); NumPy will not, so teachgrad refuses, and says why.
READ_ONLY_MEMORY = (
    "this tensor shares its memory with a NumPy array that is not writable (made by "
    "torch.from_numpy, torch.as_tensor or torch.from_dlpack: read-only memory), so it cannot "
    "be changed in place. Please clone() the tensor before performing the operation."
)


def _check_writable(data: np.ndarray, overlap_ok: bool = False) -> None:
    """Refuse to write an expanded tensor (several elements one number in memory; empty
    ones have none), unless ``overlap_ok``. PyTorch's kernels check this first, before
    the operands' shapes and dtypes."""
    if not data.flags.writeable or not overlap_ok and data.size and any(
        stride == 0 and n > 1 for n, stride in zip(data.shape, data.strides)
    ):
        if not data.flags.writeable and not any(
            stride == 0 and n > 1 for n, stride in zip(data.shape, data.strides)
        ):  # not expanded: memory shared with a read-only NumPy array (see from_numpy)
            raise RuntimeError(READ_ONLY_MEMORY)
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to "
            "a single memory location. Please clone() the tensor before performing the "
            "operation."
        )


def _broadcastable(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


# ----------------------------------------------------------------------------------------
# Writing through a view: CopySlices (the base's new grad_fn), AsStridedBackward0 (the view's)
# ----------------------------------------------------------------------------------------
def view_positions(base: np.ndarray, view: np.ndarray) -> np.ndarray:
    """For each element of ``view`` (a NumPy view of ``base``'s memory): its flat index in
    ``base``. The result has the view's shape.

    A view shares memory with its base, so its elements are found by their addresses,
    ``start + Σ index_k · stride_k``, whichever view ops (slices, transposes, diagonals...)
    made it.
    """
    view_addresses = _addresses(view)
    if base.flags.c_contiguous:  # the usual case: address = start + flat index · itemsize
        offsets = view_addresses - _start(base)
        positions = offsets // base.itemsize
        found = (offsets % base.itemsize == 0) & (positions >= 0) & (positions < base.size)
    else:
        base_addresses = _addresses(base).reshape(-1)
        order = np.argsort(base_addresses)
        slots = np.searchsorted(base_addresses, view_addresses, sorter=order)
        positions = order[np.minimum(slots, base.size - 1)]
        found = base_addresses[positions] == view_addresses
    if not found.all():  # e.g. the base's .data was replaced after the view was taken
        raise RuntimeError(
            "teachgrad cannot record this in-place change: the view no longer shares memory "
            "with the tensor it was taken from.\nHint: take the view again, or clone() it."
        )
    return positions


def _start(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _addresses(a: np.ndarray) -> np.ndarray:
    addresses = np.full(a.shape, _start(a), dtype=np.intp)
    for index, stride in zip(np.indices(a.shape, sparse=True), a.strides):
        addresses += index * stride
    return addresses


def _new_node(cls: type, edges: tuple, meta: tuple) -> Node:
    """A graph node built by hand (these nodes are not the result of running an op)."""
    node = cls.__new__(cls)
    Node.__init__(node)
    node.next_functions = edges
    node._meta = meta
    return node


class AsStridedScatterBackward0(EmbedOp):
    """Put a view's gradient back at the base positions it covers (zeros elsewhere)."""


class _AsStridedScatterAdd(AsStridedScatterBackward0):
    """The same for a view that shows one base element several times (``expand``):
    the gradients of the copies add up, as ``expand``'s backward sums them."""

    accumulate = True


_AsStridedScatterAdd.__name__ = _AsStridedScatterAdd.__qualname__ = "AsStridedScatterBackward0"


class CopySlices(Op):
    """The ``grad_fn`` of a tensor that was changed in place through one of its views.

    ``fn`` is the in-place op's own node (e.g. ``CopyBackwards`` for ``y[0] = v``);
    ``positions`` says where the view's elements sit in the base. The edges are the
    base's old history, then ``fn``'s other inputs (``v``).
    """

    formula = (
        "∂/∂old base = 1 outside the written region; inside it, and for the other inputs, "
        "what the in-place op's backward gives"
    )

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    @classmethod
    def create(cls, base: Tensor, fn: Node, positions: np.ndarray, view: Tensor) -> CopySlices:
        node = _new_node(
            cls, (edge_of(base),) + fn.next_functions[1:], ((base._data.shape, base._data.dtype),)
        )
        node.positions = positions
        node.view_meta = (view._data.shape, view._data.dtype)
        # fn is kept as a saved value, so that a backward without retain_graph releases it
        # as PyTorch's CopySlices does (and with it the view's old history, which fn's
        # first edge leads to: PyTorch's in-place error names a saved view output by that
        # history's node only while it lives)
        node._saved = ((fn,), (None,))
        return node

    @property
    def fn(self) -> Node:
        """The in-place op's own node (its backward runs on the view's region); after a
        backward without retain_graph, PyTorch's "backward through the graph a second
        time" error."""
        return unpack_saved(self)[0]

    @staticmethod
    def backward(ctx, grad):
        from ..autograd.engine import fit_gradient

        unpack_saved(ctx)  # raises PyTorch's error on a second backward without retain_graph
        shape, positions = grad.shape, ctx.positions
        if np.unique(positions).size < positions.size:
            # An expanded view, filled in place (fill_, zero_ may write one): PyTorch's
            # CopySlices copies the view's gradient into a view of the base's gradient
            # with the same strides, and that copy refuses the overlap.
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor "
                "refers to a single memory location. Please clone() the tensor before "
                "performing the operation.\nHint: the in-place op wrote through an expanded "
                "view, whose elements share memory; PyTorch cannot send its gradient back. "
                "Fill a clone() of the view instead."
            )
        flat = np.reshape(grad, (-1,))
        # The in-place op's backward, run on the view's part of the gradient (under
        # create_graph a clone of it, as PyTorch's CopySlices hands fn: an input that fn
        # passes straight through gets CloneBackward0).
        part = flat[positions]
        grads = ctx.fn._run_backward((part.clone() if type(part) is Tensor else part,))
        if type(grad) is Tensor:  # create_graph: the graph PyTorch records
            return (_copy_slices_recorded(ctx, grad, grads[0]), *grads[1:])
        kept = np.ones(flat.shape, bool)
        kept[positions] = False
        base_grad = np.where(np.reshape(kept, shape), grad, 0)
        if grads[0] is not None:
            old_view_grad = fit_gradient(grads[0], ctx.view_meta, ctx.fn, 0)
            placed = embed(old_view_grad, flat.shape, positions, AsStridedScatterBackward0)
            base_grad = base_grad + np.reshape(placed, shape)
        return (base_grad, *grads[1:])


def _copy_slices_recorded(ctx, grad: Tensor, view_grad) -> Tensor:
    """CopySlices' gradient for the base under ``create_graph``, recorded as PyTorch does
    it: a copy of ``grad`` with the in-place op's gradient for the view written over the
    view's region through a view of the copy, so that its ``grad_fn`` is CopySlices too."""
    from ..autograd.engine import fit_gradient

    # (the copy laid out as the base, row-major, which the flat positions index: the
    # gradient itself may arrive permuted, and a permuted copy has no flat view)
    result = grad.clone(memory_format=contiguous_format)
    # (None: the in-place op sends nothing back to the view's old values)
    written = 0.0 if view_grad is None else fit_gradient(view_grad, ctx.view_meta, ctx.fn, 0)
    result.view(-1)[_make(ctx.positions)] = written
    return result


class AsStridedBackward0(Op):
    """The ``grad_fn`` a view gets after an in-place change: its elements, read from the base."""

    formula = "a view's gradient goes back to the base elements it shows"
    is_view = True

    @classmethod
    def create(cls, base: Tensor, positions: np.ndarray, view: Tensor) -> AsStridedBackward0:
        node = _new_node(cls, (edge_of(base),), ((view._data.shape, view._data.dtype),))
        node.positions, node.base_shape = positions, base._data.shape
        node.view_version = view._vc[0]
        # An expanded view repeats base positions: their gradients must add, not overwrite.
        node.embed_op = (_AsStridedScatterAdd if np.unique(positions).size < positions.size
                         else AsStridedScatterBackward0)
        return node

    @staticmethod
    def backward(ctx, grad):
        if type(grad) is Tensor and ctx.positions.size == 0:
            # an empty view: PyTorch's as_strided_backward returns new zeros, with no
            # history even under create_graph
            return _make(np.zeros(ctx.base_shape, grad._data.dtype))
        size = int(np.prod(ctx.base_shape))
        placed = embed(grad, (size,), ctx.positions, ctx.embed_op)
        if type(placed) is Tensor:
            # create_graph: PyTorch's as_strided_backward ends by viewing its storage-sized
            # gradient with the base's geometry (storage.as_strided(...)), so the gradient's
            # grad_fn is AsStridedBackward0, not the ViewBackward0 of a reshape
            strides = [int(np.prod(ctx.base_shape[k + 1:])) for k in range(len(ctx.base_shape))]
            return placed.as_strided(ctx.base_shape, strides, 0)
        return np.reshape(placed, ctx.base_shape)


def _record_through_view(view: Tensor, fn: Node, positions: np.ndarray) -> None:
    """After ``fn`` changed ``view`` in place: rewrite the base's and the view's history."""
    base = view._base
    base._grad_fn = CopySlices.create(base, fn, positions, view)
    base._output_nr = 0
    base._requires_grad = True
    # fn's saved output (exp_'s result...) is the view as it is now: under create_graph it
    # comes back with the view's new history (AsStridedBackward0 of the base's CopySlices),
    # as PyTorch's SavedVariable of an in-place op on a view keeps the view's grad_fn (weakly,
    # as PyTorch: fn is reachable from it, a strong reference would be a cycle)
    fn.__dict__["_saved_output_grad_fn"] = weakref.ref(refresh_view(view, positions))


def refresh_view(view: Tensor, positions: np.ndarray | None = None) -> Node:
    """Point ``view``'s history at its base's current one (after the base was changed)."""
    base = view._base
    if positions is None:
        positions = view_positions(base._data, view._data)
    view._grad_fn = AsStridedBackward0.create(base, positions, view)
    view._output_nr = 0
    view._requires_grad = True
    return view._grad_fn


# A view taken before its base changed in place gets its new history when next used.
graph._view_builder = refresh_view


# ----------------------------------------------------------------------------------------
# Ops that only exist in place
# ----------------------------------------------------------------------------------------
class FillBackward2(Op):
    """``fill_(number)``."""

    formula = "fill: the old values no longer matter, ∂/∂a = 0"

    @staticmethod
    def forward(ctx, a, value):
        return np.full_like(a, value)

    @staticmethod
    def backward(ctx, grad):
        return np.zeros_like(grad)


class FillBackward3(Op):
    """``fill_(0-d tensor)``: the value is an input too."""

    formula = "fill: ∂/∂a = 0, ∂/∂value = Σ gradient"

    @staticmethod
    def forward(ctx, a, value):
        return np.full_like(a, value)

    @staticmethod
    def backward(ctx, grad):
        return np.zeros_like(grad), grad  # the engine sums the second down to a 0-d value


class ZeroBackward0(FillBackward2):
    """``zero_()``."""

    formula = "zero: the old values no longer matter, ∂/∂a = 0"


class CopyBackwards(Op):
    formula = "copy_: ∂/∂self = 0, ∂/∂src = 1"

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"  # a hand-written node in PyTorch, like CopySlices

    @staticmethod
    def forward(ctx, a, src):
        ctx.src_dtype = src.dtype
        return np.broadcast_to(src, a.shape).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        # PyTorch casts src's gradient to src's dtype, then the engine sums it to src's
        # shape (under create_graph: SumBackward0 above ToCopyBackward0, seed 609)
        dtype, zero = ctx.src_dtype, np.zeros_like(grad)
        if isinstance(grad, Tensor):
            if grad._data.dtype != dtype:
                grad = grad.to(from_numpy_dtype(dtype))
        elif grad.dtype != dtype:
            grad = grad.astype(dtype)
        return zero, grad


_FILL = Signatures("fill_", "(Tensor value)", "(Number value)")


_NO_VALUE = object()


def _fill(self: Tensor, value=_NO_VALUE) -> Tensor:
    value = _fill_value_checked(self, value)
    if isinstance(value, Tensor):
        return FillBackward3.apply(self, value)
    return FillBackward2.apply(self, value=value)


def _fill_value_checked(self: Tensor, value=_NO_VALUE):
    """``fill_``'s value after PyTorch's checks: a 0-d tensor, or a number ``self`` holds
    (``torch.fill`` takes the same)."""
    if value is _NO_VALUE:  # (x.fill_() with no value: PyTorch's parser says so)
        _FILL.check(())
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        return value
    if not is_number(value):  # (a string would reach NumPy)
        _FILL.check((value,))
    return check_fill_value(value, self._data.dtype)


_OVERLAP_RULES[_fill] = None  # (its value is read once, before anything is written)


def _zero(self: Tensor) -> Tensor:
    return ZeroBackward0.apply(self, value=0)


def _copy_method(self: Tensor, src=REQUIRED, non_blocking: bool = False) -> Tensor:
    """``self.copy_(src)``: write ``src``'s values (broadcast, cast) into ``self``."""
    if src is REQUIRED:  # (x.copy_(): PyTorch's words, see _missing_arguments)
        raise missing("copy_", _copy_method, self, src)
    return apply_inplace(self, _copy, src)


def _check_operands_memory(self: Tensor, op: Callable, args: tuple, kwargs: dict) -> None:
    """Refuse tensor operands that overlap ``self`` as ``op``'s PyTorch kernel refuses
    them (see ``_OVERLAP_RULES``). Only views (or ``self`` itself) can share memory."""
    rule = _OVERLAP_RULES.get(op, "partial")
    if rule is None:
        return
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, Tensor) and (self._base is not None or a._base is not None
                                      or a is self):
            check_overlap(self._data, a._data, full_too=rule == "any")


def check_overlap(out: np.ndarray, a: np.ndarray, full_too: bool = False) -> None:
    """PyTorch's refusal to write ``out`` while reading ``a`` where the two share some
    memory but are not the very same elements (``x[1:].add_(x[:-1])``, ``x.add_(x.t())``;
    ``full_too``: the very same elements too).

    As PyTorch's ``get_overlap_status``, it is checked only when both tensors fill a
    block of memory (contiguous, or a permutation of it); for others PyTorch gives up
    ("too hard") and computes, with results that depend on the order it writes in.
    """
    if not a.size or not out.size or not np.may_share_memory(out, a):  # (bounds only)
        return
    if not (_dense(out) and _dense(a)):
        return
    if (not full_too and _byte_bounds(out) == _byte_bounds(a)
            and out.strides == a.strides):
        return  # the same elements: x.add_(x) is fine (PyTorch compares all the strides,
        # of size-1 dimensions too: x[::2].copy_(x) is refused for a 1-element x)
    raise RuntimeError(
        "unsupported operation: some elements of the input tensor and the written-to "
        "tensor refer to a single memory location. Please clone() the tensor before "
        "performing the operation.\nHint: what is read overlaps what is written; read "
        "a copy, e.g. x[1:].add_(x[:-1].clone())."
    )


_byte_bounds = np.lib.array_utils.byte_bounds


def _dense(a: np.ndarray) -> bool:
    """PyTorch's is_non_overlapping_and_dense: its elements fill a block of memory."""
    expected = a.itemsize
    for stride, n in sorted((abs(st), n) for n, st in zip(a.shape, a.strides) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return True


def _check_copy_shapes(dst: tuple, src: tuple) -> None:
    """PyTorch's words when ``src`` does not broadcast to ``dst``'s shape."""
    pointwise._check_shapes_broadcast(dst, src)  # "The size of tensor a ... must match"
    shape = np.broadcast_shapes(dst, src)
    if shape != dst:
        raise RuntimeError(
            f"output with shape {graph.shape_str(dst)} doesn't match the broadcast shape "
            f"{graph.shape_str(shape)}\nHint: copy_ writes src into self's shape; src may "
            "have fewer dimensions, or size 1 where self has more, not more.")


def _copy(self: Tensor, src) -> Tensor:
    if not isinstance(src, Tensor):
        src = _make(np.asarray(src))
    _check_copy_shapes(self._data.shape, src._data.shape)
    return CopyBackwards.apply(self, src)


# ----------------------------------------------------------------------------------------
# The methods: each in-place method is its out-of-place op run through apply_inplace
# ----------------------------------------------------------------------------------------
def inplace_method(op: Callable, name: str, overlap: str | None = "partial") -> Callable:
    """The in-place method ``name`` that runs the out-of-place ``op`` through apply_inplace
    (``overlap``: how its tensor operands' memory is checked, see ``_OVERLAP_RULES``)."""
    if overlap != "partial":
        _OVERLAP_RULES[op] = overlap

    def method(self: Tensor, *args, **kwargs) -> Tensor:
        try:  # (free until something is raised)
            return apply_inplace(self, op, *args, **kwargs)
        except TypeError:
            error = missing_arguments_error(name, op, (self, *args), kwargs)
            if error is None:
                raise
        raise error  # (PyTorch's words, naming the method: not sub(), check_...())

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = f"In-place version of ``{op.__name__}``: changes ``self`` and returns it."
    return method


# PyTorch's clamp_ with number bounds names the integer type as C++ does ("long int").
_CPP_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int",
                   "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _clamp_by_numbers(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``op`` (clamp, clamp_min ...) for the in-place methods: a float number bound on an
    integer tensor is refused in PyTorch's words for this kernel (see _CPP_TYPE_NAMES)."""

    @functools.wraps(op)
    def clamp(self: Tensor, *args, **kwargs) -> Tensor:
        result = op(self, *args, **kwargs)
        have, want = result._data.dtype, self._data.dtype
        if (have != want and not np.can_cast(have, want, "same_kind")
                and not any(isinstance(a, Tensor) for a in (*args, *kwargs.values()))):
            raise RuntimeError(f"result type {_torch_name(have)} can't be cast to the desired "
                               f"output type {_CPP_TYPE_NAMES[want.name]}")
        return result

    clamp.checks_dtype_first = True  # (PyTorch's clamp_ asks before the kernel's overlap check)
    return clamp


def _ldexp(self: Tensor, other: Tensor) -> Tensor:
    """``ldexp`` for ``ldexp_``: its float result refused for an integer ``self`` in the
    words of PyTorch's ldexp (not the generic "result type Float can't be cast ...")."""
    result = pointwise.ldexp(self, other)
    if not np.can_cast(result._data.dtype, self._data.dtype, "same_kind"):
        raise RuntimeError(f"ldexp can't be cast to the desired output type "
                           f"{_torch_name(self._data.dtype)}\nHint: ldexp's result is a "
                           "float: write it into a float tensor (x = x.float() first).")
    return result


def _shape_first(op: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    """``op`` for its in-place method ``name``, refusing a result of another shape than
    ``self`` before ``op``'s kernel refuses a dtype: PyTorch's TensorIterator checks the
    output's shape first (``torch.tensor(2.5).gcd_(torch.ones(6))`` names the shapes)."""

    @functools.wraps(op)
    def shaped(self: Tensor, other, *args, **kwargs) -> Tensor:
        if not isinstance(other, Tensor):  # (the method's parser: other is its argument 1)
            raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(other).__name__}")
        _check_output_shape(self, other)
        return op(self, other, *args, **kwargs)

    return shaped


_INPLACE = {
    "add_": pointwise.add, "sub_": pointwise.sub, "mul_": pointwise.mul,
    "div_": pointwise.div, "pow_": pointwise.pow, "neg_": pointwise.neg,
    "abs_": pointwise.abs, "sign_": pointwise.sign, "exp_": pointwise.exp,
    "expm1_": pointwise.expm1, "log_": pointwise.log, "log1p_": pointwise.log1p,
    "sqrt_": pointwise.sqrt, "rsqrt_": pointwise.rsqrt, "reciprocal_": pointwise.reciprocal,
    "sin_": pointwise.sin, "cos_": pointwise.cos, "tan_": pointwise.tan,
    "tanh_": pointwise.tanh, "sigmoid_": pointwise.sigmoid, "relu_": pointwise.relu,
    "clamp_": _clamp_by_numbers(pointwise.clamp), "clip_": _clamp_by_numbers(pointwise.clamp),
    "clamp_min_": _clamp_by_numbers(pointwise.clamp_min),
    "clamp_max_": _clamp_by_numbers(pointwise.clamp_max), "square_": pointwise.square,
    "floor_": pointwise.floor, "ceil_": pointwise.ceil,
    "round_": pointwise.round.method_form.renamed("round_"),  # (its errors name round_)
    "trunc_": pointwise.trunc, "fill_": _fill, "zero_": _zero,
    "subtract_": pointwise.sub, "multiply_": pointwise.mul, "divide_": pointwise.div,
    "__iadd__": pointwise.add, "__isub__": pointwise.sub, "__imul__": pointwise.mul,
    "__itruediv__": pointwise.div, "__ipow__": pointwise.pow,
    "__iand__": pointwise.bitwise_and, "__ior__": pointwise.bitwise_or,
    "__ixor__": pointwise.bitwise_xor,
    "remainder_": pointwise.remainder, "__imod__": pointwise.remainder,
    "floor_divide_": pointwise.floor_divide, "__ifloordiv__": pointwise.floor_divide,
    "true_divide_": pointwise.div, "negative_": pointwise.neg, "absolute_": pointwise.abs,
    "exp2_": pointwise.exp2, "sgn_": pointwise.sgn, "nextafter_": pointwise.nextafter,
    "ldexp_": _ldexp, "gcd_": _shape_first(pointwise.gcd, "gcd_"),
    "lcm_": _shape_first(pointwise.lcm, "lcm_"),
}



def _refuse_bool(message: str) -> Callable[..., None]:
    """A precheck refusing a bool ``self`` with ``message``: relu_ and neg_ refuse bool
    before PyTorch's kernel looks at the memory (an expanded bool tensor gets this error,
    not the overlap one: seed 430170)."""

    def check(self: Tensor, *args, **kwargs) -> None:
        if self._data.dtype == np.bool_:
            raise RuntimeError(message)

    return check


pointwise.relu.precheck = _refuse_bool("Boolean inputs not supported for relu")
pointwise.neg.precheck = _refuse_bool(
    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead.")

for _name, _op in _INPLACE.items():
    setattr(Tensor, _name, inplace_method(_op, _name))
_copy_method.__name__ = _copy_method.__qualname__ = "copy_"  # (in Python's messages)
Tensor.copy_ = _copy_method

# The other math ops PyTorch has an in-place version of (``x.asin_()``, ``x.erf_()``,
# ``x.polygamma_(1)`` ...): the same mechanism, with the out-of-place method as the op.
_MATH_METHODS = (
    "log2", "log10",
    "asin", "acos", "atan", "arcsin", "arccos", "arctan", "sinh", "cosh", "asinh", "acosh",
    "atanh", "arcsinh", "arccosh", "arctanh", "atan2", "arctan2", "hypot", "erf", "erfc",
    "erfinv", "lgamma", "digamma", "polygamma", "mvlgamma", "i0", "deg2rad",
    "rad2deg", "copysign", "frac", "fix", "heaviside", "sinc", "logit", "xlogy", "lerp",
    "fmod", "nan_to_num", "cumsum", "cumprod", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not",
)
for _name in _MATH_METHODS:
    setattr(Tensor, _name + "_", inplace_method(getattr(Tensor, _name), _name + "_"))


def _nan_to_num_expanded(self: Tensor, *args, **kwargs) -> Tensor:
    """nan_to_num_ on an expanded tensor: an integer or bool one holds no nan, and PyTorch
    leaves it as it is (its version still counts a write); a float one is refused."""
    if self._data.dtype.kind == "f":
        _check_writable(self._data)  # (raises: the overlap error)
    Tensor.nan_to_num(self, *args, **kwargs)  # (its arguments checked)
    self._vc[0] += 1
    return self


EXPANDED_WRITERS[Tensor.nan_to_num] = _nan_to_num_expanded


def _check_output_shape(self: Tensor, *operands) -> None:
    """An in-place op's operands broadcast in turn with self, and then must give self's own
    shape: PyTorch's TensorIterator checks this before its kernel looks at the dtypes."""
    shape = self._data.shape
    for t in operands:
        if isinstance(t, Tensor):
            pointwise._check_shapes_broadcast(shape, t._data.shape)
            shape = np.broadcast_shapes(shape, t._data.shape)
    if shape != self._data.shape:
        raise RuntimeError(f"output with shape {graph.shape_str(self._data.shape)} doesn't "
                           f"match the broadcast shape {graph.shape_str(shape)}")


def _lerp(self: Tensor, end: Tensor, weight) -> Tensor:
    _check_output_shape(self, end, weight)  # (before lerp's kernel refuses integers)
    return special.lerp(self, end, weight)


_lerp.precheck = special.check_lerp_dtypes  # (before the memory, as PyTorch's)
Tensor.lerp_ = inplace_method(_lerp, "lerp_")


def _cumulative(name: str) -> Callable[..., Tensor]:
    """cumsum/cumprod for cumsum_/cumprod_, with the checks of PyTorch's kernel: no bool
    tensors (their sum would be an integer), and a dtype= that is self's own."""
    op = getattr(Tensor, name)

    def run(self: Tensor, *args, **kwargs) -> Tensor:
        have = self._data.dtype
        want = kwargs.get("dtype")
        if want is not None and want.numpy != have:
            raise RuntimeError(
                f"Bad in-place call: input tensor dtype {_TYPE_NAMES[have.name]} and output "
                f"tensor dtype {_TYPE_NAMES[np.dtype(want.numpy).name]} should match")
        result = op(self, *args, **kwargs)  # (its dim checked first)
        if have == np.bool_:
            if self._data.ndim and self._data.size:
                raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\''
                                          "\nHint: make it an integer first: x = x.long().")
            return result.bool()  # 0-d or empty: PyTorch copies, the kernel never runs
        return result

    run.__name__ = name
    run.__wrapped__ = op  # (its parameters, for the message of x.cumsum_() without dim)
    run.checks_dtype_first = True  # (the kernel refuses bool before the overlap check)
    return run


_TYPE_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double",
               **_CPP_TYPE_NAMES}
Tensor.cumsum_ = inplace_method(_cumulative("cumsum"), "cumsum_")
Tensor.cumprod_ = inplace_method(_cumulative("cumprod"), "cumprod_")


def _add_(self: Tensor, other=REQUIRED, *, alpha=1) -> Tensor:
    """In-place version of ``add``: ``self += alpha * other``, changes ``self`` and returns it.

    Optimizers call this for every parameter at every step (``p.add_(grad, alpha=-lr)``
    under ``no_grad``). When nothing is recorded and ``other`` is a float tensor of self's
    own shape and dtype, NumPy adds straight into self's memory: the same numbers as the
    general path (compute ``self + alpha * other``, then copy it in), without the copy.
    """
    data = self._data
    if (
        isinstance(other, Tensor)
        and not (_grad_state.enabled and (self._requires_grad or other._requires_grad))
        and type(alpha) in (int, float)
        and other._data.shape == data.shape
        and other._data.dtype == data.dtype
        and data.dtype.kind == "f"
        and (flags := data.flags).c_contiguous  # (an expanded tensor takes the general path)
        and flags.writeable
        and _dual.level is None  # (under forward AD the tangent has to be added too)
    ):
        self._check_inplace()
        if self._base is not None or other._base is not None:  # (x[1:].add_(x[:-1]))
            check_overlap(data, other._data)
        np.add(data, other._data if alpha == 1 else alpha * other._data, out=data)
        self._vc[0] += 1
        return self
    if other is REQUIRED:  # (x.add_(): PyTorch's words; off the optimizers' path above)
        raise missing("add_", _add_, self, other)
    return apply_inplace(self, pointwise.add, other, alpha=alpha)


_add_.__name__ = _add_.__qualname__ = "add_"  # (in Python's messages)
Tensor.add_ = _add_


__all__ = ["apply_inplace", "write_into", "inplace_method", "inplace_twin"]
