"""The backward graph: nodes (``grad_fn``), edges (``next_functions``) and saved tensors.

When an op runs on tensors that require grad, it leaves behind a :class:`Node` (the output's
``grad_fn``). A node knows

* ``next_functions``: one ``(node, output_nr)`` edge per input, pointing at the node that
  produced that input (``None`` when the input needs no gradient). Gradients flow along
  these edges, from the output back to the leaves.
* what it saved during the forward pass (``ctx.save_for_backward``), to compute its
  local derivative later, with the version of each saved tensor so in-place changes are
  caught instead of producing wrong gradients.
* the shape and dtype of what it produced, so the engine can check (and un-broadcast)
  every gradient that arrives.

A leaf that requires grad is represented in the graph by an :class:`AccumulateGrad` node,
whose only job is to add incoming gradients into the leaf's ``.grad``.
"""

from __future__ import annotations

import itertools
import re
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import _package_name
from . import saved_hooks
from .inference import InferenceRequiringGrad
from .multi_grad_hook import register_multi_grad_hook  # noqa: F401 - torch.autograd.graph's
from .saved_hooks import (  # noqa: F401 - the hooks are torch.autograd.graph's names too
    PackedSaved,
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_tensors_hooks,
)
from .saved_hooks import pack as pack_saved

# Every node gets a number when it is created. The engine runs ready nodes newest first,
# exactly as PyTorch's engine orders its ready queue by this "sequence number".
_sequence = itertools.count()
next_sequence_nr = _sequence.__next__

_INF = float("inf")
_UINT64_MAX = 2**64 - 1  # PyTorch's sequence number of an AccumulateGrad node
_FREED = "freed"  # marks a node whose saved tensors were released by a backward pass


class _NodeClass(type):
    """The class of every ``grad_fn`` class: it only changes how the class prints.

    PyTorch's nodes are C++ classes without a module: ``type(y.grad_fn)`` prints
    ``<class 'MulBackward0'>``, a custom Function's ``<class
    'torch.autograd.function.MyBackward'>``. teachgrad's print where they are defined
    (``teachgrad.ops.pointwise.MulBackward0``: useful for reading the code), and as
    PyTorch's once ``install_as_torch()`` has made teachgrad ``torch``.
    """

    def __repr__(cls) -> str:
        module = cls.__module__
        if _package_name.printed == "teachgrad" or not module.startswith("teachgrad"):
            return type.__repr__(cls)  # (also Node itself, renamed torch.autograd.graph)
        if module == "teachgrad.autograd.function":  # a custom Function's node
            return f"<class '{_package_name.qualified('autograd.function')}.{cls.__qualname__}'>"
        return f"<class '{cls.__qualname__}'>"


