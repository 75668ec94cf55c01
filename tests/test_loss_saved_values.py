"""Loss nodes' ``grad_fn._saved_*`` hold PyTorch's values: nll_loss's total weight (a 0-d
tensor of the summed class weights; it was None), smooth_l1's beta, huber's delta, the
reductions, binary cross entropy's (expanded) weight, multi_margin's p and margin."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad


def _value(v):
    if v is None or isinstance(v, int | float):
        return v
    return (tuple(v.shape), str(v.dtype).split(".")[-1],
            np.asarray(v.detach().numpy(), np.float64).round(6).tolist())


def _saved(lib, case):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    y = lib.tensor(rng.standard_normal((3, 4)).astype(np.float32))
    p = lib.tensor(rng.uniform(0.1, 0.9, (3, 4)).astype(np.float32))
    w, labels = lib.tensor([1.0, 2.0, 3.0, 4.0]), lib.tensor([0, 2, 1])
    F = lib.nn.functional
    node = {
        "nll": lambda: F.nll_loss(x, labels),
        "nll_weight_ignore": lambda: F.nll_loss(x, labels, weight=w, ignore_index=1),
        "nll_sum": lambda: F.nll_loss(x, labels, weight=w, reduction="sum"),
        "nll_none": lambda: F.nll_loss(x, labels, reduction="none"),
        "nll_double": lambda: F.nll_loss(x.double(), labels),
        "smooth_l1": lambda: F.smooth_l1_loss(x, y, beta=0.5, reduction="sum"),
        "huber": lambda: F.huber_loss(x, y, delta=0.7),
        "bce": lambda: F.binary_cross_entropy(x.sigmoid(), p, weight=w),
        "bce_logits": lambda: F.binary_cross_entropy_with_logits(x, p, pos_weight=w),
        "bce_logits_both": lambda: F.binary_cross_entropy_with_logits(x, p, weight=w,
                                                                      pos_weight=w * 2),
        "soft_margin": lambda: F.soft_margin_loss(x, y.sign(), reduction="none"),
        "multi_margin": lambda: F.multi_margin_loss(x, labels, p=2, margin=0.5, weight=w),
    }[case]().grad_fn
    names = sorted(n for n in dir(node) if n.startswith("_saved_")
                   and n != "_saved_ignore_index")  # (see below)
    return type(node).__name__, {n: _value(getattr(node, n)) for n in names}


CASES = ["nll", "nll_weight_ignore", "nll_sum", "nll_none", "nll_double", "smooth_l1", "huber",
         "bce", "bce_logits", "bce_logits_both", "soft_margin", "multi_margin"]


@pytest.mark.parametrize("case", CASES)
def test_saved_values_as_pytorch(case):
    # (PyTorch shows ignore_index -100 as 18446744073709551516)
    torch = pytest.importorskip("torch")
    assert _saved(teachgrad, case) == _saved(torch, case)


def test_nll_total_weight_by_hand():
    x = teachgrad.zeros(4, 3, requires_grad=True).log_softmax(1)
    target = teachgrad.tensor([0, 2, 2, 1])
    weight = teachgrad.tensor([0.5, 2.0, 4.0])
    node = teachgrad.nn.functional.nll_loss(x, target, weight=weight, ignore_index=1).grad_fn
    total = node._saved_total_weight
    assert total.shape == () and total.dtype == teachgrad.float32
    assert total.item() == 0.5 + 4.0 + 4.0  # the ignored class-1 sample does not count
    assert teachgrad.nn.functional.nll_loss(
        x, target, reduction="none").grad_fn._saved_total_weight.item() == 0.0


def test_nll_total_weight_is_freed_with_the_graph():
    x = teachgrad.zeros(2, 3, requires_grad=True)
    loss = teachgrad.nn.functional.nll_loss(x, teachgrad.tensor([0, 1]))
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.grad_fn._saved_total_weight  # noqa: B018


def test_nll_keeps_its_input_as_pytorch_does():
    """nll_loss's node keeps the input (``_saved_self``, the very tensor): changed in place
    before backward, backward refuses it, with PyTorch's words."""
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (torch, teachgrad):
        x = lib.zeros(2, 3, requires_grad=True)
        y = x.log_softmax(1)
        loss = lib.nn.functional.nll_loss(y, lib.tensor([0, 2]))
        assert loss.grad_fn._saved_self is y or lib is torch  # (PyTorch: an equal tensor)
        assert loss.grad_fn._saved_self.equal(y)
        y.mul_(2)
        with pytest.raises(RuntimeError) as error:
            loss.backward()
        messages.append(str(error.value).replace("torch.", "").split("\nHint:")[0])
    assert messages[0] == messages[1]
