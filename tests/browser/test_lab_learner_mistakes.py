"""What a learner sees in JupyterLab after the usual slips, in a real browser.

* A wrong exercise answer: the checking cell's line and "✘ Not yet: ..." with the hint,
  not ten lines of ``check``'s own code above it.
* A stepper cell run a second time (the graph is used up): the cell's line and PyTorch's
  message with its hint, not the stepper's internals.
* ``out.backward()`` a second time, an error from teachgrad's core: the cell's line, one
  line for teachgrad's folded frames, and PyTorch's message (it was 45 lines of
  ``_tensor.py``, ``engine.py``...).
* A cell ending with a tensor variable: its table is titled with the variable's name, as
  ``inspect`` titles it (it said ``Tensor``).
"""

from __future__ import annotations

import nbformat
import pytest

from .accessibility import roles_and_names
from .lab_page import opened, teachgrad_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "learner_mistakes.ipynb"
CELLS = [
    "from teachgrad.notebook import check, step_backward\n"
    "import teachgrad as torch\n"
    "x = torch.tensor(1.5, requires_grad=True)\n"
    "u = x ** 2\n"
    "L = torch.sin(u) * 3",
    "step_backward(L, names=locals())",
    "u",
    "answer = 27",
    'check(answer, 54.0, "dg/dx at x = 1", hint="dg/dw = 3w², dw/dx = 2.")',
    "out = (torch.ones(3, requires_grad=True) * 2).sum()\n"
    "out.backward()\n"
    "out.backward()",
]
STEP, TABLE, CHECK, TWICE = 1, 2, 4, 5


@pytest.fixture(scope="module")
def notebook(chromium, lab_server, lessons_copy):
    nbformat.write(teachgrad_notebook([nbformat.v4.new_code_cell(c) for c in CELLS]),
                   lessons_copy / NOTEBOOK)
    with opened(chromium, lab_server, NOTEBOOK, timeout_ms=30_000) as notebook:
        ran = notebook.run_all()
        # Run All stops at the wrong answer (not tagged raises-exception): the cell after
        # it never runs, and run_all says so.
        assert [(r.index, r.intended) for r in ran.raised] == [(CHECK, False)], ran
        assert ran.not_run == [TWICE], ran
        yield notebook


def error_text(notebook, index: int) -> str:
    """The error output of cell ``index`` as the page shows it."""
    shown = notebook.cell(index).locator('.jp-OutputArea-output[data-mime-type*="stderr"]')
    shown.first.wait_for(state="visible")
    return shown.first.inner_text()


def test_a_wrong_answer_shows_the_checking_line_and_the_message(notebook, screenshots):
    text = error_text(notebook, CHECK)
    assert 'check(answer, 54.0, "dg/dx at x = 1"' in text  # the learner's line
    assert "✘ Not yet: 27 is not the right dg/dx at x = 1" in text
    assert "Hint: dg/dw = 3w², dw/dx = 2." in text
    assert "exercises.py" not in text and "raise NotYet" not in text
    screenshots.take(notebook.cell(CHECK), "learner-wrong-answer")


def run_cell(notebook, index: int) -> None:
    """Run one cell (Run All stops at the first error not tagged raises-exception)."""
    notebook.page.evaluate(
        """async i => {
             const panel = window.jupyterapp.shell.currentWidget;
             panel.content.activeCellIndex = i;
             panel.content.deselectAll();
             await window.jupyterapp.commands.execute('notebook:run-cell');
           }""", index)


def test_a_stepper_cell_run_twice_says_why_in_a_few_lines(notebook, screenshots):
    run_cell(notebook, STEP)
    text = error_text(notebook, STEP)
    assert "step_backward(L, names=locals())" in text
    assert "RuntimeError: Trying to backward through the graph a second time" in text
    assert "Hint: step_backward() calls backward(), and the graph of L was already used" \
        in text
    assert "stepper.py" not in text
    assert len(text.splitlines()) < 12, text  # it was 35 lines of teachgrad's code
    screenshots.take(notebook.cell(STEP), "learner-stepper-run-twice")


