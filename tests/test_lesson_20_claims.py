"""Lesson 20 (attention's backward pass): its code is PyTorch's, its prose is true.

Two kinds of test:

* the lesson's code cells, run in order with the real PyTorch as ``torch`` (the drawing
  replaced by nothing, ``step_backward`` by ``backward()``), print exactly what the stored
  notebook shows teachgrad printed: every number in the lesson is PyTorch's number;
* each sentence of the prose that states a fact (quoted, so a rewrite shows up here) is
  checked against PyTorch, the stepper, finite differences, or attention written out with
  NumPy in float64.

The exercise's tempting wrong answers are in test_exercises.py.
"""

from __future__ import annotations

import contextlib
import io
import math
import re

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

LESSON = Lesson("20_attentions_backward_pass", math=math)

#: section 5's small queries, keys, values and output gradient (3 tokens, d = 2)
SMALL_Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
SMALL_K = [[1.0, 2.0], [0.0, -1.0], [1.0, 0.5]]
SMALL_V = [[1.0, 0.0], [0.0, 2.0], [-1.0, 1.0]]
SMALL_DO = [[1.0, 0.0], [0.0, -1.0], [0.5, 1.0]]


SECTION_1 = ("to_q = torch.nn.Linear(4, 4, bias=False)",)
SECTION_2 = SECTION_1 + ("O.backward(dO)", "dV = A.T @ dO", "print(S.grad)",
                         "dK = dS.T @ Q / math.sqrt(d)")
SECTION_4 = SECTION_2 + ("causal = torch.ones(3, 3",)


# --- NumPy in float64: attention written out ------------------------------------------------
def softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V) -> np.ndarray:
    """softmax(Q Kᵀ / √d) V, row by row."""
    return softmax(Q @ K.T / math.sqrt(Q.shape[-1])) @ V


def random_case(seed: int = 0, tokens: int = 4, d: int = 3):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(tokens, d)) for _ in range(4)]   # Q, K, V, dO


# --- the lesson's code, run with PyTorch, prints what the notebook shows ------------------
def test_the_lesson_run_with_pytorch_prints_what_teachgrad_printed():
    torch = pytest.importorskip("torch")
    cells = LESSON.code_cells()
    stored = LESSON.stored_stdout()
    assert cells[0].code == ("import math\n\nimport teachgrad as torch\nfrom teachgrad.notebook "
                             "import draw, step_backward\n\nF = torch.nn.functional")
    assert not any(c.marker == RAISES for c in cells)
    ns = LESSON.namespace(torch)
    compared = count_printing_as_stored(cells, stored, ns)
    assert compared >= 11  # the cells that print something: not only empty outputs
    assert "Not answered yet" in stored[-2]
    assert stored[-1] == "✔ Correct! That is the right ∂L/∂K for both cases.\n"


def test_every_check_the_lesson_prints_says_true():
    # A printed False would pass the test above as long as PyTorch prints it too.
    for snippet in ("print(torch.allclose(O, F.scaled_dot_product_attention",
                    "print(torch.allclose(dV, V.grad",
                    "print(torch.allclose(dQ, Q.grad",
                    "print(torch.allclose(dx, x.grad",
                    "print(torch.allclose(O_causal,"):
        (n,) = [n for n, c in enumerate(LESSON.code_cells()) if snippet in c.code]
        lines = LESSON.stored_stdout()[n].splitlines()
        assert any(line in ("True", "True True") for line in lines), (snippet, lines)


# --- 1. attention by hand -------------------------------------------------------------------
@LIBS
def test_attention_by_hand_is_the_formula_and_scaled_dot_product_attention(lib_name):
    text = LESSON.text()
    assert ("S = \\frac{Q K^\\top}{\\sqrt d}, \\qquad "
            "A = \\operatorname{softmax}_{\\text{row}}(S), \\qquad O = A V.") in text
    assert "(The layers have no bias here, to keep the graph small.)" in text
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_1)
    x = array(ns["x"])
    Wq, Wk, Wv = (array(ns[name].weight) for name in ("to_q", "to_k", "to_v"))
    assert all(ns[name].bias is None for name in ("to_q", "to_k", "to_v"))
    expected = attention(x @ Wq.T, x @ Wk.T, x @ Wv.T)
    np.testing.assert_allclose(array(ns["O"]), expected, atol=1e-6)
    sdpa = lib.nn.functional.scaled_dot_product_attention(ns["Q"], ns["K"], ns["V"])
    np.testing.assert_allclose(array(sdpa), expected, atol=1e-6)
    # "over the keys: every row sums to 1"
    np.testing.assert_allclose(array(ns["A"]).sum(axis=1), 1, atol=1e-6)


