"""Lesson 24 (inside the optimizer): its code is PyTorch's, its prose is true.

Three kinds of test:

* the lesson's code cells, run in order with the real PyTorch as ``torch`` (the drawings
  replaced by nothing, ``step_backward`` by ``backward()``), print exactly what the stored
  notebook shows teachgrad printed: every number in the lesson is PyTorch's number;
* each sentence of the prose that states a fact (quoted, so a rewrite shows up here) is
  checked against the lesson's network and its optimizers written out in NumPy, in
  float64 (forward, backward checked by finite differences, SGD, momentum, Adam, AdamW
  from their published formulas), against numbers derived by hand, the stepper, or PyTorch;
* the exercise's check rejects the tempting wrong AdamW steps, and accepts a right one
  written another way (two more wrong ones are in test_exercises.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from lesson_claims import LIBS, RAISES, Lesson, count_printing_as_stored, library

import teachgrad
from teachgrad.notebook.exercises import NotYet

LESSON = Lesson("24_inside_the_optimizer")
SETUP = "X = torch.randn(8, 3)"
LR, BETAS, EPS = 0.01, (0.9, 0.999), 1e-8   # sections 4 to 6's Adam


def flat(text: str) -> str:
    return " ".join(text.split())


# --- the lesson's network in NumPy, float64 --------------------------------------------------
def initial(lib_name: str = "teachgrad"):
    """X, Y and make_model()'s parameters [W1, b1, W2, b2], as float64 NumPy arrays (the
    inputs of the NumPy reference: drawn by the library's seeded generator)."""
    ns = LESSON.run_cells(library(lib_name), SETUP)
    params = [p.detach().numpy().astype(np.float64) for p in ns["make_model"]().parameters()]
    return ns["X"].numpy().astype(np.float64), ns["Y"].numpy().astype(np.float64), params


def loss_np(params, X, Y) -> float:
    W1, b1, W2, b2 = params
    out = np.tanh(X @ W1.T + b1) @ W2.T + b2
    return float(((out - Y) ** 2).mean())


def grads_np(params, X, Y) -> list[np.ndarray]:
    """∂loss/∂[W1, b1, W2, b2], by the chain rule written out."""
    W1, b1, W2, b2 = params
    h = np.tanh(X @ W1.T + b1)
    dout = 2 * (h @ W2.T + b2 - Y) / Y.size
    dz = (dout @ W2) * (1 - h ** 2)
    return [dz.T @ X, dz.sum(axis=0), dout.T @ h, dout.sum(axis=0)]


def l2_grads(params, lam=0.1):
    return [lam * p for p in params]


def sgd_np(params, X, Y, steps, lr=0.1, momentum=0.0, weight_decay=0.0, l2=0.0,
           decoupled=0.0):
    params = [p.copy() for p in params]
    buffers = None
    for _ in range(steps):
        grads = [g + l2 * p for g, p in zip(grads_np(params, X, Y), params)]
        params = [p * (1 - decoupled) for p in params]
        grads = [g + weight_decay * p for g, p in zip(grads, params)]
        if momentum:
            buffers = grads if buffers is None else [momentum * b + g
                                                     for b, g in zip(buffers, grads)]
            grads = buffers
        params = [p - lr * g for p, g in zip(params, grads)]
    return params


