"""Lesson 21 (batch norm's backward pass): its code is PyTorch's, its prose is true.

Two kinds of test:

* the lesson's code cells, run in order with the real PyTorch as ``torch`` (the drawings
  replaced by nothing, ``step_backward`` by ``backward()``), print exactly what the stored
  notebook shows teachgrad printed: every number in the lesson is PyTorch's number;
* each sentence of the prose that states a fact (quoted, so a rewrite shows up here) is
  checked against PyTorch, the stepper, finite differences, or batch norm written out with
  NumPy in float64.

The exercise's tempting wrong answers are in test_exercises.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from lesson_claims import (
    LIBS,
    RAISES,
    Lesson,
    array,
    count_printing_as_stored,
    library,
    numeric_gradient,
)

import teachgrad

LESSON = Lesson("21_batch_norms_backward_pass")

EPS = 1e-5
GAMMA = [1.5, 0.5, -1.0]
BETA = [0.0, 1.0, 2.0]
#: section 7's small batch (one feature, three samples) and the gradient sent into x̂
SMALL_X = [[1.0], [2.0], [6.0]]
SMALL_DY = [[1.0], [0.0], [0.0]]


SECTION_1 = ("bn = torch.nn.BatchNorm1d(3)", "by_hand = bn.weight * x_hat + bn.bias")
SECTION_3 = SECTION_1 + ("x.requires_grad_()", "dbeta = dy.sum(dim=0)",
                         "dv = dsigma / (2 * sigma)", "dmu = -dxc.sum(dim=0, keepdim=True)")
SECTION_4 = SECTION_3 + ("layer.load_state_dict(bn.state_dict())",)
SECTION_6 = SECTION_4 + ("layer.eval()",)


# --- NumPy in float64: batch norm written out ---------------------------------------------
def batch_norm(x: np.ndarray, gamma, beta, eps: float = EPS) -> np.ndarray:
    """Training-mode batch norm of an N × C batch: each column over the batch."""
    x_hat = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + eps)   # NumPy's var is biased
    return np.asarray(gamma) * x_hat + np.asarray(beta)


def formula_dx(x: np.ndarray, gamma, dy: np.ndarray, eps: float = EPS) -> np.ndarray:
    """Section 4's one-line formula."""
    n = x.shape[0]
    sigma = np.sqrt(x.var(axis=0) + eps)
    x_hat = (x - x.mean(axis=0)) / sigma
    return np.asarray(gamma) / sigma / n * (n * dy - dy.sum(axis=0)
                                            - x_hat * (dy * x_hat).sum(axis=0))


def random_batch(seed: int, n: int = 5, c: int = 3):
    rng = np.random.default_rng(seed)
    return rng.normal(1.0, 2.0, size=(n, c)), rng.normal(size=c), rng.normal(size=(n, c))


# --- the lesson's code, run with PyTorch, prints what the notebook shows ------------------
def test_the_lesson_run_with_pytorch_prints_what_teachgrad_printed():
    torch = pytest.importorskip("torch")
    cells = LESSON.code_cells()
    stored = LESSON.stored_stdout()
    assert cells[0].code == ("import teachgrad as torch\nfrom teachgrad.notebook import draw, "
                             "step_backward\n\nF = torch.nn.functional")
    assert not any(c.marker == RAISES for c in cells)
    compared = count_printing_as_stored(cells, stored, LESSON.namespace(torch))
    assert compared >= 15  # the cells that print something: not only empty outputs
    assert "Not answered yet" in stored[-2]
    assert stored[-1] == "✔ Correct! That is the right ∂L/∂x for both batches.\n"


def test_every_check_the_lesson_prints_says_what_the_prose_says():
    # A printed False where the prose says "the same" would pass the test above as long as
    # PyTorch prints it too; and the wrong guesses must print False.
    for snippet in ("print(torch.allclose(by_hand, y,", "print(torch.allclose(dbeta,",
                    "print(torch.allclose(dsigma,", "print(torch.allclose(dxc,",
                    "print(torch.allclose(x.grad.sum(dim=0)", "print(torch.allclose(layer(x + 5",
                    "print(torch.allclose(x.grad, gamma / sigma_running"):
        lines = [line for line in LESSON.printed_by_cell(snippet) if not line.startswith("tensor(")]
        assert lines and all(line in ("True", "True True") for line in lines), (snippet, lines)
    assert LESSON.printed_by_cell("no_mean_path = dxc") == ["False", "False", "False", "True"]
    assert LESSON.printed_by_cell("biased_running_var = ") == ["False"]
    assert LESSON.printed_by_cell("print(linear.bias.grad.abs().max()")[0] == "tensor(True)"


