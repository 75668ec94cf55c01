"""Every value a chain-rule panel says was "saved in forward" has a name.

The stepper's panel lists what each node saved, named by the formula's letter and by the
attribute PyTorch shows it as (``t (_saved_target)``); a value the panel could not place
was listed as plain "saved" (nll_loss's target and weight were: cross_entropy, the loss
of lessons 11 and 18, showed "saved = [0, 2, 1]"). Here the backward pass of the ops a
learner meets in the lessons (pointwise, reductions, products, indexing, views, losses,
norms, convolutions, pooling, softmax, embedding...) is stepped through, and every
panel's saved values must be named, with a letter the formula really writes.
"""

from __future__ import annotations

import re

import pytest

import teachgrad as torch
import teachgrad.nn.functional as F
from teachgrad.notebook import step_backward
from teachgrad.notebook.chain_rule import input_symbols, saved_with_labels, snapshot_saved


def common_ops() -> dict:
    """``{what the learner wrote: its output}``, a graph for each op of the lessons."""
    torch.manual_seed(0)
    x = torch.randn(3, 4, requires_grad=True)
    y = torch.randn(3, 4, requires_grad=True)
    p = torch.rand(3, 4, requires_grad=True)
    m = torch.randn(4, 2, requires_grad=True)
    v = torch.randn(4, requires_grad=True)
    t = torch.tensor([0, 2, 1])
    img = torch.randn(1, 2, 5, 5, requires_grad=True)
    kernel = torch.randn(3, 2, 3, 3, requires_grad=True)
    seq = torch.randn(1, 2, 6, requires_grad=True)
    kernel1 = torch.randn(3, 2, 3, requires_grad=True)
    table = torch.randn(5, 3, requires_grad=True)
    ids = torch.tensor([[0, 4], [2, 2]])
    gamma, beta = torch.ones(4, requires_grad=True), torch.zeros(4, requires_grad=True)
    w, b = torch.randn(2, 4, requires_grad=True), torch.randn(2, requires_grad=True)
    target = p.detach().clamp(0.1, 0.9)
    return {
        # pointwise
        "x + y": x + y, "x - y": x - y, "x * y": x * y, "x / y": x / y, "x * 3": x * 3,
        "x / 3": x / 3, "x + 2": x + 2, "1 - x": 1 - x, "-x": -x, "x ** 2": x ** 2,
        "p ** y": p ** y, "2 ** x": 2 ** x, "p.sqrt()": p.sqrt(), "x.exp()": x.exp(),
        "p.log()": p.log(), "x.sin()": x.sin(), "x.cos()": x.cos(), "x.tanh()": x.tanh(),
        "x.sigmoid()": x.sigmoid(), "x.relu()": x.relu(), "x.abs()": x.abs(),
        "p.reciprocal()": p.reciprocal(), "p.log1p()": p.log1p(), "x.square()": x.square(),
        "x.clamp(-1, 1)": x.clamp(-1, 1), "where": torch.where(x > 0, x, y),
        "maximum": torch.maximum(x, y), "masked_fill": x.masked_fill(x > 0, 0.0),
        "lerp": torch.lerp(x, y, 0.3), "addcmul": torch.addcmul(x, x, y),
        # reductions
        "x.sum()": x.sum(), "x.sum(1)": x.sum(1), "x.mean()": x.mean(), "x.max()": x.max(),
        "x.max(1)": x.max(1).values, "x.amax(1)": x.amax(1), "p.prod()": p.prod(),
        "x.var()": x.var(), "x.std(1)": x.std(1), "x.norm()": x.norm(),
        "x.logsumexp(1)": x.logsumexp(1), "x.cumsum(1)": x.cumsum(1),
        "x.topk(2)": x.topk(2).values, "x.sort()": x.sort()[0],
        # products
        "x @ m": x @ m, "x.mv(v)": x.mv(v), "v.dot(v)": v.dot(v),
        "bmm": torch.bmm(x.unsqueeze(0), m.unsqueeze(0)), "F.linear": F.linear(x, w, b),
        "addmm": torch.addmm(b, x, m), "einsum": torch.einsum("ij,jk->ik", x, m),
        "outer": torch.outer(v, v),
        # indexing and views
        "x[t]": x[t], "x[1]": x[1], "x[:, 1:3]": x[:, 1:3], "x[x > 0]": x[x > 0],
        "gather": x.gather(1, t.unsqueeze(1)), "index_select": x.index_select(0, t),
        "view": x.view(12), "x.t()": x.t(), "permute": x.permute(1, 0),
        "expand": v.expand(3, 4), "cat": torch.cat([x, y]), "stack": torch.stack([x, y]),
        "split": x.split(2, 1)[0], "F.pad": F.pad(x, (1, 1)),
        # softmax and losses
        "softmax": x.softmax(1), "log_softmax": x.log_softmax(1),
        "cross_entropy": F.cross_entropy(x, t),
        "cross_entropy weight": F.cross_entropy(x, t, weight=torch.arange(1.0, 5.0)),
        "cross_entropy ignore_index": F.cross_entropy(x, t, ignore_index=2),
        "cross_entropy label_smoothing": F.cross_entropy(x, t, label_smoothing=0.1),
        "cross_entropy per pixel": F.cross_entropy(img, torch.tensor([[[0, 1] * 2 + [0]] * 5])),
        "nll_loss sum": F.nll_loss(x.log_softmax(1), t, reduction="sum"),
        "mse_loss": F.mse_loss(x, y), "l1_loss": F.l1_loss(x, y),
        "smooth_l1_loss": F.smooth_l1_loss(x, y), "huber_loss": F.huber_loss(x, y),
        "binary_cross_entropy": F.binary_cross_entropy(p, target),
        "binary_cross_entropy weight": F.binary_cross_entropy(p, target, weight=target),
        "bce_with_logits": F.binary_cross_entropy_with_logits(x, target),
        "bce_with_logits pos_weight": F.binary_cross_entropy_with_logits(
            x, target, pos_weight=torch.full((4,), 2.0)),
        "kl_div": F.kl_div(x.log_softmax(1), target.softmax(1), reduction="batchmean"),
        # norms, convolutions, pooling, embedding, activations
        "layer_norm": F.layer_norm(x, (4,), gamma, beta), "batch_norm": F.batch_norm(
            x, None, None, gamma, beta, training=True),
        "group_norm": F.group_norm(img, 1), "normalize": F.normalize(x, dim=1),
        "conv2d": F.conv2d(img, kernel, padding=1), "conv1d": F.conv1d(seq, kernel1),
        "max_pool2d": F.max_pool2d(img, 2), "avg_pool2d": F.avg_pool2d(img, 2),
        "embedding": F.embedding(ids, table), "dropout": F.dropout(x, 0.5),
        "gelu": F.gelu(x), "silu": F.silu(x), "leaky_relu": F.leaky_relu(x),
        "softplus": F.softplus(x), "hardtanh": F.hardtanh(x),
        "rnn step": torch.tanh(x @ m @ m.t() + y),
    }


