"""Arguments of the wrong type get PyTorch's TypeError (type and sentence; ours may add a
``Hint:`` line): ``F.linear``'s bias, ``F.interpolate``'s size / scale_factor /
align_corners (which were truncated or taken silently: ``size=2.5``, ``align_corners=1``),
and the random fills ``Tensor.uniform_('a')``, ``normal_``, ``random_`` ..."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
from tests.parity import raises_as_torch, same_error


@pytest.mark.parametrize("bias", [1j, 0.5, "a", [1.0, 2.0]])
def test_linear_bias_that_is_not_a_tensor(bias):
    raises_as_torch(lambda lib: lib.nn.functional.linear(lib.ones(2, 3), lib.ones(4, 3),
                                                         bias=bias))


def test_linear_bias_hint():
    with pytest.raises(TypeError, match="\nHint: a bias is a tensor"):
        teachgrad.nn.functional.linear(teachgrad.ones(2, 3), teachgrad.ones(4, 3), bias=1j)


_SHAPES = {"nearest": (1, 1, 4), "nearest-exact": (1, 1, 4, 4), "linear": (1, 1, 4),
           "bilinear": (1, 1, 4, 4), "bicubic": (1, 1, 4, 4), "trilinear": (1, 1, 2, 2, 2),
           "area": (1, 1, 4, 4)}
_BAD = [dict(size=1j), dict(size=2.5), dict(size="a"), dict(size=True), dict(scale_factor="a"),
        dict(scale_factor=1j), dict(size=2, align_corners=1), dict(size=2, align_corners=1j),
        dict(scale_factor=2, align_corners="a")]


@pytest.mark.parametrize("mode", list(_SHAPES))
@pytest.mark.parametrize("arguments", _BAD, ids=str)
def test_interpolate_argument_types(mode, arguments):
    if mode == "area" and "scale_factor" in arguments and arguments["scale_factor"] == "a":
        pytest.skip("PyTorch's Python multiplies the size by the string first: "
                    "ValueError for 'aaaa' (ours: ValueError too, in other words)")
    if mode in ("nearest", "nearest-exact", "area") and "align_corners" in arguments:
        mode = "bilinear"  # (these modes refuse any align_corners by value)
    raises_as_torch(lambda lib: lib.nn.functional.interpolate(
        lib.ones(*_SHAPES[mode]), mode=mode, **arguments))


def test_interpolate_bad_scale_after_a_good_one_and_upsample():
    raises_as_torch(lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4),
                                                              scale_factor=(2, "a")))
    raises_as_torch(lambda lib: lib.nn.Upsample(size=1j)(lib.ones(1, 1, 4)))
    # The mode's own error comes first, as in PyTorch (the kernel is never reached).
    raises_as_torch(lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4), size=1j,
                                                              mode="linear"))


def test_interpolate_still_takes_numpy_and_tensor_sizes():
    torch = pytest.importorskip("torch")
    for size in (np.int64(3), 3):
        ours = teachgrad.nn.functional.interpolate(teachgrad.ones(1, 1, 4), size=size)
        theirs = torch.nn.functional.interpolate(torch.ones(1, 1, 4), size=size)
        assert tuple(ours.shape) == tuple(theirs.shape) == (1, 1, 3)
    ours = teachgrad.nn.functional.interpolate(teachgrad.ones(1, 1, 4),
                                               scale_factor=np.float32(2), mode="linear")
    assert tuple(ours.shape) == (1, 1, 8)


@pytest.mark.parametrize("call", [
    lambda x: x.uniform_("a"), lambda x: x.uniform_(0, "b"), lambda x: x.uniform_(1j),
    lambda x: x.uniform_(None), lambda x: x.normal_("a"), lambda x: x.normal_(0, "b"),
    lambda x: x.normal_(1j), lambda x: x.exponential_("a"), lambda x: x.cauchy_("a"),
    lambda x: x.log_normal_("a"), lambda x: x.geometric_("a"), lambda x: x.geometric_(),
    lambda x: x.uniform_(np.array([0.0])),
])
def test_random_fills_refuse_wrong_types(call):
    raises_as_torch(lambda lib: call(lib.ones(3)))


@pytest.mark.parametrize("call", [
    lambda x: x.bernoulli_("a"), lambda x: x.random_("a"), lambda x: x.random_(0, "a"),
    lambda x: x.random_(2.5),
])
def test_random_fills_with_several_signatures_refuse_wrong_types(call):
    # PyTorch lists the signatures ("received an invalid combination of arguments"):
    # the same TypeError and first sentence.
    same_error(lambda lib: call(lib.ones(3)))


def test_random_fills_take_what_pytorch_takes():
    torch = pytest.importorskip("torch")
    # A 0-d tensor or a NumPy scalar is a number: the same draws as PyTorch's.
    for low, high in ((teachgrad.tensor(-1.0), np.float32(2)), (True, 3)):
        ours = teachgrad.ones(5).uniform_(low, high, generator=teachgrad.Generator().manual_seed(1))
        t_low = torch.tensor(-1.0) if isinstance(low, teachgrad.Tensor) else low
        theirs = torch.ones(5).uniform_(t_low, high, generator=torch.Generator().manual_seed(1))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    ours = teachgrad.zeros(6).random_(teachgrad.tensor(4),
                                      generator=teachgrad.Generator().manual_seed(2))
    theirs = torch.zeros(6).random_(torch.tensor(4), generator=torch.Generator().manual_seed(2))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    # A tensor of probabilities stays a tensor for bernoulli_.
    p = teachgrad.tensor([0.0, 1.0, 0.0])
    assert teachgrad.ones(3).bernoulli_(p).tolist() == [0.0, 1.0, 0.0]


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.leaky_relu(lib.ones(3), negative_slope="a"),
    lambda lib: lib.nn.functional.leaky_relu(lib.ones(3), None, inplace=True),
    lambda lib: lib.nn.functional.elu(lib.ones(3), alpha="a"),
    lambda lib: lib.nn.functional.elu(lib.ones(3), "a", inplace=True),
    lambda lib: lib.nn.functional.softplus(lib.ones(3), beta="a"),
    lambda lib: lib.nn.functional.softplus(lib.ones(3), threshold=None),
    lambda lib: lib.nn.functional.hardshrink(lib.ones(3), lambd="a"),
    lambda lib: lib.nn.functional.threshold(lib.ones(3), "a", 0.0),
    lambda lib: lib.nn.functional.threshold(lib.ones(3), 0.0, value="a", inplace=True),
    lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3), (3,), eps="a"),
    lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3), (3,), eps=None),
    lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 3), (3,), eps="a"),
    # (these were taken silently: the value goes unused on this path)
    lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3), None, None, training=True,
                                             momentum="a"),
    lambda lib: lib.nn.functional.kl_div(lib.ones(3), lib.ones(3), reduction="sum",
                                         log_target=1),
    lambda lib: lib.nn.functional.poisson_nll_loss(lib.ones(3), lib.ones(3), eps="a"),
    lambda lib: lib.nn.functional.poisson_nll_loss(lib.ones(3), lib.ones(3), full="a"),
    lambda lib: lib.nn.functional.poisson_nll_loss(lib.ones(3), lib.ones(3), log_input=None),
])
def test_number_and_bool_parameters_refuse_other_types(call):
    raises_as_torch(call)


def test_number_parameters_take_numpy_scalars_and_0d_tensors_as_pytorch():
    torch = pytest.importorskip("torch")
    x = np.array([-2.0, -0.5, 1.0])
    for slope in (np.float32(0.25), 0.25):
        ours = teachgrad.nn.functional.leaky_relu(teachgrad.tensor(x), slope)
        theirs = torch.nn.functional.leaky_relu(torch.tensor(x), slope)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    ours = teachgrad.nn.functional.elu(teachgrad.tensor(x), teachgrad.tensor(0.5))
    theirs = torch.nn.functional.elu(torch.tensor(x), torch.tensor(0.5))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    ours = teachgrad.nn.functional.layer_norm(teachgrad.tensor(x), (3,), eps=1)
    theirs = torch.nn.functional.layer_norm(torch.tensor(x), (3,), eps=1)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.huber_loss(lib.ones(3), lib.ones(3), delta="a"),
    lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(3), lib.ones(3), beta="a"),
    lambda lib: lib.nn.functional.margin_ranking_loss(lib.ones(3), lib.ones(3), lib.ones(3),
                                                      margin="a"),
    lambda lib: lib.nn.functional.hinge_embedding_loss(lib.ones(3), lib.ones(3), margin="a"),
    lambda lib: lib.nn.functional.cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 3),
                                                        lib.ones(2), margin="a"),
    lambda lib: lib.nn.functional.cosine_similarity(lib.ones(2, 3), lib.ones(2, 3), eps="a"),
    lambda lib: lib.nn.functional.pairwise_distance(lib.ones(2, 3), lib.ones(2, 3), p="a"),
    lambda lib: lib.nn.functional.instance_norm(lib.ones(2, 4, 3), eps="a"),
    lambda lib: lib.nn.functional.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1]),
                                                label_smoothing="a"),
    lambda lib: lib.nn.functional.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1]),
                                                label_smoothing=None),
    lambda lib: lib.nn.functional.pixel_shuffle(lib.ones(1, 4, 2, 2), 1j),
    lambda lib: lib.nn.functional.pixel_shuffle(lib.ones(1, 4, 2, 2), upscale_factor=2.0),
    lambda lib: lib.nn.functional.pixel_unshuffle(lib.ones(1, 1, 4, 4), 2.0),
    lambda lib: lib.nn.functional.channel_shuffle(lib.ones(1, 4, 2, 2), groups="a"),
])
def test_more_parameters_refuse_other_types(call):
    raises_as_torch(call)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.softmax(lib.ones(3), 0, dtype="float32"),
    lambda lib: lib.nn.functional.log_softmax(lib.ones(3), 0, dtype="a"),
    lambda lib: lib.nn.functional.softmin(lib.ones(3), 0, dtype="a"),
])
def test_softmax_dtype_that_is_not_a_dtype(call):
    # (PyTorch's sentence names "torch.dtype"; teachgrad's parser messages keep that name)
    same_error(call)


def test_softmax_takes_python_types_as_dtypes():
    torch = pytest.importorskip("torch")
    ours = teachgrad.nn.functional.softmax(teachgrad.ones(2), 0, dtype=float)
    theirs = torch.nn.functional.softmax(torch.ones(2), 0, dtype=float)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1] == "float64"


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.rrelu(lib.ones(3), "a"),
    lambda lib: lib.nn.functional.rrelu(lib.ones(3), 0.1, "a", inplace=True),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.ones(1, 2, 2), lib.ones(1, 2, 2), lib.ones(1, 2, 2), scale="a"),
    lambda lib: lib.nn.functional.bilinear(lib.ones(2, 3), lib.ones(2, 3), lib.ones(4, 3, 3),
                                           bias=1j),
    lambda lib: lib.nn.functional.pad(lib.ones(3), (1, 1), value="a"),
    lambda lib: lib.nn.functional.embedding(lib.tensor([0]), lib.ones(3, 2), max_norm="a"),
    lambda lib: lib.nn.functional.embedding(lib.tensor([0]), lib.ones(3, 2), max_norm=1.0,
                                            norm_type="a"),
])
def test_even_more_parameters_refuse_other_types(call):
    raises_as_torch(call)


def test_pad_value_none_and_numbers_still_work():
    torch = pytest.importorskip("torch")
    for value in (None, 2, np.float64(1.5)):
        ours = teachgrad.nn.functional.pad(teachgrad.ones(2), (1, 1), value=value)
        theirs = torch.nn.functional.pad(torch.ones(2), (1, 1), value=value)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
