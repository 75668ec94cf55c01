"""linalg.lstsq: PyTorch's batch rule when B is a matrix with one dimension fewer than A.

PyTorch then broadcasts ``B.shape[:-1]`` with A's batch shape (as it would for a batch of
vectors) and solves each matrix of that batch against the whole of B: A (1, 3, 3) with
B (3, 2) gives three equal (3, 2) solutions. B with more dimensions than A, or two fewer,
is an error.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck

RNG = np.random.default_rng(17)


def test_each_copy_is_the_solution_of_the_matrix_problem():
    A = teachgrad.tensor(RNG.standard_normal((1, 4, 3)))
    B = teachgrad.tensor(RNG.standard_normal((4, 2)))
    solution = teachgrad.linalg.lstsq(A, B).solution
    assert solution.shape == (4, 3, 2)
    single = teachgrad.linalg.lstsq(A[0], B).solution
    for copy in solution:
        np.testing.assert_allclose(copy.numpy(), single.numpy(), atol=1e-12)


def test_gradient_sums_over_the_copies():
    A = teachgrad.tensor(RNG.standard_normal((1, 3, 3)) + 3 * np.eye(3), requires_grad=True)
    B = teachgrad.tensor(RNG.standard_normal((3, 2)), requires_grad=True)
    assert gradcheck(lambda A, B: teachgrad.linalg.lstsq(A, B).solution, (A, B))


@pytest.mark.parametrize("a_shape, b_shape", [
    ((3, 3), (4, 1, 3, 2)), ((3, 1, 4, 3), (2, 4)),
])
def test_dimension_error(a_shape, b_shape):
    with pytest.raises(RuntimeError, match=r"input.dim\(\) must be greater or equal"):
        teachgrad.linalg.lstsq(teachgrad.ones(*a_shape), teachgrad.ones(*b_shape))


CASES = [((1, 3, 3), (3, 3)), ((1, 4, 3), (4, 5)), ((4, 4, 3), (4, 5)), ((2, 4, 3), (4, 5)),
         ((1, 4, 3), (4, 2)), ((2, 4, 3), (2, 4)), ((2, 4, 3), (1, 4)), ((1, 4, 3), (1, 4)),
         ((3, 3), (4, 1, 3, 2)), ((3, 3), (3,)), ((2, 3, 3), (3,)), ((1, 4, 4), (5, 4)),
         ((3, 1, 4, 3), (2, 4)), ((2, 1, 4, 3), (5, 4, 2))]


@pytest.mark.torch
@pytest.mark.parametrize("a_shape, b_shape", CASES)
def test_shapes_and_errors_match_torch(a_shape, b_shape):
    torch = pytest.importorskip("torch")
    a, b = RNG.standard_normal(a_shape), RNG.standard_normal(b_shape)
    results = []
    for T in (torch, teachgrad):
        try:
            r = T.linalg.lstsq(T.tensor(a), T.tensor(b), driver="gelsd")
            results.append([x.numpy() for x in r])
        except RuntimeError as error:
            results.append(str(error))
    if isinstance(results[0], str):
        assert results[1] == results[0]
    else:
        for theirs, ours in zip(*results):
            assert ours.shape == theirs.shape
            np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)
