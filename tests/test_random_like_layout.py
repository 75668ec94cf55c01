"""``rand_like``/``randn_like`` lay their samples out as PyTorch does: the output takes
``input``'s layout (``preserve_format``) or the one asked for, and the draws fill its
memory in order. ``rand_like(x.t())`` used to give a row-major tensor with the draws along
the rows, so after ``manual_seed`` the numbers stood in other places than PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch


def _memory(t) -> list:
    """The values in the order they lie in memory (dense tensors)."""
    data = t.numpy()
    order = np.argsort([-abs(s) for s in data.strides], kind="stable")
    return data.transpose(order).reshape(-1).tolist()


@pytest.mark.parametrize("like", ["rand_like", "randn_like"])
@pytest.mark.parametrize("make", [
    lambda: torch.zeros(2, 3).t(), lambda: torch.zeros(2, 3, 4).permute(2, 0, 1),
    lambda: torch.zeros(5, 8).t(),
], ids=["t", "permute", "t-40"])
def test_the_draws_fill_memory_in_order(like, make):
    x = make()
    torch.manual_seed(0)
    sample = getattr(torch, like)(x)
    assert sample.stride() == x.stride()  # preserve_format: x's layout
    # The draws lie in memory as a row-major sample's do. For randn, PyTorch's 16-wide
    # fill needs contiguous memory, so a non-contiguous output is drawn one Box-Muller
    # value at a time, as randn draws fewer than 16: its first 15 are randn(15)'s.
    torch.manual_seed(0)
    if like == "rand_like":
        assert _memory(sample) == torch.rand(x.numel()).tolist()
    else:
        n = min(x.numel(), 15)
        assert _memory(sample)[:n] == torch.randn(n).tolist()


def test_a_row_major_request_or_input_is_drawn_as_before():
    torch.manual_seed(0)
    a = torch.rand_like(torch.zeros(2, 3).t(), memory_format=torch.contiguous_format)
    torch.manual_seed(0)
    b = torch.rand(3, 2)
    assert a.stride() == (2, 1) and a.tolist() == b.tolist()


@pytest.mark.torch
def test_the_same_numbers_and_strides_as_pytorch():
    real = pytest.importorskip("torch")
    makers = ["T.zeros(2, 3).t()", "T.zeros(2, 3, 4).permute(2, 0, 1)",
              "T.zeros(1, 3, 2, 2).contiguous(memory_format=T.channels_last)",
              "T.zeros(4)[::2]", "T.zeros(3, 1).expand(3, 4)", "T.zeros(5, 8).t()",
              "T.zeros(2, 20, dtype=T.float64).t()"]
    for make in makers:
        for like in ("rand_like", "randn_like"):
            seen = []
            for lib in (torch, real):
                lib.manual_seed(0)
                sample = getattr(lib, like)(eval(make, {"T": lib}))
                seen.append((sample.stride(), sample.flatten().tolist()))
            assert seen[0] == seen[1], (make, like)
