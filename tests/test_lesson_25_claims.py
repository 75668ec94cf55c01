"""Lesson 25 (per-sample gradients): its code is PyTorch's, its prose is true.

Three kinds of test:

* the lesson's code cells, run in order with the real PyTorch as ``torch`` (the drawings
  replaced by nothing, ``step_backward`` by ``backward()``), print exactly what the stored
  notebook shows teachgrad printed, except the cost cell of section 7, whose call count
  and timings are the library's own (checked apart: PyTorch's ``vmap`` calls the function
  once, teachgrad's once per example);
* each sentence of the prose that states a fact (quoted, so a rewrite shows up here) is
  checked against the lesson's layer and network written out in NumPy, in float64 (their
  per-example gradients by the chain rule, checked by finite differences), against
  numbers derived by hand, the stepper, or PyTorch;
* the exercise's check rejects the tempting wrong norms and accepts right ones computed
  another way (the loop, and hooks; two more wrong ones are in test_exercises.py).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from lesson_claims import LIBS, Lesson, array, library, numeric_gradient
from lesson_source import printed_by

import teachgrad
from teachgrad.notebook.exercises import NotYet

LESSON = Lesson("25_per_sample_gradients")
LAYER = "X = torch.randn(4, 3)"
NETWORK = "inputs = torch.randn(32, 5)"
COST = "def fastest(f, runs=5):"


# --- the lesson's layer and network in NumPy, float64 ----------------------------------------
def layer_data(lib_name: str = "teachgrad"):
    """X, Y, W, b of section 1, as float64 arrays (drawn by the library's seeded generator)."""
    ns = LESSON.run_cells(library(lib_name), LAYER)
    layer = ns["layer"]
    return array(ns["X"]), array(ns["Y"]), array(layer.weight), array(layer.bias)


def layer_per_example(X, Y, W, b) -> tuple[np.ndarray, np.ndarray]:
    """Each example's weight and bias gradients of its own Σ (x Wᵀ + b − y)², by the chain
    rule: g_i = 2 (out_i − y_i), ∂/∂W = g_i x_iᵀ, ∂/∂b = g_i."""
    g = 2 * (X @ W.T + b - Y)
    return np.einsum("no,ni->noi", g, X), g


def network_data(lib_name: str = "teachgrad"):
    """Section 5's inputs, targets and [W1, b1, W2, b2], as float64 arrays."""
    ns = LESSON.run_cells(library(lib_name), NETWORK)
    return (array(ns["inputs"]), array(ns["targets"]),
            [array(p) for p in ns["model"].parameters()])


def network_loss(params, x, y) -> float:
    W1, b1, W2, b2 = params
    return float(((np.tanh(x @ W1.T + b1) @ W2.T + b2 - y) ** 2).sum())


def network_per_example(params, X, Y) -> np.ndarray:
    """Each example's gradient of its own squared error, flattened as the lesson's ``flat``
    (0.weight, 0.bias, 2.weight, 2.bias), by the chain rule written out."""
    W1, b1, W2, b2 = params
    h = np.tanh(X @ W1.T + b1)
    d_out = 2 * (h @ W2.T + b2 - Y)                    # (N, 1)
    dz = (d_out @ W2) * (1 - h ** 2)                   # (N, 8)
    parts = [np.einsum("nh,ni->nhi", dz, X), dz, np.einsum("no,nh->noh", d_out, h), d_out]
    return np.concatenate([p.reshape(len(X), -1) for p in parts], axis=1)


def clip(v: np.ndarray, c: float = 1.0) -> np.ndarray:
    """v scaled by min(1, c / (‖v‖ + 1e-6)): clip_grad_norm_'s and the lesson's clipping."""
    return v * min(1.0, c / (np.linalg.norm(v) + 1e-6))


def test_the_numpy_per_example_gradients_are_the_finite_differences():
    X, Y, W, b = layer_data()
    gW, gb = layer_per_example(X, Y, W, b)
    for i in range(len(X)):
        def loss_w(w, i=i):
            return float(((X[i] @ w.T + b - Y[i]) ** 2).sum())

        def loss_b(bias, i=i):
            return float(((X[i] @ W.T + bias - Y[i]) ** 2).sum())

        np.testing.assert_allclose(gW[i], numeric_gradient(loss_w, W), atol=1e-6)
        np.testing.assert_allclose(gb[i], numeric_gradient(loss_b, b), atol=1e-6)
    inputs, targets, params = network_data()
    flat = network_per_example(params, inputs, targets)
    for i in (0, 13, 31):
        numeric = []
        for k, p in enumerate(params):
            def loss_k(q, k=k, i=i):
                changed = [q if j == k else params[j] for j in range(4)]
                return network_loss(changed, inputs[i:i + 1], targets[i:i + 1])
            numeric.append(numeric_gradient(loss_k, p).ravel())
        np.testing.assert_allclose(flat[i], np.concatenate(numeric), atol=1e-5)


# --- the lesson's code, run with PyTorch, prints what the notebook shows -----------------------
def test_the_lesson_run_with_pytorch_prints_what_teachgrad_printed():
    torch = pytest.importorskip("torch")
    cells = LESSON.code_cells()
    stored = LESSON.stored_stdout()
    assert cells[0].code == ("import teachgrad as torch\n"
                             "from teachgrad.notebook import draw, inspect, step_backward")
    assert len(stored) == len(cells)
    ns = LESSON.namespace(torch)
    exec("from teachgrad.notebook import check", ns)   # (the checking cell imports it)
    compared = 0
    for n, (cell, want) in enumerate(zip(cells[1:], stored[1:]), start=1):
        got = printed_by(cell, ns)
        if COST in cell.code:   # the library's own costs: checked just below
            # (PyTorch's timings, with its thread pool on a loaded machine, vary too much
            # to be a fact: only its call count is checked)
            assert got.splitlines()[0] == "calls of loss_of_one by vmap, for 256 examples: 1"
            assert want.splitlines()[0] == "calls of loss_of_one by vmap, for 256 examples: 256"
            continue
        assert got == want, f"code cell {n} printed\n{got}\nnot\n{want}\n{cell.code}"
        compared += bool(want)
    assert compared >= 10
    assert "Not answered yet" in stored[-2]
    assert stored[-1] == "✔ Correct! That is the right per-example gradient norms.\n"


def test_the_data_and_the_models_are_pytorchs():
    pytest.importorskip("torch")
    for ours, theirs in zip(layer_data("teachgrad"), layer_data("torch")):
        assert np.array_equal(ours, theirs)
    ours, theirs = network_data("teachgrad"), network_data("torch")
    assert np.array_equal(ours[0], theirs[0])
    # targets = inputs @ w: the two libraries' products may round the last bit differently
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6, atol=1e-6)
    assert all(np.array_equal(p, q) for p, q in zip(ours[2], theirs[2]))