# --- 2. the backward pass, step by step -----------------------------------------------------
def test_dv_and_da_by_finite_differences():
    text = LESSON.text()
    assert "dV = A^\\top dO, \\qquad dA = dO\\, V^\\top." in text
    Q, K, V, dO = random_case()
    A = softmax(Q @ K.T / math.sqrt(3))
    np.testing.assert_allclose(numeric_gradient(lambda v: (A @ v * dO).sum(), V), A.T @ dO,
                               atol=1e-8)
    np.testing.assert_allclose(numeric_gradient(lambda a: (a @ V * dO).sum(), A), dO @ V.T,
                               atol=1e-8)


def test_the_shapes_place_one_transpose_but_not_the_other():
    text = LESSON.text()
    assert ("$dO$ and $V$ are 3×4, so only $dO\\,V^\\top$ (3×4 times 4×3) is shaped like $A$. "
            "But $A$ is square, 3 queries × 3 keys, so $A\\,dO$ is shaped like $V$ just as "
            "well as $A^\\top dO$, and it is wrong") in text
    ns = LESSON.run_cells(teachgrad, *SECTION_2)
    A, dO, V = array(ns["A"]), array(ns["dO"]), array(ns["V"])
    assert A.shape == (3, 3) and dO.shape == V.shape == (3, 4)
    with pytest.raises(ValueError):
        dO @ V                                     # no transpose: the shapes refuse
    assert (A @ dO).shape == V.shape               # no transpose: the shapes accept ...
    assert np.abs(A @ dO - array(ns["V"].grad)).max() > 0.1   # ... a wrong answer
    np.testing.assert_allclose(A.T @ dO, array(ns["V"].grad), atol=1e-6)


def test_ds_is_lesson_18s_softmax_vjp_by_finite_differences():
    text = LESSON.text()
    assert "dS = A \\odot \\big(dA - \\operatorname{rowsum}(dA \\odot A)\\big)," in text
    assert ("It is symmetric, so the vector-Jacobian product (lesson 7) with the row $g$ of $dA$ "
            "arriving there is the Jacobian times $g$: $p \\odot g - p\\,(p \\cdot g)$." in text)
    Q, K, V, dO = random_case(1)
    S = Q @ K.T / math.sqrt(3)
    A = softmax(S)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=-1, keepdims=True))
    np.testing.assert_allclose(numeric_gradient(lambda s: (softmax(s) @ V * dO).sum(), S), dS,
                               atol=1e-8)
    # row by row, it is the Jacobian diag(a) − a aᵀ times g
    for a, g, row in zip(A, dA, dS):
        np.testing.assert_allclose((np.diag(a) - np.outer(a, a)) @ g, row, atol=1e-12)
    assert "Every row of $dS$ sums to 0" in text
    np.testing.assert_allclose(dS.sum(axis=1), 0, atol=1e-12)


@LIBS
def test_the_lessons_ds_is_autograds_and_its_rows_sum_to_0(lib_name):
    ns = LESSON.run_cells(library(lib_name), *SECTION_2)
    np.testing.assert_allclose(array(ns["dS"]), array(ns["S"].grad), atol=1e-6)
    np.testing.assert_allclose(array(ns["dS"]).sum(axis=1), 0, atol=1e-6)


def test_dq_and_dk_by_finite_differences():
    text = LESSON.text()
    assert "dQ = \\frac{dS\\,K}{\\sqrt d}, \\qquad dK = \\frac{dS^\\top Q}{\\sqrt d}." in text
    assert ("$\\partial L / \\partial Q_{ic} = \\sum_j dS_{ij} K_{jc} / \\sqrt d$, a sum along the "
            "rows of $dS$, and $\\partial L / \\partial K_{jc} = "
            "\\sum_i dS_{ij} Q_{ic} / \\sqrt d$, a sum down its **columns**") in text
    Q, K, V, dO = random_case(2, tokens=4, d=5)
    d = 5
    S = Q @ K.T / math.sqrt(d)
    A = softmax(S)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=-1, keepdims=True))
    np.testing.assert_allclose(numeric_gradient(lambda q: (attention(q, K, V) * dO).sum(), Q),
                               dS @ K / math.sqrt(d), atol=1e-8)
    np.testing.assert_allclose(numeric_gradient(lambda k: (attention(Q, k, V) * dO).sum(), K),
                               dS.T @ Q / math.sqrt(d), atol=1e-8)