# --- 1. batch norm by hand ------------------------------------------------------------------
@LIBS
def test_batch_norm_by_hand_is_the_formula_and_batchnorm1d(lib_name):
    text = LESSON.text()
    assert ("\\mu = \\frac1N \\sum_n x_n, \\qquad v = \\frac1N \\sum_n (x_n - \\mu)^2, \\qquad "
            "\\sigma = \\sqrt{v + \\varepsilon}, \\qquad \\hat x = \\frac{x - \\mu}{\\sigma}, "
            "\\qquad y = \\gamma \\hat x + \\beta.") in text
    assert "The variance $v$ divides by $N$: it is the **biased** variance" in text
    assert "And $\\varepsilon = 10^{-5}$ keeps $\\sigma$ away from 0." in text
    ns = LESSON.run_cells(library(lib_name), *SECTION_1)
    assert ns["bn"].eps == EPS
    x = array(ns["x"])
    assert x.shape == (4, 3)
    np.testing.assert_allclose(array(ns["y"]), batch_norm(x, GAMMA, BETA), atol=1e-5)
    np.testing.assert_allclose(array(ns["by_hand"]), batch_norm(x, GAMMA, BETA), atol=1e-5)


def test_the_columns_of_x_hat_have_mean_0_and_a_variance_a_hair_below_1():
    assert ("Every column of $\\hat x$ has mean 0 and variance 1 (the variance a hair below 1, "
            "because of $\\varepsilon$)") in LESSON.text()
    x = array(LESSON.run_cells(teachgrad, *SECTION_1)["x"])
    x_hat = batch_norm(x, 1.0, 0.0)
    np.testing.assert_allclose(x_hat.mean(axis=0), 0, atol=1e-12)
    assert ((x_hat.var(axis=0) < 1) & (x_hat.var(axis=0) > 1 - 1e-5)).all()


