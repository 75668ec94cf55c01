"""Forward-mode AD (``teachgrad.autograd.forward_ad``).

Every tangent is checked three ways: against the reverse-mode Jacobian times the
tangent (``autograd.functional.jacobian``), against central finite differences (float64),
and, when PyTorch is installed, against PyTorch's own forward AD.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
import teachgrad.autograd.forward_ad as fwAD
from teachgrad.autograd.functional import hvp, jacobian
from teachgrad.ops.op import Op

# ----------------------------------------------------------------------------------------
# A sweep of ops: name -> (function of (lib, *inputs), input makers)
# ----------------------------------------------------------------------------------------
R = "normal"
P = "positive"


def _cases():
    def F(L):
        return L.nn.functional

    return {
        "add_broadcast": (lambda L, a, b: a + b, [(R, (3, 4)), (R, (4,))]),
        "mul_broadcast": (lambda L, a, b: a * b, [(R, (3, 4)), (R, (3, 1))]),
        "div": (lambda L, a, b: a / b, [(R, (3,)), (P, (3,))]),
        "pow": (lambda L, a, b: a ** b, [(P, (3,)), (R, (3,))]),
        "sub_scalar": (lambda L, a: 2.5 - a, [(R, (3,))]),
        "exp": (lambda L, a: a.exp(), [(R, (5,))]),
        "log": (lambda L, a: a.log(), [(P, (5,))]),
        "tanh": (lambda L, a: a.tanh(), [(R, (5,))]),
        "sigmoid": (lambda L, a: a.sigmoid(), [(R, (5,))]),
        "sqrt": (lambda L, a: a.sqrt(), [(P, (5,))]),
        "erf": (lambda L, a: L.erf(a), [(R, (4,))]),
        "lgamma": (lambda L, a: L.lgamma(a), [(P, (4,))]),
        "atan2": (lambda L, a, b: L.atan2(a, b), [(R, (3,)), (R, (3,))]),
        "abs": (lambda L, a: a.abs(), [(R, (5,))]),
        "clamp": (lambda L, a: a.clamp(-0.5, 0.5), [(R, (6,))]),
        "sum_dim": (lambda L, a: a.sum(0), [(R, (3, 4))]),
        "mean": (lambda L, a: a.mean(), [(R, (3, 4))]),
        "var": (lambda L, a: a.var(1), [(R, (3, 4))]),
        "prod": (lambda L, a: a.prod(), [(P, (4,))]),
        "norm": (lambda L, a: a.norm(), [(R, (4,))]),
        "max_dim": (lambda L, a: a.max(1)[0], [(R, (3, 4))]),
        "logsumexp": (lambda L, a: a.logsumexp(1), [(R, (3, 4))]),
        "cumsum": (lambda L, a: a.cumsum(0), [(R, (4,))]),
        "reshape": (lambda L, a: a.reshape(4, 3), [(R, (3, 4))]),
        "transpose": (lambda L, a: a.t(), [(R, (3, 4))]),
        "permute": (lambda L, a: a.permute(2, 0, 1), [(R, (2, 3, 4))]),
        "expand": (lambda L, a: a.expand(3, 4), [(R, (1, 4))]),
        "unsqueeze_squeeze": (lambda L, a: a.unsqueeze(0).squeeze(1), [(R, (3, 1))]),
        "cat": (lambda L, a, b: L.cat([a, b], 0), [(R, (2, 3)), (R, (1, 3))]),
        "stack": (lambda L, a, b: L.stack([a, b]), [(R, (3,)), (R, (3,))]),
        "flip": (lambda L, a: a.flip(0), [(R, (3, 2))]),
        "split": (lambda L, a: a.split(2)[1], [(R, (5,))]),
        "unbind": (lambda L, a: a.unbind(0)[1], [(R, (3, 2))]),
        "diagonal": (lambda L, a: a.diagonal(), [(R, (3, 3))]),
        "tril": (lambda L, a: a.tril(), [(R, (3, 3))]),
        "matmul": (lambda L, a, b: a @ b, [(R, (3, 4)), (R, (4, 2))]),
        "bmm": (lambda L, a, b: L.bmm(a, b), [(R, (2, 3, 4)), (R, (2, 4, 2))]),
        "einsum": (lambda L, a, b: L.einsum("ij,jk->ik", a, b), [(R, (2, 3)), (R, (3, 2))]),
        "index_basic_and_advanced": (lambda L, a: a[[0, 2], 1:], [(R, (3, 4))]),
        "gather": (
            lambda L, a: a.gather(1, L.tensor([[0, 1], [2, 3], [1, 1]])), [(R, (3, 4))]
        ),
        "masked_select": (lambda L, a: a[a > 0], [(R, (6,))]),
        "where": (lambda L, a, b: L.where(a > 0, a, b), [(R, (5,)), (R, (5,))]),
        "scatter_add": (
            lambda L, a, b: a.scatter_add(0, L.tensor([0, 1, 0]), b), [(R, (3,)), (R, (3,))]
        ),
        "index_add": (
            lambda L, a, b: a.index_add(0, L.tensor([0, 2]), b), [(R, (3, 2)), (R, (2, 2))]
        ),
        "sort": (lambda L, a: a.sort()[0], [(R, (5,))]),
        "topk": (lambda L, a: a.topk(2)[0], [(R, (5,))]),
        "conv2d": (
            lambda L, x, w, b: F(L).conv2d(x, w, b, padding=1),
            [(R, (1, 2, 4, 4)), (R, (3, 2, 3, 3)), (R, (3,))],
        ),
        "conv1d_stride": (
            lambda L, x, w: F(L).conv1d(x, w, stride=2), [(R, (2, 2, 7)), (R, (3, 2, 3))]
        ),
        "max_pool2d": (lambda L, a: F(L).max_pool2d(a, 2), [(R, (1, 1, 4, 4))]),
        "avg_pool2d": (lambda L, a: F(L).avg_pool2d(a, 2), [(R, (1, 1, 4, 4))]),
        "softmax": (lambda L, a: F(L).softmax(a, 1), [(R, (3, 4))]),
        "log_softmax": (lambda L, a: F(L).log_softmax(a, 1), [(R, (3, 4))]),
        "relu": (lambda L, a: F(L).relu(a), [(R, (6,))]),
        "gelu": (lambda L, a: F(L).gelu(a), [(R, (6,))]),
        "linear": (
            lambda L, x, w, b: F(L).linear(x, w, b), [(R, (2, 3)), (R, (4, 3)), (R, (4,))]
        ),
        "layer_norm": (lambda L, a, w: F(L).layer_norm(a, (4,), w), [(R, (3, 4)), (R, (4,))]),
        "batch_norm_train": (
            lambda L, a: F(L).batch_norm(a, None, None, training=True), [(R, (5, 3))]
        ),
        "mse_loss": (lambda L, a, b: F(L).mse_loss(a, b), [(R, (3, 4)), (R, (3, 4))]),
        "cross_entropy": (
            lambda L, a: F(L).cross_entropy(a, L.tensor([1, 0, 3])), [(R, (3, 4))]
        ),
        "bce_with_logits": (
            lambda L, a, b: F(L).binary_cross_entropy_with_logits(a, b.sigmoid()),
            [(R, (4,)), (R, (4,))],
        ),
        "interpolate_bilinear": (
            lambda L, a: F(L).interpolate(a, scale_factor=2, mode="bilinear"),
            [(R, (1, 1, 2, 2))],
        ),
        "pad_reflect": (lambda L, a: F(L).pad(a, (1, 1), mode="reflect"), [(R, (1, 2, 4))]),
        "embedding": (
            lambda L, w: F(L).embedding(L.tensor([0, 2, 2]), w), [(R, (3, 2))]
        ),
        "det": (lambda L, a: L.linalg.det(a), [(R, (3, 3))]),
        "inv": (lambda L, a: L.linalg.inv(a), [(R, (3, 3))]),
        "solve": (lambda L, a, b: L.linalg.solve(a, b), [(R, (3, 3)), (R, (3,))]),
        "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a + a.T), [(R, (3, 3))]),
        "svdvals": (lambda L, a: L.linalg.svdvals(a), [(R, (3, 2))]),
    }


CASES = _cases()


def _inputs(kinds, seed=0):
    rng = np.random.default_rng(seed)
    arrays = []
    for kind, shape in kinds:
        a = rng.standard_normal(shape)
        arrays.append(rng.uniform(0.5, 2.0, shape) if kind == P else a)
    return arrays, [rng.standard_normal(shape) for _, shape in kinds]


def _tangent_of_output(fn, arrays, tangents):
    with fwAD.dual_level():
        duals = [
            fwAD.make_dual(teachgrad.tensor(a), teachgrad.tensor(t))
            for a, t in zip(arrays, tangents)
        ]
        out = fn(teachgrad, *duals)
        primal, tangent = fwAD.unpack_dual(out)
    return primal.numpy(), tangent.numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_is_reverse_mode_jacobian_times_tangent(name):
    fn, kinds = CASES[name]
    arrays, tangents = _inputs(kinds)
    primal, tangent = _tangent_of_output(fn, arrays, tangents)
    inputs = tuple(teachgrad.tensor(a) for a in arrays)
    jac = jacobian(lambda *xs: fn(teachgrad, *xs), inputs)
    expected = sum(
        J.numpy().reshape(primal.shape + (-1,)) @ t.reshape(-1) for J, t in zip(jac, tangents)
    )
    np.testing.assert_allclose(primal, fn(teachgrad, *inputs).numpy())
    np.testing.assert_allclose(tangent, expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_matches_finite_differences(name):
    fn, kinds = CASES[name]
    arrays, tangents = _inputs(kinds, seed=1)
    _, tangent = _tangent_of_output(fn, arrays, tangents)
    eps = 1e-6

    def at(step):
        xs = [teachgrad.tensor(a + step * t) for a, t in zip(arrays, tangents)]
        return fn(teachgrad, *xs).numpy()

    np.testing.assert_allclose(tangent, (at(eps) - at(-eps)) / (2 * eps), rtol=1e-5, atol=1e-6)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    fn, kinds = CASES[name]
    arrays, tangents = _inputs(kinds, seed=2)
    primal, tangent = _tangent_of_output(fn, arrays, tangents)
    with torch.autograd.forward_ad.dual_level():
        duals = [
            torch.autograd.forward_ad.make_dual(torch.tensor(a), torch.tensor(t))
            for a, t in zip(arrays, tangents)
        ]
        theirs = torch.autograd.forward_ad.unpack_dual(fn(torch, *duals))
    np.testing.assert_allclose(primal, theirs.primal.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tangent, theirs.tangent.numpy(), rtol=1e-9, atol=1e-10)


# ----------------------------------------------------------------------------------------
# Levels, make_dual, unpack_dual
# ----------------------------------------------------------------------------------------
def test_unpack_dual_gives_the_namedtuple_and_the_very_tangent():
    x, t = teachgrad.tensor([1.0, 2.0]), teachgrad.tensor([1.0, 0.0])
    with fwAD.dual_level() as level:
        assert level == 0
        dual = fwAD.make_dual(x, t)
        unpacked = fwAD.unpack_dual(dual)
        assert isinstance(unpacked, fwAD.UnpackedDualTensor)
        assert unpacked.tangent is t and unpacked[1] is t
        assert unpacked.primal.tolist() == [1.0, 2.0]
        assert fwAD.unpack_dual(unpacked.primal).tangent is None  # the primal is not dual
        assert dual._base is x  # a view of the primal, as in PyTorch
        assert fwAD.unpack_dual(x).tangent is None
    assert fwAD.unpack_dual(dual) == (dual, None)  # outside the level: no tangent


def test_tangents_are_forgotten_when_the_level_exits():
    with fwAD.dual_level():
        y = fwAD.make_dual(teachgrad.tensor(2.0), teachgrad.tensor(1.0)) * 3
    with fwAD.dual_level():
        assert fwAD.unpack_dual(y).tangent is None
        assert repr(y) == "tensor(6.)"


def test_op_apply_is_swapped_only_inside_a_level():
    plain = Op.__dict__["apply"]
    with fwAD.dual_level():
        assert Op.__dict__["apply"] is not plain
    assert Op.__dict__["apply"] is plain
    fwAD.enter_dual_level()
    fwAD.exit_dual_level()
    assert Op.__dict__["apply"] is plain


def test_dual_level_as_a_decorator():
    @fwAD.dual_level()
    def tangent_of_square(x, t):
        return fwAD.unpack_dual(fwAD.make_dual(x, t) ** 2).tangent

    assert tangent_of_square(teachgrad.tensor(3.0), teachgrad.tensor(1.0)).item() == 6.0


def test_repr_shows_the_tangent():
    with fwAD.dual_level():
        dual = fwAD.make_dual(teachgrad.tensor([1.0, 2.0]), teachgrad.tensor([1.0, 0.0]))
        assert repr(dual) == "tensor([1., 2.], tangent=tensor([1., 0.]))"


def test_repr_of_a_zero_dim_dual_formats_the_tangent_as_a_number():
    # PyTorch writes f"tangent={tangent}", and a 0-d tensor formats as its number:
    # torch 2.13 prints exactly this for (2 + ε)³.
    with fwAD.dual_level():
        cube = fwAD.make_dual(teachgrad.tensor(2.0), teachgrad.tensor(1.0)) ** 3
        assert repr(cube) == "tensor(8., tangent=12.0)"


ERRORS = [
    (lambda x, t: fwAD.make_dual(x, teachgrad.ones(3)), RuntimeError,
     "Trying to set a forward gradient that has a different size than that of the original "
     "Tensor, this is not supported. Tensor is of size [2] while the given forward gradient "
     "is of size [3]."),
    (lambda x, t: fwAD.make_dual(teachgrad.tensor([1, 2]), teachgrad.tensor([1, 2])),
     ValueError, "Expected primal to be floating point or complex, but got: "),
    (lambda x, t: fwAD.make_dual(x, teachgrad.tensor([1, 2])), ValueError,
     "Expected tangent to be floating point or complex, but got: "),
    (lambda x, t: fwAD.make_dual(x, t, level=5), RuntimeError,
     "Invalid level given to _make_dual"),
    (lambda x, t: fwAD.unpack_dual(fwAD.make_dual(x, t), level=3), RuntimeError,
     "Invalid level given to _fw_primal"),
    (lambda x, t: fwAD.enter_dual_level(), RuntimeError,
     "Nested forward mode AD is not supported at the moment"),
    (lambda x, t: fwAD.make_dual(fwAD.make_dual(x, t), t), RuntimeError,
     "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
     "same level 0 is not supported."),
    (lambda x, t: fwAD.make_dual(x, fwAD.make_dual(t, t)), RuntimeError,
     "Setting a forward grad that itself has a forward gradient at the same level0 is not "
     "supported."),
    (lambda x, t: fwAD.make_dual(x, fwAD.make_dual(teachgrad.ones(3), t[:1].expand(3))),
     RuntimeError, "Setting a forward grad that itself has a forward gradient"),
    (lambda x, t: fwAD.make_dual(fwAD.make_dual(x, t), teachgrad.ones(3)), RuntimeError,
     "Making a dual Tensor based on a Tensor that already has a forward gradient"),
    (lambda x, t: fwAD.unpack_dual(x.max(0)), TypeError,
     "_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "),
    (lambda x, t: fwAD.make_dual(x, t) // 2, NotImplementedError,
     "Trying to use forward AD with aten::floor_divide that does not support it."),
    (lambda x, t: teachgrad.nn.functional.ctc_loss(
        fwAD.make_dual(x, t).reshape(2, 1, 1).expand(2, 1, 2).log_softmax(2),
        teachgrad.tensor([[1]]), teachgrad.tensor([2]), teachgrad.tensor([1])),
     NotImplementedError,
     "Trying to use forward AD with _ctc_loss that does not support it because it has not "
     "been implemented yet."),
    (lambda x, t: fwAD.exit_dual_level(level=3), RuntimeError,
     "Trying to exit a forward AD level that was not the last one that was created. This is "
     "not supported."),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_inside_a_level(index):
    make, error, message = ERRORS[index]
    x, t = teachgrad.tensor([1.0, 2.0]), teachgrad.tensor([1.0, 0.0])
    with fwAD.dual_level():
        with pytest.raises(error) as info:
            make(x, t)
        assert str(info.value).startswith(message)


def test_errors_outside_a_level():
    x = teachgrad.ones(2)
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, x)
    with pytest.raises(RuntimeError, match="^Dual level must be a positive number.$"):
        fwAD.exit_dual_level()


@pytest.mark.torch
def test_error_messages_match_pytorch():
    torch = pytest.importorskip("torch")
    for make, _, _ in ERRORS:
        messages = []
        for lib, ad in ((teachgrad, fwAD), (torch, torch.autograd.forward_ad)):
            x, t = lib.tensor([1.0, 2.0]), lib.tensor([1.0, 0.0])
            with ad.dual_level():
                try:
                    _with_module(make, ad)(x, t)
                except Exception as error:  # noqa: BLE001 - we compare what each raised
                    messages.append((type(error), str(error).split("\n")[0]))
        assert messages[0][0] is messages[1][0]
        ours, theirs = messages[0][1], messages[1][1]
        assert ours.replace("teachgrad", "torch") == theirs


def _with_module(make, module):
    """``make`` with its global ``fwAD`` (and ``teachgrad``) bound to ``module``'s library."""
    import types

    lib = teachgrad if module is fwAD else __import__("torch")
    scope = dict(make.__globals__, fwAD=module, teachgrad=lib)
    return types.FunctionType(make.__code__, scope)


