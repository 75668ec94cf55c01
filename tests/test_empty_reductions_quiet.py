"""Averaging no elements gives nan silently, as in PyTorch 2.13.

NumPy's ``mean`` warns "Mean of empty slice" (and "invalid value encountered in divide")
from inside NumPy, where teachgrad's filter for its own floating-point warnings does not
reach; PyTorch prints nothing for these (only its own UserWarning about degrees of freedom
for var/std, which is kept).
"""

from __future__ import annotations

import math
import warnings

import pytest

import teachgrad as torch

F = torch.nn.functional


def empty(*shape, requires_grad=False):
    return torch.zeros(*shape, requires_grad=requires_grad)


CASES = {
    "mean": lambda: empty(0).mean(),
    "mean over a dim": lambda: empty(2, 0).mean(1),
    "nanmean": lambda: empty(0).nanmean(),
    "l1_loss": lambda: F.l1_loss(empty(0), empty(0)),
    "cosine_embedding_loss": lambda: F.cosine_embedding_loss(empty(0, 3), empty(0, 3),
                                                             empty(0)),
    "layer_norm": lambda: F.layer_norm(empty(2, 0), (0,)),
    "group_norm": lambda: F.group_norm(empty(2, 2, 0), 1),
    "rms_norm": lambda: F.rms_norm(empty(2, 0), (0,)),
    "batch_norm": lambda: F.batch_norm(empty(0, 3), None, None, training=True),
    "instance_norm": lambda: F.instance_norm(empty(1, 2, 0)),
    "mean backward": lambda: empty(0, requires_grad=True).mean().backward(),
    "layer_norm backward": lambda: F.layer_norm(empty(2, 0, requires_grad=True),
                                                (0,)).sum().backward(),
}


def caught(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        # (teachgrad's own filter, which "always" just replaced: its modules' float warnings)
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"teachgrad\.")
        result = call()
    return result, [f"{w.category.__name__}: {w.message}" for w in seen]


@pytest.mark.parametrize("name", CASES)
def test_no_numpy_warning(name):
    _, seen = caught(CASES[name])
    assert seen == []


def test_the_values_are_still_nan_and_the_shapes_kept():
    assert math.isnan(caught(CASES["mean"])[0].item())
    assert [math.isnan(v) for v in caught(CASES["mean over a dim"])[0].tolist()] == [True] * 2
    assert caught(lambda: torch.zeros(0, dtype=torch.float64).mean())[0].dtype is torch.float64
    assert [math.isnan(v) for v in caught(lambda: empty(0, 3).mean(0))[0].tolist()] == [True] * 3
    assert caught(lambda: empty(3, 0).mean(0))[0].shape == (0,)  # nothing averaged, no nan
    assert caught(CASES["layer_norm"])[0].shape == (2, 0)


def test_var_std_keep_pytorchs_own_warning_only():
    for call in (lambda: empty(0).var(), lambda: torch.var_mean(empty(2, 0), 1),
                 lambda: empty(2, 0, requires_grad=True).var(1).sum().backward()):
        _, seen = caught(call)
        assert seen and all(s.startswith("UserWarning: ") and "degrees of freedom" in s
                            for s in seen)



def test_var_of_an_empty_tensor_warns_even_over_a_non_empty_dim():
    # PyTorch's reduction factor is input numel / output numel: 0 for an empty input, so
    # var/std of an empty tensor always warn, even over a dim of size 3 (teachgrad counted
    # the reduced dim and stayed silent there). Checked against PyTorch 2.13.
    for call in (lambda: empty(0, 3).std(1), lambda: empty(0, 3).var(1, correction=0),
                 lambda: empty(2, 0).var(0), lambda: torch.std_mean(empty(0, 3), 1)):
        _, seen = caught(call)
        assert len(seen) == 1 and "degrees of freedom is <= 0" in seen[0]
    assert caught(lambda: empty(0, 3).std(1))[0].shape == (0,)


def test_batch_norm_of_an_empty_batch():
    # PyTorch 2.13: only exactly one value per channel is refused; an empty batch gives an
    # empty output and leaves the running statistics alone (teachgrad refused it).
    mean, var = torch.zeros(3), torch.ones(3)
    out, _ = caught(lambda: F.batch_norm(empty(0, 3, 2), mean, var, training=True))
    assert out.shape == (0, 3, 2)
    assert mean.tolist() == [0.0] * 3 and var.tolist() == [1.0] * 3
    x, w = empty(0, 3, requires_grad=True), torch.ones(3, requires_grad=True)
    F.batch_norm(x, None, None, w, w, training=True).sum().backward()
    assert x.grad.shape == (0, 3) and w.grad.tolist() == [0.0] * 3
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        F.batch_norm(torch.zeros(1, 3), None, None, training=True)
    assert F.batch_norm(torch.zeros(2, 0), None, None, training=True).shape == (2, 0)


@pytest.mark.torch
@pytest.mark.parametrize("name", CASES)
def test_pytorch_is_silent_too(name):
    real = pytest.importorskip("torch")
    global torch, F
    mine = torch, F
    torch, F = real, real.nn.functional  # the same calls, with PyTorch
    try:
        _, seen = caught(CASES[name])
    finally:
        torch, F = mine
    assert seen == []
