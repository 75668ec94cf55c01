"""The lesson notebooks as a course: what ``pytest --nbval`` cannot see.

nbval re-runs each notebook and compares outputs. These tests check the rest:

* every seed lesson (../shared/seeds) has its notebook, and the seed's code cells are in it,
  in order, unchanged in substance (``import torch`` became ``import teachgrad as torch``;
  blank lines, trailing spaces and the ``# NBVAL_...`` marker lines do not count);
* every notebook uses the teachgrad kernelspec and is stored executed, with outputs (but no
  live-widget outputs, which cannot show without the kernel that made them);
* the tag ``nbval-ignore-output`` (``# NBVAL_IGNORE_OUTPUT`` in the source) is only on the
  cells whose output is a Graphviz drawing or a widget (``draw``/``step_backward``), and
  every such cell has it;
* only cells tagged ``raises-exception`` (``# NBVAL_RAISES_EXCEPTION`` in the source) show
  an error, and they do; no code cell shows an ``NBVAL`` comment to the learner;
* random numbers are seeded;
* each lesson ends with an exercise: a placeholder cell, a checking cell and a collapsed
  solution, whose stored outputs say "not answered yet" and "correct";
* the notebooks match their readable sources (notebooks/tools/src) and the index
  (notebooks/README.md) lists them all, in order.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
import seed_lessons

nbformat = pytest.importorskip("nbformat")

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
IDS = [p.stem for p in PATHS]

# Seed lesson (file name prefix) -> its notebook.
SEED_NOTEBOOKS = {
    "000": "00_what_a_tensor_remembers.ipynb",
    "001": "01_the_computation_graph.ipynb",
    "002": "02_requires_grad_grad_and_grad_fn.ipynb",
    "003": "03_backward_zero_grad_and_a_first_model.ipynb",
    "004": "04_autograd_in_one_page.ipynb",
}

# The tags nbval reads (the lesson sources write them as "# NBVAL_..." first lines).
IGNORE = "nbval-ignore-output"
RAISES = "raises-exception"  # also makes JupyterLab's Run All go on past the cell
WIDGET = "application/vnd.jupyter.widget-view+json"
GRAPH_CALL = re.compile(r"\b(draw|step_backward)\(")
RANDOM_CALL = re.compile(r"\b(randn|rand|randint|randperm|normal_|uniform_|dropout)\(")

needs_seeds = pytest.mark.skipif(
    not seed_lessons.SEEDS.is_dir(),
    reason=f"the seed lessons are not there: {seed_lessons.SEEDS}",
)


def read(path: Path):
    return nbformat.read(path, as_version=4)


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def substance(code: str) -> str:
    """Code as compared with the seed: no NBVAL marker lines, no trailing spaces, no blank
    lines (``seed_lessons.for_teachgrad`` drops the one after ``import torch``)."""
    lines = [line.rstrip() for line in code.split("\n") if not line.startswith("# NBVAL_")]
    return "\n".join(line for line in lines if line)


def tags(cell) -> list[str]:
    return cell.metadata.get("tags", [])


def stored_text(cell) -> str:
    """All the text a cell's stored outputs show (streams, plain text, error values)."""
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}")
        else:
            parts.append(output.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def test_there_are_lessons():
    assert len(PATHS) >= 13, PATHS


# --- the seed lessons --------------------------------------------------------------------
@needs_seeds
def test_every_seed_lesson_has_its_notebook():
    prefixes = [p.name[:3] for p in seed_lessons.lesson_files()]
    assert prefixes == sorted(SEED_NOTEBOOKS), "a seed lesson was added or removed"
    for notebook in SEED_NOTEBOOKS.values():
        assert (NOTEBOOKS / notebook).exists(), notebook


@needs_seeds
@pytest.mark.parametrize("seed", sorted(SEED_NOTEBOOKS))
def test_seed_code_cells_are_there_in_order_and_unchanged(seed):
    (seed_path,) = [p for p in seed_lessons.lesson_files() if p.name.startswith(seed)]
    wanted = [
        substance(seed_lessons.for_teachgrad(c.code))
        for c in seed_lessons.code_cells(seed_path.read_text())
    ]
    have = [substance(c.source) for c in code_cells(read(NOTEBOOKS / SEED_NOTEBOOKS[seed]))]
    position = 0
    for n, code in enumerate(wanted):
        try:
            position = have.index(code, position) + 1
        except ValueError:
            pytest.fail(f"seed {seed} cell {n} is missing, changed or out of order:\n{code}")


@needs_seeds
def test_seed_004_second_backward_is_kept_and_raises():
    nb = read(NOTEBOOKS / SEED_NOTEBOOKS["004"])
    raising = [c for c in code_cells(nb) if RAISES in tags(c)]
    assert [substance(c.source) for c in raising] == ["out.backward()"]
    (error,) = [o for o in raising[0].outputs if o.output_type == "error"]
    assert error.ename == "RuntimeError"
    assert error.evalue.startswith("Trying to backward through the graph a second time")


# --- every notebook ----------------------------------------------------------------------
@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_teachgrad_kernelspec(path):
    spec = read(path).metadata["kernelspec"]
    assert spec["name"] == "teachgrad"
    assert spec["display_name"] == "Python 3 (teachgrad)"
    assert spec["language"] == "python"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_language_info_is_the_kernels_whole_reply(path):
    """JupyterLab writes the kernel's language_info into the notebook when the kernel
    starts: a lesson storing less shows as modified as soon as it is opened."""
    ipkernel = pytest.importorskip("ipykernel.ipkernel")
    stored = read(path).metadata["language_info"]
    reported = ipkernel.IPythonKernel.language_info
    assert sorted(stored) == sorted(reported)
    assert {k: v for k, v in stored.items() if k != "version"} == {
        k: v for k, v in reported.items() if k != "version"}


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_stored_executed_in_order_with_outputs(path):
    cells = code_cells(read(path))
    counts = [c.execution_count for c in cells]
    assert counts == list(range(1, len(cells) + 1)), "not executed top to bottom in one run"
    with_output = [c for c in cells if c.outputs]
    assert len(with_output) >= len(cells) / 2, "most cells have no stored output"
    for cell in cells:
        for output in cell.outputs:  # its state is gone with the kernel: it cannot show
            assert WIDGET not in output.get("data", {}), "a stored live-widget output"
    for cell in cells:  # a cell that ends by showing something must have shown it
        last = cell.source.rstrip().split("\n")[-1]
        if last.startswith(("print(", "inspect(", "draw(", "step_backward(", "check(")):
            assert cell.outputs, f"no stored output for:\n{cell.source}"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_ignore_output_marks_exactly_the_graphviz_cells(path):
    for cell in code_cells(read(path)):
        marked = IGNORE in tags(cell)
        draws = bool(GRAPH_CALL.search(cell.source))
        assert marked == draws, f"{IGNORE} {'on' if marked else 'missing on'}:\n{cell.source}"
        if marked:
            for output in cell.outputs:
                assert output.output_type in ("display_data", "execute_result"), output
                plain = output.data.get("text/plain", "")
                is_graph = plain.startswith(("<teachgrad graph", "<teachgrad backward stepper"))
                assert is_graph or WIDGET in output.data, plain[:80]


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_errors_only_where_marked(path):
    for cell in code_cells(read(path)):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if RAISES in tags(cell):
            assert errors, f"marked as raising, but did not:\n{cell.source}"
        else:
            assert not errors, f"unexpected error {errors[0].ename} in:\n{cell.source}"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_no_test_runner_comments_in_what_the_learner_reads(path):
    # They are tags: "# NBVAL_IGNORE_OUTPUT" topped every drawing cell, jargon to a learner.
    for cell in code_cells(read(path)):
        assert "NBVAL" not in cell.source, cell.source


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_random_numbers_are_seeded(path):
    previous = ""
    for cell in code_cells(read(path)):
        match = RANDOM_CALL.search(cell.source)
        if match:
            seeded_here = "manual_seed(" in cell.source[: match.start()]
            assert seeded_here or "manual_seed(" in previous, (
                f"random numbers without torch.manual_seed just before:\n{cell.source}"
            )
        previous = cell.source


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_ends_with_a_checked_exercise(path):
    cells = code_cells(read(path))
    roles = [next((t for t in tags(c) if t in ("exercise", "check", "solution")), None)
             for c in cells]
    assert "exercise" in roles, "no exercise"
    start = roles.index("exercise")
    assert roles[start:] == ["exercise", "check", "solution"], roles[start:]
    exercise, checking, solution = cells[start:]
    assert "..." in exercise.source or "NotImplementedError" in exercise.source, (
        "the exercise cell must hold a placeholder for the student"
    )
    assert not exercise.outputs
    assert "check(" in checking.source
    assert "Not answered yet" in stored_text(checking)
    hidden = solution.metadata.get("jupyter", {})
    assert hidden.get("source_hidden") is True and hidden.get("outputs_hidden") is True
    # A collapsed cell still shows its first line in JupyterLab: it must not be the answer.
    assert solution.source.startswith("# Solution")
    assert "check(" in solution.source
    assert "✔ Correct!" in stored_text(solution)


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_what_to_try(path):
    markdown = "\n".join(c.source for c in read(path).cells if c.cell_type == "markdown")
    assert "**What to try:**" in markdown


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_no_external_images(path):
    for cell in read(path).cells:
        if cell.cell_type == "markdown":
            assert not re.search(r"!\[[^\]]*\]\(|<img\b", cell.source), cell.source[:80]


# --- sources and index -------------------------------------------------------------------
def load_build_tool():
    spec = importlib.util.spec_from_file_location("build", NOTEBOOKS / "tools" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_source_has_its_notebook_and_matches_it():
    pytest.importorskip("nbclient")
    build = load_build_tool()
    sources = build.lesson_sources()
    assert [build.notebook_path(s) for s in sources] == PATHS
    assert [d for s in sources for d in build.out_of_date(s)] == []


def test_the_index_lists_every_lesson_in_order():
    index = (NOTEBOOKS / "README.md").read_text(encoding="utf-8")
    linked = re.findall(r"\]\(([0-9][0-9]_[^)]+\.ipynb)\)", index)
    assert linked == [p.name for p in PATHS]


def test_the_project_readme_lists_every_lesson_in_order_with_the_index_titles():
    readme = (NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8")
    index = (NOTEBOOKS / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^(\d+)\. \[(.+?)\]\(notebooks/([0-9][0-9]_[^)]+\.ipynb)\)$",
                        readme, re.M)
    assert [path for _, _, path in listed] == [p.name for p in PATHS]
    assert [int(n) for n, _, _ in listed] == list(range(len(PATHS)))
    titles = dict(re.findall(r"\[(.+?)\]\(([0-9][0-9]_[^)]+\.ipynb)\)", index))
    assert {path: title for _, title, path in listed} == {v: k for k, v in titles.items()}