def test_dtype_of_tangent_may_differ_as_in_pytorch():
    with fwAD.dual_level():
        dual = fwAD.make_dual(teachgrad.ones(2), teachgrad.ones(2, dtype=teachgrad.float64))
        assert fwAD.unpack_dual(dual).tangent.dtype == teachgrad.float64


# ----------------------------------------------------------------------------------------
# Views and in-place ops
# ----------------------------------------------------------------------------------------
def test_tangent_of_a_view_is_a_view_of_the_tangent():
    x, t = teachgrad.arange(6.0).reshape(2, 3), teachgrad.arange(6.0).reshape(2, 3) * 10
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, t)
        row = dual[1]
        row_tangent = fwAD.unpack_dual(row).tangent
        assert row_tangent.tolist() == [30.0, 40.0, 50.0]
        assert np.shares_memory(row_tangent.numpy(), t.numpy())
        assert fwAD.unpack_dual(dual.t()[2]).tangent.tolist() == [20.0, 50.0]


def test_writing_a_dual_into_a_slice_gives_the_base_a_tangent():
    with fwAD.dual_level():
        z = teachgrad.zeros(4)
        z[1:3] = fwAD.make_dual(teachgrad.tensor([1.0, 2.0]), teachgrad.tensor([5.0, 6.0]))
        assert fwAD.unpack_dual(z).tangent.tolist() == [0.0, 5.0, 6.0, 0.0]
        v = z[0:2]  # a view made afterwards sees its part of the base's tangent
        assert fwAD.unpack_dual(v).tangent.tolist() == [0.0, 5.0]


