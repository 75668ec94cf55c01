"""Transposed convolutions: F.conv_transpose1d / 2d and nn.ConvTranspose1d / 2d."""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

# (input shape, weight shape (C_in, C_out / groups, *kernel), keyword arguments)
CASES_2D = [
    ((2, 4, 5, 5), (4, 3, 3, 3), {}),
    ((1, 2, 4, 3), (2, 2, 3, 3), {"stride": 2}),
    ((1, 2, 4, 3), (2, 2, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 4, 4, 5), (4, 2, 3, 2), {"stride": (2, 3), "padding": 1, "output_padding": (1, 2),
                                  "groups": 2, "dilation": (1, 2)}),
    ((1, 2, 4, 4), (2, 2, 3, 3), {"dilation": 2, "output_padding": 1}),  # op < dilation
    ((2, 3, 3), (2, 3, 2, 2), {"stride": 2}),                               # unbatched
    ((1, 2, 5, 5), (2, 1, 3, 3), {"padding": 2}),
]
CASES_1D = [
    ((2, 3, 6), (3, 2, 4), {"stride": 2, "padding": 1}),
    ((1, 4, 5), (4, 1, 3), {"stride": 3, "output_padding": 2, "groups": 4, "dilation": 2}),
    ((3, 4), (3, 2, 2), {}),
]


def leaves(input_shape, weight_shape, groups=1, bias=True, seed=0):
    rng = np.random.default_rng(seed)
    x = teachgrad.tensor(rng.standard_normal(input_shape), requires_grad=True)
    w = teachgrad.tensor(rng.standard_normal(weight_shape), requires_grad=True)
    b = (teachgrad.tensor(rng.standard_normal(weight_shape[1] * groups), requires_grad=True)
         if bias else None)
    return x, w, b


def _function(weight_shape):
    return F.conv_transpose2d if len(weight_shape) == 4 else F.conv_transpose1d


@pytest.mark.parametrize("input_shape,weight_shape,kwargs", CASES_2D + CASES_1D)
def test_gradcheck(input_shape, weight_shape, kwargs):
    x, w, b = leaves(input_shape, weight_shape, kwargs.get("groups", 1))
    conv_t = _function(weight_shape)
    assert gradcheck(lambda x, w, b: conv_t(x, w, b, **kwargs), (x, w, b))


@pytest.mark.parametrize("case", [CASES_2D[3], CASES_2D[4], CASES_1D[1]])
def test_gradgradcheck(case):
    input_shape, weight_shape, kwargs = case
    x, w, b = leaves(input_shape, weight_shape, kwargs.get("groups", 1))
    conv_t = _function(weight_shape)
    assert gradgradcheck(lambda x, w, b: conv_t(x, w, b, **kwargs), (x, w, b))


def test_third_order_gradient_in_the_input():
    x, w, _ = leaves((1, 1, 3, 3), (1, 1, 2, 2), bias=False)

    def second(x):
        loss = (F.conv_transpose2d(x, w, stride=2) ** 3).sum()
        (g,) = teachgrad.autograd.grad(loss, x, create_graph=True)
        (gg,) = teachgrad.autograd.grad(g.sum(), x, create_graph=True)
        return gg

    assert gradcheck(second, (x,))


def test_it_is_the_adjoint_of_the_convolution():
    # <conv(y, w), x> = <y, convᵀ(x, w)> for every x, y: the defining property.
    rng = np.random.default_rng(1)
    w = teachgrad.tensor(rng.standard_normal((3, 2, 3, 2)))
    x = teachgrad.tensor(rng.standard_normal((2, 3, 4, 5)))
    kwargs = {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2)}
    up = F.conv_transpose2d(x, w, output_padding=(1, 0), **kwargs)
    y = teachgrad.tensor(rng.standard_normal(tuple(up.shape)))
    down = F.conv2d(y, w, **kwargs)
    assert down.shape == x.shape
    np.testing.assert_allclose((down * x).sum().item(), (y * up).sum().item(), rtol=1e-10)


def test_hand_values():
    # Each input value stamps the kernel [1, 10] at stride 2: no overlap, then overlap.
    x = teachgrad.tensor([[[1.0, 2.0, 3.0]]])
    w = teachgrad.tensor([[[1.0, 10.0]]])
    assert F.conv_transpose1d(x, w, stride=2).tolist() == [[[1, 10, 2, 20, 3, 30]]]
    assert F.conv_transpose1d(x, w, stride=1).tolist() == [[[1, 12, 23, 30]]]
    assert F.conv_transpose1d(x, w, stride=2, padding=1, output_padding=1).tolist() == [
        [[10, 2, 20, 3, 30]]]


