"""Forward-mode automatic differentiation (``torch.autograd.forward_ad``).

Reverse mode (``backward``) pushes one output gradient back to every input: a row of the
Jacobian per pass. Forward mode pushes one input *direction* forward along with the
values: a column of the Jacobian per pass. Each tensor carries a **tangent** (how it moves
when the inputs move along the chosen direction), and every op computes its output's
tangent from its inputs' tangents: the Jacobian-vector product (JVP) ``J·t``::

    import teachgrad as torch
    import teachgrad.autograd.forward_ad as fwAD

    x = torch.tensor([1., 2.])
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([1., 0.]))   # x, moving along e₀
        y = (dual ** 2).sum()
        fwAD.unpack_dual(y).tangent                        # tensor(2.) = ∂y/∂x₀

**One mechanism for every op.** teachgrad's ops know their backward formula, the
vector-Jacobian product ``u ↦ uᵀ·J``, which is linear in ``u``. The JVP comes out of it
by the "double backward trick": record the backward pass with ``u`` as an unknown,
form ``h(u) = Σᵢ ⟨VJPᵢ(u), tᵢ⟩ = uᵀ·(J·t)``, and differentiate ``h`` with respect to
``u``: ``∂h/∂u = J·t``. It is exact (no finite differences), and it needs no forward
formula per op. View ops are simpler still: a view is linear, so the tangent of a view
is the same view of the tangent (it shares memory with the base's tangent, as in
PyTorch, so in-place changes through views move the tangents along).

**No cost when it is off.** Ordinary programs never pay for any of this: ``Op.apply`` is
swapped for the tangent-carrying :func:`_dual_apply` only while a dual level is entered.

**Tangents are differentiable.** When grad mode is on and an input (or a tangent)
requires grad, the tangent gets a graph too, so ``backward`` can differentiate it
(reverse over forward); and since the backward formulas are themselves ops, tangents flow
through a ``backward(create_graph=True)`` run inside a dual level (forward over reverse:
Hessian-vector products). See :class:`ReconnectBackward` for how the JVP's own small
graph is joined to the rest.

One limit, shared with PyTorch: there is one level, so a tangent has no tangent of its
own. A gradient computed *through a tangent's graph* inside the level (``grad(tangent,
x, create_graph=True)``) is right, but the tangent it carries is not a derivative of
anything (the tangents it would need are missing); don't read it.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .._tensor import Tensor, _make
from ..ops.op import Op
from . import engine
from .dual_state import own_entry, own_tangent, state
from .forward_formulas import RULES as _RULES
from .grad_mode import enable_grad
from .grad_mode import state as _grad_state


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the ``primal`` and its ``tangent`` (or None)."""

    primal: Tensor
    tangent: Tensor | None


# ----------------------------------------------------------------------------------------
# Levels
# ----------------------------------------------------------------------------------------
def enter_dual_level() -> int:
    """Start forward AD: tangents are carried until :func:`exit_dual_level` (returns 0).

    Prefer ``with dual_level():``. Levels do not nest (PyTorch's rule).
    """
    if state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.generation += 1  # the tangents of earlier levels are no longer seen
    state.level = 0
    state.busy = False
    Op.apply = _DUAL_APPLY  # every op now carries tangents (and only now: see module doc)
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """End forward AD: every tangent of the level is forgotten."""
    if level is None:
        level = -1 if state.level is None else state.level
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != state.level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    state.level = None
    Op.apply = _PLAIN_APPLY


