"""Lesson 22 (build your own autograd engine): its code is PyTorch's, its prose is true.

Three kinds of test:

* the lesson's code cells, run in order with the real PyTorch as ``torch`` (the drawing
  replaced by nothing, ``step_backward`` by ``backward()``), print exactly what the stored
  notebook shows teachgrad printed: every number in the lesson is PyTorch's number;
* each sentence of the prose that states a fact (quoted, so a rewrite shows up here) is
  checked against hand-derived formulas in float64, finite differences, the stepper, or
  PyTorch's own graph and the order its engine really runs the nodes in;
* the exercise's check rejects the tempting wrong divisions, and accepts a right one
  written another way.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from lesson_claims import LIBS, RAISES, Lesson, count_printing_as_stored, library

import teachgrad
from teachgrad.notebook.exercises import NotYet

LESSON = Lesson("22_build_your_own_autograd_engine", math=math, np=np)

X, W, BIAS = 0.5, -1.2, 0.3
#: the cells that define Value and its backward (sections 1 to 3), in order
ENGINE = ("class Value:", "def power(self, k):", "def topological_order(root):")
SECTION_3 = ENGINE + ("L = y ** 2 + y.exp()\nL.backward()",)
SECTION_4 = SECTION_3 + ("tx = torch.tensor(0.5",)


# --- the expression, by hand in float64 -----------------------------------------------------
def loss(x: float, w: float = W, bias: float = BIAS) -> float:
    """L = y² + eʸ with y = tanh(x w + bias)."""
    y = math.tanh(x * w + bias)
    return y ** 2 + math.exp(y)


def hand_gradients() -> dict[str, float]:
    """Section 3's chain rule, written out."""
    y = math.tanh(X * W + BIAS)
    dy = 2 * y + math.exp(y)
    dn = (1 - y ** 2) * dy
    return {"y": dy, "n": dn, "x": W * dn, "w": X * dn, "bias": dn}


def central(f, at: float, h: float = 1e-6) -> float:
    return (f(at + h) - f(at - h)) / (2 * h)


# --- the lesson's code, run with PyTorch, prints what the notebook shows ------------------
def test_the_lesson_run_with_pytorch_prints_what_teachgrad_printed():
    torch = pytest.importorskip("torch")
    cells = LESSON.code_cells()
    stored = LESSON.stored_stdout()
    assert cells[0].code == ("import math\n\nimport numpy as np\n\nimport teachgrad as torch\n"
                             "from teachgrad.notebook import draw, step_backward")
    assert not any(c.marker == RAISES for c in cells)
    compared = count_printing_as_stored(cells, stored, LESSON.namespace(torch))
    assert compared >= 14  # the cells that print something: not only empty outputs
    assert "Not answered yet" in stored[-2]
    assert stored[-1] == "✔ Correct! That is the right list of gradients.\n"


def test_the_engine_is_about_sixty_lines():
    assert "About sixty lines." in LESSON.text()
    lines = [line.strip() for snippet in ENGINE
             for line in LESSON.code_containing(snippet).splitlines()]
    code = [line for line in lines if line and not line.startswith(("#", '"""'))]
    assert 55 <= len(code) <= 65, len(code)


# --- 1. a number that remembers -------------------------------------------------------------
def test_the_chain_rule_by_hand_on_n():
    assert ("$\\partial n / \\partial x = w = -1.2$, $\\partial n / \\partial w = x = 0.5$ and "
            "$\\partial n / \\partial \\text{bias} = 1$: right.") in LESSON.text()
    assert LESSON.printed_by_cell("n.grad = 1.0") == ["-1.2 0.5 1.0"]
    assert LESSON.printed_by_cell("xw = x * w") == [
        "Value(data=-0.3000, grad=0.0000)",
        "+ (Value(data=-0.6000, grad=0.0000), Value(data=0.3000, grad=0.0000))"]
    assert math.isclose(central(lambda a: a * W + BIAS, X), W)
    assert math.isclose(central(lambda b: X * W + b, BIAS), 1.0)