# --- 2. the running statistics --------------------------------------------------------------
@LIBS
def test_running_statistics_use_momentum_and_the_unbiased_variance(lib_name):
    text = LESSON.text()
    assert ("It started with `running_mean` 0 and `running_var` 1, and each training call moves "
            "them 10% of the way (`momentum=0.1`) towards the batch's statistics") in text
    assert ("but `running_var` is updated with the **unbiased** variance, which divides by "
            "$N - 1$ (`var`'s default, `correction=1`). With $N = 4$ that is $4/3$ times "
            "larger.") in text
    lib = library(lib_name)
    fresh = lib.nn.BatchNorm1d(3)
    assert fresh.momentum == 0.1
    assert (array(fresh.running_mean) == 0).all() and (array(fresh.running_var) == 1).all()
    ns = LESSON.run_cells(lib, *SECTION_1)
    x = array(ns["x"])
    bn = ns["bn"]
    assert int(bn.num_batches_tracked) == 1
    np.testing.assert_allclose(array(bn.running_mean), 0.1 * x.mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(array(bn.running_var), 0.9 + 0.1 * x.var(axis=0, ddof=1),
                               atol=1e-6)
    assert np.abs(array(bn.running_var) - (0.9 + 0.1 * x.var(axis=0))).min() > 0.05
    np.testing.assert_allclose(x.var(axis=0, ddof=1) / x.var(axis=0), 4 / 3)
    # var's default is the unbiased one
    np.testing.assert_allclose(array(lib.tensor(x).var(dim=0)), x.var(axis=0, ddof=1),
                               rtol=1e-6)


# --- 3. the backward pass, step by step -----------------------------------------------------
def test_each_steps_formula_by_finite_differences():
    text = LESSON.text()
    for formula in (
        "d\\beta = \\sum_n dy_n, \\qquad d\\gamma = \\sum_n dy_n \\hat x_n, \\qquad "
        "d\\hat x = \\gamma\\, dy.",
        "d\\sigma = -\\sum_n d\\hat x_n \\frac{x_{c,n}}{\\sigma^2}.",
        "$dv = d\\sigma / (2\\sigma)$",
        "dx_c = \\frac{d\\hat x}{\\sigma} + \\frac{2\\, x_c\\, dv}{N}.",
        "d\\mu = -\\sum_n dx_{c,n}, \\qquad dx = dx_c + \\frac{d\\mu}{N}.",
    ):
        assert formula in text, formula
    x, gamma, dy = random_batch(0)
    beta = np.zeros(3)
    n = len(x)
    mu = x.mean(axis=0)
    xc = x - mu
    v = (xc ** 2).mean(axis=0)
    sigma = np.sqrt(v + EPS)
    x_hat = xc / sigma

    def loss(y):
        return (y * dy).sum()

    # each function below recomputes the forward pass from one intermediate upwards
    assert np.allclose(numeric_gradient(lambda b: loss(gamma * x_hat + b), beta),
                       dy.sum(axis=0), atol=1e-8)
    assert np.allclose(numeric_gradient(lambda g: loss(g * x_hat), gamma),
                       (dy * x_hat).sum(axis=0), atol=1e-8)
    dx_hat = gamma * dy
    assert np.allclose(numeric_gradient(lambda h: loss(gamma * h), x_hat), dx_hat, atol=1e-8)
    dsigma = -(dx_hat * xc / sigma ** 2).sum(axis=0)
    assert np.allclose(numeric_gradient(lambda s: loss(gamma * xc / s), sigma), dsigma,
                       atol=1e-7)
    dv = dsigma / (2 * sigma)
    assert np.allclose(numeric_gradient(lambda w: loss(gamma * xc / np.sqrt(w + EPS)), v), dv,
                       atol=1e-7)

    def from_xc(c):
        return loss(gamma * c / np.sqrt((c ** 2).mean(axis=0) + EPS))

    dxc = dx_hat / sigma + 2 * xc * dv / n
    assert np.allclose(numeric_gradient(from_xc, xc), dxc, atol=1e-7)
    dmu = -dxc.sum(axis=0)
    assert np.allclose(numeric_gradient(lambda m: from_xc(x - m), mu), dmu, atol=1e-7)
    dx = dxc + dmu / n
    assert np.allclose(numeric_gradient(lambda a: loss(batch_norm(a, gamma, beta)), x), dx,
                       atol=1e-7)


@LIBS
def test_the_lessons_steps_are_autograds(lib_name):
    ns = LESSON.run_cells(library(lib_name), *SECTION_3)
    for mine, theirs in (("dbeta", "beta"), ("dgamma", "gamma"), ("dx_hat", "x_hat"),
                         ("dsigma", "sigma"), ("dv", "v"), ("dxc", "xc"), ("dmu", "mu"),
                         ("dx", "x")):
        np.testing.assert_allclose(array(ns[mine]), array(ns[theirs].grad), atol=1e-6,
                                   err_msg=mine)
    # the gradient sent in is not a special one that would hide a missing path
    dy = array(ns["dy"])
    assert np.abs(dy.sum(axis=0)).min() > 0.1
    assert np.abs(array(ns["dmu"])).min() > 1e-3 and np.abs(array(ns["dv"])).min() > 1e-3


def test_mu_v_and_sigma_are_shared_so_their_gradients_sum_over_the_batch():
    assert ("$\\mu$, $v$ and $\\sigma$ have one number per column, used by all $N$ samples of "
            "that column, so (lesson 6's fan-out) their gradients **sum** over the "
            "batch.") in LESSON.text()
    ns = LESSON.run_cells(teachgrad, *SECTION_3)
    for name in ("mu", "v", "sigma"):
        assert tuple(ns[name].shape) == (1, 3)


@LIBS
def test_three_paths_and_leaving_one_out_is_wrong(lib_name):
    assert ("So each $x_{n}$ reaches the loss along **three** paths, and its gradient has three "
            "terms") in LESSON.text()
    assert "Leave out either of the last two and the gradient is wrong" in LESSON.text()
    ns = LESSON.run_cells(library(lib_name), *SECTION_3, "no_mean_path = dxc")
    right = array(ns["x"].grad)
    for guess in ("direct", "no_mean_path", "no_variance_path"):
        assert np.abs(array(ns[guess]) - right).max() > 0.05, guess
    # and the three terms add up to it
    terms = (array(ns["dx_hat"]) / array(ns["sigma"])
             + 2 * array(ns["xc"]) * array(ns["dv"]) / 4 + array(ns["dmu"]) / 4)
    np.testing.assert_allclose(terms, right, atol=1e-6)


# --- 4. one formula ------------------------------------------------------------------------
@pytest.mark.parametrize("seed, n, c", [(0, 4, 3), (1, 7, 2), (2, 2, 5)])
def test_the_one_line_formula_by_finite_differences(seed, n, c):
    text = LESSON.text()
    assert ("dx_c = \\frac1\\sigma \\Big(d\\hat x - \\hat x \\cdot \\frac1N \\sum_n d\\hat x_n "
            "\\hat x_n\\Big).") in text
    assert ("dx = \\frac{\\gamma / \\sigma}{N} \\Big(N\\, dy - \\sum_n dy_n - \\hat x \\sum_n "
            "dy_n \\hat x_n\\Big).") in text
    assert "Since $\\sum_n \\hat x_n = 0$" in text
    x, gamma, dy = random_batch(seed, n, c)
    numeric = numeric_gradient(lambda a: (batch_norm(a, gamma, 0.0) * dy).sum(), x)
    np.testing.assert_allclose(formula_dx(x, gamma, dy), numeric, atol=1e-7)
    # the folded dx_c: the gradient at x_c, with the variance computed from x_c
    xc = x - x.mean(axis=0)
    sigma = np.sqrt((xc ** 2).mean(axis=0) + EPS)
    x_hat, dx_hat = xc / sigma, gamma * dy
    folded = (dx_hat - x_hat * (dx_hat * x_hat).mean(axis=0)) / sigma
    numeric_xc = numeric_gradient(
        lambda c: (gamma * c / np.sqrt((c ** 2).mean(axis=0) + EPS) * dy).sum(), xc)
    np.testing.assert_allclose(folded, numeric_xc, atol=1e-7)


def test_it_is_lesson_18s_layer_norm_formula_on_its_side():
    assert ("It is lesson 18's layer norm formula turned on its side: the same three terms, "
            "with the sums running over the batch instead of over the features.") in LESSON.text()
    x, _, dy = random_batch(4)
    sigma = np.sqrt(x.var(axis=0) + EPS)
    x_hat = (x - x.mean(axis=0)) / sigma
    # lesson 18: (g − mean(g) − x̂·mean(g ⊙ x̂)) / σ, here with the means over dim 0
    layer_norm_style = (dy - dy.mean(axis=0) - x_hat * (dy * x_hat).mean(axis=0)) / sigma
    np.testing.assert_allclose(formula_dx(x, 1.0, dy), layer_norm_style, atol=1e-12)


@LIBS
def test_the_formula_is_batchnorm1ds_gradient(lib_name):
    ns = LESSON.run_cells(library(lib_name), *SECTION_4)
    np.testing.assert_allclose(array(ns["formula"]), array(ns["x"].grad), atol=1e-6)
    x, dy = array(ns["x"]), array(ns["dy"])
    np.testing.assert_allclose(array(ns["x"].grad), formula_dx(x, GAMMA, dy), atol=1e-5)


# --- 5. sums to zero -------------------------------------------------------------------------
def test_the_gradient_sums_to_zero_over_the_batch_whatever_dy():
    text = LESSON.text()
    assert "Zero, for every feature, whatever $dy$ is (up to rounding)." in text
    assert ("summed over $n$, $N\\, dy$ gives $N \\sum dy$, the second term takes $N \\sum dy$ "
            "away, and the third is a multiple of $\\sum_n \\hat x_n = 0$.") in text
    for seed in range(5):
        x, gamma, dy = random_batch(seed, 6, 4)
        np.testing.assert_allclose(formula_dx(x, gamma, dy).sum(axis=0), 0, atol=1e-12)
    # "What to try": the same row repeated sends back nothing at all
    x, gamma, _ = random_batch(9)
    np.testing.assert_allclose(formula_dx(x, gamma, np.ones_like(x)), 0, atol=1e-12)
    assert "`dy = torch.ones(4, 3)`" in text


def test_shifting_a_column_changes_nothing():
    assert ("adding the same number to a whole column of $x$ changes nothing, because $\\mu$ "
            "moves along and $x - \\mu$ stays put") in LESSON.text()
    x, gamma, _ = random_batch(5)
    np.testing.assert_allclose(batch_norm(x + [5.0, -2.0, 0.5], gamma, 0.0),
                               batch_norm(x, gamma, 0.0), atol=1e-12)


@LIBS
def test_a_bias_right_before_batch_norm_gets_no_gradient(lib_name):
    assert ("A `Linear` adds its bias to every sample, which is exactly that shift, and its "
            "gradient is zero") in LESSON.text()
    assert "The weight learns, the bias never moves" in LESSON.text()
    ns = LESSON.run_cells(library(lib_name), *SECTION_4, "linear = torch.nn.Linear(3, 3)")
    assert np.abs(array(ns["linear"].bias.grad)).max() < 1e-6
    assert np.abs(array(ns["linear"].weight.grad)).max() > 1.0


# --- 6. train and eval -----------------------------------------------------------------------
@LIBS
def test_eval_uses_the_running_statistics_and_its_gradient_is_a_scale(lib_name):
    text = LESSON.text()
    assert ("dx = \\frac{\\gamma}{\\sqrt{\\text{running\\_var} + \\varepsilon}}\\, dy.") in text
    assert ("each sample's gradient depends on its own $dy$ only, and the columns no longer sum "
            "to zero") in text
    ns = LESSON.run_cells(library(lib_name), *SECTION_6)
    layer, x, dy = ns["layer"], array(ns["x"]), array(ns["dy"])
    assert not layer.training
    mean, var = array(layer.running_mean), array(layer.running_var)
    # its output: the running statistics, not the batch's
    expected = np.asarray(GAMMA) * (x - mean) / np.sqrt(var + EPS) + np.asarray(BETA)
    np.testing.assert_allclose(array(layer(ns["x"])), expected, atol=1e-5)
    np.testing.assert_allclose(array(ns["x"].grad), np.asarray(GAMMA) / np.sqrt(var + EPS) * dy,
                               atol=1e-6)
    assert np.abs(array(ns["x"].grad).sum(axis=0)).min() > 0.1


@LIBS
def test_the_biased_running_variance_gives_other_eval_outputs(lib_name):
    assert ("eval's output uses the running variance, so a by-hand layer that updated it with "
            "the biased variance gives other outputs") in LESSON.text()
    ns = LESSON.run_cells(library(lib_name), *SECTION_6, "biased_running_var = ")
    assert np.abs(array(ns["wrong"]) - array(ns["layer"](ns["x"]))).max() > 0.05


# --- 7. the graph and the stepper ------------------------------------------------------------
def graph_names(root) -> list[str]:
    """Every node under ``root``, each once."""
    seen, order, todo = set(), [], [root]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node.name().split("::")[-1])
        todo.extend(n for n, _ in node.next_functions)
    return order


