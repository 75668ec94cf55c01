"""The derivative transforms of ``torch.func``: functions in, functions out.

``grad(f)`` is a new function that returns the gradient of ``f``; ``jacrev(f)``,
``jacfwd(f)`` and ``hessian(f)`` return its Jacobians; ``vjp`` and ``jvp`` evaluate ``f``
and one vector-Jacobian or Jacobian-vector product. They compose: ``grad(grad(f))`` is
the second derivative, ``jacfwd(jacrev(f))`` the Hessian.

How they are built on teachgrad's autograd:

* the reverse-mode transforms (``grad``, ``vjp``, ``jacrev``) run ``f`` on tracked copies
  of the inputs and call :func:`teachgrad.autograd.grad`, with ``create_graph=True`` when
  an enclosing transform still has to differentiate the result;
* ``jvp`` and ``jacfwd`` use forward-mode AD (:mod:`teachgrad.autograd.forward_ad`):
  the inputs become dual tensors carrying the tangents. Inside another forward-mode
  transform (forward AD has one level), ``jvp`` instead computes ``J·v`` exactly by the
  double backward trick, so nesting works too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _random
from .._tensor import Tensor, _make
from ..autograd import engine, forward_ad
from ..autograd.dual_state import state as _dual
from ..autograd.function import run_transformed
from ..autograd.grad_mode import enable_grad
from ..autograd.grad_mode import state as _grad_state
from ..autograd.saved_hooks import disable_saved_tensors_hooks
from ..ops.shape import AliasBackward0
from ._pytree import tree_flatten, tree_map, tree_unflatten
from ._vmap import RANDOM_IN_ERROR_MODE, _changed


# ----------------------------------------------------------------------------------------
# Helpers shared by the transforms
# ----------------------------------------------------------------------------------------
def _positions(argnums, args: tuple) -> tuple[int, ...]:
    """``argnums`` as a tuple of non-negative positions, with PyTorch's checks."""
    items = argnums if isinstance(argnums, tuple) else (argnums,)
    if isinstance(argnums, tuple) and not argnums:
        raise RuntimeError("argnums must be non-empty")
    for a in items:
        if not isinstance(a, int) or isinstance(a, bool):
            if isinstance(argnums, tuple):
                raise RuntimeError(f"argnum must be int, got: {type(a)}")
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -len(args) <= a < len(args):
            raise RuntimeError(f"Got argnum={a}, but only {len(args)} positional inputs")
    positions = tuple(a % len(args) for a in items)
    if len(set(positions)) != len(positions):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return positions


def _outer_needs(x: Tensor) -> bool:
    """Will something outside this transform differentiate through ``x``?"""
    return (x._requires_grad and _grad_state.enabled) or (
        _dual.level is not None and forward_ad.tangent_of(x) is not None
    )


def _track(x: Any) -> Tensor:
    """The tensor the function runs on in place of ``x``, so its gradient can be asked.

    Connected to ``x`` (and carrying its tangent) when an enclosing transform or the
    caller's own graph still needs to differentiate through it; a fresh leaf otherwise.
    """
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if x._requires_grad and _grad_state.enabled:
        return x.view_as(x)  # (a view op also carries x's tangent along, if any)
    tangent = forward_ad.tangent_of(x) if _dual.level is not None else None
    leaf = x.detach().requires_grad_()
    return leaf if tangent is None else forward_ad.make_dual(leaf, tangent)