def test_in_place_change_through_a_transposed_view():
    with fwAD.dual_level():
        b = teachgrad.zeros(3, 4)
        b.t()[1].copy_(fwAD.make_dual(teachgrad.ones(3), teachgrad.arange(3.0)))
        assert fwAD.unpack_dual(b).tangent[:, 1].tolist() == [0.0, 1.0, 2.0]
        assert fwAD.unpack_dual(b).tangent.sum().item() == 3.0


def test_in_place_ops_update_the_tangent():
    with fwAD.dual_level():
        y = fwAD.make_dual(teachgrad.tensor([1.0, 2.0, 3.0]), teachgrad.ones(3))
        y.mul_(2)
        y += y  # (a dual with itself: tangent 2 * 2 + 2 * 2)
        y.add_(teachgrad.ones(3))
        assert fwAD.unpack_dual(y).tangent.tolist() == [4.0, 4.0, 4.0]
        y.exp_()
        assert np.allclose(fwAD.unpack_dual(y).tangent.numpy(), 4 * y.numpy())
        plain = teachgrad.tensor([1.0, 2.0, 3.0])
        plain.mul_(fwAD.make_dual(teachgrad.tensor(2.0), teachgrad.tensor(1.0)))
        assert fwAD.unpack_dual(plain).tangent.tolist() == [1.0, 2.0, 3.0]