@LIBS
def test_into_the_layers_the_weight_and_x_with_its_three_paths(lib_name):
    text = LESSON.text()
    assert ("`to_q` computes $Q = x W_q^\\top$, one more matrix product: its weight gets "
            "$dQ^\\top x$,") in text
    assert ("And $x$ was used three times, for $Q$, $K$ and $V$, so its gradient is the sum of "
            "the three paths") in text
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_2, "dx = dQ @ to_q.weight")
    x, dO = array(ns["x"]), array(ns["dO"])
    W = {name: array(ns[name].weight) for name in ("to_q", "to_k", "to_v")}

    def loss_of_x(x):
        return (attention(x @ W["to_q"].T, x @ W["to_k"].T, x @ W["to_v"].T) * dO).sum()

    def loss_of_wq(w):
        return (attention(x @ w.T, x @ W["to_k"].T, x @ W["to_v"].T) * dO).sum()

    np.testing.assert_allclose(array(ns["x"].grad), numeric_gradient(loss_of_x, x), atol=1e-6)
    np.testing.assert_allclose(array(ns["to_q"].weight.grad),
                               numeric_gradient(loss_of_wq, W["to_q"]), atol=1e-6)
    np.testing.assert_allclose(array(ns["dx"]), array(ns["x"].grad), atol=1e-6)
    assert "and $x$ gets $dQ\\,W_q$ along this path" in text
    only_q = numeric_gradient(
        lambda x2: (attention(x2 @ W["to_q"].T, x @ W["to_k"].T, x @ W["to_v"].T) * dO).sum(), x)
    np.testing.assert_allclose(array(ns["dQ"]) @ W["to_q"], only_q, atol=1e-6)


@LIBS
def test_attention_itself_is_two_products_and_one_softmax(lib_name):
    assert ("That is the whole backward pass of attention itself: each of its two matrix "
            "products sends back two more (one per factor), and the softmax in the middle sends "
            "back one vector-Jacobian product per row.") in LESSON.text()
    lib = library(lib_name)
    Q, K, V = (lib.tensor(t, requires_grad=True) for t in (SMALL_Q, SMALL_K, SMALL_V))
    O = lib.softmax(Q @ K.T / math.sqrt(2), dim=-1) @ V
    assert O.grad_fn.name() == "MmBackward0"
    softmax_node = O.grad_fn.next_functions[0][0]
    assert softmax_node.name() == "SoftmaxBackward0"
    div = softmax_node.next_functions[0][0]
    assert div.name() == "DivBackward0"
    assert div.next_functions[0][0].name() == "MmBackward0"


# --- 3. why 1/√d ------------------------------------------------------------------------------
def test_a_dot_product_of_d_unit_variance_numbers_has_variance_d():
    assert ("each of the $d$ products has variance 1, and their sum has variance $d$: the "
            "scores' spread grows like $\\sqrt d$") in LESSON.text()
    rng = np.random.default_rng(0)
    for d in (4, 64, 1024):
        q, k = rng.normal(size=(2, 20_000, d))
        assert (q * k).sum(axis=1).var() == pytest.approx(d, rel=0.05)


def test_a_weight_multiplies_its_scores_gradient():
    assert ("$dS_{ij} = A_{ij}(\\ldots)$ carries the factor $A_{ij}$, so a key whose weight is "
            "$e^{-30}$ gets $e^{-30}$ times the gradient arriving there") in LESSON.text()
    s = np.array([30.0, 0.0, 0.0])
    a = softmax(s)
    assert a[1] == pytest.approx(math.exp(-30), rel=1e-12)
    g = np.array([0.5, -1.0, 2.0])
    ds = a * (g - a @ g)
    assert ds[1] == pytest.approx(a[1] * (g[1] - a @ g), rel=1e-12)
    assert abs(ds[1]) < 1e-12