class dual_level:  # noqa: N801 - PyTorch's name
    """Context manager (or decorator) for one forward-AD level.

    >>> import teachgrad as torch
    >>> import teachgrad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     y = fwAD.make_dual(torch.tensor(3.), torch.tensor(1.)) ** 2
    ...     fwAD.unpack_dual(y).tangent
    tensor(6.)
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()

    def __call__(self, fn: Callable) -> Callable:
        """Decorate ``fn`` so that each call runs inside its own ``dual_level()``."""

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)

        return wrapper


def _checked_level(level: int | None, what: str) -> int | None:
    if level is None:
        return state.level
    if level != state.level:
        raise RuntimeError(f"Invalid level given to {what}")
    return level


# ----------------------------------------------------------------------------------------
# Dual tensors
# ----------------------------------------------------------------------------------------
def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` that carries ``tangent`` (the direction it moves in).

    >>> import teachgrad as torch
    >>> import teachgrad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     fwAD.make_dual(torch.tensor([1., 2.]), torch.tensor([1., 0.]))
    tensor([1., 2.], tangent=tensor([1., 0.]))
    """
    if level is None and state.level is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    _checked_level(level, "_make_dual")
    for name, value in (("tensor", tensor), ("tangent", tangent)):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"_make_dual(): argument '{name}' must be Tensor, not {_type_name(value)}"
            )
    if tensor._data.dtype.kind not in "fc":
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if tangent._data.dtype.kind not in "fc":
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at "
            f"the same level {state.level} is not supported."
        )
    if tangent_of(tangent) is not None:  # (one level: a tangent has no tangent of its own)
        raise RuntimeError(
            "Setting a forward grad that itself has a forward gradient at the same "
            f"level{state.level} is not supported."  # (sic: PyTorch's words)
        )
    _check_size(tensor, tangent)
    dual = _alias(tensor)
    if not _grad_state.inference:  # (inference_mode switches forward AD off: no tangent)
        _set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of a dual tensor: a view without the tangent, and the tangent.

    The tangent is ``None`` for a tensor that carries none (and outside a dual level).
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(
            "_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
            f"{_type_name(tensor)}"
        )
    if level is None and state.level is None:
        return UnpackedDualTensor(tensor, None)
    tangent = tangent_of(tensor) if state.level is not None else None
    if tangent is None and level is not None and level != state.level:
        return UnpackedDualTensor(tensor, None)  # (PyTorch checks the level of duals only)
    _checked_level(level, "_fw_primal")
    primal = _alias(tensor)
    primal._extras()["tangent"] = (state.generation, None)  # a view of a dual, not dual
    return UnpackedDualTensor(primal, tangent)


def _type_name(value: Any) -> str:
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


def _check_size(tensor: Tensor, tangent: Tensor) -> None:
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{_shape(tensor)} while the given forward gradient is of size {_shape(tangent)}."
        )


def _shape(t: Tensor) -> str:
    return "[" + ", ".join(map(str, t._data.shape)) + "]"


def _alias(tensor: Tensor) -> Tensor:
    """A view of the whole tensor, made without looking at tangents."""
    from ..ops.shape import ViewBackward0

    return _PLAIN_APPLY.__func__(ViewBackward0, tensor, shape=tensor._data.shape)


# ----------------------------------------------------------------------------------------
# Where a tensor's tangent is kept
# ----------------------------------------------------------------------------------------
def _set_tangent(t: Tensor, tangent: Tensor) -> None:
    t._extras()["tangent"] = (state.generation, tangent)


def tangent_of(t: Tensor) -> Tensor | None:
    """The tangent ``t`` carries at the current level, or None.

    A view that got no tangent of its own sees its part of its base's tangent (so
    ``base[1:3]`` of a dual base is dual too), as a view of that tangent.
    """
    found, tangent = own_entry(t)
    if found or t._base is None:
        return tangent
    base_tangent = own_tangent(t._base)
    if base_tangent is None:
        return None
    tangent = _same_view(t, base_tangent)
    _set_tangent(t, tangent)
    return tangent