def test_view_of_a_dual_changed_in_place_changes_the_base_tangent():
    with fwAD.dual_level():
        dual = fwAD.make_dual(teachgrad.ones(4), teachgrad.ones(4))
        dual[:2].mul_(3)
        assert fwAD.unpack_dual(dual).tangent.tolist() == [3.0, 3.0, 1.0, 1.0]


def test_shape_changing_in_place_methods_reshape_the_tangent_too():
    # x.t_() / unsqueeze_ / squeeze_ / transpose_ make x a new view of its memory: its
    # tangent must become the same view of the tangent (the tangent of t_ is tᵀ).
    t = teachgrad.arange(6.0).reshape(2, 3)
    with fwAD.dual_level():
        x = fwAD.make_dual(teachgrad.ones(2, 3), t)
        x.t_()
        assert fwAD.unpack_dual(x).tangent.tolist() == t.t().tolist()
        x.unsqueeze_(0)
        assert fwAD.unpack_dual(x).tangent.shape == (1, 3, 2)
        x.squeeze_(0).transpose_(0, 1)
        assert fwAD.unpack_dual(x).tangent.tolist() == t.tolist()
        assert fwAD.unpack_dual(x * 2).tangent.tolist() == (2 * t).tolist()


def test_logcumsumexp_tangent_and_its_gradient():
    # The double backward trick gave NaN here (the backward takes log|grad|, which has no
    # derivative at grad = 0); the direct formula must match finite differences, and its
    # gradient (reverse over forward) the gradient of the finite-difference tangent.
    rng = np.random.default_rng(3)
    a, t = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    x = teachgrad.tensor(a, requires_grad=True)
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(fwAD.make_dual(x, teachgrad.tensor(t)).logcumsumexp(0)).tangent
    eps = 1e-6

    def lcse(step):
        return teachgrad.tensor(a + step * t).logcumsumexp(0).numpy()

    np.testing.assert_allclose(tangent.detach().numpy(), (lcse(eps) - lcse(-eps)) / (2 * eps),
                               rtol=1e-6, atol=1e-8)
    (g,) = teachgrad.autograd.grad(tangent.sum(), x)
    expected = np.zeros_like(a)  # (differencing the tangent itself)
    for idx in np.ndindex(a.shape):
        bump = np.zeros_like(a)
        bump[idx] = 1e-5
        with fwAD.dual_level():
            up, down = (fwAD.unpack_dual(fwAD.make_dual(teachgrad.tensor(a + s * bump),
                                                        teachgrad.tensor(t)).logcumsumexp(0))
                        .tangent.sum().item() for s in (1, -1))
        expected[idx] = (up - down) / 2e-5
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-5, atol=1e-7)
    with fwAD.dual_level():  # all −inf so far: zero tangent, as PyTorch
        edge = fwAD.make_dual(teachgrad.tensor([-np.inf, 0.0, 0.0]), teachgrad.ones(3))
        assert fwAD.unpack_dual(edge.logcumsumexp(0)).tangent.tolist() == [0.0, 1.0, 1.0]


