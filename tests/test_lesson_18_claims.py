"""Lesson 18 (softmax, cross-entropy and layer norm): its code is PyTorch's, its prose is true.

Two kinds of test:

* the lesson's code cells, run in order with the real PyTorch as ``torch`` (the drawing
  replaced by nothing, ``step_backward`` by ``backward()``), print exactly what the stored
  notebook shows teachgrad printed: every number in the lesson is PyTorch's number;
* each sentence of the prose that states a fact (quoted, so a rewrite shows up here) is
  checked against PyTorch, the stepper, finite differences, or a derivation with NumPy in
  float64.

The exercise's tempting wrong answers are in test_exercises.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from lesson_claims import RAISES, Lesson, count_printing_as_stored

import teachgrad

LESSON = Lesson("18_softmax_cross_entropy_and_layer_norm")

LOGITS = [2.0, 1.0, 0.1]
BATCH = [[2.0, 1.0, 0.1], [0.5, 2.5, 0.0], [1.0, 1.0, 1.0], [-1.0, 0.0, 3.0]]
BATCH_TARGETS = [0, 1, 2, 0]
BIG = [1000.0, 999.0, 0.0]
LN_X = [1.0, 2.0, 4.0, 7.0]
LN_G = [0.5, -1.0, 2.0, 0.0]
EPS = 1e-5


def softmax(z) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def node_names(root) -> list[str]:
    """The graph under ``root``, from the output down (one path: these graphs are chains)."""
    names, node = [], root
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


# --- the lesson's code, run with PyTorch, prints what the notebook shows ------------------


def test_the_lesson_run_with_pytorch_prints_what_teachgrad_printed():
    torch = pytest.importorskip("torch")
    cells = LESSON.code_cells()
    stored = LESSON.stored_stdout()
    assert cells[0].code == ("import teachgrad as torch\nfrom teachgrad.notebook import draw, "
                             "step_backward\n\nF = torch.nn.functional")
    assert not any(c.marker == RAISES for c in cells)
    ns = LESSON.namespace(torch)
    compared = count_printing_as_stored(cells, stored, ns)
    assert compared >= 16  # the cells that print something: not only empty outputs
    assert "Not answered yet" in stored[-2]
    assert stored[-1] == "✔ Correct! That is the right gradients for label_smoothing 0.1 and 0.3.\n"


# --- 1. p − onehot ------------------------------------------------------------------------
def test_the_gradient_of_cross_entropy_is_p_minus_onehot_by_finite_differences():
    assert ("\\frac{\\partial L}{\\partial z} = p - \\text{onehot}(y)" in LESSON.text())
    z = np.array(LOGITS)

    def loss(z):
        return -np.log(softmax(z)[0])

    steps = np.eye(3) * 1e-6
    numeric = [(loss(z + s) - loss(z - s)) / 2e-6 for s in steps]
    np.testing.assert_allclose(numeric, softmax(z) - [1, 0, 0], atol=1e-8)


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_single_sample_gradient_and_the_missing_probability(lib_name):
    assert "the right logit goes **up**, by $1 - p_0 = 0.3410$" in LESSON.text()
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    ns = LESSON.run_cells(lib, "L = F.cross_entropy(z, y)")
    expected = softmax(LOGITS) - [1, 0, 0]
    np.testing.assert_allclose(ns["z"].grad.numpy(), expected, rtol=1e-5)
    assert f"{1 - softmax(LOGITS)[0]:.4f}" == "0.3410"


def test_confident_answers_give_gradients_near_0_or_near_plus_minus_1():
    text = LESSON.text()
    assert ("A confident right answer ($p_y \\approx 1$) gives a gradient near $0$; a "
            "confident wrong one, a gradient near $\\pm 1$.") in text
    torch = pytest.importorskip("torch")
    z = torch.tensor([10.0, 0.0, 0.0], requires_grad=True)
    torch.nn.functional.cross_entropy(z, torch.tensor(0)).backward()
    assert z.grad.abs().max() < 1e-3
    z.grad = None
    torch.nn.functional.cross_entropy(z, torch.tensor(1)).backward()
    np.testing.assert_allclose(z.grad.numpy(), [1, -1, 0], atol=1e-3)


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_the_batch_mean_divides_every_row_by_four(lib_name):
    text = LESSON.text()
    assert "$[\\frac13, \\frac13, -\\frac23] / 4$" in text
    assert "The third sample has three equal logits" in text
    assert ("The last one is the worst guess (its right class, 0, has the smallest logit, "
            "$p_0 = 0.017$) and gets the largest push, $-0.2457$: almost the whole $-1$, "
            "divided by 4.") in text
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    ns = LESSON.run_cells(lib, "Y = torch.tensor([0, 1, 2, 0])")
    p = softmax(BATCH)
    expected = (p - np.eye(3)[BATCH_TARGETS]) / 4
    np.testing.assert_allclose(ns["Z"].grad.numpy(), expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(expected[2], np.array([1, 1, -2]) / 3 / 4)
    assert f"{p[3, 0]:.3f}" == "0.017" and np.argmin(BATCH[3]) == 0
    assert f"{expected[3, 0]:.4f}" == "-0.2457"
    assert np.abs(expected).argmax() == 9  # the last row, class 0: the largest entry of all
    # and the mean's gradient is the sum's divided by the batch size
    Z = lib.tensor(BATCH, requires_grad=True)
    lib.nn.functional.cross_entropy(Z, lib.tensor(BATCH_TARGETS), reduction="sum").backward()
    np.testing.assert_allclose(Z.grad.numpy(), expected * 4, rtol=1e-5, atol=1e-7)


# --- 2. the graph and the stepper ---------------------------------------------------------
@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_cross_entropy_is_log_softmax_then_nll_loss(lib_name):
    text = LESSON.text()
    assert "`F.cross_entropy` is two operations: `log_softmax`, then `nll_loss`" in text
    assert "(what `NllLossBackward0` does for one sample)" in text
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    F = lib.nn.functional
    z = lib.tensor(LOGITS, requires_grad=True)
    y = lib.tensor(0)
    names = node_names(F.cross_entropy(z, y).grad_fn)
    assert [n.split("::")[-1] for n in names] == [
        "NllLossBackward0", "LogSoftmaxBackward0", "AccumulateGrad"]
    # nll_loss of one sample is -logp[y], value and gradient
    logp = lib.log_softmax(z, dim=0)
    a = F.nll_loss(logp, y)
    b = -logp[0]
    assert a.item() == pytest.approx(b.item())
    (ga,) = lib.autograd.grad(a, logp, retain_graph=True)
    (gb,) = lib.autograd.grad(b, logp)
    np.testing.assert_array_equal(ga.numpy(), gb.numpy())
    np.testing.assert_array_equal(gb.numpy(), [-1.0, 0.0, 0.0])


def test_the_stepper_sends_minus_onehot_then_p_minus_onehot():
    pytest.importorskip("graphviz")
    from teachgrad.notebook import step_backward

    text = LESSON.text()
    for claim in (
        "**Steps 1 and 2** (`NegBackward0`, `SelectBackward0`): the gradient $1$ becomes $-1$, "
        "and goes back to the selected position only: $[-1, 0, 0]$",
        "**Step 3**, `LogSoftmaxBackward0`: its local derivative is "
        "$\\frac{\\partial \\log p_i}{\\partial z_j} = \\delta_{ij} - p_j$ (the panel "
        "writes $s$ for the softmax $p$, and $a$ for its input $z$). It is applied as "
        "`grad − exp(log s)·Σ grad`, which is $\\sum_i \\text{grad}_i (\\delta_{ij} - p_j)$",
        "Here $\\sum \\text{grad} = -1$, so it sends $-\\text{onehot} + p$: the formula of "
        "section 1, `[-0.3410, 0.2424, 0.0986]`",
        "**Step 4**: `AccumulateGrad` stores it in `z.grad`.",
        "The saved tensor is the **output** $\\log p$ (`_saved_result`)",
    ):
        assert claim in text, claim
    z = teachgrad.tensor(LOGITS, requires_grad=True)
    logp = teachgrad.log_softmax(z, dim=0)
    L = -logp[0]
    stepper = step_backward(L, names={"z": z, "logp": logp, "L": L})
    titles = [panel.title for panel in stepper.panels]
    assert titles[1:] == ["Step 1 of 4: NegBackward0 (L)", "Step 2 of 4: SelectBackward0",
                          "Step 3 of 4: LogSoftmaxBackward0 (logp)",
                          "Step 4 of 4: AccumulateGrad (z)"]
    assert "= -1." in stepper.panels[1].text
    assert "= [-1.,  0.,  0.]" in stepper.panels[2].text
    step3 = stepper.panels[3].text
    assert "∂(log sᵢ)/∂aⱼ = δᵢⱼ − sⱼ" in step3 and "grad_in = grad − exp(log s)·Σ grad" in step3
    # grad − p·Σgrad is the row vector times the Jacobian δᵢⱼ − pⱼ (NumPy, float64)
    p, grad = softmax(LOGITS), np.array([-1.0, 0.0, 0.0])
    np.testing.assert_allclose(grad - p * grad.sum(), grad @ (np.eye(3) - p[None, :]))
    assert "= [-0.3410,  0.2424,  0.0986]" in step3
    assert "_saved_result = [-0.4170, -1.4170, -2.3170]" in step3
    assert "z.grad: None → [-0.3410,  0.2424,  0.0986]" in stepper.panels[4].text
    np.testing.assert_allclose(np.log(softmax(LOGITS)), [-0.4170, -1.4170, -2.3170], atol=1e-4)


def test_pytorch_saves_log_softmax_s_output():
    torch = pytest.importorskip("torch")
    z = torch.tensor(LOGITS, requires_grad=True)
    logp = torch.log_softmax(z, dim=0)
    assert torch.equal(logp.grad_fn._saved_result, logp)


# --- 3. the softmax Jacobian --------------------------------------------------------------
def test_the_softmax_jacobian_by_finite_differences():
    text = LESSON.text()
    assert "That is $\\operatorname{diag}(p) - p\\,p^\\top$." in text
    assert ("It is symmetric, positive on the diagonal (raising $z_i$ raises $p_i$) and "
            "negative off it (raising $z_j$ lowers every other $p_i$).") in text
    z = np.array(LOGITS)
    h = 1e-6
    numeric = np.stack([(softmax(z + s) - softmax(z - s)) / (2 * h)
                        for s in np.eye(3) * h], axis=1)   # column j: ∂p/∂z_j
    p = softmax(z)
    formula = np.diag(p) - np.outer(p, p)
    np.testing.assert_allclose(numeric, formula, atol=1e-8)
    assert np.allclose(formula, formula.T)
    assert (np.diag(formula) > 0).all()
    assert (formula[~np.eye(3, dtype=bool)] < 0).all()
    # every row (and column) sums to 0
    np.testing.assert_allclose(formula.sum(axis=1), 0, atol=1e-15)
    np.testing.assert_allclose(formula.sum(axis=0), 0, atol=1e-15)


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_jacobian_builds_the_matrix_with_one_backward_per_row(lib_name):
    assert "builds the whole matrix, one backward pass per row" in LESSON.text()
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    calls = []

    class Counted(lib.autograd.Function):
        """The identity, counting its backward calls."""

        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            calls.append(1)
            return grad

    J = lib.autograd.functional.jacobian(
        lambda t: Counted.apply(lib.softmax(t, dim=0)), lib.tensor(LOGITS))
    assert len(calls) == 3
    p = softmax(LOGITS)
    np.testing.assert_allclose(J.numpy(), np.diag(p) - np.outer(p, p), atol=1e-6)


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_shifting_every_logit_changes_nothing_and_gradients_sum_to_0(lib_name):
    text = LESSON.text()
    assert ("So the gradient that any loss sends back through a softmax sums to 0 over the "
            "classes") in text
    assert ("summed over $j$, $\\sum_i g_i \\frac{\\partial p_i}{\\partial z_j}$ multiplies "
            "each $g_i$ by row $i$'s sum. Every row of section 1's batch gradient sums to 0."
            ) in text
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    z = lib.tensor(LOGITS)
    np.testing.assert_allclose(lib.softmax(z + 100, dim=0).numpy(),
                               lib.softmax(z, dim=0).numpy(), atol=1e-6)  # (float32 rounding)
    ns = LESSON.run_cells(lib, "Y = torch.tensor([0, 1, 2, 0])")
    np.testing.assert_allclose(ns["Z"].grad.numpy().sum(axis=1), 0, atol=1e-7)
    # any loss: some made-up function of the probabilities
    z = lib.tensor(LOGITS, requires_grad=True)
    p = lib.softmax(z, dim=0)
    (p * lib.tensor([3.0, -1.0, 0.5])).sum().pow(2).backward()
    assert abs(z.grad.sum().item()) < 1e-6 and z.grad.abs().max().item() > 0.1


# --- 4. logsumexp ---------------------------------------------------------------------------
def test_float32_overflows_just_below_e_to_the_89():
    text = LESSON.text()
    assert ("the largest `float32` is about $3.4 \\cdot 10^{38}$, and $e^{89}$ is already "
            "larger") in text
    biggest = float(np.finfo(np.float32).max)
    assert f"{biggest:.1e}" == "3.4e+38"
    assert np.exp(89.0) > biggest > np.exp(88.0)
    assert "overflows as soon as one logit is above $88.7$" in text
    assert f"{np.log(biggest):.1f}" == "88.7"
    with np.errstate(over="ignore"):
        assert np.isinf(np.exp(np.float32(88.73))) and np.isfinite(np.exp(np.float32(88.72)))
    torch = pytest.importorskip("torch")
    for lib in (teachgrad, torch):
        lse = lib.log(lib.exp(lib.tensor([88.73, 0.0])).sum())
        assert lse.item() == float("inf")
    assert "(the right one is about $1000.31$)" in text
    exact = 1000 + np.log(1 + np.exp(-1.0) + np.exp(-1000.0))
    assert f"{exact:.2f}" == "1000.31"


def test_the_naive_nan_comes_from_zero_times_infinity():
    text = LESSON.text()
    assert ("Backward through `log` sends $1/\\infty = 0$; `exp`'s backward multiplies it "
            "by its saved output, $e^{1000} = \\infty$; and $0 \\cdot \\infty$ is NaN.") in text
    assert "Only $z_2 = 0$, whose $e^0 = 1$ is finite, gets its (correct) $0$." in text
    torch = pytest.importorskip("torch")
    z = torch.tensor(BIG, requires_grad=True)
    e = torch.exp(z)
    s = e.sum()
    seen = {}
    s.register_hook(lambda g: seen.setdefault("sum", g.clone()))
    assert e.grad_fn.name() == "ExpBackward0"
    saved = e.grad_fn._saved_result   # (read before backward frees it)
    torch.log(s).backward()
    assert seen["sum"].item() == 0.0
    assert torch.isinf(saved[:2]).all() and saved[2].item() == 1.0
    assert torch.isnan(z.grad[:2]).all() and z.grad[2].item() == 0.0
    assert softmax(BIG)[2] < 1e-300  # the correct gradient for z_2 is (almost exactly) 0


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_the_stable_gradient_is_the_softmax_and_the_max_gets_none(lib_name):
    text = LESSON.text()
    assert "The gradient is the softmax, $[0.7311, 0.2689, 0.0000]$" in text
    assert ("It takes both paths, $+1$ from \"$m + $\" and $-\\sum_j p_j = -1$ from inside "
            "the log: they cancel.") in text
    assert "it does not matter whether it is detached" in text
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    assert [f"{v:.4f}" for v in softmax(BIG)] == ["0.7311", "0.2689", "0.0000"]
    ns = LESSON.run_cells(lib, "def naive_logsumexp(z):", "def stable_logsumexp(z):")
    z = lib.tensor(BIG, requires_grad=True)
    ns["stable_logsumexp"](z).backward()
    np.testing.assert_allclose(z.grad.numpy(), softmax(BIG), atol=1e-6)
    # m as a leaf of its own: the two paths through it cancel
    m = lib.tensor(1000.0, requires_grad=True)
    (m + lib.log(lib.exp(lib.tensor(BIG) - m).sum())).backward()
    assert abs(m.grad.item()) < 1e-6
    # detached: the same gradient
    z2 = lib.tensor(BIG, requires_grad=True)
    m = z2.max().detach()
    (m + lib.log(lib.exp(z2 - m).sum())).backward()
    np.testing.assert_allclose(z2.grad.numpy(), z.grad.numpy(), atol=1e-7)


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_log_softmax_and_cross_entropy_stay_finite_on_big_logits(lib_name):
    assert ("`torch.log_softmax` and `F.cross_entropy` compute "
            "$z - \\operatorname{logsumexp}(z)$ this way") in LESSON.text()
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    z = lib.tensor(BIG, requires_grad=True)
    exact = np.array(BIG) - (1000 + np.log1p(np.exp(-1.0)))
    np.testing.assert_allclose(lib.log_softmax(z, dim=0).detach().numpy(), exact, rtol=1e-6)
    lib.nn.functional.cross_entropy(z, lib.tensor(1)).backward()
    np.testing.assert_allclose(z.grad.numpy(), softmax(BIG) - [0, 1, 0], atol=1e-6)


# --- 5. layer norm --------------------------------------------------------------------------
def layer_norm(x: np.ndarray) -> np.ndarray:
    """LayerNorm without its affine part, in float64, from its definition."""
    mu = x.mean()
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean() + EPS)


def test_layer_norms_jacobian_by_finite_differences():
    text = LESSON.text()
    assert ("\\frac{\\partial \\hat x_i}{\\partial x_j} = \\frac{1}{\\sigma}\\big([i = j] - "
            "\\frac1n - \\frac1n \\hat x_i \\hat x_j\\big)") in text
    x = np.array(LN_X)
    n = len(x)
    h = 1e-6
    numeric = np.stack([(layer_norm(x + s) - layer_norm(x - s)) / (2 * h)
                        for s in np.eye(n) * h], axis=1)
    sigma = np.sqrt(x.var() + EPS)
    x_hat = layer_norm(x)
    formula = (np.eye(n) - 1 / n - np.outer(x_hat, x_hat) / n) / sigma
    np.testing.assert_allclose(numeric, formula, atol=1e-8)


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_nn_layer_norm_is_that_formula_with_eps_1e_5_and_the_biased_variance(lib_name):
    text = LESSON.text()
    assert "(with the *biased* variance, and $\\varepsilon = 10^{-5}$)" in text
    assert "`weight` and adds a `bias` (at first $1$ and $0$)" in text
    assert "`weight.grad` is $g \\odot \\hat x$, and `bias.grad` is $g$ itself" in text
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    ns = LESSON.run_cells(lib, "ln = torch.nn.LayerNorm(4)")
    assert ns["ln"].eps == EPS
    x = np.array(LN_X)
    np.testing.assert_allclose(ns["out"].detach().numpy(), layer_norm(x), rtol=1e-5)
    g = np.array(LN_G)
    x_hat = layer_norm(x)
    sigma = np.sqrt(x.var() + EPS)
    expected = (g - g.mean() - x_hat * (g * x_hat).mean()) / sigma
    np.testing.assert_allclose(ns["x"].grad.numpy(), expected, rtol=1e-5, atol=1e-7)
    # the layer's own parameters: weight.grad = g ⊙ x̂, bias.grad = g
    np.testing.assert_allclose(ns["ln"].weight.grad.numpy(), g * x_hat, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(ns["ln"].bias.grad.numpy(), g)


def test_the_gradient_is_orthogonal_to_one_and_to_x_hat_up_to_eps():
    text = LESSON.text()
    assert "since $\\sum_i \\hat x_i^2 = n$ (up to $\\varepsilon$)" in text
    assert "the gradient at $x$ is **orthogonal to $\\mathbf 1$ and to $\\hat x$**" in text
    assert "(along $\\hat x$ only up to a term of size $\\varepsilon$" in text
    x, g = np.array(LN_X), np.array(LN_G)
    n, v = len(x), x.var()
    x_hat = layer_norm(x)
    sigma = np.sqrt(v + EPS)
    assert (x_hat ** 2).sum() == pytest.approx(n * v / (v + EPS), rel=1e-12)
    assert abs((x_hat ** 2).sum() - n) < n * EPS
    grad = (g - g.mean() - x_hat * (g * x_hat).mean()) / sigma
    assert abs(grad.sum()) < 1e-14
    # along x̂: exactly (g·x̂) ε / (σ (v + ε)), which is 0 for ε = 0
    along = grad @ x_hat
    assert along == pytest.approx((g @ x_hat) * EPS / (sigma * (v + EPS)), rel=1e-6)
    assert 0 < abs(along) < 1e-6
    # "the component along x̂ is g's projection on it": (x̂ · mean(g ⊙ x̂)) = x̂ x̂ᵀg / n
    projection = x_hat * (g @ x_hat) / (x_hat @ x_hat)
    np.testing.assert_allclose(x_hat * (g * x_hat).mean(), projection, rtol=1e-5)


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_layer_norm_cannot_see_a_shift_or_a_stretch_about_the_mean(lib_name):
    assert ("Adding the same number to every feature (a step along $\\mathbf 1$) moves $\\mu$ "
            "along, and stretching the features away from their mean (a step along "
            "$x - \\mu$, that is along $\\hat x$) stretches $\\sigma$ along") in LESSON.text()
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    ns = LESSON.run_cells(lib, "ln = torch.nn.LayerNorm(4)")
    ln, x, mu = ns["ln"], ns["x"].detach(), ns["mu"]
    with lib.no_grad():
        base = ln(x).numpy()
        np.testing.assert_allclose(ln(x + 10.0).numpy(), base, atol=1e-5)
        np.testing.assert_allclose(ln(mu + 3.0 * (x - mu)).numpy(), base, atol=1e-5)


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_what_to_try_a_gradient_along_x_hat_or_one_gives_nothing(lib_name):
    assert ("make `g` a multiple of `x_hat` (say `g = 2 * x_hat`), or a constant. What is "
            "`x.grad`?") in LESSON.text()
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    ns = LESSON.run_cells(lib, "ln = torch.nn.LayerNorm(4)")
    x_hat = ns["x_hat"]
    for g in (2 * x_hat, lib.full((4,), 3.0)):
        x = lib.tensor(LN_X, requires_grad=True)
        lib.nn.LayerNorm(4)(x).backward(g)
        assert x.grad.abs().max().item() < 1e-5


# --- 6. batch norm --------------------------------------------------------------------------
@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_batch_norm_couples_the_batch_layer_norm_and_eval_mode_do_not(lib_name):
    text = LESSON.text()
    assert "Samples 1, 2 and 3 get gradients" in text
    assert "only sample 0 gets a gradient" in text
    assert "and the coupling is gone" in text
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    ns = LESSON.run_cells(lib, "bn = torch.nn.BatchNorm1d(3)")
    train = ns["X"].grad.numpy()
    assert (np.abs(train[1:]).sum(axis=1) > 0.1).all()
    # by finite differences in float64: sample 0's loss moves with sample 1's input
    X, w = np.array(BATCH), np.array([1.0, -2.0, 0.5])

    def loss(X):
        mu, var = X.mean(axis=0), X.var(axis=0)
        return (X[0] - mu) / np.sqrt(var + EPS) @ w

    h = 1e-6
    step = np.zeros_like(X)
    step[1, 1] = h
    assert (loss(X + step) - loss(X - step)) / (2 * h) == pytest.approx(train[1, 1], rel=1e-4)
    ns = LESSON.run_cells(lib, "bn = torch.nn.BatchNorm1d(3)", "ln3 = torch.nn.LayerNorm(3)")
    assert not ns["X"].grad.numpy()[1:].any() and ns["X"].grad.numpy()[0].any()
    ns = LESSON.run_cells(lib, "bn = torch.nn.BatchNorm1d(3)", "bn.eval()")
    assert not ns["X"].grad.numpy()[1:].any() and ns["X"].grad.numpy()[0].any()


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_a_batch_of_one_works_with_layer_norm_not_with_batch_norm(lib_name):
    assert "a batch of one works as well as a batch of 64" in LESSON.text()
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    one = lib.tensor([BATCH[0]])
    np.testing.assert_allclose(lib.nn.LayerNorm(3)(one).detach().numpy(),
                               layer_norm(np.array(BATCH[0]))[None], rtol=1e-5)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        lib.nn.BatchNorm1d(3)(one)


# --- the exercise ---------------------------------------------------------------------------
def solution_smoothed_grad(lib):
    cell = LESSON.cell_with_role("solution")
    ns = LESSON.namespace(lib)
    exec(cell.code.split("\ncheck(", 1)[0], ns)
    return ns["smoothed_grad"]


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.3])
def test_the_solution_is_the_gradient_by_finite_differences_and_by_pytorch(eps):
    assert "remember that $\\sum_k q_k = 1$" in LESSON.text()
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(5, 4))
    targets = np.array([0, 3, 1, 1, 2])

    def loss(z):
        q = (1 - eps) * np.eye(4)[targets] + eps / 4
        return -(q * np.log(softmax(z))).sum(axis=1).mean()

    h = 1e-6
    numeric = np.zeros_like(logits)
    for index in np.ndindex(*logits.shape):
        step = np.zeros_like(logits)
        step[index] = h
        numeric[index] = (loss(logits + step) - loss(logits - step)) / (2 * h)
    ours = solution_smoothed_grad(teachgrad)(teachgrad.tensor(logits), teachgrad.tensor(targets),
                                             eps)
    np.testing.assert_allclose(ours.numpy(), numeric, atol=1e-8)
    torch = pytest.importorskip("torch")
    z = torch.tensor(logits, requires_grad=True)
    torch.nn.functional.cross_entropy(z, torch.tensor(targets), label_smoothing=eps).backward()
    np.testing.assert_allclose(z.grad.numpy(), numeric, atol=1e-8)