@LIBS
def test_the_library_is_one_node_with_three_inputs(lib_name):
    assert ("The library's batch norm is **one** node in the graph, `NativeBatchNormBackward0`, "
            "which computes section 4's formula in one go. It has three inputs: $x$, $\\gamma$ "
            "and $\\beta$") in LESSON.text()
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_4)
    node = ns["layer"](ns["x"]).grad_fn
    assert node.name() == "NativeBatchNormBackward0"
    assert [n.variable for n, _ in node.next_functions] == [
        ns["x"], ns["layer"].weight, ns["layer"].bias]


@LIBS
def test_the_by_hand_graph_is_a_dozen_nodes_with_two_paths_to_x(lib_name):
    assert ("Our by-hand version of section 3 is a dozen nodes, with $x$ at the bottom reached "
            "along two paths (directly, and through the mean) and $x_c$ used twice (in $v$ and "
            "in $\\hat x$)") in LESSON.text()
    ns = LESSON.run_cells(library(lib_name), *SECTION_3)
    names = graph_names(ns["y"].grad_fn)
    assert len(names) == 12
    assert sorted(names) == sorted(["AddBackward0", "MulBackward0", "DivBackward0",
                                    "SubBackward0", "MeanBackward1", "SqrtBackward0",
                                    "AddBackward0", "MeanBackward1", "PowBackward0"]
                                   + ["AccumulateGrad"] * 3)
    sub = ns["xc"].grad_fn
    mean = ns["mu"].grad_fn
    (to_x,) = [n for n, _ in sub.next_functions if n is not None and n.name() != "MeanBackward1"]
    assert to_x.variable is ns["x"] and mean.next_functions[0][0] is to_x
    users = [n for n in (ns["x_hat"].grad_fn, ns["v"].grad_fn.next_functions[0][0])
             if any(m is sub for m, _ in n.next_functions)]
    assert len(users) == 2


