"""What an unpack hook gives back takes the saved tensor's place in the graph, as PyTorch.

A pack hook may copy or detach the tensor (``t.detach()``, ``t.cpu()``, a file on disk);
PyTorch's ``SavedVariable::unpack`` then gives the result the saved tensor's gradient edge
again, so backward of backward still reaches the saved tensor's history. A tensor's own
hooks (``grad_fn._raw_saved_<name>.register_hooks``) are handed the saved data without
its history (``data.detach()`` in PyTorch's ``register_hooks``).
"""

from __future__ import annotations

import pytest

import teachgrad as torch


def test_second_derivative_through_a_pack_hook_that_detaches():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        y = (b * b * b).sum()  # d/dx = 3x², d²/dx² = 6x
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [3.0, 12.0]
    (h,) = torch.autograd.grad(g.sum(), x)
    assert h.tolist() == [6.0, 12.0]


def test_unpacked_tensor_has_the_saved_ones_grad_fn():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        y = b * b
        z = x.exp()
        s = x.sin()
    assert type(y.grad_fn._saved_self.grad_fn).__name__ == "MulBackward0"  # b's, not Clone
    assert type(z.grad_fn._saved_result.grad_fn).__name__ == "ExpBackward0"  # z's own node
    saved_leaf = s.grad_fn._saved_self
    assert saved_leaf.requires_grad and saved_leaf.grad_fn is None


def test_second_derivative_of_a_leaf_through_a_pack_hook_that_detaches():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        y = x.exp().sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    assert h.tolist() == pytest.approx([1.0, 2.718281828], rel=1e-6)


def test_raw_saved_hooks_pack_the_data_without_its_history():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1
    y = b * b
    seen = []
    y.grad_fn._raw_saved_self.register_hooks(lambda t: seen.append(t) or t.detach(),
                                             lambda t: t)
    (packed,) = seen
    assert packed is not b and not packed.requires_grad and packed.grad_fn is None
    assert packed.tolist() == [1.0, 2.0]
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)  # 2x, still connected
    (h,) = torch.autograd.grad(g.sum(), x)
    assert g.tolist() == [2.0, 4.0] and h.tolist() == [2.0, 2.0]


@pytest.mark.torch
def test_same_as_pytorch():
    real = pytest.importorskip("torch")
    results = []
    for lib in (real, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b = x * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = (b * b).sum() + x.sin().sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        z = b.exp()
        seen = []
        z.grad_fn._raw_saved_result.register_hooks(lambda t, seen=seen: seen.append(
            (t.requires_grad, t.grad_fn is None)) or t, lambda t: t)
        results.append((g.tolist(), h.tolist(), seen,
                        type(z.grad_fn._saved_result.grad_fn).__name__))
    assert results[1][0] == pytest.approx(results[0][0])
    assert results[1][1] == pytest.approx(results[0][1])
    assert results[1][2:] == results[0][2:]
