"""Whole derivatives of a function at a point: ``jacobian``, ``hessian``, ``vjp``, ``jvp``,
``hvp`` and ``vhp`` (``torch.autograd.functional``).

Everything here is built from one primitive, the vector-Jacobian product that backward
computes (``autograd.grad``):

* ``vjp(f, x, v)``      one backward pass with ``v`` as the output gradient: ``vᵀ·J``
* ``jacobian(f, x)``    one vjp per output element, with one-hot ``v``: row by row
* ``jvp(f, x, v)``      ``J·v`` by the "double backward trick": ``g(u) = uᵀ·J`` is linear
                        in ``u``, so differentiating it w.r.t. ``u`` in direction ``v``
                        gives ``J·v`` (no forward-mode AD needed)
* ``hessian(f, x)``     the jacobian of the gradient (``create_graph`` makes that possible)
* ``vhp`` / ``hvp``     ``vᵀ·H`` and ``H·v`` (equal, since H is symmetric)

Inputs may be one tensor or a tuple of tensors; results mirror that structure, as in
PyTorch. Results are detached unless ``create_graph=True``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._tensor import Tensor, _make
from . import engine
from .grad_mode import enable_grad, set_grad_enabled
from .grad_mode import state as _grad_state

# One tensor or a tuple of them: what these functions take, and give back in the same form.
TensorOrTensors = Tensor | tuple[Tensor, ...]

# ----------------------------------------------------------------------------------------
# Tuples in, tuples out
# ----------------------------------------------------------------------------------------


def _as_tuple(x, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """``(was it a tuple, the tuple)``, checking every element is a tensor."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but {where} has type {type(item)}."
            )
    return is_tuple, items


def _unpack(result, is_tuple):
    """Undo ``_as_tuple``: ``is_tuple`` is a bool, or (outer, inner) for nested results."""
    if isinstance(is_tuple, tuple):
        outer, inner = is_tuple
        if not inner:
            result = tuple(r[0] for r in result)
        return result if outer else result[0]
    return result if is_tuple else result[0]


def _prepare_inputs(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh tensor objects for the function to run on (so their gradients can be asked).

    With ``create_graph`` they stay connected to the caller's graph; otherwise they are
    detached copies-by-reference that require grad when ``need_graph``.
    """
    out = []
    for x in inputs:
        if create_graph and x._requires_grad:
            out.append(x.view_as(x))
        else:
            out.append(x.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(tensors, create_graph: bool):
    """Detach results unless the caller asked for a differentiable result."""
    if isinstance(tensors, tuple):
        return tuple(_finish(t, create_graph) for t in tensors)
    return tensors if create_graph or tensors is None else tensors.detach()


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            prefix = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prefix}v has invalid size: should be {b.shape} but got {a.shape}."
            )


def _check_outputs(outputs: tuple, strict: bool) -> None:
    if not strict:
        return
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."
            )


def _grad(outputs: tuple, inputs: tuple, grad_outputs=None, create_graph=False,
          retain_graph=None) -> tuple:
    """``autograd.grad`` that skips outputs needing no grad (all None if none is left)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o._requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return engine.grad(
        [o for o, _ in pairs], inputs, [g for _, g in pairs],
        retain_graph=retain_graph, create_graph=create_graph, allow_unused=True,
    )


def _zeros_for_missing(grads: tuple, refs: tuple, strict: bool, message: str) -> tuple:
    """Replace ``None`` gradients by zeros (the right value), or raise in strict mode."""
    result = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(message.format(i=i))
            g = _make(np.zeros_like(ref._data))
        result.append(g)
    return tuple(result)


_INDEPENDENT = (
    "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode."
)


def _single_output(fn_name: str, outputs: tuple, is_outputs_tuple: bool) -> None:
    if is_outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )


