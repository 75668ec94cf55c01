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


def test_dilated_window_wholly_in_the_padding_gets_no_gradient():
    # Kernel 2 with dilation 2 and padding 1 over one row reads rows -1 and 1: padding only.
    # Its max is -inf, a constant: before the fix the gradient went to index -6..-1
    # (NumPy's wrap-around), i.e. a 1 to every element.
    x = teachgrad.tensor([[[[0.0, 1.0, 2.0, 3.0]]]], requires_grad=True)
    out, indices = F.max_pool2d(x, (2, 1), stride=1, padding=(1, 0), dilation=(2, 1),
                                return_indices=True)
    assert np.isneginf(out.detach().numpy()).all()
    np.testing.assert_array_equal(indices.numpy(), [[[[0, 1, 2, 3]]]])  # never negative
    (grad,) = teachgrad.autograd.grad(out.sum(), x, create_graph=True)
    np.testing.assert_array_equal(grad.detach().numpy(), [[[[0, 0, 0, 0]]]])
    # A window of -inf values and padding: as PyTorch, the index is the window's first
    # position inside the input (PyTorch starts from it and only moves on a larger value).
    y = teachgrad.tensor([[[-np.inf, -np.inf, 5.0]]], requires_grad=True)
    out, indices = F.max_pool1d(y, 2, stride=1, padding=1, return_indices=True)
    np.testing.assert_array_equal(indices.numpy(), [[[0, 0, 2, 2]]])
    out[..., :2].sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [[[2, 0, 0]]])  # both windows: index 0


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


def test_empty_inputs():
    assert F.avg_pool2d(teachgrad.zeros(0, 2, 4, 4), 2).shape == (0, 2, 2, 2)   # a batch may be
    assert F.adaptive_avg_pool2d(teachgrad.zeros(1, 0, 3, 4), 2).shape == (1, 0, 2, 2)
    assert F.adaptive_avg_pool2d(teachgrad.zeros(1, 2, 3, 4), 0).shape == (1, 2, 0, 0)
    # (1, 1) is a mean, before any check: of nothing, nan (as in PyTorch).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Mean of empty slice"
        assert np.isnan(F.adaptive_avg_pool2d(teachgrad.zeros(2, 6, 0), 1).numpy()).all()
    with pytest.raises(RuntimeError, match="with optional 0 dim batch size"):
        F.avg_pool2d(teachgrad.zeros(1, 0, 4, 4), 2)
    with pytest.raises(RuntimeError, match="with dimension 2 being empty"):
        F.adaptive_avg_pool2d(teachgrad.zeros(1, 2, 0, 4), 2)


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
    lambda F, x: F.avg_pool2d(x[:, :, :0], 2),
    lambda F, x: F.avg_pool2d(x[:, :0], 2),
    lambda F, x: F.avg_pool2d(x[0, :0], 2),
    lambda F, x: F.avg_pool2d(x[:, :, :0], 3, padding=2),
    lambda F, x: F.adaptive_avg_pool2d(x[:, :, :0], 2),
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


# ----------------------------------------------------------------------------------------
# inf and nan: every average reads only its own window (0 · inf would be nan elsewhere)
# ----------------------------------------------------------------------------------------
INF, NAN = float("inf"), float("nan")


def assert_same(got, expected):
    np.testing.assert_array_equal(np.asarray(got, dtype=float), np.asarray(expected, float))


def test_inf_stays_in_its_window():
    x = teachgrad.tensor([[[[INF, 1.0, 1.0, 1.0]]]])
    assert_same(F.avg_pool2d(x, (1, 2)).numpy(), [[[[INF, 1.0]]]])
    # Padding 1: windows {pad, inf}, {1, 1}, {1, pad}.
    assert_same(F.avg_pool2d(x, (1, 2), padding=(0, 1)).numpy(), [[[[INF, 1.0, 0.5]]]])
    assert_same(F.avg_pool2d(x, (1, 2), padding=(0, 1), count_include_pad=False).numpy(),
                [[[[INF, 1.0, 1.0]]]])
    assert_same(F.avg_pool2d(x, (1, 2), divisor_override=4).numpy(), [[[[INF, 0.5]]]])