def _same_view(view: Tensor, base_tangent: Tensor) -> Tensor:
    """The view of ``base_tangent`` that ``view`` is of its base (same offset and strides)."""
    base, tangent = view._base._data, base_tangent._data
    if not (base.flags.c_contiguous and tangent.flags.c_contiguous):
        raise RuntimeError(
            "forward AD: cannot find the tangent of a view whose base or base tangent is "
            "not contiguous.\nHint: make the dual tensor from a contiguous tensor "
            "(x.contiguous()) before taking views of it."
        )
    data = view._data
    start = (data.__array_interface__["data"][0] - base.__array_interface__["data"][0])
    scale = tangent.itemsize / base.itemsize
    strides = tuple(int(s * scale) for s in data.strides)
    flat = tangent.reshape(-1)[start // base.itemsize:]
    array = np.lib.stride_tricks.as_strided(flat, data.shape, strides)
    out = _make(array)
    out._base = base_tangent
    out._vc = base_tangent._vc
    return out


# ----------------------------------------------------------------------------------------
# Op.apply while a level is entered
# ----------------------------------------------------------------------------------------
_PLAIN_APPLY = Op.__dict__["apply"]  # the classmethod itself, put back on exit
_plain_apply = _PLAIN_APPLY.__func__


def _dual_apply(cls, *inputs, **params):
    """``Op.apply`` during forward AD: the plain op, plus the output's tangent."""
    if state.busy:  # forward AD's own computations carry no tangents
        return _plain_apply(cls, *inputs, **params)
    tangents = None
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor):
            tangent = tangent_of(x)
            if tangent is not None:
                if tangents is None:
                    tangents = [None] * len(inputs)
                tangents[i] = tangent
    if tangents is None:
        return _plain_apply(cls, *inputs, **params)
    if cls.is_view:
        out = _view_with_tangent(cls, inputs, params, tangents[0])
    elif cls in _RULES:  # one of the hot ops with a direct forward formula
        out = _op_with_rule(cls, _RULES[cls], inputs, params, tangents)
    else:
        out = _op_with_tangent(cls, inputs, params, tangents)
    if _observers:
        step = ForwardStep(cls, inputs, tuple(tangents), out)
        for callback in list(_observers):
            callback(step)
    return out


_DUAL_APPLY = classmethod(_dual_apply)


# ----------------------------------------------------------------------------------------
# Observers: what teachgrad.notebook's evaluation trace shows
# ----------------------------------------------------------------------------------------
class ForwardStep(NamedTuple):
    """One op that carried tangents, as :func:`observe` reports it.

    ``op`` is the op's class (its ``formula`` holds the local derivatives), ``inputs`` what
    it was called with, ``tangents`` their tangents (None where an input had none) and
    ``output`` its result, whose tangent is ``unpack_dual(output).tangent``.
    """

    op: type
    inputs: tuple
    tangents: tuple
    output: Any


_observers: list = []


@contextlib.contextmanager
def observe(callback: Callable[[ForwardStep], None]):
    """Call ``callback(step)`` for every op that carries tangents inside the block.

    Nothing is reported (and nothing is paid) outside a dual level or for ops whose
    inputs have no tangent.

    >>> import teachgrad as torch
    >>> import teachgrad.autograd.forward_ad as fwAD
    >>> seen = []
    >>> with fwAD.dual_level(), fwAD.observe(lambda step: seen.append(step.op.__name__)):
    ...     y = fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0)).exp() * 3
    >>> seen
    ['ExpBackward0', 'MulBackward0']
    """
    _observers.append(callback)
    try:
        yield
    finally:
        _observers.remove(callback)


def _view_with_tangent(cls, inputs: tuple, params: dict, tangent: Tensor):
    """A view op is linear: the tangent of the view is the same view of the tangent."""
    out = _plain_apply(cls, *inputs, **params)
    views = _plain_apply(cls, tangent, *inputs[1:], **params)
    if type(out) is tuple:
        for o, v in zip(out, views):
            _set_tangent(o, v)
    else:
        _set_tangent(out, views)
    return out


def _op_with_rule(cls, rule: Callable, inputs: tuple, params: dict, tangents: list):
    """Run the op, and compute its tangent with its direct formula (forward_formulas.py).

    The formula runs on the real tensors in the caller's grad mode, so the tangent is
    differentiable by backward as it stands.
    """
    out = _plain_apply(cls, *inputs, **params)
    if out._data.dtype.kind != "f":
        return out
    state.busy = True
    try:
        tangent = rule(cls, inputs, out, tangents, params)
    finally:
        state.busy = False
    _set_tangent(out, tangent)
    _remember_output_tangent(out)
    return out