def measured(lib, size: int, scale: float):
    """Section 3's measurement (the lesson's own function), as numbers."""
    ns = LESSON.run_cells(lib, "def softmax_gradient(d, scale):")
    text = ns["softmax_gradient"](size, scale)
    found = re.fullmatch(r"std +([0-9.]+), largest weight ([0-9.]+), +([0-9]+)% below 1e-4",
                         text)
    assert found, text
    return tuple(float(v) for v in found.groups())


@LIBS
def test_the_measured_saturation_without_and_with_the_scale(lib_name):
    text = LESSON.text()
    assert ("Without the scale, the spread about doubles every time $d$ grows 4 times, and at "
            "$d = 1024$ the largest weight of a row is on average 0.96 and 94% of the scores "
            "get (almost) no gradient.") in text
    assert ("With $1/\\sqrt d$ the spread stays near 1 whatever $d$ is, the weights stay spread "
            "out, and almost every score gets a gradient (at most 2% below $10^{-4}$).") in text
    lib = library(lib_name)
    sizes = (4, 16, 64, 256, 1024)
    without = [measured(lib, d, 1.0) for d in sizes]
    scaled = [measured(lib, d, 1 / math.sqrt(d)) for d in sizes]
    spreads = [w[0] for w in without]
    assert all(1.6 < b / a < 2.4 for a, b in zip(spreads, spreads[1:])), spreads
    assert without[-1][1:] == (0.96, 94.0)
    assert all(0.8 <= s[0] <= 1.2 for s in scaled)
    assert max(s[2] for s in scaled) == 2.0
    assert max(s[1] for s in scaled) < 0.3   # spread out: no weight near 1


def test_the_measurement_is_the_softmax_gradient_in_float64():
    # the lesson's numbers are not artefacts of float32: NumPy gets the same from the same draws
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    Q, K = torch.randn(16, 1024).double().numpy(), torch.randn(16, 1024).double().numpy()
    dA = torch.randn(16, 16).double().numpy()
    S = Q @ K.T
    A = softmax(S)
    dS = A * (dA - (dA * A).sum(axis=-1, keepdims=True))
    assert f"{S.std(ddof=1):.1f}" == "32.5"
    assert f"{A.max(axis=1).mean():.2f}" == "0.96"
    assert f"{(np.abs(dS) < 1e-4).mean():.0%}" == "94%"


# --- 4. the causal mask ------------------------------------------------------------------------
@LIBS
def test_the_causal_mask_gives_exact_zeros_and_is_sdpa_is_causal(lib_name):
    text = LESSON.text()
    assert ("set the forbidden scores to $-\\infty$ **before** the softmax; $e^{-\\infty} = 0$, "
            "so their weights are exactly 0 and the other weights of the row still sum to 1"
            ) in text
    assert ("The first token sees only itself, so its weight is 1; the last one sees all three "
            "tokens, and its row is section 1's.") in text
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_4)
    above = ~np.tril(np.ones((3, 3), dtype=bool))
    A_causal = array(ns["A_causal"])
    assert (A_causal[above] == 0).all()
    np.testing.assert_allclose(A_causal.sum(axis=1), 1, atol=1e-6)
    assert A_causal[0, 0] == 1.0
    np.testing.assert_allclose(A_causal[2], array(ns["A"])[2], atol=1e-7)
    sdpa = lib.nn.functional.scaled_dot_product_attention(ns["Q"], ns["K"], ns["V"],
                                                          is_causal=True)
    np.testing.assert_allclose(array(ns["O_causal"]), array(sdpa), atol=1e-6)
    # exactly zero (−0.0 included), at both places, and no NaN anywhere
    for name in ("masked", "scores"):
        grad = array(ns[name].grad)
        assert (grad[above] == 0).all() and np.isfinite(grad).all()
    assert ns["masked"].grad_fn is not None
    assert ns["masked"].grad_fn.name() == "MaskedFillBackward0"
    assert ("(a `-0.0000` is a zero too: $0$ times a negative number)") in text
    assert np.signbit(array(ns["masked"].grad)[above]).any()


