"""PyTorch's own docstring examples keep printing the same with teachgrad.

``tests/torch_doc_examples.py`` runs every docstring example of every name both libraries
have; this test runs it over a fixed list of common functions, modules and methods whose
examples were verified to match (the same text, statement by statement, random numbers
included: both start from one seed and teachgrad draws PyTorch's stream), so a regression
in values, dtypes, printing or random numbers shows up here.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.torch

MATCHING = [
    # creation, pointwise math, reductions
    "torch.arange", "torch.linspace", "torch.zeros", "torch.ones", "torch.full", "torch.eye",
    "torch.zeros_like", "torch.asarray", "torch.vander",
    "torch.abs", "torch.add", "torch.sub", "torch.mul", "torch.div", "torch.pow", "torch.exp",
    "torch.log", "torch.sqrt", "torch.tanh", "torch.round", "torch.floor", "torch.clamp",
    "torch.remainder", "torch.float_power", "torch.logical_xor",
    "torch.sum", "torch.mean", "torch.prod", "torch.std", "torch.var", "torch.std_mean",
    "torch.max", "torch.min", "torch.amax", "torch.aminmax", "torch.argmax", "torch.median",
    "torch.mode", "torch.kthvalue", "torch.topk", "torch.argsort", "torch.cumsum",
    "torch.logsumexp", "torch.norm", "torch.all", "torch.any", "torch.count_nonzero",
    "torch.allclose", "torch.isclose", "torch.bincount", "torch.histc",
    # shape and indexing
    "torch.reshape", "torch.transpose", "torch.permute", "torch.squeeze", "torch.unsqueeze",
    "torch.flatten", "torch.cat", "torch.stack", "torch.chunk", "torch.split", "torch.flip",
    "torch.roll", "torch.atleast_1d", "torch.atleast_2d", "torch.broadcast_to", "torch.tril",
    "torch.triu", "torch.diag", "torch.gather", "torch.index_select", "torch.where",
    "torch.nonzero", "torch.repeat_interleave",
    # linear algebra
    "torch.matmul", "torch.mm", "torch.bmm", "torch.dot", "torch.outer", "torch.cdist",
    "torch.einsum",
    "torch.linalg.det", "torch.linalg.cross", "torch.linalg.vector_norm",
    "torch.linalg.matrix_norm", "torch.linalg.vander",
    # (not lu_solve: on this AMD EPYC machine PyTorch 2.13 itself prints False for its
    # example's allclose(X @ A, B), a float32 rounding of its random matrix; teachgrad prints
    # the documented True. lu_solve is tested in test_linalg_lu.py.)
    "torch.linalg.lu_factor", "torch.linalg.lu", "torch.lu_unpack",
    "torch.triangular_solve", "torch.linalg.ldl_factor", "torch.linalg.ldl_factor_ex",
    "torch.range", "torch.as_strided", "torch.as_strided_scatter", "torch.testing.make_tensor",
    # Tensor methods
    "torch.Tensor.expand", "torch.Tensor.repeat", "torch.Tensor.item", "torch.Tensor.tolist",
    "torch.Tensor.index_add_", "torch.Tensor.index_fill_", "torch.Tensor.scatter_add_",
    "torch.Tensor.masked_scatter", "torch.Tensor.new_tensor", "torch.Tensor.new_zeros",
    "torch.Tensor.new_full", "torch.Tensor.size", "torch.Tensor.stride", "torch.Tensor.unfold",
    "torch.Tensor.register_hook",
    # nn.functional and nn modules
    "torch.nn.functional.one_hot", "torch.nn.functional.pad", "torch.nn.functional.embedding",
    "torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss",
    "torch.nn.functional.binary_cross_entropy", "torch.nn.Linear", "torch.nn.Conv1d",
    "torch.nn.Conv2d", "torch.nn.MaxPool2d", "torch.nn.AvgPool2d", "torch.nn.AdaptiveAvgPool2d",
    "torch.nn.BatchNorm1d", "torch.nn.BatchNorm2d", "torch.nn.Embedding", "torch.nn.Flatten",
    "torch.nn.ReLU", "torch.nn.GELU", "torch.nn.Tanh", "torch.nn.Sigmoid", "torch.nn.Softmax",
    "torch.nn.NLLLoss", "torch.nn.MSELoss", "torch.nn.L1Loss",
    "torch.nn.BCELoss", "torch.nn.BCEWithLogitsLoss", "torch.nn.RNN", "torch.nn.LSTM",
    "torch.nn.GRU", "torch.nn.Upsample", "torch.nn.LinearCrossEntropyLoss",
    # (not nn.CrossEntropyLoss: its example prints a float32 loss and softmax sums whose last
    # digits differ, PyTorch's vectorised exp rounding differently from NumPy's)
    # func
    "torch.func.linearize", "torch.func.functionalize",
    # special, autograd, distributions
    "torch.special.expit", "torch.special.erf", "torch.special.logit", "torch.special.xlogy",
    "torch.special.softmax", "torch.special.log_softmax", "torch.autograd.functional.jacobian",
    "torch.autograd.functional.hessian", "torch.autograd.graph.saved_tensors_hooks",
    "torch.no_grad", "torch.enable_grad", "torch.typename", "torch.distributions.Bernoulli",
    "torch.distributions.Categorical", "torch.distributions.Normal",
]

GOOD = ("same", "random same")


def test_pytorchs_docstring_examples_print_the_same():
    pytest.importorskip("torch")
    from torch_doc_examples import sweep

    results = sweep(MATCHING)
    found = {name for r in results for name in r.example.source_names}
    assert not set(MATCHING) - found, "names without examples"
    bad = [f"{r.example.name} [{r.category}]: {r.detail}" for r in results
           if r.category not in GOOD]
    assert not bad, "\n".join(bad)