def test_the_local_derivatives_of_the_closures_by_finite_differences():
    Value = LESSON.run_cells(teachgrad, *ENGINE)["Value"]
    for make, f in [(lambda v: v ** 3, lambda a: a ** 3), (Value.tanh, math.tanh),
                    (Value.exp, math.exp)]:
        a = Value(0.7)
        out = make(a)
        out.grad = 2.0                       # a gradient from above, not 1: the chain rule
        out._backward()
        assert math.isclose(a.grad, 2.0 * central(f, 0.7), rel_tol=1e-8), out._op
    a, b = Value(0.7), Value(-1.3)
    for out, da, db in [(a + b, 1.0, 1.0), (a * b, -1.3, 0.7)]:
        a.grad = b.grad = 0.0
        out.grad = 2.0
        out._backward()
        assert (a.grad, b.grad) == (2.0 * da, 2.0 * db)


# --- 3. backward ----------------------------------------------------------------------------
def test_backward_gives_the_hand_derived_gradients():
    text = LESSON.text()
    assert "$$n = x w + \\text{bias}, \\qquad y = \\tanh n, \\qquad L = y^2 + e^{y}.$$" in text
    assert ("By hand: $\\partial L / \\partial y = 2y + e^{y}$, the two uses of $y$ added; "
            "$\\partial L / \\partial n = (1 - y^2) \\, \\partial L / \\partial y$") in text
    ns = LESSON.run_cells(teachgrad, *SECTION_3)
    right = hand_gradients()
    for name, value in right.items():
        assert math.isclose(ns[name].grad, value, rel_tol=1e-12), name
    assert math.isclose(right["x"], central(loss, X), rel_tol=1e-7)
    assert math.isclose(right["w"], central(lambda w: loss(X, w), W), rel_tol=1e-7)
    assert math.isclose(right["bias"], central(lambda b: loss(X, W, b), BIAS), rel_tol=1e-7)
    printed = LESSON.printed_by_cell("L = y ** 2 + y.exp()\nL.backward()")
    assert printed[0] == f"Value(data={loss(X):.4f}, grad=1.0000)"
    assert printed[1:] == [f"{name:>4}: {right[name]:+.4f}" for name in ("y", "n", "x", "w",
                                                                         "bias")]
    assert LESSON.printed_by_cell("dL_dy = 2 * t + math.exp(t)") == [
        " ".join(f"{right[k]:+.4f}" for k in ("y", "n", "x", "w"))]


def test_the_topological_order_puts_each_value_after_its_parents():
    ns = LESSON.run_cells(teachgrad, *SECTION_3)
    order = ns["topological_order"](ns["L"])
    assert len(order) == len({id(v) for v in order}) == 9
    for i, v in enumerate(order):
        assert all(order.index(p) < i for p in v._parents)


# --- 4. the same expression in teachgrad ----------------------------------------------------
@LIBS
def test_side_by_side_the_graphs_correspond_one_to_one(lib_name):
    text = LESSON.text()
    assert "One to one, nine and nine." in text
    assert ("`MulBackward0` is the `*` closure, `AddBackward0` the `+` one, `TanhBackward0` the "
            "`tanh` one, `PowBackward0` and `ExpBackward0` the other two; and a leaf, which has "
            "no closure, is an `AccumulateGrad` node") in text
    printed = LESSON.printed_by_cell("def side_by_side(v, node, seen):")
    assert len(printed) == 9
    pairs = {"+": "AddBackward0", "*": "MulBackward0", "**2": "PowBackward0",
             "tanh": "TanhBackward0", "exp": "ExpBackward0", "leaf": "AccumulateGrad"}
    for line in printed:
        op, _, arrow, node = line.split()
        assert arrow == "↔" and pairs[op] == node, line
    # and the library's graph, walked on its own, has the same nine nodes
    ns = LESSON.run_cells(library(lib_name), *SECTION_4)
    seen, todo = set(), [ns["tL"].grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(n for n, _ in node.next_functions)
    assert sorted(type(n).__name__ for n in seen) == sorted(
        ["AddBackward0", "PowBackward0", "ExpBackward0", "TanhBackward0", "AddBackward0",
         "MulBackward0"] + ["AccumulateGrad"] * 3)


@LIBS
def test_ours_and_the_librarys_gradients_side_by_side(lib_name):
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *SECTION_4)
    ns["tL"].backward()
    for ours, theirs in (("x", "tx"), ("w", "tw"), ("bias", "tbias")):
        assert math.isclose(ns[ours].grad, ns[theirs].grad.item(), rel_tol=1e-6)
    right = hand_gradients()
    assert LESSON.printed_by_cell("ours {ours.grad:+.4f}") == [
        f"{name:>4}: ours {right[name]:+.4f}   teachgrad {right[name]:+.4f}"
        for name in ("x", "w", "bias")]