def test_fill_diagonal_zeroes_the_diagonal_of_the_tangent():
    # The diagonal is a hand-made view: it wrote a zero tangent onto the tensor the dual
    # was made from and left the dual's own tangent unchanged. By hand: the tangent loses
    # its diagonal, and the original tensor stays without one (as in PyTorch).
    x = teachgrad.ones(3, 3)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, teachgrad.arange(9.0).reshape(3, 3))
        dual.fill_diagonal_(2.0)
        assert fwAD.unpack_dual(dual).tangent.tolist() == [
            [0.0, 1.0, 2.0], [3.0, 0.0, 5.0], [6.0, 7.0, 0.0]
        ]
        assert fwAD.unpack_dual(x).tangent is None
        dual[1:].fill_diagonal_(0.0)  # through a view: its part of the tangent
        assert fwAD.unpack_dual(dual).tangent[1:].tolist() == [[0.0, 0.0, 5.0], [6.0, 0.0, 0.0]]


def test_in_place_op_on_a_sum_leaves_the_summands_tangent_alone():
    # a + b with only b dual gave the output b's very tangent: clamp_ on the output then
    # wrote into b's tangent, and every later use of b was wrong.
    with fwAD.dual_level():
        b = fwAD.make_dual(teachgrad.tensor([0.5, 2.0]), teachgrad.tensor([1.0, 1.0]))
        out = teachgrad.tensor([0.0, 0.0]) + b
        out.clamp_(-1.0, 1.0)  # d clamp = 1 inside, 0 where clipped
        assert fwAD.unpack_dual(out).tangent.tolist() == [1.0, 0.0]
        assert fwAD.unpack_dual(b).tangent.tolist() == [1.0, 1.0]
        out = b - teachgrad.tensor(1.0)
        out.mul_(0.0)
        assert fwAD.unpack_dual(b * 3).tangent.tolist() == [3.0, 3.0]