def test_a_bias_of_another_dtype_is_cast_as_in_pytorch():
    x, w, _ = leaves((1, 2, 3), (2, 2, 2))
    b = teachgrad.zeros(2, dtype=teachgrad.float32, requires_grad=True)
    out = F.conv_transpose1d(x, w, b)
    assert out.dtype == teachgrad.float64
    out.sum().backward()
    assert b.grad.dtype == teachgrad.float32 and b.grad.tolist() == [4.0, 4.0]


def test_module_shapes_init_and_output_size():
    teachgrad.manual_seed(0)
    up = nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, groups=2)
    assert up.weight.shape == (8, 3, 3, 3) and up.bias.shape == (6,)
    bound = 1 / math.sqrt(3 * 9)  # fan_in: weight.size(1) · kernel elements, as in PyTorch
    for p in (up.weight, up.bias):
        assert 0.8 * bound < np.abs(p.detach().numpy()).max() <= bound
    x = teachgrad.zeros(2, 8, 5, 5)
    assert up(x).shape == (2, 6, 9, 9)
    assert up(x, output_size=(10, 10)).shape == (2, 6, 10, 10)
    assert up(x, output_size=[2, 6, 10, 9]).shape == (2, 6, 10, 9)
    with pytest.raises(ValueError, match="valid sizes range from"):
        up(x, output_size=(11, 11))
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        nn.ConvTranspose1d(2, 2, 3, padding_mode="reflect")


def test_errors():
    x, w = teachgrad.zeros(1, 4, 5, 5), teachgrad.zeros(4, 2, 3, 3)
    with pytest.raises(RuntimeError, match="output padding must be smaller"):
        F.conv_transpose2d(x, w, output_padding=1)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.conv_transpose2d(x, w, padding=4)
    with pytest.raises(RuntimeError, match="expected input\\[1, 3, 5, 5\\] to have 4 channels"):
        F.conv_transpose2d(teachgrad.zeros(1, 3, 5, 5), w)


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("input_shape,weight_shape,kwargs", CASES_2D + CASES_1D)
def test_values_and_gradients_match_pytorch(input_shape, weight_shape, kwargs):
    torch = pytest.importorskip("torch")
    x, w, b = leaves(input_shape, weight_shape, kwargs.get("groups", 1), seed=3)
    ours = _function(weight_shape)(x, w, b, **kwargs)
    tx, tw, tb = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, w, b))
    theirs = getattr(torch.nn.functional, _function(weight_shape).__name__)(tx, tw, tb, **kwargs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    grad = np.random.default_rng(4).standard_normal(theirs.shape)
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    for mine, real in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(mine.grad.numpy(), real.grad.numpy(), atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("case", [CASES_2D[3], CASES_2D[4], CASES_1D[1]])
def test_double_backward_matches_pytorch(case):
    torch = pytest.importorskip("torch")
    input_shape, weight_shape, kwargs = case
    results = {}
    for lib in (teachgrad, torch):
        rng = np.random.default_rng(5)
        x = lib.tensor(rng.standard_normal(input_shape), requires_grad=True)
        w = lib.tensor(rng.standard_normal(weight_shape), requires_grad=True)
        out = getattr(lib.nn.functional, _function(weight_shape).__name__)(x, w, **kwargs)
        gx, gw = lib.autograd.grad((out ** 2).sum(), (x, w), create_graph=True)
        assert type(gx.grad_fn).__name__ == "ConvolutionBackwardBackward0"
        (gx.sum() * 2 + (gw ** 2).sum()).backward()
        results[lib.__name__] = (x.grad.detach().numpy(), w.grad.detach().numpy())
    for ours, theirs in zip(results["teachgrad"], results["torch"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


ERROR_CASES = [
    ((1, 3, 5, 5), (4, 2, 3, 3), {}), ((1, 4, 5, 5), (4, 2, 3, 3), {"groups": 3}),
    ((1, 4, 5, 5), (3, 2, 3, 3), {"groups": 2}), ((1, 4, 5, 5), (4, 2, 3, 3), {"groups": 0}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"output_padding": 1}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"stride": 2, "output_padding": 2}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"output_padding": (0, 2), "stride": 2}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"padding": 4}), ((1, 4, 5, 5), (4, 2, 3, 1), {"padding": 3}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"padding": -1}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"output_padding": -1}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"padding": "same"}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"stride": 0}), ((1, 4, 5, 5), (4, 2, 3, 3), {"dilation": 0}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"dilation": (0, 1)}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"stride": (1, 1, 1)}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"output_padding": (1, 1, 1)}),
    ((4, 5), (4, 2, 3, 3), {}), ((1, 4, 5, 5), (4, 2, 3), {}),
    ((1, 4, 5), (4, 2, 3), {"output_padding": 1}), ((1, 4, 5), (4, 2, 3), {"dilation": 0}),
    ((1, 4, 5), (4, 2, 3), {"padding": 4}), ((1, 4, 5), (4, 2, 3, 3), {}),
    ((1, 4, 5, 5), (4, 2, 3), {"padding": 1}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"groups": 5}), ((1, 4, 5), (4, 2, 3), {"groups": 6}),
]


