"""Property tests: gradients of broadcasting binary ops are summed back correctly.

For random pairs of broadcast-compatible shapes and random values, the gradient that
teachgrad computes for ``(op(a, b) * w).sum()`` must equal the hand-written local
derivative times ``w``, summed by NumPy over the dimensions broadcasting stretched
(``reduce_to`` below, written independently of the engine's own ``sum_to``). A few
examples per op are also checked against finite differences (gradcheck).
"""

from __future__ import annotations

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import teachgrad  # noqa: E402
from teachgrad.autograd import gradcheck  # noqa: E402

SHAPE_PAIRS = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3)


def reduce_to(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum ``g`` down to ``shape``: over added leading dims, then over stretched 1-dims."""
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    return g


# op name -> (teachgrad function, local derivatives d/da and d/db as NumPy functions)
OPS = {
    "add": (lambda a, b: a + b, lambda a, b: np.ones_like(a), lambda a, b: np.ones_like(b)),
    "sub": (lambda a, b: a - b, lambda a, b: np.ones_like(a), lambda a, b: -np.ones_like(b)),
    "mul": (lambda a, b: a * b, lambda a, b: b, lambda a, b: a),
    "div": (lambda a, b: a / b, lambda a, b: 1 / b, lambda a, b: -a / b**2),
    "pow": (lambda a, b: a**b, lambda a, b: b * a ** (b - 1), lambda a, b: a**b * np.log(a)),
    "maximum": (
        teachgrad.maximum,
        lambda a, b: np.where(a == b, 0.5, (a > b).astype(float)),
        lambda a, b: np.where(a == b, 0.5, (b > a).astype(float)),
    ),
    "minimum": (
        teachgrad.minimum,
        lambda a, b: np.where(a == b, 0.5, (a < b).astype(float)),
        lambda a, b: np.where(a == b, 0.5, (b < a).astype(float)),
    ),
}


def values(shape, positive: bool):
    low, high = (0.5, 3.0) if positive else (-3.0, 3.0)
    nonzero = (lambda v: v > 0) if positive else (lambda v: v != 0)
    # Small integer steps make ties (maximum/minimum) and exact zeros likely, too.
    # (exact zeros are left out: division by zero is not the point here)
    elements = st.integers(int(low * 4), int(high * 4)).map(lambda i: i / 4).filter(nonzero)
    return hnp.arrays(np.float64, shape, elements=elements)


@st.composite
def operands(draw, positive: bool = False):
    shapes = draw(SHAPE_PAIRS)
    (sa, sb), result = shapes.input_shapes, shapes.result_shape
    a = draw(values(sa, positive))
    b = draw(values(sb, positive))
    w = draw(hnp.arrays(np.float64, result, elements=st.floats(-2, 2)))
    return a, b, w


def gradients(op, a: np.ndarray, b: np.ndarray, w: np.ndarray):
    ta = teachgrad.tensor(a, requires_grad=True)
    tb = teachgrad.tensor(b, requires_grad=True)
    out = op(ta, tb)
    assert tuple(out.shape) == np.broadcast_shapes(a.shape, b.shape)
    (out * teachgrad.tensor(w)).sum().backward()
    return ta.grad.numpy(), tb.grad.numpy()


@pytest.mark.parametrize("name", sorted(OPS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_broadcast_gradients_match_numpy(name, data):
    op, da, db = OPS[name]
    a, b, w = data.draw(operands(positive=name == "pow"))
    ga, gb = gradients(op, a, b, w)
    A, B = np.broadcast_arrays(a, b)
    assert ga.shape == a.shape and gb.shape == b.shape
    np.testing.assert_allclose(ga, reduce_to(da(A, B) * w, a.shape), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gb, reduce_to(db(A, B) * w, b.shape), rtol=1e-10, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_where_broadcast_gradients(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3))
    sc, sa, sb = shapes.input_shapes
    condition = data.draw(hnp.arrays(np.bool_, sc))
    a, b = data.draw(values(sa, False)), data.draw(values(sb, False))
    w = data.draw(hnp.arrays(np.float64, shapes.result_shape, elements=st.floats(-2, 2)))
    ta = teachgrad.tensor(a, requires_grad=True)
    tb = teachgrad.tensor(b, requires_grad=True)
    (teachgrad.where(teachgrad.tensor(condition), ta, tb) * teachgrad.tensor(w)).sum().backward()
    C = np.broadcast_to(condition, shapes.result_shape)
    np.testing.assert_allclose(ta.grad.numpy(), reduce_to(np.where(C, w, 0.0), a.shape))
    np.testing.assert_allclose(tb.grad.numpy(), reduce_to(np.where(C, 0.0, w), b.shape))


@pytest.mark.parametrize("name", sorted(OPS))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_broadcast_gradients_match_finite_differences(name, data):
    op, _, _ = OPS[name]
    a, b, _ = data.draw(operands(positive=name == "pow"))
    if name in ("maximum", "minimum"):  # kinks at ties: finite differences are undefined
        b = b + 0.125  # quarter steps + 1/8 never tie
    ta = teachgrad.tensor(a, requires_grad=True)
    tb = teachgrad.tensor(b, requires_grad=True)
    assert gradcheck(op, (ta, tb))
