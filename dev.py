#!/usr/bin/env python3
"""One command for each job, all set-up included (standard library only).

    python dev.py lessons     set up, then open the lessons in JupyterLab
                              (extra arguments go to `jupyter lab`, e.g. --no-browser)
    python dev.py test        set up, then run the whole test suite
                              (extra arguments go to pytest, e.g. -x or -k stepper;
                              start with a path to run only that: test tests/test_engine.py)
    python dev.py bench       set up, then run the benchmarks
    python dev.py setup       set up only

Set-up means: a virtual environment in ``.venv`` (made once), teachgrad installed into it
in editable mode with its notebook and test extras, and the "Python 3 (teachgrad)" Jupyter
kernel registered inside that environment, with JupyterLab's settings for the course
(``binder/overrides.json``, as on Binder) and the lessons' trust signatures also kept there:
nothing is written to your user settings.
Re-running is cheap: it only installs again when ``pyproject.toml`` changed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".teachgrad-installed"
#: Jupyter data (kernels, JupyterLab settings, notebook trust) inside the environment.
JUPYTER_DATA = VENV / "share" / "jupyter"
#: JupyterLab defaults for the course, shared with Binder (its postBuild installs the same file):
#: Markdown files open rendered, so the lessons' index has working links, and no prompt
#: about fetching Jupyter news from the internet covers the first lesson.
LAB_OVERRIDES = ROOT / "binder" / "overrides.json"


def say(message: str) -> None:
    print(f"[teachgrad] {message}", flush=True)


def run(*args: str | Path, **kwargs) -> None:
    subprocess.run([str(a) for a in args], check=True, cwd=ROOT, **kwargs)


def setup() -> None:
    """Create .venv, install teachgrad (+ extras) and register the teachgrad kernel in it."""
    if not PYTHON.exists():
        say(f"creating a virtual environment in {VENV.name}/")
        try:
            venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        except subprocess.CalledProcessError:  # ensurepip missing (Debian's python3-venv)
            shutil.rmtree(VENV, ignore_errors=True)  # a .venv without pip would stay broken
            raise SystemExit("[teachgrad] this Python cannot make a virtual environment with "
                             "pip in it; on Debian/Ubuntu install it with "
                             "`sudo apt install python3-venv`, then run this again") from None
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text() != wanted:
        say("installing teachgrad with its notebook and test extras (first run takes a minute)")
        # -qq: errors only. With one -q, an editable install still prints setuptools'
        # multi-line "Editable installation" notice, which reads like a problem.
        run(PYTHON, "-m", "pip", "install", "-qq", "--upgrade", "pip")
        run(PYTHON, "-m", "pip", "install", "-qq", "-e", ".[notebook,test]")
        STAMP.write_text(wanted)
    run(PYTHON, "-m", "teachgrad.notebook", "install-kernel", "--sys-prefix",
        stdout=subprocess.DEVNULL)
    settings = JUPYTER_DATA / "lab" / "settings"
    settings.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(LAB_OVERRIDES, settings / "overrides.json")


def browser_available() -> str | None:
    """The path of a Chromium the browser tests can drive, if any."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def lessons() -> None:
    setup()
    # The lessons are stored with their outputs (graphs, steppers). Jupyter shows stored
    # HTML/SVG of an untrusted notebook without its styles, so trust the ones we ship.
    # The signatures go into the environment (JupyterLab below reads them from there),
    # not into the user's Jupyter data folder.
    notebooks = sorted(str(p) for p in (ROOT / "notebooks").glob("*.ipynb"))
    run(BIN / "jupyter", "trust", "--log-level=WARN", *notebooks, stdout=subprocess.DEVNULL,
        env={**os.environ, "JUPYTER_DATA_DIR": str(JUPYTER_DATA)})
    say("opening the lessons in JupyterLab (stop it with Ctrl+C)")
    args = [str(BIN / "jupyter"), "lab", str(ROOT / "notebooks"),
            f"--NotebookNotary.data_dir={JUPYTER_DATA}",
            "--LabApp.default_url=/lab/tree/README.md",  # start at the course's index
            *sys.argv[2:]]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in args:
        args.append("--allow-root")  # e.g. in a container; Jupyter refuses root otherwise
    os.execv(args[0], args)


def test() -> None:
    setup()
    extra = sys.argv[2:]
    # `dev.py test tests/test_engine.py -x` (or a test id, file::test) runs that only;
    # otherwise the whole suite.
    chosen = bool(extra) and (ROOT / extra[0].split("::")[0]).exists()
    args = [str(PYTHON), "-m", "pytest", *([] if chosen else ["tests", "notebooks"]),
            "--nbval", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
            "-p", "no:cacheprovider", *extra]
    if not chosen:
        say("the whole suite: unit tests, then every lesson re-run (nbval), then JupyterLab "
            "in a browser; about 10 minutes, the first of them collecting ~17,000 tests")
        if browser_available():
            say("a browser is available: the JupyterLab browser tests will run")
        else:
            say("no Chromium found: the browser tests will be SKIPPED "
                "(install chromium to run them)")
    raise SystemExit(subprocess.call(args, cwd=ROOT))


def bench() -> None:
    setup()
    raise SystemExit(subprocess.call([str(PYTHON), "-m", "benchmarks", *sys.argv[2:]], cwd=ROOT))


COMMANDS = {"lessons": lessons, "test": test, "bench": bench, "setup": setup}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        raise SystemExit(2)
    try:
        COMMANDS[sys.argv[1]]()
    except subprocess.CalledProcessError as error:  # its own messages are printed above
        command = " ".join([Path(error.cmd[0]).name, *map(str, error.cmd[1:3])])
        raise SystemExit(f"[teachgrad] stopped: `{command} ...` failed "
                         f"(exit status {error.returncode}), see above") from None
