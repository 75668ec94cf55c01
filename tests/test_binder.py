"""The Binder set-up (binder/) agrees with pyproject.toml.

mybinder.org builds an image from binder/requirements.txt and runs binder/postBuild. These
tests check, without any network, that the pinned requirements are exactly the packages
pyproject.toml declares for running the lessons (NumPy plus the ``notebook`` extra), that
every pin satisfies pyproject's version range, and that postBuild installs teachgrad and
registers its kernel. ``tests/binder_check.py`` (run by .ci/run) goes further: it builds a
fresh virtual environment from the Binder files alone and executes a lesson in it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
tomllib = pytest.importorskip("tomllib")  # Python 3.11+


def pyproject_requirements() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = project["dependencies"] + project["optional-dependencies"]["notebook"]
    return {canonicalize_name(Requirement(r).name): Requirement(r) for r in lines}


def binder_pins() -> dict[str, str]:
    pins = {}
    for line in (BINDER / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([A-Za-z0-9_.+\-]+)", line)
        assert match, f"binder/requirements.txt: pin exact versions (name==version): {line!r}"
        pins[canonicalize_name(match.group(1))] = match.group(2)
    return pins


def test_binder_pins_exactly_the_packages_pyproject_needs_for_the_lessons():
    assert set(binder_pins()) == set(pyproject_requirements())


def test_every_binder_pin_satisfies_pyproject():
    wanted = pyproject_requirements()
    for name, version in binder_pins().items():
        assert wanted[name].specifier.contains(version, prereleases=True), (
            f"{name}=={version} in binder/requirements.txt is outside pyproject's "
            f"'{wanted[name].specifier}'"
        )


def test_post_build_installs_teachgrad_and_registers_the_kernel():
    script = (BINDER / "postBuild").read_text()
    assert script.startswith("#!")
    assert (BINDER / "postBuild").stat().st_mode & 0o111, "postBuild must be executable"
    assert re.search(r"pip install .*\s\.(\s|$)", script)
    assert "teachgrad.notebook install-kernel --sys-prefix" in script


def test_binder_python_matches_pyproject():
    runtime = (BINDER / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(\d+)\.(\d+)", runtime)
    assert match, runtime
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    from packaging.specifiers import SpecifierSet

    assert SpecifierSet(requires).contains(f"{match.group(1)}.{match.group(2)}")


def test_jupyterlab_opens_markdown_rendered_on_binder_and_in_dev_py():
    """The Binder link opens notebooks/README.md: rendered, its lesson links work."""
    import json

    overrides = json.loads((BINDER / "overrides.json").read_text())
    viewers = overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["markdown"] == "Markdown Preview"
    script = (BINDER / "postBuild").read_text()
    assert "share/jupyter/lab/settings" in script
    assert re.search(r"cp binder/overrides\.json \S*/overrides\.json", script)
    dev = (ROOT / "dev.py").read_text()
    assert '"binder" / "overrides.json"' in dev and '"overrides.json"' in dev
