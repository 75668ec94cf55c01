"""The backward-graph drawing (teachgrad.notebook.draw).

Expected structure comes from PyTorch's graph for the seed lessons (grad_fn names and
next_functions, derived by hand and checked against real PyTorch when it is installed),
never from the drawing's own output.
"""

import re
import shutil
import sys
from pathlib import Path

import pytest
from untrusted_view import visible_images, visible_text

import teachgrad as torch
from teachgrad.notebook import draw
from teachgrad.notebook.graph import UNTRUSTED_COPY_LIMIT
from teachgrad.notebook.layout import LayoutUnavailable, layout_svg

graphviz = pytest.importorskip("graphviz")


def has_pygraphviz() -> bool:
    try:
        import pygraphviz  # noqa: F401
    except ImportError:
        return False
    return True


def seed001():
    """Seed lesson 001: x -> y = x + 2 -> z = y * y * 3 -> out = z.mean()."""
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    return {"x": x, "y": y, "z": z, "out": out}


def box_labels(source: str) -> dict[str, str]:
    """{DOT node name: label text without markup} from a DOT source."""
    labels = {}
    for name, label in re.findall(r"^\s*(\w+) \[label=<(.*?)> ", source, flags=re.M):
        labels[name] = re.sub(r"<[^>]+>", " ", label).split()
    return labels