# --- 1. the batch gradient is a sum -----------------------------------------------------------
@LIBS
def test_the_loop_and_the_batch_gradient(lib_name):
    text = LESSON.text()
    assert "`layer.weight.grad` has the weight's shape, $2 \\times 3$" in text
    assert ("Their norms add up to 20.0, but the norm of their sum is only 13.7: the examples "
            "pull partly in different directions and cancel.") in text
    X, Y, W, b = layer_data()
    gW, _ = layer_per_example(X, Y, W, b)
    norms = np.linalg.norm(gW.reshape(4, -1), axis=1)
    total = np.linalg.norm(gW.sum(axis=0))
    assert f"{norms.sum():.1f}" == "20.0" and f"{total:.1f}" == "13.7"
    assert LESSON.printed_by_cell("per_example = []") == [
        "shape: (4, 2, 3)", "their sum is the batch gradient: True",
        f"each example's norm: {[round(float(n), 3) for n in norms]}",
        f"the sum of the norms: {norms.sum():.3f} | the norm of the sum: {total:.3f}"]
    ns = LESSON.run_cells(library(lib_name), LAYER, "per_example = []")
    np.testing.assert_allclose(array(ns["batch_grad"]), gW.sum(axis=0), atol=1e-5)
    np.testing.assert_allclose(array(ns["per_example"]), gW, atol=1e-5)


