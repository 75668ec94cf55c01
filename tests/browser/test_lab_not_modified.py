"""A lesson a learner only opened is not "modified".

When the kernel starts, JupyterLab writes the kernel's ``language_info`` and the
kernelspec into the notebook's metadata. If the stored lesson says anything else (the
build once kept only ``{"name": "python"}``), the document turns dirty at once: the tab
shows the unsaved-changes dot and closing the lesson asks to save changes the learner
never made. The build stores what the teachgrad kernel reports (notebooks/tools/build.py).
"""

from __future__ import annotations

import nbformat
import pytest

from .lab_page import _PANEL, opened
from .lesson_facts import LESSONS

pytestmark = pytest.mark.browser

LESSON = "00_what_a_tensor_remembers.ipynb"
OLD_METADATA = "old_metadata.ipynb"  # lesson 0 as the build used to store it


def dirty_after_kernel_start(notebook) -> dict:
    """Whether the document (and its tab) shows unsaved changes once the kernel answered."""
    page = notebook.page
    # open() waited for "| Idle"; JupyterLab writes the metadata from the kernel's
    # kernel_info reply: wait until it has, then a little for anything rewritten after it.
    page.wait_for_function(f"() => ({_PANEL}.model.getMetadata('language_info') || {{}}).version")
    page.wait_for_timeout(500)
    return page.evaluate(
        f"""() => ({{document: {_PANEL}.context.model.dirty,
                    tab: document.querySelector('.lm-TabBar-tab.jp-mod-current.jp-mod-dirty')
                         !== null}})""")


def test_a_freshly_opened_lesson_is_not_dirty(chromium, lab_server):
    with opened(chromium, lab_server, LESSON, timeout_ms=60_000) as notebook:
        assert dirty_after_kernel_start(notebook) == {"document": False, "tab": False}


def test_the_old_metadata_did_make_it_dirty(chromium, lab_server, lessons_copy):
    """The check above can fail: with the metadata the build used to write, it does."""
    nb = nbformat.read(LESSONS / LESSON, as_version=4)
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.write(nb, lessons_copy / OLD_METADATA)
    with opened(chromium, lab_server, OLD_METADATA, timeout_ms=60_000) as notebook:
        assert dirty_after_kernel_start(notebook) == {"document": True, "tab": True}
