"""BatchNorm1d / BatchNorm2d and F.batch_norm: gradients, running statistics, PyTorch parity."""

from __future__ import annotations

import io

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck


def leaf(shape, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    return teachgrad.tensor(rng.standard_normal(shape) * scale + 1.0, requires_grad=True)


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 6), (3, 3, 4, 2)])
def test_training_mode_gradcheck(shape):
    x, w, b = leaf(shape), leaf((3,), 1), leaf((3,), 2)
    assert gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b))


def test_eval_mode_gradcheck():
    x, w, b = leaf((4, 3, 2, 2)), leaf((3,), 1), leaf((3,), 2)
    mean, var = teachgrad.tensor([0.5, -1.0, 2.0]).double(), teachgrad.tensor([1.0, 4.0, 0.5])
    assert gradcheck(lambda x, w, b: F.batch_norm(x, mean, var.double(), w, b), (x, w, b))


def test_training_normalises_and_updates_running_stats_by_hand():
    bn = nn.BatchNorm1d(1)
    out = bn(teachgrad.tensor([[1.0], [3.0]]))
    # mean 2, biased variance 1: outputs ∓1 (up to eps).
    np.testing.assert_allclose(out.detach().numpy(), [[-1.0], [1.0]], atol=1e-4)
    # running_mean = 0.9·0 + 0.1·2; running_var = 0.9·1 + 0.1·2 (unbiased variance: 2).
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.2], rtol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), [1.1], rtol=1e-6)
    assert bn.num_batches_tracked.item() == 1 and bn.num_batches_tracked.dtype == teachgrad.int64
    bn.eval()
    np.testing.assert_allclose(bn(teachgrad.tensor([[0.2]])).detach().numpy(), [[0.0]],
                               atol=1e-6)


def test_state_dict_keys_and_save_load_round_trip():
    bn = nn.BatchNorm2d(3)
    bn(teachgrad.randn(4, 3, 5, 5))
    assert list(bn.state_dict()) == [
        "weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    buffer = io.BytesIO()
    teachgrad.save(bn.state_dict(), buffer)
    buffer.seek(0)
    other = nn.BatchNorm2d(3)
    other.load_state_dict(teachgrad.load(buffer))
    np.testing.assert_array_equal(other.running_var.numpy(), bn.running_var.numpy())
    assert other.num_batches_tracked.item() == 1
    assert list(nn.BatchNorm1d(2, track_running_stats=False).state_dict()) == ["weight", "bias"]


def test_errors():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        nn.BatchNorm1d(4)(teachgrad.zeros(1, 4))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(4)(teachgrad.zeros(2, 4, 4))
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        nn.BatchNorm1d(4)(teachgrad.zeros(2, 4, 4, 4))
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        nn.BatchNorm1d(4)(teachgrad.zeros(4, 3))


@pytest.mark.torch
@pytest.mark.parametrize("name,shape,kwargs", [
    ("BatchNorm1d", (6, 3), {}),
    ("BatchNorm1d", (4, 3, 5), {"momentum": None}),
    ("BatchNorm2d", (4, 3, 5, 2), {}),
    ("BatchNorm2d", (2, 3, 4, 4), {"affine": False, "momentum": 0.3}),
    ("BatchNorm2d", (2, 3, 4, 4), {"track_running_stats": False}),
    ("BatchNorm1d", (5, 3), {"bias": False, "eps": 1e-3}),
])
def test_training_and_eval_match_pytorch(name, shape, kwargs):
    torch = pytest.importorskip("torch")
    ours = getattr(nn, name)(3, **kwargs).double()
    theirs = getattr(torch.nn, name)(3, **kwargs).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    rng = np.random.default_rng(0)
    for step in range(3):
        data = rng.standard_normal(shape) * (step + 1) + step
        x, tx = teachgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
        out, tout = ours(x), theirs(tx)
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), atol=1e-10)
        grad = rng.standard_normal(shape)
        out.backward(teachgrad.tensor(grad))
        tout.backward(torch.tensor(grad))
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-10)
    for (key, value), (tkey, tvalue) in zip(ours.state_dict().items(),
                                            theirs.state_dict().items()):
        assert key == tkey
        np.testing.assert_allclose(value.numpy(), tvalue.numpy(), atol=1e-10)
    for p, tp in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), atol=1e-10)
    ours.eval()
    theirs.eval()
    data = rng.standard_normal(shape)
    np.testing.assert_allclose(ours(teachgrad.tensor(data)).detach().numpy(),
                               theirs(torch.tensor(data)).detach().numpy(), atol=1e-10)


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import batch_norm
    from teachgrad.nn.modules import batchnorm

    for module in (batch_norm, batchnorm):
        assert doctest.testmod(module).failed == 0