# --- 2. nn.Linear's closed form ---------------------------------------------------------------
@LIBS
def test_the_outer_products_and_g_transpose_x(lib_name):
    text = LESSON.text()
    assert "For the squared error, $g_i = 2(\\text{out}_i - y_i)$." in text
    assert ("example $i$'s bias gradient is $g_i$ itself, and the batch's is "
            "$\\sum_i g_i$") in text
    assert LESSON.printed_by_cell("outer = grad_out[:, :, None]") == [
        "the outer products are the loop's gradients: True", "G^T X is the batch gradient: True"]
    X, Y, W, b = layer_data()
    gW, gb = layer_per_example(X, Y, W, b)
    np.testing.assert_allclose(gb.T @ X, gW.sum(axis=0), atol=1e-12)   # Gᵀ X = Σ g_i x_iᵀ
    ns = LESSON.run_cells(library(lib_name), LAYER, "per_example = []",
                          "outer = grad_out[:, :, None]")
    np.testing.assert_allclose(array(ns["outer"]), gW, atol=1e-5)
    np.testing.assert_allclose(array(ns["grad_out"]), gb, atol=1e-5)


def test_the_stepper_shows_where_the_examples_are_added_up():
    text = LESSON.text()
    assert ("At step 4, `AddmmBackward0` (`nn.Linear` computes $b + X W^\\top$ with one `addmm`) "
            "receives $G$, $4 \\times 2$, one row per example.") in text
    assert ("after it, `TBackward0` (step 6) transposes it to the weight's shape") in text
    assert ("the input $X$, which the node saved in the forward pass (`_saved_mat1`)") in text
    pytest.importorskip("graphviz")
    ns = LESSON.run_cells(teachgrad, LAYER, "per_example = []", "outer = grad_out[:, :, None]")
    stepper = LESSON.stepper("step_backward(loss, names=", ns)["stepper"]
    titles = [panel.title.split(": ", 1)[1] for panel in stepper.panels[1:]]
    assert titles == ["SumBackward0 (loss)", "PowBackward0", "SubBackward0", "AddmmBackward0",
                      "AccumulateGrad (layer.bias)", "TBackward0",
                      "AccumulateGrad (layer.weight)"]
    X, Y, W, b = layer_data()
    gW, G = layer_per_example(X, Y, W, b)
    step4 = stepper.panels[4].text

    def shown(matrix) -> str:
        return ", ".join("[" + ", ".join(f"{v:7.4f}" for v in row) + "]" for row in matrix)

    assert f"(from step 3, SubBackward0): [{shown(G)}]".replace("  ", " ") in (
        step4.replace("  ", " "))
    assert "∂/∂mat2 = α·mat1ᵀ grad" in step4
    sent = step4.split("mat2 → TBackward0: ")[1].splitlines()[0].split(" = ")[-1]
    assert np.allclose(np.array(eval(sent)), X.T @ G, atol=1e-4)            # Xᵀ G
    bias = step4.split("input → AccumulateGrad (layer.bias): ")[1].splitlines()[0]
    assert np.allclose(np.array(eval(bias.split(" = ")[-1])), G.sum(axis=0), atol=1e-4)
    saved = step4.split("_saved_mat1 = ")[1].splitlines()[0]
    assert np.allclose(np.array(eval(saved)), X, atol=1e-4)
    step6 = stepper.panels[6].text
    assert np.allclose(np.array(eval(step6.split(" = ")[-1].splitlines()[0])), gW.sum(axis=0),
                       atol=1e-4)


@LIBS
@pytest.mark.filterwarnings("ignore:Full backward hook is firing")   # (PyTorch's warning too)
def test_hooks_on_every_linear_give_the_per_example_gradients(lib_name):
    """The parenthesis of section 2: a forward hook keeps each Linear's input, a full
    backward hook the gradient arriving at its output, in one forward and one backward."""
    assert ("a forward hook keeps each layer's input, a full backward hook the gradient "
            "arriving at its output.") in LESSON.text()
    lib = library(lib_name)
    ns = LESSON.run_cells(lib, NETWORK)
    model, inputs, targets = ns["model"], ns["inputs"], ns["targets"]
    kept = {}
    for layer in (model[0], model[2]):
        layer.register_forward_hook(lambda m, args, out: kept.__setitem__((m, "x"), args[0]))
        layer.register_full_backward_hook(
            lambda m, grad_in, grad_out: kept.__setitem__((m, "g"), grad_out[0]))
    model.zero_grad()
    ((model(inputs) - targets) ** 2).sum().backward()
    parts = []
    for layer in (model[0], model[2]):
        x, g = array(kept[(layer, "x")]), array(kept[(layer, "g")])
        parts += [np.einsum("no,ni->noi", g, x).reshape(32, -1), g]
    _, _, params = network_data()
    np.testing.assert_allclose(np.concatenate(parts, axis=1),
                               network_per_example(params, array(inputs), array(targets)),
                               atol=1e-4)


