"""Differences found by calling every Tensor method with no arguments on a few tensors,
next to PyTorch: histogram bin edges, ``cholesky_inverse`` of a full matrix, methods called
without their argument (``fill_()``, ``view()``, ``repeat_interleave()``), ``mH`` and
``adjoint()`` of a 0-d tensor, and two error messages.

Expectations are hand-derived (bin arithmetic, a 2×2 inverse worked out below); with
PyTorch installed (``torch`` marker) the same calls are compared with it.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad


# ----------------------------------------------------------------------------------------
# histogram and histc
# ----------------------------------------------------------------------------------------
def test_histogram_edges_are_linspace_and_each_value_is_in_its_edges():
    x = teachgrad.tensor([[1.5, -2.0, 0.0], [0.25, 3.0, -0.5]])
    hist, edges = x.histogram()  # 100 bins over the data's range [-2, 3]
    # The edges are torch.linspace's own values (in float32, -0.49999997 rather than -0.5).
    np.testing.assert_array_equal(edges.numpy(), teachgrad.linspace(-2.0, 3.0, 101).numpy())
    assert edges[30].item() > -0.5
    assert hist.sum().item() == 6
    e = edges.numpy()
    for value in x.flatten().tolist():
        i = min(int(np.searchsorted(e, np.float32(value), side="right")) - 1, 99)
        assert e[i] <= value and (value < e[i + 1] or i == 99)
        assert hist[i].item() >= 1
    assert hist[29].item() == 1  # -0.5 is below edges[30]: it counts in bin 29


def test_histc_finds_bins_by_arithmetic():
    # (v - min) * bins / (max - min) is exactly 30, 40 and 45 here (float32 arithmetic):
    # histc counts by that number, not by comparing with edges as histogram does.
    counts = teachgrad.histc(teachgrad.tensor([-0.5, 0.0, 0.25]), bins=100, min=-2, max=3)
    assert counts.nonzero().flatten().tolist() == [30, 40, 45]
    top = teachgrad.histc(teachgrad.tensor([3.0, 2.99, -2.0]), bins=5, min=-2, max=3)
    assert top.tolist() == [1.0, 0.0, 0.0, 0.0, 2.0]  # max itself is in the last bin


def test_histc_of_bools_names_pytorchs_first_kernel():
    with pytest.raises(NotImplementedError, match='"linspace_cpu" not implemented for'):
        teachgrad.histc(teachgrad.tensor([True, False]))
    with pytest.raises(NotImplementedError, match='"histogram_cpu" not implemented for'):
        teachgrad.histc(teachgrad.tensor([1, 2]))


@pytest.mark.torch
def test_histc_and_histogram_match_torch_on_values_near_edges():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for _ in range(400):
        dtype = str(rng.choice(["float32", "float64"]))
        values = np.round(rng.uniform(-3, 3, int(rng.integers(1, 40))),
                          int(rng.integers(0, 3))).astype(dtype)  # many on edges
        bins = int(rng.integers(1, 120))
        low, high = sorted(float(v) for v in np.round(rng.uniform(-3, 3, 2), 1))
        results = []
        for T in (torch, teachgrad):
            x = T.tensor(values)
            hist, edges = T.histogram(x, bins=bins)
            results.append((T.histc(x, bins=bins, min=low, max=high).tolist(),
                            hist.tolist(), edges.tolist()))
        assert results[0] == results[1], (values, bins, low, high)


# ----------------------------------------------------------------------------------------
# cholesky_inverse reads only the factor's triangle
# ----------------------------------------------------------------------------------------
def test_cholesky_inverse_reads_only_the_lower_triangle():
    # L = [[2, 0], [1, 3]] (the 1 above the diagonal is ignored): L Lᵀ = [[4, 2], [2, 10]],
    # whose inverse is [[10, -2], [-2, 4]] / 36.
    full = teachgrad.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=teachgrad.float64)
    expected = np.array([[10.0, -2.0], [-2.0, 4.0]]) / 36
    np.testing.assert_allclose(teachgrad.cholesky_inverse(full).numpy(), expected)
    # upper=True reads the upper triangle: U = [[2, 1], [0, 3]], UᵀU = [[4, 2], [2, 10]]
    np.testing.assert_allclose(teachgrad.cholesky_inverse(full, upper=True).numpy(), expected)


@pytest.mark.torch
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_of_a_full_matrix_matches_torch(upper):
    torch = pytest.importorskip("torch")
    data = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.2, 0.3, 4.0]])
    weights = np.arange(9.0).reshape(3, 3)
    results = []
    for T in (torch, teachgrad):
        L = T.tensor(data, requires_grad=True)
        X = T.cholesky_inverse(L, upper=upper)
        (X * T.tensor(weights)).sum().backward()
        results.append((X.detach().numpy(), L.grad.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12, atol=1e-14)


# ----------------------------------------------------------------------------------------
# Methods called without their argument
# ----------------------------------------------------------------------------------------
NO_ARGUMENT = {
    "fill_": lambda T: T.ones(2).fill_(),
    "view of a 0-d tensor": lambda T: T.tensor(2.5).view(),
    "view": lambda T: T.ones(2).view(),
    "repeat_interleave of ints": lambda T: T.tensor([1, 2]).repeat_interleave(),
    "repeat_interleave of floats": lambda T: T.ones(2).repeat_interleave(),
}


@pytest.mark.parametrize("name", sorted(NO_ARGUMENT))
def test_a_method_without_its_argument_lists_its_signatures(name):
    with pytest.raises(TypeError, match="received an invalid combination of arguments - got"):
        NO_ARGUMENT[name](teachgrad)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(NO_ARGUMENT))
def test_a_method_without_its_argument_matches_torch(name):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as theirs:
        NO_ARGUMENT[name](torch)
    with pytest.raises(TypeError) as ours:
        NO_ARGUMENT[name](teachgrad)
    # (the signatures are PyTorch's text, torch.dtype included, as its parser prints them)
    assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


def test_the_forms_with_arguments_still_work():
    assert teachgrad.ones(2).fill_(value=4.0).tolist() == [4.0, 4.0]
    assert teachgrad.ones(2).fill_(teachgrad.tensor(2.0)).tolist() == [2.0, 2.0]
    assert teachgrad.tensor(2.5).view(1).shape == (1,)
    assert teachgrad.tensor(2.5).view([]).shape == ()
    assert teachgrad.repeat_interleave(teachgrad.tensor([1, 2])).tolist() == [0, 1, 1]
    assert teachgrad.tensor([1, 2]).repeat_interleave(repeats=2).tolist() == [1, 1, 2, 2]


# ----------------------------------------------------------------------------------------
# mH and adjoint() of a 0-d tensor; the older svd's message
# ----------------------------------------------------------------------------------------
def test_mh_and_adjoint_of_a_0d_tensor_are_the_tensor_with_a_warning():
    x = teachgrad.tensor(2.5, requires_grad=True)
    with pytest.warns(UserWarning, match="Tensor.mH is deprecated on 0-D tensors"):
        assert x.mH is x
    with pytest.warns(UserWarning, match=r"adjoint\(\) is deprecated on 0-D tensors"):
        assert x.adjoint() is x
    with pytest.raises(RuntimeError, match="Got 1-D tensor"):
        teachgrad.ones(2).mH  # noqa: B018


@pytest.mark.parametrize("ndim", [0, 1])
def test_the_older_svd_words_its_dimension_error_as_pytorch(ndim):
    x = teachgrad.ones((2,) * ndim)
    message = f"input should have at least 2 dimensions, but has {ndim} dimensions instead"
    with pytest.raises(RuntimeError, match=message):
        teachgrad.svd(x)
    with pytest.raises(RuntimeError, match="The input tensor A must have at least 2 dimensions"):
        teachgrad.linalg.svd(x)
