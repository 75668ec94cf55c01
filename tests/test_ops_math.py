"""Special functions (asin ... erfinv, atan2, hypot, lerp, xlogy, fmod, trace ...).

Gradients are checked against finite differences (gradcheck, float64, away from the
singular points) and, for the twice differentiable ops, second derivatives too
(gradgradcheck). Values, dtypes, grad_fn names and errors are compared with PyTorch in
the tests marked ``torch`` (skipped when torch is not installed).
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(5)


def leaf(data, dtype=teachgrad.float64):
    return teachgrad.tensor(data, dtype=dtype, requires_grad=True)


def uniform(low: float, high: float, shape=(2, 3)):
    return leaf(RNG.uniform(low, high, shape))


# Each unary op with a domain inside which it is smooth (away from ±1 for asin, 1 for acosh).
UNARY = {
    "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atan": (-3, 3), "sinh": (-2, 2),
    "cosh": (-2, 2), "asinh": (-3, 3), "acosh": (1.2, 4), "atanh": (-0.9, 0.9),
    "erf": (-2, 2), "erfc": (-2, 2), "erfinv": (-0.95, 0.95),
}
ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
           "arccosh": "acosh", "arctanh": "atanh", "arctan2": "atan2"}


def grad_fn_name(op: str) -> str:
    return op[0].upper() + op[1:] + "Backward0"


# ----------------------------------------------------------------------------------------
# Gradients: finite differences, first and second order
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradients_match_finite_differences(name):
    x = uniform(*UNARY[name])
    fn = getattr(teachgrad, name)
    out = fn(x)
    assert out.grad_fn.name() == grad_fn_name(name)
    assert getattr(x, name)().grad_fn.name() == grad_fn_name(name)  # the method too
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_erf_derivative_is_the_gaussian_by_hand():
    # erf'(x) = 2/sqrt(pi) * exp(-x^2): at 0 it is 2/sqrt(pi), at 1 it is that times e^-1.
    x = leaf([0.0, 1.0])
    teachgrad.erf(x).sum().backward()
    expected = [2 / math.sqrt(math.pi), 2 / math.sqrt(math.pi) / math.e]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-15)


def test_erf_and_erfinv_values():
    # Reference values of math.erf (correctly rounded) and the defining identity of erfinv.
    ys = np.array([-0.999999, -0.7, -1e-9, 0.0, 0.3, 0.5, 0.9999, 1 - 2**-53])
    x = teachgrad.erfinv(teachgrad.tensor(ys)).numpy()
    erf_of_x = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(erf_of_x, ys, rtol=2e-16, atol=0)
    # near 1, compare 1 - y with erfc(x) instead: that is where the digits are
    np.testing.assert_allclose(math.erfc(x[-1]), 2**-53, rtol=1e-14)
    assert teachgrad.erfinv(teachgrad.tensor([1.0, -1.0, 1.5])).tolist()[:2] == [math.inf,
                                                                              -math.inf]
    assert math.isnan(teachgrad.erfinv(teachgrad.tensor([1.5])).item())
    values = teachgrad.erf(teachgrad.tensor([-1.0, 0.5, 3.0], dtype=teachgrad.float64)).tolist()
    assert values == [math.erf(-1.0), math.erf(0.5), math.erf(3.0)]


def two_leaves():
    return uniform(-2, 2), uniform(-2, 2)


@pytest.mark.parametrize("fn", [teachgrad.atan2, teachgrad.logaddexp, teachgrad.logaddexp2],
                         ids=["atan2", "logaddexp", "logaddexp2"])
def test_binary_gradients(fn):
    a, b = two_leaves()
    assert gradcheck(fn, (a, b))
    assert gradgradcheck(fn, (a, b))


def test_hypot_gradients_away_from_the_origin():
    a, b = uniform(0.5, 2), uniform(-2, -0.5)
    assert gradcheck(teachgrad.hypot, (a, b))
    assert gradgradcheck(teachgrad.hypot, (a, b))


def test_atan2_broadcasts_and_its_gradient_is_summed_back():
    a, b = uniform(-2, 2, (2, 3)), uniform(0.5, 2, (3,))
    assert gradcheck(teachgrad.atan2, (a, b))


def test_xlogy_gradients_and_its_zero_convention():
    x, y = uniform(0.1, 2), uniform(0.1, 2)
    assert gradcheck(teachgrad.xlogy, (x, y))
    assert gradgradcheck(teachgrad.xlogy, (x, y))
    assert gradgradcheck(lambda t: teachgrad.xlogy(2.5, t), (y,))
    assert gradgradcheck(lambda t: teachgrad.xlogy(t, 3.0), (x,))
    # 0 * log(0) is 0 (not nan), and so is its slope in x (by PyTorch's convention).
    x0 = leaf([0.0, 2.0])
    out = teachgrad.xlogy(x0, teachgrad.tensor([0.0, math.e], dtype=teachgrad.float64))
    assert out.tolist() == [0.0, 2.0]
    out.sum().backward()
    assert x0.grad.tolist() == [0.0, 1.0]


def test_lerp_gradients_with_number_and_tensor_weight():
    a, b, w = uniform(-2, 2), uniform(-2, 2), uniform(-0.5, 1.5)
    out = teachgrad.lerp(a, b, 0.25)
    assert out.grad_fn.name() == "LerpBackward0"
    assert len(out.grad_fn.next_functions) == 2  # the number is no input
    assert teachgrad.lerp(a, b, w).grad_fn.name() == "LerpBackward1"
    assert gradgradcheck(lambda s, e: s.lerp(e, 0.25), (a, b))
    assert gradcheck(teachgrad.lerp, (a, b, w))
    assert gradgradcheck(teachgrad.lerp, (a, b, w))
    # weight 1 gives exactly end (PyTorch computes it from the nearer end)
    end = teachgrad.tensor([0.1, 1e20])
    assert teachgrad.lerp(teachgrad.tensor([0.3, -1.0]), end, 1.0).tolist() == end.tolist()


def test_fmod_gradients_away_from_the_jumps():
    a = leaf([0.5, -1.3, 2.2, -3.1])
    b = leaf([1.5, 0.7, -0.45, -1.2])
    assert gradcheck(teachgrad.fmod, (a, b))
    assert gradgradcheck(lambda x, y: teachgrad.fmod(x, y) * x, (a, b))
    assert gradcheck(lambda x: x.fmod(0.9), (a,))
    out = teachgrad.fmod(a, b)
    out.sum().backward()
    # d/da = 1;  d/db = -trunc(a/b) = -[0, -1, -4, 2]
    assert a.grad.tolist() == [1.0] * 4
    assert b.grad.tolist() == [0.0, 1.0, 4.0, -2.0]


def test_sign_of_booleans_is_themselves():
    # As PyTorch (True is 1, False 0); NumPy's sign has no bool loop and raised.
    x = teachgrad.tensor([True, False])
    assert teachgrad.sign(x).tolist() == [True, False] and teachgrad.sign(x).dtype == x.dtype
    assert x.sign_().tolist() == [True, False]


def test_fmod_keeps_the_sign_of_the_dividend():
    assert teachgrad.fmod(teachgrad.tensor([-7, 7]), 3).tolist() == [-1, 1]
    assert teachgrad.fmod(teachgrad.tensor([-7.0, 7.0]), 3).tolist() == [-1.0, 1.0]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        teachgrad.fmod(teachgrad.tensor([1, 2]), 0)


def test_nan_to_num_gradient_is_zero_where_replaced():
    x = leaf([math.nan, math.inf, -math.inf, 1.5])
    out = x.nan_to_num(nan=1.0, posinf=2.0)
    assert out.tolist()[:3] == [1.0, 2.0, -np.finfo(np.float64).max]
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 1.0]
    assert gradgradcheck(lambda t: t.nan_to_num() ** 2, (uniform(-1, 1),))


def test_trace_gradient_is_the_identity():
    m = uniform(-1, 1, (2, 3))
    out = m.trace()
    assert out.grad_fn.name() == "TraceBackward0"
    out.backward()
    assert m.grad.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert gradgradcheck(lambda t: t.trace() * t.trace(), (uniform(-1, 1, (3, 3)),))
    assert teachgrad.trace(teachgrad.tensor([[1, 2], [3, 4]], dtype=teachgrad.int8)).dtype \
        == teachgrad.int64
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 3"):
        teachgrad.ones(2, 2, 2).trace()


def test_aliases_are_the_same_functions():
    for alias, name in ALIASES.items():
        if alias == "arctan2":  # its own wrapper: PyTorch names arctan2 in its errors
            continue
        # the namespace alias runs the same code in a wrapper of its own, which names it
        # in errors as PyTorch does (torch.arccos([1.0]) says arccos(), not acos())
        assert inspect.unwrap(getattr(teachgrad, alias)) is inspect.unwrap(
            getattr(teachgrad, name))
        assert getattr(teachgrad.Tensor, alias) is getattr(teachgrad.Tensor, name)
    x, y = teachgrad.tensor([1.0, -1.0]), teachgrad.tensor([2.0, 2.0])
    assert teachgrad.arctan2(x, y).equal(teachgrad.atan2(x, y))
    assert x.arctan2(y).equal(x.atan2(y))


def test_integers_become_the_default_float():
    x = teachgrad.tensor([0, 1])
    assert teachgrad.asin(x).dtype == teachgrad.float32
    assert teachgrad.erf(x).dtype == teachgrad.float32
    assert teachgrad.atan2(x, x).dtype == teachgrad.float32
    assert teachgrad.xlogy(x, x).dtype == teachgrad.float32
    with pytest.raises(NotImplementedError, match="hypot_cpu"):
        teachgrad.hypot(x, x)


def test_backward_through_sinh_twice_uses_cosh_on_tensors():
    # sinh'' = sinh: the second derivative goes through np.cosh on a tensor.
    x = leaf([0.5, -1.0])
    (g,) = teachgrad.autograd.grad(x.sinh().sum(), x, create_graph=True)
    (gg,) = teachgrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.sinh([0.5, -1.0]), rtol=1e-15)


# ----------------------------------------------------------------------------------------
# Parity with PyTorch: values, dtypes, grad_fn names, gradients, errors
# ----------------------------------------------------------------------------------------
def _torch():
    return pytest.importorskip("torch")


def _same(ours, theirs, rtol=1e-12):
    """Values and dtype equal (nan where torch has nan)."""
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    np.testing.assert_allclose(ours.detach().numpy().astype(np.float64),
                               theirs.detach().numpy().astype(np.float64),
                               rtol=rtol, atol=0, equal_nan=True)


def _first_line(error) -> str:
    return str(error).split("\n")[0]


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(UNARY) + [a for a in ALIASES if a != "arctan2"])
def test_unary_values_dtypes_and_gradients_match_torch(name):
    torch = _torch()
    values = [-1.5, -1.0, -0.5, 0.0, 0.3, 0.999, 1.0, 2.0, 30.0]
    for dtype, rtol in (("float64", 1e-13), ("float32", 1e-6), ("float16", 1e-3)):
        ours = getattr(teachgrad, name)(teachgrad.tensor(values, dtype=getattr(teachgrad, dtype)))
        theirs = getattr(torch, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
        _same(ours, theirs, rtol)
    _same(getattr(teachgrad, name)(teachgrad.tensor([0, 1])),
          getattr(torch, name)(torch.tensor([0, 1])), 1e-6)
    low, high = UNARY[ALIASES.get(name, name)]
    data = RNG.uniform(low, high, 5)
    x, tx = leaf(data), torch.tensor(data, requires_grad=True)
    out, tout = getattr(x, name)(), getattr(tx, name)()
    assert out.grad_fn.name() == tout.grad_fn.name()
    out.sum().backward()
    tout.sum().backward()
    _same(x.grad, tx.grad, 1e-13)


@pytest.mark.torch
def test_erfinv_matches_torch_across_the_domain():
    torch = _torch()
    ys = np.concatenate([np.linspace(-1, 1, 4001), [1 - 2**-53, -1 + 1e-12, 1e-300, 0.5]])
    _same(teachgrad.erfinv(teachgrad.tensor(ys)), torch.erfinv(torch.tensor(ys)), 1e-15)


BINARY_CASES = {
    "atan2": lambda lib, a, b: lib.atan2(a, b),
    "arctan2": lambda lib, a, b: lib.arctan2(a, b),
    "hypot": lambda lib, a, b: lib.hypot(a, b),
    "logaddexp": lambda lib, a, b: lib.logaddexp(a, b),
    "logaddexp2": lambda lib, a, b: lib.logaddexp2(a, b),
    "xlogy": lambda lib, a, b: lib.xlogy(a.abs(), b.abs()),
    "xlogy_number_first": lambda lib, a, b: lib.xlogy(2.5, b.abs()),
    "xlogy_number_second": lambda lib, a, b: lib.xlogy(a, 3.0),
    "lerp": lambda lib, a, b: lib.lerp(a, b, 0.7),
    "lerp_tensor_weight": lambda lib, a, b: lib.lerp(a, b, a.sigmoid()),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "fmod_number": lambda lib, a, b: a.fmod(0.45),
    "nan_to_num": lambda lib, a, b: lib.nan_to_num(a / (b - b)),
    "trace": lambda lib, a, b: (a.reshape(3, 2) * b.reshape(3, 2)).trace(),
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(BINARY_CASES))
def test_binary_values_graphs_and_gradients_match_torch(case):
    torch = _torch()
    fn = BINARY_CASES[case]
    da, db = RNG.uniform(-2, 2, (2, 3)), RNG.uniform(-2, 2, (3,))
    if case == "trace":
        db = RNG.uniform(-2, 2, (2, 3))
    a, b = leaf(da), leaf(db)
    ta, tb = torch.tensor(da, requires_grad=True), torch.tensor(db, requires_grad=True)
    out, tout = fn(teachgrad, a, b), fn(torch, ta, tb)
    _same(out, tout)
    assert out.grad_fn.name() == tout.grad_fn.name()
    ours = [None if f is None else f.name() for f, _ in out.grad_fn.next_functions]
    theirs = [None if f is None else f.name() for f, _ in tout.grad_fn.next_functions]
    assert ours == theirs
    weights = RNG.uniform(-1, 1, tuple(out.shape))
    (out * teachgrad.tensor(weights)).sum().backward()
    (tout * torch.tensor(weights)).sum().backward()
    for grad, tgrad in ((a.grad, ta.grad), (b.grad, tb.grad)):
        assert (grad is None) == (tgrad is None)  # an operand the case does not use
        if grad is not None:
            _same(grad, tgrad)


DTYPE_CASES = [
    ("atan2", lambda lib: lib.atan2(lib.tensor([1, 2]), lib.tensor([3, -4]))),
    ("atan2 mixed", lambda lib: lib.atan2(lib.tensor([1]), lib.tensor([2.0], dtype=lib.float64))),
    ("atan2 0-d", lambda lib: lib.atan2(lib.tensor([1.0], dtype=lib.float16), lib.tensor(2.0))),
    ("xlogy ints", lambda lib: lib.xlogy(lib.tensor([0, 1]), lib.tensor([0, 2]))),
    ("xlogy int, float", lambda lib: lib.xlogy(lib.tensor([1], dtype=lib.int32), 2.5)),
    ("xlogy number, int", lambda lib: lib.xlogy(3, lib.tensor([2], dtype=lib.int32))),
    ("xlogy nan", lambda lib: lib.xlogy(lib.tensor([0.0]), lib.tensor([math.nan]))),
    ("fmod ints", lambda lib: lib.fmod(lib.tensor([-7, 7]), 3)),
    ("fmod int by float", lambda lib: lib.fmod(lib.tensor([-7, 7]), 2.5)),
    ("fmod tensors", lambda lib: lib.fmod(lib.tensor([-7, 7]), lib.tensor([2.5, -3.0]))),
    ("fmod by 0.", lambda lib: lib.fmod(lib.tensor([1.0, 2.0]), 0)),
    ("nan_to_num", lambda lib: lib.nan_to_num(lib.tensor([math.nan, math.inf, -math.inf]))),
    ("nan_to_num f16", lambda lib: lib.tensor([math.inf], dtype=lib.float16).nan_to_num()),
    ("nan_to_num int", lambda lib: lib.nan_to_num(lib.tensor([1, 2]))),
    ("trace int", lambda lib: lib.trace(lib.tensor([[1, 2], [3, 4]], dtype=lib.int8))),
    ("trace f16", lambda lib: lib.trace(lib.ones(2, 3, dtype=lib.float16))),
    ("lerp 0-d weight", lambda lib: lib.lerp(lib.tensor([1.0]), lib.tensor([2.0]),
                                             lib.tensor(0.5, dtype=lib.float64))),
    ("lerp f32", lambda lib: lib.lerp(lib.tensor([1.0, 2.0]), lib.tensor([3.0, -2.0]), 0.8)),
    ("hypot f16", lambda lib: lib.hypot(lib.tensor([3.0], dtype=lib.float16),
                                        lib.tensor([4.0], dtype=lib.float16))),
    ("logaddexp f32", lambda lib: lib.logaddexp(lib.tensor([1e3, -2.0]), lib.tensor([1e3, 3.0]))),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_results_and_dtypes_match_torch(case):
    torch = _torch()
    _, fn = case
    _same(fn(teachgrad), fn(torch), 1e-6)


ERROR_CASES = [
    ("atan2 number", lambda lib: lib.atan2(lib.tensor([1.0]), 2)),
    ("hypot number", lambda lib: lib.hypot(lib.tensor([1.0]), 2.0)),
    ("logaddexp number", lambda lib: lib.logaddexp(lib.tensor([1.0]), 2.0)),
    ("hypot ints", lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4]))),
    ("logaddexp ints", lambda lib: lib.logaddexp(lib.tensor([3]), lib.tensor([4]))),
    ("lerp ints", lambda lib: lib.lerp(lib.tensor([3]), lib.tensor([4]), 0.5)),
    ("lerp end dtype", lambda lib: lib.lerp(lib.tensor([1.0]),
                                            lib.tensor([2.0], dtype=lib.float64), 0.5)),
    ("lerp weight dtype", lambda lib: lib.lerp(lib.tensor([1.0]), lib.tensor([2.0]),
                                               lib.tensor([0.5], dtype=lib.float64))),
    ("fmod int by 0", lambda lib: lib.fmod(lib.tensor([1, 2]), 0)),
    ("trace 3-d", lambda lib: lib.trace(lib.ones(2, 2, 2))),
    ("trace bool", lambda lib: lib.trace(lib.tensor([[True, False]]))),
]



# ----------------------------------------------------------------------------------------
# meshgrid, Tensor.stride(), finfo, iinfo
# ----------------------------------------------------------------------------------------
def test_meshgrid_ij_and_xy():
    xs, ys = teachgrad.meshgrid(teachgrad.tensor([1, 2]), teachgrad.tensor([3, 4, 5]),
                                indexing="ij")
    assert xs.tolist() == [[1, 1, 1], [2, 2, 2]]
    assert ys.tolist() == [[3, 4, 5], [3, 4, 5]]
    xs, ys = teachgrad.meshgrid([teachgrad.tensor([1, 2]), teachgrad.tensor([3, 4, 5])],
                                indexing="xy")
    assert xs.tolist() == [[1, 2], [1, 2], [1, 2]]
    assert ys.tolist() == [[3, 3], [4, 4], [5, 5]]
    assert xs.stride() == (0, 1)  # a view: nothing copied


def test_meshgrid_warns_without_indexing_and_is_differentiable():
    a = leaf([1.0, 2.0])
    with pytest.warns(UserWarning, match="required to pass the indexing argument"):
        xs, ys = teachgrad.meshgrid(a, teachgrad.ones(3, dtype=teachgrad.float64))
    assert xs.grad_fn.name() == "ExpandBackward0"
    (xs * ys).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]  # each a[i] appears in 3 cells, times ys = 1


def test_stride_counts_elements():
    x = teachgrad.ones(2, 3, 4)
    assert x.stride() == (12, 4, 1)
    assert x.stride(1) == 4 and x.stride(-1) == 1
    assert x.transpose(0, 2).stride() == (1, 4, 12)
    assert teachgrad.ones(3, 4).expand(2, 3, 4).stride() == (0, 4, 1)
    assert teachgrad.ones(()).stride() == ()
    with pytest.raises(IndexError, match=r"range of \[-3, 2\], but got 3"):
        x.stride(3)


def test_finfo_and_iinfo():
    f = teachgrad.finfo(teachgrad.float32)
    assert f.eps == 2.0**-23 and f.bits == 32 and f.dtype == "float32"
    assert f.tiny == f.smallest_normal == 2.0**-126
    assert teachgrad.finfo() == f  # the default dtype
    assert teachgrad.finfo(teachgrad.float16).max == 65504.0
    assert teachgrad.finfo(teachgrad.float16).resolution == 0.001
    i = teachgrad.iinfo(teachgrad.int8)
    assert (i.min, i.max, i.bits) == (-128, 127, 8)
    with pytest.raises(TypeError, match="requires a floating point input type"):
        teachgrad.finfo(teachgrad.int32)


@pytest.mark.torch
def test_meshgrid_and_stride_match_torch():
    torch = _torch()
    def grids(lib):
        return [lib.meshgrid(lib.tensor([1.0, 2.0]), lib.tensor(3.0),
                             lib.tensor([4.0, 5.0, 6.0]), indexing=ix) for ix in ("ij", "xy")]

    for ours, theirs in zip(grids(teachgrad), grids(torch), strict=True):
        for o, t in zip(ours, theirs, strict=True):
            assert o.tolist() == t.tolist()
            assert o.stride() == t.stride()
    x, tx = teachgrad.ones(3, 4)[:, ::2], torch.ones(3, 4)[:, ::2]
    assert x.stride() == tx.stride()
    assert teachgrad.ones(2, 3).t().stride() == torch.ones(2, 3).t().stride()


MESHGRID_ERRORS = [
    ("indexing", lambda lib: lib.meshgrid(lib.tensor([1, 2]), indexing="foo")),
    ("empty", lambda lib: lib.meshgrid(indexing="ij")),
    ("2-d", lambda lib: lib.meshgrid(lib.ones(2, 2), indexing="ij")),
    ("dtypes", lambda lib: lib.meshgrid(lib.tensor([1, 2]), lib.tensor([1.0]), indexing="ij")),
    ("stride 0-d", lambda lib: lib.ones(()).stride(0)),
    ("stride range", lambda lib: lib.ones(2, 3).stride(-3)),
    ("finfo int", lambda lib: lib.finfo(lib.int32)),
    ("iinfo float", lambda lib: lib.iinfo(lib.float32)),
    ("iinfo bool", lambda lib: lib.iinfo(lib.bool)),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", MESHGRID_ERRORS, ids=[c[0] for c in MESHGRID_ERRORS])
def test_helper_errors_match_torch(case):
    torch = _torch()
    _, fn = case
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(Exception) as ours:
        fn(teachgrad)
    assert type(ours.value) is type(theirs.value)
    # (PyTorch's 2-d message prints the tensor in C++ style; its first sentence is kept)
    assert _first_line(ours.value)[:60] == _first_line(theirs.value)[:60]


@pytest.mark.torch
@pytest.mark.parametrize("name", ["float16", "float32", "float64", "uint8", "int8", "int16",
                                  "int32", "int64"])
def test_finfo_iinfo_match_torch(name):
    torch = _torch()
    info = "finfo" if name.startswith("float") else "iinfo"
    ours = getattr(teachgrad, info)(getattr(teachgrad, name))
    theirs = getattr(torch, info)(getattr(torch, name))
    assert repr(ours) == repr(theirs)
    for field in ("bits", "max", "min", "dtype") + (
            ("eps", "tiny", "smallest_normal", "resolution") if info == "finfo" else ()):
        value, expected = getattr(ours, field), getattr(theirs, field)
        assert value == expected and type(value) is type(expected), field


# ----------------------------------------------------------------------------------------
# einsum: its gradient is an einsum with the subscripts rearranged
# ----------------------------------------------------------------------------------------
EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),             # matrix product
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),    # batched
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),  # a chain of three
    ("ij,ij->", [(2, 3), (2, 3)]),               # sum of products
    ("i,j", [(2,), (3,)]),                       # implicit output: outer product
    ("ij->ji", [(2, 3)]),                        # transpose
    ("ij->i", [(2, 3)]),                         # j summed away: the gradient spreads
    ("ii->i", [(3, 3)]),                         # diagonal: the gradient on the diagonal
    ("ii", [(3, 3)]),                            # trace
    ("iij->j", [(2, 2, 3)]),
    ("iji->j", [(2, 3, 2)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (5, 3, 4)]),  # ellipsis, broadcast
    ("ij,jk->ik", [(2, 1), (3, 2)]),             # j broadcast from size 1
    ("b...a", [(2, 4, 3)]),
    (",i->i", [(), (3,)]),
]
EINSUM_IDS = [f"{eq} {shapes}" for eq, shapes in EINSUM_CASES]


@pytest.mark.parametrize("case", EINSUM_CASES, ids=EINSUM_IDS)
def test_einsum_gradients_match_finite_differences(case):
    equation, shapes = case
    operands = tuple(leaf(RNG.uniform(-1, 1, shape)) for shape in shapes)

    def fn(*xs):
        return teachgrad.einsum(equation, *xs)

    # (one node; an equation that only reorders is a permute, as PyTorch records it)
    expected = "PermuteBackward0" if equation in ("ij->ji", "b...a") else "EinsumBackward0"
    assert fn(*operands).grad_fn.name() == expected
    assert gradcheck(fn, operands)
    assert gradgradcheck(fn, operands)


def test_einsum_values_by_hand():
    a = teachgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert teachgrad.einsum("ij,jk->ik", a, a).tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert teachgrad.einsum("ij,jk", [a, a]).tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert teachgrad.einsum("ii", a).item() == 5.0
    assert teachgrad.einsum("ij -> j", a).tolist() == [4.0, 6.0]
    assert teachgrad.einsum("ba", a).tolist() == [[1.0, 3.0], [2.0, 4.0]]  # sorted: ab
    # PyTorch's sublist form: operand, its subscripts as integers, ..., the output's
    assert teachgrad.einsum(a, [0, 1], a, [1, 2], [0, 2]).tolist() == [[7.0, 10.0],
                                                                       [15.0, 22.0]]
    assert teachgrad.einsum(a, [0, 0]).item() == 5.0
    batch = teachgrad.ones(2, 1, 2)
    assert teachgrad.einsum(batch, [..., 0, 1], a, [1, 2], [..., 0, 2]).tolist() == [
        [[4.0, 6.0]], [[4.0, 6.0]]]
    with pytest.raises(ValueError, match=r"not within the valid range \[0, 52\)"):
        teachgrad.einsum(a, [0, 52])


def test_einsum_result_is_not_a_view_of_its_input():
    a = teachgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    t = teachgrad.einsum("ii->i", a)  # NumPy would return a view here
    t += 1
    assert a.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_einsum_that_only_permutes_is_a_permuted_view_as_in_pytorch():
    # PyTorch returns a.permute(1, 0) for 'ij->ji' (PermuteBackward0, a view of a): a
    # change to it shows in a
    a = teachgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    t = teachgrad.einsum("ij->ji", a)
    assert t.grad_fn.name() == "PermuteBackward0" and t._base is a
    with teachgrad.no_grad():
        t += 1
    assert a.tolist() == [[2.0, 3.0], [4.0, 5.0]]


@pytest.mark.torch
@pytest.mark.parametrize("case", EINSUM_CASES, ids=EINSUM_IDS)
def test_einsum_values_and_gradients_match_torch(case):
    torch = _torch()
    equation, shapes = case
    arrays = [RNG.uniform(-1, 1, shape) for shape in shapes]
    ours = [leaf(a) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, tout = teachgrad.einsum(equation, *ours), torch.einsum(equation, *theirs)
    _same(out, tout)
    assert tuple(out.shape) == tuple(tout.shape)
    weights = RNG.uniform(-1, 1, tuple(out.shape))
    (out * teachgrad.tensor(weights)).sum().backward()
    (tout * torch.tensor(weights)).sum().backward()
    for x, tx in zip(ours, theirs, strict=True):
        _same(x.grad, tx.grad)


EINSUM_ERRORS = [
    ("more operands", lambda lib: lib.einsum("ij,jk->ik", *[lib.ones(2, 2)] * 3)),
    ("fewer operands", lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 2))),
    ("subscripts", lambda lib: lib.einsum("ijk->ij", lib.ones(2, 2))),
    ("too many with ...", lambda lib: lib.einsum("ij...k->", lib.ones(2, 2))),
    ("sizes", lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 2), lib.ones(3, 2))),
    ("output letter", lambda lib: lib.einsum("ij->ik", lib.ones(2, 2))),
    ("output twice", lambda lib: lib.einsum("ij->ii", lib.ones(2, 2))),
    ("invalid", lambda lib: lib.einsum("i1->i", lib.ones(2, 2))),
    ("dangling -", lambda lib: lib.einsum("ij-", lib.ones(2, 2))),
    ("dtypes", lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 2),
                                      lib.ones(2, 2, dtype=lib.float64))),
    ("sublist range", lambda lib: lib.einsum(lib.ones(2, 2), [0, 60])),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", ERROR_CASES + EINSUM_ERRORS, ids=lambda case: case[0])
def test_errors_match_torch(case):
    torch = _torch()
    _, fn = case
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(Exception) as ours:
        fn(teachgrad)
    assert type(ours.value) is type(theirs.value)
    assert _first_line(ours.value) == _first_line(theirs.value)
