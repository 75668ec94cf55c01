"""A lesson's plot in JupyterLab keeps readable text in a narrow window.

The plots are ``<img>`` pictures 560 pixels wide that shrink to the cell. In an 800-pixel
window (JupyterLab's file browser open) the cell is ~370 pixels wide, and the picture
shrank to 66 %: its 12-pixel labels drew at 8 pixels. Now it shrinks to 80 % at most and
then scrolls sideways in its box; in a laptop window it keeps its full size. Checked on
the stored output of a notebook nobody ran yet (untrusted: JupyterLab sanitises its HTML,
and the sizes are inline styles that must survive that) and after running it.
"""

from __future__ import annotations

import nbformat
import pytest

from .lab_page import opened, teachgrad_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "plot_width.ipynb"
CODE = """\
from teachgrad.notebook import line_plot
line_plot({"with zero_()": [0.6, 1.1, 1.5, 1.8, 2.0], "without zero_()": [0.6, 1.7, 3.3, 4.4, 5.4]},
          title="w during gradient descent", xlabel="step", ylabel="w")"""


@pytest.fixture(scope="module")
def plot_notebook(lessons_copy):
    from teachgrad.notebook import line_plot

    namespace: dict = {"line_plot": line_plot}
    figure = eval(CODE.split("\n", 1)[1], namespace)  # the cell's own expression
    cell = nbformat.v4.new_code_cell(CODE, execution_count=1, outputs=[
        nbformat.v4.new_output("execute_result", execution_count=1, data={
            "text/html": figure._repr_html_(), "text/plain": repr(figure)})])
    nbformat.write(teachgrad_notebook([cell]), lessons_copy / NOTEBOOK)
    return NOTEBOOK


def plot_sizes(notebook) -> dict:
    image = notebook.cell(0).locator("img.tg-plot")
    image.wait_for(state="visible")
    image.page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                                 arg=image.element_handle())
    return image.evaluate("""img => ({
        width: img.getBoundingClientRect().width,
        scrolls: img.parentElement.scrollWidth > img.parentElement.clientWidth,
        cell: img.closest('.jp-OutputArea-output').getBoundingClientRect().width})""")


@pytest.mark.parametrize("run", [False, True], ids=["stored-untrusted", "run"])
def test_in_a_narrow_window_the_plot_shrinks_to_80_percent_then_scrolls(
        chromium, lab_server, plot_notebook, run, screenshots):
    with opened(chromium, lab_server, plot_notebook, width=800) as notebook:
        if run:
            assert notebook.run_all()
        sizes = plot_sizes(notebook)
        assert sizes["cell"] < 448, f"the cell is wide enough: not a narrow window ({sizes})"
        assert sizes["width"] >= 448 - 0.5, sizes  # 80 % of 560: 12 px text at 9.6 px
        assert sizes["scrolls"], sizes             # the rest scrolls in its box
        screenshots.take(notebook.cell(0), f"plot-narrow-{'run' if run else 'stored'}")


def test_in_a_laptop_window_the_plot_keeps_its_size(chromium, lab_server, plot_notebook):
    with opened(chromium, lab_server, plot_notebook, width=1280) as notebook:
        sizes = plot_sizes(notebook)
        assert sizes["width"] == pytest.approx(560, abs=0.5)
        assert not sizes["scrolls"]
