"""Differences from PyTorch closed in the twenty-sixth session, found by the sweeps
(tests/sweep_*_against_torch.py and their ``--missing`` lists).

Expected values are worked by hand or are PyTorch 2.13's, written out, so these tests run
without PyTorch; the tests that need PyTorch to compare with skip without it."""

from __future__ import annotations

import math

import pytest

import teachgrad as tg

F = tg.nn.functional


def _nodes(root):
    """Every node of the graph under ``root``, each once (depth first)."""
    found, stack, seen = [], [root], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found


# ----------------------------------------------------------------- saved values


def test_label_smoothing_nodes_show_the_numbers_they_multiply_by():
    # cross_entropy with label_smoothing ε over C classes: PyTorch's C++ multiplies the
    # two loss terms by (1 - ε) and ε / C with the tensor-times-scalar overload
    # (MulBackward1), whose grad_fn._saved_other is the Python number.
    x = tg.ones(1, 3, requires_grad=True)
    loss = F.cross_entropy(x, tg.tensor([1]), label_smoothing=0.1)
    factors = sorted(node._saved_other for node in _nodes(loss.grad_fn)
                     if type(node).__name__ == "MulBackward1")
    assert factors == pytest.approx([0.1 / 3, 0.9])
    assert all(isinstance(f, float) for f in factors)


def test_probability_targets_divide_by_the_batch_as_a_number():
    # cross_entropy with class probabilities and reduction='mean': the sum over the batch
    # divided by N = 2 (DivBackward1, _saved_other the int 2)
    x = tg.ones(2, 3, requires_grad=True)
    loss = F.cross_entropy(x, tg.full((2, 3), 1 / 3))
    assert type(loss.grad_fn).__name__ == "DivBackward1"
    assert loss.grad_fn._saved_other == 2


def test_attention_scale_shown_as_pytorch_shows_it():
    # scaled_dot_product_attention scales q and k each by 1/sqrt(sqrt(E)) (E = 3 here)
    q = tg.ones(1, 2, 3, requires_grad=True)
    out = F.scaled_dot_product_attention(q, q, q)
    scales = [node._saved_other for node in _nodes(out.grad_fn)
              if type(node).__name__ == "MulBackward1"]
    assert scales and all(s == pytest.approx(1 / math.sqrt(math.sqrt(3))) for s in scales)


def test_saved_numbers_as_pytorch():
    torch = pytest.importorskip("torch")

    def factors(lib):
        x = lib.ones(2, 4, requires_grad=True)
        losses = [lib.nn.functional.cross_entropy(x, lib.tensor([1, 3]), label_smoothing=0.25),
                  lib.nn.functional.cross_entropy(x, lib.full((2, 4), 0.25)),
                  lib.nn.functional.scaled_dot_product_attention(x[None], x[None], x[None])]
        return [sorted((type(n).__name__, n._saved_other) for n in _nodes(loss.grad_fn)
                       if type(n).__name__ in ("MulBackward1", "DivBackward1"))
                for loss in losses]

    ours, theirs = factors(tg), factors(torch)
    assert [[name for name, _ in nodes] for nodes in ours] == \
        [[name for name, _ in nodes] for nodes in theirs]
    for nodes, expected in zip(ours, theirs):
        assert [v for _, v in nodes] == pytest.approx([v for _, v in expected])
