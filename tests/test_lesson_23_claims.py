"""Lesson 23 (where the derivative does not exist): its code is PyTorch's, its prose is true.

Three kinds of test:

* the lesson's code cells, run in order with the real PyTorch as ``torch`` (the drawings
  replaced by nothing, ``step_backward`` by ``backward()``), print exactly what the stored
  notebook shows teachgrad printed: every number in the lesson is PyTorch's number;
* each sentence of the prose that states a fact (quoted, so a rewrite shows up here) is
  checked against values derived by hand in float64 (NumPy, not the library under test),
  one-sided finite differences, the subgradient inequality, the stepper, or PyTorch;
* the exercise's check rejects the tempting wrong backwards, and accepts a right one
  written another way.
"""

from __future__ import annotations

import numpy as np
import pytest
from lesson_claims import LIBS, RAISES, Lesson, count_printing_as_stored, library

import teachgrad
from teachgrad.notebook.exercises import NotYet

LESSON = Lesson("23_where_the_derivative_does_not_exist")
H = 1e-3  # the lesson's step for its difference quotients


def quotients(f, at: float, h: float = H) -> list[float]:
    """Left, right and central difference quotients of a NumPy function, in float64."""
    q = [(f(at) - f(at - h)) / h, (f(at + h) - f(at)) / h, (f(at + h) - f(at - h)) / (2 * h)]
    return [float(v) for v in q]


def relu(x):
    return np.maximum(x, 0.0)


GRID = np.linspace(-3, 3, 601)  # the lesson's grid for the subgradient inequality


def is_below(f, at: float, g: float) -> bool:
    """The subgradient inequality f(x) >= f(at) + g (x - at) on the grid, in NumPy."""
    return bool(np.all(f(GRID) >= f(at) + g * (GRID - at) - 1e-12))


# --- the lesson's code, run with PyTorch, prints what the notebook shows ------------------
def test_the_lesson_run_with_pytorch_prints_what_teachgrad_printed():
    torch = pytest.importorskip("torch")
    cells = LESSON.code_cells()
    stored = LESSON.stored_stdout()
    assert cells[0].code == ("import teachgrad as torch\n"
                             "from teachgrad.notebook import draw, inspect, step_backward")
    assert not any(c.marker == RAISES for c in cells)
    compared = count_printing_as_stored(cells, stored, LESSON.namespace(torch))
    assert compared >= 15  # the cells that print something: not only empty outputs
    assert "Not answered yet" in stored[-2]
    assert stored[-1] == "✔ Correct! That is the right list of gradients.\n"


# --- 1. three ways to write ReLU ------------------------------------------------------------
@LIBS
def test_three_relus_agree_in_value_and_differ_at_zero(lib_name):
    text = LESSON.text()
    assert ("The gradients agree everywhere **except at 0**, where the three ops answer 0, 1 "
            "and 0.5") in text
    ns = LESSON.run_cells(library(lib_name), "ways = {")
    grads = {name: x.grad.tolist() for name, x in ns["leaves"].items()}
    assert grads == {"torch.relu(x)": [0.0, 0.0, 1.0], "x.clamp(min=0)": [0.0, 1.0, 1.0],
                     "torch.maximum(x, 0)": [0.0, 0.5, 1.0]}
    for name, f in ns["ways"].items():
        x = library(lib_name).tensor([-1.0, 0.0, 2.0])
        assert f(x).tolist() == relu(np.array([-1.0, 0.0, 2.0])).tolist(), name
    assert LESSON.printed_by_cell("ways = {") == [
        f"{name:>20}: values [0.0, 0.0, 2.0], gradient {grad}"
        for name, grad in grads.items()]
    x = library(lib_name).tensor([1.0], requires_grad=True)
    assert [type(f(x).grad_fn).__name__ for f in ns["ways"].values()] == [
        "ReluBackward0", "ClampBackward1", "MaximumBackward0"]


