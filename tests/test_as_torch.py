"""``teachgrad.install_as_torch()``: ``import torch`` and ``from torch.nn import ...`` mean
teachgrad; without it, a failed ``from torch import nn`` says why.

Each program runs in a fresh interpreter: installing the alias changes what ``import
torch`` means for the whole process, and this test process may need the real PyTorch.
Where PyTorch is installed here, the programs that describe a machine without it hide it
from Python's path finder (the one place that would find it) before anything else runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import seed_lessons
from test_seeds import FIXTURE, LESSONS

REPO = Path(__file__).resolve().parent.parent

# Prepended to a program to describe a machine where PyTorch is not installed.
WITHOUT_PYTORCH = """
import importlib.machinery
_find_spec = importlib.machinery.PathFinder.find_spec
def _no_torch(name, path=None, target=None):
    return None if name == "torch" or name.startswith("torch.") else _find_spec(name, path, target)
importlib.machinery.PathFinder.find_spec = _no_torch
"""


def run_python(program: str, *, without_pytorch: bool = False) -> subprocess.CompletedProcess:
    """Run ``program`` in a fresh interpreter with this checkout's teachgrad first on the path."""
    source = (WITHOUT_PYTORCH if without_pytorch else "") + textwrap.dedent(program)
    return subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True, text=True, timeout=120, cwd=REPO,
        env={"PYTHONPATH": f"{REPO}{__import__('os').pathsep}{REPO / 'tests'}",
             "PATH": "/usr/bin:/bin", "HOME": str(Path.home())},
    )


def test_submodule_imports_are_teachgrads():
    result = run_python("""
        import sys
        import teachgrad
        teachgrad.install_as_torch()
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.autograd.forward_ad as fwAD
        import torch.functional
        from torch import optim
        from torch.autograd import Function
        from torch.cuda import is_available
        from torch.func import grad, vmap
        from torch.optim.lr_scheduler import StepLR
        from torch.utils.checkpoint import checkpoint
        from torch.utils.data import DataLoader, TensorDataset
        from torch.utils.hooks import RemovableHandle

        assert torch is teachgrad and nn is teachgrad.nn and optim is teachgrad.optim
        assert F is teachgrad.nn.functional and fwAD is teachgrad.autograd.forward_ad
        assert torch.functional is teachgrad.functional
        assert Function is teachgrad.autograd.Function and grad is teachgrad.func.grad
        assert vmap is teachgrad.func.vmap and StepLR is teachgrad.optim.lr_scheduler.StepLR
        assert DataLoader is teachgrad.utils.data.DataLoader
        assert TensorDataset is teachgrad.utils.data.TensorDataset
        assert checkpoint is teachgrad.utils.checkpoint.checkpoint
        assert isinstance(torch.ones(1, requires_grad=True).register_hook(print),
                          RemovableHandle)
        assert is_available() is False
        # one module object per module: the aliases did not load a second copy
        assert sys.modules["torch.nn.functional"] is teachgrad.nn.functional
        assert teachgrad.nn.functional.__name__ == "teachgrad.nn.functional"
        # and nothing of the real PyTorch was loaded behind them
        assert "torch._C" not in sys.modules
        print(torch.float32, torch.ones(2, 3).shape, torch.ones(2).max(0).values)
        print(F.relu(torch.tensor([-1.0, 2.0])))
        print(type(torch.ones(1)), type(nn.Parameter(torch.ones(1))))
        teachgrad.install_as_torch()  # a second call changes nothing
        assert sys.modules["torch"] is teachgrad
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "torch.float32 torch.Size([2, 3]) tensor(1.)",  # PyTorch's reprs, word for word
        "tensor([0., 2.])",
        "<class 'torch.Tensor'> <class 'torch.nn.parameter.Parameter'>",
    ]


def test_a_module_teachgrad_lacks_is_not_found():
    result = run_python("""
        import teachgrad
        teachgrad.install_as_torch()
        try:
            import torch.no_such_module
        except ModuleNotFoundError as error:
            print(error.name)
            print(str(error).splitlines()[0])
        import sys
        assert "torch._C" not in sys.modules  # it was not looked for in the real PyTorch
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "torch.no_such_module", "No module named 'torch.no_such_module'",
    ]


