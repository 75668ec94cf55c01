"""The losses beyond the classic ones (smooth_l1, huber, kl_div, margins, embeddings,
Gaussian and Poisson NLL) and F.cosine_similarity / pairwise_distance / normalize:
gradients by finite differences (first and second order), values derived by hand,
argument errors, modules; with torch installed, values, gradients, grad_fn names and
error messages equal to PyTorch's."""

from __future__ import annotations

import doctest
import math
import warnings

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)
N, C = 5, 4
X = RNG.normal(size=(N, C))
Y = RNG.normal(size=(N, C))
Z = RNG.normal(size=(N, C))
P = RNG.uniform(0.2, 2.0, size=(N, C))  # positive: variances, rates, distances
LABELS = RNG.choice([-1.0, 1.0], size=N)
LABELS_2D = RNG.choice([-1.0, 1.0], size=(N, C))
CLASSES = RNG.integers(0, C, size=N)
MULTI = (RNG.uniform(size=(N, C)) > 0.5).astype(float)
WEIGHT = RNG.uniform(0.5, 2.0, size=C)
COUNTS = RNG.poisson(3, size=(N, C)).astype(float)
REDUCTIONS = ["mean", "sum", "none"]


def constants(lib):
    """The non-differentiable arguments, as tensors of ``lib`` (teachgrad or torch)."""
    return {
        "labels": lib.tensor(LABELS), "labels_2d": lib.tensor(LABELS_2D),
        "classes": lib.tensor(CLASSES), "multi": lib.tensor(MULTI),
        "weight": lib.tensor(WEIGHT), "counts": lib.tensor(COUNTS),
    }


# name -> (call(F, k, x, y, z, p, reduction), which of x, y, z, p are differentiated)
CASES = {
    "smooth_l1": (lambda F, k, x, y, z, p, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.7),
                  "xy"),
    "smooth_l1_beta0": (lambda F, k, x, y, z, p, r: F.smooth_l1_loss(x, y, reduction=r,
                                                                     beta=0.0), "xy"),
    "huber": (lambda F, k, x, y, z, p, r: F.huber_loss(x, y, reduction=r, delta=0.6), "xy"),
    "huber_weighted": (lambda F, k, x, y, z, p, r: F.huber_loss(x, y, reduction=r, delta=0.6,
                                                                weight=p), "xyp"),
    "kl_div": (lambda F, k, x, y, z, p, r: F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1),
                                                    reduction=r), "xy"),
    "kl_div_log_target": (lambda F, k, x, y, z, p, r: F.kl_div(
        F.log_softmax(x, 1), F.log_softmax(y, 1), reduction=r, log_target=True), "xy"),
    "cosine_embedding": (lambda F, k, x, y, z, p, r: F.cosine_embedding_loss(
        x, y, k["labels"], margin=0.2, reduction=r), "xy"),
    "margin_ranking": (lambda F, k, x, y, z, p, r: F.margin_ranking_loss(
        x[:, 0], y[:, 0], k["labels"], margin=0.3, reduction=r), "xy"),
    "hinge_embedding": (lambda F, k, x, y, z, p, r: F.hinge_embedding_loss(
        p, k["labels_2d"], margin=0.8, reduction=r), "p"),
    "soft_margin": (lambda F, k, x, y, z, p, r: F.soft_margin_loss(x, k["labels_2d"],
                                                                   reduction=r), "x"),
    "multi_margin": (lambda F, k, x, y, z, p, r: F.multi_margin_loss(x, k["classes"],
                                                                     reduction=r), "x"),
    "multi_margin_p2_weighted": (lambda F, k, x, y, z, p, r: F.multi_margin_loss(
        x, k["classes"], p=2, margin=0.7, weight=k["weight"], reduction=r), "x"),
    "multilabel_soft_margin": (lambda F, k, x, y, z, p, r: F.multilabel_soft_margin_loss(
        x, k["multi"], weight=k["weight"], reduction=r), "x"),
    "triplet": (lambda F, k, x, y, z, p, r: F.triplet_margin_loss(x, y, z, reduction=r),
                "xyz"),
    "triplet_swap_p1": (lambda F, k, x, y, z, p, r: F.triplet_margin_loss(
        x, y, z, margin=2.0, p=1, swap=True, reduction=r), "xyz"),
    "gaussian_nll": (lambda F, k, x, y, z, p, r: F.gaussian_nll_loss(x, y, p, reduction=r),
                     "xyp"),
    "gaussian_nll_full_one_var_per_sample": (lambda F, k, x, y, z, p, r: F.gaussian_nll_loss(
        x, y, p[:, 0], full=True, reduction=r), "xyp"),
    "poisson_nll": (lambda F, k, x, y, z, p, r: F.poisson_nll_loss(x, k["counts"],
                                                                   reduction=r), "x"),
    "poisson_nll_rates_full": (lambda F, k, x, y, z, p, r: F.poisson_nll_loss(
        p, k["counts"], log_input=False, full=True, reduction=r), "p"),
    "cosine_similarity": (lambda F, k, x, y, z, p, r: F.cosine_similarity(x, y), "xy"),
    "cosine_similarity_dim0_broadcast": (lambda F, k, x, y, z, p, r: F.cosine_similarity(
        x, y[:1], dim=0), "xy"),
    "pairwise_distance": (lambda F, k, x, y, z, p, r: F.pairwise_distance(x, y, p=3.0), "xy"),
    "pairwise_distance_keepdim": (lambda F, k, x, y, z, p, r: F.pairwise_distance(
        x, y, keepdim=True), "xy"),
    "normalize": (lambda F, k, x, y, z, p, r: F.normalize(x), "x"),
    "normalize_p1_dim0": (lambda F, k, x, y, z, p, r: F.normalize(x, p=1.0, dim=0), "x"),
}
REDUCED = [name for name in CASES if not name.startswith(("cosine_sim", "pairwise", "norm"))]
# Every reduction for the losses; the distances have no reduction argument.
WITH_REDUCTION = [(name, r) for name in CASES for r in (REDUCTIONS if name in REDUCED
                                                         else ["mean"])]


