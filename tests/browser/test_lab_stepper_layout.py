"""The stepper's chain-rule panel stays beside its graph in an ordinary laptop window.

Stepping means looking at the highlighted box and the panel that explains it, together.
Two graphs used to push the panel below the picture at 1280 pixels:

* lesson 3's (540 pixels wide): the graph kept its full width as flex basis, and with the
  panel's 300 pixels that did not fit the 850-pixel cell, so the panel wrapped under it;
  now the graph may shrink a little first;
* a 40-layer loop ``h = tanh(h * 1.01 + 0.1)``: dot drifted the chain sideways into a
  staircase thousands of pixels wide, and the panel ended up 14,000 pixels down.

And a value wider than the panel (20 numbers of 1234.5678 print 80 characters wide) ran
past the panel's edge and was cut off there; it scrolls inside its own box now.
"""

from __future__ import annotations

import nbformat
import pytest

from .lab_page import opened, teachgrad_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "stepper_layout.ipynb"

LESSON_THREE = """\
import teachgrad as torch
from teachgrad.notebook import step_backward

w1, w2, w3, w4 = (torch.tensor([v]) for v in (2.0, 5.0, 3.0, 4.0))
a = torch.ones(1, requires_grad=True)
b = w1 * a
c = w2 * a
d = (w3 * b) + (w4 * c)
L = d**2
step_backward(L, names=locals())"""

LONG_LOOP = """\
x = torch.ones(4, 3, requires_grad=True)
h = x
for _ in range(40):
    h = torch.tanh(h * 1.01 + 0.1)
out = h.sum()
step_backward(out, names=locals())"""


WIDE_VALUES = """\
w = torch.ones(1, 20, requires_grad=True)
wide = (w * 1234.5678).sum()
step_backward(wide, names=locals())"""

# nn.Linear on a batch: addmm's inputs are named "input" and "mat2", words, not letters
LINEAR_ON_A_BATCH = """\
_ = torch.manual_seed(0)
X, Y = torch.randn(4, 3), torch.randn(4, 2)
layer = torch.nn.Linear(3, 2)
loss = ((layer(X) - Y) ** 2).sum()
step_backward(loss, names=locals())"""


@pytest.fixture(scope="module")
def laptop(chromium, lab_server, lessons_copy):
    cells = [nbformat.v4.new_code_cell(code) for code in (LESSON_THREE, LONG_LOOP, WIDE_VALUES,
                                                                 LINEAR_ON_A_BATCH)]
    nbformat.write(teachgrad_notebook(cells), lessons_copy / NOTEBOOK)
    with opened(chromium, lab_server, NOTEBOOK, timeout_ms=30_000) as notebook:
        assert notebook.run_all()
        yield notebook


def graph_and_panel(cell):
    graph = cell.locator(".tg-live").first
    graph.wait_for(state="visible")
    panel = cell.locator(".tg-panel-live").filter(visible=True).first
    return graph.bounding_box(), panel.bounding_box()


@pytest.mark.parametrize("index", [0, 1], ids=["lesson-3", "forty-layer-loop"])
def test_the_panel_sits_beside_the_graph(laptop, index, screenshots):
    cell = laptop.cell(index)
    graph, panel = graph_and_panel(cell)
    assert panel["x"] >= graph["x"] + graph["width"] - 1, (graph, panel)  # to its right
    assert abs(panel["y"] - graph["y"]) < 5                                # at its top
    if index == 0:
        screenshots.take(cell, "stepper-beside-at-1280")


def test_a_value_wider_than_the_panel_scrolls_inside_it(laptop, screenshots):
    cell = laptop.cell(2)
    view = cell.locator(".jp-OutputArea-child", has=cell.page.locator(".tg-live"))
    for _ in range(2):  # to step 2, the multiplication by 1234.5678
        view.locator('button[title="Next step"]:visible').click()
    panel = view.locator('.tg-panel-live[data-frame="2"]')
    panel.wait_for(state="visible")
    right = min(panel.bounding_box()["x"] + panel.bounding_box()["width"],
                view.bounding_box()["x"] + view.bounding_box()["width"])
    values = panel.locator("pre.tg-v").all()
    for value in values:
        box = value.bounding_box()
        assert box["x"] + box["width"] <= right + 1, (box, right)
    assert any(v.evaluate("e => e.scrollWidth > e.clientWidth") for v in values)
    screenshots.take(cell, "stepper-wide-value")


