"""A model and its optimizer in JupyterLab: the parameter table, light and dark.

A cell that ends with ``model`` after ``loss.backward()`` shows the model's structure
(PyTorch's text) beside a table of its parameters with their gradients' norms; one that
ends with ``opt`` shows the parameter groups. Run in the teachgrad kernel, read as
drawn: the table shows, every text reads at WCAG AA contrast in both themes, and a
narrow window keeps the table within the cell (it wraps under the structure). Opened
untrusted (JupyterLab strips ``<style>``), the same output shows PyTorch's text only.
"""

from __future__ import annotations

import nbformat
import pytest

from .contrast import below_aa
from .lab_page import opened, teachgrad_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "module_view.ipynb"
BUILD = """\
import teachgrad as torch
from teachgrad import nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.BatchNorm1d(3), nn.Linear(3, 1))
model[0].bias.requires_grad_(False)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.tensor([[3.0, 4.0], [1.0, -2.0]])
loss = model(x).pow(2).mean()
loss.backward()
opt.step()"""


@pytest.fixture(scope="module")
def notebook_file(lessons_copy):
    cells = [nbformat.v4.new_code_cell(code) for code in (BUILD, "model", "opt")]
    nbformat.write(teachgrad_notebook(cells), lessons_copy / NOTEBOOK)
    return NOTEBOOK


def view(notebook, index: int):
    output = notebook.cell(index).locator(".tg-module")
    output.locator("table.tg-table").wait_for(state="visible")
    return output


def test_model_and_optimizer_views_read_well_in_both_themes(
        chromium, lab_server, notebook_file, screenshots):
    with opened(chromium, lab_server, notebook_file, timeout_ms=30_000) as notebook:
        assert notebook.run_all()
        model = view(notebook, 1)
        names = model.locator("tbody th[scope=row]").all_inner_texts()
        assert names == ["0.weight", "0.bias", "2.weight", "2.bias", "3.weight", "3.bias",
                         "2.running_mean", "2.running_var", "2.num_batches_tracked"]
        assert model.locator("pre.tg-structure").inner_text().startswith("Sequential(\n")
        frozen = model.locator("tbody tr", has_text="0.bias").locator("td")
        assert frozen.all_inner_texts()[2:] == ["False", "None"]
        low = []
        for theme, light in (("JupyterLab Light", True), ("JupyterLab Dark", False)):
            notebook.set_theme(theme, light)
            try:
                for index, what in ((1, "model"), (2, "opt")):
                    shown = view(notebook, index)
                    low += [f"{theme}, {what}: {t}" for t in below_aa(shown)]
                    screenshots.take(shown, f"module-view-{what}-{'light' if light else 'dark'}")
            finally:
                notebook.set_theme("JupyterLab Light", light=True)
        assert not low, "text below 4.5:1 contrast:\n" + "\n".join(low)


def test_in_a_narrow_window_the_table_wraps_under_the_structure(
        chromium, lab_server, notebook_file, screenshots):
    with opened(chromium, lab_server, notebook_file, timeout_ms=30_000, width=700) as notebook:
        assert notebook.run_all()
        model = view(notebook, 1)
        sizes = model.evaluate("""v => {
            const cell = v.closest('.jp-OutputArea-output').getBoundingClientRect();
            const pre = v.querySelector('pre.tg-structure').getBoundingClientRect();
            const table = v.querySelector('.tg-params').getBoundingClientRect();
            const line = parseFloat(getComputedStyle(v.querySelector('pre.tg-structure'))
                                    .lineHeight);
            return {cell: cell.right, table: table.right, below: table.top >= pre.bottom,
                    lines: pre.height / line, scrolls: pre.right <= cell.right + 0.5};
        }""")
        assert sizes["below"], sizes
        # repr(model) has 6 lines: kept whole (a scroll bar under them), not wrapped mid-word
        assert sizes["lines"] < 7.5 and sizes["scrolls"], sizes
        assert sizes["table"] <= sizes["cell"] + 0.5, sizes
        screenshots.take(model, "module-view-narrow")


def test_untrusted_output_is_pytorchs_text(chromium, lab_server, lessons_copy):
    import teachgrad as torch
    from teachgrad.notebook.module_view import module_html

    model = torch.nn.Sequential(torch.nn.Linear(2, 1))
    cell = nbformat.v4.new_code_cell("model", execution_count=1, outputs=[
        nbformat.v4.new_output("execute_result", execution_count=1, data={
            "text/html": module_html(model, "model"), "text/plain": repr(model)})])
    nbformat.write(teachgrad_notebook([cell]), lessons_copy / "module_untrusted.ipynb")
    with opened(chromium, lab_server, "module_untrusted.ipynb") as notebook:
        output = notebook.cell(0).locator(".jp-OutputArea-output")
        output.locator("pre").first.wait_for(state="visible")
        assert output.inner_text().strip() == repr(model)
