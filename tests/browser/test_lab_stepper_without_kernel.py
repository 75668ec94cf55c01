"""The live stepper steps in the browser: while the kernel runs another cell, and after
the kernel is gone.

Measured before (a 50-node graph, JupyterLab 4.6, headless Chromium): the step buttons
were ipywidgets Buttons whose clicks the kernel handled, 60-90 ms a click when idle, and
a click made while another cell ran waited for it (8 s behind a ``time.sleep(8)``). Now
each button selects its frame in the browser (``ToggleButtons`` jslinked to the step box,
see ``teachgrad/notebook/live.py``).
"""

from __future__ import annotations

import nbformat
import pytest

from .lab_page import opened, teachgrad_notebook
from .stepper_dom import highlighted

pytestmark = pytest.mark.browser

NOTEBOOK = "stepper_no_kernel.ipynb"
STEPPER = """\
import teachgrad as torch
from teachgrad.notebook import step_backward

x = torch.tensor([2.0, -1.0], requires_grad=True)
y = x * 3
out = (y * y).sum()
stepper = step_backward(out, names=locals())
stepper"""
BUSY = "import time\ntime.sleep(60)"  # interrupted by the test as soon as it has stepped
FRAME = "print('frame', stepper.frame)"
#: the frames' running nodes: out's SumBackward0, y*y, y = x*3, x's AccumulateGrad
LAST = 4

_KERNEL = "window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel"


def run_cell(notebook, index: int) -> None:
    """Run cell ``index`` as Shift+Enter does, without waiting for it to finish."""
    notebook.page.evaluate(
        """i => { const panel = window.jupyterapp.shell.currentWidget;
                  panel.content.activeCellIndex = i;
                  window.jupyterapp.commands.execute('notebook:run-cell'); }""", index)


def kernel_status(notebook) -> str:
    return notebook.page.evaluate(f"() => {_KERNEL}?.status ?? 'none'")


@pytest.fixture(scope="module")
def notebook(chromium, lab_server, lessons_copy):
    cells = [nbformat.v4.new_code_cell(code) for code in (STEPPER, BUSY, FRAME)]
    nbformat.write(teachgrad_notebook(cells), lessons_copy / NOTEBOOK)
    with opened(chromium, lab_server, NOTEBOOK, timeout_ms=30_000) as notebook:
        run_cell(notebook, 0)
        yield notebook


def stepper_view(notebook):
    cell = notebook.cell(0)
    view = cell.locator(".jp-OutputArea-child", has=cell.page.locator(".tg-live"))
    view.locator('button[title="Next step"]:visible').wait_for(state="visible")
    return view


def click(view, name: str, frame: int) -> None:
    """Click the step button called ``name`` and wait for ``frame``'s panel."""
    from playwright.sync_api import expect

    view.locator(f'button[title="{name}"]:visible').click()
    expect(view.get_by_label("Step", exact=True)).to_have_value(str(frame))
    expect(view.locator(f'.tg-panel-live[data-frame="{frame}"]')).to_be_visible()


def test_the_buttons_step_while_the_kernel_runs_another_cell(notebook, screenshots):
    view = stepper_view(notebook)
    notebook.page.wait_for_function(f"() => {_KERNEL}?.status === 'idle'")
    run_cell(notebook, 1)
    notebook.page.wait_for_function(f"() => {_KERNEL}?.status === 'busy'")
    for frame in (1, 2, 3):
        click(view, "Next step", frame)
    click(view, "Previous step", 2)
    click(view, "Last step", LAST)
    click(view, "Next step", LAST)  # past the end: stays
    click(view, "First step", 0)
    click(view, "Next step", 1)
    assert len(highlighted(view.locator(".tg-live"))) == 1
    assert kernel_status(notebook) == "busy", "the sleep ended: this proved nothing"
    screenshots.take(view, "stepper-stepped-while-busy")
    notebook.page.evaluate(
        "() => window.jupyterapp.commands.execute('notebook:interrupt-kernel')")
    notebook.page.wait_for_function(f"() => {_KERNEL}?.status === 'idle'")
    # The kernel's copy caught up: the browser's changes reached it after the sleep.
    run_cell(notebook, 2)
    notebook.cell(2).locator(".jp-OutputArea-output", has_text="frame 1").wait_for()


def test_the_buttons_step_with_the_kernel_shut_down(notebook):
    view = stepper_view(notebook)
    notebook.page.evaluate(
        "() => window.jupyterapp.commands.execute('kernelmenu:shutdown')")
    notebook.page.wait_for_function(
        f"() => {_KERNEL} == null || {_KERNEL}.status === 'dead'", timeout=30_000)
    click(view, "Last step", LAST)
    click(view, "Previous step", LAST - 1)
    click(view, "First step", 0)
    click(view, "Next step", 1)
    assert len(highlighted(view.locator(".tg-live"))) == 1