def adam_np(params, grad_of, steps, lr=LR, betas=BETAS, eps=EPS, weight_decay=0.0,
            decoupled=False):
    """Adam (Kingma & Ba, Algorithm 1) and AdamW (Loshchilov & Hutter: p ← p − lr·λ·p)."""
    b1, b2 = betas
    params = [np.array(p, dtype=np.float64) for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        grads = grad_of(params)
        for i, (p, g) in enumerate(zip(params, grads)):
            if decoupled:
                p = p * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * p
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g ** 2
            m_hat, v_hat = m[i] / (1 - b1 ** t), v[i] / (1 - b2 ** t)
            params[i] = p - lr * m_hat / (np.sqrt(v_hat) + eps)
    return params


def as_np(model) -> list[np.ndarray]:
    return [p.detach().numpy().astype(np.float64) for p in model.parameters()]


def largest(a, b) -> float:
    return max(float(np.abs(x - y).max()) for x, y in zip(a, b))


def test_the_numpy_backward_is_the_gradient_by_finite_differences():
    X, Y, params = initial()
    grads = grads_np(params, X, Y)
    h = 1e-6
    for i, p in enumerate(params):
        for index in np.ndindex(*p.shape):
            up = [q.copy() for q in params]
            down = [q.copy() for q in params]
            up[i][index] += h
            down[i][index] -= h
            numeric = (loss_np(up, X, Y) - loss_np(down, X, Y)) / (2 * h)
            assert grads[i][index] == pytest.approx(numeric, abs=1e-7)


# --- the lesson's code, run with PyTorch, prints what the notebook shows ------------------
def test_the_lesson_run_with_pytorch_prints_what_teachgrad_printed():
    torch = pytest.importorskip("torch")
    cells = LESSON.code_cells()
    stored = LESSON.stored_stdout()
    assert cells[0].code == ("import teachgrad as torch\n"
                             "from teachgrad.notebook import draw, inspect, step_backward")
    assert not any(c.marker == RAISES for c in cells)   # the errors are caught and printed
    compared = count_printing_as_stored(cells, stored, LESSON.namespace(torch))
    assert compared >= 18  # the cells that print something: not only empty outputs
    assert "Not answered yet" in stored[-2]
    assert stored[-1] == "✔ Correct! That is the right p after four AdamW steps.\n"


def test_the_data_and_the_network_are_pytorchs():
    torch = pytest.importorskip("torch")
    X, Y, params = initial("teachgrad")
    tX, tY, tparams = initial("torch")
    assert np.array_equal(X, tX) and np.array_equal(Y, tY)
    assert all(np.array_equal(a, b) for a, b in zip(params, tparams))
    assert torch.__version__.startswith("2.")


# --- 1. .grad is all an optimizer reads ------------------------------------------------------
def test_three_sgd_steps_by_hand_and_with_optim_sgd():
    X, Y, params = initial()
    assert LESSON.printed_by_cell("by_hand, with_sgd = make_model(), make_model()\noptimizer "
                                  "= torch.optim.SGD(with_sgd.parameters(), lr=0.1)\n") == [
        f"loss after 3 steps: {loss_np(sgd_np(params, X, Y, 3), X, Y):.4f} "
        f"{loss_np(sgd_np(params, X, Y, 3), X, Y):.4f}",
        "largest difference below 1e-6: True"]
    assert f"{loss_np(sgd_np(params, X, Y, 3), X, Y):.4f}" == "0.6524"
    assert LESSON.printed_by_cell("print(\"parameters:\"") == [
        "parameters: [(4, 3), (4,), (1, 4), (1,)]"]


@LIBS
def test_sgd_by_hand_equals_optim_sgd_to_the_last_bit_in_teachgrad_not_in_pytorch(lib_name):
    text = LESSON.text()
    assert ("(In teachgrad they are equal to the last bit. In PyTorch they can differ in the "
            "last bits of a float32, by at most $7.5 \\times 10^{-9}$ here: its `step()` calls "
            "`p.add_(p.grad, alpha=-lr)`, one operation, which rounds differently from "
            "`0.1 * p.grad` followed by `-=`, and three steps carry the differences on.)") in text
    ns = LESSON.run_cells(library(lib_name), SETUP, "for step in range(3):\n    loss_of(by_hand)")
    diff = ns["largest_difference"](ns["by_hand"], ns["with_sgd"])
    X, Y, params = initial()
    assert largest(as_np(ns["by_hand"]), sgd_np(params, X, Y, 3)) < 1e-6
    if lib_name == "teachgrad":
        assert diff == 0.0
    else:
        assert f"{diff:.1e}" == "7.5e-09"
        a = np.concatenate([p.detach().numpy().ravel() for p in ns["by_hand"].parameters()])
        b = np.concatenate([p.detach().numpy().ravel() for p in ns["with_sgd"].parameters()])
        worst = np.argmax(np.abs(a - b))
        assert abs(a[worst] - b[worst]) <= 4 * np.spacing(np.abs(a[worst]))  # last bits
        torch = library(lib_name)
        p, g = torch.randn(1000), torch.randn(1000)
        fused = p.clone().add_(g, alpha=-0.1)
        assert not torch.equal(fused, p - 0.1 * g)   # one rounding against two
        q = p.clone().requires_grad_()
        q.grad = g.clone()
        torch.optim.SGD([q], lr=0.1).step()
        assert torch.equal(q.detach(), fused)        # what SGD's step() computes


@LIBS
def test_step_follows_a_made_up_gradient_and_leaves_a_leaf(lib_name):
    text = LESSON.text()
    assert "With every gradient set to 1, every element moves down by `lr`" in text
    assert ("After `step()` each parameter is still the same leaf, with no `grad_fn`" in text)
    assert "it leaves `.grad` as it was" in text
    assert LESSON.printed_by_cell("p.grad = torch.ones_like(p)") == [
        "every element moved down by 0.1: True",
        "still a leaf: True | grad_fn: None | requires_grad: True | .grad kept: True"]
    ns = LESSON.run_cells(library(lib_name), SETUP, "p.grad = torch.ones_like(p)")
    weight = ns["model"][0].weight   # step() changed this leaf in place: recording was off,
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        weight.sub_(0.1 * weight.grad)   # for with it on, the same change is refused
    for b, p in zip(ns["before"], ns["model"].parameters()):
        b, p = b.numpy().astype(np.float64), p.detach().numpy().astype(np.float64)
        assert np.allclose(b - p, 0.1, atol=1e-7, rtol=0)
        assert np.array_equal(ns["model"][0].weight.grad.numpy(), np.ones((4, 3)))


def test_the_two_wrong_updates_and_their_errors():
    text = LESSON.text()
    assert ("Without `no_grad`, autograd refuses an in-place change of a leaf that requires "
            "grad (lesson 8)") in text
    assert "The model still holds its old parameters, so nothing changed, without any error" in text
    assert "a module's parameter must stay an `nn.Parameter`" in text
    assert LESSON.printed_by_cell("p -= 0.1 * p.grad\nexcept RuntimeError") == [
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place "
        "operation."]
    X, Y, params = initial()
    loss = f"{loss_np(params, X, Y):.4f}"
    assert LESSON.printed_by_cell("loss_before = loss_of(model).item()") == [
        f"loss before {loss} after {loss}",
        "TypeError: cannot assign 'torch.FloatTensor' as parameter 'weight' "
        "(torch.nn.Parameter or None expected)"]
    assert loss == "1.0265"


# --- 2. zero_grad ---------------------------------------------------------------------------
def test_forgetting_zero_grad_by_hand():
    text = LESSON.text()
    assert ("without it, `.grad` holds 3, then 6, then 9, and the steps grow with it") in text
    assert ("After three steps $w = -0.9$ with `zero_grad()` and $-0.3 - 0.6 - 0.9 = -1.8$ "
            "without: the step after $k$ forgotten zeroings is $k + 1$ times too big.") in text
    lines = ["with zero_grad():"]
    w = 0.0
    for step in range(3):
        w -= 0.1 * 3
        lines.append(f"  step {step}: w.grad = 3.0, w = {w:.2f}")
    lines.append("without:")
    w, grad = 0.0, 0.0
    for step in range(3):
        grad += 3
        w -= 0.1 * grad
        lines.append(f"  step {step}: w.grad = {grad:.1f}, w = {w:.2f}")
    assert LESSON.printed_by_cell("def descend(zero_grad, steps=3):") == lines
    assert round(w, 10) == -1.8


@LIBS
def test_set_to_none_skips_the_parameter_a_zero_gradient_moves_it(lib_name):
    text = LESSON.text()
    assert ("the optimizer skips a parameter whose `.grad` is `None`, but a tensor of zeros "
            "is a gradient like any other") in text
    assert ("In the second, $a$ moves by $0.1 \\cdot (0.9 \\cdot 1 + 1) = 0.19$ to $0.71$ "
            "either way. $b$ stays at $0.9$ when its `.grad` is `None`, and moves by "
            "$0.1 \\cdot 0.9 \\cdot 1 = 0.09$ to $0.81$ when it is a zero.") in text
    a = 1.0 - 0.1 * 1                       # step 1: buffers b_a = b_b = 1
    a -= 0.1 * (0.9 * 1 + 1)
    b_skipped, b_zero = 0.9, 0.9 - 0.1 * (0.9 * 1 + 0)
    assert (round(a, 10), round(b_zero, 10)) == (0.71, 0.81)
    assert LESSON.printed_by_cell("for set_to_none in [True, False]:") == [
        f"set_to_none=True : b.grad = None, a = {a:.2f}, b = {b_skipped:.2f}",
        f"set_to_none=False: b.grad = 0.0, a = {a:.2f}, b = {b_zero:.2f}"]
    ns = LESSON.run_cells(library(lib_name), "for set_to_none in [True, False]:")
    assert ns["b"].item() == pytest.approx(0.81)


# --- 3. momentum ----------------------------------------------------------------------------
@LIBS
def test_momentum_by_hand_and_its_state(lib_name):
    text = LESSON.text()
    assert ("$$b \\leftarrow g \\ \\text{(first step)}, \\qquad b \\leftarrow \\mu\\, b + g "
            "\\ \\text{(after)}, \\qquad p \\leftarrow p - \\text{lr}\\cdot b.$$") in text
    assert "with its defaults, `dampening=0`, `nesterov=False`" in text
    ns = LESSON.run_cells(library(lib_name), SETUP, "buffers = {}",
                          "state = optimizer.state[first]")
    X, Y, params = initial()
    reference = sgd_np(params, X, Y, 5, momentum=0.9)
    assert largest(as_np(ns["by_hand"]), reference) < 1e-6
    assert largest(as_np(ns["with_sgd"]), reference) < 1e-6
    group = ns["optimizer"].param_groups[0]
    assert (group["dampening"], group["nesterov"]) == (0, False)
    assert LESSON.printed_by_cell("buffers = {}") == ["largest difference below 1e-6: True"]
    assert LESSON.printed_by_cell("state = optimizer.state[first]") == [
        "state keys: ['momentum_buffer']", "same buffer as ours: True",
        "lr: 0.1 | momentum: 0.9 | parameters: 4"]


def test_the_kernel_shows_the_optimizer_as_a_table():
    assert "The teachgrad kernel shows an optimizer as a table of its groups and its state" in (
        LESSON.text())
    import nbformat
    nb = nbformat.read(LESSON.notebook, as_version=4)
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and c.source == "optimizer"]
    (output,) = cell.outputs
    html = output.data["text/html"]
    assert "momentum_buffer" in html and "momentum" in html and "<table" in html


