"""Padding: F.pad (constant / reflect / replicate / circular), the padding layers, and
Conv1d / Conv2d ``padding_mode`` (gradcheck, hand values, PyTorch parity)."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

# (input shape, pad, mode): every mode on 1, 2 and 3 padded dimensions, batched or not,
# with uneven and negative padding.
CASES = [
    ((2, 3, 5), (2, 1), "constant"),
    ((2, 3, 5, 4), (1, 0, -1, 2), "constant"),
    ((4, 5), (-2, 3), "constant"),
    ((2, 5), (1, 2, 2, 1), "constant"),                  # pads every dimension
    ((2, 3, 5), (2, 1), "reflect"),
    ((3, 5), (4, 4), "reflect"),                         # unbatched, pad = size - 1
    ((2, 2, 4, 5), (1, 3, 2, 0), "reflect"),
    ((2, 2, 4, 5), (-1, 2, 3, -2), "reflect"),
    ((1, 2, 3, 4, 5), (1, 2, 2, 1, 1, 1), "reflect"),
    ((2, 3, 5), (3, 1), "replicate"),
    ((2, 2, 4, 5), (1, 6, 2, 0), "replicate"),           # more than the size: fine here
    ((2, 4, 5), (-2, 1, 0, 2), "replicate"),
    ((2, 3, 3, 4), (1, 1, 0, 2, 2, 1), "replicate"),
    ((2, 3, 5), (2, 1), "circular"),
    ((2, 2, 4, 5), (1, 3, 2, 4), "circular"),
    ((2, 4, 5), (-2, 1, 1, -1), "circular"),
    ((1, 1, 2, 3, 3), (1, 2, 2, 1, 2, 1), "circular"),
]


def leaf(shape, seed=0):
    rng = np.random.default_rng(seed)
    return teachgrad.tensor(rng.standard_normal(shape), requires_grad=True)


@pytest.mark.parametrize("shape,pad,mode", CASES)
def test_gradcheck_and_gradgradcheck(shape, pad, mode):
    x = leaf(shape)
    assert gradcheck(lambda x: F.pad(x, pad, mode), (x,))
    assert gradgradcheck(lambda x: F.pad(x, pad, mode), (x,))


def test_third_order_gradient_through_reflection():
    x = leaf((1, 2, 4))

    def second(x):
        (g,) = teachgrad.autograd.grad((F.pad(x, (2, 3), "reflect") ** 3).sum(), x,
                                       create_graph=True)
        return g

    assert gradcheck(second, (x,))


def test_hand_values_and_border_gradients():
    x = teachgrad.tensor([[[1.0, 2.0, 3.0]]], requires_grad=True)
    assert F.pad(x, (2, 1), "reflect").tolist() == [[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]]
    assert F.pad(x, (2, 1), "replicate").tolist() == [[[1.0, 1.0, 1.0, 2.0, 3.0, 3.0]]]
    assert F.pad(x, (2, 1), "circular").tolist() == [[[2.0, 3.0, 1.0, 2.0, 3.0, 1.0]]]
    assert F.pad(x, (2, -1), value=-1.0).tolist() == [[[-1.0, -1.0, 1.0, 2.0]]]
    # Reflection copies 3 twice and 2 twice (and 2 once more as itself): it gets their grads.
    F.pad(x, (2, 1), "reflect").sum().backward()
    assert x.grad.tolist() == [[[1.0, 3.0, 2.0]]]
    x.grad = None
    F.pad(x, (2, 1), "replicate").sum().backward()
    assert x.grad.tolist() == [[[3.0, 1.0, 2.0]]]
    x.grad = None
    F.pad(x, (1, -1)).sum().backward()       # the cropped value gets no gradient
    assert x.grad.tolist() == [[[1.0, 1.0, 0.0]]]


def test_values_are_copied_exactly_whatever_the_dtype():
    x = teachgrad.tensor([[[5, -7, 9]]])
    assert F.pad(x, (1, 1), "reflect").tolist() == [[[-7, 5, -7, 9, -7]]]
    assert F.pad(x, (1, 1), value=2.7).tolist() == [[[2, 5, -7, 9, 2]]]   # truncated
    inf = teachgrad.tensor([[[float("inf"), 1.0, 2.0]]])
    assert F.pad(inf, (1, 1), "replicate").tolist() == [[[float("inf")] * 2 + [1.0, 2.0, 2.0]]]


def test_grad_fn_names():
    x = leaf((2, 3, 5, 4))
    assert type(F.pad(x, (1, 1)).grad_fn).__name__ == "ConstantPadNdBackward0"
    assert type(F.pad(x[0], (1, 1), "reflect").grad_fn).__name__ == "ReflectionPad1DBackward0"
    assert type(F.pad(x, (1, 1, 1, 1), "replicate").grad_fn).__name__ == (
        "ReplicationPad2DBackward0")
    assert F.pad(x[0], (1, 1), "circular").grad_fn.name() == "torch::autograd::CopySlices"
    (g,) = teachgrad.autograd.grad((F.pad(x, (1, 1, 1, 1), "reflect") ** 2).sum(), x,
                                   create_graph=True)
    assert type(g.grad_fn).__name__ == "ReflectionPad2DBackwardBackward0"


def test_errors():
    x = teachgrad.zeros(2, 3, 4)
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode wrap"):
        F.pad(x, (1, 1), "wrap")
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(x, (1,))
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        F.pad(x, (4, 1), "reflect")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(x, (5, 1), "circular")
    with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 1D"):
        F.pad(teachgrad.zeros(4), (1, 1), "reflect")
    with pytest.raises(RuntimeError, match="doesn't take in value argument"):
        F.pad(x, (1, 1), "replicate", value=1.0)
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.CircularPad1d(1)(teachgrad.zeros(4))


def test_conv_padding_mode_is_pad_then_convolve():
    teachgrad.manual_seed(0)
    conv = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="reflect", dtype=teachgrad.float64)
    x = leaf((1, 2, 5, 6))
    expected = F.conv2d(F.pad(x, (2, 2, 1, 1), "reflect"), conv.weight, conv.bias)
    np.testing.assert_allclose(conv(x).detach().numpy(), expected.detach().numpy())
    assert gradcheck(lambda x: conv(x), (x,))
    conv1 = nn.Conv1d(2, 2, 4, padding="same", padding_mode="circular", dtype=teachgrad.float64)
    assert conv1(leaf((2, 7))).shape == (2, 7)


# ----------------------------------------------------------------------------------------
# Against PyTorch
# ----------------------------------------------------------------------------------------
def _names(fn, depth=0, out=None):
    """The graph below ``fn`` as (depth, name) lines, depth first (small graphs only)."""
    out = [] if out is None else out
    if fn is not None:
        out.append((depth, fn.name()))
        for child, _ in fn.next_functions:
            _names(child, depth + 1, out)
    return out


@pytest.mark.torch
@pytest.mark.parametrize("shape,pad,mode", CASES)
def test_values_gradients_and_graph_match_pytorch(shape, pad, mode):
    torch = pytest.importorskip("torch")
    x = leaf(shape, seed=1)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    ours, theirs = F.pad(x, pad, mode), torch.nn.functional.pad(tx, pad, mode)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert _names(ours.grad_fn) == _names(theirs.grad_fn)
    grad = np.random.default_rng(2).standard_normal(theirs.shape)
    (gx,) = teachgrad.autograd.grad(ours, x, teachgrad.tensor(grad), create_graph=True)
    (tgx,) = torch.autograd.grad(theirs, tx, torch.tensor(grad), create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), tgx.detach().numpy(), atol=1e-12)
    if mode != "circular":  # circular's double backward is slicing, whose names differ
        assert type(gx.grad_fn).__name__ == type(tgx.grad_fn).__name__


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
def test_dtypes_match_pytorch(dtype):
    torch = pytest.importorskip("torch")
    data = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    for mode, value in [("constant", 1), ("constant", 2.7), ("reflect", None),
                        ("replicate", None), ("circular", None)]:
        if dtype == "bool" and mode != "constant":
            continue
        ours = F.pad(teachgrad.tensor(data), (1, 2, 2, 1), mode, value)
        theirs = torch.nn.functional.pad(torch.tensor(data), (1, 2, 2, 1), mode, value)
        assert str(ours.dtype) == str(theirs.dtype).replace("torch", "teachgrad")
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


ERROR_CASES = [
    ((2, 3, 4), (1,), "constant", None), ((2, 3, 4), (1,) * 8, "constant", None),
    ((2, 3, 4), (-3, -2), "constant", None), ((2, 3, 4), (-5, 1), "constant", None),
    ((2, 3, 4), (0, 0, -3, -1), "constant", None), ((2, 3, 4), (1, 1), "wrap", None),
    ((2, 3, 4), (1,), "wrap", None), ((2, 3, 4), (4, 1), "reflect", None),
    ((2, 3, 4), (1, 5), "reflect", None), ((2, 3, 4), (1, 1, 3, 1), "reflect", None),
    ((2, 3, 4, 5), (5, 1, 1, 1), "reflect", None), ((2, 3, 4, 5), (1, 1, 5, 1), "reflect", None),
    ((1, 2, 3, 4, 5), (1, 1, 1, 1, 3, 1), "reflect", None),
    ((1, 2, 3, 4, 5), (1, 1, 4, 1, 1, 1), "reflect", None),
    ((2, 3, 4), (1, 1, 1, 1, 1, 1), "reflect", None), ((3, 4), (1, 1, 1, 1), "replicate", None),
    ((4,), (1, 1), "circular", None), ((1, 2, 3, 4), (1, 1), "reflect", None),
    ((2, 3, 0), (1, 1), "reflect", None), ((2, 0, 4), (1, 1), "replicate", None),
    ((2, 3, 4, 0), (1, 1, 1, 1), "reflect", None),
    ((2, 3, 4), (-4, 0), "reflect", None), ((2, 3, 4), (-4, -1), "replicate", None),
    ((2, 3, 4, 5), (-3, -2, -3, -1), "reflect", None),
    ((2, 3, 4, 5), (0, 0, -4, -1), "replicate", None),
    ((2, 3, 4), (5, 1), "circular", None), ((2, 3, 4), (-4, -1), "circular", None),
    ((2, 3, 0), (1, 1), "circular", None),
    ((2, 3, 4), (1, 1), "reflect", 2.0), ((2, 3, 4), (1, 1), "circular", -1),
]


@pytest.mark.torch
@pytest.mark.parametrize("shape,pad,mode,value", ERROR_CASES)
def test_errors_match_pytorch(shape, pad, mode, value):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        torch.nn.functional.pad(torch.zeros(shape), pad, mode, value)
    with pytest.raises(type(theirs.value)) as ours:
        F.pad(teachgrad.zeros(shape), pad, mode, value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.torch
@pytest.mark.parametrize("shape,pad,mode", [
    ((2, 3, 4), (-2, -2), "constant"), ((2, 3, 4), (-2, -2), "circular"),
    ((2, 3, 4), (-5, 1), "circular"), ((2, 3, 4), (4, 4), "circular"),
    ((0, 3, 4), (1, 1), "reflect"), ((2, 3, 4, 5), (-4, -1, 0, 0), "replicate"),
    ((2, 3, 4), (-3, 3), "reflect"),
])
def test_edge_shapes_match_pytorch(shape, pad, mode):
    torch = pytest.importorskip("torch")
    data = np.arange(np.prod(shape), dtype=float).reshape(shape)
    ours = F.pad(teachgrad.tensor(data), pad, mode)
    theirs = torch.nn.functional.pad(torch.tensor(data), pad, mode)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.torch
def test_argument_type_errors_match_pytorch():
    torch = pytest.importorskip("torch")
    for call in (lambda lib: lib.nn.functional.pad(lib.zeros(2, 3), (1.5, 1)),
                 lambda lib: lib.nn.functional.pad([1.0], (1, 1))):
        with pytest.raises(TypeError) as theirs:
            call(torch)
        with pytest.raises(TypeError) as ours:
            call(teachgrad)
        # (ours may add a Hint line for a learner)
        assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


@pytest.mark.torch
@pytest.mark.parametrize("name,args", [
    ("ZeroPad1d", (2,)), ("ZeroPad2d", ((1, 2, 3, 4),)), ("ZeroPad2d", (1,)), ("ZeroPad3d", (1,)),
    ("ConstantPad1d", ((1, 2), 3.5)), ("ConstantPad2d", (1, 0.0)), ("ConstantPad1d", (2, -1)),
    ("ConstantPad3d", (1, 2)), ("ReflectionPad1d", (2,)), ("ReflectionPad2d", ((1, 0, 2, 1),)),
    ("ReflectionPad3d", (1,)), ("ReplicationPad1d", (1,)), ("ReplicationPad2d", (2,)),
    ("ReplicationPad3d", ((1, 2, 1, 2, 1, 2),)), ("CircularPad1d", (1,)),
    ("CircularPad2d", ((1, 1, 2, 0),)), ("CircularPad3d", (1,)),
])
def test_modules_match_pytorch(name, args):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    assert ours.padding == theirs.padding
    dims = int(name[-2])
    data = np.random.default_rng(3).standard_normal((2, 3, 4, 5, 6)[-dims - 2:])
    np.testing.assert_array_equal(ours(teachgrad.tensor(data)).numpy(),
                                  theirs(torch.tensor(data)).numpy())


@pytest.mark.torch
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("name,padding,shape", [
    ("Conv1d", 2, (2, 2, 7)), ("Conv1d", "same", (2, 7)), ("Conv2d", (1, 2), (2, 2, 5, 6)),
    ("Conv2d", "same", (1, 2, 5, 6)), ("Conv2d", "valid", (1, 2, 5, 6)),
])
def test_conv_padding_modes_match_pytorch(mode, name, padding, shape):
    torch = pytest.importorskip("torch")
    kwargs = {"padding": padding, "padding_mode": mode, "dilation": 2 if padding == "same" else 1}
    ours = getattr(nn, name)(2, 4, 3, dtype=teachgrad.float64, **kwargs)
    theirs = getattr(torch.nn, name)(2, 4, 3, dtype=torch.float64, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours._reversed_padding_repeated_twice) == list(
        theirs._reversed_padding_repeated_twice)
    theirs.load_state_dict({k: torch.tensor(v.detach().numpy())
                            for k, v in ours.state_dict().items()})
    x = leaf(shape, seed=4)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    out, tout = ours(x), theirs(tx)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), atol=1e-12)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), atol=1e-12)


def test_docstring_examples_run():
    import doctest

    from teachgrad.nn import axis_maps, padding, padding_ops
    from teachgrad.nn.modules import padding as padding_modules

    for module in (axis_maps, padding, padding_ops, padding_modules):
        assert doctest.testmod(module).failed == 0