def arrows(source: str) -> list[tuple[str, str]]:
    return re.findall(r"^\s*(\w+) -> (\w+)", source, flags=re.M)


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    """No `dot` program on PATH."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert shutil.which("dot") is None


@pytest.fixture
def no_pygraphviz(monkeypatch):
    """pygraphviz cannot be imported (as on a machine without the wheel)."""
    monkeypatch.setitem(sys.modules, "pygraphviz", None)


# ---------------------------------------------------------------------------------------
# What is drawn
# ---------------------------------------------------------------------------------------
def test_seed001_boxes_and_arrows_follow_the_backward_graph():
    v = seed001()
    drawing = draw(v["out"], names=v)
    labels = box_labels(drawing.source)
    types = sorted(words[1] if words[0] in "xyz" else words[0]
                   for name, words in labels.items() if name.startswith("n"))
    # out.grad_fn = MeanBackward0 -> MulBackward0 (z) -> MulBackward0 (y*y) -> AddBackward0
    # (y) -> AccumulateGrad (x), as PyTorch's next_functions.
    assert types == ["AccumulateGrad", "AddBackward0", "MeanBackward0", "MulBackward0",
                     "MulBackward0"]
    # The names the lesson used, on the boxes they belong to.
    assert labels["t0"][0] == "out"
    assert labels["n1"][:2] == ["z", "MulBackward0"]
    assert labels["n3"][:2] == ["y", "AddBackward0"]
    assert labels["n4"][:2] == ["x", "AccumulateGrad"]
    assert "[2, 2]" in " ".join(labels["n4"])
    # Gradients flow from the output to the leaf; y * y is two edges to AddBackward0;
    # the constants 3 and 2 are the (None, 0) edges of next_functions.
    edges = arrows(drawing.source)
    assert ("t0", "n0") in edges and ("n3", "n4") in edges
    assert edges.count(("n2", "n3")) == 2
    assert sum(1 for _, head in edges if head.startswith("z")) == 2


def test_a_detached_state_keeps_its_name_on_its_none_box():
    # Truncated BPTT (lesson 17): h = h.detach() enters W @ h as a None edge, which was
    # drawn as an anonymous "None" box even with the state named. W @ h saved h (for W's
    # gradient), which tells what went in there.
    W = torch.tensor([[0.5, -0.3], [0.2, 0.8]], requires_grad=True)
    h = torch.tanh(W @ torch.tensor([0.5, -0.5]))
    carried = h.detach()
    x = torch.tensor([1.0, 2.0])
    out = (torch.tanh(W @ carried + carried * 2) * x).sum()
    labels = box_labels(draw(out, names={"W": W, "carried": carried, "out": out,
                                         "x": x}).source)
    nones = sorted(words for box, words in labels.items() if box.startswith("z"))
    # carried's box has its name; carried * 2 (a temporary, neither named nor saved by
    # the addition) stays anonymous; x, saved by the multiplication, is named too.
    none = ["None", "no", "grad", "needed"]
    assert nones == [none, ["carried", *none], ["x", *none]], nones
    # The stepper's panel says it too, where W @ carried sends nothing to carried.
    from teachgrad.notebook import step_backward

    text = "\n".join(p.text for p in step_backward(
        out, names={"W": W, "carried": carried}, retain_graph=True).panels)
    assert "v → None (carried): no gradient needed" in text, text  # (Mv's letters: M, v)
    W.grad = None
    # Unnamed, or after backward freed what the node saved: anonymous, as before.
    assert all(words[0] == "None" for box, words in box_labels(draw(out).source).items()
               if box.startswith("z"))
    out.backward()
    freed = box_labels(draw(out, names={"carried": carried, "x": x}).source)
    assert all(words[0] == "None" for box, words in freed.items() if box.startswith("z"))


def test_hide_no_grad_leaves_out_the_none_boxes():
    v = seed001()
    source = draw(v["out"], hide_no_grad=True).source
    assert "None" not in source
    assert not any(head.startswith("z") for _, head in arrows(source))


def test_show_data_grad_and_saved():
    v = seed001()
    v["z"].retain_grad()
    v["out"].backward(retain_graph=True)
    text = " ".join(" ".join(w) for w in box_labels(
        draw(v["out"], names=v, show_data=True, show_grad=True, show_saved=True).source
    ).values())
    assert "data all 3." in text            # y = x + 2
    assert "grad all 4.5" in text           # x.grad, derived by hand: 6 * 3 / 4
    assert "grad all 0.25" in text          # z.grad: d mean / dz = 1/4
    # z = (y*y) * 3 needs only the constant 3 for y*y's gradient; like PyTorch's
    # MulBackward0 it does not keep y*y (nothing asks for the gradient of the 3).
    assert "saved 3" in text
    assert "saved all 9." not in text and "saved None" not in text


def test_saved_tensors_freed_by_backward_are_said_to_be_freed():
    v = seed001()
    v["out"].backward()
    source = draw(v["out"], show_saved=True).source
    assert "freed by backward()" in source


def test_names_as_tensor_to_name_dict_and_module_parameters():
    w = torch.ones(3, requires_grad=True)

    class Layer:  # anything with named_parameters(), as nn.Module
        def named_parameters(self):
            return [("weight", w)]

    x = torch.ones(3)
    loss = (w * x).sum()
    assert "layer.weight" in draw(loss, names={"layer": Layer()}).source
    assert "<B>w</B>" in draw(loss, names={w: "w"}).source
    # IPython's history variables (_, _27...) are not names the student gave.
    assert "<B>_" not in draw(loss, names={"_": w, "_12": loss}).source


def test_a_tensor_that_does_not_require_grad_is_drawn_alone():
    t = torch.ones(2) * 3
    drawing = draw(t)
    assert [b.kind for b in drawing.model.boxes] == ["root"]
    assert "requires_grad=False" in drawing.source


def test_several_outputs():
    x = torch.ones(2, requires_grad=True)
    drawing = draw([x.sum(), (x * 2).sum()])
    assert {"t0", "t1"} <= set(box_labels(drawing.source))
    # The leaf is shared: one AccumulateGrad box.
    assert drawing.source.count("AccumulateGrad") == 1


def test_digraph_is_exposed_and_saves(tmp_path):
    v = seed001()
    drawing = draw(v["out"])
    assert isinstance(drawing.graph, graphviz.Digraph)
    assert drawing.digraph is drawing.graph
    path = drawing.save(tmp_path / "g.gv")
    assert "MeanBackward0" in Path(path).read_text()


def test_malicious_names_are_escaped():
    x = torch.ones(2, requires_grad=True)
    evil = '<script>alert("x")</script>'
    drawing = draw((x * 2).sum(), names={evil: x})
    assert "<script>" not in drawing.source
    assert "&lt;script&gt;" in drawing.source
    if has_pygraphviz() or shutil.which("dot"):
        svg = drawing.svg()
        assert "<script" not in svg
        assert "&lt;script&gt;" in svg
        assert "<script" not in drawing._repr_html_()


# ---------------------------------------------------------------------------------------
# Pictures: pygraphviz, then `dot`, then a message with the DOT text
# ---------------------------------------------------------------------------------------
@pytest.mark.skipif(not has_pygraphviz(), reason="pygraphviz is not installed")
def test_svg_without_dot_on_path(no_dot):
    v = seed001()
    drawing = draw(v["out"], names=v)
    svg = drawing._repr_svg_()
    assert svg.startswith("<svg")
    for name in ("MeanBackward0", "MulBackward0", "AddBackward0", "AccumulateGrad"):
        assert name in svg
    # Stable ids: every box and arrow has its id in the SVG, for the stepper to restyle.
    for box in drawing.model.boxes:
        assert f'id="{drawing.prefix}_{box.id}"' in svg
    for arrow in drawing.model.arrows:
        assert f'id="{drawing.prefix}_{arrow.id}"' in svg
    # Scales to the cell width instead of being clipped.
    assert "max-width:100%" in svg and "viewBox=" in svg
    bundle = drawing._repr_mimebundle_()
    assert bundle["image/svg+xml"] == svg
    assert svg in bundle["text/html"]


@pytest.mark.skipif(shutil.which("dot") is None, reason="no dot executable")
def test_without_pygraphviz_the_dot_program_lays_out(no_pygraphviz):
    v = seed001()
    svg = draw(v["out"])._repr_svg_()
    assert svg.startswith("<svg") and "MeanBackward0" in svg


def test_without_any_graphviz_a_message_and_the_dot_text(no_pygraphviz, no_dot):
    v = seed001()
    drawing = draw(v["out"], names=v)
    with pytest.raises(LayoutUnavailable, match="pip install pygraphviz"):
        layout_svg(drawing.source)
    assert drawing._repr_svg_() is None
    page = drawing._repr_html_()
    assert "pip install pygraphviz" in page
    assert "MeanBackward0" in page and "digraph" in page
    bundle = drawing._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    assert "digraph" in bundle["text/plain"]


def test_theme_css_uses_jupyterlab_variables():
    v = seed001()
    drawing = draw(v["out"])
    if not (has_pygraphviz() or shutil.which("dot")):
        pytest.skip("no Graphviz")
    page = drawing._repr_html_()
    assert "var(--jp-content-font-color1" in page
    assert 'data-jp-theme-light="false"' in page  # the dark-theme adjustments


def test_an_untrusted_notebook_shows_the_picture_not_its_labels_as_text():
    # A lesson opened fresh is untrusted: JupyterLab strips <style> and <svg> from its
    # HTML outputs and keeps their text, so the drawing was one line of jumbled labels
    # ("z · [2, 2] z MulBackward0 [2, 2] ..."). Now an <img> copy shows instead.
    if not (has_pygraphviz() or shutil.which("dot")):
        pytest.skip("no Graphviz")
    drawing = draw(seed001()["out"], names=seed001())
    page = drawing._repr_html_()
    assert "MulBackward0" not in visible_text(page)
    # the picture without its ids (an <img> is a document of its own: nothing finds them)
    assert visible_images(page) == [re.sub(r'\sid="[^"]*"', "", drawing.svg())]
    assert 'id="' in drawing.svg()
    # Where the CSS is applied (a trusted notebook, an export), graph.css shows the
    # inline SVG and hides the copy.
    assert ".tg-pic { display: block !important; }" in page
    assert ".tg-untrusted { display: none; }" in page


def test_a_very_big_drawing_carries_a_note_instead_of_a_second_copy():
    if not (has_pygraphviz() or shutil.which("dot")):
        pytest.skip("no Graphviz")
    x = torch.ones(2, requires_grad=True)
    y = x
    for _ in range(120):
        y = y * 1.5
    drawing = draw(y.sum())
    assert len(drawing.svg()) > UNTRUSTED_COPY_LIMIT
    page = drawing._repr_html_()
    assert visible_images(page) == []
    assert visible_text(page).startswith("(The picture shows when the notebook is trusted")
    assert len(page) < len(drawing.svg()) + 20_000


def laid_out_width_pt(drawing) -> float:
    return float(re.search(r'<svg[^>]* width="([\d.]+)pt"', drawing.svg()).group(1))


def test_a_chain_with_constants_stays_straight_instead_of_drifting_sideways():
    # h = tanh(h * 1.01 + 0.1) in a loop: every op has a None beside its real input.
    # dot centred each op over both, so the chain drifted half a box per op: 40 layers
    # made a diagonal staircase over 4,000 pt wide, its top far off to the right.
    if not (has_pygraphviz() or shutil.which("dot")):
        pytest.skip("no Graphviz")

    def layers(n: int):
        x = torch.ones(4, 3, requires_grad=True)
        h = x
        for _ in range(n):
            h = torch.tanh(h * 1.01 + 0.1)
        return h.sum()

    assert laid_out_width_pt(draw(layers(12))) == laid_out_width_pt(draw(layers(2)))


# ---------------------------------------------------------------------------------------
# Large graphs
# ---------------------------------------------------------------------------------------
def chain(n: int):
    x = torch.ones(3, requires_grad=True)
    y = x
    for i in range(n):
        y = y * 1.0001 if i % 2 else y + 1
    return x, y.sum()


def test_a_100000_node_chain_is_folded_into_one_box():
    _, out = chain(100_000)
    drawing = draw(out)
    model = drawing.model
    assert model.total == 100_002           # SumBackward0 + the chain + AccumulateGrad
    assert model.mode == "collapsed"
    assert len(model.boxes) == 4
    labels = box_labels(drawing.source)
    assert "100,000" in " ".join(labels["c0"])
    assert "MulBackward0" in " ".join(labels["c0"])


def test_a_wide_graph_is_summarised_with_counts():
    leaves = [torch.ones(2, requires_grad=True) for _ in range(400)]
    total = leaves[0] * 2
    for leaf in leaves[1:]:
        total = total + leaf * 2
    drawing = draw(total.sum())
    assert drawing.model.mode == "summary"
    text = " ".join(box_labels(drawing.source)["s0"])
    assert "AccumulateGrad × 400" in text and "MulBackward0 × 400" in text
    assert "AddBackward0 × 399" in text


def test_small_graphs_are_never_folded():
    _, out = chain(50)
    assert draw(out).model.mode == "full"
    assert draw(out, max_nodes=10).model.mode == "collapsed"


@pytest.mark.torch
def test_graph_matches_torch_next_functions():
    real = pytest.importorskip("torch")
    x = real.ones(2, 2, requires_grad=True)
    out = ((x + 2) * (x + 2) * 3).mean()
    expected, seen, stack = [], {id(out.grad_fn)}, [out.grad_fn]
    while stack:
        fn = stack.pop()
        expected.append(type(fn).__name__)
        for nxt, _ in fn.next_functions:
            if nxt is not None and id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)
    ours = torch.ones(2, 2, requires_grad=True)
    mine = ((ours + 2) * (ours + 2) * 3).mean()
    model = draw(mine).model
    names = [b.members[0].name().rsplit("::")[-1] for b in model.boxes if b.kind in ("op", "leaf")]
    assert sorted(names) == sorted(expected)


def reused_input_program(layers: int):
    """Every layer reuses x: dot's placement and arrow routing cost grows fast on these."""
    x = torch.ones(4, requires_grad=True)
    h = x
    for _ in range(layers):
        h = (h * 0.9 + x).tanh()
    return h.sum()


