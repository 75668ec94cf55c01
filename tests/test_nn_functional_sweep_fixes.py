"""nn.functional differences the sweeps found (tests/sweep_functions_against_torch.py over
``torch.nn.functional``, tests/sweep_nn_arguments_against_torch.py), held to PyTorch:

- a number PyTorch's Python hands on to a tensor method or operator gets that method's
  words when it is no number (``F.normalize(x, eps=None)`` was taken silently);
- ``F.normalize``: ``p=None`` is the 2-norm, an integer input is refused first;
- out= on the activations that are PyTorch's C++ bindings (gelu, softplus, logsigmoid,
  softshrink, hardshrink);
- softshrink's -0. for a small negative input; hardsigmoid's float32 1/6 in its gradient;
- kl_div refuses integer and bool inputs; linear's dtype error names the kernel it calls;
  prelu checks in PyTorch's order.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad
from tests.parity import raises_as_torch

F = teachgrad.nn.functional


# ------------------------------------------------------------------ numbers as operands
@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.functional.lp_pool1d(lib.ones(1, 2, 4), "a", 2),
    lambda lib: lib.nn.functional.lp_pool2d(lib.ones(1, 2, 4, 4), None, 2),
    lambda lib: lib.nn.functional.lp_pool1d(lib.ones(1, 2, 4), 2, (2,)),
    lambda lib: lib.nn.functional.gumbel_softmax(lib.ones(2, 3), tau=None),
    lambda lib: lib.nn.functional.normalize(lib.ones(2, 3), eps=None),
    lambda lib: lib.nn.functional.normalize(lib.ones(2, 3), eps="a"),
    lambda lib: lib.nn.functional.normalize(lib.ones(2, 3), p="a"),
    lambda lib: lib.nn.functional.normalize(lib.ones(2, 3), p=(1, 2)),
    lambda lib: lib.nn.functional.normalize(lib.ones(2, 3), dim=1.5),
    lambda lib: lib.nn.functional.normalize(lib.ones(2, 3), dim=True),
    lambda lib: lib.nn.functional.normalize(lib.tensor([1, 2, 3])),
    lambda lib: lib.nn.functional.normalize(lib.tensor([[True, False]]), dim=0),
    lambda lib: lib.nn.functional.local_response_norm(lib.ones(1, 3, 4), "a"),
    lambda lib: lib.nn.functional.local_response_norm(lib.ones(1, 3, 4, 4), True),
    lambda lib: lib.nn.functional.local_response_norm(lib.ones(1, 3, 4), 2, alpha=None),
    lambda lib: lib.nn.functional.local_response_norm(lib.ones(1, 3, 4), 2, beta="a"),
    lambda lib: lib.nn.functional.local_response_norm(lib.ones(1, 3, 4), 2, k=(1, 2)),
    lambda lib: lib.nn.functional.gaussian_nll_loss(lib.ones(3), lib.ones(3), lib.ones(3),
                                                    eps="a"),
], ids=lambda case: None)
def test_bad_number_gets_pytorchs_words(case):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        case(torch)
    with pytest.raises(type(theirs.value)) as ours:
        case(teachgrad)
    # (PyTorch's "invalid combination" message ends with a newline; the hint follows it)
    assert str(ours.value).split("Hint:")[0].rstrip("\n") == str(theirs.value).rstrip("\n")
    assert "\nHint: " in str(ours.value)


def test_a_good_number_still_computes():
    """The check passes a number, a NumPy number and a 0-d tensor through unchanged."""
    x = teachgrad.tensor([[[3.0], [4.0], [2.0]]])
    for alpha in (1.0, np.float32(1.0), teachgrad.tensor(1.0)):
        out = F.local_response_norm(x, 1, alpha=alpha, beta=1.0, k=0.0)
        # size 1: x / x² = 1/x where x ≠ 0 (by hand)
        np.testing.assert_allclose(out.numpy()[0, :, 0], [1 / 3, 1 / 4, 1 / 2], rtol=1e-6)


def test_normalize_p_none_is_the_two_norm():
    x = teachgrad.tensor([[3.0, 4.0], [6.0, 8.0]])
    out = F.normalize(x, p=None)
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8], [0.6, 0.8]], rtol=1e-6)
    whole = F.normalize(x, dim=None)  # the norm of every element: sqrt(125)
    np.testing.assert_allclose(whole.numpy(), x.numpy() / math.sqrt(125), rtol=1e-6)


def test_normalize_out_is_resized_as_torch_div():
    out = teachgrad.empty(0)
    result = F.normalize(teachgrad.tensor([[3.0, 4.0]]), out=out)
    assert result is out and out.shape == (1, 2)
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8]], rtol=1e-6)


def test_sdpa_takes_a_negative_dropout_p_as_no_dropout():
    q = teachgrad.randn(1, 2, 3)
    np.testing.assert_array_equal(
        F.scaled_dot_product_attention(q, q, q, dropout_p=-1.0).numpy(),
        F.scaled_dot_product_attention(q, q, q).numpy())
    with pytest.raises(RuntimeError, match="has to be between 0 and 1, but got 1.5"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)


# ------------------------------------------------------------------ out= on activations
OUT_ACTIVATIONS = ["gelu", "softplus", "logsigmoid", "softshrink", "hardshrink"]


@pytest.mark.parametrize("name", OUT_ACTIVATIONS)
def test_out_writes_the_result(name):
    x = teachgrad.tensor([-2.0, -0.25, 0.0, 0.75, 3.0])
    out = teachgrad.empty(0)
    assert getattr(F, name)(x, out=out) is out
    np.testing.assert_array_equal(out.numpy(), getattr(F, name)(x).numpy())


@pytest.mark.parametrize("name", OUT_ACTIVATIONS)
@pytest.mark.parametrize("make", [
    lambda lib, f: f(lib.ones(3), out=lib.empty(0, dtype=lib.int64)),
    lambda lib, f: f(lib.ones(3, dtype=lib.float64), out=lib.empty(0)),
    lambda lib, f: f(lib.ones(3, requires_grad=True), out=lib.empty(0)),
    lambda lib, f: f(lib.ones(3, dtype=lib.int64), out=lib.empty(0, dtype=lib.int64)),
])
def test_out_errors_as_torch(name, make):
    raises_as_torch(lambda lib: make(lib, getattr(lib.nn.functional, name)))


# ------------------------------------------------------------------ values and gradients
def test_softshrink_keeps_the_sign_of_a_small_negative_input():
    out = F.softshrink(teachgrad.tensor([-0.25, 0.25, -1.0, float("nan")]))
    assert np.signbit(out.numpy()[:2]).tolist() == [True, False]  # -0.25 * 0 = -0.
    assert out.numpy()[2] == -0.5 and math.isnan(out.numpy()[3])


def test_hardsigmoid_slope_is_float32_one_sixth_in_float64_too():
    x = teachgrad.tensor([0.5, 5.0], dtype=teachgrad.float64, requires_grad=True)
    F.hardsigmoid(x).sum().backward()
    assert x.grad.tolist() == [float(np.float32(1) / np.float32(6)), 0.0]


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.functional.kl_div(lib.ones(3), lib.tensor([1, 2, 3])),
    lambda lib: lib.nn.functional.kl_div(lib.tensor([1, 2, 3]), lib.ones(3)),
    lambda lib: lib.nn.functional.kl_div(lib.ones(2), lib.tensor([True, False]),
                                         reduction="sum"),
    lambda lib: lib.nn.functional.linear(lib.ones(4, 3, dtype=lib.float64), lib.ones(5, 3)),
    lambda lib: lib.nn.functional.linear(lib.ones(2, 4, 3, dtype=lib.float64),
                                         lib.ones(5, 3)),
    lambda lib: lib.nn.functional.linear(lib.ones(4, 3, dtype=lib.float64), lib.ones(5, 3),
                                         lib.ones(5)),
    lambda lib: lib.nn.functional.linear(lib.ones(3, dtype=lib.float64), lib.ones(3)),
    lambda lib: lib.nn.functional.linear(lib.ones(4, 3, dtype=lib.int64), lib.ones(5, 3)),
    lambda lib: lib.nn.functional.instance_norm(lib.tensor(1.0)),
    # prelu: the dtypes, then the number of slopes, then the weight's dimensions
    lambda lib: lib.nn.functional.prelu(lib.ones(2, 3), lib.ones(2, 3)),
    lambda lib: lib.nn.functional.prelu(lib.ones(3, 3, dtype=lib.float64), lib.ones(3, 3)),
    lambda lib: lib.nn.functional.prelu(lib.ones(2, 3, 4), lib.ones(1, 3, 1)),
    lambda lib: lib.nn.functional.prelu(lib.ones(2, 4, 5), lib.ones(3)),
], ids=lambda case: None)
def test_errors_as_torch(case):
    raises_as_torch(case)


# ------------------------------------------- binary_cross_entropy_with_logits' target dtype
@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"),
                                    ("float32", "float16")])
@pytest.mark.parametrize("pos_weight", [False, True])
def test_bce_with_logits_loss_has_the_targets_dtype(dtypes, pos_weight):
    """PyTorch's kernel writes the loss into ``1 - target``: float64 logits with float32
    labels give a float32 loss (teachgrad gave float64); each gradient keeps its input's."""
    from tests.parity import same_as_torch

    x = np.array([0.5, -1.0, 2.0, -3.0], dtype=dtypes[0])
    t = np.array([1.0, 0.0, 0.3, 1.0], dtype=dtypes[1])
    rtol = 2e-3 if "float16" in dtypes else 1e-6

    def expr(lib, x, t):
        extra = {"pos_weight": lib.full((4,), 2.0)} if pos_weight else {}
        return lib.nn.functional.binary_cross_entropy_with_logits(x, t, **extra)

    same_as_torch(expr, x, t, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.ones(3), lib.tensor([True, False, True])),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.ones(3), lib.tensor([True, False, True]), pos_weight=lib.ones(3)),
    # max_pool1d with indices checks the dimensions itself, then max_pool2d the sizes
    lambda lib: lib.nn.functional.max_pool1d(lib.ones(6), 2, return_indices=True),
    lambda lib: lib.nn.functional.max_pool1d(lib.ones(1, 2, 3, 4), 2, return_indices=True),
    lambda lib: lib.nn.functional.max_pool1d(lib.ones(2, 0, 3), 2, return_indices=True),
    lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 0, 3, 3), 2),
    lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 1, 0), (1, 2), return_indices=True),
], ids=lambda case: None)
def test_more_errors_as_torch(case):
    raises_as_torch(case)


