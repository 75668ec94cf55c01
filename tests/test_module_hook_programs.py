"""Module hooks as a learner uses them, held to PyTorch: each program in
tests/fixtures/module_hook_programs runs under PyTorch and under teachgrad (``torch``,
``nn`` and ``F`` given), and prints the same lines, warnings and error included.

They cover forward pre-hooks and hooks (returning new inputs or outputs, ``with_kwargs``,
``always_call``, ``prepend``), full backward hooks and pre-hooks (grad_input and
grad_output of Linear, ReLU, Sequential, modules with several inputs or outputs, inputs
that need no gradient, in-place ReLU and views, which PyTorch refuses), the global hooks of
``nn.modules.module``, the deprecated ``register_backward_hook``, hook errors, and removal
handles. The tensor hook returning a list (``dict.setdefault``'s value) was read as a
tensor; PyTorch refuses it ("expected Variable, but hook returned 'list'")."""

from __future__ import annotations

import contextlib
import io
import pathlib
import warnings

import pytest

import teachgrad

PROGRAMS = sorted((pathlib.Path(__file__).parent / "fixtures" / "module_hook_programs")
                  .glob("*.py"))


def _run(source: str, lib) -> str:
    """What the program prints under ``lib`` (its error and warnings as lines too), with
    the library's name read as ``LIB``."""
    out = io.StringIO()
    # Both from one seed: the layers' random weights reach the printed gradients, and each
    # library's generator is otherwise where the tests before left it (teachgrad draws
    # PyTorch's numbers from a seed).
    lib.manual_seed(0)
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(source, {"torch": lib, "nn": lib.nn, "F": lib.nn.functional})
        except Exception as error:  # noqa: BLE001 - the error is part of the output
            print("RAISED", type(error).__name__, str(error).split("\nHint:")[0])
        for warning in caught:
            print("WARN", warning.category.__name__, str(warning.message)[:200])
    return out.getvalue().replace("torch.", "LIB.").replace("teachgrad.", "LIB.")


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_program_prints_what_pytorch_prints(program):
    torch = pytest.importorskip("torch")
    source = program.read_text()
    expected = _run(source, torch)
    assert expected.count("\n") >= 2  # (the program ran far enough to say something)
    assert _run(source, teachgrad) == expected
