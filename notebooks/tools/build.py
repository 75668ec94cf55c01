"""Build the lesson notebooks from their readable sources, and run them so outputs are stored.

    python notebooks/tools/build.py                 # every lesson: build, execute, save
    python notebooks/tools/build.py 03 05           # only lessons whose name starts so
    python notebooks/tools/build.py --check         # are the .ipynb up to date with src/?

Each ``notebooks/tools/src/NN_name.md`` (format: :mod:`lesson_source`) becomes
``notebooks/NN_name.ipynb``, executed top to bottom by nbclient in a fresh ``teachgrad``
kernel (install it once: ``python -m teachgrad.notebook install-kernel --sys-prefix``),
and saved WITH its outputs, so that the lessons read well in any viewer before anyone runs
them, and so that ``pytest --nbval`` has something to compare against.

The build refuses to save a lesson when something is off:

* a cell raised and is not marked ``# NBVAL_RAISES_EXCEPTION``, or is marked and did not raise.

It also lists the cells whose output shows a memory address (``<... object at 0x7f...>``):
nbval replaces those before comparing (tests/nbval_sanitize.cfg), but a lesson reads
better without them, so avoid them where the code is ours (the seed lessons print some).

The notebook's metadata is what JupyterLab writes when the teachgrad kernel starts (the
kernel's ``language_info``, the interpreter's version included), so a lesson a learner just
opened does not show as modified; built with another Python, it would.

A rebuild of an unchanged lesson leaves its file byte for byte as it was, so that a lesson's
git diff shows only what really changed. Two things would otherwise differ at every run:

* the ids in drawn graphs and steppers end with a mark of the kernel (``tgs0k3fa9c1``),
  random in a live kernel so that two kernels' outputs on one page never share an id; the
  build gives each lesson's kernel the lesson's name as a seed (the environment variable
  ``TEACHGRAD_MARK_SEED``, see ``teachgrad.notebook.graph.kernel_mark``), so the mark is
  the same at every build and still differs from lesson to lesson;
* memory addresses (``<MulBackward0 object at 0x7f...>``) and the kernel's process id in
  the file name a warning shows (``/tmp/ipykernel_3526/1387208161.py``): when a cell's new
  output differs from the stored one only in those, the stored output is kept;
* how the kernel cut a cell's printed text into messages: consecutive pieces of one stream
  are stored as one output (as JupyterLab shows them).

What is kept out of the files, because it changes from run to run without meaning anything:
execution timings, the "Fontconfig warning" lines that Graphviz's font library prints on
some machines when it lays out the first graph, and the live widgets: their state lives in
the kernel that built the notebook, so a stored widget output can only ever show "Error
displaying widget: model not found". The stepper's static HTML output, stored next to it,
steps on its own; running the cell brings the live widget back.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lesson_source  # noqa: E402  (a sibling module, importable once the line above ran)

TOOLS = Path(__file__).resolve().parent
NOTEBOOKS = TOOLS.parent
SOURCES = TOOLS / "src"

KERNEL_NAME = "teachgrad"
KERNELSPEC = {"name": KERNEL_NAME, "display_name": "Python 3 (teachgrad)", "language": "python"}
TIMEOUT_S = 300

# The environment variable that teachgrad.notebook.graph reads in the kernel. Written out
# here because the build itself does not import teachgrad (the kernel runs the lessons);
# tests/test_notebook_build_is_stable.py checks that the two names agree.
MARK_SEED_VARIABLE = "TEACHGRAD_MARK_SEED"

WIDGET = "application/vnd.jupyter.widget-view+json"
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,16}\b")
# A warning names the cell's temporary file, in a folder named after the kernel's process id.
_CELL_FILE = re.compile(r"\S*ipykernel_\d+[/\\]\d+\.py")
_FONTCONFIG = re.compile(r"^Fontconfig (warning|error):.*\n?", re.M)


def lesson_sources(prefixes: list[str] | None = None) -> list[Path]:
    """The lesson sources, in course order, optionally only those named ``prefix...``."""
    paths = sorted(SOURCES.glob("[0-9][0-9]_*.md"))
    if prefixes:
        paths = [p for p in paths if any(p.name.startswith(x) for x in prefixes)]
    return paths


def notebook_path(source: Path) -> Path:
    """Where the notebook of a lesson source goes: ``notebooks/NN_name.ipynb``."""
    return NOTEBOOKS / f"{source.stem}.ipynb"


def to_notebook(cells: list[lesson_source.SourceCell]) -> nbformat.NotebookNode:
    """A fresh (unexecuted) notebook with the teachgrad kernelspec."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    for cell in cells:
        if cell.cell_type == "markdown":
            nb.cells.append(nbformat.v4.new_markdown_cell(cell.source))
            continue
        new = nbformat.v4.new_code_cell(cell.code)
        if cell.tags:
            new.metadata["tags"] = cell.tags
        if "solution" in cell.roles:
            # Collapsed code and output: JupyterLab shows only the first line (a comment
            # saying what the cell is) until the student clicks to open it.
            new.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
        nb.cells.append(new)
    # Stable cell ids (nbformat makes random ones): the files do not change on every build.
    for n, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{n:03d}"
    return nb