STEPPER_CLAIMS = (
    "**Step 1**, `AddBackward0` ($L$): sends 1 to both terms.",
    "**Steps 2 and 3**, `ExpBackward0` then `PowBackward0`: $e^y = 0.7473$ and $2y = -0.5826$ "
    "go down to $y$. (The engine ran `exp` first: it runs the most recently created ready "
    "node first, as PyTorch does.)",
    "**Step 4**, `TanhBackward0` ($y$): \"2 contributions arrived\", and the engine adds them, "
    "$0.7473 + (-0.5826) = 0.1647$, **before** it runs the node; times $1 - y^2 = 0.9151$, it "
    "sends $0.1507$ to $n$.",
    "**Steps 5 to 9**: $n$'s `AddBackward0` sends $0.1507$ to `bias` and to the product, whose "
    "`MulBackward0` sends $0.1507 \\cdot w = -0.1808$ to $x$ and $0.1507 \\cdot x = 0.0753$ to "
    "$w$; the `AccumulateGrad` steps store them.",
)
STEP_TITLES = [
    "Step 1 of 9: AddBackward0 (L)", "Step 2 of 9: ExpBackward0", "Step 3 of 9: PowBackward0",
    "Step 4 of 9: TanhBackward0 (y)", "Step 5 of 9: AddBackward0 (n)",
    "Step 6 of 9: AccumulateGrad (bias)", "Step 7 of 9: MulBackward0",
    "Step 8 of 9: AccumulateGrad (x)", "Step 9 of 9: AccumulateGrad (w)"]


def test_the_stepper_shows_the_numbers_the_text_quotes():
    text = LESSON.text()
    for claim in STEPPER_CLAIMS:
        assert claim in text, claim
    # the numbers, in float64
    y = math.tanh(X * W + BIAS)
    right = hand_gradients()
    assert [f"{v:.4f}" for v in (math.exp(y), 2 * y, right["y"], 1 - y ** 2, right["n"],
                                 right["x"], right["w"])] == [
        "0.7473", "-0.5826", "0.1647", "0.9151", "0.1507", "-0.1808", "0.0753"]
    pytest.importorskip("graphviz")
    ns = LESSON.stepper("step_backward(tL, names=", LESSON.run_cells(teachgrad, *SECTION_4))
    stepper = ns["stepper"]
    assert [panel.title for panel in stepper.panels][1:] == STEP_TITLES
    panels = [" ".join(p.text.split()) for p in stepper.panels]
    assert "a → PowBackward0: 1. × (∂(a+b)/∂a = 1) = 1." in panels[1]
    assert "b → ExpBackward0: 1. × (∂(a+b)/∂b = 1) = 1." in panels[1]
    assert "eᵃ = 0.7473) = 0.7473" in panels[2]
    assert "n·aⁿ⁻¹ = -0.5826) = -0.5826" in panels[3]
    assert "2 contributions arrived" in panels[4] and "0.7473 + -0.5826 = 0.1647" in panels[4]
    assert "1 − tanh²a = 0.9151) = 0.1507" in panels[4]
    assert "b → AccumulateGrad (bias): 0.1507" in panels[5]
    assert "b = -1.2000) = -0.1808" in panels[7] and "a = 0.5000) = 0.0753" in panels[7]
    assert "x.grad: None → -0.1808" in panels[8] and "w.grad: None → 0.0753" in panels[9]


