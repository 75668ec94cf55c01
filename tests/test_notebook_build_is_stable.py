"""Rebuilding a lesson that did not change leaves its file as it was.

``notebooks/tools/build.py`` runs each lesson and stores its outputs. Two things in those
outputs used to change at every run, so every rebuild rewrote every lesson and git diffs
of the lessons were noise:

* the kernel's random mark at the end of every id (``tgs0k3fa9c1``, see
  tests/test_notebook_unique_ids.py): the build now seeds it with the lesson's name
  (``TEACHGRAD_MARK_SEED``), while a live kernel, with no seed, stays random;
* memory addresses that the seed lessons print: the build keeps a cell's stored output when
  the new one differs from it only in addresses.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from teachgrad.notebook import graph

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "notebooks" / "tools" / "build.py"

nbformat = pytest.importorskip("nbformat")


def load_build_tool():
    spec = importlib.util.spec_from_file_location("build", BUILD)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mark_of_a_new_kernel(seed: str | None) -> str:
    """KERNEL_MARK as a fresh interpreter (a new kernel) computes it."""
    env = {k: v for k, v in os.environ.items() if k != graph.MARK_SEED_VARIABLE}
    if seed is not None:
        env[graph.MARK_SEED_VARIABLE] = seed
    done = subprocess.run(
        [sys.executable, "-c", "from teachgrad.notebook.graph import KERNEL_MARK as m; print(m)"],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=120, check=True)
    return done.stdout.strip()


def test_a_seeded_mark_is_the_same_every_time_and_differs_between_seeds():
    one = graph.kernel_mark("03_backward_zero_grad_and_a_first_model")
    assert re.fullmatch(r"k[0-9a-f]{6}", one)
    assert one == graph.kernel_mark("03_backward_zero_grad_and_a_first_model")
    assert one != graph.kernel_mark("04_autograd_in_one_page")


def test_without_a_seed_the_mark_is_random():
    marks = {graph.kernel_mark() for _ in range(20)} | {graph.kernel_mark("") for _ in range(20)}
    assert len(marks) == 40
    assert all(re.fullmatch(r"k[0-9a-f]{6}", m) for m in marks)


def test_new_kernels_take_the_seed_from_the_environment():
    seeded = [mark_of_a_new_kernel("05_lesson") for _ in range(2)]
    assert seeded == [graph.kernel_mark("05_lesson")] * 2
    live = [mark_of_a_new_kernel(None) for _ in range(2)]
    assert live[0] != live[1]


def test_the_build_sets_the_variable_the_notebook_layer_reads():
    assert load_build_tool().MARK_SEED_VARIABLE == graph.MARK_SEED_VARIABLE


def _cell(source: str, text: str):
    cell = nbformat.v4.new_code_cell(source)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    return cell


def test_stored_outputs_are_kept_when_only_addresses_differ():
    build = load_build_tool()
    stored = nbformat.v4.new_notebook(cells=[
        _cell("print(y.grad_fn)", "<MulBackward0 object at 0x7f70afcd5af0>\n"),
        _cell("print(z.grad_fn, 1)", "<AddBackward0 object at 0x7f70afcd5b00> 1\n"),
        _cell("print(w)", "<object at 0x7f70afcd5c00>\n"),
    ])
    new = nbformat.v4.new_notebook(cells=[
        _cell("print(y.grad_fn)", "<MulBackward0 object at 0x7f0550197470>\n"),
        # a real change besides the address: the new output stays
        _cell("print(z.grad_fn, 1)", "<AddBackward0 object at 0x7f0550197480> 2\n"),
        # the code changed: the new output stays
        _cell("print(w, 0)", "<object at 0x7f0550197490>\n"),
    ])
    assert build.keep_stored_addresses(new, stored) == 1
    assert [c.outputs[0].text for c in new.cells] == [
        "<MulBackward0 object at 0x7f70afcd5af0>\n",
        "<AddBackward0 object at 0x7f0550197480> 2\n",
        "<object at 0x7f0550197490>\n",
    ]


def test_a_warnings_cell_file_names_the_kernels_process_id_and_does_not_count():
    build = load_build_tool()
    warned = "/tmp/ipykernel_{}/1387208161.py:11: UserWarning: The .grad attribute...\n"
    stored = nbformat.v4.new_notebook(cells=[_cell("z.grad", warned.format(3526))])
    new = nbformat.v4.new_notebook(cells=[_cell("z.grad", warned.format(6174))])
    assert build.keep_stored_addresses(new, stored) == 1
    assert new.cells[0].outputs[0].text == warned.format(3526)


def test_one_stream_is_stored_as_one_output_however_it_was_cut():
    build = load_build_tool()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("loop()")])
    pieces = ["step 0\n", "step 50\nstep 100\n", "step 150"]
    nb.cells[0].outputs = (
        [nbformat.v4.new_output("stream", name="stdout", text=t) for t in pieces]
        + [nbformat.v4.new_output("stream", name="stderr", text="warning\n"),
           nbformat.v4.new_output("stream", name="stdout", text="\n")])
    build.tidy_outputs(nb)
    assert [(o.name, o.text) for o in nb.cells[0].outputs] == [
        ("stdout", "step 0\nstep 50\nstep 100\nstep 150"), ("stderr", "warning\n"),
        ("stdout", "\n")]


LESSON = """
import teachgrad as torch
from teachgrad.notebook import step_backward
x = torch.tensor([1.0, 2.0], requires_grad=True)
out = (x * 3).sum()
print(out.grad_fn)
step_backward(out, names={"x": x, "out": out})
"""


def test_executing_a_lesson_twice_stores_the_same_outputs(tmp_path, monkeypatch):
    """What build.py does to a lesson, twice, in two fresh teachgrad kernels."""
    # The kernel starts in notebooks/: it finds this teachgrad through an absolute path
    # (the tests are often run with PYTHONPATH=.).
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(REPO)] + [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(
            os.pathsep) if p]))
    pytest.importorskip("nbclient")
    build = load_build_tool()
    try:
        from jupyter_client.kernelspec import KernelSpecManager
        KernelSpecManager().get_kernel_spec(build.KERNEL_NAME)
    except Exception:  # noqa: BLE001 (any failure to find it means: not installed here)
        pytest.skip("the teachgrad kernel is not installed")
    where = tmp_path / "99_two_builds.ipynb"
    runs = []
    for _ in range(2):
        nb = build.to_notebook([])
        nb.cells.append(nbformat.v4.new_code_cell(LESSON, id="cell-000"))
        build.execute(nb, where)
        build.tidy_outputs(nb)
        if runs:
            build.keep_stored_addresses(nb, runs[-1])
        runs.append(nb)
    first, second = (nbformat.writes(nb) for nb in runs)
    mark = graph.kernel_mark(where.stem)
    assert f"tgs0{mark}" in first, "the stepper's ids carry the lesson's mark"
    assert " object at 0x" in first
    assert first == second
