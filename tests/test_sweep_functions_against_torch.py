"""The function sweep (tests/sweep_functions_against_torch.py) on functions it found clean.

The sweep calls every function of ``torch``, ``torch.linalg``, ``torch.special`` and
``torch.nn.functional`` both libraries have, on typical inputs, and compares results,
strides, errors, warnings and gradients with PyTorch. The whole sweep (~50 000 calls)
takes a minute or more and finds no difference but its explained ones (``KNOWN``, since
the twenty-fourth session); this test runs it on a fixed list of functions -- the ones
whose differences were fixed, and common ones that agree in every call -- so that they
stay in agreement.
"""

from __future__ import annotations

import pytest
import sweep_functions_against_torch as sweep

import teachgrad

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

# Differences the sweep found and fixed (see test_function_sweep_fixes.py) ...
FIXED = ["where", "nonzero", "dist", "isclose", "arange", "rand_like", "transpose_copy",
         "erf", "kaiser_window",
         # LAPACK's column-major results, linalg's errors in PyTorch's order, the low-rank
         # and eigen helpers (test_linalg_layout.py, test_linalg_sweep_errors.py,
         # test_lowrank_lobpcg.py)
         "solve", "solve_triangular", "eigh", "lstsq", "lu_solve", "inv_ex", "tensordot",
         "householder_product", "take_along_dim", "svd_lowrank", "pca_lowrank", "lobpcg",
         # the twenty-second session's (test_torch_functions_sweep6.py): dtypes accepted,
         # which check speaks first, out= as PyTorch's kernels take it
         "igamma", "igammac", "bitwise_left_shift", "searchsorted", "bucketize", "ldexp",
         "ldexp_", "round", "quantile", "trace", "logcumsumexp", "unique", "cholesky",
         "slice_copy", "mv", "inner", "unravel_index", "vector_norm", "pinv", "diag",
         "nansum", "nanmean", "bitwise_not", "mvlgamma", "gcd_", "cross",
         # the twenty-fourth session's (test_torch_functions_sweep8.py): ATen's twins of F's
         # functions, which check speaks first, out= and warnings
         "to_dlpack", "group_norm", "binary_cross_entropy_with_logits", "gradient",
         "view_copy", "hardtanh_", "selu", "silu", "mish", "hardswish", "hardsigmoid",
         "relu6", "softmin", "ger", "cholesky_solve", "trapezoid", "trapz", "scalar_tensor",
         "histogramdd", "cond", "multilabel_margin_loss", "grid_sample",
         "hinge_embedding_loss", "soft_margin_loss", "linear", "norm_except_dim", "glu",
         "embedding_bag", "bernoulli", "unfold", "instance_norm", "cosine_similarity"]
# ... and common functions that agree with PyTorch in every call of the sweep.
COMMON = ["add", "matmul", "softmax", "sum", "cross_entropy", "argmax"]


@pytest.mark.parametrize("name", FIXED + COMMON)
def test_function_agrees_with_pytorch(name):
    differences, _, count = sweep.sweep(torch, teachgrad, only=[name], out=None)
    assert count > 0, f"no call of {name} was compared"
    report = "\n".join(f"{category}: {call.source()}\n    {detail}"
                       for call, category, detail in differences)
    assert not differences, f"{len(differences)} of {count} calls differ:\n{report}"


def test_the_sweep_sees_every_namespace():
    names = sweep.shared_functions(torch, teachgrad)
    spaces = {space for space, _ in names}
    assert spaces == set(sweep.SPACES)
    assert len(names) > 700  # (torch 2.13: 780 functions in both, after the skips)


def test_a_difference_is_reported():
    # the comparison itself can fail: a different value, dtype or error is a difference
    same = sweep.describe(torch.tensor([1.0, -0.0]), torch)
    assert sweep.difference(same, same) is None
    assert sweep.difference(same, sweep.describe(torch.tensor([1.0, 0.0]), torch)) == "value"
    assert sweep.difference(same, sweep.describe(torch.tensor([1.0, 0.0],
                                                              dtype=torch.float64),
                                                 torch)) == "dtype"
    assert sweep.difference(sweep.describe(torch.ones(2, 3).t(), torch),
                            sweep.describe(torch.ones(3, 2), torch)) == "stride"