def graph_attributes(source: str) -> str:
    return re.search(r"^\s*graph \[(.*)\]$", source, flags=re.M).group(1)


def test_large_drawings_ask_graphviz_for_a_bounded_layout():
    # Without these, a 240-box drawing of reused_input_program(60) took 15 s to 3 min to
    # lay out, and its stepper 90 s (measured; no timing here, the machine varies):
    # network simplex is capped, and above 100 boxes arrows are straight.
    big = graph_attributes(draw(reused_input_program(60)).source)
    assert "nslimit=10" in big and "splines=line" in big
    small = graph_attributes(draw(reused_input_program(3)).source)
    assert "splines" not in small  # curved arrows where they are cheap


def test_repr_counts_boxes_in_english():
    text = repr(draw(reused_input_program(75)))
    assert text.endswith("drawn collapsed as 228 boxes; .source has the DOT text>"), text


def test_the_picture_is_named_for_a_screen_reader():
    # An unnamed <svg role="img"> is read as "image" and nothing more. Its name says what
    # it is a graph of and its size; the copy for untrusted notebooks (an <img>) says the same.
    try:
        layout_svg("digraph { a -> b }")
    except LayoutUnavailable:
        pytest.skip("no Graphviz layout here")
    names = seed001()
    drawing = draw(names["out"], names=names)
    svg = drawing.svg()
    # seed 001's graph by hand: the box of out, MeanBackward0, MulBackward0 (z = y * y * 3),
    # MulBackward0 (y * y), AddBackward0, x's AccumulateGrad, and the None boxes of the
    # constants 3 and 2; arrows: out → mean → mul, mul → mul and → None, mul → add twice
    # (y is used twice), add → x and → None
    assert (svg.count('class="node'), svg.count('class="edge"')) == (8, 8)
    assert 'role="img" aria-label="Backward graph of out: 8 boxes, 8 arrows"' in svg
    assert 'alt="Backward graph of out: 8 boxes, 8 arrows"' in drawing._repr_html_()


