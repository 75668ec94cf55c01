"""``F.linear_cross_entropy`` and ``nn.LinearCrossEntropyLoss``: linear + cross entropy."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import teachgrad as tg
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck

rng = np.random.default_rng(0)


def t(*shape, requires_grad=False):
    return tg.tensor(rng.standard_normal(shape), requires_grad=requires_grad)


def test_value_by_hand():
    x, w = tg.tensor([[1.0, 0.0]]), tg.tensor([[2.0, 0.0], [0.0, 0.0]])
    # scores (2, 0): -log(e² / (e² + 1))
    expected = -math.log(math.exp(2) / (math.exp(2) + 1))
    assert F.linear_cross_entropy(x, w, tg.tensor([0])).item() == pytest.approx(expected)


def test_equals_linear_then_cross_entropy():
    x, w, b = t(4, 3), t(5, 3), t(5)
    target = tg.tensor([0, 4, 2, 2])
    expected = F.cross_entropy(F.linear(x, w, b), target, label_smoothing=0.1,
                               reduction="sum")
    got = F.linear_cross_entropy(x, w, target, linear_bias=b, label_smoothing=0.1,
                                 reduction="sum")
    assert tg.allclose(got, expected)
    # K-dimensional: the weight (C, d1, in) gives logits (N, C, d1)
    w3, target3 = t(5, 2, 3), tg.tensor([[0, 1], [4, 4], [2, 3], [1, 1]])
    logits = F.linear(x, w3.reshape(10, 3)).reshape(4, 5, 2)
    assert tg.allclose(F.linear_cross_entropy(x, w3, target3), F.cross_entropy(logits, target3))


def test_gradcheck():
    x, w, b = t(4, 3, requires_grad=True), t(5, 3, requires_grad=True), t(5, requires_grad=True)
    target = tg.tensor([0, 4, 2, 2])
    assert gradcheck(lambda x, w, b: F.linear_cross_entropy(x, w, target, linear_bias=b),
                     (x, w, b))
    probabilities = tg.tensor(rng.dirichlet(np.ones(5), size=4))
    assert gradcheck(lambda x, w: F.linear_cross_entropy(x, w, probabilities), (x, w))


def test_errors():
    with pytest.raises(RuntimeError, match="expected input with dimensionality 1 or 2, got 3"):
        F.linear_cross_entropy(t(1, 2, 3), t(5, 3), tg.tensor([0]))
    with pytest.raises(RuntimeError, match="expected equal input and linear_weight last "
                                           "dimensions .* got 3 and 4, respectively"):
        F.linear_cross_entropy(t(2, 3), t(5, 4), tg.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="ignore_index cannot be specified when target "
                                           "contains probabilities"):
        F.linear_cross_entropy(t(2, 3), t(5, 3), tg.ones(2, 5) / 5, ignore_index=0)
    with pytest.raises(RuntimeError, match=r"expected linear_bias shape \(5,\), got \(4,\)"):
        F.linear_cross_entropy(t(2, 3), t(5, 3), tg.tensor([0, 1]), linear_bias=t(4))
    with pytest.raises(RuntimeError, match=r"expected weight shape to be \(10,\), got \(3,\)"):
        nn.LinearCrossEntropyLoss(5, 10, weight=tg.ones(3))


def test_options_keep_the_values_and_warn_like_torch():
    x, w, target = t(4, 3), t(5, 3), tg.tensor([0, 4, 2, 2])
    options = nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a supported configuration: no warning
        assert tg.allclose(F.linear_cross_entropy(x, w, target, options=options),
                           F.linear_cross_entropy(x, w, target))
    with pytest.warns(UserWarning, match="``options`` ignored; chunked path needs"):
        F.linear_cross_entropy(x, w, target, options=options, label_smoothing=0.1)


def test_module_parameters_and_forward():
    loss = nn.LinearCrossEntropyLoss(3, 5, out_features=(2,), bias=True)
    assert list(loss.state_dict()) == ["linear.weight", "linear.bias"]
    assert loss.linear.weight.shape == (10, 3)  # stored flat, as in PyTorch
    x, target = t(4, 3).float(), tg.tensor([[0, 1], [4, 4], [2, 3], [1, 1]])
    expected = F.linear_cross_entropy(x, loss.linear.weight.reshape(5, 2, 3), target,
                                      linear_bias=loss.linear.bias.reshape(5, 2))
    assert tg.allclose(loss(x, target), expected)


@pytest.mark.torch
def test_matches_torch():
    torch = pytest.importorskip("torch")
    configurations = [
        dict(),
        dict(out_features=(4, 3), reduction="none"),
        dict(bias=True, label_smoothing=0.2, ignore_index=1),
    ]
    for kwargs in configurations:
        ours = nn.LinearCrossEntropyLoss(5, 10, **kwargs).double()
        theirs = torch.nn.LinearCrossEntropyLoss(5, 10, **kwargs).double()
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
        x = rng.standard_normal((3, 5))
        shape = (3, *kwargs.get("out_features", ()))
        target = rng.integers(0, 10, shape)
        x_ours, x_theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        a = ours(x_ours, tg.tensor(target))
        b = theirs(x_theirs, torch.tensor(target))
        assert np.allclose(a.detach().numpy(), b.detach().numpy())
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
        a.sum().backward()
        b.sum().backward()
        assert np.allclose(x_ours.grad.numpy(), x_theirs.grad.numpy())
        assert np.allclose(ours.linear.weight.grad.numpy(), theirs.linear.weight.grad.numpy())
    assert repr(nn.LinearCrossEntropyOptions()) == repr(torch.nn.LinearCrossEntropyOptions())
    messages = []
    for lib in (tg, torch):
        with pytest.raises(RuntimeError) as caught:
            lib.nn.functional.linear_cross_entropy(lib.ones(2, 3), lib.ones(5, 4),
                                                   lib.tensor([0, 1]))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
