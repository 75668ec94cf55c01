"""Compare what nn ops' nodes saved, ``grad_fn._saved_*``, names and values, with PyTorch.

For each call in ``CASES`` (losses, activations, norms, pooling, convolution, embedding,
dropout, interpolate, padding ...) it builds the graph in both libraries from the same
numbers and walks it from the output: each node's type, then every ``_saved_*`` attribute
either has (a tensor by dtype, shape and values). Run
``python tests/sweep_saved_values_against_torch.py [NAME ...]``: it prints each
difference ("missing": PyTorch's node shows it, teachgrad's not) and the count.
tests/test_nn_saved_values.py holds the fixed ones to PyTorch.

Known differences by design: PyTorch shows a negative int it saved (a dim, ignore_index,
padding_idx) as unsigned, -1 as 18446744073709551615, where teachgrad shows the -1 meant.

What the sweep still prints (19 lines, 2026-11-25), by kind:

* a Python number saved by a Mul/Div node (``MulBackward0._saved_other`` int64 or float64
  in PyTorch, the tensor's dtype here): the number-operand work of the hot path
  (ops/op.py), not this sweep's -- 9 lines. (``MulBackward1``/``DivBackward1`` show
  their number since 2026-11-25.)
* kernel bookkeeping: ``CtcLossBackward0._saved_result1`` (log α, partly unwritten by
  PyTorch's kernel) and ``EmbeddingBagBackward0._saved_result1``-``3``/``_saved_weight``
  (offset2bag, bag sizes, max indices, whose values depend on which CPU fast path PyTorch
  took): not kept -- 9 lines.
* ``rrelu`` in eval mode: PyTorch's ``_saved_noise`` is uninitialised memory -- 1 line.
"""

from __future__ import annotations

import math
import pathlib
import sys
import warnings

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import teachgrad  # noqa: E402


