"""F.grid_sample, F.affine_grid, and bicubic interpolation (F.interpolate, nn.Upsample):
gradcheck / gradgradcheck, hand-computed values, PyTorch parity."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

SAMPLER_CASES = list(itertools.product(("bilinear", "nearest"),
                                       ("zeros", "border", "reflection"), (False, True)))
BICUBIC_CASES = list(itertools.product(("bicubic",), ("zeros", "border", "reflection"),
                                       (False, True)))  # 4-d only


def inputs(d: int, seed: int = 0, spread: float = 1.4):
    """An image (or volume) and a grid whose points stay away from pixel boundaries, where
    the sampler is not differentiable (finite differences would straddle a kink)."""
    rng = np.random.default_rng(seed)
    shape = (2, 2, 3, 4) if d == 2 else (1, 2, 2, 3, 2)
    grid_shape = (shape[0], 2, 3, 2) if d == 2 else (1, 2, 1, 2, 3)
    x = teachgrad.tensor(rng.standard_normal(shape), requires_grad=True)
    grid = teachgrad.tensor(rng.uniform(-spread, spread, grid_shape), requires_grad=True)
    return x, grid


def sampler(mode, padding_mode, align_corners):
    return lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding_mode,
                                      align_corners=align_corners)


@pytest.mark.parametrize("d,mode,padding_mode,align_corners",
                         [(d, *c) for d in (2, 3) for c in SAMPLER_CASES]
                         + [(2, *c) for c in BICUBIC_CASES])
def test_gradcheck(d, mode, padding_mode, align_corners):
    x, grid = inputs(d, seed=d)
    assert gradcheck(sampler(mode, padding_mode, align_corners), (x, grid), atol=1e-6)


@pytest.mark.parametrize("d,mode,padding_mode,align_corners",
                         [(d, *c) for d in (2, 3) for c in SAMPLER_CASES if c[0] == "bilinear"]
                         + [(2, *c) for c in BICUBIC_CASES])
def test_gradgradcheck(d, mode, padding_mode, align_corners):
    x, grid = inputs(d, seed=10 + d)
    assert gradgradcheck(sampler(mode, padding_mode, align_corners), (x, grid), atol=1e-6)


def test_hand_computed_values():
    image = teachgrad.tensor([[[[0.0, 10.0], [20.0, 30.0]]]], requires_grad=True)
    # align_corners=True: (0.5, -1) is halfway between the top pixels' centres.
    point = teachgrad.tensor([[[[0.0, -1.0]]]], requires_grad=True)
    out = F.grid_sample(image, point, align_corners=True)
    assert out.item() == 5.0
    out.backward()
    assert image.grad.tolist() == [[[[0.5, 0.5], [0.0, 0.0]]]]
    # d out / d x = (10 - 0) per pixel, and one pixel is half the [-1, 1] range: 5.
    assert point.grad.tolist() == [[[[5.0, 10.0]]]]
    # Far outside: zeros reads nothing; border reads the nearest edge pixel.
    far = teachgrad.tensor([[[[3.0, 3.0]]]])
    assert F.grid_sample(image, far, align_corners=True).item() == 0.0
    assert F.grid_sample(image, far, padding_mode="border", align_corners=True).item() == 30.0


def test_third_order_is_refused_clearly():
    x, grid = inputs(2)
    out = F.grid_sample(x, grid, align_corners=False).pow(2).sum()
    (gg,) = teachgrad.autograd.grad(out, grid, create_graph=True)
    (ggx,) = teachgrad.autograd.grad(gg.sum(), x, create_graph=True)
    (plain,) = teachgrad.autograd.grad(
        F.grid_sample(x, grid, align_corners=False).pow(2).sum(), grid, create_graph=True)
    np.testing.assert_allclose(
        ggx.detach().numpy(), teachgrad.autograd.grad(plain.sum(), x)[0].numpy())
    with pytest.raises(RuntimeError, match="is not implemented"):
        teachgrad.autograd.grad(ggx.sum(), grid)


def test_affine_grid_identity_reproduces_the_image_and_gradchecks():
    x, _ = inputs(2)
    theta = teachgrad.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2, dtype=teachgrad.float64,
                             requires_grad=True)
    grid = F.affine_grid(theta, x.shape, align_corners=False)
    np.testing.assert_allclose(F.grid_sample(x, grid, align_corners=False).detach().numpy(),
                               x.detach().numpy(), atol=1e-12)
    assert gradcheck(lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=True), (theta,))
    assert gradgradcheck(lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False) ** 2,
                         (theta,))
    theta3 = teachgrad.tensor(np.random.default_rng(1).standard_normal((1, 3, 4)),
                              requires_grad=True)
    assert gradcheck(lambda t: F.affine_grid(t, (1, 1, 2, 3, 2), align_corners=False),
                     (theta3,))


def test_default_align_corners_warns():
    x, grid = inputs(2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(x, grid)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.affine_grid(teachgrad.zeros(1, 2, 3), (1, 1, 2, 2))


@pytest.mark.parametrize("align_corners", [False, True])
def test_bicubic_gradcheck(align_corners):
    x = teachgrad.tensor(np.random.default_rng(2).standard_normal((1, 2, 3, 4)),
                         requires_grad=True)
    up = lambda x: F.interpolate(x, size=(5, 3), mode="bicubic",  # noqa: E731
                                 align_corners=align_corners)
    assert gradcheck(up, (x,))
    assert gradgradcheck(up, (x,))


def test_bicubic_keeps_a_constant_and_a_straight_line():
    # The cubic kernel's four weights add up to 1, and it reproduces straight lines exactly
    # away from the border (where clamping repeats the edge pixel).
    out = F.interpolate(teachgrad.full((1, 1, 3, 3), 7.0), scale_factor=2, mode="bicubic")
    np.testing.assert_allclose(out.numpy(), 7.0)
    ramp = teachgrad.arange(8.0).reshape(1, 1, 1, 8).repeat(1, 1, 2, 1)
    out = F.interpolate(ramp, size=(2, 15), mode="bicubic", align_corners=True)
    np.testing.assert_allclose(out.numpy()[0, 0, 0, 4:11], np.arange(4, 11) * 0.5, atol=1e-6)


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("d,dtype,mode,padding_mode,align_corners",
                         [(d, dtype, *c) for d, dtype in ((2, "float64"), (3, "float64"),
                                                          (2, "float32"))
                          for c in SAMPLER_CASES]
                         + [(2, dtype, *c) for dtype in ("float64", "float32")
                            for c in BICUBIC_CASES])
def test_sampler_matches_pytorch(d, dtype, mode, padding_mode, align_corners):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    shape = (2, 3, 4, 5) if d == 2 else (1, 2, 3, 4, 3)
    grid_shape = (shape[0], 3, 2, 2) if d == 2 else (1, 2, 3, 2, 3)
    x = rng.standard_normal(shape).astype(dtype)
    g = rng.uniform(-1.7, 1.7, grid_shape).astype(dtype)
    g.reshape(-1)[:4] = [1.0, -1.0, 0.0, 0.5]  # exactly on edges and centres too
    ours_x, ours_g = (teachgrad.tensor(a, requires_grad=True) for a in (x, g))
    theirs_x, theirs_g = (torch.tensor(a, requires_grad=True) for a in (x, g))
    kwargs = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    ours = F.grid_sample(ours_x, ours_g, **kwargs)
    theirs = torch.nn.functional.grid_sample(theirs_x, theirs_g, **kwargs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"atol": 1e-12}
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), **tolerance)
    grad = rng.standard_normal(theirs.shape).astype(dtype)
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    assert ours_x.grad.dtype == ours_x.dtype
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), **tolerance)
    np.testing.assert_allclose(ours_g.grad.numpy(), theirs_g.grad.numpy(), **tolerance)


@pytest.mark.torch
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_second_order_matches_pytorch(mode, padding_mode):
    torch = pytest.importorskip("torch")
    results = {}
    for lib in (teachgrad, torch):
        rng = np.random.default_rng(6)
        x = lib.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
        g = lib.tensor(rng.uniform(-1.3, 1.3, (1, 2, 2, 2)), requires_grad=True)
        out = lib.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding_mode,
                                            align_corners=False)
        gx, gg = lib.autograd.grad((out ** 2).sum(), (x, g), create_graph=True)
        assert type(gx.grad_fn).__name__ == "GridSampler2DBackwardBackward0"
        ((gx ** 2).sum() + (gg * gg.detach()).sum()).backward()
        results[lib.__name__] = (x.grad.detach().numpy(), g.grad.detach().numpy())
    for ours, theirs in zip(results["teachgrad"], results["torch"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("size,align_corners", [((2, 1, 3, 4), False), ((2, 1, 3, 4), True),
                                                ((1, 2, 2, 3, 4), False),
                                                ((1, 1, 1, 5), True)])
def test_affine_grid_matches_pytorch(size, align_corners):
    torch = pytest.importorskip("torch")
    d = len(size) - 2
    theta = np.random.default_rng(7).standard_normal((size[0], d, d + 1)).astype(np.float32)
    ours_t = teachgrad.tensor(theta, requires_grad=True)
    theirs_t = torch.tensor(theta, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unit-size grids with align_corners=True warn
        ours = F.affine_grid(ours_t, size, align_corners=align_corners)
        theirs = torch.nn.functional.affine_grid(theirs_t, size, align_corners=align_corners)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6,
                               atol=1e-6)
    grad = np.random.default_rng(8).standard_normal(theirs.shape).astype(np.float32)
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    np.testing.assert_allclose(ours_t.grad.numpy(), theirs_t.grad.numpy(), rtol=1e-5,
                               atol=1e-5)


def test_identity_grid_points_fall_on_pytorchs_side_of_each_pixel_centre():
    # An identity affine_grid puts every point on a pixel centre up to one rounding, and
    # the side it lands on picks the neighbour whose slope the grid's gradient reads.
    # PyTorch's base grid is linspace(-1, 1, n) * (n - 1) / n (two roundings), and its
    # 2-D kernel unnormalises with one fused multiply-add: fl((g + 1)·n/2 - 0.5). For
    # n = 7 the point g = 2/7 is (up to rounding) pixel 4; PyTorch computes just below 4.
    from teachgrad.nn import grid_sample as gs
    line = gs.base_grid((7,), False, np.float64)[:, 0]
    assert line[4] == np.float64(0.2857142857142857)
    fused, _ = gs.source_coordinates(line, 7, False, "zeros", fused=True)
    separate, _ = gs.source_coordinates(line, 7, False, "zeros")
    # exactly: (1 + 0.2857142857142857) rounds to 1.2857142857142856, whose exact
    # product with 3.5 minus 0.5 is 3.99999999999999961..., rounded: 4 - 2^-51
    assert fused[4] == 4 - 2.0 ** -51 and separate[4] == 4.0
    float32_line = gs.base_grid((28,), False, np.float32)[:, 0]
    assert float32_line.dtype == np.float32
    assert gs.source_coordinates(float32_line, 28, False, "zeros", fused=True)[0][1] == \
        np.float32(1.0000001)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode,padding_mode,align_corners,size", [
    ("bilinear", "zeros", False, (2, 1, 7, 7)), ("bilinear", "border", True, (1, 2, 28, 28)),
    ("bilinear", "reflection", False, (1, 1, 5, 9)), ("bicubic", "zeros", False, (1, 1, 7, 6)),
    ("bilinear", "zeros", False, (1, 1, 5, 6, 7)), ("nearest", "border", True, (1, 1, 6, 7)),
])
def test_identity_spatial_transformer_gradient_matches_pytorch(dtype, mode, padding_mode,
                                                               align_corners, size):
    # The spatial transformer tutorial's first step: theta is the identity, and its
    # gradient is all points at pixel centres (it was off by up to 100% here).
    torch = pytest.importorskip("torch")
    d = len(size) - 2
    rng = np.random.default_rng(3)
    x = rng.standard_normal(size).astype(dtype)
    w = rng.standard_normal(size).astype(dtype)
    theta = np.tile(np.eye(d, d + 1), (size[0], 1, 1)).astype(dtype)
    results = []
    for lib in (teachgrad, torch):
        image, t = lib.tensor(x, requires_grad=True), lib.tensor(theta, requires_grad=True)
        grid = lib.nn.functional.affine_grid(t, size, align_corners=align_corners)
        out = lib.nn.functional.grid_sample(image, grid, mode=mode, padding_mode=padding_mode,
                                            align_corners=align_corners)
        (out * lib.tensor(w)).sum().backward()
        results.append((grid.detach().numpy(), t.grad.numpy(), image.grad.numpy()))
    (grid, theta_grad, image_grad), (their_grid, their_theta_grad, their_image_grad) = results
    assert np.array_equal(grid, their_grid)  # to the last bit
    tol = 1e-10 if dtype == "float64" else 1e-3
    np.testing.assert_allclose(theta_grad, their_theta_grad, rtol=tol, atol=tol)
    np.testing.assert_allclose(image_grad, their_image_grad, rtol=tol, atol=tol)


GRID_ERRORS = [
    ((1, 1, 3, 3), (1, 2, 2, 2), {"mode": "foo"}),
    ((1, 1, 3, 3), (1, 2, 2, 2), {"padding_mode": "foo"}),
    ((1, 1, 3, 3), (1, 2, 2, 3), {}),
    ((1, 1, 3, 3), (2, 2, 2, 2), {}),
    ((1, 1, 3, 3), (1, 2, 2), {}),
    ((1, 3, 3), (1, 2, 2, 2), {}),
    ((1, 1, 0, 3), (1, 2, 2, 2), {}),
    ((1, 1, 3, 3, 3), (1, 2, 2, 2, 3), {"mode": "bicubic"}),
]
AFFINE_ERRORS = [
    ((1, 2, 3), (1, 1, 2, 2, 2)),
    ((1, 2, 4), (1, 1, 2, 2)),
    ((2, 2, 3), (1, 1, 2, 2)),
    ((1, 2, 3), (1, 1, 2)),
    ((1, 2, 3), (1, 1, 0, 2)),
]


@pytest.mark.torch
def test_errors_match_pytorch():
    torch = pytest.importorskip("torch")
    cases = [(lambda lib, a=a, b=b, k=k: lib.nn.functional.grid_sample(
        lib.zeros(a), lib.zeros(b), align_corners=False, **k)) for a, b, k in GRID_ERRORS]
    cases += [(lambda lib, a=a, b=b: lib.nn.functional.affine_grid(
        lib.zeros(a), b, align_corners=False)) for a, b in AFFINE_ERRORS]
    cases += [
        lambda lib: lib.nn.functional.grid_sample(
            lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2, dtype=lib.float64), align_corners=False),
        lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3, dtype=lib.int64),
                                                  (1, 1, 2, 2), align_corners=False),
        # the size echoed as given (a Size, a tuple), not as a tuple made of it
        lambda lib: lib.nn.functional.affine_grid(lib.zeros(2, 3, 3), lib.zeros(2, 1, 4, 4).shape,
                                                  align_corners=False),
        lambda lib: lib.nn.functional.affine_grid(lib.zeros(2, 2, 3), (2, 1, 2, 3, 4),
                                                  align_corners=False),
        lambda lib: lib.nn.functional.interpolate(lib.zeros(1, 1, 4), scale_factor=2,
                                                  mode="bicubic"),
        lambda lib: lib.nn.functional.interpolate(lib.zeros(1, 1, 2, 4, 4), scale_factor=2,
                                                  mode="bicubic"),
        lambda lib: lib.nn.functional.interpolate(lib.zeros(1, 1, 4, 4, dtype=lib.int64),
                                                  scale_factor=2, mode="bicubic"),
    ]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            case(torch)
        with pytest.raises(type(theirs.value)) as ours:
            case(teachgrad)
        mine = str(ours.value).split("\nHint:")[0].replace("teachgrad.", "torch.")
        assert mine == str(theirs.value)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kwargs", [
    ((1, 2, 3, 4), {"scale_factor": 2}),
    ((1, 1, 5, 3), {"size": (7, 2)}),
    ((2, 1, 4, 4), {"scale_factor": (1.7, 0.6)}),
    ((1, 1, 3, 3), {"scale_factor": 1.2}),                       # same size, still resampled
    ((1, 1, 4, 5), {"size": (9, 3), "align_corners": True}),
    ((1, 1, 1, 4), {"size": (3, 1), "align_corners": True}),
    ((1, 1, 4, 4), {"scale_factor": 1.5, "recompute_scale_factor": True}),
])
def test_bicubic_matches_pytorch(dtype, shape, kwargs):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(9).standard_normal(shape).astype(dtype)
    ours_x, theirs_x = teachgrad.tensor(x, requires_grad=True), torch.tensor(x,
                                                                           requires_grad=True)
    ours = F.interpolate(ours_x, mode="bicubic", **kwargs)
    theirs = torch.nn.functional.interpolate(theirs_x, mode="bicubic", **kwargs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    tolerance = {"rtol": 1e-5, "atol": 2e-6} if dtype == "float32" else {"atol": 1e-12}
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), **tolerance)
    if theirs.shape == theirs_x.shape and "scale_factor" in kwargs:
        # PyTorch's bicubic backward copies the gradient when the sizes agree, although its
        # forward resampled with the scale factor (it fails its own gradcheck): ours is
        # the true gradient (checked against finite differences below).
        assert gradcheck(lambda t: F.interpolate(t, mode="bicubic", **kwargs),
                         (teachgrad.tensor(x.astype(np.float64), requires_grad=True),))
        return
    grad = np.random.default_rng(10).standard_normal(theirs.shape).astype(dtype)
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), **tolerance)


@pytest.mark.torch
def test_bicubic_upsample_module_matches_pytorch():
    torch = pytest.importorskip("torch")
    ours = nn.Upsample(scale_factor=2, mode="bicubic", align_corners=True)
    theirs = torch.nn.Upsample(scale_factor=2, mode="bicubic", align_corners=True)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(11).standard_normal((1, 2, 3, 3))
    np.testing.assert_allclose(ours(teachgrad.tensor(x)).numpy(),
                               theirs(torch.tensor(x)).numpy(), atol=1e-12)


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import grid_sample, upsampling

    for module in (grid_sample, upsampling):
        assert doctest.testmod(module).failed == 0
