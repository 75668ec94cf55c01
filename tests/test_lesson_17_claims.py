"""Lesson 17 (backpropagation through time): its code is PyTorch's, and its prose is true.

Two kinds of test:

* the lesson's code cells, run in order with the real PyTorch as ``torch`` (the drawing,
  table and plot helpers replaced by nothing, ``step_backward`` by ``backward()``), print
  exactly what the stored notebook shows teachgrad printed: every number in the lesson is
  PyTorch's number;
* each sentence of the prose that states a fact (quoted, so a rewrite shows up here) is
  checked against PyTorch, the stepper, or a derivation by hand with NumPy.

The exercise's tempting wrong answers are in test_exercises.py.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import teachgrad

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "notebooks" / "tools" / "src" / "17_backpropagation_through_time.md"
NOTEBOOK = REPO / "notebooks" / "17_backpropagation_through_time.ipynb"
sys.path.insert(0, str(REPO / "notebooks" / "tools"))
import lesson_source  # noqa: E402  (notebooks/tools, put on the path just above)

W_VALUES = [[0.5, -0.3], [0.2, 0.8]]
U_VALUES = [[1.0], [-0.5]]
B_VALUES = [0.1, -0.1]
XS_VALUES = [[1.0], [0.5], [-1.0]]
H0_VALUES = [0.5, -0.5]


lesson_text = functools.partial(lesson_source.prose, SOURCE)
code_containing = functools.partial(lesson_source.code_containing, SOURCE)
code_cells = functools.partial(lesson_source.code_cells, SOURCE)
namespace_for = lesson_source.headless_namespace


def unrolled(lib):
    """Section 1's three steps, in ``lib``: the lesson's own definitions cell, then the
    unroll written out."""
    ns = namespace_for(lib)
    exec(code_containing("def cell(h, x):"), ns)
    ns["h1"] = ns["cell"](ns["h0"], ns["xs"][0])
    ns["h2"] = ns["cell"](ns["h1"], ns["xs"][1])
    ns["h3"] = ns["cell"](ns["h2"], ns["xs"][2])
    ns["L"] = ns["h3"].sum()
    return ns


def edges_into(root, variable) -> int:
    """How many arrows of the graph under ``root`` lead into ``variable``'s AccumulateGrad."""
    count, seen, todo = 0, set(), [root]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for child, _ in node.next_functions:
            if child is None:
                continue
            if getattr(child, "variable", None) is variable:
                count += 1
            todo.append(child)
    return count


def nothing_needed(root) -> int:
    """How many inputs of the graph's nodes need no gradient (the drawing's None boxes)."""
    count, seen, todo = 0, set(), [root]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for child, _ in node.next_functions:
            if child is None:
                count += 1
            else:
                todo.append(child)
    return count


def node_names(root) -> list[str]:
    names, seen, todo = [], set(), [root]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        todo.extend(child for child, _ in node.next_functions)
    return names


# --- the lesson's code, run with PyTorch, prints what the notebook shows ------------------
stored_streams = functools.partial(lesson_source.stored_stdout, NOTEBOOK)


def test_the_lesson_run_with_pytorch_prints_what_teachgrad_printed():
    torch = pytest.importorskip("torch")
    cells = code_cells()
    stored = stored_streams()
    assert len(stored) == len(cells)
    assert cells[0].code.startswith("import teachgrad as torch\nfrom teachgrad.notebook import")
    ns = namespace_for(torch)
    compared = 0
    for n, (cell, want) in enumerate(zip(cells[1:], stored[1:]), start=1):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            if cell.marker == lesson_source.RAISES:
                with pytest.raises(RuntimeError, match="backward through the graph a second"):
                    exec(cell.code, ns)
            else:
                exec(cell.code, ns)
        assert printed.getvalue() == want, f"code cell {n}:\n{cell.code}"
        compared += bool(want)
    assert compared >= 11  # the cells that print something: not only empty outputs
    assert "✔ Correct!" in stored[-1]


# --- 1. the cell, unrolled ------------------------------------------------------------------
@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_w_u_and_b_each_get_three_arrows_one_per_time_step(lib_name):
    assert ("`W`, `U` and `b` each have **one** `AccumulateGrad` box with **three** arrows "
            "into it, one from every time step") in lesson_text()
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    ns = unrolled(lib)
    for name in ("W", "U", "b"):
        assert edges_into(ns["L"].grad_fn, ns[name]) == 3, name
    names = node_names(ns["L"].grad_fn)
    assert names.count("TanhBackward0") == 3 and names.count("MvBackward0") == 6
    assert names.count("AddBackward0") == 6