# --- 4. Adam --------------------------------------------------------------------------------
@LIBS
def test_adam_by_hand_and_its_state(lib_name):
    text = LESSON.text()
    assert ("after one step $m = (1 - \\beta_1)\\, g$, a tenth of $g$") in text
    assert "`exp_avg` ($m$) and `exp_avg_sq` ($v$)" in text
    ns = LESSON.run_cells(library(lib_name), SETUP, "averages = {p: (")
    X, Y, params = initial()
    reference = adam_np(params, lambda ps: grads_np(ps, X, Y), 5)
    assert largest(as_np(ns["by_hand"]), reference) < 1e-6
    assert largest(as_np(ns["with_adam"]), reference) < 1e-6
    assert LESSON.printed_by_cell("averages = {p: (") == [
        "largest difference below 1e-6: True",
        "state keys: ['step', 'exp_avg', 'exp_avg_sq'] | step: 5.0"]


def test_adams_first_step_is_lr_whatever_the_gradient():
    text = LESSON.text()
    assert ("each element moves by $\\text{lr} \\cdot g / (|g| + \\varepsilon)$: by `lr`, "
            "whether its gradient is large or tiny") in text
    assert ("The gradients span more than three powers of ten, from 0.0004 to 1.1; every step "
            "is 0.0100 (to four decimals).") in text
    X, Y, params = initial()
    grads = np.concatenate([g.ravel() for g in grads_np(params, X, Y)])
    after = adam_np(params, lambda ps: grads_np(ps, X, Y), 1)
    steps = np.concatenate([(a - p).ravel() for a, p in zip(after, params)])
    assert np.abs(grads).max() / np.abs(grads).min() > 1000
    assert LESSON.printed_by_cell("grads = torch.cat([p.grad.abs()") == [
        f"|gradient| from {np.abs(grads).min():.4f} to {np.abs(grads).max():.4f}",
        f"|step| from {np.abs(steps).min():.4f} to {np.abs(steps).max():.4f}"]
    assert f"{np.abs(grads).min():.4f} {np.abs(grads).max():.4f}" == "0.0004 1.1112"
    assert np.allclose(np.abs(steps), LR * np.abs(grads) / (np.abs(grads) + EPS), rtol=1e-12)