# --- tensors without a graph: the drawing says why --------------------------------------
def _no_grad_tensors():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        under = x * 2
    return {"plain": torch.tensor([1.0, 2.0]), "detached": (x * 2).detach(),
            "under": under}


@pytest.mark.parametrize("how", ["plain", "detached", "under"])
def test_a_tensor_without_a_graph_draws_with_a_sentence_saying_why(how):
    t = _no_grad_tensors()[how]
    drawing = draw(t, names={how: t})
    page = drawing._repr_html_()
    assert '<p class="tg-graph-note">' in page
    assert f"{how} has no graph: requires_grad is False and grad_fn is None" in repr(drawing)
    assert "under torch.no_grad(), or by .detach()" in visible_text(page)
    # The error the note quotes is the one backward() really raises (PyTorch's sentence).
    quoted = re.search(r'would raise "([^"]+)"', repr(drawing)).group(1)
    with pytest.raises(RuntimeError) as raised:
        t.backward(torch.ones(2))
    assert str(raised.value).splitlines()[0] == quoted


def test_the_quoted_error_is_pytorchs():
    real = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as raised:
        real.tensor([1.0, 2.0]).backward(real.ones(2))
    assert str(raised.value) == ("element 0 of tensors does not require grad and does not "
                                 "have a grad_fn")


def test_a_leaf_draws_with_a_sentence_about_its_grad():
    x = torch.tensor(2.0, requires_grad=True)
    drawing = draw(x, names={"x": x})
    assert "x is a leaf: it has no grad_fn" in repr(drawing)
    assert "into x.grad" in visible_text(drawing._repr_html_())
    assert '<p class="tg-graph-note">' not in draw(x * 3, names={"x": x})._repr_html_()