# --- 2. the stepper, and one step by hand ---------------------------------------------------
def by_hand():
    """The forward pass and the gradients at h2 and W, with NumPy, from the formulas."""
    W, U, b = (np.array(v, dtype=np.float64) for v in (W_VALUES, U_VALUES, B_VALUES))
    xs, h0 = np.array(XS_VALUES), np.array(H0_VALUES)
    states = [h0]
    for x in xs:
        states.append(np.tanh(W @ states[-1] + U @ x + b))
    grad_h = np.ones(2)                       # ∂L/∂h3 for L = h3.sum()
    grads_h, per_step = {}, {}
    for t in (3, 2, 1):
        delta = grad_h * (1 - states[t] ** 2)          # through tanh
        per_step[t] = np.outer(delta, states[t - 1])   # this step's use of W
        grad_h = W.T @ delta                           # on to h_{t-1}
        grads_h[t - 1] = grad_h
    return states, grads_h, per_step


def test_one_step_by_hand_the_gradient_at_h2():
    text = lesson_text()
    assert "At step 7, the gradient arriving at `h2` is `[0.6608, 0.5195]`." in text
    _, grads_h, _ = by_hand()
    assert [f"{v:.4f}" for v in grads_h[2]] == ["0.6608", "0.5195"]


def test_the_stepper_walks_back_in_time_and_adds_three_contributions_into_w():
    pytest.importorskip("graphviz")
    from teachgrad.notebook import step_backward

    text = lesson_text()
    assert ("It takes 19 steps, and walks **backward in time**: steps 2 to 6 are the last "
            "time step (`h3`'s cell), steps 7 to 11 the one before, then the first.") in text
    assert "from its `MvBackward0` node, at steps 6, 11 and 18" in text
    assert "at step 19 `AccumulateGrad` adds the three and stores the sum in `W.grad`" in text
    assert "`U` and `b` are summed the same way (steps 17 and 14)" in text
    ns = unrolled(teachgrad)
    names = {k: ns[k] for k in ("W", "U", "b", "h1", "h2", "h3", "L")}
    stepper = step_backward(ns["L"], names=names)
    titles = [panel.title for panel in stepper.panels]
    assert len(titles) == 20  # the start, then 19 steps
    assert titles[2] == "Step 2 of 19: TanhBackward0 (h3)"
    assert titles[7] == "Step 7 of 19: TanhBackward0 (h2)"
    assert titles[12] == "Step 12 of 19: TanhBackward0 (h1)"
    # steps 2-6 are h3's cell: nothing of h2's before step 7
    assert all("(h2)" not in t and "(h1)" not in t for t in titles[2:7])
    to_w = [n for n, panel in enumerate(stepper.panels) if "A → AccumulateGrad (W)" in panel.text]
    assert to_w == [6, 11, 18]
    assert titles[14] == "Step 14 of 19: AccumulateGrad (b)"
    assert titles[17] == "Step 17 of 19: AccumulateGrad (U)"
    assert titles[19] == "Step 19 of 19: AccumulateGrad (W)"
    assert "3 contributions arrived" in stepper.panels[19].text
    # the gradient arriving at h2 in step 7, derived by hand
    _, grads_h, per_step = by_hand()
    assert "Gradient arriving ∂L/∂h2" in stepper.panels[7].text
    assert f"[{grads_h[2][0]:.4f}, {grads_h[2][1]:.4f}]" in stepper.panels[7].text
    # W.grad is the sum of the three outer products, by hand
    np.testing.assert_allclose(ns["W"].grad.numpy(), sum(per_step.values()), rtol=1e-5)


def test_the_last_time_steps_contribution_to_w_is_the_largest():
    assert "(the last time step's is the largest: it is closest to the loss)" in lesson_text()
    _, _, per_step = by_hand()
    norms = {t: np.linalg.norm(c) for t, c in per_step.items()}
    assert norms[3] > norms[2] > norms[1]


# --- 3. vanishing and exploding through time ------------------------------------------------
def section_3(lib):
    ns = namespace_for(lib)
    exec(code_containing("def recurrent_weight(rho"), ns)
    return ns


def test_rho_times_an_orthogonal_matrix_stretches_every_vector_by_rho():
    text = lesson_text()
    assert "so $\\|W^\\top g\\| = \\rho \\|g\\|$ exactly" in text
    torch = pytest.importorskip("torch")
    for lib in (teachgrad, torch):
        W = section_3(lib)["recurrent_weight"](1.5).detach()
        np.testing.assert_allclose(lib.linalg.svdvals(W).numpy(), 1.5, rtol=1e-5)
        # and its eigenvalues all have absolute value 1.5 (so its spectral radius is 1.5)
        np.testing.assert_allclose(np.abs(np.linalg.eigvals(W.numpy().astype(np.float64))),
                                   1.5, rtol=1e-5)