def test_optimizer_step_inside_a_level_still_works():
    p = teachgrad.nn.Parameter(teachgrad.ones(2))
    opt = teachgrad.optim.SGD([p], lr=0.1)
    with fwAD.dual_level():
        dual = fwAD.make_dual(teachgrad.tensor([1.0, 2.0]), teachgrad.ones(2))
        (p * dual).sum().backward()
        opt.step()
    assert np.allclose(p.detach().numpy(), [0.9, 0.8])


def test_tangents_are_computed_under_no_grad():
    w = teachgrad.ones(2, requires_grad=True)
    with fwAD.dual_level(), teachgrad.no_grad():
        out = fwAD.make_dual(teachgrad.tensor([1.0, 2.0]), teachgrad.tensor([1.0, 0.0])) * w
        assert out.grad_fn is None and not out.requires_grad
        assert fwAD.unpack_dual(out).tangent.tolist() == [1.0, 0.0]


def test_inference_mode_switches_forward_ad_off_as_in_pytorch():
    # torch 2.13: inside inference_mode ops carry no tangent, make_dual makes none, an
    # in-place op leaves the tangent as it was, and unpack_dual sees none.
    with fwAD.dual_level():
        x = fwAD.make_dual(teachgrad.ones(3), teachgrad.ones(3))
        with teachgrad.inference_mode():
            y = x * 3
            assert fwAD.unpack_dual(x).tangent is None
            x.mul_(2)
            w = fwAD.make_dual(teachgrad.ones(2), teachgrad.ones(2))
        assert fwAD.unpack_dual(y).tangent is None
        assert fwAD.unpack_dual(w).tangent is None
        assert fwAD.unpack_dual(x).tangent.tolist() == [1.0, 1.0, 1.0]
        assert fwAD.unpack_dual(x * 3).tangent.tolist() == [3.0, 3.0, 3.0]


