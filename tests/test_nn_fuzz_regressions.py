"""Regressions found by tests/fuzz_nn_against_torch.py, one per fix.

The first test is hand-derived (no PyTorch needed); the rest run the same call with
PyTorch and with teachgrad and compare the error (type and words, teachgrad's Hint line
aside), or the value, grad_fn name and gradient.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad


def test_multilabel_margin_loss_counts_a_class_listed_twice():
    # target [2, 1, 3, 2] lists class 2 twice: PyTorch's loop counts its pairs twice.
    # Non-targets: {0}. Pairs (j, 0) for j = 2, 1, 3, 2: max(0, 1 - x[j] + x[0]) / 4.
    x = teachgrad.tensor([[0.211, -1.01, -0.225, -0.9]], requires_grad=True)
    loss = teachgrad.nn.functional.multilabel_margin_loss(x, teachgrad.tensor([[2, 1, 3, 2]]))
    terms = [1 - v + 0.211 for v in (-0.225, -1.01, -0.9, -0.225)]
    assert loss.item() == pytest.approx(sum(terms) / 4, rel=1e-6)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1.0, -0.25, -0.5, -0.25]], rtol=1e-6)


CALLS = {
    "pdist is one node": lambda t, F: F.pdist(t.tensor([[1., 2.], [3., 5.], [0., 1.]],
                                                       requires_grad=True)),
    "feature_alpha_dropout p=1 of a 1-d input": lambda t, F: F.feature_alpha_dropout(
        t.tensor([0.5, 1.0], requires_grad=True), p=1.0, training=True),
    "dropout of an integer tensor": lambda t, F: F.dropout(t.tensor([1, 2]), 0.5),
    "layer_norm with an int shape": lambda t, F: F.layer_norm(t.ones(3, 2), 2),
    "prelu of a 0-d input": lambda t, F: F.prelu(t.tensor(1.0), t.tensor([1.0, 2.0])),
    "one_hot of an empty tensor": lambda t, F: F.one_hot(t.zeros(0, 3, dtype=t.int64)),
    "batch_norm momentum=None": lambda t, F: F.batch_norm(
        t.ones(2, 1, 2), t.zeros(1), t.ones(1), training=True, momentum=None),
    "batch_norm with one running stat": lambda t, F: F.batch_norm(
        t.ones(2, 1, 2), t.zeros(1), None, training=True),
    "batch_norm of an empty batch": lambda t, F: F.batch_norm(
        t.zeros(0, 2, 3, requires_grad=True), t.zeros(3), None,
        t.ones(2, requires_grad=True), t.ones(2, requires_grad=True)),
    "conv1d padding checked before dilation": lambda t, F: F.conv1d(
        t.ones(1, 1, 5), t.ones(1, 1, 2), padding=(0, 0), dilation=0),
    "conv1d zero dilation": lambda t, F: F.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 2),
                                                  dilation=0),
    "conv2d negative dilation": lambda t, F: F.conv2d(t.ones(1, 1, 5, 5), t.ones(1, 1, 2, 2),
                                                      dilation=-1),
    "avg_pool2d zero divisor first": lambda t, F: F.avg_pool2d(
        t.ones(4, 4), 3, stride=0, divisor_override=0),
    "avg_pool3d zero divisor first": lambda t, F: F.avg_pool3d(
        t.ones(1, 1, 1, 4, 4), 3, stride=0, divisor_override=0),
    "fold of an empty batch": lambda t, F: F.fold(t.zeros(0, 4, 15, requires_grad=True),
                                                  (2, 4), 2, padding=(1, 1)),
    "adaptive_max_pool1d of an empty batch": lambda t, F: F.adaptive_max_pool1d(
        t.zeros(0, 1, 1, requires_grad=True), 2),
    "max_unpool2d names the last bad index": lambda t, F: F.max_unpool2d(
        *F.max_pool2d(t.arange(40.).reshape(2, 1, 4, 5), 2, return_indices=True), 2),
}


def _outcome(lib, call):
    try:
        out = call(lib, lib.nn.functional)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return ("error", type(e).__name__, str(e).split("\nHint:")[0])
    result = [str(out.dtype).split(".")[-1], tuple(out.shape),
              None if out.grad_fn is None else out.grad_fn.name(), out.detach().numpy().tolist()]
    if out.requires_grad:
        weights = lib.arange(out.numel(), dtype=out.dtype).reshape(out.shape).mul(0.37).sin()
        leaves = [t for t in _leaves(out.grad_fn)]
        grads = lib.autograd.grad((out * weights).sum(), leaves, allow_unused=True)
        result.append([None if g is None else np.round(g.numpy(), 5).tolist() for g in grads])
    return ("ok", result)


def _leaves(fn):
    seen, stack, out = set(), [fn], []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node).__name__ == "AccumulateGrad":
            out.append(node.variable)
        stack.extend(n for n, _ in node.next_functions)
    return sorted(out, key=lambda t: tuple(t.shape))


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CALLS))
def test_agrees_with_pytorch(name):
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # (max_unpool's named index is PyTorch's one-thread answer)
    try:
        theirs = _outcome(torch, CALLS[name])
    finally:
        torch.set_num_threads(threads)
    ours = _outcome(teachgrad, CALLS[name])
    assert repr(ours).replace("teachgrad", "torch") == repr(theirs)