# ------------------------------------------------ huber_loss with a target of another dtype
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"),
                                    ("float32", "int64"), ("float32", "bool"),
                                    ("float16", "float32")])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_huber_loss_has_the_inputs_dtype_and_its_backward_refuses_another(dtypes, reduction):
    """PyTorch's forward takes any target and gives the input's dtype (teachgrad promoted:
    float64 for a float64 target); its backward kernel then wants the target in the input's
    dtype, and says 'Found dtype Double but expected Float'."""
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torch, teachgrad):
        x = lib.tensor([1.0, 2.5, -1.0], dtype=getattr(lib, dtypes[0]), requires_grad=True)
        t = lib.tensor([0, 1, 3]).to(getattr(lib, dtypes[1]))
        out = lib.nn.functional.huber_loss(x, t, reduction=reduction, delta=0.7)
        with pytest.raises(RuntimeError) as error:
            out.sum().backward()
        got.append((str(out.dtype).split(".")[1], out.detach().double().numpy(),
                    str(error.value).split("\nHint:")[0]))
    assert got[1][0] == got[0][0] and got[1][2] == got[0][2]
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-3)


def test_huber_loss_of_one_dtype_still_differentiates():
    x = teachgrad.tensor([1.0, 2.5, -1.0], dtype=teachgrad.float64, requires_grad=True)
    F.huber_loss(x, teachgrad.zeros(3, dtype=teachgrad.float64), delta=2.0).backward()
    assert x.grad.tolist() == pytest.approx([1 / 3, 2 / 3, -1 / 3])  # d, or δ·sign(d), / n