@pytest.mark.parametrize("index", [0, 1, 2], ids=["lesson-3", "forty-layer-loop", "wide-values"])
def test_the_legend_entries_line_up_in_columns(laptop, index):
    # A wrapping row left "running now" on a ragged line of its own beside "complete,
    # queued", at a different left edge from the entry above it: every row must use the
    # same column edges.
    items = laptop.cell(index).locator(".tg-legend li").filter(visible=True)
    boxes = [item.bounding_box() for item in items.all()]
    assert len(boxes) == 5
    rows: dict[int, list[float]] = {}
    for box in boxes:
        rows.setdefault(round(box["y"]), []).append(round(box["x"]))
    columns = max(len(lefts) for lefts in rows.values())
    lefts = {left for row in rows.values() for left in row}
    assert len(lefts) == columns, f"rows (top: left edges): {rows}"


def test_a_formula_wraps_between_its_parts_never_inside_one(laptop, screenshots):
    # Lesson 3 at 1280 pixels: the panel is ~300 pixels wide and "∂(a·b)/∂a = b
    # ∂(a·b)/∂b = a" wrapped inside its second part, leaving "= a" alone on a line.
    cell = laptop.cell(0)
    view = cell.locator(".jp-OutputArea-child", has=cell.page.locator(".tg-live"))
    for _ in range(3):  # step 3: a MulBackward0
        view.locator('button[title="Next step"]:visible').click()
    panel = view.locator('.tg-panel-live[data-frame="3"]')
    panel.wait_for(state="visible")
    formula = panel.locator(".tg-formula code")
    assert formula.inner_text().replace("\n", " ").split() == \
        ["∂(a·b)/∂a", "=", "b", "∂(a·b)/∂b", "=", "a"]
    # On how many lines each part is drawn, measured on the text itself (a Range over it).
    lines_per_part = formula.evaluate("""(code, parts) => parts.map(part => {
        const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
        const texts = [];
        while (walker.nextNode()) texts.push(walker.currentNode);
        const whole = texts.map(t => t.data).join('');
        let start = whole.indexOf(part), end = start + part.length, seen = 0;
        const range = document.createRange();
        for (const t of texts) {
            if (start >= seen && start <= seen + t.length) range.setStart(t, start - seen);
            if (end >= seen && end <= seen + t.length) { range.setEnd(t, end - seen); break; }
            seen += t.length;
        }
        return new Set([...range.getClientRects()].filter(r => r.width > 0)
                       .map(r => Math.round(r.top))).size;
    })""", ["∂(a·b)/∂a = b", "∂(a·b)/∂b = a"])
    assert lines_per_part == [1, 1], lines_per_part
    # The local derivative's value, under its formula: w4 = 4 (22 × 4 = 88), drawn inside
    # the panel, so "upstream × local = contribution" can be checked with numbers.
    local = panel.locator(".tg-edge figure:has(code.tg-local)")
    assert local.locator("pre.tg-v").inner_text() == "4."
    formula_box, number_box = (local.locator(s).bounding_box() for s in ("code", "pre"))
    assert number_box["y"] >= formula_box["y"] + formula_box["height"] - 1
    edge = panel.bounding_box()
    assert number_box["x"] + number_box["width"] <= edge["x"] + edge["width"] + 1
    screenshots.take(panel, "stepper-formula-parts")


def test_an_input_named_by_a_word_does_not_overlap_its_equation(laptop, screenshots):
    # Lesson 25's addmm step: the input names "input" and "mat2" were squeezed to the
    # letters' 1.2em and drawn over the matrices and the local formula beside them.
    cell = laptop.cell(3)
    view = cell.locator(".jp-OutputArea-child", has=cell.page.locator(".tg-live"))
    for _ in range(4):  # step 4: AddmmBackward0
        view.locator('button[title="Next step"]:visible').click()
    panel = view.locator('.tg-panel-live[data-frame="4"]')
    panel.wait_for(state="visible")
    assert "AddmmBackward0" in panel.locator(".tg-title").inner_text()
    edges = panel.locator(".tg-edge").filter(has=panel.page.locator(".tg-eq")).all()
    names = [edge.locator(".tg-letter").inner_text() for edge in edges]
    assert names == ["input", "mat2"], names
    for edge in edges:
        name = edge.locator(".tg-letter").evaluate(
            "e => { const r = document.createRange(); r.selectNodeContents(e);"
            " const b = r.getBoundingClientRect(); return {x: b.x, width: b.width}; }")
        equation = edge.locator(".tg-eq").bounding_box()
        assert name["x"] + name["width"] <= equation["x"] + 1, (name, equation)
    screenshots.take(panel, "stepper-addmm-input-names")