def norms_in(lib, scale: float) -> dict[float, list[float]]:
    ns = section_3(lib)
    return {rho: ns["hidden_gradient_norms"](ns["recurrent_weight"](rho), scale)
            for rho in (0.5, 0.9, 1.0, 1.1, 1.5)}


def factor(norms: list[float]) -> float:
    return (norms[0] / norms[-1]) ** (1 / (len(norms) - 1))


def test_small_inputs_the_factor_per_step_is_rho_until_tanh_saturates():
    text = lesson_text()
    for claim in (
        "$\\|\\frac{\\partial L}{\\partial h_{30}}\\| = 4$ (the sum's gradient, sixteen ones)",
        "With $\\rho = 0.5$ the gradient halves at every step back, to $7 \\cdot 10^{-9}$ at "
        "the first step",
        "With $\\rho = 0.9$ it is $0.9$ per step, and $0.9^{29} \\approx 0.05$: still a "
        "20-fold loss over 30 steps. Only $\\rho = 1$ keeps it. With $\\rho = 1.1$ it "
        "**explodes**, tenfold, and with $\\rho = 1.5$ about 150-fold, but by $1.188$ per "
        "step, not $1.5$",
    ):
        assert claim in text
    torch = pytest.importorskip("torch")
    norms = norms_in(torch, 0.01)
    assert all(abs(n[-1] - 4.0) < 1e-5 for n in norms.values())
    assert f"{norms[0.5][0]:.0e}" == "7e-09"
    assert f"{factor(norms[0.5]):.3f}" == "0.500" and f"{factor(norms[0.9]):.3f}" == "0.900"
    assert f"{0.9 ** 29:.2f}" == "0.05" and round(norms[0.9][-1] / norms[0.9][0]) == 21
    assert abs(factor(norms[1.0]) - 1) < 0.002
    assert round(norms[1.1][0] / norms[1.1][-1]) == 10
    assert 140 < norms[1.5][0] / norms[1.5][-1] < 160
    assert f"{factor(norms[1.5]):.3f}" == "1.188"
    # teachgrad measures the same
    ours = norms_in(teachgrad, 0.01)
    for rho in norms:
        np.testing.assert_allclose(ours[rho], norms[rho], rtol=1e-4)


@pytest.mark.parametrize("scale", [0.01, 1.0])
def test_the_gradient_is_at_most_rho_to_the_k_after_k_steps_back(scale):
    assert "the gradient is at most $\\rho^k$ times as large" in lesson_text()
    torch = pytest.importorskip("torch")
    for rho, norms in norms_in(torch, scale).items():
        for t, n in enumerate(norms, start=1):
            assert n <= 4.0 * rho ** (30 - t) * (1 + 1e-4), (rho, t)


def test_the_line_of_rho_1_5_bends_where_the_states_have_grown():
    text = lesson_text()
    assert ("between steps 1 and 10, where the states are still small, it falls by $1.46$ "
            "per step, close to $1.5$; between steps 20 and 30, where they have grown, by "
            "only $1.03$") in text
    torch = pytest.importorskip("torch")
    ns = section_3(torch)
    W = ns["recurrent_weight"](1.5)
    norms = ns["hidden_gradient_norms"](W, 0.01)
    assert f"{(norms[0] / norms[9]) ** (1 / 9):.2f}" == "1.46"
    assert f"{(norms[19] / norms[29]) ** (1 / 10):.2f}" == "1.03"
    # "where the states are still small ... where they have grown": the states themselves
    _ = torch.manual_seed(1)
    U = torch.randn(16, 1) * 0.01
    xs = torch.randn(30, 1)
    h, sizes = torch.zeros(16), []
    with torch.no_grad():
        for x in xs:
            h = torch.tanh(W @ h + U @ x)
            sizes.append(h.abs().max().item())
    # no entry above 0.5 up to step 9 (tanh' > 0.75), every step from 20 on has one above
    # 0.9 (tanh' < 0.19 there)
    assert max(sizes[:9]) < 0.5 and min(sizes[19:]) > 0.9


