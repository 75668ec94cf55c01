"""Backward of backward through the ops a learner differentiates twice.

With ``create_graph=True`` a gradient has a graph of its own. Its nodes are checked here
against PyTorch's (the whole graph, node by node, not only the top one, as
test_double_backward_parity.py does), and the second derivatives against hand-derived
values and finite differences. PyTorch's backward formulas call the tensor-with-number
overloads (``MulBackward1``, ``SubBackward1``), ``t()`` rather than ``transpose``, and
``masked_fill_`` rather than ``where``: teachgrad records the same.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import teachgrad

_X = [[0.5, 1.5, -0.7, 2.0], [0.3, -1.2, 0.9, 0.25], [1.1, 0.6, -0.4, 1.7]]
_W = [[2.0, -1.0, 0.4, 0.8], [0.25, 3.0, -0.6, 1.3], [0.7, -0.2, 1.9, 0.1]]
_P = [[0.5, 1.5, 0.7, 2.0], [0.3, 1.2, 0.9, 0.25], [1.1, 0.6, 0.4, 1.7]]  # (positive)

CASES = [
    "x.tanh()", "x.sigmoid()", "x ** 3", "p ** 0.5", "p ** w", "p ** x", "2 ** x",
    "x.pow(w)", "(x * 0) ** w", "x.exp()", "p.log()", "x / w", "1 / p", "p.sqrt()",
    "(x * 0).sqrt()", "x @ w.t()", "x @ w[0]", "x.mv(w[1])", "x.sum(1)", "x.mean()",
    "x[1]", "x[torch.tensor([0, 2])]", "x[x > 0]", "torch.where(x > 0, x * x, w)",
    "x.max()", "x.max(1)[0]", "x.norm()", "x.norm(dim=1)", "x.norm(3)", "x.norm(1.5)",
    "(x - w).norm(2.5, dim=-1, keepdim=True)", "(x * 0).norm(3)", "torch.dist(x, w, 3)",
    "x.std()", "x.std(1)", "x.var()", "x.var() ** 2", "x.var(0, keepdim=True) ** 2",
    "(x * 0).std(1)", "torch.std_mean(x, 1)[0]", "x.softmax(1)", "x.logsumexp(1)",
    "torch.nn.functional.cross_entropy(x, torch.tensor([0, 2, 1]))",
    "torch.nn.functional.nll_loss(x, torch.tensor([0, 2, 1]))",
    "torch.nn.functional.nll_loss(x, torch.tensor([0, 2, 1]), reduction='none')",
    "torch.nn.functional.nll_loss(x, torch.tensor([0, 2, 1]), torch.tensor([1., 2., .5, 3.],"
    " dtype=torch.float64), reduction='sum')",
    "torch.nn.functional.silu(x)",
    # pointwise ops (times w: their second derivative in w too), by PyTorch's formulas
    *[f"{a}.{op}() * w" for a, op in (
        ("p", "sin"), ("p", "cos"), ("p", "tan"), ("p", "tanh"), ("p", "sigmoid"), ("p", "exp"),
        ("p", "log"), ("(p * 0.3)", "asin"), ("(p * 0.3)", "acos"), ("p", "atan"),
        ("p", "sinh"), ("p", "cosh"), ("p", "asinh"), ("(p + 1)", "acosh"),
        ("(p * 0.3)", "atanh"), ("p", "erf"), ("p", "erfc"), ("(p * 0.3)", "erfinv"),
        ("p", "rsqrt"), ("p", "reciprocal"), ("p", "log1p"), ("p", "expm1"), ("p", "log2"),
        ("p", "log10"), ("p", "exp2"), ("p", "sqrt"), ("p", "square"), ("(p * 0.3)", "logit"),
        ("p", "i0"), ("p", "frac"), ("x", "sin"))],
    # reductions with dim, indexing, joining, where, norms
    "x.mean(1, keepdim=True)", "x.prod(1)", "p.prod()", "x.amax(1)", "x.min(0)[0]",
    "x.logsumexp(0)", "x.sum((0, 1), keepdim=True)", "x.cumsum(1)", "x.var(1, correction=0)",
    "x[:, 1:3]", "x[[0, 2], 1]", "x[..., None]", "x.gather(1, torch.tensor([[0], [2], [1]]))",
    "x.expand(2, 3, 4)", "x.reshape(4, 3)", "x.permute(1, 0)", "x.flip(0)", "x.repeat(2, 1)",
    "x.diagonal()", "torch.trace(x[:, :3])", "torch.cat([x, w], 1)", "torch.stack([x, w])",
    "torch.where(x > w, x, w)", "x.clamp(-0.5, 0.5)", "torch.maximum(x, w)", "x.norm(1)",
    "torch.linalg.vector_norm(x, 2, dim=0)", "torch.linalg.norm(x)", "torch.linalg.matrix_norm(x)",
    # matrix products of several shapes
    "x.t().mm(w)", "torch.matmul(x, w.t())", "torch.matmul(x[None], w.t())",
    "torch.matmul(w[0], x.t())", "torch.bmm(x[None], w.t()[None])",
    "x.unsqueeze(0) @ w.unsqueeze(2)",
    # nn: losses, activations, normalization, convolution, pooling
    "torch.nn.functional.mse_loss(x, w)", "torch.nn.functional.smooth_l1_loss(x, w)",
    "torch.nn.functional.huber_loss(x, w)",
    "torch.nn.functional.binary_cross_entropy_with_logits(x, w.sigmoid())",
    "torch.nn.functional.cross_entropy(x, p.softmax(1))",
    "torch.nn.functional.cross_entropy(x, torch.tensor([0, 2, 1]), label_smoothing=0.1)",
    "torch.nn.functional.gaussian_nll_loss(x, w, p)",
    "torch.nn.functional.margin_ranking_loss(x, w, torch.ones(3, 4, dtype=torch.float64))",
    "x.log_softmax(1)", "x.softmax(0)", "torch.nn.functional.softmax(x, -1)",
    "torch.nn.functional.gelu(x)", "torch.nn.functional.elu(x)", "torch.nn.functional.softplus(x)",
    "torch.nn.functional.relu(x)", "torch.nn.functional.leaky_relu(x, 0.1)",
    "torch.nn.functional.logsigmoid(x)", "torch.nn.functional.hardtanh(x)",
    "torch.nn.functional.layer_norm(x, (4,))",
    "torch.nn.functional.layer_norm(x, (4,), w[0], p[0])",
    "torch.nn.functional.batch_norm(x, None, None, training=True)",
    "torch.nn.functional.normalize(x)", "torch.nn.functional.cosine_similarity(x, w)",
    "torch.nn.functional.pairwise_distance(x, w)", "torch.nn.functional.linear(x, w)",
    "torch.nn.functional.linear(x, w, p[0, :3])",
    "torch.nn.functional.conv1d(x[None], w.reshape(2, 3, 2))",
    "torch.nn.functional.conv1d(x[None], w.reshape(2, 3, 2), p[0, :2], padding=1, stride=2)",
    "torch.nn.functional.max_pool1d(x[None], 2)", "torch.nn.functional.avg_pool1d(x[None], 2)",
    "torch.nn.functional.embedding(torch.tensor([0, 2]), x)", "torch.nn.functional.pad(x, (1, 1))",
    # losses whose formulas PyTorch's C++ evaluates right operand first (the order of the
    # nodes decides the order in which the engine sums a gradient's two paths)
    "torch.nn.functional.kl_div(x.log_softmax(1), p.softmax(1), reduction='batchmean')",
    "torch.nn.functional.kl_div(x.log_softmax(1), p.log_softmax(1), reduction='sum',"
    " log_target=True)",
    "torch.nn.functional.poisson_nll_loss(x, p)",
    "torch.nn.functional.poisson_nll_loss(p, w, log_input=False)",
    "torch.nn.functional.poisson_nll_loss(x, p * 3, full=True)",
    # PyTorch's binary_cross_entropy_double_backward (and its target's logit)
    "torch.nn.functional.binary_cross_entropy(p.sigmoid(), w.sigmoid())",
    "torch.nn.functional.binary_cross_entropy(x.sigmoid(), w.sigmoid(), torch.tensor([1., 2.,"
    " .5, 3.], dtype=torch.float64), reduction='sum')",
    "torch.nn.functional.binary_cross_entropy(x.sigmoid(), p.sigmoid(), reduction='none')",
    # the ops whose formulas follow PyTorch's node for node: atan2, mish
    "torch.atan2(x, w)", "torch.atan2(x * 0, w)", "torch.nn.functional.mish(x)",
    # group norm: one NativeGroupNormBackward0 node whose mean and rstd outputs the gradient
    # is written with
    "torch.nn.functional.group_norm(x[None], 1)",
    "torch.nn.functional.group_norm(x.reshape(2, 2, 3), 2)",
    "torch.nn.functional.group_norm(x.reshape(1, 4, 3), 2, w[0], p[0])",
    # det (PyTorch's linalg_det_backward: a solve with det's own output), bilinear (its
    # gradients are _trilinear again: TrilinearBackward0)
    "torch.det(x[:, :3])", "torch.linalg.det(x[:, :3] + w[:, :3])", "torch.det(x[:1, :1])",
    "torch.det(torch.stack([x[:, :3], w[:, 1:]]))",
    "torch.nn.functional.bilinear(x, w, p[:2, :].reshape(2, 4, 1).expand(2, 4, 4))",
    "torch.nn.functional.bilinear(x, w, p[:2, :].reshape(2, 4, 1).expand(2, 4, 4), p[2, :2])",
    # einsum: a pure permutation is a permute, as PyTorch records it (one EinsumBackward0
    # node otherwise: docs/design-notes.md)
    "torch.einsum('ij->ji', x)",
    # more ops whose double backward PyTorch defines: losses,
    "torch.nn.functional.l1_loss(x, w)",
    "torch.nn.functional.triplet_margin_loss(x, w, p)",
    "torch.nn.functional.smooth_l1_loss(x, w, beta=0.5)",
    "torch.nn.functional.huber_loss(x, w, delta=0.5)",
    "torch.nn.functional.kl_div(x.log_softmax(1), p.softmax(1), reduction='sum')",
    "torch.nn.functional.nll_loss(x.log_softmax(1), torch.tensor([0, 2, 1]), ignore_index=2)",
    # activations, normalization, convolution, pooling, attention,
    "torch.nn.functional.selu(x)",
    "torch.nn.functional.softsign(x)",
    "torch.nn.functional.tanhshrink(x)",
    "torch.nn.functional.hardswish(x)",
    "torch.nn.functional.relu6(x * 4)",
    "torch.nn.functional.glu(x)",
    "torch.nn.functional.softmin(x, 1)",
    "torch.nn.functional.log_softmax(x, 0)",
    "torch.nn.functional.gelu(x, approximate='tanh')",
    "torch.nn.functional.softshrink(x, 0.5)",
    "torch.nn.functional.hardshrink(x, 0.5)",
    "torch.nn.functional.threshold(x, 0.3, -1.0)",
    "torch.nn.functional.elu(x, 0.5)",
    "torch.nn.functional.logsigmoid(x) * w",
    "torch.nn.functional.instance_norm(x[None])",
    "torch.nn.functional.local_response_norm(x[None], 2)",
    "torch.nn.functional.rms_norm(x, (4,))",
    "torch.nn.functional.rms_norm(x, (4,), w[0])",
    "torch.nn.functional.conv2d(x[None, None], w[None, None, :2, :2])",
    "torch.nn.functional.conv_transpose1d(x[None], w.reshape(3, 2, 2))",
    "torch.nn.functional.max_pool2d(x[None], 2)",
    "torch.nn.functional.avg_pool2d(x[None], 2)",
    "torch.nn.functional.adaptive_avg_pool1d(x[None], 2)",
    "torch.nn.functional.lp_pool1d(p[None], 2, 2)",
    "torch.nn.functional.interpolate(x[None], scale_factor=2, mode='linear')",
    "torch.nn.functional.dropout(x, 0.0)",
    "torch.nn.functional.unfold(x[None, None], 2)",
    "torch.nn.functional.pixel_shuffle(x.reshape(1, 4, 3, 1), 2)",
    "torch.nn.functional.scaled_dot_product_attention(x[None], w[None], p[None])",
    "torch.nn.functional.embedding(torch.tensor([0, 2]), x, max_norm=None)",
    "torch.nn.functional.one_hot(torch.tensor([0, 2]), 3).double() * x[0, :3]",
    "torch.nn.functional.softplus(x, beta=2, threshold=1)",
    # linear algebra,
    "torch.linalg.solve(x[:, :3], w)",
    "torch.linalg.eigh(x @ x.t())[0]",
    "torch.linalg.svdvals(x)",
    "torch.linalg.pinv(x)",
    "torch.linalg.matrix_power(x[:, :3], 3)",
    "torch.linalg.cross(x[:, :3], w[:, :3])",
    "torch.outer(x[0], w[1])",
    "torch.kron(x[:2, :2], w[:2, :2])",
    "torch.tensordot(x, w, dims=([1], [1]))",
    "torch.addmm(p[:, :3], x, w.t())",
    "torch.addr(x, p[:, 0], w[0])",
    "torch.dot(x[0], w[0])",
    "torch.inner(x, w)",
    "torch.linalg.vecdot(x, w)",
    "torch.linalg.multi_dot([x, w.t(), p])",
    "torch.trace(x[:, :3] @ w[:, :3].t())",
    "torch.linalg.lstsq(x, w).solution",
    "torch.linalg.eigvalsh(x @ x.t())",
    "torch.linalg.matrix_norm(x, 'nuc')",
    "torch.linalg.matrix_norm(x, 2)",
    "torch.linalg.vector_norm(x, float('inf'))",
    # and reductions, scans, indexing, joining, pointwise (first gradients constant in
    # some: their graphs still compared)
    "torch.cumprod(x, 1)",
    "torch.logcumsumexp(x, 1)",
    "torch.cummax(x, 1)[0]",
    "torch.sort(x, 1)[0]",
    "torch.topk(x, 2)[0]",
    "torch.kthvalue(x, 2)[0]",
    "torch.median(x, 1)[0]",
    "torch.nanmean(x)",
    "torch.hypot(x, w)",
    "torch.xlogy(p, w)",
    "torch.fmod(x, 0.7)",
    "torch.remainder(x, 0.7)",
    "torch.special.ndtr(x)",
    "torch.lgamma(p)",
    "torch.digamma(p)",
    "torch.deg2rad(x)",
    "torch.nan_to_num(x)",
    "torch.clamp(x, w, p)",
    "torch.var_mean(x, 1)[0]",
    "torch.std_mean(x)[0]",
    "torch.cov(x)",
    "torch.corrcoef(x)",
    "torch.diff(x, dim=1)",
    "torch.trapezoid(x)",
    "torch.cumulative_trapezoid(x)",
    "torch.tril(x)",
    "torch.roll(x, 1, 1)",
    "torch.rot90(x)",
    "torch.take_along_dim(x, torch.tensor([[0], [2], [1]]), 1)",
    "torch.index_select(x, 1, torch.tensor([0, 2]))",
    "torch.masked_select(x, x > 0)",
    "torch.index_add(x, 1, torch.tensor([0, 2]), w[:, :2])",
    "torch.unbind(x)[1]",
    "torch.split(x, 2, 1)[1]",
    "torch.chunk(x, 2, 1)[0]",
    "torch.narrow(x, 1, 1, 2)",
    "torch.movedim(x[None], 0, 2)",
    "torch.atleast_3d(x)",
    "torch.block_diag(x, w)",
    "torch.cartesian_prod(x[0], w[0])",
    "torch.prod(x, 0)",
    "torch.amin(x, 0)",
    "torch.logsumexp(x, (0, 1))",
    # formulas PyTorch writes in C++ with numbers: 1 - weight (SubBackward0 of a filled
    # constant), value / tensor2 (DivBackward0 of one), tensor2 * value (MulBackward1),
    # 1 + exp(...) (AddBackward1)
    "torch.lerp(x, w, p)", "torch.lerp(x, w, 0.3)", "torch.addcmul(x, w, p)",
    "torch.addcmul(x, w, p, value=0.5)", "torch.addcdiv(x, w, p)",
    "torch.addcdiv(x, w, p, value=0.5)", "torch.logaddexp(x, w)", "torch.logaddexp2(x, w)",
    # prelu: both gradients from one PreluKernelBackwardBackward0, the slopes' summed after
    "torch.nn.functional.prelu(x, p[0, :1])",
    "torch.nn.functional.prelu(x.reshape(1, 3, 4), p[0, :3])",
    "torch.nn.functional.prelu(x[0], p[0, :1])",
    "torch.nn.functional.prelu(x * 0, w[0, :1]) * p",
    "torch.nn.functional.prelu(x, torch.tensor([0.25], dtype=torch.float64))",
    # inv takes inverse.mH() twice (two TransposeBackward0); addmv's mat.t(), baddbmm's and
    # addbmm's bmm with transpose(1, 2); copysign's masked_fill_ (nan at 0, as PyTorch's)
    "torch.linalg.inv(x[:, :3])", "torch.inverse(x[:, :3] + w[:, :3])",
    "torch.linalg.inv(torch.stack([x[:, :3], w[:, 1:]]))",
    "torch.addmv(p[:, 0], x, w[0], beta=0.5, alpha=2)",
    "torch.baddbmm(p[None, :, :3], x[None], w.t()[None], alpha=0.5)",
    "torch.addbmm(p[:, :3], torch.stack([x, w]), torch.stack([w.t(), p.t()]), alpha=2)",
    "torch.copysign(x, w)", "torch.copysign(x * 0, w)",
    # trapezoid with x: x viewed, then its left and right samples, in ATen's order
    "torch.trapz(x, w)", "torch.trapezoid(x, w[0])", "torch.trapezoid(x, w[:, 0], dim=0)",
    "torch.cumulative_trapezoid(x, w)", "torch.cumulative_trapezoid(x, w[0])",
    # special functions by PyTorch's formulas: i1/i1e's where around an epsilon-safe self,
    # i0e's sgn, log_ndtr's and ndtri's exp of the result, mvlgamma's arange of offsets
    "torch.special.xlog1py(p, w)", "torch.special.xlog1py(p, w * 0 - 1)",
    "torch.special.entr(p)", "torch.special.entr(x)", "torch.special.erfcx(x)",
    "torch.special.log_ndtr(x)", "torch.special.log_ndtr(x * 3)",
    "torch.special.ndtri(p * 0.3)", "torch.special.i0e(x)", "torch.special.i1(x)",
    "torch.special.i1e(x)", "torch.special.i0e(x * 0)", "torch.special.i1(x * 0)",
    "torch.special.i1e(x * 0)", "torch.special.multigammaln(p + 2, 2)",
    "torch.mvlgamma(p + 2, 3)", "torch.special.multigammaln(p + 2, 1)",
    # slogdet as a solve with Aᴴ (as det), cholesky by PyTorch's cholesky_backward (two
    # triangular solves), rrelu's one RreluWithNoiseBackwardBackward0 node
    "torch.linalg.slogdet(x[:, :3])[1]", "torch.logdet(x[:, :3] @ x[:, :3].t())",
    "torch.linalg.slogdet(torch.stack([x[:, :3], w[:, 1:]]))[1]",
    "torch.linalg.cholesky(x @ x.t())", "torch.linalg.cholesky(x @ x.t(), upper=True)",
    "torch.cholesky(x @ x.t())", "torch.linalg.cholesky_ex(x @ x.t()).L",
    "torch.linalg.cholesky(torch.stack([x @ x.t(), w @ w.t()]))",
    "torch.nn.functional.rrelu(x, training=False)", "torch.nn.functional.rrelu(x, 0.2, 0.4) * w",
    # qr (tall or square: PyTorch's linalg_qr_backward, its diagonal halved in place) and
    # matrix_exp (the block matrix written into zeros by three copy_: CopySlices)
    "torch.linalg.qr(x.t())[0]", "torch.linalg.qr(x.t())[1]",
    "torch.linalg.qr(x.t() * 2 + w.t())[0] * p.t()", "torch.linalg.qr(x[:, :3])[1]",
    "torch.linalg.qr(torch.stack([x.t(), w.t()]))[1]", "torch.qr(x.t())[0]",
    "torch.linalg.matrix_exp(x[:, :3] * 0.3)", "torch.matrix_exp(x[:, 1:] + w[:, :3])",
    "torch.linalg.matrix_exp(torch.stack([x[:, :3], w[:, 1:]]) * 0.5)",
    "torch.linalg.matrix_exp(x[:1, :1])",
    # renorm: PyTorch's renorm_backward, with vector_norm and its norm_backward recorded
    "torch.renorm(x, 2, 0, 1.0)", "torch.renorm(x, 1, 1, 0.5)", "torch.renorm(x, 3, 0, 2.0)",
    "torch.renorm(x, float('inf'), 0, 1.0)", "torch.renorm(x, 2, 1, 100.0)",
    "torch.renorm(x, 1.5, -1, 1.0) * w",
    # solve_triangular's gradient is solve_triangular with Aᴴ (cholesky_inverse's through
    # cholesky's); cosine_embedding_loss's C++ adds and subtracts numbers
    "torch.linalg.solve_triangular(x[:, :3].triu() + 3 * torch.eye(3, dtype=torch.float64), w,"
    " upper=True)",
    "torch.linalg.solve_triangular(x[:, :3] + 3 * torch.eye(3, dtype=torch.float64), w,"
    " upper=True, unitriangular=True)",
    "torch.linalg.solve_triangular(x[:, 1:] + 3 * torch.eye(3, dtype=torch.float64), w.t(),"
    " upper=False, left=False, unitriangular=True)",
    "torch.cholesky_inverse(torch.linalg.cholesky(p @ p.t()))",
    "torch.triangular_solve(w, x[:, :3].triu() + 3 * torch.eye(3, dtype=torch.float64))[0]",
    "torch.triangular_solve(w, x[:, :3] + 3 * torch.eye(3, dtype=torch.float64),"
    " upper=False, transpose=True, unitriangular=True)[0]",
    "torch.nn.functional.cosine_embedding_loss(x, w, torch.tensor([1., -1., 1.],"
    " dtype=torch.float64))",
    "torch.nn.functional.cosine_embedding_loss(x[0], w[0], torch.tensor(-1.,"
    " dtype=torch.float64), margin=-0.5)",
    # each max pooling's double-backward node is named after it, as PyTorch's
    "torch.nn.functional.max_pool3d(x.reshape(1, 1, 3, 2, 2), 1)",
    "torch.nn.functional.adaptive_max_pool1d(x[None], 2)",
    "torch.nn.functional.adaptive_max_pool2d(x[None], 2)",
    "torch.nn.functional.adaptive_max_pool3d(x.reshape(1, 1, 3, 2, 2), 1)",
    "torch.nn.functional.fractional_max_pool2d(x[None], 2, output_size=1,"
    " _random_samples=torch.tensor([[[0.5, 0.5]]], dtype=torch.float64))",
    "torch.nn.functional.fractional_max_pool3d(x.reshape(1, 1, 3, 2, 2), 1, output_size=1,"
    " _random_samples=torch.tensor([[[0.5, 0.5, 0.5]]], dtype=torch.float64))",
    # eigh's eigenvectors and svd's singular vectors: PyTorch's linalg_eig_backward and
    # svd_backward (the gaps' diagonal filled in place: CopySlices; U and Vh narrowed).
    # Eigen- and singular vectors are defined up to sign, and LAPACK's signs can differ
    # from PyTorch's: a squared vector or a matrix whose signs agree keeps the values
    # comparable.
    "torch.linalg.eigh(x @ x.t())[1]",
    "torch.linalg.eigh(x @ x.t())[1] * torch.linalg.eigh(x @ x.t())[0]",
    "torch.linalg.eigh(torch.stack([x @ x.t(), w @ w.t()]))[1] ** 2",
    "torch.linalg.eigh(x @ x.t(), UPLO='U')[1] * p[:, :3]",
    "torch.linalg.svd(x)[0]", "torch.linalg.svd(x)[2]",
    "torch.linalg.svd(x, full_matrices=False)[0]",
    "torch.linalg.svd(x, full_matrices=False)[2]",
    "torch.linalg.svd(x.t(), full_matrices=False)[0] ** 2", "torch.linalg.svd(x.t())[0] ** 2",
    "torch.linalg.svd(x[:, :3])[0] * p[:, :3]", "torch.svd(x.t())[2] ** 2",
    "torch.linalg.matrix_norm(x, 'nuc')",
    # LU: PyTorch's lu_factor_ex_backward (lu_unpack of the saved LU, narrow), its
    # linalg_lu_backward (two solve_triangular) and linalg_lu_solve_LU; B's gradient is
    # lu_solve again
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(x[:, :3]), w)",
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(x[:, :3]), w, adjoint=True)",
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(x[:, :3]), w.t(), left=False)",
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(x[:, :3]), w.t(), left=False, adjoint=True)",
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(torch.stack([x[:, :3], w[:, 1:]])), p[:, :2])",
    "torch.linalg.lu_factor(x[:, :3])[0]", "torch.linalg.lu_factor(x)[0]",
    "torch.linalg.lu_factor(x.t())[0]", "torch.linalg.lu(x)[1]", "torch.linalg.lu(x)[2]",
    "torch.linalg.lu(x.t())[1] * torch.linalg.lu(x.t())[2].sum()",
    "torch.linalg.lu(x[:, :3])[1] * w[:, :3]",
    "torch.lu_unpack(*torch.linalg.lu_factor(x[:, :3]))[1]",
    "torch.lu_unpack(*torch.linalg.lu_factor(x.t()))[1]",
    # cholesky_solve: B's gradient is cholesky_solve again (CholeskySolveBackward0)
    "torch.cholesky_solve(w, torch.linalg.cholesky(p[:, :3].t() @ p[:, :3]"
    " + torch.eye(3, dtype=torch.float64)))",
    "torch.cholesky_solve(w[:, :2], x[:, :3].tril() + 3 * torch.eye(3, dtype=torch.float64))",
    "torch.cholesky_solve(torch.stack([w, p]), x[:, :3].triu()"
    " + 3 * torch.eye(3, dtype=torch.float64), upper=True)",
    # cond: ±2 from svdvals; 'nuc' a product whose right operand PyTorch's C++ makes first
    # (orders 1, inf and 'fro' differentiate in teachgrad only: PyTorch's backward fails)
    "torch.linalg.cond(x[:, :3])", "torch.linalg.cond(x.t())", "torch.linalg.cond(x, -2)",
    "torch.linalg.cond(x[:, :3], 'nuc')",
    "torch.linalg.cond(torch.stack([x[:, :3], w[:, 1:]]), 'nuc')",
    # solve with a vector B: its gradient squeezed back (SqueezeBackward1); tensorsolve
    # flattens B (a vector stays itself)
    "torch.linalg.solve(x[:, :3] @ w[:, :3].t() + 3 * torch.eye(3, dtype=torch.float64),"
    " p[0, :3])",
    "torch.linalg.solve(torch.stack([x[:, :3], w[:, 1:]]) + 3 * torch.eye(3,"
    " dtype=torch.float64), p[:2, :3])",
    "torch.linalg.tensorsolve(x[:, :3] @ w[:, :3].t() + 3 * torch.eye(3, dtype=torch.float64),"
    " p[0, :3])",
    "torch.linalg.tensorsolve((x.t() @ w).reshape(2, 2, 4) + 3 * torch.eye(4,"
    " dtype=torch.float64).reshape(2, 2, 4), p[:2, :2])",
    # scatter_reduce('prod'): PyTorch's scatter_reduce_backward (masked_fill, gather)
    "x.scatter_reduce(1, torch.tensor([[0, 1, 0, 1]] * 3), p, 'prod')",
    "x.scatter_reduce(1, torch.tensor([[0, 1, 0, 1]] * 3), p, 'prod', include_self=False)",
    "(x * (x > 0)).scatter_reduce(1, torch.tensor([[0, 1, 0, 1]] * 3),"
    " p.masked_fill(torch.tensor([[True, False, False, False]] * 3), 0), 'prod')",
    # qr of a wide matrix: PyTorch's linalg_qr_backward for m < n (a lower triangle, a
    # triangular solve with R's square part, zeros concatenated, Q ḡR added)
    "torch.linalg.qr(x)[1]", "torch.linalg.qr(x)[0]",
    "torch.linalg.qr(x)[0] * torch.linalg.qr(x)[1][:, :3]",
    "torch.linalg.qr(torch.stack([x, w]))[1]", "torch.linalg.qr(x, mode='complete')[1]",
    # householder_product: PyTorch's householder_product_backward (K updated by two
    # reflectors a step, each step's gradients copied in place: CopySlices; tril_)
    "torch.linalg.householder_product(x.t(), w[0, :3])",
    "torch.linalg.householder_product(x.t(), w[0, :2])",
    "torch.linalg.householder_product(x[:, :3], w[0, :3] * 0.3)",
    "torch.linalg.householder_product(torch.stack([x.t(), w.t()]), p[:2, :3] * 0.5)",
    "torch.orgqr(x.t(), w[0, :3])",
    # ormqr: PyTorch's ormqr_backward (ormqr with Qᵀ for C; householder_product_backward,
    # walked from the last reflector when Q multiplies from the other side)
    "torch.ormqr(x.t(), w[0, :3], p.t())", "torch.ormqr(x.t(), w[0, :3], p, left=False)",
    "torch.ormqr(x.t(), w[0, :3], p.t(), transpose=True)",
    "torch.ormqr(x.t(), w[0, :3], p, left=False, transpose=True)",
    # solve from the right: B's gradient is one solve with Aᴴ from the right
    "torch.linalg.solve(x[:, :3], w.t(), left=False)",
    "torch.linalg.solve(torch.stack([x[:, :3], w[:, 1:]]), p.t(), left=False)",
    # p-norms below 1: PyTorch's sgn · |x|^(p−1) masked_fill_ at the zeros (whose second
    # derivative is then nan, as PyTorch's)
    "torch.linalg.vector_norm(x, 0.5)", "torch.linalg.vector_norm(x, -1.5, dim=0)",
    "torch.linalg.vector_norm(torch.where(x > 0, x, 0), 0.5, dim=1)",
    "torch.dist(x, w, 0.5)",
    # index_reduce('prod'): scatter_reduce's formula with index_reduce, index_select and
    # index_fill, as PyTorch's index_reduce_backward
    "x.index_reduce(1, torch.tensor([0, 1, 0, 1]), p, 'prod')",
    "x.index_reduce(0, torch.tensor([0, 2, 0]), p, 'prod', include_self=False)",
    "(x * (x > 0)).index_reduce(1, torch.tensor([0, 1, 0, 2]),"
    " p.masked_fill(torch.tensor([[True, False, False, False]] * 3), 0), 'prod')",
]

#: second graphs not yet as PyTorch's (the values are): strict xfails, so fixing one shows
GRAPHS_NOT_YET_AS_PYTORCH = {
}


def _graph(fn, seen=None) -> list:
    """The node names of a graph, depth first along next_functions (shared nodes once)."""
    seen = set() if seen is None else seen
    if fn is None or id(fn) in seen:
        return []
    seen.add(id(fn))
    names = [type(fn).__name__]
    for next_fn, _ in fn.next_functions:
        names += _graph(next_fn, seen)
    return names


def _twice(lib, expression: str):
    """(each first gradient's graph, the second derivatives) of a weighted sum of
    ``expression`` with respect to its inputs."""
    env = {name: lib.tensor(values, dtype=lib.float64, requires_grad=True)
           for name, values in (("x", _X), ("w", _W), ("p", _P))}
    out = eval(expression, {"torch": lib, **env})
    weights = lib.arange(out.numel(), dtype=out.dtype).reshape(out.shape) * 0.1 + 0.3
    inputs = [env[name] for name in "xwp" if re.search(rf"\b{name}\b", expression)]
    grads = lib.autograd.grad((out * weights).sum(), inputs, create_graph=True)
    total = sum((g * (lib.arange(g.numel(), dtype=g.dtype).reshape(g.shape) * 0.2 - 0.7)).sum()
                for g in grads)
    if not total.requires_grad:  # (a gradient constant in the inputs: sum, x[1]...)
        return [_graph(g.grad_fn) for g in grads], None
    second = lib.autograd.grad(total, inputs, allow_unused=True)
    return ([_graph(g.grad_fn) for g in grads], [_values(s) for s in second])


def _values(t):
    """A second derivative's values; PyTorch's zeros that hold no memory (a ZeroTensor, from
    formulas whose derivative is 0: |x|, sign) as the zeros they are."""
    if t is None:
        return None
    if getattr(t, "_is_zerotensor", lambda: False)():
        return np.zeros(tuple(t.shape))
    return np.array(t.tolist())


@pytest.mark.torch
@pytest.mark.parametrize("expression", CASES + [
    pytest.param(e, marks=pytest.mark.xfail(reason=why, strict=True))
    for e, why in GRAPHS_NOT_YET_AS_PYTORCH.items()])
def test_second_graph_and_second_derivatives_as_pytorch(expression):
    real = pytest.importorskip("torch")
    ours, theirs = _twice(teachgrad, expression), _twice(real, expression)
    assert ours[0] == theirs[0]
    assert (ours[1] is None) == (theirs[1] is None)
    for a, b in zip(ours[1] or (), theirs[1] or ()):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)


# --- without PyTorch: hand-derived second derivatives and the nodes PyTorch records -------
def _tensor(values, requires_grad=True):
    return teachgrad.tensor(values, dtype=teachgrad.float64, requires_grad=requires_grad)


def test_sqrt_and_number_powers_record_the_tensor_times_number_node():
    p = _tensor([0.5, 2.0, 4.0])
    (g,) = teachgrad.autograd.grad(p.sqrt().sum(), p, create_graph=True)
    assert _graph(g.grad_fn)[:3] == ["DivBackward0", "MulBackward1", "SqrtBackward0"]
    (h,) = teachgrad.autograd.grad(g.sum(), p)  # d/dp 1/(2√p) = -1/(4 p^(3/2))
    assert h.tolist() == pytest.approx([-1 / (4 * v ** 1.5) for v in (0.5, 2.0, 4.0)])
    x = _tensor([-1.0, 0.0, 1.5])
    (g,) = teachgrad.autograd.grad((2 ** x).sum(), x, create_graph=True)
    assert _graph(g.grad_fn) == ["MulBackward0", "MulBackward1", "PowBackward2", "AccumulateGrad"]
    (h,) = teachgrad.autograd.grad(g.sum(), x)  # 2^x (ln 2)²
    assert h.tolist() == pytest.approx([2 ** v * math.log(2) ** 2 for v in (-1.0, 0.0, 1.5)])


def test_tensor_power_records_pytorchs_formulas_and_their_nan_at_base_zero():
    p, w = _tensor([0.5, 2.0, 0.0]), _tensor([1.5, -0.5, 2.0])
    (g,) = teachgrad.autograd.grad((p ** w).sum(), p, create_graph=True)
    assert "SubBackward1" in _graph(g.grad_fn)  # (w - 1: tensor minus number)
    # d/dw of w·p^(w−1) = p^(w−1) + w·p^(w−1)·ln p
    (h,) = teachgrad.autograd.grad(g[:2].sum(), w)
    assert h.tolist()[:2] == pytest.approx(
        [b ** (e - 1) * (1 + e * math.log(b)) for b, e in ((0.5, 1.5), (2.0, -0.5))])
    # in the exponent: where(p == 0 & w >= 0, 0, result·log p); differentiated again the
    # branch not taken gets 0, times log 0 = -inf: nan at p = 0, as PyTorch's
    (g,) = teachgrad.autograd.grad((p ** w).sum(), w, create_graph=True)
    assert g.tolist()[2] == 0.0
    (h,) = teachgrad.autograd.grad(g.sum(), p)
    assert math.isnan(h.tolist()[2])


def test_mv_gradient_of_the_vector_goes_through_t():
    m, v = _tensor(_X), _tensor([0.1, -0.2, 0.3, 0.4])
    (g,) = teachgrad.autograd.grad(m.mv(v).sum(), v, create_graph=True)
    assert _graph(g.grad_fn) == ["MvBackward0", "TBackward0", "AccumulateGrad"]
    (h,) = teachgrad.autograd.grad(g.sum(), m)  # g_j = Σ_i m_ij: each entry's slope is 1
    assert h.tolist() == [[1.0] * 4] * 3


def _finite_difference_of_gradient(f, values, eps=1e-6):
    """d/dx_k of Σ_i ∂f/∂x_i (the second derivative the tests take), by central
    differences of the first gradient."""
    def grad_sum(vals):
        x = _tensor(vals)
        (g,) = teachgrad.autograd.grad(f(x), x)
        return float(np.sum(g.tolist()))

    flat = np.array(values, dtype=float).ravel()
    out = []
    for k in range(flat.size):
        up, down = flat.copy(), flat.copy()
        up[k] += eps
        down[k] -= eps
        shape = np.shape(values)
        out.append((grad_sum(up.reshape(shape).tolist())
                    - grad_sum(down.reshape(shape).tolist())) / (2 * eps))
    return np.array(out).reshape(np.shape(values))


@pytest.mark.parametrize("f, first_nodes", [
    (lambda x: x.norm(3), ["MulBackward0", "MulBackward0", "AccumulateGrad", "PowBackward0",
                           "AbsBackward0", "MaskedFillBackward0", "DivBackward0"]),
    (lambda x: x.norm(1.5, dim=1).sum(), ["MulBackward0", "MulBackward0", "SgnBackward0"]),
    (lambda x: x.std(), ["MulBackward0", "MulBackward1", "MaskedFillBackward0",
                         "DivBackward0", "MulBackward1", "StdBackward0"]),
    (lambda x: x.var() ** 2, ["MulBackward0", "MulBackward1"]),
])
def test_norm_and_std_second_derivatives_match_finite_differences(f, first_nodes):
    x = _tensor(_X)
    (g,) = teachgrad.autograd.grad(f(x), x, create_graph=True)
    assert _graph(g.grad_fn)[:len(first_nodes)] == first_nodes
    (h,) = teachgrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.tolist(), _finite_difference_of_gradient(f, _X),
                               rtol=1e-5, atol=1e-6)


def test_var_over_everything_centres_with_the_full_mean():
    x = _tensor(_X)
    (g,) = teachgrad.autograd.grad(x.var() ** 2, x, create_graph=True)
    assert "MeanBackward0" in _graph(g.grad_fn) and "MeanBackward1" not in _graph(g.grad_fn)


def test_nll_loss_gradient_is_one_node_reaching_the_input():
    """PyTorch's NllLossBackwardBackward0 lists the input (its second derivative there is
    0) and differentiates in the incoming gradient: nll_loss itself on that gradient."""
    x = _tensor(_X)
    target = teachgrad.tensor([0, 2, 1])
    up = _tensor([0.5, -2.0, 3.0])
    losses = teachgrad.nn.functional.nll_loss(x, target, reduction="none")
    (g,) = teachgrad.autograd.grad(losses, x, up, create_graph=True)
    assert _graph(g.grad_fn) == ["NllLossBackwardBackward0", "AccumulateGrad", "AccumulateGrad"]
    assert g.tolist() == [[-0.5, 0, 0, 0], [0, 0, 2.0, 0], [0, -3.0, 0, 0]]
    weights = _tensor([[1.0, 2.0, 3.0, 4.0]] * 3, requires_grad=False)
    dx, dup = teachgrad.autograd.grad((g * weights).sum(), (x, up))
    assert dx.tolist() == [[0.0] * 4] * 3  # (a tensor of zeros, as PyTorch's)
    assert dup.tolist() == [-1.0, -3.0, -2.0]  # -weights[n, target[n]]
    (g,) = teachgrad.autograd.grad(teachgrad.nn.functional.cross_entropy(x, target), x,
                                   create_graph=True)
    assert _graph(g.grad_fn)[:3] == ["LogSoftmaxBackwardDataBackward0",
                                     "NllLossBackwardBackward0", "LogSoftmaxBackward0"]


def _nll_second(lib, gg_rows):
    """nll_loss's double-backward node's saved values, and the derivatives of its gradient
    on ``gg`` (infs and nans off the target positions)."""
    x = lib.tensor(_X, dtype=lib.float64, requires_grad=True)
    up = lib.tensor([0.5, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
    weight = lib.tensor([0.5, 2.0, 1.0, 0.25], dtype=lib.float64)
    losses = lib.nn.functional.nll_loss(x, lib.tensor([0, 2, 1]), weight, ignore_index=1,
                                        reduction="none")
    (g,) = lib.autograd.grad(losses, x, up, create_graph=True)
    node = g.grad_fn
    saved = {name: getattr(node, name) for name in dir(node) if name.startswith("_saved_")}
    saved = {name: value.tolist() if isinstance(value, lib.Tensor) else value
             for name, value in saved.items()}
    gg = lib.tensor(gg_rows, dtype=lib.float64)
    dx, dup = lib.autograd.grad(g, (x, up), gg)
    return saved, dx.tolist(), dup.tolist()


_NLL_GG = [[math.inf, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, math.nan], [1.0, 7.0, -math.inf, 1.0]]


def test_nll_loss_second_node_saves_pytorchs_values_and_keeps_infs_off_target_out():
    saved, dx, dup = _nll_second(teachgrad, _NLL_GG)
    assert saved == {"_saved_ignore_index": 1, "_saved_reduction": 0,
                     "_saved_target": [0, 2, 1], "_saved_weight": [0.5, 2.0, 1.0, 0.25]}
    # ∂/∂x: zeros (not gg·0, nan at the infs); ∂/∂up: -w[t]·gg[n, t], 0 for the ignored
    # sample 2 (its -inf at class 2 is not its target)
    assert dx == [[0.0] * 4] * 3
    assert dup == [-0.5 * math.inf, -1.0 * 3.0, 0.0]


@pytest.mark.torch
def test_nll_loss_second_node_as_pytorchs():
    real = pytest.importorskip("torch")
    ours, theirs = _nll_second(teachgrad, _NLL_GG), _nll_second(real, _NLL_GG)
    assert ours[0] == theirs[0] and ours[1] == theirs[1]
    np.testing.assert_array_equal(ours[2], theirs[2])


def test_pointwise_second_graphs_use_pytorchs_number_overloads():
    """PyTorch's C++ formulas add a number (AddBackward1), multiply by one (MulBackward1) and
    subtract from one by filling a tensor (SubBackward0, its first input a constant)."""
    p = _tensor([0.2, 0.5, -0.4])
    (g,) = teachgrad.autograd.grad(p.log1p().sum(), p, create_graph=True)
    assert _graph(g.grad_fn) == ["DivBackward0", "AddBackward1", "AccumulateGrad"]
    (h,) = teachgrad.autograd.grad(g.sum(), p)  # d/dp 1/(1+p) = -1/(1+p)²
    assert h.tolist() == pytest.approx([-1 / (1 + v) ** 2 for v in (0.2, 0.5, -0.4)])
    (g,) = teachgrad.autograd.grad(p.atanh().sum(), p, create_graph=True)
    # (grad * 1 is a constant here: the incoming gradient needs none)
    assert _graph(g.grad_fn) == ["DivBackward0", "SubBackward0", "PowBackward0",
                                 "AccumulateGrad"]
    assert g.grad_fn.next_functions[1][0].next_functions[0][0] is None  # (the filled ones)
    (h,) = teachgrad.autograd.grad(g.sum(), p)  # d/dp 1/(1−p²) = 2p/(1−p²)²
    assert h.tolist() == pytest.approx([2 * v / (1 - v * v) ** 2 for v in (0.2, 0.5, -0.4)])
    (g,) = teachgrad.autograd.grad(p.erf().sum(), p, create_graph=True)
    assert _graph(g.grad_fn)[:5] == ["MulBackward0", "MulBackward1", "ExpBackward0",
                                     "NegBackward0", "PowBackward0"]
    (h,) = teachgrad.autograd.grad(g.sum(), p)  # d/dp 2/√π e^(−p²) = −4p/√π e^(−p²)
    assert h.tolist() == pytest.approx(
        [-4 * v / math.sqrt(math.pi) * math.exp(-v * v) for v in (0.2, 0.5, -0.4)])


def test_silu_second_graph_has_pytorchs_number_add_and_tensor_sub():
    x = _tensor([-1.5, 0.0, 0.7, 2.0])
    f = teachgrad.nn.functional.silu
    (g,) = teachgrad.autograd.grad(f(x).sum(), x, create_graph=True)
    assert _graph(g.grad_fn) == ["MulBackward0", "MulBackward0", "SigmoidBackward0",
                                 "AccumulateGrad", "AddBackward1", "MulBackward0",
                                 "SubBackward0"]
    s = [1 / (1 + math.exp(-v)) for v in (-1.5, 0.0, 0.7, 2.0)]
    assert g.tolist() == pytest.approx([si * (1 + v * (1 - si))
                                        for si, v in zip(s, (-1.5, 0.0, 0.7, 2.0))])
    (h,) = teachgrad.autograd.grad(g.sum(), x)  # d²(xσ)/dx² = σ(1−σ)(2 + x(1 − 2σ))
    assert h.tolist() == pytest.approx([si * (1 - si) * (2 + v * (1 - 2 * si))
                                        for si, v in zip(s, (-1.5, 0.0, 0.7, 2.0))])


def test_binary_cross_entropy_keeps_its_denominators_off_zero_as_pytorch():
    """The first-order kernel divides by max((1−p)·p, ε) with PyTorch's float EPSILON,
    1e-12 rounded to float32 even for float64; the second-order formulas by
    (p + ε)(1 − p + ε) with the double 1e-12."""
    eps32 = float(np.float32(1e-12))  # 9.99999996e-13
    p, t = _tensor([0.25, 1.0]), _tensor([0.5, 0.3])
    loss = teachgrad.nn.functional.binary_cross_entropy(p, t, reduction="sum")
    gp, gt = teachgrad.autograd.grad(loss, (p, t), create_graph=True)
    assert gp.tolist() == [(0.25 - 0.5) / (0.75 * 0.25), (1.0 - 0.3) / eps32]
    assert _graph(gt.grad_fn)[:3] == ["MulBackward0", "NegBackward0", "LogitBackward0"]
    assert gt.tolist()[0] == pytest.approx(-math.log(0.25 / 0.75))
    (d2,) = teachgrad.autograd.grad(gp[0], p)  # (p² − 2pt + t) / ((p + ε)²(1 − p + ε)²)
    assert d2.tolist()[0] == pytest.approx(
        (0.25 ** 2 - 2 * 0.25 * 0.5 + 0.5) / ((0.25 + 1e-12) ** 2 * (0.75 + 1e-12) ** 2))


def test_atan2_gradient_is_pytorchs_reciprocal_formula():
    x, w = _tensor([0.5, -1.5, 0.0]), _tensor([2.0, 0.25, 0.0])
    gx, gw = teachgrad.autograd.grad(teachgrad.atan2(x, w).sum(), (x, w), create_graph=True)
    assert _graph(gx.grad_fn)[:5] == ["MulBackward0", "MulBackward0", "AccumulateGrad",
                                      "MaskedFillBackward0", "ReciprocalBackward0"]
    # w/(x² + w²), −x/(x² + w²); 0 at the origin (masked), as PyTorch's
    assert gx.tolist() == pytest.approx([2.0 / 4.25, 0.25 / 2.3125, 0.0])
    assert gw.tolist() == pytest.approx([-0.5 / 4.25, 1.5 / 2.3125, 0.0])
    (h,) = teachgrad.autograd.grad(gx[:2].sum(), x)  # d/dx w/(x² + w²) = −2xw/(x² + w²)²
    assert h.tolist()[:2] == pytest.approx([-2 * 0.5 * 2.0 / 4.25 ** 2,
                                            2 * 1.5 * 0.25 / 2.3125 ** 2])


def test_softplus_curvature_stops_at_the_threshold_as_pytorchs():
    """PyTorch's softplus_double_backward keeps σ'(βa)·β only where βa < threshold: at
    βa == threshold the first derivative is still σ(βa), the second 0."""
    a = _tensor([0.5, 0.25])
    f = teachgrad.nn.functional.softplus
    (g,) = teachgrad.autograd.grad(f(a, beta=2, threshold=1).sum(), a, create_graph=True)
    s = [1 / (1 + math.exp(-2 * v)) for v in (0.5, 0.25)]
    assert g.tolist() == pytest.approx(s)
    (h,) = teachgrad.autograd.grad(g.sum(), a)
    assert h.tolist() == pytest.approx([0.0, 2 * s[1] * (1 - s[1])])
