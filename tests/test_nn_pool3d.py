"""3-d pooling (max, average, adaptive, LP), the *_with_indices names, max unpooling in
1, 2 and 3 dimensions, BatchNorm3d and InstanceNorm3d (gradcheck, PyTorch parity)."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

# (function, input shape, positional arguments, keyword arguments)
CASES = [
    ("max_pool3d", (1, 2, 4, 4, 4), (2,), {}),
    ("max_pool3d", (2, 3, 5, 4), (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("max_pool3d", (1, 1, 5, 4, 6), ((2, 1, 3),), {"stride": (1, 2, 2), "padding": (1, 0, 1),
                                                    "dilation": (2, 1, 1)}),
    ("avg_pool3d", (1, 2, 4, 4, 4), (2,), {}),
    ("avg_pool3d", (2, 3, 5, 4), (3,), {"stride": 2, "padding": 1, "ceil_mode": True,
                                        "count_include_pad": False}),
    ("avg_pool3d", (1, 1, 5, 4, 6), ((2, 1, 3),), {"stride": (1, 2, 2), "padding": (1, 0, 1),
                                                    "divisor_override": 5}),
    ("adaptive_avg_pool3d", (1, 2, 5, 4, 6), ((2, 3, 4),), {}),
    ("adaptive_avg_pool3d", (2, 3, 5, 4), ((None, 3, 2),), {}),
    ("adaptive_avg_pool3d", (1, 2, 3, 3, 3), (1,), {}),                  # a mean
    ("adaptive_max_pool3d", (1, 2, 5, 4, 6), ((2, 3, 4),), {}),
    ("adaptive_max_pool3d", (2, 3, 5, 4), ((3, None, 2),), {}),
    ("lp_pool3d", (1, 2, 4, 4, 4), (2, 2), {}),
    ("lp_pool3d", (1, 2, 4, 5, 4), (3, (2, 1, 2)), {"stride": 1}),
]


def leaf(shape, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    return teachgrad.tensor(np.abs(values) + 0.5 if positive else values, requires_grad=True)


def call(lib, name, x, args, kwargs):
    return getattr(lib.nn.functional, name)(x, *args, **kwargs)


@pytest.mark.parametrize("name,shape,args,kwargs", CASES)
def test_gradcheck(name, shape, args, kwargs):
    x = leaf(shape, positive=name == "lp_pool3d")  # x^p of a negative x is nan for odd p
    assert gradcheck(lambda x: call(teachgrad, name, x, args, kwargs), (x,))


@pytest.mark.parametrize("case", [CASES[1], CASES[4], CASES[6], CASES[9]])
def test_gradgradcheck(case):
    name, shape, args, kwargs = case
    x = leaf(shape)
    assert gradgradcheck(lambda x: call(teachgrad, name, x, args, kwargs), (x,))


def test_hand_computed_max_and_mean():
    cube = teachgrad.arange(8.0).reshape(1, 1, 2, 2, 2).requires_grad_()
    values, indices = F.max_pool3d(cube, 2, return_indices=True)
    assert values.item() == 7.0 and indices.item() == 7
    values.backward()
    assert cube.grad.flatten().tolist() == [0.0] * 7 + [1.0]
    assert F.avg_pool3d(cube, 2).item() == 3.5


def test_with_indices_names_return_both():
    for d in (1, 2, 3):
        shaped = leaf((1, 2, *(4,) * d), seed=d)
        values, indices = getattr(F, f"max_pool{d}d_with_indices")(shaped, 2)
        assert indices.dtype == teachgrad.int64
        assert values.equal(getattr(F, f"max_pool{d}d")(shaped, 2))
        values, indices = getattr(F, f"adaptive_max_pool{d}d_with_indices")(shaped, 2)
        assert values.equal(getattr(F, f"adaptive_max_pool{d}d")(shaped, 2))


@pytest.mark.parametrize("d,shape", [(1, (2, 3, 8)), (2, (1, 2, 4, 6)), (3, (1, 2, 4, 2, 4))])
def test_unpool_inverts_pool_and_gradchecks(d, shape):
    x = leaf(shape, seed=d)
    values, indices = getattr(F, f"max_pool{d}d")(x, 2, return_indices=True)
    unpool = getattr(F, f"max_unpool{d}d")
    restored = unpool(values, indices, 2)
    # Every maximum is back in its place, everything else is zero.
    kept = restored.detach().numpy() != 0
    np.testing.assert_array_equal(restored.detach().numpy()[kept], x.detach().numpy()[kept])
    assert kept.sum() == values.numel()
    v = values.detach().requires_grad_()
    assert gradcheck(lambda v: unpool(v, indices, 2), (v,))
    assert gradgradcheck(lambda v: unpool(v, indices, 2), (v,))


def test_modules_forward_and_their_unpooling():
    pool, unpool = nn.MaxPool3d(2, return_indices=True), nn.MaxUnpool3d(2)
    x = leaf((1, 1, 2, 2, 2))
    out = unpool(*pool(x))
    assert out.shape == (1, 1, 2, 2, 2) and (out != 0).sum().item() == 1
    assert nn.AvgPool3d(2)(x).shape == (1, 1, 1, 1, 1)
    assert nn.AdaptiveAvgPool3d(1)(x).shape == (1, 1, 1, 1, 1)
    assert nn.AdaptiveMaxPool3d((1, 2, 1))(x).shape == (1, 1, 1, 2, 1)
    assert nn.LPPool3d(2, 2)(x.abs()).shape == (1, 1, 1, 1, 1)


def test_batch_norm3d_and_instance_norm3d_gradcheck():
    x = leaf((2, 3, 2, 2, 3))
    bn = nn.BatchNorm3d(3).double()
    assert gradcheck(bn, (x,))
    norm = nn.InstanceNorm3d(3, affine=True).double()
    assert gradcheck(norm, (x,))
    assert norm(x[0]).shape == (3, 2, 2, 3)  # unbatched
    with pytest.raises(ValueError, match="expected 5D input"):
        bn(x[0])


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("name,shape,args,kwargs", CASES)
def test_values_gradients_and_grad_fn_match_pytorch(name, shape, args, kwargs):
    torch = pytest.importorskip("torch")
    x = leaf(shape, seed=7, positive=name == "lp_pool3d")
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    ours, theirs = call(teachgrad, name, x, args, kwargs), call(torch, name, tx, args, kwargs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    grad = np.random.default_rng(8).standard_normal(theirs.shape)
    ours.backward(teachgrad.tensor(grad))
    theirs.backward(torch.tensor(grad))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("name,shape,args,kwargs", [c for c in CASES if "max" in c[0]])
def test_indices_match_pytorch(name, shape, args, kwargs):
    torch = pytest.importorskip("torch")
    x = leaf(shape, seed=9)
    x.detach()._data[..., :2] = 0.0  # ties: the first one wins in both
    ours = call(teachgrad, f"{name}_with_indices", x, args, kwargs)[1]
    theirs = call(torch, f"{name}_with_indices", torch.tensor(x.detach().numpy()), args,
                  kwargs)[1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_integer_average_matches_pytorch(dtype):
    torch = pytest.importorskip("torch")
    data = np.arange(-30, 34).reshape(1, 1, 4, 4, 4).astype(dtype)
    cases = [lambda lib, x: lib.nn.functional.avg_pool3d(x, 2, divisor_override=3),
             lambda lib, x: lib.nn.functional.avg_pool3d(x, 3, stride=1, padding=1),
             lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x, 3)]
    for case in cases:
        try:
            expected = case(torch, torch.tensor(data)).numpy()
        except NotImplementedError as error:
            with pytest.raises(NotImplementedError) as ours:
                case(teachgrad, teachgrad.tensor(data))
            assert str(ours.value).split("\nHint:")[0] == str(error)
            continue
        np.testing.assert_array_equal(case(teachgrad, teachgrad.tensor(data)).numpy(), expected)


ERRORS = [
    ("max_pool3d", (2, 4, 4), (2,), {}),
    ("max_pool3d", (1, 2, 4, 4, 4), (0,), {}),
    ("max_pool3d", (1, 2, 4, 4, 4), (-1,), {"stride": 1}),
    ("max_pool3d", (1, 2, 4, 4, 4), (2,), {"stride": -1}),
    ("max_pool3d", (1, 2, 4, 4, 4), (2,), {"padding": 2}),
    ("max_pool3d", (1, 2, 4, 4, 4), (2,), {"padding": -1}),
    ("max_pool3d", (1, 2, 4, 4, 4), ((2, 2),), {}),
    ("max_pool3d", (1, 2, 4, 4, 4), (2,), {"stride": (1, 2)}),
    ("max_pool3d", (1, 2, 4, 4, 4), (2,), {"padding": (1, 1)}),
    ("max_pool3d", (1, 2, 4, 4, 4), (2,), {"dilation": (1, 1)}),
    ("max_pool3d", (1, 2, 4, 4, 4), (2,), {"dilation": 0}),
    ("max_pool3d", (1, 2, 1, 4, 4), (2,), {}),
    ("max_pool3d", (1, 0, 4, 4, 4), (2,), {}),
    ("avg_pool3d", (2, 4, 4), (2,), {}),
    ("avg_pool3d", (1, 2, 1, 4, 4), (2,), {}),
    ("avg_pool3d", (1, 2, 2, 4, 4), (3,), {"stride": 3, "padding": 1}),
    ("avg_pool3d", (1, 2, 4, 4, 4), (2,), {"divisor_override": 0}),
    ("avg_pool3d", (1, 2, 4, 4, 4), ((2, 2),), {}),
    ("avg_pool3d", (1, 2, 4, 4, 4), (2,), {"stride": (1, 1)}),
    ("avg_pool3d", (1, 2, 4, 4, 4), (2,), {"padding": (1, 1)}),
    ("avg_pool3d", (1, 2, 0, 4, 4), (2,), {}),
    ("avg_pool3d", (2, 0, 4, 4), (2,), {}),
    ("max_pool3d", (1, 2, 4, 0, 4), (2,), {}),
    ("avg_pool3d", (1, 2, 4, 4, 4), (-1,), {}),
    ("adaptive_avg_pool3d", (2, 4, 4), (2,), {}),
    ("adaptive_avg_pool3d", (1, 2, 4, 4, 4), ((2, 2),), {}),
    ("adaptive_avg_pool3d", (1, 2, 0, 4, 4), (2,), {}),
    ("adaptive_max_pool3d", (4, 4), (2,), {}),
    ("adaptive_max_pool3d", (1, 2, 4, 4, 4), ((2, 2),), {}),
    ("adaptive_max_pool3d", (1, 2, 0, 4, 4), (2,), {}),
    ("max_pool2d", (1, 2, 4, 4), (2,), {"stride": -1}),
    ("max_pool2d", (1, 2, 4, 4), (2,), {"padding": -1}),
    ("avg_pool2d", (1, 2, 4, 4), (2,), {"padding": -1}),
]


@pytest.mark.torch
@pytest.mark.parametrize("name,shape,args,kwargs", ERRORS)
def test_errors_match_pytorch(name, shape, args, kwargs):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch, name, torch.zeros(shape), args, kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        call(teachgrad, name, teachgrad.zeros(shape), args, kwargs)
    assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


@pytest.mark.torch
def test_unpool_values_grad_fn_and_errors_match_pytorch():
    torch = pytest.importorskip("torch")
    x = np.array([[[1.0, 5.0, 2.0, 3.0, 7.0, 0.0]]])
    idx = np.array([[[1, 3, 4]]])
    calls = [
        lambda lib, v, i: lib.nn.functional.max_unpool1d(v, i, 2),
        lambda lib, v, i: lib.nn.functional.max_unpool1d(v, i, 2, output_size=[7]),
        lambda lib, v, i: lib.nn.functional.max_unpool1d(v, i, 2, output_size=[1, 1, 7]),
        lambda lib, v, i: lib.nn.functional.max_unpool1d(v, i, 2, output_size=[9]),
        lambda lib, v, i: lib.nn.functional.max_unpool1d(v, i, 2, output_size=(1, 1, 9)),
        lambda lib, v, i: lib.nn.functional.max_unpool1d(v, i, 2, output_size=[1, 7]),
        lambda lib, v, i: lib.nn.functional.max_unpool1d(v, i.float(), 2),
        lambda lib, v, i: lib.nn.functional.max_unpool1d(v, i[..., :2], 2),
        lambda lib, v, i: lib.nn.functional.max_unpool1d(v, i * (i // 4 * 4 + 1), 2),  # 20
        lambda lib, v, i: lib.nn.functional.max_unpool2d(v, i, 2),
        lambda lib, v, i: lib.nn.functional.max_unpool2d(v[0], i[0], (1, 2)),
        lambda lib, v, i: lib.nn.functional.max_unpool3d(v[0], i[0], (1, 1, 2)),
        lambda lib, v, i: lib.nn.functional.max_unpool3d(v, i, 2),
        lambda lib, v, i: lib.nn.functional.max_unpool2d(v[None], i[None], 2),
    ]
    for case in calls:
        tv = torch.tensor(x[..., ::2].copy(), requires_grad=True)
        try:
            theirs = case(torch, tv, torch.tensor(idx))
        except Exception as error:
            with pytest.raises(type(error)) as ours:
                case(teachgrad, teachgrad.tensor(x[..., ::2].copy()), teachgrad.tensor(idx))
            assert str(ours.value).split("\nHint:")[0] == str(error)
            continue
        v = teachgrad.tensor(x[..., ::2].copy(), requires_grad=True)
        ours = case(teachgrad, v, teachgrad.tensor(idx))
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
        np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
        grad = np.arange(float(theirs.numel())).reshape(theirs.shape)
        ours.backward(teachgrad.tensor(grad))
        theirs.backward(torch.tensor(grad))
        np.testing.assert_array_equal(v.grad.numpy(), tv.grad.numpy())


@pytest.mark.torch
@pytest.mark.parametrize("name,args,kwargs", [
    ("MaxPool3d", (2,), {}), ("MaxPool3d", ((1, 2, 3),), {"stride": 1, "padding": (0, 1, 1),
                                                          "ceil_mode": True}),
    ("AvgPool3d", (2,), {"stride": 1, "padding": 1, "divisor_override": 3}),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}), ("AdaptiveMaxPool3d", (2,), {}),
    ("LPPool3d", (2, 2), {}), ("MaxUnpool1d", (2,), {}), ("MaxUnpool2d", (2,), {"padding": 1}),
    ("MaxUnpool3d", (2,), {"stride": 1, "padding": 1}),
    ("BatchNorm3d", (4,), {}), ("BatchNorm3d", (4,), {"affine": False, "momentum": None}),
    ("InstanceNorm3d", (4,), {}), ("InstanceNorm3d", (4,), {"affine": True,
                                                            "track_running_stats": True}),
])
def test_module_repr_and_state_dict_match_pytorch(name, args, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in theirs.state_dict().items()]


@pytest.mark.torch
@pytest.mark.parametrize("name,kwargs", [("BatchNorm3d", {}),
                                         ("InstanceNorm3d", {"affine": True,
                                                             "track_running_stats": True})])
def test_norm3d_training_and_eval_match_pytorch(name, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(3, **kwargs).double(), getattr(torch.nn, name)(3, **kwargs)
    theirs = theirs.double()
    data = np.random.default_rng(3).standard_normal((2, 3, 2, 3, 2))
    for _ in range(2):
        np.testing.assert_allclose(ours(teachgrad.tensor(data)).detach().numpy(),
                                   theirs(torch.tensor(data)).detach().numpy(), atol=1e-12)
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(ours(teachgrad.tensor(data)).detach().numpy(),
                               theirs(torch.tensor(data)).detach().numpy(), atol=1e-12)
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[key].numpy(), value.numpy(), atol=1e-12)


# ----------------------------------------------------------------------------------------
# Fractional max pooling
# ----------------------------------------------------------------------------------------
FRACTIONAL_CASES = [  # (d, input shape, kernel, output size)
    (2, (2, 3, 7, 6), 2, (4, 3)),
    (2, (3, 9, 8), (3, 2), (4, 5)),                  # unbatched
    (2, (1, 1, 5, 5), 2, (1, 4)),                    # windows reaching the last position
    (3, (1, 2, 5, 6, 7), 2, (3, 3, 4)),
    (3, (2, 5, 6, 4), (2, 3, 1), (2, 2, 3)),          # unbatched
]


def fractional_inputs(lib, d, shape, dtype="float64", seed=11):
    rng = np.random.default_rng(seed)
    batch = 1 if len(shape) == d + 1 else shape[0]
    x = lib.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
    samples = lib.tensor(rng.random((batch, shape[-d - 1], d)).astype(dtype))
    return x, samples


@pytest.mark.parametrize("d,shape,kernel,out", FRACTIONAL_CASES)
def test_fractional_gradcheck(d, shape, kernel, out):
    x, samples = fractional_inputs(teachgrad, d, shape)
    pool = getattr(F, f"fractional_max_pool{d}d")
    assert gradcheck(lambda x: pool(x, kernel, out, _random_samples=samples), (x,))
    assert gradgradcheck(lambda x: pool(x, kernel, out, _random_samples=samples), (x,))


def test_fractional_windows_and_random_placement():
    # u = 0.5, 7 positions into 3 windows of 2: α = 2.5, starts 0, ⌊3.75⌋-⌊1.25⌋ = 2, and
    # the last window ends at the end: 5.
    from teachgrad.nn.pooling_ops import fractional_positions

    assert fractional_positions(np.array([0.5]), 7, 3, 2).tolist() == [[[0, 1], [2, 3],
                                                                        [5, 6]]]
    teachgrad.manual_seed(0)
    pool = nn.FractionalMaxPool2d(2, output_size=3)
    x = teachgrad.randn(1, 4, 7, 7)
    assert pool(x).shape == (1, 4, 3, 3)  # fresh samples each call, same shape
    fixed = nn.FractionalMaxPool2d(2, output_size=3,
                                   _random_samples=teachgrad.rand(1, 4, 2))
    assert fixed(x).equal(fixed(x))


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("d,shape,kernel,out", FRACTIONAL_CASES)
def test_fractional_matches_pytorch(d, shape, kernel, out, dtype):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (teachgrad, torch):
        x, samples = fractional_inputs(lib, d, shape, dtype)
        values, indices = getattr(lib.nn.functional, f"fractional_max_pool{d}d")(
            x, kernel, output_size=out, return_indices=True, _random_samples=samples)
        values.backward(lib.tensor(np.arange(float(values.numel())).reshape(
            tuple(values.shape)).astype(dtype)))
        results.append((type(values.grad_fn).__name__, values.detach().numpy(),
                        indices.numpy(), x.grad.numpy()))
    assert results[0][0] == results[1][0]
    for mine, real in zip(results[0][1:], results[1][1:]):
        np.testing.assert_array_equal(mine, real)


@pytest.mark.torch
def test_fractional_errors_and_modules_match_pytorch():
    torch = pytest.importorskip("torch")
    calls = [
        lambda lib, x, s: lib.nn.functional.fractional_max_pool2d(x, 2, _random_samples=s),
        lambda lib, x, s: lib.nn.functional.fractional_max_pool2d(x, 2, output_size=(7, 3),
                                                                  _random_samples=s),
        lambda lib, x, s: lib.nn.functional.fractional_max_pool2d(x, 2, output_size=(4, 3),
                                                                  _random_samples=s[:1]),
        lambda lib, x, s: lib.nn.functional.fractional_max_pool2d(x, 2, output_size=(4, 3),
                                                                  _random_samples=s[..., :1]),
        lambda lib, x, s: lib.nn.functional.fractional_max_pool2d(x, (2, 2, 2), (4, 3),
                                                                  _random_samples=s),
        lambda lib, x, s: lib.nn.functional.fractional_max_pool2d(
            x, 2, output_ratio=(0.5, 0.5, 0.5), _random_samples=s),
        lambda lib, x, s: lib.nn.functional.fractional_max_pool2d(x, 2, output_size=(4, 3, 2),
                                                                  _random_samples=s),
        lambda lib, x, s: lib.nn.functional.fractional_max_pool3d(
            x[0], 2, output_size=(1, 3, 3), _random_samples=s[..., :1].repeat(1, 1, 3)),
        lambda lib, x, s: lib.nn.FractionalMaxPool2d(2),
        lambda lib, x, s: lib.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
        lambda lib, x, s: lib.nn.FractionalMaxPool3d(2, output_ratio=1.5),
    ]
    for call in calls:
        x, s = torch.zeros(2, 3, 7, 6), torch.full((2, 3, 2), 0.5)
        with pytest.raises(Exception) as theirs:
            call(torch, x, s)
        with pytest.raises(type(theirs.value)) as ours:
            call(teachgrad, teachgrad.zeros(2, 3, 7, 6), teachgrad.full((2, 3, 2), 0.5))
        assert str(ours.value) == str(theirs.value)
    for name, args, kwargs in [("FractionalMaxPool2d", (3,), {"output_ratio": 0.5}),
                               ("FractionalMaxPool3d", (2,), {"output_size": 2})]:
        ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args,
                                                                                   **kwargs)
        assert repr(ours) == repr(theirs)
        assert (ours.kernel_size, ours.output_size, ours.output_ratio) == (
            theirs.kernel_size, theirs.output_size, theirs.output_ratio)


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import pooling, unpooling
    from teachgrad.nn.modules import batchnorm
    from teachgrad.nn.modules import pooling as pooling_modules

    for module in (pooling, unpooling, pooling_modules, batchnorm):
        assert doctest.testmod(module).failed == 0
