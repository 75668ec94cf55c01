"""GroupNorm, InstanceNorm1d/2d, LocalResponseNorm and F.group_norm / F.instance_norm /
F.local_response_norm: gradients by finite differences (first and second order),
relations to the other norms and running statistics derived by hand, errors, modules;
with torch installed, outputs, gradients, running statistics, state_dict and repr equal
to PyTorch's over several steps in training and eval mode."""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck


def leaf(shape, seed=0, scale=1.0, shift=0.5):
    rng = np.random.default_rng(seed)
    return teachgrad.tensor(rng.standard_normal(shape) * scale + shift, requires_grad=True)


def test_docstring_examples():
    from teachgrad.nn import norms
    from teachgrad.nn.modules import instancenorm, normalization

    for module in (norms, normalization, instancenorm):
        assert doctest.testmod(module).failed == 0, module.__name__


# ----------------------------------------------------------------------------------------
# Gradients
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,groups", [((3, 4), 2), ((2, 4, 5), 2), ((2, 6, 2, 3), 3),
                                          ((2, 4, 3), 1), ((2, 4, 3), 4)])
def test_group_norm_gradcheck(shape, groups):
    x, w, b = leaf(shape), leaf((shape[1],), 1), leaf((shape[1],), 2)

    def fn(x, w, b):
        return F.group_norm(x, groups, w, b)

    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))
    assert gradgradcheck(lambda x: F.group_norm(x, groups), (x,))


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 3, 4)])
def test_instance_norm_gradcheck(shape):
    x, w, b = leaf(shape), leaf((3,), 1), leaf((3,), 2)

    def training(x, w, b):
        return F.instance_norm(x, weight=w, bias=b)

    assert gradcheck(training, (x, w, b))
    assert gradgradcheck(training, (x, w, b))
    mean = teachgrad.tensor([0.5, -1.0, 2.0], dtype=teachgrad.float64)
    var = teachgrad.tensor([1.0, 4.0, 0.5], dtype=teachgrad.float64)

    def evaluation(x, w, b):
        return F.instance_norm(x, mean, var, w, b, use_input_stats=False)

    assert gradcheck(evaluation, (x, w, b))
    assert gradgradcheck(evaluation, (x, w, b))


@pytest.mark.parametrize("shape,size", [((2, 5, 3), 3), ((2, 4, 2, 3), 2), ((1, 5, 2, 2, 2), 4)])
def test_local_response_norm_gradcheck(shape, size):
    x = leaf(shape)

    def fn(x):
        return F.local_response_norm(x, size, alpha=0.5, beta=0.6, k=1.5)

    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


# ----------------------------------------------------------------------------------------
# By hand, and against the other norms
# ----------------------------------------------------------------------------------------
def test_group_norm_by_hand():
    x = teachgrad.tensor([[1.0, 3.0, 10.0, 30.0]], dtype=teachgrad.float64)
    out = F.group_norm(x, 2, eps=0.0)
    np.testing.assert_allclose(out.numpy(), [[-1.0, 1.0, -1.0, 1.0]])
    out = F.group_norm(x, 1, teachgrad.tensor([1.0, 2.0, 3.0, 4.0], dtype=teachgrad.float64),
                       teachgrad.tensor([0.0, 0.0, 1.0, 1.0], dtype=teachgrad.float64),
                       eps=0.0)
    values = np.array([1.0, 3.0, 10.0, 30.0])
    expected = (values - values.mean()) / values.std() * [1, 2, 3, 4] + [0, 0, 1, 1]
    np.testing.assert_allclose(out.numpy(), [expected])


