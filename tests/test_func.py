"""``teachgrad.func`` (torch.func): grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
vmap, functional_call; and ``autograd.Variable``.

Expected values are derived by hand (in the comments) or come from PyTorch (torch marker).
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd import Variable
from teachgrad.autograd.functional import hessian as functional_hessian
from teachgrad.func import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    vjp,
    vmap,
)


def t(*values):
    return teachgrad.tensor(list(values), dtype=teachgrad.float64)


# ----------------------------------------------------------------------------------------
# grad, grad_and_value
# ----------------------------------------------------------------------------------------
def test_grad_of_a_sum_of_cubes_is_three_x_squared():
    assert grad(lambda x: (x ** 3).sum())(t(1.0, 2.0)).tolist() == [3.0, 12.0]


def test_grad_twice_is_the_second_derivative():
    # f = x³: f' = 3x², f'' = 6x, f''' = 6
    x = teachgrad.tensor(2.0, dtype=teachgrad.float64)
    assert grad(grad(lambda x: x ** 3))(x).item() == 12.0
    assert grad(grad(grad(lambda x: x ** 3)))(x).item() == 6.0


def test_grad_argnums_and_has_aux():
    def f(x, y):
        return (x * y).sum(), {"double": 2 * x}

    (gx, gy), aux = grad(f, argnums=(0, 1), has_aux=True)(t(1.0, 2.0), t(3.0, 4.0))
    assert gx.tolist() == [3.0, 4.0] and gy.tolist() == [1.0, 2.0]  # ∂(x·y)/∂x = y
    assert aux["double"].tolist() == [2.0, 4.0]
    assert grad(f, argnums=-1, has_aux=True)(t(1.0), t(5.0))[0].tolist() == [1.0]


def test_grad_and_value_returns_both_and_nothing_keeps_a_graph():
    g, value = grad_and_value(lambda x: (x ** 2).sum())(t(1.0, 2.0))
    assert g.tolist() == [2.0, 4.0] and value.item() == 5.0
    assert g.grad_fn is None and value.grad_fn is None


def test_grad_with_respect_to_a_dict_of_tensors():
    params = {"w": t(2.0), "b": t(1.0)}
    g = grad(lambda p: ((p["w"] * 3 + p["b"]) ** 2).sum())(params)
    # loss = (3w + b)² = 49: ∂/∂w = 2·7·3 = 42, ∂/∂b = 2·7 = 14
    assert g["w"].tolist() == [42.0] and g["b"].tolist() == [14.0]


def test_grad_result_stays_connected_to_an_outer_graph():
    x = t(1.0, 2.0).requires_grad_()
    g = grad(lambda x: (x ** 3).sum())(x)  # 3x²
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]  # d(Σ3x²)/dx = 6x


@pytest.mark.parametrize("call,message", [
    (lambda: grad(lambda x: x * 2)(t(1.0, 2.0)),
     "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
     "1 dims. Maybe you wanted to use the vjp or jacrev APIs instead?"),
    (lambda: grad(lambda x: x.sum(), argnums=2)(t(1.0)),
     "Got argnum=2, but only 1 positional inputs"),
    (lambda: grad(lambda x: x.sum(), argnums=(0, 0))(t(1.0)),
     "argnums elements must be unique, got (0, 0)"),
    (lambda: grad(lambda x: x.sum(), argnums=())(t(1.0)), "argnums must be non-empty"),
    (lambda: grad(lambda x: x.sum(), argnums=1.5)(t(1.0)),
     "argnums must be int or Tuple[int, ...], got: <class 'float'>"),
    (lambda: grad(lambda x: x.sum(), has_aux=True)(t(1.0)),
     "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) if "
     "has_aux is True"),
    (lambda: grad(lambda x: (x.sum(), 1), has_aux=True)(t(1.0)),
     "Expected tensors, got unsupported type <class 'int'>"),
    (lambda: grad(lambda x: 3.0)(t(1.0)),
     "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got <class 'float'>"),
])
def test_grad_errors(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_grad_of_a_non_tensor_input_is_refused():
    with pytest.raises(ValueError, match="Thing passed to transform API must be Tensor, got "
                       "<class 'float'>"):
        grad(lambda x: x)(3.0)


# ----------------------------------------------------------------------------------------
# vjp, jvp
# ----------------------------------------------------------------------------------------
def test_vjp_returns_the_output_and_a_reusable_vjp_fn():
    out, vjp_fn = vjp(lambda x, y: x * y, t(1.0, 2.0), t(3.0, 4.0))
    assert out.tolist() == [3.0, 8.0]
    gx, gy = vjp_fn(t(1.0, 10.0))  # (v·y, v·x)
    assert gx.tolist() == [3.0, 40.0] and gy.tolist() == [1.0, 20.0]
    assert vjp_fn(t(1.0, 1.0))[0].tolist() == [3.0, 4.0]


def test_vjp_with_several_outputs_and_aux():
    out, vjp_fn, aux = vjp(lambda x: ((x.sin(), x * 2), x.sum()), t(0.0), has_aux=True)
    assert aux.item() == 0.0
    (g,) = vjp_fn((t(1.0), t(1.0)))  # cos(0) + 2
    assert g.tolist() == [3.0]
    with pytest.raises(RuntimeError, match=r"Expected pytree structure of cotangents to be the "
                       r"same as pytree structure of outputs to the function. cotangents: \*, "
                       r"primal output: \(\*, \*\)"):
        vjp_fn(t(1.0))


def test_vjp_errors():
    with pytest.raises(RuntimeError, match=r"^vjp\(f, \*primals\): expected f\(\*primals\) to "
                       "return only tensors, got unsupported type <class 'float'>$"):
        vjp(lambda x: 3.0, t(1.0))
    _, vjp_fn = vjp(lambda x: x * 2, t(1.0, 2.0))
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape "):
        vjp_fn(t(1.0, 2.0, 3.0))


@pytest.mark.parametrize("call, message", [
    # PyTorch 2.13's sentences: jacrev is built on vjp and speaks as it; an integer or
    # bool output has no gradient, and a non-tensor aux is refused by every transform.
    (lambda: vjp(lambda x: (x * 2, (x > 0).long()), t(1.0)),
     "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor "
     "with dtype teachgrad.int64"),
    (lambda: jacrev(lambda x: x > 0)(t(1.0)),
     "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor "
     "with dtype teachgrad.bool"),
    (lambda: jacrev(lambda x: (x, 2.0))(t(1.0)),
     "vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported type "
     "<class 'float'>"),
    (lambda: jacrev(lambda x: x, has_aux=True)(t(1.0)),
     "vjp(f, *primals): output of function f should be a tuple: (output, aux) if has_aux is "
     "True"),
    (lambda: jacrev(lambda x: (x, 2.0), has_aux=True)(t(1.0)),
     "Expected tensors, got unsupported type <class 'float'>"),
    (lambda: vjp(lambda x: (x, [x, 2.0]), t(1.0), has_aux=True),
     "Expected tensors, got unsupported type <class 'float'>"),
    (lambda: jvp(lambda x: (x, 2.0), (t(1.0),), (t(1.0),), has_aux=True),
     "Expected tensors, got unsupported type <class 'float'>"),
    (lambda: jacfwd(lambda x: (x, 2.0), has_aux=True)(t(1.0)),
     "Expected tensors, got unsupported type <class 'float'>"),
])
def test_reverse_mode_output_and_aux_errors(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_jvp_by_forward_mode():
    out, tangent = jvp(lambda x, y: x * y.exp(), (t(2.0), t(0.0)), (t(1.0), t(3.0)))
    # d(x·eʸ) = eʸ dx + x eʸ dy = 1 + 2·3
    assert out.tolist() == [2.0] and tangent.tolist() == [7.0]
    assert out.grad_fn is None and tangent.grad_fn is None


def test_jvp_of_grad_gives_a_hessian_vector_product_without_a_graph():
    # l(p) = p0^4 + p1^4 - p0 p1: H = [[12 p0^2, -1], [-1, 12 p1^2]], H e0 = [12, -1] at (1, 2).
    def loss(p):
        return (p ** 4).sum() - p[0] * p[1]

    p = teachgrad.tensor([1.0, 2.0])
    gradient, hv = jvp(grad(loss), (p,), (teachgrad.tensor([1.0, 0.0]),))
    np.testing.assert_allclose(gradient.numpy(), [4 - 2, 32 - 1])
    np.testing.assert_allclose(hv.numpy(), [12.0, -1.0])
    # Nothing outside required grad: the inner differentiation leaves no graph behind.
    assert gradient.grad_fn is None and hv.grad_fn is None
    assert not gradient.requires_grad and not hv.requires_grad


def test_jvp_has_aux_and_zero_tangent_for_an_unrelated_output():
    out, tangent, aux = jvp(lambda x: ((x * 2, teachgrad.ones(1)), x), (t(1.0),), (t(1.0),),
                            has_aux=True)
    assert tangent[0].tolist() == [2.0] and tangent[1].tolist() == [0.0]
    assert aux.tolist() == [1.0]


@pytest.mark.parametrize("call,message", [
    (lambda: jvp(lambda x: x, t(1.0), (t(1.0),)),
     "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
     "call f(*primals)."),
    (lambda: jvp(lambda x: x, (t(1.0),), t(1.0)),
     "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
     "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
     "primals with structure TreeSpec(tuple, None, [*]) and tangents with structure *"),
    (lambda: jvp(lambda x: x, (t(1.0, 2.0),), (t(1.0),)),
     "Trying to set a forward gradient that has a different size than that of the original "
     "Tensor, this is not supported. Tensor is of size [2] while the given forward gradient "
     "is of size [1]."),
    (lambda: jvp(lambda x: 3.0, (t(1.0),), (t(1.0),)),
     "jvp(f, primals, tangents): expected f(*primals) to return only tensors, got "
     "unsupported type <class 'float'>"),
])
def test_jvp_errors(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


# ----------------------------------------------------------------------------------------
# jacrev, jacfwd, hessian
# ----------------------------------------------------------------------------------------
def _f(x, y):
    return teachgrad.stack([x[0] * y, x[1].sin() * y, x.sum()])


@pytest.mark.parametrize("jac", [jacrev, jacfwd])
def test_jacobians_by_hand(jac):
    x, y = t(2.0, 0.0), teachgrad.tensor(3.0, dtype=teachgrad.float64)
    jx, jy = jac(_f, argnums=(0, 1))(x, y)
    # rows: ∂(x0·y), ∂(sin(x1)·y), ∂(x0 + x1)
    assert jx.tolist() == [[3.0, 0.0], [0.0, 3.0], [1.0, 1.0]]
    assert jy.tolist() == [2.0, 0.0, 0.0]
    assert jac(_f)(x, y).tolist() == jx.tolist()


@pytest.mark.parametrize("jac", [jacrev, jacfwd])
def test_jacobian_shape_and_has_aux(jac):
    m = teachgrad.ones(2, 3, dtype=teachgrad.float64)
    J, aux = jac(lambda m: (m.sum(0) * 2, m.mean()), has_aux=True)(m)
    assert tuple(J.shape) == (3, 2, 3)
    assert J[1].tolist() == [[0.0, 2.0, 0.0], [0.0, 2.0, 0.0]]
    assert aux.item() == 1.0


def test_jacobians_of_dict_outputs_and_inputs():
    def f(p):
        return {"out": p["a"] * p["b"]}

    p = {"a": t(1.0, 2.0), "b": t(3.0, 4.0)}
    for jac in (jacrev, jacfwd):
        J = jac(f)(p)
        assert J["out"]["a"].tolist() == [[3.0, 0.0], [0.0, 4.0]]
        assert J["out"]["b"].tolist() == [[1.0, 0.0], [0.0, 2.0]]


def test_hessian_by_hand_and_against_autograd_functional():
    x = t(1.0, 2.0)
    assert hessian(lambda x: (x ** 3).sum())(x).tolist() == [[6.0, 0.0], [0.0, 12.0]]

    def g(x):
        return (x[0] ** 2 * x[1]).sin() + x.exp().sum()

    np.testing.assert_allclose(hessian(g)(x).numpy(), functional_hessian(g, x).numpy(),
                               rtol=1e-12)


def test_every_way_of_composing_gives_the_same_hessian():
    def f(x):
        return (x.sin() * x.exp()).sum()

    x = t(0.5, -1.0)
    # by hand: ∂²/∂x² sin(x)eˣ = 2cos(x)eˣ, and no cross terms
    expected = np.diag(2 * np.cos([0.5, -1.0]) * np.exp([0.5, -1.0]))
    for h in (hessian(f), jacfwd(jacrev(f)), jacrev(jacrev(f)), jacrev(jacfwd(f)),
              jacfwd(jacfwd(f))):
        np.testing.assert_allclose(h(x).numpy(), expected, rtol=1e-12, atol=1e-15)


def test_hessian_vector_product_as_jvp_of_grad():
    def f(x):
        return (x ** 3).sum() + x[0] * x[1]

    x, v = t(1.0, 2.0), t(1.0, -1.0)
    _, hv = jvp(grad(f), (x,), (v,))
    # H = [[6x0, 1], [1, 6x1]] = [[6, 1], [1, 12]]; H·v = [5, -11]
    assert hv.tolist() == [5.0, -11.0]


def test_nested_forward_mode_through_logcumsumexp_is_the_hessian():
    # jvp inside jvp (and jacfwd(jacfwd)) runs the inner jvp by the double backward trick,
    # through logcumsumexp's log-space backward: it gave NaN. Expected: vᵀ·H·y, with the
    # Hessian by finite differences of the (exact) gradient.
    rng = np.random.default_rng(9)
    x, v, y = (rng.standard_normal(3) for _ in range(3))

    def f(z):
        return z.logcumsumexp(0).sum()

    eps = 1e-6
    H = np.stack([(grad(f)(teachgrad.tensor(x + eps * e)).numpy()
                   - grad(f)(teachgrad.tensor(x - eps * e)).numpy()) / (2 * eps)
                  for e in np.eye(3)])
    _, second = jvp(lambda z: jvp(f, (z,), (teachgrad.tensor(v),))[1],
                    (teachgrad.tensor(x),), (teachgrad.tensor(y),))
    assert second.item() == pytest.approx(y @ H @ v, rel=1e-6)
    np.testing.assert_allclose(jacfwd(jacfwd(f))(teachgrad.tensor(x)).numpy(), H,
                               rtol=1e-6, atol=1e-8)


# ----------------------------------------------------------------------------------------
# vmap
# ----------------------------------------------------------------------------------------
def test_vmap_maps_over_the_first_dimension():
    a, b = teachgrad.arange(6.0).reshape(3, 2), teachgrad.ones(3, 2)
    assert vmap(teachgrad.dot)(a, b).tolist() == [1.0, 5.0, 9.0]
    assert teachgrad.vmap is vmap


def test_vmap_in_dims_out_dims_and_unbatched_inputs():
    x = teachgrad.arange(6.0).reshape(2, 3)
    w = teachgrad.tensor([1.0, 10.0])
    out = vmap(lambda col, w: col * w, in_dims=(1, None), out_dims=1)(x, w)
    # column j of x times w, put back as column j
    assert out.tolist() == [[0.0, 1.0, 2.0], [30.0, 40.0, 50.0]]
    pair = vmap(lambda r: (r, r.sum()), out_dims=(1, 0))(x)
    assert pair[0].tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert pair[1].tolist() == [3.0, 12.0]


def test_nested_vmap_is_an_outer_product():
    a, b = teachgrad.tensor([1.0, 2.0]), teachgrad.tensor([3.0, 4.0, 5.0])
    outer = vmap(vmap(lambda x, y: x * y, in_dims=(None, 0)), in_dims=(0, None))(a, b)
    assert outer.tolist() == [[3.0, 4.0, 5.0], [6.0, 8.0, 10.0]]


def test_vmap_of_grad_gives_per_sample_gradients():
    w = t(1.0, -1.0)
    xs = teachgrad.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=teachgrad.float64)

    def loss(w, x):
        return (w * x).sum() ** 2

    per_sample = vmap(grad(loss), in_dims=(None, 0))(w, xs)
    # ∂(w·x)²/∂w = 2(w·x)x: sample 0: 2·(-1)·[1, 2]; sample 1: 2·(-2)·[3, 5]
    assert per_sample.tolist() == [[-2.0, -4.0], [-12.0, -20.0]]


def test_jacfwd_randomness_as_pytorch():
    # PyTorch's jacfwd is one vmapped pass: 'error' refuses a random op, 'same' uses one
    # draw for every column. teachgrad runs a pass per column; it ignored the flag, so
    # each column of a dropout's Jacobian came from a different mask.
    x = teachgrad.ones(8)
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness "
                       "error mode"):
        jacfwd(lambda v: teachgrad.nn.functional.dropout(v, 0.5))(x)

    def dropout_and_output(v):
        out = teachgrad.nn.functional.dropout(v, 0.5)
        return out, out

    teachgrad.manual_seed(3)
    for _ in range(3):
        jac, out = jacfwd(dropout_and_output, has_aux=True, randomness="same")(x)
        # d(mask·v/0.5)/dv = diag(2·mask), and the output at v = 1 is 2·mask: one mask
        np.testing.assert_array_equal(jac.numpy(), np.diag(out.numpy()))
    assert jacfwd(lambda v: v.sin())(x).diagonal().tolist() == pytest.approx(
        [np.cos(1.0)] * 8)  # (no random op: 'error' says nothing)


def test_vmap_randomness():
    x = teachgrad.zeros(3)
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness "
                       "error mode"):
        vmap(lambda v: v + teachgrad.randn(()))(x)
    same = vmap(lambda v: v + teachgrad.randn(()), randomness="same")(x)
    assert len(set(same.tolist())) == 1
    different = vmap(lambda v: v + teachgrad.randn(()), randomness="different")(x)
    assert len(set(different.tolist())) == 3
    with pytest.raises(RuntimeError, match="Only allowed values for randomness are 'error', "
                       "'different', or 'same'. Got bad"):
        vmap(lambda v: v, randomness="bad")


@pytest.mark.parametrize("call,message", [
    (lambda: vmap(lambda x, y: x * y)(teachgrad.ones(2, 3), teachgrad.ones(3, 3)),
     "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
     "[2, 3] for the mapped dimension"),
    (lambda: vmap(lambda x: x, in_dims=2)(teachgrad.ones(2, 3)),
     "vmap(<lambda>, in_dims=2, ...)(<inputs>): Got in_dim=2 for some input, but that input "
     "is a Tensor of dimensionality 2 so expected in_dim to satisfy -2 <= in_dim < 2."),
    (lambda: vmap(lambda x: x, in_dims=None)(teachgrad.ones(2)),
     "vmap(<lambda>, in_dims=None, ...)(<inputs>): expected `in_dims` to be int or a "
     "(potentially nested) tuple matching the structure of inputs, got: <class 'NoneType'>."),
    (lambda: vmap(lambda x: x, in_dims=(None,))(teachgrad.ones(2)),
     "vmap: Expected at least one Tensor to vmap over"),
    (lambda: vmap(lambda x: x)(3.0),
     "vmap(<lambda>, in_dims=0, ...)(<inputs>): Got in_dim=0 for an input but the input is "
     "of type <class 'float'>. We cannot vmap over non-Tensor arguments, please use None as "
     "the respective in_dim"),
    (lambda: vmap(lambda x: 3.0)(teachgrad.ones(2)),
     "vmap(<lambda>, ...): `<lambda>` must only return Tensors, got type <class 'float'>. Did "
     "you mean to set out_dims= to None for output?"),
    (lambda: vmap(lambda x: x)(),
     "vmap(<lambda>)(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
     "trying to vmap over a function with no inputs. The latter is unsupported."),
])
def test_vmap_errors(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


# ----------------------------------------------------------------------------------------
# functional_call
# ----------------------------------------------------------------------------------------
def test_functional_call_uses_the_given_tensors_and_restores_the_module():
    layer = teachgrad.nn.Linear(2, 1)
    weight = layer.weight
    out = functional_call(layer, {"weight": teachgrad.ones(1, 2), "bias": teachgrad.zeros(1)},
                          (teachgrad.tensor([1.0, 2.0]),))
    assert out.tolist() == [3.0]
    assert layer.weight is weight and isinstance(layer.weight, teachgrad.nn.Parameter)


def test_grad_with_respect_to_module_parameters():
    model = teachgrad.nn.Sequential(teachgrad.nn.Linear(3, 2), teachgrad.nn.Tanh(),
                                    teachgrad.nn.Linear(2, 1)).double()
    x = teachgrad.ones(4, 3, dtype=teachgrad.float64)
    params = {k: v.detach() for k, v in model.named_parameters()}
    grads = grad(lambda p: functional_call(model, p, (x,)).sum())(params)
    model(x).sum().backward()
    for name, p in model.named_parameters():
        np.testing.assert_allclose(grads[name].numpy(), p.grad.numpy(), rtol=1e-12)


def test_functional_call_strict_and_tied_weights():
    layer = teachgrad.nn.Linear(2, 1)
    with pytest.raises(RuntimeError) as info:
        functional_call(layer, {"weight": teachgrad.ones(1, 2), "bogus": teachgrad.ones(1)},
                        (teachgrad.ones(2),), strict=True)
    assert str(info.value) == ("Error(s) in reparametrizing for Linear:\n\tUnexpected key(s): "
                               "'bogus'.\n\tMissing key(s): 'bias'.")

    class Tied(teachgrad.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = teachgrad.nn.Linear(1, 1, bias=False)
            self.b = teachgrad.nn.Linear(1, 1, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    out = functional_call(Tied(), {"a.weight": teachgrad.tensor([[3.0]])},
                          (teachgrad.tensor([2.0]),))
    assert out.tolist() == [18.0]  # both uses replaced: 3·3·2


# ----------------------------------------------------------------------------------------
# Variable
# ----------------------------------------------------------------------------------------
def test_variable_returns_a_detached_tensor():
    x = teachgrad.ones(2)
    v = Variable(x, requires_grad=True)
    assert type(v) is teachgrad.Tensor and v.requires_grad and v.is_leaf
    assert np.shares_memory(v.numpy(force=True), x.numpy())
    assert isinstance(x, Variable)
    assert Variable(x * teachgrad.ones(2, requires_grad=True)).grad_fn is None
    assert Variable().shape == (0,)
    with pytest.raises(TypeError, match="^Variable data has to be a tensor, but got list$"):
        Variable([1, 2])
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        Variable(x, volatile=True)


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
def test_transforms_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    arrays = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3)
    ours, theirs = (_transform_results(lib, *arrays) for lib in (teachgrad, torch))
    for a, b in zip(_leaves(ours), _leaves(theirs)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def _transform_results(lib, x_np, y_np, v_np) -> list:
    fn = lib.func
    x, y, v = lib.tensor(x_np), lib.tensor(y_np), lib.tensor(v_np)

    def f(x, y):
        return (x.sin() * y).sum() + (x * x * y.exp()).mean()

    return [
        fn.grad(f, argnums=(0, 1))(x, y),
        fn.jacrev(lambda x: x.exp() * y)(x),
        fn.jacfwd(lambda x: x.exp() * y)(x),
        fn.hessian(f)(x, y),
        fn.jvp(lambda x: f(x, y), (x,), (v,))[1],
        fn.vjp(lambda x: x.tanh() * y, x)[1](v),
        fn.vmap(lambda a, b: (a * b).sum(), in_dims=(0, None))(x.reshape(3, 1) * y, y),
    ]


def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    return [tree]
