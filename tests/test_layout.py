"""Memory layout of results: PyTorch's rule (ops/layout.py), not NumPy's.

Reductions, softmax, cumulative ops, cat/stack, tril/triu, roll and masked_fill give a
row-major result even for a permuted input; clone and flip keep the input's layout;
``memory_format`` names layouts. Expected strides are derived by hand in the comments.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd import gradcheck

# x is (3, 4, 5) row-major: strides (20, 5, 1). Permuted by (2, 0, 1) it has shape
# (5, 3, 4) and strides (1, 20, 5): neither row-major nor column-major.
PERMUTATION = (2, 0, 1)

ROW_MAJOR_OPS = {
    "sum": lambda m, x: x.sum(1),
    "mean": lambda m, x: x.mean(2),
    "prod": lambda m, x: x.prod(1),
    "amax": lambda m, x: x.amax(1),
    "max(dim)": lambda m, x: x.max(1).values,
    "max(dim).indices": lambda m, x: x.max(1).indices,
    "std": lambda m, x: x.std(1),
    "var": lambda m, x: x.var(1),
    "norm": lambda m, x: x.norm(dim=1),
    "logsumexp": lambda m, x: x.logsumexp(1),
    "softmax": lambda m, x: x.softmax(1),
    "log_softmax": lambda m, x: x.log_softmax(2),
    "cumsum": lambda m, x: x.cumsum(1),
    "cumprod": lambda m, x: x.cumprod(0),
    "cat": lambda m, x: m.cat([x, x], 1),
    "stack": lambda m, x: m.stack([x, x], 1),
    "tril": lambda m, x: x.tril(),
    "triu": lambda m, x: x.triu(),
    "roll": lambda m, x: x.roll(1, 0),
    "masked_fill": lambda m, x: x.masked_fill(x > 0, 0.0),
    "cummax": lambda m, x: x.cummax(1).values,
    "cummax.indices": lambda m, x: x.cummax(0).indices,
    "cummin": lambda m, x: x.cummin(2).values,
    "logcumsumexp": lambda m, x: x.logcumsumexp(1),
    "F.pad": lambda m, x: m.nn.functional.pad(x, (1, 2)),
    "F.pad 2-d": lambda m, x: m.nn.functional.pad(x[0], (1, 0, 0, 1), value=3.0),
}
LAYOUT_KEEPING_OPS = {
    "clone": lambda m, x: x.clone(),
    "flip": lambda m, x: x.flip(0),
}
TORCH_ONLY_CASES = {  # their expected strides are only checked against PyTorch
    "clone of a slice": lambda m, x: x[:, 1:].clone(),
    "clone of an expanded tensor": lambda m, x: x[:1].expand(3, -1, -1).clone(),
    "flip of a slice": lambda m, x: x[:, :, ::2].flip(1),
    "to of an expanded tensor": lambda m, x: x[:1].expand(3, -1, -1).to(m.float64),
    "nan_to_num of an expanded tensor": lambda m, x: x[:, :1].expand(-1, 2, -1).nan_to_num(),
}


def _permuted(module, requires_grad=False):
    x = np.random.default_rng(0).standard_normal((3, 4, 5))
    return module.tensor(x, requires_grad=requires_grad).permute(*PERMUTATION)


@pytest.mark.parametrize("name", ROW_MAJOR_OPS)
def test_ops_that_allocate_give_row_major_results(name):
    op = ROW_MAJOR_OPS[name]
    x = _permuted(teachgrad)
    out = op(teachgrad, x)
    assert out.is_contiguous()
    out.view(-1)  # the point for a learner: no "view size is not compatible" error
    # Same values as on a row-major copy of the input (only the layout changed).
    expected = op(teachgrad, x.contiguous())
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


@pytest.mark.parametrize("name", LAYOUT_KEEPING_OPS)
def test_clone_and_flip_keep_the_input_layout(name):
    out = LAYOUT_KEEPING_OPS[name](teachgrad, _permuted(teachgrad))
    assert out.stride() == (1, 20, 5)  # the permuted input's strides, see the top
    assert not out.is_contiguous()


def test_clone_of_an_expanded_tensor_is_row_major():
    # An expanded dim repeats one element (stride 0): the copy is row-major, (4·3, 3, 1),
    # so it can be viewed flat, as in PyTorch.
    x = teachgrad.ones(2, 3).unsqueeze(1).expand(2, 4, 3)
    assert x.clone().stride() == (12, 3, 1)
    assert x.clone().view(-1).shape == (24,)


def test_clone_of_a_slice_with_gaps_is_dense_in_the_same_dim_order():
    # The permuted (5, 3, 4) tensor sliced to (5, 3, 3): dim 0 stays innermost, then dim 2,
    # then dim 1: strides (1, 3·5, 5).
    out = _permuted(teachgrad)[:, :, 1:].clone()
    assert out.stride() == (1, 15, 5)


def test_reshape_of_a_permuted_tensor_copies_row_major_and_keeps_gradients():
    x = teachgrad.arange(6.0, requires_grad=True)
    y = x.view(2, 3).t().reshape(6)  # needs a copy: t() is not viewable as (6,)
    assert y.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert y.grad_fn.name() == "UnsafeViewBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    (y * teachgrad.arange(6.0)).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]  # y[k] = x[perm[k]]


def test_channels_last_strides():
    # (N, C, H, W) = (2, 3, 4, 5) with channels innermost: C has stride 1, W has C = 3,
    # H has W·C = 15, N has H·W·C = 60.
    x = teachgrad.ones(2, 3, 4, 5)
    y = x.clone(memory_format=teachgrad.channels_last)
    assert y.shape == (2, 3, 4, 5)
    assert y.stride() == (60, 1, 15, 3)
    assert y.is_contiguous(memory_format=teachgrad.channels_last)
    assert not y.is_contiguous()
    assert y.contiguous().stride() == (60, 20, 5, 1)
    assert x.contiguous(memory_format=teachgrad.channels_last).stride() == (60, 1, 15, 3)
    assert x.is_contiguous(memory_format=teachgrad.channels_last) is False
    assert repr(teachgrad.channels_last) == "torch.channels_last"


def test_clone_in_a_format_is_differentiable():
    x = teachgrad.tensor(np.random.default_rng(1).standard_normal((2, 3, 2, 2)),
                         requires_grad=True)
    assert gradcheck(lambda t: t.clone(memory_format=teachgrad.channels_last) * t, (x,))


def test_memory_format_errors():
    x = teachgrad.ones(3, 4)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        x.clone(memory_format=teachgrad.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
        x.contiguous(memory_format=teachgrad.channels_last_3d)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        x.contiguous(memory_format=teachgrad.preserve_format)
    with pytest.raises(TypeError, match="argument 'memory_format' must be torch.memory_format"):
        x.clone(memory_format=3)


def test_memory_formats_survive_save_and_load(tmp_path):
    path = tmp_path / "formats.pt"
    teachgrad.save({"format": teachgrad.channels_last}, path)
    assert teachgrad.load(path, weights_only=False)["format"] is teachgrad.channels_last


@pytest.mark.torch
@pytest.mark.parametrize("name", [*ROW_MAJOR_OPS, *LAYOUT_KEEPING_OPS, *TORCH_ONLY_CASES])
@pytest.mark.parametrize("permutation", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (2, 1, 0)])
def test_strides_match_torch(name, permutation):
    torch = pytest.importorskip("torch")
    op = {**ROW_MAJOR_OPS, **LAYOUT_KEEPING_OPS, **TORCH_ONLY_CASES}[name]
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
    expected = op(torch, torch.tensor(x).permute(*permutation))
    out = op(teachgrad, teachgrad.tensor(x).permute(*permutation))
    assert out.is_contiguous() == expected.is_contiguous()
    assert out.stride() == expected.stride()
