"""Every lesson, run whole in JupyterLab as a student runs it (Run All), in a real browser.

nbval runs the lessons too, but through nbclient: this is JupyterLab's own Run All, with
its rules for errors (it goes on past a cell tagged ``raises-exception`` and stops at any
other error), the teachgrad kernel and the page's widget manager. A lesson passes when
every code cell ran, exactly the tagged cells raised, and every widget rendered.
"""

from __future__ import annotations

import pytest

from .lab_page import RAISES_TAG, opened
from .lesson_facts import LESSONS

pytestmark = pytest.mark.browser

NAMES = sorted(path.name for path in LESSONS.glob("[0-9][0-9]_*.ipynb"))


def tagged(model: dict) -> list[int]:
    """The indices of the cells the lesson means to raise."""
    return [i for i, cell in enumerate(model["cells"])
            if RAISES_TAG in cell["metadata"].get("tags", [])]


@pytest.mark.parametrize("name", NAMES)
def test_the_whole_lesson_runs_with_run_all(chromium, lab_server, name):
    with opened(chromium, lab_server, name, timeout_ms=60_000) as notebook:
        ran = notebook.run_all()
        assert not ran.not_run, f"cells that never ran: {ran.not_run} ({ran})"
        assert not ran.unintended, f"cells that raised by mistake: {ran.unintended}"
        assert [r.index for r in ran.raised] == tagged(notebook.model()), ran
        # Every widget rendered: none still "Loading widget...", none failed.
        notebook.page.wait_for_function(
            """() => ![...document.querySelectorAll('.jp-Notebook .jp-OutputArea-output')]
                     .some(output => output.textContent.startsWith('Loading widget'))""")
        shown = notebook.page.locator(".jp-Notebook .jp-OutputArea-output").all_inner_texts()
        assert not [t for t in shown if "Error displaying widget" in t]
