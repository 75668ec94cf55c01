"""The backward stepper (teachgrad.notebook.step_backward).

What the stepper shows must be what the engine did: each test compares the recorded steps
with an independent observation of a plain ``backward()`` on an identical graph, and the
gradients with values derived by hand for the seed lessons (or with real PyTorch, where
installed). Nothing is compared with the stepper's own earlier output.
"""

import html
import json
import math
import re
import shutil
import sys
import warnings
from html.parser import HTMLParser

import numpy as np
import pytest
from untrusted_view import visible_images, visible_text

import teachgrad as torch
from teachgrad.autograd import engine
from teachgrad.notebook import Stepper, step_backward, step_forward
from teachgrad.notebook.chain_rule import saved_with_labels, snapshot_saved

pytest.importorskip("graphviz")


def has_layout() -> bool:
    try:
        import pygraphviz  # noqa: F401
    except ImportError:
        return shutil.which("dot") is not None
    return True


# ---------------------------------------------------------------------------------------
# The seed graphs, each built by a function so that a second, identical graph can be run
# with a plain backward() for comparison.
# ---------------------------------------------------------------------------------------
def seed001():
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    return out, {"x": x, "y": y, "z": z, "out": out}


def seed003():
    a = torch.ones(1, requires_grad=True)
    w1, w2, w3, w4 = torch.tensor(1), torch.tensor(2), torch.tensor(3), torch.tensor(4)
    b = w1 * a
    c = w2 * a
    d = (w3 * b) + (w4 * c)
    L = d**2
    return L, {"a": a, "b": b, "c": c, "d": d, "L": L}


def fan_out():
    """u is used by two different ops, whose gradients reach it at different steps."""
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    u = x * 2
    p = u.sin()
    q = (u * u).exp()
    out = (p + q * 3).sum()
    return out, {"x": x, "u": u, "p": p, "q": q, "out": out}


def retained():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * x
    h.retain_grad()
    out = (h * 2).sum()
    return out, {"x": x, "h": h, "out": out}


SEEDS = [seed001, seed003, fan_out, retained]


def observe_plain_backward(out, **kwargs) -> list:
    """(node name, grads in, grads out) of each step of a plain backward, seen directly."""
    seen = []

    def watch(step):
        seen.append((
            step.node.name(),
            [None if g is None else np.array(getattr(g, "_data", g)) for g in step.grads_in],
            [None if g is None else np.array(getattr(g, "_data", g)) for g in step.grads_out],
        ))

    with engine.observe(watch):
        out.backward(**kwargs)
    return seen


def leaves(values: dict) -> dict:
    return {k: v for k, v in values.items() if v.is_leaf and v.requires_grad}


def assert_same(a, b):
    if a is None or b is None:
        assert a is None and b is None
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


# ---------------------------------------------------------------------------------------
# The recording is the engine's execution
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", SEEDS, ids=lambda f: f.__name__)
def test_recorded_steps_are_the_engines_steps(make):
    plain_out, _ = make()
    expected = observe_plain_backward(plain_out)
    out, names = make()
    stepper = step_backward(out, names=names)
    assert [s.node.name() for s in stepper.steps] == [e[0] for e in expected]
    for record, (_, grads_in, grads_out) in zip(stepper.steps, expected):
        for got, want in zip(record.grads_in, grads_in):
            assert_same(got, want)
        assert len(record.sent) == len(grads_out)
        for sent, want in zip(record.sent, grads_out):
            assert_same(sent.value, want)


@pytest.mark.parametrize("make", SEEDS, ids=lambda f: f.__name__)
def test_after_stepping_grads_equal_a_plain_backward(make):
    plain_out, plain = make()
    plain_out.backward()
    out, names = make()
    step_backward(out, names=names)
    for name, leaf in leaves(names).items():
        assert_same(leaf.grad._data, plain[name].grad._data)


def test_seed_values_derived_by_hand():
    out, v = seed001()
    step_backward(out, names=v)
    # out = mean(3 (x+2)^2): d/dx = 6 (x+2) / 4 = 4.5 at x = 1
    np.testing.assert_allclose(v["x"].grad._data, np.full((2, 2), 4.5))
    L, v = seed003()
    step_backward(L, names=v)
    # d = 3*1*a + 4*2*a = 11a, L = d^2: dL/da = 2 * 11 * 11 = 242
    assert v["a"].grad.item() == 242.0


def test_fan_out_shows_the_contributions_summed_and_a_partial_state():
    out, v = fan_out()
    stepper = step_backward(out, names=v)
    # The step at u's node (MulBackward0 named u) received two contributions.
    (record,) = [r for r in stepper.steps if stepper.names.of_node(r.node) == "u"]
    arrivals = record.arrivals[0]
    assert len(arrivals) == 3  # u * u sends two, sin(u) one
    np.testing.assert_allclose(sum(a.value for a in arrivals), record.grads_in[0], rtol=1e-6)
    # By hand: d out/du = cos(u) + 3 * exp(u^2) * 2u
    u = np.array([1.0, -2.0], dtype=np.float32)
    np.testing.assert_allclose(record.grads_in[0], np.cos(u) + 6 * u * np.exp(u * u), rtol=1e-5)
    # Between the first and the second contribution, u's box is "partial".
    box = stepper.model.box_of[record.node]
    first, second = min(a.step for a in arrivals), max(a.step for a in arrivals)
    assert first < second
    assert stepper.timeline.state_at(box, first + 1) == "partial"
    assert stepper.timeline.state_at(box, second + 1) == "ready"
    assert stepper.timeline.state_at(box, record.index + 1) == "current"
    assert stepper.timeline.state_at(box, record.index + 2) == "done"
    panel = stepper.panels[record.index + 1]
    assert "3 contributions arrived" in panel.text
    # The two that u * u sent are told apart by the input they went out through (their
    # captions both read "step N, MulBackward0"); the one sin(u) sent needs no such words.
    captions = [c for c in re.findall(r"<figcaption>(.*?)</figcaption>", panel.html)
                if c.startswith("step ")][:3]
    product = [c for c in captions if "MulBackward0" in c]
    assert len(product) == 2 and product[0] != product[1], captions
    assert [c.rsplit(", ", 1)[1] for c in product] == ["its input a", "its input b"]
    assert [c for c in captions if "SinBackward0" in c][0].count(",") == 1


def test_accumulation_into_an_existing_grad_shows_old_plus_new():
    out, v = seed003()
    v["a"].grad = torch.tensor([10.0])
    stepper = step_backward(out, names=v)
    last = stepper.steps[-1]
    assert_same(last.grad_before, [10.0])
    assert_same(last.grad_after, [252.0])
    assert "a.grad: [10.] + [242.] = [252.]" in stepper.panels[-1].text


def test_panel_shows_formula_upstream_local_contribution_and_queue():
    out, v = seed001()
    stepper = step_backward(out, names=v)
    # Step 2 (frame 2) runs z's MulBackward0: upstream 0.25, times b = 3, gives 0.75.
    panel = stepper.panels[2]
    assert panel.title == "Step 2 of 5: MulBackward0 (z)"
    assert "∂(a·b)/∂a = b" in panel.text          # the op's own formula attribute
    # b = 3 for each of the four elements (the local values of an elementwise step)
    assert re.search(r"0\.2500.*× \(∂\(a·b\)/∂a = b = \[\[3\., 3\.\], \[3\., 3\.\]\]\) = "
                     r".*0\.7500", panel.text)
    assert "b (_saved_other) = 3" in panel.text     # the saved constant the local uses
    assert "ready next: MulBackward0" in panel.text
    assert "∂out/∂z" in panel.text
    leaf_panel = stepper.panels[-1]
    assert "x.grad: None → [[4.5000, 4.5000], [4.5000, 4.5000]]" in leaf_panel.text
    assert "backward() is finished" in leaf_panel.text