def test_outputs_without_a_derivative_get_zero_or_no_tangent():
    with fwAD.dual_level():
        dual = fwAD.make_dual(teachgrad.tensor([1.5, -2.0]), teachgrad.ones(2))
        assert fwAD.unpack_dual(dual.sign()).tangent.tolist() == [0.0, 0.0]
        assert fwAD.unpack_dual(dual.argmax()).tangent is None  # integers have none


# ----------------------------------------------------------------------------------------
# Custom autograd.Function
# ----------------------------------------------------------------------------------------
class _NoJvp(teachgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class _Cube(teachgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_forward(x)
        ctx.save_for_backward(x)
        return x ** 3 * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2, None

    @staticmethod
    def jvp(ctx, x_tangent, scale_tangent):
        (x,) = ctx.saved_tensors
        assert scale_tangent.tolist() == [0.0, 0.0]  # zeros for an input without tangent
        return 3 * x ** 2 * x_tangent


class _TwoTangents(_NoJvp):
    @staticmethod
    def jvp(ctx, t):
        return t, t


def test_custom_function_uses_its_jvp():
    with fwAD.dual_level():
        dual = fwAD.make_dual(teachgrad.tensor([1.0, 2.0]), teachgrad.tensor([1.0, 1.0]))
        out = _Cube.apply(dual, teachgrad.ones(2))
        assert fwAD.unpack_dual(out).tangent.tolist() == [3.0, 12.0]
        assert fwAD.unpack_dual(fwAD.unpack_dual(out).tangent).tangent is None


def test_custom_function_without_jvp_or_with_a_wrong_one_raises():
    with fwAD.dual_level():
        dual = fwAD.make_dual(teachgrad.tensor([1.0, 2.0]), teachgrad.ones(2))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            _NoJvp.apply(dual)
        with pytest.raises(RuntimeError, match=r"invalid number of forward gradients \(expected "
                           r"1 but got 2\)"):
            _TwoTangents.apply(dual)
        assert _NoJvp.apply(teachgrad.ones(2)).tolist() == [2.0, 2.0]  # no tangent: fine


class _TensorAndCount(teachgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, 5

    @staticmethod
    def backward(ctx, grad, _):
        return grad * 2

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * 2, None  # one per output, the number's included (PyTorch's rule)


class _TensorAndCountOneTangent(_TensorAndCount):
    @staticmethod
    def jvp(ctx, tangent):
        return tangent * 2


def test_custom_function_jvp_gives_one_tangent_per_output_even_a_number():
    with fwAD.dual_level():
        out, count = _TensorAndCount.apply(fwAD.make_dual(teachgrad.ones(2), teachgrad.ones(2)))
        assert fwAD.unpack_dual(out).tangent.tolist() == [2.0, 2.0] and count == 5
        with pytest.raises(RuntimeError, match=r"invalid number of forward gradients "
                           r"\(expected 2 but got 1\)"):
            _TensorAndCountOneTangent.apply(
                fwAD.make_dual(teachgrad.ones(2), teachgrad.ones(2))
            )


# ----------------------------------------------------------------------------------------
# Tangents and backward: Hessian-vector products both ways, and higher orders
# ----------------------------------------------------------------------------------------
def _f(x):
    return (x.exp() * x.sin()).sum() + (x[0] * x[1] * x[2]).tanh() + x.softmax(0)[1]


X = np.array([0.3, -1.2, 0.7])
V = np.array([1.0, 2.0, -1.0])


def _expected_hvp():
    x, v = teachgrad.tensor(X), teachgrad.tensor(V)
    return hvp(_f, x, v)[1].numpy()


def test_backward_of_the_tangent_is_a_hessian_vector_product():
    x = teachgrad.tensor(X, requires_grad=True)
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(_f(fwAD.make_dual(x, teachgrad.tensor(V)))).tangent
        assert tangent.grad_fn is not None  # the tangent is differentiable
        (g,) = teachgrad.autograd.grad(tangent, x, create_graph=True)
        third = teachgrad.autograd.grad(g.sum(), x)[0]
    np.testing.assert_allclose(g.detach().numpy(), _expected_hvp(), rtol=1e-10)
    # d/dx Σ(H(x)·v), by finite differences of the reverse-mode Hessian-vector product
    eps = 1e-6
    numeric = [
        (hvp(_f, teachgrad.tensor(X + eps * e), teachgrad.tensor(V))[1].sum().item()
         - hvp(_f, teachgrad.tensor(X - eps * e), teachgrad.tensor(V))[1].sum().item())
        / (2 * eps)
        for e in np.eye(3)
    ]
    np.testing.assert_allclose(third.numpy(), numeric, rtol=1e-5)


def test_tangent_of_the_gradient_is_a_hessian_vector_product():
    x = teachgrad.tensor(X, requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, teachgrad.tensor(V))
        (g,) = teachgrad.autograd.grad(_f(dual), dual, create_graph=True)
        hv = fwAD.unpack_dual(g).tangent
    np.testing.assert_allclose(hv.detach().numpy(), _expected_hvp(), rtol=1e-10)


def test_autograd_functional_jvp_agrees_with_forward_ad():
    x, v = teachgrad.tensor(X), teachgrad.tensor(V)
    _, by_double_backward = teachgrad.autograd.functional.jvp(lambda x: x.exp() * x.sum(), x, v)
    with fwAD.dual_level():
        by_forward_ad = fwAD.unpack_dual(
            (lambda x: x.exp() * x.sum())(fwAD.make_dual(x, v))
        ).tangent
    np.testing.assert_allclose(by_forward_ad.numpy(), by_double_backward.numpy(), rtol=1e-12)


@pytest.mark.torch
def test_tangent_graph_matches_pytorch_values():
    torch = pytest.importorskip("torch")
    results = []
    for lib, ad in ((teachgrad, fwAD), (torch, torch.autograd.forward_ad)):
        x = lib.tensor(X, requires_grad=True)
        with ad.dual_level():
            dual = ad.make_dual(x, lib.tensor(V))
            y = (dual.sin() * dual).sum()
            tangent = ad.unpack_dual(y).tangent
            (g,) = lib.autograd.grad(tangent, x)
        results.append((tangent.item(), g.numpy().copy()))
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


# ----------------------------------------------------------------------------------------
# The direct formulas of the hot ops agree with the general mechanism
# ----------------------------------------------------------------------------------------
RULE_CASES = {
    "add_alpha": lambda a, b: teachgrad.add(a, b[0], alpha=2.5),
    "sub_alpha": lambda a, b: teachgrad.sub(a, b, alpha=-1.5),
    "rsub_number": lambda a, b: 2.0 - a,
    "mul": lambda a, b: a * b,
    "mul_broadcast": lambda a, b: a * b[:1],
    "div": lambda a, b: a / (b * b + 1),
    "rdiv_number": lambda a, b: 3.0 / (a * a + 1),
    "neg": lambda a, b: -a,
    "sum_dims": lambda a, b: (a * b).sum(0, keepdim=True),
    "mean": lambda a, b: a.mean(),
    "mm": lambda a, b: a.reshape(2, 2) @ b.reshape(2, 2),
    "unary_chain": lambda a, b: (
        a.exp() + a.tanh() + a.sigmoid() + a.sin() + a.cos() + (a * a + 1).log()
        + (a * a + 1).sqrt() + teachgrad.relu(a)
    ),
}


@pytest.mark.parametrize("name", sorted(RULE_CASES))
def test_direct_formulas_agree_with_the_double_backward_trick(name, monkeypatch):
    import teachgrad.autograd.forward_ad as forward_ad

    fn = RULE_CASES[name]
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(4) for _ in range(4)]
    results = []
    for rules in (forward_ad._RULES, {}):
        monkeypatch.setattr(forward_ad, "_RULES", rules)
        a, b = (teachgrad.tensor(x, requires_grad=True) for x in arrays[:2])
        with fwAD.dual_level():
            out = fn(fwAD.make_dual(a, teachgrad.tensor(arrays[2])),
                     fwAD.make_dual(b, teachgrad.tensor(arrays[3])))
            tangent = fwAD.unpack_dual(out).tangent
            grads = (None, None)  # (a linear op's tangent does not depend on a or b)
            if tangent.requires_grad:
                grads = teachgrad.autograd.grad(tangent.sum(), (a, b), allow_unused=True)
        results.append([tangent.detach().numpy(), tangent.requires_grad] + [
            np.zeros(4) if g is None else g.numpy() for g in grads
        ])
    for with_rules, with_trick in zip(*results):
        np.testing.assert_allclose(with_rules, with_trick, rtol=1e-12, atol=1e-14)