@LIBS
def test_the_first_row_has_no_gradient_and_the_last_is_section_2s(lib_name):
    text = LESSON.text()
    assert ("The first is all zeros, even on the diagonal: a softmax over one score is 1 "
            "whatever the score") in text
    assert "The last row is section 2's last row of $dS$" in text
    ns = LESSON.run_cells(library(lib_name), *SECTION_4)
    grad = array(ns["scores"].grad)
    assert (grad[0] == 0).all()
    np.testing.assert_allclose(grad[2], array(ns["dS"])[2], atol=1e-7)
    seen = np.tril(np.ones((3, 3), dtype=bool))
    seen[0] = False                      # rows 1 and 2: every key they see gets a gradient
    assert np.abs(grad[seen]).min() > 1e-3


def test_why_exact_zeros_the_formula_multiplies_by_a_weight_of_0():
    assert ("step 2's formula multiplies by $A_{ij}$, which is exactly 0 there, so "
            "$dS_{ij} = 0 \\cdot (\\ldots) = 0$ (no NaN: the $-\\infty$ itself never enters the "
            "backward pass, only the weights do)") in LESSON.text()
    with np.errstate(invalid="ignore"):
        a = softmax(np.array([1.0, -np.inf, 0.5]))
    assert a[1] == 0.0
    g = np.array([0.3, -2.0, 1.0])
    assert (a * (g - a @ g))[1] == 0.0


@LIBS
def test_what_to_try_a_fully_masked_row_is_nan(lib_name):
    assert "mask a whole row, for instance `causal[0, 0] = False`" in LESSON.text()
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_2)
    code = LESSON.code_containing("causal = torch.ones(3, 3").replace(
        "print(causal)", "causal[0, 0] = False")
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code, ns)
    A_causal = array(ns["A_causal"])
    assert np.isnan(A_causal[0]).all() and np.isfinite(A_causal[1:]).all()
    assert np.isnan(array(ns["masked"].grad)[0]).all()


# --- 5. the graph and the stepper -----------------------------------------------------------
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
def test_the_drawn_graph_has_the_layers_the_products_the_division_and_the_softmax(lib_name):
    assert ("The graph of section 1's output shows the three layers, the two products, the "
            "division and the softmax") in LESSON.text()
    ns = LESSON.run_cells(library(lib_name), *SECTION_1)
    names = graph_names(ns["O"].grad_fn)
    assert sorted(names) == sorted(["MmBackward0"] * 5 + ["TBackward0"] * 3
                                   + ["AccumulateGrad"] * 4
                                   + ["SoftmaxBackward0", "DivBackward0", "PermuteBackward0"])
    assert "and $x$ at the bottom with three arrows arriving: step 4's fan-out." in LESSON.text()
    layers = [ns[name].grad_fn for name in ("Q", "K", "V")]
    to_x = [node for layer in layers for node, _ in layer.next_functions
            if node is not None and node.name().endswith("AccumulateGrad")
            and node.variable is ns["x"]]
    assert len(to_x) == 3


def test_the_stepper_cell_uses_the_tested_numbers():
    code = LESSON.code_containing("step_backward(L, names=")
    for name, value in (("Q", SMALL_Q), ("K", SMALL_K), ("V", SMALL_V), ("dO", SMALL_DO)):
        assert f"{name} = torch.tensor({value}" in code, name


