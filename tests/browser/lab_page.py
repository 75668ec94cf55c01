"""Drive a notebook open in JupyterLab through Playwright: kernel, Run All, cells, theme.

The server runs with ``--LabApp.expose_app_in_browser=True``, so ``window.jupyterapp``
is JupyterLab itself: commands are run the way its menus run them, and the notebook's
model (outputs included) is read as JupyterLab holds it, not guessed from the page.
Every wait is on a condition, with a timeout that names what did not happen.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import nbformat

KERNEL_START_TIMEOUT_MS = 60_000
RUN_ALL_TIMEOUT_MS = 120_000

_PANEL = "window.jupyterapp.shell.currentWidget"
#: the tag of a cell a lesson means to raise (notebooks/tools/lesson_source.py)
RAISES_TAG = "raises-exception"


class LabNotebook:
    """One notebook open in JupyterLab (``page`` is a Playwright page)."""

    def __init__(self, page, server, name: str) -> None:
        self.page = page
        self.server = server
        self.name = name

    def open(self) -> LabNotebook:
        """Open the notebook (``?reset``: no saved workspace layout) and wait for its kernel.

        The toolbar's kernel indicator says idle before the kernel even exists; the status
        bar's "<kernel display name> | Idle" appears only once it answers.
        """
        self.page.goto(self.server.url(f"lab/tree/{self.name}?reset"))
        self.page.wait_for_function(
            """() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]
                     .some(item => /\\|\\s*Idle\\s*$/.test(item.textContent))""",
            timeout=KERNEL_START_TIMEOUT_MS,
        )
        return self

    def kernel_status_text(self) -> str:
        """The status bar's "<kernel> | <state>" text."""
        return self.page.evaluate(
            """() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]
                     .map(item => item.textContent).find(t => t.includes(' | ')) || ''""")

    def run_all(self) -> RunAll:
        """Clear every output, Run All, and wait until the kernel has done every cell.

        Returns what happened (:class:`RunAll`): true when every code cell ran and none
        raised; else ``.raised`` says which cells raised (tagged ``raises-exception`` or
        not) and ``.not_run`` which never ran.

        Clearing first makes each execution count start empty, so a cell that was not
        run this time cannot pass for one that was. ``notebook:run-all-cells`` sends
        every cell to the kernel at once and resolves at the first error, even where the
        lesson means it (a cell tagged ``raises-exception``, after which the kernel goes
        on): waiting for that promise only, a lesson with an intended error was checked
        while most of its cells had not run yet. So after it, one empty request goes to
        the kernel: the kernel answers requests in order, so its reply comes after every
        cell's (ran, or aborted after an untagged error).
        """
        self.page.evaluate(
            """async () => {
                 const commands = window.jupyterapp.commands;
                 await commands.execute('notebook:clear-all-cell-outputs');
                 window.__tgRunAll = undefined;
                 commands.execute('notebook:run-all-cells').then(
                     ok => { window.__tgRunAll = {ok: ok}; },
                     error => { window.__tgRunAll = {ok: false, error: String(error)}; });
               }""")
        self.page.wait_for_function("() => window.__tgRunAll !== undefined",
                                    timeout=RUN_ALL_TIMEOUT_MS)
        self.page.evaluate(
            f"""async () => {{
                 const kernel = {_PANEL}.sessionContext.session.kernel;
                 await kernel.requestExecute({{code: '', silent: true, store_history: false,
                                              stop_on_error: false}}).done;
               }}""")
        self.page.wait_for_function(  # every cell's prompt has left "[*]" (queued, running)
            f"""() => {{
                 const cells = {_PANEL}.content.model.cells;
                 for (let i = 0; i < cells.length; i++)
                   if (cells.get(i).type === 'code' && cells.get(i).executionState === 'running')
                     return false;
                 return {_PANEL}.sessionContext.session.kernel.status === 'idle';
               }}""", timeout=RUN_ALL_TIMEOUT_MS)
        return RunAll.of(self.model())

    def model(self) -> dict:
        """The notebook as JupyterLab holds it (nbformat JSON, with the new outputs)."""
        return self.page.evaluate(f"() => {_PANEL}.model.toJSON()")

    def code_cell(self, needle: str, last: bool = False) -> int:
        """The index of the first (or ``last``) code cell whose source contains ``needle``."""
        cells = self.model()["cells"]
        found = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and needle in
                 source(c)]
        assert found, f"{self.name} has no code cell with {needle!r} any more: update the test"
        return found[-1] if last else found[0]

    def cell(self, index: int):
        """A locator for cell ``index`` (0-based, markdown cells included), scrolled to."""
        self.page.evaluate(f"i => {_PANEL}.content.scrollToItem(i)", index)
        cell = self.page.locator(f'.jp-Notebook .jp-Cell[data-windowed-list-index="{index}"]')
        cell.wait_for(state="attached")
        cell.scroll_into_view_if_needed()
        return cell

    def set_theme(self, theme: str, light: bool) -> None:
        """Switch JupyterLab's theme ("JupyterLab Light", "JupyterLab Dark") and wait for it."""
        self.page.evaluate(
            "name => window.jupyterapp.commands.execute('apputils:change-theme', {theme: name})",
            theme)
        # Named on <body>, and its stylesheet applied: the notebook's background is light
        # (or dark) by then.
        self.page.wait_for_function(
            """([name, light]) => {
                 const body = document.body, notebook = document.querySelector('.jp-Notebook');
                 if (body.dataset.jpThemeName !== name || !notebook) return false;
                 const rgb = getComputedStyle(notebook).backgroundColor.match(/\\d+/g);
                 const bright = rgb.slice(0, 3).reduce((sum, c) => sum + Number(c), 0) > 384;
                 return body.dataset.jpThemeLight === String(light) && bright === light;
               }""",
            arg=[theme, light])