class Node(metaclass=_NodeClass):
    """A step of the backward graph; every ``grad_fn`` is one.

    Subclasses implement :meth:`backward`: given the gradient of the final output with
    respect to this node's output(s), return the gradient for each input (a
    vector-Jacobian product). ``None`` means "no gradient for this input".
    """

    __slots__ = (
        "next_functions",  # one (node, output_nr) edge per input
        "_seq_nr",         # creation order: the engine runs newest first (see _sequence_nr)
        "_meta",           # ((shape, dtype),) per output: what gradients must look like
        "_saved",          # what forward saved (see record_saved), or _FREED
        "_hooks",          # None, or NodeHooks when any hook / retain_grad is attached
        "__dict__",        # ops keep their own notes here (ctx.dims = ...)
        "__weakref__",
    )

    #: Human-readable local derivative shown by the notebook stepper, e.g. "∂(a·b)/∂a = b".
    formula: str = ""
    #: Give backward zeros (not None) for outputs that received no gradient. Custom
    #: Functions can switch it off with ``ctx.set_materialize_grads(False)``.
    materialize_grads: bool = True

    def __init__(self) -> None:
        self.next_functions: tuple = ()
        self._seq_nr = next_sequence_nr()
        self._meta: tuple = ()
        self._saved = None
        self._hooks = None

    # --- what PyTorch's grad_fn objects offer -------------------------------------------
    def name(self) -> str:
        """The node's name as PyTorch spells it, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def __dir__(self) -> list:
        # The autograd notes list a node's saved values as "the attributes starting with
        # _saved"; the internal slot named just that is not one of them.
        return [name for name in super().__dir__() if name != "_saved"]

    def __call__(self, *grads):
        """Apply the node by hand (as ``grad_fn(grad)`` in PyTorch): run its backward
        formula on tensors (see ``engine.call_node``)."""
        from .engine import call_node  # (the engine sits above the graph)

        return call_node(self, grads)

    @property
    def metadata(self) -> dict:
        """A free-form dict for the user's notes, as ``grad_fn.metadata`` in PyTorch."""
        md = self.__dict__.get("_metadata")
        if md is None:
            md = self.__dict__["_metadata"] = {}
        return md

    # PyTorch reads the sequence number through a method; the engine reads the plain
    # field ``_seq_nr`` (no call per node). A leaf's AccumulateGrad holds infinity, which
    # PyTorch spells as the largest unsigned 64-bit number.
    def _sequence_nr(self) -> int:
        """The node's creation number: the engine runs ready nodes with the largest first."""
        nr = self._seq_nr
        return _UINT64_MAX if nr == _INF else nr

    def _set_sequence_nr(self, sequence_nr: int) -> None:
        """Change the number the engine orders this node by (PyTorch's escape hatch)."""
        self._seq_nr = _INF if sequence_nr == _UINT64_MAX else int(sequence_nr)

    @property
    def _input_metadata(self) -> tuple:
        """What each gradient arriving at this node must look like, one per forward output.

        (PyTorch calls the node's incoming gradients its "inputs", so this describes the
        forward op's *outputs*.)
        """
        return tuple(InputMetadata(list(shape), _dtype_of(dtype)) for shape, dtype in self._meta)

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """Call ``fn(grad_inputs, grad_outputs)`` after this node runs in backward.

        ``fn`` may return new ``grad_inputs`` (one per input), which replace the ones the
        node computed, as in PyTorch.
        """
        return RemovableHandle(self.hooks().post, fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """Call ``fn(grad_outputs)`` before this node runs; it may return new gradients."""
        return RemovableHandle(self.hooks().pre, fn)

    def hooks(self) -> NodeHooks:
        """The node's hooks, created on first use (most nodes never have any)."""
        if self._hooks is None:
            self._hooks = NodeHooks()
        return self._hooks

    def backward(self, *grads):  # pragma: no cover - every subclass defines it
        raise NotImplementedError(f"{self.name()} does not define backward")

    # --- saved tensors --------------------------------------------------------------------
    def _release_saved(self) -> None:
        """Free what forward saved (backward without ``retain_graph`` does this)."""
        if self._saved is not None:
            self._saved = _FREED

    @property
    def num_outputs(self) -> int:
        """How many outputs the forward op had (one gradient arrives for each)."""
        return len(self._meta)


class InputMetadata(NamedTuple):
    """The shape and dtype a gradient arriving at a node must have (``node._input_metadata``)."""

    shape: list
    dtype: Any
    device: str = "cpu"
    is_nested_tensor: bool = False
    is_cpp_nested_tensor: bool = False


class NodeHooks:
    """Everything that can be attached to a node. Kept apart so plain nodes stay small.

    ``tensor``    output_nr -> {id: hook}: ``register_hook`` of the tensor that is that output
    ``retained``  output_nr -> weakref of a tensor that called ``retain_grad()``
    ``pre``       {id: hook(grad_outputs)}: the node's own pre-hooks
    ``post``      {id: hook(grad_inputs, grad_outputs)}: the node's own hooks
    """

    __slots__ = ("tensor", "retained", "pre", "post")

    def __init__(self) -> None:
        self.tensor: dict = {}
        self.retained: dict = {}
        self.pre: dict = {}
        self.post: dict = {}


class RemovableHandle:
    """Returned by ``register_hook``: call ``.remove()`` to take the hook away again."""

    _ids = itertools.count()

    def __init__(self, hooks: dict, fn: Callable) -> None:
        self._hooks = hooks
        self.id = next(self._ids)
        hooks[self.id] = fn

    def remove(self) -> None:
        """Unregister the hook (doing it twice is harmless)."""
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.remove()


class AccumulateGrad(Node):
    """The graph node of a leaf tensor: adds each gradient that reaches it into ``leaf.grad``.

    ``.variable`` is the leaf. There is at most one live AccumulateGrad per leaf, so two
    ops that use the same leaf point at the same node.
    """

    __slots__ = ("variable",)

    def __init__(self, variable) -> None:
        # (Node.__init__ written out: a training step makes one per parameter.)
        self.next_functions = ()
        self._saved = self._hooks = None
        self.variable = variable
        # PyTorch gives AccumulateGrad the largest sequence number: as soon as a leaf's
        # gradient is complete it is written, before any other ready node runs.
        self._seq_nr = _INF

    def name(self) -> str:
        """PyTorch's name for this node: ``'torch::autograd::AccumulateGrad'``."""
        return "torch::autograd::AccumulateGrad"

    @property
    def _meta(self) -> tuple:  # what the engine checks incoming gradients against
        data = self.variable._data
        return ((data.shape, data.dtype),)

    @_meta.setter
    def _meta(self, value) -> None:  # Node.__init__ assigns it; the leaf is the truth
        pass

    def backward(self, grad):
        # Leaves have no inputs: the engine itself does the accumulation (see engine.py),
        # because it also has to run hooks and report the step.
        return ()


def accumulator_of(leaf) -> AccumulateGrad | None:
    """The (unique while alive) AccumulateGrad node of a leaf that requires grad.

    ``None`` for a view made under ``no_grad``: it requires grad but has no edge (see
    ``NO_GRAD_VIEW``).
    """
    ref = leaf._accumulator
    node = ref() if ref is not None else None
    if node is None:
        if leaf._base is not None and leaf._extra is not None and NO_GRAD_VIEW in leaf._extra:
            return no_grad_view_accumulator(leaf)
        if type(leaf._vc) is not list:  # an inference tensor made to require grad
            return inference_accumulator(leaf)
        node = AccumulateGrad(leaf)
        leaf._accumulator = weakref.ref(node)
    return node


def edge_of(tensor) -> tuple:
    """The ``(node, output_nr)`` edge gradients for ``tensor`` must travel along.

    A non-leaf's edge is its ``grad_fn``; a leaf that requires grad gets its AccumulateGrad;
    anything else gets ``(None, 0)``: no gradient flows there.
    """
    fn = tensor._grad_fn
    if fn is not None:
        if tensor._base is not None and is_stale_view(tensor):
            return (rebuild_view(tensor), 0)
        return (fn, tensor._output_nr)
    if tensor._requires_grad:
        return (accumulator_of(tensor), 0)
    return (None, 0)


def is_stale_view(view) -> bool:
    """True for a view whose base was changed in place after its ``grad_fn`` was recorded.

    Its values changed, so its old history (e.g. ``SelectBackward0`` of the base's old
    history) no longer explains them. View nodes remember the version they were made at.
    """
    made_at = getattr(view._grad_fn, "view_version", None)
    return made_at is not None and made_at != view._vc[0]


# ``split``, ``chunk``, ``unbind`` return several views of one tensor from one node. PyTorch
# cannot rewrite that node's history when one of the pieces changes in place, so it forbids
# it (CreationMeta::MULTI_OUTPUT_NODE): the pieces, and views taken of them, carry this mark
# in ``_extra``: ``(name of the node that made the view, its output number, "multi")``.
# A custom Function's outputs that are views of its inputs carry it too, with "custom"
# (CreationMeta::IN_CUSTOM_FUNCTION): their in-place change would bypass its backward.
MULTI_OUTPUT_VIEW = "multi_output_view"


def mark_multi_output_view(view, node_name: str, output_nr: int,
                           made_by: str = "multi") -> None:
    """Remember that ``view`` comes (maybe through further views) from ``split`` & co.
    (``made_by="custom"``: from a custom Function, which PyTorch refuses in place too)."""
    # PyTorch's message names the view's node without "Backward0": "Output 0 of Split".
    # ("SqueezeBackward1" gives "Squeeze1"; a custom Function's "FBackward" gives "F")
    name = re.sub(r"Backward(\d*)$", r"\1", node_name.replace("Backward0", ""))
    extras = view._extras()
    extras[MULTI_OUTPUT_VIEW] = (name, output_nr, made_by)
    # A view has one kind in PyTorch (its CreationMeta): a custom Function's forward runs
    # under no_grad, so its views were marked as made there; being its output wins.
    extras.pop(NO_GRAD_VIEW, None)


def is_multi_output_view(t) -> bool:
    """Does ``t`` come from ``split``/``chunk``/``unbind`` or a custom Function (see
    ``mark_multi_output_view``)?"""
    extra = t._extra
    return extra is not None and MULTI_OUTPUT_VIEW in extra


def view_made_by(t) -> str:
    """``"multi"`` or ``"custom"``: what made the marked view ``t`` (or the one it views)."""
    return t._extra[MULTI_OUTPUT_VIEW][2]


def multi_output_view_error(view, indirect: bool) -> RuntimeError:
    """PyTorch's error for changing such a view in place (``indirect``: its base changed)."""
    name, output_nr, made_by = view._extra[MULTI_OUTPUT_VIEW]
    modified = "its base or another view of its base has been" if indirect else "is being"
    if view._grad_fn is None:  # a view of a tensor that needs no gradient (no history)
        head = (f"A view was created in no_grad mode and {modified} modified inplace with "
                "grad mode enabled.")
    else:
        head = f"Output {output_nr} of {name} is a view and {modified} modified inplace."
    if made_by == "custom":
        return RuntimeError(
            head + " This view was created inside a custom Function (or because an input "
            "was returned as-is) and the autograd logic to handle view+inplace would "
            "override the custom backward associated with the custom Function, leading to "
            "incorrect gradients. This behavior is forbidden. You can fix this by cloning "
            "the output of the custom Function.\nHint: y = y.clone() before changing it in "
            "place (a module with full backward hooks hands out such outputs: use "
            "inplace=False layers after it)."
        )
    return RuntimeError(
        head + " This view is the output of a function that returns multiple views. Such "
        "functions do not allow the output views to be modified inplace. You should replace "
        "the inplace operation by an out-of-place one.\nHint: the pieces of split/chunk/"
        "unbind share one backward node; change a copy (piece = piece.clone()) or compute "
        "out of place (piece = piece * 2)."
    )


# A view made under ``no_grad`` (CreationMeta::NO_GRAD_MODE in PyTorch) may not be changed
# in place once grad mode is back on and the change would be recorded: was the view meant
# to be part of the graph or not? PyTorch refuses to guess.
#
# Such a view of a tensor that requires grad requires grad too (a view does when its base
# does), but it has no history: its grad_fn is None and it is a leaf, yet no gradient flows
# through it. Ops on it in grad mode are recorded with an empty edge ``(None, 0)`` where
# it is an input (so nothing reaches its base), and ``v.backward()`` has nothing to start
# from. Once the view or its base is changed in place, any grad-mode use of it is refused.
#
# A view of an ordinary tensor made inside ``inference_mode`` is the same kind of view
# (CreationMeta::INFERENCE_MODE), with PyTorch's wording for that mode; so is any view
# taken of it later.
#
# The mark in ``_extra`` is ``(node, made_at, own, in_inference)``: ``node`` is ``None``
# for a view made under no_grad, or ``(name of the view node, output number)`` for a view
# taken of such a view in grad mode (PyTorch records that one when the base requires grad,
# and its message names the node); ``made_at`` is the version counter when the view was
# made; ``own`` is True once the user called ``requires_grad_()`` on the view: it then gets
# an AccumulateGrad of its own, and gradients reach ``v.grad`` (not the base), as in
# PyTorch; ``in_inference``: made in inference mode (or from such a view).
NO_GRAD_VIEW = "no_grad_view"


def mark_no_grad_view(view, view_of, node_name: str, grad_enabled: bool,
                      inference: bool = False) -> None:
    """Mark ``view`` (just made from ``view_of`` by op ``node_name``) as PyTorch would
    (``inference``: made inside ``inference_mode``)."""
    if type(view._vc) is not list:  # a view of an inference tensor: one too, and no more
        return
    inherited = view_of._extra is not None and NO_GRAD_VIEW in view_of._extra
    if inherited and view_of._extra[NO_GRAD_VIEW][3]:
        inference = True  # PyTorch: inference mode's mark is never replaced
    if not grad_enabled:
        node = None
        # (a differentiable view: view(dtype) is not one, and a copy has no base)
        if view._base._requires_grad and view._data.dtype.kind in "fc":
            view._requires_grad = True  # as its base; but it has no edge (see above)
    elif inherited:
        recorded = view._base._requires_grad  # PyTorch gives it a grad_fn then
        name = node_name.replace("Backward0", "").replace("Backward", "")
        node = (name, 0) if recorded else None
    else:
        if is_multi_output_view(view_of):  # (a view of a piece of split & co.: one too,
            # as Op.apply's recorded views are; here the piece needs no gradient)
            mark_multi_output_view(view, node_name, 0, view_made_by(view_of))
        if NON_DIFFERENTIABLE_VIEW in view_of._extra:  # (and of a view outside autograd)
            mark_non_differentiable_view(view)
        return
    view._extras()[NO_GRAD_VIEW] = (node, view._vc[0], False, inference)


def is_no_grad_view(t) -> bool:
    """Was ``t`` made as a view under ``no_grad`` (or is it a view of such a view)?"""
    extra = t._extra
    return extra is not None and NO_GRAD_VIEW in extra


def no_grad_view_accumulator(view) -> AccumulateGrad | None:
    """Where a gradient for the no_grad view ``view`` goes: nowhere (``None``), or its own
    AccumulateGrad after ``view.requires_grad_()``. Refused (PyTorch's error) once the
    view or its base was changed in place since the view was made."""
    check_no_grad_view(view)
    if not view._extra[NO_GRAD_VIEW][2]:
        return None
    # Its own AccumulateGrad is kept aside, not in ``_accumulator``: each op then comes
    # back here, and the check above runs every time, as PyTorch's does.
    ref = view._extra.get(_OWN_ACCUMULATOR)
    accumulator = ref() if ref is not None else None
    if accumulator is None:
        accumulator = AccumulateGrad(view)
        view._extra[_OWN_ACCUMULATOR] = weakref.ref(accumulator)
    return accumulator


_OWN_ACCUMULATOR = "no_grad_view_accumulator"


def inference_accumulator(leaf) -> AccumulateGrad:
    """The AccumulateGrad of ``leaf``, an inference tensor that requires grad. It is kept
    on the leaf's version counter, not in ``_accumulator``, so that ``Op.apply`` asks at
    every op whether all its tensor inputs are inference tensors (then PyTorch records
    nothing; see ``autograd/inference.py``)."""
    version = leaf._vc
    if not isinstance(version, InferenceRequiringGrad):  # (one made to require grad by a
        # constructor that set the flag itself)
        version = leaf._vc = InferenceRequiringGrad(version)
    node = version.accumulator() if version.accumulator is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        version.accumulator = weakref.ref(node)
    return node


def check_no_grad_view(view) -> None:
    """Raise PyTorch's error if the no_grad view ``view`` is stale (it or its base was
    changed in place since it was made): its history cannot be read then (``grad_fn``,
    ``is_leaf``, an op in grad mode all ask)."""
    made_at = view._extra[NO_GRAD_VIEW][1]
    if made_at != view._vc[0] and view._base._requires_grad:
        raise no_grad_view_error(view, indirect=True)


def set_no_grad_view_requires_grad(view, value: bool) -> None:
    """``view.requires_grad = value`` for a view marked as made under no_grad.

    As in PyTorch, the view requires grad as long as its base does (``False`` changes
    nothing then); ``True`` gives it a gradient of its own (see ``NO_GRAD_VIEW``).
    """
    node, made_at, _, in_inference = view._extra[NO_GRAD_VIEW]
    view._extra[NO_GRAD_VIEW] = (node, made_at, value, in_inference)
    view._requires_grad = value or view._base._requires_grad


def no_grad_view_error(view, indirect: bool = False) -> RuntimeError:
    """PyTorch's error for changing a view made under ``no_grad`` in place, recorded
    (``indirect``: it or its base was changed before, and now it is used in grad mode)."""
    node, _, _, in_inference = view._extra[NO_GRAD_VIEW]
    head = ("A view was created" if node is None
            else f"Output {node[1]} of {node[0]} is a view of a view which was created")
    # (PyTorch's two wordings: "in no_grad mode ... with grad mode enabled", "in inference
    # mode ... in normal mode")
    mode, block = ("inference mode", "inference_mode") if in_inference else (
        "no_grad mode", "no_grad")
    now = "in normal mode" if in_inference else "with grad mode enabled"
    if indirect:
        modified = "its base or another view of its base has been"
        hint = (f"\nHint: this view was made under {block} and changed in place since (or its "
                f"base was): make the view again where you use it (outside {block} to track "
                "it, inside to leave it out of the graph).")
    else:
        modified = "is being"
        hint = (f"\nHint: make the view again outside {block}, or change a copy "
                "(view.clone()).")
    return RuntimeError(
        head + f" in {mode} and {modified} modified inplace {now}. Given that this use case "
        "is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
        f"both the view and the inplace either both inside the {block} block (if you don't "
        "want the inplace to be tracked) or both outside (if you want the inplace to be "
        "tracked)." + hint
    )


# A custom Function's output marked non-differentiable that is a view of an input (and
# views taken of it) has no history even though its base may have one: it never gets one.
NON_DIFFERENTIABLE_VIEW = "non_differentiable_view"


def mark_non_differentiable_view(view) -> None:
    """Remember that ``view`` is a view outside autograd (see gained_history)."""
    view._extras()[NON_DIFFERENTIABLE_VIEW] = True


def gained_history(view) -> bool:
    """True for a view with no history whose base has got one since (by an in-place op).

    A view taken in grad mode of a tensor that needed no gradient has no ``grad_fn``; when
    its base then gets a history in place (``a.add_(w)``), PyTorch gives the view one too
    (``AsStridedBackward0`` reading its elements out of the base's), so it requires grad
    and what is computed from it is recorded. The caller checks ``view._base``.
    """
    if view._grad_fn is not None or view._base._grad_fn is None:
        return False
    extra = view._extra
    return extra is None or (NO_GRAD_VIEW not in extra and NON_DIFFERENTIABLE_VIEW not in extra)


def views_late_leaf(view) -> bool:
    """True for a view with no history of a leaf made to require grad after it was taken.

    ``v = x[0]; x.requires_grad_()``: PyTorch's ``v.requires_grad`` is True (a view asks its
    base), ``v.grad_fn`` stays None and ``v`` stays a leaf without a gradient of its own;
    ops on ``v`` are recorded, but their gradient for ``v`` goes nowhere (the edge is
    ``(None, 0)``) and ``v`` cannot be changed in place. The caller checks ``view._base``.
    """
    base = view._base
    if view._grad_fn is not None or view._requires_grad or not base._requires_grad:
        return False
    if base._grad_fn is not None or type(view._vc) is not list:  # (inference tensors)
        return False
    extra = view._extra
    return extra is None or NON_DIFFERENTIABLE_VIEW not in extra


def rebuild_view(view) -> Node:
    """Give a stale view the history PyTorch gives it: ``AsStridedBackward0`` reading its
    elements out of the base's current history. (ops/inplace.py installs the builder: the
    graph does not know about ops.)"""
    if is_multi_output_view(view):  # a piece of split & co.: PyTorch cannot, and refuses
        raise multi_output_view_error(view, indirect=True)
    if is_no_grad_view(view):  # a view of a no_grad view: PyTorch refuses too
        raise no_grad_view_error(view, indirect=True)
    return _view_builder(view)


def _no_view_builder(view):  # pragma: no cover - replaced when teachgrad.ops is imported
    raise RuntimeError("teachgrad.ops is not loaded")


_view_builder = _no_view_builder


def shape_str(shape) -> str:
    """``(2, 3)`` as PyTorch's messages write it: ``[2, 3]``."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


def collect_nodes(roots) -> list:
    """All nodes reachable from ``roots`` (iteratively: graphs can be 100,000 deep)."""
    seen = set()
    order = []
    stack = [r for r in roots if r is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                stack.append(nxt)
    return order


def zeros_for(node: Node, output_nr: int):
    """A zero gradient shaped like ``node``'s output ``output_nr`` (for outputs nobody used)."""
    shape, dtype = node._meta[output_nr]
    return np.zeros(shape, dtype)


# ----------------------------------------------------------------------------------------
# Saved tensors
# ----------------------------------------------------------------------------------------
class _UnpackMode:
    """Set by the engine: hand saved values to backward formulas as tensors (create_graph)."""

    as_tensors = False


unpack_mode = _UnpackMode()

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def record_saved(values: tuple, inputs: tuple, arrays: list, outputs: tuple) -> tuple:
    """Remember where each saved array came from, and at which version.

    A saved array is an input's data, the op's own output, or a constant (a mask, a
    shape...). Inputs and outputs are checked against their version counter at backward
    time, and under ``create_graph`` they are handed back as the connected tensors.
    Returns ``(values, sources)``; a source is ``None`` (constant), ``(tensor, version)``
    (an input) or ``(version_cell, version, output_nr)`` (an output; an in-place op written
    through a view adds a weak reference to the view's new grad_fn, for the error message).
    """
    sources = []
    for v in values:
        if type(v) is not _ndarray:  # None, a number, a shape...: nothing to check
            sources.append(None)
            continue
        source = None
        i = 0  # (an index loop: this runs for every recorded op, and zip costs more)
        for a in arrays:
            if v is a:
                x = inputs[i]
                # A tensor input; not a constant (an array passed as is, or a Python
                # number that the op turned into an array of the tensor's dtype).
                if type(x) not in _CONSTANTS:
                    source = (x, x._vc[0])
                break
            i += 1  # noqa: SIM113 - enumerate costs more here
        else:
            for o in outputs:
                if v is o._data:
                    source = (o._vc, o._vc[0], o._output_nr)
                    break
        sources.append(source)
    if _saved_hooks.stack:  # inside saved_tensors_hooks: keep what the pack hook returns
        saved = pack_saved(values, tuple(sources), inputs, outputs)
        saved.sources = _without_packed_data(saved.sources, saved.packed)
        return saved
    return (values, tuple(sources))


class SavedInput(NamedTuple):
    """What a node keeps of an input tensor whose saved value a pack hook took over: its
    place in the graph, for :func:`_reconnect`, and not the tensor (nor its data).

    The pack hook alone decides what of the data survives (nothing, for checkpointing;
    a compressed copy...): keeping the tensor here would keep its memory alive too.
    """

    requires_grad: bool
    grad_fn: Any
    output_nr: int
    accumulator: Any  # a leaf's AccumulateGrad (None for other tensors)


def _without_packed_data(sources: tuple, packed: dict) -> tuple:
    """``sources`` with each packed input's ``(tensor, version)`` made a :class:`SavedInput`."""
    result = list(sources)
    for i in packed:
        source = sources[i]
        if source is not None and len(source) == 2:
            tensor = source[0]
            leaf = tensor._grad_fn is None and tensor._requires_grad
            result[i] = SavedInput(tensor._requires_grad, tensor._grad_fn, tensor._output_nr,
                                   accumulator_of(tensor) if leaf else None)
    return tuple(result)


_ndarray = np.ndarray
_saved_hooks = saved_hooks.state
_CONSTANTS = frozenset({np.ndarray, int, float, bool, complex})


class ConstantSource(tuple):
    """The source of a saved constant the op read from a tensor that is not one of its
    inputs (a mask, an index): ``(tensor, version)``, checked like an input's at backward,
    but handed back as the array the op saved (it is no part of the graph)."""

    __slots__ = ()


def check_saved_constant(result, position: int, tensor) -> None:
    """Have ``result``'s node check that ``tensor`` was not changed in place before backward.

    ``tensor`` (a mask or an index tensor) is what the op saved at ``position`` as a plain
    array. PyTorch saves such a tensor like any other, so a backward after
    ``mask.fill_(...)`` fails with its "modified by an inplace operation" error rather than
    use the new mask; teachgrad's record_saved sees only an array and cannot know.
    """
    node = result._grad_fn
    if node is None or type(getattr(tensor, "_vc", None)) is not list:
        if node is not None and tensor is not None:
            refuse_inference_constant(tensor)
        return
    saved = node._saved
    if type(saved) is PackedSaved:  # made inside saved_tensors_hooks
        sources = list(saved.sources)
        sources[position] = ConstantSource((tensor, tensor._vc[0]))
        saved.sources = tuple(sources)
        if _saved_hooks.stack:  # PyTorch packs it too (its unpack hook's result is unchecked)
            pack_hook, unpack_hook = _saved_hooks.stack[-1]
            saved.packed[position] = (pack_hook(tensor), unpack_hook)
            saved.values = tuple(None if i == position else v
                                 for i, v in enumerate(saved.values))
    elif type(saved) is tuple:
        values, sources = saved
        source = ConstantSource((tensor, tensor._vc[0]))
        if len(sources) == 1:  # (the usual case: nll_loss's target, an index)
            node._saved = (values, (source,))
        else:
            sources = list(sources)
            sources[position] = source
            node._saved = (values, tuple(sources))


def save_input(result, position: int, tensor) -> None:
    """Have ``result``'s node save its input ``tensor`` at ``position``, where forward
    saved None: now, in the order of the calls to this and to check_saved_constant.

    PyTorch packs saved tensors in the order its formula names them, and for gather, take
    and masked_select the index or mask comes first (``[index, self]``); teachgrad's
    record_saved packs the inputs at once and the constants only after the op ran, so
    these ops save their input here, after the index. (nll_loss saves its input first,
    then its constants.) An inference tensor is refused as any saved input is (reading
    its version raises)."""
    node = result._grad_fn
    if node is None:
        return
    version = tensor._vc[0]  # (raises PyTorch's error for an inference tensor)
    saved = node._saved
    if type(saved) is PackedSaved:  # made inside saved_tensors_hooks
        pack_hook, unpack_hook = (_saved_hooks.stack[-1] if _saved_hooks.stack
                                  else (None, None))
        sources = list(saved.sources)
        if pack_hook is None:  # (hooks ended before this: kept as a plain input)
            values = list(saved.values)
            values[position] = tensor._data
            sources[position] = (tensor, version)
            saved.values = tuple(values)
        else:
            sources[position] = _without_packed_data(((tensor, version),), {0: None})[0]
            saved.packed[position] = (pack_hook(tensor), unpack_hook)
        saved.sources = tuple(sources)
    elif type(saved) is tuple:
        values, sources = list(saved[0]), list(saved[1])
        values[position] = tensor._data
        sources[position] = (tensor, version)
        node._saved = (tuple(values), tuple(sources))


def refuse_inference_constant(tensor) -> None:
    """PyTorch's "Inference tensors cannot be saved for backward" if ``tensor`` (a constant
    an op saves: an index, a mask, a target) is an inference tensor outside
    ``inference_mode``, as for any tensor an op saves (reading its version raises, see
    ``inference.InferenceVersion``); None (nothing to check) otherwise."""
    version = getattr(tensor, "_vc", None)
    if version is not None:
        version[0]  # noqa: B018 - raises for an inference tensor


def save_constants(result, values: tuple, tensors: tuple) -> None:
    """Have ``result``'s node save ``values`` (arrays the op read from ``tensors``: a
    target, a weight) and check at backward that each tensor was not changed in place.

    For an op whose forward saved nothing (nll_loss's): the same as saving ``values`` in
    forward and calling :func:`check_saved_constant` for each tensor, in one short step
    (cross_entropy runs it every training step). ``tensors`` may hold None (or be longer
    than ``values``: the extra ones are ignored).
    """
    node = result._grad_fn
    if node is None:
        return
    if _saved_hooks.stack:  # inside saved_tensors_hooks: packed as PyTorch packs them
        node._saved = record_saved(values, (), [], (result,))
        for position in range(len(values)):
            check_saved_constant(result, position, tensors[position])
        return
    if len(values) == 1:  # the usual case (no weight), spelled out: it costs less
        tensor = tensors[0]
        version = getattr(tensor, "_vc", None)
        node._saved = (values, (ConstantSource((tensor, version[0]))
                                if type(version) is list else refuse_inference_constant(tensor),))
        return
    sources = []
    for position in range(len(values)):
        tensor = tensors[position]
        version = getattr(tensor, "_vc", None)
        sources.append(ConstantSource((tensor, version[0])) if type(version) is list
                       else refuse_inference_constant(tensor))
    node._saved = (values, tuple(sources))


def unpack_saved(node: Node) -> tuple:
    """The values ``node`` saved, after checking none was modified in place since."""
    saved = node._saved
    if saved is None:
        return ()
    if saved is _FREED:
        raise RuntimeError(
            BACKWARD_TWICE + "\nHint: this graph was already used by a backward pass. Call "
            "backward(retain_graph=True) the first time, or rebuild the graph (run the "
            "forward computation again)."
        )
    if type(saved) is PackedSaved:
        # Packed values (by saved_tensors_hooks, or one tensor's own hooks) come back
        # through their unpack hooks unchecked; any others are checked as usual below.
        values = saved.unpack(unpack_mode.as_tensors)
        sources = tuple(None if i in saved.packed else s for i, s in enumerate(saved.sources))
    else:
        values, sources = saved
    for source in sources:  # (every backward step runs this: no zip with the values here)
        if source is not None:
            cell = source[0]._vc if len(source) == 2 else source[0]  # a tensor's or the output's
            if cell[0] != source[1]:
                value = next(v for v, s in zip(values, sources) if s is source)
                _raise_modified(node, value, source)
    if not unpack_mode.as_tensors:
        return values
    if type(saved) is PackedSaved:  # unpacked tensors take the saved one's place in the graph
        values = tuple(_reconnect(node, v, saved.sources[i]) if i in saved.packed else v
                       for i, v in enumerate(values))
    return tuple(_as_tensor(node, v, source) for v, source in zip(values, sources))


def _reconnect(node: Node, unpacked, source):
    """What an unpack hook gave back, with the gradient edge of the tensor that was saved.

    PyTorch does the same: a pack hook may copy or detach (``t.detach()``, ``t.cpu()``),
    and backward of backward (``create_graph=True``) must still reach the saved tensor's
    history, not the copy's.
    """
    from .._tensor import _make

    if type(source) is SavedInput:  # an input: the edge of the very tensor that was saved
        tensor = _make(unpacked._data, source.requires_grad, source.grad_fn)
        if source.grad_fn is not None:
            tensor._output_nr = source.output_nr
        elif source.requires_grad:  # a leaf: gradients go on to its AccumulateGrad
            if source.accumulator is None:  # a view made under no_grad: no gradient goes there
                tensor._requires_grad = False
            else:
                tensor._accumulator = weakref.ref(source.accumulator)
        return tensor
    return _as_tensor(node, unpacked._data, source)  # the op's output: grad_fn is node


def saved_value(node: Node, index: int):
    """The ``index``-th value ``node`` saved, as ``grad_fn._saved_<name>`` shows it.

    An input comes back as the very tensor, the op's output as a tensor whose ``grad_fn``
    is ``node``, a constant array as a plain tensor; ``None`` if it was not saved (PyTorch
    skips what no gradient needs). After backward has freed the graph: PyTorch's error.
    As in PyTorch, only this value is looked at: one unpack hook runs (not one per saved
    tensor), and only this value's version is checked.
    """
    from .._tensor import _make

    saved = node._saved
    if saved is None or saved is _FREED:
        unpack_saved(node)  # raises PyTorch's error once freed
        return None
    values, sources = (saved.values, saved.sources) if type(saved) is PackedSaved else saved
    if index >= len(values):
        return None
    source = sources[index]
    if type(saved) is PackedSaved and index in saved.packed:
        # (unchecked, as in unpack_saved: a packed tensor has no version check)
        value = _reconnect(node, saved.unpack_one(index), source)
    else:
        value = values[index]
        if source is not None:
            cell = source[0]._vc if len(source) == 2 else source[0]
            if cell[0] != source[1]:
                _raise_modified(node, value, source)
            if len(source) == 2:  # an input: the very tensor, in its own dtype (x * ints
                return source[0]  # saves the int tensor; the op computed with a cast copy)
        value = _as_tensor(node, value, source)
    return _make(value) if isinstance(value, np.ndarray) else value


class SavedTensor:
    """One value a node saved, as PyTorch's ``grad_fn._raw_saved_<name>`` gives it.

    Its ``register_hooks(pack_hook, unpack_hook)`` puts just this tensor through a pair of
    hooks (the autograd notes' example): ``pack_hook`` runs at once and the node keeps
    what it returns; ``unpack_hook`` gives the tensor back when backward (or
    ``_saved_<name>``) needs it.
    """

    __slots__ = ("_node", "_index")

    def __init__(self, node: Node, index: int) -> None:
        self._node = node
        self._index = index

    def register_hooks(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        """Pack this saved tensor now with ``pack_hook``; unpack it with ``unpack_hook``."""
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None"
            )
        node, index = self._node, self._index
        saved = node._saved
        if saved is _FREED:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward."
            )
        if type(saved) is PackedSaved and index in saved.packed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been "
                "set. Hint: only one pair of hooks is allowed at a time."
            )
        # (checks it was not modified in place meanwhile; PyTorch hands the pack hook the
        # saved data without its history, and gives that back on unpack, see _reconnect)
        tensor = saved_value(node, index).detach()
        if type(saved) is PackedSaved:
            values, sources, packed = list(saved.values), saved.sources, dict(saved.packed)
        else:
            values, sources, packed = list(saved[0]), saved[1], {}
        packed[index] = (pack_hook(tensor), unpack_hook)
        values[index] = None
        node._saved = PackedSaved(tuple(values), _without_packed_data(sources, packed), packed)

    def __repr__(self) -> str:
        return f"<teachgrad.autograd.graph.SavedTensor of {type(self._node).__name__}>"


