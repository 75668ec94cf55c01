"""nn ops' ``grad_fn._saved_*`` hold PyTorch's values (not only its names): the input and
the parameters of activations, normalisations, pooling, embedding and interpolate, which
teachgrad's nodes kept but did not show (``HardtanhBackward0._saved_min_val``,
``NativeBatchNormBackward0._saved_result1``, ``MaxPool2DWithIndicesBackward0._saved_stride``,
``UpsampleBilinear2DBackward0._saved_scales_h`` ...)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import teachgrad

# (PyTorch shows a negative int it saved as unsigned: -1 as 18446744073709551615;
# teachgrad shows the -1 meant. These cases avoid such values.)
CASES = {
    "leaky_relu": lambda F, T, lib: F.leaky_relu(T(3, 4), 0.2),
    "relu6": lambda F, T, lib: F.relu6(T(3, 4)),
    "hardtanh": lambda F, T, lib: F.hardtanh(T(3, 4), -0.5, 0.75),
    "elu": lambda F, T, lib: F.elu(T(3, 4), 0.5),
    "selu": lambda F, T, lib: F.selu(T(3, 4)),
    "celu": lambda F, T, lib: F.celu(T(3, 4), 0.7),
    "softplus": lambda F, T, lib: F.softplus(T(3, 4), 2.0, 5.0),
    "gelu_tanh": lambda F, T, lib: F.gelu(T(3, 4), approximate="tanh"),
    "logsigmoid": lambda F, T, lib: F.logsigmoid(T(3, 4)),
    "softshrink": lambda F, T, lib: F.softshrink(T(3, 4), 0.3),
    "hardshrink": lambda F, T, lib: F.hardshrink(T(3, 4), 0.3),
    "threshold": lambda F, T, lib: F.threshold(T(3, 4), 0.1, 2.0),
    "prelu": lambda F, T, lib: F.prelu(T(2, 3, 4), T(3)),
    "batch_norm_train": lambda F, T, lib: F.batch_norm(
        T(4, 3, 2), lib.zeros(3), lib.ones(3), T(3), T(3), training=True, eps=1e-3),
    "batch_norm_eval": lambda F, T, lib: F.batch_norm(
        T(4, 3, 2), lib.zeros(3), lib.ones(3), T(3), T(3), training=False),
    "batch_norm_plain": lambda F, T, lib: F.batch_norm(T(4, 3), None, None, training=True),
    "layer_norm": lambda F, T, lib: F.layer_norm(T(2, 3, 4), (4,), T(4), T(4)),
    "layer_norm_plain": lambda F, T, lib: F.layer_norm(T(2, 3, 4), (3, 4)),
    "group_norm": lambda F, T, lib: F.group_norm(T(2, 4, 3), 2, T(4), T(4), eps=1e-4),
    "max_pool1d": lambda F, T, lib: F.max_pool1d(T(1, 2, 8), 3, 2, 1).squeeze(0),
    "max_pool2d": lambda F, T, lib: F.max_pool2d(T(1, 2, 6, 6), 3, 2, 1),
    "max_pool2d_default_stride": lambda F, T, lib: F.max_pool2d(T(1, 2, 6, 6), 2),
    "max_pool3d": lambda F, T, lib: F.max_pool3d(T(1, 1, 4, 4, 4), 2),
    "avg_pool2d": lambda F, T, lib: F.avg_pool2d(T(1, 2, 6, 6), 3, 2, 1, ceil_mode=True,
                                                 count_include_pad=False, divisor_override=2),
    "avg_pool3d": lambda F, T, lib: F.avg_pool3d(T(1, 1, 4, 4, 4), 2),
    "adaptive_avg_pool2d": lambda F, T, lib: F.adaptive_avg_pool2d(T(1, 2, 7, 5), (3, 2)),
    "adaptive_max_pool2d": lambda F, T, lib: F.adaptive_max_pool2d(T(1, 2, 7, 5), (3, 2)),
    "embedding": lambda F, T, lib: F.embedding(lib.tensor([[0, 2], [1, 0]]), T(4, 3),
                                               padding_idx=2, scale_grad_by_freq=True),
    "pad_constant": lambda F, T, lib: F.pad(T(1, 2, 5, 4), (2, 1, 0, 3), value=1.5),
    "pad_reflect": lambda F, T, lib: F.pad(T(1, 2, 5), (2, 1), mode="reflect"),
    "pad_replicate": lambda F, T, lib: F.pad(T(1, 2, 5, 5), (2, 1, 1, 0), mode="replicate"),
    "pixel_shuffle": lambda F, T, lib: F.pixel_shuffle(T(1, 4, 2, 2), 2),
    "pixel_unshuffle": lambda F, T, lib: F.pixel_unshuffle(T(1, 1, 4, 4), 2),
    "channel_shuffle": lambda F, T, lib: F.channel_shuffle(T(1, 4, 2, 2), 2),
    "interp_nearest": lambda F, T, lib: F.interpolate(T(1, 2, 3, 3), scale_factor=2),
    "interp_bilinear": lambda F, T, lib: F.interpolate(T(1, 2, 3, 3), scale_factor=1.5,
                                                       mode="bilinear"),
    "interp_bicubic": lambda F, T, lib: F.interpolate(T(1, 2, 3, 3), size=(5, 4),
                                                      mode="bicubic", align_corners=True),
    "interp_linear": lambda F, T, lib: F.interpolate(T(1, 2, 3), scale_factor=2, mode="linear"),
    "interp_trilinear": lambda F, T, lib: F.interpolate(T(1, 1, 2, 3, 3), size=(3, 4, 4),
                                                        mode="trilinear"),
    "unfold": lambda F, T, lib: F.unfold(T(1, 2, 5, 5), (2, 3), dilation=(1, 2),
                                         padding=(1, 2), stride=(2, 1)),
    "fold": lambda F, T, lib: F.fold(T(1, 8, 6), (4, 4), 2, padding=1, stride=(2, 3)),
    "grid_sample": lambda F, T, lib: F.grid_sample(
        T(1, 2, 3, 3), T(1, 2, 2, 2).tanh(), mode="nearest", padding_mode="reflection",
        align_corners=True),
    "grid_sample_bicubic": lambda F, T, lib: F.grid_sample(
        T(1, 2, 3, 3), T(1, 2, 2, 2).tanh(), mode="bicubic", padding_mode="border"),
    "pdist": lambda F, T, lib: F.pdist(T(4, 3), p=1.5),
    "multilabel_margin": lambda F, T, lib: F.multilabel_margin_loss(
        T(2, 4), lib.tensor([[1, 2, -1, 0], [0, -1, 1, 1]]), reduction="sum"),
    # (training: PyTorch's noise is the slopes drawn; in evaluation it is left unwritten)
    "rrelu_train": lambda F, T, lib: F.rrelu(T(3, 4), 0.1, 0.4, training=True),
    "pairwise_distance": lambda F, T, lib: F.pairwise_distance(T(3, 4), T(3, 4), p=3.0,
                                                               keepdim=True),
    # in place: PyTorch's formula is in the result, which the node saves (not the input)
    "elu_inplace": lambda F, T, lib: F.elu(T(3, 4) * 1, 0.5, inplace=True),
    "selu_inplace": lambda F, T, lib: F.selu(T(3, 4) * 1, inplace=True),
    "celu_inplace": lambda F, T, lib: F.celu(T(3, 4) * 1, 0.7, inplace=True),
    "leaky_relu_inplace": lambda F, T, lib: F.leaky_relu(T(3, 4) * 1, 0.2, inplace=True),
}


@pytest.mark.parametrize("targets, lengths, options", [
    ([[1, 2], [1, 1]], ([6, 4], [2, 1]), {}),
    ([1, 2, 3], ((6, 5), (2, 1)), {}),
    ([[1, 2, 1, 2, 1, 2, 1], [1, 1, 1, 1, 1, 1, 1]], ([6, 2], [7, 3]), {"zero_infinity": True}),
    ([[0, 1], [2, 2]], ([6, 4], [2, 2]), {"blank": 3}),
])
def test_ctc_loss_shows_its_arguments_and_losses_as_pytorch(targets, lengths, options):
    """CtcLossBackward0: log_probs, targets, the lengths as tuples, blank, zero_infinity
    and the losses (result0, the node's own output); PyTorch's result1, a log α table its
    kernel leaves partly unwritten, is left out."""
    torch = pytest.importorskip("torch")
    log_probs = np.log(np.random.default_rng(0).dirichlet(np.ones(4), size=(6, 2)))
    shown = []
    for lib in (torch, teachgrad):
        lp = lib.tensor(log_probs.astype(np.float32), requires_grad=True)
        lens = [lib.tensor(v) if isinstance(v, list) else v for v in lengths]
        node = lib.nn.functional.ctc_loss(lp, lib.tensor(targets), *lens, reduction="none",
                                          **options).grad_fn
        while type(node).__name__ != "CtcLossBackward0":  # (zero_infinity's where)
            node = node.next_functions[-1][0]
        shown.append({name: _shown(getattr(node, f"_saved_{name}")) for name in (
            "log_probs", "targets", "input_lengths", "target_lengths", "blank",
            "zero_infinity", "result0")})
        assert node._saved_result0.grad_fn is node
    assert shown[1] == shown[0]


def test_pairwise_distance_records_pytorchs_graph():
    """``x1 - x2 + eps`` is ATen's add of a number (AddBackward1), then norm's node."""
    torch = pytest.importorskip("torch")
    names = []
    for lib in (torch, teachgrad):
        x = lib.ones(2, 3, requires_grad=True)
        out = lib.nn.functional.pairwise_distance(x, x * 2)
        names.append(_node_names(out))
    assert names[0] == names[1] and "AddBackward1" in names[1]


def _shown(value):
    """A saved value as plain data: a tensor's dtype, shape and values, or the value."""
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        array = value.detach().numpy()
        return ("tensor", str(value.dtype).split(".")[-1], tuple(array.shape),
                np.round(array.astype(np.float64), 5).tolist())
    if isinstance(value, float) and not math.isnan(value):
        return round(value, 12)
    return value


def _saved(lib, case: str):
    rng = np.random.default_rng(0)
    lib.manual_seed(0)

    def T(*shape):
        return lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)

    out = CASES[case](lib.nn.functional, T, lib)
    node = out.grad_fn
    while type(node).__name__.startswith(("Squeeze", "Unsqueeze")):  # (1-d pooling's views)
        node = node.next_functions[0][0]
    names = sorted(n for n in dir(node) if n.startswith("_saved_"))
    return type(node).__name__, {n: _shown(getattr(node, n)) for n in names}