def test_inf_and_nan_in_2d_windows():
    data = np.arange(16.0).reshape(1, 1, 4, 4)
    data[0, 0, 0, 0], data[0, 0, 3, 3] = -INF, NAN
    out = F.avg_pool2d(teachgrad.tensor(data), 2).numpy()[0, 0]
    # The two untouched windows: {2, 3, 6, 7} and {8, 9, 12, 13}.
    assert_same(out, [[-INF, 4.5], [10.5, NAN]])
    # Overlapping windows (stride 1): only the windows holding (0, 0) see the -inf.
    out = F.avg_pool2d(teachgrad.tensor(data[..., :3, :3]), 2, stride=1).numpy()[0, 0]
    assert_same(out, [[-INF, 3.5], [6.5, 7.5]])


def test_inf_plus_minus_inf_is_nan_only_there():
    x = teachgrad.tensor([[[[INF, -INF, 2.0, 4.0]]]])
    assert_same(F.avg_pool2d(x, (1, 2)).numpy(), [[[[NAN, 3.0]]]])


def test_adaptive_bins_keep_inf_and_nan_to_themselves():
    # 5 into 3 bins: {0, 1}, {1, 2, 3}, {3, 4}; rows: 2 into 1 bin.
    data = [[[[INF, 1.0, 2.0, 3.0, 5.0],
              [1.0, 1.0, 2.0, 3.0, 5.0]]]]
    assert_same(F.adaptive_avg_pool2d(teachgrad.tensor(data), (1, 3)).numpy(),
                [[[[INF, 2.0, 4.0]]]])
    data[0][0][1][4] = NAN
    assert_same(F.adaptive_avg_pool2d(teachgrad.tensor(data), (2, 3)).numpy(),
                [[[[INF, 2.0, 4.0], [1.0, 2.0, NAN]]]])
    assert_same(F.interpolate(teachgrad.tensor(data), size=(1, 3), mode="area").numpy(),
                [[[[INF, 2.0, NAN]]]])


def test_gradient_ignores_inf_inputs_and_keeps_inf_gradients_in_their_window():
    x = teachgrad.tensor([[[[INF, 1.0, NAN, 1.0]]]], requires_grad=True)
    F.avg_pool2d(x, (1, 2)).sum().backward()          # the gradient does not read x
    assert_same(x.grad.numpy(), [[[[0.5, 0.5, 0.5, 0.5]]]])
    x = teachgrad.zeros(1, 1, 1, 4, requires_grad=True)
    F.avg_pool2d(x, (1, 2), padding=(0, 1)).backward(teachgrad.tensor([[[[INF, 2.0, NAN]]]]))
    assert_same(x.grad.numpy(), [[[[INF, 1.0, 1.0, NAN]]]])
    x = teachgrad.zeros(1, 1, 1, 5, requires_grad=True)
    F.adaptive_avg_pool2d(x, (1, 3)).backward(teachgrad.tensor([[[[INF, 3.0, 2.0]]]]))
    assert_same(x.grad.numpy(), [[[[INF, INF, 1.0, 2.0, 1.0]]]])


@pytest.mark.parametrize("call", [
    lambda F, x: F.avg_pool2d(x, 2),
    lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                              count_include_pad=False),
    lambda F, x: F.avg_pool2d(x, (2, 3), stride=1, padding=(1, 0), divisor_override=5),
    lambda F, x: F.adaptive_avg_pool2d(x, (3, 4)),
])
def test_double_backward_nodes_are_pytorchs(call):
    x = leaf((1, 2, 5, 7))
    out = call(F, x)
    grad = teachgrad.ones_like(out, requires_grad=True)
    (gx,) = teachgrad.autograd.grad(out, x, grad, create_graph=True)
    name = type(out.grad_fn).__name__
    assert name in ("AvgPool2DBackward0", "AdaptiveAvgPool2DBackward0")
    assert type(gx.grad_fn).__name__ == name.replace("Backward0", "BackwardBackward0")
    # PyTorch's double-backward node reads the gradient and (for its shape) the input.
    assert [n.variable for n, _ in gx.grad_fn.next_functions] == [grad, x]
    assert gradgradcheck(lambda x: call(F, x), (x,))


