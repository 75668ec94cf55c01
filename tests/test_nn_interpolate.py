"""Resizing: F.interpolate (nearest, nearest-exact, linear/bilinear/trilinear, area) and
nn.Upsample / UpsamplingNearest2d / UpsamplingBilinear2d."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

# (input shape, keyword arguments of F.interpolate)
CASES = [
    ((2, 3, 5), {"scale_factor": 2}),
    ((2, 3, 5), {"size": 7}),
    ((1, 2, 7), {"size": 3}),                                          # downsampling
    ((1, 2, 4, 5), {"scale_factor": 2}),
    ((1, 2, 4, 5), {"size": (7, 3)}),
    ((1, 2, 4, 5), {"scale_factor": (1.5, 0.7)}),
    ((1, 2, 4, 5), {"scale_factor": 1.7, "recompute_scale_factor": True}),
    ((1, 1, 2, 3, 4), {"scale_factor": (2, 1.5, 0.5)}),
    ((2, 3, 5), {"scale_factor": 2.5, "mode": "nearest-exact"}),
    ((1, 2, 4, 5), {"size": (6, 9), "mode": "nearest-exact"}),
    ((2, 3, 5), {"scale_factor": 2, "mode": "linear"}),
    ((2, 3, 5), {"size": 8, "mode": "linear", "align_corners": True}),
    ((1, 2, 6), {"size": 4, "mode": "linear"}),
    ((1, 2, 4, 5), {"scale_factor": 2, "mode": "bilinear"}),
    ((1, 2, 4, 5), {"size": (7, 3), "mode": "bilinear", "align_corners": True}),
    ((1, 2, 4, 5), {"scale_factor": (1.5, 0.7), "mode": "bilinear"}),
    ((1, 2, 4, 5), {"size": (4, 1), "mode": "bilinear", "align_corners": True}),
    ((1, 1, 2, 3, 4), {"scale_factor": 1.5, "mode": "trilinear"}),
    ((1, 2, 7, 5), {"size": (3, 2), "mode": "area"}),
    ((1, 2, 7), {"scale_factor": 0.5, "mode": "area"}),
    ((1, 1, 5, 3, 4), {"size": (2, 3, 3), "mode": "area"}),
    ((1, 1, 3, 4), {"size": (5, 3), "mode": "bicubic"}),
    ((1, 1, 3, 4), {"scale_factor": 1.5, "mode": "bicubic", "align_corners": True}),
]


def leaf(shape, seed=0):
    rng = np.random.default_rng(seed)
    return teachgrad.tensor(rng.standard_normal(shape), requires_grad=True)


@pytest.mark.parametrize("shape,kwargs", CASES)
def test_gradcheck_and_gradgradcheck(shape, kwargs):
    x = leaf(shape)
    assert gradcheck(lambda x: F.interpolate(x, **kwargs), (x,))
    assert gradgradcheck(lambda x: F.interpolate(x, **kwargs), (x,))


def test_hand_values():
    x = teachgrad.tensor([[[0.0, 10.0]]], requires_grad=True)
    assert F.interpolate(x, scale_factor=2).tolist() == [[[0.0, 0.0, 10.0, 10.0]]]
    assert F.interpolate(x, size=4, mode="linear").tolist() == [[[0.0, 2.5, 7.5, 10.0]]]
    assert F.interpolate(x, size=3, mode="linear", align_corners=True).tolist() == [
        [[0.0, 5.0, 10.0]]]
    # PyTorch's 'nearest' is not the closest pixel; 'nearest-exact' is.
    y = teachgrad.arange(3.0).reshape(1, 1, 3)
    assert F.interpolate(y, size=5).tolist() == [[[0.0, 0.0, 1.0, 1.0, 2.0]]]
    assert F.interpolate(y, size=5, mode="nearest-exact").tolist() == [[[0.0, 0.0, 1.0, 2.0,
                                                                          2.0]]]
    # Each input gets the sum of the weights it was read with.
    F.interpolate(x, size=4, mode="linear").sum().backward()
    assert x.grad.tolist() == [[[2.0, 2.0]]]


def test_values_are_copied_exactly_in_nearest_mode():
    x = teachgrad.tensor([[[float("inf"), 1.0, float("nan")]]])
    out = F.interpolate(x, scale_factor=2).numpy()[0, 0]
    assert np.isinf(out[:2]).all() and (out[2:4] == 1).all() and np.isnan(out[4:]).all()
    ints = teachgrad.tensor([[[3, -4]]])
    assert F.interpolate(ints, scale_factor=2).tolist() == [[[3, 3, -4, -4]]]


def test_grad_fn_names():
    assert type(F.interpolate(leaf((1, 2, 3)), scale_factor=2).grad_fn).__name__ == (
        "UpsampleNearest1DBackward0")
    x = leaf((1, 2, 3, 3))
    out = F.interpolate(x, scale_factor=2, mode="bilinear")
    assert type(out.grad_fn).__name__ == "UpsampleBilinear2DBackward0"
    (g,) = teachgrad.autograd.grad((out ** 2).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == "UpsampleBilinear2DBackwardBackward0"


def test_errors():
    x = teachgrad.zeros(1, 2, 4, 5)
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(x, size=3, scale_factor=2)
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(x, scale_factor=2, align_corners=True)
    with pytest.raises(NotImplementedError, match="Got 4D input, but linear mode needs 3D"):
        F.interpolate(x, scale_factor=2, mode="linear")
    with pytest.raises(NotImplementedError, match="lanczos"):
        F.interpolate(x, scale_factor=2, mode="lanczos")
    # the hint names only modes that work for the input's dimensions
    with pytest.raises(NotImplementedError, match="Hint: use 'nearest', 'nearest-exact', "
                                                  "'trilinear' or 'area'"):
        F.interpolate(teachgrad.zeros(1, 1, 2, 2, 2), scale_factor=2, mode="lanczos")


def test_modules():
    x = leaf((1, 3, 4, 4))
    assert nn.Upsample(scale_factor=2)(x).shape == (1, 3, 8, 8)
    np.testing.assert_array_equal(
        nn.UpsamplingBilinear2d(size=6)(x).detach().numpy(),
        F.interpolate(x, size=6, mode="bilinear", align_corners=True).detach().numpy())


def test_deprecated_functions_warn():
    x = leaf((1, 1, 2, 2))
    with pytest.warns(UserWarning, match="`nn.functional.upsample` is deprecated"):
        F.upsample(x, scale_factor=2)
    with pytest.warns(UserWarning, match="upsample_bilinear` is deprecated"):
        out = F.upsample_bilinear(x, scale_factor=2)
    np.testing.assert_array_equal(out.detach().numpy(), F.interpolate(
        x, scale_factor=2, mode="bilinear", align_corners=True).detach().numpy())


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape,kwargs", CASES)
def test_values_gradients_and_names_match_pytorch(shape, kwargs, dtype):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    x, tx = teachgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    ours, theirs = F.interpolate(x, **kwargs), torch.nn.functional.interpolate(tx, **kwargs)
    tolerance = {"atol": 1e-12} if dtype == "float64" else {"atol": 2e-6}
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), **tolerance)
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "teachgrad")
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    grad = np.random.default_rng(2).standard_normal(tuple(theirs.shape)).astype(dtype)
    (gx,) = teachgrad.autograd.grad(ours, x, teachgrad.tensor(grad), create_graph=True)
    (tgx,) = torch.autograd.grad(theirs, tx, torch.tensor(grad), create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), tgx.detach().numpy(), **tolerance)


@pytest.mark.torch
@pytest.mark.parametrize("mode,d", [("nearest", 1), ("nearest", 2), ("nearest", 3),
                                    ("nearest-exact", 1), ("nearest-exact", 2), ("linear", 1),
                                    ("bilinear", 2)])
def test_many_sizes_pick_the_same_pixels_as_pytorch(mode, d):
    # Index arithmetic is done in float32 as in PyTorch: every size pair agrees exactly.
    torch = pytest.importorskip("torch")
    for size in range(1, 14):
        data = np.arange(size, dtype=np.float64).reshape(1, 1, *(1,) * (d - 1), size)
        for out in range(1, 30):
            sizes = (1,) * (d - 1) + (out,)
            ours = F.interpolate(teachgrad.tensor(data), size=sizes, mode=mode)
            theirs = torch.nn.functional.interpolate(torch.tensor(data), size=sizes, mode=mode)
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)
        for scale in (0.3, 0.5, 1.3, 1.5, 2.0, 2.7, 3.0):
            if int(size * scale) < 1:
                continue
            scales = (1.0,) * (d - 1) + (scale,)
            ours = F.interpolate(teachgrad.tensor(data), scale_factor=scales, mode=mode)
            theirs = torch.nn.functional.interpolate(torch.tensor(data), scale_factor=scales,
                                                     mode=mode)
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("shape,kwargs", [
    ((1, 2, 4, 5), {"size": 3, "scale_factor": 2}),
    ((1, 2, 4, 5), {}),
    ((1, 2, 4, 5), {"size": (3, 4, 5)}),
    ((1, 2, 4, 5), {"size": (3.0, 4)}),
    ((1, 2, 4, 5), {"scale_factor": (2, 2, 2)}),
    ((1, 2, 4, 5), {"scale_factor": 2, "align_corners": True}),
    ((1, 2, 4, 5), {"scale_factor": 2, "mode": "area", "align_corners": False}),
    ((1, 2, 4, 5), {"size": 3, "recompute_scale_factor": True}),
    ((1, 2, 4, 5), {"scale_factor": 2, "mode": "nearest", "antialias": True}),
    ((1, 2, 4, 5), {"scale_factor": 2, "mode": "linear"}),
    ((1, 2, 4), {"scale_factor": 2, "mode": "bilinear"}),
    ((1, 2, 4, 5), {"scale_factor": 2, "mode": "trilinear"}),
    ((1, 2, 3, 4, 5), {"scale_factor": 2, "mode": "bilinear"}),
    ((4, 5), {"scale_factor": 2}),
    ((1, 2, 4, 5), {"scale_factor": 2, "mode": "cubic"}),
    ((1, 2, 4, 5), {"scale_factor": 0.1}),
    ((1, 2, 4, 5), {"size": (0, 3), "mode": "bilinear"}),
    ((1, 2, 4, 5), {"scale_factor": -1.0}),
    ((1, 2, 6), {"size": 0}),
])
def test_errors_match_pytorch(shape, kwargs):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        torch.nn.functional.interpolate(torch.zeros(shape), **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        F.interpolate(teachgrad.zeros(shape), **kwargs)
    assert str(ours.value).replace("teachgrad", "torch") == str(theirs.value)


@pytest.mark.torch
@pytest.mark.parametrize("name,args,kwargs", [
    ("Upsample", (), {"scale_factor": 2}), ("Upsample", (), {"scale_factor": (2, 3)}),
    ("Upsample", ((6, 7),), {"mode": "bilinear", "align_corners": True}),
    ("Upsample", (), {"scale_factor": 1.5, "mode": "bilinear"}),
    ("UpsamplingNearest2d", (), {"scale_factor": 2}), ("UpsamplingBilinear2d", (5,), {}),
])
def test_modules_match_pytorch(name, args, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    data = np.random.default_rng(3).standard_normal((2, 3, 4, 5))
    np.testing.assert_allclose(ours(teachgrad.tensor(data)).numpy(),
                               theirs(torch.tensor(data)).numpy(), atol=1e-12)


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import upsampling
    from teachgrad.nn.modules import upsampling as upsampling_modules

    for module in (upsampling, upsampling_modules):
        assert doctest.testmod(module).failed == 0
