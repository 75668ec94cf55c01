"""Pooling: F.max_pool2d / avg_pool2d / adaptive_avg_pool2d and their modules."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

MAX_CASES = [
    ((2, 3, 6, 6), (2,), {}),
    ((1, 2, 7, 6), (3,), {"stride": 2, "padding": 1}),
    ((1, 2, 7, 8), ((2, 3),), {"stride": 1, "padding": (1, 0), "dilation": (2, 1)}),
    ((2, 7, 7), (3,), {"stride": 2, "ceil_mode": True}),                   # unbatched
    ((1, 1, 8, 7), (2,), {"stride": 3, "padding": 1, "ceil_mode": True}),
]
AVG_CASES = [
    ((2, 3, 6, 6), (2,), {}),
    ((1, 2, 7, 6), (3,), {"stride": 2, "padding": 1}),
    ((1, 2, 7, 6), (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ((1, 2, 7, 8), ((2, 3),), {"stride": (1, 2), "padding": (1, 0), "ceil_mode": True}),
    ((2, 5, 5), (2,), {"divisor_override": 3}),
    ((1, 1, 8, 7), (3,), {"stride": 2, "padding": 1, "ceil_mode": True,
                          "count_include_pad": False}),
]
ADAPTIVE_CASES = [((2, 3, 7, 5), (1, 1)), ((1, 2, 7, 5), (3, 2)), ((2, 6, 6), 4),
                  ((1, 1, 5, 9), (None, 4))]


def leaf(shape, seed=0):
    rng = np.random.default_rng(seed)
    return teachgrad.tensor(rng.standard_normal(shape), requires_grad=True)


@pytest.mark.parametrize("shape,args,kwargs", MAX_CASES)
def test_max_pool_gradcheck(shape, args, kwargs):
    x = leaf(shape)
    assert gradcheck(lambda x: F.max_pool2d(x, *args, **kwargs), (x,))
    assert gradgradcheck(lambda x: F.max_pool2d(x, *args, **kwargs), (x,))


@pytest.mark.parametrize("shape,args,kwargs", AVG_CASES)
def test_avg_pool_gradcheck(shape, args, kwargs):
    x = leaf(shape)
    assert gradcheck(lambda x: F.avg_pool2d(x, *args, **kwargs), (x,))
    assert gradgradcheck(lambda x: F.avg_pool2d(x, *args, **kwargs), (x,))


@pytest.mark.parametrize("shape,size", ADAPTIVE_CASES)
def test_adaptive_avg_pool_gradcheck(shape, size):
    x = leaf(shape)
    assert gradcheck(lambda x: F.adaptive_avg_pool2d(x, size), (x,))


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = teachgrad.tensor([[[[1.0, 3.0, 3.0, 0.0],
                            [2.0, 3.0, 1.0, 1.0]]]], requires_grad=True)
    out, indices = F.max_pool2d(x, 2, return_indices=True)
    np.testing.assert_array_equal(out.detach().numpy(), [[[[3.0, 3.0]]]])
    np.testing.assert_array_equal(indices.numpy(), [[[[1, 2]]]])
    assert indices.dtype == teachgrad.int64
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[[0, 1, 1, 0], [0, 0, 0, 0]]]])


def test_overlapping_windows_add_their_gradients():
    x = teachgrad.tensor([[[[0.0, 5.0, 0.0]]]], requires_grad=True)
    F.max_pool2d(x, (1, 2), stride=1).sum().backward()  # both windows pick the 5
    np.testing.assert_array_equal(x.grad.numpy(), [[[[0, 2, 0]]]])


def test_avg_pool_hand_values():
    x = teachgrad.ones(1, 1, 3, 3)
    np.testing.assert_allclose(
        F.avg_pool2d(x, 2, stride=1, padding=1).numpy()[0, 0],
        [[0.25, 0.5, 0.5, 0.25], [0.5, 1, 1, 0.5], [0.5, 1, 1, 0.5], [0.25, 0.5, 0.5, 0.25]],
    )
    np.testing.assert_allclose(
        F.avg_pool2d(x, 2, stride=1, padding=1, count_include_pad=False).numpy(),
        np.ones((1, 1, 4, 4)),
    )


def test_global_average_pooling_is_a_mean():
    x = leaf((2, 3, 4, 5))
    out = nn.AdaptiveAvgPool2d((1, 1))(x)
    assert type(out.grad_fn).__name__ == "MeanBackward1" and out.shape == (2, 3, 1, 1)
    np.testing.assert_allclose(out.detach().numpy(),
                               x.detach().numpy().mean((2, 3), keepdims=True))


def test_cifar_tutorial_network_trains_a_step():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = teachgrad.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    teachgrad.manual_seed(0)
    net = Net()
    optimizer = teachgrad.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    inputs, labels = teachgrad.randn(4, 3, 32, 32), teachgrad.tensor([1, 2, 3, 4])
    losses = []
    for _ in range(5):
        optimizer.zero_grad()
        loss = nn.CrossEntropyLoss()(net(inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert all(p.grad is not None for p in net.parameters())


def test_argument_errors():
    x = teachgrad.zeros(1, 2, 6, 6)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel"):
        F.max_pool2d(x, 3, padding=2)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.avg_pool2d(x, 7)
    with pytest.raises(RuntimeError, match="non-empty 3D or 4D"):
        F.max_pool2d(teachgrad.zeros(6), 2)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(x, 2, divisor_override=0)


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
def _compare(name, shape, args, kwargs, seed=1):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    # Rounded values: many ties, so "which maximum gets the gradient" is tested too.
    data = np.round(rng.standard_normal(shape) * 2) / 2
    x = teachgrad.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    ours = getattr(F, name)(x, *args, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(torch.nn.functional, name)(tx, *args, **kwargs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    grad = rng.standard_normal(theirs.shape)
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("shape,args,kwargs", MAX_CASES)
def test_max_pool_matches_pytorch(shape, args, kwargs):
    _compare("max_pool2d", shape, args, kwargs)
    torch = pytest.importorskip("torch")
    data = np.round(np.random.default_rng(2).standard_normal(shape))
    _, ours = F.max_pool2d(teachgrad.tensor(data), *args, return_indices=True, **kwargs)
    _, theirs = torch.nn.functional.max_pool2d(torch.tensor(data), *args, return_indices=True,
                                               **kwargs)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.torch
@pytest.mark.parametrize("shape,args,kwargs", AVG_CASES)
def test_avg_pool_matches_pytorch(shape, args, kwargs):
    _compare("avg_pool2d", shape, args, kwargs)


@pytest.mark.torch
@pytest.mark.parametrize("shape,size", ADAPTIVE_CASES)
def test_adaptive_avg_pool_matches_pytorch(shape, size):
    _compare("adaptive_avg_pool2d", shape, (size,), {})


@pytest.mark.torch
@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool2d(x, 3, padding=2),
    lambda F, x: F.max_pool2d(x, (1, 3), padding=(1, 0)),
    lambda F, x: F.avg_pool2d(x, (1, 3), padding=(1, 0)),
    lambda F, x: F.max_pool2d(x, 0, stride=1),
    lambda F, x: F.avg_pool2d(x, 2, stride=0),
    lambda F, x: F.max_pool2d(x, 2, stride=(1, 2, 3)),
    lambda F, x: F.max_pool2d(x, 2, padding=(1, 2, 3)),
    lambda F, x: F.avg_pool2d(x, (2, 2, 2)),
    lambda F, x: F.max_pool2d(x, 2, dilation=0),
    lambda F, x: F.max_pool2d(x, 7),
    lambda F, x: F.avg_pool2d(x, 7),
    lambda F, x: F.avg_pool2d(x, 2, divisor_override=0),
    lambda F, x: F.adaptive_avg_pool2d(x, (1, 2, 3)),
    lambda F, x: F.max_pool2d(x[0, 0, 0], 2),
    lambda F, x: F.avg_pool2d(x[0, 0], 2),
    lambda F, x: F.adaptive_avg_pool2d(x[0, 0], 2),
])
def test_errors_match_pytorch(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch.nn.functional, torch.zeros(1, 2, 6, 6))
    with pytest.raises(type(theirs.value)) as ours:
        call(F, teachgrad.zeros(1, 2, 6, 6))
    assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


@pytest.mark.torch
def test_module_reprs_match_pytorch():
    torch = pytest.importorskip("torch")
    for name, args, kwargs in [
        ("MaxPool2d", (2,), {}), ("MaxPool2d", (2, 2), {}),
        ("MaxPool2d", ((2, 3),), {"stride": 1, "padding": 1, "dilation": 2, "ceil_mode": True}),
        ("AvgPool2d", (2,), {}), ("AvgPool2d", ((2, 3), 1, 1), {"count_include_pad": False}),
        ("AdaptiveAvgPool2d", ((1, 1),), {}), ("AdaptiveAvgPool2d", (1,), {}),
        ("AdaptiveAvgPool2d", ((None, 2),), {}),
    ]:
        assert repr(getattr(nn, name)(*args, **kwargs)) == repr(
            getattr(torch.nn, name)(*args, **kwargs))


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import pooling, pooling_ops
    from teachgrad.nn.modules import pooling as pooling_modules

    for module in (pooling, pooling_ops, pooling_modules):
        assert doctest.testmod(module).failed == 0
