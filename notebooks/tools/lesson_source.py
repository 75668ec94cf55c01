"""Read a lesson's readable source (``notebooks/tools/src/NN_name.md``) into notebook cells.

A lesson is written as Markdown with its code cells fenced, so that it reads (and diffs)
like a text, not like JSON::

    # 1. A first title

    Some prose. A line with only +++ starts a new Markdown cell.

    +++

    The next idea, in its own cell.

    ```python
    x = torch.tensor(1.0, requires_grad=True)   # a code cell
    ```

The rules, all of them:

* A fence line that is exactly ```` ```python ```` opens a code cell; a line that is exactly
  ```` ``` ```` closes it. Any other fence (```` ```text ````, ```` ```py ````...) is
  ordinary Markdown and stays in the Markdown cell.
* Words after ```` ```python ```` are cell roles (they become tags):
  ``exercise`` (the student's cell, pre-filled with a placeholder), ``check`` (the cell that
  checks the answer), ``solution`` (the reference answer: its code and output are
  collapsed in JupyterLab, so it does not give the game away before the student tried;
  JupyterLab still shows its first line, so make that a comment).
* Markdown between code cells is one cell, or several separated by ``+++`` lines.
* A first line ``# NBVAL_RAISES_EXCEPTION`` marks a code cell that is expected to raise (the
  build checks that it does, and that no other cell does); ``# NBVAL_IGNORE_OUTPUT`` one
  whose output the tests do not compare (a Graphviz drawing). In the notebook the line
  becomes a tag, ``raises-exception`` or ``nbval-ignore-output``, which nbval reads the
  same way: the learner does not meet test-runner jargon at the top of a cell, and
  JupyterLab's Run All goes on past a cell tagged ``raises-exception`` (it stops at the
  first error otherwise, and the rest of the lesson never runs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROLES = ("exercise", "check", "solution")
_OPEN = re.compile(r"^```python(?P<roles>(?: +[a-z-]+)*) *$")
_CLOSE = "```"
_SPLIT = "+++"
RAISES = "# NBVAL_RAISES_EXCEPTION"
IGNORE_OUTPUT = "# NBVAL_IGNORE_OUTPUT"
#: The tag with which JupyterLab (and nbclient) go on running the next cells after an error.
RAISES_TAG = "raises-exception"
IGNORE_OUTPUT_TAG = "nbval-ignore-output"
#: A marker line of the source -> the notebook tag that replaces it.
MARKER_TAGS = {RAISES: RAISES_TAG, IGNORE_OUTPUT: IGNORE_OUTPUT_TAG}


@dataclass
class SourceCell:
    """One cell as written in the source: its type, its text and its roles."""

    cell_type: str  # "markdown" or "code"
    source: str
    roles: list[str] = field(default_factory=list)

    @property
    def marker(self) -> str | None:
        """The ``# NBVAL_...`` marker on the first line of a code cell, if any."""
        first = self.source.split("\n", 1)[0].strip()
        return first if self.cell_type == "code" and first in MARKER_TAGS else None

    @property
    def code(self) -> str:
        """The text the notebook cell holds: the source without its marker line."""
        if self.marker is None:
            return self.source
        return self.source.split("\n", 1)[1] if "\n" in self.source else ""

    @property
    def tags(self) -> list[str]:
        """The notebook tags of this cell: its roles, then its marker's tag."""
        return list(self.roles) + ([MARKER_TAGS[self.marker]] if self.marker else [])


def parse(text: str, where: str = "<lesson>") -> list[SourceCell]:
    """Split a lesson source into cells (see the module docstring for the format)."""
    cells: list[SourceCell] = []
    markdown: list[str] = []

    def flush_markdown() -> None:
        body = "\n".join(markdown).strip("\n")
        if body.strip():
            cells.append(SourceCell("markdown", body))
        markdown.clear()

    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        opened = _OPEN.match(line)
        if opened:
            flush_markdown()
            roles = opened.group("roles").split()
            unknown = [r for r in roles if r not in ROLES]
            if unknown:
                raise ValueError(f"{where}:{i + 1}: unknown cell role(s) {unknown}; use {ROLES}")
            body: list[str] = []
            i += 1
            while i < len(lines) and lines[i] != _CLOSE:
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise ValueError(f"{where}:{i}: a ```python cell is never closed")
            cells.append(SourceCell("code", "\n".join(body).strip("\n"), roles))
        elif line.strip() == _SPLIT:
            flush_markdown()
        else:
            markdown.append(line)
        i += 1
    flush_markdown()
    return cells


def read(path: Path) -> list[SourceCell]:
    """The cells of the lesson source at ``path``."""
    return parse(path.read_text(encoding="utf-8"), where=str(path))


def prose(path: Path) -> str:
    """The lesson's source with its lines joined: sentences wrap across lines, so this is
    where a claims test looks for a sentence the lesson says."""
    return " ".join(Path(path).read_text(encoding="utf-8").split())


def code_containing(path: Path, snippet: str) -> str:
    """The code of the lesson's one code cell that contains ``snippet``."""
    (cell,) = [c for c in read(path) if c.cell_type == "code" and snippet in c.code]
    return cell.code


def run_cells_containing(path: Path, namespace: dict, *snippets: str) -> dict:
    """Run the code cells containing ``snippets``, in that order, in ``namespace`` (what
    they print is dropped); returns the namespace, for a claims test to read."""
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        for snippet in snippets:
            exec(code_containing(path, snippet), namespace)
    return namespace