def test_a_one_number_step_shows_the_local_derivative_as_a_number():
    # Lesson 5: L = 3 sin(x²) at x = 1.5. The panel wrote "3. × (cos a) = -1.8845" and
    # left cos(2.25) to the student; the lesson's table says it is -0.6282.
    x = torch.tensor(1.5, requires_grad=True)
    u = x ** 2
    v = torch.sin(u)
    L = v * 3
    panels = step_backward(L, names={"x": x, "u": u, "v": v, "L": L}).panels
    assert "3. × (∂(sin a)/∂a = cos a = -0.6282) = -1.8845" in panels[2].text
    assert f"{math.cos(2.25):.4f}" == "-0.6282"                  # by hand
    assert "= n·aⁿ⁻¹ = 3.) = -5.6536" in panels[3].text        # 2 · 1.5, not 2.9999998
    assert "(∂(a·b)/∂a = b = 3.) = 3." in panels[1].text
    # In the HTML the number sits in the local's figure, under its formula.
    assert ('<code class="tg-local">∂(sin a)/∂a = cos a</code><pre class="tg-v">-0.6282</pre>'
            '<figcaption>local</figcaption>') in panels[2].html


def test_no_local_number_where_the_step_is_not_one_number_to_one_number():
    from teachgrad.notebook.chain_rule import local_number

    out, v = seed001()  # out = z.mean() on [2, 2]: four numbers from one, no local number
    panel = step_backward(out, names=v).panels[1]
    assert re.search(r"× \(∂\(mean a\)/∂aᵢ = 1/n\) = ", panel.text), panel.text
    assert local_number(np.float32(0.0), np.float32(1.0)) is None   # nothing to divide by
    assert local_number(np.float32(2.0), np.float32(np.inf)) is None
    assert local_number(np.ones(1), np.ones(3)) is None              # broadcast: a sum
    assert local_number(None, np.ones(1)) is None                    # several outputs
    assert float(local_number(np.float32(-1.8845), np.float32(-5.6535))) == \
        pytest.approx(5.6535 / 1.8845, rel=1e-5)


def test_a_small_elementwise_step_shows_the_local_derivative_of_each_element():
    # A vector step showed only the formula ("× (∂(tanh a)/∂a = 1 − tanh²a) ="): the
    # numbers to check the product with were the student's to work out.
    x = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
    w = torch.tensor([0.3, 1.5, -2.0], requires_grad=True)
    y = (x * w).tanh()
    out = (y * y).sum()
    panels = step_backward(out, names={"x": x, "w": w, "y": y, "out": out}).panels
    # tanh's local derivative 1 − tanh²(x·w), by hand
    by_hand = [1 - math.tanh(a * b) ** 2 for a, b in zip([2.0, -1.0, 0.5], [0.3, 1.5, -2.0])]
    assert [f"{v:.4f}" for v in by_hand] == ["0.7116", "0.1807", "0.4200"]
    tanh = panels[3]
    assert "∂(tanh a)/∂a = 1 − tanh²a = [0.7116, 0.1807, 0.4200]) = " in tanh.text
    assert "upstream × local = contribution, element by element" in tanh.text
    assert ('<code class="tg-local">∂(tanh a)/∂a = 1 − tanh²a</code>'
            '<pre class="tg-v">[0.7116, 0.1807, 0.4200]</pre>'
            "<figcaption>local, per element</figcaption>") in tanh.html
    # x * w: the local derivative along x is w, along w it is x, element by element.
    mul = panels[4]
    assert "(∂(a·b)/∂a = b = [ 0.3000,  1.5000, -2.0000])" in mul.text
    assert "(∂(a·b)/∂b = a = [ 2.0000, -1.0000,  0.5000])" in mul.text
    # y * y: each local is y, printed as the saved y is (no second rounding: 0.5370).
    assert "(∂(a·b)/∂a = b = [ 0.5370, -0.9051, -0.7616])" in panels[2].text


def test_no_local_values_where_a_step_is_not_small_and_elementwise():
    from teachgrad.notebook.chain_rule import local_values

    # A matrix product keeps the shape of a square matrix, but its Jacobian is not
    # diagonal: dividing element by element would invent a "local derivative".
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
    out = (a @ b).sum()
    mm = step_backward(out, names={"a": a, "b": b, "out": out}).panels[2]
    assert "MmBackward0" in mm.title and "element by element" not in mm.text
    assert "per element" not in mm.html
    # Seven elements: more than a panel lists.
    x = torch.linspace(0.1, 0.7, 7).requires_grad_()
    seven = step_backward(x.tanh().sum(), names={"x": x}).panels[2]
    assert "TanhBackward0" in seven.title and "element by element" not in seven.text
    # An upstream with a zero (relu let nothing through there): no list with holes.
    x = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
    relu, double = step_backward(((x * 2).relu() * 3).sum(), names={"x": x}).panels[3:5]
    assert "(∂relu(a)/∂a = 1 if a > 0 else 0 = [1., 0., 1.])" in relu.text  # 3 × 1, 3 × 0
    assert "[3., 0., 3.] × (∂(a·b)/∂a = b) = [6., 0., 6.]" in double.text  # not 0 / 0
    assert local_values(np.array([1.0, 0.0]), np.array([2.0, 0.0])) is None
    assert local_values(np.array([1.0, 2.0]), np.array([np.nan, 1.0])) is None
    assert local_values(np.ones(3), np.ones((1, 3))) is None        # another shape
    assert local_values(np.ones(1), np.ones(1)) is None             # one number: local_number
    assert local_values(np.array([2.0, -4.0]), np.array([1.0, 1.0])).tolist() == [0.5, -0.25]


def lesson3_graph():
    """Lesson 3's graph: the student's tensors are called a, b, c, d, as the formulas'
    inputs are."""
    w1, w2, w3, w4 = (torch.tensor(v) for v in (1.0, 2.0, 3.0, 4.0))
    a = torch.ones(1, requires_grad=True)
    b = w1 * a
    c = w2 * a
    d = (w3 * b) + (w4 * c)
    L = d ** 2
    return L, {"w1": w1, "w2": w2, "w3": w3, "w4": w4, "a": a, "b": b, "c": c, "d": d, "L": L}


def test_lesson_3s_local_numbers_are_the_hand_derived_factors():
    # d = w3·w1·a + w4·w2·a = 11 at a = 1: the factors are 2d = 22 (the square), 1 (the
    # sum: its formula says so, no "= 1." after it), w3 = 3 and w4 = 4, then w1 = 1 and
    # w2 = 2. (A cache keyed by id() once printed w4's step as "= 1.": 22 × 1 = 88.)
    L, names = lesson3_graph()
    lines = [line.strip() for line in step_backward(L, names=names).log().splitlines()
             if "×" in line and "→" in line]
    found = [re.search(r"\[(\d+)\.\] × \((.*)\) = \[(\d+)\.\]", line).groups()
             for line in lines]
    assert found == [
        ("1", "∂(aⁿ)/∂a = n·aⁿ⁻¹ = 22.", "22"),
        ("22", "∂(a+b)/∂a = 1", "22"), ("22", "∂(a+b)/∂b = 1", "22"),
        ("22", "∂(a·b)/∂b = a = 4.", "88"), ("22", "∂(a·b)/∂b = a = 3.", "66"),
        ("88", "∂(a·b)/∂b = a = 2.", "176"), ("66", "∂(a·b)/∂b = a = 1.", "66"),
    ]


