"""Indexing: x[...], x[...] = v, gather/scatter, index_select, masked ops, sort.

Most expectations come from fixtures/shape_index_cases.json (recorded from PyTorch by
fixtures/make_shape_index_cases.py). The rest: gradients against finite differences
(gradcheck / gradgradcheck in float64), hand-derived gradients (repeated indices add up),
views and version counters, in-place semantics of ``x[...] = v``, and a property test
over random indices.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from torch_cases import cases, check_case

import teachgrad
import teachgrad as torch
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck


@pytest.mark.parametrize("case", cases("index"))
def test_same_as_pytorch(case):
    """Value, dtype, grad_fn graph, views, gradients and errors, as PyTorch recorded them."""
    check_case(case)


def _x(*shape, seed=0):
    data = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(data, dtype=torch.float64, requires_grad=True)


# ----------------------------------------------------------------------------------------
# Reading: gradients
# ----------------------------------------------------------------------------------------
MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, True, False]])
IDX = torch.tensor([[0, 1], [2, 0], [3, 3]])

READS = {
    "int": lambda x: x[1],
    "int_slice": lambda x: x[0, 1:3],
    "step": lambda x: x[::2, 1::2],
    "none_ellipsis": lambda x: x[None, ..., 0],
    "list_repeated": lambda x: x[[0, 0, 2]],
    "two_lists": lambda x: x[[0, 2, 2], [1, 3, 3]],
    "slice_then_list": lambda x: x[1:, [0, 0, 3]],
    "mask": lambda x: x[torch.tensor(MASK)],
    "row_mask": lambda x: x[torch.tensor([True, False, True])],
    "index_select": lambda x: x.index_select(1, torch.tensor([3, 0, 3])),
    "gather": lambda x: x.gather(1, IDX),
    "take": lambda x: x.take(torch.tensor([[0, 11], [5, 5]])),
    "take_along_dim": lambda x: torch.take_along_dim(x, torch.tensor([[0, 3]]), 1),
    "masked_select": lambda x: x.masked_select(torch.tensor(MASK)),
    "masked_fill": lambda x: x.masked_fill(torch.tensor(MASK), 2.0),
    "scatter": lambda x: x.scatter(1, IDX[:, :1], x[:, 1:2] * 3),
    "scatter_add": lambda x: x.scatter_add(1, IDX, x[:, :2]),
    "index_put_accumulate": lambda x: x.index_put((torch.tensor([0, 0]),), x[1], accumulate=True),
    "sort": lambda x: x.sort(1, descending=True).values,
    "topk": lambda x: x.topk(2, 0).values,
    "kthvalue": lambda x: x.kthvalue(2).values,
}


@pytest.mark.parametrize("name", READS)
def test_gradients_match_finite_differences(name):
    x = _x(3, 4)
    assert gradcheck(READS[name], (x,))


@pytest.mark.parametrize("name", READS)
def test_second_derivatives_match_finite_differences(name):
    """The backward of indexing is an op of its own, so create_graph=True works."""
    x = _x(3, 4)
    assert gradgradcheck(READS[name], (x,))


def test_repeated_indices_accumulate():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 0, 2]].sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 1.0]


@pytest.mark.parametrize("pick", [
    lambda x: x.index_select(0, torch.tensor([0, 0, 2])),
    lambda x: x.gather(0, torch.tensor([0, 0, 2])),
    lambda x: x.take(torch.tensor([0, 0, 2])),
    lambda x: x[torch.tensor([0, 0, 2])],
    lambda x: x[[-3, 0, -1]],
])
def test_every_way_of_picking_twice_accumulates(pick):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (pick(x) * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [11.0, 0.0, 100.0]


def test_a_range_indexes_like_the_list_it_counts():
    """``input[range(n), target]``: the nn tutorial's hand-written NLL loss."""
    logp = torch.tensor([[0.25, 0.5, 0.75], [1.5, 2.0, 3.0]], requires_grad=True)
    target = torch.tensor([2, 0])
    picked = logp[range(target.shape[0]), target]
    assert picked.tolist() == [0.75, 1.5]
    assert picked.grad_fn.name() == "IndexBackward0"
    (-picked.mean()).backward()
    assert logp.grad.tolist() == [[0.0, 0.0, -0.5], [-0.5, 0.0, 0.0]]
    x = torch.arange(12.0).reshape(3, 4)
    assert x[range(0, 3, 2)].tolist() == [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]]
    assert x[:, range(1, 3)].shape == (3, 2) and x[range(0)].shape == (0, 4)
    x[range(2), [1, 2]] = -1.0
    assert x[0, 1].item() == -1.0 and x[1, 2].item() == -1.0 and x[0, 2].item() == 2.0


