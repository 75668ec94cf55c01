"""Lesson 19 (convolution's gradient is a convolution): its code is PyTorch's, its prose is true.

Two kinds of test:

* the lesson's code cells, run in order with the real PyTorch as ``torch`` (the drawing
  replaced by nothing, ``step_backward`` by ``backward()``), print exactly what the stored
  notebook shows teachgrad printed: every number in the lesson is PyTorch's number;
* each sentence of the prose that states a fact (quoted, so a rewrite shows up here) is
  checked against PyTorch, the stepper, finite differences, or a direct computation with
  NumPy in float64 (a convolution written as its sum, no library's conv).

The exercise's tempting wrong answers are in test_exercises.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from lesson_claims import (
    LIBS,
    RAISES,
    Lesson,
    count_printing_as_stored,
    library,
    numeric_gradient,
)

import teachgrad

LESSON = Lesson("19_convolutions_gradient_is_a_convolution")

X = [1.0, 2.0, -1.0, 0.5, 3.0]
W = [1.0, 0.0, -2.0]
G = [1.0, -1.0, 2.0]
W2 = [[1.0, 2.0, 3.0], [0.0, 1.0, -1.0], [2.0, -1.0, 1.0]]
G2 = [[1.0, 0.0, 2.0], [0.0, -1.0, 0.0], [3.0, 0.0, 1.0]]


#: the cells of sections 1 to 3, in order (they build x, w, y, g and the backward pass)
SECTION_1_TO_3 = ("def conv1d(x, w, **options):", "g = torch.tensor([1.0, -1.0, 2.0])")
SECTION_4 = ("def conv1d(x, w, **options):", "x2 = torch.arange(25.0)",
             "spread2 = torch.zeros(1, 1, 5, 5)", "grad_padded = F.conv2d(")


# --- NumPy in float64: convolutions written as their sums ---------------------------------
def correlate_valid(x, w) -> np.ndarray:
    """y_p = Σ_k w_k x_{p+k}, for every p where the kernel fits (what F.conv1d computes)."""
    x, w = np.asarray(x, float), np.asarray(w, float)
    return np.array([sum(w[k] * x[p + k] for k in range(len(w)))
                     for p in range(len(x) - len(w) + 1)])


def conv2d_numpy(x, w, stride: int, padding: int) -> np.ndarray:
    """F.conv2d of one 2-d image with one 2-d kernel, by its sum."""
    x = np.pad(np.asarray(x, float), padding)
    w = np.asarray(w, float)
    k = len(w)
    n = (len(x) - k) // stride + 1
    return np.array([[(x[stride * p:stride * p + k, stride * q:stride * q + k] * w).sum()
                      for q in range(n)] for p in range(n)])


# --- the lesson's code, run with PyTorch, prints what the notebook shows ------------------
def test_the_lesson_run_with_pytorch_prints_what_teachgrad_printed():
    torch = pytest.importorskip("torch")
    cells = LESSON.code_cells()
    stored = LESSON.stored_stdout()
    assert cells[0].code == ("import teachgrad as torch\nfrom teachgrad.notebook import "
                             "step_backward\n\nF = torch.nn.functional")
    assert not any(c.marker == RAISES for c in cells)
    ns = LESSON.namespace(torch)
    compared = count_printing_as_stored(cells, stored, ns)
    assert compared >= 16  # the cells that print something: not only empty outputs
    assert "Not answered yet" in stored[-2]
    assert stored[-1] == ("✔ Correct! That is the right input gradients for strides 1, 2 "
                          "and 3.\n")


# --- 1. sliding dot products --------------------------------------------------------------
@LIBS
def test_conv1d_is_a_row_of_unflipped_dot_products(lib_name):
    text = LESSON.text()
    assert "That gives $5 - 3 + 1 = 3$ outputs" in text
    assert "$$y_p = \\sum_{k=0}^{2} w_k\\, x_{p+k}, \\qquad p = 0, 1, 2.$$" in text
    assert ("The first output is $1 \\cdot 1 + 0 \\cdot 2 + (-2) \\cdot (-1) = 3$.") in text
    assert 1 * 1 + 0 * 2 + (-2) * (-1) == 3
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, "def conv1d(x, w, **options):")
    y = ns["y"].detach().numpy()
    assert y.shape == (5 - 3 + 1,)
    np.testing.assert_allclose(y, correlate_valid(X, W))
    assert y[0] == 3
    assert "(Its `grad_fn` is the `[0, 0]` at the end, a `SelectBackward0`.)" in text
    assert ns["y"].grad_fn.name() == "SelectBackward0"


def test_the_kernel_is_not_flipped_mathematicians_convolution_is():
    text = LESSON.text()
    assert ("the kernel is **not flipped**: mathematicians call this a *cross-correlation* "
            "and keep the word *convolution* for $\\sum_k w_k\\, x_{p-k}$") in text
    # NumPy's np.convolve is the mathematicians' one: the flipped kernel, slid
    np.testing.assert_allclose(np.convolve(X, W, "valid"), correlate_valid(X, W[::-1]))
    assert not np.allclose(np.convolve(X, W, "valid"), correlate_valid(X, W))
    np.testing.assert_allclose(np.correlate(X, W, "valid"), correlate_valid(X, W))


@LIBS
def test_conv1d_shapes_batch_channels_length_and_out_in_kernel(lib_name):
    assert ("shaped (batch, channels, length), and its kernels are shaped (out channels, in "
            "channels, kernel size)") in LESSON.text()
    lib = library(lib_name)
    x = lib.zeros(4, 3, 10)
    w = lib.zeros(2, 3, 5)
    assert tuple(lib.nn.functional.conv1d(x, w).shape) == (4, 2, 6)
    with pytest.raises(RuntimeError):
        lib.nn.functional.conv1d(x, lib.zeros(2, 4, 5))  # in channels must match


# --- 2. the kernel's gradient ---------------------------------------------------------------
@LIBS
def test_backward_with_g_is_the_gradient_of_any_loss_with_that_gradient(lib_name):
    assert ("Lesson 7 showed that `y.backward(g)` sends exactly this $g$ in, whatever the "
            "loss") in LESSON.text()
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_1_TO_3)
    x = lib.tensor(X, requires_grad=True)
    w = lib.tensor(W, requires_grad=True)
    y = ns["conv1d"](x, w)
    (y * lib.tensor(G)).sum().backward()   # a loss whose gradient at y is g
    np.testing.assert_array_equal(x.grad.numpy(), ns["x"].grad.numpy())
    np.testing.assert_array_equal(w.grad.numpy(), ns["w"].grad.numpy())


@LIBS
def test_the_kernel_gradient_is_the_input_convolved_with_g(lib_name):
    text = LESSON.text()
    assert ("$$\\frac{\\partial L}{\\partial w_k} = \\sum_p g_p\\, x_{p+k}.$$") in text
    assert "**the kernel's gradient is the input convolved with the output's gradient**" in text
    assert "For $w_0$: $1 \\cdot 1 + (-1) \\cdot 2 + 2 \\cdot (-1) = -3$." in text
    assert 1 * 1 + (-1) * 2 + 2 * (-1) == -3
    numeric = numeric_gradient(lambda w: correlate_valid(X, w) @ G, W)
    np.testing.assert_allclose(numeric, correlate_valid(X, G), atol=1e-8)
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_1_TO_3)
    np.testing.assert_allclose(ns["w"].grad.numpy(), numeric, atol=1e-6)
    assert ns["w"].grad[0].item() == -3
    ns = LESSON.run_cells(lib, *SECTION_1_TO_3)
    by_conv = ns["conv1d"](ns["x"].detach(), ns["g"])
    np.testing.assert_array_equal(by_conv.numpy(), ns["w"].grad.numpy())


# --- 3. the input's gradient ----------------------------------------------------------------
def test_the_input_gradient_formula_by_finite_differences():
    text = LESSON.text()
    assert ("$$\\frac{\\partial L}{\\partial x_i} = \\sum_p g_p\\, w_{i-p} \\qquad "
            "(\\text{over the } p \\text{ with } 0 \\le i - p \\le 2).$$") in text
    numeric = numeric_gradient(lambda x: correlate_valid(x, W) @ G, X)
    formula = [sum(G[p] * W[i - p] for p in range(3) if 0 <= i - p <= 2) for i in range(5)]
    np.testing.assert_allclose(numeric, formula, atol=1e-8)
    # "Input x_i sits in up to 3 patches"; "x_0 and x_4 sit in only one patch each"
    patches = [sum(p <= i <= p + 2 for p in range(3)) for i in range(5)]
    assert patches == [1, 2, 3, 2, 1]
    assert "Input $x_i$ sits in up to 3 patches" in text
    assert "At the ends, $x_0$ and $x_4$ sit in only one patch each" in text


@LIBS
def test_spreading_the_full_convolution_and_conv_transpose_are_the_input_gradient(lib_name):
    text = LESSON.text()
    assert ("**each output $y_p$ spreads $g_p \\cdot w$ back over its own patch**, and where "
            "patches overlap the contributions add up") in text
    assert ("so it is a sliding dot product of $g$ with the **flipped** kernel") in text
    assert ("pad $g$ with $3 - 1 = 2$ zeros on each side, and every $x_i$ gets a full "
            "window. This is called a **full** convolution: the 3 numbers of $g$, padded to 7, "
            "give $7 - 3 + 1 = 5$, one for each input") in text
    assert "Its forward pass *is* the input gradient of `conv1d`" in text
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_1_TO_3, "spread = torch.zeros(5)",
                   "padded = F.pad(g, (2, 2))")
    grad = ns["x"].grad.numpy()
    np.testing.assert_allclose(grad, numeric_gradient(lambda x: correlate_valid(x, W) @ G, X),
                               atol=1e-6)
    np.testing.assert_array_equal(ns["spread"].numpy(), grad)
    assert ns["padded"].shape[0] == 7
    np.testing.assert_allclose(correlate_valid(ns["padded"].numpy(), W[::-1]), grad)
    np.testing.assert_allclose(np.convolve(G, W, "full"), grad)  # NumPy's "full", the same
    F = lib.nn.functional
    transposed = F.conv_transpose1d(lib.tensor([[G]]), lib.tensor([[W]]))[0, 0]
    np.testing.assert_array_equal(transposed.numpy(), grad)


# --- 4. 2-d, stride and padding -------------------------------------------------------------
@LIBS
def test_five_by_five_padding_1_stride_2_gives_three_by_three(lib_name):
    assert ("A 5×5 input, a 3×3 kernel, padding 1 and stride 2 give a 3×3 output (the padded "
            "input is 7×7, and the kernel fits at rows and columns 0, 2 and 4 of it)"
            ) in LESSON.text()
    assert [start for start in range(7) if start % 2 == 0 and start + 3 <= 7] == [0, 2, 4]
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_4)
    y2 = ns["y2"].detach().numpy()[0, 0]
    x2 = np.arange(25.0).reshape(5, 5)
    np.testing.assert_allclose(y2, conv2d_numpy(x2, W2, stride=2, padding=1))
    assert y2.shape == (3, 3)


@LIBS
def test_the_2d_input_gradient_is_conv_transpose_and_zeros_between_then_crop(lib_name):
    text = LESSON.text()
    assert ("The transposed convolution, given the same stride and padding, is again the input "
            "gradient.") in text
    assert ("**Stride spreads the gradient out, with zeros between.** Output $(p, q)$ came "
            "from the patch at $(2p, 2q)$ of the padded input") in text
    assert ("pad with $3 - 1 = 2$ zeros on every side and slide the flipped kernel. That "
            "gives the gradient of the **padded** 7×7 input") in text
    assert ("**Padding is cropped off.** Its zeros are constants, not inputs: the gradient "
            "that reached them goes nowhere. Cutting off the frame of width 1 leaves the 5×5 "
            "input's gradient, the same as `x2.grad`") in text
    x2 = np.arange(25.0).reshape(5, 5)
    numeric = numeric_gradient(
        lambda x: (conv2d_numpy(x, W2, stride=2, padding=1) * G2).sum(), x2)
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_4)
    grad = ns["x2"].grad.numpy()[0, 0]
    np.testing.assert_allclose(grad, numeric, atol=1e-6)
    F = lib.nn.functional
    transposed = F.conv_transpose2d(lib.tensor([[G2]]), lib.tensor([[W2]]), stride=2, padding=1)
    np.testing.assert_array_equal(transposed.numpy()[0, 0], grad)
    # the zeros between: g at (2p, 2q), zeros at the skipped positions
    spread = ns["spread2"].numpy()[0, 0]
    np.testing.assert_array_equal(spread[::2, ::2], G2)
    assert spread.sum() == np.sum(G2) and np.count_nonzero(spread) == np.count_nonzero(G2)
    # the gradient of the padded input, by finite differences on the padded image itself
    padded = np.pad(x2, 1)
    numeric_padded = numeric_gradient(
        lambda xp: (conv2d_numpy(xp, W2, stride=2, padding=0) * G2).sum(), padded)
    grad_padded = ns["grad_padded"].numpy()[0, 0]
    assert grad_padded.shape == (7, 7)
    np.testing.assert_allclose(grad_padded, numeric_padded, atol=1e-6)
    np.testing.assert_array_equal(grad_padded[1:-1, 1:-1], grad)
    assert np.abs(grad_padded[0]).sum() > 0  # the frame did get gradient, which is dropped


@LIBS
def test_the_2d_kernel_gradient_is_a_dilated_convolution_with_g(lib_name):
    text = LESSON.text()
    assert ("$\\partial L / \\partial w_{ab} = \\sum_{p,q} g_{pq}\\, "
            "\\tilde x_{2p + a,\\, 2q + b}$: the padded input convolved with $g$ as the "
            "kernel, with $g$'s entries 2 apart. That spacing is what `dilation=2` does") in text
    x2 = np.arange(25.0).reshape(5, 5)
    numeric = numeric_gradient(
        lambda w: (conv2d_numpy(x2, w, stride=2, padding=1) * G2).sum(), W2)
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_4)
    np.testing.assert_allclose(ns["w2"].grad.numpy()[0, 0], numeric, atol=1e-5)
    F = lib.nn.functional
    dilated = F.conv2d(lib.tensor([[x2.tolist()]]), lib.tensor([[G2]]), padding=1, dilation=2)
    np.testing.assert_allclose(dilated.numpy()[0, 0], numeric, atol=1e-5)


@LIBS
def test_what_to_try_a_six_by_six_input_needs_output_padding(lib_name):
    text = LESSON.text()
    assert ("make the input 6×6 instead of 5×5. The output is still 3×3 (the kernel cannot "
            "take another step of 2), so `F.conv_transpose2d(g2, w2, stride=2, padding=1)` "
            "gives back a 5×5 gradient") in text
    assert "why are they not all zero? Its `output_padding=1` adds them." in text
    lib = library(lib_name)
    F = lib.nn.functional
    x = lib.arange(36.0).reshape(1, 1, 6, 6).requires_grad_()
    w2, g2 = lib.tensor([[W2]]), lib.tensor([[G2]])
    y = F.conv2d(x, w2, stride=2, padding=1)
    assert tuple(y.shape) == (1, 1, 3, 3)
    y.backward(g2)
    short = F.conv_transpose2d(g2, w2, stride=2, padding=1)
    assert tuple(short.shape) == (1, 1, 5, 5)
    np.testing.assert_array_equal(short.numpy(), x.grad.numpy()[..., :5, :5])
    # the missed row and column: read by the last patch, so not all zero
    grad = x.grad.numpy()[0, 0]
    assert np.abs(grad[5]).sum() > 0 and np.abs(grad[:, 5]).sum() > 0
    full = F.conv_transpose2d(g2, w2, stride=2, padding=1, output_padding=1)
    np.testing.assert_array_equal(full.numpy(), x.grad.numpy())


# --- 5. the matrix ---------------------------------------------------------------------------
@LIBS
def test_the_toeplitz_matrix_is_the_jacobian_and_backward_is_its_transpose(lib_name):
    text = LESSON.text()
    assert "A convolution is linear in its input, so it is a matrix." in text
    assert ("row $p$ of the matrix $C$ holds $w$ shifted right by $p$ places (a *Toeplitz* "
            "matrix, constant along its diagonals)") in text
    assert "$C$ is the Jacobian $\\partial y / \\partial x$" in text
    assert ("it multiplies the incoming gradient by its **transpose**, $\\partial L / "
            "\\partial x = C^\\top g$") in text
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_1_TO_3, "C = torch.zeros(3, 5)")
    C = ns["C"].numpy()
    for offset in range(-2, 5):  # every diagonal holds one number (Toeplitz)
        assert len(set(np.diagonal(C, offset))) == 1
    np.testing.assert_array_equal(C[1], np.roll(C[0], 1))
    # linear: C x for any x is the convolution, and it is the Jacobian
    rng = np.random.default_rng(0)
    for v in rng.normal(size=(3, 5)):
        np.testing.assert_allclose(C @ v, correlate_valid(v, W), atol=1e-12)
    jacobian = np.stack([numeric_gradient(lambda x, p=p: correlate_valid(x, W)[p], X)
                         for p in range(3)])
    np.testing.assert_allclose(jacobian, C, atol=1e-8)
    np.testing.assert_allclose(C.T @ G, ns["x"].grad.numpy())


@LIBS
def test_conv_transpose_is_multiplication_by_c_transpose(lib_name):
    text = LESSON.text()
    assert "the transposed convolution is the map whose matrix is $C^\\top$" in text
    assert ("Where the convolution takes 5 numbers to 3, it takes 3 back to 5, and read "
            "column by column, $C^\\top$ puts $g_p \\cdot w$ at rows $p$ to $p + 2$") in text
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_1_TO_3, "C = torch.zeros(3, 5)")
    C = ns["C"].numpy()
    rng = np.random.default_rng(1)
    for v in rng.normal(size=(4, 3)):
        out = lib.nn.functional.conv_transpose1d(lib.tensor([[v.tolist()]], dtype=lib.float64),
                                                 lib.tensor([[W]], dtype=lib.float64))
        np.testing.assert_allclose(out.numpy()[0, 0], C.T @ v, atol=1e-12)
    for p in range(3):
        column = C.T[:, p]
        np.testing.assert_array_equal(column[p:p + 3], W)
        assert not np.delete(column, range(p, p + 3)).any()


@LIBS
def test_im2col_patches_times_w_and_the_kernel_gradient_as_p_transpose_g(lib_name):
    text = LESSON.text()
    assert ("Stack the patches as the rows of a matrix $P$, and $y$ is $P$ times $w$. (In 2-d "
            "this is called *im2col*, \"image to columns\": libraries stack the patches as "
            "columns, which is $P^\\top$.) Then the kernel's gradient is $P^\\top g$") in text
    assert "`F.unfold` builds $P$ (transposed) for images" in text
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_1_TO_3, "P = x.detach().unfold(0, 3, 1)")
    P = ns["P"].numpy()
    np.testing.assert_array_equal(P, [X[p:p + 3] for p in range(3)])
    np.testing.assert_allclose(P @ W, correlate_valid(X, W))
    np.testing.assert_allclose(P.T @ G, ns["w"].grad.numpy())
    # F.unfold: one column per output position, holding that position's (padded) patch
    x2 = np.arange(25.0).reshape(5, 5)
    columns = lib.nn.functional.unfold(lib.tensor([[x2.tolist()]]), 3, padding=1, stride=2)
    columns = columns.numpy()[0]
    padded = np.pad(x2, 1)
    patches = [padded[2 * p:2 * p + 3, 2 * q:2 * q + 3].ravel()
               for p in range(3) for q in range(3)]
    np.testing.assert_array_equal(columns.T, patches)
    np.testing.assert_allclose((np.ravel(W2) @ columns).reshape(3, 3),
                               conv2d_numpy(x2, W2, stride=2, padding=1))


# --- 6. the stepper ----------------------------------------------------------------------------
def stepper_of_the_lesson():
    pytest.importorskip("graphviz")
    from teachgrad.notebook import step_backward

    ns = LESSON.run_cells(teachgrad, *SECTION_1_TO_3)
    F = teachgrad.nn.functional
    x = teachgrad.tensor([[X]], requires_grad=True)
    w = teachgrad.tensor([[W]], requires_grad=True)
    y = F.conv1d(x, w)
    L = (y * ns["g"]).sum()
    return step_backward(L, names={"x": x, "w": w, "y": y, "L": L})


def test_the_stepper_cell_is_the_one_tested_here():
    code = LESSON.code_containing("step_backward(L,")
    assert "x = torch.tensor([[[1.0, 2.0, -1.0, 0.5, 3.0]]], requires_grad=True)" in code
    assert "w = torch.tensor([[[1.0, 0.0, -2.0]]], requires_grad=True)" in code
    assert "y = F.conv1d(x, w)\nL = (y * g).sum()" in code
    assert 'step_backward(L, names={"x": x, "w": w, "y": y, "L": L})' in code


def test_the_stepper_reads_the_chain_rule_at_convolution_backward():
    text = LESSON.text()
    for claim in (
        "**Steps 1 and 2** (`SumBackward0`, `MulBackward0`): the gradient $1$ becomes ones, "
        "then $g$, `[[[1., -1., 2.]]]`.",
        "**Step 3**, `ConvolutionBackward0`: its panel gives the local derivative in words: "
        "\"each output spreads grad·w back over its patch\" for $x$ (section 3), and "
        "$\\sum_p \\text{grad}[o, p] \\cdot \\text{patch}_p(x)$ for $w$ (section 2).",
        "It sends `[[[1., -1., 0., 2., -4.]]]` to $x$ and "
        "`[[[-3.0000, 4.0000, 4.5000]]]` to $w$, the numbers of sections 2 and 3.",
        "The bias `b` gets *no gradient needed*: `F.conv1d` was called without one.",
        "**Steps 4 and 5**: `AccumulateGrad` stores them in `x.grad` and `w.grad`.",
        "The node saved **both** $x$ and $w$ in forward: each one's gradient is built from "
        "the other, as a product keeps both its factors (lesson 15).",
    ):
        assert claim in text, claim
    stepper = stepper_of_the_lesson()
    titles = [panel.title for panel in stepper.panels]
    assert titles[1:] == ["Step 1 of 5: SumBackward0 (L)", "Step 2 of 5: MulBackward0",
                          "Step 3 of 5: ConvolutionBackward0 (y)",
                          "Step 4 of 5: AccumulateGrad (x)", "Step 5 of 5: AccumulateGrad (w)"]
    assert "= [[[1., 1., 1.]]]" in stepper.panels[1].text
    assert "= [[[ 1., -1.,  2.]]]" in stepper.panels[2].text
    step3 = stepper.panels[3].text
    assert "each output spreads grad·w back over its patch" in step3
    assert "∂L/∂w = Σ_p grad[o, p]·patch_p(x)" in step3
    assert "= [[[ 1., -1.,  0.,  2., -4.]]]" in step3
    assert "= [[[-3.0000,  4.0000,  4.5000]]]" in step3
    assert "b → None: no gradient needed" in step3
    saved = next(line for line in step3.splitlines() if "saved in forward" in line)
    assert "[[[ 1.0000,  2.0000, -1.0000,  0.5000,  3.0000]]]" in saved
    assert "[[[ 1.,  0., -2.]]]" in saved
    assert "x.grad: None → [[[ 1., -1.,  0.,  2., -4.]]]" in stepper.panels[4].text
    assert "w.grad: None → [[[-3.0000,  4.0000,  4.5000]]]" in stepper.panels[5].text


def test_pytorch_saves_the_input_and_the_weight():
    # (teachgrad's ConvolutionBackward0 has no _saved_input/_saved_weight yet: the lesson
    # shows the saved tensors through the stepper's panel, checked above)
    torch = pytest.importorskip("torch")
    x = torch.tensor([[X]], requires_grad=True)
    w = torch.tensor([[W]], requires_grad=True)
    y = torch.nn.functional.conv1d(x, w)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert torch.equal(y.grad_fn._saved_input, x)
    assert torch.equal(y.grad_fn._saved_weight, w)


# --- the exercise ---------------------------------------------------------------------------
def solution_input_grad(lib):
    cell = LESSON.cell_with_role("solution")
    ns = LESSON.namespace(lib)
    exec(cell.code.split("\ncheck(", 1)[0], ns)
    return ns["conv1d_input_grad"]


def check_cases(lib) -> list:
    cell = LESSON.cell_with_role("check")
    ns = LESSON.namespace(lib)
    exec(cell.code.split("\nhint = ", 1)[0], ns)
    return ns["cases"]


def test_the_check_covers_strides_1_2_3_kernels_of_3_and_2_and_uncovered_ends():
    assert ("for strides 1, 2 and 3, with kernels of 3 and 2 numbers, and signals that the "
            "kernel does not exactly cover") in LESSON.text()
    cases = check_cases(teachgrad)
    assert [stride for *_, stride in cases] == [1, 2, 3]
    assert sorted({len(w) for _, w, _, _ in cases}) == [2, 3]
    for g, w, length, stride in cases:
        assert len(g) == (length - len(w)) // stride + 1  # g has y's shape
    assert any((length - len(w)) % stride for _, w, length, stride in cases)


@pytest.mark.parametrize("stride", [1, 2, 3])
@pytest.mark.parametrize("length", [7, 8, 9])
def test_the_solution_is_the_gradient_by_finite_differences_and_by_pytorch(stride, length):
    rng = np.random.default_rng(stride * 10 + length)
    w = rng.normal(size=3)
    n_out = (length - 3) // stride + 1
    g = rng.normal(size=n_out)

    def loss(x):
        return sum(g[p] * (w @ x[p * stride:p * stride + 3]) for p in range(n_out))

    numeric = numeric_gradient(loss, np.zeros(length))
    ours = solution_input_grad(teachgrad)(teachgrad.tensor(g), teachgrad.tensor(w), length,
                                          stride)
    np.testing.assert_allclose(ours.numpy(), numeric, atol=1e-6)  # (float32 zeros)
    torch = pytest.importorskip("torch")
    x = torch.zeros(length, dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.conv1d(x[None, None], torch.tensor(w)[None, None], stride=stride)
    y[0, 0].backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), numeric, atol=1e-8)