def test_relus_one_sided_slopes_by_finite_differences():
    assert ("From the left, the slope at 0 is 0; from the right it is 1; the central "
            "difference, which averages the two, is 0.5") in LESSON.text()
    assert "Away from the kink the three quotients agree (1 at $x = 2$)" in LESSON.text()
    at_0 = [round(q, 4) for q in quotients(relu, 0.0)]
    at_2 = [round(q, 4) for q in quotients(relu, 2.0)]
    assert (at_0, at_2) == ([0.0, 1.0, 0.5], [1.0, 1.0, 1.0])
    assert LESSON.printed_by_cell("def slopes(f, at, h=1e-3):") == [
        f"relu at 0: {at_0}", f"relu at 2: {at_2}"]


# --- 2. abs and the subgradient -------------------------------------------------------------
def test_abs_at_zero_is_sgn_and_its_central_difference_is_zero():
    assert "Its backward multiplies by $\\operatorname{sgn}(x)$, which is 0 at 0" in LESSON.text()
    assert "Here the central difference is 0 too: the two sides cancel." in LESSON.text()
    at_0 = [round(q, 4) for q in quotients(np.abs, 0.0)]
    assert at_0 == [-1.0, 1.0, 0.0]
    assert LESSON.printed_by_cell("x.abs().sum().backward()") == [
        str(np.sign([-1.0, 0.0, 2.0]).tolist()), f"abs at 0: {at_0}"]


def test_the_subgradients_of_relu_and_abs_at_zero():
    text = LESSON.text()
    assert ("for $|x|$ at 0, every $g$ from $-1$ to $1$; for ReLU at 0, every $g$ from 0 to 1. "
            "Checked on a grid of 601 points from $-3$ to $3$") in text
    assert "torch.linspace(-3, 3, 601" in LESSON.code_containing("def is_subgradient(")
    assert ("All three ReLU answers, 0, 0.5 and 1, are subgradients, and so is `abs`'s 0."
            in text)
    slopes = [-1.5, -1.0, 0.0, 0.5, 1.0, 1.5]
    assert LESSON.printed_by_cell("def is_subgradient(") == [
        f"slope {g:+.1f}: under relu {0 <= g <= 1!s:5}  under abs {-1 <= g <= 1}"
        for g in slopes]
    for g in slopes:   # the rule, by the inequality on the grid
        assert is_below(relu, 0.0, g) == (0 <= g <= 1)
        assert is_below(np.abs, 0.0, g) == (-1 <= g <= 1)


def test_every_better_point_lies_where_minus_g_points():
    assert ("a point where $f$ is lower than $f(x_0)$ must have $g\\,(x - x_0) < 0$, so every "
            "better point lies on the side that $-g$ points to") in LESSON.text()
    for f, at, gs in [(np.abs, 0.5, [1.0]), (relu, 0.0, [0.0, 0.5, 1.0]),
                      (lambda x: np.abs(x - 1) + relu(x), 0.0, [-1.0, 0.0])]:
        for g in gs:
            assert is_below(f, at, g)
            better = GRID[f(GRID) < f(at)]
            assert np.all(g * (better - at) < 0)


# --- 3. max and min with ties ---------------------------------------------------------------
@LIBS
def test_max_min_amax_split_and_max_dim_picks(lib_name):
    text = LESSON.text()
    assert ("`max()`, `min()` and `amax()`, **split the gradient evenly** between the tied "
            "elements: $\\tfrac12$ each. `max(dim=0)` also returns an index (1, the first of "
            "the two), and its gradient goes to that element only.") in text
    ns = LESSON.run_cells(library(lib_name), "def slopes(", "values = [1.0, 3.0, 3.0, 2.0]")
    assert ns["out"].indices.item() == 1   # PyTorch documents: the first maximal value
    assert LESSON.printed_by_cell("values = [1.0, 3.0, 3.0, 2.0]") == [
        "     x.max():  MaxBackward1, gradient [0.0, 0.5, 0.5, 0.0]",
        "    x.amax(): AmaxBackward0, gradient [0.0, 0.5, 0.5, 0.0]",
        "     x.min():  MinBackward1, gradient [1.0, 0.0, 0.0, 0.0]",
        "x.max(dim=0):  MaxBackward0, gradient [0.0, 1.0, 0.0, 0.0]"]