def test_backward_of_indexing_is_recorded_under_create_graph():
    x = _x(3)
    (g,) = torch.autograd.grad(x[[0, 0]].pow(2).sum(), x, create_graph=True)
    assert g.grad_fn is not None
    assert g.tolist() == pytest.approx([4 * x[0].item(), 0.0, 0.0])


# ----------------------------------------------------------------------------------------
# Reading: views
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("index", [0, (0, 1), slice(1, 3), (slice(None), 1), None, Ellipsis,
                                   (None, Ellipsis, 0), (slice(None, None, 2),)])
def test_basic_index_is_a_view(index):
    x = torch.zeros(3, 4)
    v = x[index]
    assert v._base is x
    with torch.no_grad():
        x.add_(1)
    assert (v.numpy() == 1).all() and v._version == 1


@pytest.mark.parametrize(
    "index", [[0, 1], (slice(None), [1, 1]), torch.tensor([True, False, True])]
)
def test_advanced_index_is_a_copy(index):
    x = torch.zeros(3, 4)
    c = x[index]
    assert c._base is None
    with torch.no_grad():
        x.add_(1)
    assert (c.numpy() == 0).all() and c._version == 0


def test_view_of_a_view_has_the_original_base():
    x = torch.zeros(3, 4)
    assert x[0][1:][None]._base is x


def test_saved_view_modified_through_base_is_detected_at_backward():
    x = _x(3, 4)
    y = x * 1
    row = y[1]
    out = row.exp()  # saves its own output only
    prod = row * row  # saves row, a view of y
    with torch.no_grad():
        y[1, 0] = 5.0
    out.sum().backward()  # unaffected: exp saved its result, which was not changed
    with pytest.raises(RuntimeError, match="which is output 0 of AsStrided, is at version 1"):
        prod.sum().backward()


# ----------------------------------------------------------------------------------------
# Writing: x[index] = value
# ----------------------------------------------------------------------------------------
def test_setitem_bumps_the_version_once_per_assignment():
    y = torch.zeros(3, 4)
    y[0] = 1.0
    y[[1, 2]] = torch.ones(4)
    y[y > 0] = 2.0
    assert y._version == 3
    assert y.tolist() == [[2.0] * 4] * 3


def test_setitem_records_copyslices_with_pytorch_names():
    x = _x(3, 4)
    v = _x(4, seed=1)
    y = x * 1
    old = y.grad_fn
    y[0] = v
    assert type(y.grad_fn).__name__ == "CopySlices"
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert y.grad_fn.next_functions[0] == (old, 0)
    assert y.grad_fn.next_functions[1][0].variable is v
    y[[1, 2]] = 0.0
    assert y.grad_fn.name() == "IndexPutBackward0"


def test_setitem_gradients_zero_old_values_and_sum_broadcast_value():
    x = torch.ones(3, 4, requires_grad=True)
    s = torch.tensor(2.0, requires_grad=True)
    y = x * 3
    y[1:, 1] = s  # s is broadcast over two positions
    (y * torch.arange(12.0).reshape(3, 4)).sum().backward()
    expected_x = 3 * np.arange(12.0).reshape(3, 4)
    expected_x[1:, 1] = 0  # those old values were overwritten
    assert x.grad.tolist() == expected_x.tolist()
    assert s.grad.item() == 5.0 + 9.0


SETS = {
    "int": (1, lambda v: v[:4]),
    "slice_broadcast": ((slice(0, 2),), lambda v: v[:4]),
    "column_scalar": ((slice(None), 2), lambda v: v[0]),
    "list": ([0, 2], lambda v: v[:4]),
    "mask": ("mask", lambda v: v[0]),
    "slice_then_list": ((slice(1, 3), [0, 1]), lambda v: v[:2]),
    "int_then_list": ((0, [1, 3]), lambda v: v[:2]),
    "ellipsis": (Ellipsis, lambda v: v[:4]),
}


