"""``out=`` sharing memory with an argument: refused as PyTorch's kernels refuse it.

Pointwise (and cumulative, where, clamp ...) functions refuse an ``out`` that shares some
but not all of its memory with an input: writing element i could change an element read
later. ``out`` being the input itself is fine. The concatenations, gather, index_select,
masked_select, outer, cross and addr refuse any shared memory; addmm and its kind check
only their first argument; matrix products and reductions check nothing. Whether two
views share memory is worked out by hand in the comments (x is ``base[:16].view(4, 4)``).
"""

from __future__ import annotations

import pytest

import teachgrad

MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to "
           "tensor refer to a single memory location. Please clone() the tensor before "
           "performing the operation.")


def _tensors(lib):
    base = lib.arange(1.0, 80.0, dtype=lib.float64)
    x = base[:16].view(4, 4)  # elements 0..15
    y = base[40:56].view(4, 4)  # elements 40..55
    return base, x, y


# out is: "same" x itself (0..15), "shifted" 1..16 (shares 1..15 with x), "y" y itself.
CASES = [
    # (code, out, refused?)
    ("t.exp(x, out=o)", "same", False),
    ("t.exp(x, out=o)", "shifted", True),
    ("t.add(x, y, out=o)", "y", False),
    ("t.add(y, x, out=o)", "shifted", True),
    ("t.mul(x, 2, out=o)", "shifted", True),
    ("t.where(x > 5, x, y, out=o)", "shifted", True),
    ("t.clamp(x, 1, 5, out=o)", "shifted", True),
    ("t.cumsum(x, 1, out=o)", "shifted", True),
    ("t.addcmul(y, y, x, out=o)", "shifted", True),
    ("t.lerp(x, y, 0.5, out=o)", "same", False),
    # any shared memory, the same elements too
    ("t.cat([x[:2], y[:2]], out=o)", "same", True),
    ("t.cat([x[:2], y[:2]], out=o)", "y", True),
    ("t.stack([x[0], y[0], x[1], y[1]], out=o)", "same", True),
    ("t.vstack([x[:2], y[:2]], out=o)", "shifted", True),
    ("t.gather(x, 1, t.tensor([[0, 1, 2, 3]] * 4), out=o)", "same", True),
    ("t.index_select(x, 0, t.tensor([3, 2, 1, 0]), out=o)", "same", True),
    ("t.outer(x[0], y[0], out=o)", "same", True),
    ("t.addr(y, x[0], y[0], out=o)", "y", True),
    # addmm: its first argument only (x as mat2 is not checked)
    ("t.addmm(x, y, y, out=o)", "shifted", True),
    ("t.addmm(y, y, x, out=o)", "shifted", False),
    ("t.ldexp(y, x, out=o)", "shifted", False),
    # not checked at all
    ("t.mm(y, y, out=o)", "y", False),
    ("t.tril(y, out=o)", "y", False),
]


def _run(code: str, lib, which: str):
    base, x, y = _tensors(lib)
    out = {"same": x, "shifted": base[1:17].view(4, 4), "y": y}[which]
    return eval(code, {"t": lib, "x": x, "y": y, "o": out}), out  # noqa: S307


@pytest.mark.parametrize(("code", "which", "refused"), CASES)
def test_out_sharing_memory_with_an_input(code, which, refused):
    if refused:
        with pytest.raises(RuntimeError) as error:
            _run(code, teachgrad, which)
        assert str(error.value).split("\nHint: ")[0] == MESSAGE
    else:
        _run(code, teachgrad, which)


@pytest.mark.parametrize(("code", "which", "refused"), CASES)
def test_pytorch_refuses_the_same(code, which, refused):
    torch = pytest.importorskip("torch")
    if refused:
        with pytest.raises(RuntimeError) as error:
            _run(code, torch, which)
        assert str(error.value) == MESSAGE
    else:
        _run(code, torch, which)


def test_refused_before_anything_is_written():
    base, x, _ = _tensors(teachgrad)
    before = base.tolist()
    with pytest.raises(RuntimeError):
        teachgrad.exp(x, out=base[1:17].view(4, 4))
    assert base.tolist() == before


def test_writing_into_the_input_itself_gives_the_right_values():
    _, x, y = _tensors(teachgrad)
    teachgrad.add(x, y, out=x)  # 1..16 + 41..56
    assert x[0].tolist() == [42.0, 44.0, 46.0, 48.0]
    teachgrad.neg(x, out=x)
    assert x[0].tolist() == [-42.0, -44.0, -46.0, -48.0]
