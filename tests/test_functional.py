"""``autograd.functional``: jacobian, hessian, vjp, jvp, hvp, vhp as in PyTorch.

Programs in fixtures/program_cases.json, group "functional" (generated with real PyTorch
by fixtures/make_program_cases.py), run here with teachgrad; plus hand-derived values.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import programs
import pytest

import teachgrad
from teachgrad.autograd import functional as F

CASES = json.loads((Path(__file__).parent / "fixtures" / "program_cases.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES["functional"]))
def test_same_as_pytorch(name):
    programs.check_against_pytorch(CASES["functional"][name], teachgrad)


def t(*values):
    return teachgrad.tensor(list(values), dtype=teachgrad.float64)


def test_jacobian_of_elementwise_square_is_diagonal_2x():
    assert F.jacobian(lambda x: x**2, t(1.0, 2.0, 3.0)).tolist() == [
        [2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0],
    ]


def test_jacobian_shape_is_output_shape_then_input_shape():
    m = teachgrad.ones(2, 3, dtype=teachgrad.float64)
    J = F.jacobian(lambda x: x.sum(0), m)
    assert tuple(J.shape) == (3, 2, 3)
    expected = np.zeros((3, 2, 3))
    for j in range(3):
        expected[j, :, j] = 1  # output j is the sum of column j
    assert np.array_equal(J.numpy(), expected)


def test_hessian_of_cubic_and_mixed_terms():
    """f(x, y) = x³ + x·y: H = [[6x, 1], [1, 0]], as a tuple of tuples for tuple inputs."""
    H = F.hessian(lambda x, y: x**3 + x * y, (t(2.0).sum(), t(5.0).sum()))
    assert [[h.item() for h in row] for row in H] == [[12.0, 1.0], [1.0, 0.0]]


def test_hvp_equals_hessian_times_v():
    def f(x):
        return (x.exp() * x).sum()

    x, v = t(0.1, -0.4, 1.0), t(1.0, 2.0, -1.0)
    H = F.hessian(f, x)
    _, hv = F.hvp(f, x, v)
    _, vh = F.vhp(f, x, v)
    assert np.allclose(hv.numpy(), H.numpy() @ v.numpy())
    assert np.allclose(vh.numpy(), v.numpy() @ H.numpy())
    # d²/dx² (x eˣ) = (x + 2) eˣ on the diagonal
    assert np.allclose(np.diag(H.numpy()), (x.numpy() + 2) * np.exp(x.numpy()))


def test_vjp_and_jvp_agree_with_the_jacobian():
    def f(x):
        return (x * x.sum()).sin()

    x = t(0.3, -0.2, 0.9)
    J = F.jacobian(f, x).numpy()
    u, v = t(1.0, -2.0, 0.5), t(0.5, 0.25, -1.0)
    out, uJ = F.vjp(f, x, u)
    out2, Jv = F.jvp(f, x, v)
    assert np.allclose(uJ.numpy(), u.numpy() @ J)
    assert np.allclose(Jv.numpy(), J @ v.numpy())
    assert np.allclose(out.numpy(), f(x).numpy()) and np.allclose(out2.numpy(), out.numpy())


def test_create_graph_results_are_differentiable():
    x = t(1.0, 2.0).requires_grad_()
    J = F.jacobian(lambda x: x**3, x, create_graph=True)  # diag(3x²)
    assert J.requires_grad
    J.sum().backward()  # d/dx sum(3x²) = 6x
    assert x.grad.tolist() == [6.0, 12.0]


def test_results_do_not_require_grad_without_create_graph():
    x = t(1.0, 2.0).requires_grad_()
    out, g = F.vjp(lambda x: x * 2, x, t(1.0, 1.0))
    assert not out.requires_grad and not g.requires_grad
    assert x.grad is None