@dataclass
class Raised:
    """A cell that raised: its index (markdown cells counted), the error, its tags."""

    index: int
    error: str
    intended: bool  # tagged raises-exception: the lesson means it


@dataclass
class RunAll:
    """What Run All did: true when every code cell ran and none raised."""

    raised: list[Raised]
    not_run: list[int]  # indices of code cells with no execution count

    @classmethod
    def of(cls, notebook: dict) -> RunAll:
        """Read it from the notebook's model (nbformat JSON) after the run."""
        raised, not_run = [], []
        for index, cell in enumerate(notebook["cells"]):
            if cell["cell_type"] != "code":
                continue
            if cell["execution_count"] is None and source(cell).strip():
                not_run.append(index)
            for output in cell["outputs"]:
                if output["output_type"] == "error":
                    tags = cell["metadata"].get("tags", [])
                    raised.append(Raised(index, f"{output['ename']}: {output['evalue']}",
                                         RAISES_TAG in tags))
        return cls(raised, not_run)

    @property
    def unintended(self) -> list[Raised]:
        """The cells that raised without being tagged to."""
        return [r for r in self.raised if not r.intended]

    def __bool__(self) -> bool:
        return not self.raised and not self.not_run


def check_ran_once_in_order(notebook: dict, failing: int = 1) -> list[dict]:
    """Check a lesson's model after Run All: every code cell ran once, in order, and exactly
    the cells tagged raises-exception failed (``failing`` of them). The counts start
    wherever the kernel was (another test of the same JupyterLab may have run the lesson
    before). Returns the code cells."""
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    counts = [c["execution_count"] for c in cells]
    assert counts[0] is not None
    assert counts == list(range(counts[0], counts[0] + len(cells))), counts
    failed = [source(c)[:60] for c in cells
              if any(o["output_type"] == "error" for o in c["outputs"])]
    marked = [source(c)[:60] for c in cells if RAISES_TAG in c["metadata"].get("tags", [])]
    assert failed == marked and len(marked) == failing, (failed, marked)
    return cells


def plot_texts(image) -> str:
    """The SVG text of a plot shown as an ``<img>`` (a data URL), once it has loaded."""
    image.page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                                 arg=image.element_handle())
    src = image.get_attribute("src")
    return base64.b64decode(src.split(",", 1)[1]).decode()


def source(cell: dict) -> str:
    """A cell's source as one string (nbformat stores it as a string or a list)."""
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def teachgrad_notebook(cells: list) -> nbformat.NotebookNode:
    """A new notebook for the teachgrad kernel holding ``cells`` (nbformat cells)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "teachgrad", "display_name": "Python 3 (teachgrad)",
                                 "language": "python"}
    nb.cells = list(cells)
    return nb


@contextmanager
def opened(chromium, server, name: str, timeout_ms: int = 15_000,
           width: int = 1280) -> Iterator[LabNotebook]:
    """Open notebook ``name`` in a fresh window, laptop-sized by default (1280 x 900);
    close it after."""
    context = chromium.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(timeout_ms)
        yield LabNotebook(page, server, name).open()
    finally:
        context.close()


@contextmanager
def live_stepper(chromium, server, folder, name: str, code: str) -> Iterator[tuple]:
    """Write a one-cell notebook ``name`` running ``code`` (which shows a stepper) into
    ``folder``, open and run it; yield ``(notebook, view)``, ``view`` being the cell's live
    stepper output once its buttons show."""
    nbformat.write(teachgrad_notebook([nbformat.v4.new_code_cell(code)]), folder / name)
    with opened(chromium, server, name, timeout_ms=30_000) as notebook:
        assert notebook.run_all()
        cell = notebook.cell(0)
        view = cell.locator(".jp-OutputArea-child", has=cell.page.locator(".tg-live"))
        view.locator(".jupyter-button:visible").first.wait_for(state="visible")
        yield notebook, view