def leaves(lib, which, dtype="float64"):
    return [lib.tensor(a.astype(dtype), requires_grad=name in which)
            for name, a in zip("xyzp", (X, Y, Z, P))]


@pytest.mark.parametrize("name,reduction", WITH_REDUCTION)
def test_gradcheck_and_gradgradcheck(name, reduction):
    call, which = CASES[name]
    k = constants(teachgrad)
    inputs = leaves(teachgrad, which)
    varying = [t for t in inputs if t.requires_grad]

    def fn(*args):
        it = iter(args)
        full = [next(it) if t.requires_grad else t for t in inputs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # kl_div's 'mean' warning
            return call(F, k, *full, reduction)

    assert gradcheck(fn, varying)
    assert gradgradcheck(fn, varying)


# ----------------------------------------------------------------------------------------
# Values by hand
# ----------------------------------------------------------------------------------------
def test_docstring_examples():
    from teachgrad.nn import distance, losses

    for module in (losses, distance):
        assert doctest.testmod(module).failed == 0, module.__name__


def t(values):
    return teachgrad.tensor(values, dtype=teachgrad.float64)


def test_smooth_l1_and_huber_by_hand():
    d = t([0.2, -0.5, 1.5, -3.0])
    # beta 1: 0.5·d² inside, |d| − 0.5 outside.
    np.testing.assert_allclose(F.smooth_l1_loss(d, t([0, 0, 0, 0]), reduction="none").numpy(),
                               [0.02, 0.125, 1.0, 2.5])
    # delta 2: 0.5·d² inside, 2·(|d| − 1) outside.
    np.testing.assert_allclose(F.huber_loss(d, t([0, 0, 0, 0]), delta=2.0,
                                            reduction="none").numpy(),
                               [0.02, 0.125, 1.125, 4.0])
    # The gradient: d/β inside, sign(d) outside; the mean divides by 4.
    x = teachgrad.tensor([0.2, -3.0], dtype=teachgrad.float64, requires_grad=True)
    F.smooth_l1_loss(x, t([0.0, 0.0]), beta=0.5).backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.2 / 0.5 / 2, -1 / 2])
    assert F.smooth_l1_loss(x, t([0.0, 0.0])).grad_fn.name() == "SmoothL1LossBackward0"
    assert F.huber_loss(x, t([0.0, 0.0])).grad_fn.name() == "HuberLossBackward0"