def test_group_norm_extremes_are_layer_norm_and_instance_norm():
    x = leaf((3, 4, 5)).detach()
    np.testing.assert_allclose(F.group_norm(x, 1).numpy(),
                               F.layer_norm(x, (4, 5)).numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(F.group_norm(x, 4).numpy(), F.instance_norm(x).numpy(),
                               rtol=1e-12, atol=1e-14)


def test_instance_norm_is_batch_norm_of_each_sample():
    x = leaf((3, 4, 6)).detach()
    per_sample = [F.batch_norm(x[i:i + 1], None, None, training=True).numpy() for i in range(3)]
    np.testing.assert_allclose(F.instance_norm(x).numpy(), np.concatenate(per_sample),
                               rtol=1e-12, atol=1e-14)


def test_instance_norm_running_statistics_by_hand():
    x = leaf((2, 3, 4), scale=2.0).detach()
    running_mean = teachgrad.zeros(3, dtype=teachgrad.float64)
    running_var = teachgrad.ones(3, dtype=teachgrad.float64)
    F.instance_norm(x, running_mean, running_var, momentum=0.25)
    data = x.numpy()
    # Each instance's mean and unbiased variance, averaged over the 2 samples.
    batch_mean = data.mean(axis=2).mean(axis=0)
    batch_var = data.var(axis=2, ddof=1).mean(axis=0)
    np.testing.assert_allclose(running_mean.numpy(), 0.25 * batch_mean, rtol=1e-12)
    np.testing.assert_allclose(running_var.numpy(), 0.75 + 0.25 * batch_var, rtol=1e-12)
    # Evaluation: the running statistics normalise every instance.
    out = F.instance_norm(x, running_mean, running_var, use_input_stats=False, eps=0.0)
    expected = (data - running_mean.numpy()[:, None]) / np.sqrt(running_var.numpy()[:, None])
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_local_response_norm_by_hand():
    x = teachgrad.tensor([[[1.0], [2.0], [3.0]]], dtype=teachgrad.float64)
    out = F.local_response_norm(x, size=3, alpha=3.0, beta=1.0, k=0.0)
    # Window of 3 channels centred on each (zeros beyond the edges), mean of squares × 3.
    np.testing.assert_allclose(out.numpy().ravel(),
                               [1 / (1 + 4), 2 / (1 + 4 + 9), 3 / (4 + 9)], rtol=1e-12)
    out = F.local_response_norm(x, size=2, alpha=2.0, beta=0.5, k=1.0)
    # size 2: the channel itself and the one before it.
    np.testing.assert_allclose(out.numpy().ravel(),
                               [1 / np.sqrt(1 + 1), 2 / np.sqrt(1 + 5), 3 / np.sqrt(1 + 13)],
                               rtol=1e-12)


# ----------------------------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------------------------
def test_group_norm_module():
    norm = nn.GroupNorm(2, 4)
    assert repr(norm) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    assert list(norm.state_dict()) == ["weight", "bias"]
    assert norm.weight.tolist() == [1.0] * 4 and norm.bias.tolist() == [0.0] * 4
    assert list(nn.GroupNorm(2, 4, bias=False).state_dict()) == ["weight"]
    assert list(nn.GroupNorm(2, 4, affine=False).parameters()) == []
    x = teachgrad.randn(3, 4, 5)
    norm.eval()  # no running statistics: the same in both modes
    np.testing.assert_array_equal(norm(x).detach().numpy(),
                                  F.group_norm(x, 2, norm.weight, norm.bias).detach().numpy())


def test_instance_norm_modules():
    norm = nn.InstanceNorm1d(3)
    assert repr(norm) == ("InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, "
                          "bias=False, track_running_stats=False)")
    assert list(norm.state_dict()) == []
    tracked = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    assert list(tracked.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                          "num_batches_tracked"]
    x = leaf((2, 3, 4, 4)).detach().float()  # the module's dtype (PyTorch refuses a mix)
    tracked(x)
    assert tracked.num_batches_tracked.item() == 0  # (PyTorch does not count for instance norm)
    assert tracked.running_mean.abs().sum().item() > 0
    tracked.eval()
    expected = F.instance_norm(x, tracked.running_mean, tracked.running_var, tracked.weight,
                               tracked.bias, use_input_stats=False)
    np.testing.assert_array_equal(tracked(x).detach().numpy(), expected.detach().numpy())
    # Without running statistics, eval mode still uses the instance's own.
    plain = nn.InstanceNorm2d(3).eval()
    np.testing.assert_array_equal(plain(x).numpy(), F.instance_norm(x).numpy())
    # An unbatched input (C, L) is one sample.
    single = leaf((3, 5)).detach()
    np.testing.assert_array_equal(norm(single).numpy(),
                                  F.instance_norm(single.unsqueeze(0)).squeeze(0).numpy())


def test_instance_norm_num_features_mismatch():
    with pytest.warns(UserWarning, match="^input's size at dim=1 does not match num_features. "
                      "You can silence this warning"):
        nn.InstanceNorm1d(4)(teachgrad.randn(2, 3, 5))
    with pytest.raises(ValueError, match=r"^expected input's size at dim=1 to match "
                       r"num_features \(4\), but got: 3.$"):
        nn.InstanceNorm1d(4, affine=True)(teachgrad.randn(2, 3, 5))


def test_local_response_norm_module():
    norm = nn.LocalResponseNorm(3, alpha=0.5)
    assert repr(norm) == "LocalResponseNorm(3, alpha=0.5, beta=0.75, k=1.0)"
    x = teachgrad.randn(2, 4, 3)
    np.testing.assert_array_equal(norm(x).numpy(),
                                  F.local_response_norm(x, 3, alpha=0.5).numpy())
    assert F.local_response_norm(teachgrad.zeros(0, 3, 2), 2).shape == (0, 3, 2)


def test_exports():
    for name in ("GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "LocalResponseNorm"):
        assert name in nn.__all__
    for name in ("group_norm", "instance_norm", "local_response_norm"):
        assert name in F.__all__


ERRORS = [
    (lambda lib: lib.nn.functional.group_norm(lib.randn(2, 5, 3), 2), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups, but got input of "
     "shape [2, 5, 3] and num_groups=2"),
    (lambda lib: lib.nn.functional.group_norm(lib.randn(5), 1), RuntimeError,
     "Expected at least 2 dimensions for input tensor but received 1"),
    (lambda lib: lib.nn.functional.group_norm(lib.randn(1, 2), 2), ValueError,
     "Expected more than 1 value per channel when training, got input size [1, 2]"),
    (lambda lib: lib.nn.functional.group_norm(lib.randn(2, 4, 5), 2, lib.ones(3)),
     RuntimeError, "Expected weight to be a vector of size equal to the number of channels in "
     "input, but got weight of shape [3] and input of shape [2, 4, 5]"),
    (lambda lib: lib.nn.GroupNorm(2, 5), ValueError,
     "num_channels (5) must be divisible by num_groups (2)"),
    (lambda lib: lib.nn.functional.instance_norm(lib.randn(2, 4, 5), use_input_stats=False),
     RuntimeError,
     "Expected running_mean and running_var to be defined when use_input_stats is false"),
    (lambda lib: lib.nn.functional.instance_norm(lib.randn(2, 4, 5), lib.zeros(3),
                                                 lib.ones(3)),
     RuntimeError, "running_mean should contain 8 elements not 6"),
    (lambda lib: lib.nn.functional.instance_norm(lib.randn(2, 4, 5), None, None, lib.ones(3)),
     RuntimeError, "weight should contain 8 elements not 6"),
    (lambda lib: lib.nn.InstanceNorm1d(4)(lib.randn(2, 4, 5, 5)), ValueError,
     "expected 2D or 3D input (got 4D input)"),
    (lambda lib: lib.nn.InstanceNorm2d(4)(lib.randn(2, 4)), ValueError,
     "expected 3D or 4D input (got 2D input)"),
    (lambda lib: lib.nn.LocalResponseNorm(2)(lib.randn(3)), ValueError,
     "Expected 3D or higher dimensionality                          input (got 1 dimensions)"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    call, error, message = ERRORS[index]
    with pytest.raises(error) as info:
        call(teachgrad)
    assert str(info.value) == message


def test_instance_norm_needs_more_than_one_position_when_training():
    with pytest.raises(ValueError, match=r"^Expected more than 1 spatial element when "
                       r"training, got input size teachgrad.Size\(\[2, 4, 1\]\)$"):
        F.instance_norm(teachgrad.randn(2, 4, 1))


# ----------------------------------------------------------------------------------------
# Against real PyTorch
# ----------------------------------------------------------------------------------------
MODULE_CASES = [
    ("GroupNorm", dict(num_groups=2, num_channels=4), (3, 4, 5)),
    ("GroupNorm", dict(num_groups=1, num_channels=4, affine=False), (3, 4, 2, 3)),
    ("GroupNorm", dict(num_groups=4, num_channels=4, bias=False, eps=1e-3), (2, 4)),
    ("InstanceNorm1d", dict(num_features=3), (2, 3, 5)),
    ("InstanceNorm1d", dict(num_features=3, affine=True, track_running_stats=True), (2, 3, 5)),
    ("InstanceNorm1d", dict(num_features=3, affine=True, track_running_stats=True,
                            momentum=None), (2, 3, 5)),
    ("InstanceNorm1d", dict(num_features=3, track_running_stats=True), (3, 6)),
    ("InstanceNorm2d", dict(num_features=3, affine=True, bias=False), (2, 3, 4, 4)),
    ("InstanceNorm2d", dict(num_features=3, track_running_stats=True, momentum=0.3),
     (2, 3, 4, 5)),
    ("LocalResponseNorm", dict(size=3), (2, 5, 4)),
    ("LocalResponseNorm", dict(size=2, alpha=0.5, beta=0.6, k=2.0), (2, 5, 3, 3)),
    ("LocalResponseNorm", dict(size=4, alpha=0.5), (2, 5, 3, 2, 2)),
]


def run_module(lib, name, kwargs, shape, dtype, evaluate_last):
    """Three forward/backward steps (the last in eval mode if asked): outputs, gradients of
    input and parameters, grad_fn names, state_dicts; and the module's repr."""
    module = getattr(lib.nn, name)(**kwargs).to(getattr(lib, dtype))
    with lib.no_grad():
        for p in module.parameters():  # not ones/zeros, so that the affine part matters
            p.copy_(lib.tensor(np.linspace(0.5, 1.5, p.numel())))
    rng = np.random.default_rng(1)
    steps = []
    for step in range(3):
        if evaluate_last and step == 2:
            module.eval()
        x = lib.tensor((rng.normal(size=shape) * 2 + 1).astype(dtype), requires_grad=True)
        y = module(x)
        weights = lib.tensor((np.arange(y.numel()).reshape(tuple(y.shape)) % 3).astype(dtype))
        grads = lib.autograd.grad((y * weights).sum(), [x, *module.parameters()])
        steps.append((y.detach().numpy(), [g.numpy() for g in grads], y.grad_fn.name(),
                      {k: v.numpy() for k, v in module.state_dict().items()}))
    return steps, repr(module)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("evaluate_last", [False, True])
@pytest.mark.parametrize("name,kwargs,shape", MODULE_CASES)
def test_modules_match_torch(name, kwargs, shape, evaluate_last, dtype):
    torch = pytest.importorskip("torch")
    ours, ours_repr = run_module(teachgrad, name, kwargs, shape, dtype, evaluate_last)
    theirs, theirs_repr = run_module(torch, name, kwargs, shape, dtype, evaluate_last)
    assert ours_repr == theirs_repr
    tolerance = dict(rtol=1e-10, atol=1e-12) if dtype == "float64" else dict(rtol=1e-4,
                                                                             atol=1e-5)
    for (y1, g1, name1, s1), (y2, g2, name2, s2) in zip(ours, theirs):
        np.testing.assert_allclose(y1, y2, **tolerance)
        for a, b in zip(g1, g2, strict=True):
            np.testing.assert_allclose(a, b, **tolerance)
        # GroupNorm: PyTorch's fused NativeGroupNormBackward0 (composed here, see norms.py).
        if name != "GroupNorm":
            assert name1 == name2
        assert list(s1) == list(s2)
        for key in s1:
            assert s1[key].dtype == s2[key].dtype
            np.testing.assert_allclose(s1[key], s2[key], **tolerance)


@pytest.mark.torch
@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index):
    torch = pytest.importorskip("torch")
    call, error, message = ERRORS[index]
    with pytest.raises(error) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(torch)
    assert str(info.value) == message