# --- 3. the mean's 1/N ------------------------------------------------------------------------
@LIBS
def test_the_mean_puts_one_nth_in_g(lib_name):
    text = LESSON.text()
    assert ("each row of $G$ is $\\frac1N$ of what example $i$ alone would send, and so is each "
            "outer product. The batch gradient is the **mean** of the per-example gradients of "
            "the $\\ell_i$") in text
    assert ("Clipping it at a norm $C$ while it still carries the $\\frac1N$ would really clip "
            "at $N C$.") in text
    assert LESSON.printed_by_cell("out.retain_grad()") == [
        "G of the mean = G of the sum / 4: True",
        "its outer products = the per-example gradients / 4: True",
        "the batch gradient = their mean: True"]
    X, Y, W, b = layer_data()
    gW, G = layer_per_example(X, Y, W, b)
    ns = LESSON.run_cells(library(lib_name), LAYER, "per_example = []",
                          "outer = grad_out[:, :, None]", "out.retain_grad()")
    np.testing.assert_allclose(array(ns["out"].grad), G / 4, atol=1e-6)
    np.testing.assert_allclose(array(ns["layer"].weight.grad), gW.mean(axis=0), atol=1e-6)
    # a per-example gradient read off the mean's graph (g_i / N), clipped at C, is g_i
    # clipped at N·C (then divided by N): for every example and several C
    for g in gW:
        for C in (0.5, 2.0, 10.0):
            np.testing.assert_allclose(clip(g / 4, C) * 4, clip(g, 4 * C), rtol=1e-5)
    assert not np.allclose(clip(gW[0] / 4, 2.0) * 4, clip(gW[0], 2.0))   # not at C


# --- 4. grad, functional_call and vmap -------------------------------------------------------
@LIBS
def test_vmap_of_grad_agrees_with_the_loop_and_the_outer_products(lib_name):
    text = LESSON.text()
    assert ("The three ways agree: the loop of `backward()` calls, the outer products "
            "$g_i\\,x_i^\\top$, and `vmap(grad(...))`.") in text
    assert LESSON.printed_by_cell("def loss_of_one(params, x, y):") == [
        "{'weight': (4, 2, 3), 'bias': (4, 2)}",
        "weight: as the loop: True | as the outer products: True", "bias: g_i itself: True"]
    X, Y, W, b = layer_data()
    gW, gb = layer_per_example(X, Y, W, b)
    ns = LESSON.run_cells(library(lib_name), LAYER, "per_example = []",
                          "outer = grad_out[:, :, None]", "def loss_of_one(params, x, y):")
    np.testing.assert_allclose(array(ns["grads"]["weight"]), gW, atol=1e-5)
    np.testing.assert_allclose(array(ns["grads"]["bias"]), gb, atol=1e-5)


# --- 5. the examples that pull hardest ---------------------------------------------------------
def network_facts():
    inputs, targets, params = network_data()
    flat = network_per_example(params, inputs, targets)
    return inputs, targets, params, flat, np.linalg.norm(flat, axis=1)