def _split_aux(output: Any, has_aux: bool, api: str) -> tuple[Any, Any]:
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(
            f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    for a in tree_flatten(output[1])[0]:
        if not isinstance(a, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(a)}")
    return output


def _ensure_tensors(leaves: list, api: str, what: str) -> None:
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(
                f"{api}: expected {what} to return only tensors, got unsupported type {type(x)}"
            )


def _ensure_floating(leaves: list) -> None:
    """The reverse-mode transforms need outputs that can have a gradient (PyTorch's check)."""
    for x in leaves:
        if x._data.dtype.kind not in "fc":
            raise RuntimeError(
                "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                f"Tensor with dtype {x.dtype}"
            )


def _plain(x: Any, keep: bool) -> Any:
    """Cut a result off this transform's private graph unless an outer one needs it."""
    return x.detach() if isinstance(x, Tensor) and not keep else x


def _alias_if_tracked(x: Any) -> Any:
    if isinstance(x, Tensor) and x._requires_grad:
        return AliasBackward0.apply(x)
    return x


def _grads(outputs: list, inputs: list, grad_outputs: list, create_graph: bool) -> list:
    """``autograd.grad`` that skips outputs needing no grad; zeros where there is none."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o._requires_grad]
    grads = [None] * len(inputs)
    if pairs:
        grads = engine.grad(
            [o for o, _ in pairs], inputs, [g for _, g in pairs],
            retain_graph=True, create_graph=create_graph, allow_unused=True,
        )
    return [_make(np.zeros_like(x._data)) if g is None else g for g, x in zip(grads, inputs)]


class _Tracked:
    """The arguments at ``argnums``, flattened and tracked, and how to put them back."""

    def __init__(self, args: tuple, argnums) -> None:
        self.positions = _positions(argnums, args)
        self.single = not isinstance(argnums, tuple)
        self.args = list(args)
        self.specs = []
        self.originals: list = []
        self.leaves: list = []
        for p in self.positions:
            leaves, spec = tree_flatten(args[p])
            tracked = [_track(x) for x in leaves]
            self.specs.append(spec)
            self.originals += leaves
            self.leaves += tracked
            self.args[p] = tree_unflatten(tracked, spec)
        self.nested = any(_outer_needs(x) for x in self.originals)

    def structure(self, flat: list) -> Any:
        """One value per tracked leaf, arranged like the arguments at ``argnums``."""
        out, start = [], 0
        for spec in self.specs:
            out.append(tree_unflatten(flat[start:start + spec.num_leaves], spec))
            start += spec.num_leaves
        return out[0] if self.single else tuple(out)


# ----------------------------------------------------------------------------------------
# Reverse mode: grad, grad_and_value, vjp, jacrev
# ----------------------------------------------------------------------------------------
_NO_SAVED_HOOKS = ("torch.func.{grad, vjp, jacrev, hessian} don't yet support saved tensor "
                   "hooks. Please open an issue with your use case.")


def _run_reverse(func: Callable, *args: Any, **kwargs: Any) -> Any:
    """Run ``func`` for grad, vjp or jacrev: as PyTorch's, these refuse saved-tensor hooks
    inside (``saved_tensors_hooks``, non-reentrant checkpointing)."""
    with disable_saved_tensors_hooks(_NO_SAVED_HOOKS):
        return run_transformed(func, *args, **kwargs)


def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0,
                   has_aux: bool = False) -> Callable:
    """Like :func:`grad`, but the new function returns ``(gradient, value of func)``.

    With ``has_aux=True``, ``func`` returns ``(value, aux)`` and the new function returns
    ``(gradient, (value, aux))``.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any):
        api = "grad_and_value(f)(*args)"
        with enable_grad():
            tracked = _Tracked(args, argnums)
            output, aux = _split_aux(_run_reverse(func, *tracked.args, **kwargs), has_aux, api)
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    f"{api}: Expected f(*args) to return a Tensor, got {type(output)}"
                )
            if output._data.ndim != 0:
                raise RuntimeError(
                    f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{output._data.ndim} dims. Maybe you wanted to use the vjp or jacrev "
                    "APIs instead?"
                )
            keep = tracked.nested
            grads = _grads([output], tracked.leaves, [None], create_graph=keep)
        grads = [_plain(g, keep) for g in grads]
        value = _plain(output, keep)
        if has_aux:
            value = (value, tree_map(lambda a: _plain(a, keep), aux))
        return tracked.structure(grads), value

    return wrapper


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """The gradient of a scalar function, as a function (``torch.func.grad``).

    ``argnums`` picks the argument(s) to differentiate; ``has_aux=True`` lets ``func``
    return ``(value, aux)``, and the gradient function then returns ``(gradient, aux)``.

    >>> import teachgrad as torch
    >>> from teachgrad.func import grad
    >>> grad(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
    tensor([ 3., 12.])
    >>> grad(grad(lambda x: x ** 3))(torch.tensor(2.))     # the second derivative, 6x
    tensor(12.)
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any):
        gradient, value = grad_and_value(func, argnums, has_aux)(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` gives ``cotangentsᵀ·J``.

    ``vjp_fn`` returns one gradient per primal (a tuple), and may be called many times.

    >>> import teachgrad as torch
    >>> from teachgrad.func import vjp
    >>> out, vjp_fn = vjp(torch.sin, torch.tensor(0.))
    >>> vjp_fn(torch.tensor(2.))
    (tensor(2.),)
    """
    api = "vjp(f, *primals)"
    with enable_grad():
        leaves, spec = tree_flatten(primals)
        tracked = [_track(x) for x in leaves]
        nested = any(_outer_needs(x) for x in leaves)
        output, aux = _split_aux(_run_reverse(func, *tree_unflatten(tracked, spec)), has_aux, api)
        out_leaves, out_spec = tree_flatten(output)
        _ensure_tensors(out_leaves, api, "f(*primals)")
        _ensure_floating(out_leaves)

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None):
        ct_leaves, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {ct_spec}, primal output: {out_spec}"
            )
        for i, (c, o) in enumerate(zip(ct_leaves, out_leaves)):
            if not isinstance(c, Tensor) or c.shape != o.shape:
                got = c.shape if isinstance(c, Tensor) else type(c)
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {got} and "
                    f"output[{i}] has a shape of {o.shape}."
                )
        keep = nested or any(_outer_needs(c) for c in ct_leaves) if create_graph is None \
            else create_graph
        with enable_grad():
            grads = _grads(out_leaves, tracked, ct_leaves, create_graph=keep)
        return tree_unflatten([_plain(g, keep) for g in grads], spec)

    output = tree_map(lambda o: _plain(o, nested), output)
    if has_aux:
        return output, vjp_fn, tree_map(lambda a: _plain(a, nested), aux)
    return output, vjp_fn