@pytest.mark.parametrize("case", CASES)
def test_saved_values_as_pytorch(case):
    torch = pytest.importorskip("torch")
    assert _saved(teachgrad, case) == _saved(torch, case)


def test_inplace_elu_and_leaky_relu_save_their_result_by_hand():
    F = teachgrad.nn.functional
    x = teachgrad.tensor([1.0, -2.0, 0.0], requires_grad=True)
    z = F.elu(x * 1, 0.5, inplace=True)
    node = z.grad_fn
    assert type(node).__name__ == "EluBackward1"
    names = [n for n in dir(node) if n.startswith("_saved_")]
    assert "_saved_result" in names and "_saved_self" not in names
    assert not hasattr(node, "_saved_self")
    assert node._saved_result.tolist() == pytest.approx([1.0, 0.5 * (math.exp(-2) - 1), 0.0])
    z.sum().backward()  # slope 1 above 0, α·eˣ at and below it
    assert x.grad.tolist() == pytest.approx([1.0, 0.5 * math.exp(-2), 0.5])
    y = F.leaky_relu(x * 1, 0.2, inplace=True)
    assert y.grad_fn._saved_result.tolist() == pytest.approx([1.0, -0.4, 0.0])
    y.mul_(2)  # the saved result changed: backward refuses, as PyTorch's
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    z = F.elu(x * 1, -0.5, inplace=True)  # a negative alpha flips the result's sign
    with pytest.raises(RuntimeError, match="In-place elu backward calculation is triggered "
                                           "with a negative slope"):
        z.sum().backward()


