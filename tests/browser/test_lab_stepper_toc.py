"""A stepper's static copy stays out of JupyterLab's table of contents.

Every frame of the static copy has a title (``<h4>``), and JupyterLab's table of contents
lists every heading of an HTML output: a 50-step stepper put 51 "Step k of 50" entries
into a lesson's contents, and a 2,000-node stepper 2,001, which JupyterLab drew as web
components, 8 of the 11 s it took to show that output (measured with the CDP profiler on
a loaded 2-core machine). The titles carry ``jp-toc-ignore`` (and ``tocSkip``, the
classic notebook's), which JupyterLab skips.
"""

from __future__ import annotations

import nbformat
import pytest

from .lab_page import opened, teachgrad_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "stepper_toc.ipynb"
CODE = """\
import teachgrad as torch
from teachgrad.notebook import step_backward

x = torch.tensor([2.0, -1.0], requires_grad=True)
out = ((x * 3).tanh() * x).sum()
step_backward(out, names=locals())"""

# The texts of the entries of JupyterLab's table of contents, once it lists the heading.
TOC_ENTRIES = """() => [
    ...document.querySelectorAll('.jp-TableOfContents-tree .jp-tocItem-content'),
].map(item => item.textContent.trim())"""


def test_the_contents_list_the_lesson_not_the_steps(chromium, lab_server, lessons_copy):
    nb = teachgrad_notebook([nbformat.v4.new_markdown_cell("# A lesson with a stepper"),
                             nbformat.v4.new_code_cell(CODE)])
    nbformat.write(nb, lessons_copy / NOTEBOOK)
    with opened(chromium, lab_server, NOTEBOOK) as notebook:
        assert notebook.run_all()
        cell = notebook.cell(1)
        static = cell.locator(".tg-stepper.tg-static")
        static.wait_for(state="attached")
        titles = static.locator("section.tg-frame h4")
        assert titles.count() == 6  # (the test sees the headings it is about)
        page = notebook.page
        page.evaluate("() => window.jupyterapp.commands.execute('toc:show-panel')")
        page.wait_for_function(f"() => ({TOC_ENTRIES})().length > 0")
        page.wait_for_timeout(500)  # (the contents are refreshed after a short delay)
        assert page.evaluate(TOC_ENTRIES) == ["A lesson with a stepper"]