def test_kl_div_reductions_and_warning():
    p = t([[0.25, 0.75], [0.5, 0.5]])
    q = t([[0.5, 0.5], [0.9, 0.1]])
    terms = (p * (p.log() - q.log())).numpy()
    with pytest.warns(UserWarning, match=r"^reduction: 'mean' divides the total loss by both "
                      r"the batch size and the support size.'batchmean' divides only"):
        mean = F.kl_div(q.log(), p)
    assert mean.item() == pytest.approx(terms.mean())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning for the others
        assert F.kl_div(q.log(), p, reduction="batchmean").item() == pytest.approx(
            terms.sum() / 2)
        assert F.kl_div(q.log(), p.log(), reduction="sum", log_target=True).item() == (
            pytest.approx(terms.sum()))
        np.testing.assert_allclose(F.kl_div(q.log(), p, reduction="none").numpy(), terms)
    # 0 · log 0 counts as 0 (xlogy): a target with a zero is fine.
    assert F.kl_div(t([0.0, 0.0]), t([0.0, 1.0]), reduction="sum").item() == 0.0


def test_margin_losses_by_hand():
    # margin ranking: max(0, −y·(x1 − x2) + margin)
    out = F.margin_ranking_loss(t([3.0, 1.0, 1.0]), t([1.0, 3.0, 1.0]), t([1.0, 1.0, -1.0]),
                                margin=0.5, reduction="none")
    np.testing.assert_allclose(out.numpy(), [0.0, 2.5, 0.5])
    # hinge embedding: x where y = 1, max(0, margin − x) where y = −1
    out = F.hinge_embedding_loss(t([0.5, 0.5, 3.0]), t([1.0, -1.0, -1.0]), margin=2.0,
                                 reduction="none")
    np.testing.assert_allclose(out.numpy(), [0.5, 1.5, 0.0])
    # multi margin: sample of class 0 with scores [1, 0.5, 2]: (1 − 1 + 0.5)+(1 − 1 + 2) / 3
    out = F.multi_margin_loss(t([[1.0, 0.5, 2.0]]), teachgrad.tensor([0]))
    assert out.item() == pytest.approx((0.5 + 2.0) / 3)
    out = F.multi_margin_loss(t([1.0, 0.5, 2.0]), teachgrad.tensor(0), p=2, reduction="none",
                              weight=t([2.0, 1.0, 1.0]))
    assert out.shape == () and out.item() == pytest.approx(2.0 * (0.25 + 4.0) / 3)
    # soft margin: log(1 + e^(−y·x))
    out = F.soft_margin_loss(t([0.0, 2.0]), t([1.0, -1.0]), reduction="none")
    np.testing.assert_allclose(out.numpy(), [math.log(2), math.log(1 + math.e**2)])


def test_soft_margin_stays_finite_where_pytorch_overflows():
    x = teachgrad.tensor([-1000.0, 1000.0], requires_grad=True)
    loss = F.soft_margin_loss(x, teachgrad.tensor([1.0, 1.0]), reduction="sum")
    assert loss.item() == pytest.approx(1000.0)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [-1.0, 0.0])


def test_embedding_losses_by_hand():
    a = t([[1.0, 0.0], [1.0, 0.0]])
    b = t([[1.0, 1.0], [-1.0, 0.0]])
    cos = np.array([1 / math.sqrt(2), -1.0])
    np.testing.assert_allclose(F.cosine_similarity(a, b).numpy(), cos)
    out = F.cosine_embedding_loss(a, b, t([1.0, -1.0]), margin=-0.5, reduction="none")
    np.testing.assert_allclose(out.numpy(), [1 - cos[0], 0.0 + max(0, -1 + 0.5)], atol=1e-12)
    np.testing.assert_allclose(F.pairwise_distance(a, b, eps=0).numpy(), [1.0, 2.0])
    np.testing.assert_allclose(F.pairwise_distance(a, b, p=1, eps=0).numpy(), [1.0, 2.0])
    # triplet: max(0, d(a, p) − d(a, n) + margin), d with eps = 0
    out = F.triplet_margin_loss(t([[0.0, 0.0]]), t([[3.0, 4.0]]), t([[0.0, 1.0]]), eps=0,
                                margin=1.0, reduction="sum")
    assert out.item() == pytest.approx(5.0)
    swapped = F.triplet_margin_loss(t([[0.0, 0.0]]), t([[3.0, 4.0]]), t([[3.0, 3.0]]), eps=0,
                                    swap=True, reduction="sum")
    assert swapped.item() == pytest.approx(5.0 - 1.0 + 1.0)  # d(p, n) = 1 < d(a, n)
    np.testing.assert_allclose(F.normalize(t([[3.0, -4.0]]), p=1).numpy(), [[3 / 7, -4 / 7]])


