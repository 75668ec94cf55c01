"""More layers: RMSNorm, Bilinear, PixelShuffle/PixelUnshuffle, ChannelShuffle, channel and
alpha dropout, Softmax2d, Unflatten, ParameterList/ParameterDict, LazyLinear.

Gradients by finite differences (float64, first and second order), values by NumPy
re-derivations, and parity with PyTorch (values, gradients, grad_fn graphs, reprs,
state_dict keys, initialisation, errors and warnings).
"""

from __future__ import annotations

import doctest
import importlib
import math
import warnings

import numpy as np
import pytest
from parity import raises_as_torch

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck


def leaf(shape, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    return teachgrad.tensor(rng.standard_normal(shape) * scale, requires_grad=True)


def graph_names(fn) -> list[str]:
    """The backward graph below ``fn`` as indented grad_fn names (depth first)."""
    lines, stack = [], [(fn, 0)]
    while stack:
        node, depth = stack.pop()
        if node is None:
            continue
        lines.append(" " * depth + node.name().replace("torch::autograd::", ""))
        stack.extend((child, depth + 1) for child, _ in reversed(node.next_functions))
    return lines


def seeded(fn, seed=0):
    """``fn`` with the random generator reset first: the same dropout noise on every call,
    so finite differences see one fixed function."""
    def call(*args):
        teachgrad.manual_seed(seed)
        return fn(*args)
    return call


# ----------------------------------------------------------------------------------------
# Gradients of every order (float64, finite differences)
# ----------------------------------------------------------------------------------------
GRAD_CASES = {
    "rms_norm": (lambda x, w: F.rms_norm(x, (4,), w), [(2, 3, 4), (4,)]),
    "rms_norm_2d_no_weight": (lambda x: F.rms_norm(x, (3, 4), eps=1e-3), [(2, 3, 4)]),
    "bilinear": (lambda a, b, w, bias: F.bilinear(a, b, w, bias),
                 [(3, 2), (3, 4), (5, 2, 4), (5,)]),
    "bilinear_3d_no_bias": (lambda a, b, w: F.bilinear(a, b, w), [(2, 3, 2), (2, 3, 3),
                                                                  (4, 2, 3)]),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), [(2, 8, 2, 3)]),
    "pixel_unshuffle": (lambda x: F.pixel_unshuffle(x, 2), [(1, 2, 4, 6)]),
    "channel_shuffle": (lambda x: F.channel_shuffle(x, 3), [(2, 6, 2)]),
    "softmax2d": (lambda x: nn.Softmax2d()(x), [(2, 3, 2, 2)]),
    "unflatten": (lambda x: nn.Unflatten(1, (2, -1))(x), [(2, 6)]),
    "dropout2d": (seeded(lambda x: F.dropout2d(x, 0.4)), [(3, 4, 2, 2)]),
    "dropout1d_unbatched": (seeded(lambda x: F.dropout1d(x, 0.4)), [(4, 3)]),
    "dropout3d": (seeded(lambda x: F.dropout3d(x, 0.4)), [(2, 3, 2, 2, 2)]),
    "alpha_dropout": (seeded(lambda x: F.alpha_dropout(x, 0.3, True)), [(3, 5)]),
    "feature_alpha_dropout": (seeded(lambda x: F.feature_alpha_dropout(x, 0.3, True)),
                              [(3, 4, 2)]),
}


@pytest.mark.parametrize("case", GRAD_CASES)
def test_gradcheck_and_gradgradcheck(case):
    fn, shapes = GRAD_CASES[case]
    inputs = tuple(leaf(shape, seed) for seed, shape in enumerate(shapes))
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("name,args", [
    ("RMSNorm", (4,)), ("Bilinear", (2, 3, 4)),
])
def test_layers_gradcheck_through_parameters(name, args):
    teachgrad.manual_seed(0)
    layer = getattr(nn, name)(*args, dtype=teachgrad.float64)
    inputs = [leaf((3, 4), 1)] if name == "RMSNorm" else [leaf((3, 2), 1), leaf((3, 3), 2)]
    params = tuple(layer.parameters())
    count = len(inputs)

    def fn(*tensors):
        return layer(*tensors[:count])

    assert gradcheck(fn, (*inputs, *params))
    assert gradgradcheck(fn, (*inputs, *params))