def _as_tensor(node: Node, value, source):
    from .._tensor import _make  # graph.py sits below the Tensor class

    if source is None or type(source) is ConstantSource:
        return value
    if len(source) == 2:  # an input: the very tensor, so the new graph connects to it
        tensor = source[0]
        return tensor if tensor._data.dtype == value.dtype else tensor.to(
            _dtype_of(value.dtype)
        )
    # The op's own output: rebuild it as a tensor whose grad_fn is this node, as PyTorch
    # does (holding the output tensor itself would make a reference cycle). An integer
    # output (max's indices) is not differentiable: no grad_fn, as the output itself.
    value = np.asarray(value)  # (an op on 0-d tensors saves a scalar)
    differentiable = value.dtype.kind == "f"
    grad_fn = node
    later = node.__dict__.get("_saved_output_grad_fn")  # (an in-place op on a view: its
    if later is not None and later() is not None:  # output is the view, with the view's
        grad_fn = later()                          # history, see inplace._record_through_view)
    out = _make(value, differentiable, grad_fn if differentiable else None)
    out._output_nr = source[2]
    out._vc = source[0]
    tangents = node.__dict__.get("_output_tangents")
    if tangents is not None and source[2] in tangents:  # forward AD over this backward
        out._extra = {"tangent": tangents[source[2]]}
    return out