def test_any_split_of_a_tie_is_a_subgradient_of_max():
    assert ("at a tie, any split of the 1 between the tied elements is, and nothing for the "
            "others") in LESSON.text()
    x = np.array([1.0, 3.0, 3.0, 2.0])
    ys = np.random.default_rng(0).normal(3, 2, size=(5000, 4))
    for a in (0.0, 0.25, 0.5, 1.0):
        g = np.array([0.0, a, 1 - a, 0.0])
        assert np.all(ys.max(axis=1) >= x.max() + (ys - x) @ g - 1e-12)
    g = np.array([0.1, 0.45, 0.45, 0.0])   # something for an element that is not the max
    assert not np.all(ys.max(axis=1) >= x.max() + (ys - x) @ g - 1e-12)


def test_the_stepper_splits_two_between_the_tied_elements():
    text = LESSON.text()
    assert "Step 2 receives 2 and sends $[0, 1, 1, 0]$ to `x`." in text
    assert ("sends each element $\\tfrac1k$ of the gradient it receives if the element equals "
            "the result (here $k = 2$)") in text
    pytest.importorskip("graphviz")
    stepper = LESSON.stepper("step_backward(L, names=")["stepper"]
    titles = [panel.title for panel in stepper.panels][1:]
    assert titles == ["Step 1 of 3: MulBackward0 (L)", "Step 2 of 3: MaxBackward1 (m)",
                      "Step 3 of 3: AccumulateGrad (x)"]
    panel = " ".join(stepper.panels[2].text.split())
    assert "Gradient arriving ∂L/∂m (from step 1, MulBackward0 (L)): 2." in panel
    assert "= [0., 1., 1., 0.]" in panel
    assert "_saved_self) = [1., 3., 3., 2.]" in panel and "_saved_result = 3." in panel