# --- 5. weight decay ------------------------------------------------------------------------
def test_l2_gradient_arrives_by_two_paths_in_the_stepper():
    text = LESSON.text()
    assert ("$2(3w - 1) \\cdot 3 = 30$ from the fit and $0.1\\,w = 0.2$ from the penalty, and "
            "`AccumulateGrad` receives their sum, $30.2$ (step 7 of the stepper adds the two "
            "contributions)") in text
    w = 2.0
    fit, penalty = 2 * (3 * w - 1) * 3, 0.1 * w
    assert (fit, penalty) == (30.0, 0.2)
    pytest.importorskip("graphviz")
    stepper = LESSON.stepper("step_backward(L, names=")["stepper"]
    assert stepper.panels[-1].title == "Step 7 of 7: AccumulateGrad (w)"
    last = flat(stepper.panels[-1].text)
    assert "2 contributions arrived" in last and "0.2000 + 30. = 30.2000" in last
    torch = pytest.importorskip("torch")
    w = torch.tensor(2.0, requires_grad=True)
    ((3 * w - 1) ** 2 + 0.1 / 2 * w ** 2).backward()
    assert w.grad.item() == pytest.approx(30.2)


def test_weight_decay_for_sgd_is_one_rule():
    assert ("For SGD, the three ways are one rule: $p - \\text{lr}(g + \\lambda p) = (1 - "
            "\\text{lr}\\,\\lambda)\\,p - \\text{lr}\\,g$.") in LESSON.text()
    X, Y, params = initial()
    ways = [sgd_np(params, X, Y, 5, l2=0.1), sgd_np(params, X, Y, 5, weight_decay=0.1),
            sgd_np(params, X, Y, 5, decoupled=0.01)]
    assert largest(ways[0], ways[1]) < 1e-15 and largest(ways[0], ways[2]) < 1e-15
    assert largest(ways[0], sgd_np(params, X, Y, 5)) > 1e-3   # and the decay does something
    assert LESSON.printed_by_cell("def l2(model):") == [
        "SGD, L2 in the loss = weight_decay: True", "SGD, L2 in the loss = decoupled:    True"]


