"""A throw-away Jupyter set-up for the browser tests: settings, kernel and a JupyterLab server.

Nothing touches the user's own Jupyter: :func:`jupyter_env` points every Jupyter and
IPython folder (config, data, runtime, ``IPYTHONDIR``) into a temporary directory and
registers the "Python 3 (teachgrad)" kernel there. :class:`LabServer` runs JupyterLab on
127.0.0.1 with a random free port and a token, waits until it answers, and on
:meth:`LabServer.stop` shuts it down with every process it started (its kernels too).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

#: the JupyterLab plugin that pops up "Would you like to get notified about official
#: Jupyter news?" over the notebook. Writing this file is what
#: ``jupyter labextension disable --level=user <plugin>`` does (that command takes ~10 s).
ANNOUNCEMENTS = "@jupyterlab/apputils-extension:announcements"
START_TIMEOUT_S = 60


def jupyter_env(root: Path) -> dict[str, str]:
    """Environment variables for a private Jupyter under ``root`` (made here).

    The teachgrad kernel is installed under ``root/kernel-prefix`` with this Python, and
    the folder holding the teachgrad being tested goes first on its ``PYTHONPATH``, so
    the lesson runs against that teachgrad, whatever is installed elsewhere. (Without it a
    kernel started in the lessons' folder imported the pip-installed teachgrad: tests run
    from a second clone drove the first clone's code.)
    """
    import teachgrad
    from teachgrad.notebook.kernelspec import install_kernel_spec

    folders = {name: root / name.lower() for name in (
        "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    labconfig = folders["JUPYTER_CONFIG_DIR"] / "labconfig"
    labconfig.mkdir()
    (labconfig / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {ANNOUNCEMENTS: True}}), encoding="utf-8")
    prefix = root / "kernel-prefix"
    install_kernel_spec(prefix=str(prefix))
    env = dict(os.environ, **{k: str(v) for k, v in folders.items()})
    kernels_path = str(prefix / "share" / "jupyter")
    env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [kernels_path, env.get("JUPYTER_PATH")]))
    tested = str(Path(teachgrad.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [tested, env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def free_port() -> int:
    """A TCP port nobody listens on right now (the server may still lose a race for it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServerDidNotStart(RuntimeError):
    """JupyterLab exited or did not answer in time (the message carries its log)."""


class LabServer:
    """``jupyter lab`` serving ``notebooks`` (a folder), with ``env`` from :func:`jupyter_env`.

    >>> server = LabServer.start(notebooks, env, log_dir)   # doctest: +SKIP
    >>> server.url("lab/tree/01.ipynb")                      # doctest: +SKIP
    'http://127.0.0.1:41234/lab/tree/01.ipynb?token=…'
    >>> server.stop()                                        # doctest: +SKIP
    """

    def __init__(self, process: subprocess.Popen, port: int, token: str, log: Path) -> None:
        self.process = process
        self.port = port
        self.token = token
        self.log = log
        self._children: list[tuple[int, str]] = []

    # --- starting -------------------------------------------------------------------
    @classmethod
    def start(cls, notebooks: Path, env: dict[str, str], log_dir: Path,
              attempts: int = 2) -> LabServer:
        """Start the server; try again once (a new port) if the first start fails."""
        errors = []
        for attempt in range(1, attempts + 1):
            server = cls._launch(notebooks, env, log_dir / f"jupyterlab-{attempt}.log")
            try:
                server._wait_until_ready()
                return server
            except ServerDidNotStart as error:
                server.stop()
                errors.append(f"attempt {attempt}: {error}")
        raise ServerDidNotStart("\n\n".join(errors))

    @classmethod
    def _launch(cls, notebooks: Path, env: dict[str, str], log: Path) -> LabServer:
        port, token = free_port(), secrets.token_hex(16)
        command = [
            sys.executable, "-m", "jupyterlab", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={notebooks}",
            # window.jupyterapp: run commands (Run All, themes) and read the notebook model
            "--LabApp.expose_app_in_browser=True",
            # nothing to fetch from the network: no update check, no extension manager
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly", "--ServerApp.terminals_enabled=False",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-root")  # containers and CI often run as root
        with open(log, "wb") as output:
            # A session of its own: stop() can end the whole process group by its id.
            process = subprocess.Popen(command, env=env, cwd=notebooks, stdout=output,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       start_new_session=True)
        return cls(process, port, token, log)

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url("api/status"), timeout=2) as reply:
                    if reply.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            try:  # waits for the process to exit, at most a quarter second: then ask again
                code = self.process.wait(timeout=0.25)
            except subprocess.TimeoutExpired:
                continue
            raise ServerDidNotStart(f"JupyterLab exited with code {code}:\n{self.log_tail()}")
        raise ServerDidNotStart(f"no answer after {START_TIMEOUT_S} s:\n{self.log_tail()}")

    # --- using ----------------------------------------------------------------------
    def url(self, path: str) -> str:
        """``http://127.0.0.1:PORT/path`` with the token (JupyterLab turns it into a cookie)."""
        joiner = "&" if "?" in path else "?"
        return f"http://127.0.0.1:{self.port}/{path}{joiner}token={self.token}"

    def log_tail(self, lines: int = 40) -> str:
        """The end of the server's log (for failure messages)."""
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    # --- stopping -------------------------------------------------------------------
    def stop(self) -> None:
        """Shut down the server and its kernels; kill whatever is left, by process id.

        Kernels run in sessions of their own (jupyter_client starts them so), so killing
        the server's process group would miss them: they are listed first, and the
        server is asked to shut them down (``/api/shutdown``) before anything is killed.
        """
        self._children = _descendants(self.process.pid)
        if self.process.poll() is None:
            try:
                request = urllib.request.Request(self.url("api/shutdown"), method="POST")
                urllib.request.urlopen(request, timeout=5).close()
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=15)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)  # its group: the server's own helpers
        self.process.wait()
        for pid, started in self._children:
            if _start_time(pid) == started:  # still that process, not a reused id
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    def leftovers(self) -> list[int]:
        """Processes started by the server that are still alive (should be none after stop)."""
        alive = [pid for pid, started in self._children if _start_time(pid) == started]
        return alive + ([self.process.pid] if self.process.poll() is None else [])


def _start_time(pid: int) -> str | None:
    """When ``pid`` started (field 22 of /proc/PID/stat), or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return fields[19] if fields[0] != "Z" else None  # a zombie is as good as gone


def _descendants(root: int) -> list[tuple[int, str]]:
    """Every process below ``root`` as ``(pid, start time)`` (Linux /proc; [] elsewhere)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*") if Path("/proc/self/stat").exists() else []:
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, stack = [], [root]
    while stack:
        for child in parents.get(stack.pop(), []):
            started = _start_time(child)
            if started is not None:
                found.append((child, started))
                stack.append(child)
    return found