def stored_stdout(notebook: Path) -> list[str]:
    """What each code cell of the built notebook printed to stdout, in order (the outputs
    a claims test compares with the same code run with PyTorch)."""
    import nbformat  # (here: reading a source needs nothing beyond the standard library)

    nb = nbformat.read(notebook, as_version=4)
    return ["".join(o.text for o in c.outputs
                    if o.output_type == "stream" and o.name == "stdout")
            for c in nb.cells if c.cell_type == "code"]


def code_cells(path: Path) -> list[SourceCell]:
    """The lesson's code cells, in order."""
    return [c for c in read(path) if c.cell_type == "code"]


def printed_by(cell: SourceCell, namespace: dict) -> str:
    """Run ``cell`` in ``namespace`` and return what it printed to stdout (a claims test
    compares it with what the built notebook stored)."""
    import contextlib
    import io

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(cell.code, namespace)
    return printed.getvalue()


def count_printing_as_stored(cells: list[SourceCell], stored: list[str],
                             namespace: dict) -> int:
    """Run every code cell after the first (the imports) in ``namespace`` and check each
    prints what the notebook stored (``stored``, one text per cell, as
    :func:`stored_stdout` gives). Returns how many of them printed something, so that a
    claims test can also check the comparison was not of empty outputs only."""
    assert len(stored) == len(cells)
    compared = 0
    for n, (cell, want) in enumerate(zip(cells[1:], stored[1:]), start=1):
        got = printed_by(cell, namespace)
        assert got == want, f"code cell {n} printed\n{got}\nnot\n{want}\n{cell.code}"
        compared += bool(want)
    return compared


def headless_namespace(lib) -> dict:
    """Globals for running a lesson's cells with ``lib`` (teachgrad or PyTorch) as torch
    and no display: the notebook's drawings do nothing, and ``step_backward`` only runs
    the backward pass it would show."""
    def step_backward(out, names=None):
        out.backward()

    def nothing(*args, **kwargs):
        return None

    return {"torch": lib, "draw": nothing, "inspect": nothing, "line_plot": nothing,
            "step_backward": step_backward}


class Lesson:
    """One lesson: its readable source and its built notebook, read and run the way a
    claims test does (so that each test file names its lesson once, not in twenty lines).

    ``Lesson("21_batch_norms_backward_pass", math=math)``: the extra keywords are globals
    the lesson's cells use besides ``torch``, ``F`` and the drawing functions.
    """

    #: the repository's notebooks/ folder (this file is notebooks/tools/lesson_source.py)
    NOTEBOOKS = Path(__file__).resolve().parent.parent

    def __init__(self, stem: str, **extra_globals) -> None:
        self.source = self.NOTEBOOKS / "tools" / "src" / f"{stem}.md"
        self.notebook = self.NOTEBOOKS / f"{stem}.ipynb"
        self.extra_globals = extra_globals

    def text(self) -> str:
        """The source's text with its lines joined (see :func:`prose`)."""
        return prose(self.source)

    def code_containing(self, snippet: str) -> str:
        """The code of the one code cell that contains ``snippet``."""
        return code_containing(self.source, snippet)

    def code_cells(self) -> list[SourceCell]:
        """The code cells, in order."""
        return code_cells(self.source)

    def cell_with_role(self, role: str) -> SourceCell:
        """The one cell with ``role`` (``"exercise"``, ``"check"`` or ``"solution"``)."""
        (cell,) = [c for c in read(self.source) if role in c.roles]
        return cell

    def stored_stdout(self) -> list[str]:
        """What each code cell of the built notebook printed (see :func:`stored_stdout`)."""
        return stored_stdout(self.notebook)

    def printed_by_cell(self, snippet: str) -> list[str]:
        """The lines the built notebook stored for the code cell containing ``snippet``."""
        (n,) = [n for n, c in enumerate(self.code_cells()) if snippet in c.code]
        return self.stored_stdout()[n].splitlines()

    def namespace(self, lib) -> dict:
        """Globals for running the cells with ``lib`` (teachgrad or PyTorch) as torch and
        no display (see :func:`headless_namespace`)."""
        return {**headless_namespace(lib), "F": lib.nn.functional, **self.extra_globals}

    def run_cells(self, lib, *snippets: str) -> dict:
        """The cells containing ``snippets`` run in order with ``lib``; their namespace."""
        return run_cells_containing(self.source, self.namespace(lib), *snippets)

    def stepper(self, call: str, namespace: dict | None = None) -> dict:
        """Run the one cell containing ``call`` (e.g. ``"step_backward(L, names="``) with
        teachgrad's real ``step_backward``, keeping the stepper it returns as
        ``namespace["stepper"]``; ``namespace`` defaults to :meth:`namespace` of teachgrad
        (pass one where earlier cells ran). Returns the namespace."""
        import contextlib
        import io

        import teachgrad
        from teachgrad.notebook import step_backward

        ns = self.namespace(teachgrad) if namespace is None else namespace
        ns["step_backward"] = step_backward
        code = self.code_containing(call)
        assert code.count(f"\n{call}") + code.startswith(call) == 1, code
        kept = ("\n" + code).replace(f"\n{call}", f"\nstepper = {call}")[1:]
        with contextlib.redirect_stdout(io.StringIO()):   # what the cell prints is not kept
            exec(kept, ns)
        return ns
