"""Read the seed lessons and run their code cells like a notebook would.

Shared by tests/test_seeds.py (runs the cells with teachgrad) and
tests/fixtures/make_seed_outputs.py (runs the same cells with real PyTorch to record
what they must print), so both sides extract and run the cells the same way.

The lessons (``../shared/seeds/*.txt`` beside the repository) are notebooks saved as
text: a line ``In [N]:`` starts a code cell, followed by the code, then (after a blank
line) the cell's old output and the next markdown text. Where a cell's code ends is
decided by this rule:

    the code runs from the line after ``In [N]:`` up to the first blank line after which
    the text does NOT continue as code; it continues as code when the next non-blank
    line is indented, is a Python comment (``#`` followed by a space or nothing;
    markdown headings in these lessons are ``##`` and more), or starts with a Python
    statement keyword (``with``, ``for``, ``if``, ``import``, ``print`` ...).

Outputs are never indented and never start with those keywords in these lessons, and
the tests check that every extracted cell compiles.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO.parent / "shared" / "seeds"

_PROMPT = re.compile(r"In \[[^\]]*\]:")
_CONTINUES_CODE = re.compile(
    r"[ \t]|#( |$)|(with|for|while|if|elif|else|try|except|finally|def|class|import|from"
    r"|print|return|raise|assert|del)\b"
)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_CPP_SOURCE = re.compile(r" \(Triggered internally at [^)]*\.\)")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?")


@dataclass
class Cell:
    label: str  # "In [3]:"
    code: str


@dataclass
class CellResult:
    output: list[str] = field(default_factory=list)  # stdout lines, then the displayed value
    error: str | None = None  # "RuntimeError: <message>" if the cell raised
    warnings: list[str] = field(default_factory=list)  # "UserWarning: <message>"


def lesson_files() -> list[Path]:
    """The seed lessons, in order."""
    return sorted(SEEDS.glob("*.txt"))


def code_cells(text: str) -> list[Cell]:
    """The code cells of a lesson saved as text (see the module docstring for the rule)."""
    lines = text.split("\n")
    cells = []
    i = 0
    while i < len(lines):
        if not _PROMPT.fullmatch(lines[i]):
            i += 1
            continue
        label, code, j = lines[i], [], i + 1
        while j < len(lines) and not _PROMPT.fullmatch(lines[j]):
            if lines[j].strip():
                code.append(lines[j])
                j += 1
                continue
            k = j  # a blank run: does the code go on after it?
            while k < len(lines) and not lines[k].strip():
                k += 1
            if k == len(lines) or not _CONTINUES_CODE.match(lines[k]):
                break
            code.extend(lines[j:k])
            j = k
        cells.append(Cell(label, "\n".join(code).rstrip()))
        i = j
    return cells


def for_teachgrad(code: str) -> str:
    """The cell as a teachgrad user runs it: ``import teachgrad as torch`` for ``import torch``."""
    return re.sub(r"^(\s*)import torch\s*$", r"\1import teachgrad as torch", code, flags=re.M)


def run_cell(code: str, namespace: dict) -> CellResult:
    """Run one cell like Jupyter: capture stdout, show the value of a final expression.

    An exception ends the cell (recorded, not raised), and the lesson goes on with the
    next cell, as when a student runs a notebook cell by cell.
    """
    result = CellResult()
    tree = ast.parse(code)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(compile(tree, "<cell>", "exec"), namespace)
            if last is not None:
                value = eval(compile(last, "<cell>", "eval"), namespace)
                if value is not None:
                    print(repr(value))
        except Exception as error:  # noqa: BLE001 - the lesson's own errors are data here
            result.error = f"{type(error).__name__}: {error}"
    result.output = stdout.getvalue().splitlines()
    result.warnings = [f"{w.category.__name__}: {w.message}" for w in caught]
    return result


def run_lesson(cells: list[Cell], *, teachgrad: bool) -> list[CellResult]:
    """Run a lesson's cells in order, in one namespace."""
    namespace: dict = {"__name__": "__main__"}
    return [
        run_cell(for_teachgrad(c.code) if teachgrad else c.code, namespace) for c in cells
    ]


def sanitize(text: str) -> str:
    """Remove what differs between runs and machines, not between libraries.

    Memory addresses (``0x7f3a...`` becomes ``0x…``) and the location in PyTorch's C++
    sources that some PyTorch warnings end with (`` (Triggered internally at ...)``).
    """
    return _ADDRESS.sub("0x…", _CPP_SOURCE.sub("", text))


def mask_numbers(line: str) -> str:
    """A line with its numbers replaced by ``#`` and spaces removed (padding depends on them)."""
    return re.sub(r"\s+", "", _NUMBER.sub("#", line))
