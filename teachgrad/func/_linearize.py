"""``linearize``: a function's value at a point, and its linear approximation there.

``output, jvp_fn = linearize(f, x)`` gives ``f(x)`` and a function ``jvp_fn(v) = J_f(x)·v``
(the Jacobian of ``f`` at ``x`` times a tangent ``v``): the best linear approximation
``f(x + v) ≈ f(x) + jvp_fn(v)``.

PyTorch traces ``f`` once (with ``make_fx``) and replays the traced JVP graph, with the
parts that do not depend on the tangent folded into constants, on each call. teachgrad
has no tracer: each ``jvp_fn(v)`` runs ``f`` again under forward-mode AD
(:func:`teachgrad.func.jvp`). The values are the same; only the cost per call differs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..autograd.function import run_transformed
from ._pytree import tree_flatten
from ._transforms import jvp


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """Returns the value of ``func`` at ``primals`` and linear approximation at ``primals``:
    ``(output, jvp_fn)``, where ``jvp_fn(*tangents)`` is the Jacobian-vector product of
    ``func`` at ``primals`` (tangents shaped like the primals).

    >>> import teachgrad as torch
    >>> from teachgrad.func import linearize
    >>> output, jvp_fn = linearize(torch.sin, torch.zeros(3))
    >>> jvp_fn(torch.tensor([1.0, 2.0, 3.0]))  # cos(0) · v
    tensor([1., 2., 3.])
    """
    output = run_transformed(func, *primals)
    flat_primals, primals_spec = tree_flatten(primals)
    # PyTorch traces a JVP at once, so an integer point fails here, not at the first call.
    for p in flat_primals:
        if isinstance(p, Tensor) and p._data.dtype.kind not in "fc":
            raise ValueError(f"Expected primal to be floating point or complex, but got: "
                             f"{p.dtype}")
    # The point is fixed now: later in-place changes to the primals do not move it.
    point = tuple(p.detach().clone() if isinstance(p, Tensor) else p for p in primals)

    def jvp_fn(*tangents: Any) -> Any:
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(
                f"Expected the tangents {tangents_spec!r} to have the same argspec as the "
                f"primals {primals_spec!r}"
            )
        for index, (t, p) in enumerate(zip(flat_tangents, flat_primals)):
            for what, got, expected in (("shape", t.shape, p.shape),
                                        ("device", t.device, p.device),
                                        ("dtype", t.dtype, p.dtype)):
                if got != expected:
                    raise RuntimeError(
                        f"tangent:{index} with {what} {got} in flattened pytree doesn't match "
                        f"the {what} {expected} of the corresponding primal."
                    )
        return jvp(func, point, tangents)[1]

    return output, jvp_fn


__all__ = ["linearize"]
