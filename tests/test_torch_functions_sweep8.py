"""Functions made to match PyTorch in the twenty-fourth session (found by
tests/sweep_functions_against_torch.py): which of a function's checks speaks first, the
top-level (ATen) twins of ``F``'s functions, and warnings.

Expected messages and values are PyTorch 2.13's, written out (values worked by hand), so
these tests run without PyTorch; the ``torch``-marked tests compare with PyTorch where it
is installed."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import teachgrad as tg

F = tg.nn.functional

# source -> (error type, PyTorch's sentence)
CASES = {
    # ATen's group_norm reads input.size(0) and input.size(1) before anything else
    "torch.group_norm(torch.ones(6), 2)":
        (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    "torch.group_norm(torch.tensor(2.5), 2)":
        (IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    # ATen's binary_cross_entropy_with_logits broadcasts (F's checks the shapes are equal):
    # (1 - target) * input, in place in target's shape
    "torch.binary_cross_entropy_with_logits(torch.ones(2, 3), torch.ones(2))":
        (RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at "
                       "non-singleton dimension 1"),
    "torch.binary_cross_entropy_with_logits(torch.ones(2, 3), torch.ones(3))":
        (RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    "torch.nn.functional.binary_cross_entropy_with_logits(torch.ones(2, 3), torch.ones(2))":
        (ValueError, "Target size (torch.Size([2])) must be the same as input size "
                     "(torch.Size([2, 3]))"),
    # gradient's differences subtract two bool tensors
    "torch.gradient(torch.tensor([True, False, True]))":
        (RuntimeError, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                       "Use the `^` or `logical_xor()` operator instead."),
    # view_copy's dtype overload, by keyword
    "torch.view_copy(torch.tensor([True] * 6), dtype=torch.float64)":
        (RuntimeError, "self.size(-1) must be divisible by 8 to view Bool as Double (different "
                       "element sizes), but got 6"),
    # F's in-place flag is read (`if inplace:`) before the input's dtype is checked
    "torch.nn.functional.selu(torch.tensor([1, 2]), torch.tensor([1, 2]))":
        (RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"),
    "torch.nn.functional.hardswish(torch.tensor([True]), torch.tensor([True, False]))":
        (RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"),
    "torch.nn.functional.relu6(torch.tensor([True]), torch.tensor([True, False]))":
        (RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"),
    # softmin negates first: a bool input is refused before the dtype is applied
    "torch.nn.functional.softmin(torch.tensor([True, False]), 0, dtype=torch.float64)":
        (RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported. If you "
                       "are trying to invert a mask, use the `~` or `logical_not()` operator "
                       "instead."),
    # hardtanh_ (ATen's) checks the dtype only; F.hardtanh checks the bounds first
    "torch.nn.functional.hardtanh_(torch.tensor([True]), 2)":
        (RuntimeError, "Bool inputs not supported for hardtanh"),
    "torch.nn.functional.hardtanh(torch.tensor([1.0]), 2)":
        (ValueError, "min_val cannot be greater than max_val"),
    # cholesky_solve: A square, then as many rows as b has
    "torch.cholesky_solve(torch.ones(2, 3), torch.ones(2, 3))":
        (RuntimeError, "A must be batches of square matrices, but they are 2 by 3 matrices"),
    "torch.cholesky_solve(torch.ones(2, 3), torch.eye(3))":
        (RuntimeError, "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 "
                       "but each b matrix is 2 by 3"),
    # trapezoid with x wraps dim first (a 0-d y's -1 is 0); the pairs of y times x's widths
    "torch.trapezoid(torch.tensor(2.5), torch.ones(6))":
        (IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    "torch.trapezoid(torch.tensor(2.5), torch.ones(6), dim=1)":
        (IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    "torch.trapezoid(torch.tensor(2.5))":
        (IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    "torch.trapz(torch.ones(2, 3), torch.ones(3, 3))":
        (RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at "
                       "non-singleton dimension 0"),
    # scalar_tensor takes a tensor for its number only when it is 0-d, outside autograd
    "torch.scalar_tensor(torch.tensor(2.5, requires_grad=True))":
        (TypeError, "scalar_tensor(): argument 's' (position 1) must be Number, not Tensor"),
    "torch.scalar_tensor(torch.tensor([2.5]))":
        (TypeError, "scalar_tensor(): argument 's' (position 1) must be Number, not Tensor"),
    # histogramdd checks the dimensions before the dtype
    "torch.histogramdd(torch.tensor([3, -1, 0]), 2)":
        (RuntimeError, "torch.histogramdd: input tensor should have at least 2 dimensions"),
    # linalg.cond with 'fro'/'nuc' checks the shape first (then an empty input gives 0)
    "torch.linalg.cond(torch.ones(2, 0), 'nuc')":
        (RuntimeError, "linalg.cond(ord=nuc): A must be batches of square matrices, but they "
                       "are 2 by 0 matrices"),
    "torch.linalg.cond(torch.ones(2, 3), 'nuc')":
        (RuntimeError, "linalg.cond(ord=nuc): A must be batches of square matrices, but they "
                       "are 2 by 3 matrices"),
    # multilabel_margin_loss: the shapes, target's range (read as int64), input's dtype,
    # then target's dtype
    "torch.nn.functional.multilabel_margin_loss(torch.tensor(2.5), torch.ones(6))":
        (RuntimeError, "inconsistent target size: [6] for input of size: []"),
    "torch.nn.functional.multilabel_margin_loss(torch.ones(6), torch.full((6,), 7.0))":
        (RuntimeError, "argument #2 'target' is out of range"),
    "torch.nn.functional.multilabel_margin_loss(torch.ones(6), torch.full((6,), -1.5))":
        (RuntimeError, "expected scalar type Long but found Float"),
    "torch.nn.functional.multilabel_margin_loss(torch.ones(6), torch.full((6,), math.nan))":
        (RuntimeError, "value cannot be converted to type int64_t without overflow"),
    "torch.nn.functional.multilabel_margin_loss(torch.tensor([True, False]), "
    "torch.tensor([True, False]))":
        (NotImplementedError,
         "\"multilabel_margin_loss_forward_out_frame\" not implemented for 'Bool'"),
    # grid_sample: the shapes (input.size(0) first), then input's dtype, then grid's
    "torch.nn.functional.grid_sample(torch.ones(6), torch.tensor(1.0), align_corners=True)":
        (IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    "torch.nn.functional.grid_sample(torch.ones(1, 2, 2), torch.zeros(1, 1, 1, 2, "
    "dtype=torch.float64), align_corners=True)":
        (RuntimeError, "grid_sampler(): expected grid to have size 1 in last dimension, but "
                       "got grid with sizes [1, 1, 1, 2]"),
    "torch.nn.functional.grid_sample(torch.ones(1, 1, 2, 2, dtype=torch.long), "
    "torch.zeros(1, 1, 1, 2), align_corners=True)":
        (NotImplementedError, "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Long'"),
    "torch.nn.functional.grid_sample(torch.ones(1, 1, 2, 2), "
    "torch.zeros(1, 1, 1, 2, dtype=torch.long), align_corners=True)":
        (RuntimeError, "expected scalar type Float but found Long"),
    # hinge_embedding_loss: ATen's margin - input fills a tensor like input (bool - bool)
    "torch.hinge_embedding_loss(torch.tensor([True]), torch.tensor([True]))":
        (RuntimeError, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                       "Use the `^` or `logical_xor()` operator instead."),
    "torch.nn.functional.hinge_embedding_loss(torch.tensor([3, -1]), torch.tensor([1, 2]))":
        (RuntimeError, "mean(): could not infer output dtype. Input dtype must be either a "
                       "floating point or complex dtype. Got: Long"),
    # soft_margin_loss computes in place in input's dtype: -input, then exp
    "torch.nn.functional.soft_margin_loss(torch.tensor([1, 2]), torch.tensor([1, 2]))":
        (RuntimeError, "result type Float can't be cast to the desired output type Long"),
    "torch.nn.functional.soft_margin_loss(torch.tensor([True]), torch.tensor([True]))":
        (RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported. If you "
                       "are trying to invert a mask, use the `~` or `logical_not()` operator "
                       "instead."),
    # linear: the shapes before the dtypes (mm's and mv's order); out= as addmm's/dot's
    "torch.nn.functional.linear(torch.ones(2, 3), torch.ones(2, 4, dtype=torch.long))":
        (RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)"),
    "torch.nn.functional.linear(torch.ones(2, 3), torch.tensor([1, 2]))":
        (RuntimeError, "size mismatch, got input (2), mat (2x3), vec (2)"),
    "torch.nn.functional.linear(torch.ones(2, 3, requires_grad=True), torch.ones(2, 3), "
    "out=torch.empty(0))":
        (RuntimeError, "linear(): functions with out=... arguments don't support automatic "
                       "differentiation, but one of the arguments requires grad."),
    "torch.nn.functional.linear(torch.ones(2, 3), torch.ones(2, 3), "
    "out=torch.empty(0, dtype=torch.float64))":
        (RuntimeError, "Expected out tensor to have dtype float, but got double instead"),
    "torch.nn.functional.linear(torch.ones(3), torch.ones(3), "
    "out=torch.empty(0, dtype=torch.float64))":
        (RuntimeError, "result dtype Double does not match input dtype Float"),
    # norm_except_dim views v as (v.size(dim), -1): no elements there leaves -1 undecided
    "torch.norm_except_dim(torch.ones(0))":
        (RuntimeError, "cannot reshape tensor of 0 elements into shape [0, -1] because the "
                       "unspecified dimension size -1 can be any value and is ambiguous"),
    "torch.norm_except_dim(torch.ones(2, 0), 2, 1)":
        (RuntimeError, "cannot reshape tensor of 0 elements into shape [-1, 0] because the "
                       "unspecified dimension size -1 can be any value and is ambiguous"),
    "torch.norm_except_dim(torch.ones(2, 0), 2, 5)":
        (IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    # F.glu refuses a 0-d input in Python, before ATen's parser reads dim
    "torch.nn.functional.glu(torch.tensor(2.5), torch.ones(6))":
        (RuntimeError, "glu does not support scalars because halving size must be even"),
    # embedding_bag(weight, input) (the old order) is swapped back, with a warning
    "torch.nn.functional.embedding_bag(torch.ones(2, 3), torch.tensor([2, 0]))":
        (ValueError, "offsets has to be a 1D Tensor but got None"),
    # unfold: the arguments' lengths and values, then the input's dimensions
    "torch.nn.functional.unfold(torch.ones(6), (2, 3, 4))":
        (RuntimeError, "It is expected kernel_size equals to 2, but got size 3"),
    "torch.nn.functional.unfold(torch.ones(6), torch.tensor([2, 0]))":
        (RuntimeError, "kernel size should be greater than zero, but got kernel_height: 2 "
                       "kernel_width: 0"),
    "torch.nn.functional.unfold(torch.tensor(2.5), 2)":
        (IndexError, "Dimension specified as 1 but tensor has no dimensions"),
    # instance_norm repeats each per-channel tensor N times (repeat(N)) before its checks
    "torch.nn.functional.instance_norm(torch.ones(2, 2, 2), torch.ones(2, 2))":
        (RuntimeError, "Number of dimensions of repeat dims can not be smaller than number of "
                       "dimensions of tensor"),
    "torch.nn.functional.instance_norm(torch.ones(2, 2, 2), None, None, torch.ones(2, 2))":
        (RuntimeError, "Number of dimensions of repeat dims can not be smaller than number of "
                       "dimensions of tensor"),
    "torch.nn.functional.instance_norm(torch.ones(2, 2, 2), torch.ones(3))":
        (RuntimeError, "running_mean should contain 4 elements not 6"),
}

# source -> the result's dtype, shape and values (by hand)
RESULTS = {
    # an int input keeps its dtype: margin - x in int64, where(target != 1, ...) + where(
    # target != -1, x, 0): [0+3, 2-1, 1+0, 0+2, 0+7, 5-4]
    "torch.hinge_embedding_loss(torch.tensor([3, -1, 0, 2, 7, -4]), "
    "torch.tensor([1, 2, -3, 0, 5, 2]))": ("int64", [6], [3, 1, 1, 2, 7, 1]),
    # margin 1.5 filled into int64 is 1: max(0, 1 - 1) = 0 and max(0, 1 + 2) = 3
    "torch.nn.functional.hinge_embedding_loss(torch.tensor([1, -2]), torch.tensor([-1, -1]), "
    "margin=1.5, reduction='none')": ("int64", [2], [0, 3]),
    "torch.nn.functional.linear(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2), "
    "out=torch.empty(0))": ("float32", [2, 2], [[4.0, 4.0], [4.0, 4.0]]),
    "torch.nn.functional.linear(torch.tensor([1, 2]), torch.tensor([3, 4]), "
    "out=torch.empty(0, dtype=torch.long))": ("int64", [], 11),
    # dim -2 is dim 0 (only -1 means every dim): each row's norm, √3
    "torch.norm_except_dim(torch.ones(2, 3), 2, -2)":
        ("float32", [2, 1], [[math.sqrt(3)], [math.sqrt(3)]]),
    # log(1 + e^(-y x)) with bool labels as 1 and 0: (log(1 + e^-1) + log 2) / 2
    "torch.nn.functional.soft_margin_loss(torch.tensor([1.0, 2.0]), "
    "torch.tensor([True, False]))": ("float32", [], (math.log1p(math.exp(-1)) + math.log(2)) / 2),
    # log(1 + e^-2.5) broadcast against six targets of 1
    "torch.binary_cross_entropy_with_logits(torch.tensor(2.5), torch.ones(6))":
        ("float32", [6], [math.log1p(math.exp(-2.5))] * 6),
    # the mean over the broadcast shape: log(1 + e^-0) = log 2 each
    "torch.binary_cross_entropy_with_logits(torch.zeros(3), torch.ones(2, 3), reduction=1)":
        ("float32", [], math.log(2)),
    "torch.group_norm(torch.tensor([[1.0, 3.0, 5.0, 7.0]]), 2)":
        ("float32", [1, 4], [-1 / math.sqrt(1 + 1e-5), 1 / math.sqrt(1 + 1e-5)] * 2),
    "torch.view_copy(torch.ones(6), size=[2, 3])": ("float32", [2, 3], [[1.0] * 3] * 2),
    # eight bytes of two float32 ones (0x3F800000 twice) read as one float64: 2^-7 + 2^-36
    # + ... = 0.0078125 to 7 digits
    "torch.view_copy(torch.ones(6), dtype=torch.float64)":
        ("float64", [3], [np.frombuffer(np.ones(2, np.float32).tobytes())[0]] * 3),
    # min_val above max_val: clamp(x, 2, 1) is 1 everywhere, as ATen's clamp
    "torch.nn.functional.hardtanh_(torch.tensor([1.5, -2.0, 0.5]), 2)":
        ("float32", [3], [1.0, 1.0, 1.0]),
    "torch.nn.functional.hardtanh_(torch.tensor([1, 2]), 2)": ("int64", [2], [1, 1]),
    # trapezoid with several-dimensional x: x's widths broadcast with y's pairs, no count
    # check: y [[1, 1, 1]] * 2, x's rows [1, 2] and [3, 5]: widths 1 and 2 times the pair sum 2
    "torch.trapezoid(torch.ones(2, 3), torch.tensor([[1.0, 2.0], [3.0, 5.0]]))":
        ("float32", [2], [2.0, 4.0]),
    "torch.cumulative_trapezoid(torch.ones(2, 3), torch.tensor([[1.0, 2.0], [3.0, 5.0]]))":
        ("float32", [2, 2], [[1.0, 2.0], [2.0, 4.0]]),
    # x of fewer dimensions gets leading 1s: widths 1, 2, 1 along the last dim, heights 1
    "torch.trapezoid(torch.ones(2, 3, 4), torch.tensor([[1.0, 2.0, 4.0, 5.0]]))":
        ("float32", [2, 3], [[4.0] * 3] * 2),
    "torch.scalar_tensor(torch.tensor(3))": ("float32", [], 3.0),
    # NumPy defines no condition number of an empty matrix: PyTorch's is 0 (per matrix)
    "torch.linalg.cond(torch.ones(2, 0))": ("float32", [], 0.0),
    "torch.linalg.cond(torch.ones(3, 0, 0))": ("float32", [3], [0.0, 0.0, 0.0]),
    "torch.linalg.cond(torch.ones(2, 0, dtype=torch.float64), 1)": ("float64", [], 0.0),
    "torch.linalg.cond(torch.ones(0, 0), 'nuc')": ("float32", [], 0.0),
    # Σσ · Σ1/σ = (σ₁ + σ₂)² / (σ₁σ₂), with σ₁² + σ₂² = ‖A‖²_F = 30 and σ₁σ₂ = |det A| = 2:
    # (30 + 2 · 2) / 2 = 17
    "torch.linalg.cond(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 'nuc')": ("float32", [], 17.0),
}


def _raised(source: str, library) -> Exception:
    with pytest.raises(Exception) as caught:  # (the type is compared by the caller)
        eval(source, {"torch": library, "math": math})
    return caught.value


@pytest.mark.parametrize("source", sorted(CASES))
def test_refused_as_pytorch_says(source):
    error = _raised(source, tg)
    kind, message = CASES[source]
    assert type(error) is kind
    assert str(error).split("\nHint: ")[0].replace("teachgrad", "torch") == message


@pytest.mark.parametrize("source", sorted(RESULTS))
def test_result_as_worked_by_hand(source):
    result = eval(source, {"torch": tg, "math": math})
    dtype, shape, values = RESULTS[source]
    assert str(result.dtype) == f"teachgrad.{dtype}"
    assert list(result.shape) == shape
    assert np.allclose(np.array(result.tolist(), dtype=float), values, rtol=1e-6, atol=1e-7)


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted(CASES))
def test_refused_as_pytorch(source):
    real = pytest.importorskip("torch")
    error = _raised(source, real)
    assert (type(error), str(error)) == CASES[source]


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted(RESULTS))
def test_result_as_pytorch(source):
    real = pytest.importorskip("torch")
    theirs = eval(source, {"torch": real, "math": math})
    ours = eval(source, {"torch": tg, "math": math})
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert list(ours.shape) == list(theirs.shape)
    assert np.allclose(np.array(ours.tolist(), dtype=float),
                       np.array(theirs.tolist(), dtype=float), rtol=1e-6)


def test_to_dlpack_exports_a_tensor_that_requires_grad():
    # PyTorch's legacy to_dlpack does not check requires_grad (only __dlpack__ does); the
    # consumer gets the memory outside autograd
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    assert type(tg.to_dlpack(x)).__name__ == "PyCapsule"
    assert type(tg.utils.dlpack.to_dlpack(x)).__name__ == "PyCapsule"
    with pytest.raises(BufferError, match="^Can't export tensors that require gradient"):
        x.__dlpack__()


def test_to_dlpack_round_trip_shares_memory():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a bare capsule is read-only in NumPy: warned)
        y = tg.from_dlpack(tg.to_dlpack(x))
    assert not y.requires_grad and y.tolist() == [1.0, 2.0]
    with tg.no_grad():
        x[0] = 5.0
    assert y.tolist() == [5.0, 2.0]


def test_ger_with_out_warns_its_deprecation():
    # PyTorch's ger_out warns (every call); ger without out= and outer do not
    message = ("torch.ger is deprecated and will be removed in a future PyTorch release. "
               "Use torch.outer instead.")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = tg.ger(tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0]), out=tg.empty(0))
        tg.ger(tg.tensor([1.0]), tg.tensor([3.0]))
        tg.outer(tg.tensor([1.0]), tg.tensor([3.0]), out=tg.empty(0))
    assert [str(w.message) for w in caught] == [message]
    assert out.tolist() == [[3.0, 4.0], [6.0, 8.0]]


def test_bce_with_logits_broadcast_input_gradient_sums_over_the_targets():
    # d/dx Σ_k log(1 + e^-x) (target 1, six times) = 6 · (σ(x) − 1) at x = 2.5
    x = tg.tensor(2.5, requires_grad=True)
    tg.binary_cross_entropy_with_logits(x, tg.ones(6)).sum().backward()
    sigmoid = 1 / (1 + math.exp(-2.5))
    assert x.grad.item() == pytest.approx(6 * (sigmoid - 1), rel=1e-6)


def test_histogramdd_nodes_as_pytorch():
    # bin counts: one node finds the edges, another counts; given edges: one node counts,
    # the edges record none. PyTorch's NotImplemented nodes run as soon as they are ready
    # (sequence number 2^64 - 1), so which one fails depends on the order of the sum.
    x = tg.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], requires_grad=True)
    hist, edges = tg.histogramdd(x, 2)
    assert hist.grad_fn is not edges[0].grad_fn
    assert edges[0].grad_fn is edges[2].grad_fn
    assert hist.grad_fn._sequence_nr() == 2 ** 64 - 1
    for total, kernel in ((hist.sum() + edges[0].sum(), "_histogramdd_bin_edges"),
                          (edges[0].sum() + hist.sum(), "_histogramdd_from_bin_cts")):
        with pytest.raises(RuntimeError, match=f"^derivative for aten::{kernel} is not "):
            tg.autograd.grad(total, x)
    hist, edges = tg.histogramdd(x, [tg.tensor([0.0, 1.0])] * 3)
    assert [e.grad_fn for e in edges] == [None] * 3
    with pytest.raises(RuntimeError, match="_histogramdd_from_bin_tensors is not implemented"):
        hist.sum().backward()
    # the counts themselves: (1, -2, .5) falls in bin (1, 0, 1), (0, 3, -1) in (0, 1, 0)
    hist, _ = tg.histogramdd(x.detach(), 2)
    assert hist.tolist() == [[[0.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 0.0]]]


def test_gradient_of_an_int_tensor_is_still_computed():
    # only bool is refused: an int tensor's differences are taken in float
    assert tg.gradient(tg.tensor([1, 2, 4]))[0].tolist() == [1.0, 1.5, 2.0]


def test_soft_margin_loss_backward_with_bool_target_refuses_as_pytorch():
    # PyTorch's backward computes -target: a bool target passes forward, not backward
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    loss = F.soft_margin_loss(x, tg.tensor([True, False]))
    with pytest.raises(RuntimeError, match=r"^Negation, the `-` operator, on a bool tensor"):
        loss.backward()


def test_bernoulli_with_p_records_a_node_without_derivative():
    x = tg.full((5,), 0.5, requires_grad=True)
    tg.manual_seed(0)
    drawn = tg.bernoulli(x, 0.5)
    tg.manual_seed(0)
    plain = tg.bernoulli(x.detach(), 0.5)
    assert drawn.tolist() == plain.tolist()  # (the same draws: the node only wraps them)
    assert drawn.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::bernoulli is not "):
        drawn.sum().backward()
    # probabilities as a tensor: a derivative (zero), BernoulliBackward0
    assert type(tg.bernoulli(x).grad_fn).__name__ == "BernoulliBackward0"


def test_bce_with_logits_mixed_dtypes_gradients_in_float64():
    # PyTorch: grad_input = (σ(x) − t) · g / n in the logits' float64 (the float32 loss's
    # gradient 1.0 is exact), grad_target = −x · g / n in float64, rounded to float32
    xs = [0.3, -0.7, 1.0, 2.5, -3.0, 0.0]
    ts = [0.25, 1.0, -1.5, 2.0, -0.0, 4.0]
    x = tg.tensor(xs, dtype=tg.float64, requires_grad=True)
    t = tg.tensor(ts, requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, t)
    assert loss.dtype == tg.float32  # (written into 1 - target, as PyTorch's kernel)
    grad_x, grad_t = tg.autograd.grad(loss, [x, t])
    t32 = np.array(ts, np.float32).astype(np.float64)
    expected_x = (1 / (1 + np.exp(-np.array(xs))) - t32) / 6
    assert np.allclose(grad_x.numpy(), expected_x, rtol=1e-15, atol=0)
    assert grad_t.numpy().tolist() == (-np.array(xs) / 6).astype(np.float32).tolist()


def test_embedding_bag_old_argument_order_warns_and_swaps():
    table = tg.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]])
    with pytest.warns(UserWarning, match="^Argument order of nn.functional.embedding_bag was "):
        bags = F.embedding_bag(table, tg.tensor([[0, 1], [2, 2]]))
    assert bags.tolist() == [[0.5, 1.0], [4.0, 4.0]]  # (the means of rows 0, 1 and 2, 2)


def test_linear_without_out_still_records_addmm():
    x, w, b = tg.ones(2, 3, requires_grad=True), tg.ones(4, 3), tg.ones(4)
    assert type(F.linear(x, w, b).grad_fn).__name__ == "AddmmBackward0"


def test_cosine_similarity_normalises_float32_in_float32():
    # PyTorch converts only integer inputs to the common dtype: a float32 x2 is divided by
    # its float32 norm, then multiplied with the float64 x1 (so the float32 rounding shows)
    a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.25]]
    b = [[2.0, -1.0, 0.0], [1.0, 3.0, 1.0]]
    x1 = tg.tensor(a, dtype=tg.float64)
    x2 = tg.tensor(b)
    result = F.cosine_similarity(x1, x2)
    b32 = np.array(b, np.float32)
    unit2 = (b32 / np.sqrt((b32 * b32).sum(1, keepdims=True))).astype(np.float64)
    a64 = np.array(a)
    expected = ((a64 / np.sqrt((a64 * a64).sum(1, keepdims=True))) * unit2).sum(1)
    assert result.dtype == tg.float64
    assert np.allclose(result.numpy(), expected, rtol=1e-15, atol=0)
    # (converting x2 to float64 first gives other last digits: 0.7537346538563624 here
    # against 0.753734654... computed all in float64)
    assert F.cosine_similarity(tg.tensor([[1, 2]]), tg.tensor([[1.0, 1.0]])).tolist() == \
        pytest.approx([3 / math.sqrt(10)], rel=1e-6)
