"""Fixtures of the browser tests: Chromium, a private JupyterLab, screenshots.

Everything here is package-scoped: the browser and the server start once for the
tests of this folder and are gone before any other test runs (no stray processes).
Without Playwright, Chromium or JupyterLab the tests skip, saying which is missing.

Screenshots go to ``screenshots/browser/`` (git-ignored, emptied at the start of each
run); the path is printed at the end of the run. ``TEACHGRAD_DOC_IMAGES=1`` also
writes the README's pictures into ``docs/images/``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .chromium import launch
from .lab_server import LabServer, ServerDidNotStart, jupyter_env
from .lesson_facts import LESSONS

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "screenshots" / "browser"
DOC_IMAGES = ROOT / "docs" / "images"

_taken: list[Path] = []  # for the summary at the end of the run


class Screenshots:
    """Saves element screenshots into one folder; README pictures also into docs/images."""

    def __init__(self, folder: Path, docs: Path | None) -> None:
        self.folder = folder
        self.docs = docs

    def take(self, locator, name: str, doc_name: str | None = None) -> Path:
        """Screenshot ``locator`` (cropped to it) as ``name.png``; ``doc_name``: a README copy."""
        path = self.folder / f"{name}.png"
        # No focus ring on the button clicked last: the picture shows the state, not the click.
        locator.page.evaluate("() => document.activeElement && document.activeElement.blur()")
        locator.screenshot(path=str(path), animations="disabled")
        _taken.append(path)
        if self.docs is not None and doc_name is not None:
            self.docs.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, self.docs / f"{doc_name}.png")
        return path

    def window(self, page, name: str) -> Path:
        """Screenshot the whole browser window as ``name.png``."""
        path = self.folder / f"{name}.png"
        page.screenshot(path=str(path))
        _taken.append(path)
        return path


@pytest.fixture(scope="package")
def screenshots() -> Screenshots:
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    SCREENSHOTS.mkdir(parents=True)
    docs = DOC_IMAGES if os.environ.get("TEACHGRAD_DOC_IMAGES") == "1" else None
    return Screenshots(SCREENSHOTS, docs)


@pytest.fixture(scope="package")
def chromium():
    """A headless Chromium (Playwright's sync API); skips when there is none."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
    playwright = sync_api.sync_playwright().start()
    try:
        browser = launch(playwright)
    except LookupError as reason:
        playwright.stop()
        pytest.skip(str(reason))
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture(scope="package")
def jupyter(tmp_path_factory) -> dict[str, str]:
    """Environment variables of a private Jupyter (settings, runtime, teachgrad kernel)."""
    pytest.importorskip("jupyter_client", reason="Jupyter is not installed")
    return jupyter_env(tmp_path_factory.mktemp("jupyter"))


@pytest.fixture(scope="package")
def lessons_copy(tmp_path_factory) -> Path:
    """A temporary copy of notebooks/ (running a lesson in JupyterLab saves it)."""
    copy = tmp_path_factory.mktemp("lessons") / "notebooks"
    shutil.copytree(LESSONS, copy, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return copy


@pytest.fixture(scope="package")
def lab_server(chromium, jupyter, lessons_copy, tmp_path_factory):
    """JupyterLab on 127.0.0.1 (random port, a token) serving the copy of the lessons."""
    pytest.importorskip("jupyterlab", reason="JupyterLab is not installed")
    logs = tmp_path_factory.mktemp("lab-logs")
    try:
        server = LabServer.start(lessons_copy, jupyter, logs)
    except ServerDidNotStart as error:
        pytest.fail(f"JupyterLab did not start (tried twice):\n{error}", pytrace=False)
    yield server
    server.stop()
    left = server.leftovers()
    assert not left, f"processes still running after stopping JupyterLab: {left}"


def pytest_collection_modifyitems(items: list) -> None:
    """Run the browser tests last, after the unit tests and the lessons.

    They take minutes; run first (their folder sorts first), they kept a newcomer's
    ``dev.py test`` from showing any unit test result for that long.
    """
    here = Path(__file__).resolve().parent
    browser, others = [], []
    for item in items:
        (browser if here in Path(item.path).resolve().parents else others).append(item)
    items[:] = others + browser


def pytest_terminal_summary(terminalreporter) -> None:
    if _taken:
        terminalreporter.write_line(
            f"browser screenshots ({len(_taken)}): {_taken[0].parent}", bold=True)