@LIBS
def test_a_three_way_tie_a_third_each_and_gradcheck_fails(lib_name):
    text = LESSON.text()
    assert ("With three tied elements each would get a third, while a finite difference in one "
            "of them still says $\\tfrac12$") in text
    assert "So `gradcheck` at a tie fails" in text
    f = np.max
    nudge = np.array([H, 0.0, 0.0])
    x = np.array([3.0, 3.0, 3.0])
    central = (f(x + nudge) - f(x - nudge)) / (2 * H)
    assert round(central, 4) == 0.5
    assert LESSON.printed_by_cell("x = torch.tensor([3.0, 3.0, 3.0]") == [
        "x.max() gradient: [0.3333, 0.3333, 0.3333]", "central difference in x[0]: 0.5"]
    lib = library(lib_name)
    t = lib.tensor([3.0, 3.0, 3.0], dtype=lib.float64, requires_grad=True)
    assert not lib.autograd.gradcheck(lambda v: v.max(), (t,), raise_exception=False)
    t = lib.tensor([1.0, 3.0, 2.0], dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradcheck(lambda v: v.max(), (t,))   # no tie: it passes


# --- 4. clamp against hardtanh and relu6 ----------------------------------------------------
def test_clamp_counts_the_bounds_as_inside_hardtanh_as_outside():
    text = LESSON.text()
    assert ("`clamp` counts the bounds as inside (gradient 1), `hardtanh` as outside "
            "(gradient 0)") in text
    assert "`relu6`, which PyTorch records as a `HardtanhBackward0` with bounds 0 and 6" in text

    def inside(at, lo, hi, bounds_inside):
        at = np.array(at)
        keep = (at >= lo) & (at <= hi) if bounds_inside else (at > lo) & (at < hi)
        return keep.astype(float).tolist()

    a, b = [-2.0, -1.0, 0.0, 1.0, 2.0], [-1.0, 0.0, 3.0, 6.0, 7.0]
    assert LESSON.printed_by_cell("F = torch.nn.functional") == [
        f" x.clamp(-1, 1) at {a}:    ClampBackward1, gradient {inside(a, -1, 1, True)}",
        f"  F.hardtanh(x) at {a}: HardtanhBackward0, gradient {inside(a, -1, 1, False)}",
        f"  x.clamp(0, 6) at {b}:    ClampBackward1, gradient {inside(b, 0, 6, True)}",
        f"     F.relu6(x) at {b}: HardtanhBackward0, gradient {inside(b, 0, 6, False)}"]
    torch = pytest.importorskip("torch")
    node = torch.nn.functional.relu6(torch.tensor([1.0], requires_grad=True)).grad_fn
    assert (node.name(), node._saved_min_val, node._saved_max_val) == ("HardtanhBackward0", 0, 6)


# --- 5. sort, topk, median ------------------------------------------------------------------
@LIBS
def test_sort_sends_each_weight_back_along_its_index(lib_name):
    assert ("The two 2s are sorted third and fourth: `x[0]`, the one that comes first, gets "
            "weight 3, `x[2]` weight 4.") in LESSON.text()
    ns = LESSON.run_cells(library(lib_name), "s = x.sort()")
    x, weights = np.array([2.0, 1.0, 2.0, 0.0]), np.array([1.0, 2.0, 3.0, 4.0])
    order = np.argsort(x, kind="stable")
    by_hand = np.zeros(4)
    by_hand[order] = weights
    assert ns["s"].indices.tolist() == order.tolist() == [3, 1, 0, 2]
    assert ns["x"].grad.tolist() == by_hand.tolist() == [3.0, 2.0, 4.0, 1.0]
    assert LESSON.printed_by_cell("s = x.sort()") == [
        "values [0.0, 1.0, 2.0, 2.0] indices [3, 1, 0, 2]", "x.grad [3.0, 2.0, 4.0, 1.0]"]
    swapped = by_hand.copy()
    swapped[[0, 2]] = swapped[[2, 0]]       # the other order of the tie: same sum
    assert (np.sort(x) * weights).sum() == (x[[3, 1, 2, 0]] * weights).sum()
    assert swapped.tolist() != by_hand.tolist()


def test_topk_ties_teachgrad_takes_the_first_pytorch_others():
    assert ("teachgrad takes the first ones, indices `[1, 2]`; PyTorch 2.13 on a CPU answers "
            "`[2, 3]` here") in LESSON.text()
    x = teachgrad.tensor([1.0, 3.0, 3.0, 3.0], requires_grad=True)
    top = x.topk(2)
    top.values.sum().backward()
    assert top.indices.tolist() == [1, 2] and x.grad.tolist() == [0.0, 1.0, 1.0, 0.0]
    assert LESSON.printed_by_cell("top = x.topk(2)") == [
        "values [3.0, 3.0]", "elements with a gradient: 2  total: 2.0"]
    torch = pytest.importorskip("torch")
    assert torch.__version__.startswith("2.13")
    x = torch.tensor([1.0, 3.0, 3.0, 3.0], requires_grad=True)
    top = x.topk(2)
    top.values.sum().backward()
    assert top.indices.tolist() == [2, 3] and x.grad.tolist() == [0.0, 0.0, 1.0, 1.0]


@LIBS
def test_median_splits_like_max_and_median_dim_picks(lib_name):
    assert ("over all elements it splits between the elements equal to it; along a dimension "
            "it returns an index and the gradient goes there") in LESSON.text()
    values = [1.0, 2.0, 2.0, 3.0]
    lower_middle = np.sort(values)[(len(values) - 1) // 2]
    assert lower_middle == 2.0
    tied = (np.array(values) == lower_middle).astype(float)
    assert LESSON.printed_by_cell('("x.median()"') == [
        f"     x.median(): gradient {(tied / tied.sum()).tolist()}",
        "x.median(dim=0): gradient [0.0, 1.0, 0.0, 0.0]"]
    lib = library(lib_name)
    x = lib.tensor(values)
    assert x.median().item() == lower_middle and x.median(dim=0).indices.item() == 1


# --- 6. flat steps --------------------------------------------------------------------------
def test_floor_round_sign_have_zero_gradient_and_jumps_have_no_slope():
    text = LESSON.text()
    assert ("At 1.0, `floor` jumps from 0 to 1: the left quotient is $1/h = 1000$ and grows as "
            "$h$ shrinks. (`round` rounds halves to even: $-1.5$ to $-2$, $0.5$ to $0$.)") in text
    x = np.array([-1.5, -1.0, -0.3, 0.0, 0.5, 1.7])
    printed = LESSON.printed_by_cell('for name in ["floor", "round", "sign"]:')
    zeros = [0.0] * 6
    assert printed[:3] == [f"{name:>5}: values {f(x).tolist()}, gradient {zeros}"
                           for name, f in [("floor", np.floor), ("round", np.round),
                                           ("sign", np.sign)]]
    assert np.round(-1.5) == -2 and np.round(0.5) == 0
    assert printed[3:] == [f"floor at 0.3: {[round(q, 4) for q in quotients(np.floor, 0.3)]}",
                           f"floor at 1.0: {[round(q, 4) for q in quotients(np.floor, 1.0)]}"]
    assert [round(q, 4) for q in quotients(np.floor, 1.0)] == [1000.0, 0.0, 500.0]
    assert quotients(np.floor, 1.0, h=1e-6)[0] == pytest.approx(1e6)   # grows as h shrinks


def by_hand_training(straight_through: bool, steps: int = 5, lr: float = 0.05) -> list[str]:
    """The lesson's loop in float64 NumPy: the gradient is 0 through round, and through
    the straight-through estimator (2/n) Σ (round(w x) − y) x."""
    xs, ys = np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 6.0])
    w, lines = 0.7, []
    for step in range(steps):
        error = np.round(w * xs) - ys
        loss = (error ** 2).mean()
        grad = (2 * error * xs).mean() if straight_through else 0.0
        lines.append(f"step {step}: w = {w:.4f}, loss = {loss:.4f}, dloss/dw = {grad:+.4f}")
        w -= lr * grad
    return lines