@LIBS
def test_weight_decay_leaves_dot_grad_unchanged(lib_name):
    assert ("`step()` adds $\\lambda p$ to the gradient it reads (`.grad` itself is left "
            "unchanged)") in LESSON.text()
    lib = library(lib_name)
    for optimizer_class in (lib.optim.SGD, lib.optim.Adam):
        p = lib.tensor([1.0, -2.0], requires_grad=True)
        p.grad = lib.tensor([0.5, 0.5])
        optimizer_class([p], lr=0.1, weight_decay=0.1).step()
        assert p.grad.tolist() == [0.5, 0.5]


@LIBS
def test_adam_l2_equals_weight_decay_and_differs_from_adamw(lib_name):
    text = LESSON.text()
    assert ("Ways 1 and 2 still agree (both add $\\lambda p$ to the gradient before Adam sees "
            "it)") in text
    assert ("After five steps of about `lr` = 0.01 each, no weight has moved by much more than "
            "0.05, yet the two differ by 0.0937: some weights went in opposite directions, "
            "towards 0 with Adam + L2 and away from it with AdamW.") in text
    X, Y, params = initial()
    with_l2 = adam_np(params, lambda ps: [g + 0.1 * p for g, p in zip(grads_np(ps, X, Y), ps)], 5)
    adamw = adam_np(params, lambda ps: grads_np(ps, X, Y), 5, weight_decay=0.1, decoupled=True)
    assert largest(with_l2, adam_np(params, lambda ps: grads_np(ps, X, Y), 5,
                                    weight_decay=0.1)) < 1e-15
    assert f"{largest(with_l2, adamw):.4f}" == "0.0937"
    assert LESSON.printed_by_cell("train(in_loss, torch.optim.Adam(") == [
        "Adam, L2 in the loss = weight_decay: True",
        f"Adam + L2 against AdamW: largest difference {largest(with_l2, adamw):.4f}"]
    moved_l2 = np.concatenate([(a - p).ravel() for a, p in zip(with_l2, params)])
    moved_w = np.concatenate([(a - p).ravel() for a, p in zip(adamw, params)])
    start = np.concatenate([p.ravel() for p in params])
    assert max(np.abs(moved_l2).max(), np.abs(moved_w).max()) < 0.051
    opposite = np.sign(moved_l2) != np.sign(moved_w)
    assert np.any(opposite & (np.sign(moved_l2) == -np.sign(start)))   # towards 0 with L2
    ns = LESSON.run_cells(library(lib_name), SETUP, "def l2(model):",
                          "train(in_loss, torch.optim.Adam(")
    assert largest(as_np(ns["in_loss"]), with_l2) < 1e-5
    assert largest(as_np(ns["adamw"]), adamw) < 1e-5