def test_cosine_similarity_of_a_zero_vector_is_zero_with_finite_gradient():
    x = teachgrad.zeros(1, 3, dtype=teachgrad.float64, requires_grad=True)
    y = teachgrad.tensor([[1.0, 2.0, 2.0]], dtype=teachgrad.float64, requires_grad=True)
    out = F.cosine_similarity(x, y)
    assert out.item() == 0.0
    out.backward()
    assert np.isfinite(x.grad.numpy()).all() and np.isfinite(y.grad.numpy()).all()


def test_gaussian_and_poisson_nll_by_hand():
    mean, target, var = t([1.0, 0.0]), t([3.0, 0.5]), t([4.0, 1e-9])
    # var is clamped to eps = 1e-6 for the second element.
    expected = 0.5 * np.array([math.log(4) + 4 / 4, math.log(1e-6) + 0.25 / 1e-6])
    np.testing.assert_allclose(F.gaussian_nll_loss(mean, target, var, reduction="none").numpy(),
                               expected)
    full = F.gaussian_nll_loss(mean, target, var, full=True, reduction="sum")
    assert full.item() == pytest.approx(expected.sum() + math.log(2 * math.pi))
    # a float var is one variance for all elements
    assert F.gaussian_nll_loss(mean, target, 4.0).item() == pytest.approx(
        np.mean(0.5 * (math.log(4) + np.array([4.0, 0.25]) / 4)))
    # poisson: e^x − y·x (log input); x − y·log(x + eps); Stirling for y > 1
    np.testing.assert_allclose(
        F.poisson_nll_loss(t([0.0, 1.0]), t([2.0, 3.0]), reduction="none").numpy(),
        [1.0, math.e - 3.0])
    y = 3.0
    stirling = y * math.log(y) - y + 0.5 * math.log(2 * math.pi * y)
    out = F.poisson_nll_loss(t([2.0, 2.0]), t([3.0, 1.0]), log_input=False, full=True,
                             eps=0.0, reduction="none")
    np.testing.assert_allclose(out.numpy(), [2 - 3 * math.log(2) + stirling, 2 - math.log(2)])


def test_multilabel_soft_margin_is_mean_bce_with_logits_over_labels():
    x, target = t(X), t(MULTI)
    expected = F.binary_cross_entropy_with_logits(x, target, reduction="none").mean(1)
    np.testing.assert_allclose(
        F.multilabel_soft_margin_loss(x, target, reduction="none").numpy(), expected.numpy())


def test_smooth_l1_warns_about_broadcasting():
    with pytest.warns(UserWarning, match="Using a target size"):
        F.smooth_l1_loss(teachgrad.zeros(3, 1), teachgrad.zeros(3))