def test_the_stepper_reads_section_2_at_each_node():
    text = LESSON.text()
    for claim in (
        "**Steps 1 and 2** (`SumBackward0`, `MulBackward0`): the gradient $1$ becomes ones, "
        "then $dO$.",
        "**Step 3**, `MmBackward0` for $O = AV$: its panel reads "
        "`∂(A B)/∂A = grad Bᵀ ∂(A B)/∂B = Aᵀ grad`, section 2's step 1. It sends "
        "$dO\\,V^\\top$ to the softmax and $A^\\top dO$ to $V$, which **step 4** stores in "
        "`V.grad`.",
        "**Step 5**, `SoftmaxBackward0`: `grad_in = s·(grad − Σ grad·s)`, section 2's step 2. "
        "The panel names things its own way: its $s$ is the softmax's output, our $p$ (a row of "
        "$A$, saved as `_saved_result`), and its $a$ is the input, our $z$ (a row of $S$).",
        "**Step 6**, `DivBackward0`: the division by $\\sqrt 2$ divides the gradient by "
        "$\\sqrt 2$ (the divisor is a number, so it needs no gradient).",
        "**Step 7**, `MmBackward0` for $Q K^\\top$ (its $A$ is our $Q$, its $B$ is $K^\\top$): "
        "it sends $dQ = (dS / \\sqrt 2)\\, K$ to `Q`, stored by **step 8**, and "
        "$Q^\\top (dS / \\sqrt 2)$, shaped like $K^\\top$, to `PermuteBackward0`, the `.T`.",
        "**Step 9** transposes it back into $dK = dS^\\top Q / \\sqrt 2$, and **step 10** "
        "stores it in `K.grad`.",
    ):
        assert claim in text, claim
    pytest.importorskip("graphviz")
    stepper = LESSON.stepper("step_backward(L, names=")["stepper"]
    titles = [panel.title for panel in stepper.panels]
    assert titles[1:] == [
        "Step 1 of 10: SumBackward0 (L)", "Step 2 of 10: MulBackward0",
        "Step 3 of 10: MmBackward0 (O)", "Step 4 of 10: AccumulateGrad (V)",
        "Step 5 of 10: SoftmaxBackward0 (A)", "Step 6 of 10: DivBackward0 (S)",
        "Step 7 of 10: MmBackward0", "Step 8 of 10: AccumulateGrad (Q)",
        "Step 9 of 10: PermuteBackward0", "Step 10 of 10: AccumulateGrad (K)"]
    panels = [p.text for p in stepper.panels]
    # the numbers, in float64 from the formulas of section 2
    Q, K, V, dO = (np.array(t) for t in (SMALL_Q, SMALL_K, SMALL_V, SMALL_DO))
    A = softmax(Q @ K.T / math.sqrt(2))
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=-1, keepdims=True))

    def shown(m: np.ndarray) -> str:
        return np.array2string(m, precision=4, separator=", ", floatmode="fixed")

    def flat(text: str) -> str:
        return " ".join(text.replace("[ ", "[").split())

    assert "= [[1., 1.], [1., 1.], [1., 1.]]" in panels[1]
    assert "∂(A B)/∂A = grad Bᵀ    ∂(A B)/∂B = Aᵀ grad" in panels[3]
    step3 = flat(panels[3])
    assert flat(shown(dA)) in step3
    assert flat(shown(A.T @ dO)) in step3
    assert flat(shown(A.T @ dO)) in flat(panels[4]) and "V.grad: None →" in panels[4]
    assert "grad_in = s·(grad − Σ grad·s)" in panels[5]
    assert "∂sᵢ/∂aⱼ = sᵢ·(δᵢⱼ − sⱼ)" in panels[5]   # s the output, a the input
    assert "a → DivBackward0 (S):" in panels[5]
    assert flat(f"_saved_result = {shown(A)}") in flat(panels[5])
    assert flat(shown(dS)) in flat(panels[5])
    assert "b → None: no gradient needed" in panels[6]
    assert flat(shown(dS / math.sqrt(2))) in flat(panels[6])
    assert flat(shown(dS @ K / math.sqrt(2))) in flat(panels[8]) and "Q.grad: None →" in panels[8]
    assert flat(shown(Q.T @ dS / math.sqrt(2))) in flat(panels[7])
    assert flat(shown(dS.T @ Q / math.sqrt(2))) in flat(panels[10])
    assert "K.grad: None →" in panels[10]


def test_pytorch_saves_the_softmax_output_and_records_the_same_nodes():
    torch = pytest.importorskip("torch")
    ns = LESSON.run_cells(torch, "step_backward(L, names=")   # (its backward freed what it saved)
    A = torch.softmax(ns["Q"] @ ns["K"].T / math.sqrt(2), dim=-1)
    assert torch.equal(A.grad_fn._saved_result, A)
    assert graph_names(ns["L"].grad_fn) == graph_names(
        LESSON.run_cells(teachgrad, "step_backward(L, names=")["L"].grad_fn)