def test_the_stepper_cell_uses_the_tested_numbers():
    code = LESSON.code_containing("step_backward(L, names=")
    assert f"x = torch.tensor({SMALL_X}, requires_grad=True)" in code
    assert f"dy = torch.tensor({SMALL_DY})" in code
    assert "sigma = torch.sqrt(v + 1e-5)" in code
    assert ("Here $\\mu = 3$, $x_c = [-2, -1, 3]$, $v = 14/3$ and $\\sigma \\approx "
            "2.1602$.") in LESSON.text()
    x = np.array(SMALL_X)
    assert x.mean() == 3 and (x - 3).ravel().tolist() == [-2, -1, 3]
    assert np.isclose(x.var(), 14 / 3) and f"{np.sqrt(14 / 3 + EPS):.4f}" == "2.1602"


def test_the_stepper_reads_section_3_at_each_node():
    text = LESSON.text()
    for claim in (
        "**Steps 1 and 2** (`SumBackward0`, `MulBackward0`): the gradient $1$ becomes ones, "
        "then $dy$.",
        "**Step 3**, `DivBackward0` for $\\hat x = x_c / \\sigma$: $dy / \\sigma = [0.4629, 0, "
        "0]$ to $x_c$, and $-\\sum dy \\cdot x_c / \\sigma^2 = 0.4286$ to $\\sigma$, \"summed "
        "over the broadcast dimensions\": section 3's step 2.",
        "**Steps 4 to 7** (`SqrtBackward0`, `AddBackward0` for the $+\\varepsilon$, "
        "`MeanBackward1`, `PowBackward0`): steps 3 and 4 of section 3, the variance's path, "
        "ending at $x_c$ with $2 x_c\\, dv / N$.",
        "**Step 8**, `SubBackward0` for $x_c$: \"2 contributions arrived\", the direct one and "
        "the variance's, and the engine adds them into $dx_c = [0.3306, -0.0661, 0.1984]$. It "
        "sends that to $x$, and minus its column sum, $-0.4629$, to $\\mu$: section 4's "
        "$d\\mu = -\\frac1\\sigma \\sum dy$.",
        "**Step 9**, `MeanBackward1` for $\\mu$: $1/N$ of it to each sample.",
        "**Step 10**, `AccumulateGrad`: $x$ also received 2 contributions, the direct one and "
        "the mean's, and their sum is `x.grad` $= [0.1763, -0.2204, 0.0441]$, which sums to 0.",
    ):
        assert claim in text, claim
    pytest.importorskip("graphviz")
    stepper = LESSON.stepper("step_backward(L, names=")["stepper"]
    assert [panel.title for panel in stepper.panels][1:] == [
        "Step 1 of 10: SumBackward0 (L)", "Step 2 of 10: MulBackward0",
        "Step 3 of 10: DivBackward0 (x_hat)", "Step 4 of 10: SqrtBackward0 (sigma)",
        "Step 5 of 10: AddBackward0", "Step 6 of 10: MeanBackward1 (v)",
        "Step 7 of 10: PowBackward0", "Step 8 of 10: SubBackward0 (xc)",
        "Step 9 of 10: MeanBackward1 (mu)", "Step 10 of 10: AccumulateGrad (x)"]
    panels = [" ".join(p.text.split()) for p in stepper.panels]
    # the numbers, in float64 from section 3's formulas
    x, dy = np.array(SMALL_X), np.array(SMALL_DY)
    xc = x - x.mean()
    sigma = np.sqrt((xc ** 2).mean() + EPS)
    dsigma = -(dy * xc / sigma ** 2).sum()
    dv = dsigma / (2 * sigma)
    dxc = dy / sigma + 2 * xc * dv / 3
    dmu = -dxc.sum()
    dx = dxc + dmu / 3
    assert [f"{d:.4f}" for d in (dy / sigma).ravel()] == ["0.4629", "0.0000", "0.0000"]
    assert f"{dsigma:.4f}" == "0.4286" and f"{dmu:.4f}" == "-0.4629"
    assert np.isclose(dmu, -dy.sum() / sigma)
    assert [f"{d:.4f}" for d in dxc.ravel()] == ["0.3306", "-0.0661", "0.1984"]
    assert [f"{d:.4f}" for d in dx.ravel()] == ["0.1763", "-0.2204", "0.0441"]
    assert abs(dx.sum()) < 1e-12
    np.testing.assert_allclose(dx, formula_dx(x, 1.0, dy), atol=1e-12)
    assert "= [[0.4629], [0.0000], [0.0000]]" in panels[3]
    assert "= [[0.4286]] [summed over the broadcast dimensions" in panels[3]
    assert "2 contributions arrived" in panels[8]
    assert "= [[ 0.3306], [-0.0661], [ 0.1984]]" in panels[8]
    assert "b → MeanBackward1 (mu):" in panels[8] and "= [[-0.4629]]" in panels[8]
    assert "= [[-0.1543], [-0.1543], [-0.1543]]" in panels[9]
    assert f"{dmu / 3:.4f}" == "-0.1543"
    assert "2 contributions arrived" in panels[10]
    assert "x.grad: None → [[ 0.1763], [-0.2204], [ 0.0441]]" in panels[10]