def saved_labels(out) -> list:
    """What the chain-rule panel calls each value ``out.grad_fn`` saved."""
    node = out.grad_fn
    return [label for label, _ in saved_with_labels(node, *snapshot_saved([node])[node])]


def test_saved_values_are_named_by_the_formula_and_by_pytorchs_attribute():
    # where's condition was "b" (the one input without an edge is the constant b, so a
    # saved tensor that needs no gradient was taken for it): it is the formula's c, and
    # PyTorch shows it as grad_fn._saved_condition.
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = torch.where(x > 0, x, torch.zeros(3))
    where_labels = saved_labels(y)
    assert where_labels == ["c (_saved_condition)"]
    panel = step_backward(y.sum(), names={"x": x, "y": y}).panels[2]
    assert "saved in forward: c (_saved_condition) = [ True, False,  True]" in panel.text
    assert "1 where c" in panel.text  # the letter is the formula's
    # One tensor used twice: PyTorch saves other then self; other is b, self is a
    # (by position the first was called a). The same for mm's mat2 (B) and self (A).
    m = torch.ones(2, 2, requires_grad=True)
    assert saved_labels(x * x) == ["b (_saved_other)", "a (_saved_self)"]
    assert saved_labels(m @ m) == ["B (_saved_mat2)", "A (_saved_self)"]
    # mse_loss's formula writes the target t (its third part is a note, "÷n for the mean")
    t = torch.tensor([0.0, 1.0, 2.0])
    assert saved_labels(torch.nn.functional.mse_loss(x, t)) == [
        "a (_saved_self)", "t (_saved_target)"]
    # Values that are not inputs: PyTorch's name alone (no "result (_saved_result)").
    assert saved_labels(x.exp()) == ["_saved_result"]
    assert saved_labels(x.masked_fill(x > 0, 0.0)) == ["_saved_mask"]
    # The plain values an op noted too: "shape" is PyTorch's _saved_self_sym_sizes.
    s = x.sum()
    panel = step_backward(s * 1.0, names={"s": s}).panels[2]
    assert panel.title == "Step 2 of 3: SumBackward0 (s)"
    assert "also noted in forward: shape (_saved_self_sym_sizes) = (3,)" in panel.text
    real = pytest.importorskip("torch")
    rx = real.tensor([1.0, -2.0, 3.0], requires_grad=True)
    assert tuple(rx.sum().grad_fn._saved_self_sym_sizes) == (3,)
    for out, labels in ((real.where(rx > 0, rx, real.zeros(3)), where_labels),
                        (rx * rx, saved_labels(x * x)), (rx.exp(), saved_labels(x.exp()))):
        attributes = [re.search(r"_saved_\w+", label).group() for label in labels]
        assert all(hasattr(out.grad_fn, a) for a in attributes), (out.grad_fn, attributes)


def test_an_index_and_a_clamps_bounds_read_as_pytorch_saves_them():
    # x[i] crashed the stepper (its saved index had no label at all: None); its panel also
    # said "key = (array([2, 0]),)", NumPy's view of the index. clamp_min(0) said
    # "1 inside [min, max]" and "bounds = (0, None)".
    x = torch.tensor([2.0, -1.0, 5.0], requires_grad=True)
    i = torch.tensor([2, 0])
    names = {"x": x, "i": i}
    cases = {
        "x[i]": (x[i], "i (_saved_indices) = [2, 0]", "shape (_saved_self_sym_sizes) = (3,)"),
        "x[x > 0]": (x[x > 0], "mask (_saved_indices) = [ True, False,  True]",
                     "shape (_saved_self_sym_sizes) = (3,)"),
        "x[torch.tensor([1])]": (x[torch.tensor([1])], "index (_saved_indices) = [1]", None),
        "x.clamp(-1.5, 3)": (x.clamp(-1.5, 3), "∂clamp(a)/∂a = 1 where -1.5 ≤ a ≤ 3, else 0",
                             "min (_saved_min) = -1.5, max (_saved_max) = 3"),
        "x.clamp(min=0)": (x.clamp(min=0), "∂clamp(a)/∂a = 1 where a ≥ 0, else 0",
                           "min (_saved_min) = 0, max (_saved_max) = None"),
        "x.clamp_min(0)": (x.clamp_min(0), "∂clamp_min(a)/∂a = 1 where a ≥ 0, else 0",
                           "also noted in forward: min (_saved_min) = 0\n"),
        "x.clamp_max(0)": (x.clamp_max(0), "∂clamp_max(a)/∂a = 1 where a ≤ 0, else 0",
                           "also noted in forward: max (_saved_max) = 0\n"),
        # (sort, topk, take, scatter noted NumPy's index too: "key = (array([1, 0, 2]),)")
        "x.sort()[0]": (x.sort()[0],
                        "also noted in forward: shape (_saved_self_sym_sizes) = (3,)\n", None),
    }
    for code, (y, first, second) in cases.items():
        text = step_backward(y.sum(), names=names).panels[2].text
        assert first in text, (code, text)
        assert second is None or second in text, (code, text)
        assert "key =" not in text and "bounds =" not in text, (code, text)
    # The local values are the mask of where the gradient passes (a tie passes, as in
    # PyTorch: clamp(min=0) at 0 has gradient 1).
    z = torch.tensor([0.0, -1.0, 2.0], requires_grad=True)
    text = step_backward(z.clamp(min=0).sum(), names={"z": z}).panels[2].text
    assert "= [1., 0., 1.]) = [1., 0., 1.]" in text
    real = pytest.importorskip("torch")
    rx = real.tensor([0.0, -1.0, 2.0], requires_grad=True)
    rx.clamp(min=0).sum().backward()
    assert rx.grad.tolist() == [1.0, 0.0, 1.0]
    ri = real.tensor([2, 0])
    index_fn = real.tensor([2.0, -1.0, 5.0], requires_grad=True)[ri].grad_fn
    assert [t.tolist() for t in index_fn._saved_indices] == [[2, 0]]
    assert tuple(index_fn._saved_self_sym_sizes) == (3,)
    clamp_fn = real.tensor([2.0, -1.0, 5.0], requires_grad=True).clamp(-1.5, 3).grad_fn
    assert (clamp_fn._saved_min, clamp_fn._saved_max) == (-1.5, 3)
    assert real.ones(1, requires_grad=True).clamp_max(0).grad_fn._saved_max == 0


