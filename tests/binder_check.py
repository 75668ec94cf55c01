#!/usr/bin/env python3
"""Build what Binder builds, from the Binder files alone, and run a lesson in it.

    python tests/binder_check.py [lesson.ipynb]

mybinder.org (repo2docker) installs ``binder/requirements.txt`` into a fresh Python and
runs ``binder/postBuild``. This script does the same in a temporary virtual environment
(it needs the package index, so it is run by .ci/run rather than by pytest), then executes
a lesson with the ``teachgrad`` kernel that postBuild registered, and fails on any error
output other than the cells a lesson tags ``raises-exception`` (``# NBVAL_RAISES_EXCEPTION``
in its source).
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
if bad:
    sys.exit("errors while running the lesson:\n" + "\n".join(bad))
print(f"ran {sum(c.cell_type == 'code' for c in nb.cells)} code cells without errors")
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
        print(f"[binder-check] running {lesson.name} with the teachgrad kernel", flush=True)
        run(python, "-c", RUN_LESSON, lesson, lesson.parent)
    print("[binder-check] ok", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
