"""Differential testing of torch.nn.functional against PyTorch on a fixed seed range.

tests/fuzz_nn_against_torch.py draws random calls of the neural-network functions (valid
and invalid arguments) and runs each with PyTorch and with teachgrad. This test runs a
fixed, modest seed range and asserts that every difference is a known, explained one
(the script's SKIPS).
"""

from __future__ import annotations

import fuzz_nn_against_torch as fuzz
import pytest

import teachgrad

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

SEEDS = range(0, 300)


def test_random_nn_calls_agree_with_pytorch():
    mismatches, skipped, _ = fuzz.fuzz(SEEDS, torch, teachgrad, out=_Discard())
    report = "\n\n".join(f"seed {seed}: {category} at {op}\n{source}\n--- {detail}"
                         for seed, category, op, _, source, detail in mismatches)
    assert not mismatches, f"{len(mismatches)} of {len(SEEDS)} cases differ:\n{report}"
    assert set(skipped) <= {reason for reason, _ in fuzz.SKIPS}


def test_the_draw_is_reproducible():
    assert fuzz.program(fuzz.draw(123)) == fuzz.program(fuzz.draw(123))
    assert fuzz.draw(5, ["conv2d"]).op == "conv2d"


class _Discard:
    def write(self, text: str) -> int:
        return len(text)
