"""nn.init's structured initialisers, and nn.utils: weight_norm and spectral_norm (old hooks
and new parametrizations), parametrize, orthogonal, functional_call, BatchNorm fusion,
skip_init.

Properties and hand values without PyTorch; gradients against finite differences; PyTorch
parity (``torch`` marker) for state_dict keys, forward values, gradients, reprs, errors.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import nn
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck
from teachgrad.nn import init
from teachgrad.nn.utils import parametrizations, parametrize

RNG = np.random.default_rng(11)


def f64(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


def identity(n):
    return torch.eye(n, dtype=torch.float64)


# ----------------------------------------------------------------------------------------
# nn.init
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3)])
def test_orthogonal_init_gives_orthonormal_rows_or_columns(shape):
    w = init.orthogonal_(torch.empty(*shape, dtype=torch.float64), gain=2.0)
    flat = w.reshape(shape[0], -1)
    gram = flat @ flat.t() if flat.shape[0] <= flat.shape[1] else flat.t() @ flat
    assert np.allclose(gram.numpy(), 4 * np.eye(gram.shape[0]))


def test_eye_dirac_sparse():
    assert init.eye_(torch.empty(2, 3)).tolist() == [[1, 0, 0], [0, 1, 0]]
    weight = init.dirac_(torch.empty(4, 2, 3), groups=2)
    x = torch.randn(1, 4, 7)
    conv = nn.Conv1d(4, 4, 3, padding=1, groups=2, bias=False)
    with torch.no_grad():
        conv.weight.copy_(weight)
    assert torch.allclose(conv(x), x)  # a Dirac kernel makes the convolution the identity
    torch.manual_seed(0)
    sparse = init.sparse_(torch.empty(10, 4), sparsity=0.3)
    assert ((sparse == 0).sum(0) == 3).all()  # ⌈0.3·10⌉ zeros in every column
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions"):
        init.dirac_(torch.empty(2, 2))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(torch.empty(2))


@pytest.mark.parametrize("mean, std, a, b", [(0.5, 1.0, -1.0, 1.0), (0.0, 1.0, 2.0, 3.0)])
def test_trunc_normal_stays_in_bounds_with_the_right_mean(mean, std, a, b):
    torch.manual_seed(0)
    w = init.trunc_normal_(torch.empty(20000, dtype=torch.float64), mean, std, a, b)
    assert w.min().item() >= a and w.max().item() <= b

    def phi(x):
        return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)

    def cdf(x):
        return (1 + math.erf(x / math.sqrt(2))) / 2

    alpha, beta = (a - mean) / std, (b - mean) / std
    expected = mean + std * (phi(alpha) - phi(beta)) / (cdf(beta) - cdf(alpha))
    assert w.mean().item() == pytest.approx(expected, abs=0.02)


def test_deprecated_init_names_warn_and_work():
    w = torch.empty(2, 3)
    with pytest.warns(FutureWarning, match="`nn.init.constant` is now deprecated in favor of "
                                           "`nn.init.constant_`"):
        init.constant(w, 3.0)
    assert w.tolist() == [[3.0] * 3] * 2
    for name in ("uniform", "normal", "xavier_uniform", "xavier_normal", "kaiming_uniform",
                 "kaiming_normal", "eye", "orthogonal"):
        with pytest.warns(FutureWarning, match=f"`nn.init.{name}` is now deprecated"):
            getattr(init, name)(torch.empty(3, 3))
    with pytest.warns(FutureWarning):
        init.dirac(torch.empty(2, 2, 3))
    with pytest.warns(FutureWarning):
        init.sparse(torch.empty(3, 3), 0.5)


# ----------------------------------------------------------------------------------------
# weight_norm
# ----------------------------------------------------------------------------------------
def test_weight_norm_op_gradients():
    from teachgrad.nn.utils.weight_norm import weight_norm_interface

    v = f64(RNG.normal(size=(3, 4, 2)))
    for dim, g_shape in ((0, (3, 1, 1)), (2, (1, 1, 2)), (1, (1, 4, 1)), (-1, ())):
        g = f64(RNG.uniform(0.5, 2.0, size=g_shape))
        assert gradcheck(lambda a, b, dim=dim: weight_norm_interface(a, b, dim), (v, g))
    g = f64(RNG.uniform(0.5, 2.0, size=(3, 1, 1)))
    assert gradgradcheck(lambda a, b: weight_norm_interface(a, b, 0), (v, g))


def test_old_weight_norm_keeps_the_weight_and_splits_it():
    layer = nn.Linear(3, 2)
    before = layer.weight.detach().clone()
    with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated"):
        nn.utils.weight_norm(layer)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight_g", "weight_v"]
    assert torch.allclose(layer.weight, before)
    assert torch.allclose(layer.weight_g.view(-1), before.norm(dim=1))
    layer(torch.randn(4, 3)).sum().backward()
    assert layer.weight_g.grad.shape == (2, 1) and layer.weight_v.grad.shape == (2, 3)
    nn.utils.remove_weight_norm(layer)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"]
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        nn.utils.remove_weight_norm(layer)


def test_new_weight_norm_is_a_parametrization():
    layer = parametrizations.weight_norm(nn.Linear(3, 2))
    assert type(layer).__name__ == "ParametrizedLinear"
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original0",
                                        "parametrizations.weight.original1"]
    with torch.no_grad():
        layer.parametrizations.weight.original0.mul_(2)  # double each row's length
    rows = layer.weight.norm(dim=1)
    assert torch.allclose(rows, layer.parametrizations.weight.original0.view(-1))


# ----------------------------------------------------------------------------------------
# spectral_norm
# ----------------------------------------------------------------------------------------
def test_spectral_norm_makes_the_largest_singular_value_one():
    torch.manual_seed(0)
    layer = parametrizations.spectral_norm(nn.Linear(5, 4).double(), n_power_iterations=30)
    layer(torch.randn(2, 5, dtype=torch.float64))  # training: the power iteration runs
    top = np.linalg.svd(layer.weight.detach().numpy(), compute_uv=False)[0]
    assert top == pytest.approx(1.0, rel=1e-6)
    assert list(layer.state_dict()) == ["bias", "parametrizations.weight.original",
                                        "parametrizations.weight.0._u",
                                        "parametrizations.weight.0._v"]


def test_old_spectral_norm_hook():
    torch.manual_seed(0)
    layer = nn.utils.spectral_norm(nn.Linear(4, 3).double(), n_power_iterations=50)
    assert list(layer.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    layer(torch.randn(2, 4, dtype=torch.float64))
    top = np.linalg.svd(layer.weight.detach().numpy(), compute_uv=False)[0]
    assert top == pytest.approx(1.0, rel=1e-6)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        nn.utils.spectral_norm(layer)
    nn.utils.remove_spectral_norm(layer)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"]


def test_spectral_norm_gradient_matches_finite_differences():
    torch.manual_seed(0)
    layer = parametrizations.spectral_norm(nn.Linear(3, 3).double()).eval()
    x = f64(RNG.normal(size=(2, 3)), False)
    original = layer.parametrizations.weight.original

    def out(w):
        with torch.no_grad():
            original.copy_(w)
        return layer.parametrizations.weight[0](w) @ x.t()

    w0 = f64(original.detach().numpy().copy())
    assert gradcheck(out, (w0,))


# ----------------------------------------------------------------------------------------
# parametrize
# ----------------------------------------------------------------------------------------
class Symmetric(nn.Module):
    def forward(self, X):  # noqa: N803
        return X.triu() + X.triu(1).transpose(-1, -2)


class Doubled(nn.Module):
    def forward(self, X):  # noqa: N803
        return 2 * X

    def right_inverse(self, A):  # noqa: N803
        return A / 2


def test_register_parametrization_and_remove():
    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    assert parametrize.is_parametrized(layer) and parametrize.is_parametrized(layer, "weight")
    assert not parametrize.is_parametrized(layer, "bias")
    assert torch.equal(layer.weight, layer.weight.t())
    assert parametrize.type_before_parametrizations(layer) is nn.Linear
    assert isinstance(layer, nn.Linear)
    layer(torch.randn(2, 3)).sum().backward()
    grad = layer.parametrizations.weight.original.grad
    assert grad is not None and torch.equal(grad.tril(-1), torch.zeros(3, 3))  # unused part
    parametrize.remove_parametrizations(layer, "weight")
    assert type(layer) is nn.Linear and not parametrize.is_parametrized(layer)
    assert torch.equal(layer.weight, layer.weight.t())  # left parametrized
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"]


def test_right_inverse_and_chained_parametrizations():
    layer = nn.Linear(2, 2)
    target = torch.tensor([[1.0, 2.0], [2.0, 5.0]])
    parametrize.register_parametrization(layer, "weight", Doubled())
    layer.weight = target
    assert torch.allclose(layer.parametrizations.weight.original, target / 2)
    assert torch.allclose(layer.weight, target)
    parametrize.register_parametrization(layer, "weight", Doubled())
    assert torch.allclose(layer.weight, 2 * target)
    assert len(layer.parametrizations.weight) == 2


def test_cached_computes_once():
    calls = []

    class Counting(nn.Module):
        def forward(self, X):  # noqa: N803
            calls.append(1)
            return X

    layer = parametrize.register_parametrization(nn.Linear(2, 2), "weight", Counting(),
                                                 unsafe=True)
    calls.clear()
    with parametrize.cached():
        first, second = layer.weight, layer.weight
    assert len(calls) == 1 and first is second
    _ = layer.weight
    assert len(calls) == 2


def test_parametrize_errors():
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a "
                                         "parametrized element with name 'foo'"):
        parametrize.register_parametrization(nn.Linear(2, 2), "foo", Symmetric())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(nn.Linear(2, 2), "weight")

    class Shrink(nn.Module):
        def forward(self, X):  # noqa: N803
            return X[:1]

    with pytest.raises(ValueError, match="may not change the shape of the tensor"):
        parametrize.register_parametrization(nn.Linear(2, 2), "weight", Shrink())


# (Not "householder" after a free change: like PyTorch, it multiplies Q's columns by the
# int() of the free matrix's diagonal, which is 0 once that diagonal leaves -1; the parity
# test below checks it gives PyTorch's numbers.)
@pytest.mark.parametrize("shape, orthogonal_map", [
    ((3, 3), None), ((3, 3), "cayley"), ((4, 2), "matrix_exp"), ((2, 4), "matrix_exp"),
    ((2, 4), "cayley"),
])
def test_orthogonal_parametrization_stays_orthogonal(shape, orthogonal_map):
    torch.manual_seed(0)
    layer = nn.Linear(shape[1], shape[0]).double()
    parametrizations.orthogonal(layer, orthogonal_map=orthogonal_map)
    with torch.no_grad():  # any change of the free parameter keeps the weight orthogonal
        layer.parametrizations.weight.original.add_(torch.randn(*shape, dtype=torch.float64))
    w = layer.weight
    gram = w.t() @ w if shape[0] >= shape[1] else w @ w.t()
    assert torch.allclose(gram, identity(min(shape)), atol=1e-10)
    q = torch.linalg.qr(torch.randn(3, 3, dtype=torch.float64))[0]
    square = parametrizations.orthogonal(nn.Linear(3, 3).double())
    square.weight = q
    assert torch.allclose(square.weight, q, atol=1e-10)


def test_orthogonal_gradient_matches_finite_differences():
    layer = parametrizations.orthogonal(nn.Linear(3, 3).double())
    orth = layer.parametrizations.weight[0]
    x = f64(RNG.normal(size=(3, 3)) * 0.3)
    assert gradcheck(orth, (x,))
    assert gradcheck(lambda t: parametrizations.householder_product(
        t.tril(-1), 2.0 / (1.0 + (t.tril(-1) ** 2).sum(-2))), (f64(RNG.normal(size=(4, 2))),))


# ----------------------------------------------------------------------------------------
# functional_call, fusion, skip_init
# ----------------------------------------------------------------------------------------
def test_functional_call_uses_the_given_tensors_and_restores():
    layer = nn.Linear(2, 1)
    weight = f64([[1.0, 2.0]])
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
        out = nn.utils.stateless.functional_call(
            layer.double(), {"weight": weight, "bias": f64([0.5])}, (f64([[1.0, 1.0]], False),))
    assert out.item() == 3.5
    out.backward()
    assert weight.grad.tolist() == [[1.0, 1.0]]
    assert layer.weight.grad is None and isinstance(layer.weight, nn.Parameter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Missing key"):
            nn.utils.stateless.functional_call(layer, {"weight": weight}, (weight,), strict=True)


def test_fuse_conv_bn_and_linear_bn_compute_the_same():
    torch.manual_seed(0)
    conv, bn = nn.Conv2d(2, 3, 3).double().eval(), nn.BatchNorm2d(3).double().eval()
    with torch.no_grad():
        bn.running_mean.normal_()
        bn.running_var.uniform_(0.5, 2)
        bn.weight.normal_()
        bn.bias.normal_()
    x = torch.randn(2, 2, 5, 5, dtype=torch.float64)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    assert torch.allclose(fused(x), bn(conv(x)), atol=1e-12)
    assert isinstance(fused.weight, nn.Parameter) and fused is not conv
    linear, bn1 = nn.Linear(3, 4).double().eval(), nn.BatchNorm1d(4).double().eval()
    with torch.no_grad():
        bn1.running_mean.normal_()
        bn1.running_var.uniform_(0.5, 2)
    x = torch.randn(5, 3, dtype=torch.float64)
    assert torch.allclose(nn.utils.fuse_linear_bn_eval(linear, bn1)(x), bn1(linear(x)))
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_linear_bn_eval(linear.train(), bn1)


def test_skip_init():
    layer = nn.utils.skip_init(nn.Linear, 5, 1)
    assert isinstance(layer, nn.Linear) and layer.weight.shape == (1, 5)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        nn.utils.skip_init(nn.ReLU)


# ----------------------------------------------------------------------------------------
# PyTorch parity
# ----------------------------------------------------------------------------------------
def _twins(real, make):
    """A teachgrad module and a PyTorch one with PyTorch's initial values."""
    theirs = make(real).double()
    ours = make(torch).double()
    ours.load_state_dict({k: torch.tensor(v.detach().numpy().copy())
                          for k, v in theirs.state_dict().items()})
    return ours, theirs