def test_round_learns_nothing_and_the_straight_through_estimator_learns():
    text = LESSON.text()
    assert "The loss is $\\tfrac{26}{3} = 8.6667$ and stays there" in text
    assert ("The first gradient, $-12.6667$, is $\\tfrac23 \\sum (\\operatorname{round}(w x_i) "
            "- y_i)\\, x_i$") in text
    assert ("After four steps $w = 1.9$ and $\\operatorname{round}(1.9 x) = 2x$ for all three: "
            "loss 0.") in text
    assert LESSON.printed_by_cell("train(torch.round)") == by_hand_training(False)
    assert LESSON.printed_by_cell("def straight_through(q):") == by_hand_training(True)
    assert f"{26 / 3:.4f}" == "8.6667" and f"{2 / 3 * (-1 - 6 - 12):.4f}" == "-12.6667"
    assert np.round(1.9 * np.array([1.0, 2.0, 3.0])).tolist() == [2.0, 4.0, 6.0]


@LIBS
def test_the_straight_through_value_is_rounded_and_its_graph_has_no_round(lib_name):
    assert ("`q + (q.round() - q).detach()` has the value of `q.round()`, and the gradient of "
            "`q`") in LESSON.text()
    assert "no `RoundBackward0` in it" in LESSON.text()
    ns = LESSON.run_cells(library(lib_name), "xs = torch.tensor([1.0, 2.0, 3.0])",
                          "def straight_through(q):", "quantized = straight_through(q)")
    assert ns["quantized"].tolist() == np.round(0.7 * np.array([1.0, 2.0, 3.0])).tolist()
    seen, todo = [], [ns["quantized"].grad_fn]
    while todo:
        node = todo.pop()
        if node is not None:
            seen.append(type(node).__name__)
            todo.extend(n for n, _ in node.next_functions)
    assert sorted(seen) == ["AccumulateGrad", "AddBackward0", "MulBackward0"]
    ns["quantized"].sum().backward()
    assert ns["w"].grad.item() == pytest.approx(6.0)   # d/dw Σ w xᵢ = Σ xᵢ


