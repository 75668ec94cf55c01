"""Check analytical gradients against finite differences: ``gradcheck``, ``gradgradcheck``.

The idea in one line: nudge each input element by ±eps, see how each output element moves
(a central difference), and compare that numerical Jacobian with the one ``backward``
computes, one vector-Jacobian product at a time. Inputs should be float64: in float32 the
rounding error of the difference quotient is as large as the tolerance.

The checks, their order, their arithmetic (each Jacobian in the dtype PyTorch keeps it in)
and their messages follow PyTorch's ``torch/autograd/gradcheck.py``, so a check that
passes or fails there passes or fails here, with the same words:

1. the inputs: at least one requires grad, none has a stride-0 dimension;
2. the Jacobians, numerical against analytical (``fast_mode`` compares the single
   number ``vᵀ J u`` for random unit vectors ``u`` and ``v`` instead of whole Jacobians);
   backward runs twice and must give the same result ("reentrant");
3. backward with all-zero output gradients must give zero input gradients ("multiplied
   by grad_output"), of the input's dtype and size;
4. backward must cope with an output whose gradient is undefined (``None``);
5. optionally, forward-mode AD's Jacobian, and gradients batched with ``vmap``.

``gradgradcheck`` runs ``gradcheck`` on the function "inputs and output gradients ↦ input
gradients", which checks second derivatives. Its random output gradients come from the
global generator, as PyTorch's do, so a seeded program draws the same numbers afterwards.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np

from .._tensor import Tensor, _make
from . import engine
from .function import Function


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""


def gradcheck(
    func: Callable,
    inputs: Sequence[Tensor] | Tensor,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """True if ``func``'s gradients match finite differences at ``inputs``.

    ``check_backward_ad`` checks the Jacobian that backward computes (one
    vector-Jacobian product per output element), ``check_forward_ad`` the one that
    forward-mode AD computes (one Jacobian-vector product per input element, with dual
    tensors): a custom Function's ``jvp`` is checked this way. With
    ``raise_exception=False`` a failed check returns False instead of raising
    :class:`GradcheckError`.

    >>> import teachgrad as torch
    >>> x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(lambda t: (t ** 3).sum(), (x,))
    True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )
    settings = _Settings(eps, atol, rtol, nondet_tol, check_grad_dtypes, fast_mode)
    try:
        return _run_checks(
            func, inputs, settings, check_undefined_grad=check_undefined_grad,
            check_batched_grad=check_batched_grad,
            check_batched_forward_grad=check_batched_forward_grad,
            check_forward_ad=check_forward_ad, check_backward_ad=check_backward_ad,
        )
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(
    func: Callable,
    inputs: Sequence[Tensor] | Tensor,
    grad_outputs: Sequence[Tensor | None] | Tensor | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """``gradcheck`` of the gradient itself: checks second derivatives (``create_graph``).

    Without ``grad_outputs``, random ones are drawn uniformly from [-1, 1) with the global
    generator (as PyTorch's ``torch.testing.make_tensor`` does), and checked as inputs too.

    >>> import teachgrad as torch
    >>> x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradgradcheck(lambda t: t.sin() * t, (x,))
    True
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        from ..testing import make_tensor

        grad_outputs = tuple(
            make_tensor(o.shape, dtype=o.dtype if o.is_floating_point() else _float64(),
                        device=o.device, low=-1, high=1, requires_grad=True,
                        noncontiguous=gen_non_contig_grad_outputs)
            for o in _differentiable_outputs(func(*inputs))
        )
    grad_outputs = _as_tuple(grad_outputs)
    count = len(grad_outputs)
    differentiable = [isinstance(x, Tensor) and x.requires_grad for x in inputs]

    def input_gradients(*args):
        xs, vs = args[:-count] if count else args, args[-count:] if count else ()
        outputs = _differentiable_outputs(func(*xs))
        grads = engine.grad(outputs, [x for x, d in zip(xs, differentiable) if d], vs,
                            create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        input_gradients, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
        raise_exception=raise_exception, nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad, fast_mode=fast_mode,
        check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev,
        masked=masked,
    )


class _Settings:
    """The numbers every check reads (one object instead of six arguments each)."""

    def __init__(self, eps, atol, rtol, nondet_tol, check_grad_dtypes, fast_mode):
        self.eps, self.atol, self.rtol, self.nondet_tol = eps, atol, rtol, nondet_tol
        self.check_grad_dtypes, self.fast_mode = check_grad_dtypes, fast_mode


def _run_checks(func, inputs, settings, *, check_undefined_grad, check_batched_grad,
                check_batched_forward_grad, check_forward_ad, check_backward_ad) -> bool:
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    func_out = _as_tuple(func(*inputs))
    outputs = _differentiable_outputs(func_out)
    compare = _compare_fast if settings.fast_mode else _compare_slow
    if check_backward_ad:
        compare(func, func_out, inputs, outputs, settings, forward_ad=False)
    if check_forward_ad:
        compare(func, func_out, inputs, outputs, settings, forward_ad=True)
        if check_undefined_grad:
            _test_undefined_forward_mode(func, inputs)
    if check_batched_forward_grad:
        _test_batched_forward_grad(func, inputs)
    if not check_backward_ad:
        return True
    if check_batched_grad:
        for index, output in enumerate(outputs):
            _test_batched_grad(inputs, output, index)
    _test_backward_mul_by_grad_output(outputs, inputs)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, inputs)
    return True


# --- inputs and outputs ----------------------------------------------------------------

def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else (tuple(x) if isinstance(x, list) else (x,))


def _differentiable_outputs(x) -> tuple:
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _float_outputs(outputs) -> list:
    return [o for o in outputs if isinstance(o, Tensor) and o.is_floating_point()]


def _differentiable_inputs(inputs) -> list[tuple[int, Tensor]]:
    """(position in ``inputs``, tensor) of each input that requires grad."""
    return [(i, x) for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]


def _float64():
    from .._dtypes import float64

    return float64


def _check_inputs(inputs: tuple) -> None:
    requiring_grad = _differentiable_inputs(inputs)
    for index, x in requiring_grad:
        if x._data.dtype != np.float64:
            warnings.warn(
                f"Input #{index} requires gradient and is not a double precision floating "
                "point or complex. This check will likely fail if all the inputs are not of "
                "double precision floating point or complex. ",
                UserWarning, stacklevel=4,
            )
        if not all(stride > 0 or size <= 1 for stride, size in zip(x.stride(), x.shape)):
            raise RuntimeError(
                f"The {index}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical "
                "gradients correctly. You should call .contiguous on the input before "
                "passing it to gradcheck."
            )
    if not requiring_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True."
        )


# --- numerical derivatives ------------------------------------------------------------

def _central_difference(func, inputs, data: np.ndarray, index, delta, eps: float) -> list:
    """(f(x + δ) − f(x − δ)) / 2·eps for each float output, flattened, where ``δ`` is
    written into ``data[index]`` (the input's own memory, as PyTorch writes ``x.data``).

    The arithmetic stays in the tensors' dtypes, as PyTorch's does."""
    original = np.array(data[index], copy=True)
    data[index] = original - delta
    below = [o._data.copy() for o in _float_outputs(_as_tuple(func(*inputs)))]
    data[index] = original + delta
    above = [o._data.copy() for o in _float_outputs(_as_tuple(func(*inputs)))]
    data[index] = original
    columns = []
    for a, b in zip(below, above):
        if a.shape != b.shape:
            raise AssertionError(
                "Expected `func` to return outputs with the same shape when inputs are "
                f"perturbed by {eps}, but got: shapes {_size(a.shape)} and {_size(b.shape)}."
            )
        if a.dtype != b.dtype:
            raise AssertionError(
                "Expected `func` to return outputs with the same dtype when inputs are "
                f"perturbed by {eps}, but got: dtypes {a.dtype} and {b.dtype}."
            )
        columns.append(((b - a) / (2 * eps)).reshape(-1))
    return columns


def _size(shape: tuple):
    from .._tensor import Size

    return Size(shape)


def _numerical_jacobians(func, inputs, func_out, eps) -> list[list[np.ndarray]]:
    """``J[i][j]``: d(float output j)/d(differentiable input i), one column per input
    element, shape (input numel, output numel), in the output's dtype."""
    outputs = _float_outputs(func_out)
    jacobians = []
    for _, x in _differentiable_inputs(inputs):
        per_output = [np.zeros((x.numel(), o.numel()), dtype=o._data.dtype) for o in outputs]
        data = x._data  # element by element in row-major order, whatever the layout
        for k, index in enumerate(np.ndindex(data.shape)):
            for j, column in enumerate(_central_difference(func, inputs, data, index, eps, eps)):
                per_output[j][k] = column
        jacobians.append(per_output)
    return jacobians


# --- analytical derivatives -----------------------------------------------------------

def _vjps(output: Tensor, inputs: list, grad_output: Tensor) -> tuple:
    return engine.grad(output, inputs, grad_output, retain_graph=True, allow_unused=True)


def _analytical_jacobians(inputs, output: Tensor, settings, v: np.ndarray | None = None):
    """The rows of d(output)/d(each differentiable input) from backward, in the input's
    dtype: one row per output element (``v`` None), or the single row ``vᵀ J``.

    Backward runs twice: the two results must agree within ``nondet_tol``."""
    diff = [x for _, x in _differentiable_inputs(inputs)]
    if v is None:
        rows = output.numel()
        grad_outputs = [np.eye(1, rows, k, dtype=output._data.dtype).reshape(output.shape)
                        for k in range(rows)]
    else:
        rows, grad_outputs = 1, [v.reshape(output.shape)]
    runs = []
    for _ in range(2):
        jacobians = [np.zeros((x.numel(), rows), dtype=x._data.dtype) for x in diff]
        sizes_ok = types_ok = True
        for k, g in enumerate(grad_outputs):
            for jacobian, x, grad in zip(jacobians, diff, _vjps(output, diff, _make(g))):
                if grad is None:
                    continue
                if grad.shape != x.shape:
                    sizes_ok = False
                    continue
                types_ok = types_ok and grad._data.dtype == x._data.dtype
                jacobian[:, k] = grad._data.reshape(-1)
        runs.append(jacobians)
    if not types_ok and settings.check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not all(a.size == 0 or np.abs(a - b).max() <= settings.nondet_tol
               for a, b in zip(*runs)):
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and "
            "grad_output multiple times gives different values, although analytical "
            "gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {settings.nondet_tol}." + _NONDET_NOTE
        )
    return runs[0]


def _forward_jacobians(func, inputs, directions: list | None = None) -> list[list[np.ndarray]]:
    """``J[i][j]`` by forward-mode AD, in the output's dtype: one row per element of
    input ``i`` (a one-hot tangent), or the single row ``J u`` for ``directions[i]``."""
    from . import forward_ad

    diff = _differentiable_inputs(inputs)
    jacobians = []
    with forward_ad.dual_level():
        for position, (i, x) in enumerate(diff):
            if directions is None:
                tangents = [np.eye(1, x.numel(), k, dtype=x._data.dtype).reshape(x.shape)
                            for k in range(x.numel())]
            else:
                tangents = [directions[position].reshape(x.shape)]
            per_output = None
            for k, tangent in enumerate(tangents):
                duals = list(inputs)
                for other, y in diff:  # every input is dual; only input i moves
                    t = tangent if other == i else np.zeros_like(y._data)
                    duals[other] = forward_ad.make_dual(y.detach(), _make(t))
                outputs = _float_outputs(_as_tuple(func(*duals)))
                if per_output is None:
                    per_output = [np.zeros((len(tangents), o.numel()), dtype=o._data.dtype)
                                  for o in outputs]
                for j, out in enumerate(outputs):
                    t = forward_ad.unpack_dual(out).tangent
                    if t is not None:
                        per_output[j][k] = t._data.reshape(-1)
            jacobians.append(per_output or [])
    return jacobians


# --- comparing them -------------------------------------------------------------------

def _allclose(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    dtype = np.promote_types(a.dtype, b.dtype)
    return bool(np.allclose(a.astype(dtype), b.astype(dtype), rtol=rtol, atol=atol))


def _mismatch(analytical, numerical, output: int, input: int, forward_ad: bool) -> str:
    mode = "computed with forward mode " if forward_ad else ""
    return (
        f"Jacobian {mode}mismatch for output {output:d} with respect to input {input:d},\n"
        f"numerical:{_make(numerical)}\nanalytical:{_make(analytical)}\n"
    )


def _no_differentiable_outputs(numerical_results, tolerance: float = 0.0) -> None:
    """A function with no differentiable output must have a zero numerical gradient."""
    for per_output in numerical_results:
        for jacobian in per_output:
            if jacobian.size and np.abs(jacobian).max() > tolerance:
                raise GradcheckError("Numerical gradient for function expected to be zero")


def _compare_slow(func, func_out, inputs, outputs, settings, *, forward_ad: bool) -> None:
    """Whole Jacobians, element by element."""
    numerical = _numerical_jacobians(func, inputs, func_out, settings.eps)
    if not outputs:
        _no_differentiable_outputs(numerical)
        return
    floats = _float_outputs(func_out)
    kept = [j for j, o in enumerate(floats) if o.requires_grad]
    numerical = [[per_output[j] for j in kept] for per_output in numerical]
    if forward_ad:
        analytical = _forward_jacobians(func, inputs)
        analytical = [[per_output[j] for j in kept] for per_output in analytical]
        for j in range(len(outputs)):
            for i, per_output in enumerate(numerical):
                a, n = analytical[i][j], per_output[j]
                if not _allclose(a, n, settings.rtol, settings.atol):
                    raise GradcheckError(_mismatch(a, n, j, i, forward_ad=True))
        return
    for j, output in enumerate(outputs):
        analytical = _analytical_jacobians(inputs, output, settings)
        for i, (a, per_output) in enumerate(zip(analytical, numerical)):
            n = per_output[j]
            if not _allclose(a, n, settings.rtol, settings.atol):
                raise GradcheckError(_mismatch(a, n, j, i, forward_ad=False))


def _random_unit_vector(size: int, dtype, generator) -> np.ndarray:
    """PyTorch's direction for fast mode: uniform [0, 1) draws from gradcheck's own
    generator (the user's random stream is untouched), scaled to norm 1."""
    from .. import rand

    vector = rand(size, generator=generator).to(dtype)
    return (vector / vector.norm())._data


def _compare_fast(func, func_out, inputs, outputs, settings, *, forward_ad: bool) -> None:
    """The single number ``vᵀ J u`` for random unit vectors: numerical (one central
    difference along ``u``) against analytical (one backward pass with ``v``); in forward
    mode the vector ``J u`` (one forward pass with tangent ``u``).

    Tolerances scale with ``sum(u)·sum(v)``: each Jacobian entry may differ by ``atol``."""
    from .._random import Generator

    generator = Generator()
    diff = _differentiable_inputs(inputs)
    all_u = [_random_unit_vector(x.numel(), x.dtype, generator) for _, x in diff]
    all_v = None if forward_ad else [
        _random_unit_vector(o.numel(), o.dtype, generator) for o in outputs]
    kept = [j for j, o in enumerate(_float_outputs(func_out)) if o.requires_grad]
    numerical = []  # numerical[i][j]: for input i and output j, J u (or vᵀ J u)
    for (_, x), u in zip(diff, all_u):
        delta = (u * settings.eps).reshape(x._data.shape)
        Ju = _central_difference(func, inputs, x._data, ..., delta, settings.eps)
        if not outputs:
            _no_differentiable_outputs([[column] for column in Ju], settings.nondet_tol)
        Ju = [Ju[j] for j in kept]
        numerical.append(Ju if forward_ad else [(v * c).sum() for v, c in zip(all_v, Ju)])
    if forward_ad:
        analytical = [[per_input[j][0] for j in kept]
                      for per_input in _forward_jacobians(func, inputs, all_u)]
    else:
        by_output = [_analytical_jacobians(inputs, output, settings, v)
                     for output, v in zip(outputs, all_v)]
        analytical = [[rows[i][:, 0].dot(u) for rows in by_output]
                      for i, u in enumerate(all_u)]
    for i, (per_input_a, per_input_n) in enumerate(zip(analytical, numerical)):
        for j, (a, n) in enumerate(zip(per_input_a, per_input_n)):
            a, n = np.asarray(a), np.asarray(n)
            scale = float(all_u[i].sum()) * (1.0 if all_v is None else float(all_v[j].sum()))
            if not _allclose(a, n, settings.rtol, settings.atol * scale):
                raise GradcheckError(
                    _mismatch(a, n, j, i, forward_ad)
                    + _slow_mode_details(func, inputs, func_out, outputs, i, j, settings,
                                         forward_ad)
                )


def _slow_mode_details(func, inputs, func_out, outputs, i, j, settings, forward_ad) -> str:
    """Fast mode failed: the whole Jacobians for the failing pair, for the message."""
    kept = [k for k, o in enumerate(_float_outputs(func_out)) if o.requires_grad]
    numerical = _numerical_jacobians(func, inputs, func_out, settings.eps)[i][kept[j]]
    if forward_ad:
        analytical = _forward_jacobians(func, inputs)[i][kept[j]]
    else:
        exact = _Settings(settings.eps, settings.atol, settings.rtol, float("inf"), False, False)
        analytical = _analytical_jacobians(inputs, outputs[j], exact)[i]
    difference = _make(np.abs(numerical - analytical).max())
    message = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more "
        "background \nabout fast mode. Below, we recompute numerical and analytical "
        "jacobians in slow mode:\n\n"
        f"Numerical:\n {_make(numerical)}\n"
        f"Analytical:\n{_make(analytical)}\n\n"
        f"The max per-element difference (slow mode) is: {difference}.\n"
    )
    if _allclose(analytical, numerical, settings.rtol, settings.atol):
        message += _FAST_FAIL_SLOW_OK_NOTE
    return message


# --- the other backward checks --------------------------------------------------------

def _test_backward_mul_by_grad_output(outputs, inputs) -> None:
    """Zero output gradients must give zero input gradients, of the input's dtype and
    size: a backward that forgets to multiply by ``grad_output`` fails here."""
    diff = [x for _, x in _differentiable_inputs(inputs)]
    if not outputs:
        return
    grads = engine.grad(outputs, diff, [_make(np.zeros(o.shape, o._data.dtype)) for o in outputs],
                        allow_unused=True)
    for g, x in zip(grads, diff):
        if g is None:
            continue
        if np.any(g._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g._data.dtype != x._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != x.shape:
            raise GradcheckError("grad is incorrect size")


class _UndefinedGrad(Function):
    """The identity, whose backward passes on *no* gradient (None): what PyTorch's
    ``torch._C._functions.UndefinedGrad`` does, to check that backward copes with an
    undefined output gradient (a custom Function with ``set_materialize_grads(False)``
    receives None)."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return None


def _test_undefined_backward_mode(func, outputs, inputs) -> None:
    diff = [x for _, x in _differentiable_inputs(inputs)]
    if not outputs:
        return

    def check(outputs_to_check) -> None:
        zeros = [_make(np.zeros(o.shape, o._data.dtype)) for o in outputs_to_check]
        try:
            grads = engine.grad(outputs_to_check, diff, zeros, allow_unused=True)
        except RuntimeError as error:
            warnings.warn(_UNDEFINED_GRAD_WARNING, UserWarning, stacklevel=5)
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look "
                'at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"'
            ) from error
        if any(g is not None and np.any(g._data != 0) for g in grads):
            warnings.warn(_UNDEFINED_GRAD_WARNING, UserWarning, stacklevel=5)
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                'undefined or zero. Please look at "Notes about undefined output gradients" '
                'in "tools/autograd/derivatives.yaml"'
            )

    # every output's gradient undefined at once, then (with several outputs) one at a time
    check([_UndefinedGrad.apply(o) for o in _differentiable_outputs(func(*inputs))])
    if len(outputs) > 1:
        for undefined in range(len(outputs)):
            fresh = _differentiable_outputs(func(*inputs))
            check([_UndefinedGrad.apply(o) if k == undefined else o
                   for k, o in enumerate(fresh)])


def _test_undefined_forward_mode(func, inputs) -> None:
    """A zero tangent and no tangent at all must give the same output tangents."""
    from . import forward_ad

    diff = _differentiable_inputs(inputs)
    with forward_ad.dual_level():
        duals = list(inputs)
        for i, x in diff:
            duals[i] = forward_ad.make_dual(x.detach(), _make(np.ones_like(x._data)))
        for i, x in diff:
            kept = duals[i]
            duals[i] = forward_ad.make_dual(x.detach(), _make(np.zeros_like(x._data)))
            with_zero = _float_outputs(_as_tuple(func(*duals)))
            duals[i] = x.detach()
            without = _float_outputs(_as_tuple(func(*duals)))
            duals[i] = kept
            for index, (a, b) in enumerate(zip(with_zero, without)):
                t1, t2 = forward_ad.unpack_dual(a).tangent, forward_ad.unpack_dual(b).tangent
                if t1 is not None and t2 is not None and not _allclose(
                        t1._data, t2._data, 1e-05, 1e-08):
                    raise GradcheckError(
                        f"Mismatch in tangent values for output with index: {index} when "
                        f"input: {x} has an undefined tangent value.  Got: {t1} but "
                        f"expected: {t2}"
                    )


def _one_by_one_against_vmap(product, vectors: list, note: str, pair) -> None:
    """``product`` applied to each vector, stacked, against ``vmap(product)`` of the
    stacked vectors: batched gradients must be the gradients one by one. ``pair(k)``
    names the (output, input) of result ``k`` for the message."""
    from .. import stack
    from ..func import vmap

    expected = [stack(shards) for shards in zip(*(product(v) for v in vectors))]
    try:
        result = vmap(product)(stack(vectors))
    except RuntimeError as error:
        raise GradcheckError(f"While computing batched gradients, got: {error}\n\n{note}") \
            from error
    for k, (got, want) in enumerate(zip(result, expected)):
        if not _allclose(got._data, want._data, 1e-05, 1e-08):
            output_index, input_index = pair(k)
            raise GradcheckError(
                f"For output {output_index} and input {input_index}:\n\n{note}\n\n"
                f"Got:\n{got}\n\nExpected:\n{want}"
            )


def _test_batched_grad(inputs, output: Tensor, output_index: int) -> None:
    """Two vector-Jacobian products one by one against the same two under ``vmap``."""
    from .. import randn_like, zeros

    diff = [x for _, x in _differentiable_inputs(inputs)]

    def vjp(v):
        grads = engine.grad(output, diff, v, retain_graph=True, allow_unused=True)
        return tuple(g if g is not None else zeros((), dtype=x.dtype).expand(x.shape)
                     for g, x in zip(grads, diff))

    grad_outputs = [randn_like(output) for _ in range(2)]  # the global stream, as PyTorch
    _one_by_one_against_vmap(vjp, grad_outputs, _BATCHED_GRAD_NOTE,
                             lambda k: (output_index, k))


def _test_batched_forward_grad(func, inputs) -> None:
    """Two Jacobian-vector products one by one against the same two under ``vmap``."""
    from .. import randn_like
    from ..func import jvp

    for i, x in _differentiable_inputs(inputs):
        def along(tangent, i=i, x=x):
            def of_input(value):
                return func(*inputs[:i], value, *inputs[i + 1:])

            return _as_tuple(jvp(of_input, (x.detach(),), (tangent,))[1])

        tangents = [randn_like(x) for _ in range(2)]
        _one_by_one_against_vmap(along, tangents, _BATCHED_FORWARD_NOTE,
                                 lambda k, i=i: (k, i))


# PyTorch's notes, word for word.
_NONDET_NOTE = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

_FAST_FAIL_SLOW_OK_NOTE = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()

_BATCHED_GRAD_NOTE = """
gradcheck or gradgradcheck failed while testing batched gradient computation.
This could have been invoked in a number of ways (via a test that calls
gradcheck/gradgradcheck directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_grad=False` and/or `check_batched_gradgrad=False`.

If you're modifying an existing operator that supports batched grad computation,
or wish to make a new operator work with batched grad computation, please read
the following.

To compute batched grads (e.g., jacobians, hessians), we vmap over the backward
computation. The most common failure case is if there is a 'vmap-incompatible
operation' in the backward pass. Please see
NOTE: [How to write vmap-compatible backward formulas]
in the codebase for an explanation of how to fix this.
""".strip()

_BATCHED_FORWARD_NOTE = """
gradcheck failed while testing batched gradient computation with forward-mode AD.
This test is enabled automatically when both `check_batched_grad=True`
and `check_forward_ad=True`, but can be disabled in the following ways
dependong on how the test was invoked (via a test that calls gradcheck
directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_forward_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_forward_grad=False`
"""

_UNDEFINED_GRAD_WARNING = (
    "Backwards compatibility: New undefined gradient support checking feature is enabled "
    "by default, but it may break existing callers of this function. If this is true for "
    'you, you can call this function with "check_undefined_grad=False" to disable the '
    "feature"
)

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]
