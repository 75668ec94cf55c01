"""Index, mask and target tensors that an op saved for backward are version-checked.

PyTorch saves the integer (or bool) tensor argument of gather, scatter, index_select,
``x[idx]``, embedding, nll_loss... like any other saved tensor: changed in place between
forward and backward (``idx.zero_()``, ``idx[0] = 1``), backward fails with "one of the
variables needed for gradient computation has been modified by an inplace operation:
[torch.LongTensor [3]] is at version 1; expected version 0 instead. ...", the tensor
named by its own type and shape. teachgrad kept plain arrays and silently computed the
gradient with the new indices (gather, x[idx], max_unpool) or the old ones (a copy).

A few ops do not check: ``take_along_dim`` with a ``dim`` gathers with a broadcast copy
of the indices (the gradient uses the old ones), an index given as a 0-d tensor is read
as a number, and ``repeat_interleave`` builds its own index.

The same holds for the float tensors some ops save without differentiating them: class
weights, ``pos_weight``, batch norm's running statistics.

The hand-written expectations below run without PyTorch; the ``torch``-marked tests run
each case with PyTorch 2.13 too and compare the messages word for word.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad


def _x(lib):
    return lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64,
                      requires_grad=True)


def _setitem(lib, x, i):
    y = x * 1
    y[i] = x[:2, :] * 10
    return y


def _inplace_scatter(lib, x, i):
    y = x * 1
    y.scatter_(1, i, 0.5)
    return y


def _ctc(lib, x, t):
    log_probs = x.view(3, 1, 2).log_softmax(2)
    return lib.nn.functional.ctc_loss(log_probs, t, lib.tensor([3]), lib.tensor([1]))


# name: (the index (as a list and its dtype), the op, PyTorch's name for the index tensor
# in its error: type and shape, written out by hand)
LONG, BOOL, BYTE = "long", "bool", "uint8"
CASES = {
    "gather": ([[2, 1], [0, 2]], LONG, lambda lib, x, i: x.gather(1, i),
               "torch.LongTensor [2, 2]"),
    "scatter": ([[2, 1], [0, 2]], LONG, lambda lib, x, i: x.scatter(1, i, x[:, :2] * 10),
                "torch.LongTensor [2, 2]"),
    "scatter_value": ([[2, 1], [0, 2]], LONG, lambda lib, x, i: x.scatter(1, i, 7.0),
                      "torch.LongTensor [2, 2]"),
    "scatter_": ([[2, 1], [0, 2]], LONG, _inplace_scatter, "torch.LongTensor [2, 2]"),
    "scatter_add": ([[2, 1], [0, 2]], LONG,
                    lambda lib, x, i: x.scatter_add(1, i, x[:, :2] * 10),
                    "torch.LongTensor [2, 2]"),
    "scatter_reduce": ([[2, 1], [0, 2]], LONG,
                       lambda lib, x, i: x.scatter_reduce(1, i, x[:, :2] * 10, "amax"),
                       "torch.LongTensor [2, 2]"),
    "index_select": ([2, 0], LONG, lambda lib, x, i: x.index_select(1, i),
                     "torch.LongTensor [2]"),
    "index_add": ([2, 0], LONG, lambda lib, x, i: x.index_add(1, i, x[:, :2] * 10, alpha=2),
                  "torch.LongTensor [2]"),
    "index_copy": ([2, 0], LONG, lambda lib, x, i: x.index_copy(1, i, x[:, :2] * 10),
                   "torch.LongTensor [2]"),
    "index_fill": ([2, 0], LONG, lambda lib, x, i: x.index_fill(1, i, 7.0),
                   "torch.LongTensor [2]"),
    "index_fill_tensor": ([2, 0], LONG,
                          lambda lib, x, i: x.index_fill(1, i, lib.tensor(7.0, dtype=x.dtype)),
                          "torch.LongTensor [2]"),
    "index_reduce": ([2, 0], LONG, lambda lib, x, i: x.index_reduce(1, i, x[:, :2], "prod"),
                     "torch.LongTensor [2]"),
    "index_put": ([1, 0], LONG, lambda lib, x, i: x.index_put((i,), x[:2, :] * 10),
                  "torch.LongTensor [2]"),
    "index_put_accumulate": ([1, 0], LONG,
                             lambda lib, x, i: x.index_put((i,), x * 10, accumulate=True),
                             "torch.LongTensor [2]"),
    "setitem": ([1, 0], LONG, _setitem, "torch.LongTensor [2]"),
    "getitem": ([1, 1, 0], LONG, lambda lib, x, i: x[i], "torch.LongTensor [3]"),
    "getitem_columns": ([2, 2, 0], LONG, lambda lib, x, i: x[:, i], "torch.LongTensor [3]"),
    "getitem_two_indices": ([2, 2], LONG, lambda lib, x, i: x[lib.tensor([1, 0]), i],
                            "torch.LongTensor [2]"),
    "getitem_mask": ([True, False], BOOL, lambda lib, x, i: x[i], "CPUBoolType [2]"),
    "getitem_mask_2d": ([[True, False, True], [False, False, True]], BOOL,
                        lambda lib, x, i: x[i], "CPUBoolType [2, 3]"),
    "index_put_mask": ([True, False], BOOL,
                       lambda lib, x, i: x.index_put((i,), lib.tensor(3.0, dtype=x.dtype)),
                       "CPUBoolType [2]"),
    # a deprecated uint8 mask is saved (and checked) as the uint8 tensor it is
    "getitem_byte_mask": ([[1, 0, 1], [0, 0, 1]], BYTE, lambda lib, x, i: x[i],
                          "torch.ByteTensor [2, 3]"),
    "getitem_byte_mask_columns": ([1, 0, 1], BYTE, lambda lib, x, i: x[:, i],
                                  "torch.ByteTensor [3]"),
    "getitem_byte_mask_after_bool_list": (
        [1, 0, 1], BYTE, lambda lib, x, i: x[[True, False], i], "torch.ByteTensor [3]"),
    "index_put_byte_mask": ([[1, 0, 1], [0, 0, 1]], BYTE,
                            lambda lib, x, i: x.index_put((i,), x[0] * 10),
                            "torch.ByteTensor [2, 3]"),
    "setitem_byte_mask": ([1, 1], BYTE, _setitem, "torch.ByteTensor [2]"),
    "take": ([5, 0, 2], LONG, lambda lib, x, i: x.take(i), "torch.LongTensor [3]"),
    # without a dim: a gather over the flattened tensor, with a view of the indices
    "take_along_dim_flat": ([[5], [1]], LONG, lambda lib, x, i: lib.take_along_dim(x, i),
                            "torch.LongTensor [2]"),
    "put": ([5, 1], LONG, lambda lib, x, i: x.put(i, x[0, :2] * 10), "torch.LongTensor [2]"),
    "masked_select": ([True, False, True], BOOL, lambda lib, x, i: x.masked_select(i),
                      "CPUBoolType [3]"),
    "masked_scatter": ([True, False, True], BOOL,
                       lambda lib, x, i: x.masked_scatter(i, x * 10), "CPUBoolType [3]"),
    "embedding": ([1, 0, 1], LONG, lambda lib, x, i: lib.nn.functional.embedding(i, x),
                  "torch.LongTensor [3]"),
    "embedding_bag": ([1, 0, 1], LONG,
                      lambda lib, x, i: lib.nn.functional.embedding_bag(
                          i, x, lib.tensor([0, 2]), mode="max"),
                      "torch.LongTensor [3]"),
    "embedding_bag_offsets": ([0, 2], LONG,
                              lambda lib, x, i: lib.nn.functional.embedding_bag(
                                  lib.tensor([1, 0, 1]), x, i),
                              "torch.LongTensor [2]"),
    # a 2-d input is flattened first (a view): the error names the flat shape
    "embedding_bag_2d": ([[1, 0], [1, 1]], LONG,
                         lambda lib, x, i: lib.nn.functional.embedding_bag(i, x),
                         "torch.LongTensor [4]"),
    "nll_loss": ([2, 0], LONG, lambda lib, x, i: lib.nn.functional.nll_loss(x, i),
                 "torch.LongTensor [2]"),
    "nll_loss_none": ([2, 0], LONG,
                      lambda lib, x, i: lib.nn.functional.nll_loss(x, i, reduction="none"),
                      "torch.LongTensor [2]"),
    "nll_loss_single_sample": (2, LONG, lambda lib, x, i: lib.nn.functional.nll_loss(x[0], i),
                               "torch.LongTensor []"),
    # 3-d scores go through the 4-d op with the target reshaped (a view) to (N, 1, rest)
    "nll_loss_3d": ([[2, 0], [1, 1]], LONG,
                    lambda lib, x, i: lib.nn.functional.nll_loss(
                        x.view(2, 3, 1).expand(2, 3, 2), i),
                    "torch.LongTensor [2, 1, 2]"),
    "cross_entropy": ([2, 0], LONG, lambda lib, x, i: lib.nn.functional.cross_entropy(x, i),
                      "torch.LongTensor [2]"),
    "cross_entropy_label_smoothing": (
        [2, 0], LONG,
        lambda lib, x, i: lib.nn.functional.cross_entropy(x, i, label_smoothing=0.1),
        "torch.LongTensor [2]"),
    "multi_margin_loss": ([2, 0], LONG,
                          lambda lib, x, i: lib.nn.functional.multi_margin_loss(x, i),
                          "torch.LongTensor [2]"),
    "multilabel_margin_loss": ([[2, -1, 0], [0, 1, -1]], LONG,
                               lambda lib, x, i: lib.nn.functional.multilabel_margin_loss(x, i),
                               "torch.LongTensor [2, 3]"),
    # 1-d unpooling is the 2-d op on unsqueezed tensors: the error names the view's shape
    "max_unpool1d": ([[[1, 2, 5], [0, 3, 4]]], LONG,
                     lambda lib, x, i: lib.nn.functional.max_unpool1d(x[None], i, 2),
                     "torch.LongTensor [1, 2, 3, 1]"),
    "ctc_loss": ([[1]], LONG, _ctc, "torch.LongTensor [1, 1]"),
}

# A weight (a float tensor that requires no gradient, here [1., 2., 3.]) saved the same
# way, and how PyTorch names it: binary_cross_entropy expands it to the input's shape.
WEIGHT_CASES = {
    "nll_loss_weight": (lambda lib, x, w: lib.nn.functional.nll_loss(
        x, lib.tensor([2, 0]), weight=w), "torch.DoubleTensor [3]"),
    "cross_entropy_weight": (lambda lib, x, w: lib.nn.functional.cross_entropy(
        x, lib.tensor([2, 0]), weight=w), "torch.DoubleTensor [3]"),
    "multi_margin_loss_weight": (lambda lib, x, w: lib.nn.functional.multi_margin_loss(
        x, lib.tensor([2, 0]), weight=w), "torch.DoubleTensor [3]"),
    "binary_cross_entropy_weight": (lambda lib, x, w: lib.nn.functional.binary_cross_entropy(
        x.sigmoid(), lib.ones(2, 3, dtype=x.dtype), weight=w), "torch.DoubleTensor [2, 3]"),
    "bce_with_logits_weight": (
        lambda lib, x, w: lib.nn.functional.binary_cross_entropy_with_logits(
            x, lib.ones(2, 3, dtype=x.dtype), weight=w), "torch.DoubleTensor [3]"),
    "bce_with_logits_pos_weight": (
        lambda lib, x, w: lib.nn.functional.binary_cross_entropy_with_logits(
            x, lib.ones(2, 3, dtype=x.dtype), pos_weight=w), "torch.DoubleTensor [3]"),
    "soft_margin_loss_target": (lambda lib, x, w: lib.nn.functional.soft_margin_loss(
        x, w), "torch.DoubleTensor [3]"),
    # the running statistics: used in evaluation, and saved in training too
    "batch_norm_eval_running_var": (lambda lib, x, w: lib.nn.functional.batch_norm(
        x, lib.zeros(3, dtype=x.dtype), w, training=False), "torch.DoubleTensor [3]"),
    "batch_norm_train_running_mean": (lambda lib, x, w: lib.nn.functional.batch_norm(
        x, w, lib.ones(3, dtype=x.dtype), training=True), "torch.DoubleTensor [3]"),
}


def _index(lib, values, kind):
    return lib.tensor(values, dtype={LONG: lib.int64, BOOL: lib.bool, BYTE: lib.uint8}[kind])


def _built(lib, name):
    values, kind, make, _ = CASES[name]
    x = _x(lib)
    index = _index(lib, values, kind)
    return x, index, make(lib, x, index)


def _backward(lib, out, x, **options):
    return lib.autograd.grad(out.sum(), x, **options)[0]


def _modified_error(what: str) -> str:
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{what}] is at version 1; expected version 0 instead. Hint: "
            "enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


def _message(error: BaseException) -> str:
    """An error's words without teachgrad's learner hint (its last line)."""
    return str(error).split("\nHint:")[0]


# ------------------------------------------------------------------- without PyTorch
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("create_graph", [False, True])
def test_an_index_changed_in_place_after_use_is_refused_by_backward(name, create_graph):
    x, index, out = _built(teachgrad, name)
    _backward(teachgrad, out, x, retain_graph=True)  # unchanged: backward runs
    index.zero_()
    with pytest.raises(RuntimeError) as caught:
        _backward(teachgrad, out, x, create_graph=create_graph)
    assert _message(caught.value) == _modified_error(CASES[name][3])
    assert "saved this tensor to compute its gradient" in str(caught.value)  # the hint


def test_an_index_changed_through_a_view_or_by_item_assignment_is_refused_too():
    x = _x(teachgrad)
    base = teachgrad.tensor([[1, 0], [0, 0]])
    out = x[base[0]]
    base.fill_(1)  # the view's version counter is its base's
    with pytest.raises(RuntimeError, match=r"\[torch.LongTensor \[2\]\] is at version 1"):
        _backward(teachgrad, out, x)
    index = teachgrad.tensor([2, 0])
    out = x.gather(1, index.view(1, 2).expand(2, 2))
    index[0] = 1
    with pytest.raises(RuntimeError, match=r"\[torch.LongTensor \[2, 2\]\] is at version 1"):
        _backward(teachgrad, out, x)


@pytest.mark.parametrize("name", sorted(WEIGHT_CASES))
def test_a_class_weight_changed_in_place_after_use_is_refused_by_backward(name):
    x = _x(teachgrad)
    weight = teachgrad.tensor([1.0, 2.0, 3.0], dtype=teachgrad.float64)
    make, what = WEIGHT_CASES[name]
    out = make(teachgrad, x, weight)
    _backward(teachgrad, out, x, retain_graph=True)  # unchanged: backward runs
    weight.mul_(2)
    with pytest.raises(RuntimeError) as caught:
        _backward(teachgrad, out, x)
    assert _message(caught.value) == _modified_error(what)


def test_batch_norm_updates_its_running_statistics_without_a_new_version():
    # As PyTorch's kernel: the update in training is no in-place op of the user's, so
    # the versions stay (and a module's buffers start at version 1, after its resets).
    mean = teachgrad.zeros(3)
    x = teachgrad.tensor([[0.0, 1.0, 2.0], [2.0, 3.0, 6.0]])
    teachgrad.nn.functional.batch_norm(x, mean, teachgrad.ones(3), training=True)
    assert mean.tolist() == pytest.approx([0.1, 0.2, 0.4]) and mean._version == 0
    bn = teachgrad.nn.BatchNorm1d(3)
    assert [t._version for t in (*bn.parameters(), *bn.buffers())] == [1] * 5
    out = bn(x)
    assert bn.running_mean._version == 1 and bn.num_batches_tracked._version == 2
    bn.running_var.mul_(2)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[3\]\] is at version 2; "
                                           r"expected version 1"):
        out.sum().backward()


def test_gather_no_longer_uses_the_new_index():
    # Before: backward read the index array itself, so after idx.zero_() the gradient
    # went to column 0 ([[2, 0, 0], ...]) instead of refusing.
    x = _x(teachgrad)
    index = teachgrad.tensor([[2, 1], [0, 2]])
    out = x.gather(1, index)
    assert _backward(teachgrad, out, x, retain_graph=True).tolist() == [[0, 1, 1], [1, 0, 1]]
    index.zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _backward(teachgrad, out, x)


@pytest.mark.parametrize("index", [[[2, 1, 0], [0, 2, 1]], [[2, 1]]])
def test_take_along_dim_with_a_dim_keeps_the_indices_it_was_given(index):
    # PyTorch gathers with a broadcast copy of the indices here: changing them afterwards
    # changes nothing, and backward sends the gradient where the old indices pointed.
    x = _x(teachgrad)
    idx = teachgrad.tensor(index)
    out = teachgrad.take_along_dim(x, idx, 1)
    idx.zero_()
    counts = [[0.0] * 3 for _ in range(2)]
    for row in range(2):
        for column in (index[row] if len(index) == 2 else index[0]):
            counts[row][column] += 1
    assert _backward(teachgrad, out, x).tolist() == counts


def test_an_index_given_as_a_0d_tensor_is_read_as_a_number():
    # x[t] with a 0-d integer t is x.select(0, int(t)): nothing is saved, nothing checked
    x = _x(teachgrad)
    t = teachgrad.tensor(1)
    out = x[t]
    t.fill_(0)
    assert _backward(teachgrad, out, x).tolist() == [[0, 0, 0], [1, 1, 1]]


@pytest.mark.parametrize("make", [
    lambda x: x[[0, 0]],
    lambda x: x[teachgrad.tensor([True, False])],
    lambda x: x.index_select(0, teachgrad.tensor([1])),
    lambda x: x.index_fill(1, teachgrad.tensor([0]), 1.0),
    lambda x: teachgrad.nn.functional.nll_loss(x, teachgrad.tensor([1, 2])),
])
def test_a_second_backward_through_an_op_that_saved_its_index_is_refused(make):
    # The saved index is freed by backward, as in PyTorch: without retain_graph a second
    # backward through the op fails (before, these ops saved nothing and ran twice).
    x = _x(teachgrad)
    loss = make(x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        loss.backward()


def test_saved_index_attributes_hold_the_index_as_given():
    x = _x(teachgrad)
    index = teachgrad.tensor([[2, 1], [0, 2]])
    node = x.gather(1, index).grad_fn
    assert node._saved_index.tolist() == [[2, 1], [0, 2]]
    assert node._saved_self.tolist() == x.tolist()
    assert x.index_select(1, teachgrad.tensor([2])).grad_fn._saved_index.tolist() == [2]
    node = teachgrad.nn.functional.nll_loss(x, teachgrad.tensor([2, 0])).grad_fn
    assert node._saved_target.tolist() == [2, 0]
    assert node._saved_weight is None


def test_an_index_saved_under_saved_tensor_hooks_goes_through_them():
    # As PyTorch: the pack hook gets the index tensor too, and what the unpack hook gives
    # back is not version-checked: backward runs (with the unpacked index, see below).
    x = _x(teachgrad)
    index = teachgrad.tensor([[2, 1], [0, 2]])
    packed = []

    def pack(t):
        packed.append(t.clone())
        return packed[-1]

    with teachgrad.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = x.gather(1, index)
        loss = teachgrad.nn.functional.nll_loss(x, teachgrad.tensor([2, 0]))
    index.zero_()
    # in PyTorch's order: gather's index, then its input; nll_loss's input, target and
    # total weight (a 0-d float64 tensor)
    assert [str(t.dtype).split(".")[1] for t in packed] == [
        "int64", "float64", "float64", "int64", "float64"]
    assert _backward(teachgrad, out, x).shape == (2, 3)
    assert _backward(teachgrad, loss, x).shape == (2, 3)


# Under saved_tensors_hooks, backward uses the index as the unpack hook gives it back (here
# all zeros), as PyTorch's does: x = [[1, 2, 3], [4, 5, 6]], the gradient of out.sum().
UNPACKED_ZEROS = {  # name: (the op, x's gradient with zeros for the index, by hand)
    # both picked columns become column 0: it gets 2 per row
    "index_select": (lambda lib, x: x.index_select(1, lib.tensor([2, 1])),
                     [[2.0, 0.0, 0.0], [2.0, 0.0, 0.0]]),
    "gather": (lambda lib, x: x.gather(1, lib.tensor([[2], [1]])),
               [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]),
    "getitem": (lambda lib, x: x[lib.tensor([1, 1])], [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]),
    "getitem_columns": (lambda lib, x: x[:, lib.tensor([2, 1])],
                        [[2.0, 0.0, 0.0], [2.0, 0.0, 0.0]]),
    "take": (lambda lib, x: x.take(lib.tensor([5, 1])), [[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    # three lookups, all of row 0
    "embedding": (lambda lib, x: lib.nn.functional.embedding(lib.tensor([1, 1, 0]), x),
                  [[3.0, 3.0, 3.0], [0.0, 0.0, 0.0]]),
    # the mean over 2 samples, both now of class 0: -1/2 there
    "nll_loss": (lambda lib, x: lib.nn.functional.nll_loss(x, lib.tensor([2, 1])),
                 [[-0.5, 0.0, 0.0], [-0.5, 0.0, 0.0]]),
    # class weights [1, 2, 3]; the total weight forward summed stays 3 + 2 = 5: -1/5
    "nll_loss_weight": (lambda lib, x: lib.nn.functional.nll_loss(
        x, lib.tensor([2, 1]), weight=lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)),
        [[-0.2, 0.0, 0.0], [-0.2, 0.0, 0.0]]),
    "nll_loss_sum": (lambda lib, x: lib.nn.functional.nll_loss(
        x, lib.tensor([2, 1]), reduction="sum"), [[-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]),
}


def _gradient_with_unpacked_zeros(lib, make, create_graph=False):
    def unpack(t):
        return lib.zeros_like(t) if t.dtype == lib.int64 else t

    x = _x(lib)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        out = make(lib, x)
    return _backward(lib, out, x, create_graph=create_graph).tolist()


@pytest.mark.parametrize("name", sorted(UNPACKED_ZEROS))
@pytest.mark.parametrize("create_graph", [False, True])
def test_backward_under_saved_tensor_hooks_uses_the_unpacked_index(name, create_graph):
    make, expected = UNPACKED_ZEROS[name]
    np.testing.assert_allclose(_gradient_with_unpacked_zeros(teachgrad, make, create_graph),
                               expected, rtol=1e-15)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(UNPACKED_ZEROS))
def test_the_unpacked_index_is_used_as_pytorch_uses_it(name):
    real = pytest.importorskip("torch")
    make = UNPACKED_ZEROS[name][0]
    np.testing.assert_allclose(_gradient_with_unpacked_zeros(teachgrad, make),
                               _gradient_with_unpacked_zeros(real, make), rtol=1e-15)


# ---------------------------------------------------------------------- with PyTorch
@pytest.fixture(scope="module")
def real_torch():
    return pytest.importorskip("torch")


def _outcome(lib, name, mutate):
    x, index, out = _built(lib, name)
    mutate(index)
    try:
        return _backward(lib, out, x).tolist()
    except RuntimeError as error:
        return _message(error)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("how", ["zero_", "item"])
def test_the_refusal_matches_pytorchs(real_torch, name, how):
    def mutate(index):
        if how == "zero_":
            index.zero_()
        elif index.dim():  # index[0] = ... (a bool index gets False)
            index[0] = 0
        else:
            index[...] = 0

    expected = _outcome(real_torch, name, mutate)
    assert _outcome(teachgrad, name, mutate) == expected
    assert expected == _modified_error(CASES[name][3])  # the hand-written expectation


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(WEIGHT_CASES))
def test_a_changed_weight_is_refused_as_pytorch_refuses_it(real_torch, name):
    def outcome(lib):
        x = _x(lib)
        weight = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        out = WEIGHT_CASES[name][0](lib, x, weight)
        weight.mul_(2)
        try:
            return _backward(lib, out, x).tolist()
        except RuntimeError as error:
            return _message(error)

    assert outcome(teachgrad) == outcome(real_torch)


@pytest.mark.torch
@pytest.mark.parametrize("make", [
    lambda lib, x, i: lib.take_along_dim(x, i, 1),
    lambda lib, x, i: lib.take_along_dim(x, i[:1], -1),
    lambda lib, x, i: x[i[0, 1]],
    lambda lib, x, i: x.repeat_interleave(i[0, :2], dim=0),
])
def test_what_pytorch_does_not_check_is_not_checked(real_torch, make):
    def outcome(lib):
        x = _x(lib)
        index = lib.tensor([[2, 1, 0], [0, 2, 1]])
        out = make(lib, x, index)
        index.zero_()
        return _backward(lib, out, x).tolist()

    assert outcome(teachgrad) == outcome(real_torch)


@pytest.mark.torch
def test_hooks_see_the_index_as_pytorchs_do(real_torch):
    def packed_dtypes(lib):
        x = _x(lib)
        seen = []

        def pack(t):
            seen.append(str(t.dtype).split(".")[-1])
            return t

        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            x.gather(1, lib.tensor([[2, 1], [0, 2]]))
            x[lib.tensor([1, 0])]
        return sorted(seen)

    assert packed_dtypes(teachgrad) == packed_dtypes(real_torch)
