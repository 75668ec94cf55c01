"""One stepper displayed in two cells of an exported page: each copy steps on its own.

The CSS-only stepper's ◀ ▶ are ``<label for=...>`` of its radio buttons. Both copies
used to carry the same ids, so clicking the second copy's ▶ checked the first copy's
radio: the first stepped, the second never moved. Now each display has ids of its own
(``FramesView.copy_html``). The notebook is exported with ``nbconvert --execute`` (the
teachgrad kernel) and opened as a file with no network and no JavaScript, as a reader of
the export would see it without the widget manager.
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

pytestmark = pytest.mark.browser

NOTEBOOK = "stepper_twice.ipynb"
CELLS = (
    "import teachgrad as torch\n"
    "from teachgrad.notebook import step_backward\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = x * 3\n"
    "out = y.sum()\n"
    "s = step_backward(out, names=locals())",
    "s",
    "s",
)


@pytest.fixture(scope="module")
def exported(jupyter, tmp_path_factory):
    pytest.importorskip("nbconvert", reason="nbconvert is not installed")
    folder = tmp_path_factory.mktemp("export-twice")
    cells = [nbformat.v4.new_code_cell(code) for code in CELLS]
    nbformat.write(teachgrad_notebook(cells), folder / NOTEBOOK)
    command = [sys.executable, "-m", "nbconvert", "--to", "html", "--execute",
               f"--ExecutePreprocessor.timeout={EXPORT_TIMEOUT_S}", str(folder / NOTEBOOK)]
    done = subprocess.run(command, env=jupyter, cwd=folder, capture_output=True, text=True,
                          timeout=EXPORT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"nbconvert failed:\n{done.stderr[-4000:]}"
    return folder / NOTEBOOK.replace(".ipynb", ".html")


def frame_of(root) -> int:
    shown = root.locator("section.tg-frame").filter(visible=True)
    assert shown.count() == 1
    return int(re.search(r"\btg-f(\d+)\b", shown.get_attribute("class")).group(1))


def click_next(root) -> None:
    root.locator("section.tg-frame").filter(visible=True).locator(
        'label.tg-btn[title="Next step"]').click()


def test_two_copies_of_one_stepper_step_independently(chromium, exported, screenshots):
    context, page, _ = offline_page(chromium, javascript=False)
    try:
        page.goto(exported.as_uri())
        copies = page.locator(".tg-stepper.tg-static")
        assert copies.count() == 2
        first, second = copies.nth(0), copies.nth(1)
        assert first.get_attribute("id") != second.get_attribute("id")
        second.scroll_into_view_if_needed()
        click_next(second)
        click_next(second)
        assert frame_of(second) == 2
        assert frame_of(first) == 0 and highlighted(first) == []  # untouched
        assert len(highlighted(second)) == 1
        click_next(first)
        assert (frame_of(first), frame_of(second)) == (1, 2)
        second.locator(".tg-timeline label.tg-t0").click()  # the numbered strip, too
        assert (frame_of(first), frame_of(second)) == (1, 0)
        screenshots.take(page.locator("body"), "export-stepper-twice")
    finally:
        context.close()