def test_third_order_gradient():
    x = leaf((1, 1, 4, 5))

    def second(x):
        (g,) = teachgrad.autograd.grad((F.avg_pool2d(x, 2, stride=1, padding=1) ** 3).sum(), x,
                                       create_graph=True)
        return g

    assert gradcheck(second, (x,))
    assert gradgradcheck(lambda x: F.adaptive_avg_pool2d(x, (3, 2)), (leaf((1, 2, 7, 5)),))


def test_integer_windows_are_summed_exactly_and_divided_toward_zero():
    x = teachgrad.arange(49).reshape(1, 1, 7, 7) * 7 + 3    # mean 7·24 + 3
    assert F.avg_pool2d(x, 7).tolist() == [[[[171]]]]
    assert F.avg_pool2d(x, 7).dtype == teachgrad.int64
    y = teachgrad.tensor([[[[-3, -2, 3, 4]]]])
    assert F.avg_pool2d(y, (1, 2)).tolist() == [[[[-2, 3]]]]            # -2.5, 3.5
    assert F.avg_pool2d(y, (1, 2), divisor_override=-2).tolist() == [[[[2, -3]]]]


def test_average_pooling_dtypes():
    with pytest.raises(NotImplementedError, match="\"avg_pool2d\" not implemented for 'Int'"):
        F.avg_pool2d(teachgrad.ones(1, 2, 4, 4, dtype=teachgrad.int32), 2)
    with pytest.raises(NotImplementedError,
                       match="\"adaptive_avg_pool2d\" not implemented for 'Long'"):
        F.adaptive_avg_pool2d(teachgrad.ones(1, 2, 4, 4, dtype=teachgrad.int64), 2)
    x = teachgrad.ones(1, 2, 4, 4, dtype=teachgrad.float32)
    assert F.avg_pool2d(x, 2).dtype == F.adaptive_avg_pool2d(x, 3).dtype == teachgrad.float32