def _plain(value, lib):
    """A saved value as comparable data: a tensor as ("T", dtype, shape, values)."""
    if isinstance(value, lib.Tensor):
        return ("T", str(value.dtype).split(".")[-1], tuple(value.shape),
                value.detach().numpy().copy())
    if isinstance(value, tuple | list):
        return tuple(_plain(x, lib) for x in value)
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def _same(a, b) -> bool:
    if isinstance(a, tuple) and a and a[0] == "T":
        return (isinstance(b, tuple) and bool(b) and b[0] == "T" and a[1:3] == b[1:3]
                and np.allclose(a[3], b[3], equal_nan=True))
    if isinstance(a, tuple):
        return (isinstance(b, tuple) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    if isinstance(a, float) and isinstance(b, float | int):
        return math.isclose(a, b, rel_tol=1e-6)
    return a == b


def _saved(node, lib) -> dict:
    out = {}
    for name in dir(node):
        if name.startswith("_saved_"):
            try:
                out[name] = _plain(getattr(node, name), lib)
            except Exception as error:  # noqa: BLE001 - a difference to show
                out[name] = ("ERROR", type(error).__name__, str(error)[:80])
    return out


def _nodes(output) -> list:
    """The graph's nodes, depth first from ``output.grad_fn``."""
    found, stack, seen = [], [output.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found


ACTIVATIONS = ["relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "mish", "softplus",
               "softshrink", "hardshrink", "hardtanh", "hardsigmoid", "hardswish", "leaky_relu",
               "logsigmoid", "tanhshrink", "softsign", "sigmoid", "tanh"]
CASES = {
    **{name: (lambda F, T, lib, name=name: getattr(F, name)(T(3, 4))) for name in ACTIVATIONS},
    "nll_loss": lambda F, T, lib: F.nll_loss(F.log_softmax(T(3, 4), 1), lib.tensor([0, 2, 1])),
    "nll_loss_w": lambda F, T, lib: (
        F.nll_loss(T(3, 4), lib.tensor([0, 2, 1]), weight=lib.tensor([1., 2., 3., 4.]),
        ignore_index=1, reduction="sum")),
    "nll_loss2d": lambda F, T, lib: (
        F.nll_loss(T(2, 3, 2, 2), lib.tensor([[[0, 1], [2, 0]], [[1, 1], [0, 2]]]))),
    "cross_entropy": lambda F, T, lib: F.cross_entropy(T(3, 4), lib.tensor([0, 2, 1])),
    "cross_entropy_ls": lambda F, T, lib: (
        F.cross_entropy(T(3, 4), lib.tensor([0, 2, 1]), label_smoothing=0.1)),
    "cross_entropy_prob": lambda F, T, lib: F.cross_entropy(T(3, 4), T(3, 4, rg=False).softmax(1)),
    "mse": lambda F, T, lib: F.mse_loss(T(3, 4), T(3, 4, rg=False)),
    "l1": lambda F, T, lib: F.l1_loss(T(3, 4), T(3, 4, rg=False)),
    "smooth_l1": lambda F, T, lib: F.smooth_l1_loss(T(3, 4), T(3, 4, rg=False), beta=0.5),
    "huber": lambda F, T, lib: F.huber_loss(T(3, 4), T(3, 4, rg=False), delta=0.5),
    "bce": lambda F, T, lib: (
        F.binary_cross_entropy(T(3, 4).sigmoid(), T(3, 4, rg=False).sigmoid(),
        weight=lib.ones(3, 4))),
    "bce_logits": lambda F, T, lib: (
        F.binary_cross_entropy_with_logits(T(3, 4), T(3, 4, rg=False).sigmoid(),
        pos_weight=lib.ones(4) * 2)),
    "kl_div": lambda F, T, lib: (
        F.kl_div(T(3, 4), T(3, 4, rg=False).softmax(1), reduction="batchmean")),
    "soft_margin": lambda F, T, lib: F.soft_margin_loss(T(3, 4), T(3, 4, rg=False).sign()),
    "multilabel_margin": lambda F, T, lib: (
        F.multilabel_margin_loss(T(2, 4), lib.tensor([[1, 2, -1, 0], [0, -1, 1, 1]]))),
    "multi_margin": lambda F, T, lib: (
        F.multi_margin_loss(T(3, 4), lib.tensor([0, 2, 1]), p=2, margin=0.5)),
    "poisson_nll": lambda F, T, lib: F.poisson_nll_loss(T(3, 4), T(3, 4, rg=False).abs()),
    "gaussian_nll": lambda F, T, lib: (
        F.gaussian_nll_loss(T(3, 4), T(3, 4, rg=False), T(3, 4).abs())),
    "ctc": lambda F, T, lib: (
        F.ctc_loss(T(5, 2, 4).log_softmax(2), lib.tensor([[1, 2], [1, 1]]), lib.tensor([5,
        5]), lib.tensor([2, 2]))),
    "gelu_tanh": lambda F, T, lib: F.gelu(T(3, 4), approximate="tanh"),
    "elu_inplace": lambda F, T, lib: F.elu(T(3, 4) * 1, inplace=True),
    "leaky_relu_inplace": lambda F, T, lib: F.leaky_relu(T(3, 4) * 1, 0.2, inplace=True),
    "relu_inplace": lambda F, T, lib: F.relu(T(3, 4) * 1, inplace=True),
    "hardtanh_inplace": lambda F, T, lib: F.hardtanh(T(3, 4) * 1, inplace=True),
    "threshold": lambda F, T, lib: F.threshold(T(3, 4), 0.1, 2.0),
    "rrelu_eval": lambda F, T, lib: F.rrelu(T(3, 4), training=False),
    "prelu": lambda F, T, lib: F.prelu(T(2, 3, 4), T(3)),
    "glu": lambda F, T, lib: F.glu(T(3, 4)),
    "softmax": lambda F, T, lib: F.softmax(T(3, 4), 1),
    "log_softmax": lambda F, T, lib: F.log_softmax(T(3, 4), 0),
    "softmin": lambda F, T, lib: F.softmin(T(3, 4), 1),
    "batch_norm_train": lambda F, T, lib: (
        F.batch_norm(T(4, 3, 2), lib.zeros(3), lib.ones(3), T(3), T(3), training=True)),
    "batch_norm_eval": lambda F, T, lib: (
        F.batch_norm(T(4, 3, 2), lib.zeros(3), lib.ones(3), T(3), T(3), training=False)),
    "batch_norm_noaffine": lambda F, T, lib: F.batch_norm(T(4, 3), None, None, training=True),
    "layer_norm": lambda F, T, lib: F.layer_norm(T(2, 3, 4), (4,), T(4), T(4)),
    "layer_norm_noaffine": lambda F, T, lib: F.layer_norm(T(2, 3, 4), (3, 4)),
    "group_norm": lambda F, T, lib: F.group_norm(T(2, 4, 3), 2, T(4), T(4)),
    "instance_norm": lambda F, T, lib: F.instance_norm(T(2, 3, 4)),
    "rms_norm": lambda F, T, lib: F.rms_norm(T(2, 3, 4), (4,), T(4)),
    "local_response_norm": lambda F, T, lib: F.local_response_norm(T(2, 3, 4), 2),
    "normalize": lambda F, T, lib: F.normalize(T(2, 3)),
    "max_pool1d": lambda F, T, lib: F.max_pool1d(T(1, 2, 8), 2),
    "max_pool2d": lambda F, T, lib: F.max_pool2d(T(1, 2, 6, 6), 3, 2, 1),
    "max_pool2d_idx": lambda F, T, lib: F.max_pool2d(T(1, 2, 6, 6), 2, return_indices=True),
    "max_pool3d": lambda F, T, lib: F.max_pool3d(T(1, 1, 4, 4, 4), 2),
    "avg_pool1d": lambda F, T, lib: F.avg_pool1d(T(1, 2, 8), 3, 2, 1),
    "avg_pool2d": lambda F, T, lib: (
        F.avg_pool2d(T(1, 2, 6, 6), 3, 2, 1, ceil_mode=True, count_include_pad=False,
        divisor_override=2)),
    "avg_pool3d": lambda F, T, lib: F.avg_pool3d(T(1, 1, 4, 4, 4), 2),
    "adaptive_avg_pool1d": lambda F, T, lib: F.adaptive_avg_pool1d(T(1, 2, 7), 3),
    "adaptive_avg_pool2d": lambda F, T, lib: F.adaptive_avg_pool2d(T(1, 2, 7, 5), (3, 2)),
    "adaptive_max_pool2d": lambda F, T, lib: F.adaptive_max_pool2d(T(1, 2, 7, 5), (3, 2)),
    "adaptive_max_pool1d": lambda F, T, lib: F.adaptive_max_pool1d(T(1, 2, 7), 3),
    "lp_pool2d": lambda F, T, lib: F.lp_pool2d(T(1, 2, 6, 6), 2, 2),
    "conv1d": lambda F, T, lib: F.conv1d(T(1, 2, 8), T(3, 2, 3), T(3), stride=2, padding=1),
    "conv2d": lambda F, T, lib: (
        F.conv2d(T(1, 2, 6, 6), T(4, 1, 3, 3), T(4), padding=1, dilation=2, groups=2)),
    "conv2d_nobias": lambda F, T, lib: F.conv2d(T(1, 2, 6, 6), T(4, 2, 3, 3)),
    "conv3d": lambda F, T, lib: F.conv3d(T(1, 2, 4, 4, 4), T(3, 2, 2, 2, 2), T(3)),
    "conv_transpose2d": lambda F, T, lib: (
        F.conv_transpose2d(T(1, 2, 4, 4), T(2, 3, 3, 3), T(3), stride=2, output_padding=1)),
    "conv_transpose1d": lambda F, T, lib: (
        F.conv_transpose1d(T(1, 2, 4), T(2, 3, 3), None, stride=2)),
    "embedding": lambda F, T, lib: F.embedding(lib.tensor([[0, 2], [1, 0]]), T(4, 3)),
    "embedding_pad": lambda F, T, lib: (
        F.embedding(lib.tensor([[0, 2], [1, 0]]), T(4, 3), padding_idx=0, scale_grad_by_freq=True)),
    "embedding_maxnorm": lambda F, T, lib: (
        F.embedding(lib.tensor([[0, 2], [1, 0]]), T(4, 3, rg=False).requires_grad_(),
        max_norm=1.0)),
    "embedding_bag": lambda F, T, lib: (
        F.embedding_bag(lib.tensor([0, 2, 1, 3]), T(4, 3), lib.tensor([0, 2]), mode="mean")),
    "embedding_bag_max": lambda F, T, lib: (
        F.embedding_bag(lib.tensor([0, 2, 1, 3]), T(4, 3), lib.tensor([0, 2]), mode="max")),
    "dropout": lambda F, T, lib: F.dropout(T(3, 4), 0.5),
    "dropout_eval": lambda F, T, lib: F.dropout(T(3, 4), 0.5, training=False),
    "dropout2d": lambda F, T, lib: F.dropout2d(T(2, 3, 4, 4), 0.5),
    "alpha_dropout": lambda F, T, lib: F.alpha_dropout(T(3, 4), 0.5, training=True),
    "interp_nearest": lambda F, T, lib: F.interpolate(T(1, 2, 3, 3), scale_factor=2),
    "interp_nearest_size": lambda F, T, lib: F.interpolate(T(1, 2, 3, 3), size=(5, 4)),
    "interp_nearest_exact": lambda F, T, lib: (
        F.interpolate(T(1, 2, 3, 3), size=(5, 4), mode="nearest-exact")),
    "interp_bilinear": lambda F, T, lib: (
        F.interpolate(T(1, 2, 3, 3), scale_factor=1.5, mode="bilinear")),
    "interp_bilinear_ac": lambda F, T, lib: (
        F.interpolate(T(1, 2, 3, 3), size=(5, 4), mode="bilinear", align_corners=True)),
    "interp_linear": lambda F, T, lib: F.interpolate(T(1, 2, 3), scale_factor=2, mode="linear"),
    "interp_bicubic": lambda F, T, lib: F.interpolate(T(1, 2, 3, 3), size=(5, 4), mode="bicubic"),
    "interp_trilinear": lambda F, T, lib: (
        F.interpolate(T(1, 1, 2, 3, 3), scale_factor=2, mode="trilinear")),
    "interp_area": lambda F, T, lib: F.interpolate(T(1, 2, 4, 4), size=(2, 2), mode="area"),
    "linear": lambda F, T, lib: F.linear(T(3, 4), T(5, 4), T(5)),
    "linear_nobias": lambda F, T, lib: F.linear(T(3, 4), T(5, 4)),
    "linear_3d": lambda F, T, lib: F.linear(T(2, 3, 4), T(5, 4), T(5)),
    "bilinear": lambda F, T, lib: F.bilinear(T(3, 4), T(3, 2), T(5, 4, 2), T(5)),
    "pad_reflect": lambda F, T, lib: F.pad(T(1, 2, 5), (2, 1), mode="reflect"),
    "pad_replicate": lambda F, T, lib: F.pad(T(1, 2, 5, 5), (2, 1, 1, 0), mode="replicate"),
    "pad_constant": lambda F, T, lib: F.pad(T(1, 2, 5), (2, 1), value=1.5),
    "pixel_shuffle": lambda F, T, lib: F.pixel_shuffle(T(1, 4, 2, 2), 2),
    "unfold": lambda F, T, lib: F.unfold(T(1, 2, 4, 4), 2),
    "fold": lambda F, T, lib: F.fold(T(1, 8, 9), (4, 4), 2),
    "grid_sample": lambda F, T, lib: (
        F.grid_sample(T(1, 2, 3, 3), T(1, 2, 2, 2).tanh(), align_corners=False)),
    "cosine_similarity": lambda F, T, lib: F.cosine_similarity(T(3, 4), T(3, 4)),
    "pairwise_distance": lambda F, T, lib: F.pairwise_distance(T(3, 4), T(3, 4)),
    "pdist": lambda F, T, lib: F.pdist(T(3, 4)),
    "sdpa": lambda F, T, lib: F.scaled_dot_product_attention(T(1, 2, 3), T(1, 2, 3), T(1, 2, 3)),
    "one_hot": lambda F, T, lib: F.one_hot(lib.tensor([0, 2, 1])).float().requires_grad_() * 2,
}


def compare(name: str, torch) -> list[str]:
    """The differences of one case, as lines."""
    graphs = []
    for lib in (torch, teachgrad):
        lib.manual_seed(0)
        rng = np.random.default_rng(0)

        def T(*shape, rg=True, lib=lib, rng=rng):
            return lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=rg)

        out = CASES[name](lib.nn.functional, T, lib)
        out = out[0] if isinstance(out, tuple) else out
        graphs.append([(type(n).__name__, _saved(n, lib)) for n in _nodes(out)])
    problems = []
    for (theirs_name, theirs), (ours_name, ours) in zip(*graphs):
        if theirs_name != ours_name:
            problems.append(f"node {theirs_name} vs {ours_name}")
            continue
        for key in sorted(set(theirs) | set(ours)):
            if key not in ours:
                problems.append(f"{theirs_name}.{key} missing (torch {str(theirs[key])[:80]})")
            elif key not in theirs:
                problems.append(f"{theirs_name}.{key} extra")
            elif not _same(theirs[key], ours[key]):
                problems.append(f"{theirs_name}.{key}: torch {str(theirs[key])[:150]} / "
                                f"ours {str(ours[key])[:150]}")
    if len(graphs[0]) != len(graphs[1]):
        problems.append(f"node counts {len(graphs[0])} vs {len(graphs[1])}")
    return problems


def main() -> None:
    import torch

    warnings.simplefilter("ignore")
    only = sys.argv[1:]
    total = 0
    for name in CASES:
        if only and name not in only:
            continue
        try:
            problems = compare(name, torch)
        except Exception as error:  # noqa: BLE001 - reported, the sweep goes on
            problems = [f"CRASH {type(error).__name__}: {str(error)[:200]}"]
        for problem in problems:
            print(f"{name}: {problem}")
        total += len(problems)
    print(f"problems: {total}, cases: {len(CASES)}")


if __name__ == "__main__":
    main()
