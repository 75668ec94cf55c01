"""An exported lesson, opened as a file with no server and no network: the stepper steps.

``jupyter nbconvert --to html --execute`` runs lesson 1 with the teachgrad kernel and
writes one HTML file. Its widget view needs the widget manager from a CDN, which never
loads here (every non-file request is aborted), so what steps is the CSS-only copy of
the stepper (``teachgrad.notebook.static_html``): with JavaScript on, and off.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from .contrast import below_aa
from .lesson_facts import (
    BACKWARD_ORDER,
    FINAL_PANEL,
    LAST,
    LESSON,
    LESSONS,
    X_GRAD,
    flat,
    node_of,
)
from .stepper_dom import highlighted

pytestmark = pytest.mark.browser

EXPORT_TIMEOUT_S = 180


@pytest.fixture(scope="module")
def exported(chromium, jupyter, tmp_path_factory):
    """The HTML export of the executed lesson (nbconvert --execute, teachgrad kernel)."""
    pytest.importorskip("nbconvert", reason="nbconvert is not installed")
    folder = tmp_path_factory.mktemp("export")
    shutil.copyfile(LESSONS / LESSON, folder / LESSON)
    command = [sys.executable, "-m", "nbconvert", "--to", "html", "--execute",
               f"--ExecutePreprocessor.timeout={EXPORT_TIMEOUT_S}", str(folder / LESSON)]
    done = subprocess.run(command, env=jupyter, cwd=folder, capture_output=True, text=True,
                          timeout=EXPORT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"nbconvert failed:\n{done.stderr[-4000:]}"
    return folder / LESSON.replace(".ipynb", ".html")


def offline_page(chromium, javascript: bool):
    """A page that may open files and nothing else (no CDN, no network at all)."""
    context = chromium.new_context(java_script_enabled=javascript,
                                   viewport={"width": 1280, "height": 900})
    blocked: list[str] = []

    def only_files(route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", only_files)
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page, blocked


class StaticStepper:
    """The CSS-only stepper of ``out`` in the export (the one whose graph has a Mean)."""

    def __init__(self, page) -> None:
        self.root = page.locator(".tg-stepper.tg-static").filter(has_text="MeanBackward0")
        assert self.root.count() == 1

    def frame(self):
        """The one panel on show (a ``section.tg-frame``), and its frame number."""
        shown = self.root.locator("section.tg-frame").filter(visible=True)
        assert shown.count() == 1
        return shown, int(re.search(r"\btg-f(\d+)\b", shown.get_attribute("class")).group(1))

    def click(self, title: str) -> None:
        """Click a button of the panel on show by its title ("Next step", "First step"...)."""
        panel, _ = self.frame()
        panel.locator(f'label.tg-btn[title="{title}"]').click()


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript-on", "javascript-off"])
def test_exported_stepper_steps_offline(chromium, exported, screenshots, javascript):
    context, page, blocked = offline_page(chromium, javascript)
    try:
        page.goto(exported.as_uri())
        stepper = StaticStepper(page)
        stepper.root.scroll_into_view_if_needed()
        panel, frame = stepper.frame()
        assert frame == 0 and highlighted(stepper.root) == []
        assert "Start: backward() from out" in panel.inner_text()
        for k, expected in enumerate(BACKWARD_ORDER, start=1):
            stepper.click("Next step")  # ▶: a <label> that checks frame k's radio button
            panel, frame = stepper.frame()
            assert frame == k
            assert [node_of(b) for b in highlighted(stepper.root)] == [expected]
            assert f"Step {k} of {LAST}: {expected[1]}" in panel.inner_text()
        assert FINAL_PANEL in flat(panel.inner_text())
        assert "backward() is finished" in panel.inner_text()
        mode = "js" if javascript else "nojs"
        screenshots.take(stepper.root, f"export-{mode}-last")
        stepper.click("Previous step")
        assert stepper.frame()[1] == LAST - 1
        stepper.root.locator(".tg-timeline label.tg-t2").click()  # the numbered strip
        assert stepper.frame()[1] == 2
        assert [node_of(b) for b in highlighted(stepper.root)] == [BACKWARD_ORDER[1]]
        stepper.click("First step")
        assert stepper.frame()[1] == 0 and highlighted(stepper.root) == []
        if javascript:  # it really was offline: the page asked for its CDN scripts, in vain
            assert any(url.startswith("https://") for url in blocked), blocked
    finally:
        context.close()


def test_exported_inspector_table(chromium, exported):
    context, page, _ = offline_page(chromium, javascript=False)
    try:
        page.goto(exported.as_uri())
        tables = page.locator("table.tg-table").filter(has_text="requires_grad")
        x_and_y = tables.filter(has=page.locator("th.tg-name", has_text="y")).last
        x_and_y.wait_for(state="visible")
        assert x_and_y.locator("tr.tg-grad td").first.inner_text() == X_GRAD
    finally:
        context.close()


def test_exported_stepper_text_reads_at_aa_contrast(chromium, exported):
    # The numbered strip marked the frame on show in white on orange: 3:1.
    context, page, _ = offline_page(chromium, javascript=False)
    try:
        page.goto(exported.as_uri())
        stepper = StaticStepper(page)
        low = []
        for k in range(LAST + 1):
            if k:
                stepper.click("Next step")
            low += [f"step {k}: {t}" for t in below_aa(stepper.root)]
        assert not low, "text below 4.5:1 contrast:\n" + "\n".join(low)
    finally:
        context.close()


def test_exported_stepper_steps_with_the_keyboard(chromium, exported):
    # The frames' radio buttons were display:none: nothing to Tab to, no way to step
    # without a mouse. Now the checked one takes the focus and the arrow keys step.
    context, page, _ = offline_page(chromium, javascript=False)
    try:
        page.goto(exported.as_uri())
        stepper = StaticStepper(page)
        checked = stepper.root.locator("input.tg-r:checked")
        assert checked.get_attribute("aria-label") == "Start: backward() from out"
        checked.focus()
        assert checked.evaluate("e => e === document.activeElement")
        for key, frame in (("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1)):
            page.keyboard.press(key)
            assert stepper.frame()[1] == frame
        assert [node_of(b) for b in highlighted(stepper.root)] == [BACKWARD_ORDER[0]]
    finally:
        context.close()
