"""F.unfold / F.fold (im2col / col2im) and nn.Unfold / nn.Fold."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

# (image shape, keyword arguments)
CASES = [
    ((2, 3, 5, 6), {"kernel_size": (2, 3)}),
    ((1, 2, 5, 6), {"kernel_size": 2, "stride": 2, "padding": 1}),
    ((1, 2, 7, 6), {"kernel_size": (3, 2), "dilation": (2, 1), "padding": (1, 0),
                    "stride": (1, 2)}),
    ((2, 4, 4), {"kernel_size": 3, "padding": 1}),                   # unbatched
]


def leaf(shape, seed=0):
    rng = np.random.default_rng(seed)
    return teachgrad.tensor(rng.standard_normal(shape), requires_grad=True)


def _columns_shape(shape, kwargs):
    return tuple(F.unfold(teachgrad.zeros(shape), **kwargs).shape)


@pytest.mark.parametrize("shape,kwargs", CASES)
def test_gradcheck_and_gradgradcheck(shape, kwargs):
    x = leaf(shape)
    assert gradcheck(lambda x: F.unfold(x, **kwargs), (x,))
    assert gradgradcheck(lambda x: F.unfold(x, **kwargs), (x,))
    cols = leaf(_columns_shape(shape, kwargs), seed=1)
    assert gradcheck(lambda c: F.fold(c, shape[-2:], **kwargs), (cols,))
    assert gradgradcheck(lambda c: F.fold(c, shape[-2:], **kwargs), (cols,))


def test_a_convolution_is_unfold_then_matmul():
    x, w = leaf((2, 3, 6, 5)), leaf((4, 3, 3, 2), seed=1)
    cols = F.unfold(x, (3, 2), padding=1, stride=2)                 # (N, C·k, L)
    out = (w.reshape(4, -1) @ cols).reshape(2, 4, 3, 3)
    np.testing.assert_allclose(out.detach().numpy(), F.conv2d(
        x, w, padding=1, stride=2).detach().numpy(), atol=1e-12)


def test_fold_is_the_adjoint_of_unfold():
    x = leaf((1, 2, 5, 6))
    kwargs = {"kernel_size": (2, 3), "padding": 1, "stride": (2, 1), "dilation": (1, 2)}
    y = leaf(_columns_shape((1, 2, 5, 6), kwargs), seed=2)
    lhs = (F.unfold(x, **kwargs) * y).sum().item()
    rhs = (x * F.fold(y, (5, 6), **kwargs)).sum().item()
    assert abs(lhs - rhs) < 1e-10


def test_names_and_modules():
    x = leaf((1, 2, 4, 4))
    cols = nn.Unfold(2)(x)
    assert type(cols.grad_fn).__name__ == "Im2ColBackward0"
    back = nn.Fold((4, 4), 2)(cols)
    assert type(back.grad_fn).__name__ == "Col2ImBackward0"
    (g,) = teachgrad.autograd.grad((cols ** 2).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == "Col2ImBackward0"


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("shape,kwargs", CASES)
def test_values_and_gradients_match_pytorch(shape, kwargs):
    torch = pytest.importorskip("torch")
    x = leaf(shape, seed=3)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    ours, theirs = F.unfold(x, **kwargs), torch.nn.functional.unfold(tx, **kwargs)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    ours.backward(teachgrad.tensor(ours.detach().numpy()))
    theirs.backward(theirs.detach())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    folded = F.fold(ours.detach(), shape[-2:], **kwargs)
    their_fold = torch.nn.functional.fold(theirs.detach(), shape[-2:], **kwargs)
    np.testing.assert_allclose(folded.numpy(), their_fold.numpy(), atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("call", [
    lambda F, x, c: F.unfold(x[0, 0], 2),
    lambda F, x, c: F.unfold(x, 7),
    lambda F, x, c: F.unfold(x, 2, stride=0),
    lambda F, x, c: F.unfold(x, (2, 2, 2)),
    lambda F, x, c: F.unfold(x, 2, padding=-1),
    lambda F, x, c: F.unfold(x, 0),
    lambda F, x, c: F.unfold(x, 2, dilation=0),
    lambda F, x, c: F.unfold(x[:, :0], 2),
    lambda F, x, c: F.fold(c, (5, 6), (2, 2)),
    lambda F, x, c: F.fold(c[0, 0], (5, 6), (2, 3)),
    lambda F, x, c: F.fold(c, (5, 6), (2, 3), padding=1, stride=1),
    lambda F, x, c: F.fold(c, (1, 1), (2, 3)),
    lambda F, x, c: F.fold(c, (5, 6), (2, 3), stride=0),
])
def test_errors_match_pytorch(call):
    torch = pytest.importorskip("torch")
    kwargs = {"kernel_size": (2, 3), "padding": 1, "stride": 2}
    with pytest.raises(Exception) as theirs:
        call(torch.nn.functional, torch.zeros(2, 3, 5, 6),
             torch.nn.functional.unfold(torch.zeros(2, 3, 5, 6), **kwargs))
    with pytest.raises(type(theirs.value)) as ours:
        call(F, teachgrad.zeros(2, 3, 5, 6), F.unfold(teachgrad.zeros(2, 3, 5, 6), **kwargs))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.torch
def test_module_reprs_match_pytorch():
    torch = pytest.importorskip("torch")
    for name, args, kwargs in [("Unfold", ((2, 3),), {"padding": 1, "stride": 2}),
                               ("Unfold", (3,), {}), ("Fold", ((5, 6), 2), {}),
                               ("Fold", (4, (2, 2)), {"dilation": 2})]:
        assert repr(getattr(nn, name)(*args, **kwargs)) == repr(
            getattr(torch.nn, name)(*args, **kwargs))


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import fold
    from teachgrad.nn.modules import fold as fold_modules

    for module in (fold, fold_modules):
        assert doctest.testmod(module).failed == 0
