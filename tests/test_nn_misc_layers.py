"""nn.EmbeddingBag / F.embedding_bag, nn.MultiLabelMarginLoss / F.multilabel_margin_loss,
nn.TripletMarginWithDistanceLoss / F.triplet_margin_with_distance_loss, nn.CTCLoss /
F.ctc_loss, nn.PixelShuffle / PixelUnshuffle / ChannelShuffle (gradcheck, hand-computed
values, PyTorch parity)."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

INDICES = np.array([0, 2, 1, 3, 3, 4])
# (indices, offsets, keyword arguments, with per-sample weights)
BAG_CASES = [
    (INDICES, np.array([0, 2, 2]), {}, False),                          # an empty bag: zeros
    (INDICES, np.array([0, 2, 2]), {"mode": "sum"}, False),
    (INDICES, np.array([0, 2, 2]), {"mode": "max"}, False),
    (INDICES, np.array([0, 2, 2, 6]), {"mode": "sum", "include_last_offset": True}, False),
    (INDICES, np.array([0, 2, 4]), {"mode": "mean", "padding_idx": 3}, False),
    (INDICES, np.array([0, 2, 4]), {"mode": "max", "padding_idx": -2}, False),
    (INDICES, np.array([0, 1, 4]), {"mode": "sum", "padding_idx": 1}, True),
    (INDICES.reshape(2, 3), None, {"mode": "sum"}, True),               # 2-d: fixed-size bags
    (np.array([0, 2, 2, 3, 3, 2]), np.array([0, 3]), {"mode": "max"}, False),   # ties
    (INDICES.astype(np.int32), np.array([0, 3], np.int32), {}, False),
]


def bag_inputs(lib, indices, offsets, with_weights, seed=0):
    rng = np.random.default_rng(seed)
    weight = lib.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    psw = (lib.tensor(rng.standard_normal(indices.shape), requires_grad=True)
           if with_weights else None)
    return (lib.tensor(indices), weight, None if offsets is None else lib.tensor(offsets),
            psw)


@pytest.mark.parametrize("indices,offsets,kwargs,with_weights", BAG_CASES)
def test_embedding_bag_gradcheck(indices, offsets, kwargs, with_weights):
    idx, weight, off, psw = bag_inputs(teachgrad, indices, offsets, with_weights)
    if psw is None:
        assert gradcheck(lambda w: F.embedding_bag(idx, w, off, **kwargs), (weight,))
        assert gradgradcheck(lambda w: F.embedding_bag(idx, w, off, **kwargs) ** 2, (weight,))
    else:
        def bag(w, p):
            return F.embedding_bag(idx, w, off, per_sample_weights=p, **kwargs)
        assert gradcheck(bag, (weight, psw))
        assert gradgradcheck(bag, (weight, psw))


def test_embedding_bag_hand_computed():
    table = teachgrad.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]], requires_grad=True)
    out = F.embedding_bag(teachgrad.tensor([0, 1, 2, 2]), table, teachgrad.tensor([0, 2]),
                          mode="mean")
    assert out.tolist() == [[0.5, 1.0], [4.0, 4.0]]
    out.sum().backward()
    # Each row gets 1/bag size per use: rows 0 and 1 once in a bag of 2, row 2 twice.
    assert table.grad.tolist() == [[0.5, 0.5], [0.5, 0.5], [1.0, 1.0]]


def test_embedding_bag_max_ties_go_to_the_first_index():
    table = teachgrad.tensor([[1.0, 2.0], [1.0, 0.0], [3.0, 2.0]], requires_grad=True)
    out = F.embedding_bag(teachgrad.tensor([1, 0, 2, 0, 1]), table, teachgrad.tensor([0, 2]),
                          mode="max")
    assert out.tolist() == [[1.0, 2.0], [3.0, 2.0]]
    out.backward(teachgrad.tensor([[1.0, 10.0], [100.0, 1000.0]]))
    # Bag 0 column 0: rows 1 and 0 tie at 1, row 1 comes first. Bag 1 column 1: rows 2
    # and 0 tie at 2, row 2 comes first.
    assert table.grad.tolist() == [[0.0, 10.0], [1.0, 0.0], [100.0, 1000.0]]


def test_embedding_bag_scale_grad_by_freq_divides_by_the_count():
    # Row 3 is read twice: its gradient is halved; every other row's stays whole.
    table = teachgrad.zeros(5, 2, requires_grad=True)
    F.embedding_bag(teachgrad.tensor([[0, 2, 1], [3, 3, 4]]), table, mode="sum",
                    scale_grad_by_freq=True).sum().backward()
    assert table.grad[:, 0].tolist() == [1.0, 1.0, 1.0, 1.0, 1.0]


def test_embedding_bag_index_out_of_range():
    # PyTorch's message names one bad index (which one depends on its threads): ours, the
    # first.
    with pytest.raises(RuntimeError, match=r"Index 2 of input takes value 13 which is not in "
                                           r"the valid range \[0, 4\)"):
        F.embedding_bag(teachgrad.tensor([0, 2, 13, 30]), teachgrad.zeros(4, 3),
                        teachgrad.tensor([0, 2]))


def test_embedding_bag_module():
    teachgrad.manual_seed(0)
    bag = nn.EmbeddingBag(6, 4, mode="sum", padding_idx=2)
    assert bag.weight[2].tolist() == [0.0] * 4
    assert bag(teachgrad.tensor([[1, 2], [3, 5]])).shape == (2, 4)
    frozen = nn.EmbeddingBag.from_pretrained(teachgrad.ones(3, 2), mode="max")
    assert not frozen.weight.requires_grad
    assert frozen(teachgrad.tensor([0, 1, 2]), teachgrad.tensor([0, 1])).tolist() == [
        [1.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_gradcheck_and_value(reduction):
    x = teachgrad.tensor(np.random.default_rng(1).standard_normal((3, 5)), requires_grad=True)
    y = teachgrad.tensor([[3, 0, -1, 1, 4], [1, 2, 3, 0, 4], [-1, 0, 0, 0, 0]])
    assert gradcheck(lambda x: F.multilabel_margin_loss(x, y, reduction=reduction), (x,))
    assert gradgradcheck(lambda x: F.multilabel_margin_loss(x, y, reduction=reduction), (x,))
    # Hand-computed: scores (0.1, 0.2, 0.4, 0.8), targets {3, 0}: non-targets 1 and 2.
    # (1-(0.8-0.2)) + (1-(0.8-0.4)) + (1-(0.1-0.2)) + (1-(0.1-0.4)) = 3.4, / 4 classes.
    loss = F.multilabel_margin_loss(teachgrad.tensor([0.1, 0.2, 0.4, 0.8]),
                                    teachgrad.tensor([3, 0, -1, 1]))
    assert loss.item() == pytest.approx(0.85)


def test_triplet_with_distance_gradcheck_and_default_distance():
    rng = np.random.default_rng(2)
    a, p, n = (teachgrad.tensor(rng.standard_normal((4, 3)), requires_grad=True)
               for _ in range(3))

    def cosine(x, y):
        return 1 - F.cosine_similarity(x, y)

    assert gradcheck(lambda a, p, n: F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=cosine, margin=0.5, swap=True), (a, p, n))
    # With no distance_function, it is triplet_margin_loss.
    ours = F.triplet_margin_with_distance_loss(a, p, n, reduction="none")
    np.testing.assert_allclose(ours.detach().numpy(), F.triplet_margin_loss(
        a, p, n, reduction="none").detach().numpy())
    with pytest.raises(ValueError, match="margin must be greater than 0"):
        F.triplet_margin_with_distance_loss(a, p, n, margin=0)
    with pytest.raises(ValueError, match="expected margin to be greater than 0"):
        nn.TripletMarginWithDistanceLoss(margin=-1.0)


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("indices,offsets,kwargs,with_weights", BAG_CASES)
def test_embedding_bag_matches_pytorch(indices, offsets, kwargs, with_weights):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (teachgrad, torch):
        idx, weight, off, psw = bag_inputs(lib, indices, offsets, with_weights, seed=3)
        out = lib.nn.functional.embedding_bag(idx, weight, off, per_sample_weights=psw,
                                              **kwargs)
        grad = np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape))
        out.backward(lib.tensor(grad))
        results.append((type(out.grad_fn).__name__, out.detach().numpy(), weight.grad.numpy(),
                        None if psw is None else psw.grad.numpy()))
    (name, *ours), (their_name, *theirs) = results
    assert name == their_name
    for mine, real in zip(ours, theirs):
        if real is not None:
            np.testing.assert_allclose(mine, real, atol=1e-12)


@pytest.mark.torch
def test_embedding_bag_errors_match_pytorch():
    torch = pytest.importorskip("torch")
    i, o = np.array([0, 2, 1, 3, 3]), np.array([0, 2, 2])
    cases = [
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i), w,
                                                       lib.tensor(np.array([0, 6]))),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i).float(), w, lib.tensor(o)),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i), w, lib.tensor(o),
                                                       mode="foo"),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i), w),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i), w, lib.tensor(o),
                                                       per_sample_weights=lib.ones(5)),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i), w, lib.tensor(o),
                                                       mode="sum",
                                                       per_sample_weights=lib.ones(4)),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i), w, lib.tensor(o),
                                                       padding_idx=7),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i), w, lib.tensor(o),
                                                       mode="max", scale_grad_by_freq=True),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i), w[0], lib.tensor(o)),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i).reshape(1, 5), w,
                                                       lib.tensor(o)),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(i), w,
                                                       lib.tensor(np.array([1, 2]))),
    ]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            case(torch, torch.zeros(4, 3))
        with pytest.raises(type(theirs.value)) as ours:
            case(teachgrad, teachgrad.zeros(4, 3))
        # PyTorch appends the offending tensor's type on a line of its own to one message.
        expected = str(theirs.value).split("\n[ torch")[0]
        mine = (str(ours.value).split("\nHint:")[0].replace("teachgrad.Size", "torch.Size")
                .replace("teachgrad.Tensor", "torch.Tensor"))
        assert mine == expected


@pytest.mark.torch
@pytest.mark.parametrize("args,kwargs", [((10, 3), {}),
                                         ((10, 3), {"mode": "sum", "padding_idx": -1,
                                                    "max_norm": 1.0, "norm_type": 1.0,
                                                    "include_last_offset": True}),
                                         ((4, 2), {"mode": "max",
                                                   "scale_grad_by_freq": False})])
def test_embedding_bag_module_matches_pytorch(args, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = nn.EmbeddingBag(*args, **kwargs), torch.nn.EmbeddingBag(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert ours.padding_idx == theirs.padding_idx
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in theirs.state_dict().items()]


@pytest.mark.torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(3, 5), (5,)])
def test_multilabel_margin_matches_pytorch(reduction, shape):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(4).standard_normal(shape)
    y = np.array([[3, 0, -1, 1, 4], [1, 2, 3, 0, 4], [-1, 0, 0, 0, 0]])[:shape[0]] if len(
        shape) == 2 else np.array([4, 1, -1, 0, 0])
    results = []
    for lib in (teachgrad, torch):
        xt = lib.tensor(x, requires_grad=True)
        loss = lib.nn.MultiLabelMarginLoss(reduction=reduction)(xt, lib.tensor(y))
        loss.sum().backward()
        results.append((type(loss.grad_fn).__name__, loss.detach().numpy(), xt.grad.numpy()))
    assert results[0][0] == results[1][0]
    for mine, real in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(mine, real, atol=1e-12)


@pytest.mark.torch
def test_multilabel_margin_errors_match_pytorch():
    torch = pytest.importorskip("torch")
    x = np.zeros((2, 4))
    y = np.array([[3, 0, -1, 1], [1, 2, 3, 0]])
    cases = [
        lambda lib: lib.nn.functional.multilabel_margin_loss(lib.tensor(x), lib.tensor(y).float()),
        lambda lib: lib.nn.functional.multilabel_margin_loss(lib.tensor(x), lib.tensor(y[:, :3])),
        lambda lib: lib.nn.functional.multilabel_margin_loss(lib.tensor(x), lib.tensor(y + 5)),
        lambda lib: lib.nn.functional.multilabel_margin_loss(lib.tensor(x), lib.tensor(y - 5)),
        lambda lib: lib.nn.functional.multilabel_margin_loss(lib.tensor(x[None]),
                                                             lib.tensor(y[None])),
        lambda lib: lib.nn.functional.multilabel_margin_loss(lib.tensor(x[:, :0]),
                                                             lib.tensor(y[:, :0])),
        lambda lib: lib.nn.functional.multilabel_margin_loss(lib.tensor(x).long(),
                                                             lib.tensor(y)),
    ]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            case(torch)
        with pytest.raises(type(theirs.value)) as ours:
            case(teachgrad)
        assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


@pytest.mark.torch
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_triplet_with_distance_matches_pytorch(swap, reduction):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(5).standard_normal((3, 4, 3))
    results = []
    for lib in (teachgrad, torch):
        a, p, n = (lib.tensor(d, requires_grad=True) for d in data)

        def cosine(x, y, lib=lib):
            return 1 - lib.nn.functional.cosine_similarity(x, y)

        loss = lib.nn.TripletMarginWithDistanceLoss(distance_function=cosine, margin=0.7,
                                                    swap=swap, reduction=reduction)(a, p, n)
        loss.sum().backward()
        results.append((loss.detach().numpy(), a.grad.numpy(), p.grad.numpy(), n.grad.numpy()))
    for mine, real in zip(*results):
        np.testing.assert_allclose(mine, real, atol=1e-12)
    default_ours = nn.TripletMarginWithDistanceLoss(margin=2.0)
    default_theirs = torch.nn.TripletMarginWithDistanceLoss(margin=2.0)
    assert repr(default_ours) == repr(default_theirs)
    assert list(default_ours.state_dict()) == list(default_theirs.state_dict())


# ----------------------------------------------------------------------------------------
# CTC
# ----------------------------------------------------------------------------------------
CTC_CASES = [  # (targets, input lengths, target lengths)
    (np.array([[1, 2, 2], [3, 1, 0], [4, 4, 4]]), [6, 5, 6], [3, 2, 3]),   # repeats need blanks
    (np.array([1, 2, 2, 3, 1, 4]), [6, 5, 4], [3, 2, 1]),                  # concatenated
    (np.array([[1, 1, 1], [3, 1, 0], [2, 0, 0]]), [2, 2, 6], [3, 2, 0]),   # impossible, empty
]


def ctc_logits(lib, seed=0):
    return lib.tensor(np.random.default_rng(seed).standard_normal((6, 3, 5)), requires_grad=True)


@pytest.mark.parametrize("targets,input_lengths,target_lengths", CTC_CASES[:2])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_ctc_gradcheck(targets, input_lengths, target_lengths, reduction):
    # (through log_softmax: the gradient ctc_loss gives log_probs is PyTorch's, the true
    # derivative plus exp(log_probs)·grad, which log_softmax's backward removes)
    logits = ctc_logits(teachgrad)
    assert gradcheck(lambda x: F.ctc_loss(x.log_softmax(2), teachgrad.tensor(targets),
                                          teachgrad.tensor(input_lengths),
                                          teachgrad.tensor(target_lengths),
                                          reduction=reduction), (logits,))


def test_ctc_gradient_of_a_leaf_log_probs_is_pytorchs():
    # Two steps, classes {blank, a} at 50 %: "a" is spelled by a a, a _ and _ a (p = 3/4).
    # The true derivative of -log p in log y_t(k) is -(share of p through y_t(k)): at each
    # step 2/3 through a, 1/3 through blank. PyTorch's gradient adds y_t(k) = 1/2.
    log_probs = teachgrad.full((2, 1, 2), 0.5, dtype=teachgrad.float64).log().requires_grad_()
    F.ctc_loss(log_probs, teachgrad.tensor([[1]]), [2], [1], reduction="sum").backward()
    assert log_probs.grad.flatten().tolist() == pytest.approx(
        [0.5 - 1 / 3, 0.5 - 2 / 3, 0.5 - 1 / 3, 0.5 - 2 / 3])


def test_ctc_hand_computed():
    # Two steps, classes {blank, a} at 50 % each: a a, a _ and _ a spell "a": p = 3/4.
    log_probs = teachgrad.full((2, 1, 2), 0.5).log()
    loss = F.ctc_loss(log_probs, teachgrad.tensor([[1]]), [2], [1], reduction="sum")
    assert loss.item() == pytest.approx(-np.log(0.75))
    # Too short an input for "aa" (it needs a blank between): impossible, inf or zero.
    args = (log_probs, teachgrad.tensor([[1, 1]]), [2], [2])
    assert F.ctc_loss(*args, reduction="sum").item() == np.inf
    assert F.ctc_loss(*args, reduction="sum", zero_infinity=True).item() == 0.0


def test_ctc_one_sample_targets_are_its_labels_one_after_the_other():
    # As PyTorch, unbatched 1-d targets are not padded rows: their length must be the
    # target length (before, [1, 1] with target length 1 was read as the padded row [1]).
    log_probs = teachgrad.full((2, 2), 0.5).log()
    with pytest.raises(RuntimeError, match="Expected tensor to have size 1 at dimension 0, "
                                           "but got size 2 for argument #2 'targets'"):
        F.ctc_loss(log_probs, teachgrad.tensor([1, 1]), 2, 1)
    loss = F.ctc_loss(log_probs, teachgrad.tensor([1]), 2, 1, reduction="sum")
    assert loss.item() == pytest.approx(-np.log(0.75))   # as test_ctc_hand_computed
    padded = F.ctc_loss(log_probs, teachgrad.tensor([[1, 1]]), 2, 1, reduction="sum")
    assert padded.item() == pytest.approx(-np.log(0.75))  # a 2-d row may be padded


def test_ctc_second_order_is_refused_clearly():
    log_probs = ctc_logits(teachgrad).log_softmax(2)
    loss = F.ctc_loss(log_probs, teachgrad.tensor(CTC_CASES[0][0]), CTC_CASES[0][1],
                      CTC_CASES[0][2])
    (g,) = teachgrad.autograd.grad(loss, log_probs, create_graph=True)
    with pytest.raises(RuntimeError, match="'_ctc_loss_backward' is not implemented"):
        g.sum().backward()


@pytest.mark.torch
@pytest.mark.parametrize("targets,input_lengths,target_lengths", CTC_CASES)
@pytest.mark.parametrize("reduction,zero_infinity", [("mean", False), ("sum", True),
                                                     ("none", False), ("none", True)])
def test_ctc_matches_pytorch_through_log_softmax(targets, input_lengths, target_lengths,
                                                 reduction, zero_infinity):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (teachgrad, torch):
        logits = ctc_logits(lib, seed=1)
        loss = lib.nn.CTCLoss(reduction=reduction, zero_infinity=zero_infinity)(
            logits.log_softmax(2), lib.tensor(targets), lib.tensor(np.array(input_lengths)),
            lib.tensor(np.array(target_lengths)))
        (loss.sum() if loss.ndim else loss).backward()
        results.append((type(loss.grad_fn).__name__, loss.detach().numpy(), logits.grad.numpy()))
    assert results[0][0] == results[1][0]
    for mine, real in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(mine, real, atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("targets,input_lengths,target_lengths", CTC_CASES)
@pytest.mark.parametrize("reduction,zero_infinity", [("mean", False), ("sum", True),
                                                     ("none", False)])
def test_ctc_leaf_log_probs_gradient_matches_pytorch(targets, input_lengths, target_lengths,
                                                     reduction, zero_infinity):
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (teachgrad, torch):
        log_probs = ctc_logits(lib, seed=2).log_softmax(2).detach().requires_grad_()
        loss = lib.nn.functional.ctc_loss(
            log_probs, lib.tensor(targets), lib.tensor(np.array(input_lengths)),
            lib.tensor(np.array(target_lengths)), reduction=reduction,
            zero_infinity=zero_infinity)
        (loss.sum() if loss.ndim else loss).backward()
        grads.append(log_probs.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-12)


@pytest.mark.torch
def test_ctc_errors_and_repr_match_pytorch():
    torch = pytest.importorskip("torch")
    t, il, tl = np.array([[1, 2, 2], [3, 1, 0]]), np.array([6, 5]), np.array([3, 2])
    cases = [
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor(t), lib.tensor([7, 5]),
                                                   lib.tensor(tl)),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor(t), lib.tensor(il),
                                                   lib.tensor([4, 2])),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor(t), lib.tensor(il[:1]),
                                                   lib.tensor(tl)),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor(t), lib.tensor(il),
                                                   lib.tensor(tl), blank=5),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor([1, 2, 2, 3]),
                                                   lib.tensor(il), lib.tensor(tl)),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor(t), lib.tensor(il),
                                                   lib.tensor(tl), reduction="foo"),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor(t), lib.tensor(il).float(),
                                                   lib.tensor(tl)),
    ]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            case(torch, torch.zeros(6, 2, 5))
        with pytest.raises(type(theirs.value)) as ours:
            case(teachgrad, teachgrad.zeros(6, 2, 5))
        assert str(ours.value).split("\nHint:")[0] == str(theirs.value)
    for kwargs in ({}, {"blank": 3, "zero_infinity": True, "reduction": "sum"}):
        assert repr(nn.CTCLoss(**kwargs)) == repr(torch.nn.CTCLoss(**kwargs))


# ----------------------------------------------------------------------------------------
# Pixel and channel shuffles
# ----------------------------------------------------------------------------------------
SHUFFLES = [("pixel_shuffle", (2, 8, 3, 2), 2), ("pixel_shuffle", (2, 1, 9, 2, 1), 3),
            ("pixel_unshuffle", (2, 3, 4, 6), 2), ("channel_shuffle", (2, 6, 2), 3),
            ("channel_shuffle", (1, 8, 2, 1, 2), 4)]


@pytest.mark.parametrize("name,shape,factor", SHUFFLES)
def test_shuffle_gradchecks(name, shape, factor):
    x = teachgrad.tensor(np.random.default_rng(6).standard_normal(shape), requires_grad=True)
    shuffle = getattr(F, name)
    assert gradcheck(lambda x: shuffle(x, factor), (x,))
    assert gradgradcheck(lambda x: shuffle(x, factor) ** 2, (x,))


def test_shuffles_are_inverted():
    x = teachgrad.arange(72.0).reshape(2, 4, 3, 3)
    assert F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2).equal(x)
    # Interleaving 2 groups of 2 channels swaps the middle two; doing it again undoes it.
    assert F.channel_shuffle(x, 2)[0, :, 0, 0].tolist() == [0.0, 18.0, 9.0, 27.0]
    assert F.channel_shuffle(F.channel_shuffle(x, 2), 2).equal(x)


@pytest.mark.torch
@pytest.mark.parametrize("name,shape,factor", SHUFFLES)
def test_shuffles_match_pytorch(name, shape, factor):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(7).standard_normal(shape)
    results = []
    for lib in (teachgrad, torch):
        x = lib.tensor(data, requires_grad=True)
        out = getattr(lib.nn.functional, name)(x, factor)
        out.backward(lib.tensor(np.arange(float(out.numel())).reshape(tuple(out.shape))))
        results.append((type(out.grad_fn).__name__, out.detach().numpy(), x.grad.numpy()))
    assert results[0][0] == results[1][0]
    for mine, real in zip(results[0][1:], results[1][1:]):
        np.testing.assert_array_equal(mine, real)


@pytest.mark.torch
def test_shuffle_errors_and_reprs_match_pytorch():
    torch = pytest.importorskip("torch")
    cases = [("pixel_shuffle", (1, 8, 2, 2), 3), ("pixel_shuffle", (4, 4), 2),
             ("pixel_shuffle", (1, 8, 2, 2), 0), ("pixel_unshuffle", (1, 8, 2, 2), 3),
             ("pixel_unshuffle", (1, 8, 4, 2), 4), ("pixel_unshuffle", (4, 4), 2),
             ("pixel_unshuffle", (1, 8, 2, 2), 0), ("channel_shuffle", (1, 8, 2, 2), 3),
             ("channel_shuffle", (1, 8, 2, 2), 0), ("channel_shuffle", (4,), 2)]
    for name, shape, factor in cases:
        with pytest.raises(Exception) as theirs:
            getattr(torch.nn.functional, name)(torch.zeros(shape), factor)
        with pytest.raises(type(theirs.value)) as ours:
            getattr(F, name)(teachgrad.zeros(shape), factor)
        assert str(ours.value) == str(theirs.value)
    for name in ("PixelShuffle", "PixelUnshuffle", "ChannelShuffle"):
        assert repr(getattr(nn, name)(3)) == repr(getattr(torch.nn, name)(3))


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import ctc, embedding_bag, losses, pixel_shuffle
    from teachgrad.nn.modules import loss, pixelshuffle, sparse

    for module in (ctc, embedding_bag, losses, sparse, loss, pixel_shuffle, pixelshuffle):
        assert doctest.testmod(module).failed == 0