@pytest.mark.parametrize("name", SETS)
def test_setitem_gradients_match_finite_differences(name):
    index, value_of = SETS[name]

    def write(x, v):
        y = x * 1
        y[torch.tensor(MASK) if index == "mask" else index] = value_of(v)
        return y * y  # old values and the value both flow on

    assert gradcheck(write, (_x(3, 4), _x(5, seed=1)))
    assert gradgradcheck(write, (_x(3, 4), _x(5, seed=1)))


def test_in_place_op_through_a_view_changes_the_base_history():
    x = torch.ones(2, 3, requires_grad=True)
    y = x * 2
    row = y[0]
    row.mul_(3)
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert row.grad_fn.name() == "AsStridedBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [[6.0] * 3, [2.0] * 3]


def test_in_place_through_views_matches_finite_differences():
    def f(x, b):
        y = x * 2
        y.t()[1].add_(b)  # through a transpose and a select
        y.diagonal().mul_(b[0])
        return y

    assert gradcheck(f, (_x(3, 4), _x(3, seed=1)))
    assert gradgradcheck(f, (_x(3, 4), _x(3, seed=1)))


def _recurrence(w, x, clone=True):
    """h[t] = tanh(w * h[t-1] + x[t]), written row by row into one buffer."""
    h = torch.zeros(4, 2, dtype=torch.float64)
    for t in range(1, 4):
        previous = h[t - 1].clone() if clone else h[t - 1]
        h[t] = (w * previous + x[t]).tanh()
    return h


def test_writing_into_a_non_contiguous_base():
    """The base's memory is column-major here (a NumPy result of a transposed input)."""
    def f(x, v):
        y = x.t() * 2
        y[1] = v
        y[:, 0].mul_(v[0])
        return y

    assert gradcheck(f, (_x(3, 4), _x(3, seed=1)))


def test_in_place_through_a_view_that_lost_its_base_memory_is_refused():
    y = _x(2, 3) * 1
    row = y[0]
    y.data = torch.zeros(2, 3, dtype=torch.float64)  # row still shows the old memory
    with pytest.raises(RuntimeError, match="no longer shares memory"):
        row.mul_(2)


def test_view_taken_before_an_in_place_change_follows_the_new_values():
    """As in PyTorch, such a view's history is rebuilt (AsStridedBackward0) when next used."""
    x = torch.ones(2, 3, requires_grad=True)
    y = x * 2
    row, column = y[0], y.t()[1]  # the column is y[:, 1]
    y.mul_(3)  # row and column now show values 6x
    assert row.grad_fn.name() == "AsStridedBackward0"
    (row.sum() + column.sum()).backward()
    assert x.grad.tolist() == [[6.0, 12.0, 6.0], [0.0, 6.0, 0.0]]


def test_recurrence_written_into_a_buffer():
    assert gradcheck(_recurrence, (_x(2), _x(4, 2, seed=1)))


def test_recurrence_without_clone_is_caught_as_in_pytorch():
    """w * h[t-1] saves a view of h; writing h[t] changes h, so backward must refuse."""
    h = _recurrence(_x(2), _x(4, 2, seed=1), clone=False)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        h.sum().backward()


def test_setitem_on_a_leaf_that_requires_grad_is_refused_but_allowed_under_no_grad():
    x = torch.zeros(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0] = 1.0
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x[[0]] = 1.0
    assert x.tolist() == [[0.0, 0.0], [0.0, 0.0]] and x._version == 0
    with torch.no_grad():
        x[0] = 1.0
    assert x.tolist() == [[1.0, 1.0], [0.0, 0.0]] and x.is_leaf and x._version == 1


@pytest.mark.parametrize("index, value, error", [
    ([0, 5], 1.0, IndexError),
    ((0, 0, 0), 1.0, IndexError),
    (slice(None, None, -1), 1.0, ValueError),
    (0, torch.ones(3), RuntimeError),
    ([0, 1], torch.ones(3), RuntimeError),
    (0, [1.0, 2.0], TypeError),
    ([0], torch.ones(4, dtype=torch.int64), RuntimeError),
])
def test_failed_setitem_changes_nothing(index, value, error):
    x = _x(3, 4)
    y = x * 1
    before, history = y.tolist(), y.grad_fn
    with pytest.raises(error):
        y[index] = value
    assert y.tolist() == before and y._version == 0 and y.grad_fn is history


