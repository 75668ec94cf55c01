"""The "Python 3 (teachgrad)" Jupyter kernel: an ordinary IPython kernel that loads
``%load_ext teachgrad`` at start, so lesson notebooks show tensor tables from cell one.

A kernelspec is a folder with a ``kernel.json`` saying how Jupyter starts the kernel.
Ours runs the same command as ipykernel's own "Python 3" kernel plus ``--ext teachgrad``
(IPython's option for loading an extension at start-up)::

    python -m teachgrad.notebook install-kernel --sys-prefix   # into this environment
    python -m teachgrad.notebook install-kernel --user         # for this user only

Installing copies the folder with jupyter_client's ``KernelSpecManager``, exactly as
``jupyter kernelspec install`` does.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["DISPLAY_NAME", "KERNEL_NAME", "install_kernel_spec", "kernel_json"]

KERNEL_NAME = "teachgrad"
DISPLAY_NAME = "Python 3 (teachgrad)"


def kernel_json(display_name: str = DISPLAY_NAME) -> dict[str, Any]:
    """The contents of ``kernel.json``: start ipykernel with this Python and the extension.

    ``{connection_file}`` is filled in by Jupyter when it starts the kernel.
    """
    return {
        "argv": [
            sys.executable, "-m", "ipykernel_launcher",
            "-f", "{connection_file}",
            "--ext", "teachgrad",
        ],
        "display_name": display_name,
        "language": "python",
        "metadata": {"debugger": True},
    }


def _copy_logos(folder: Path) -> None:
    """Reuse ipykernel's Python logos, so the launcher shows a familiar icon."""
    try:
        from ipykernel.kernelspec import RESOURCES
    except ImportError:  # no logos is fine: Jupyter shows the kernel's initials instead
        return
    for logo in Path(RESOURCES).glob("logo-*"):
        shutil.copy(logo, folder / logo.name)


def install_kernel_spec(
    *,
    user: bool = False,
    sys_prefix: bool = False,
    prefix: str | None = None,
    kernel_name: str = KERNEL_NAME,
    display_name: str = DISPLAY_NAME,
) -> str:
    """Install the teachgrad kernelspec and return the folder it was installed to.

    Where it goes (at most one of these; with none, system-wide like ipykernel's default):

    * ``user=True``: the current user's Jupyter data folder.
    * ``sys_prefix=True``: this Python environment (``sys.prefix``), best for venvs/conda.
    * ``prefix="/some/path"``: ``/some/path/share/jupyter/kernels/``.
    """
    if sum([bool(user), bool(sys_prefix), prefix is not None]) > 1:
        raise ValueError("choose at most one of user=True, sys_prefix=True and prefix=...")
    if sys_prefix:
        prefix = sys.prefix

    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp) / kernel_name
        folder.mkdir()
        (folder / "kernel.json").write_text(json.dumps(kernel_json(display_name), indent=1))
        _copy_logos(folder)
        return KernelSpecManager().install_kernel_spec(
            str(folder), kernel_name=kernel_name, user=user, prefix=prefix
        )