# --- 7. the table ---------------------------------------------------------------------------
TABLE = {  # row of the table -> (op at its kink, input, gradient by the row's rule)
    "| `relu(x)` | $x = 0$ | none (0 left, 1 right) | 0 |":
        (lambda lib, x: lib.relu(x), [0.0], [0.0]),
    "| `x.clamp(min=0)` | $x = 0$ | none | 1 (the bound is inside) |":
        (lambda lib, x: x.clamp(min=0), [0.0], [1.0]),
    "| `abs(x)` | $x = 0$ | none ($-1$ left, 1 right) | 0, $\\operatorname{sgn}(0)$ |":
        (lambda lib, x: x.abs(), [0.0], [0.0]),
    "| `max()`, `min()`, `amax()`, `median()` | $k$ tied elements | none | $\\tfrac1k$ to "
    "each tied element |":
        (lambda lib, x: x.max() + x.min() + x.amax() + x.median(), [5.0, 5.0, 5.0, 5.0],
         [1.0, 1.0, 1.0, 1.0]),
    "| `clamp(lo, hi)` | $x$ = a bound | none | 1 |":
        (lambda lib, x: x.clamp(-1, 1), [-1.0, 1.0], [1.0, 1.0]),
    "| `hardtanh`, `relu6` | $x$ = a bound | none | 0 |":
        (lambda lib, x: lib.nn.functional.hardtanh(x[:2]).sum()
         + lib.nn.functional.relu6(x[2:]).sum(), [-1.0, 1.0, 0.0, 6.0], [0.0] * 4),
    "| `floor`, `round`, `sign` | everywhere | 0 between jumps, none at them | 0 |":
        (lambda lib, x: x.floor() + x.round() + x.sign(), [0.0, 0.5, 1.0], [0.0, 0.0, 0.0]),
}


@LIBS
def test_the_table_of_conventions(lib_name):
    # (each of the four reductions at a 4-way tie gives 1/4 to each element: 4 · 1/4 = 1)
    text = LESSON.text()
    lib = library(lib_name)
    for row, (f, at, want) in TABLE.items():
        assert row in text, row
        x = lib.tensor(at, requires_grad=True)
        f(lib, x).sum().backward()
        assert x.grad.tolist() == want, row
    x, y = lib.tensor(2.0, requires_grad=True), lib.tensor(2.0, requires_grad=True)
    lib.maximum(x, y).backward()
    assert "| `maximum(x, y)` | $x = y$ | none | $\\tfrac12$ to each |" in text
    assert (x.grad.item(), y.grad.item()) == (0.5, 0.5)


def test_the_convex_rows_answer_a_subgradient():
    assert ("Where the function is convex (`relu`, `clamp(min=0)`, `maximum`, `abs`, `max()`, "
            "`amax()`), the answer is a subgradient; `clamp` and `hardtanh` at a bound give the "
            "slope from one side, inside or outside.") in LESSON.text()
    for f, g in [(relu, 0.0), (relu, 1.0), (relu, 0.5), (np.abs, 0.0)]:
        assert is_below(f, 0.0, g)
    clamp = lambda x: np.clip(x, -1.0, 1.0)  # noqa: E731
    # clamp's 1 is the slope on the inside of each bound, hardtanh's 0 the one outside
    assert quotients(clamp, -1.0)[:2] == pytest.approx([0.0, 1.0])
    assert quotients(clamp, 1.0)[:2] == pytest.approx([1.0, 0.0])
    # (max() and maximum at a tie: test_any_split_of_a_tie_is_a_subgradient_of_max)