CASES = common_ops()
#: a formula's letter (a, t, Σw, batch1...), PyTorch's attribute, or both
NAMED = re.compile(r"^(\w+( \(_saved_\w+\))?|_saved_\w+)$")


def graph_nodes(out) -> list:
    """Every node of ``out``'s graph (each once)."""
    seen, stack = [], [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.append(node)
            stack.extend(fn for fn, _ in node.next_functions)
    return seen


@pytest.mark.parametrize("code", list(CASES))
def test_every_saved_value_in_every_panel_is_named(code):
    out = CASES[code]
    loss = out if out.ndim == 0 else out.sum()
    for node in graph_nodes(loss):
        saved = snapshot_saved([node]).get(node)
        if saved is None:
            continue
        formula = getattr(node, "formula", "") or ""
        # the panel's letters: its rows' (a, b, or the formula's own), "result" (the op's
        # output), an index's name, or a letter the formula writes (where's c, nll's t)
        rows = {*input_symbols(node), "result", "index", "mask"}
        for label, _ in saved_with_labels(node, *saved):
            assert label != "saved" and NAMED.match(label), (code, type(node).__name__, label)
            letter = label.split(" (")[0]
            if not letter.startswith("_saved_") and letter not in rows:
                assert re.search(rf"(?<![A-Za-z]){re.escape(letter)}(?![A-Za-z])", formula), (
                    code, type(node).__name__, label, formula)
    for panel in step_backward(loss).panels:
        assert not re.search(r"saved in forward: (.*, )?saved = ", panel.text), panel.text


def nll_panel(loss, names) -> str:
    (panel,) = [p for p in step_backward(loss, names=names).panels
                if p.title.split(": ")[1].startswith("NllLoss")]
    return panel.text


def test_nll_loss_names_its_target_weight_and_total_weight_as_the_formula_does():
    x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], requires_grad=True)
    t = torch.tensor([2, 0])
    w = torch.tensor([1.0, 2.0, 3.0])
    names = {"x": x, "t": t, "w": w}
    text = nll_panel(F.cross_entropy(x, t), names)
    assert "local derivative: ∂(−w[t]·a[t])/∂a[c] = −w[t] if c = t else 0" in text
    # the input first (PyTorch keeps it: grad_fn._saved_self), the formula's a
    assert "saved in forward: a (_saved_self) = [[" in text
    assert ", t (_saved_target) = [2, 0]\n" in text
    # the mean divides by Σw: 2 targets of weight 1 (worked by hand), PyTorch's 0-d tensor
    assert ("also noted in forward: reduction (_saved_reduction) = 'mean', ignore_index "
            "(_saved_ignore_index) = -100, total_weight Σw (_saved_total_weight) = 2.0\n") in text
    text = nll_panel(F.cross_entropy(x, t, weight=w), names)
    assert ", t (_saved_target) = [2, 0], w (_saved_weight) = [1., 2., 3.]" in text
    assert "total_weight Σw (_saved_total_weight) = 4.0" in text  # w[2] + w[0] = 3 + 1
    assert "counted" not in text and "class_dim" not in text  # teachgrad's own working values
    text = nll_panel(F.nll_loss(x, t, reduction="sum"), names)
    assert "reduction (_saved_reduction) = 'sum'" in text and "total_weight" not in text
    real = pytest.importorskip("torch")
    fn = real.nn.functional.cross_entropy(
        real.tensor(x.tolist(), requires_grad=True), real.tensor([2, 0]),
        weight=real.tensor([1.0, 2.0, 3.0])).grad_fn
    assert type(fn).__name__ == "NllLossBackward0"
    assert fn._saved_target.tolist() == [2, 0] and fn._saved_weight.tolist() == [1, 2, 3]
    assert fn._saved_total_weight.item() == 4.0


