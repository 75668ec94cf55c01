"""Top-level ATen forms of the layers: ``torch.convolution``, ``torch.native_layer_norm``,
``torch.grid_sampler``, ``torch.native_dropout`` ... (teachgrad/_aten_nn.py)."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as tg
import teachgrad.nn.functional as F
from teachgrad.autograd import gradcheck

rng = np.random.default_rng(0)


def t(*shape, requires_grad=False):
    return tg.tensor(rng.standard_normal(shape), requires_grad=requires_grad)


# --- without torch: against F, by hand, by finite differences ------------------------------
def test_plain_aliases_are_F_functions():
    assert tg.rms_norm is F.rms_norm and tg.bilinear is F.bilinear


def test_convolution_dispatches_on_weight_dimensions():
    x1, w1 = t(1, 2, 7), t(3, 2, 3)
    assert tg.allclose(tg.convolution(x1, w1, None, [2], [1], [1], False, [0], 1),
                       F.conv1d(x1, w1, None, 2, 1))
    x2, w2, b = t(1, 2, 5, 5), t(3, 2, 3, 3), t(3)
    assert tg.allclose(tg.convolution(x2, w2, b, [2, 1], [1, 0], [1, 1], False, [0, 0], 1),
                       F.conv2d(x2, w2, b, (2, 1), (1, 0)))
    wt = t(2, 3, 3, 3)
    out = tg.convolution(x2, wt, None, [2], [1], [1], True, [1], 1)
    assert out.shape == (1, 3, 10, 10)
    assert tg.allclose(out, F.conv_transpose2d(x2, wt, None, 2, 1, 1))


def test_convolution_gradients():
    x, w, b = t(1, 2, 5, 5, requires_grad=True), t(3, 2, 3, 3, requires_grad=True), \
        t(3, requires_grad=True)
    assert gradcheck(lambda x, w, b: tg.convolution(x, w, b, [2], [1], [1], False, [0], 1),
                     (x, w, b))


def test_convolution_argument_errors():
    x, w = t(1, 2, 5, 5), t(3, 2, 3, 3)
    with pytest.raises(TypeError, match="argument 'stride' .* must be tuple of ints, not int"):
        tg.convolution(x, w, None, 1, [0], [1], False, [0], 1)
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a "
                                           r"list of 2 values .* got stride=\[1, 1, 1\]"):
        tg.convolution(x, w, None, [1, 1, 1], [0], [1], False, [0], 1)


def test_native_layer_norm_statistics_by_hand():
    x = tg.tensor([[1.0, 3.0], [2.0, 2.0]])
    out, mean, rstd = tg.native_layer_norm(x, [2], None, None, 0.0 + 1e-12)
    assert mean.tolist() == [[2.0], [2.0]]
    assert rstd[0].item() == pytest.approx(1.0)  # variance 1
    assert out[0].tolist() == pytest.approx([-1.0, 1.0])
    assert not mean.requires_grad and not rstd.requires_grad
    xg = t(2, 3, 4, requires_grad=True)
    out, mean, rstd = tg.native_layer_norm(xg, [3, 4], None, None, 1e-5)
    assert mean.shape == rstd.shape == (2, 1, 1)
    assert type(out.grad_fn).__name__ == "NativeLayerNormBackward0"


def test_native_layer_norm_gradcheck():
    x, w, b = t(2, 3, 4, requires_grad=True), t(4, requires_grad=True), t(4, requires_grad=True)
    assert gradcheck(lambda x, w, b: tg.native_layer_norm(x, [4], w, b, 1e-5)[0], (x, w, b))


def test_native_batch_norm_training_and_eval():
    x = t(4, 3, 5)
    rm, rv = tg.zeros(3, dtype=tg.float64), tg.ones(3, dtype=tg.float64)
    out, mean, invstd = tg.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)
    data = x.numpy()
    assert np.allclose(mean.numpy(), data.mean((0, 2)))
    assert np.allclose(invstd.numpy(), 1 / np.sqrt(data.var((0, 2)) + 1e-5))
    assert np.allclose(rm.numpy(), 0.1 * data.mean((0, 2)))  # running stats updated
    out, mean, invstd = tg.native_batch_norm(x, None, None, rm, rv, False, 0.1, 1e-5)
    assert mean.shape == invstd.shape == (0,)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        tg.native_batch_norm(x, None, None, None, None, False, 0.1, 1e-5)


def test_native_group_norm_statistics_and_errors():
    x = t(2, 4, 3)
    out, mean, rstd = tg.native_group_norm(x, None, None, 2, 4, 3, 2, 1e-5)
    grouped = x.numpy().reshape(2, 2, -1)
    assert mean.shape == (2, 2) and np.allclose(mean.numpy(), grouped.mean(-1))
    assert np.allclose(rstd.numpy(), 1 / np.sqrt(grouped.var(-1) + 1e-5))
    assert tg.allclose(out, F.group_norm(x, 2, eps=1e-5))
    with pytest.raises(RuntimeError, match=r"Expected X.numel\(\) == N \* C \* HxW"):
        tg.native_group_norm(x, None, None, 2, 4, 5, 2, 1e-5)


def test_native_group_norm_statistics_are_the_nodes_outputs():
    # As PyTorch's: mean and rstd are outputs 1 and 2 of the one NativeGroupNormBackward0
    # node, and differentiate to x: ∂(Σ mean)/∂x = 1/6 per element (groups of 2·3)
    x = tg.tensor(np.arange(24.0).reshape(2, 4, 3) ** 1.5, dtype=tg.float64,
                  requires_grad=True)
    out, mean, rstd = tg.native_group_norm(x, None, None, 2, 4, 3, 2, 1e-5)
    assert mean.grad_fn is out.grad_fn is rstd.grad_fn
    assert type(out.grad_fn).__name__ == "NativeGroupNormBackward0"
    (g,) = tg.autograd.grad(mean.sum(), x, retain_graph=True)
    assert np.allclose(g.numpy(), 1 / 6)
    # ∂rstd/∂x_i = -rstd³·(x_i − mean)/n (n = 6), checked against finite differences
    (g,) = tg.autograd.grad(rstd[1, 0], x)
    data, eps = x.detach().numpy(), 1e-6
    up, down = data.copy(), data.copy()
    up[1, 0, 1] += eps
    down[1, 0, 1] -= eps
    rstd_of = lambda a: 1 / np.sqrt(a[1, :2].var() + 1e-5)  # noqa: E731
    assert g.numpy()[1, 0, 1] == pytest.approx((rstd_of(up) - rstd_of(down)) / (2 * eps),
                                               rel=1e-5)


def test_native_dropout_mask_and_gradient():
    x = tg.ones(1000, requires_grad=True)
    out, mask = tg.native_dropout(x, 0.25, True)
    assert mask.dtype == tg.bool and type(out.grad_fn).__name__ == "NativeDropoutBackward0"
    kept = mask.numpy()
    assert np.allclose(out.detach().numpy(), np.where(kept, 1 / 0.75, 0.0))
    out.sum().backward()
    assert np.allclose(x.grad.numpy(), np.where(kept, 1 / 0.75, 0.0))  # ∂out/∂x = mask/(1-p)
    same, all_true = tg.native_dropout(x, 0.5, False)
    assert same.tolist() == x.tolist() and all_true.all().item()
    zeros, none_kept = tg.native_dropout(tg.ones(3), 1.0, True)
    assert zeros.tolist() == [0.0] * 3 and not none_kept.any().item()
    with pytest.raises(RuntimeError, match="bernoulli_ expects p to be in"):  # as PyTorch
        tg.native_dropout(x, 1.5, True)


def test_grid_sampler_modes_by_number():
    x, grid = t(1, 2, 4, 4), tg.tensor(rng.uniform(-1, 1, (1, 3, 3, 2)))
    for number, mode in enumerate(("bilinear", "nearest", "bicubic")):
        for pad_number, padding in enumerate(("zeros", "border", "reflection")):
            expected = F.grid_sample(x, grid, mode, padding, align_corners=False)
            assert tg.equal(tg.grid_sampler(x, grid, number, pad_number, False), expected)
    with pytest.raises(RuntimeError, match="grid_sampler\\(\\): expected 4D input"):
        tg.grid_sampler_2d(t(1, 1, 2, 2, 2), t(1, 2, 2, 2, 3), 0, 0, False)
    with pytest.raises(RuntimeError, match="grid_sampler\\(\\): expected 5D input"):
        tg.grid_sampler_3d(t(1, 1, 2, 2), t(1, 2, 2, 2), 0, 0, False)


def test_affine_grid_generator_identity():
    grid = tg.affine_grid_generator(tg.eye(2, 3)[None], [1, 1, 2, 2], False)
    assert grid.tolist() == [[[[-0.5, -0.5], [0.5, -0.5]], [[-0.5, 0.5], [0.5, 0.5]]]]


def test_pooling_forms():
    x = t(1, 1, 4, 4, 4)
    assert tg.equal(tg.max_pool3d(x, [2]), F.max_pool3d(x, 2))
    values, indices = tg.max_pool1d_with_indices(t(1, 1, 6), [2])
    assert values.shape == indices.shape == (1, 1, 3) and indices.dtype == tg.int64


def test_ctc_loss_reduction_numbers():
    log_probs = t(6, 2, 4).log_softmax(2)
    targets = tg.tensor([[1, 2], [3, 1]])
    args = (log_probs, targets, [6, 5], [2, 2])
    for number, name in enumerate(("none", "mean", "sum")):
        assert tg.allclose(tg.ctc_loss(*args, 0, number), F.ctc_loss(*args, reduction=name))


def test_embedding_bag_bookkeeping_by_hand():
    table = tg.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0], [3.0, 9.0]])
    indices, offsets = tg.tensor([0, 1, 2, 3, 2]), tg.tensor([0, 2, 2])  # bags 01 | - | 232
    out, offset2bag, bag_size, max_indices = tg.embedding_bag(table, indices, offsets, False, 2)
    assert out.tolist() == [[1.0, 2.0], [0.0, 0.0], [4.0, 9.0]]
    assert offset2bag.tolist() == [0, 0, 2, 2, 2] and bag_size.tolist() == [2, 0, 3]
    assert max_indices.tolist() == [[0, 1], [0, 0], [2, 3]]  # the rows the maxima came from
    out, offset2bag, bag_size, max_indices = tg.embedding_bag(table, indices, offsets, False, 1,
                                                              padding_idx=3)
    assert bag_size.tolist() == [2, 0, 2] and max_indices.tolist() == [2, 0, 2]
    assert out[2].tolist() == [4.0, 4.0]  # the mean of the two non-padding rows
    out, offset2bag, bag_size, max_indices = tg.embedding_bag(table, indices, offsets)
    assert offset2bag.tolist() == [] and bag_size.tolist() == [0, 0, 0]  # float32 sum
    assert tg.equal(out, F.embedding_bag(indices, table, offsets, mode="sum"))
    with pytest.raises(RuntimeError, match="expected 1-D indices with offsets"):
        tg.embedding_bag(table, indices.view(1, 5), tg.tensor([], dtype=tg.int64))


# --- against PyTorch -------------------------------------------------------------------------
@pytest.mark.torch
def test_values_and_gradients_match_torch():
    torch = pytest.importorskip("torch")

    def both(array):
        return (tg.tensor(array, requires_grad=True),
                torch.tensor(array, requires_grad=True))

    cases = [
        ("rms_norm", [(2, 3, 4), (4,)], lambda lib, x, w: lib.rms_norm(x, [4], w, 1e-6)),
        ("bilinear", [(3, 2), (3, 4), (5, 2, 4), (5,)],
         lambda lib, a, b, w, c: lib.bilinear(a, b, w, c)),
        ("convolution", [(1, 2, 6, 6), (3, 2, 3, 3), (3,)],
         lambda lib, x, w, b: lib.convolution(x, w, b, [2, 1], [1], [1, 2], False, [0], 1)),
        ("convolution T", [(1, 2, 5), (2, 3, 3)],
         lambda lib, x, w: lib.convolution(x, w, None, [2], [1], [1], True, [1], 1)),
        ("native_layer_norm", [(2, 3, 4), (3, 4), (3, 4)],
         lambda lib, x, w, b: lib.native_layer_norm(x, [3, 4], w, b, 1e-5)),
        ("native_batch_norm", [(4, 3, 5), (3,), (3,)],
         lambda lib, x, w, b: lib.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)),
        ("native_group_norm", [(2, 4, 3), (4,), (4,)],
         lambda lib, x, w, b: lib.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5)),
        ("grid_sampler", [(1, 2, 4, 4), (1, 3, 3, 2)],
         lambda lib, x, g: lib.grid_sampler(x, g * 0.9, 0, 1, False)),
        ("grid_sampler_2d", [(1, 2, 4, 4), (1, 3, 3, 2)],
         lambda lib, x, g: lib.grid_sampler_2d(x, g * 0.9, 2, 2, True)),
        ("grid_sampler_3d", [(1, 2, 3, 3, 3), (1, 2, 2, 2, 3)],
         lambda lib, x, g: lib.grid_sampler_3d(x, g * 0.9, 1, 0, False)),
        ("affine_grid_generator", [(2, 2, 3)],
         lambda lib, th: lib.affine_grid_generator(th, [2, 1, 3, 4], False)),
        ("max_pool3d", [(1, 2, 4, 4, 4)], lambda lib, x: lib.max_pool3d(x, [2], [], [1])),
        ("max_pool1d_with_indices", [(1, 2, 7)],
         lambda lib, x: lib.max_pool1d_with_indices(x, [3], [2], [1])),
    ]
    for name, shapes, fn in cases:
        pairs = [both(rng.standard_normal(shape)) for shape in shapes]
        ours = fn(tg, *(p[0] for p in pairs))
        theirs = fn(torch, *(p[1] for p in pairs))
        ours = ours if isinstance(ours, tuple) else (ours,)
        theirs = theirs if isinstance(theirs, tuple) else (theirs,)
        assert len(ours) == len(theirs), name
        for a, b in zip(ours, theirs):
            assert tuple(a.shape) == tuple(b.shape), name
            assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1], name
            assert np.allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-10), name
        seed = rng.standard_normal(tuple(ours[0].shape))
        (ours[0] * tg.tensor(seed)).sum().backward()
        (theirs[0] * torch.tensor(seed)).sum().backward()
        for ours_in, theirs_in in pairs:
            if theirs_in.grad is not None:
                assert np.allclose(ours_in.grad.numpy(), theirs_in.grad.numpy()), name
        if theirs[0].grad_fn is not None:
            assert type(ours[0].grad_fn).__name__ == type(theirs[0].grad_fn).__name__, name


@pytest.mark.torch
def test_ctc_and_dropout_match_torch():
    torch = pytest.importorskip("torch")
    array = rng.standard_normal((6, 2, 4))
    targets = [[1, 2], [3, 1]]
    for reduction in (0, 1, 2):
        ours = tg.ctc_loss(tg.tensor(array).log_softmax(2), tg.tensor(targets), [6, 5],
                           [2, 2], 0, reduction)
        theirs = torch.ctc_loss(torch.tensor(array).log_softmax(2), torch.tensor(targets),
                                [6, 5], [2, 2], 0, reduction)
        assert np.allclose(ours.numpy(), theirs.numpy())
    for train in (False, True):
        ours, mask = tg.native_dropout(tg.ones(3, requires_grad=True), 0.0, train)
        theirs, their_mask = torch.native_dropout(torch.ones(3, requires_grad=True), 0.0, train)
        assert repr(ours) .replace("NativeDropoutBackward0", "") == \
            repr(theirs).replace("NativeDropoutBackward0", "")
        assert repr(mask) == repr(their_mask)
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    ours, theirs = tg.native_dropout(tg.ones(3), 1.0, True), torch.native_dropout(
        torch.ones(3), 1.0, True)
    assert repr(ours) == repr(theirs)


@pytest.mark.torch
def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    for lib in (tg, torch):
        x, w = lib.ones(1, 2, 5, 5), lib.ones(3, 2, 3, 3)
        with pytest.raises(RuntimeError) as caught:
            lib.convolution(x, w, None, [1, 1, 1], [0], [1], False, [0], 1)
        with pytest.raises(RuntimeError) as caught_gn:
            lib.native_group_norm(lib.ones(2, 3, 4), None, None, 2, 3, 5, 1, 1e-5)
        if lib is tg:
            ours, ours_gn = str(caught.value), str(caught_gn.value)
    assert ours == str(caught.value) and ours_gn == str(caught_gn.value)


@pytest.mark.torch
def test_embedding_bag_matches_torch():
    torch = pytest.importorskip("torch")
    names = ("output", "offset2bag", "bag_size", "max_indices")
    indices = [1, 2, 4, 5, 4, 3, 2, 9]
    count = 0
    for dtype in ("float32", "float64"):
        table = rng.standard_normal((10, 3)).astype(dtype)
        weights = rng.random(8).astype(dtype)
        for requires_grad in (False, True):
            for offsets, last in (([0, 4, 4], False), ([0, 3, 8], True), ([0, 4, 4, 8], True)):
                for mode in range(3):
                    for per_sample in ((False, True) if mode == 0 else (False,)):
                        for padding_idx in (None, 4):
                            results = []
                            for lib in (tg, torch):
                                w = lib.tensor(table, requires_grad=requires_grad)
                                psw = lib.tensor(weights) if per_sample else None
                                got = lib.embedding_bag(w, lib.tensor(indices),
                                                        lib.tensor(offsets), False, mode, False,
                                                        psw, last, padding_idx)
                                if requires_grad:
                                    got[0].sum().backward()
                                results.append(([x.detach().numpy() for x in got],
                                                None if w.grad is None else w.grad.numpy()))
                            case = (dtype, requires_grad, offsets, last, mode, per_sample,
                                    padding_idx)
                            for name, a, b in zip(names, results[0][0], results[1][0]):
                                assert a.shape == b.shape and a.dtype == b.dtype, (name, case)
                                assert np.allclose(a, b, atol=1e-6), (name, case)
                            if requires_grad:
                                assert np.allclose(results[0][1], results[1][1]), case
                            count += 1
    assert count == 2 * 2 * 3 * 4 * 2



# --- edge cases found by review: empty batches, argument checks ----------------------------
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_convolution_of_an_empty_batch(dims, transposed):
    # No sample: an empty output and all-zero gradients (NumPy's reshape error before).
    x = tg.ones((0, 4) + (5,) * dims, requires_grad=True)
    w = tg.ones(((4, 2) if transposed else (6, 2)) + (2,) * dims, requires_grad=True)
    out = tg.convolution(x, w, None, [1], [0], [1], transposed, [0], 2)
    channels = 4 if transposed else 6
    size = 6 if transposed else 4
    assert out.shape == (0, channels) + (size,) * dims
    out.sum().backward()
    assert x.grad.shape == x.shape and not w.grad.any()


def test_convolution_wants_a_batched_input():
    # torch.convolution, unlike F.conv2d, takes no unbatched (C, H, W) input.
    with pytest.raises(RuntimeError, match=r"Expected 4-dimensional input for 4-dimensional "
                       r"weight \[3, 4, 2, 3\], but got 3-dimensional input of size "
                       r"\[4, 5, 6\] instead"):
        tg.convolution(tg.ones(4, 5, 6), tg.ones(3, 4, 2, 3), None, [1], [0], [1], False,
                       [0], 1)


def test_group_norm_of_an_empty_batch():
    x = tg.ones(0, 4, 3, requires_grad=True)
    w = tg.ones(4, requires_grad=True)
    out = F.group_norm(x, 2, w, None)
    out.sum().backward()
    assert out.shape == (0, 4, 3) and x.grad.shape == (0, 4, 3)
    assert w.grad.tolist() == [0.0] * 4
    _, mean, rstd = tg.native_group_norm(tg.ones(0, 4, 3), None, None, 0, 4, 3, 2, 1e-5)
    assert mean.shape == rstd.shape == (0, 2)


def test_native_layer_norm_over_no_elements():
    # PyTorch's kernel sums over the (empty) slice: mean 0, and 1/sqrt(0/0 + eps) is NaN.
    out, mean, rstd = tg.native_layer_norm(tg.ones(2, 3, 0), [0], None, None, 1e-5)
    assert out.shape == (2, 3, 0) and mean.shape == rstd.shape == (2, 3, 1)
    assert mean.tolist() == [[[0.0]] * 3] * 2 and tg.isnan(rstd).all()


def test_native_batch_norm_of_an_empty_training_batch():
    with pytest.raises(RuntimeError, match=r"input tensor must have at least one element, "
                       r"but got input_sizes = \[0, 3, 4\]"):
        tg.native_batch_norm(tg.ones(0, 3, 4), None, None, None, None, True, 0.1, 1e-5)
    out, mean, invstd = tg.native_batch_norm(tg.ones(0, 3, 4), None, None, tg.zeros(3),
                                             tg.ones(3), False, 0.1, 1e-5)
    assert out.shape == (0, 3, 4) and mean.shape == invstd.shape == (0,)


@pytest.mark.parametrize("modes", [(3, 0), (0, 3), (-1, 0)])
def test_grid_sampler_refuses_unknown_mode_numbers(modes):
    # PyTorch checks neither number (and returns meaningless values): teachgrad says so.
    with pytest.raises(RuntimeError, match="grid_sampler\\(\\): expected"):
        tg.grid_sampler(tg.ones(1, 1, 2, 2), tg.zeros(1, 1, 1, 2), *modes, False)


def test_embedding_bag_mode_and_negative_padding_idx():
    weight = tg.arange(12.).reshape(4, 3)
    indices, offsets = tg.tensor([1, 3, 3, 2]), tg.tensor([0, 2])
    with pytest.raises(RuntimeError, match="`mode` must be sum, mean, or max."):
        tg.embedding_bag(weight, indices, offsets, False, 3)
    # padding_idx -1 is row 3: bag 0 keeps row 1, bag 1 keeps row 2 (one row each).
    out, _, bag_size, _ = tg.embedding_bag(weight, indices, offsets, False, 1, False, None,
                                           False, -1)
    assert bag_size.tolist() == [1, 1]
    assert out.tolist() == [[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]


@pytest.mark.torch
def test_embedding_bag_bookkeeping_dtype_and_ctc_default_reduction_match_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    log_probs = np.log(rng.dirichlet(np.ones(5), (6, 2)))
    targets = np.array([[1, 2, 2], [3, 1, 0]])
    results = []
    for T in (torch, tg):
        weight = T.tensor(np.arange(12.).reshape(4, 3))
        bag = T.embedding_bag(weight, T.tensor([1, 3, 3, 2], dtype=T.int32), T.tensor([0, 2]),
                              False, 1)
        lp, tgt = T.tensor(log_probs), T.tensor(targets)
        losses = [T.ctc_loss(lp, tgt, [6, 5], [3, 2]),
                  T.ctc_loss(lp, tgt, T.tensor([6, 5]), T.tensor([3, 2])),
                  T.ctc_loss(lp, tgt, [6, 5], [3, 2], 0, 1)]
        results.append(([str(t.dtype).split(".")[-1] for t in bag],
                        [t.detach().numpy() for t in losses]))
    assert results[0][0] == results[1][0]
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(b, a, rtol=1e-10)


@pytest.mark.parametrize("p, named", [(-0.1, "1.1"), (1.1, "-0.1"), (3.0, "-2")])
def test_native_dropout_probability_error_as_pytorch(p, named):
    # PyTorch's kernel draws bernoulli_(1 - p), so its message names 1 - p.
    with pytest.raises(RuntimeError, match=rf"bernoulli_ expects p to be in \[0, 1\], but got "
                       rf"p={named}\n"):
        tg.native_dropout(tg.ones(3), p, True)
    # Not training, nothing is drawn and nothing is checked.
    out, mask = tg.native_dropout(tg.ones(3), p, False)
    assert out.tolist() == [1.0] * 3 and mask.all()