# ----------------------------------------------------------------------------------------
# Values, by NumPy re-derivations
# ----------------------------------------------------------------------------------------
def test_rms_norm_values_and_default_eps():
    x = leaf((2, 3, 4), 1)
    w = leaf((3, 4), 2)
    data = x.detach().numpy()
    eps32 = float(np.finfo(np.float64).eps)
    expected = data / np.sqrt((data ** 2).mean(axis=(1, 2), keepdims=True) + eps32)
    np.testing.assert_allclose(F.rms_norm(x, (3, 4)).detach().numpy(), expected, rtol=1e-14)
    np.testing.assert_allclose(F.rms_norm(x, [3, 4], w).detach().numpy(),
                               expected * w.detach().numpy(), rtol=1e-14)
    # An all-zero row: eps keeps it finite (0, not NaN).
    zeros = F.rms_norm(teachgrad.zeros(1, 4), (4,))
    np.testing.assert_array_equal(zeros.numpy(), 0.0)
    half = F.rms_norm(teachgrad.tensor([[3.0, 4.0]], dtype=teachgrad.float16), (2,))
    assert half.dtype == teachgrad.float16
    np.testing.assert_allclose(half.float().numpy(), [[3 / 12.5 ** 0.5, 4 / 12.5 ** 0.5]],
                               rtol=1e-3)


def test_bilinear_values():
    a, b, w, bias = leaf((3, 2), 1), leaf((3, 4), 2), leaf((5, 2, 4), 3), leaf((5,), 4)
    out = F.bilinear(a, b, w, bias).detach().numpy()
    A, B, W = a.detach().numpy(), b.detach().numpy(), w.detach().numpy()
    expected = np.array([[A[n] @ W[o] @ B[n] for o in range(5)] for n in range(3)])
    np.testing.assert_allclose(out, expected + bias.detach().numpy(), rtol=1e-13)
    one = F.bilinear(a[0], b[0], w)
    assert one.shape == (5,)
    np.testing.assert_allclose(one.detach().numpy(), expected[0], rtol=1e-13)


def test_pixel_shuffle_places_each_channel_in_its_block():
    r, c, h, w = 2, 3, 2, 3
    data = np.arange(2 * c * r * r * h * w, dtype=float).reshape(2, c * r * r, h, w)
    out = F.pixel_shuffle(teachgrad.tensor(data), r).numpy()
    assert out.shape == (2, c, h * r, w * r)
    for ch in range(c):
        for i in range(r):
            for j in range(r):
                np.testing.assert_array_equal(out[:, ch, i::r, j::r],
                                              data[:, ch * r * r + i * r + j])
    back = F.pixel_unshuffle(teachgrad.tensor(out), r).numpy()
    np.testing.assert_array_equal(back, data)


def test_channel_shuffle_interleaves_groups():
    x = teachgrad.arange(6.0).view(1, 6, 1)
    np.testing.assert_array_equal(F.channel_shuffle(x, 2).flatten().numpy(),
                                  [0, 3, 1, 4, 2, 5])
    np.testing.assert_array_equal(F.channel_shuffle(x, 3).flatten().numpy(),
                                  [0, 2, 4, 1, 3, 5])


def test_channel_dropout_zeroes_whole_channels_and_rescales():
    teachgrad.manual_seed(0)
    out = F.dropout2d(teachgrad.ones(4, 8, 3, 3), p=0.25).numpy()
    per_channel = out.reshape(4, 8, 9)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))  # constant over each map
    assert set(np.unique(per_channel).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert 0 < (per_channel[..., 0] == 0).sum() < 32
    teachgrad.manual_seed(0)
    unbatched = F.dropout1d(teachgrad.ones(6, 5), p=0.5).numpy()
    assert np.all(unbatched.min(-1) == unbatched.max(-1))
    x = teachgrad.ones(2, 3, 4, 4)
    assert F.dropout2d(x, training=False) is x
    assert nn.Dropout3d().eval()(x.unsqueeze(0)).shape == (1, 2, 3, 4, 4)
    np.testing.assert_array_equal(nn.Dropout1d().eval()(x[0]).numpy(), 1.0)
    np.testing.assert_array_equal(F.dropout3d(teachgrad.ones(1, 2, 1, 1, 1), p=1.0).numpy(),
                                  0.0)


def test_channel_dropout_in_place():
    teachgrad.manual_seed(0)
    x = teachgrad.ones(6, 5)
    assert F.dropout1d(x, 0.5, inplace=True) is x
    values = x.numpy()
    assert np.all(values.min(-1) == values.max(-1)) and (values == 0).any()


def test_alpha_dropout_formula_and_statistics():
    p = 0.3
    saturation = 1.7580993408473766
    a = 1 / math.sqrt((saturation ** 2 * p + 1) * (1 - p))
    x = leaf((200, 100), 1)
    teachgrad.manual_seed(0)
    out = F.alpha_dropout(x, p, training=True).detach().numpy()
    data = x.detach().numpy()
    kept = np.isclose(out, a * data + saturation * a * p, rtol=0, atol=1e-12)
    dropped = np.isclose(out, saturation * a * (p - 1), rtol=0, atol=1e-12)
    assert np.all(kept | dropped)
    assert abs(dropped.mean() - p) < 0.02
    # Self-normalising: standard normal in, (close to) standard normal out.
    assert abs(out.mean()) < 0.05 and abs(out.std() - 1) < 0.05
    assert F.alpha_dropout(x, p) is x  # training=False by default, as in PyTorch
    teachgrad.manual_seed(0)
    feature = F.feature_alpha_dropout(teachgrad.zeros(50, 8, 3), p, True).numpy()
    assert np.all(feature.min(-1) == feature.max(-1))


def test_unflatten_and_softmax2d():
    x = leaf((2, 12), 1)
    assert nn.Unflatten(1, (3, 4))(x).shape == (2, 3, 4)
    assert nn.Unflatten(-1, [2, -1, 3])(x).shape == (2, 2, 2, 3)
    y = leaf((2, 3, 2, 2), 2)
    out = nn.Softmax2d()(y).detach().numpy()
    np.testing.assert_allclose(out.sum(1), 1.0)
    e = np.exp(y.detach().numpy())
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-14)
    assert nn.Softmax2d()(y[0]).shape == (3, 2, 2)