def test_a_part_of_pytorch_teachgrad_leaves_out_says_what_it_is_for():
    result = run_python("""
        import teachgrad
        teachgrad.install_as_torch()
        try:
            import torch.jit
        except ModuleNotFoundError as error:
            print(str(error).split("Hint: ")[1])
    """)
    assert result.returncode == 0, result.stderr
    assert "which has no such module. torch.jit compiles models" in result.stdout


def test_without_the_alias_a_missing_pytorch_gets_a_hint():
    result = run_python("""
        import teachgrad as torch
        x = torch.nn.functional.relu(torch.tensor([-1.0]))  # the alias works on attributes
        try:
            from torch import nn
        except ModuleNotFoundError as error:
            print(error.name)
            print(error)
    """, without_pytorch=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == ["torch", "No module named 'torch'"]
    assert lines[2].startswith("Hint: ") and "install_as_torch()" in lines[2]


def test_reprs_keep_saying_teachgrad_without_the_alias():
    result = run_python("""
        import teachgrad as torch
        print(torch.float64, torch.zeros(1).shape, torch.strided)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["teachgrad.float64", "teachgrad.Size([1])",
                                     "teachgrad.strided"]


def test_installing_after_the_real_pytorch_is_refused():
    pytest.importorskip("torch")  # (in this process: only to know whether it is installed)
    result = run_python("""
        import torch as real
        import teachgrad
        try:
            teachgrad.install_as_torch()
        except RuntimeError as error:
            print(error)
        import sys
        assert sys.modules["torch"] is real  # nothing was changed
        assert teachgrad.float32.__repr__() == "teachgrad.float32"
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "the real PyTorch is already imported in this process ('torch'"
    )
    assert "restart" in result.stdout


@pytest.mark.skipif(not seed_lessons.SEEDS.is_dir(), reason="the seed lessons are not there")
@pytest.mark.parametrize("name", LESSONS)
def test_seed_lesson_runs_verbatim_and_prints_what_pytorch_prints(name):
    """The lesson's cells exactly as written (``import torch``, not rewritten), with the
    alias installed; the output is compared with PyTorch's, ``torch.`` for ``torch.``."""
    result = run_python(f"""
        import json
        import teachgrad
        teachgrad.install_as_torch()
        import seed_lessons
        cells = seed_lessons.code_cells((seed_lessons.SEEDS / {name!r}).read_text())
        namespace = {{"__name__": "__main__"}}
        results = [seed_lessons.run_cell(c.code, namespace) for c in cells]
        print(json.dumps([[r.output, r.error] for r in results]))
    """, without_pytorch=True)
    assert result.returncode == 0, result.stderr
    for want, (output, error) in zip(FIXTURE["lessons"][name], json.loads(result.stdout)):
        what = f"{name} {want['label']}"
        assert (error is None) == (want["error"] is None), f"{what}: {error}"
        if error is not None:
            assert seed_lessons.sanitize(error).startswith(want["error"]), what
        assert_prints(output, want["output"], what)


def assert_prints(got: list[str], expected, what: str) -> None:
    """As PyTorch printed, word for word: no ``teachgrad.`` read as ``torch.`` here."""
    if expected == {"any": True}:
        return
    got = [seed_lessons.sanitize(line) for line in got]
    assert len(got) == len(expected), f"{what}: got\n" + "\n".join(got)
    for line, want in zip(got, expected):
        if isinstance(want, str):
            assert line == want, f"{what}:\n got: {line!r}\nwant: {want!r}"
        else:  # a line of random numbers: compare all but the numbers
            assert seed_lessons.mask_numbers(line) == want["masked"], f"{what}: {line!r}"
