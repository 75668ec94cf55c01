"""The activations added after the first ones: Mish, Hardswish, Hardsigmoid, Softsign,
Tanhshrink, Softshrink, Hardshrink, Softmin, GLU, CELU, Threshold, PReLU, RReLU.

Gradients against finite differences (first and second order, float64), values by hand,
RReLU's randomness by its bounds and seed, and PyTorch parity (``torch`` marker): values,
gradients, grad_fn names, reprs, parameters and errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad as torch
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(3)
# Away from every kink (±3 for hardswish, ±λ for the shrinks, 0 for threshold and prelu).
POINTS = [-4.1, -2.5, -1.2, -0.7, -0.2, 0.3, 0.9, 1.6, 2.4, 4.2]


def f64(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


FUNCTIONS = {
    "mish": F.mish,
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "softsign": F.softsign,
    "tanhshrink": F.tanhshrink,
    "softshrink": lambda x: F.softshrink(x, 0.5),
    "hardshrink": lambda x: F.hardshrink(x, 0.5),
    "softmin": lambda x: F.softmin(x.view(2, 5), dim=1),
    "glu": lambda x: F.glu(x.view(2, 5).t(), dim=1),
    "celu": lambda x: F.celu(x, alpha=1.5),
    "threshold": lambda x: F.threshold(x, 0.1, -3.0),
    "rrelu eval": lambda x: F.rrelu(x, 0.1, 0.3, training=False),
    "prelu": lambda x: F.prelu(x.view(2, 5), torch.tensor([0.2], dtype=torch.float64)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_gradients_match_finite_differences(name):
    x = f64(POINTS)
    assert gradcheck(FUNCTIONS[name], (x,))
    if name == "hardsigmoid":  # PyTorch has no second derivative for it, and says so
        with pytest.raises(RuntimeError, match="derivative for aten::hardsigmoid_backward "
                                               "is not implemented"):
            gradgradcheck(FUNCTIONS[name], (x,))
        return
    assert gradgradcheck(FUNCTIONS[name], (x,))


def test_prelu_gradient_reaches_the_slopes():
    x = f64(RNG.uniform(-2, 2, (4, 3, 2)))
    weight = f64([0.1, 0.25, 0.4])
    assert gradcheck(F.prelu, (x, weight))
    assert gradgradcheck(F.prelu, (x, weight))
    single = f64([0.3])
    assert gradcheck(F.prelu, (x, single))


def test_values_by_hand():
    x = torch.tensor([-4.0, -1.0, 0.0, 0.25, 1.0, 4.0])
    assert F.hardswish(x).tolist() == pytest.approx([0, -1 / 3, 0, 0.25 * 3.25 / 6, 4 / 6, 4])
    assert F.hardsigmoid(x).tolist() == pytest.approx([0, 1 / 3, 0.5, 3.25 / 6, 4 / 6, 1])
    assert F.softshrink(x, 0.5).tolist() == [-3.5, -0.5, 0.0, 0.0, 0.5, 3.5]
    assert F.hardshrink(x, 0.5).tolist() == [-4.0, -1.0, 0.0, 0.0, 1.0, 4.0]
    assert F.threshold(x, 0.25, 9.0).tolist() == [9.0, 9.0, 9.0, 9.0, 1.0, 4.0]
    assert F.softsign(x).tolist() == pytest.approx([-0.8, -0.5, 0, 0.2, 0.5, 0.8])
    assert F.celu(x, 2.0).tolist()[:2] == pytest.approx([2 * math.expm1(-2), 2 * math.expm1(-0.5)])
    assert F.mish(x).tolist()[4] == pytest.approx(math.tanh(math.log1p(math.e)))
    assert F.glu(torch.tensor([3.0, 1.0, 0.0, 2.0])).tolist() == pytest.approx(
        [3 * 0.5, 1 / (1 + math.exp(-2))])
    assert F.softmin(torch.tensor([0.0, math.log(3)]), 0).tolist() == pytest.approx([0.75, 0.25])


def test_rrelu_eval_uses_the_mean_slope():
    x = f64([-2.0, -0.5, 1.0])
    out = F.rrelu(x, 0.1, 0.3)  # training=False by default
    assert out.tolist() == pytest.approx([-0.4, -0.1, 1.0])
    module = nn.RReLU(0.1, 0.3).eval()
    assert module(x).tolist() == pytest.approx([-0.4, -0.1, 1.0])


def test_rrelu_training_draws_slopes_within_the_bounds_and_follows_the_seed():
    x = f64(-np.ones(2000))
    torch.manual_seed(0)
    out = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = -out.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), slopes)  # each element's own slope
    torch.manual_seed(0)
    again = F.rrelu(x.detach(), 0.1, 0.3, training=True)
    np.testing.assert_array_equal(again.numpy(), out.detach().numpy())
    positive = F.rrelu(f64([1.0, 2.0]), training=True)
    assert positive.tolist() == [1.0, 2.0]


def test_prelu_module_learns_its_slopes():
    layer = nn.PReLU(3, init=0.5)
    assert layer.weight.tolist() == [0.5, 0.5, 0.5] and layer.weight.requires_grad
    x = torch.tensor([[-1.0, -2.0, 3.0]])
    out = layer(x)
    assert out.tolist() == [[-0.5, -1.0, 3.0]]
    out.sum().backward()
    assert layer.weight.grad.tolist() == [-1.0, -2.0, 0.0]
    assert list(layer.state_dict()) == ["weight"]


def test_inplace_variants_write_into_the_input():
    for fn in (lambda t: F.mish(t, inplace=True), lambda t: F.hardswish(t, inplace=True),
               lambda t: F.hardsigmoid(t, inplace=True), lambda t: F.celu(t, inplace=True),
               lambda t: F.threshold(t, 0.0, 1.0, inplace=True),
               lambda t: F.rrelu(t, inplace=True)):
        x = torch.tensor([-1.0, 2.0])
        assert fn(x) is x


def test_errors():
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(torch.ones(3))
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        F.softshrink(torch.ones(2), -0.5)
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers"):
        F.prelu(torch.ones(2, 3), torch.ones(2))
    with pytest.raises(RuntimeError, match="alpha cannot be 0"):
        F.celu(torch.ones(2), 0.0)
    with pytest.raises(NotImplementedError, match="mish_cpu"):
        F.mish(torch.tensor([1, 2]))


# ----------------------------------------------------------------------------------------
# Parity with PyTorch
# ----------------------------------------------------------------------------------------
def _torch():
    return pytest.importorskip("torch")


PARITY = {  # name: call with the library and an input of shape (2, 6)
    "mish": lambda lib, x: lib.nn.functional.mish(x),
    "hardswish": lambda lib, x: lib.nn.functional.hardswish(x),
    "hardsigmoid": lambda lib, x: lib.nn.functional.hardsigmoid(x),
    "softsign": lambda lib, x: lib.nn.functional.softsign(x),
    "tanhshrink": lambda lib, x: lib.nn.functional.tanhshrink(x),
    "softshrink": lambda lib, x: lib.nn.functional.softshrink(x, 0.7),
    "hardshrink": lambda lib, x: lib.nn.functional.hardshrink(x, 0.7),
    "softmin": lambda lib, x: lib.nn.functional.softmin(x, 1),
    "glu": lambda lib, x: lib.nn.functional.glu(x),
    "glu dim 0": lambda lib, x: lib.nn.functional.glu(x, 0),
    "celu": lambda lib, x: lib.nn.functional.celu(x, 0.8),
    "threshold": lambda lib, x: lib.nn.functional.threshold(x, 0.2, -5.0),
    "rrelu eval": lambda lib, x: lib.nn.functional.rrelu(x, 0.2, 0.4),
    "prelu": lambda lib, x: lib.nn.functional.prelu(
        x.view(2, 3, 2), lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64)),
    "prelu single": lambda lib, x: lib.nn.functional.prelu(
        x, lib.tensor([0.1], dtype=lib.float64)),
}


# PyTorch's backward kernels of these two use float32 constants even for float64 tensors
# (1.0f / 6.0f; alpha as a float): their gradients differ from the exact ones by ~3e-8.
GRADIENT_RTOL = {"hardsigmoid": 1e-7, "celu": 1e-7}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(PARITY))
def test_values_gradients_and_names_match_torch(name):
    real = _torch()
    data = RNG.uniform(-4, 4, (2, 6))
    x, tx = f64(data), real.tensor(data, requires_grad=True)
    out, tout = PARITY[name](torch, x), PARITY[name](real, tx)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    assert out.grad_fn.name() == tout.grad_fn.name()
    weights = RNG.uniform(-1, 1, tuple(out.shape))
    (out * torch.tensor(weights)).sum().backward()
    (tout * real.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(),
                               rtol=GRADIENT_RTOL.get(name, 1e-12), atol=1e-15)
    if "prelu" not in name:  # (its slopes are float64 here)
        small = data.astype(np.float32)
        ours32 = PARITY[name](torch, torch.tensor(small))
        assert ours32.dtype == torch.float32
        np.testing.assert_allclose(ours32.numpy(), PARITY[name](real, real.tensor(small)).numpy(),
                                   rtol=1e-5, atol=1e-6)


MODULES = [
    lambda lib: lib.nn.Mish(), lambda lib: lib.nn.Mish(inplace=True),
    lambda lib: lib.nn.Hardswish(inplace=True), lambda lib: lib.nn.Hardsigmoid(),
    lambda lib: lib.nn.Softsign(), lambda lib: lib.nn.Tanhshrink(),
    lambda lib: lib.nn.Softshrink(), lambda lib: lib.nn.Softshrink(0.3),
    lambda lib: lib.nn.Hardshrink(0.2), lambda lib: lib.nn.Softmin(dim=1),
    lambda lib: lib.nn.Softmin(), lambda lib: lib.nn.GLU(), lambda lib: lib.nn.GLU(0),
    lambda lib: lib.nn.CELU(), lambda lib: lib.nn.CELU(2.0, inplace=True),
    lambda lib: lib.nn.Threshold(0.1, 20.0), lambda lib: lib.nn.Threshold(0.1, 20, True),
    lambda lib: lib.nn.PReLU(), lambda lib: lib.nn.PReLU(3, 0.1),
    lambda lib: lib.nn.RReLU(), lambda lib: lib.nn.RReLU(0.1, 0.3, inplace=True),
]


@pytest.mark.torch
@pytest.mark.parametrize("index", range(len(MODULES)))
def test_module_reprs_and_state_match_torch(index):
    real = _torch()
    ours, theirs = MODULES[index](torch), MODULES[index](real)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for key, value in theirs.state_dict().items():
        np.testing.assert_array_equal(ours.state_dict()[key].numpy(), value.numpy())
        assert str(ours.state_dict()[key].dtype).split(".")[1] == str(value.dtype).split(".")[1]


ERRORS = [
    ("glu odd", lambda lib: lib.nn.functional.glu(lib.ones(2, 3))),
    ("glu 0-d", lambda lib: lib.nn.functional.glu(lib.tensor(1.0))),
    ("glu dim", lambda lib: lib.nn.functional.glu(lib.ones(2, 4), 2)),
    ("glu int", lambda lib: lib.nn.functional.glu(lib.tensor([1, 2]))),
    ("softshrink negative", lambda lib: lib.nn.functional.softshrink(lib.ones(2), -0.5)),
    ("softshrink negative f64", lambda lib: lib.nn.functional.softshrink(
        lib.ones(2, dtype=lib.float64), -1.0)),
    ("softshrink int", lambda lib: lib.nn.functional.softshrink(lib.tensor([1, 2]))),
    ("hardshrink int", lambda lib: lib.nn.functional.hardshrink(lib.tensor([1, 2]))),
    ("mish int", lambda lib: lib.nn.functional.mish(lib.tensor([1, 2]))),
    ("hardswish int", lambda lib: lib.nn.functional.hardswish(lib.tensor([1, 2]))),
    ("hardsigmoid int", lambda lib: lib.nn.functional.hardsigmoid(lib.tensor([1, 2]))),
    ("celu zero alpha", lambda lib: lib.nn.functional.celu(lib.ones(2), 0.0)),
    ("celu int", lambda lib: lib.nn.functional.celu(lib.tensor([1, 2]))),
    ("rrelu bounds", lambda lib: lib.nn.functional.rrelu(lib.ones(2), 0.5, 0.1, training=True)),
    ("rrelu int", lambda lib: lib.nn.functional.rrelu(lib.tensor([1, 2]))),
    ("prelu channels", lambda lib: lib.nn.functional.prelu(lib.ones(2, 3), lib.ones(2))),
    ("prelu 1-d", lambda lib: lib.nn.functional.prelu(lib.ones(3), lib.ones(3))),
    ("prelu 2-d weight", lambda lib: lib.nn.functional.prelu(lib.ones(2, 3), lib.ones(3, 1))),
    ("prelu dtypes", lambda lib: lib.nn.PReLU()(lib.ones(2, dtype=lib.float64))),
    ("prelu int", lambda lib: lib.nn.functional.prelu(lib.tensor([1, -2]), lib.tensor([1]))),
    ("softmin int", lambda lib: lib.nn.functional.softmin(lib.tensor([1, 2]), 0)),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_match_torch(case):
    real = _torch()
    _, fn = case
    with pytest.raises(Exception) as theirs:
        fn(real)
    with pytest.raises(Exception) as ours:
        fn(torch)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]


@pytest.mark.torch
def test_integer_threshold_and_softsign_match_torch():
    real = _torch()
    for fn in (lambda lib: lib.nn.functional.threshold(lib.tensor([1, 2, 3]), 1.5, 7.5),
               lambda lib: lib.nn.functional.softsign(lib.tensor([1, -2])),
               lambda lib: lib.nn.functional.tanhshrink(lib.tensor([1, -2]))):
        ours, theirs = fn(torch), fn(real)
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_exports():
    for name in ("Mish", "Hardswish", "Hardsigmoid", "Softsign", "Tanhshrink", "Softshrink",
                 "Hardshrink", "Softmin", "GLU", "CELU", "Threshold", "PReLU", "RReLU"):
        assert name in nn.__all__ and hasattr(nn, name)
    for name in ("mish", "hardswish", "hardsigmoid", "softsign", "tanhshrink", "softshrink",
                 "hardshrink", "softmin", "glu", "celu", "threshold", "prelu", "rrelu"):
        assert name in F.__all__ and getattr(F, name).__doc__


# prelu's kernel saves the slopes reshaped to the input's number of dimensions ([1, C, 1,
# ...], a view; a 1-d input's [1] as it is), so its "modified by an inplace operation"
# error names that shape and, for the view, "output 0 of AsStrided" (PyTorch 2.13's words).
PRELU_SAVED = [  # (input shape, slopes, the saved slopes' description)
    ((2, 3), [0.25], "[torch.FloatTensor [1, 1]], which is output 0 of AsStrided,"),
    ((2, 3, 4), [0.25, 0.1, 0.2], "[torch.FloatTensor [1, 3, 1]], which is output 0 of AsStrided,"),
    ((2, 3, 4, 5), [1.0, 2.0, 3.0],
     "[torch.FloatTensor [1, 3, 1, 1]], which is output 0 of AsStrided,"),
    ((3,), [0.25], "[torch.FloatTensor [1]]"),
    ((), [0.25], "[torch.FloatTensor []], which is output 0 of AsStrided,"),
    ((2, 3), 0.25, "[torch.FloatTensor [1, 1]], which is output 0 of AsStrided,"),
]


def _prelu_changed_slopes(lib, shape, slopes):
    x = lib.ones(shape).neg().requires_grad_()
    w = lib.tensor(slopes, requires_grad=True)
    y = lib.nn.functional.prelu(x, w)
    with lib.no_grad():
        w.mul_(2)
    with pytest.raises(RuntimeError) as error:
        y.sum().backward()
    return str(error.value).split("\nHint:")[0]


@pytest.mark.parametrize("shape, slopes, saved", PRELU_SAVED)
def test_prelu_names_its_saved_slopes_as_pytorch(shape, slopes, saved):
    message = _prelu_changed_slopes(torch, shape, slopes)
    assert message.startswith(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {saved} is at version 1; expected version 0 instead.")
    real = pytest.importorskip("torch")
    assert message == _prelu_changed_slopes(real, shape, slopes)


def test_prelu_records_the_slopes_reshape_and_sums_their_gradient_per_channel():
    x = torch.tensor([[[-1.0, 2.0], [-3.0, -4.0]], [[-5.0, 6.0], [7.0, -8.0]]],
                     requires_grad=True)  # (2, 2, 2): channels along dim 1
    w = torch.tensor([0.5, 0.25], requires_grad=True)
    y = F.prelu(x, w)
    assert [type(fn).__name__ for fn, _ in y.grad_fn.next_functions] == [
        "AccumulateGrad", "ViewBackward0"]  # as PyTorch's graph
    y.sum().backward()
    # ∂/∂w_c = the sum of channel c's negative inputs: c0: -1 - 5, c1: -3 - 4 - 8
    assert w.grad.tolist() == [-6.0, -15.0]
    assert x.grad.tolist() == [[[0.5, 1.0], [0.25, 0.25]], [[0.5, 1.0], [1.0, 0.25]]]
