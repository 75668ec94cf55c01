"""Convolutions: F.conv1d / F.conv2d, nn.Conv1d / nn.Conv2d (gradcheck, PyTorch parity)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

# (input shape, weight shape, keyword arguments): every feature, alone and together.
CONV2D_CASES = [
    ((2, 3, 5, 6), (4, 3, 3, 3), {}),
    ((1, 2, 7, 7), (3, 2, 3, 3), {"stride": 2}),
    ((2, 2, 5, 4), (2, 2, 3, 2), {"padding": (2, 1)}),
    ((1, 2, 7, 6), (2, 2, 3, 3), {"dilation": 2, "padding": 1}),
    ((2, 4, 5, 5), (6, 2, 3, 3), {"groups": 2}),
    ((1, 2, 6, 5), (2, 2, 2, 3), {"padding": "same"}),          # even kernel: uneven padding
    ((1, 2, 5, 5), (3, 2, 2, 2), {"padding": "valid"}),
    ((2, 4, 9, 8), (4, 2, 3, 2), {"stride": (2, 3), "padding": 1, "dilation": (1, 2),
                                  "groups": 2}),
    ((3, 5, 5), (4, 3, 3, 3), {"padding": 1}),                   # unbatched
]
CONV1D_CASES = [
    ((2, 3, 9), (4, 3, 3), {}),
    ((1, 4, 10), (2, 2, 4), {"stride": 3, "padding": 2, "dilation": 2, "groups": 2}),
    ((3, 8), (2, 3, 2), {"padding": "same"}),
]


def leaves(input_shape, weight_shape, bias: bool = True, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = teachgrad.tensor(rng.standard_normal(input_shape), requires_grad=True)
    w = teachgrad.tensor(rng.standard_normal(weight_shape), requires_grad=True)
    b = teachgrad.tensor(rng.standard_normal(weight_shape[0]), requires_grad=True) if bias else None
    return x, w, b


@pytest.mark.parametrize("input_shape,weight_shape,kwargs", CONV2D_CASES)
def test_conv2d_gradcheck(input_shape, weight_shape, kwargs):
    x, w, b = leaves(input_shape, weight_shape)
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, **kwargs), (x, w, b))


@pytest.mark.parametrize("input_shape,weight_shape,kwargs", CONV1D_CASES)
def test_conv1d_gradcheck(input_shape, weight_shape, kwargs):
    x, w, b = leaves(input_shape, weight_shape)
    assert gradcheck(lambda x, w, b: F.conv1d(x, w, b, **kwargs), (x, w, b))


@pytest.mark.parametrize("case", [CONV2D_CASES[1], CONV2D_CASES[7], CONV1D_CASES[1]])
def test_second_order_gradients(case):
    input_shape, weight_shape, kwargs = case
    x, w, b = leaves(input_shape, weight_shape)
    conv = F.conv2d if len(weight_shape) == 4 else F.conv1d
    assert gradgradcheck(lambda x, w, b: conv(x, w, b, **kwargs), (x, w, b))


def test_third_order_gradient_of_a_cubic_in_the_weight():
    # L = sum(conv(x, w)^3) is cubic in w: the third derivative along w is a constant,
    # checked against finite differences of the second derivative.
    x, w, _ = leaves((1, 1, 4, 4), (1, 1, 2, 2), bias=False)

    def second(w):
        loss = (F.conv2d(x, w) ** 3).sum()
        (g,) = teachgrad.autograd.grad(loss, w, create_graph=True)
        (gg,) = teachgrad.autograd.grad(g.sum(), w, create_graph=True)
        return gg

    assert gradcheck(second, (w,))


def test_hand_computed_values_and_graph():
    # 3x3 image of 1..9, a 2x2 kernel of ones: each output is the sum of a 2x2 block.
    x = teachgrad.arange(1.0, 10.0).reshape(1, 1, 3, 3).requires_grad_()
    w = teachgrad.ones(1, 1, 2, 2, requires_grad=True)
    out = F.conv2d(x, w, teachgrad.tensor([0.5]))
    np.testing.assert_array_equal(out.detach().numpy(), [[[[12.5, 16.5], [24.5, 28.5]]]])
    assert type(out.grad_fn).__name__ == "ConvolutionBackward0"
    assert out.grad_fn.next_functions[2] == (None, 0)  # bias does not require grad
    out.sum().backward()
    # The centre pixel is in all four blocks, the corners in one.
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])
    # Each kernel weight met four pixels: the sum of the 2x2 top-left, top-right ... blocks.
    np.testing.assert_array_equal(w.grad.numpy()[0, 0], [[12, 16], [24, 28]])


def test_no_bias_edge_and_unbatched_output_is_a_squeeze():
    x, w, _ = leaves((2, 5, 5), (3, 2, 3, 3), bias=False)
    out = F.conv2d(x, w)
    assert out.shape == (3, 3, 3)
    assert type(out.grad_fn).__name__ == "SqueezeBackward1"
    conv_node = out.grad_fn.next_functions[0][0]
    assert type(conv_node).__name__ == "ConvolutionBackward0"
    assert conv_node.next_functions[2] == (None, 0)


def test_module_shapes_parameters_and_state_dict_keys():
    conv = nn.Conv2d(3, 6, 5)
    assert conv.weight.shape == (6, 3, 5, 5) and conv.bias.shape == (6,)
    assert list(conv.state_dict()) == ["weight", "bias"]
    assert conv(teachgrad.zeros(2, 3, 32, 32)).shape == (2, 6, 28, 28)
    assert nn.Conv1d(4, 2, 3, groups=2, bias=False).weight.shape == (2, 2, 3)


def test_default_init_is_uniform_within_one_over_sqrt_fan_in():
    teachgrad.manual_seed(0)
    conv = nn.Conv2d(8, 16, 3, groups=2)
    bound = 1 / math.sqrt(4 * 9)  # fan_in = in_channels / groups * kernel elements
    for p in (conv.weight, conv.bias):
        values = p.detach().numpy()
        assert np.abs(values).max() <= bound
        assert np.abs(values).max() > 0.8 * bound  # spread over the range, not tiny


def test_module_argument_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        nn.Conv2d(4, 4, 3, groups=0)
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        nn.Conv2d(4, 4, 3, padding="full")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        nn.Conv2d(4, 4, 3, padding="same", stride=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(4, 4, 3, padding_mode="mirror")


def test_gradient_of_uncovered_input_rows_is_zero():
    # Stride 2 over 6 columns with a 3-wide kernel never reads the last column.
    x, w, _ = leaves((1, 1, 1, 6), (1, 1, 1, 3), bias=False)
    F.conv2d(x, w, stride=2).sum().backward()
    assert x.grad.numpy()[0, 0, 0, 5] == 0.0
    assert x.grad.numpy()[0, 0, 0, 4] != 0.0


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("input_shape,weight_shape,kwargs", CONV2D_CASES + CONV1D_CASES)
def test_values_and_gradients_match_pytorch(input_shape, weight_shape, kwargs):
    torch = pytest.importorskip("torch")
    import warnings

    x, w, b = leaves(input_shape, weight_shape, seed=3)
    d = len(weight_shape) - 2
    ours = (F.conv2d if d == 2 else F.conv1d)(x, w, b, **kwargs)
    tx, tw, tb = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, w, b))
    with warnings.catch_warnings():  # 'same' with an even kernel warns in PyTorch
        warnings.simplefilter("ignore")
        theirs = getattr(torch.nn.functional, f"conv{d}d")(tx, tw, tb, **kwargs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    grad = np.random.default_rng(4).standard_normal(theirs.shape)
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    for mine, real in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(mine.grad.numpy(), real.grad.numpy(), atol=1e-12)


@pytest.mark.torch
def test_double_backward_graph_matches_pytorch():
    torch = pytest.importorskip("torch")
    results = {}
    for lib in (teachgrad, torch):
        rng = np.random.default_rng(5)
        x = lib.tensor(rng.standard_normal((1, 2, 5, 5)), requires_grad=True)
        w = lib.tensor(rng.standard_normal((2, 2, 3, 3)), requires_grad=True)
        out = lib.nn.functional.conv2d(x, w, stride=2, padding=1)
        gx, gw = lib.autograd.grad((out ** 2).sum(), (x, w), create_graph=True)
        assert type(gx.grad_fn).__name__ == "ConvolutionBackwardBackward0"
        assert gx.grad_fn is gw.grad_fn and (gx.grad_fn.next_functions[1][0] is not None)
        (gx.sum() * 2 + (gw ** 2).sum()).backward()
        results[lib.__name__] = (x.grad.detach().numpy(), w.grad.detach().numpy())
    for ours, theirs in zip(results["teachgrad"], results["torch"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


ERROR_CASES = [
    ((1, 4), (4, 4, 3, 3), {}),
    ((1, 3, 5, 5), (4, 2, 3, 3), {}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"groups": 3}),
    ((1, 2, 2, 2), (4, 2, 3, 3), {}),
    ((1, 2, 4, 4), (4, 2, 3, 3), {"dilation": 2}),
    ((1, 2, 5, 5), (4, 2, 3, 3), {"stride": 0}),
    ((1, 2, 5, 5), (4, 2, 3, 3), {"stride": (1, 1, 1)}),
    ((1, 2, 5, 5), (4, 2, 3, 3), {"padding": -1}),
    ((1, 2, 5, 5), (4, 2, 3, 3), {"padding": (1, 2, 3)}),
    ((1, 2, 5, 5), (4, 2, 3, 3), {"dilation": 0}),
    ((1, 2, 5, 5), (4, 2, 3, 3), {"groups": 0}),
    ((1, 2, 5, 5), (4, 2, 3, 3), {"padding": "same", "stride": 2}),
    ((1, 2, 5, 5), (4, 2, 3, 3), {"padding": "foo"}),
    ((1, 2, 5, 5), (4, 2, 3), {}),
]


@pytest.mark.torch
@pytest.mark.parametrize("input_shape,weight_shape,kwargs", ERROR_CASES)
def test_errors_match_pytorch(input_shape, weight_shape, kwargs):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        torch.nn.functional.conv2d(torch.zeros(input_shape), torch.zeros(weight_shape), **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        F.conv2d(teachgrad.zeros(input_shape), teachgrad.zeros(weight_shape), **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.torch
def test_dtype_and_bias_errors_match_pytorch():
    torch = pytest.importorskip("torch")
    cases = [
        lambda lib: lib.nn.functional.conv2d(lib.zeros(1, 2, 5, 5),
                                             lib.zeros(4, 2, 3, 3, dtype=lib.float64)),
        lambda lib: lib.nn.functional.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(4, 2, 3, 3),
                                             lib.zeros(4, dtype=lib.float64)),
        lambda lib: lib.nn.functional.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(4, 2, 3, 3),
                                             lib.zeros(3)),
    ]
    for case in cases:
        with pytest.raises(RuntimeError) as theirs:
            case(torch)
        with pytest.raises(RuntimeError) as ours:
            case(teachgrad)
        # Ours may add one Hint line after PyTorch's sentence.
        assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


@pytest.mark.torch
@pytest.mark.parametrize("args,kwargs", [
    ((3, 6, 5), {}),
    ((4, 4, 3), {"groups": 2, "padding": "same", "dilation": 2, "bias": False}),
    ((3, 6, (3, 5)), {"stride": (2, 1), "padding": 1}),
    ((2, 2, 3), {"padding": "valid"}),
])
def test_repr_and_init_statistics_match_pytorch(args, kwargs):
    torch = pytest.importorskip("torch")
    for name in ("Conv1d", "Conv2d"):
        if name == "Conv1d" and isinstance(args[2], tuple):
            continue
        ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
        assert repr(ours) == repr(theirs)
        assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
            (k, tuple(v.shape)) for k, v in theirs.state_dict().items()
        ]
    # The init bound: PyTorch's weights never exceed it, nor do ours.
    big_ours, big_theirs = nn.Conv2d(16, 32, 3), torch.nn.Conv2d(16, 32, 3)
    assert abs(big_ours.weight.detach().numpy()).max() <= 1 / math.sqrt(16 * 9)
    assert abs(big_theirs.weight.detach().numpy()).max() <= 1 / math.sqrt(16 * 9)


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import convolution, im2col
    from teachgrad.nn.modules import conv

    for module in (convolution, im2col, conv):
        assert doctest.testmod(module).failed == 0