def _dtype_of(np_dtype):
    from .._dtypes import from_numpy_dtype

    return from_numpy_dtype(np_dtype)


def _raise_modified(node: Node, value, source) -> None:
    from .._dtypes import from_numpy_dtype

    if len(source) == 2:
        # (an input is described as the tensor itself, not the array the op saved: an op
        # may have promoted it, ``a64.xlogy(b32)`` saves b as float64, and PyTorch, which
        # promotes inside its kernels, names b's own type, FloatTensor)
        value = source[0]._data
    kind = from_numpy_dtype(value.dtype)._legacy
    # as x.type() and PyTorch; bool is the exception, named as its C++ core does
    kind = "CPUBoolType" if kind == "BoolTensor" else f"torch.{kind}"
    what = f"[{kind} {shape_str(value.shape)}]"
    if len(source) == 2:
        tensor, expected = source
        now = tensor._vc[0]
        # PyTorch names the saved input's grad_fn as it is *now*: the in-place op that
        # changed it (``y.add_(1)`` -> "output 0 of Add"). A view changed in place, or
        # whose base was, has its history rebuilt as AsStridedBackward0 (ops/inplace.py).
        # A view made before its base had a history has none of its own, but PyTorch
        # gives it one (AsStrided) once an in-place op recorded on the base.
        fn = tensor._grad_fn
        base = tensor._base
        if base is not None and (fn is not None or base._grad_fn is not None):
            what += ", which is output 0 of AsStrided,"
        elif fn is not None:
            what += f", which is output {tensor._output_nr} of {_short(fn.name())},"
    else:
        cell, expected, output_nr = source[:3]
        now = cell[0]
        # An in-place op's output written through a view also holds the view's grad_fn
        # weakly (ops/inplace.py, _saved_output_is_now): PyTorch names it while it lives.
        view_fn = source[3]() if len(source) == 4 else None
        if value.dtype.kind in "fc":  # (an integer output, max's indices, has no history
            # in PyTorch, so its message names no node)
            what += f", which is output {output_nr} of {_short((view_fn or node).name())},"
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {what} is at version {now}; expected version {expected} "
        "instead. Hint: enable anomaly detection to find the operation that failed to "
        "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
        f"\nHint: {node.name()} saved this tensor to compute its gradient, and it was changed "
        "in place afterwards. Use an out-of-place op (y = y + 1, not y += 1) or clone() first."
    )