def _same(a, b, tol=1e-9):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.torch
@pytest.mark.parametrize("dim", [0, 1, None])
def test_old_weight_norm_as_torch(dim):
    real = pytest.importorskip("torch")
    ours, theirs = _twins(real, lambda L: L.nn.Linear(3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real.nn.utils.weight_norm(theirs, dim=dim)
        nn.utils.weight_norm(ours, dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = RNG.normal(size=(4, 3))
    y_ours, y_theirs = ours(torch.tensor(x)), theirs(real.tensor(x))
    _same(y_ours, y_theirs)
    assert ours.weight.grad_fn.name() == theirs.weight.grad_fn.name()
    y_ours.sum().backward()
    y_theirs.sum().backward()
    _same(ours.weight_g.grad, theirs.weight_g.grad)
    _same(ours.weight_v.grad, theirs.weight_v.grad)


@pytest.mark.torch
def test_parametrized_weight_norm_as_torch():
    real = pytest.importorskip("torch")
    ours, theirs = _twins(real, lambda L: L.nn.Conv1d(2, 3, 3))
    parametrizations.weight_norm(ours)
    real.nn.utils.parametrizations.weight_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    x = RNG.normal(size=(2, 2, 5))
    y_ours, y_theirs = ours(torch.tensor(x)), theirs(real.tensor(x))
    _same(y_ours, y_theirs)
    assert ours.weight.grad_fn.name() == theirs.weight.grad_fn.name()
    y_ours.sum().backward()
    y_theirs.sum().backward()
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n1 == n2
        _same(p1.grad, p2.grad)


@pytest.mark.torch
@pytest.mark.parametrize("api", ["old", "new"])
def test_spectral_norm_as_torch(api):
    real = pytest.importorskip("torch")
    ours, theirs = _twins(real, lambda L: L.nn.Linear(3, 4))
    if api == "old":
        real.nn.utils.spectral_norm(theirs)
        nn.utils.spectral_norm(ours)
    else:
        real.nn.utils.parametrizations.spectral_norm(theirs)
        parametrizations.spectral_norm(ours)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    # u and v start random (different generators): take PyTorch's, then compare the steps.
    ours.load_state_dict({k: torch.tensor(v.detach().numpy().copy())
                          for k, v in theirs.state_dict().items()})
    x = RNG.normal(size=(4, 3))
    for training in (True, True, False):
        ours.train(training)
        theirs.train(training)
        y_ours, y_theirs = ours(torch.tensor(x)), theirs(real.tensor(x))
        _same(y_ours, y_theirs)
        y_ours.sum().backward()
        y_theirs.sum().backward()
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n1 == n2
        _same(p1.grad, p2.grad)
    for (n1, b1), (n2, b2) in zip(ours.named_buffers(), theirs.named_buffers()):
        assert n1 == n2
        _same(b1, b2)


@pytest.mark.torch
@pytest.mark.parametrize("shape, orthogonal_map", [
    ((3, 3), None), ((3, 3), "cayley"), ((3, 3), "householder"), ((4, 2), None),
    ((2, 4), None), ((4, 2), "matrix_exp"), ((2, 4), "cayley"),
])
def test_orthogonal_as_torch(shape, orthogonal_map):
    real = pytest.importorskip("torch")
    ours, theirs = _twins(real, lambda L: L.nn.Linear(shape[1], shape[0]))
    real.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map=orthogonal_map)
    parametrizations.orthogonal(ours, orthogonal_map=orthogonal_map)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    # (the base of a non-square weight is completed with random columns: take PyTorch's)
    ours.load_state_dict({k: torch.tensor(v.detach().numpy().copy())
                          for k, v in theirs.state_dict().items()})
    _same(ours.weight, theirs.weight)
    step = RNG.normal(size=shape) * 0.3
    with torch.no_grad():
        ours.parametrizations.weight.original.add_(torch.tensor(step))
    with real.no_grad():
        theirs.parametrizations.weight.original.add_(real.tensor(step))
    x = RNG.normal(size=(2, shape[1]))
    y_ours, y_theirs = ours(torch.tensor(x)), theirs(real.tensor(x))
    _same(y_ours, y_theirs)
    (y_ours ** 2).sum().backward()
    (y_theirs ** 2).sum().backward()
    _same(ours.parametrizations.weight.original.grad,
          theirs.parametrizations.weight.original.grad, 1e-8)


@pytest.mark.torch
def test_fusion_and_init_as_torch():
    real = pytest.importorskip("torch")
    conv, bn = _twins(real, lambda L: L.nn.Conv2d(2, 3, 3)), _twins(
        real, lambda L: L.nn.BatchNorm2d(3))
    stats = {"running_mean": RNG.normal(size=3), "running_var": RNG.uniform(0.5, 2, 3),
             "weight": RNG.normal(size=3), "bias": RNG.normal(size=3)}
    for name, values in stats.items():
        getattr(bn[0], name).data.copy_(torch.tensor(values))
        getattr(bn[1], name).data.copy_(real.tensor(values))
    for m in (*conv, *bn):
        m.eval()
    ours = nn.utils.fuse_conv_bn_eval(conv[0], bn[0])
    theirs = real.nn.utils.fuse_conv_bn_eval(conv[1], bn[1])
    _same(ours.weight, theirs.weight)
    _same(ours.bias, theirs.bias)
    assert init.eye_(torch.empty(2, 3)).tolist() == real.nn.init.eye_(real.empty(2, 3)).tolist()
    assert init.dirac_(torch.empty(4, 2, 3, 3), 2).tolist() == real.nn.init.dirac_(
        real.empty(4, 2, 3, 3), 2).tolist()


@pytest.mark.torch
def test_errors_as_torch():
    real = pytest.importorskip("torch")

    def message(lib, fn):
        with pytest.raises(Exception) as caught:
            fn(lib)
        return type(caught.value).__name__, str(caught.value).split("\nHint:")[0]

    cases = [
        lambda L: L.nn.utils.remove_weight_norm(L.nn.Linear(2, 2)),
        lambda L: L.nn.utils.remove_spectral_norm(L.nn.Linear(2, 2)),
        lambda L: L.nn.utils.spectral_norm(L.nn.utils.spectral_norm(L.nn.Linear(2, 2))),
        lambda L: L.nn.utils.parametrize.remove_parametrizations(L.nn.Linear(2, 2), "weight"),
        lambda L: L.nn.utils.parametrize.register_parametrization(L.nn.Linear(2, 2), "foo",
                                                                  L.nn.Identity()),
        lambda L: L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 2), "bias"),
        lambda L: L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 2),
                                                         orthogonal_map="qr"),
        lambda L: L.nn.init.orthogonal_(L.empty(3)),
        lambda L: L.nn.init.sparse_(L.empty(3), 0.1),
        lambda L: L.nn.init.dirac_(L.empty(3, 2, 2), groups=2),
        lambda L: L.nn.utils.skip_init(L.nn.ReLU),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in cases:
            assert message(torch, case) == message(real, case)
