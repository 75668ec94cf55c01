"""``bmm`` (and ``matmul`` where it ends in bmm) of operands of different dtypes.

PyTorch 2.13's bmm kernel returns before its dtype checks when there is nothing to
compute (no matrices, no rows, no columns, or an inner size of 0: the result is zeros), and
the result takes mat2's dtype. mm, mv and dot check dtypes first and refuse. The outcomes
pinned here were printed by PyTorch 2.13; the torch-marked test runs the programs in it.
"""

from __future__ import annotations

import pytest

import teachgrad as torch


@pytest.mark.parametrize("a_shape, b_shape, out_shape", [
    ((0, 2, 3), (0, 3, 4), (0, 2, 4)),  # no matrices
    ((2, 0, 3), (2, 3, 4), (2, 0, 4)),  # no rows
    ((2, 2, 3), (2, 3, 0), (2, 2, 0)),  # no columns
    ((2, 2, 0), (2, 0, 4), (2, 2, 4)),  # k = 0: a sum of nothing, zeros
])
@pytest.mark.parametrize("a_dtype, b_dtype", [
    (torch.float32, torch.int64), (torch.int64, torch.float32),
    (torch.float32, torch.float64), (torch.int64, torch.int32), (torch.float32, torch.bool),
])
def test_an_empty_product_takes_mat2s_dtype(a_shape, b_shape, out_shape, a_dtype, b_dtype):
    out = torch.bmm(torch.ones(a_shape, dtype=a_dtype), torch.ones(b_shape, dtype=b_dtype))
    assert out.dtype == b_dtype
    assert out.shape == out_shape
    assert not out.any()


def test_a_nonempty_product_is_still_refused():
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Long"):
        torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 3, 4, dtype=torch.long))
    with pytest.raises(NotImplementedError, match="\"bmm\" not implemented for 'Bool'"):
        torch.bmm(torch.ones(1, 2, 3, dtype=torch.bool), torch.ones(1, 3, 4, dtype=torch.bool))


def test_matmul_follows_bmm_where_it_calls_bmm_and_mm_elsewhere():
    assert torch.matmul(torch.ones(0, 2, 3), torch.ones(0, 3, 4, dtype=torch.long)).dtype \
        == torch.int64
    assert torch.matmul(torch.ones(2, 3), torch.ones(0, 3, 4, dtype=torch.long)).shape \
        == (0, 2, 4)
    with pytest.raises(RuntimeError, match="^expected m1 and m2 to have the same dtype"):
        torch.matmul(torch.ones(0, 2, 3), torch.ones(3, 4, dtype=torch.long))  # folded: mm


def test_gradients_of_an_empty_product_of_two_float_dtypes():
    a = torch.ones(2, 2, 0, requires_grad=True)
    b = torch.ones(2, 0, 4, dtype=torch.float64, requires_grad=True)
    out = torch.bmm(a, b)
    assert out.grad_fn.name() == "BmmBackward0" and out.dtype == torch.float64
    out.sum().backward()
    assert (a.grad.dtype, a.grad.shape) == (torch.float32, (2, 2, 0))
    assert (b.grad.dtype, b.grad.shape) == (torch.float64, (2, 0, 4))


def test_an_integer_result_from_an_input_requiring_grad_is_refused():
    a = torch.ones(0, 2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^Autograd not support dtype: Long$"):
        torch.bmm(a, torch.ones(0, 3, 4, dtype=torch.long))
    with torch.no_grad():
        assert torch.bmm(a, torch.ones(0, 3, 4, dtype=torch.long)).dtype == torch.int64


def test_baddbmm_checks_input_against_batch1_and_leaves_batch2_to_bmm():
    out = torch.baddbmm(torch.ones(2, 2, 4), torch.ones(2, 2, 0),
                        torch.ones(2, 0, 4, dtype=torch.long), beta=2)
    assert out.dtype == torch.int64 and out.tolist() == [[[2] * 4] * 2] * 2  # beta · input
    with pytest.raises(RuntimeError, match="^Input dtypes must be the same, got: input long "
                                           "int, batch1: float, batch2: float"):
        torch.baddbmm(torch.ones(0, 2, 4, dtype=torch.long), torch.ones(0, 2, 3),
                      torch.ones(0, 3, 4))
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Long"):
        torch.baddbmm(torch.ones(1, 2, 4), torch.ones(1, 2, 3),
                      torch.ones(1, 3, 4, dtype=torch.long))


PROGRAMS = [
    "torch.baddbmm(torch.ones(0, 2, 4), torch.ones(0, 2, 3), torch.ones(0, 3, 4, "
    "dtype=torch.long))",
    "torch.baddbmm(torch.ones(4), torch.ones(0, 2, 3), torch.ones(0, 3, 4, dtype=torch.long))",
    "torch.baddbmm(torch.ones(2, 2, 4), torch.ones(2, 2, 0), torch.ones(2, 0, 4, "
    "dtype=torch.float64), beta=2)",
    "torch.baddbmm(torch.ones(0, 2, 4, requires_grad=True), torch.ones(0, 2, 3), "
    "torch.ones(0, 3, 4, dtype=torch.long))",
    "torch.baddbmm(torch.ones(0, 2, 4), torch.ones(0, 2, 3, dtype=torch.long), "
    "torch.ones(0, 3, 4))",
    "torch.bmm(torch.ones(0, 2, 3), torch.ones(0, 3, 4, dtype=torch.long))",
    "torch.bmm(torch.ones(3, 2, 0, dtype=torch.long), torch.ones(3, 0, 4))",
    "torch.bmm(torch.ones(1, 2, 3), torch.ones(1, 3, 4, dtype=torch.long))",
    "torch.bmm(torch.ones(0, 2, 3, requires_grad=True), torch.ones(0, 3, 4, dtype=torch.int32))",
    "torch.matmul(torch.ones(0, 2, 3), torch.ones(0, 3, 4, dtype=torch.long))",
    "torch.matmul(torch.ones(0, 1, 2, 3), torch.ones(2, 3, 4, dtype=torch.long))",
    "torch.matmul(torch.ones(2, 3), torch.ones(0, 3, 4, dtype=torch.long))",
    "torch.matmul(torch.ones(2, 3, requires_grad=True), torch.ones(0, 3, 4, dtype=torch.long))",
    "torch.matmul(torch.ones(2, 2, 0), torch.ones(0, 4, dtype=torch.long))",
    "torch.matmul(torch.ones(0), torch.ones(0, dtype=torch.long))",
    "torch.mm(torch.ones(2, 0), torch.ones(0, 4, dtype=torch.long))",
]


@pytest.mark.torch
@pytest.mark.parametrize("program", PROGRAMS)
def test_same_outcome_as_pytorch(program):
    real = pytest.importorskip("torch")

    def run(lib):
        try:
            out = eval(program, {"torch": lib})
        except (RuntimeError, NotImplementedError) as e:
            return str(e).split("\nHint:")[0]
        return str(out.dtype).split(".")[1], tuple(out.shape), out.requires_grad

    assert run(torch) == run(real)