@LIBS
def test_sdpa_scales_q_and_k_by_the_fourth_root_and_uses_safe_softmax(lib_name):
    text = LESSON.text()
    assert ("It scales **before** the product: $Q$ and $K^\\top$ each by $1/\\sqrt[4]{d}$ (the "
            "two `MulBackward1` nodes, a multiplication by a number), which together make the "
            "same $1/\\sqrt d$.") in text
    assert ("And its softmax is `SafeSoftmaxBackward0`, which gives weights of 0 instead of NaN "
            "in a row whose keys are all masked") in text
    lib = library(lib_name)
    F = lib.nn.functional
    Q, K, V = (lib.tensor(t, requires_grad=True) for t in (SMALL_Q, SMALL_K, SMALL_V))
    out = F.scaled_dot_product_attention(Q, K, V)
    names = graph_names(out.grad_fn)
    assert names.count("MulBackward1") == 2 and "SafeSoftmaxBackward0" in names
    assert "DivBackward0" not in names and "SoftmaxBackward0" not in names
    # each MulBackward1 multiplies the gradient by 2^(-1/4) (d = 2): called on ones
    product = out.grad_fn.next_functions[0][0].next_functions[0][0]
    assert product.name() == "MmBackward0"
    for mul, _ in product.next_functions:
        assert mul.name() == "MulBackward1"
        shape = (3, 2) if mul.next_functions[0][0].name().endswith("AccumulateGrad") else (2, 3)
        np.testing.assert_allclose(mul(lib.ones(*shape)).numpy(), 2 ** -0.25, rtol=1e-6)
    # a fully masked row: 0 from scaled_dot_product_attention, NaN by hand
    mask = lib.ones(3, 3, dtype=lib.bool).tril()
    mask[0, 0] = False
    safe = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
    assert (array(safe)[0] == 0).all() and np.isfinite(array(safe)).all()
    by_hand = lib.softmax((Q @ K.T / math.sqrt(2)).masked_fill(~mask, float("-inf")), dim=-1)
    assert np.isnan(array(by_hand)[0]).all()


@LIBS
def test_a_batch_of_products_is_bmm_backward_once_per_sample(lib_name):
    assert ("`torch.bmm` multiplies each sample's matrices, and its node is `BmmBackward0`: the "
            "same rule as `MmBackward0`, once per sample.") in LESSON.text()
    lib = library(lib_name)
    rng = np.random.default_rng(3)
    a, b, g = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 5)), rng.normal(size=(2, 3, 5))
    A, B = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
    out = lib.bmm(A, B)
    assert out.grad_fn.name() == "BmmBackward0"
    out.backward(lib.tensor(g))
    for n in range(2):
        np.testing.assert_allclose(A.grad.numpy()[n], g[n] @ b[n].T, rtol=1e-10)
        np.testing.assert_allclose(B.grad.numpy()[n], a[n].T @ g[n], rtol=1e-10)

# --- the exercise ---------------------------------------------------------------------------
def solution_attention_dk(lib):
    cell = LESSON.cell_with_role("solution")
    ns = LESSON.namespace(lib)
    exec(cell.code.split("\ncheck(", 1)[0], ns)
    return ns["attention_dK"]


def test_the_check_covers_5_tokens_with_d_4_and_3_tokens_with_d_8():
    text = LESSON.text()
    assert "for 5 tokens with $d = 4$ and 3 tokens with $d = 8$" in text
    ns = LESSON.namespace(teachgrad)
    code = LESSON.code_containing("def autograd_answer(Q, K, V, dO):").split("\nhint = ", 1)[0]
    exec(code.replace("from teachgrad.notebook import check\n", ""), ns)
    shapes = [[tuple(t.shape) for t in case] for case in ns["cases"]]
    assert shapes == [[(5, 4)] * 4, [(3, 8)] * 4]


@pytest.mark.parametrize("tokens, d", [(5, 4), (3, 8), (4, 1)])
def test_the_solution_is_dk_by_finite_differences_and_by_pytorch(tokens, d):
    Q, K, V, dO = random_case(7, tokens, d)
    numeric = numeric_gradient(lambda k: (attention(Q, k, V) * dO).sum(), K)
    ours = solution_attention_dk(teachgrad)(*(teachgrad.tensor(t) for t in (Q, K, V, dO)))
    np.testing.assert_allclose(ours.numpy(), numeric, atol=1e-8)
    torch = pytest.importorskip("torch")
    k = torch.tensor(K, requires_grad=True)
    torch.nn.functional.scaled_dot_product_attention(
        torch.tensor(Q), k, torch.tensor(V)).backward(torch.tensor(dO))
    np.testing.assert_allclose(k.grad.numpy(), numeric, atol=1e-8)
