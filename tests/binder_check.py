#!/usr/bin/env python3
"""Build what Binder builds, from the Binder files alone, and run a lesson in it.

    python tests/binder_check.py [lesson.ipynb]

mybinder.org (repo2docker) installs ``binder/requirements.txt`` into a fresh Python and
runs ``binder/postBuild``. This script does the same in a temporary virtual environment
(it needs the package index, so it is run by .ci/run rather than by pytest), then executes
a lesson with the ``teachgrad`` kernel that postBuild registered, and fails on any error
output other than the cells a lesson tags ``raises-exception`` (``# NBVAL_RAISES_EXCEPTION``
in its source), or when a lesson that draws graphs shows none. It also checks what a Binder
user needs beyond the kernel: JupyterLab's settings from ``binder/overrides.json``, and
pygraphviz laying out a graph by itself (mybinder.org's image has no system Graphviz).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LESSON = ROOT / "notebooks" / "01_the_computation_graph.ipynb"

RUN_LESSON = r"""
import sys, nbformat, nbclient
nb = nbformat.read(sys.argv[1], as_version=4)
assert nb.metadata.kernelspec.name == "teachgrad", nb.metadata.kernelspec
client = nbclient.NotebookClient(nb, kernel_name="teachgrad", timeout=300, allow_errors=True)
client.execute(cwd=sys.argv[2])
bad = []
for i, cell in enumerate(nb.cells):
    if cell.cell_type != "code" or "raises-exception" in cell.metadata.get("tags", []):
        continue
    for out in cell.get("outputs", []):
        if out.output_type == "error":
            bad.append(f"cell {i}: {out.ename}: {out.evalue}")
drawings = sum("image/svg+xml" in out.get("data", {})
               for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs)
if not drawings and any("draw(" in cell.source for cell in nb.cells):
    bad.append("no graph was drawn (no image/svg+xml output): is Graphviz missing?")
if bad:
    sys.exit("errors while running the lesson:\n" + "\n".join(bad))
print(f"ran {sum(c.cell_type == 'code' for c in nb.cells)} code cells without errors, "
      f"{drawings} graphs drawn")
"""

#: Binder machines have no system Graphviz: the pygraphviz wheel must lay graphs out alone
#: (here a system ``dot`` could otherwise stand in for it unnoticed).
LAYOUT_WITH_PYGRAPHVIZ = (
    "import pygraphviz; "
    "svg = pygraphviz.AGraph(string='digraph { a -> b }').draw(format='svg', prog='dot'); "
    "assert b'<svg' in svg; print('pygraphviz lays out graphs with its own Graphviz')"
)

#: What postBuild gives JupyterLab (see binder/overrides.json).
LAB_SETTINGS = r"""
import json, sys
from pathlib import Path
path = Path(sys.prefix, "share", "jupyter", "lab", "settings", "overrides.json")
viewers = json.loads(path.read_text())["@jupyterlab/docmanager-extension:plugin"]
assert viewers["defaultViewers"]["markdown"] == "Markdown Preview", viewers
print(f"JupyterLab settings in {path}")
"""


def main() -> int:
    lesson = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_LESSON
    with tempfile.TemporaryDirectory(prefix="teachgrad-binder-") as tmp:
        env_dir = Path(tmp) / "env"
        print(f"[binder-check] fresh environment in {env_dir}", flush=True)
        venv.EnvBuilder(with_pip=True).create(env_dir)
        bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
        python = bin_dir / "python"
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
               "VIRTUAL_ENV": str(env_dir)}
        env.pop("PYTHONPATH", None)
        env["JUPYTER_DATA_DIR"] = str(Path(tmp) / "jupyter-data")  # nothing from the user
        env["JUPYTER_CONFIG_DIR"] = str(Path(tmp) / "jupyter-config")

        def run(*args) -> None:
            subprocess.run([str(a) for a in args], check=True, cwd=ROOT, env=env)

        print("[binder-check] pip install -r binder/requirements.txt", flush=True)
        run(python, "-m", "pip", "install", "--quiet", "-r", ROOT / "binder" / "requirements.txt")
        print("[binder-check] binder/postBuild", flush=True)
        run("bash", ROOT / "binder" / "postBuild")
        run(python, "-c", LAB_SETTINGS)
        run(python, "-c", LAYOUT_WITH_PYGRAPHVIZ)
        print(f"[binder-check] running {lesson.name} with the teachgrad kernel", flush=True)
        run(python, "-c", RUN_LESSON, lesson, lesson.parent)
    print("[binder-check] ok", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
