"""Tensor attributes, methods and operators behave as PyTorch's.

Programs in fixtures/program_cases.json, group "tensor" (generated with real PyTorch by
fixtures/make_program_cases.py), run here with teachgrad; plus single rules below.
"""

from __future__ import annotations

import json
from pathlib import Path

import programs
import pytest

import teachgrad

CASES = json.loads((Path(__file__).parent / "fixtures" / "program_cases.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES["tensor"]))
def test_same_as_pytorch(name):
    programs.check_against_pytorch(CASES["tensor"][name], teachgrad)