def _remember_output_tangent(out: Tensor) -> None:
    """A backward pass with create_graph rebuilds the saved output of ``out``'s node from
    its array; the node keeps the tangent so that the rebuilt tensor has it too."""
    node = out._grad_fn
    if node is not None:
        node.__dict__.setdefault("_output_tangents", {})[out._output_nr] = out._extra["tangent"]


def _op_with_tangent(cls, inputs: tuple, params: dict, tangents: list):
    """Run the op and compute its outputs' tangents by the double backward trick.

    Everything is computed on *stand-ins*: fresh leaves holding the inputs' and tangents'
    arrays. So the graphs that the trick records stay small (the engine never walks the
    program's whole history), and :class:`ReconnectBackward` joins the result to the
    real tensors when the tangent has to be differentiable.
    """
    grad_on = _grad_state.enabled
    record = grad_on and any(isinstance(x, Tensor) and x._requires_grad for x in inputs)
    differentiable = grad_on and (
        record or any(t is not None and t._requires_grad for t in tangents)
    )
    pairs = []  # (real tensor, its stand-in) for everything the tangent depends on
    local_inputs = []
    wrt = []  # (stand-in of an input, stand-in of its tangent)
    for x, tangent in zip(inputs, tangents):
        if not isinstance(x, Tensor) or x._data.dtype.kind != "f" or (
            tangent is None and not (differentiable and x._requires_grad)
        ):
            local_inputs.append(x.detach() if isinstance(x, Tensor) else x)
            continue
        stand_in = _stand_in(x, True)
        local_inputs.append(stand_in)
        if differentiable and x._requires_grad:
            pairs.append((x, stand_in))
        if tangent is not None:
            tangent_stand_in = _stand_in(tangent, differentiable and tangent._requires_grad)
            if tangent_stand_in._requires_grad:
                pairs.append((tangent, tangent_stand_in))
            wrt.append((stand_in, tangent_stand_in))

    # An op that draws random numbers (bernoulli) must draw the same ones when it runs
    # again for real below, and leave the generator as one run would.
    generators = [g for g in params.values() if isinstance(g, np.random.Generator)]
    rng_states = [g.bit_generator.state for g in generators]
    state.busy = True
    try:
        with enable_grad():
            local = _plain_apply(cls, *local_inputs, **params)
            jvps, positions = _jvps(cls, local, wrt, differentiable)
    finally:
        state.busy = False

    if record:  # the primal outputs belong to the user's graph: run the op for real
        for g, rng_state in zip(generators, rng_states):
            g.bit_generator.state = rng_state
        out = _plain_apply(cls, *inputs, **params)
    else:
        out = local
        for o in out if type(out) is tuple else (out,):
            if isinstance(o, Tensor):
                o.detach_()
    outputs = out if type(out) is tuple else (out,)
    for position, jvp in zip(positions, jvps):
        o = outputs[position]
        if jvp is None:
            jvp = _make(np.zeros_like(o._data))
        elif differentiable:
            jvp = reconnect(jvp, pairs)
        _set_tangent(o, jvp)
        _remember_output_tangent(o)
    return out


def _stand_in(x: Tensor, requires_grad: bool) -> Tensor:
    """A fresh leaf with ``x``'s array (and version counter, so in-place changes count)."""
    t = _make(x._data, requires_grad)
    t._vc = x._vc
    return t