# ----------------------------------------------------------------------------------------
# ParameterList, ParameterDict
# ----------------------------------------------------------------------------------------
def test_parameter_list_registers_and_wraps():
    plist = nn.ParameterList([nn.Parameter(teachgrad.ones(2)), teachgrad.zeros(3), "note"])
    assert len(plist) == 3 and isinstance(plist[1], nn.Parameter) and plist[2] == "note"
    assert [n for n, _ in plist.named_parameters()] == ["0", "1"]
    plist.append(teachgrad.ones(1))
    plist += [teachgrad.ones(4)]
    assert list(plist.state_dict()) == ["0", "1", "3", "4"]
    assert isinstance(plist[1:3], nn.ParameterList) and len(plist[1:3]) == 2
    assert plist[-1].shape == (4,)
    with pytest.raises(IndexError, match="index 5 is out of range"):
        plist[5]
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an "
                                        "iterable, but got Tensor"):
        plist.extend(teachgrad.ones(2))
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        plist()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = nn.ParameterList([teachgrad.ones(2, 2) for _ in range(2)])

    model = Model()
    assert list(model.state_dict()) == ["weights.0", "weights.1"]
    optimizer = teachgrad.optim.SGD(model.parameters(), lr=1.0)
    (model.weights[0] * 2).sum().backward()
    optimizer.step()
    np.testing.assert_array_equal(model.weights[0].detach().numpy(), -1.0)


def test_parameter_dict_behaves_as_a_dict():
    pdict = nn.ParameterDict({"b": teachgrad.ones(2), "a": nn.Parameter(teachgrad.zeros(3))})
    assert list(pdict) == ["a", "b"]  # a plain dict is added in sorted order
    assert isinstance(pdict["b"], nn.Parameter)
    pdict["c"] = teachgrad.ones(1)
    pdict.update([("z", teachgrad.ones(1)), ("y", 5)])
    assert list(pdict.keys()) == ["a", "b", "c", "z", "y"]
    assert [n for n, _ in pdict.named_parameters()] == ["a", "b", "c", "z"]
    assert "a" in pdict and pdict.get("missing", 7) == 7
    assert pdict.pop("c").shape == (1,) and "c" not in pdict
    assert pdict.popitem()[0] == "y"
    assert pdict.setdefault("q", teachgrad.ones(2)).shape == (2,)
    merged = pdict | {"extra": teachgrad.ones(1)}
    assert "extra" in merged and "extra" not in pdict
    del pdict["q"]
    assert list(pdict.state_dict()) == ["a", "b", "z"]
    pdict.clear()
    assert len(pdict) == 0 and list(pdict.parameters()) == []
    with pytest.raises(TypeError, match="it is not a string \\(type is 'int'\\)"):
        pdict[1] = teachgrad.ones(1)
    with pytest.raises(ValueError, match="element #0 has length 3; 2 is required"):
        pdict.update([("a", 1, 2)])
    with pytest.raises(RuntimeError, match="ParameterDict should not be called."):
        pdict(1)