def execute(nb: nbformat.NotebookNode, where: Path) -> None:
    """Run every cell in a fresh teachgrad kernel, storing the outputs in ``nb``.

    The kernel's id mark is seeded with the lesson's name (``where.stem``): see the
    module's docstring.
    """
    # Errors do not stop the run: some cells raise on purpose, and problems() then checks
    # that exactly the cells marked NBVAL_RAISES_EXCEPTION did.
    client = NotebookClient(
        nb, kernel_name=KERNEL_NAME, timeout=TIMEOUT_S, record_timing=False,
        store_widget_state=False, allow_errors=True,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute(env={**os.environ, MARK_SEED_VARIABLE: where.stem})
    nb.metadata.pop("widgets", None)
    # The notebook's metadata as JupyterLab writes it once the teachgrad kernel answers, so
    # that a lesson just opened is not "modified": the kernelspec (name, display name,
    # language) and the kernel's whole language_info, which nbclient has stored from the
    # same kernel's reply (Python's version included: without it JupyterLab rewrites the
    # field, and the learner is asked to save a lesson they only opened).
    nb.metadata["kernelspec"] = dict(KERNELSPEC)


def tidy_outputs(nb: nbformat.NotebookNode) -> None:
    """Drop what changes between machines without meaning anything (see the docstring)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.outputs:
            if output.output_type == "stream" and output.name == "stderr":
                output.text = _FONTCONFIG.sub("", output.text)
                if not output.text:
                    continue
            if _only_a_widget(output):
                continue
            if (output.output_type == "stream" and kept and kept[-1].output_type == "stream"
                    and kept[-1].name == output.name):
                # One stream, however the kernel happened to cut it into messages (a
                # loop's prints came as 2 + 3 lines at one run, 4 + 1 at the next).
                kept[-1].text += output.text
                continue
            kept.append(output)
        cell.outputs = kept


def _only_a_widget(output) -> bool:
    """A display of a live widget and nothing a viewer could show instead."""
    data = output.get("data", {})
    return WIDGET in data and not any(v for k, v in data.items() if k != WIDGET)


def keep_stored_addresses(nb: nbformat.NotebookNode, stored: nbformat.NotebookNode) -> int:
    """Keep a cell's stored outputs where the new ones differ from them only in memory
    addresses, or in the kernel's process id in a warning's file name (both change at
    every run); returns how many cells kept theirs."""
    kept = 0
    for new, old in zip(nb.cells, stored.cells):
        if new.cell_type != "code" or old.cell_type != "code" or new.source != old.source:
            continue
        if new.outputs != old.outputs and _without_addresses(new) == _without_addresses(old):
            new.outputs = old.outputs
            kept += 1
    return kept


def _without_addresses(cell) -> str:
    text = json.dumps(cell.outputs, sort_keys=True)
    return _CELL_FILE.sub("CELL.py", _ADDRESS.sub("0xADDRESS", text))


def problems(nb: nbformat.NotebookNode) -> list[str]:
    """What is wrong with an executed lesson (an empty list when it is fine)."""
    found = []
    for n, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        raised = any(o.output_type == "error" for o in cell.outputs)
        expected = lesson_source.RAISES_TAG in cell.metadata.get("tags", [])
        if raised and not expected:
            error = next(o for o in cell.outputs if o.output_type == "error")
            found.append(f"cell {n} raised {error.ename}: {error.evalue}")
        if expected and not raised:
            found.append(f"cell {n} is marked to raise (NBVAL_RAISES_EXCEPTION) but did not")
    return found


def cells_with_addresses(nb: nbformat.NotebookNode) -> list[int]:
    """Code cells (other than NBVAL_IGNORE_OUTPUT ones) whose output shows an address."""
    found = []
    for n, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if lesson_source.IGNORE_OUTPUT_TAG not in cell.metadata.get("tags", []):
            text = json.dumps(cell.outputs)
            if _ADDRESS.search(text):
                found.append(n)
    return found


def build(source: Path, run: bool = True) -> Path:
    """Build (and by default execute) one lesson; returns the notebook's path."""
    nb = to_notebook(lesson_source.read(source))
    target = notebook_path(source)
    if run:
        execute(nb, target)
        tidy_outputs(nb)
        trouble = problems(nb)
        if trouble:
            raise SystemExit(f"{source.name}: not saved:\n  " + "\n  ".join(trouble))
        addresses = cells_with_addresses(nb)
        if addresses:
            print(f"  note: memory addresses in the output of cells {addresses}")
        if target.exists():
            keep_stored_addresses(nb, nbformat.read(target, as_version=4))
    nbformat.validate(nb)
    nbformat.write(nb, target)
    return target


def out_of_date(source: Path) -> list[str]:
    """Differences between a lesson source and its stored notebook (cells, not outputs)."""
    target = notebook_path(source)
    if not target.exists():
        return [f"{target.name} is missing"]
    want = to_notebook(lesson_source.read(source)).cells
    have = nbformat.read(target, as_version=4).cells
    if len(want) != len(have):
        return [f"{target.name}: {len(have)} cells, the source has {len(want)}"]
    diffs = []
    for n, (w, h) in enumerate(zip(want, have)):
        if (w.cell_type, w.source, w.metadata.get("tags")) != (
            h.cell_type, h.source, h.metadata.get("tags")
        ):
            diffs.append(f"{target.name}: cell {n} differs from the source")
    return diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson name prefixes, e.g. 03 or 03_")
    parser.add_argument("--check", action="store_true",
                        help="only report notebooks that differ from their source")
    parser.add_argument("--no-execute", action="store_true",
                        help="write the notebooks without running them (no outputs)")
    args = parser.parse_args(argv)
    sources = lesson_sources(args.lessons)
    if not sources:
        parser.error(f"no lesson source matches {args.lessons} in {SOURCES}")
    if args.check:
        diffs = [d for s in sources for d in out_of_date(s)]
        print("\n".join(diffs) or f"{len(sources)} notebooks match their sources")
        return 1 if diffs else 0
    for source in sources:
        print(f"building {source.stem} ...", flush=True)
        build(source, run=not args.no_execute)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