def test_inputs_of_size_one_every_rho_vanishes():
    text = lesson_text()
    assert "Now **every** row vanishes, even $\\rho = 1.5$ (by $0.835$ per step)" in text
    torch = pytest.importorskip("torch")
    norms = norms_in(torch, 1.0)
    assert all(factor(n) < 1 for n in norms.values())
    assert f"{factor(norms[1.5]):.3f}" == "0.835"


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_in_an_lstm_the_cell_states_factor_per_step_is_its_forget_gate(lib_name):
    assert ("(in an LSTM, $\\frac{\\partial c_t}{\\partial c_{t-1}}$ is its forget gate)"
            in lesson_text())
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    _ = lib.manual_seed(0)
    lstm = lib.nn.LSTMCell(3, 4)
    x, h = lib.randn(3), lib.randn(4)
    c = lib.randn(4, requires_grad=True)
    _, c_next = lstm(x, (h, c))
    jacobian = np.stack([lib.autograd.grad(c_next[i], c, retain_graph=True)[0].numpy()
                         for i in range(4)])
    # the forget gate by its formula: the second quarter of the gates (PyTorch's order
    # i, f, g, o), through a sigmoid
    with lib.no_grad():
        gates = lstm.weight_ih @ x + lstm.bias_ih + lstm.weight_hh @ h + lstm.bias_hh
    forget = 1 / (1 + np.exp(-gates.numpy()[4:8].astype(np.float64)))
    np.testing.assert_allclose(jacobian, np.diag(forget), rtol=1e-5, atol=1e-7)
    assert ((forget > 0) & (forget < 1)).all()


def test_what_to_try_a_linear_network_multiplies_by_exactly_rho():
    # "Is the factor per step now exactly ρ?" The answer the lesson expects: yes.
    assert "Is the factor per step now exactly $\\rho$?" in lesson_text()
    torch = pytest.importorskip("torch")
    ns = section_3(torch)
    linear = code_containing("def hidden_gradient_norms").replace(
        "h = torch.tanh(W @ h + U @ x)", "h = W @ h + U @ x")
    exec(linear, ns)
    for rho in (0.5, 1.5):
        norms = ns["hidden_gradient_norms"](ns["recurrent_weight"](rho), 1.0)
        ratios = [a / b for a, b in zip(norms, norms[1:])]
        np.testing.assert_allclose(ratios, rho, rtol=1e-4)


# --- 4. truncated BPTT ----------------------------------------------------------------------
def test_without_detach_the_second_backward_fails_as_in_pytorch():
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (teachgrad, torch):
        ns = unrolled(lib)
        with pytest.raises(RuntimeError) as error:
            exec(code_containing("# 6 inputs: 2 chunks of 3"), ns)
        messages.append(str(error.value))
    ours, theirs = messages
    assert ours.split("\nHint: ")[0] == theirs
    assert "retain_graph=True" in ours.split("\nHint: ")[1]
    assert "The hint's `retain_graph=True` would make the error go away" in lesson_text()


def test_with_retain_graph_the_second_backward_walks_back_to_the_first_step():
    text = lesson_text()
    assert ("each backward would walk back to the very first step, and the graph of the "
            "whole sequence would stay in memory") in text
    torch = pytest.importorskip("torch")
    for lib in (teachgrad, torch):
        ns = unrolled(lib)
        code = code_containing("# 6 inputs: 2 chunks of 3").replace(
            "h.sum().backward()", "h.sum().backward(retain_graph=True)")
        exec(code, ns)
        # the gradient is that of both chunks' losses through the uncut graph
        exec(code_containing("chunk_losses = []").split("\nprint(")[0], ns)
        np.testing.assert_allclose(ns["W"].grad.numpy(), ns["full"].numpy(), rtol=1e-6)


@pytest.mark.parametrize("lib_name", ["teachgrad", "torch"])
def test_before_the_cut_w_gets_six_arrows_after_it_three(lib_name):
    text = lesson_text()
    assert "Six copies of the cell, and `W` gets six arrows" in text
    assert "Three copies, three arrows into `W`" in text
    assert "the detached state enters `W @ h` as one more faded `None` box, like the inputs" in text
    lib = teachgrad if lib_name == "teachgrad" else pytest.importorskip("torch")
    ns = unrolled(lib)
    xs6 = lib.tensor([[1.0], [0.5], [-1.0], [0.0], [2.0], [-0.5]])
    h = ns["h0"]
    for x in xs6[:3]:
        h = ns["cell"](h, x)
    carried = h
    for x in xs6[3:]:
        h = ns["cell"](h, x)
    assert edges_into(h.sum().grad_fn, ns["W"]) == 6
    assert nothing_needed(h.sum().grad_fn) == 7   # h0 and six inputs
    detached = carried.detach()
    assert (detached.requires_grad, detached.grad_fn, detached.is_leaf) == (False, None, True)
    assert np.array_equal(detached.numpy(), carried.detach().numpy())
    h = detached
    for x in xs6[3:]:
        h = ns["cell"](h, x)
    assert edges_into(h.sum().grad_fn, ns["W"]) == 3
    # "the detached state enters `W @ h` as one more faded `None` box, like the inputs"
    assert nothing_needed(h.sum().grad_fn) == 4   # the detached state and three inputs