# ----------------------------------------------------------------------------------------
# LazyLinear
# ----------------------------------------------------------------------------------------
def test_lazy_linear_materialises_on_first_forward():
    layer = nn.LazyLinear(3)
    assert repr(layer) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert isinstance(layer.weight, nn.UninitializedParameter) and layer.has_uninitialized_params()
    assert repr(layer.weight) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized "
                                           "parameter"):
        _ = layer.weight.shape
    assert list(layer.state_dict()) == ["weight", "bias"]
    weight = layer.weight
    optimizer = teachgrad.optim.SGD(layer.parameters(), lr=0.1)  # made before the shapes
    out = layer(teachgrad.ones(2, 5))
    assert out.shape == (2, 3) and out.grad_fn.name() == "AddmmBackward0"
    assert type(layer) is nn.Linear and repr(layer) == (
        "Linear(in_features=5, out_features=3, bias=True)")
    assert layer.weight is weight and type(weight) is nn.Parameter
    assert weight.shape == (3, 5) and layer.bias.shape == (3,)
    bound = 1 / math.sqrt(5)
    assert np.abs(weight.detach().numpy()).max() <= bound
    assert np.abs(layer.bias.detach().numpy()).max() <= bound
    before = weight.detach().numpy().copy()
    layer(teachgrad.ones(2, 5)).sum().backward()
    optimizer.step()
    np.testing.assert_allclose(weight.detach().numpy(), before - 0.1 * 2)
    no_bias = nn.LazyLinear(2, bias=False, dtype=teachgrad.float64)
    no_bias(teachgrad.ones(1, 4, dtype=teachgrad.float64))
    assert no_bias.bias is None and no_bias.weight.dtype == teachgrad.float64


def test_docstring_examples_run():
    names = ["teachgrad.nn.rms_norm", "teachgrad.nn.bilinear", "teachgrad.nn.pixel_shuffle",
             "teachgrad.nn.feature_dropout", "teachgrad.nn.modules.dropout_variants",
             "teachgrad.nn.modules.pixelshuffle", "teachgrad.nn.modules.rms_norm",
             "teachgrad.nn.modules.bilinear", "teachgrad.nn.modules.unflatten",
             "teachgrad.nn.modules.softmax2d", "teachgrad.nn.modules.parameter_containers",
             "teachgrad.nn.modules.lazy"]
    for name in names:
        assert doctest.testmod(importlib.import_module(name)).failed == 0, name


# ----------------------------------------------------------------------------------------
# PyTorch parity
# ----------------------------------------------------------------------------------------
def both(torch, data, requires_grad=True):
    return (teachgrad.tensor(data, requires_grad=requires_grad),
            torch.tensor(data, requires_grad=requires_grad))


TORCH_CASES = {
    "rms_norm": (lambda lib, x, w: lib.nn.functional.rms_norm(x, (4,), w),
                 [(2, 3, 4), (4,)]),
    "rms_norm_no_weight": (lambda lib, x: lib.nn.functional.rms_norm(x, [3, 4]),
                           [(2, 3, 4)]),
    "rms_norm_eps": (lambda lib, x: lib.nn.functional.rms_norm(x, (4,), eps=0.5),
                     [(2, 4)]),
    "rms_norm_float32_weight": (  # PyTorch returns the input's dtype (a ToCopyBackward0)
        lambda lib, x, w: lib.nn.functional.rms_norm(x.float(), (4,), w),
        [(2, 4), (4,)]),
    "bilinear": (lambda lib, a, b, w, bias: lib.nn.functional.bilinear(a, b, w, bias),
                 [(3, 2), (3, 4), (5, 2, 4), (5,)]),
    "bilinear_3d": (lambda lib, a, b, w: lib.nn.functional.bilinear(a, b, w),
                    [(2, 3, 2), (2, 3, 3), (4, 2, 3)]),
    "bilinear_1d": (lambda lib, a, b, w: lib.nn.functional.bilinear(a, b, w),
                    [(2,), (3,), (4, 2, 3)]),
    "pixel_shuffle": (lambda lib, x: lib.nn.functional.pixel_shuffle(x, 2),
                      [(2, 3, 8, 2, 3)]),
    "pixel_unshuffle": (lambda lib, x: lib.nn.functional.pixel_unshuffle(x, 3),
                        [(2, 6, 3)]),
    "channel_shuffle": (lambda lib, x: lib.nn.functional.channel_shuffle(x, 2),
                        [(2, 6, 2, 2)]),
    "channel_shuffle_module": (lambda lib, x: lib.nn.ChannelShuffle(3)(x), [(1, 6, 2)]),
    "softmax2d": (lambda lib, x: lib.nn.Softmax2d()(x), [(2, 3, 2, 2)]),
    "unflatten": (lambda lib, x: lib.nn.Unflatten(1, (2, 3))(x), [(2, 6)]),
}


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:Mismatch dtype between input and weight")
@pytest.mark.parametrize("case", TORCH_CASES)
def test_values_gradients_and_graphs_match_pytorch(case):
    torch = pytest.importorskip("torch")
    fn, shapes = TORCH_CASES[case]
    rng = np.random.default_rng(0)
    pairs = [both(torch, rng.standard_normal(s)) for s in shapes]
    ours = fn(teachgrad, *[p[0] for p in pairs])
    theirs = fn(torch, *[p[1] for p in pairs])
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12,
                               atol=1e-14)
    assert graph_names(ours.grad_fn) == graph_names(theirs.grad_fn)
    weights = rng.standard_normal(tuple(theirs.shape))
    (ours * teachgrad.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    for mine, other in pairs:
        np.testing.assert_allclose(mine.grad.numpy(), other.grad.numpy(), rtol=1e-12,
                                   atol=1e-14)


@pytest.mark.torch
@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
                                  "feature_alpha_dropout"])