@LIBS
def test_example_13_pulls_hardest(lib_name):
    text = LESSON.text()
    assert ("Example 13 pulls hardest, with a norm nearly seven times the median (without the "
            "10 added to its target, it is not even among the three largest).") in text
    assert ("(5 inputs, 8 tanh units, 1 output). One target is wrong: example 13 got 10 "
            "added") in text
    _, _, params, flat, norms = network_facts()
    assert flat.shape == (32, 57) and sum(p.size for p in params) == 57
    order = np.argsort(-norms)
    median = np.sort(norms)[(len(norms) - 1) // 2]   # torch.median: the lower of the middle two
    assert order[0] == 13
    assert 6.5 < norms[13] / median < 7
    # without the 10 added, example 13 is not among the three largest
    inputs, targets, _ = network_data()
    fixed = targets.copy()
    fixed[13] -= 10.0
    assert 13 not in np.argsort(-np.linalg.norm(network_per_example(params, inputs, fixed),
                                                axis=1))[:3]
    assert LESSON.printed_by_cell(NETWORK) == [
        "per-example gradients: (32, 57) (32 examples, 57 parameters)",
        f"the three largest norms: {[round(float(n), 2) for n in norms[order[:3]]]} "
        f"at examples {order[:3].tolist()}",
        f"the median norm: {median:.2f}"]
    ns = LESSON.run_cells(library(lib_name), NETWORK)
    np.testing.assert_allclose(array(ns["flat"]), flat, atol=1e-4)


def test_the_spread_of_the_per_example_gradients():
    text = LESSON.text()
    assert ("the mean of a minibatch of $B$ examples drawn at random (with replacement) has "
            "$1/B$ of it") in text
    assert ("Here a single example's gradient lies further from the mean than the mean is "
            "from zero") in text
    *_, flat, _ = network_facts()
    mean = flat.mean(axis=0)
    spread = ((flat - mean) ** 2).sum(axis=1).mean()
    assert np.sqrt(spread) > np.linalg.norm(mean)
    assert LESSON.printed_by_cell("spread = ((flat - mean)") == [
        f"norm of the mean gradient: {np.linalg.norm(mean):.2f}",
        f"root mean squared distance to it: {np.sqrt(spread):.2f}"]
    # every ordered pair, drawn with replacement, equally likely: the mean of B = 2 examples
    pairs = [((flat[i] + flat[j]) / 2 - mean) for i, j in itertools.product(range(32), repeat=2)]
    assert np.mean([(d ** 2).sum() for d in pairs]) == pytest.approx(spread / 2, rel=1e-10)


# --- 6. per-example clipping and DP-SGD --------------------------------------------------------
@LIBS
def test_leaving_example_13_out(lib_name):
    text = LESSON.text()
    assert ("Without clipping, example 13 alone moves the step by $\\lVert g_{13} \\rVert / 32$, "
            "more than a third of its length.") in text
    assert ("Clipping the sum shrinks the step to length $C = 1$, and the effect with it, but "
            "only to 0.18 of the step, from one example out of 32") in text
    assert ("Clipping each example bounds the effect by $C / 32 = 0.03125$, whichever example "
            "is left out") in text
    *_, flat, norms = network_facts()
    clipped = np.stack([clip(g) for g in flat])
    rows = {
        "no clipping": (flat.sum(0) / 32, np.delete(flat, 13, axis=0).sum(0) / 32),
        "clip_grad_norm_": (clip(flat.sum(0) / 32), clip(np.delete(flat, 13, axis=0).sum(0) / 32)),
        "per-example clipping": (clipped.sum(0) / 32, np.delete(clipped, 13, axis=0).sum(0) / 32),
    }
    lines = ["leaving example 13 out moves the step by (its norm; as a fraction of the step's):"]
    fractions = {}
    for name, (step, without) in rows.items():
        moved = np.linalg.norm(step - without)
        fractions[name] = moved / np.linalg.norm(step)
        lines.append(f"  {name:20} {moved:.5f}; {fractions[name]:.2f}")
    assert LESSON.printed_by_cell("def clip_the_sum(rows):") == lines
    assert fractions["no clipping"] > 1 / 3
    assert np.linalg.norm(flat[13]) / 32 == pytest.approx(
        np.linalg.norm(rows["no clipping"][0] - rows["no clipping"][1]))
    assert np.linalg.norm(rows["clip_grad_norm_"][0]) == pytest.approx(1.0, abs=1e-5)
    assert f"{fractions['clip_grad_norm_']:.2f}" == "0.18"
    for i in range(32):      # whichever example is left out
        assert np.linalg.norm(clipped[i]) / 32 <= 1 / 32 == 0.03125
    ns = LESSON.run_cells(library(lib_name), NETWORK, "def clip_the_sum(rows):")
    for name, (step, without) in rows.items():
        np.testing.assert_allclose(array(ns["steps"][name][0]), step, atol=1e-5)
        np.testing.assert_allclose(array(ns["steps"][name][1]), without, atol=1e-5)


@LIBS
def test_the_dp_step_and_its_noise(lib_name):
    text = LESSON.text()
    assert "The noise is of the same size as the signal here (0.257 against 0.358)" in text
    assert ("Divided by $N$ like the rest, the noise shrinks as the batch grows, while the "
            "clipped mean (an average) does not") in text
    *_, flat, _ = network_facts()
    clipped = np.stack([clip(g) for g in flat])
    lib = library(lib_name)
    lib.manual_seed(2)
    noise = array(lib.randn(57))
    signal = np.linalg.norm(clipped.sum(0) / 32)
    assert 0.7 < np.linalg.norm(noise / 32) / signal < 1
    assert (f"{np.linalg.norm(noise / 32):.3f}", f"{signal:.3f}") == ("0.257", "0.358")
    assert LESSON.printed_by_cell("dp_step = (clipped.sum(dim=0) + noise) / 32") == [
        f"norm of the clipped mean: {signal:.3f} | of the noise / 32: "
        f"{np.linalg.norm(noise / 32):.3f} | of the DP step: "
        f"{np.linalg.norm((clipped.sum(0) + noise) / 32):.3f}"]


# --- 7. the cost ----------------------------------------------------------------------------
def test_teachgrads_vmap_calls_once_per_example_pytorchs_once():
    text = LESSON.text()
    assert ("it calls `loss_of_one` once, with a batch inside" in text
            and "so it is no faster than the loop" in text
            and "it calls the function once per example and stacks the results" in text)
    assert "Run with PyTorch, the same cell shows `vmap` calling `loss_of_one` once" in text
    assert LESSON.printed_by_cell(COST)[1:] == [
        "vmap is faster than the loop: False",
        "the closed form is more than 10 times faster than the loop: True"]
    assert LESSON.printed_by_cell(COST)[0] == "calls of loss_of_one by vmap, for 256 examples: 256"
    torch = pytest.importorskip("torch")
    calls = []

    def f(x):
        calls.append(1)
        return x.sum()

    torch.func.vmap(f)(torch.ones(5, 3))
    assert len(calls) == 1
    calls.clear()
    teachgrad.func.vmap(f)(teachgrad.ones(5, 3))
    assert len(calls) == 5


@LIBS
def test_the_closed_form_and_the_memory(lib_name):
    assert ("the per-example gradients take $N$ times the memory of the batch gradient (here "
            "$256 \\times 2 \\times 3$ numbers instead of $2 \\times 3$)") in LESSON.text()
    ns = LESSON.run_cells(library(lib_name), LAYER, "per_example = []",
                          "outer = grad_out[:, :, None]", "def loss_of_one(params, x, y):")
    exec(LESSON.code_containing(COST).split("\nwith_vmap()\n")[0], ns)
    closed = ns["closed_form"]()
    assert tuple(closed.shape) == (256, 2, 3)
    X, Y = array(ns["X256"]), array(ns["Y256"])
    W, b = array(ns["layer"].weight), array(ns["layer"].bias)
    np.testing.assert_allclose(array(closed), layer_per_example(X, Y, W, b)[0], atol=1e-4)
    vmapped = ns["with_vmap"]()
    np.testing.assert_allclose(array(vmapped["weight"]), array(closed), atol=1e-4)


# --- the exercise -----------------------------------------------------------------------------
HEAD = "def per_example_norms(model, x, y):\n"
WRONG = {
    "the batch mean's gradient per example (divided by N)": (
        "    params = {n: p.detach() for n, p in model.named_parameters()}\n"
        "    def one(params, xi, yi):\n"
        "        out = torch.func.functional_call(model, params, (xi[None],))\n"
        "        return ((out - yi[None]) ** 2).sum() / len(x)\n"
        "    g = torch.func.vmap(torch.func.grad(one), in_dims=(None, 0, 0))(params, x, y)\n"
        "    return torch.cat([v.flatten(start_dim=1) for v in g.values()], dim=1).norm(dim=1)\n"),
    "the weights only": (
        "    norms = []\n"
        "    for i in range(len(x)):\n"
        "        model.zero_grad()\n"
        "        ((model(x[i:i + 1]) - y[i:i + 1]) ** 2).sum().backward()\n"
        "        norms.append(torch.cat([model[0].weight.grad.flatten(),\n"
        "                                model[2].weight.grad.flatten()]).norm())\n"
        "    return torch.stack(norms)\n"),
    "the norm of each parameter summed, not of one long vector": (
        "    norms = []\n"
        "    for i in range(len(x)):\n"
        "        model.zero_grad()\n"
        "        ((model(x[i:i + 1]) - y[i:i + 1]) ** 2).sum().backward()\n"
        "        norms.append(sum(p.grad.norm() for p in model.parameters()))\n"
        "    return torch.stack(norms)\n"),
}
WITH_HOOKS = (
    "    kept, handles = {}, []\n"
    "    for layer in (model[0], model[2]):\n"
    "        handles.append(layer.register_forward_hook(\n"
    "            lambda m, args, out: kept.__setitem__((m, 'x'), args[0])))\n"
    "        handles.append(layer.register_full_backward_hook(\n"
    "            lambda m, gin, gout: kept.__setitem__((m, 'g'), gout[0])))\n"
    "    model.zero_grad()\n"
    "    ((model(x) - y) ** 2).sum().backward()\n"
    "    for h in handles:\n"
    "        h.remove()\n"
    "    squares = 0\n"
    "    for layer in (model[0], model[2]):\n"
    "        xs, g = kept[(layer, 'x')], kept[(layer, 'g')]\n"
    "        # ‖g ⊗ x‖² = ‖g‖² ‖x‖², and the bias's part is ‖g‖²\n"
    "        squares = squares + (g ** 2).sum(1) * ((xs ** 2).sum(1) + 1)\n"
    "    return squares.sqrt()\n"
)


def run_check(body: str) -> None:
    ns = LESSON.namespace(teachgrad)
    exec(HEAD + body, ns)
    exec(LESSON.cell_with_role("check").code, ns)


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_the_check_rejects_a_tempting_wrong_answer(mistake):
    with pytest.raises(NotYet, match="is not the right per-example gradient norms"):
        run_check(WRONG[mistake])


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")
def test_the_check_accepts_norms_computed_with_hooks(capsys):
    run_check(WITH_HOOKS)
    assert capsys.readouterr().out == "✔ Correct! That is the right per-example gradient norms.\n"


def test_the_exercise_head_is_the_lessons():
    assert LESSON.cell_with_role("exercise").code.startswith(HEAD)
    assert LESSON.cell_with_role("solution").code.startswith(
        "# Solution (try the exercise first!)\n" + HEAD)


def test_the_placeholder_is_not_answered_yet(capsys):
    ns = LESSON.namespace(teachgrad)
    exec(LESSON.cell_with_role("exercise").code, ns)
    exec(LESSON.cell_with_role("check").code, ns)
    assert capsys.readouterr().out.startswith("… Not answered yet (your turn:")


@LIBS
def test_the_checked_norms_by_numpy(lib_name):
    assert ("5 inputs, 8 tanh units and 1 output (as in section 5), and 3 inputs, 6 ReLU units "
            "and 2 outputs") in LESSON.text()
    lib = library(lib_name)
    ns = LESSON.namespace(lib)
    exec(LESSON.cell_with_role("check").code.split("\n\nhint = ")[0]
         .replace("from teachgrad.notebook import check\n", ""), ns)
    lib.manual_seed(4)
    nets = [lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1)),
            lib.nn.Sequential(lib.nn.Linear(3, 6), lib.nn.ReLU(), lib.nn.Linear(6, 2))]
    data = [(array(lib.randn(12, 5)), array(lib.randn(12, 1))),
            (array(lib.randn(10, 3)), array(lib.randn(10, 2)))]
    expected = []
    for net, (x, y), act, dact in zip(nets, data, [np.tanh, lambda z: np.maximum(z, 0)],
                                      [lambda h, z: 1 - h ** 2, lambda h, z: (z > 0) * 1.0]):
        W1, b1, W2, b2 = [array(p) for p in net.parameters()]
        z = x @ W1.T + b1
        h = act(z)
        d_out = 2 * (h @ W2.T + b2 - y)
        dz = (d_out @ W2) * dact(h, z)
        squares = ((dz ** 2).sum(1) * ((x ** 2).sum(1) + 1)
                   + (d_out ** 2).sum(1) * ((h ** 2).sum(1) + 1))
        expected.append(np.sqrt(squares))
    want = np.concatenate(expected)
    np.testing.assert_allclose(array(ns["on_two_networks"](ns["reference_norms"])), want,
                               rtol=1e-5)
    exec(LESSON.cell_with_role("solution").code.split("\n\ncheck(")[0], ns)
    np.testing.assert_allclose(array(ns["on_two_networks"](ns["per_example_norms"])), want,
                               rtol=1e-5)
