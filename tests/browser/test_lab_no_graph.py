"""Graphs that are not there, in JupyterLab: what a learner sees.

* ``draw`` of a tensor made under ``no_grad``, by ``.detach()`` or without
  ``requires_grad=True``: one faded box, and (new) a sentence under it saying why there is
  no graph and which error ``backward()`` would raise; of a leaf: what its one box does.
* ``step_backward`` of such a tensor: the cell's line and PyTorch's message with its hint,
  a few lines, none of the stepper's internals.
* ``L.backward()`` while a stepper of ``L`` is open (the graph is used up): PyTorch's
  "second time" error in a few lines, and the open stepper still steps (its frames were
  recorded by the one real backward).
"""

from __future__ import annotations

import nbformat
import pytest

from .lab_page import RAISES_TAG, opened, teachgrad_notebook
from .stepper_dom import visible_panel

pytestmark = pytest.mark.browser

NOTEBOOK = "no_graph.ipynb"
CELLS = [
    "import teachgrad as torch\n"
    "from teachgrad.notebook import draw, step_backward\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "with torch.no_grad():\n"
    "    y = x * 2\n"
    "d = (x * 3).detach()",
    "draw(y, names=locals())",
    "draw(d, names=locals())",
    "draw(x, names=locals())",
    "step_backward(y.sum(), names=locals())",
    "L = (x * x).sum()\nstep_backward(L, names=locals())",
    "L.backward()",
]
DRAW_Y, DRAW_D, DRAW_X, STEP_Y, STEPPER, AGAIN = 1, 2, 3, 4, 5, 6


@pytest.fixture(scope="module")
def notebook(chromium, lab_server, lessons_copy):
    cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    for k in (STEP_Y, AGAIN):
        cells[k].metadata["tags"] = [RAISES_TAG]
    nbformat.write(teachgrad_notebook(cells), lessons_copy / NOTEBOOK)
    with opened(chromium, lab_server, NOTEBOOK, timeout_ms=30_000) as notebook:
        ran = notebook.run_all()
        assert [(r.index, r.intended) for r in ran.raised] == [(STEP_Y, True), (AGAIN, True)]
        assert not ran.not_run, ran
        yield notebook


def note(notebook, index: int) -> str:
    shown = notebook.cell(index).locator(".tg-graph .tg-graph-note")
    shown.wait_for(state="visible")
    return shown.inner_text()


def error_text(notebook, index: int) -> str:
    shown = notebook.cell(index).locator('.jp-OutputArea-output[data-mime-type*="stderr"]')
    shown.first.wait_for(state="visible")
    return shown.first.inner_text()


@pytest.mark.parametrize("index, name", [(DRAW_Y, "y"), (DRAW_D, "d")])
def test_a_tensor_without_a_graph_is_drawn_with_the_reason(notebook, index, name):
    text = note(notebook, index)
    assert text.startswith(f"{name} has no graph: requires_grad is False and grad_fn is None")
    assert "under torch.no_grad(), or by .detach()" in text
    assert f"{name}.backward() would raise" in text
    assert notebook.cell(index).locator(".tg-graph svg").is_visible()


def test_a_leaf_is_drawn_with_what_its_box_does(notebook):
    assert "x is a leaf: it has no grad_fn" in note(notebook, DRAW_X)
    assert "into x.grad" in note(notebook, DRAW_X)


def test_step_backward_of_a_tensor_without_a_graph_says_why_in_a_few_lines(notebook):
    text = error_text(notebook, STEP_Y)
    assert "step_backward(y.sum(), names=locals())" in text
    assert ("RuntimeError: element 0 of tensors does not require grad and does not have a "
            "grad_fn") in text
    assert "Hint:" in text
    assert "stepper.py" not in text and "engine.py" not in text
    assert len(text.splitlines()) < 12, text


def test_backward_again_while_a_stepper_is_open_leaves_the_stepper_stepping(notebook):
    text = error_text(notebook, AGAIN)
    assert "RuntimeError: Trying to backward through the graph a second time" in text
    assert "engine.py" not in text and len(text.splitlines()) < 15, text
    cell = notebook.cell(STEPPER)
    view = cell.locator(".jp-OutputArea-child", has=cell.page.locator(".tg-live"))
    assert "Start: backward() from L" in visible_panel(view)
    view.locator(".tg-go-next button").filter(visible=True).click()
    assert "Step 1 of 3: SumBackward0" in visible_panel(view)