def test_dropout_graphs_match_pytorch(name):
    torch = pytest.importorskip("torch")
    shape = {"dropout1d": (2, 3, 4), "dropout3d": (2, 3, 2, 2, 2)}.get(name, (2, 3, 4, 4))
    ours, theirs = both(torch, np.ones(shape))
    kwargs = {"p": 0.5, "training": True}
    ours_out = getattr(F, name)(ours, **kwargs)
    theirs_out = getattr(torch.nn.functional, name)(theirs, **kwargs)
    assert graph_names(ours_out.grad_fn) == graph_names(theirs_out.grad_fn)
    assert ours_out.shape == tuple(theirs_out.shape)


@pytest.mark.torch
@pytest.mark.parametrize("name,args,kwargs", [
    ("RMSNorm", (4,), {}),
    ("RMSNorm", ([3, 4],), {"eps": 1e-3, "elementwise_affine": False}),
    ("Bilinear", (3, 4, 5), {}),
    ("Bilinear", (2, 2, 1), {"bias": False}),
    ("PixelShuffle", (2,), {}),
    ("PixelUnshuffle", (3,), {}),
    ("ChannelShuffle", (2,), {}),
    ("Unflatten", (1, (2, 4)), {}),
    ("Unflatten", (-1, [2, 3]), {}),
    ("Softmax2d", (), {}),
    ("Dropout1d", (), {}),
    ("Dropout2d", (0.2,), {}),
    ("Dropout3d", (), {"inplace": True}),
    ("AlphaDropout", (0.3,), {}),
    ("FeatureAlphaDropout", (), {}),
    ("LazyLinear", (3,), {}),
    ("LazyLinear", (3,), {"bias": False}),
])
def test_repr_parameters_and_init_match_pytorch(name, args, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (n, p), (m, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n == m
        if isinstance(q, torch.nn.parameter.UninitializedParameter):
            assert isinstance(p, nn.UninitializedParameter)
            continue
        assert tuple(p.shape) == tuple(q.shape)
        mine, other = p.detach().numpy(), q.detach().numpy()
        if np.all(other == other.flat[0]):  # ones
            np.testing.assert_array_equal(mine, other)
        else:  # the same uniform bounds
            bound = np.abs(other).max()
            limit = 1 / math.sqrt(args[0])
            assert bound <= limit and np.abs(mine).max() <= limit


def test_lazy_linear_loads_a_checkpoint_as_pytorch():
    # A fresh LazyLinear takes the checkpoint's shapes (the save/reload workflow); it used
    # to refuse with "Can't access the shape of an uninitialized parameter".
    trained = nn.Linear(3, 4)
    layer = nn.LazyLinear(4)
    weight = layer.weight
    optimizer = teachgrad.optim.SGD(layer.parameters(), lr=1.0)
    assert not layer.load_state_dict(trained.state_dict()).missing_keys
    assert layer.weight is weight and type(weight) is nn.Parameter
    np.testing.assert_array_equal(weight.detach().numpy(), trained.weight.detach().numpy())
    layer(teachgrad.ones(2, 3)).sum().backward()          # d/dW of sum(W·1 + b) is 2
    optimizer.step()
    np.testing.assert_allclose(weight.detach().numpy(), trained.weight.detach().numpy() - 2)
    assert repr(layer) == "Linear(in_features=3, out_features=4, bias=True)"
    # A failed load changes nothing; another lazy module's state leaves it waiting.
    waiting = nn.LazyLinear(4)
    with pytest.raises(RuntimeError, match='Missing key.*"bias"'):
        waiting.load_state_dict({"weight": teachgrad.zeros(4, 3)})
    assert waiting.has_uninitialized_params()
    waiting.load_state_dict(nn.LazyLinear(4).state_dict())
    assert waiting.has_uninitialized_params()


@pytest.mark.torch
def test_lazy_linear_after_forward_matches_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = nn.LazyLinear(3), torch.nn.LazyLinear(3)
    ours(teachgrad.ones(2, 5))
    theirs(torch.ones(2, 5))
    assert repr(ours) == repr(theirs) and type(ours).__name__ == type(theirs).__name__
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()]


@pytest.mark.torch
def test_parameter_container_reprs_match_pytorch():
    torch = pytest.importorskip("torch")

    def build(lib):
        plist = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2, 3)), lib.zeros(4), "x"])
        pdict = lib.nn.ParameterDict({"w": lib.ones(2, dtype=lib.float64), "n": 3})

        class Model(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.p = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2))])
                self.d = lib.nn.ParameterDict({"w": lib.nn.Parameter(lib.ones(1))})

        return plist, pdict, Model(), lib.nn.ParameterList(), lib.nn.ParameterDict()

    for mine, other in zip(build(teachgrad), build(torch)):
        # ParameterList prints dtypes ("torch.float32"), ParameterDict legacy type names
        # ("torch.FloatTensor", which teachgrad prints the same).
        expected = repr(other).replace("torch.float", "teachgrad.float")
        assert repr(mine) == expected
        assert list(mine.state_dict()) == list(other.state_dict())