def test_decay_alone_sgd_and_adamw_shrink_adam_moves_by_lr():
    text = LESSON.text()
    assert ("SGD and AdamW shrink the weight by the factor $1 - 0.1 \\cdot 0.01 = 0.999$ per "
            "step.") in text
    assert ("the weight moves by about `lr` = 0.1 per step, **whatever $\\lambda$ is**, 0.01 "
            "or 0.1") in text
    shrink = [round(0.999 ** k, 4) for k in range(1, 6)]

    def adam_alone(lam, decoupled=False):
        path, w = [], [np.array(1.0)]
        for steps in range(1, 6):
            w = adam_np([np.array(1.0)], lambda ps: [np.zeros(())], steps, lr=0.1,
                        weight_decay=lam, decoupled=decoupled)
            path.append(round(float(w[0]), 4))
        return path

    assert adam_alone(0.01, decoupled=True) == shrink
    assert adam_alone(0.01) == adam_alone(0.1) == [0.9, 0.8004, 0.7016, 0.6039, 0.508]
    steps = -np.diff([1.0] + adam_alone(0.01))
    assert np.all(np.abs(steps - 0.1) < 0.005)   # about lr per step: 0.1 down to 0.0959
    assert LESSON.printed_by_cell("def decay_alone(") == [
        f"SGD,   weight_decay=0.01: {shrink}", f"AdamW, weight_decay=0.01: {shrink}",
        f"Adam,  weight_decay=0.01: {adam_alone(0.01)}",
        f"Adam,  weight_decay=0.1:  {adam_alone(0.1)}"]


# --- 6. the optimizer inside backward -------------------------------------------------------
@LIBS
def test_the_fused_optimizer_equals_the_usual_loop(lib_name):
    text = LESSON.text()
    assert "The same parameters, to the last bit, with no `step()` call in the loop." in text
    assert ("And at no moment was there more than one `.grad` tensor: each is freed "
            "(`zero_grad()` sets it to `None`) before the next one is written, where the "
            "usual loop holds all four until `step()`.") in text
    assert LESSON.printed_by_cell("def optimizer_hook(p):") == [
        "equal to the usual loop: [True, True, True, True]",
        "order in one backward(): ['2.bias', '2.weight', '0.bias', '0.weight']",
        ".grad tensors alive at each hook: [1, 1, 1, 1]"]
    ns = LESSON.run_cells(library(lib_name), SETUP, "def optimizer_hook(p):")
    X, Y, params = initial()
    reference = adam_np(params, lambda ps: grads_np(ps, X, Y), 5)
    assert largest(as_np(ns["fused"]), reference) < 1e-6
    assert [p.grad for p in ns["fused"].parameters()] == [None] * 4
    assert all(p.grad is not None for p in ns["usual"].parameters())   # held until step()
    assert ns["order"] == ["2.bias", "2.weight", "0.bias", "0.weight"] * 5


@LIBS
def test_a_post_accumulate_grad_hook_must_return_none(lib_name):
    assert ("A post-accumulate-grad hook must return `None` (`backward()` fails if it returns "
            "a tensor); to replace a gradient before it is accumulated, use `p.register_hook` "
            "(lesson 9), whose return value does that.") in LESSON.text()
    lib = library(lib_name)
    p = lib.tensor([1.0, 2.0], requires_grad=True)
    p.register_post_accumulate_grad_hook(lambda t: t.grad * 0)
    with pytest.raises(RuntimeError, match="^Tensor post accumulate grad hooks should return "
                                           "None."):
        (3 * p).sum().backward()
    p = lib.tensor([1.0, 2.0], requires_grad=True)
    p.register_hook(lambda g: g * 0)
    (3 * p).sum().backward()
    assert p.grad.tolist() == [0.0, 0.0]   # replaced before it was accumulated, not 3


def test_the_stepper_shows_where_each_accumulate_grad_runs():
    text = LESSON.text()
    assert ("Steps 5, 7, 10 and 12 of 12 are the `AccumulateGrad` nodes of `model.2.bias`, "
            "`model.2.weight`, `model.0.bias` and `model.0.weight`. The last layer's "
            "parameters are done before the backward pass has even reached the tanh.") in text
    assert ("the nodes that need the weight's value (the `AddmmBackward0` that multiplies by "
            "it) have already run when its `AccumulateGrad` does") in text
    pytest.importorskip("graphviz")
    ns = LESSON.run_cells(teachgrad, SETUP)
    stepper = LESSON.stepper("step_backward(loss, names=", ns)["stepper"]
    titles = [panel.title.split(": ", 1)[1] for panel in stepper.panels[1:]]
    assert len(titles) == 12
    accumulate = {n + 1: t for n, t in enumerate(titles) if t.startswith("AccumulateGrad")}
    assert accumulate == {5: "AccumulateGrad (model.2.bias)", 7: "AccumulateGrad (model.2.weight)",
                          10: "AccumulateGrad (model.0.bias)",
                          12: "AccumulateGrad (model.0.weight)"}
    assert titles.index("TanhBackward0") + 1 == 8
    addmm = [n + 1 for n, t in enumerate(titles) if t == "AddmmBackward0"]
    assert addmm == [4, 9]     # each before its layer's AccumulateGrads