@pytest.mark.torch
@pytest.mark.parametrize("input_shape,weight_shape,kwargs", ERROR_CASES)
def test_errors_match_pytorch(input_shape, weight_shape, kwargs):
    torch = pytest.importorskip("torch")
    # A 3-d input with a 3-d weight, or (1, 4, 5): conv_transpose1d; the rest are 2-d.
    name = "conv_transpose1d" if input_shape == (1, 4, 5) or (
        len(input_shape) == 3 and len(weight_shape) == 3) else "conv_transpose2d"
    with pytest.raises(Exception) as theirs:
        getattr(torch.nn.functional, name)(torch.zeros(input_shape), torch.zeros(weight_shape),
                                           **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        getattr(F, name)(teachgrad.zeros(input_shape), teachgrad.zeros(weight_shape), **kwargs)
    assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


@pytest.mark.torch
def test_tensor_errors_match_pytorch():
    torch = pytest.importorskip("torch")
    cases = [
        lambda lib: lib.nn.functional.conv_transpose2d(lib.zeros(1, 4, 5, 5),
                                                       lib.zeros(4, 2, 3, 3), lib.zeros(3)),
        lambda lib: lib.nn.functional.conv_transpose2d(lib.zeros(1, 4, 5, 5),
                                                       lib.zeros(4, 2, 3, 3, dtype=lib.float64)),
    ]
    for case in cases:
        with pytest.raises(RuntimeError) as theirs:
            case(torch)
        with pytest.raises(RuntimeError) as ours:
            case(teachgrad)
        assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


@pytest.mark.torch
@pytest.mark.parametrize("args,kwargs", [
    ((3, 6, 5), {}),
    ((4, 4, 3), {"groups": 2, "stride": 2, "output_padding": 1, "dilation": 2, "bias": False}),
    ((3, 6, (3, 5)), {"stride": (2, 1), "padding": 1}),
    ((2, 2, 3), {"padding": 1, "output_padding": 0}),
])
def test_module_repr_and_parameters_match_pytorch(args, kwargs):
    torch = pytest.importorskip("torch")
    for name in ("ConvTranspose1d", "ConvTranspose2d"):
        if name == "ConvTranspose1d" and isinstance(args[2], tuple):
            continue
        ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
        assert repr(ours) == repr(theirs)
        assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
            (k, tuple(v.shape)) for k, v in theirs.state_dict().items()]


@pytest.mark.torch
@pytest.mark.parametrize("output_size", [(10, 10), (9, 10), [2, 6, 10, 9], (8, 8), (10,),
                                         (1, 2, 3, 4, 5)])
def test_module_output_size_matches_pytorch(output_size):
    torch = pytest.importorskip("torch")
    ours = nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, dtype=teachgrad.float64)
    theirs = torch.nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, dtype=torch.float64)
    theirs.load_state_dict({k: torch.tensor(v.detach().numpy())
                            for k, v in ours.state_dict().items()})
    data = np.random.default_rng(6).standard_normal((2, 8, 5, 5))
    try:
        expected = theirs(torch.tensor(data), output_size=output_size)
    except ValueError as error:
        with pytest.raises(ValueError) as mine:
            ours(teachgrad.tensor(data), output_size=output_size)
        assert str(mine.value).split(" (for an input")[0] == str(error).split(" (for an input")[0]
        return
    got = ours(teachgrad.tensor(data), output_size=output_size)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=1e-12)


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import conv_ops, convolution
    from teachgrad.nn.modules import conv

    for module in (convolution, conv_ops, conv):
        assert doctest.testmod(module).failed == 0
