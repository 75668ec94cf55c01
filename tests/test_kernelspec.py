"""The "Python 3 (teachgrad)" kernelspec: contents, installation, and a real kernel."""

import json
import os
import pathlib
import queue
import subprocess
import sys
import time

import pytest

import teachgrad
from teachgrad.notebook.__main__ import main
from teachgrad.notebook.kernelspec import DISPLAY_NAME, KERNEL_NAME, kernel_json

REPO_ROOT = pathlib.Path(teachgrad.__file__).resolve().parent.parent


def test_kernel_json_runs_ipykernel_with_the_extension():
    spec = kernel_json()
    assert spec["argv"] == [
        sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
        "--ext", "teachgrad",
    ]
    assert spec["display_name"] == "Python 3 (teachgrad)" == DISPLAY_NAME
    assert spec["language"] == "python"


def test_install_into_a_prefix(tmp_path):
    pytest.importorskip("jupyter_client")
    from teachgrad.notebook import install_kernel_spec

    path = pathlib.Path(install_kernel_spec(prefix=str(tmp_path)))
    assert path == tmp_path / "share" / "jupyter" / "kernels" / KERNEL_NAME
    assert json.loads((path / "kernel.json").read_text()) == kernel_json()


def test_only_one_place_at_a_time(tmp_path):
    from teachgrad.notebook import install_kernel_spec

    with pytest.raises(ValueError, match="at most one"):
        install_kernel_spec(user=True, prefix=str(tmp_path))
    with pytest.raises(SystemExit):
        main(["install-kernel", "--user", "--sys-prefix"])


def test_command_line_installs_with_a_name(tmp_path, capsys):
    pytest.importorskip("jupyter_client")
    status = main(["install-kernel", "--prefix", str(tmp_path), "--name", "tg-test",
                   "--display-name", "Lesson kernel"])
    assert status == 0
    folder = tmp_path / "share" / "jupyter" / "kernels" / "tg-test"
    assert f"Installed kernelspec tg-test in {folder}" in capsys.readouterr().out
    spec = json.loads((folder / "kernel.json").read_text())
    assert spec["display_name"] == "Lesson kernel"
    assert spec["argv"][-2:] == ["--ext", "teachgrad"]


def test_python_dash_m_entry_point(tmp_path):
    pytest.importorskip("jupyter_client")
    subprocess.run(
        [sys.executable, "-m", "teachgrad.notebook", "install-kernel", "--prefix", str(tmp_path)],
        check=True, cwd=REPO_ROOT, capture_output=True,
    )
    assert (tmp_path / "share/jupyter/kernels/teachgrad/kernel.json").is_file()


# ---------------------------------------------------------------------------------------
# A real kernel started from the installed spec
# ---------------------------------------------------------------------------------------

TIMEOUT = 60  # seconds, for each step of talking to the kernel


def _outputs_of(client, code: str) -> list[dict]:
    """Execute ``code`` and collect the IOPub messages it produced, until the kernel idles."""
    msg_id = client.execute(code)
    messages = []
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        try:
            msg = client.get_iopub_msg(timeout=1)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        messages.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return messages
    raise TimeoutError(f"kernel did not finish {code!r} within {TIMEOUT}s")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A client of a real kernel started from the teachgrad spec installed in a temp prefix
    (one kernel for the tests of this module: starting one takes seconds)."""
    pytest.importorskip("ipykernel")
    pytest.importorskip("jupyter_client")
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    tmp_path = tmp_path_factory.mktemp("kernel-prefix")
    main(["install-kernel", "--prefix", str(tmp_path)])
    specs = KernelSpecManager(kernel_dirs=[str(tmp_path / "share" / "jupyter" / "kernels")])
    manager = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
    # The kernel must import this checkout of teachgrad, installed or not.
    path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    manager.start_kernel(env={**os.environ, "PYTHONPATH": path}, cwd=str(tmp_path))
    client = manager.client()
    try:
        client.start_channels()
        client.wait_for_ready(timeout=TIMEOUT)
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_real_kernel_displays_a_tensor_as_a_table(kernel):
    code = "import teachgrad as torch; torch.tensor([1.,2.], requires_grad=True)"
    messages = _outputs_of(kernel, code)
    errors = [m["content"] for m in messages if m["msg_type"] == "error"]
    assert not errors, errors
    (result,) = [m["content"]["data"] for m in messages if m["msg_type"] == "execute_result"]
    assert result["text/plain"] == "tensor([1., 2.], requires_grad=True)"
    html = result["text/html"]
    assert '<div class="tg-inspect">' in html
    assert '<th scope="row">requires_grad</th><td class="tg-true">True</td>' in html
    assert '<td class="tg-value">[1., 2.]</td>' in html


def test_real_kernel_has_the_magic(kernel):
    messages = _outputs_of(kernel, "%teachgrad")
    printed = "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream")
    assert "teachgrad display mode: table" in printed