def test_formula_letters_that_are_also_the_students_names_are_said_to_be_the_ops_inputs():
    # Lesson 3, step 6 (b = w1 * a): "b → AccumulateGrad (a) ... saved in forward: a = 1."
    # read as if it spoke of the student's a and b; the formula's a is w1 here.
    L, names = lesson3_graph()
    panels = step_backward(L, names=names).panels
    panel = panels[6]
    assert panel.title == "Step 6 of 7: MulBackward0 (b)"
    # The formula's a is named too: it needs no gradient, but the multiplication saved it
    # (the note said only "a tensor that needs no gradient", the row under it "None (w1)").
    note = ("In this formula a and b are MulBackward0's inputs, not your a and b: its a is "
            "your w1 (which needs no gradient), its b is your a.")
    assert note in panel.text
    # the letters and names are set as code in the panel
    assert ("not your <code>a</code> and <code>b</code>: its <code>a</code> is your "
            "<code>w1</code> (which needs no gradient), its <code>b</code> is your "
            "<code>a</code>.</p>") in panel.html
    # w3 * b: the formula's b is the student's b, only its a can be mixed up
    assert panels[4].title == "Step 4 of 7: MulBackward0"
    assert ("not your a: its a is your w3 (which needs no gradient), its b is your b."
            in panels[4].text)
    # an unnamed constant that needs no gradient is said to be one
    a = torch.ones(1, requires_grad=True)
    b = torch.tensor([2.0]) * a
    (_, step), = [(p.title, p.text) for p in step_backward(b, names={"a": a, "b": b}).panels
                  if p.title.startswith("Step 1")]
    assert "its a is a tensor that needs no gradient, its b is your a." in step
    # PowBackward0 (step 1) has one input, the student's d
    assert "In this formula a is PowBackward0's input, not your a: it is your d." in \
        panels[1].text
    # Lesson 6: in p = a * b the letters are the student's a and b, in L = p + a they are not.
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(5.0, requires_grad=True)
    p = a * b
    L = p + a
    panels = step_backward(L, names={"a": a, "b": b, "p": p, "L": L}).panels
    assert ("In this formula a and b are AddBackward0's inputs, not your a and b: its a is "
            "your p, its b is your a.") in panels[1].text
    assert panels[2].title == "Step 2 of 4: MulBackward0 (p)"
    assert "In this formula" not in panels[2].text
    # No clash, no note: lesson 5's x, u, v, L.
    x = torch.tensor(1.5, requires_grad=True)
    u = x ** 2
    v = torch.sin(u)
    L = v * 3
    panels = step_backward(L, names={"x": x, "u": u, "v": v, "L": L}).panels
    assert not [p.title for p in panels if "In this formula" in p.text]


def test_a_value_noted_in_forward_is_named_as_the_formula_writes_it():
    x = torch.tensor(1.5, requires_grad=True)
    panel = step_backward(x ** 3, names={"x": x}).panels[1]
    assert "local derivative: ∂(aⁿ)/∂a = n·aⁿ⁻¹" in panel.text
    assert "also noted in forward: exponent n (_saved_exponent) = 3" in panel.text  # "exponent = 3"


def test_a_formula_wraps_only_between_its_parts():
    out, v = seed001()
    panel = step_backward(out, names=v).panels[2]
    assert ('<code><span class="tg-part">∂(a·b)/∂a = b</span> '
            '<span class="tg-part">∂(a·b)/∂b = a</span></code>') in panel.html
    from teachgrad.notebook.assets import css
    assert re.search(r"\.tg-formula \.tg-part \{[^}]*white-space: nowrap", css("stepper.css"))


def test_retain_grad_under_stepping():
    out, v = retained()
    stepper = step_backward(out, names=v)
    assert_same(v["h"].grad._data, [2.0, 2.0, 2.0])
    assert_same(v["x"].grad._data, [4.0, 8.0, 12.0])  # d(2 x^2)/dx = 4x
    assert "h.grad (kept by retain_grad): None → [2., 2., 2.]" in stepper.log()


def test_a_retained_grad_that_accumulates_shows_old_plus_new():
    # Read "[2., 2., 2.] = [4., 4., 4.]" before: the gradient added was missing.
    out, v = retained()
    out.backward(retain_graph=True)
    stepper = step_backward(out, names=v)
    assert_same(v["h"].grad._data, [4.0, 4.0, 4.0])
    assert "h.grad (kept by retain_grad): [2., 2., 2.] + [2., 2., 2.] = [4., 4., 4.]" in (
        stepper.log())


def test_a_non_leaf_among_inputs_stops_the_gradient_and_gets_it():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = x * 2
    M = z.sum()
    stepper = step_backward(M, names={"x": x, "z": z, "M": M}, inputs=[z])
    assert_same(z.grad._data, [1.0, 1.0])
    assert x.grad is None                                        # as PyTorch: z.grad only
    log = stepper.panels[-1].text
    assert "does not run: ∂M/∂z is what backward(inputs=...) asked for" in log
    assert "z.grad (asked for by inputs=): None → [1., 1.]" in log


def test_wrong_arguments_are_named_not_a_traceback_from_inside():
    from teachgrad.notebook import draw, step_forward

    x = torch.tensor(2.0, requires_grad=True)
    for function, name in ((step_backward, "step_backward"), (draw, "draw"),
                           (step_forward, "step_forward")):
        with pytest.raises(TypeError, match=rf"^{name}\(\) expects a Tensor or a list of "
                                            "Tensors, got int\nHint: "):
            function(3)
        with pytest.raises(TypeError, match=r"names= expects a dict such as locals\(\)"):
            function(x * 2, names=["x"])
        # locals without its parentheses: the message says what to type
        with pytest.raises(TypeError, match=r"got builtin_function_or_method\n"
                                            r"Hint: call it: names=locals\(\) \(with the "):
            function(x * 2, names=locals)
    assert x.grad is None


def test_a_dict_where_names_go_is_a_type_error_with_a_hint_and_changes_nothing():
    # step_backward(out, {"x": x}) puts the dict in gradient=, the second argument (as in
    # out.backward(gradient)); NumPy used to fail deep inside with a ValueError.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out = (x * x).sum()
    for names in ({"x": x}, {"x": x, "out": out}):
        with pytest.raises(TypeError, match=r"^gradients can be either Tensors or None, but got "
                                            r"dict\nHint: the second argument of step_backward"
                                            r"\(\) is gradient=.*names=locals\(\)"):
            step_backward(out, names)
    assert x.grad is None
    step_backward(out, names={"x": x})  # the graph is still there to step through
    assert_same(x.grad._data, [2.0, 4.0])


def test_a_vector_output_without_gradient_gets_pytorchs_error_with_a_step_backward_hint():
    # The engine's hint says out.backward(gradient=...); the learner called step_backward.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    with pytest.raises(RuntimeError, match=r"^grad can be implicitly created only for scalar "
                                           r"outputs\nHint: y has shape torch.Size\(\[2\]\).*"
                                           r"step_backward\(y.sum\(\)\).*step_backward\(y, "
                                           r"gradient=torch.ones_like\(y\)\)"):
        step_backward(y, names={"x": x, "y": y})
    assert x.grad is None  # nothing ran
    with pytest.raises(RuntimeError, match=r"step_backward\(out, gradient="):
        step_backward(x * 3)  # no names: called out
    step_backward(y, gradient=torch.ones_like(y))  # as the hint says
    assert_same(x.grad._data, [2.0, 4.0])
    # an output that needs no grad keeps the engine's (PyTorch's first) error
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad"):
        step_backward(torch.ones(3))


def test_gradients_that_are_not_tensors_get_pytorchs_type_error():
    torch_ = pytest.importorskip("torch")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for gradient, kind in (([1.0], "float"), (2.0, "float"), ("ab", "str")):
        with pytest.raises(TypeError, match=rf"^gradients can be either Tensors or None, but "
                                            rf"got {kind}\nHint: gradient= is the gradient"):
            step_backward((x * x).sum(), gradient)
        assert x.grad is None
    # PyTorch's sentence, for the list of a float
    reference = torch_.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match="^gradients can be either Tensors or None, but got float$"):
        (reference * reference).sum().backward([1.0])
    # a generator of tensors is read once and works, as in backward()
    step_backward((x * x).sum(), (g for g in [torch.tensor(3.0)]))
    assert_same(x.grad._data, [6.0, 12.0])


def test_hooks_run_and_are_reported():
    def make():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: g * 10)
        return (y * y).sum(), x

    plain_out, plain_x = make()
    plain_out.backward()
    out, x = make()
    stepper = step_backward(out, names={"x": x})
    assert_same(x.grad._data, plain_x.grad._data)
    assert_same(x.grad._data, [180.0, 360.0])       # 10 * 2y * 3 with y = 3x
    assert "A hook changed this gradient" in stepper.log()
    # Both sides of the hook: y * y sends 2y = [6, 12]; the hook returns [60, 120].
    assert "before the hook: [ 6., 12.]" in stepper.log()


