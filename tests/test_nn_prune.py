"""``torch.nn.utils.prune`` (the pruning tutorial): masks, the ``_orig``/``_mask`` layout,
pruning history, ``remove``, global pruning and PyTorch's errors.

Expectations are worked out by hand on small weights; where PyTorch is installed, the
random methods are also compared with it (same seed, same masks).
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import nn
from teachgrad.nn.utils import prune

WEIGHT = [[0.1, -2.0, 0.5], [3.0, -0.4, 1.0]]


def _linear() -> nn.Linear:
    layer = nn.Linear(3, 2)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(WEIGHT))
        layer.bias.copy_(torch.tensor([0.3, -0.2]))
    return layer


def test_l1_pruning_moves_the_weight_to_orig_and_masks_it():
    layer = _linear()
    assert prune.l1_unstructured(layer, "weight", amount=2) is layer
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in layer.named_buffers()] == ["weight_mask"]
    # the two smallest |w| are 0.1 and -0.4
    assert layer.weight_mask.tolist() == [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]
    assert layer.weight.tolist() == [[0.0, -2.0, 0.5], [3.0, -0.0, 1.0]]
    assert np.allclose(layer.weight_orig.detach().numpy(), WEIGHT)
    assert [type(h).__name__ for h in layer._forward_pre_hooks.values()] == ["L1Unstructured"]
    assert list(layer.state_dict()) == ["bias", "weight_orig", "weight_mask"]


def test_the_gradient_reaches_weight_orig_through_the_mask():
    layer = _linear()
    prune.l1_unstructured(layer, "weight", amount=0.34)  # round(0.34 · 6) = 2 entries
    x = torch.tensor([1.0, 2.0, 3.0])
    layer(x).sum().backward()
    # d(Σ (W∘M) x)/dW_orig = M ∘ (1 xᵀ)
    assert layer.weight_orig.grad.tolist() == [[0.0, 2.0, 3.0], [1.0, 0.0, 3.0]]


def test_the_hook_recomputes_the_weight_after_an_optimizer_step():
    layer = _linear()
    prune.l1_unstructured(layer, "weight", amount=2)
    with torch.no_grad():
        layer.weight_orig.add_(1.0)
    assert layer.weight.tolist() == [[0.0, -2.0, 0.5], [3.0, -0.0, 1.0]]  # not yet
    layer(torch.ones(3))  # the forward pre-hook runs
    assert np.allclose(layer.weight.detach().numpy(), [[0.0, -1.0, 1.5], [4.0, 0.0, 2.0]])


def test_pruning_again_combines_the_masks_in_a_container():
    layer = _linear()
    prune.l1_unstructured(layer, "weight", amount=1)  # 0.1 goes
    # L2 norms of the rows: √(0²+4+0.25) ≈ 2.06 (0.1 already pruned), √(9+0.16+1) ≈ 3.19
    prune.ln_structured(layer, "weight", amount=1, n=2, dim=0)
    assert layer.weight_mask.tolist() == [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    (hook,) = layer._forward_pre_hooks.values()
    assert isinstance(hook, prune.PruningContainer) and len(hook) == 2
    assert [type(m).__name__ for m in hook] == ["L1Unstructured", "LnStructured"]
    # an unstructured method now only looks at the 3 entries left: -0.4 is the smallest
    prune.l1_unstructured(layer, "weight", amount=1)
    assert layer.weight_mask.tolist() == [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0]]


def test_remove_makes_the_pruning_permanent():
    layer = _linear()
    prune.l1_unstructured(layer, "weight", amount=2)
    prune.remove(layer, "weight")
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"]
    assert list(layer.named_buffers()) == [] and len(layer._forward_pre_hooks) == 0
    assert isinstance(layer.weight, nn.Parameter)
    assert layer.weight.tolist() == [[0.0, -2.0, 0.5], [3.0, -0.0, 1.0]]
    assert not prune.is_pruned(layer)
    with pytest.raises(ValueError, match="Parameter 'weight' of module Linear\\(in_features=3, "
                                         "out_features=2, bias=True\\) has to be pruned before"):
        prune.remove(layer, "weight")


def test_global_pruning_ranks_all_tensors_together():
    first, second = _linear(), nn.Linear(2, 1)
    with torch.no_grad():
        second.weight.copy_(torch.tensor([[0.2, -5.0]]))
    # 8 weights: |w| sorted 0.1, 0.2, 0.4, 0.5 ...; amount=0.5 prunes those four
    prune.global_unstructured([(first, "weight"), (second, "weight")],
                              pruning_method=prune.L1Unstructured, amount=0.5)
    assert first.weight_mask.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    assert second.weight_mask.tolist() == [[0.0, 1.0]]
    assert prune.is_pruned(nn.Sequential(first))
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE supported'):
        prune.global_unstructured([(second, "bias")], pruning_method=prune.RandomStructured,
                                  amount=1)


def test_a_custom_method_and_the_simple_ones():
    class EveryOther(prune.BasePruningMethod):  # the tutorial's FooBarPruningMethod
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    layer = nn.Linear(2, 5)
    EveryOther.apply(layer, "bias")
    assert layer.bias_mask.tolist() == [0.0, 1.0, 0.0, 1.0, 0.0]
    prune.identity(layer, "weight")
    assert layer.weight_mask.sum().item() == 10
    prune.custom_from_mask(layer, "weight", torch.tensor([[1, 0]] * 5))
    assert layer.weight_mask[:, 1].sum().item() == 0
    method = prune.L1Unstructured(amount=2)
    assert method.prune(torch.tensor([[1.0, -5.0, 0.5], [3.0, 0.1, 2.0]])).tolist() == [
        [1.0, -5.0, 0.0], [3.0, 0.0, 2.0]]
    scores = torch.tensor([[6.0, 5.0, 4.0], [3.0, 2.0, 1.0]])  # prune where scores are small
    layer = _linear()
    prune.l1_unstructured(layer, "weight", amount=2, importance_scores=scores)
    assert layer.weight_mask.tolist() == [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]]


@pytest.mark.parametrize("call, error, message", [
    (lambda m: prune.l1_unstructured(m, "weight", amount=1.5), ValueError,
     "amount=1.5 should either be a float in the range [0, 1] or a non-negative integer"),
    (lambda m: prune.l1_unstructured(m, "weight", amount=7), ValueError,
     "amount=7 should be smaller than the number of parameters to prune=6"),
    (lambda m: prune.l1_unstructured(m, "weight", amount="a"), TypeError,
     "Invalid type for amount: a. Must be int or float."),
    (lambda m: prune.ln_structured(m, "bias", amount=1, n=2, dim=0), ValueError,
     "Structured pruning can only be applied to multidimensional tensors. Found tensor of "
     "shape teachgrad.Size([2]) with 1 dims"),
    (lambda m: prune.random_structured(m, "weight", amount=1, dim=2), IndexError,
     "Invalid index 2 for tensor of size teachgrad.Size([2, 3])"),
])
def test_bad_amounts_and_dims_get_pytorchs_errors_and_leave_the_module_as_it_was(
        call, error, message):
    layer = _linear()
    with pytest.raises(error) as caught:
        call(layer)
    assert str(caught.value) == message
    assert sorted(n for n, _ in layer.named_parameters()) == ["bias", "weight"]


@pytest.mark.torch
def test_random_pruning_draws_pytorchs_masks():
    real = pytest.importorskip("torch")
    real_prune = pytest.importorskip("torch.nn.utils.prune")
    masks = []
    for lib, pr in ((torch, prune), (real, real_prune)):
        lib.manual_seed(3)
        layer = lib.nn.Linear(6, 5)
        pr.random_unstructured(layer, "weight", amount=0.3)
        pr.random_structured(layer, "weight", amount=2, dim=1)
        masks.append(layer.weight_mask.tolist())
    assert masks[0] == masks[1]
    assert np.asarray(masks[0]).sum() < 30  # (something was pruned)