def test_setitem_value_of_another_dtype_is_converted():
    y = torch.zeros(3, dtype=torch.int64)
    y[0] = 2.7
    y[1:] = torch.tensor([1.9, -1.9])
    assert y.tolist() == [2, 1, -1]


def test_in_place_index_ops_go_through_the_in_place_mechanism():
    x = _x(3, 4)
    y = x * 1
    y.masked_fill_(y > 0, 0.0)
    assert y.grad_fn.name() == "MaskedFillBackward0" and y._version == 1
    y.scatter_(1, IDX, 1.0)
    assert y.grad_fn.name() == "ScatterBackward1" and y._version == 2
    y.index_put_((torch.tensor([0]),), torch.tensor(5.0, dtype=torch.float64), accumulate=True)
    assert y.grad_fn.name() == "IndexPutBackward0" and y._version == 3


def test_scatter_with_reduce_adds_or_multiplies_and_has_no_derivative():
    index = torch.tensor([[2], [3]])
    product = torch.full((2, 4), 2.0).scatter_(1, index, 1.5, reduce="multiply")
    assert product.tolist() == [[2.0, 2.0, 3.0, 2.0], [2.0, 2.0, 2.0, 3.0]]
    with pytest.warns(UserWarning, match="The reduce argument of torch.scatter with Tensor src"):
        total = torch.zeros(3).scatter(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 2.0, 4.0]),
                                       reduce="add")
    assert total.tolist() == [3.0, 0.0, 4.0]  # repeats add up
    with pytest.raises(RuntimeError, match="^reduce argument must be either add or multiply."):
        torch.ones(2).scatter(0, torch.tensor([0]), 1.0, reduce="mean")
    leaf = torch.ones(2, requires_grad=True)
    out = leaf.scatter(0, torch.tensor([0, 0]), 3.0, reduce="multiply")
    assert out.tolist() == [9.0, 1.0]
    assert type(out.grad_fn).__name__ == "NotImplemented"  # (PyTorch's node, and words)
    with pytest.raises(RuntimeError, match="^derivative for aten::scatter is not implemented$"):
        out.sum().backward()


@pytest.mark.torch
def test_scatter_with_reduce_matches_pytorch():
    real = pytest.importorskip("torch")
    import warnings

    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            base = lib.arange(1.0, 9.0).reshape(2, 4)
            index = lib.tensor([[0, 1, 0], [3, 3, 2]])
            src = lib.tensor([[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]])
            return [base.scatter(1, index, src, reduce="multiply").tolist(),
                    base.scatter(1, index, src, reduce="add").tolist(),
                    base.scatter(0, index[:1], -1.5, reduce="add").tolist()]

    assert run(torch) == run(real)


# ----------------------------------------------------------------------------------------
# Property test: random indices, gradient = how often each element was picked (weighted)
# ----------------------------------------------------------------------------------------
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def basic_index(draw, shape):
    """Ints, positive-step slices, None and at most one Ellipsis (NumPy and PyTorch agree).

    The items index the leading dimensions, or, after a leading ``...``, the trailing ones.
    """
    items = []
    trailing = draw(st.booleans())
    for size in reversed(shape) if trailing else shape:
        kind = draw(st.sampled_from(["int", "slice", "none", "skip"]))
        if kind == "int":
            items.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            start = draw(st.none() | st.integers(-size - 1, size + 1))
            stop = draw(st.none() | st.integers(-size - 1, size + 1))
            items.append(slice(start, stop, draw(st.none() | st.integers(1, 3))))
        elif kind == "none":
            items.extend([None, slice(None)])
        else:
            break
    if trailing:
        return (Ellipsis, *reversed(items))
    if draw(st.booleans()):  # at the end, where it stands for the dimensions not indexed
        items.append(Ellipsis)
    return tuple(items)


