"""Reductions: values against NumPy, gradients against finite differences, PyTorch's graphs.

Expected values come from NumPy, from hand derivations, or from fixtures/op_graphs.json
(recorded from real PyTorch by fixtures/make_op_graphs.py).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck
from teachgrad.ops import reduce

CASES = [c for c in json.loads((Path(__file__).parent / "fixtures" / "op_graphs.json")
                               .read_text()) if c["family"] == "reduce"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"].split(":")[1])
def test_matches_pytorch_recording(case, check_op_case):
    check_op_case(case)


RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4, 5))
ZEROS = np.array([[0.0, 3.0, 2.0, 1.0], [0.0, 2.0, 0.0, -1.0], [1.0, 4.0, 5.0, 5.0]])


def leaf(data, requires_grad=True):
    return teachgrad.tensor(np.array(data, dtype=np.float64), requires_grad=requires_grad)


# ----------------------------------------------------------------------------------------
# Forward values against NumPy
# ----------------------------------------------------------------------------------------
def _np_vector_norm(a, p, axis=None, keepdims=False):
    x = np.abs(a)
    if p == math.inf:
        return x.max(axis=axis, keepdims=keepdims)
    if p == -math.inf:
        return x.min(axis=axis, keepdims=keepdims)
    if p == 0:
        return (x != 0).sum(axis=axis, keepdims=keepdims).astype(float)
    return (x**p).sum(axis=axis, keepdims=keepdims) ** (1 / p)


FORWARD = [
    ("prod", lambda t: t.prod(), lambda a: np.prod(a)),
    ("prod_dim", lambda t: t.prod(1), lambda a: np.prod(a, 1)),
    ("prod_neg_keepdim", lambda t: t.prod(-1, keepdim=True),
     lambda a: np.prod(a, -1, keepdims=True)),
    ("max", lambda t: t.max(), lambda a: np.max(a)),
    ("min", lambda t: teachgrad.min(t), lambda a: np.min(a)),
    ("max_dim", lambda t: t.max(-2).values, lambda a: np.max(a, -2)),
    ("max_dim_indices", lambda t: t.max(2).indices, lambda a: np.argmax(a, 2)),
    ("min_dim_keepdim", lambda t: t.min(0, keepdim=True)[0], lambda a: np.min(a, 0, keepdims=True)),
    ("amax", lambda t: t.amax(), lambda a: np.max(a)),
    ("amax_dims", lambda t: t.amax((0, -1)), lambda a: np.max(a, (0, 2))),
    ("amin_keepdim", lambda t: t.amin(1, keepdim=True), lambda a: np.min(a, 1, keepdims=True)),
    ("argmax", lambda t: t.argmax(), lambda a: np.argmax(a)),
    ("argmin_dim", lambda t: t.argmin(1), lambda a: np.argmin(a, 1)),
    ("median_dim", lambda t: t.median(2).values, lambda a: np.sort(a, 2)[..., 2]),
    ("var", lambda t: t.var(), lambda a: np.var(a, ddof=1)),
    ("var_dims", lambda t: t.var((0, 2), keepdim=True),
     lambda a: np.var(a, (0, 2), ddof=1, keepdims=True)),
    ("var_correction0", lambda t: t.var(1, correction=0), lambda a: np.var(a, 1)),
    ("std", lambda t: t.std(-1), lambda a: np.std(a, -1, ddof=1)),
    ("std_unbiased_false", lambda t: t.std(False), lambda a: np.std(a)),
    ("norm", lambda t: t.norm(), lambda a: np.sqrt((a * a).sum())),
    ("norm_dim", lambda t: t.norm(dim=(0, 1)), lambda a: np.sqrt((a * a).sum((0, 1)))),
    ("norm_p1", lambda t: t.norm(p=1, dim=2), lambda a: _np_vector_norm(a, 1, 2)),
    ("norm_p3", lambda t: teachgrad.norm(t, 3, -1, True),
     lambda a: _np_vector_norm(a, 3, -1, True)),
    ("norm_inf", lambda t: t.norm(p=math.inf), lambda a: _np_vector_norm(a, math.inf)),
    ("norm_ninf", lambda t: t.norm(-math.inf, 1), lambda a: _np_vector_norm(a, -math.inf, 1)),
    ("norm_p0", lambda t: t.norm(0), lambda a: _np_vector_norm(a, 0)),
    ("vector_norm", lambda t: reduce.vector_norm(t, 0.5, 1), lambda a: _np_vector_norm(a, 0.5, 1)),
    ("logsumexp", lambda t: t.logsumexp(1), lambda a: np.log(np.exp(a).sum(1))),
    ("logsumexp_dims", lambda t: teachgrad.logsumexp(t, (0, 2), keepdim=True),
     lambda a: np.log(np.exp(a).sum((0, 2), keepdims=True))),
    ("cumsum", lambda t: t.cumsum(1), lambda a: np.cumsum(a, 1)),
    ("cumsum_neg", lambda t: teachgrad.cumsum(t, dim=-1), lambda a: np.cumsum(a, -1)),
    ("cumprod", lambda t: t.cumprod(0), lambda a: np.cumprod(a, 0)),
    ("all", lambda t: (t > -3).all(), lambda a: np.all(a > -3)),
    ("any_dim", lambda t: (t > 1).any(1), lambda a: np.any(a > 1, 1)),
    ("count_nonzero", lambda t: (t > 0).count_nonzero(2), lambda a: np.count_nonzero(a > 0, 2)),
]


@pytest.mark.parametrize("fn, np_fn", [f[1:] for f in FORWARD], ids=[f[0] for f in FORWARD])
def test_forward_matches_numpy(fn, np_fn):
    out = fn(teachgrad.tensor(X))
    expected = np.asarray(np_fn(X))
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_float32_stays_float32_and_integers_accumulate_as_int64():
    x = teachgrad.tensor(X.astype(np.float32))
    for out in (x.prod(1), x.amax(1), x.var(1), x.std(), x.norm(), x.logsumexp(0), x.cumsum(0),
                x.cumprod(2), x.median(), x.max(1).values):
        assert out.dtype is teachgrad.float32
    i = teachgrad.tensor([[1, 2], [3, 4]], dtype=teachgrad.int32)
    assert i.prod().dtype is teachgrad.int64 and i.prod().item() == 24
    assert i.cumsum(1).dtype is teachgrad.int64
    assert i.amax().dtype is teachgrad.int32
    assert i.logsumexp(1).dtype is teachgrad.float32  # integers become the default float


# ----------------------------------------------------------------------------------------
# Gradients: finite differences (and second derivatives)
# ----------------------------------------------------------------------------------------
GRADIENTS = [
    ("prod", lambda t: t.prod(), X[0]),
    ("prod_dim", lambda t: t.prod(1), X[0]),
    ("prod_keepdim", lambda t: t.prod(-1, keepdim=True), X[0]),
    ("prod_one_zero", lambda t: t.prod(), [[1.0, 0.0, 2.0], [3.0, 4.0, 5.0]]),
    ("prod_two_zeros", lambda t: t.prod(), [[1.0, 0.0, 2.0], [3.0, 0.0, 5.0]]),
    ("prod_dim_zeros", lambda t: t.prod(1), ZEROS),
    ("prod_dim0_zeros", lambda t: t.prod(0, keepdim=True), ZEROS),
    ("max", lambda t: t.max(), X[0]),
    ("min_dim", lambda t: t.min(1).values, X[0]),
    ("max_dim_keepdim_3d", lambda t: t.max(-1, keepdim=True)[0], X[:2, :2]),
    ("amax_dims", lambda t: t.amax((0, 2)), X[:2]),
    ("amin", lambda t: t.amin(), X[0]),
    ("median", lambda t: t.median(), X[0]),
    ("median_dim", lambda t: t.median(0).values, X[0]),
    ("var", lambda t: t.var(), X[0]),
    ("var_dim", lambda t: t.var(1, keepdim=True), X[0]),
    ("var_correction0", lambda t: t.var((0, 1), correction=0), X[:2]),
    ("std", lambda t: t.std(), X[0]),
    ("std_dim", lambda t: t.std(0, unbiased=False), X[0]),
    ("norm", lambda t: t.norm(), X[0]),
    ("norm_dim", lambda t: t.norm(dim=1, keepdim=True), X[0]),
    ("norm_p1", lambda t: t.norm(p=1, dim=0), X[0]),
    ("norm_p3", lambda t: t.norm(3), X[0]),
    ("norm_p_half", lambda t: t.norm(0.5, dim=1), X[0]),
    ("norm_p_1_5", lambda t: t.norm(1.5), X[0]),
    ("norm_inf", lambda t: t.norm(math.inf, dim=1), X[0]),
    ("norm_ninf", lambda t: t.norm(-math.inf), X[0]),
    ("logsumexp", lambda t: t.logsumexp(1), X[0]),
    ("logsumexp_keepdim", lambda t: t.logsumexp((0, 1), keepdim=True), X[0]),
    ("cumsum", lambda t: t.cumsum(1), X[0]),
    ("cumsum_3d", lambda t: t.cumsum(-2), X[:2]),
    ("cumprod", lambda t: t.cumprod(1), X[0]),
    ("cumprod_zeros", lambda t: t.cumprod(1), ZEROS),
    ("cumprod_zeros_dim0", lambda t: t.cumprod(0), ZEROS),
    ("sum_empty_dims", lambda t: t.sum(()), X[0]),
]


@pytest.mark.parametrize("fn, data", [g[1:] for g in GRADIENTS], ids=[g[0] for g in GRADIENTS])
def test_gradient_matches_finite_differences(fn, data):
    assert gradcheck(fn, (leaf(data),))


@pytest.mark.parametrize("fn, data", [g[1:] for g in GRADIENTS], ids=[g[0] for g in GRADIENTS])
def test_second_derivative_matches_finite_differences(fn, data):
    assert gradgradcheck(fn, (leaf(data),))


# ----------------------------------------------------------------------------------------
# The rules a student should see: ties, zeros, stability
# ----------------------------------------------------------------------------------------
def test_max_of_all_ties_share_the_gradient_evenly():
    x = leaf([1.0, 3.0, 3.0, 0.0])
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0]
    x = leaf([[2.0, 2.0], [2.0, 1.0]])
    x.min().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, 1.0]]
    x = leaf([[5.0, 5.0, 5.0, 5.0]])
    x.amax(1).sum().backward()
    assert x.grad.tolist() == [[0.25, 0.25, 0.25, 0.25]]


def test_max_along_a_dim_sends_the_gradient_to_the_returned_index_only():
    x = leaf([[1.0, 3.0, 3.0], [4.0, 2.0, 4.0]])
    values, indices = x.max(1)
    assert indices.tolist() == [1, 0]  # the first of the tied maxima, as PyTorch
    values.backward(teachgrad.tensor([10.0, 20.0], dtype=teachgrad.float64))
    assert x.grad.tolist() == [[0.0, 10.0, 0.0], [20.0, 0.0, 0.0]]


def test_prod_gradient_is_the_product_of_the_other_elements_even_at_zeros():
    x = leaf([2.0, 3.0, 4.0])
    x.prod().backward()
    assert x.grad.tolist() == [12.0, 8.0, 6.0]
    x = leaf([2.0, 0.0, 4.0])
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 8.0, 0.0]  # not nan: no division by the zero
    x = leaf([0.0, 3.0, 0.0])
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    x = leaf([[1.0, 0.0], [2.0, 5.0]])
    x.prod(1).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [5.0, 2.0]]


def test_second_derivative_of_prod_with_two_zeros():
    # d²(x0·x1·x2)/dx0 dx1 = x2 even where x0 = x1 = 0: the product of the *others*.
    x = leaf([0.0, 0.0, 7.0])
    (g,) = teachgrad.autograd.grad(x.prod(), x, create_graph=True)
    (h0,) = teachgrad.autograd.grad(g[0], x)
    assert h0.tolist() == [0.0, 7.0, 0.0]


def test_cumsum_gradient_sums_the_later_gradients():
    x = leaf([1.0, 2.0, 3.0])
    x.cumsum(0).backward(teachgrad.tensor([1.0, 10.0, 100.0], dtype=teachgrad.float64))
    assert x.grad.tolist() == [111.0, 110.0, 100.0]


def test_norm_and_std_have_zero_gradient_where_pytorch_defines_it():
    x = leaf([[0.0, 0.0], [3.0, 4.0]])
    x.norm(dim=1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 0.0], [0.6, 0.8]])
    x = leaf([[2.0, 2.0], [1.0, 3.0]])
    x.std(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 0.0], [-1 / math.sqrt(2), 1 / math.sqrt(2)]])


def test_inf_norm_gradient_follows_sign_and_ties():
    x = leaf([-3.0, 1.0, 3.0])
    x.norm(math.inf).backward()
    assert x.grad.tolist() == [-0.5, 0.0, 0.5]


def test_logsumexp_does_not_overflow():
    x = leaf([1000.0, 1000.0, -1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = x.logsumexp(0)
        out.backward()
    assert out.item() == pytest.approx(1000.0 + math.log(2.0))
    np.testing.assert_allclose(x.grad.numpy(), [0.5, 0.5, 0.0])


def test_logsumexp_needs_a_dim():
    with pytest.raises(TypeError):
        teachgrad.ones(2).logsumexp()


def test_var_warns_when_there_are_no_degrees_of_freedom():
    with pytest.warns(UserWarning, match=r"^var\(\): degrees of freedom is <= 0"):
        out = teachgrad.ones(1).var()
    assert math.isnan(out.item())


# ----------------------------------------------------------------------------------------
# (values, indices) results, non-differentiable results, NumPy routing
# ----------------------------------------------------------------------------------------
def test_max_with_dim_returns_a_named_pair():
    x = teachgrad.tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True)
    result = x.max(1)
    values, indices = result
    assert result.values is values and result.indices is indices and result[1] is indices
    assert isinstance(result, tuple) and len(result) == 2
    assert type(result).__name__ == "max"
    assert repr(result) == (
        "teachgrad.return_types.max(\n"
        "values=tensor([5., 7.], grad_fn=<MaxBackward0>),\n"
        "indices=tensor([1, 0]))"
    )
    assert indices.dtype is teachgrad.int64 and indices.grad_fn is None
    assert type(teachgrad.min(x, 0)).__name__ == "min"
    assert type(x.median(0)).__name__ == "median"


def test_index_and_logical_results_are_not_differentiable():
    x = teachgrad.tensor([[1.0, 0.0], [3.0, 4.0]], requires_grad=True)
    for out in (x.argmax(), x.argmin(1), x.count_nonzero()):
        assert out.dtype is teachgrad.int64 and out.grad_fn is None and not out.requires_grad
    for out in (x.all(), x.any(1), teachgrad.all(x, 0, keepdim=True)):
        assert out.dtype is teachgrad.bool and out.grad_fn is None
    assert x.all().item() is False and x.any().item() is True
    assert teachgrad.any(x, 1).tolist() == [True, True]


def test_max_of_two_tensors_is_the_elementwise_maximum():
    a = teachgrad.tensor([1.0, 5.0], requires_grad=True)
    b = teachgrad.tensor([3.0, 2.0])
    out = teachgrad.max(a, b)
    assert out.tolist() == [3.0, 5.0] and out.grad_fn.name() == "MaximumBackward0"
    assert teachgrad.min(a, b).grad_fn.name() == "MinimumBackward0"


def test_numpy_functions_on_tensors_are_teachgrad_ops():
    x = teachgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert np.prod(x, axis=1).grad_fn.name() == "ProdBackward1"
    assert np.prod(x).grad_fn.name() == "ProdBackward0"
    assert np.cumsum(x, axis=0).grad_fn.name() == "CumsumBackward0"
    assert np.cumprod(x, axis=1).grad_fn.name() == "CumprodBackward0"
    assert np.amax(x, axis=0).grad_fn.name() == "AmaxBackward0"
    assert np.amin(x).grad_fn.name() == "AminBackward0"


def test_backward_under_create_graph_records_the_backward_ops():
    x = teachgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = teachgrad.autograd.grad(x.cumsum(0).pow(2).sum(), x, create_graph=True)
    assert g.grad_fn is not None
    (h,) = teachgrad.autograd.grad(g.sum(), x)
    # g_i = Σ_{k≥i} 2·c_k with c_k = Σ_{j≤k} x_j, so ∂g_i/∂x_j = 2·(3 − max(i, j)) and
    # Σ_i ∂g_i/∂x_j = 2·(3+2+1, 2+2+1, 1+1+1)
    assert h.tolist() == [12.0, 10.0, 6.0]


def test_vector_norm_is_available_for_the_linalg_namespace():
    x = teachgrad.tensor([[3.0, 4.0]], requires_grad=True)
    out = reduce.vector_norm(x, dim=1, keepdim=True)
    assert out.tolist() == [[5.0]] and out.grad_fn.name() == "LinalgVectorNormBackward0"
    assert reduce.vector_norm(x, ord=math.inf).item() == 4.0


def test_norm_nuc_is_the_matrix_nuclear_norm():
    # diag(3, -4) has singular values 4 and 3
    assert teachgrad.tensor([[3.0, 0.0], [0.0, -4.0]]).norm(p="nuc").item() == 7.0
    with pytest.raises(RuntimeError, match="Order foo not supported"):
        teachgrad.ones(2, 2).norm(p="foo")


def test_failed_reduction_leaves_the_input_untouched():
    x = teachgrad.tensor([[1.0, 2.0]], requires_grad=True)
    with pytest.raises(IndexError):
        x.max(3)
    with pytest.raises(RuntimeError):
        x.amax((1, 1))
    assert x.tolist() == [[1.0, 2.0]] and x.grad is None and x._version == 0


def test_saved_input_modified_in_place_is_detected():
    x = teachgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    out = y.prod()
    with teachgrad.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


# ----------------------------------------------------------------------------------------
# Parity with PyTorch on random data (skipped without torch)
# ----------------------------------------------------------------------------------------
PARITY = [
    "x.prod()", "x.prod(1)", "x.max()", "x.max(2).values", "x.min(0, True).values",
    "x.amax((0, 2))", "x.amin(-1)", "x.median()", "x.median(1).values", "x.var()",
    "x.var(1, correction=0)", "x.std((0, 1), keepdim=True)", "x.norm()", "x.norm(p=1, dim=2)",
    "x.norm(float('inf'), 0)", "x.norm(p=2.5, dim=(0, 1))", "x.logsumexp(1)", "x.cumsum(2)",
    "x.cumprod(1)",
]


@pytest.mark.torch
@pytest.mark.parametrize("expr", PARITY)
def test_parity_with_torch_on_random_data(expr):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(abs(hash(expr)) % 2**32).standard_normal((3, 4, 5))
    results = []
    for lib in (torch, teachgrad):
        x = lib.tensor(data, requires_grad=True)
        out = eval(expr, {"x": x, "lib": lib})  # noqa: S307
        grad_out = np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape))
        out.backward(lib.tensor(grad_out))
        results.append((out.detach().numpy().copy(), x.grad.numpy().copy(),
                        type(out.grad_fn).__name__ if lib is teachgrad else out.grad_fn.name()))
    (tv, tg, tn), (mv, mg, mn) = results
    np.testing.assert_allclose(mv, tv, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mg, tg, rtol=1e-10, atol=1e-12)
    assert mn == tn


@pytest.mark.parametrize("reduce_", [
    lambda t, d: t.sum(d), lambda t, d: t.mean(d, keepdim=True), lambda t, d: t.std(d),
    lambda t, d: t.var(d), lambda t, d: t.prod(d), lambda t, d: t.amax(d),
    lambda t, d: t.logsumexp(d), lambda t, d: t.norm(dim=d), lambda t, d: t.all(d),
    lambda t, d: t.count_nonzero(d), lambda t, d: t.softmax(d), lambda t, d: t.log_softmax(d),
    lambda t, d: t.sum((d, 0)),
])
def test_numpy_integer_dims_are_ints(reduce_):
    # PyTorch takes np.int64 (from np.argmax, arr.ndim - 1 ...) wherever it takes an int.
    t = leaf(X[0])
    expected = reduce_(t, 1)
    got = reduce_(t, np.int64(1))
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())


def test_float16_cumsum_accumulates_in_float32():
    # In float16 alone, 2048 + 1 rounds back to 2048; PyTorch's kernel adds in float32.
    out = teachgrad.ones(5000, dtype=teachgrad.float16).cumsum(0)
    assert out.dtype == teachgrad.float16
    assert out[-1].item() == 5000.0  # a float16 (a multiple of 4 above 4096)


@pytest.mark.parametrize("call, expected_shape", [
    (lambda x: x.sum(axis=0), (3,)),
    (lambda x: teachgrad.sum(x, axis=1, keepdims=True), (2, 1)),
    (lambda x: x.mean(axis=-1, keepdims=True), (2, 1)),
    (lambda x: x.max(axis=1).values, (2,)),
    (lambda x: x.softmax(axis=0), (2, 3)),
    (lambda x: teachgrad.nn.functional.log_softmax(x, axis=1), (2, 3)),
    (lambda x: teachgrad.stack([x, x], axis=1), (2, 2, 3)),
    (lambda x: x.unsqueeze(axis=0), (1, 2, 3)),
    (lambda x: teachgrad.linalg.vector_norm(x, axis=0), (3,)),
])
def test_numpy_spellings_axis_and_keepdims_are_accepted(call, expected_shape):
    # PyTorch takes axis= for dim= and keepdims= for keepdim= wherever there is a dim.
    x = teachgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    out = call(x)
    assert tuple(out.shape) == expected_shape


def test_numpy_spelling_gives_the_same_values_and_gradients():
    x = teachgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    x.sum(axis=0, keepdims=True).pow(2).sum().backward()
    # d/dx of sum_j (x_0j + x_1j)^2 = 2 (x_0j + x_1j) for both rows: 10, 14, 18
    assert x.grad.tolist() == [[10.0, 14.0, 18.0], [10.0, 14.0, 18.0]]


def test_dim_and_its_alias_together_are_refused():
    with pytest.raises(TypeError, match="got both 'dim' and its alias 'axis'"):
        teachgrad.ones(2, 3).sum(dim=0, axis=1)


def test_float16_sums_and_means_add_up_in_float32():
    # PyTorch accumulates half in float32: a partial sum may pass float16's largest
    # number (65504) as long as the result fits. (NumPy in float16 gave inf for all four.)
    rows = teachgrad.tensor([[60000.0, 1.0], [60000.0, 1.0], [-60000.0, 1.0]],
                            dtype=teachgrad.float16)
    assert rows.sum(0).tolist() == [60000.0, 3.0]
    assert rows.mean(0).tolist() == [20000.0, 1.0]
    pair = teachgrad.tensor([60000.0, 60000.0], dtype=teachgrad.float16)
    assert pair.mean().item() == 60000.0
    assert pair.mean().dtype == teachgrad.float16 and rows.sum(0).dtype == teachgrad.float16


def test_float16_broadcast_gradients_add_up_in_float32():
    # b is broadcast over 3 rows: its gradient is the column sum of the incoming one.
    # 60000 + 60000 - 60000 overflows float16 on the way, not at the end.
    b = teachgrad.zeros(2, dtype=teachgrad.float16, requires_grad=True)
    weights = teachgrad.tensor([[60000.0, 1.0], [60000.0, 1.0], [-60000.0, 1.0]],
                               dtype=teachgrad.float16)
    (teachgrad.zeros(3, 2, dtype=teachgrad.float16) + b).backward(weights)
    assert b.grad.tolist() == [60000.0, 3.0]
