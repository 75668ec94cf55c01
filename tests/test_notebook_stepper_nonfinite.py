"""Where a NaN or an infinity is born, the stepper panel shows the product that made it.

Lesson 16's ``where`` pitfall: at SqrtBackward0 the gradient arriving is ``[0., 0., 1.]``
and the one sent on ``[nan, nan, 0.25]``. The panel said only
``[0., 0., 1.] × (1/(2√a)) = [nan, nan, 0.25]``: no local value per element (an upstream
of 0 has nothing to divide by), so the learner could not see the ``0 · inf = nan`` that the
lesson's text is about. The local values here are derived by hand (√-1 is nan, 1/(2√0) is
inf) and checked against PyTorch's own backward of sqrt.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.notebook import step_backward

pytest.importorskip("graphviz")


def where_pitfall():
    x = torch.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    s = x.sqrt()
    y = torch.where(x > 0, s, x)
    L = y.sum()
    return step_backward(L, names={"x": x, "s": s, "y": y, "L": L})


def test_lesson_16s_nan_is_shown_element_by_element_as_0_times_inf():
    # By hand: local 1/(2√a) is nan at a = -1 (√-1 is nan) and inf at a = 0; the
    # upstream there is 0 (where took the other branch): 0 · nan = nan, 0 · inf = nan.
    assert math.isnan(0.0 * float("nan")) and math.isnan(0.0 * math.inf)
    real = pytest.importorskip("torch")
    rx = real.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    rx.sqrt().backward(real.ones(3))
    assert str(rx.grad) == "tensor([   nan,    inf, 0.2500])"   # the local, per element
    panel = where_pitfall().panels[3]
    assert panel.title == "Step 3 of 4: SqrtBackward0 (s)"
    assert "[0]: 0. × nan = nan" in panel.text, panel.text
    assert "[1]: 0. × inf = nan" in panel.text
    assert "[2]:" not in panel.text          # 1 × 0.25 = 0.25 is finite: nothing born there
    # In the HTML: each product as upstream × local = contribution, with the three captions.
    born = panel.html.split('<div class="tg-born">', 1)[1]
    assert '<pre class="tg-v">0.</pre><figcaption>upstream</figcaption>' in born
    assert '<pre class="tg-v">inf</pre><figcaption>local</figcaption>' in born
    assert "nan" in panel.spoken and "0. × inf = nan" in panel.spoken


def test_a_nan_that_only_passes_through_is_not_said_to_be_born_there():
    # a = x * 1 is stepped after sqrt: its upstream already holds the inf, so the inf
    # is born at SqrtBackward0 (2 · inf: upstream 2, local inf) and only passes MulBackward0.
    x = torch.tensor([0.0, 4.0], requires_grad=True)
    a = x * 1
    s = a.sqrt()
    L = (s * 2).sum()
    panels = step_backward(L, names={"x": x, "a": a, "s": s, "L": L}).panels
    sqrt = next(p for p in panels if "SqrtBackward0" in p.title)
    mul = next(p for p in panels if "MulBackward0 (a)" in p.title)
    assert "[0]: 2. × inf = inf" in sqrt.text, sqrt.text
    assert "born" not in mul.text and "tg-born" not in mul.html, mul.text


def test_an_inf_times_zero_is_a_nan_born_at_the_step_that_multiplies():
    # x * 0 after an infinite upstream: inf · 0 = nan at the Mul step, by hand.
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    u = x * 1
    z = torch.tensor([0.0, 3.0])
    w = u * z
    L = w.sqrt().sum()      # sqrt(0) sends inf into w's step, sqrt(3) a finite number
    panels = step_backward(L, names={"x": x, "u": u, "z": z, "w": w, "L": L}).panels
    mul = next(p for p in panels if "MulBackward0 (w)" in p.title)
    assert "[0]: inf × 0. = nan" in mul.text, mul.text
    assert "[1]:" not in mul.text


def test_a_nan_born_inside_an_op_that_mixes_elements_is_named_without_a_product():
    # Lesson 16, section 4: softmax's backward gets -inf at p0 = 0 and multiplies it by 0
    # inside its sum over the classes: NaN for every logit, born at SoftmaxBackward0. Its
    # local derivative is a matrix, not one number per element: no product to show.
    logits = torch.tensor([0.0, 110.0], requires_grad=True)
    p = torch.softmax(logits, dim=0)
    loss = -p.log()[0]
    panels = step_backward(loss, names={"logits": logits, "p": p, "loss": loss}).panels
    log = next(q for q in panels if "LogBackward0" in q.title)
    softmax = next(q for q in panels if "SoftmaxBackward0" in q.title)
    assert "[0]: -1. × inf = -inf" in log.text, log.text
    assert "nan is born here" in softmax.text, softmax.text
    assert " × " not in softmax.text.split("nan is born here", 1)[1]
    assert np.isnan(logits.grad.numpy()).all()   # (what the real backward gave)


def test_finite_steps_say_nothing_about_births():
    x = torch.tensor([1.0, 4.0], requires_grad=True)
    panels = step_backward(x.sqrt().sum(), names={"x": x}).panels
    assert not any("born" in p.text or "tg-born" in p.html for p in panels)


def test_many_born_elements_are_listed_a_few_then_counted():
    x = torch.zeros(20, requires_grad=True)
    s = x.sqrt()
    panel = step_backward(s.sum(), names={"x": x, "s": s}).panels[2]
    assert "[0]: 1. × inf = inf" in panel.text and "[3]: 1. × inf = inf" in panel.text
    assert "[4]:" not in panel.text and "16 more elements" in panel.text, panel.text


def test_a_nan_that_a_selecting_backward_stops_is_said_to_stop_there():
    # Lesson 16's clamp fix with a bound of 0: the nan sqrt sends at -1 meets clamp's
    # backward, which passes no gradient below the bound, nan or not: x.grad[0] is 0
    # (as in PyTorch). Read as "upstream × local", nan × 0 = 0 contradicted the
    # 0 × nan = nan two steps before; the panel says this backward selects.
    x = torch.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    c = x.clamp(min=0)
    s = c.sqrt()
    y = torch.where(x > 0, s, x)
    panels = step_backward(y.sum(), names={"x": x, "c": c, "s": s, "y": y}).panels
    clamp = next(p for p in panels if "ClampBackward1" in p.title)
    assert ("The nan that arrived at [0] stops here: along AccumulateGrad (x) this backward "
            "sends 0. there, whatever arrived.") in clamp.text, clamp.text
    assert "[1]" not in clamp.text.split("stops here")[0].split("\n")[-1]  # 0 passes it on
    real = pytest.importorskip("torch")
    rx = real.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    real.where(rx > 0, rx.clamp(min=0).sqrt(), rx).sum().backward()
    # by hand: 1 from where's other branch at -1 (clamp sent 0 there), nan at 0, 1/4 at 4
    assert str(rx.grad) == "tensor([1.0000,    nan, 0.2500])"
    np.testing.assert_array_equal(x.grad.numpy(), rx.grad.numpy())
    # A product passes a nan on: nothing said to stop at the lesson's where pitfall.
    assert not any("stops here" in p.text for p in where_pitfall().panels)


def test_a_nan_born_where_two_contributions_are_added_shows_the_sum():
    # x reaches L along two paths: through sqrt(x) (inf at 0) and through -sqrt(x)
    # (-inf at 0): each contribution is infinite, their sum inf + -inf is nan, by hand.
    assert math.isnan(math.inf + -math.inf)
    x = torch.tensor([0.0, 4.0], requires_grad=True)
    p = x.sqrt()
    q = -x.sqrt()
    L = (p + q).sum()
    panels = step_backward(L, names={"x": x, "p": p, "q": q, "L": L}).panels
    accumulate = panels[-1]
    assert accumulate.title.endswith("AccumulateGrad (x)")
    # (in the order the engine added them, as the sum above it)
    assert "nan is born in this sum, where no contribution had it: [0]: -inf + inf = nan" \
        in accumulate.text, accumulate.text
    assert "[1]" not in accumulate.text.split("born in this sum")[1]
    real = pytest.importorskip("torch")
    rx = real.tensor([0.0, 4.0], requires_grad=True)
    (rx.sqrt() - rx.sqrt()).sum().backward()
    assert math.isnan(rx.grad[0]) and math.isnan(x.grad[0])


def test_a_nan_born_in_a_broadcast_sum_is_named_without_a_product():
    # b is broadcast over x's rows: b's gradient is the column sum of upstream × x, and
    # the inf · 0 in it (by hand: sqrt's inf at 0, times x's 0) is summed away from any
    # one element: nan born at the Mul step, said to be summed over the broadcast.
    x = torch.tensor([[0.0], [1.0]])
    b = torch.tensor([1.0], requires_grad=True)
    w = x * b
    L = w.sqrt().sum()
    mul = next(p for p in step_backward(L, names={"x": x, "b": b, "w": w}).panels
               if "MulBackward0 (w)" in p.title)
    assert "nan is born here, along b → AccumulateGrad (b)" in mul.text, mul.text
    assert "summed over the broadcast dimensions" in mul.text.split("born here")[1]