# --- 7. clip_grad_norm_ ---------------------------------------------------------------------
@LIBS
def test_clip_grad_norm_scales_every_grad(lib_name):
    text = LESSON.text()
    assert ("multiplies every `.grad` in place by $\\text{max\\_norm} / (\\lVert g \\rVert + "
            "10^{-6})$") in text
    assert "It returns the norm from before clipping" in text
    X, Y, params = initial()
    total = np.sqrt(sum((g ** 2).sum() for g in grads_np(params, X, Y)))
    assert LESSON.printed_by_cell("returned = torch.nn.utils.clip_grad_norm_(") == [
        f"norm before {total:.4f}, returned {total:.4f}, after {0.5:.4f}",
        "every .grad times 0.5 / (norm + 1e-6): True"]
    assert f"{total:.4f}" == "1.3797"
    ns = LESSON.run_cells(library(lib_name), SETUP, "returned = torch.nn.utils.clip_grad_norm_(")
    clipped = [p.grad.numpy().astype(np.float64) for p in ns["model"].parameters()]
    want = [g * 0.5 / (total + 1e-6) for g in grads_np(params, X, Y)]
    assert largest(clipped, want) < 1e-6


# --- 8. the table ---------------------------------------------------------------------------
@LIBS
def test_the_tables_state_keys(lib_name):
    text = LESSON.text()
    lib = library(lib_name)
    rows = {"| `SGD` | `p.grad` | none |": (lib.optim.SGD, {}, []),
            "| `SGD(momentum=μ)` | `p.grad` | `momentum_buffer` |":
                (lib.optim.SGD, {"momentum": 0.9}, ["momentum_buffer"]),
            "| `Adam` | `p.grad` | `step`, `exp_avg`, `exp_avg_sq` |":
                (lib.optim.Adam, {}, ["step", "exp_avg", "exp_avg_sq"]),
            "| `AdamW(weight_decay=λ)` | `p.grad`, `p` | as Adam |":
                (lib.optim.AdamW, {"weight_decay": 0.1}, ["step", "exp_avg", "exp_avg_sq"])}
    for row, (optimizer_class, settings, keys) in rows.items():
        assert row in text, row
        p = lib.tensor([1.0], requires_grad=True)
        skipped = lib.tensor([1.0], requires_grad=True)    # .grad None: no state, no change
        p.grad = lib.tensor([1.0])
        optimizer = optimizer_class([p, skipped], lr=0.1, **settings)
        optimizer.step()
        keys_found = sorted(optimizer.state[p]) if p in optimizer.state else []
        assert keys_found == sorted(keys), row
        assert skipped not in optimizer.state and skipped.item() == 1.0
    assert ("for each parameter `p` of the group whose `.grad` is not `None`, with recording "
            "off") in text


# --- the exercise ----------------------------------------------------------------------------
def adamw_reference() -> list[float]:
    """Four AdamW steps on Σ (p − 0.5)² from [1, −2, 3] in NumPy (lr 0.1, λ 0.1)."""
    (p,) = adam_np([np.array([1.0, -2.0, 3.0])], lambda ps: [2 * (ps[0] - 0.5)], 4, lr=0.1,
                   weight_decay=0.1, decoupled=True)
    return p.tolist()


SIGNATURE = ("def adamw_step(p, m, v, t, lr=0.1, betas=(0.9, 0.999), eps=1e-8, "
             "weight_decay=0.1):\n")
#: the exercise cell down to its placeholder: a step's body goes after it
HEAD = LESSON.cell_with_role("exercise").code.split("        raise NotImplementedError")[0]