def test_retain_graph_and_backward_twice():
    out, v = seed001()
    step_backward(out, retain_graph=True)
    out.backward()
    np.testing.assert_allclose(v["x"].grad._data, np.full((2, 2), 9.0))
    out2, _ = seed001()
    step_backward(out2)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out2.backward()



def test_running_a_stepper_cell_twice_fails_first_and_changes_no_grad():
    # Re-running the step_backward cell alone: the engine would already have added
    # a's gradient (AddBackward0 needs nothing saved) before failing at ExpBackward0.
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    L = a + b.exp()
    step_backward(L, names={"a": a, "b": b, "L": L})
    grads = (a.grad.clone(), b.grad.clone())
    with pytest.raises(RuntimeError, match=r"(?s)a second time.*Hint: .*compute L again"):
        step_backward(L, names={"a": a, "b": b, "L": L})
    assert (a.grad.item(), b.grad.item()) == (grads[0].item(), grads[1].item())
    # Like backward(), a graph that saved nothing can be stepped again.
    M = a + b
    step_backward(M)
    step_backward(M)
    assert a.grad.item() == grads[0].item() + 2.0


def test_create_graph_allows_a_second_derivative():
    x = torch.tensor(2.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        step_backward(x**3, create_graph=True)
    assert x.grad.item() == 12.0                    # 3 x^2
    assert x.grad.grad_fn is not None
    (second,) = torch.autograd.grad(x.grad, x)
    assert second.item() == 12.0                    # 6 x


def test_the_create_graph_warning_points_at_the_callers_line():
    # Not at a line inside teachgrad: a student would read "steps.py: ... engine.backward(".
    x = torch.tensor(2.0, requires_grad=True)
    with pytest.warns(UserWarning, match="create_graph=True will create a reference cycle") as w:
        step_backward(x**3, create_graph=True)
    assert [record.filename for record in w] == [__file__]


def test_inputs_restricts_which_leaves_get_grad():
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    stepper = step_backward(a * b, inputs=[a])
    assert a.grad.item() == 3.0
    assert b.grad is None
    assert stepper.steps  # something ran


def test_inputs_and_gradient_may_be_generators_as_in_backward():
    # backward() reads each once; step_backward used to read them twice (the second time
    # empty: "inputs ... cannot be empty", "got 1 tensors and 0 gradients").
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    step_backward(a * b * a, gradient=(g for g in [torch.tensor([1.0, 0.5])]),
                  inputs=(t for t in [a]))
    assert_same(a.grad._data, [6.0, 8.0])  # 2ab * v
    assert b.grad is None


def test_gradient_argument_for_a_non_scalar_output():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    stepper = step_backward(x * x, gradient=torch.tensor([1.0, 0.5]))
    assert_same(x.grad._data, [2.0, 2.0])           # 2x * v
    assert_same(stepper.recording.seeds[0], [1.0, 0.5])


def test_with_gradient_the_panels_speak_of_the_scalar_it_stands_for():
    # backward(v) from y differentiates ℓ = (y * v).sum(): what arrives at y is ∂ℓ/∂y = v
    # (written as code, as lesson 7 writes it; "(v·y).sum()" read as a dot product, a
    # scalar already, summed).
    # "∂y/∂y" (the identity) would be wrong, and so would "∂y/∂x" for x.grad = vᵀJ.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    v = torch.tensor([1.0, 0.5])
    log = step_backward(y, gradient=v, names={"x": x, "y": y, "v": v}).log()
    assert "ℓ = (y * v).sum()" in log
    assert "∂ℓ/∂y" in log and "∂ℓ/∂x" in log
    assert "∂y/∂" not in log
    # Without gradient= the output itself is differentiated.
    x2 = torch.tensor(2.0, requires_grad=True)
    z = x2 * 3
    log = step_backward(z, names={"x2": x2, "z": z}).log()
    assert "∂z/∂z = 1" in log and "∂z/∂x2" in log and "ℓ" not in log


# ---------------------------------------------------------------------------------------
# What is displayed
# ---------------------------------------------------------------------------------------
def test_widget_state_at_step_k():
    pytest.importorskip("ipywidgets")
    out, v = seed001()
    stepper = step_backward(out, names=v)
    view = stepper.widget()
    assert view is stepper.widget()
    live = stepper._widget
    for k in range(stepper.n_frames):
        stepper.frame = k
        assert live.stack.selected_index == k          # the one child the Stack shows
        shown = live.current_html()
        assert f'data-frame="{k}"' in shown
        if k:
            record = stepper.steps[k - 1]
            box = stepper.model.box_of[record.node]
            assert stepper.panels[k].html in shown
            # The running node is styled "current" (it gets the current-node variables).
            current = re.search(r":is\(([^)]*)\)\{--tg-node-fill:var\(--tg-current-fill\)", shown)
            assert f"#{stepper.prefix}_{box}" in current.group(1).split(",")
    stepper.frame = 3
    assert "MulBackward0" in live.current_html()
    assert "[[0.7500, 0.7500]," in live.current_html()
    # The step buttons follow (in the browser by jslink; the kernel's copies too).
    assert [group.index for group in live.buttons] == [3, 3, 3, 3]


def test_the_step_buttons_step_in_the_browser():
    # Each of |◀ ◀ ▶ ▶| is a group of one button per frame whose index is jslinked to the
    # step box: a click selects a frame without the kernel (tests/browser clicks them).
    widgets = pytest.importorskip("ipywidgets")
    out, v = seed001()
    stepper = step_backward(out, names=v)
    stepper.widget()
    live = stepper._widget
    links = {(link.source[0].model_id, link.source[1], link.target[0].model_id,
              link.target[1]) for link in live.links}
    n = stepper.n_frames
    for group, name in zip(live.buttons, ["First step", "Previous step", "Next step",
                                          "Last step"]):
        assert isinstance(group, widgets.ToggleButtons)
        assert (live.step_box.model_id, "value", group.model_id, "index") in links
        assert group.tooltips == (name,) * n
        # Button k's label is "k": ipywidgets redraws a group whose labels are not its
        # buttons' indices (tests/browser/test_lab_stepper_speed.py); stepper.css hides it.
        assert group._options_labels == tuple(str(k) for k in range(n))
    stepper.frame = 4
    assert [group.index for group in live.buttons] == [4] * 4
    stepper.frame = 99                  # clamped, as before
    assert stepper.frame == n - 1


def test_the_live_graph_keeps_the_keyboard_on_the_step_buttons():
    # The live view's <style> installs step_buttons.js (tests/browser checks it with keys).
    pytest.importorskip("ipywidgets")
    from teachgrad.notebook.assets import script

    out, v = seed001()
    stepper = step_backward(out, names=v)
    stepper.widget()
    code = script("step_buttons.js")
    assert "//" not in code and "\n\n" not in code  # no comment lines, no blank lines
    assert f'<style onload="{html.escape(code, quote=True)}">' in stepper._widget._graph_html()
    assert "onload" not in stepper.static_html()  # the static copy stays script-free


def test_the_step_buttons_sit_together_apart_from_play():
    # They were |◀ ◀ ▷(Play) slider ▶ ▶|: Play's ▷ icon, between ◀ and ▶, read as "next",
    # and in a narrow cell ▶ ▶| wrapped onto a row of their own, under the slider.
    pytest.importorskip("ipywidgets")
    out, v = seed001()
    stepper = step_backward(out, names=v)
    steps, step_box, playing = stepper.widget().children[0].children
    assert [b.tooltips[0] for b in steps.children] == [
        "First step", "Previous step", "Next step", "Last step"]
    assert step_box is stepper._widget.step_box
    assert playing.children[0] is stepper._widget.play_button
    assert not stepper._widget.play.show_repeat


def test_the_graph_column_may_shrink_to_keep_the_panel_beside_it():
    # Its full width as flex basis pushed the panel below a 540-pixel graph in an
    # 850-pixel cell (tests/browser/test_lab_stepper_layout.py shows it in JupyterLab).
    pytest.importorskip("ipywidgets")
    if not has_layout():
        pytest.skip("no Graphviz")
    from teachgrad.notebook.layout import width_px

    out, v = seed001()
    stepper = step_backward(out, names=v)
    natural = width_px(stepper.svg())
    assert stepper.graph_width() == (round(0.8 * natural), round(natural))
    basis, most = stepper.graph_width()
    assert f'style="flex:1 1 {basis}px;max-width:min(100%,{most}px)"' in stepper.static_html()
    graph = stepper.widget().children[1].children[0]
    assert (graph.layout.flex, graph.layout.max_width) == (f"1 1 {basis}px", f"{most}px")


def test_large_steppers_swap_one_frame_widget(monkeypatch):
    pytest.importorskip("ipywidgets")
    from teachgrad.notebook import live

    monkeypatch.setattr(live, "CLIENT_SIDE_LIMIT", 3)
    out, v = seed001()
    stepper = step_backward(out, names=v)
    stepper.frame = 4
    assert stepper._widget.stack is None
    assert 'data-frame="4"' in stepper._widget.current_html()
    assert stepper.panels[4].html in stepper._widget.current_html()


def test_display_gives_the_static_stepper_then_the_widget():
    pytest.importorskip("ipywidgets")
    shell_module = pytest.importorskip("IPython.core.interactiveshell")
    from IPython.utils.capture import capture_output

    shell_module.InteractiveShell.instance()
    out, v = seed001()
    stepper = step_backward(out, names=v)
    with capture_output() as captured:
        stepper._ipython_display_()
    static, widget = (o.data for o in captured.outputs)
    assert 'class="tg-stepper tg-static"' in static["text/html"]
    assert "Step 5 of 5: AccumulateGrad (x)" in static["text/plain"]
    assert "model_id" in widget["application/vnd.jupyter.widget-view+json"]
    assert widget["text/plain"] == "" and widget["text/html"] == ""
    # The widget hides the static copy where it renders.
    graph_html = stepper._widget._graph_html()
    p = stepper.prefix  # (and its copies where it is displayed again: tgs3-2...)
    assert f':is(#{p},[id^="{p}-"]).tg-static{{display:none}}' in graph_html
    # Outside IPython's display machinery, the bundle is the static stepper (a second
    # display of it: the same page with ids of its own, see test_notebook_stepper_copies).
    again = stepper._repr_mimebundle_()["text/html"]
    assert again.replace(f"{p}-2", p) == static["text/html"] != again


class _Elements(HTMLParser):
    """Collects (tag, attributes) of every element: exporters may reorder attributes."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.found = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def radios_and_sections(page: str, prefix: str):
    """The ids of the stepper's radio buttons and the frame numbers of its panels."""
    elements = _Elements(page).found
    radios = [a["id"] for tag, a in elements
              if tag == "input" and a.get("type") == "radio" and a.get("name") == prefix]
    sections = [re.search(r"tg-f(\d+)", a["class"]).group(1) for tag, a in elements
                if tag == "section" and "tg-frame" in a.get("class", "")]
    return radios, sections


def test_static_html_has_every_frame_and_its_controls_and_no_script():
    out, v = seed001()
    stepper = step_backward(out, names=v)
    page = stepper.static_html()
    radios, sections = radios_and_sections(page, stepper.prefix)
    assert len(radios) == len(sections) == stepper.n_frames == 6
    assert sections == [str(k) for k in range(6)]
    # Every control points at a frame that exists.
    targets = {a["for"] for tag, a in _Elements(page).found if tag == "label"}
    assert targets and targets <= set(radios)
    # Each frame's panel is shown by its radio.
    for k in range(6):
        assert f"#{stepper.prefix}_f{k}:checked~.tg-stage .tg-f{k}" in page
    for panel in stepper.panels:
        assert panel.html in page
    assert "<script" not in page.lower()
    # Nothing is fetched (no CDN, no fonts): the only URLs are SVG's namespace names and
    # the data: URI of the graph's copy for untrusted viewers.
    assert not re.search(r"""(src|href)=["']?(?!data:)\w+:|url\(|@import""", page)


def test_without_css_the_final_frame_and_a_text_log_remain():
    if not has_layout():
        pytest.skip("no Graphviz")
    out, v = seed001()
    stepper = step_backward(out, names=v)
    stripped = re.sub(r"<style>.*?</style>", "", stepper.static_html(), flags=re.S)
    text = re.sub(r"<[^>]+>", " ", stripped)
    # The graph as it ends: every box carries its final gradient.
    assert "grad all 4.5" in text and "grad all 0.25" in text
    for k in range(1, 6):
        assert f"Step {k} of 5" in text


def test_an_untrusted_notebook_shows_the_log_under_the_final_graph_and_no_dead_controls():
    # JupyterLab's sanitiser (untrusted notebooks: every lesson opened fresh) dropped the
    # bare `hidden` attributes, which put radio buttons, the numbered strip, ◀ ▶ labels
    # and the legend's list on screen, doing nothing; and it strips the SVG, leaving its
    # labels as a line of text. Now: a note, the picture, and the log of every step.
    if not has_layout():
        pytest.skip("no Graphviz")
    out, v = seed001()
    stepper = step_backward(out, names=v)
    page = stepper.static_html()
    text = visible_text(page)
    assert text.startswith("Every step of backward() at once, under the graph as it ends. "
                           "Run this cell (or trust the notebook) to step through them")
    for control in ("|◀", "▶|", "some contributions", "step 1 of 5"):
        assert control not in text
    assert "MeanBackward0 · scalar" not in text  # the SVG's labels and tooltips
    for k in range(1, 6):
        assert f"Step {k} of 5" in text
    # the picture without its ids (an <img> is a document of its own: nothing finds them)
    assert visible_images(page) == [re.sub(r'\sid="[^"]*"', "", stepper.svg())]
    assert 'id="' in stepper.svg()
    assert not re.search(r"\shidden[\s>]", page)  # every hidden= has a value


def test_an_untrusted_forward_replay_says_what_its_log_is():
    if not has_layout():
        pytest.skip("no Graphviz")
    out, v = seed001()
    text = visible_text(step_forward(out, names=v).static_html())
    assert text.startswith("Every op of the forward pass at once, under the finished graph.")


def test_malicious_names_are_escaped_in_the_stepper():
    x = torch.ones(2, requires_grad=True)
    stepper = step_backward((x * 2).sum(), names={"<img src=x onerror=alert(1)>": x})
    page = stepper.static_html()
    assert "<img src=x" not in page
    assert page.count("<img") == 1  # the graph's own copy, for untrusted viewers
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_without_graphviz_the_stepper_still_steps(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pygraphviz", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    out, v = seed001()
    stepper = step_backward(out, names=v)
    page = stepper.static_html()
    assert "pip install pygraphviz" in page and "digraph" in page
    assert len(radios_and_sections(page, stepper.prefix)[1]) == 6


def test_a_1000_node_graph_opens_folded():
    x = torch.ones(3, requires_grad=True)
    y = x
    for i in range(1000):
        y = y * 1.0001 if i % 2 else y + 1
    stepper = step_backward(y.sum())
    assert stepper.model.mode == "collapsed"
    assert stepper.n_frames == 1003                   # start + 1002 nodes
    page = stepper.static_html()
    assert len(radios_and_sections(page, stepper.prefix)[1]) == 1003
    chain = stepper.model.box_of[stepper.steps[500].node]
    assert stepper.timeline.state_at(chain, 501) == "current"
    assert stepper.timeline.state_at(chain, 1003 - 1) == "done"


def test_step_backward_is_exported_and_returns_a_stepper():
    x = torch.tensor(3.0, requires_grad=True)
    assert isinstance(step_backward(x * x), Stepper)
    assert x.grad.item() == 6.0


@pytest.mark.torch
@pytest.mark.parametrize("make", SEEDS, ids=lambda f: f.__name__)
def test_order_matches_pytorch(make):
    """The engine's order (shown by the stepper) is PyTorch's order, seen through hooks."""
    real = pytest.importorskip("torch")
    out, names = make()
    ours = [r.node.name().rsplit("::")[-1] for r in step_backward(out, names=names).steps]
    # The same graph in PyTorch, built by the same code with torch in place of teachgrad.
    module = sys.modules[__name__]
    saved = module.torch
    module.torch = real
    try:
        real_out, _ = make()
    finally:
        module.torch = saved
    order = []
    stack, seen = [real_out.grad_fn], set()
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        fn.register_prehook(lambda g, fn=fn: order.append(type(fn).__name__))
        stack.extend(n for n, _ in fn.next_functions if n is not None)
    real_out.backward()
    assert ours == order


# ---------------------------------------------------------------------------------------
# Exported notebooks: nbconvert HTML, stepped in a real browser with JavaScript off
# ---------------------------------------------------------------------------------------
def export_to_html(stepper, tmp_path, widget_state: bool = False):
    """An nbconvert HTML export of a notebook whose output is the stepper's display.

    ``widget_state``: as saved by ``nbconvert --execute`` (nbclient stores the state of
    every widget), which makes nbconvert emit the widget view, needing the widget manager
    from a CDN.
    """
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    shell_module = pytest.importorskip("IPython.core.interactiveshell")
    from IPython.utils.capture import capture_output

    shell_module.InteractiveShell.instance()
    with capture_output() as captured:
        stepper._ipython_display_()
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("step_backward(out, names=locals())")
    cell.outputs = [nbformat.v4.new_output("display_data", data=o.data)
                    for o in captured.outputs]
    notebook.cells.append(cell)
    if widget_state:
        model_id = captured.outputs[1].data["application/vnd.jupyter.widget-view+json"]
        notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
            "state": {model_id["model_id"]: {"model_name": "VBoxModel", "state": {}}},
            "version_major": 2, "version_minor": 0,
        }}
    body, _ = nbconvert.HTMLExporter().from_notebook_node(notebook)
    path = tmp_path / "lesson.html"
    path.write_text(body, encoding="utf-8")
    return body, path