@st.composite
def advanced_index(draw, shape):
    """Integer arrays on the leading dimensions (repeats and negatives), or one bool mask."""
    if draw(st.booleans()):
        mask = draw(st.lists(st.booleans(), min_size=shape[0], max_size=shape[0]))
        return (np.array(mask),)
    count = draw(st.integers(1, len(shape)))
    length = draw(st.integers(0, 4))
    return tuple(
        np.array(draw(st.lists(st.integers(-n, n - 1), min_size=length, max_size=length)),
                 dtype=np.int64)
        for n in shape[:count]
    )


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_random_index_gradient_counts_picks(data, shape):
    shape = tuple(shape)
    index = data.draw(st.one_of(basic_index(shape), advanced_index(shape)))
    values = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    positions = np.arange(values.size).reshape(shape)[index]  # what NumPy picks, by number
    x = torch.tensor(values, requires_grad=True)
    out = x[index]
    assert out.tolist() == values[index].tolist()
    weights = np.arange(1.0, positions.size + 1).reshape(positions.shape)
    if out.requires_grad:
        (out * torch.tensor(weights)).sum().backward()
        expected = np.bincount(positions.reshape(-1), weights.reshape(-1), minlength=values.size)
        assert x.grad.numpy().reshape(-1).tolist() == expected.tolist()


@pytest.mark.parametrize("pick", [
    lambda x: x[:, [0, 2, 1]], lambda x: x[:, :, [1, 0]], lambda x: x[:, [1, 0], 1:3],
    lambda x: x[:, x[0, :, 0] > 3], lambda x: x.index_select(2, torch.tensor([1, 0])),
])
def test_picked_elements_are_contiguous(pick):
    # PyTorch's result of an advanced index is contiguous, so .view works on it (NumPy
    # lays x[:, [2, 0]] out column by column).
    x = torch.arange(24.0).view(2, 3, 4)
    out = pick(x)
    assert out.is_contiguous()
    assert out.view(-1).tolist() == out.reshape(-1).tolist()


# One value written where a single uint8 (deprecated) mask of the target's shape points:
# PyTorch's index_put_ fills through masked_fill_, which refuses the uint8 mask. Several
# values, accumulate=True, or a bool mask go through index_put_ as usual.
BYTE_MASK_WRITES = {
    "setitem_number": (lambda lib, x, m, m1: x.__setitem__(m, 7.0), "refused"),
    "setitem_one_element": (lambda lib, x, m, m1: x.__setitem__(m, lib.ones(1)), "refused"),
    "setitem_columns": (lambda lib, x, m, m1: x.__setitem__((slice(None), m1), 0.0),
                        "refused"),
    "index_put_": (lambda lib, x, m, m1: x.index_put_((m,), lib.tensor(1.0)), "refused"),
    "index_put": (lambda lib, x, m, m1: x.index_put((m,), lib.tensor(1.0)), "refused"),
    "several_values": (lambda lib, x, m, m1: x.__setitem__(m, lib.tensor([1.0, 2.0, 3.0])),
                       [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]),
    "accumulate": (lambda lib, x, m, m1: x.index_put_((m,), lib.tensor(1.0), accumulate=True),
                   [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]),
    "bool_mask": (lambda lib, x, m, m1: x.__setitem__(m.bool(), 7.0),
                  [[7.0, 0.0, 7.0], [0.0, 7.0, 0.0]]),
}


def _byte_mask_write(lib, name):
    x = lib.zeros(2, 3)
    m = lib.tensor([[1, 0, 1], [0, 1, 0]], dtype=lib.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (uint8 indexing is deprecated)
        try:
            BYTE_MASK_WRITES[name][0](lib, x, m, lib.tensor([1, 0, 1], dtype=lib.uint8))
        except RuntimeError as error:
            return str(error).split("\nHint:")[0]
    return x.tolist()


@pytest.mark.parametrize("name", sorted(BYTE_MASK_WRITES))
def test_one_value_through_a_uint8_mask_is_refused_as_masked_fill_refuses_it(name):
    expected = BYTE_MASK_WRITES[name][1]
    if expected == "refused":
        expected = ("masked_fill_ only supports boolean masks, but got mask with dtype "
                    "unsigned char")
    assert _byte_mask_write(teachgrad, name) == expected
    real = pytest.importorskip("torch")
    assert _byte_mask_write(real, name) == expected