def test_max_pool_indices_by_hand():
    x = teachgrad.tensor([[[1.0, 5.0, 2.0, 0.0, 7.0, 3.0]]], requires_grad=True)
    node = teachgrad.nn.functional.max_pool1d(x, 2).grad_fn.next_functions[0][0]
    assert node._saved_result1.tolist() == [[[[1, 2, 4]]]]  # where 5, 2 and 7 are
    assert node._saved_self.squeeze(-2).tolist() == x.tolist()


def test_batch_norm_statistics_by_hand():
    x = teachgrad.tensor([[1.0], [3.0]], requires_grad=True)  # one channel: mean 2, var 1
    node = teachgrad.nn.functional.batch_norm(x, None, None, training=True, eps=1e-30).grad_fn
    assert node._saved_result1.tolist() == [2.0] and node._saved_result2.tolist() == [1.0]
    assert node._saved_training is True and node._saved_eps == 1e-30


def _node_names(out) -> list[str]:
    """The graph's node names, depth first from ``out.grad_fn``."""
    names, stack, seen = [], [out.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node).__name__)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return names


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 2)])
def test_local_response_norm_records_pytorchs_graph(shape):
    """pad, then average pooling (its saved window too), as PyTorch's Python composes it;
    teachgrad summed shifted slices of a concatenation before."""
    torch = pytest.importorskip("torch")
    graphs = []
    for lib in (torch, teachgrad):
        x = lib.ones(*shape, requires_grad=True)
        graphs.append(_node_names(lib.nn.functional.local_response_norm(x, 2)))
    assert graphs[1] == graphs[0]
    assert "AvgPool2DBackward0" in graphs[0] or "AvgPool3DBackward0" in graphs[0]