def test_pytorch_records_the_same_by_hand_graph():
    torch = pytest.importorskip("torch")
    ours = LESSON.run_cells(teachgrad, "step_backward(L, names=")["L"].grad_fn
    theirs = LESSON.run_cells(torch, "step_backward(L, names=")["L"].grad_fn
    assert graph_names(ours) == graph_names(theirs)


# --- the exercise ---------------------------------------------------------------------------
def solution_batchnorm_dx(lib):
    cell = LESSON.cell_with_role("solution")
    ns = LESSON.namespace(lib)
    exec(cell.code.split("\ncheck(", 1)[0], ns)
    return ns["batchnorm_dx"]


def test_the_check_covers_6_by_3_and_3_by_2():
    assert ("for a batch of 6 samples with 3 features and one of 3 samples with 2 "
            "features") in LESSON.text()
    ns = LESSON.namespace(teachgrad)
    code = LESSON.code_containing("def autograd_answer(x, gamma, dy, eps):")
    code = code.split("\nhint = ", 1)[0]
    exec(code.replace("from teachgrad.notebook import check\n", ""), ns)
    assert [tuple(case[0].shape) for case in ns["cases"]] == [(6, 3), (3, 2)]


@pytest.mark.parametrize("n, c, eps", [(6, 3, 1e-5), (3, 2, 1e-3), (2, 4, 1e-5)])
def test_the_solution_is_dx_by_finite_differences_and_by_pytorch(n, c, eps):
    x, gamma, dy = random_batch(7, n, c)
    numeric = numeric_gradient(lambda a: (batch_norm(a, gamma, 0.0, eps) * dy).sum(), x)
    ours = solution_batchnorm_dx(teachgrad)(*(teachgrad.tensor(t) for t in (x, gamma, dy)), eps)
    np.testing.assert_allclose(ours.numpy(), numeric, atol=1e-7)
    torch = pytest.importorskip("torch")
    xt = torch.tensor(x, requires_grad=True)
    torch.nn.functional.batch_norm(xt, None, None, torch.tensor(gamma), None, training=True,
                                   eps=eps).backward(torch.tensor(dy))
    np.testing.assert_allclose(xt.grad.numpy(), numeric, atol=1e-7)