ERROR_CASES = [
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), (4,)),
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), (2, 3, 4)),
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), (3,), lib.zeros(4)),
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), ()),
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3).long(), (3,)),
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), 3),
    lambda lib: lib.nn.RMSNorm(3)(lib.zeros(2, 4)),
    lambda lib: lib.nn.functional.bilinear(lib.zeros(2, 3), lib.zeros(2, 4), lib.zeros(5, 3, 5)),
    lambda lib: lib.nn.functional.bilinear(lib.zeros(2, 3), lib.zeros(2, 4), lib.zeros(5, 2, 4)),
    lambda lib: lib.nn.functional.bilinear(lib.zeros(2, 3), lib.zeros(3, 4), lib.zeros(5, 3, 4)),
    lambda lib: lib.nn.functional.bilinear(lib.zeros(2, 3), lib.zeros(2, 4), lib.zeros(5, 3, 4),
                                           lib.zeros(4)),
    lambda lib: lib.nn.functional.bilinear(lib.zeros(2, 3), lib.zeros(2, 4, dtype=lib.float64),
                                           lib.zeros(5, 3, 4)),
    lambda lib: lib.nn.functional.bilinear(lib.zeros(2, 2, 3), lib.zeros(4, 4),
                                           lib.zeros(5, 3, 4)),
    lambda lib: lib.nn.Bilinear(3, 4, 5)(lib.zeros(2, 3), lib.zeros(2, 5)),
    lambda lib: lib.nn.functional.pixel_shuffle(lib.zeros(4, 2), 2),
    lambda lib: lib.nn.functional.pixel_shuffle(lib.zeros(5, 2, 2), 2),
    lambda lib: lib.nn.functional.pixel_shuffle(lib.zeros(4, 2, 2), 0),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.zeros(4, 2), 2),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.zeros(4, 3, 2), 2),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.zeros(4, 2, 3), 2),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.zeros(4, 2, 2), -1),
    lambda lib: lib.nn.functional.channel_shuffle(lib.zeros(4, 2), 2),
    lambda lib: lib.nn.functional.channel_shuffle(lib.zeros(2, 5, 3), 2),
    lambda lib: lib.nn.functional.channel_shuffle(lib.zeros(2, 4, 3), 0),
    lambda lib: lib.nn.Unflatten(1, (2, 3))(lib.zeros(2, 5)),
    lambda lib: lib.nn.Unflatten(1, (2.0, 3)),
    lambda lib: lib.nn.Unflatten(1, 5),
    lambda lib: lib.nn.Softmax2d()(lib.zeros(2, 3)),
    lambda lib: lib.nn.functional.dropout1d(lib.zeros(2, 3, 4, 5)),
    lambda lib: lib.nn.functional.dropout1d(lib.zeros(2, 3), p=2),
    lambda lib: lib.nn.Dropout2d(p=-0.5),
    lambda lib: lib.nn.AlphaDropout(p=1.5),
    lambda lib: lib.nn.functional.alpha_dropout(lib.zeros(2, 3), 1.5),
    lambda lib: lib.nn.functional.feature_alpha_dropout(lib.zeros(3), 0.5, True),
    lambda lib: lib.nn.functional.alpha_dropout(lib.zeros(2, 3).long(), 0.5, True),
    lambda lib: lib.nn.ParameterList([1])[3],
    lambda lib: lib.nn.ParameterList()(),
    lambda lib: lib.nn.ParameterDict()[1],
    lambda lib: lib.nn.ParameterDict()["a"],
    lambda lib: lib.nn.LazyLinear(3).weight.shape,
]