# ----------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------
x32, y32 = teachgrad.randn(4, 3), teachgrad.randn(4, 3)
ERRORS = [
    (lambda F, lib: F.smooth_l1_loss(lib.zeros(2), lib.zeros(2), beta=-1), RuntimeError,
     "smooth_l1_loss does not support negative values for beta."),
    (lambda F, lib: F.huber_loss(lib.zeros(2), lib.zeros(2), delta=0), RuntimeError,
     "huber_loss does not support non-positive values for delta."),
    (lambda F, lib: F.smooth_l1_loss(lib.zeros(2), lib.zeros(2), reduction="avg"), ValueError,
     "avg is not a valid value for reduction"),
    (lambda F, lib: F.kl_div(lib.zeros(2), lib.zeros(2), reduction="avg"), ValueError,
     "avg is not a valid value for reduction"),
    (lambda F, lib: F.multi_margin_loss(lib.zeros(4, 3), lib.tensor([0, 1, 2, 3])),
     RuntimeError, "target out of range"),
    (lambda F, lib: F.multi_margin_loss(lib.zeros(4, 3), lib.tensor([0, 1, 2])), RuntimeError,
     "multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
     "samples (batch size). Expected target size [4], but got [3]. Input has shape [4, 3]."),
    (lambda F, lib: F.multi_margin_loss(lib.zeros(4, 3), lib.tensor([0.0, 1, 2, 1])),
     RuntimeError, "expected scalar type Long but found Float"),
    (lambda F, lib: F.multi_margin_loss(lib.zeros(4, 3), lib.tensor([0, 1, 2, 1]), p=3),
     ValueError, "only p == 1 and p == 2 supported"),
    (lambda F, lib: F.multi_margin_loss(lib.zeros(4, 3), lib.tensor([0, 1, 2, 1]),
                                        weight=lib.ones(2)), RuntimeError,
     "inconsistent weight size, expected 3 but got [2]"),
    (lambda F, lib: F.multi_margin_loss(lib.zeros(4, 3), lib.tensor([0, 1, 2, 1]),
                                        weight=lib.ones(3, 1)), ValueError,
     "weight must be one-dimensional"),
    (lambda F, lib: F.multi_margin_loss(lib.zeros(2, 3, 4), lib.tensor([0, 1])), RuntimeError,
     "Expected non-empty vector or matrix with optional 0-dim batch size, but got: [2, 3, 4]"),
    (lambda F, lib: F.multi_margin_loss(lib.zeros(4, 3), lib.tensor([0, 1, 2, 1]),
                                        weight=lib.ones(3, requires_grad=True)), RuntimeError,
     "The function 'multi_margin_loss' is not differentiable with respect to argument "
     "'weight'. This input cannot have requires_grad True."),
    (lambda F, lib: F.soft_margin_loss(lib.zeros(2), lib.ones(2, requires_grad=True)),
     RuntimeError, "The function 'soft_margin_loss' is not differentiable with respect to "
     "argument 'target'. This input cannot have requires_grad True."),
    (lambda F, lib: F.cosine_embedding_loss(lib.zeros(4, 3), lib.zeros(4, 3), lib.ones(4, 1)),
     RuntimeError, "0D or 1D target tensor expected, multi-target not supported"),
    (lambda F, lib: F.cosine_embedding_loss(lib.zeros(3), lib.zeros(3), lib.ones(4)),
     RuntimeError, "1D target tensor expects 2D input tensors, but found inputs with sizes "
     "[3] and [3]."),
    (lambda F, lib: F.cosine_embedding_loss(lib.zeros(4, 3), lib.zeros(4, 3), lib.tensor(1.0)),
     RuntimeError, "0D target tensor expects 1D input tensors, but found inputs with sizes "
     "[4, 3] and [4, 3]."),
    (lambda F, lib: F.triplet_margin_loss(lib.zeros(4, 3), lib.zeros(4, 3), lib.zeros(3)),
     RuntimeError, "The anchor, positive, and negative tensors are expected to have the same "
     "number of dimensions, but got: anchor 2D, positive 2D, and negative 1D inputs"),
    (lambda F, lib: F.triplet_margin_loss(lib.zeros(3), lib.zeros(3), lib.zeros(3), margin=0),
     ValueError, "margin must be greater than 0, got 0"),
    (lambda F, lib: F.gaussian_nll_loss(lib.zeros(4, 3), lib.zeros(4, 3), -lib.ones(4, 3)),
     ValueError, "var has negative entry/entries"),
    (lambda F, lib: F.gaussian_nll_loss(lib.zeros(4, 3), lib.zeros(4, 3), -1.0), ValueError,
     "var has negative entry/entries"),
    (lambda F, lib: F.gaussian_nll_loss(lib.zeros(4, 3), lib.zeros(4, 3), lib.ones(4, 3),
                                        reduction="avg"), ValueError, "avg is not valid"),
    (lambda F, lib: F.poisson_nll_loss(lib.zeros(2), lib.zeros(2), reduction="avg"),
     ValueError, "avg is not a valid value for reduction"),
    (lambda F, lib: F.multilabel_soft_margin_loss(lib.zeros(2, 2), lib.zeros(2, 2),
                                                  reduction="avg"),
     ValueError, "avg is not valid"),
    (lambda F, lib: F.hinge_embedding_loss(lib.zeros(2), lib.zeros(2), reduction="avg"),
     ValueError, "avg is not a valid value for reduction"),
    (lambda F, lib: F.cosine_similarity(lib.zeros(4, 3).long(), lib.zeros(4, 3).long()),
     RuntimeError, "expected common dtype to be floating point, yet common dtype is Long"),
    (lambda F, lib: F.pairwise_distance(lib.zeros(4, 3), lib.zeros(4, 2)), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
     "dimension 1"),
    (lambda F, lib: F.smooth_l1_loss(lib.zeros(2).long(), lib.zeros(2).long()),
     NotImplementedError, "\"smooth_l1_cpu\" not implemented for 'Long'"),
    (lambda F, lib: lib.nn.TripletMarginLoss(margin=0), ValueError,
     "TripletMarginLoss: expected margin to be greater than 0, got 0 instead"),
    (lambda F, lib: lib.nn.MultiMarginLoss(weight=lib.ones(2, 2)), ValueError,
     "MultiMarginLoss: expected weight to be None or 1D tensor, got 2D instead"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    call, error, message = ERRORS[index]
    with pytest.raises(error) as info:
        call(F, teachgrad)
    # PyTorch's sentence first; a teaching hint may follow on its own line.
    assert str(info.value).split("\nHint: ")[0] == message


# ----------------------------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------------------------
MODULES = {
    "SmoothL1Loss": dict(beta=0.5), "HuberLoss": dict(delta=2.0),
    "KLDivLoss": dict(reduction="batchmean", log_target=True),
    "GaussianNLLLoss": dict(full=True, eps=1e-3), "PoissonNLLLoss": dict(log_input=False),
    "MarginRankingLoss": dict(margin=0.2), "CosineEmbeddingLoss": dict(margin=0.1),
    "HingeEmbeddingLoss": dict(margin=2.0), "TripletMarginLoss": dict(p=1.0, swap=True),
    "SoftMarginLoss": dict(reduction="sum"), "MultiMarginLoss": dict(p=2, margin=0.5),
    "MultiLabelSoftMarginLoss": dict(reduction="none"), "CosineSimilarity": dict(dim=0),
    "PairwiseDistance": dict(p=1.0, keepdim=True),
}


def module_inputs(name, lib):
    k = constants(lib)
    x, y, z, p = (lib.tensor(a) for a in (X, Y, Z, P))
    return {
        "GaussianNLLLoss": (x, y, p), "PoissonNLLLoss": (p, k["counts"]),
        "MarginRankingLoss": (x[:, 0], y[:, 0], k["labels"]),
        "CosineEmbeddingLoss": (x, y, k["labels"]), "HingeEmbeddingLoss": (p, k["labels_2d"]),
        "TripletMarginLoss": (x, y, z), "SoftMarginLoss": (x, k["labels_2d"]),
        "MultiMarginLoss": (x, k["classes"]), "MultiLabelSoftMarginLoss": (x, k["multi"]),
        "KLDivLoss": (F.log_softmax(x, 1) if lib is teachgrad
                      else lib.nn.functional.log_softmax(x, 1), y),
    }.get(name, (x, y))


@pytest.mark.parametrize("name", MODULES)
def test_modules_call_their_function(name):
    module = getattr(nn, name)(**MODULES[name])
    assert name in nn.__all__
    out = module(*module_inputs(name, teachgrad))
    assert out.dtype == teachgrad.float64
    assert repr(module) == name + "()"
    assert list(module.state_dict()) == []


def test_weighted_losses_keep_their_weight_as_a_buffer():
    weight = teachgrad.tensor(WEIGHT)
    for name in ("MultiMarginLoss", "MultiLabelSoftMarginLoss"):
        module = getattr(nn, name)(weight=weight)
        assert list(module.state_dict()) == ["weight"]
        inputs = module_inputs(name, teachgrad)
        expected = getattr(F, {"MultiMarginLoss": "multi_margin_loss",
                               "MultiLabelSoftMarginLoss": "multilabel_soft_margin_loss"}[name])(
            *inputs, weight=weight)
        assert module(*inputs).item() == expected.item()


def test_functional_exports():
    for name in ("smooth_l1_loss", "huber_loss", "kl_div", "gaussian_nll_loss",
                 "poisson_nll_loss", "margin_ranking_loss", "hinge_embedding_loss",
                 "cosine_embedding_loss", "triplet_margin_loss", "soft_margin_loss",
                 "multi_margin_loss", "multilabel_soft_margin_loss", "cosine_similarity",
                 "pairwise_distance", "normalize"):
        assert name in F.__all__ and callable(getattr(F, name))
    assert not {"np", "math", "warnings"} & set(F.__all__)


# ----------------------------------------------------------------------------------------
# Against real PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,reduction", WITH_REDUCTION)
def test_matches_torch(name, reduction, dtype):
    torch = pytest.importorskip("torch")
    call, which = CASES[name]
    results = []
    for lib, functional in ((teachgrad, F), (torch, torch.nn.functional)):
        inputs = leaves(lib, which, dtype)
        k = {key: (v.to(getattr(lib, dtype)) if v.is_floating_point() else v)
             for key, v in constants(lib).items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call(functional, k, *inputs, reduction)
        varying = [t for t in inputs if t.requires_grad]
        grads = lib.autograd.grad(out.sum(), varying)
        results.append((out, grads))
    (ours, ours_grads), (theirs, theirs_grads) = results
    tolerance = dict(rtol=1e-12, atol=1e-14) if dtype == "float64" else dict(rtol=2e-5,
                                                                             atol=1e-6)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), **tolerance)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    for g, h in zip(ours_grads, theirs_grads):
        np.testing.assert_allclose(g.numpy(), h.numpy(), **tolerance)


@pytest.mark.torch
@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index):
    torch = pytest.importorskip("torch")
    call, error, message = ERRORS[index]
    with pytest.raises(error) as info:
        call(torch.nn.functional, torch)
    assert str(info.value) == message