def jacrev(func: Callable, argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None) -> Callable:
    """The Jacobian of ``func``, one backward pass per output element (``torch.func.jacrev``).

    For an output of shape ``O`` and an input of shape ``I`` the Jacobian has shape
    ``O + I``. ``chunk_size`` is accepted and ignored: rows are computed one at a time.

    >>> import teachgrad as torch
    >>> from teachgrad.func import jacrev
    >>> jacrev(lambda x: x ** 2)(torch.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any):
        api = "vjp(f, *primals)"  # (PyTorch's jacrev is built on vjp and speaks as it)
        with enable_grad():
            tracked = _Tracked(args, argnums)
            output, aux = _split_aux(_run_reverse(func, *tracked.args, **kwargs), has_aux, api)
            out_leaves, out_spec = tree_flatten(output)
            _ensure_tensors(out_leaves, api, "f(*primals)")
            _ensure_floating(out_leaves)
            keep = tracked.nested
            blocks = [_jacobian_rows(o, tracked.leaves, keep) for o in out_leaves]
        result = tree_unflatten([tracked.structure(b) for b in blocks], out_spec)
        if has_aux:
            return result, tree_map(lambda a: _plain(a, keep), aux)
        return result

    return wrapper


def _jacobian_rows(out: Tensor, inputs: list, keep: bool) -> list:
    """d(out)/d(input) for each input, shape ``out.shape + input.shape``: one vjp per row."""
    rows: list[list] = [[] for _ in inputs]
    for k in range(out._data.size):
        onehot = np.zeros(out._data.size, dtype=out._data.dtype)
        onehot[k] = 1
        grads = _grads([out], inputs, [_make(onehot.reshape(out._data.shape))], keep)
        for j, g in enumerate(grads):
            rows[j].append(g)
    return [_stack(r, 0, out.shape + x.shape, x, keep)
            for r, x in zip(rows, inputs)]


def _stack(parts: list, dim: int, shape: tuple, like: Tensor, keep: bool) -> Tensor:
    """Stack ``parts`` along ``dim`` and reshape to ``shape`` (zeros when there are none)."""
    from .. import ops

    if not parts:
        return _make(np.zeros(shape, dtype=like._data.dtype))
    block = ops.stack(parts, dim).reshape(shape)
    return block if keep else block.detach()


# ----------------------------------------------------------------------------------------
# Forward mode: jvp, jacfwd; and hessian
# ----------------------------------------------------------------------------------------
def jvp(func: Callable, primals: tuple, tangents: tuple, *, strict: bool = False,
        has_aux: bool = False) -> tuple:
    """``(func(*primals), J·tangents)``: the Jacobian-vector product, by forward-mode AD.

    >>> import teachgrad as torch
    >>> from teachgrad.func import jvp
    >>> jvp(torch.sin, (torch.tensor(0.),), (torch.tensor(3.),))
    (tensor(0.), tensor(3.))
    """
    api = "jvp(f, primals, tangents)"
    if strict:
        raise RuntimeError(f"{api}: strict=True is not supported.")
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if not isinstance(tangents, tuple) or p_spec != t_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {p_spec!r} and tangents with structure {t_spec!r}"
        )
    for p, t in zip(p_leaves, t_leaves):
        for x in (p, t):
            if not isinstance(x, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if p.shape != t.shape:
            forward_ad._check_size(p, t)
    if _dual.level is None:
        return _jvp_forward_mode(func, p_leaves, t_leaves, p_spec, has_aux, api)
    return _jvp_double_backward(func, p_leaves, t_leaves, p_spec, has_aux, api)


def _jvp_forward_mode(func, p_leaves, t_leaves, p_spec, has_aux, api):
    keep = any(_outer_needs(x) for x in (*p_leaves, *t_leaves))
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(p, t) for p, t in zip(p_leaves, t_leaves)]
        output, aux = _split_aux(run_transformed(func, *tree_unflatten(duals, p_spec)),
                                 has_aux, api)
        out_leaves, out_spec = tree_flatten(output)
        _ensure_tensors(out_leaves, api, "f(*primals)")
        tangents = []
        for o in out_leaves:
            tangent = forward_ad.tangent_of(o)
            tangents.append(_make(np.zeros_like(o._data)) if tangent is None else tangent)
    # (Leaving the level drops the tangents from the outputs: they are plain tensors again.)
    # A function that differentiates inside (jvp(grad(f)) ...) leaves a graph on its
    # results; cut it off unless the caller's own graph goes through the inputs.
    # PyTorch hands back a primal output that is in the caller's graph as an alias of the
    # one computed inside (grad_fn=<AliasBackward0>), as this does.
    out_leaves = [_alias_if_tracked(_plain(o, keep)) for o in out_leaves]
    tangents = [_plain(t, keep) for t in tangents]
    result = (tree_unflatten(out_leaves, out_spec), tree_unflatten(tangents, out_spec))
    return (*result, aux) if has_aux else result


def _jvp_double_backward(func, p_leaves, t_leaves, p_spec, has_aux, api):
    """``J·v`` inside an enclosing forward-AD level, where forward AD cannot nest.

    ``u ↦ uᵀ·J`` is linear in ``u``; differentiating ``(uᵀ·J)·v`` with respect to ``u``
    gives ``J·v``, the same at every ``u``. Everything is recorded (create_graph), so the
    enclosing transform's tangents flow through it.
    """
    with enable_grad():
        tracked = [_track(p) for p in p_leaves]
        output, aux = _split_aux(run_transformed(func, *tree_unflatten(tracked, p_spec)),
                                 has_aux, api)
        out_leaves, out_spec = tree_flatten(output)
        _ensure_tensors(out_leaves, api, "f(*primals)")
        # u = 1, not 0: a backward that works in log space (logcumsumexp's log|u|) has no
        # derivative at u = 0, and the enclosing level differentiates this one again.
        us = [_make(np.ones_like(o._data), True) for o in out_leaves]
        vjps = _grads(out_leaves, tracked, us, create_graph=True)
        h = None
        for g, t in zip(vjps, t_leaves):
            if g._requires_grad:
                term = (g * t).sum()
                h = term if h is None else h + term
        if h is None:
            tangents = [_make(np.zeros_like(o._data)) for o in out_leaves]
        else:
            tangents = _grads([h], us, [None], create_graph=True)
    result = (output, tree_unflatten(tangents, out_spec))
    return (*result, aux) if has_aux else result


def jacfwd(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable:
    """The Jacobian of ``func``, one forward-mode pass per input element (``torch.func.jacfwd``).

    Cheaper than :func:`jacrev` when there are fewer inputs than outputs.

    >>> import teachgrad as torch
    >>> from teachgrad.func import jacfwd
    >>> jacfwd(lambda x: x ** 2)(torch.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any):
        positions = _positions(argnums, args)
        flat, specs = [], []
        for p in positions:
            leaves, spec = tree_flatten(args[p])
            for x in leaves:
                if not isinstance(x, Tensor):
                    raise ValueError(
                        f"Thing passed to transform API must be Tensor, got {type(x)}"
                    )
            flat += leaves
            specs.append(spec)

        def on_flat(*xs):
            call_args, start = list(args), 0
            for p, spec in zip(positions, specs):
                call_args[p] = tree_unflatten(list(xs[start:start + spec.num_leaves]), spec)
                start += spec.num_leaves
            return run_transformed(func, *call_args, **kwargs)

        columns: list[list] = [[] for _ in flat]  # per input: one output tangent per element
        output = aux = None
        # One pass per column; PyTorch runs them as one vmapped pass, so its randomness
        # rule holds: 'error' refuses random ops, 'same' draws the same numbers each pass.
        rng_state = _random.default_generator.get_state() if randomness != "different" else None
        for j, x in enumerate(flat):
            for k in range(x._data.size):
                if randomness == "same":
                    _random.default_generator.set_state(rng_state)
                tangents = [_make(np.zeros_like(y._data)) for y in flat]
                onehot = np.zeros(x._data.size, dtype=x._data.dtype)
                onehot[k] = 1
                tangents[j] = _make(onehot.reshape(x._data.shape))
                result = jvp(on_flat, tuple(flat), tuple(tangents), has_aux=has_aux)
                if output is None:
                    if randomness == "error" and _changed(rng_state):
                        raise RuntimeError(RANDOM_IN_ERROR_MODE)
                    output = result[0]
                    aux = result[2] if has_aux else None
                columns[j].append(tree_flatten(result[1])[0])
        if output is None:  # no input elements at all: evaluate once for the shapes
            output = on_flat(*flat)
            output, aux = _split_aux(output, has_aux, "jacfwd(f, ...)(*args)")
        out_leaves, out_spec = tree_flatten(output)
        keep = any(_outer_needs(x) for x in flat) or _dual.level is not None
        blocks = []
        for i, o in enumerate(out_leaves):
            per_input = []
            for j, x in enumerate(flat):
                cols = [c[i] for c in columns[j]]
                per_input.append(_stack(cols, -1, o.shape + x.shape, x, keep) if cols
                                 else _make(np.zeros(o.shape + x.shape, dtype=o._data.dtype)))
            out, start = [], 0
            for spec in specs:
                out.append(tree_unflatten(per_input[start:start + spec.num_leaves], spec))
                start += spec.num_leaves
            blocks.append(out[0] if not isinstance(argnums, tuple) else tuple(out))
        result = tree_unflatten(blocks, out_spec)
        return (result, aux) if has_aux else result

    return wrapper


def hessian(func: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    """The Hessian of a scalar function: ``jacfwd(jacrev(func))`` (forward over reverse).

    >>> import teachgrad as torch
    >>> from teachgrad.func import hessian
    >>> hessian(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