def _jvps(cls, local, wrt: list, differentiable: bool) -> tuple[list, list]:
    """``J·t`` for each floating output of ``local`` (None where it is zero).

    ``wrt`` pairs the stand-in of each input that has a tangent with the stand-in of the
    tangent. Returns the tangents and the output positions they belong to.
    """
    outputs = local if type(local) is tuple else (local,)
    positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor) and o._requires_grad]
    if not positions:
        return [], []
    us = [_make(np.zeros_like(outputs[i]._data), True) for i in positions]
    try:
        vjps = engine.grad(
            [outputs[i] for i in positions], [x for x, _ in wrt], us,
            create_graph=True, allow_unused=True,
        )
        h = None
        for vjp, (_, tangent) in zip(vjps, wrt):
            if vjp is not None:
                term = (vjp * tangent).sum()
                h = term if h is None else h + term
        if h is None or not h._requires_grad:
            return [None] * len(positions), positions
        jvps = engine.grad([h], us, create_graph=differentiable, allow_unused=True)
    except RuntimeError as error:
        raise _refusal(error) from None
    return list(jvps), positions


def _refusal(error: RuntimeError) -> Exception:
    """PyTorch's words for an op whose JVP the trick cannot get from its backward."""
    message = str(error)
    # An op PyTorch cannot differentiate (//, heaviside) refuses in its backward, with
    # "derivative for aten::floor_divide is not implemented".
    refused = re.match(r"derivative for (\S+) is not implemented", message)
    if refused is not None:
        return NotImplementedError(
            f"Trying to use forward AD with {refused.group(1)} that does not support it."
        )
    # An op whose gradient has no derivative of its own (ctc_loss) refuses in its
    # backward's backward: "the derivative for '_ctc_loss_backward' is not implemented."
    refused = re.match(r"the derivative for '(\S+?)(_backward)?' is not implemented", message)
    if refused is not None:
        return NotImplementedError(
            f"Trying to use forward AD with {refused.group(1)} that does not support it "
            "because it has not been implemented yet.\nHint: its gradient can be computed "
            "once, but forward AD needs the derivative of that gradient too."
        )
    return error


# ----------------------------------------------------------------------------------------
# Joining a locally computed tangent to the real tensors
# ----------------------------------------------------------------------------------------
def reconnect(local: Tensor, pairs: list) -> Tensor:
    """``local``'s value, with a graph that leads to the real tensors of ``pairs``.

    ``local`` was computed from stand-ins (``pairs`` holds ``(real, stand_in)``); its
    gradient with respect to each stand-in is the gradient with respect to that real
    tensor.
    """
    pairs = [(real, s) for real, s in pairs if s._requires_grad]
    if not local._requires_grad or not pairs:
        return local.detach()
    reals = tuple(real for real, _ in pairs)
    return _plain_apply(  # (not the dual apply: the reconnected tangent has no tangent)
        ReconnectBackward, *reals, local=local, stand_ins=tuple(s for _, s in pairs),
        reals=reals,
    )


class ReconnectBackward(Op):
    """A tangent's ``grad_fn``: backward through the small graph its JVP recorded.

    Its backward asks the engine for the local graph's gradients with respect to the
    stand-ins. Under ``create_graph`` those gradients are reconnected the same way (the
    incoming gradient gets a stand-in too), so gradients of any order reach the real
    tensors.
    """

    formula = "∂(tangent)/∂(inputs): backward through the graph of the op's JVP"

    @staticmethod
    def forward(ctx, *arrays, local, stand_ins, reals):
        ctx.local, ctx.stand_ins, ctx.reals = local, stand_ins, reals
        return local._data

    @staticmethod
    def backward(ctx, grad):
        if not isinstance(grad, Tensor):  # a plain backward: arrays in, arrays out
            grads = engine.grad(
                [ctx.local], ctx.stand_ins, [_make(grad)], retain_graph=True, allow_unused=True
            )
            return tuple(None if g is None else g._data for g in grads)
        grad_stand_in = _stand_in(grad, grad._requires_grad)
        grads = engine.grad(
            [ctx.local], ctx.stand_ins, [grad_stand_in],
            retain_graph=True, create_graph=True, allow_unused=True,
        )
        pairs = list(zip(ctx.reals, ctx.stand_ins)) + [(grad, grad_stand_in)]
        return tuple(None if g is None else reconnect(g, pairs) for g in grads)


__all__ = [
    "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
    "UnpackedDualTensor",
]


