"""Differences the function sweep (tests/sweep_functions_against_torch.py) found, fixed.

Each test states the expected values worked out by hand, and compares with PyTorch where
it is installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgrad


def _torch_or_none():
    try:
        import torch
    except ImportError:
        return None
    return torch


LIBS = [teachgrad] + ([_torch_or_none()] if _torch_or_none() is not None else [])
each_library = pytest.mark.parametrize("lib", LIBS, ids=lambda lib: lib.__name__)


# ---------------------------------------------------------------- cholesky_solve's triangle


@each_library
def test_cholesky_solve_reads_only_the_factors_triangle(lib):
    # L = [[2, 0], [1, 1]] (the 5 above the diagonal is not part of it): A = L Lᵀ =
    # [[4, 2], [2, 2]], and A x = [4, 2] has x = [1, 0]. Reading all of L would solve
    # [[29, 7], [7, 2]] x = [4, 2] instead.
    L = lib.tensor([[2.0, 5.0], [1.0, 1.0]], dtype=lib.float64)
    x = lib.cholesky_solve(lib.tensor([[4.0], [2.0]], dtype=lib.float64), L)
    np.testing.assert_allclose(x.numpy(), [[1.0], [0.0]], atol=1e-12)
    # upper=True reads the upper triangle: U = [[2, 1], [0, 1]], A = UᵀU = [[4, 2], [2, 2]]
    U = lib.tensor([[2.0, 1.0], [7.0, 1.0]], dtype=lib.float64)
    x = lib.cholesky_solve(lib.tensor([[4.0], [2.0]], dtype=lib.float64), U, upper=True)
    np.testing.assert_allclose(x.numpy(), [[1.0], [0.0]], atol=1e-12)


@each_library
def test_cholesky_solve_gradient_in_b_uses_the_triangle(lib):
    # X = A⁻¹B, so ∂ΣX/∂B = A⁻¹·1 = A⁻¹[1, 1] = [[0.5 -0.5], [-0.5, 1]]·[1, 1] = [0, 0.5]
    L = lib.tensor([[2.0, 5.0], [1.0, 1.0]], dtype=lib.float64)
    B = lib.tensor([[4.0], [2.0]], dtype=lib.float64, requires_grad=True)
    lib.cholesky_solve(B, L).sum().backward()
    np.testing.assert_allclose(B.grad.numpy(), [[0.0], [0.5]], atol=1e-12)


def test_cholesky_solve_matches_pytorch_on_a_full_matrix():
    torch = pytest.importorskip("torch")
    rows = [[2.0, -1.0, 0.0], [1.0, 3.0, 1.0], [0.5, 0.0, 1.5]]
    b_rows = [[1.0, 2.0], [0.0, -1.0], [3.0, 1.0]]
    for upper in (False, True):
        results = []
        for lib in (teachgrad, torch):
            L = lib.tensor(rows, dtype=lib.float64, requires_grad=True)
            B = lib.tensor(b_rows, dtype=lib.float64, requires_grad=True)
            X = lib.cholesky_solve(B, L, upper=upper)
            X.sum().backward()
            results.append([X.detach().numpy(), B.grad.numpy(), L.grad.numpy()])
        for ours, theirs in zip(*results):
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- creation and sampling


@each_library
def test_arange_of_an_integer_tensor_is_int64(lib):
    assert lib.arange(lib.tensor(3)).dtype == lib.int64
    assert lib.arange(lib.tensor(3)).tolist() == [0, 1, 2]
    assert lib.arange(1, lib.tensor(6), lib.tensor(2)).tolist() == [1, 3, 5]
    assert lib.arange(lib.tensor(2.0)).dtype == lib.float32


@each_library
def test_rand_like_and_randn_like_of_a_0d_tensor(lib):
    x = lib.tensor(2.5, dtype=lib.float64)
    for fn in (lib.rand_like, lib.randn_like):
        sample = fn(x)
        assert sample.shape == () and sample.dtype == lib.float64
    assert 0.0 <= lib.rand_like(x).item() < 1.0


def test_rand_like_of_a_0d_tensor_draws_pytorchs_number():
    torch = pytest.importorskip("torch")
    drawn = []
    for lib in (teachgrad, torch):
        lib.manual_seed(0)
        drawn.append((lib.rand_like(lib.tensor(1.0)).item(),
                      lib.randn_like(lib.tensor(1.0)).item()))
    assert drawn[0] == drawn[1]


# ---------------------------------------------------------------- where(condition), nonzero


@each_library
def test_where_of_a_0d_condition(lib):
    (found,) = lib.where(lib.tensor(2.5))
    assert found.tolist() == [0] and found.dtype == lib.int64
    (found,) = lib.where(lib.tensor(0.0))
    assert found.tolist() == []


@each_library
def test_nonzero_is_laid_out_column_by_column(lib):
    m = lib.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 4.0]])
    indices = lib.nonzero(m)
    assert indices.tolist() == [[0, 0], [0, 2], [1, 1], [1, 2]]
    assert indices.stride() == (1, 4) and not indices.is_contiguous()
    rows, cols = lib.where(m)
    assert (rows.tolist(), cols.tolist()) == ([0, 0, 1, 1], [0, 2, 1, 2])
    assert rows.stride() == cols.stride() == (1,)
    assert [c.stride() for c in lib.nonzero(m, as_tuple=True)] == [(1,), (1,)]


# ---------------------------------------------------------------- hardtanh / relu6 on integers


@each_library
def test_hardtanh_and_relu6_clamp_integer_tensors(lib):
    F = lib.nn.functional
    x = lib.tensor([3, -1, 0, 2, 7, -4])
    assert F.relu6(x).tolist() == [3, 0, 0, 2, 6, 0] and F.relu6(x).dtype == lib.int64
    assert F.hardtanh(x).tolist() == [1, -1, 0, 1, 1, -1]
    # float bounds are truncated to the integer type: [-2.5, 3.5] clamps to [-2, 3]
    assert F.hardtanh(x, -2.5, 3.5).tolist() == [3, -1, 0, 2, 3, -2]
    F.hardtanh_(x)
    assert x.tolist() == [1, -1, 0, 1, 1, -1]


@each_library
def test_hardtanh_refuses_bool(lib):
    with pytest.raises(RuntimeError, match="^Bool inputs not supported for hardtanh"):
        lib.nn.functional.relu6(lib.tensor([True, False]))


# ---------------------------------------------------------------- dist's dtype and errors


@each_library
def test_dist_promotes_as_subtraction(lib):
    a = lib.tensor([1.5, -2.0], requires_grad=True)
    b = lib.tensor([3, 1])
    d = lib.dist(a, b)  # ‖[-1.5, -3]‖ = √11.25
    assert d.dtype == lib.float32
    np.testing.assert_allclose(d.item(), 11.25 ** 0.5, rtol=1e-6)
    d.backward()  # (a − b)/‖a − b‖
    np.testing.assert_allclose(a.grad.numpy(), np.array([-1.5, -3.0]) / 11.25 ** 0.5,
                               rtol=1e-6)
    assert lib.dist(a.double(), b).dtype == lib.float64


@each_library
def test_dist_errors(lib):
    with pytest.raises(RuntimeError, match="^norm\\(\\): input dtype should be either floating "
                                           "point or complex. Got Long instead."):
        lib.dist(lib.tensor([1, 2]), lib.tensor([3, 4]))
    with pytest.raises(RuntimeError, match="^Subtraction, the `-` operator, with two bool"):
        lib.dist(lib.tensor([True]), lib.tensor([False]))


# ---------------------------------------------------------------- *_copy results are row-major


@each_library
@pytest.mark.parametrize("name, args", [
    ("t_copy", ()), ("transpose_copy", (0, 1)), ("permute_copy", ((1, 0),)),
    ("alias_copy", ()), ("detach_copy", ()), ("unsqueeze_copy", (0,)),
])
def test_copy_functions_give_contiguous_results(lib, name, args):
    x = lib.arange(6.0).view(2, 3).t()  # a (3, 2) tensor with strides (1, 3)
    out = getattr(lib, name)(x, *args)
    assert out.is_contiguous()
    expected = x.numpy()
    if name in ("t_copy", "transpose_copy", "permute_copy"):
        expected = expected.T
    np.testing.assert_array_equal(out.numpy().reshape(expected.shape), expected)
    out.view(-1)  # (a view of a transposed layout would fail here)


@each_library
def test_diagonal_copy_of_a_batch_is_contiguous(lib):
    x = lib.arange(8.0).view(2, 2, 2)
    out = lib.diagonal_copy(x)  # out[i, j] = x[j, j, i] (the diagonal dims go last)
    assert out.tolist() == [[0.0, 6.0], [1.0, 7.0]] and out.stride() == (2, 1)


# ---------------------------------------------------------------- allclose / isclose operands


@each_library
def test_isclose_and_allclose_refuse_mixed_dtypes(lib):
    # PyTorch compares tensors of one dtype: float32 against float64 is an error, not a
    # promotion (a test passing in teachgrad would fail in PyTorch)
    a = lib.tensor([1.0, 2.0])
    for other, name in ((lib.tensor([1.0, 2.0], dtype=lib.float64), "Double"),
                        (lib.tensor([1, 2]), "Long")):
        for fn in (lib.isclose, lib.allclose):
            with pytest.raises(RuntimeError, match=f"^Float did not match {name}"):
                fn(a, other)
    assert lib.allclose(a, a + 1e-9)
    assert lib.isclose(a, lib.tensor([1.0, 2.5])).tolist() == [True, False]


@each_library
def test_isclose_shapes_that_do_not_broadcast(lib):
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size "
                                           r"of tensor b \(3\) at non-singleton dimension 0"):
        lib.isclose(lib.ones(2), lib.ones(3))


# ---------------------------------------------------------------- PyTorch's errors, not NumPy's


@each_library
def test_a_number_among_tensors(lib):
    x = lib.tensor([1.0, 2.0])
    message = "^expected Tensor as element 1 in argument 0, but got int"
    for call in (lambda: lib.atleast_1d(x, 2), lambda: lib.atleast_2d(x, 2),
                 lambda: lib.meshgrid(x, 2, indexing="ij")):
        with pytest.raises(TypeError, match=message):
            call()


@each_library
def test_unique_along_a_dim_of_a_0d_tensor(lib):
    x = lib.tensor(2.5)
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dim"):
        lib.unique(x, dim=0)
    with pytest.raises(IndexError, match="^Dimension specified as -1 but tensor has no dim"):
        lib.unique_consecutive(x, dim=-1)


@each_library
def test_tensordot_with_more_dims_than_a_tensor_has(lib):
    with pytest.raises(RuntimeError, match="^tensordot expects dims < ndim_a or ndim_b, but "
                                           "got dims=2"):
        lib.tensordot(lib.ones(2, 3), lib.ones(3), 2)
    # dims equal to both ranks is a full contraction: Σ 1·1 over 6 elements
    assert lib.tensordot(lib.ones(2, 3), lib.ones(2, 3), 2).item() == 6.0


@each_library
def test_cross_of_different_ranks(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="^linalg.cross: inputs must have the same num"):
            lib.cross(lib.ones(2, 3), lib.ones(3))
    said = [w for w in caught if "without specifying the dim arg is deprecated" in str(w.message)]
    # PyTorch warns once per process (TORCH_WARN_ONCE), so an earlier test may have had it;
    # teachgrad warns every time (Python's own filters decide what the user sees).
    if lib is teachgrad:
        assert len(said) == 1 and said[0].category is UserWarning


@each_library
def test_binomial_checks_dtypes_and_shapes(lib):
    with pytest.raises(RuntimeError, match="^Found dtype Float but expected Double"):
        lib.binomial(lib.ones(2, dtype=lib.float64), lib.full((2,), 0.5))
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match"):
        lib.binomial(lib.ones(2, 3), lib.full((3, 3), 0.5))
    # probabilities 0 and 1 leave no chance: 0 and all 5 successes
    assert lib.binomial(lib.tensor([5.0, 5.0]), lib.tensor([0.0, 1.0])).tolist() == [0.0, 5.0]


@each_library
def test_window_length_as_a_0d_tensor(lib):
    # the periodic Hann window of length 3 is sin²(πn/3): sin²(0), sin²(π/3), sin²(2π/3)
    np.testing.assert_allclose(lib.hann_window(lib.tensor(3)).numpy(), [0.0, 0.75, 0.75],
                               atol=1e-7)
    np.testing.assert_allclose(lib.kaiser_window(lib.tensor(3)).numpy(),
                               lib.kaiser_window(3).numpy())


# ---------------------------------------------------------------- out= on more functions


@each_library
@pytest.mark.parametrize("call, expected", [
    # erf(0) = 0; erfc(0) = 1; exp2(3) = 8; frac(2.5) = 0.5; sinc(0) = 1; logit(½) = 0
    (lambda lib, x, o: lib.erf(x[:1] * 0, out=o), [0.0]),
    (lambda lib, x, o: lib.erfc(x[:1] * 0, out=o), [1.0]),
    (lambda lib, x, o: lib.exp2(x[:1] * 0 + 3, out=o), [8.0]),
    (lambda lib, x, o: lib.frac(x[:1] + 1, out=o), [0.5]),
    (lambda lib, x, o: lib.special.sinc(x[:1] * 0, out=o), [1.0]),
    (lambda lib, x, o: lib.special.logit(x[:1], out=o), [0.0]),
    (lambda lib, x, o: lib.special.ndtr(x[:1] * 0, out=o), [0.5]),
    (lambda lib, x, o: lib.linalg.det(lib.eye(2) * 3, out=o), 9.0),
    (lambda lib, x, o: lib.linalg.vector_norm(lib.tensor([3.0, 4.0]), out=o), 5.0),
    (lambda lib, x, o: lib.t_copy(lib.tensor([[1.0, 2.0]]), out=o), [[1.0], [2.0]]),
])
def test_out_on_more_functions(lib, call, expected):
    x = lib.tensor([0.5, 2.0])
    out = lib.empty(0)
    assert call(lib, x, out) is out
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-6)


@each_library
def test_out_of_a_result_without_gradient_takes_inputs_that_require_grad(lib):
    w = lib.tensor([1.0, 3.0, 2.0], requires_grad=True)
    index = lib.empty(0, dtype=lib.int64)
    assert lib.argmax(w, out=index) is index and index.item() == 1
    same = lib.empty(0, dtype=lib.bool)
    assert lib.eq(w, w, out=same).tolist() == [True, True, True]
    with pytest.raises(RuntimeError, match="^erf\\(\\): functions with out=... arguments don't "
                                           "support automatic differentiation"):
        lib.erf(w, out=lib.empty(0))


@each_library
def test_out_dtype_messages(lib):
    x = lib.tensor([0.5, 2.0])
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype long int, but "
                                           "got float instead"):
        lib.argmax(x, out=lib.empty(0))
    with pytest.raises(RuntimeError, match="^Found dtype Long but expected Float"):
        lib.frac(x, out=lib.empty(0, dtype=lib.int64))
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired "
                                           "output type Long"):
        lib.erf(x, out=lib.empty(0, dtype=lib.int64))


# ---------------------------------------------------------------- embedding's table, bool()


@each_library
def test_embedding_table_must_be_2d(lib):
    for weight in (lib.ones(3), lib.ones(3, 2, 2)):
        with pytest.raises(RuntimeError, match="^'weight' must be 2-D"):
            lib.nn.functional.embedding(lib.tensor([0, 1]), weight)
    with pytest.raises(RuntimeError, match="^'weight' must be 2-D"):
        lib.embedding(lib.ones(3), lib.tensor([0]))  # (ATen's order: weight first)
    # a 2-d table: row 1 of [[0, 0], [1, 2]]
    assert lib.nn.functional.embedding(lib.tensor([1]), lib.tensor([[0.0, 0.0], [1.0, 2.0]])
                                       ).tolist() == [[1.0, 2.0]]


@each_library
def test_bool_of_an_empty_tensor(lib):
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with no values is "
                                           "ambiguous"):
        bool(lib.ones(0))
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one"):
        bool(lib.ones(2))
    assert bool(lib.ones(1, 1)) is True


@each_library
def test_out_of_special_functions_without_derivative(lib):
    # PyTorch gives bessel_j0 and the orthogonal polynomials no derivative: their results
    # never require grad, so out= takes inputs that do. T₂(½) = 2·¼ − 1 = −½, T₃(1) = 1.
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    out = lib.empty(0)
    lib.special.chebyshev_polynomial_t(x, lib.tensor([2.0, 3.0]), out=out)
    assert out.tolist() == [-0.5, 1.0] and not out.requires_grad
    np.testing.assert_allclose(lib.special.bessel_j0(x, out=lib.empty(0)).numpy(),
                               [0.938469807, 0.765197687], rtol=1e-6)