def _prepare_v(v, name: str, create_graph: bool, like: tuple, like_is_tuple: bool,
               what: str) -> tuple | None:
    """``v`` as a tuple of tensors shaped like ``like`` (what it multiplies: the outputs
    for vjp, the inputs for jvp / vhp / hvp).

    ``v`` may be left out only when ``like`` is one single-element tensor: then ``v = 1``
    is the only sensible choice. ``what`` is the start of that error's sentence about ``like``.
    """
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _prepare_inputs(v, create_graph, need_graph=False)
        _validate_v(v, like, like_is_tuple)
    elif len(like) != 1 or like[0].numel() != 1:
        raise RuntimeError(
            f"The vector v can only be None if {what} a single Tensor with a single element."
        )
    return v


_HESSIAN_INDEPENDENT = (
    "While computing the hessian, found that the jacobian of the user-provided function with "
    "respect to input {i} is independent of the input. This is not allowed in strict mode. "
    "You should ensure that your function is twice differentiable and that the jacobian "
    "depends on the inputs (this would be violated by a linear function for example)."
)


# ----------------------------------------------------------------------------------------
# The public functions
# ----------------------------------------------------------------------------------------
def vjp(func: Callable, inputs: TensorOrTensors, v: TensorOrTensors | None = None,
        create_graph: bool = False,
        strict: bool = False) -> tuple[TensorOrTensors, TensorOrTensors]:
    """``(func(inputs), vᵀ·J)``: the vector-Jacobian product at ``inputs``.

    >>> import teachgrad as torch
    >>> from teachgrad.autograd.functional import vjp
    >>> vjp(lambda x: x ** 2, torch.tensor([1., 2.]), torch.tensor([1., 1.]))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare_inputs(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        _check_outputs(outputs, strict)
        v = _prepare_v(v, "vjp", create_graph, outputs, is_outputs_tuple,
                       "the user-provided function returns")
    with set_grad_enabled(create_graph or _grad_state.enabled):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, _INDEPENDENT)
    return (
        _unpack(_finish(outputs, create_graph), is_outputs_tuple),
        _unpack(_finish(result, create_graph), is_inputs_tuple),
    )


def jvp(func: Callable, inputs: TensorOrTensors, v: TensorOrTensors | None = None,
        create_graph: bool = False,
        strict: bool = False) -> tuple[TensorOrTensors, TensorOrTensors]:
    """``(func(inputs), J·v)``: the Jacobian-vector product, by the double backward trick.

    >>> import teachgrad as torch
    >>> from teachgrad.autograd.functional import jvp
    >>> jvp(lambda x: x ** 2, torch.tensor([1., 2.]), torch.tensor([1., 0.]))
    (tensor([1., 4.]), tensor([2., 0.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare_inputs(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, "jvp", create_graph, inputs, is_inputs_tuple,
                       "the input to the user-provided function is")
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        _check_outputs(outputs, strict)
        # u ↦ uᵀ·J is linear in u, so its value at u does not matter (zeros will do);
        # what matters is that the graph of this backward pass records how it depends on u.
        dummies = tuple(_make(np.zeros_like(o._data), True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        if strict:
            for i, g in enumerate(grad_inputs):
                if g is None:
                    raise RuntimeError(_INDEPENDENT.format(i=i))
    with set_grad_enabled(create_graph or _grad_state.enabled):
        grads = _grad(grad_inputs, dummies, v, create_graph=create_graph)
        result = _zeros_for_missing(
            grads, outputs, strict,
            "The gradient with respect to the input is independent of entry {i} in the "
            "grad_outputs when using the double backward trick to compute forward mode "
            "gradients. This is not allowed in strict mode.",
        )
    return (
        _unpack(_finish(outputs, create_graph), is_outputs_tuple),
        _unpack(_finish(result, create_graph), is_outputs_tuple),
    )


def jacobian(func: Callable, inputs: TensorOrTensors, create_graph: bool = False,
             strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Tensor | tuple:
    """The Jacobian of ``func`` at ``inputs``: d(output)/d(input), shape ``out + in``.

    Tuples of inputs/outputs give tuples (of tuples) of Jacobians, as in PyTorch (lists of
    lists with ``strategy="forward-mode"``, as there). ``vectorize`` changes nothing else
    here: rows are computed one backward pass each, whatever the strategy.

    >>> import teachgrad as torch
    >>> from teachgrad.autograd.functional import jacobian
    >>> jacobian(lambda x: x ** 2, torch.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    forward_mode = strategy == "forward-mode"
    if forward_mode:
        _check_forward_mode(create_graph, strict)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        if forward_mode and not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                "only implemented for `vectorize=True`."  # (PyTorch's words, space missing)
            )
        inputs = _prepare_inputs(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _check_outputs(outputs, strict)
        if forward_mode:  # columns by forward AD; PyTorch's lists (per output, per input)
            result = _forward_mode_jacobian(func, inputs, outputs)
            return _unpack(result, (is_outputs_tuple, is_inputs_tuple))

        jacobians = []
        for i, out in enumerate(outputs):
            rows: list[list] = [[] for _ in inputs]
            for k in range(out.numel()):
                # Row k of the Jacobian is the vjp with the k-th one-hot vector.
                onehot = np.zeros(out._data.size, dtype=out._data.dtype)
                onehot[k] = 1
                v = _make(onehot.reshape(out._data.shape))
                row = _grad((out,), inputs, (v,), retain_graph=True, create_graph=create_graph)
                for j, (g, x) in enumerate(zip(row, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent "
                                f"of input {j}. This is not allowed in strict mode."
                            )
                        g = _make(np.zeros_like(x._data))
                    elif strict and create_graph and not g._requires_grad:
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of "
                            f"input {i}. This is not allowed in strict mode when "
                            "create_graph=True."
                        )
                    rows[j].append(g)
            jacobians.append(tuple(
                _stack_rows(rows[j], out.shape, x) for j, x in enumerate(inputs)
            ))
    result = _finish(tuple(jacobians), create_graph)
    return _unpack(result, (is_outputs_tuple, is_inputs_tuple))


def _forward_mode_jacobian(func: Callable, inputs: tuple, outputs: tuple) -> list:
    """The Jacobian column by column: column k of block (i, j) is output i's tangent when
    element k of input j has tangent 1 and every other input element tangent 0 (every
    input is dual, as in PyTorch: its zero tangents decide the signs of zeros)."""
    from . import forward_ad  # (forward AD is built on the ops; loaded when first needed)

    blocks = [[None] * len(inputs) for _ in outputs]
    for j, x in enumerate(inputs):
        columns: list[list] = [[] for _ in outputs]
        for k in range(x._data.size):
            tangents = [np.zeros_like(t._data) for t in inputs]
            tangents[j].reshape(-1)[k] = 1
            with forward_ad.dual_level():
                duals = [forward_ad.make_dual(t, _make(d)) for t, d in zip(inputs, tangents)]
                outs = _as_tuple(func(*duals), "outputs", "jacobian")[1]
                for i, o in enumerate(outs):
                    tangent = forward_ad.unpack_dual(o).tangent
                    columns[i].append(np.zeros_like(o._data) if tangent is None
                                      else tangent._data.copy())
        for i, out in enumerate(outputs):
            stacked = np.stack(columns[i], axis=-1) if columns[i] else np.zeros(
                (*out._data.shape, 0), out._data.dtype)
            blocks[i][j] = _make(stacked.reshape(tuple(out.shape) + tuple(x.shape)))
    return blocks


def _check_forward_mode(create_graph: bool, strict: bool) -> None:
    """What PyTorch's forward-mode ``jacobian`` does not support (yet)."""
    if create_graph:
        raise NotImplementedError(
            "torch.autograd.functional.jacobian: `create_graph=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`create_graph=False` or `strategy="reverse-mode"`.'
        )
    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`strict=False` or `strategy="reverse-mode"`.'
        )


def _stack_rows(rows: list, out_shape: tuple, x: Tensor) -> Tensor:
    """One Jacobian block (shape ``out_shape + x.shape``) from its rows."""
    shape = tuple(out_shape) + tuple(x.shape)
    if not any(r._requires_grad for r in rows):
        data = np.stack([r._data for r in rows]) if rows else np.zeros(shape, x._data.dtype)
        return _make(data.reshape(shape))
    # Differentiable (create_graph): J = sum_k e_k ⊗ row_k puts row k in place k using
    # only multiplication and addition, so the graph reaches every row.
    n = len(rows)
    block = None
    for k, r in enumerate(rows):
        column = np.zeros((n, 1), dtype=r._data.dtype)
        column[k] = 1
        placed = r.reshape(1, -1) * _make(column)
        block = placed if block is None else block + placed
    return block.reshape(shape)


def hessian(func: Callable, inputs: TensorOrTensors, create_graph: bool = False,
            strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Tensor | tuple:
    """The Hessian of a scalar function: the Jacobian of its gradient.

    >>> import teachgrad as torch
    >>> from teachgrad.autograd.functional import hessian
    >>> hessian(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_function(*xs):
        out = func(*xs)
        is_out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_outputs(outs, strict)
        _single_output("hessian", outs, is_out_tuple)
        return out.reshape(())

    def gradient(*xs):
        if outer_jacobian_strategy == "forward-mode":
            # (so the inner jacobian keeps the dual inputs, not detached copies: PyTorch's)
            xs = tuple(t.requires_grad_(True) for t in xs)
        jac = jacobian(scalar_function, xs, create_graph=True)
        if strict:
            for i, g in enumerate(jac if isinstance(jac, tuple) else (jac,)):
                if not g._requires_grad:
                    raise RuntimeError(_HESSIAN_INDEPENDENT.format(i=i))
        return jac

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(result, (is_inputs_tuple, is_inputs_tuple))


def vhp(func: Callable, inputs: TensorOrTensors, v: TensorOrTensors | None = None,
        create_graph: bool = False,
        strict: bool = False) -> tuple[Tensor, TensorOrTensors]:
    """``(func(inputs), vᵀ·H)``: vector times the Hessian of a scalar function."""
    return _hessian_product("vhp", func, inputs, v, create_graph, strict)


def hvp(func: Callable, inputs: TensorOrTensors, v: TensorOrTensors | None = None,
        create_graph: bool = False,
        strict: bool = False) -> tuple[Tensor, TensorOrTensors]:
    """``(func(inputs), H·v)``: the Hessian of a scalar function times a vector.

    >>> import teachgrad as torch
    >>> from teachgrad.autograd.functional import hvp
    >>> hvp(lambda x: (x ** 3).sum(), torch.tensor([1., 2.]), torch.tensor([1., 1.]))
    (tensor(9.), tensor([ 6., 12.]))
    """
    return _hessian_product("hvp", func, inputs, v, create_graph, strict)


def _hessian_product(name: str, func, inputs, v, create_graph: bool, strict: bool):
    # H is symmetric for a twice continuously differentiable function, so vᵀ·H = (H·v)ᵀ
    # and both come out of one backward pass through the gradient: d(gradᵀ·v)/dx.
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _prepare_inputs(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, name, create_graph, inputs, is_inputs_tuple,
                       "the input to the user-provided function is")
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", name
        )
        _check_outputs(outputs, strict)
        _single_output(name, outputs, is_outputs_tuple)
        jac = _grad(outputs, inputs, create_graph=True)
        if strict:
            for i, g in enumerate(jac):
                if g is None or not g._requires_grad:
                    raise RuntimeError(_HESSIAN_INDEPENDENT.format(i=i))
    with set_grad_enabled(create_graph or _grad_state.enabled):
        grads = _grad(jac, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(
            grads, inputs, strict,
            "The jacobian of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
        )
    return (
        _unpack(_finish(outputs, create_graph), is_outputs_tuple),
        _unpack(_finish(result, create_graph), is_inputs_tuple),
    )


__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]
