"""``nn.AdaptiveLogSoftmaxWithLoss``: clustered softmax, ``(output, loss)``, ``log_prob``,
``predict``, with PyTorch's parameters and state_dict keys."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as tg
from teachgrad import nn
from teachgrad.autograd import gradcheck


def make(seed=0):
    tg.manual_seed(seed)
    return nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 7], div_value=2.0).double()


def test_parameters_and_state_dict_keys():
    asm = make()
    assert list(asm.state_dict()) == ["head.weight", "tail.0.0.weight", "tail.0.1.weight",
                                      "tail.1.0.weight", "tail.1.1.weight"]
    # head: 4 shortlist classes + 2 cluster entries; cluster i projects to 8 // 2**(i+1)
    assert [tuple(p.shape) for p in asm.parameters()] == [(6, 8), (4, 8), (3, 4), (2, 8),
                                                           (3, 2)]
    assert asm.cutoffs == [4, 7, 10] and asm.shortlist_size == 4 and asm.head_size == 6
    with_bias = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4], head_bias=True)
    assert "head.bias" in with_bias.state_dict()


def test_log_prob_is_a_distribution_and_output_reads_it():
    asm = make()
    x = tg.tensor(np.random.default_rng(0).standard_normal((5, 8)))
    target = tg.tensor([0, 5, 9, 3, 8])
    log_prob = asm.log_prob(x)
    assert log_prob.shape == (5, 10)
    assert np.allclose(log_prob.exp().sum(1).detach().numpy(), 1.0)
    output, loss = asm(x, target)
    expected = log_prob.detach().numpy()[np.arange(5), target.numpy()]
    assert np.allclose(output.detach().numpy(), expected)
    assert loss.item() == pytest.approx(-expected.mean())
    assert tg.equal(asm.predict(x), log_prob.argmax(1))


def test_unbatched_example():
    asm = make()
    x = tg.tensor(np.random.default_rng(1).standard_normal(8))
    output, loss = asm(x, tg.tensor(6))
    assert output.shape == () and output.item() == pytest.approx(-loss.item())
    assert output.item() == pytest.approx(asm.log_prob(x[None])[0, 6].item())


def test_input_gradients_by_finite_differences():
    asm = make()
    x = tg.tensor(np.random.default_rng(2).standard_normal((4, 8)), requires_grad=True)
    target = tg.tensor([1, 5, 8, 9])
    assert gradcheck(lambda x: asm(x, target).loss, (x,))
    assert gradcheck(lambda x: asm.log_prob(x), (x,))


def test_weight_gradients_by_finite_differences():
    asm = make()
    x = tg.tensor(np.random.default_rng(3).standard_normal((4, 8)))
    target = tg.tensor([1, 5, 8, 9])
    asm(x, target).loss.backward()
    eps = 1e-6
    for param in asm.parameters():
        analytic = param.grad.numpy()
        index = np.unravel_index(np.argmax(np.abs(analytic)), analytic.shape)
        with tg.no_grad():
            param[index] += eps
            up = asm(x, target).loss.item()
            param[index] -= 2 * eps
            down = asm(x, target).loss.item()
            param[index] += eps
        assert (up - down) / (2 * eps) == pytest.approx(analytic[index], rel=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="cutoffs should be a sequence of length larger than 0"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[])
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[5, 3])
    asm = make()
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\], but values "
                                           r"in range \[0, 10\] were found"):
        asm(tg.zeros(2, 8, dtype=tg.float64), tg.tensor([0, 10]))
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        asm(tg.zeros(3, 8, dtype=tg.float64), tg.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected"):
        asm(tg.zeros(3, 8, dtype=tg.float64), tg.zeros(3, 1, dtype=tg.int64))


@pytest.mark.torch
def test_matches_torch():
    torch = pytest.importorskip("torch")
    ours = make()
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 7], div_value=2.0).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    array = np.random.default_rng(4).standard_normal((6, 8))
    target = [0, 5, 9, 3, 8, 6]
    x_ours = tg.tensor(array, requires_grad=True)
    x_theirs = torch.tensor(array, requires_grad=True)
    out_ours = ours(x_ours, tg.tensor(target))
    out_theirs = theirs(x_theirs, torch.tensor(target))
    assert type(out_ours).__name__ == type(out_theirs).__name__ == "_ASMoutput"
    assert out_ours._fields == out_theirs._fields
    assert np.allclose(out_ours.output.detach().numpy(), out_theirs.output.detach().numpy())
    assert type(out_ours.output.grad_fn).__name__ == type(out_theirs.output.grad_fn).__name__
    out_ours.loss.backward()
    out_theirs.loss.backward()
    assert np.allclose(x_ours.grad.numpy(), x_theirs.grad.numpy())
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert np.allclose(p.grad.numpy(), q.grad.numpy()), name
    assert np.allclose(ours.log_prob(x_ours).detach().numpy(),
                       theirs.log_prob(x_theirs).detach().numpy())
    assert ours.predict(x_ours).tolist() == theirs.predict(x_theirs).tolist()
    for lib, module in ((tg, ours), (torch, theirs)):
        with pytest.raises(RuntimeError) as caught:
            module(lib.zeros(2, 8, dtype=lib.float64), lib.tensor([0, 10]))
        if lib is tg:
            message = str(caught.value)
    assert message == str(caught.value)
