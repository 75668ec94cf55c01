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
    with pytest.raises(ValueError, match="Lanczos mode requires antialias=True"):
        F.interpolate(x, scale_factor=0.5, mode="lanczos")
    with pytest.raises(ValueError, match="Lanczos mode does not support align_corners=True"):
        F.interpolate(x, scale_factor=0.5, mode="lanczos", antialias=True, align_corners=True)
    with pytest.raises(ValueError, match="Anti-alias option is restricted to bilinear, "
                                         "bicubic, and lanczos modes and requires a 4-D"):
        F.interpolate(teachgrad.zeros(1, 1, 2, 2, 2), scale_factor=2, mode="lanczos",
                      antialias=True)
    with pytest.raises(NotImplementedError, match=r"Only 3D, 4D and 5D .* \(got lanczos\)"):
        F.interpolate(teachgrad.zeros(1, 1, 2, 2, 2), scale_factor=2, mode="lanczos")
    with pytest.raises(NotImplementedError, match="\"compute_index_ranges_weights\" not "
                                                  "implemented for 'Long'"):
        F.interpolate(teachgrad.zeros(1, 1, 4, 4, dtype=teachgrad.int64), size=2,
                      mode="bilinear", antialias=True)
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        F.interpolate(teachgrad.zeros(1, 1, 4, 4, dtype=teachgrad.float16), size=2,
                      mode="bicubic", antialias=True)


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
    ((1, 2, 4, 5), {"scale_factor": 0.5, "mode": "lanczos"}),
    ((1, 2, 4, 5), {"scale_factor": 0.5, "mode": "lanczos", "antialias": True,
                    "align_corners": True}),
    ((1, 2, 4, 5, 6), {"scale_factor": 0.5, "mode": "lanczos"}),
    ((1, 2, 6), {"scale_factor": 0.5, "mode": "linear", "antialias": True}),
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


# ---------------------------------------------------------------------------------------
# antialias=True: shrinking averages every input under a stretched filter
# ---------------------------------------------------------------------------------------
AA_MODES = ["bilinear", "bicubic", "lanczos"]


def test_antialias_halving_a_ramp_by_hand():
    # 6 -> 3 with the tent filter stretched to 2 steps each side. Output 1 is centred at
    # 3: inputs 1..4 weigh 1/4, 3/4, 3/4, 1/4 (sum 2), i.e. 1/8 3/8 3/8 1/8 -> 2.5.
    # Output 0 (centre 1) reads 0..2 with 3/4 3/4 1/4, normalised: 3/7 3/7 1/7 -> 5/7.
    x = teachgrad.arange(6.0, dtype=teachgrad.float64).reshape(1, 1, 1, 6)
    y = F.interpolate(x, size=(1, 3), mode="bilinear", antialias=True)
    np.testing.assert_allclose(y.numpy().ravel(), [5 / 7, 2.5, 5 - 5 / 7], rtol=1e-14)
    # plain bilinear samples between two pixels instead: 0.5, 2.5, 4.5
    plain = F.interpolate(x, size=(1, 3), mode="bilinear")
    np.testing.assert_allclose(plain.numpy().ravel(), [0.5, 2.5, 4.5])


def test_antialias_cubic_and_lanczos_weights_by_hand():
    # One output from 8 inputs (centre 4, shrink 8): weight of input i is
    # filter((i + 0.5 - 4) / 8), normalised. Check against the filters written out here.
    x = teachgrad.tensor(np.eye(8)).reshape(8, 1, 1, 8)   # sample k is the k-th one-hot
    t = (np.arange(8) + 0.5 - 4) / 8
    a = -0.5
    near = ((a + 2) * abs(t) - (a + 3)) * t * t + 1            # |t| < 1 everywhere here
    lanczos = np.sinc(t) * np.sinc(t / 3)
    for mode, w in [("bicubic", near), ("lanczos", lanczos)]:
        y = F.interpolate(x, size=(1, 1), mode=mode, antialias=True)
        np.testing.assert_allclose(y.numpy().ravel(), w / w.sum(), rtol=1e-12)


@pytest.mark.parametrize("mode", AA_MODES)
def test_antialias_keeps_a_constant_image_constant(mode):
    # The weights of every output add up to one, also where the filter is cut at a border.
    x = teachgrad.full((1, 2, 13, 9), 3.25, dtype=teachgrad.float64)
    for size in [(5, 4), (1, 1), (13, 9), (20, 17)]:
        y = F.interpolate(x, size=size, mode=mode, antialias=True)
        np.testing.assert_allclose(y.numpy(), 3.25, rtol=1e-14)


@pytest.mark.parametrize("mode", AA_MODES)
@pytest.mark.parametrize("size", [(3, 2), (7, 11)])
def test_antialias_gradients(mode, size):
    x = leaf((1, 2, 9, 6))
    fn = lambda x: F.interpolate(x, size=size, mode=mode, antialias=True)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    name = {"bilinear": "Bilinear", "bicubic": "Bicubic", "lanczos": "Lanczos"}[mode]
    y = fn(x)
    assert type(y.grad_fn).__name__ == f"Upsample{name}2DAaBackward0"
    (g,) = teachgrad.autograd.grad(y, x, teachgrad.ones_like(y, requires_grad=True),
                                   create_graph=True)
    assert type(g.grad_fn).__name__ == f"Upsample{name}2DAaBackwardBackward0"


@pytest.mark.torch
@pytest.mark.parametrize("mode", AA_MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kwargs", [
    ((2, 3, 13, 7), {"size": (3, 2)}),
    ((1, 2, 32, 20), {"scale_factor": 0.37}),
    ((1, 2, 5, 9), {"scale_factor": (0.5, 1.7)}),
    ((1, 1, 6, 6), {"size": (1, 1)}),
    ((1, 2, 10, 9), {"size": (20, 4)}),
    ((1, 2, 10, 9), {"scale_factor": 0.5, "recompute_scale_factor": True}),
    ((1, 2, 10, 9), {"size": (4, 3), "align_corners": True}),
])
def test_antialias_matches_pytorch(mode, dtype, shape, kwargs):
    torch = pytest.importorskip("torch")
    if mode == "lanczos" and kwargs.get("align_corners"):
        pytest.skip("lanczos refuses align_corners (tested with the errors)")
    x = np.random.default_rng(7).standard_normal(shape).astype(dtype)
    ours_x = teachgrad.tensor(x, requires_grad=True)
    theirs_x = torch.tensor(x, requires_grad=True)
    ours = F.interpolate(ours_x, mode=mode, antialias=True, **kwargs)
    theirs = torch.nn.functional.interpolate(theirs_x, mode=mode, antialias=True, **kwargs)
    # float32 sums differ in the last bits (PyTorch's kernel fuses multiply-adds)
    tol = {"float32": 2e-6, "float64": 1e-13}[dtype]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=tol)
    g = np.random.default_rng(8).standard_normal(tuple(theirs.shape)).astype(dtype)
    ours.backward(teachgrad.tensor(g))
    theirs.backward(torch.tensor(g))
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), atol=tol * 4)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
