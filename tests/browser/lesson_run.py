"""What the browser tests of lessons 18 and on share: the lesson run once in JupyterLab,
the check that every cell ran, a drawn graph's texts, the themes, and the stepper walked
step by step.

A test module names its lesson once::

    lesson = ran_lesson("21_batch_norms_backward_pass.ipynb")   # the module's fixture
    test_every_cell_runs_and_none_fails = every_cell_runs_and_none_fails
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from .lab_page import check_ran_once_in_order, opened
from .stepper_dom import go_to, highlighted, svg_texts, visible_panel

#: run a test in JupyterLab's light theme, then in its dark one (with :func:`in_theme`)
THEMES = pytest.mark.parametrize("theme, light", [("JupyterLab Light", True),
                                                  ("JupyterLab Dark", False)],
                                 ids=["light", "dark"])


def ran_lesson(notebook: str):
    """A module-scoped fixture: ``notebook`` open in JupyterLab, every cell run with the
    teachgrad kernel (run_all waits until the kernel has done every cell)."""

    @pytest.fixture(scope="module")
    def lesson(chromium, lab_server, screenshots):
        with opened(chromium, lab_server, notebook, timeout_ms=30_000) as page:
            page.run_all()
            yield page

    lesson.__doc__ = f"{notebook} open in JupyterLab, every cell run."
    return lesson


def every_cell_runs_and_none_fails(lesson) -> None:
    """No cell fails (these lessons have no error on purpose), each ran once, in order, and
    the exercise's solution says it is correct."""
    cells = check_ran_once_in_order(lesson.model(), failing=0)
    assert "✔ Correct!" in "".join(o.get("text", "") for o in cells[-1]["outputs"])


@contextlib.contextmanager
def in_theme(lesson, theme: str, light: bool) -> Iterator[str]:
    """The page in ``theme`` for the block, then back to the light theme; gives the name
    screenshots are tagged with ("light" or "dark")."""
    lesson.set_theme(theme, light)
    try:
        yield "light" if light else "dark"
    finally:
        if not light:
            lesson.set_theme("JupyterLab Light", light=True)


def drawn_graph(lesson, code: str):
    """The cell containing ``code`` once its drawing shows, and the drawing's texts."""
    graph_cell = lesson.cell(lesson.code_cell(code))
    svg = graph_cell.locator("svg >> visible=true").first
    svg.wait_for(state="visible")
    return graph_cell, svg_texts(svg.evaluate("e => e.outerHTML"))


def walk(view, steps: list[str]) -> Iterator[tuple[int, str, str]]:
    """Click Next through a live stepper on its first frame (see live_stepper_at_start):
    at each step, the one box drawn as running is ``steps``' node and the panel's title
    says so. Yields (frame, node, panel text) for the test to read the panel."""
    for frame, node in enumerate(steps, start=1):
        view.locator('button[title="Next step"]:visible').click()
        go_to(view, frame)
        (box,) = highlighted(view.locator(".tg-live"))
        assert node in box, (frame, box)
        panel = visible_panel(view)
        assert panel.startswith(f"Step {frame} of {len(steps)}: {node}"), panel[:80]
        yield frame, node, panel