@pytest.mark.parametrize("widget_state", [False, True], ids=["plain", "widget-state-saved"])
def test_nbconvert_export_carries_the_static_stepper(tmp_path, widget_state):
    pytest.importorskip("ipywidgets")
    out, v = seed001()
    stepper = step_backward(out, names=v)
    body, _ = export_to_html(stepper, tmp_path, widget_state)
    # Whether nbconvert renders the widget or not, the static stepper is its own output.
    assert 'class="tg-stepper tg-static"' in body
    radios, sections = radios_and_sections(body, stepper.prefix)
    assert len(radios) == len(sections) == 6
    assert ("application/vnd.jupyter.widget-view+json" in body) == widget_state
    assert "VBox(" not in body


def chromium_page():
    """A headless Chromium page with JavaScript disabled (skips without a browser)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    manager = sync_api.sync_playwright().start()
    try:
        browser = manager.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
    except Exception as error:  # no browser installed: not this test's business
        manager.stop()
        pytest.skip(f"no Chromium available: {error}")
    context = browser.new_context(java_script_enabled=False)
    return manager, browser, context.new_page()


@pytest.mark.browser
@pytest.mark.parametrize("widget_state", [False, True], ids=["plain", "widget-state-saved"])
def test_exported_stepper_steps_with_css_only(tmp_path, widget_state):
    pytest.importorskip("ipywidgets")
    if not has_layout():
        pytest.skip("no Graphviz")
    out, v = seed001()
    stepper = step_backward(out, names=v)
    _, path = export_to_html(stepper, tmp_path, widget_state)
    manager, browser, page = chromium_page()
    try:
        page.goto(path.as_uri())
        p = stepper.prefix

        def visible_frames():
            return [k for k in range(6) if page.locator(f"#{p} .tg-f{k}").is_visible()]

        def stroke_width(box_id):
            shape = page.locator(f"#{p}_{box_id} > path").first
            return shape.evaluate("e => getComputedStyle(e).strokeWidth")

        assert visible_frames() == [0]
        first = stepper.model.box_of[stepper.steps[0].node]       # MeanBackward0
        assert stroke_width(first) != "3px"
        page.locator(f"#{p} .tg-f0 label[for='{p}_f1']").click()  # ▶
        assert visible_frames() == [1]
        assert stroke_width(first) == "3px"                      # the running node
        assert page.locator(f"#{p} .tg-f1").inner_text().count("MeanBackward0") >= 1
        page.locator(f"#{p} .tg-t5").click()                     # the timeline: frame 5
        assert visible_frames() == [5]
        leaf = stepper.model.box_of[stepper.steps[-1].node]      # AccumulateGrad (x)
        assert stroke_width(leaf) == "3px" and stroke_width(first) != "3px"
        page.locator(f"#{p} .tg-f5 label[for='{p}_f4']").click()  # ◀
        assert visible_frames() == [4]
    finally:
        browser.close()
        manager.stop()


def test_text_log_of_a_long_pass_keeps_both_ends():
    x = torch.ones(2, requires_grad=True)
    y = x
    for _ in range(30):
        y = y * 1.0
    stepper = step_backward(y.sum())
    log = stepper.log(limit=10)
    assert "Start: backward()" in log and "Step 32 of 32: AccumulateGrad" in log
    assert "Step 10 of 32" not in log
    assert "… 23 more steps" in log
    assert stepper.log().count("\n\nStep ") == 32


# ---------------------------------------------------------------------------------------
# Forward replay
# ---------------------------------------------------------------------------------------
def test_step_forward_replays_ops_in_creation_order():
    from teachgrad.notebook import ForwardReplay, step_forward

    out, v = seed001()
    replay = step_forward(out, names=v)
    assert isinstance(replay, ForwardReplay)
    # The lesson's code order: y = x + 2, then y * y, then (y * y) * 3, then mean.
    assert [n.name() for n in replay.ops] == [
        "AddBackward0", "MulBackward0", "MulBackward0", "MeanBackward0"
    ]
    assert replay.n_frames == 5
    box_of = replay.model.box_of
    x_box = box_of[v["x"]._accumulator()]
    y_box, z_box = box_of[v["y"].grad_fn], box_of[v["z"].grad_fn]
    t = replay.timeline
    assert t.state_at(x_box, 0) == "done"          # the leaf exists from the start
    assert t.state_at(y_box, 0) is None and t.state_at(y_box, 1) == "current"
    assert t.state_at(y_box, 2) == "done" and t.state_at(z_box, 2) is None
    assert t.state_at(z_box, 3) == "current"
    assert "inputs: a = x (a leaf)" in replay.panels[1].text
    assert "makes y ([2, 2])" in replay.panels[1].text
    # only the 3: y*y is not kept, as in PyTorch (no gradient is needed for the 3)
    assert "saved in forward: b (_saved_other) = 3" in replay.panels[3].text
    # Nothing ran: no gradient anywhere.
    assert v["x"].grad is None
    page = replay.static_html()
    assert len(radios_and_sections(page, replay.prefix)[1]) == 5
    assert "not made yet" in page


def test_step_forward_names_every_tensor_a_multi_output_op_makes():
    from teachgrad.notebook import step_forward

    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    p, q = x.unbind(0)
    out = (p * q).sum()
    replay = step_forward(out, names={"x": x, "p": p, "q": q, "out": out})
    assert "3 ops follow," in replay.panels[0].text
    assert "makes p, q ([3], [3])" in replay.panels[1].text
    r, s = x.unbind(0)   # unnamed outputs: a count, not the first output's name
    unnamed = step_forward((r * s).sum(), names={"x": x})
    assert "makes 2 new tensors ([3], [3])" in unnamed.panels[1].text
    assert "1 op follows," in step_forward(x * 2, names={"x": x}).panels[0].text


def test_custom_function_and_multi_output_nodes_step():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    y = torch.tensor([3.0], requires_grad=True)
    stepper = step_backward(Square.apply(y).sum(), names={"y": y})
    assert y.grad.item() == 6.0                     # d(y^2)/dy = 2y
    assert "its backward() computes the local derivative" in stepper.log()

    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    a, b = x.unbind(0)
    out = (a * b).sum()
    stepper = step_backward(out, names={"x": x, "a": a, "b": b})
    # d(sum a*b)/dx = [b, a]
    assert_same(x.grad._data, [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]])
    (unbind,) = [r for r in stepper.steps if r.node.name() == "UnbindBackward0"]
    assert len(unbind.grads_in) == 2


def test_the_start_panel_says_what_every_step_will_do():
    out, v = seed001()
    start = step_backward(out, names=v).panels[0].text
    assert "∂out/∂out = 1." in start
    # multiply along a path, add where paths meet (lesson 1's y gets two contributions)
    assert "multiplies the gradient its node receives by the node's local derivative" in start
    assert "where paths meet, the contributions are added" in start
    assert "below" not in start  # the steps come one after the other, in place


def test_accumulate_grad_says_store_for_none_and_add_for_a_tensor():
    out, v = seed003()
    first = step_backward(out, names=v).panels[-1].text
    assert "AccumulateGrad stores the gradient in a.grad, which held None" in first
    assert "a.grad: None → [242.]" in first
    out, v = seed003()
    v["a"].grad = torch.tensor([10.0])
    second = step_backward(out, names=v).panels[-1].text
    assert "AccumulateGrad adds the gradient to what a.grad already holds." in second
    assert "a.grad: [10.] + [242.] = [252.]" in second


@pytest.mark.parametrize("make_loss", [
    lambda z: torch.nn.functional.cross_entropy(z, torch.tensor([0, 2])),
    lambda z: torch.nn.functional.nll_loss(z.log_softmax(1), torch.tensor([1, 0])),
    lambda z: torch.nn.functional.multi_margin_loss(z, torch.tensor([2, 1])),
    lambda z: torch.nn.BatchNorm1d(3)(z).pow(2).sum(),
], ids=["cross_entropy", "nll_loss", "multi_margin_loss", "batch_norm_training"])
def test_ops_that_save_values_without_names_step(make_loss):
    # Their nodes save values the op does not name (saved_names): the chain-rule panel
    # calls them "saved" (it used to raise AttributeError on html.escape(None)).
    z = torch.tensor([[2.0, 1.0, 0.1], [0.5, -1.0, 3.0]], requires_grad=True)
    expected = torch.autograd.grad(make_loss(z), z)[0]
    stepper = step_backward(make_loss(z), names={"z": z})
    assert_same(z.grad._data, expected._data)      # the stepped pass is a real backward
    first = stepper.steps[0].node.name()
    assert first == make_loss(z).grad_fn.name()
    assert f"Step 1 of {len(stepper.steps)}: {first}" in stepper.log()


def test_each_frame_says_what_happened_in_a_few_short_lines():
    # What a screen reader announces at a step (Panel.spoken: the live stepper's and the
    # static copy's polite live regions; tests/browser reads them after key presses).
    import teachgrad as torch
    from teachgrad.notebook.chain_rule import SPOKEN_LINE

    x = torch.tensor([2.0, -1.0], requires_grad=True)
    y = x * 3
    out = (y * y).sum()
    stepper = step_backward(out, names={"x": x, "y": y, "out": out})
    spoken = [p.spoken for p in stepper.panels]
    assert spoken[0].startswith("Start: backward() from out; starting gradient at ")
    assert spoken[3] == (
        "Step 3 of 4: MulBackward0 (y); 2 contributions arrived: [ 6., -3.] + [ 6., -3.] = "
        "[12., -6.]; a → AccumulateGrad (x): [12., -6.] × (∂(a·b)/∂a = b = [3., 3.]) = "
        "[ 36., -18.]")
    assert spoken[4].endswith("; x.grad: None → [ 36., -18.]")
    # A long tensor is cut: each line stays short enough to be heard.
    w = torch.full((8, 8), 1234.5678, requires_grad=True)
    long = step_backward((w * 2).sum(), names={"w": w}).panels[2].spoken
    assert all(len(line) <= SPOKEN_LINE for line in long.split("; "))
    assert "…" in long
    static = stepper.static_html()
    assert static.count('role="status" aria-live="polite"') == 1
    assert static.count('<span class="tg-s') == len(stepper.panels)


@pytest.mark.skipif(not has_layout(), reason="no Graphviz layout here")
def test_a_big_stepper_writes_the_gradients_beside_its_arrows(monkeypatch):
    # An arrow label is a box of its own to dot, which made a 2,000-box stepper take
    # 7 to 16 s of layout; above LABELS_BESIDE_ABOVE boxes the gradients are xlabels.
    # The limit is lowered here so that a small graph shows both ways.
    import teachgrad.notebook.graph as graph

    def stepper():
        x = torch.tensor([0.5, -1.0], requires_grad=True)
        return step_backward((x.exp() * x).sin().sum(), names={"x": x})

    def arrow_labels(source: str) -> list:
        """How each arrow of the DOT text carries its gradient: label or xlabel."""
        return [found for line in source.splitlines() if "->" in line
                for found in re.findall(r"\b(x?label)=<", line)]

    small = stepper()
    assert set(arrow_labels(small.digraph.source)) == {"label"}
    monkeypatch.setattr(graph, "LABELS_BESIDE_ABOVE", 3)
    big = stepper()
    assert len(big.model.boxes) > 3
    assert arrow_labels(big.digraph.source) == ["xlabel"] * len(arrow_labels(small.digraph.source))
    # each gradient is still written inside its arrow's group, where stepper.css finds it
    # (svg g.edge > text), and says what the engine sent: sin's input got cos(e^x · x)
    edges = re.findall(r'<g id="[^"]+" class="edge">(.*?)</g>', big.svg(), re.S)
    texts = [html.unescape(t) for e in edges for t in re.findall(r"<text[^>]*>([^<]*)<", e)]
    x = np.float32([0.5, -1.0])
    expected = np.cos(np.exp(x) * x)
    shown = [np.array(json.loads(t), dtype=np.float32) for t in texts if t.startswith("[")]
    assert any(v.shape == (2,) and np.allclose(v, expected, rtol=1e-3) for v in shown), texts