def test_pytorchs_engine_runs_the_nodes_in_the_steppers_order():
    # the order is PyTorch's, measured with a pre-hook on each of its nodes
    torch = pytest.importorskip("torch")
    ns = LESSON.run_cells(torch, *SECTION_4)
    ran, seen, todo = [], set(), [ns["tL"].grad_fn]
    names = {ns["tL"].grad_fn: "L", ns["ty"].grad_fn: "y", ns["tn"].grad_fn: "n"}
    leaves = {"x": ns["tx"], "w": ns["tw"], "bias": ns["tbias"]}
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        label = type(node).__name__
        if hasattr(node, "variable"):
            (name,) = [k for k, v in leaves.items() if v is node.variable]
            label += f" ({name})"
        elif node in names:
            label += f" ({names[node]})"
        node.register_prehook(lambda grads, label=label: ran.append(label))
        todo.extend(n for n, _ in node.next_functions)
    ns["tL"].backward()
    assert ran == [title.split(": ", 1)[1] for title in STEP_TITLES]
    # "the most recently created ready node first": exp was made after the power
    assert ns["tL"].grad_fn.next_functions[0][0].name() == "PowBackward0"


# --- 5. why the order matters ---------------------------------------------------------------
def test_the_first_met_order_reads_y_grad_too_early():
    text = LESSON.text()
    assert ("`y.grad` ends right, $+0.1647$: both contributions did arrive. But `tanh`'s "
            "closure ran third, when only the `**2` contribution, $-0.5826$, was there") in text
    assert ("passed on $(1 - y^2) \\cdot (-0.5826) = -0.5332$. Every gradient below $y$ is "
            "wrong, $x$'s even with the wrong sign ($+0.6398$ instead of $-0.1808$).") in text
    printed = LESSON.printed_by_cell("def first_met_order(root):")
    assert printed[0] == "['+', '**2', 'tanh', '+', '*', 'leaf', 'leaf', 'leaf', 'exp']"
    assert printed[0].split(", ")[2] == "'tanh'"                     # third
    y = math.tanh(X * W + BIAS)
    too_early = (1 - y ** 2) * (2 * y)                               # the ** contribution only
    right = hand_gradients()
    wrong = {"y": right["y"], "n": too_early, "x": W * too_early, "w": X * too_early,
             "bias": too_early}
    assert printed[1:] == [f"{k:>4}: {wrong[k]:+.4f}" for k in ("y", "n", "x", "w", "bias")]
    assert (f"{too_early:+.4f}", f"{wrong['x']:+.4f}") == ("-0.5332", "+0.6398")
    assert all(abs(wrong[k] - right[k]) > 0.3 for k in ("n", "x", "w", "bias"))
    assert wrong["x"] * right["x"] < 0
    assert "same by **counting** (lesson 6)" in text
    assert "counts, for every node, how many arrows lead into it" in " ".join(
        (LESSON.NOTEBOOKS / "tools" / "src" / "06_fan_out_and_gradient_accumulation.md")
        .read_text(encoding="utf-8").split())


# --- 6. why += -----------------------------------------------------------------------------
def test_the_fan_out_test_passes_with_plus_equals_and_fails_with_equals():
    assert ("the second line overwrites the first contribution instead of adding to it, and "
            "$3$ is left where $6$ belongs") in LESSON.text()
    assert LESSON.printed_by_cell("print(test_fan_out(Value))") == ["passed"]
    assert LESSON.printed_by_cell("class Overwriting(Value):") == [
        "failed: a.grad is 3.0, not 6.0"]
    assert central(lambda a: a * a, 3.0) == pytest.approx(6.0)