def test_an_error_from_the_core_shows_the_cell_line_folded_frames_and_the_message(
        notebook, screenshots):
    run_cell(notebook, TWICE)
    text = error_text(notebook, TWICE)
    assert "----> 3 out.backward()" in text
    assert "[... " in text and "frames inside teachgrad hidden; %teachgrad frames shows them]" \
        in text
    assert "RuntimeError: Trying to backward through the graph a second time" in text
    assert "engine.py" not in text and "_tensor.py" not in text
    assert len(text.splitlines()) < 15, text  # it was 45 lines of teachgrad's code
    screenshots.take(notebook.cell(TWICE), "learner-backward-twice")


def test_a_cell_ending_with_a_variable_titles_its_table_with_the_name(notebook):
    table = notebook.cell(TABLE).locator("table.tg-table")
    table.wait_for(state="visible")
    assert table.locator("thead th.tg-name").all_inner_texts() == ["u"]


def test_the_table_and_its_corner_cell_are_named_for_a_screen_reader(notebook):
    # Chromium's accessibility tree, as a screen reader gets it: the table is named after
    # its tensor, and the corner cell (empty, read as nothing) heads the attribute names.
    cell = notebook.cell(TABLE)
    cell.locator("table.tg-table").wait_for(state="visible")
    (table,) = roles_and_names(cell, "table.tg-table")
    assert (table["role"], table["name"]) == ("table", "autograd attributes of u")
    headers = roles_and_names(cell, "table.tg-table th")
    assert all(h["name"] for h in headers), headers
    assert [(h["role"], h["name"]) for h in headers[:2]] == [
        ("columnheader", "attribute"), ("columnheader", "u")]
    # ...and is not seen: the word takes one pixel, clipped away
    word = cell.locator("table.tg-table th.tg-corner .tg-sr").bounding_box()
    assert word["width"] <= 1 and word["height"] <= 1, word


def test_run_all_goes_past_a_cell_that_fails_on_purpose(chromium, lab_server):
    # Lesson 8 triggers three errors on purpose. Untagged, Run All stopped at the first
    # one: 15 of its 20 code cells never ran, the exercise included.
    lesson = "08_no_grad_detach_and_in_place_pitfalls.ipynb"
    with opened(chromium, lab_server, lesson, timeout_ms=30_000) as notebook:
        ran = notebook.run_all()  # waits for every cell, past the intended errors
        assert not ran.not_run, ran
        assert [r.intended for r in ran.raised] == [True] * 3, ran
        cells = [c for c in notebook.model()["cells"] if c["cell_type"] == "code"]
        assert "✔ Correct!" in "".join(o.get("text", "") for o in cells[-1]["outputs"])


def test_an_edge_to_nothing_never_wraps_onto_a_line_of_its_own(chromium, lab_server):
    # Lesson 9's inspect(x, c, h, L) fills the output's width; h's grad_fn,
    # "MulBackward0 → AccumulateGrad, —", wrapped before its dash.
    lesson = "09_leaves_retain_grad_and_hooks.ipynb"
    with opened(chromium, lab_server, lesson, timeout_ms=30_000) as notebook:
        assert notebook.run_all()
        cells = notebook.model()["cells"]
        (index,) = [i for i, c in enumerate(cells) if "inspect(x, c, h, L)" in "".join(c["source"])]
        table = notebook.cell(index).locator("table.tg-table")
        table.wait_for(state="visible")
        dashes = table.locator("tr.tg-grad_fn td").evaluate_all("""tds => tds.flatMap(td => {
            const text = td.firstChild, at = text.data.indexOf('—');
            if (at < 0) return [];
            const range = document.createRange();
            range.setStart(text, at); range.setEnd(text, at + 1);
            const dash = range.getBoundingClientRect();
            range.setStart(text, at - 2); range.setEnd(text, at - 1);  // the comma before it
            const comma = range.getBoundingClientRect();
            return [{text: text.data, dashTop: dash.top, commaTop: comma.top}];
        })""")
        assert dashes, "no grad_fn cell with an edge to nothing: update this test"
        for cell in dashes:
            assert cell["dashTop"] == cell["commaTop"], cell
