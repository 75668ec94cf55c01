"""Layers: Linear's initialisation, Dropout, Flatten, and every activation's gradient
against finite differences (values and PyTorch's names: see test_nn_cases.py)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import teachgrad as torch
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck


def f64(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


# ----------------------------------------------------------------------------------------
# Linear
# ----------------------------------------------------------------------------------------
def test_linear_shapes_and_default_initialisation():
    torch.manual_seed(0)
    layer = nn.Linear(400, 300)
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert w.shape == (300, 400) and b.shape == (300,) and w.dtype == np.float32
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=√5) and the bias rule both give this
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # A uniform distribution on [-bound, bound]: mean 0, standard deviation bound/√3.
    assert abs(w.mean()) < 0.01 * bound
    assert abs(w.std() / (bound / math.sqrt(3)) - 1) < 0.01
    assert np.abs(w).max() > 0.99 * bound


def test_linear_initialisation_follows_the_seed():
    torch.manual_seed(3)
    a = nn.Linear(3, 2)
    torch.manual_seed(3)
    b = nn.Linear(3, 2)
    assert torch.equal(a.weight.detach(), b.weight.detach())
    assert not torch.equal(a.weight.detach(), nn.Linear(3, 2).weight.detach())


def test_linear_dtype_and_no_bias():
    layer = nn.Linear(3, 2, bias=False, dtype=torch.float64)
    assert layer.bias is None and layer.weight.dtype == torch.float64
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    assert layer(torch.ones(4, 3, dtype=torch.float64)).dtype == torch.float64


@pytest.mark.parametrize("shape", [(4, 3), (3,), (2, 5, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_gradcheck(shape, bias):
    torch.manual_seed(1)
    layer = nn.Linear(3, 2, bias=bias).double()
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    params = (layer.weight, layer.bias) if bias else (layer.weight,)
    assert gradcheck(lambda x, *p: F.linear(x, *p), (x, *params))


def test_linear_matches_the_formula():
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]])
    w = torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]])
    b = torch.tensor([10.0, 20.0])
    expected = x.numpy() @ w.numpy().T + b.numpy()
    np.testing.assert_allclose(F.linear(x, w, b).numpy(), expected)
    np.testing.assert_allclose(F.linear(x, w).numpy(), x.numpy() @ w.numpy().T)


def test_linear_failure_leaves_no_trace():
    layer = nn.Linear(2, 3)
    before = layer.weight.detach().clone()
    with pytest.raises(RuntimeError, match=r"\(4x3 and 2x3\)\nHint: the layer takes 2"):
        layer(torch.ones(4, 3))
    assert torch.equal(layer.weight.detach(), before) and layer.weight.grad is None


def test_linear_refuses_what_is_not_a_tensor():
    # PyTorch's sentence, not an AttributeError from inside the layer.
    w = torch.ones(2, 3)
    with pytest.raises(TypeError, match=r"argument 'input' \(position 1\) must be Tensor"):
        F.linear(np.ones((4, 3)), w)
    with pytest.raises(TypeError, match=r"argument 'weight' \(position 2\) must be Tensor"):
        F.linear(torch.ones(4, 3), [[1.0, 2.0, 3.0]])


@pytest.mark.parametrize("bias_shape", [(1,), (4, 2), ()])
def test_linear_with_an_unusual_bias_takes_addmm_s_checks(bias_shape):
    # A (2,)-shaped bias is the fast case; others go through addmm, which broadcasts a
    # bias that fits and raises PyTorch's error for one that does not.
    x, w = torch.ones(4, 3), torch.ones(2, 3)
    b = torch.ones(bias_shape)
    np.testing.assert_allclose(F.linear(x, w, b).numpy(), np.full((4, 2), 4.0))
    with pytest.raises(RuntimeError, match="expand"):
        F.linear(x, w, torch.ones(3))
    with pytest.raises(RuntimeError, match="same dtype"):
        F.linear(x, w, torch.ones(2, dtype=torch.float64))


# ----------------------------------------------------------------------------------------
# Activations: gradients by finite differences, second derivatives too
# ----------------------------------------------------------------------------------------
# Points chosen away from the kinks (0 for relu-like functions, ±1 for hardtanh), where
# finite differences are not defined.
POINTS = [-3.1, -1.7, -0.6, -0.2, 0.3, 0.8, 1.4, 2.9, 25.0]

ACTIVATIONS = {
    "relu": F.relu,
    "sigmoid": F.sigmoid,
    "tanh": F.tanh,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "elu": lambda x: F.elu(x, alpha=0.7),
    "selu": F.selu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "softplus": lambda x: F.softplus(x, beta=1.5, threshold=10.0),
    "hardtanh": lambda x: F.hardtanh(x, -2.0, 2.5),
    "relu6": F.relu6,
    "logsigmoid": F.logsigmoid,
}
TWICE = set(ACTIVATIONS) - {"gelu"}  # exact GELU's second derivative: a clear error instead


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_gradcheck(name):
    assert gradcheck(ACTIVATIONS[name], (f64(POINTS),))


@pytest.mark.parametrize("name", sorted(TWICE))
def test_activation_gradgradcheck(name):
    assert gradgradcheck(ACTIVATIONS[name], (f64(POINTS),))


def test_exact_gelu_differentiates_twice_through_erf():
    x = f64([0.5])
    (g,) = torch.autograd.grad(F.gelu(x).sum(), x)
    assert g.item() == pytest.approx(0.5 * (1 + math.erf(0.5 / math.sqrt(2)))
                                     + 0.5 * math.exp(-0.125) / math.sqrt(2 * math.pi))
    # Φ(a) in gelu's backward is a recorded erf under create_graph: gelu'' = φ(a)(2 − a²).
    (g,) = torch.autograd.grad(F.gelu(x).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert gg.item() == pytest.approx(math.exp(-0.125) / math.sqrt(2 * math.pi) * (2 - 0.25))
    assert gradgradcheck(F.gelu, (f64(POINTS),))


@pytest.mark.parametrize("name", ["logsigmoid", "softplus", "silu", "sigmoid", "elu"])
def test_activations_do_not_overflow(name):
    x = torch.tensor([-1000.0, -100.0, 100.0, 1000.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a NumPy overflow warning would fail here
        y = ACTIVATIONS[name](x)
        (g,) = torch.autograd.grad(y.sum(), x)
    assert np.isfinite(y.detach().numpy()).all() and np.isfinite(g.numpy()).all()


def test_logsigmoid_and_softplus_by_hand():
    x = torch.tensor([-1000.0, 0.0, 1000.0])
    np.testing.assert_allclose(F.logsigmoid(x).numpy(), [-1000.0, -math.log(2), 0.0])
    np.testing.assert_allclose(F.softplus(x).numpy(), [0.0, math.log(2), 1000.0])


def test_inplace_activation_changes_its_input():
    x = torch.tensor([-1.0, 2.0])
    y = F.relu(x, inplace=True)
    assert y is x and x.tolist() == [0.0, 2.0]
    z = torch.tensor([-1.0, 3.0])
    nn.LeakyReLU(0.5, inplace=True)(z)
    assert z.tolist() == [-0.5, 3.0]


# ----------------------------------------------------------------------------------------
# Dropout, Flatten, Identity
# ----------------------------------------------------------------------------------------
def test_dropout_in_training_zeroes_and_rescales():
    torch.manual_seed(0)
    x = torch.ones(200, 100, requires_grad=True)
    y = F.dropout(x, p=0.3)
    values = y.detach().numpy()
    kept = values != 0
    np.testing.assert_allclose(values[kept], 1 / 0.7, rtol=1e-6)
    assert abs(1 - kept.mean() - 0.3) < 0.01  # about p of the units are dropped
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), values)  # the gradient uses the same mask


def test_dropout_module_follows_train_and_eval():
    torch.manual_seed(1)
    drop = nn.Dropout(0.5)
    x = torch.ones(1000)
    assert (drop(x) == 0).any()
    drop.eval()
    assert drop(x) is x  # in evaluation mode the input comes back untouched
    assert F.dropout(x, 0.0) is x


def test_dropout_inplace():
    torch.manual_seed(2)
    x = torch.ones(100)
    out = F.dropout(x, 0.5, inplace=True)
    assert out is x and set(np.unique(x.numpy())) <= {0.0, 2.0}


def test_flatten_and_identity():
    x = torch.zeros(8, 2, 3, 4)
    assert nn.Flatten()(x).shape == (8, 24)
    assert nn.Flatten(0, 2)(x).shape == (48, 4)
    assert nn.Flatten(2)(x).shape == (8, 2, 12)
    assert nn.Identity()(x) is x