_BAG_CASES = [
    dict(input=[0, 2, 1, 3], offsets=[0, 2], mode="mean"),
    dict(input=[0, 2, 1, 3], offsets=[0, 2], mode="max"),
    dict(input=[0, 2, 1, 3], offsets=[0, 1, 4], mode="sum", include_last_offset=True),
    dict(input=[[0, 2], [1, 4]], mode="sum", padding_idx=-1),
    dict(input=[[0, 2], [1, 4]], mode="sum", per_sample_weights=[[1.0, 2.0], [3.0, 4.0]]),
    dict(input=[0, 2, 1, 3], offsets=[0, 2], mode="sum", scale_grad_by_freq=True,
         padding_idx=2),
]


@pytest.mark.parametrize("case", range(len(_BAG_CASES)))
def test_embedding_bag_shows_its_arguments_as_pytorch(case):
    """EmbeddingBagBackward0's arguments (its kernel's result1-3 are left out): the mode as
    a number, padding_idx (none: 2^64 - 1), the indices and offsets (a 2-d input's made by
    F.embedding_bag), the per-sample weights."""
    torch = pytest.importorskip("torch")
    shown = []
    for lib in (torch, teachgrad):
        weight = lib.arange(15.0).reshape(5, 3).requires_grad_()
        given = {k: lib.tensor(v) if isinstance(v, list) else v
                 for k, v in _BAG_CASES[case].items()}
        node = lib.nn.functional.embedding_bag(weight=weight, **given).grad_fn
        shown.append({name: _shown(getattr(node, f"_saved_{name}")) for name in (
            "mode", "padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0",
            "per_sample_weights", "indices", "offsets")})
    assert shown[1] == shown[0]


def _trilinear_node(lib, batch_shape):
    """The TrilinearBackward0 node of nn.Bilinear on inputs of ``batch_shape`` + features,
    and (input1, input2, weight)."""
    rng = np.random.default_rng(1)

    def T(*shape, grad=True):
        return lib.tensor(rng.standard_normal(shape), dtype=lib.float64, requires_grad=grad)

    x1, x2, weight = T(*batch_shape, 3), T(*batch_shape, 2, grad=False), T(4, 3, 2)
    node = lib.nn.functional.bilinear(x1, x2, weight, T(4)).grad_fn
    while type(node).__name__ != "TrilinearBackward0":  # (past the bias's add, the view)
        node = node.next_functions[0][0]
    return node, (x1, x2, weight)


@pytest.mark.parametrize("batch_shape", [(5,), (2, 3)])
def test_bilinear_trilinear_node_saves_as_pytorch(batch_shape):
    torch = pytest.importorskip("torch")
    shown = []
    for lib in (torch, teachgrad):
        node, _ = _trilinear_node(lib, batch_shape)
        shown.append({n: _shown(getattr(node, n)) for n in dir(node) if n.startswith("_saved_")})
    assert shown[1] == shown[0]


def test_bilinear_trilinear_node_saves_by_hand():
    node, (x1, x2, weight) = _trilinear_node(teachgrad, (2, 3))
    # _trilinear(x1 flattened, W, x2 flattened, expand1=[1, 3], expand2=[0], expand3=[1, 2],
    # sumdim=[2, 3]): PyTorch's at::bilinear
    assert (node._saved_expand1, node._saved_expand2, node._saved_expand3,
            node._saved_sumdim) == ((1, 3), (0,), (1, 2), (2, 3))
    assert node._saved_i2 is weight
    assert node._saved_i1.tolist() == np.reshape(x1.tolist(), (6, 3)).tolist()
    assert node._saved_i3.tolist() == np.reshape(x2.tolist(), (6, 2)).tolist()