# --- 7. arrays ------------------------------------------------------------------------------
@LIBS
def test_the_array_engine_matches_the_library_and_the_formulas(lib_name):
    assert ("With $S = \\sum (A B)$, the gradient of $A$ is every row equal to $B^\\top$, and "
            "that of $B$ the column sums of $A$") in LESSON.text()
    ns = LESSON.run_cells(library(lib_name), *ENGINE, "class Array:", "A = Array(")
    a, b = np.array([[1.0, 2.0], [3.0, -1.0]]), np.array([[0.5], [-2.0]])
    np.testing.assert_array_equal(ns["A"].grad, np.tile(b.T, (2, 1)))
    np.testing.assert_array_equal(ns["B"].grad, a.sum(axis=0, keepdims=True).T)
    np.testing.assert_allclose(ns["tA"].grad.numpy(), ns["A"].grad)
    assert LESSON.printed_by_cell("A = Array(")[-2:] == ["SumBackward0 MmBackward0",
                                                         "True True"]
    # and by finite differences, element by element
    for i in np.ndindex(2, 2):
        def s_of(v, i=i):
            m = a.copy()
            m[i] = v
            return (m @ b).sum()
        assert ns["A"].grad[i] == pytest.approx(central(s_of, a[i]))


# --- 8. what teachgrad adds ----------------------------------------------------------------
@LIBS
def test_a_changed_number_is_silently_wrong_here_and_refused_by_the_library(lib_name):
    assert "Change a number in between, and the gradient is silently wrong" in LESSON.text()
    assert LESSON.printed_by_cell("w.data = 5.0") == ["5.0"]    # not w = -1.2
    assert LESSON.printed_by_cell("pw.fill_(5.0)") == [
        "1", "one of the variables needed for gradient computation has been modified by an "
        "inplace operation"]
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, *ENGINE, "w.data = 5.0")
    assert ns["x"].grad == 5.0
    ns = LESSON.namespace(lib)
    exec(LESSON.code_containing("pw.fill_(5.0)").split("print(pw._version)")[0], ns)
    assert ns["pw"]._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        ns["p"].backward()


def test_ours_is_recursive_and_runs_out_the_librarys_is_iterative():
    assert ("an iterative walk that does not run out of Python's recursion (ours is "
            "recursive)") in LESSON.text()
    ns = LESSON.run_cells(teachgrad, *ENGINE)
    deep = ns["Value"](1.0)
    start = deep
    for _ in range(5_000):
        deep = deep * 1.0
    with pytest.raises(RecursionError):
        deep.backward()
    x = teachgrad.tensor(1.0, requires_grad=True)
    deep = x
    for _ in range(5_000):
        deep = deep * 1.0
    deep.backward()
    assert x.grad.item() == 1.0 and start.grad == 0.0


def test_the_second_derivative_by_create_graph_is_the_finite_difference_of_ours():
    printed = LESSON.printed_by_cell("def our_gradient(at):")
    y = math.tanh(X * W + BIAS)
    # d²L/dx² = w² · d/dn [(1 − y²)(2y + eʸ)], with dy/dn = 1 − y²
    second = W ** 2 * (-2 * y * (1 - y ** 2) * (2 * y + math.exp(y))
                       + (1 - y ** 2) ** 2 * (2 + math.exp(y)))
    assert printed == [f"{second:.4f}", "MulBackward0", f"{second:.4f}"]
    assert abs(second) > 1   # not a number a broken second pass would give by chance (0)


