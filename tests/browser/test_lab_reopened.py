"""A stepper saved in a notebook, opened again later: a new kernel, the widget gone.

The notebook is the student's own (saved, so trusted), its kernel new: the live widget's
output points at a model nobody has, and JupyterLab writes "Error displaying widget:
model not found" in it. The static copy above it steps without a kernel, so that error
only confused; it is hidden now. The notebook is signed here as JupyterLab signs what
it saves, and never run.
"""

from __future__ import annotations

import nbformat
import pytest
from nbformat.sign import NotebookNotary

import teachgrad as torch
from teachgrad.notebook import step_backward
from teachgrad.notebook.stepper import _StaticView

from .lab_page import opened, teachgrad_notebook
from .stepper_dom import highlighted

pytestmark = pytest.mark.browser

NOTEBOOK = "reopened.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def reopened(chromium, jupyter, lab_server, lessons_copy):
    x = torch.ones(2, requires_grad=True)
    out = (x * 3).sum()
    stepper = _StaticView(step_backward(out, names={"x": x, "out": out}))._repr_mimebundle_()
    gone = {WIDGET_VIEW: {"model_id": "0" * 32, "version_major": 2, "version_minor": 0},
            "text/plain": "", "text/html": ""}  # what _WidgetOnly saves
    cell = nbformat.v4.new_code_cell("step_backward(out, names=locals())")
    cell.outputs = [nbformat.v4.new_output("display_data", data=stepper),
                    nbformat.v4.new_output("display_data", data=gone)]
    nb = teachgrad_notebook([cell])
    NotebookNotary(data_dir=jupyter["JUPYTER_DATA_DIR"]).sign(nb)  # trusted, as if saved
    nbformat.write(nb, lessons_copy / NOTEBOOK)
    with opened(chromium, lab_server, NOTEBOOK) as notebook:
        yield notebook


def test_a_reopened_stepper_steps_without_a_widget_error(reopened, screenshots):
    cell = reopened.cell(0)
    static = cell.locator(".tg-stepper.tg-static")
    static.wait_for(state="visible")  # trusted: styled, stepping (not the untrusted log)
    widget_output = cell.locator(".jp-OutputArea-output.jupyter-widgets")
    widget_output.wait_for(state="attached")
    reopened.page.wait_for_function(  # JupyterLab has tried, and failed, to render it
        "e => e.textContent.includes('model not found')", arg=widget_output.element_handle())
    assert widget_output.is_hidden()
    static.locator("section.tg-frame").filter(visible=True).locator(
        'label.tg-btn[title="Next step"]').click()
    assert len(highlighted(static)) == 1
    screenshots.take(cell, "reopened-stepper")
