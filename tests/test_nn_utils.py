"""``teachgrad.nn.utils``: gradient clipping and parameters <-> vector.

Expected values are derived by hand from PyTorch's documented formula
``grad *= min(max_norm / (total_norm + 1e-6), 1)``; the torch-marked tests at the end
compare with real PyTorch on random gradients.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.nn.utils import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    get_total_norm,
    parameters_to_vector,
    vector_to_parameters,
)


def leaf_with_grad(values, grad):
    w = torch.tensor(values, requires_grad=True)
    w.grad = torch.tensor(grad)
    return w


def test_reachable_under_pytorchs_spelling():
    import teachgrad

    assert teachgrad.nn.utils.clip_grad_norm_ is clip_grad_norm_
    assert teachgrad.nn.utils.clip_grad_value_ is clip_grad_value_


def test_clip_grad_norm_scales_all_gradients_together():
    a = leaf_with_grad([0.0, 0.0], [3.0, 0.0])
    b = leaf_with_grad([0.0], [4.0])
    total = clip_grad_norm_([a, b], max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    coef = 1.0 / (5.0 + 1e-6)  # PyTorch's formula, 1e-6 included
    np.testing.assert_allclose(a.grad.numpy(), [3.0 * coef, 0.0], rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), [4.0 * coef], rtol=1e-6)
    assert not total.requires_grad


def test_clip_grad_norm_never_enlarges_gradients():
    a = leaf_with_grad([0.0, 0.0], [0.3, 0.4])
    total = clip_grad_norm_(a, max_norm=10.0)  # a single tensor is accepted too
    assert total.item() == pytest.approx(0.5)
    np.testing.assert_allclose(a.grad.numpy(), [0.3, 0.4], rtol=1e-7)


def test_clip_grad_norm_inf_and_p1_norms():
    a = leaf_with_grad([0.0, 0.0], [-3.0, 1.0])
    b = leaf_with_grad([0.0], [2.0])
    assert clip_grad_norm_([a, b], 100.0, norm_type=math.inf).item() == 3.0
    assert clip_grad_norm_([a, b], 100.0, norm_type=1).item() == 6.0
    assert clip_grad_norm_([a, b], 3.0, norm_type="inf").item() == 3.0


def test_clip_grad_norm_skips_parameters_without_grad_and_handles_none():
    a = leaf_with_grad([0.0], [2.0])
    b = torch.tensor([1.0], requires_grad=True)  # no .grad: took no part in the loss
    assert clip_grad_norm_([a, b], 1.0).item() == pytest.approx(2.0)
    assert b.grad is None
    empty = clip_grad_norm_([b], 1.0)
    assert empty.item() == 0.0 and empty.dtype == torch.float32


def test_clip_grad_norm_empty_generator_warns():
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        clip_grad_norm_((p for p in []), 1.0)


def test_clip_grad_norm_keeps_float64():
    a = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    a.grad = torch.tensor([6.0, 8.0], dtype=torch.float64)
    total = clip_grad_norm_([a], 5.0)
    assert total.dtype == torch.float64
    np.testing.assert_allclose(a.grad.numpy(), np.array([6.0, 8.0]) * 5.0 / (10.0 + 1e-6))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_clip_grad_norm_nonfinite():
    a = leaf_with_grad([0.0, 0.0], [math.inf, 1.0])
    with pytest.raises(RuntimeError, match=r"The total norm of order 2.0 for gradients from "
                       r"`parameters` is non-finite, so it cannot be clipped"):
        clip_grad_norm_([a], 1.0, error_if_nonfinite=True)
    np.testing.assert_array_equal(a.grad.numpy(), [math.inf, 1.0])  # left unchanged
    assert math.isinf(clip_grad_norm_([a], 1.0).item())  # without the flag: scaled anyway
    np.testing.assert_array_equal(a.grad.numpy(), [math.nan, 0.0])  # by 1/inf = 0, as torch


def test_clip_grad_norm_in_a_training_step():
    model = torch.nn.Linear(3, 1)
    loss = (model(torch.ones(4, 3)) * 100).sum()
    loss.backward()
    before = get_total_norm([p.grad for p in model.parameters()]).item()
    returned = clip_grad_norm_(model.parameters(), max_norm=0.5)
    assert returned.item() == pytest.approx(before)
    after = get_total_norm([p.grad for p in model.parameters()]).item()
    assert after == pytest.approx(0.5, rel=1e-5)


def test_deprecated_clip_grad_norm_warns():
    a = leaf_with_grad([0.0], [2.0])
    with pytest.warns(FutureWarning, match="deprecated in favor of"):
        assert clip_grad_norm([a], 1.0).item() == pytest.approx(2.0)


def test_clip_grad_value_clamps_each_element():
    a = leaf_with_grad([0.0, 0.0, 0.0], [-5.0, 0.25, 3.0])
    b = torch.tensor([1.0], requires_grad=True)
    assert clip_grad_value_([a, b], 1) is None
    np.testing.assert_array_equal(a.grad.numpy(), [-1.0, 0.25, 1.0])
    assert b.grad is None


def test_parameters_to_vector_and_back():
    model = torch.nn.Linear(3, 2)
    vec = parameters_to_vector(model.parameters())
    assert vec.shape == (8,)
    expected = np.concatenate([model.weight.detach().numpy().ravel(),
                               model.bias.detach().numpy()])
    np.testing.assert_array_equal(vec.detach().numpy(), expected)
    vec.sum().backward()  # the vector is part of the graph
    np.testing.assert_array_equal(model.weight.grad.numpy(), np.ones((2, 3)))

    vector_to_parameters(torch.arange(8.0), model.parameters())
    np.testing.assert_array_equal(model.weight.detach().numpy(), [[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(model.bias.detach().numpy(), [6, 7])


def test_vector_to_parameters_rejects_non_tensor():
    with pytest.raises(TypeError, match="^expected torch.Tensor, but got: list$"):
        vector_to_parameters([1.0, 2.0], [torch.zeros(2)])


# ----------------------------------------------------------------------------------------
# Against real PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, math.inf])
@pytest.mark.parametrize("max_norm", [0.1, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    grads = [rng.normal(size=s).astype(np.float32) for s in [(3, 4), (4,), (2, 2, 2)]]
    ours = [leaf_with_grad(np.zeros_like(g), g) for g in grads]
    theirs = []
    for g in grads:
        t = real.zeros(g.shape, requires_grad=True)
        t.grad = real.from_numpy(g.copy())
        theirs.append(t)
    got = clip_grad_norm_(ours, max_norm, norm_type)
    expected = real.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    np.testing.assert_allclose(got.item(), expected.item(), rtol=1e-6)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.torch
def test_error_messages_match_torch():
    real = pytest.importorskip("torch")
    t = real.zeros(2, requires_grad=True)
    t.grad = real.tensor([math.nan, 1.0])
    with pytest.raises(RuntimeError) as expected:
        real.nn.utils.clip_grad_norm_([t], 1.0, norm_type=3, error_if_nonfinite=True)
    a = leaf_with_grad([0.0, 0.0], [math.nan, 1.0])
    with pytest.raises(RuntimeError) as got:
        clip_grad_norm_([a], 1.0, norm_type=3, error_if_nonfinite=True)
    assert str(got.value) == str(expected.value)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        real.nn.utils.clip_grad_norm_((p for p in []), 1.0)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        clip_grad_norm_((p for p in []), 1.0)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