# --- the exercise ----------------------------------------------------------------------------
#: wrong divisions a learner may well write, and one right one written another way
WRONG_DIVISIONS = {
    "the sign of ∂/∂b": (
        "def divide(self, other):\n"
        "    out = Value(self.data / other.data, (self, other), '/')\n"
        "    def _backward():\n"
        "        self.grad += out.grad / other.data\n"
        "        other.grad += self.data / other.data ** 2 * out.grad\n"
        "    out._backward = _backward\n"
        "    return out\n"),
    "= instead of +=": (
        "def divide(self, other):\n"
        "    out = Value(self.data / other.data, (self, other), '/')\n"
        "    def _backward():\n"
        "        self.grad = out.grad / other.data\n"
        "        other.grad = -self.data / other.data ** 2 * out.grad\n"
        "    out._backward = _backward\n"
        "    return out\n"),
    "multiplication's closure copied": (
        "def divide(self, other):\n"
        "    out = Value(self.data / other.data, (self, other), '/')\n"
        "    def _backward():\n"
        "        self.grad += other.data * out.grad\n"
        "        other.grad += self.data * out.grad\n"
        "    out._backward = _backward\n"
        "    return out\n"),
    "out.grad forgotten": (
        "def divide(self, other):\n"
        "    out = Value(self.data / other.data, (self, other), '/')\n"
        "    def _backward():\n"
        "        self.grad += 1 / other.data\n"
        "        other.grad += -self.data / other.data ** 2\n"
        "    out._backward = _backward\n"
        "    return out\n"),
    "no _backward at all": (
        "def divide(self, other):\n"
        "    return Value(self.data / other.data, (self, other), '/')\n"),
}
RIGHT_ANOTHER_WAY = "def divide(self, other):\n    return self * other ** -1\n"


def namespace_before_the_exercise() -> dict:
    return LESSON.run_cells(teachgrad, *ENGINE)


def run_check(ns: dict, divide_code: str) -> None:
    exec(divide_code + "\nValue.__truediv__ = divide\n", ns)
    exec(LESSON.cell_with_role("check").code, ns)


@pytest.mark.parametrize("mistake", sorted(WRONG_DIVISIONS))
def test_the_check_rejects_a_tempting_wrong_division(mistake):
    with pytest.raises(NotYet, match="is not the right list of gradients"):
        run_check(namespace_before_the_exercise(), WRONG_DIVISIONS[mistake])


def test_the_check_accepts_a_division_written_with_other_operations(capsys):
    run_check(namespace_before_the_exercise(), RIGHT_ANOTHER_WAY)
    assert capsys.readouterr().out == "✔ Correct! That is the right list of gradients.\n"


def test_the_placeholder_is_not_answered_yet(capsys):
    ns = namespace_before_the_exercise()
    exec(LESSON.cell_with_role("exercise").code, ns)
    exec(LESSON.cell_with_role("check").code, ns)
    assert capsys.readouterr().out.startswith("… Not answered yet (your turn:")


def test_the_checked_gradients_by_hand_and_by_pytorch():
    assert ("three expressions: $a / b$, a Value divided by itself, and "
            "$\\big(d / (d + 1)\\big)^2$, where the division is not the output") in LESSON.text()
    ns = namespace_before_the_exercise()
    exec(LESSON.cell_with_role("solution").code.split("\nValue.__truediv__")[0]
         + "\nValue.__truediv__ = divide\n", ns)
    exec(LESSON.cell_with_role("check").code.split("\nhint = ")[0]
         .replace("from teachgrad.notebook import check\n", ""), ns)
    a, b, d = 3.0, -2.0, 0.7
    by_hand = [1 / b, -a / b ** 2, 0.0,                 # s / s is 1, whatever s
               2 * (d / (d + 1)) * (1 / (d + 1) ** 2)]           # d/dd of d/(d+1) is 1/(d+1)²
    assert ns["our_gradients"]() == pytest.approx(by_hand, abs=1e-12)
    assert central(lambda v: (v / (v + 1)) ** 2, d) == pytest.approx(by_hand[3])
    np.testing.assert_allclose(ns["teachgrad_gradients"](), by_hand, atol=1e-6)
    torch = pytest.importorskip("torch")
    ns = LESSON.namespace(torch)
    exec(LESSON.code_containing("def teachgrad_gradients():").split("\nhint = ")[0]
         .replace("from teachgrad.notebook import check\n", ""), ns)
    np.testing.assert_allclose(ns["teachgrad_gradients"](), by_hand, atol=1e-6)