def test_in_a_narrow_window_the_graph_scrolls_in_its_box_and_the_legend_stays_in_view(
        chromium, lab_server, lessons_copy, screenshots):
    # At 800 pixels the output is ~370 pixels wide and lesson 3's graph keeps 424 (its
    # readable minimum). The widget's box around the graph did not shrink, so the whole box
    # scrolled sideways and the legend's third column ("complete, queued") was out of view.
    name = "stepper_narrow.ipynb"
    nbformat.write(teachgrad_notebook([nbformat.v4.new_code_cell(LESSON_THREE)]),
                   lessons_copy / name)
    with opened(chromium, lab_server, name, timeout_ms=30_000, width=800) as notebook:
        assert notebook.run_all()
        cell = notebook.cell(0)
        view = cell.locator(".jp-OutputArea-child", has=cell.page.locator(".tg-live"))
        view.locator(".jupyter-button:visible").first.wait_for(state="visible")
        output = view.locator(".jp-OutputArea-output").first.bounding_box()
        right = output["x"] + output["width"]
        svg = view.locator(".tg-live svg").first.bounding_box()
        assert svg["width"] > output["width"], "the graph fits: this window is not narrow enough"
        graphbox = view.locator(".tg-graphbox").first
        box = graphbox.bounding_box()
        assert box["x"] + box["width"] <= right + 1, (box, right)
        # the graph scrolls inside its own box
        assert graphbox.evaluate("""box => [box, ...box.querySelectorAll('.tg-scroll')]
                                    .some(e => e.scrollWidth > e.clientWidth)""")
        items = [item.bounding_box() for item in view.locator(".tg-legend li").all()]
        assert len(items) == 5
        assert all(item["x"] + item["width"] <= right + 1 for item in items), (items, right)
        screenshots.take(view, "stepper-narrow-window")


def test_in_a_narrow_window_the_panel_under_a_tall_graph_stays_in_view(
        chromium, lab_server, lessons_copy, screenshots):
    # At 800 pixels the panel wraps under the graph. Under the 40-layer loop's graph (its
    # box 70% of the window tall) the panel started ~800 pixels below the step buttons:
    # every ▶ meant scrolling down to read the step, and back up for the next one. A
    # narrow row now keeps the graph's box to 40% of the window (it follows the running
    # node), so buttons and panel fit in one window.
    name = "stepper_narrow_tall.ipynb"
    code = LESSON_THREE.split("\n\n")[0] + "\n" + LONG_LOOP  # the imports, the loop
    nbformat.write(teachgrad_notebook([nbformat.v4.new_code_cell(code)]), lessons_copy / name)
    with opened(chromium, lab_server, name, timeout_ms=30_000, width=800) as notebook:
        assert notebook.run_all()
        cell = notebook.cell(0)
        view = cell.locator(".jp-OutputArea-child", has=cell.page.locator(".tg-live"))
        view.locator('button[title="Next step"]:visible').click()
        panel = view.locator('.tg-panel-live[data-frame="1"]')
        panel.wait_for(state="visible")
        graph, shown = view.locator(".tg-live").first.bounding_box(), panel.bounding_box()
        assert shown["y"] >= graph["y"] + graph["height"] - 1, "the panel is not under the graph"
        buttons = view.locator(".jupyter-button:visible").first.bounding_box()
        window = cell.page.viewport_size["height"]
        assert shown["y"] + 40 - buttons["y"] <= 0.75 * window, (buttons, shown, window)
        # the graph still scrolls in its box, and the running node is in view in it
        scroll = view.locator(".tg-scroll").first
        assert scroll.evaluate("e => e.scrollHeight > e.clientHeight")
        screenshots.take(view, "stepper-narrow-tall-graph")