# ----------------------------------------------------------------------------------------
# In-place ops (ops/inplace.py hands them here while a level is entered)
# ----------------------------------------------------------------------------------------
def apply_inplace(plain: Callable, self: Tensor, op: Callable, *args, **kwargs) -> Tensor:
    """``plain(self, op, *args)`` (the in-place machinery), writing the tangent in place too.

    The out-of-place ``op`` computes the new values and their tangent as any op does; the
    tangent is then copied into ``self``'s tangent, so views of ``self`` (whose tangents
    are views of its tangent) see it. A view with no tangent whose base has none either
    gives the base a zero tangent first, as PyTorch does.
    """
    self_tangent = tangent_of(self)
    if self_tangent is None and not any(
        isinstance(a, Tensor) and tangent_of(a) is not None
        for a in (*args, *kwargs.values())
    ):
        return plain(self, op, *args, **kwargs)
    results = []

    def op_with_tangent(source, *a, **k):
        if source is not self and self_tangent is not None:
            # ``source`` holds self's old values; give it a copy of self's old tangent
            # (self's tangent is overwritten below).
            state.busy = True
            try:
                _set_tangent(source, self_tangent.clone())
            finally:
                state.busy = False
        result = op(source, *a, **k)
        results.append(result)
        return result

    plain(self, op_with_tangent, *args, **kwargs)
    new = tangent_of(results[-1]) if results else None
    _write_tangent(self, new)
    return self


def _write_tangent(self: Tensor, new: Tensor | None) -> None:
    current = tangent_of(self)
    if current is None:
        if self._base is None:
            _set_tangent(self, new if new is not None else _make(np.zeros_like(self._data)))
            return
        _set_tangent(self._base, _make(np.zeros_like(self._base._data)))
        current = tangent_of(self)
    if new is not None and _grad_state.enabled and (new._requires_grad or current._requires_grad):
        if current._grad_fn is None and current._requires_grad and self._base is None:
            _set_tangent(self, new)  # the user's own tangent leaf: replace, don't write in it
            return
        state.busy = True
        try:
            current.copy_(new)  # recorded, so the new tangent stays differentiable
        finally:
            state.busy = False
        return
    np.copyto(current._data, 0 if new is None else new._data, casting="unsafe")
    current._vc[0] += 1


# ----------------------------------------------------------------------------------------
# Custom autograd.Function: its own jvp staticmethod (autograd/function.py calls this)
# ----------------------------------------------------------------------------------------
def function_has_tangents(args: tuple) -> bool:
    """Does any tensor argument of a custom Function carry a tangent?"""
    return any(isinstance(a, Tensor) and tangent_of(a) is not None for a in args)


def function_jvp(cls: type, ctx: Any, args: tuple, outputs: Any) -> None:
    """Give the outputs of ``cls.apply(*args)`` the tangents ``cls.jvp(ctx, *tangents)``.

    As in PyTorch, every tensor argument gets a tangent (zeros where it had none), and
    ``ctx.saved_tensors`` in ``jvp`` are the tensors ``forward`` gave to
    ``ctx.save_for_forward``.
    """
    tangents = []
    for a in args:
        if not isinstance(a, Tensor):
            tangents.append(None)
            continue
        tangent = tangent_of(a)
        tangents.append(tangent if tangent is not None else _make(np.zeros_like(a._data)))
    ctx._in_jvp = True
    state.busy = True  # (jvp computes tangents: they carry no tangents of their own)
    try:
        result = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
        state.busy = False
    results = result if type(result) is tuple else (result,)
    all_outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    if len(results) != len(all_outputs):  # (one per output, tensor or not: PyTorch's count)
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients (expected "
            f"{len(all_outputs)} but got {len(results)})"
        )
    for out, tangent in zip(all_outputs, results):
        if tangent is None or not isinstance(out, Tensor) or out._data.dtype.kind != "f":
            continue
        if not isinstance(tangent, Tensor):
            raise TypeError(f"jvp must return Tensors or None, not {_type_name(tangent)}")
        _check_size(out, tangent)
        _set_tangent(out, tangent)
