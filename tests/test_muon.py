"""``optim.Muon``: momentum, Newton–Schulz orthogonalisation in bfloat16, as PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad as tg
from teachgrad import nn
from teachgrad.optim.muon import _round_to_bfloat16, _zeropower_via_newtonschulz

rng = np.random.default_rng(0)


def test_bfloat16_rounding_by_hand():
    # bfloat16 keeps 8 significant bits: the neighbours of 1 are 1 - 2^-8 and 1 + 2^-7.
    values = np.array([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-9, 3.0, -1 - 2**-7], np.float32)
    expected = [1.0, 1 + 2**-6, 1.0, 3.0, -1 - 2**-7]  # ties go to the even mantissa
    assert _round_to_bfloat16(values).tolist() == expected


def test_newton_schulz_makes_singular_values_near_one():
    for shape in [(6, 4), (4, 6), (16, 16)]:
        # singular values from 0.1 to 10: a badly conditioned gradient
        k = min(shape)
        u, _ = np.linalg.qr(rng.standard_normal((shape[0], k)))
        v, _ = np.linalg.qr(rng.standard_normal((shape[1], k)))
        grad = (u * np.geomspace(0.1, 10, k)) @ v.T
        ortho = _zeropower_via_newtonschulz(grad, (3.4445, -4.7750, 2.0315), 5, 1e-7)
        singular = np.linalg.svd(ortho, compute_uv=False)
        assert ortho.shape == shape
        assert singular.min() > 0.5 and singular.max() < 1.5  # Keller Jordan's range
        # and it keeps the singular vectors: O is close to U Vᵀ of the gradient
        u, _, vt = np.linalg.svd(grad, full_matrices=False)
        assert np.abs(ortho - u @ vt).max() < 0.5


def test_newton_schulz_argument_errors():
    with pytest.raises(ValueError, match="Number of steps must be less than 100"):
        _zeropower_via_newtonschulz(np.ones((2, 2), np.float32), (1, 1, 1), 100, 1e-7)
    with pytest.raises(ValueError, match="Coefficients must be a tuple of exactly 3 values"):
        _zeropower_via_newtonschulz(np.ones((2, 2), np.float32), (1, 1), 5, 1e-7)


def test_one_step_by_hand():
    weight = nn.Parameter(tg.tensor(rng.standard_normal((6, 3)), dtype=tg.float32))
    start = weight.detach().clone()
    grad = rng.standard_normal((6, 3)).astype(np.float32)
    weight.grad = tg.tensor(grad)
    tg.optim.Muon([weight], lr=0.02, weight_decay=0.1, momentum=0.9, nesterov=True).step()
    # buffer = 0.1·g; nesterov update = lerp(g, buffer, 0.9) = 0.19·g; NS is scale-free
    ortho = _zeropower_via_newtonschulz(np.float32(0.19) * grad, (3.4445, -4.7750, 2.0315),
                                        5, 1e-7)
    expected = start.numpy() * (1 - 0.02 * 0.1) - 0.02 * math.sqrt(6 / 3) * ortho
    np.testing.assert_allclose(weight.detach().numpy(), expected, rtol=1e-6, atol=1e-7)


def test_constructor_errors_and_defaults():
    w = nn.Parameter(tg.ones(2, 2))
    opt = tg.optim.Muon([w])
    assert opt.defaults == {"lr": 1e-3, "weight_decay": 0.1, "momentum": 0.95,
                            "nesterov": True, "ns_coefficients": (3.4445, -4.775, 2.0315),
                            "eps": 1e-7, "ns_steps": 5, "adjust_lr_fn": None}
    with pytest.raises(ValueError, match=r"Muon only supports 2D parameters whereas we found "
                                         r"a parameter with size: \w+.Size\(\[2\]\)"):
        tg.optim.Muon([nn.Parameter(tg.ones(2))])
    with pytest.raises(ValueError, match="Learning rate should be >= 0 but is: -1"):
        tg.optim.Muon([w], lr=-1)
    with pytest.raises(ValueError, match="Adjust learning rate function x is not supported"):
        tg.optim.Muon([w], adjust_lr_fn="x")


@pytest.mark.torch
@pytest.mark.parametrize("options", [
    {},
    {"lr": 0.02, "nesterov": False, "weight_decay": 0.0},
    {"lr": 0.01, "momentum": 0.8, "adjust_lr_fn": "match_rms_adamw"},
])
def test_several_steps_match_torch(options):
    torch = pytest.importorskip("torch")
    shapes = [(8, 5), (5, 8), (6, 6)]
    starts = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ours = [nn.Parameter(tg.tensor(a)) for a in starts]
    theirs = [torch.nn.Parameter(torch.tensor(a)) for a in starts]
    opt, twin = tg.optim.Muon(ours, **options), torch.optim.Muon(theirs, **options)
    for _ in range(5):
        grads = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        for p, q, g in zip(ours, theirs, grads):
            p.grad, q.grad = tg.tensor(g), torch.tensor(g)
        opt.step()
        twin.step()
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6,
                                   atol=1e-6)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(opt.state[p]["momentum_buffer"].numpy(),
                                   twin.state[q]["momentum_buffer"].numpy(), rtol=1e-6,
                                   atol=1e-7)
    assert opt.state_dict()["param_groups"][0].keys() == \
        twin.state_dict()["param_groups"][0].keys()


@pytest.mark.torch
def test_training_losses_match_torch():
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((32, 4)).astype(np.float32)
    y = rng.standard_normal((32, 2)).astype(np.float32)
    w1, w2 = (rng.standard_normal(s).astype(np.float32) * 0.5 for s in [(8, 4), (2, 8)])
    losses = []
    for lib in (tg, torch):
        a, b = lib.nn.Parameter(lib.tensor(w1)), lib.nn.Parameter(lib.tensor(w2))
        opt = lib.optim.Muon([a, b], lr=0.02)
        run = []
        for _ in range(10):
            opt.zero_grad()
            loss = ((lib.tanh(lib.tensor(x) @ a.T) @ b.T - lib.tensor(y)) ** 2).mean()
            loss.backward()
            opt.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)
    assert losses[0][-1] < losses[0][0]