WRONG_STEPS = {
    "the decay by λ, not lr·λ":
        "p *= 1 - weight_decay\n"
        "m = beta1 * m + (1 - beta1) * p.grad\nv = beta2 * v + (1 - beta2) * p.grad ** 2\n"
        "p -= lr * (m / (1 - beta1 ** t)) / ((v / (1 - beta2 ** t)).sqrt() + eps)\n",
    "the decay after the step":
        "m = beta1 * m + (1 - beta1) * p.grad\nv = beta2 * v + (1 - beta2) * p.grad ** 2\n"
        "p -= lr * (m / (1 - beta1 ** t)) / ((v / (1 - beta2 ** t)).sqrt() + eps)\n"
        "p *= 1 - lr * weight_decay\n",
    "only m corrected":
        "p *= 1 - lr * weight_decay\n"
        "m = beta1 * m + (1 - beta1) * p.grad\nv = beta2 * v + (1 - beta2) * p.grad ** 2\n"
        "p -= lr * (m / (1 - beta1 ** t)) / (v.sqrt() + eps)\n",
    "the averages restarted at each step":
        "p *= 1 - lr * weight_decay\n"
        "m = (1 - beta1) * p.grad\nv = (1 - beta2) * p.grad ** 2\n"
        "p -= lr * (m / (1 - beta1 ** t)) / ((v / (1 - beta2 ** t)).sqrt() + eps)\n",
    "no decay at all (Adam)":
        "m = beta1 * m + (1 - beta1) * p.grad\nv = beta2 * v + (1 - beta2) * p.grad ** 2\n"
        "p -= lr * (m / (1 - beta1 ** t)) / ((v / (1 - beta2 ** t)).sqrt() + eps)\n",
}
RIGHT_ANOTHER_WAY = ("p.mul_(1 - lr * weight_decay)\n"
                     "m = m.lerp(p.grad, 1 - beta1)\n"
                     "v = v * beta2 + p.grad * p.grad * (1 - beta2)\n"
                     "denom = (v / (1 - beta2 ** t)).sqrt() + eps\n"
                     "p.addcdiv_(m, denom, value=-lr / (1 - beta1 ** t))\n")


def run_check(body: str) -> None:
    ns = LESSON.namespace(teachgrad)
    code = HEAD + "".join(f"        {line}\n" for line in body.splitlines()) + "    return m, v\n"
    exec(code, ns)
    exec(LESSON.cell_with_role("check").code, ns)


@pytest.mark.parametrize("mistake", sorted(WRONG_STEPS))
def test_the_check_rejects_a_tempting_wrong_step(mistake):
    with pytest.raises(NotYet, match="is not the right p after four AdamW steps"):
        run_check(WRONG_STEPS[mistake])


def test_the_check_accepts_a_step_written_another_way(capsys):
    run_check(RIGHT_ANOTHER_WAY)
    assert capsys.readouterr().out == "✔ Correct! That is the right p after four AdamW steps.\n"


def test_the_exercise_head_is_the_lessons():
    assert HEAD.startswith(SIGNATURE)
    assert HEAD.endswith("    beta1, beta2 = betas\n    with torch.no_grad():\n")


def test_the_placeholder_is_not_answered_yet(capsys):
    ns = LESSON.namespace(teachgrad)
    exec(LESSON.cell_with_role("exercise").code, ns)
    exec(LESSON.cell_with_role("check").code, ns)
    assert capsys.readouterr().out.startswith("… Not answered yet (your turn:")


@LIBS
def test_the_checked_values_by_hand(lib_name):
    assert ("The check runs four steps of your `adamw_step` on $p = [1, -2, 3]$ with the loss "
            "$\\sum (p - [0.5, 0.5, 0.5])^2$, and compares $p$ with four steps of "
            "`torch.optim.AdamW`") in LESSON.text()
    ns = LESSON.namespace(library(lib_name))
    exec(LESSON.cell_with_role("check").code.split("\nhint = ")[0]
         .replace("from teachgrad.notebook import check\n", ""), ns)
    assert ns["with_adamw"]().tolist() == pytest.approx(adamw_reference(), abs=1e-6)
    exec(LESSON.cell_with_role("solution").code.split("\n\ncheck(")[0], ns)
    assert ns["with_yours"]().tolist() == pytest.approx(adamw_reference(), abs=1e-6)
    # each wrong step above is far from it, beyond check's tolerance (rtol 1e-4, atol 1e-6)
    for body in WRONG_STEPS.values():
        wrong = LESSON.namespace(library(lib_name))
        exec(HEAD + "".join(f"        {line}\n" for line in body.splitlines())
             + "    return m, v\n", wrong)
        exec(LESSON.cell_with_role("check").code.split("\nhint = ")[0]
             .replace("from teachgrad.notebook import check\n", ""), wrong)
        got = np.array(wrong["with_yours"]().tolist())
        assert not np.allclose(got, adamw_reference(), rtol=1e-4, atol=1e-6)