def test_the_cut_drops_3_percent_and_this_w_stretches_no_vector():
    text = lesson_text()
    assert "its largest singular value is $0.85$" in text
    assert np.isclose(np.linalg.svd(np.array(W_VALUES), compute_uv=False).max(), 0.8545,
                      atol=1e-4)
    torch = pytest.importorskip("torch")
    results = {}
    for lib in (teachgrad, torch):
        ns = unrolled(lib)
        # the sequence of the cell that fails on purpose (its first line)
        exec(code_containing("# 6 inputs: 2 chunks of 3").split("\n", 1)[0], ns)
        exec(code_containing("def truncated_bptt"), ns)
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(code_containing("chunk_losses = []"), ns)
        results[lib.__name__] = (ns["truncated"].numpy(), ns["full"].numpy(),
                                 printed.getvalue())
    np.testing.assert_allclose(results["teachgrad"][0], results["torch"][0], rtol=1e-6)
    np.testing.assert_allclose(results["teachgrad"][1], results["torch"][1], rtol=1e-6)
    assert "that is 3.2% of the gradient's norm" in results["torch"][2]


# --- 5. nn.RNN -----------------------------------------------------------------------------
def test_nn_rnn_gets_the_hand_written_gradients_in_both_libraries():
    assert "It returns every step's state, and the last state again" in lesson_text()
    torch = pytest.importorskip("torch")
    for lib in (teachgrad, torch):
        ns = unrolled(lib)
        for snippet in ("rnn = torch.nn.RNN(", "states, last = rnn(", "last.sum().backward()"):
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                exec(code_containing(snippet), ns)
        assert printed.getvalue() == "W: True\nU: True\nb: True True\n", lib.__name__
        # "It returns every step's state, and the last state again"
        assert ns["states"].shape == (3, 2) and ns["last"].shape == (1, 2)
        assert np.array_equal(ns["states"][-1].detach().numpy(), ns["last"][0].detach().numpy())
        _, _, per_step = by_hand()
        np.testing.assert_allclose(ns["rnn"].weight_hh_l0.grad.numpy(),
                                   sum(per_step.values()), rtol=1e-5)


def test_one_bias_would_do_the_two_only_appear_as_their_sum():
    assert "(One bias would do: the two only ever appear as their sum.)" in lesson_text()
    torch = pytest.importorskip("torch")
    for lib in (teachgrad, torch):
        ns = unrolled(lib)
        exec(code_containing("rnn = torch.nn.RNN("), ns)
        rnn, xs, h0 = ns["rnn"], ns["xs"], ns["h0"]
        before, _ = rnn(xs, h0.unsqueeze(0))
        with lib.no_grad():
            rnn.bias_hh_l0.add_(lib.tensor([0.3, -0.2]))
            rnn.bias_ih_l0.sub_(lib.tensor([0.3, -0.2]))
        after, _ = rnn(xs, h0.unsqueeze(0))
        np.testing.assert_allclose(after.detach().numpy(), before.detach().numpy(), atol=1e-6)


# --- the exercise ---------------------------------------------------------------------------
def solution_bptt():
    (cell,) = [c for c in lesson_source.read(SOURCE) if "solution" in c.roles]
    ns = {"math": math}
    exec(cell.code.split("\ncheck(", 1)[0], ns)
    return ns["bptt"]


@pytest.mark.parametrize("w", [0.8, -1.5, 0.3])
def test_the_solution_is_dl_dw_by_finite_differences_and_by_pytorch(w):
    xs = [1.0, -0.5, 0.25, 2.0]

    def loss(w: float) -> float:
        h = 0.0
        for x in xs:
            h = math.tanh(w * h + x)
        return h

    bptt = solution_bptt()
    eps = 1e-6
    assert bptt(w, xs) == pytest.approx((loss(w + eps) - loss(w - eps)) / (2 * eps), abs=1e-7)
    torch = pytest.importorskip("torch")
    wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    h = torch.tensor(0.0, dtype=torch.float64)
    for x in xs:
        h = torch.tanh(wt * h + x)
    h.backward()
    assert bptt(w, xs) == pytest.approx(wt.grad.item(), rel=1e-12)
