"""Direct forward formulas (JVPs) for the ops programs run most: optional, for speed.

Forward AD gets every op's tangent from the op's backward formula, by the double
backward trick (:mod:`teachgrad.autograd.forward_ad`). That is exact and needs nothing
per op, but it runs two small backward passes for every op (about 1.5 ms for a 2x2
``a * b``). For the handful of ops below the tangent is written directly, with the rules
of calculus a student knows (``d(a·b) = da·b + a·db``), about twenty times faster. One op
(``logcumsumexp``) needs its rule: its backward cannot be differentiated where the trick
asks (see the rule).

A rule gets the op's class, its inputs (tensors or numbers), its output, the inputs'
tangents (None where an input has none) and the op's keyword parameters, and returns
the output's tangent. Rules compute with teachgrad's own ops on the real tensors, so the
tangent is differentiable by backward like any result. ``tests/test_forward_ad.py``
checks every rule against the general mechanism.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._tensor import _make
from ..ops import linalg, pointwise, reduce

#: op class -> rule(cls, inputs, output, tangents, params) -> tangent of the output
RULES: dict[type, Callable] = {}


def rule(*classes: type) -> Callable:
    """Register ``fn`` as the forward formula of the op classes ``classes``."""

    def register(fn: Callable) -> Callable:
        for cls in classes:
            RULES[cls] = fn
        return fn

    return register


def _full(tangent, output):
    """A tangent of the output's shape (an input's tangent may broadcast)."""
    if tangent.shape == output.shape:
        return tangent
    return tangent.expand(output.shape).clone()  # (clone: tangents get written in place)


def sum_present(*terms):
    """The sum of the terms that are not None (``None`` if none is): the total of the
    contributions a formula has, when some inputs have none (no tangent, no gradient)."""
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else total + term
    return total


# --- linear ops: the tangent is the op applied to the tangent --------------------------
@rule(reduce.SumBackward0, reduce.SumBackward1, reduce.MeanBackward0, reduce.MeanBackward1,
      pointwise.NegBackward0)
def _linear(cls, inputs, output, tangents, params):
    return cls.apply(tangents[0], *inputs[1:], **params)


@rule(pointwise.AddBackward0, pointwise.SubBackward0)
def _add_or_sub(cls, inputs, output, tangents, params):
    ta, tb = tangents
    alpha = params.get("alpha", 1)
    if tb is not None:
        tb = tb * alpha if alpha != 1 else tb
        if cls is pointwise.SubBackward0:
            tb = -tb
    tangent = _full(sum_present(ta, tb), output)
    # With one tangent, that is the input's very tangent: copy it, or an in-place op on
    # the output (which writes into its tangent) would change the input's tangent too.
    return tangent.clone() if tangent is ta or tangent is tb else tangent


# --- products and quotients --------------------------------------------------------------
@rule(pointwise.MulBackward0)
def _mul(cls, inputs, output, tangents, params):
    (a, b), (ta, tb) = inputs, tangents
    return _full(sum_present(None if ta is None else ta * b, None if tb is None else a * tb),
                 output)


@rule(pointwise.DivBackward0)
def _div(cls, inputs, output, tangents, params):
    # d(a/b) = da/b − (a/b)·db/b
    (_, b), (ta, tb) = inputs, tangents
    return _full(sum_present(ta, None if tb is None else -(output * tb)) / b, output)


@rule(linalg.MmBackward0)
def _mm(cls, inputs, output, tangents, params):
    (a, b), (ta, tb) = inputs, tangents
    return sum_present(None if ta is None else ta @ b, None if tb is None else a @ tb)


# --- one input: the tangent times the derivative -----------------------------------------
_DERIVATIVES = {
    pointwise.ExpBackward0: lambda a, out: out,
    pointwise.TanhBackward0: lambda a, out: 1 - out * out,
    pointwise.SigmoidBackward0: lambda a, out: out * (1 - out),
    pointwise.SinBackward0: lambda a, out: a.cos(),
    pointwise.CosBackward0: lambda a, out: -a.sin(),
    pointwise.LogBackward0: lambda a, out: 1 / a,
    pointwise.SqrtBackward0: lambda a, out: 0.5 / out,
}


@rule(*_DERIVATIVES)
def _chain_rule(cls, inputs, output, tangents, params):
    return tangents[0] * _DERIVATIVES[cls](inputs[0], output)


@rule(pointwise.ReluBackward0)
def _relu(cls, inputs, output, tangents, params):
    # PyTorch's threshold_backward: the tangent where the output is positive, else 0. Not
    # tangent·mask: a negative tangent times 0 is -0, and prints as "-0." in a tensor.
    return tangents[0].masked_fill(output.detach() <= 0, 0.0)


# --- rules the double backward trick cannot give -----------------------------------------
@rule(reduce.LogcumsumexpBackward0)
def _logcumsumexp(cls, inputs, output, tangents, params):
    # d outₖ = Σ_{i≤k} dtᵢ·exp(aᵢ − outₖ) = exp(m − outₖ)·Σ_{i≤k} dtᵢ·exp(aᵢ − m): a running
    # softmax applied to the tangent. (The trick cannot give it: the backward works with
    # log|grad|, which has no derivative at the zero grad the trick differentiates at.)
    # m, the slice's max (a constant), keeps exp(aᵢ − m) ≤ 1. Where outₖ lies more than
    # 700 below m (all −inf so far, or terms that exp cannot hold) the tangent is 0, as
    # PyTorch's formula also gives (its cut-off is tighter: a running sum below 1e-13).
    a, dim, tangent = inputs[0], params["dim"], tangents[0]
    if a._data.ndim == 0:
        return tangent.clone()
    m = np.amax(a._data, axis=dim, keepdims=True)
    m = _make(np.where(np.isfinite(m), m, 0).astype(a._data.dtype))
    gap = m - output
    far = _make(~(gap._data <= 700))  # (NaN-safe: −inf outputs give gap = +inf)
    scale = gap.masked_fill(far, 0.0).exp()
    return ((tangent * (a - m).exp()).cumsum(dim) * scale).masked_fill(far, 0.0)
