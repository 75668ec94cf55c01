"""1-d pooling (F.max_pool1d / avg_pool1d / adaptive_avg_pool1d / adaptive_max_pool1d /
lp_pool1d), adaptive max pooling in 2-d, and their modules."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

# (function, input shape, positional arguments, keyword arguments)
CASES = [
    ("max_pool1d", (2, 3, 8), (2,), {}),
    ("max_pool1d", (2, 9), (3,), {"stride": 2, "padding": 1}),
    ("max_pool1d", (1, 2, 10), (3,), {"stride": 2, "dilation": 2, "ceil_mode": True}),
    ("max_pool1d", (1, 2, 8), ((2,),), {"stride": (3,), "padding": 1, "ceil_mode": True}),
    ("avg_pool1d", (2, 3, 8), (2,), {}),
    ("avg_pool1d", (1, 2, 9), (3,), {"stride": 2, "padding": 1}),
    ("avg_pool1d", (2, 9), (3,), {"stride": 2, "padding": 1, "count_include_pad": False,
                                  "ceil_mode": True}),
    ("adaptive_avg_pool1d", (2, 3, 7), (3,), {}),
    ("adaptive_avg_pool1d", (2, 5), (1,), {}),
    ("adaptive_avg_pool1d", (1, 2, 5), (8,), {}),            # more outputs than inputs
    ("adaptive_max_pool1d", (2, 3, 7), (3,), {}),
    ("adaptive_max_pool1d", (3, 10), (4,), {}),
    ("adaptive_max_pool2d", (2, 3, 7, 5), ((3, 2),), {}),
    ("adaptive_max_pool2d", (2, 6, 6), (4,), {}),
    ("adaptive_max_pool2d", (1, 1, 5, 9), ((None, 4),), {}),
    ("adaptive_max_pool2d", (1, 2, 3, 4), ((5, 6),), {}),
    ("adaptive_avg_pool2d", (1, 2, 7, 5), ((3, 4),), {}),    # sizes that do not divide
    ("lp_pool1d", (2, 3, 8), (2, 3), {"stride": 2}),
    ("lp_pool2d", (1, 2, 6, 5), (3, 2), {"ceil_mode": True}),
]


def leaf(shape, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape)
    return teachgrad.tensor(np.abs(data) + 0.5 if positive else data, requires_grad=True)


@pytest.mark.parametrize("name,shape,args,kwargs", CASES)
def test_gradcheck_and_gradgradcheck(name, shape, args, kwargs):
    x = leaf(shape, positive=name.startswith("lp"))  # a p-norm of negative numbers is nan

    def f(x):
        return getattr(F, name)(x, *args, **kwargs)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_hand_values():
    x = teachgrad.tensor([[1.0, 3.0, 2.0, 0.0, 5.0]], requires_grad=True)
    assert F.max_pool1d(x, 2).tolist() == [[3.0, 2.0]]
    out, idx = F.max_pool1d(x, 2, stride=1, return_indices=True)
    assert out.tolist() == [[3.0, 3.0, 2.0, 5.0]] and idx.tolist() == [[1, 1, 2, 4]]
    assert F.avg_pool1d(x, 2, padding=1).tolist() == [[0.5, 2.5, 2.5]]
    # Adaptive bins of 5 into 3: {0, 1}, {1, 2, 3}, {3, 4}.
    values, where = F.adaptive_max_pool1d(x, 3, return_indices=True)
    assert values.tolist() == [[3.0, 3.0, 5.0]] and where.tolist() == [[1, 1, 4]]
    np.testing.assert_allclose(F.adaptive_avg_pool1d(x, 3).detach().numpy(),
                               [[2.0, 5.0 / 3.0, 2.5]])
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 0.0, 0.0, 1.0]]   # 3 won two bins


def test_graph_is_the_2d_op_between_unsqueeze_and_squeeze():
    x = leaf((2, 3, 8))
    out = F.max_pool1d(x, 2)
    assert type(out.grad_fn).__name__ == "SqueezeBackward1"
    pool = out.grad_fn.next_functions[0][0]
    assert type(pool).__name__ == "MaxPool2DWithIndicesBackward0"
    assert type(pool.next_functions[0][0]).__name__ == "UnsqueezeBackward0"
    assert type(F.adaptive_avg_pool1d(x, 1).grad_fn.next_functions[0][0]).__name__ == (
        "MeanBackward1")
    assert type(F.adaptive_max_pool2d(x, 2).grad_fn).__name__ == "AdaptiveMaxPool2DBackward0"


@pytest.mark.parametrize("name", ["max_pool1d", "adaptive_max_pool1d"])
def test_nan_wins_and_the_last_nan_is_the_index(name):
    # PyTorch's kernel replaces its running maximum with every nan it meets.
    nan = float("nan")
    x = teachgrad.tensor([[nan, 1.0, nan, 0.0, 3.0, 2.0]], requires_grad=True)
    args = (3,) if name == "max_pool1d" else (2,)
    values, indices = getattr(F, name)(x, *args, return_indices=True)
    assert np.isnan(values[0, 0].item()) and values[0, 1].item() == 3.0
    assert indices.tolist() == [[2, 4]]
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 1.0, 0.0, 1.0, 0.0]]


def test_adaptive_max_pool_to_an_empty_output():
    x = leaf((1, 2, 5))
    assert F.adaptive_max_pool1d(x, 0).shape == (1, 2, 0)
    assert F.adaptive_max_pool2d(leaf((1, 3, 4)), 0).shape == (1, 0, 0)


def test_modules():
    x = leaf((2, 3, 10))
    assert nn.MaxPool1d(2)(x).shape == (2, 3, 5)
    assert nn.AvgPool1d(3, stride=1, padding=1)(x).shape == (2, 3, 10)
    assert nn.AdaptiveAvgPool1d(4)(x).shape == (2, 3, 4)
    out, idx = nn.AdaptiveMaxPool1d(4, return_indices=True)(x)
    assert out.shape == idx.shape == (2, 3, 4)
    assert nn.AdaptiveMaxPool2d((2, None))(leaf((1, 4, 6))).shape == (1, 2, 6)


def test_errors():
    x = teachgrad.zeros(1, 2, 6)
    with pytest.raises(RuntimeError, match="max_pool1d\\(\\) padding should be at most half"):
        F.max_pool1d(x, 3, padding=2)
    with pytest.raises(RuntimeError, match="Expected 2 to 3 dimensions"):
        F.avg_pool1d(teachgrad.zeros(6), 2)
    with pytest.raises(ValueError, match="Input dimension should be at least 4"):
        F.adaptive_max_pool2d(teachgrad.zeros(1, 6, 5), (1, 2, 3))


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("name,shape,args,kwargs", CASES)
def test_values_gradients_and_names_match_pytorch(name, shape, args, kwargs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    # Rounded values: many ties, so "which maximum gets the gradient" is tested too.
    data = np.round(rng.standard_normal(shape) * 2) / 2
    if name.startswith("lp"):
        data = np.abs(data) + 0.5
    x, tx = teachgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    ours = getattr(F, name)(x, *args, **kwargs)
    theirs = getattr(torch.nn.functional, name)(tx, *args, **kwargs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    grad = rng.standard_normal(theirs.shape)
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    if name in ("max_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d"):
        _, ours_idx = getattr(F, name)(x, *args, return_indices=True, **kwargs)
        _, their_idx = getattr(torch.nn.functional, name)(tx, *args, return_indices=True,
                                                          **kwargs)
        np.testing.assert_array_equal(ours_idx.numpy(), their_idx.numpy())


@pytest.mark.torch
@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool1d(x, 0),
    lambda F, x: F.max_pool1d(x, 3, padding=2),
    lambda F, x: F.max_pool1d(x, 7),
    lambda F, x: F.max_pool1d(x, 2, stride=0),
    lambda F, x: F.max_pool1d(x, 2, dilation=0),
    lambda F, x: F.max_pool1d(x, 2, padding=-1),
    lambda F, x: F.max_pool1d(x[0, 0], 2),
    lambda F, x: F.max_pool1d(x[None], 2),
    lambda F, x: F.max_pool1d(x, (2, 2)),
    lambda F, x: F.max_pool1d(x, 2, stride=(1, 1)),
    lambda F, x: F.max_pool1d(x, 2, padding=(1, 1)),
    lambda F, x: F.max_pool1d(x, 2, dilation=(1, 1)),
    lambda F, x: F.max_pool1d(x[:, :0], 2),
    lambda F, x: F.max_pool1d(x, 3, padding=2, return_indices=True),
    lambda F, x: F.max_pool1d(x, 7, return_indices=True),
    lambda F, x: F.avg_pool1d(x, 0),
    lambda F, x: F.avg_pool1d(x, 0, stride=1),
    lambda F, x: F.avg_pool1d(x, 3, padding=2),
    lambda F, x: F.avg_pool1d(x, 7),
    lambda F, x: F.avg_pool1d(x, 2, stride=0),
    lambda F, x: F.avg_pool1d(x[0, 0], 2),
    lambda F, x: F.avg_pool1d(x[None], 2),
    lambda F, x: F.avg_pool1d(x, (2, 2)),
    lambda F, x: F.avg_pool1d(x, 2, stride=(1, 1)),
    lambda F, x: F.avg_pool1d(x, 2, padding=(1, 1)),
    lambda F, x: F.avg_pool2d(x[None], 0),
    lambda F, x: F.adaptive_avg_pool1d(x[0, 0], 2),
    lambda F, x: F.adaptive_avg_pool1d(x, (2, 2)),
    lambda F, x: F.adaptive_avg_pool1d(x, None),
    lambda F, x: F.avg_pool1d(x[:, :, :0], 2),
    lambda F, x: F.avg_pool1d(x[0, :, :0], 2),
    lambda F, x: F.adaptive_avg_pool1d(x[:, :, :0], 2),
    lambda F, x: F.adaptive_max_pool1d(x[0, 0], 2),
    lambda F, x: F.adaptive_max_pool1d(x, (2, 2)),
    lambda F, x: F.adaptive_max_pool2d(x[0], 2),
    lambda F, x: F.adaptive_max_pool2d(x, (1, 2, 3)),
    lambda F, x: F.adaptive_max_pool2d(x[:, :0], 2),
])
def test_errors_match_pytorch(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch.nn.functional, torch.zeros(1, 2, 6))
    with pytest.raises(type(theirs.value)) as ours:
        call(F, teachgrad.zeros(1, 2, 6))
    assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


@pytest.mark.torch
@pytest.mark.parametrize("name,args,kwargs", [
    ("MaxPool1d", (2,), {}), ("MaxPool1d", (3, 1, 1, 2, True, True), {}),
    ("AvgPool1d", (2,), {}), ("AvgPool1d", (3, 1, 1, True, False), {}),
    ("AvgPool1d", ((3,), (2,), (1,)), {}), ("AdaptiveAvgPool1d", (3,), {}),
    ("AdaptiveMaxPool1d", (2,), {}), ("AdaptiveMaxPool1d", (2, True), {}),
    ("AdaptiveMaxPool2d", ((2, None), True), {}), ("AdaptiveMaxPool2d", (3,), {}),
    ("LPPool1d", (2, 3), {}), ("LPPool2d", (2, 3, 1, True), {}),
])
def test_module_reprs_and_outputs_match_pytorch(name, args, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    shape = (2, 3, 7, 8) if name.endswith("2d") else (2, 3, 9)
    data = np.abs(np.random.default_rng(2).standard_normal(shape)) + 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = theirs(torch.tensor(data))
    got = ours(teachgrad.tensor(data))
    for mine, real in zip(got if isinstance(got, tuple) else (got,),
                          expected if isinstance(expected, tuple) else (expected,)):
        np.testing.assert_allclose(mine.numpy(), real.numpy(), atol=1e-12)


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import pooling, pooling_ops
    from teachgrad.nn.modules import pooling as pooling_modules

    for module in (pooling, pooling_ops, pooling_modules):
        assert doctest.testmod(module).failed == 0


# ----------------------------------------------------------------------------------------
# inf and nan stay in the windows that hold them (as PyTorch's kernels, which add up each
# window on its own)
# ----------------------------------------------------------------------------------------
INF, NAN = float("inf"), float("nan")


def assert_same(got, expected):
    np.testing.assert_array_equal(np.asarray(got, dtype=float), np.asarray(expected, float))


def test_inf_and_nan_hand_values():
    x = teachgrad.tensor([[INF, 1.0, 1.0, 1.0]])
    assert_same(F.avg_pool1d(x, 2).numpy(), [[INF, 1.0]])
    y = teachgrad.tensor([[1.0, NAN, 2.0, 4.0, -INF, 6.0]])
    # Windows of 2, stride 2, padding 1: {pad, 1}, {nan, 2}, {4, -inf}, {6, pad}.
    assert_same(F.avg_pool1d(y, 2, padding=1).numpy(), [[0.5, NAN, -INF, 3.0]])
    assert_same(F.avg_pool1d(y, 2, padding=1, count_include_pad=False).numpy(),
                [[1.0, NAN, -INF, 6.0]])
    # Stride 1, windows of 3: {1, nan, 2}, {nan, 2, 4}, {2, 4, -inf}, {4, -inf, 6}.
    assert_same(F.avg_pool1d(y, 3, stride=1).numpy(), [[NAN, NAN, -INF, -INF]])
    # Adaptive, 6 into 4: {0, 1}, {1, 2}, {3, 4}, {4, 5}.
    z = teachgrad.tensor([[INF, 1.0, 3.0, 2.0, 4.0, NAN]])
    assert_same(F.adaptive_avg_pool1d(z, 4).numpy(), [[INF, 2.0, 3.0, NAN]])
    assert_same(F.adaptive_avg_pool1d(z[:, 1:5], 1).numpy(), [[2.5]])


def test_gradients_with_inf_stay_in_their_windows():
    x = teachgrad.tensor([[INF, 1.0, 1.0, NAN, 3.0]], requires_grad=True)
    F.avg_pool1d(x, 2, stride=1).backward(teachgrad.tensor([[INF, 2.0, 4.0, 6.0]]))
    # x[i] gets half the gradient of each window holding it: {0,1} {1,2} {2,3} {3,4}.
    assert_same(x.grad.numpy(), [[INF, INF, 3.0, 5.0, 3.0]])
    x.grad = None
    F.adaptive_avg_pool1d(x, 2).backward(teachgrad.tensor([[3.0, NAN]]))  # {0,1,2} {2,3,4}
    assert_same(x.grad.numpy(), [[1.0, 1.0, NAN, NAN, NAN]])


def test_integer_average_pool1d():
    x = teachgrad.tensor([[-3, -2, 3, 4, 7]])
    assert F.avg_pool1d(x, 2).tolist() == [[-2, 3]]                 # -2.5, 3.5: toward zero
    assert F.avg_pool1d(x, 3, stride=2, padding=1).tolist() == [[-1, 1, 3]]  # -5/3, 5/3, 11/3


@pytest.mark.torch
@pytest.mark.parametrize("name,args,kwargs", [
    ("avg_pool1d", (2,), {}),
    ("avg_pool1d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool1d", (3,), {"stride": 1, "padding": 1, "count_include_pad": False}),
    ("adaptive_avg_pool1d", (3,), {}),
    ("adaptive_avg_pool1d", (8,), {}),
    ("adaptive_avg_pool1d", (1,), {}),
])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_inf_and_nan_match_pytorch(name, args, kwargs, seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    data = np.round(rng.standard_normal((2, 3, 11)) * 2) / 2
    spots = rng.choice(data.size, size=6, replace=False)
    data.reshape(-1)[spots] = rng.choice([INF, -INF, NAN], size=6)
    x, tx = teachgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    ours = getattr(F, name)(x, *args, **kwargs)
    theirs = getattr(torch.nn.functional, name)(tx, *args, **kwargs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    grad = rng.standard_normal(theirs.shape)
    grad.reshape(-1)[0] = INF
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("call", [
    lambda F, x: F.avg_pool1d(x, 3, stride=2, padding=1),
    lambda F, x: F.adaptive_avg_pool1d(x, 4),
])
def test_double_backward_graph_matches_pytorch(call):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(4).standard_normal((2, 3, 9))

    def chain(library, x):
        out = call(library.nn.functional, x)
        grad = library.ones_like(out, requires_grad=True)
        (gx,) = library.autograd.grad(out, x, grad, create_graph=True)
        pool = gx.grad_fn.next_functions[0][0]  # below the squeeze that undoes the unsqueeze
        # Its edges: the gradient (through the squeeze's backward: teachgrad records a
        # view where PyTorch records an unsqueeze, not compared) and the unsqueezed input.
        return (type(out.grad_fn).__name__, type(gx.grad_fn).__name__, type(pool).__name__,
                len(pool.next_functions), type(pool.next_functions[1][0]).__name__)

    assert chain(teachgrad, teachgrad.tensor(data, requires_grad=True)) == chain(
        torch, torch.tensor(data, requires_grad=True))