@pytest.mark.torch
@pytest.mark.parametrize("case", ERROR_CASES)
def test_errors_match_pytorch(case):
    raises_as_torch(case)


@pytest.mark.torch
@pytest.mark.parametrize("name,shape", [("dropout2d", (3, 4, 5)), ("dropout2d", (2, 3)),
                                        ("dropout3d", (2, 3))])
def test_dropout_warnings_match_pytorch(name, shape):
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (torch, teachgrad):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            getattr(lib.nn.functional, name)(lib.ones(*shape), 0.5, True)
        messages.append([str(w.message) for w in record if w.category is UserWarning])
        if lib is teachgrad:
            assert all(w.filename == __file__ for w in record)  # the caller's line
    assert messages[0] == messages[1] and messages[0]


# ----------------------------------------------------------------------------------------
# Lazy convolutions and norms (one LazyModuleMixin for all)
# ----------------------------------------------------------------------------------------
LAZY_CASES = [  # (lazy layer, its arguments, input shape, what it becomes, eager arguments)
    ("LazyConv1d", (4, 3), {}, (2, 6, 10), "Conv1d", (6, 4, 3)),
    ("LazyConv1d", (4, 3), {}, (6, 10), "Conv1d", (6, 4, 3)),  # unbatched
    ("LazyConv2d", (8, 3), {"groups": 2, "bias": False, "padding": 1}, (1, 4, 5, 5),
     "Conv2d", (4, 8, 3)),
    ("LazyConv3d", (2, 2), {"padding_mode": "reflect", "padding": 1}, (1, 3, 4, 4, 4),
     "Conv3d", (3, 2, 2)),
    ("LazyConvTranspose1d", (2, 4), {"stride": 2}, (1, 4, 10), "ConvTranspose1d", (4, 2, 4)),
    ("LazyConvTranspose2d", (6, 3), {"groups": 3}, (1, 3, 5, 5), "ConvTranspose2d",
     (3, 6, 3)),
    ("LazyConvTranspose3d", (2, 2), {"stride": 2}, (1, 4, 3, 3, 3), "ConvTranspose3d",
     (4, 2, 2)),
    ("LazyBatchNorm1d", (), {}, (8, 5), "BatchNorm1d", (5,)),
    ("LazyBatchNorm1d", (), {"affine": False}, (8, 5, 3), "BatchNorm1d", (5,)),
    ("LazyBatchNorm2d", (), {"track_running_stats": False}, (2, 3, 4, 4), "BatchNorm2d", (3,)),
    ("LazyBatchNorm3d", (), {"bias": False, "momentum": None}, (2, 3, 2, 2, 2), "BatchNorm3d",
     (3,)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 10), "InstanceNorm1d", (3,)),
    ("LazyInstanceNorm2d", (), {"affine": False}, (2, 3, 4, 4), "InstanceNorm2d", (3,)),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 2, 2, 2), "InstanceNorm3d", (3,)),
]


def _eager_kwargs(name: str, kwargs: dict) -> dict:
    # a lazy norm's affine/track_running_stats default to True, instance norms included
    if "Norm" in name:
        return {"affine": True, "track_running_stats": True, **kwargs}
    return kwargs


