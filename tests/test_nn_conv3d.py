"""3-d convolutions: F.conv3d / F.conv_transpose3d, nn.Conv3d / nn.ConvTranspose3d, and the
top-level torch.conv* aliases (gradcheck, PyTorch parity)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

# (input shape, weight shape, keyword arguments): every feature, alone and together.
CONV3D_CASES = [
    ((1, 2, 3, 4, 3), (2, 2, 2, 2, 2), {}),
    ((1, 2, 5, 4, 4), (2, 2, 3, 2, 2), {"stride": (2, 1, 2), "padding": 1}),
    ((1, 4, 4, 3, 4), (2, 2, 2, 2, 2), {"groups": 2, "dilation": (1, 1, 2)}),
    ((1, 2, 3, 4, 3), (2, 2, 2, 3, 2), {"padding": "same"}),    # even kernels: uneven padding
    ((2, 3, 3, 3), (2, 2, 2, 2, 2), {"padding": "valid"}),      # unbatched
]
TRANSPOSED_CASES = [
    ((1, 2, 2, 3, 2), (2, 2, 2, 2, 2), {}),
    ((1, 2, 2, 2, 3), (2, 1, 3, 2, 2), {"stride": (2, 1, 2), "padding": (1, 0, 1),
                                        "output_padding": (1, 0, 0)}),
    ((1, 4, 2, 2, 2), (4, 1, 2, 2, 2), {"groups": 2, "dilation": 2, "stride": 2,
                                        "output_padding": 1}),
    ((2, 2, 2, 2), (2, 3, 2, 2, 2), {}),                         # unbatched
]


def leaves(input_shape, weight_shape, bias_size, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = teachgrad.tensor(rng.standard_normal(input_shape), requires_grad=True)
    w = teachgrad.tensor(rng.standard_normal(weight_shape), requires_grad=True)
    b = teachgrad.tensor(rng.standard_normal(bias_size), requires_grad=True)
    return x, w, b


def out_channels(weight_shape, kwargs, transposed):
    return weight_shape[1] * kwargs.get("groups", 1) if transposed else weight_shape[0]


@pytest.mark.parametrize("input_shape,weight_shape,kwargs", CONV3D_CASES)
def test_conv3d_gradcheck(input_shape, weight_shape, kwargs):
    x, w, b = leaves(input_shape, weight_shape, weight_shape[0])
    assert gradcheck(lambda x, w, b: F.conv3d(x, w, b, **kwargs), (x, w, b))


@pytest.mark.parametrize("input_shape,weight_shape,kwargs", TRANSPOSED_CASES)
def test_conv_transpose3d_gradcheck(input_shape, weight_shape, kwargs):
    x, w, b = leaves(input_shape, weight_shape, out_channels(weight_shape, kwargs, True))
    assert gradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, **kwargs), (x, w, b))


@pytest.mark.parametrize("conv,case", [(F.conv3d, CONV3D_CASES[1]),
                                       (F.conv_transpose3d, TRANSPOSED_CASES[1])])
def test_second_order_gradients(conv, case):
    input_shape, weight_shape, kwargs = case
    transposed = conv is F.conv_transpose3d
    x, w, b = leaves(input_shape, weight_shape, out_channels(weight_shape, kwargs, transposed))
    assert gradgradcheck(lambda x, w, b: conv(x, w, b, **kwargs), (x, w, b))


def test_hand_computed_value():
    # A 2x2x2 cube of ones summed by a kernel of ones: 8; a one at the centre of a 3x3x3
    # transposed kernel spreads over the whole output.
    out = F.conv3d(teachgrad.ones(1, 1, 2, 2, 2), teachgrad.ones(1, 1, 2, 2, 2))
    assert out.tolist() == [[[[[8.0]]]]]
    spread = F.conv_transpose3d(teachgrad.ones(1, 1, 1, 1, 1), teachgrad.ones(1, 1, 3, 3, 3))
    assert spread.shape == (1, 1, 3, 3, 3) and spread.sum().item() == 27.0


def test_top_level_aliases_are_the_functional_ones():
    for name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                 "conv_transpose3d"):
        assert getattr(teachgrad, name) is getattr(F, name)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_padding_modes_gradcheck(mode):
    teachgrad.manual_seed(0)
    conv = nn.Conv3d(2, 2, (3, 2, 3), padding=(1, 1, 0), padding_mode=mode).double()
    x = teachgrad.randn(1, 2, 3, 4, 3, dtype=teachgrad.float64, requires_grad=True)
    assert gradcheck(conv, (x,))


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("transposed,case", [(False, c) for c in CONV3D_CASES]
                         + [(True, c) for c in TRANSPOSED_CASES])
def test_values_gradients_and_grad_fn_match_pytorch(transposed, case):
    torch = pytest.importorskip("torch")
    input_shape, weight_shape, kwargs = case
    name = "conv_transpose3d" if transposed else "conv3d"
    x, w, b = leaves(input_shape, weight_shape, out_channels(weight_shape, kwargs, transposed),
                     seed=3)
    ours = getattr(F, name)(x, w, b, **kwargs)
    tx, tw, tb = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, w, b))
    with warnings.catch_warnings():  # 'same' with an even kernel warns in PyTorch
        warnings.simplefilter("ignore")
        theirs = getattr(torch.nn.functional, name)(tx, tw, tb, **kwargs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    grad = np.random.default_rng(4).standard_normal(theirs.shape)
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    for mine, real in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(mine.grad.numpy(), real.grad.numpy(), atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_padding_modes_match_pytorch(mode):
    torch = pytest.importorskip("torch")
    ours = nn.Conv3d(2, 3, (3, 2, 3), padding=(1, 1, 0), padding_mode=mode).double()
    theirs = torch.nn.Conv3d(2, 3, (3, 2, 3), padding=(1, 1, 0), padding_mode=mode).double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((1, 2, 3, 4, 3))
    np.testing.assert_allclose(ours(teachgrad.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), atol=1e-12)


CONV_ERRORS = [
    ((1, 2, 4, 4), (3, 2, 2, 2, 2), {}),
    ((1, 2, 2, 2, 2), (3, 2, 3, 3, 3), {}),
    ((1, 2, 4, 4, 4), (3, 2, 2, 2, 2), {"dilation": 0}),
    ((1, 2, 4, 4, 4), (3, 2, 2, 2, 2), {"stride": (1, 1)}),
    ((1, 2, 4, 4, 4), (3, 2, 2, 2), {}),
    ((1, 2, 4, 4, 4), (3, 2, 2, 2, 2), {"padding": "same", "stride": 2}),
    ((1, 4, 4, 4, 4), (3, 2, 2, 2, 2), {"groups": 2}),
]
TRANSPOSED_ERRORS = [
    ((1, 2, 4, 4, 4), (2, 3, 2, 2, 2), {"dilation": 0}),
    ((1, 2, 4, 4, 4), (2, 3, 2, 2, 2), {"output_padding": 2}),
    ((1, 2, 1, 1, 1), (2, 3, 2, 2, 2), {"padding": 2}),
    ((1, 3, 1, 1, 1), (2, 3, 2, 2, 2), {}),
]


@pytest.mark.torch
@pytest.mark.parametrize("name,case", [("conv3d", c) for c in CONV_ERRORS]
                         + [("conv_transpose3d", c) for c in TRANSPOSED_ERRORS])
def test_errors_match_pytorch(name, case):
    torch = pytest.importorskip("torch")
    input_shape, weight_shape, kwargs = case
    with pytest.raises(Exception) as theirs:
        getattr(torch.nn.functional, name)(torch.zeros(input_shape), torch.zeros(weight_shape),
                                           **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        getattr(F, name)(teachgrad.zeros(input_shape), teachgrad.zeros(weight_shape), **kwargs)
    assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


@pytest.mark.torch
@pytest.mark.parametrize("name,args,kwargs", [
    ("Conv3d", (2, 4, 3), {}),
    ("Conv3d", (4, 6, (3, 1, 2)), {"stride": (2, 1, 1), "padding": 1, "groups": 2,
                                   "bias": False}),
    ("Conv3d", (2, 2, 3), {"padding": "same", "dilation": 2, "padding_mode": "circular"}),
    ("ConvTranspose3d", (2, 4, 3), {"stride": 2, "output_padding": 1}),
    ("ConvTranspose3d", (4, 6, (2, 3, 1)), {"groups": 2, "dilation": (1, 2, 1)}),
])
def test_repr_state_dict_and_init_match_pytorch(name, args, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    # PyTorch's init bound is 1/sqrt(fan_in), fan_in = weight.shape[1] * kernel volume.
    bound = 1 / math.sqrt(ours.weight.shape[1] * math.prod(ours.weight.shape[2:]))
    assert abs(ours.weight.detach().numpy()).max() <= bound
    assert abs(theirs.weight.detach().numpy()).max() <= bound


@pytest.mark.torch
def test_transposed_output_size_argument_matches_pytorch():
    torch = pytest.importorskip("torch")
    ours = nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1)
    theirs = torch.nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(2).standard_normal((1, 2, 2, 3, 2)).astype(np.float32)
    np.testing.assert_allclose(
        ours(teachgrad.tensor(x), output_size=(4, 6, 3)).detach().numpy(),
        theirs(torch.tensor(x), output_size=(4, 6, 3)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import convolution
    from teachgrad.nn.modules import conv

    for module in (convolution, conv):
        assert doctest.testmod(module).failed == 0