# --- the exercise ----------------------------------------------------------------------------
EXERCISE_INPUTS = [[1.0, 3.0, 3.0, 2.0], [3.0, 3.0, 3.0], [0.5, -1.0, 2.0],
                   [[1.0, 4.0], [4.0, 4.0]]]


def expected_by_hand() -> list[float]:
    """∂(3 max x)/∂x by the even split, in NumPy."""
    grads = []
    for values in EXERCISE_INPUTS:
        tied = (np.array(values) == np.max(values)).astype(float).ravel()
        grads += (3 * tied / tied.sum()).tolist()
    return grads


def backward_with(body: str) -> str:
    """The exercise's class with ``body`` as its backward's last lines."""
    exercise = LESSON.cell_with_role("exercise").code
    head = exercise.split("        raise NotImplementedError")[0]
    return head + "".join(f"        {line}\n" for line in body.splitlines())


WRONG_BACKWARDS = {
    "the whole gradient to every tied element":
        "return grad_output * (x == result).to(x.dtype)",
    "the whole gradient to the first max only":
        "g = torch.zeros_like(x)\n"
        "g.view(-1)[x.argmax()] = grad_output\n"
        "return g",
    "grad_output forgotten":
        "tied = (x == result).to(x.dtype)\nreturn tied / tied.sum()",
    "one over the number of elements":
        "return grad_output * (x == result).to(x.dtype) / x.numel()",
}
RIGHT_ANOTHER_WAY = ("count = int((x == result).sum())\n"
                     "return torch.where(x == result, grad_output / count, 0.0)")


def run_check(body: str) -> None:
    ns = LESSON.namespace(teachgrad)
    exec(backward_with(body), ns)
    exec(LESSON.cell_with_role("check").code, ns)


@pytest.mark.parametrize("mistake", sorted(WRONG_BACKWARDS))
def test_the_check_rejects_a_tempting_wrong_backward(mistake):
    with pytest.raises(NotYet, match="is not the right list of gradients"):
        run_check(WRONG_BACKWARDS[mistake])


def test_the_check_accepts_a_backward_written_another_way(capsys):
    run_check(RIGHT_ANOTHER_WAY)
    assert capsys.readouterr().out == "✔ Correct! That is the right list of gradients.\n"


def test_the_placeholder_is_not_answered_yet(capsys):
    ns = LESSON.namespace(teachgrad)
    exec(LESSON.cell_with_role("exercise").code, ns)
    exec(LESSON.cell_with_role("check").code, ns)
    assert capsys.readouterr().out.startswith("… Not answered yet (your turn:")


@LIBS
def test_the_checked_gradients_by_hand(lib_name):
    assert ("four inputs: two tied elements, three tied elements, no tie, and a $2 \\times 2$ "
            "matrix with three tied elements") in LESSON.text()
    ns = LESSON.namespace(library(lib_name))
    exec(LESSON.cell_with_role("check").code.split("\nhint = ")[0]
         .replace("from teachgrad.notebook import check\n", ""), ns)
    assert ns["INPUTS"] == EXERCISE_INPUTS
    assert ns["gradients"](library(lib_name).max) == pytest.approx(expected_by_hand())
    exec(LESSON.cell_with_role("solution").code.split("\n\ncheck(")[0], ns)
    assert ns["gradients"](ns["EvenMax"].apply) == pytest.approx(expected_by_hand())
    assert expected_by_hand() == pytest.approx([0, 1.5, 1.5, 0, 1, 1, 1, 0, 0, 3, 0, 1, 1, 1])