@pytest.mark.parametrize("name, args, kwargs, shape, becomes, eager_args", LAZY_CASES)
def test_a_lazy_layer_becomes_the_eager_one_with_the_same_initial_values(
        name, args, kwargs, shape, becomes, eager_args):
    x = teachgrad.randn(*shape)
    lazy = getattr(nn, name)(*args, **kwargs)
    assert repr(lazy).startswith(f"{name}(0, ")  # no input size yet
    teachgrad.manual_seed(3)
    out = lazy(x)
    teachgrad.manual_seed(3)  # the eager layer draws its initial values in the same order
    eager = getattr(nn, becomes)(*eager_args, **_eager_kwargs(name, kwargs))
    assert type(lazy) is getattr(nn, becomes) and repr(lazy) == repr(eager)
    ours, theirs = lazy.state_dict(), eager.state_dict()
    assert list(ours) == list(theirs)
    for key in theirs:  # (the running statistics moved in the lazy one's forward: shapes)
        assert ours[key].shape == theirs[key].shape, key
    for (key, mine), (_, other) in zip(lazy.named_parameters(), eager.named_parameters()):
        np.testing.assert_array_equal(mine.detach().numpy(), other.detach().numpy(), err_msg=key)
    np.testing.assert_allclose(out.detach().numpy(), eager(x).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_lazy_norm_running_statistics_wait_for_their_shape():
    bn = nn.LazyBatchNorm1d()
    buffers = dict(bn.named_buffers())
    assert isinstance(buffers["running_mean"], nn.UninitializedBuffer)
    assert repr(buffers["running_var"]) == "<UninitializedBuffer>"
    assert buffers["num_batches_tracked"].item() == 0
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        _ = bn.running_mean.shape
    x = teachgrad.tensor([[1.0, 10.0], [3.0, 30.0]])
    bn(x)
    # momentum 0.1 from mean 0: the batch means are 2 and 20
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.2, 2.0], rtol=1e-6)
    assert type(bn.running_mean) is teachgrad.Tensor and bn.num_batches_tracked.item() == 1


def test_a_lazy_convolution_trains_with_an_optimizer_made_before_its_shapes():
    conv = nn.LazyConv1d(1, 2, bias=False)
    weight = conv.weight
    optimizer = teachgrad.optim.SGD(conv.parameters(), lr=0.5)
    x = teachgrad.tensor([[[1.0, 2.0, 3.0]]])
    conv(x).sum().backward()  # d/dw_k of Σ_t w·x[t:t+2] = x[k] + x[k+1]: [3, 5]
    before = weight.detach().numpy().copy()
    optimizer.step()
    assert conv.weight is weight
    np.testing.assert_allclose(weight.detach().numpy(), before - 0.5 * np.array([[[3.0, 5.0]]]))


def test_lazy_layers_load_a_checkpoint_and_take_its_sizes():
    conv = nn.LazyConvTranspose2d(4, 3, groups=2)
    conv.load_state_dict(nn.ConvTranspose2d(6, 4, 3, groups=2).state_dict())
    conv(teachgrad.zeros(1, 6, 5, 5))
    assert repr(conv) == "ConvTranspose2d(6, 4, kernel_size=(3, 3), stride=(1, 1), groups=2)"
    bn = nn.LazyBatchNorm2d()
    trained = nn.BatchNorm2d(3)
    trained(teachgrad.randn(4, 3, 2, 2))
    bn.load_state_dict(trained.state_dict())
    np.testing.assert_array_equal(bn.running_var.numpy(), trained.running_var.numpy())
    bn.eval()
    bn(teachgrad.zeros(1, 3, 2, 2))
    assert type(bn) is nn.BatchNorm2d and bn.num_features == 3


def test_lazy_layers_refuse_bad_first_inputs_clearly():
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input "
                                           r"to LazyConv2d, but got input of size: "):
        nn.LazyConv2d(8, 3)(teachgrad.ones(5, 5))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(8, 3, groups=2)(teachgrad.ones(1, 3, 5, 5))
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 1D input\)"):
        nn.LazyBatchNorm1d()(teachgrad.ones(5))
    layer = nn.LazyConv2d(8, 3)
    with pytest.raises(RuntimeError):
        layer(teachgrad.ones(5, 5))
    assert type(layer) is nn.LazyConv2d and layer.has_uninitialized_params()  # unchanged


@pytest.mark.torch
@pytest.mark.parametrize("name, args, kwargs, shape, becomes, eager_args", LAZY_CASES)
def test_lazy_layers_as_pytorch(name, args, kwargs, shape, becomes, eager_args):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    described = []
    for lib in (torch, teachgrad):
        layer = getattr(lib.nn, name)(*args, **kwargs)
        before = (repr(layer), list(layer.state_dict()),
                  [type(t).__name__ for t in layer.state_dict().values()])
        out = layer(lib.tensor(x))
        described.append((before, repr(layer), tuple(out.shape), type(layer).__name__,
                          [(n, tuple(p.shape)) for n, p in layer.named_parameters()],
                          [(n, tuple(b.shape)) for n, b in layer.named_buffers()]))
    assert described[1] == described[0]