@pytest.mark.torch
def test_kl_div_warning_matches_torch():
    torch = pytest.importorskip("torch")
    messages = []
    for lib, functional in ((teachgrad, F), (torch, torch.nn.functional)):
        with pytest.warns(UserWarning) as record:
            functional.kl_div(lib.zeros(2, 2), lib.ones(2, 2) / 2)
        messages.append(str(record[0].message))
    assert messages[0] == messages[1]


@pytest.mark.torch
@pytest.mark.parametrize("name", MODULES)
def test_modules_match_torch(name):
    torch = pytest.importorskip("torch")
    ours = getattr(nn, name)(**MODULES[name])
    theirs = getattr(torch.nn, name)(**MODULES[name])
    assert repr(ours) == repr(theirs)
    public = {k: v for k, v in vars(theirs).items() if not k.startswith("_") and k != "training"}
    assert {k: getattr(ours, k) for k in public} == public
    np.testing.assert_allclose(ours(*module_inputs(name, teachgrad)).numpy(),
                               theirs(*module_inputs(name, torch)).numpy(), rtol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("kwargs", [
    dict(label_smoothing=0.2), dict(label_smoothing=0.3, weight=True, reduction="sum"),
    dict(label_smoothing=0.1, reduction="none"), dict(label_smoothing=0.25, weight=True),
])
@pytest.mark.parametrize("target", ["classes", "probabilities", "pixels"])
def test_cross_entropy_label_smoothing_and_probability_targets_match_torch(kwargs, target):
    """Label smoothing (with weights, ignore_index) and probability targets, which
    teachgrad already had: checked here against PyTorch once more."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(6, 4)) if target != "pixels" else rng.normal(size=(3, 4, 2, 2))
    classes = rng.integers(0, 4, size=6)
    classes[2] = -100
    probabilities = rng.dirichlet(np.ones(4), size=6)
    pixels = rng.integers(0, 4, size=(3, 2, 2))
    results = []
    for lib, functional in ((teachgrad, F), (torch, torch.nn.functional)):
        options = dict(kwargs)
        if options.pop("weight", False):
            options["weight"] = lib.tensor(WEIGHT)
        x = lib.tensor(logits, requires_grad=True)
        y = lib.tensor({"classes": classes, "probabilities": probabilities,
                        "pixels": pixels}[target])
        out = functional.cross_entropy(x, y, **options)
        results.append((out, lib.autograd.grad(out.sum(), [x])[0], out.grad_fn.name()))
    (ours, ours_grad, ours_name), (theirs, theirs_grad, theirs_name) = results
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours_grad.numpy(), theirs_grad.numpy(), rtol=1e-10,
                               atol=1e-15)
    assert ours_name == theirs_name
