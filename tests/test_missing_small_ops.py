"""Small functions: as_strided and friends, the *_copy functions, torch.range,
empty_strided, testing.make_tensor, is_inference, set_anomaly_enabled, torch.matrix_rank.

Gradients against finite differences (float64) and hand-derived values; with PyTorch
(``torch`` marker): values, strides, grad_fn names, gradients, errors and warnings.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(23)


# ----------------------------------------------------------------------------------------
# as_strided
# ----------------------------------------------------------------------------------------
def test_as_strided_overlapping_windows_and_shared_memory():
    x = teachgrad.arange(6.)
    windows = x.as_strided((3, 3), (1, 1))
    assert windows.tolist() == [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
    x[2] = 100.0  # a view: it sees the change
    assert windows[0, 2].item() == 100 and windows[2, 0].item() == 100
    assert windows._base is x


def test_as_strided_reads_the_storage_of_a_view():
    base = teachgrad.arange(6.)
    view = base[2:]
    assert view.as_strided((2,), (1,)).tolist() == [2, 3]  # the view's own offset
    assert view.as_strided((2,), (1,), 0).tolist() == [0, 1]  # storage, not the view
    assert base.view(2, 3).t().as_strided((3, 2), (1, 3)).tolist() == [[0, 3], [1, 4], [2, 5]]


def test_as_strided_gradient_by_hand():
    # windows (0,1,2), (1,2,3), (2,3,4) weighted 1, 10, 100 per row: element 2 is in all three
    x = teachgrad.arange(6., requires_grad=True)
    weights = teachgrad.tensor([[1.], [10.], [100.]])
    (x.as_strided((3, 3), (1, 1)) * weights).sum().backward()
    assert x.grad.tolist() == [1, 11, 111, 110, 100, 0]


def test_as_strided_gradchecks():
    x = teachgrad.tensor(RNG.standard_normal(6), requires_grad=True)
    for f in (lambda x: x.as_strided((3, 3), (1, 1)),
              lambda x: x.as_strided((2, 2), (1, 2), 1),
              lambda x: x.view(2, 3).t().as_strided((2, 2), (2, 1), 1),
              lambda x: x[:4].expand(2, 4).as_strided((3,), (1,)),
              lambda x: teachgrad.as_strided_copy(x, (2, 3), (1, 1))):
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    src = teachgrad.tensor(RNG.standard_normal((2, 2)), requires_grad=True)

    def scatter(x, src):
        return teachgrad.as_strided_scatter(x, src, (2, 2), (1, 2))

    assert gradcheck(scatter, (x, src)) and gradgradcheck(scatter, (x, src))


def test_as_strided_scatter_counts_positions_in_the_inputs_layout():
    # The result is laid out as input (PyTorch's clone): for a transposed 3×2 view of a
    # row-major 2×3 block, storage positions 0, 1 are the first column, not the first row.
    x = teachgrad.arange(6.).view(2, 3).t()
    out = teachgrad.as_strided_scatter(x, teachgrad.tensor([10., 20.]), (2,), (1,))
    assert out.tolist() == [[10., 3.], [20., 4.], [2., 5.]]
    assert out.stride() == x.stride()
    x = teachgrad.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    src = teachgrad.tensor(RNG.standard_normal((2, 3)), requires_grad=True)

    def scatter(x, src):
        return teachgrad.as_strided_scatter(x.t(), src, (2, 3), (1, 4), 1)

    assert gradcheck(scatter, (x, src)) and gradgradcheck(scatter, (x, src))


def test_as_strided_scatter_refuses_a_window_writing_one_place_twice():
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        teachgrad.as_strided_scatter(teachgrad.zeros(6), teachgrad.ones(4), (4,), (0,), 2)


def test_as_strided_in_place():
    y = teachgrad.arange(6., requires_grad=True) * 1
    assert y.as_strided_((2, 2), (1, 1)) is y
    assert y.tolist() == [[0, 1], [1, 2]] and type(y.grad_fn).__name__ == "AsStridedBackward1"


@pytest.mark.parametrize("call, message", [
    (lambda x: x.as_strided((3, 3), (2, 1)), "setStorage: sizes [3, 3], strides [2, 1], storage "
     "offset 0, and itemsize 4 requiring a storage size of 28 are out of bounds for storage of "
     "size 24"),
    (lambda x: x.as_strided((2,), (-1,)), "as_strided: Negative strides are not supported at "
     "the moment, got strides: [-1]"),
    (lambda x: x.as_strided((2,), (1,), -1), "Tensor: invalid storage offset -1"),
    (lambda x: x.as_strided((2, 2), (1,)), "mismatch in length of strides and shape"),
])
def test_as_strided_errors(call, message):
    with pytest.raises(RuntimeError) as caught:
        call(teachgrad.arange(6.))
    assert str(caught.value) == message


# ----------------------------------------------------------------------------------------
# *_copy
# ----------------------------------------------------------------------------------------
COPIES = {
    "alias_copy": lambda T, x: T.alias_copy(x),
    "t_copy": lambda T, x: T.t_copy(x),
    "diagonal_copy": lambda T, x: T.diagonal_copy(x, 1),
    "expand_copy": lambda T, x: T.expand_copy(x[:1], (2, 4)),
    "permute_copy": lambda T, x: T.permute_copy(x, (1, 0)),
    "select_copy": lambda T, x: T.select_copy(x, 0, 1),
    "slice_copy": lambda T, x: T.slice_copy(x, 1, 1, 4, 2),
    "slice_copy (defaults)": lambda T, x: T.slice_copy(x),
    "split_copy": lambda T, x: T.split_copy(x, 3, 1),
    "split_with_sizes_copy": lambda T, x: T.split_with_sizes_copy(x, [1, 3], 1),
    "squeeze_copy": lambda T, x: T.squeeze_copy(x[None]),
    "squeeze_copy (dim)": lambda T, x: T.squeeze_copy(x[None], 0),
    "transpose_copy": lambda T, x: T.transpose_copy(x, 0, 1),
    "unbind_copy": lambda T, x: T.unbind_copy(x, 1),
    "unfold_copy": lambda T, x: T.unfold_copy(x, 1, 2, 1),
    "unsqueeze_copy": lambda T, x: T.unsqueeze_copy(x, 1),
    "view_copy": lambda T, x: T.view_copy(x, (4, 3)),
    "as_strided_copy": lambda T, x: T.as_strided_copy(x, (2, 2), (1, 2)),
}


def _pieces(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


@pytest.mark.parametrize("name", list(COPIES))
def test_copies_own_their_memory_and_differentiate(name):
    x = teachgrad.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    for piece in _pieces(COPIES[name](teachgrad, x)):
        assert piece._base is None and not np.shares_memory(piece._data, x._data)
        assert type(piece.grad_fn).__name__.endswith("_copy")
    assert gradcheck(lambda x: tuple(_pieces(COPIES[name](teachgrad, x))), (x,))


def test_copy_of_a_view_is_not_changed_by_the_base():
    x = teachgrad.arange(6.).view(2, 3)
    row = teachgrad.select_copy(x, 0, 0)
    x[0, 0] = 100.0
    assert row.tolist() == [0, 1, 2]


def test_detach_copy_requires_grad_but_has_no_derivative():
    x = teachgrad.ones(2, requires_grad=True)
    y = teachgrad.detach_copy(x)
    assert y.requires_grad and type(y.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::detach_copy is not implemented"):
        y.sum().backward()
    assert not teachgrad.detach_copy(x.detach()).requires_grad


@pytest.mark.torch
@pytest.mark.parametrize("name", list(COPIES))
def test_copies_match_torch(name):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((3, 4))
    results = []
    for T in (torch, teachgrad):
        x = T.tensor(a, requires_grad=True)
        pieces = _pieces(COPIES[name](T, x))
        loss = sum((p * T.tensor(np.cos(np.arange(p.numel())).reshape(tuple(p.shape)))).sum()
                   for p in pieces)
        grad = T.autograd.grad(loss, x)[0]
        results.append(([p.detach().numpy() for p in pieces], grad.numpy(),
                        [type(p.grad_fn).__name__ for p in pieces]))
    (t_values, t_grad, t_names), (o_values, o_grad, o_names) = results
    assert o_names == t_names
    for t, o in zip(t_values, o_values):
        np.testing.assert_array_equal(o, t)
    np.testing.assert_allclose(o_grad, t_grad, rtol=1e-12)


AS_STRIDED_CASES = [
    lambda T, x: x.as_strided((3, 3), (1, 1)),
    lambda T, x: x.as_strided((2, 2), (1, 2), 1),
    lambda T, x: x[1:].as_strided((2, 2), (1, 2)),
    lambda T, x: x.view(2, 3).t().as_strided((3, 2), (1, 3)),
    lambda T, x: x.view(2, 3).t().as_strided((2, 2), (2, 1), 1),
    lambda T, x: x[:4].expand(2, 4).as_strided((3,), (1,)),
    lambda T, x: (x * 1).as_strided((4, 2), (1, 1)),
    lambda T, x: T.as_strided_copy(x, (3, 3), (1, 1)),
    lambda T, x: T.as_strided(x, (2, 3), (0, 2)),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", range(len(AS_STRIDED_CASES)))
def test_as_strided_matches_torch(case):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(6)
    results = []
    for T in (torch, teachgrad):
        x = T.tensor(a, requires_grad=True)
        y = AS_STRIDED_CASES[case](T, x)
        w = T.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
        results.append((y.detach().numpy(), T.autograd.grad((y * w).sum(), x)[0].numpy(),
                        type(y.grad_fn).__name__, tuple(y.stride())))
    for t, o in zip(*results):
        if isinstance(t, np.ndarray):
            np.testing.assert_allclose(o, t, rtol=1e-12)
        else:
            assert o == t


@pytest.mark.torch
def test_as_strided_scatter_matches_torch_where_torch_is_right():
    torch = pytest.importorskip("torch")
    # PyTorch 2.13's gradient for ``input`` is wrong (it keeps ḡ on the window and zeroes
    # it elsewhere, failing its own gradcheck); the values and the gradient for ``src``
    # are compared, and teachgrad's input gradient is checked by gradcheck above.
    results = []
    for T in (torch, teachgrad):
        x = T.tensor(np.arange(6.) + 1, requires_grad=True)
        src = T.tensor(np.arange(4.).reshape(2, 2) * 10, requires_grad=True)
        y = T.as_strided_scatter(x, src, (2, 2), (1, 2))
        y.backward(T.tensor(np.arange(6.) + 1))
        results.append((y.detach().numpy(), src.grad.numpy(), type(y.grad_fn).__name__))
    for t, o in zip(*results):
        assert np.array_equal(o, t) if isinstance(t, np.ndarray) else o == t


# ----------------------------------------------------------------------------------------
# range, empty_strided, make_tensor, is_inference, set_anomaly_enabled, matrix_rank
# ----------------------------------------------------------------------------------------
def test_range_includes_end_and_warns():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        r = teachgrad.range(1, 4)
    assert r.tolist() == [1, 2, 3, 4] and r.dtype == teachgrad.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert teachgrad.range(5, 1, -2).tolist() == [5, 3, 1]
        assert teachgrad.range(0, 1, 0.1).shape == (11,)
        assert teachgrad.range(1, 3, dtype=teachgrad.int64).dtype == teachgrad.int64
        with pytest.raises(RuntimeError, match="^step must be nonzero$"):
            teachgrad.range(1, 4, 0)
        with pytest.raises(RuntimeError, match="inconsistent with step sign"):
            teachgrad.range(1, 4, -1)


def test_empty_strided_has_the_strides():
    x = teachgrad.empty_strided((2, 3), (1, 2), dtype=teachgrad.float64)
    assert x.shape == (2, 3) and x.stride() == (1, 2) and not x.is_contiguous()
    assert teachgrad.empty_strided((2, 3), (3, 1)).is_contiguous()
    with pytest.raises(RuntimeError, match=r"dimensionality of sizes \(2\) must match"):
        teachgrad.empty_strided((2, 3), (1,))


def test_make_tensor():
    make = teachgrad.testing.make_tensor
    x = make(1000, dtype=teachgrad.float64, device="cpu", low=-1, high=2)
    assert x.dtype == teachgrad.float64 and ((x >= -1) & (x < 2)).all()
    assert x.min() < -0.9 and x.max() > 1.9  # spread over the range
    i = make((4, 5), dtype=teachgrad.int64, device="cpu", exclude_zero=True, noncontiguous=True)
    assert (i != 0).all() and not i.is_contiguous() and ((i >= -9) & (i < 10)).all()
    assert make(2, dtype=teachgrad.float32, device="cpu", requires_grad=True).requires_grad
    with pytest.raises(ValueError, match="`low` must be less than `high`, but got 2 >= 1"):
        make(2, dtype=teachgrad.float32, device="cpu", low=2, high=1)
    with pytest.raises(ValueError, match="not supported for boolean and integral dtypes"):
        make(2, dtype=teachgrad.int64, device="cpu", requires_grad=True)
    teachgrad.manual_seed(3)
    first = make(3, dtype=teachgrad.float32, device="cpu")
    teachgrad.manual_seed(3)
    assert make(3, dtype=teachgrad.float32, device="cpu").equal(first)


def test_is_inference_set_anomaly_enabled_matrix_rank():
    with teachgrad.inference_mode():
        made_inside = teachgrad.ones(2)
    # PyTorch 2.13: made inside inference_mode, an inference tensor (autograd/inference.py)
    assert teachgrad.is_inference(made_inside) is True and not teachgrad.ones(1).is_inference()
    try:
        teachgrad.set_anomaly_enabled(True, check_nan=False)
        assert teachgrad.is_anomaly_enabled() and not teachgrad.is_anomaly_check_nan_enabled()
    finally:
        teachgrad.set_anomaly_enabled(False)
    assert not teachgrad.is_anomaly_enabled()
    with pytest.raises(RuntimeError, match="Please use the `torch.linalg.matrix_rank` function"):
        teachgrad.matrix_rank(teachgrad.eye(3))


@pytest.mark.torch
def test_range_and_empty_strided_match_torch():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in [(1, 4), (0, 1, 0.1), (1, 2.5, 0.5), (5, 1, -2), (0, 0), (-1.5, 2, 0.7)]:
            theirs, ours = torch.range(*args), teachgrad.range(*args)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
            assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    script = ("import warnings, torch\nwith warnings.catch_warnings(record=True) as w:\n"
              "    warnings.simplefilter('always')\n    torch.range(1, 2)\n"
              "print(str(w[0].message))")
    theirs = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True).stdout.strip()
    with pytest.warns(UserWarning) as caught:
        teachgrad.range(1, 2)
    assert str(caught[0].message) == theirs
    for size, stride in [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((4,), (3,)), ((2, 0), (1, 1))]:
        assert teachgrad.empty_strided(size, stride).stride() == torch.empty_strided(
            size, stride).stride()
    with pytest.raises(RuntimeError) as caught:
        teachgrad.matrix_rank(teachgrad.eye(2))
    with pytest.raises(RuntimeError) as expected:
        torch.matrix_rank(torch.eye(2))
    assert str(caught.value) == str(expected.value)
