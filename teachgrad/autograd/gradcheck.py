"""Check analytical gradients against finite differences: ``gradcheck``, ``gradgradcheck``.

The idea in one line: nudge each input element by ±eps, see how each output element moves
(a central difference), and compare that numerical Jacobian with the one ``backward``
computes, one vector-Jacobian product at a time. Inputs should be float64: in float32 the
rounding error of the difference quotient is as large as the tolerance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .._tensor import Tensor, _make
from .._warn import warn_user
from . import engine
from .grad_mode import no_grad


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when analytical and numerical gradients disagree."""


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else (tuple(x) if isinstance(x, list) else (x,))


def numerical_jacobian(fn: Callable, inputs: tuple, eps: float = 1e-6) -> list[list[np.ndarray]]:
    """``J[i][j]``: d(output j)/d(input i) by central differences, shape (in.numel, out.numel)."""
    # fn runs with grad mode on: under gradgradcheck, fn itself calls autograd.grad.
    outputs = _as_tuple(fn(*inputs))
    jacobians = []
    for x in inputs:
        if not (isinstance(x, Tensor) and x._requires_grad):
            jacobians.append(None)
            continue
        per_output = [np.zeros((x._data.size, o._data.size)) for o in outputs]
        data = x._data  # written element by element, in row-major order whatever the
        # layout (reshape(-1) of a column-major input would be a copy, not a view)
        for k, index in enumerate(np.ndindex(data.shape)):
            original = data[index].item()
            data[index] = original + eps
            plus = [o._data.astype(np.float64).ravel() for o in _as_tuple(fn(*inputs))]
            data[index] = original - eps
            minus = [o._data.astype(np.float64).ravel() for o in _as_tuple(fn(*inputs))]
            data[index] = original
            for j, (p, m) in enumerate(zip(plus, minus)):
                per_output[j][k] = (p - m) / (2 * eps)
        jacobians.append(per_output)
    return jacobians


def analytical_jacobian(fn: Callable, inputs: tuple) -> list[list[np.ndarray]]:
    """The same Jacobian, built row by row from ``autograd.grad`` with one-hot vectors."""
    outputs = _as_tuple(fn(*inputs))
    diff_inputs = [x for x in inputs if isinstance(x, Tensor) and x._requires_grad]
    result = [
        [np.zeros((x._data.size, o._data.size)) for o in outputs]
        if isinstance(x, Tensor) and x._requires_grad else None
        for x in inputs
    ]
    for j, out in enumerate(outputs):
        if not out._requires_grad:
            continue
        for k in range(out._data.size):
            onehot = np.zeros(out._data.size, dtype=out._data.dtype)
            onehot[k] = 1
            grads = engine.grad(
                out, diff_inputs, _make(onehot.reshape(out._data.shape)),
                retain_graph=True, allow_unused=True,
            )
            position = 0
            for i in range(len(inputs)):
                if result[i] is None:
                    continue
                g = grads[position]
                position += 1
                if g is not None:
                    result[i][j][:, k] = g._data.astype(np.float64).ravel()
    return result


def gradcheck(
    func: Callable,
    inputs: Sequence[Tensor] | Tensor,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    **_ignored,
) -> bool:
    """True if ``func``'s gradients match finite differences at ``inputs``.

    ``check_backward_ad`` checks the Jacobian that backward computes (one
    vector-Jacobian product per output element), ``check_forward_ad`` the one that
    forward-mode AD computes (one Jacobian-vector product per input element, with dual
    tensors): a custom Function's ``jvp`` is checked this way.

    >>> import teachgrad as torch
    >>> x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(lambda t: (t ** 3).sum(), (x,))
    True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    inputs = _as_tuple(inputs)
    for x in inputs:
        if isinstance(x, Tensor) and x._requires_grad and x._data.dtype != np.float64:

            warn_user(
                "Input #0 requires gradient and is not a double precision floating point. "
                "This check will likely fail if all the inputs are not of double precision "
                "floating point. ",
                UserWarning,
            )
            break
    numerical = numerical_jacobian(func, inputs, eps)
    checks = []  # (analytical Jacobians, the words PyTorch's message uses for the mode)
    if check_backward_ad:
        checks.append((analytical_jacobian(func, inputs), ""))
    if check_forward_ad:
        checks.append((forward_jacobian(func, inputs), "computed with forward mode "))
    for analytical, mode in checks:
        for i, (num, ana) in enumerate(zip(numerical, analytical)):
            if num is None:
                continue
            for j, (n, a) in enumerate(zip(num, ana)):
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    if not raise_exception:
                        return False
                    raise GradcheckError(
                        f"Jacobian {mode}mismatch for output {j} with respect to input {i},\n"
                        f"numerical:{_make(n)}\nanalytical:{_make(a)}\n"
                    )
    return True


def forward_jacobian(fn: Callable, inputs: tuple) -> list[list[np.ndarray]]:
    """The Jacobian by forward-mode AD: row ``k`` for input ``i`` is the outputs' tangent
    when element ``k`` of input ``i`` gets tangent 1 and everything else tangent 0."""
    from . import forward_ad  # (forward_ad imports the engine, as this module does)

    outputs = _as_tuple(fn(*inputs))
    result = []
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x._requires_grad):
            result.append(None)
            continue
        per_output = [np.zeros((x._data.size, o._data.size)) for o in outputs]
        for k in range(x._data.size):
            onehot = np.zeros(x._data.size, dtype=x._data.dtype)
            onehot[k] = 1
            with forward_ad.dual_level():
                dual = forward_ad.make_dual(x, _make(onehot.reshape(x._data.shape)))
                duals = (*inputs[:i], dual, *inputs[i + 1:])
                for j, out in enumerate(_as_tuple(fn(*duals))):
                    tangent = forward_ad.unpack_dual(out).tangent
                    if tangent is not None:
                        per_output[j][k] = tangent._data.astype(np.float64).ravel()
        result.append(per_output)
    return result


def gradgradcheck(
    func: Callable,
    inputs: Sequence[Tensor] | Tensor,
    grad_outputs: Sequence[Tensor] | Tensor | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **_ignored,
) -> bool:
    """``gradcheck`` of the gradient itself: checks second derivatives (``create_graph``)."""
    inputs = _as_tuple(inputs)
    diff = [x for x in inputs if isinstance(x, Tensor) and x._requires_grad]
    if grad_outputs is None:
        with no_grad():
            outs = _as_tuple(func(*inputs))
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            _make(rng.standard_normal(o._data.shape).astype(o._data.dtype), True) for o in outs
        )
    grad_outputs = _as_tuple(grad_outputs)

    def first_derivative(*args):
        xs, vs = args[: len(inputs)], args[len(inputs):]
        outs = _as_tuple(func(*xs))
        grads = engine.grad(
            outs, [x for x in xs if isinstance(x, Tensor) and x._requires_grad], vs,
            create_graph=True, allow_unused=True,
        )
        return tuple(
            g if g is not None else _make(np.zeros_like(x._data))
            for g, x in zip(grads, diff)
        )

    return gradcheck(
        first_derivative, (*inputs, *grad_outputs), eps=eps, atol=atol, rtol=rtol,
        raise_exception=raise_exception,
    )


__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "numerical_jacobian"]