def _short(name: str) -> str:
    """'ExpBackward0' -> 'Exp', 'PowBackward1' -> 'Pow1', as PyTorch's in-place error
    message names ops (an overload's number stays, except 0; a custom Function's
    'ExpBackward' gives 'Exp'). A name that does not end so is kept whole
    ('torch::autograd::CopyBackwards')."""
    match = _BACKWARD_SUFFIX.fullmatch(name)
    if match is None:
        return name
    op, number = match.groups()
    return op + (number if number != "0" else "")


_BACKWARD_SUFFIX = re.compile(r"(.+)Backward(\d*)")


# ----------------------------------------------------------------------------------------
# Gradient edges
# ----------------------------------------------------------------------------------------
class GradientEdge(NamedTuple):
    """Where a tensor's gradient is computed: ``(node, output_nr)``, as PyTorch's
    ``torch.autograd.graph.GradientEdge``. For a leaf the node is its AccumulateGrad, the
    usual way to reach that node to give it hooks."""

    node: Node
    output_nr: int
    # PyTorch keeps a C++ graph alive through it; a teachgrad node holds its graph itself
    ownership_token: Node | None = None


def get_gradient_edge(tensor) -> GradientEdge:
    """The gradient edge of ``tensor``: its ``grad_fn`` (or, for a leaf, its
    AccumulateGrad) and which output of that node it is.

        >>> import teachgrad as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> torch.autograd.graph.get_gradient_edge(x).node.name()
        'torch::autograd::AccumulateGrad'
    """
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    node, output_nr = edge_of(tensor)
    return GradientEdge(node, output_nr)


def increment_version(tensor) -> None:
    """Count one more in-place change of ``tensor`` (or of each tensor in a list), for
    code that changed its memory where autograd could not see it (through ``.numpy()``, for
    instance): saved copies of it are then refused in backward, as after ``add_``.

        >>> import teachgrad as torch
        >>> x = torch.ones(2)
        >>> x.numpy()[0] = 5.0                  # autograd did not see this ...
        >>> torch.autograd.graph.increment_version(x)
        >>> x._version                          # ... now it knows
        1

    An inference tensor has no version counter: it is left as it is, as in PyTorch.
    """
    for t in (tensor,) if hasattr(tensor, "_vc") else tuple(tensor):
        if type(t._vc) is list:  # (an inference tensor's counter is not a list)
            t._vc[0] += 1