def test_the_pooled_input_is_saved_as_in_pytorch():
    x = leaf((1, 1, 4, 4))
    y = x * 1
    out = F.avg_pool2d(y, 2)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def _nonfinite(shape, seed):
    """Rounded values with a few inf, -inf and nan sprinkled in."""
    rng = np.random.default_rng(seed)
    data = np.round(rng.standard_normal(shape) * 2) / 2
    flat = data.reshape(-1)
    spots = rng.choice(flat.size, size=max(3, flat.size // 12), replace=False)
    flat[spots] = rng.choice([INF, -INF, NAN], size=spots.size)
    return data


NONFINITE_CASES = [
    ("avg_pool2d", (2, 3, 6, 6), (2,), {}),
    ("avg_pool2d", (1, 2, 7, 6), (3,), {"stride": 2, "padding": 1}),
    ("avg_pool2d", (1, 2, 7, 8), ((2, 3),), {"stride": (1, 2), "padding": (1, 0),
                                             "ceil_mode": True, "count_include_pad": False}),
    ("avg_pool2d", (2, 5, 5), (2,), {"stride": 1, "divisor_override": 3}),
    ("adaptive_avg_pool2d", (1, 2, 7, 5), ((3, 2),), {}),
    ("adaptive_avg_pool2d", (2, 6, 6), (4,), {}),
    ("adaptive_avg_pool2d", (1, 2, 3, 4), ((5, 6),), {}),
    ("interpolate", (1, 2, 7, 5), (), {"size": (3, 4), "mode": "area"}),
]


@pytest.mark.torch
@pytest.mark.parametrize("name,shape,args,kwargs", NONFINITE_CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_inf_and_nan_match_pytorch(name, shape, args, kwargs, seed):
    torch = pytest.importorskip("torch")
    data = _nonfinite(shape, seed)
    x, tx = teachgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    ours = getattr(F, name)(x, *args, **kwargs)
    theirs = getattr(torch.nn.functional, name)(tx, *args, **kwargs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    # An upstream gradient with inf and nan in it too.
    grad = _nonfinite(theirs.shape, seed + 10)
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("call", [
    lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1),
    lambda F, x: F.avg_pool2d(x, 2, count_include_pad=False, padding=1),
    lambda F, x: F.avg_pool2d(x, (1, 2), divisor_override=-3),
    lambda F, x: F.adaptive_avg_pool2d(x, (2, 3)),
])
def test_integer_inputs_match_pytorch(call, dtype):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(3).integers(-50, 50, (1, 2, 5, 7))
    data = data.astype(dtype) if dtype != "uint8" else np.abs(data).astype(dtype)
    try:
        expected = call(torch.nn.functional, torch.tensor(data))
    except NotImplementedError as error:
        with pytest.raises(NotImplementedError) as ours:
            call(F, teachgrad.tensor(data))
        assert str(ours.value).split("\nHint:")[0] == str(error)
        return
    got = call(F, teachgrad.tensor(data))
    assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.torch
@pytest.mark.parametrize("call", [
    lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1),
    lambda F, x: F.adaptive_avg_pool2d(x, (3, 4)),
    lambda F, x: F.adaptive_avg_pool2d(x, (1, 2)),
])
def test_double_backward_graph_matches_pytorch(call):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(4).standard_normal((1, 2, 5, 7))

    def names(library, x):
        out = call(library.nn.functional, x)
        grad = library.ones_like(out, requires_grad=True)
        (gx,) = library.autograd.grad(out, x, grad, create_graph=True)
        return (type(out.grad_fn).__name__, type(gx.grad_fn).__name__,
                [type(n).__name__ for n, _ in gx.grad_fn.next_functions])

    assert names(teachgrad, teachgrad.tensor(data, requires_grad=True)) == names(
        torch, torch.tensor(data, requires_grad=True))


def test_gather_and_scatter_are_a_map_and_its_transpose():
    """For finite values a map is the matrix M[o, index[o, t]] += weights[o, t] (holes add
    nothing): gather is M @ x along the axis, scatter is Mᵀ @ g, whichever way each is
    computed (slices for evenly spaced taps, the adjoint table otherwise)."""
    from teachgrad.nn.axis_maps import AxisMap, gather, scatter

    rng = np.random.default_rng(5)
    tables = [
        np.array([[-1, 0, 1], [1, 2, 3], [3, 4, -1]]),             # padded windows: slices
        np.array([[0, 1], [0, 1], [2, 2], [4, -1]]),               # repeats and a hole
        rng.integers(-1, 6, (7, 3)),                               # anything at all
    ]
    for index in tables:
        weights = rng.standard_normal(index.shape)
        maps = (AxisMap(index, weights, 6), AxisMap(index[::-1], None, 6))
        matrices = []
        for m in maps:
            matrix = np.zeros((len(m.index), 6))
            for o, t in zip(*np.nonzero(m.columns >= 0)):
                matrix[o, m.columns[o, t]] += 1.0 if m.weights is None else m.weights[o, t]
            matrices.append(matrix)
        x = rng.standard_normal((2, 6, 6))
        g = rng.standard_normal((2, len(index), len(index)))
        rows, cols = matrices
        np.testing.assert_allclose(gather(x, maps), rows @ x @ cols.T, atol=1e-12)
        np.testing.assert_allclose(scatter(g, maps), rows.T @ g @ cols, atol=1e-12)


def test_max_pool_double_backward_reaches_the_input_with_zeros():
    # PyTorch records MaxPool2DWithIndicesBackwardBackward0 with an edge to the input: max
    # pooling is piecewise linear, so the second derivative with respect to x is 0 (it used
    # to raise "does not require grad" here), and the gradient's own gradient is a gather.
    x = teachgrad.tensor(np.arange(16.0).reshape(1, 1, 4, 4), requires_grad=True)
    (g,) = teachgrad.autograd.grad(F.max_pool2d(x, 2).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "MaxPool2DWithIndicesBackwardBackward0"
    assert [type(n).__name__ if n else None for n, _ in g.grad_fn.next_functions] == [
        None, "AccumulateGrad"]
    (gg,) = teachgrad.autograd.grad(g.sum(), x)
    assert gg.abs().sum().item() == 0.0
    # d/dx of the gradient of sum(pool(x)²) = 2·pool(x) at the winners: 2 at each winner.
    (g2,) = teachgrad.autograd.grad((F.max_pool2d(x, 2) ** 2).sum(), x, create_graph=True)
    (h,) = teachgrad.autograd.grad(g2.sum(), x)
    winners = np.zeros((4, 4))
    winners[1::2, 1::2] = 2.0  # the bottom-right element of each 2x2 window is the largest
    np.testing.assert_array_equal(h.numpy()[0, 0], winners)
