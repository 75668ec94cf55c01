"""LayerNorm and BatchNorm as one node each (NativeLayerNormBackward0 / NativeBatchNormBackward0).

Gradients against finite differences (gradcheck / gradgradcheck, float64) in every mode;
the graph's shape against PyTorch's (its node names and next_functions) when installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad.autograd import gradcheck, gradgradcheck


def f64(*shape, seed=0, requires_grad=True):
    data = np.random.default_rng(seed).standard_normal(shape)
    return teachgrad.tensor(data, requires_grad=requires_grad)


def _names(fn):
    return [None if f is None else type(f).__name__ for f, _ in fn.next_functions]


def test_layer_norm_is_one_node_with_edges_to_input_weight_and_bias():
    x, w, b = f64(2, 3), f64(3, seed=1), f64(3, seed=2)
    out = F.layer_norm(x, (3,), w, b)
    assert type(out.grad_fn).__name__ == "NativeLayerNormBackward0"
    assert _names(out.grad_fn) == ["AccumulateGrad"] * 3
    assert _names(F.layer_norm(x, (3,)).grad_fn) == ["AccumulateGrad", None, None]


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2), (2, 3, 2, 2)])
def test_batch_norm_gradients_of_first_and_second_order(training, shape):
    x, w, b = f64(*shape), f64(3, seed=1), f64(3, seed=2)
    mean = teachgrad.tensor([0.1, -0.2, 0.3], dtype=teachgrad.float64)
    var = teachgrad.tensor([0.5, 2.0, 1.5], dtype=teachgrad.float64)

    def norm(x, w, b):
        # running stats are only read in evaluation; in training pass None (nothing updated)
        stats = (None, None) if training else (mean, var)
        return F.batch_norm(x, *stats, w, b, training=training)

    assert gradcheck(norm, (x, w, b))
    assert gradgradcheck(norm, (x, w, b))
    assert gradgradcheck(lambda x: F.batch_norm(x, None, None, training=True) ** 2, (x,))


def test_batch_norm_in_evaluation_is_an_affine_map_by_hand():
    # With fixed statistics, y = (x − m)/sqrt(v + eps)·w + b, so ∂y/∂x = w/sqrt(v + eps).
    x = teachgrad.tensor([[1.0, 2.0]], requires_grad=True)
    w = teachgrad.tensor([2.0, 3.0], requires_grad=True)
    out = F.batch_norm(x, teachgrad.tensor([0.0, 1.0]), teachgrad.tensor([3.0, 8.0]), w,
                       eps=1.0)
    assert out.tolist() == [[1.0, 1.0]]  # (1 − 0)/2·2, (2 − 1)/3·3
    out.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0]]  # 2/2, 3/3
    assert w.grad.tolist() == pytest.approx([0.5, 1 / 3])  # x̂


def test_batch_norm_is_one_node():
    x, w, b = f64(4, 3), f64(3, seed=1), f64(3, seed=2)
    out = F.batch_norm(x, None, None, w, b, training=True)
    assert type(out.grad_fn).__name__ == "NativeBatchNormBackward0"
    assert _names(out.grad_fn) == ["AccumulateGrad"] * 3


def test_a_changed_input_is_caught_before_backward_uses_the_saved_statistics():
    x = f64(4, 3)
    y = x * 1
    out = F.layer_norm(y, (3,))
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.torch
@pytest.mark.parametrize("affine", [True, False])
def test_node_names_and_edges_match_torch(affine):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal((4, 3, 2)).astype(np.float32)
    graphs = []
    for m in (torch, teachgrad):
        x = m.tensor(data, requires_grad=True)
        w = m.ones(3, requires_grad=True) if affine else None
        b = m.zeros(3, requires_grad=True) if affine else None
        lw = m.ones(2, requires_grad=True) if affine else None
        batch = m.nn.functional.batch_norm(x, m.zeros(3), m.ones(3), w, b, training=True)
        layer = m.nn.functional.layer_norm(x, (2,), lw, None)
        graphs.append([(type(o.grad_fn).__name__, _names(o.grad_fn)) for o in (batch, layer)])
    assert graphs[0] == graphs[1]
