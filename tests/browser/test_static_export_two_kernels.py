"""Two kernels' steppers in one exported page: each steps, and highlights, on its own.

Two notebooks, each run by a kernel of its own (``nbconvert --execute``), have their
outputs put into one notebook, exported to one HTML page (what a book of several lessons
is). Each kernel counts its steppers from 0, so both were ``tgs0``: the second stepper's
◀ ▶ (``<label for="tgs0_f1">``) checked the first stepper's radio buttons, and its graph
never moved. Now every id carries its kernel's mark (``tgs0k3fa9c1``, see
``teachgrad.notebook.graph.new_prefix``). The page is opened as a file, with no network
and no JavaScript, as a reader of the export sees it without the widget manager.
"""

from __future__ import annotations

import re
import subprocess
import sys

import nbformat
import pytest

from .lab_page import teachgrad_notebook
from .stepper_dom import highlighted
from .test_static_export import EXPORT_TIMEOUT_S, offline_page
from .test_static_export_twice import click_next, frame_of

pytestmark = pytest.mark.browser

SETUP = "import teachgrad as torch\nfrom teachgrad.notebook import step_backward\n"
# Two lessons, two graphs: the first step runs SumBackward0 in one, MeanBackward0 in the other.
LESSONS = {
    "sum.ipynb": SETUP + "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                         "out = (x * 3).sum()\nstep_backward(out, names=locals())",
    "mean.ipynb": SETUP + "w = torch.tensor([4.0, 5.0], requires_grad=True)\n"
                          "loss = (w * w).mean()\nstep_backward(loss, names=locals())",
}
BOOK = "book.ipynb"


def nbconvert(jupyter, folder, *arguments: str) -> None:
    command = [sys.executable, "-m", "nbconvert", *arguments]
    done = subprocess.run(command, env=jupyter, cwd=folder, capture_output=True, text=True,
                          timeout=EXPORT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"nbconvert failed:\n{done.stderr[-4000:]}"


@pytest.fixture(scope="module")
def book(jupyter, tmp_path_factory):
    """One HTML page holding the outputs of two notebooks, each run by its own kernel."""
    pytest.importorskip("nbconvert", reason="nbconvert is not installed")
    folder = tmp_path_factory.mktemp("export-two-kernels")
    cells = []
    for name, code in LESSONS.items():
        nbformat.write(teachgrad_notebook([nbformat.v4.new_code_cell(code)]), folder / name)
        nbconvert(jupyter, folder, "--to", "notebook", "--execute", "--inplace",
                  f"--ExecutePreprocessor.timeout={EXPORT_TIMEOUT_S}", name)
        cells += nbformat.read(folder / name, as_version=4).cells
    nbformat.write(teachgrad_notebook(cells), folder / BOOK)
    nbconvert(jupyter, folder, "--to", "html", BOOK)  # no --execute: the kernels' outputs
    return folder / BOOK.replace(".ipynb", ".html")


def test_each_kernels_stepper_steps_and_highlights_its_own_graph(chromium, book, screenshots):
    context, page, _ = offline_page(chromium, javascript=False)
    try:
        page.goto(book.as_uri())
        steppers = page.locator(".tg-stepper.tg-static")
        assert steppers.count() == 2
        first, second = steppers.nth(0), steppers.nth(1)
        assert "SumBackward0" in first.inner_text() + first.inner_html()
        assert "MeanBackward0" in second.inner_html()
        ids = first.get_attribute("id"), second.get_attribute("id")
        # the same counter in both kernels (the clash this is about), different marks
        assert ids[0] != ids[1]
        assert re.sub(r"k[0-9a-f]{6}$", "", ids[0]) == re.sub(r"k[0-9a-f]{6}$", "", ids[1])
        assert (frame_of(first), frame_of(second)) == (0, 0)
        assert highlighted(first) == [] and highlighted(second) == []

        second.scroll_into_view_if_needed()
        click_next(second)
        assert (frame_of(first), frame_of(second)) == (0, 1)
        assert highlighted(first) == []
        (running,) = highlighted(second)
        assert running.startswith("MeanBackward0")

        first.scroll_into_view_if_needed()
        click_next(first)
        assert (frame_of(first), frame_of(second)) == (1, 1)
        (running,) = highlighted(first)
        assert running.startswith("SumBackward0")
        (still,) = highlighted(second)
        assert still.startswith("MeanBackward0")

        click_next(second)  # MulBackward0 of w * w runs next in the other kernel's graph
        assert (frame_of(first), frame_of(second)) == (1, 2)
        assert highlighted(first)[0].startswith("SumBackward0")
        assert highlighted(second)[0].startswith("MulBackward0")
        screenshots.take(page.locator("body"), "export-two-kernels")
    finally:
        context.close()
