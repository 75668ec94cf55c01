"""Bad kernel sizes, strides, paddings, dilations, groups and flags of pooling, convolution,
fold/unfold, dropout, norms, distances, embedding, losses and nn.init get PyTorch's error
(type and sentence), as tests/sweep_nn_arguments_against_torch.py finds them:
``F.max_pool2d(x, 1j)`` said "'complex' object is not iterable", ``F.conv1d(x, w,
stride=1.5)`` "'float' object is not iterable", and ``ceil_mode='a'`` or
``kernel_size=True`` were taken silently."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
from tests.parity import raises_as_torch
from tests.sweep_nn_arguments_against_torch import CALLS, INIT

# Differences left, and why: PyTorch taking what teachgrad refuses.
KNOWN: dict[str, str] = {}
# These differ only for a complex number (1j): teachgrad has no complex dtypes and says so,
# where PyTorch computes (local_response_norm's alpha) or names its complex kernel.
ONLY_COMPLEX_DIFFERS = {"lp_pool1d", "lp_pool2d", "gumbel_softmax", "local_response_norm"}
FIXED = [name for name in (*CALLS, *INIT) if name not in KNOWN]


@pytest.mark.parametrize("name", FIXED)
def test_sweep_finds_no_difference(name):
    torch = pytest.importorskip("torch")
    from tests.sweep_nn_arguments_against_torch import differences

    total, found = differences(torch, {name})
    assert total >= 4
    if name in ONLY_COMPLEX_DIFFERS:
        found = [f for f in found if "=1j" not in f.splitlines()[0]]
    assert found == [], "\n".join(found)


# The sweep passes the bad value by keyword; PyTorch names a position only for a positional
# argument of its own bindings (avg_pool, conv), always for what its Python passes on.
@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.functional.avg_pool2d(lib.ones(1, 1, 4, 4), 2, 1j),
    lambda lib: lib.nn.functional.avg_pool2d(lib.ones(1, 1, 4, 4), (2, 1.5)),
    lambda lib: lib.nn.functional.avg_pool2d(lib.ones(1, 1, 4, 4), [1.5, 2]),
    lambda lib: lib.nn.functional.avg_pool1d(lib.ones(1, 1, 4), 2, 1, 0, "a"),
    lambda lib: lib.nn.functional.max_pool2d(lib.ones(1, 1, 4, 4), [1.5, 2]),
    lambda lib: lib.nn.functional.conv_transpose1d(lib.ones(1, 2, 4), lib.ones(2, 3, 3), None,
                                                   [2.5]),
    lambda lib: lib.nn.functional.conv_transpose1d(lib.ones(1, 2, 4), lib.ones(2, 3, 3), None,
                                                   1, 0, 0, 1.5),
    lambda lib: lib.nn.functional.conv2d(lib.ones(1, 2, 4, 4), lib.ones(3, 2, 3, 3), None,
                                         (1, 1.5)),
    lambda lib: lib.nn.functional.adaptive_avg_pool1d(lib.ones(1, 2, 4), None),
    lambda lib: lib.nn.functional.lp_pool1d(lib.ones(1, 2, 4), 2, 2, 1, "a"),
    lambda lib: lib.nn.functional.lp_pool2d(lib.ones(1, 2, 4, 4), 2, "a"),
    lambda lib: lib.nn.functional.dropout(lib.ones(3), 0.5, 1),
    lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3), "a"),
    lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3), 1.5),
    lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3), -2),
    lambda lib: lib.nn.functional.embedding(lib.tensor([0, 1]), lib.ones(3, 2), 1.5),
    lambda lib: lib.nn.functional.embedding(lib.tensor([0, 1]), lib.ones(3, 2), "a"),
    lambda lib: lib.nn.functional.pairwise_distance(lib.ones(2, 3), lib.ones(2, 3), 2.0, 1e-6,
                                                    1),
    lambda lib: lib.nn.functional.cosine_similarity(lib.ones(2, 3), lib.ones(3, 3), 1, -1e-8),
    lambda lib: lib.nn.functional.rrelu(lib.ones(2), 0.5, 0.1),
    lambda lib: lib.nn.init.uniform_(lib.ones(2), 1.0, 0.5),
    lambda lib: lib.nn.init.sparse_(lib.ones(2, 2), 0.5, -0.01),
    lambda lib: lib.nn.init.orthogonal_(lib.ones(2, 2), "a"),
    lambda lib: lib.nn.init.constant_(lib.ones(2, 2), None),
    # PyTorch's Python checks the batch first (fuzz seed 222525), its parser the types after
    lambda lib: lib.nn.functional.batch_norm(lib.ones(1, 2), None, lib.ones(2), training=True,
                                             momentum=None),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(3, 2), None, lib.ones(2), training=1),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 4), 1),  # (no single int for pad)
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 4), ("a", 1)),
    lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 4), (1, 1), 2),
    lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 2, 3), 4, align_corners=False),
])
def test_positional_bad_arguments(case):
    raises_as_torch(case)


def test_a_correct_call_is_unchanged_and_strings_still_pad():
    x = teachgrad.ones(1, 2, 5)
    assert F().conv1d(x, teachgrad.ones(3, 2, 3), padding="same").shape == (1, 3, 5)
    assert F().max_pool1d(x, np.int64(2)).shape == (1, 2, 2)
    assert F().avg_pool1d(x, teachgrad.tensor(2)).shape == (1, 2, 2)


def test_hint_for_a_learner():
    with pytest.raises(TypeError, match="\nHint: give an int or a tuple of ints"):
        F().max_pool2d(teachgrad.ones(1, 1, 4, 4), 2.0)


@pytest.mark.parametrize("p", [float("inf"), float("-inf")])
def test_lp_pool_of_infinite_order_is_max_pooling_of_magnitudes(p):
    # ||x||_inf of a window is its largest |x| (and PyTorch gives minus the max pooling of
    # -|x|, the smallest |x|, for -inf); the composed formula gave 1 everywhere.
    x = teachgrad.tensor([[[1.0, -3.0, 2.0, 0.0, -0.5, 4.0]]])
    want = [[[3.0, 2.0, 4.0]]] if p > 0 else [[[1.0, 0.0, 0.5]]]
    np.testing.assert_array_equal(F().lp_pool1d(x, p, 2).numpy(), want)
    np.testing.assert_array_equal(F().lp_pool2d(x[None], p, (1, 2)).numpy(), [want])


def F():
    return teachgrad.nn.functional


@pytest.mark.parametrize("eps, use_input_stats", [(-1.0, True), (-0.01, True), (0.0, True),
                                                  (-0.5, False)])
def test_instance_norm_takes_any_eps_as_pytorch(eps, use_input_stats):
    """PyTorch's instance_norm reaches ATen's batch_norm without batch_norm's Python checks:
    a negative eps is taken (nan where the variance is smaller) where F.batch_norm refuses."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(3).standard_normal((2, 3, 4)).astype(np.float32)
    stats = {} if use_input_stats else {"running_mean": np.zeros(3, np.float32),
                                        "running_var": np.full(3, 2.0, np.float32)}
    outs = [lib.nn.functional.instance_norm(
        lib.tensor(x), use_input_stats=use_input_stats, eps=eps,
        **{k: lib.tensor(v) for k, v in stats.items()}).numpy() for lib in (torch, teachgrad)]
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6, equal_nan=True)
    assert np.isnan(outs[0]).any() == (eps == -1.0)


def test_batch_norm_still_refuses_a_negative_eps():
    x = teachgrad.ones(2, 3)
    with pytest.raises(ValueError, match="eps must be positive during training, but got -1.0"):
        teachgrad.nn.functional.batch_norm(x, None, None, training=True, eps=-1.0)
