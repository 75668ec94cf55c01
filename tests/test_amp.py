"""torch.amp as PyTorch runs it without a GPU: PyTorch's mixed-precision recipe runs
unchanged, switched off with PyTorch's warnings, and what teachgrad cannot do is refused."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgrad

LIBRARIES = ["teachgrad", "torch"]


def library(name):
    return teachgrad if name == "teachgrad" else pytest.importorskip("torch")


def _train(torch, use_amp: bool | None):
    """Three SGD steps of a linear model; with the AMP recipe's lines when use_amp is not
    None. Returns the weights and the warnings' messages."""
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    with torch.no_grad():  # the same start in both libraries
        model.weight.copy_(torch.tensor([[0.5, -1.0, 2.0]]))
        model.bias.fill_(0.25)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
    y = torch.tensor([[1.0], [0.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = torch.amp.GradScaler("cuda", enabled=bool(use_amp))
        for _ in range(3):
            opt.zero_grad()
            if use_amp is None:
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                opt.step()
            else:
                with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
                    loss = torch.nn.functional.mse_loss(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
    weights = np.concatenate([model.weight.detach().numpy().ravel(),
                              model.bias.detach().numpy()])
    return weights, sorted({str(w.message) for w in caught})


@pytest.mark.parametrize("name", LIBRARIES)
@pytest.mark.parametrize("use_amp", [True, False])
def test_the_recipe_trains_as_the_plain_loop(name, use_amp):
    torch = library(name)
    plain, _ = _train(torch, None)
    amp, _ = _train(torch, use_amp)
    np.testing.assert_array_equal(amp, plain)
    # the plain loop by hand: mse's gradient 2/N (Xw + b - y) X, three times
    w, b = np.array([0.5, -1.0, 2.0], np.float32), np.float32(0.25)
    X = np.array([[1, 2, 3], [-1, 0.5, 0]], np.float32)
    Y = np.array([1, 0], np.float32)
    for _ in range(3):
        r = X @ w + b - Y
        w, b = w - 0.1 * (r @ X), b - 0.1 * r.sum()
    np.testing.assert_allclose(plain, np.append(w, b), rtol=1e-5)  # (float32 sums)


@pytest.mark.parametrize("name", LIBRARIES)
def test_switched_on_for_cuda_it_warns_as_pytorch_without_a_gpu(name):
    torch = library(name)
    if name == "torch" and torch.cuda.is_available():
        pytest.skip("PyTorch has a GPU here")
    _, messages = _train(torch, True)
    assert messages == [
        "CUDA is not available or torch_xla is imported. Disabling autocast.",
        "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
    ]
    _, messages = _train(torch, False)
    assert messages == []


@pytest.mark.parametrize("name", LIBRARIES)
def test_a_switched_off_scaler_is_the_identity(name):
    torch = library(name)
    scaler = torch.amp.GradScaler(enabled=False)
    loss = torch.tensor(3.0, requires_grad=True) * 2
    assert scaler.scale(loss) is loss
    assert not scaler.is_enabled()
    assert scaler.get_scale() == 1.0
    assert scaler.state_dict() == {}
    assert scaler.unscale_(torch.optim.SGD([torch.zeros(1, requires_grad=True)])) is None
    assert scaler.load_state_dict({}) is None


@pytest.mark.parametrize("name", LIBRARIES)
def test_autocast_switched_off_changes_no_dtype_and_decorates(name):
    torch = library(name)
    with torch.autocast("cpu", enabled=False):
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float32

    @torch.autocast("cpu", enabled=False)
    def product(a):
        return a @ a

    assert product(torch.eye(2, dtype=torch.float64)).dtype == torch.float64
    assert not torch.is_autocast_enabled()


@pytest.mark.parametrize("name", LIBRARIES)
def test_bad_device_types_get_pytorchs_errors(name):
    torch = library(name)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`, got: "
                                         "`<class 'int'>`"):
        torch.autocast(1)
    with pytest.raises(RuntimeError, match="Invalid device string: 'xpu2'"):
        torch.autocast("xpu2")


def test_what_teachgrad_cannot_do_is_refused_with_a_hint():
    # PyTorch computes matmuls in bfloat16 under CPU autocast; NumPy has no bfloat16.
    for make in (lambda: teachgrad.autocast("cpu"),
                 lambda: teachgrad.autocast("cpu", dtype=teachgrad.float16),
                 lambda: teachgrad.amp.GradScaler("cpu")):
        with pytest.raises(RuntimeError, match="not available in teachgrad\nHint: .*"
                                               "enabled=False"):
            make()
