"""Many vector-Jacobian products through one graph: ``autograd.grad(...,
is_grads_batched=True)`` and ``autograd.grad`` inside ``vmap``.

PyTorch runs one batched backward; teachgrad runs one backward per row and keeps the graph
until the last row. The Jacobians are checked against hand-derived ones, and the graph's
life against PyTorch's rules (freed after the batch unless ``retain_graph=True``).
"""

import numpy as np
import pytest

import teachgrad as torch

BACKWARD_TWICE = "Trying to backward through the graph a second time"


def square():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    return x, x**2


def test_jacobian_rows_by_hand():
    x, y = square()
    (jac,) = torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True)
    np.testing.assert_array_equal(jac.numpy(), np.diag([1.0, -2.0, 4.0]))  # d(x²)/dx = 2x


def test_a_full_jacobian_by_hand():
    a = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    y = torch.tensor(a) @ torch.sin(x)  # J = A · diag(cos x)
    (jac,) = torch.autograd.grad(y, x, torch.eye(2, dtype=torch.float64),
                                 is_grads_batched=True)
    np.testing.assert_allclose(jac.numpy(), a * np.cos([1.0, 2.0, 3.0]), rtol=1e-15)


def test_several_outputs_share_the_batch():
    # row k: v_k ⊙ 2x + s_k · 2x, with s = (1, 10)
    x, y = square()
    v = torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    (rows,) = torch.autograd.grad((y, y.sum()), x, (v, torch.tensor([1.0, 10.0])),
                                  is_grads_batched=True)
    two_x = np.array([1.0, -2.0, 4.0])
    np.testing.assert_array_equal(rows.numpy(), [two_x * [2, 1, 1], two_x * [10, 10, 11]])


def test_the_graph_is_freed_after_the_batch_unless_retained():
    x, y = square()
    torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True)
    with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        torch.autograd.grad(y.sum(), x)  # y's own node was freed
    x, y = square()
    torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True, retain_graph=True)
    (again,) = torch.autograd.grad(y, x, torch.ones(3))
    np.testing.assert_array_equal(again.numpy(), [1.0, -2.0, 4.0])


def test_create_graph_gives_differentiable_rows():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = x**3
    (jac,) = torch.autograd.grad(y, x, torch.eye(2, dtype=torch.float64),
                                 is_grads_batched=True, create_graph=True)
    assert jac.requires_grad
    (d2,) = torch.autograd.grad(jac.sum(), x)  # d/dx of 3x² on the diagonal: 6x
    np.testing.assert_array_equal(d2.numpy(), [6.0, 12.0])


def test_unused_inputs():
    x, y = square()
    z = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="index 1 appears to not have been used"):
        torch.autograd.grad(y, (x, z), torch.eye(3), is_grads_batched=True)
    x, y = square()
    assert torch.autograd.grad(y, (x, z), torch.eye(3), is_grads_batched=True,
                               allow_unused=True)[1] is None
    x, y = square()
    zero = torch.autograd.grad(y, (x, z), torch.eye(3), is_grads_batched=True,
                               materialize_grads=True)[1]
    assert zero.shape == (2,)  # PyTorch's materialised zeros are not batched
    np.testing.assert_array_equal(zero.numpy(), 0.0)


def test_errors():
    x, y = square()
    with pytest.raises(RuntimeError, match="grad_output\\[0\\] has a shape of "
                                           "teachgrad.Size\\(\\[2\\]\\) and output\\[0\\] has a "
                                           "shape of teachgrad.Size\\(\\[3\\]\\)"):
        torch.autograd.grad(y, x, torch.eye(3)[:, :2], is_grads_batched=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        torch.autograd.grad(y, x, None, is_grads_batched=True)
    with pytest.raises(ValueError, match="got sizes \\[3, 2\\] for the mapped dimension"):
        torch.autograd.grad((y, y.sum()), x, (torch.eye(3), torch.ones(2)),
                            is_grads_batched=True)
    with pytest.raises(ValueError, match="empty batch"):
        torch.autograd.grad(y, x, torch.zeros(0, 3), is_grads_batched=True)
    # nothing was run: the graph is still whole
    (g,) = torch.autograd.grad(y, x, torch.ones(3))
    np.testing.assert_array_equal(g.numpy(), [1.0, -2.0, 4.0])


def test_autograd_grad_inside_vmap_walks_one_graph_per_row():
    # PyTorch's vmap docstring: the Jacobian of f(x) = x² as a vmap of vector-Jacobian
    # products through one graph.
    x = torch.arange(1.0, 6.0, requires_grad=True)
    y = x**2

    def get_vjp(v):
        return torch.autograd.grad(y, x, v)

    (jac,) = torch.vmap(get_vjp)(torch.eye(5))
    np.testing.assert_array_equal(jac.numpy(), np.diag([2.0, 4.0, 6.0, 8.0, 10.0]))
    with pytest.raises(RuntimeError, match=BACKWARD_TWICE):  # freed after the last row
        torch.autograd.grad(y, x, torch.ones(5))


def test_nested_vmap_keeps_the_graph_until_the_outer_last_sample():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x**3  # dy/dx = 3x² = (3, 12)

    def vjp_of(scale):
        return torch.vmap(lambda v: torch.autograd.grad(y, x, v * scale)[0])(torch.eye(2))

    out = torch.vmap(vjp_of)(torch.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(out.numpy(), [np.diag([3.0, 12.0]), np.diag([6.0, 24.0])])
    with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        torch.autograd.grad(y.sum(), x)


def test_an_error_inside_vmap_does_not_leave_graphs_retained():
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    def fails(v):
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        torch.vmap(fails)(torch.eye(2))
    y = x**2
    torch.autograd.grad(y.sum(), x)
    with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        torch.autograd.grad(y.sum(), x)


@pytest.mark.torch
def test_matches_pytorch():
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, v = rng.standard_normal((4, 3)), rng.standard_normal((5, 4))
    results = []
    for lib in (torch, real):
        x = lib.tensor(rng.standard_normal(3) if lib is torch else results[0][0],
                       requires_grad=True)
        y = lib.tanh(lib.tensor(a) @ x)
        (jac,) = lib.autograd.grad(y, x, lib.tensor(v), is_grads_batched=True)
        results.append((x.detach().numpy(), jac.numpy()))
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    for lib in (torch, real):  # the same error text (Size printed by each library)
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError) as error:
            lib.autograd.grad(x**2, x, lib.ones(3), is_grads_batched=True)
        results.append(str(error.value).replace("teachgrad", "torch"))
    assert results[2] == results[3]