def test_binary_cross_entropy_names_its_target_and_weights_as_pytorch_saves_them():
    p = torch.tensor([0.2, 0.7], requires_grad=True)
    t = torch.tensor([0.0, 1.0])
    node = F.binary_cross_entropy(p, p.detach(), weight=t).grad_fn
    labels = [label for label, _ in saved_with_labels(node, *snapshot_saved([node])[node])]
    # the target is p.detach(), no input of the formula's p: it is t (it was "p" twice)
    assert labels == ["p (_saved_self)", "t (_saved_target)", "w (_saved_weight)"]
    real = pytest.importorskip("torch")
    rp = real.tensor([0.2, 0.7], requires_grad=True)
    fn = real.nn.functional.binary_cross_entropy_with_logits(
        rp, rp.detach(), pos_weight=real.ones(2)).grad_fn
    assert all(hasattr(fn, f"_saved_{n}") for n in ("self", "target", "weight", "pos_weight"))


def test_indices_an_op_returns_are_not_called_its_result():
    # max(dim), sort and topk save the indices they return: "result (_saved_indices)" said
    # they were the op's result (the values); PyTorch's grad_fn._saved_indices they are.
    x = torch.tensor([[1.0, 3.0, 2.0]], requires_grad=True)
    for out in (x.max(1).values, x.sort()[0], x.topk(2).values):
        node = out.grad_fn
        labels = [label for label, _ in saved_with_labels(node, *snapshot_saved([node])[node])]
        assert "_saved_indices" in labels and not [l for l in labels if "result (" in l], labels
    assert saved_labels_of(x.exp()) == ["_saved_result"]  # the result is still the result


def saved_labels_of(out) -> list:
    node = out.grad_fn
    return [label for label, _ in saved_with_labels(node, *snapshot_saved([node])[node])]


def test_a_formula_speaking_of_an_element_or_with_a_colon_names_the_input():
    img = torch.ones(1, 1, 4, 4, requires_grad=True)
    kernel = torch.ones(1, 1, 3, 3, requires_grad=True)
    # "∂L/∂x: each output spreads..." and "∂L/∂x[i] = Σ over the windows" speak of x
    assert input_symbols(F.conv2d(img, kernel).grad_fn)[0] == "x"  # was "x:"
    assert input_symbols(F.avg_pool2d(img, 2).grad_fn) == ["x"]  # was "x[i]"
    x = torch.ones(3, requires_grad=True)
    assert input_symbols(x.sum().grad_fn) == ["a"]  # "∂(Σa)/∂aᵢ": still a


def test_notes_are_the_maths_values_by_pytorchs_names_not_teachgrads_bookkeeping():
    # Lesson 18's x[1] step said "also noted in forward: shape = (3,), view_version = 0":
    # view_version is teachgrad's in-place bookkeeping, and the shape is PyTorch's
    # grad_fn._saved_self_sym_sizes.
    for code, out in common_ops().items():  # (new graphs: CASES' were stepped through)
        loss = out if out.ndim == 0 else out.sum()
        for panel in step_backward(loss).panels:
            for word in ("view_version", "sums_back", "has_bias", "plane_shape", "counted"):
                assert f"{word} =" not in panel.text, (code, panel.text)
    x = torch.tensor([[1.0, -2.0, 3.0], [0.5, 0.0, 4.0]], requires_grad=True)
    text = step_backward(x[1].sum(), names={"x": x}).panels[2].text
    assert "also noted in forward: shape (_saved_self_sym_sizes) = (2, 3)\n" in text
    text = step_backward(x.unsqueeze(0).sum(), names={"x": x}).panels[2].text
    assert "also noted in forward: dim (_saved_dim) = 0\n" in text
    real = pytest.importorskip("torch")
    rx = real.ones(2, 3, requires_grad=True)
    assert tuple(rx[1].grad_fn._saved_self_sym_sizes) == (2, 3)
    assert rx.unsqueeze(0).grad_fn._saved_dim == 0
    for out in (rx[:, 1:], rx.index_select(0, real.tensor([1])), rx.sort()[0], rx.topk(1)[0],
                rx.split(1, 1)[0], rx.view(6)):
        assert hasattr(out.grad_fn, "_saved_self_sym_sizes") or hasattr(out.grad_fn, "_saved_dim")
