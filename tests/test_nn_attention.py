"""Attention and the Transformer: scaled_dot_product_attention, multi_head_attention_forward,
MultiheadAttention, the encoder/decoder layers and stacks, nn.Transformer.

Gradients (first and second order) by finite differences in float64; values by a NumPy
re-derivation of the formula; and parity with PyTorch (values, gradients, grad_fn graphs,
reprs, parameter names and state_dict keys, errors and warnings), weights copied over with
load_state_dict.
"""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import pytest
from parity import raises_as_torch

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck


def leaf(shape, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    return teachgrad.tensor(rng.standard_normal(shape) * scale, requires_grad=True)


def graph_names(fn) -> list[str]:
    """The backward graph below ``fn`` as indented grad_fn names (depth first)."""
    lines, stack = [], [(fn, 0)]
    while stack:
        node, depth = stack.pop()
        if node is None:
            continue
        lines.append(" " * depth + node.name().replace("torch::autograd::", ""))
        stack.extend((child, depth + 1) for child, _ in reversed(node.next_functions))
    return lines


def numpy_attention(q, k, v, mask=None, scale=None):
    """softmax(q kᵀ · scale + mask) v, written out in NumPy (fully masked rows -> 0)."""
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ np.swapaxes(k, -1, -2) * scale
    if mask is not None:
        scores = scores + (np.where(mask, 0, -np.inf) if mask.dtype == bool else mask)
    peak = scores.max(-1, keepdims=True)
    dead = np.isneginf(peak)
    e = np.exp(scores - np.where(dead, 0, peak))
    with np.errstate(invalid="ignore"):
        weights = np.where(dead, 0, e / e.sum(-1, keepdims=True))
    return weights @ v


# ----------------------------------------------------------------------------------------
# scaled_dot_product_attention: values, masks, gradients
# ----------------------------------------------------------------------------------------
def test_sdpa_values_follow_the_formula():
    q, k, v = leaf((2, 3, 4), 1), leaf((2, 5, 4), 2), leaf((2, 5, 6), 3)
    out = F.scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(out.detach().numpy(), numpy_attention(
        q.detach().numpy(), k.detach().numpy(), v.detach().numpy()), atol=1e-12)
    out = F.scaled_dot_product_attention(q, k, v, scale=0.7)
    np.testing.assert_allclose(out.detach().numpy(), numpy_attention(
        q.detach().numpy(), k.detach().numpy(), v.detach().numpy(), scale=0.7), atol=1e-12)


def test_sdpa_negative_scale_flips_the_scores():
    q, k, v = leaf((3, 4), 1), leaf((5, 4), 2), leaf((5, 2), 3)
    out = F.scaled_dot_product_attention(q, k, v, scale=-0.5)
    expected = numpy_attention(q.detach().numpy(), k.detach().numpy(), v.detach().numpy(),
                               scale=-0.5)
    np.testing.assert_allclose(out.detach().numpy(), expected, atol=1e-12)


def test_sdpa_masks_bool_float_and_causal():
    q, k, v = leaf((3, 4), 1), leaf((3, 4), 2), leaf((3, 2), 3)
    arrays = [t.detach().numpy() for t in (q, k, v)]
    allowed = np.array([[True, False, True], [False, True, True], [True, True, False]])
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=teachgrad.tensor(allowed))
    np.testing.assert_allclose(out.detach().numpy(), numpy_attention(*arrays, allowed),
                               atol=1e-12)
    bias = np.random.default_rng(4).standard_normal((3, 3))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=teachgrad.tensor(bias))
    np.testing.assert_allclose(out.detach().numpy(), numpy_attention(*arrays, bias),
                               atol=1e-12)
    causal = np.tril(np.ones((3, 3), dtype=bool))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(out.detach().numpy(), numpy_attention(*arrays, causal),
                               atol=1e-12)
    # The first query sees only the first key: its output is exactly the first value.
    np.testing.assert_allclose(out.detach().numpy()[0], arrays[2][0], atol=1e-15)


def test_sdpa_fully_masked_query_gives_zeros_and_zero_gradient():
    q, k, v = leaf((3, 4), 1), leaf((5, 4), 2), leaf((5, 2), 3)
    allowed = np.ones((3, 5), dtype=bool)
    allowed[1] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=teachgrad.tensor(allowed))
    assert out.grad_fn.name() == "MmBackward0"
    np.testing.assert_array_equal(out.detach().numpy()[1], 0.0)
    assert np.isfinite(out.detach().numpy()).all()
    out.sum().backward()
    np.testing.assert_array_equal(q.grad.numpy()[1], 0.0)
    assert np.isfinite(k.grad.numpy()).all() and np.isfinite(v.grad.numpy()).all()


def test_sdpa_grouped_query_attention_repeats_key_heads():
    q, k, v = leaf((2, 4, 3, 2), 1), leaf((2, 2, 5, 2), 2), leaf((2, 2, 5, 3), 3)
    out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    # Query heads 0 and 1 share key/value head 0; heads 2 and 3 share head 1.
    repeated = [np.repeat(t.detach().numpy(), 2, axis=1) for t in (k, v)]
    np.testing.assert_allclose(out.detach().numpy(),
                               numpy_attention(q.detach().numpy(), *repeated), atol=1e-12)


def test_sdpa_dropout_one_zeroes_everything_and_zero_keeps_values():
    q, k, v = leaf((3, 4), 1), leaf((5, 4), 2), leaf((5, 2), 3)
    dropped = F.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
    np.testing.assert_array_equal(dropped.detach().numpy(), 0.0)
    teachgrad.manual_seed(0)
    half = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).detach().numpy()
    # Each kept weight is doubled, each dropped one is 0: the output is (mask·2w) @ v for a
    # 0/1 mask, so it differs from the plain output but stays finite.
    plain = F.scaled_dot_product_attention(q, k, v).detach().numpy()
    assert np.isfinite(half).all() and not np.allclose(half, plain)


@pytest.mark.usefixtures("math_kernel")  # (the fused kernel has no second derivative)
@pytest.mark.parametrize("case", ["plain", "causal", "bool_mask", "float_mask", "scale",
                                  "gqa", "masked_row", "broadcast"])
def test_sdpa_gradcheck_and_gradgradcheck(case):
    q, k, v = leaf((2, 3, 4), 1), leaf((2, 3, 4), 2), leaf((2, 3, 2), 3)
    kwargs = {}
    inputs = [q, k, v]
    if case == "causal":
        kwargs["is_causal"] = True
    elif case == "bool_mask":
        kwargs["attn_mask"] = teachgrad.tensor(np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]],
                                                        dtype=bool))
    elif case == "float_mask":  # a float mask is an input too: it gets a gradient
        inputs.append(leaf((3, 3), 4))
    elif case == "scale":
        kwargs["scale"] = 0.3
    elif case == "gqa":
        q = leaf((1, 4, 3, 2), 1)
        inputs = [q, leaf((1, 2, 3, 2), 2), leaf((1, 2, 3, 2), 3)]
        kwargs["enable_gqa"] = True
    elif case == "masked_row":
        mask = np.ones((3, 3), dtype=bool)
        mask[0] = False
        kwargs["attn_mask"] = teachgrad.tensor(mask)
    elif case == "broadcast":
        inputs = [leaf((2, 1, 3, 2), 1), leaf((1, 2, 4, 2), 2), leaf((4, 3), 3)]

    def fn(*tensors):
        if len(tensors) == 4:
            return F.scaled_dot_product_attention(*tensors[:3], attn_mask=tensors[3])
        return F.scaled_dot_product_attention(*tensors, **kwargs)

    assert gradcheck(fn, tuple(inputs))
    assert gradgradcheck(fn, tuple(inputs))


def test_sdpa_graph_is_the_math_path():
    q, k, v = leaf((2, 3, 4), 1), leaf((2, 3, 4), 2), leaf((2, 3, 2), 3)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    names = [name.strip() for name in graph_names(out.grad_fn)]
    assert names[:5] == ["UnsafeViewBackward0", "BmmBackward0", "ViewBackward0",
                         "ExpandBackward0", "SafeSoftmaxBackward0"]
    assert names[5] == "AddBackward0" and names.count("MulBackward1") == 2


# ----------------------------------------------------------------------------------------
# MultiheadAttention and the Transformer: shapes, gradients, structure
# ----------------------------------------------------------------------------------------
def small_mha(**kwargs):
    teachgrad.manual_seed(0)
    return nn.MultiheadAttention(4, 2, dtype=teachgrad.float64, **kwargs)


@pytest.mark.usefixtures("math_kernel")  # (the fused kernel has no second derivative)
@pytest.mark.parametrize("kwargs,forward", [
    ({}, {}),
    ({}, {"need_weights": False}),
    ({"kdim": 3, "vdim": 5}, {"average_attn_weights": False}),
    ({"add_bias_kv": True, "add_zero_attn": True}, {"key_padding_mask": True}),
    ({"batch_first": True, "bias": False}, {"need_weights": False, "attn_mask": True}),
], ids=["weights", "sdpa", "kdim_vdim", "bias_kv_zero_attn", "batch_first_masked"])
def test_mha_gradcheck_and_gradgradcheck(kwargs, forward):
    mha = small_mha(**kwargs)
    forward = dict(forward)
    if forward.pop("key_padding_mask", False):
        forward["key_padding_mask"] = teachgrad.tensor([[False, True, False], [False] * 3])
    if forward.pop("attn_mask", False):
        forward["attn_mask"] = nn.Transformer.generate_square_subsequent_mask(
            3, dtype=teachgrad.float64)
    shape = (2, 3) if kwargs.get("batch_first") else (3, 2)
    query = leaf((*shape, 4), 1)
    key = leaf((*shape, kwargs.get("kdim", 4)), 2)
    value = leaf((*shape, kwargs.get("vdim", 4)), 3)
    params = tuple(mha.parameters())

    def fn(query, key, value, *_):
        out, weights = mha(query, key, value, **forward)
        return out if weights is None else (out, weights)

    assert gradcheck(fn, (query, key, value, *params))
    assert gradgradcheck(fn, (query, key, value, *params))


def test_mha_unbatched_equals_a_batch_of_one():
    mha = small_mha()
    x = leaf((3, 4), 1)
    out, weights = mha(x, x, x)
    batched, batched_weights = mha(x.unsqueeze(1), x.unsqueeze(1), x.unsqueeze(1))
    assert out.shape == (3, 4) and weights.shape == (3, 3)
    np.testing.assert_allclose(out.detach().numpy(), batched.detach().numpy()[:, 0])
    np.testing.assert_allclose(weights.detach().numpy(), batched_weights.detach().numpy()[0])


def test_mha_attention_weights_are_probabilities_and_respect_padding():
    mha = small_mha()
    x = leaf((3, 2, 4), 1)
    padding = teachgrad.tensor([[False, False, True], [False, False, False]])
    _, weights = mha(x, x, x, key_padding_mask=padding, average_attn_weights=False)
    w = weights.detach().numpy()
    assert w.shape == (2, 2, 3, 3)
    np.testing.assert_allclose(w.sum(-1), 1.0)
    np.testing.assert_array_equal(w[0, :, :, 2], 0.0)


def test_mha_parameters_and_init():
    mha = nn.MultiheadAttention(6, 3, add_bias_kv=True)
    assert [(n, tuple(p.shape)) for n, p in mha.named_parameters()] == [
        ("in_proj_weight", (18, 6)), ("in_proj_bias", (18,)), ("bias_k", (1, 1, 6)),
        ("bias_v", (1, 1, 6)), ("out_proj.weight", (6, 6)), ("out_proj.bias", (6,))]
    bound = np.sqrt(6 / (18 + 6))  # Xavier-uniform of a (18, 6) matrix
    assert np.abs(mha.in_proj_weight.detach().numpy()).max() <= bound
    np.testing.assert_array_equal(mha.in_proj_bias.detach().numpy(), 0.0)
    np.testing.assert_array_equal(mha.out_proj.bias.detach().numpy(), 0.0)
    separate = nn.MultiheadAttention(6, 3, kdim=2, vdim=4, bias=False)
    assert [n for n, _ in separate.named_parameters()] == [
        "q_proj_weight", "k_proj_weight", "v_proj_weight", "out_proj.weight"]
    assert separate.in_proj_weight is None and separate.bias_k is None
    assert type(separate.out_proj).__name__ == "NonDynamicallyQuantizableLinear"


def small_layer(kind, **kwargs):
    teachgrad.manual_seed(0)
    layer_class = nn.TransformerEncoderLayer if kind == "encoder" else nn.TransformerDecoderLayer
    return layer_class(4, 2, dim_feedforward=6, dropout=0.0, dtype=teachgrad.float64, **kwargs)


@pytest.mark.usefixtures("math_kernel")  # (the fused kernel has no second derivative)
@pytest.mark.parametrize("kind", ["encoder", "decoder"])
@pytest.mark.parametrize("kwargs", [{}, {"norm_first": True, "activation": "gelu"}],
                         ids=["post_norm", "pre_norm_gelu"])
def test_transformer_layers_gradcheck_and_gradgradcheck(kind, kwargs):
    layer = small_layer(kind, **kwargs)
    x = leaf((3, 2, 4), 1)
    params = tuple(layer.parameters())
    # Second order through every parameter is slow; a few representative ones suffice.
    some_params = (layer.self_attn.in_proj_weight, layer.linear1.weight, layer.norm1.weight)
    mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=teachgrad.float64)
    if kind == "encoder":
        def fn(x, *_):
            return layer(x, src_mask=mask)
        inputs = (x,)
    else:
        memory = leaf((2, 2, 4), 2)

        def fn(x, memory, *_):
            return layer(x, memory, tgt_mask=mask, tgt_is_causal=True)
        inputs = (x, memory)
    assert gradcheck(fn, (*inputs, *params))
    assert gradgradcheck(fn, (*inputs, *some_params))


def test_encoder_clones_the_layer_and_applies_the_norm():
    layer = small_layer("encoder")
    encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(4, dtype=teachgrad.float64),
                                    enable_nested_tensor=False)
    first, second = encoder.layers
    assert first is not layer and first.linear1.weight is not second.linear1.weight
    np.testing.assert_array_equal(first.linear1.weight.detach().numpy(),
                                  layer.linear1.weight.detach().numpy())
    x = leaf((3, 2, 4), 1)
    expected = encoder.norm(second(first(x)))
    np.testing.assert_allclose(encoder(x).detach().numpy(), expected.detach().numpy())


def test_square_subsequent_mask():
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype == teachgrad.float32
    np.testing.assert_array_equal(mask.numpy(), [[0, -np.inf, -np.inf], [0, 0, -np.inf],
                                                 [0, 0, 0]])
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=teachgrad.float64).dtype \
        == teachgrad.float64


def test_transformer_trains():
    teachgrad.manual_seed(0)
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=16, dropout=0.0, batch_first=True)
    src, tgt = teachgrad.randn(2, 5, 8), teachgrad.randn(2, 4, 8)
    optimizer = teachgrad.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(30):
        optimizer.zero_grad()
        loss = (model(src, tgt) - tgt).pow(2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_docstring_examples_run():
    from teachgrad.nn import attention_functional
    from teachgrad.nn.modules import attention, transformer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nn.Transformer's enable_nested_tensor notice
        for module in (attention_functional, attention, transformer):
            assert doctest.testmod(module).failed == 0


# ----------------------------------------------------------------------------------------
# Errors and warnings (PyTorch's sentences; see also the PyTorch comparison below)
# ----------------------------------------------------------------------------------------
def test_sdpa_errors():
    q = teachgrad.zeros(3, 4)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=teachgrad.ones(3, 3), is_causal=True)
    with pytest.raises(RuntimeError, match="Expected attn_mask dtype to be bool or float"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=teachgrad.ones(3, 3).long())
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)


def test_mha_and_transformer_errors():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(5, 2)
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(4, 2, activation="tanh")
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        x = teachgrad.zeros(3, 2, 4)
        nn.MultiheadAttention(4, 2)(x, x, x, is_causal=True)


def test_encoder_warns_when_nested_tensors_would_not_be_used():
    layer = nn.TransformerEncoderLayer(4, 2)
    with pytest.warns(UserWarning, match="self.use_nested_tensor is False because "
                                         "encoder_layer.self_attn.batch_first was not True"):
        encoder = nn.TransformerEncoder(layer, 1)
    assert encoder.enable_nested_tensor and not encoder.use_nested_tensor


# ----------------------------------------------------------------------------------------
# PyTorch parity
# ----------------------------------------------------------------------------------------
def both(torch, data, requires_grad=True):
    return (teachgrad.tensor(data, requires_grad=requires_grad),
            torch.tensor(data, requires_grad=requires_grad))


def copy_weights(ours, theirs):
    state = {k: teachgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    assert list(state) == list(ours.state_dict())
    ours.load_state_dict(state)


def assert_same_run(ours_out, theirs_out, ours_inputs, theirs_inputs, ours_module=None,
                    theirs_module=None, graph=True, seed=0):
    """Same outputs, same gradients (inputs and parameters), same grad_fn graph."""
    import torch

    if not isinstance(ours_out, tuple):
        ours_out, theirs_out = (ours_out,), (theirs_out,)
    rng = np.random.default_rng(seed)
    ours_loss, theirs_loss = 0, 0
    for mine, other in zip(ours_out, theirs_out):
        if other is None:
            assert mine is None
            continue
        np.testing.assert_allclose(mine.detach().numpy(), other.detach().numpy(),
                                   rtol=1e-10, atol=1e-12)
        weights = rng.standard_normal(tuple(other.shape))
        ours_loss = ours_loss + (mine * teachgrad.tensor(weights)).sum()
        theirs_loss = theirs_loss + (other * torch.tensor(weights)).sum()
        if graph:
            assert graph_names(mine.grad_fn) == graph_names(other.grad_fn)
    ours_loss.backward()
    theirs_loss.backward()
    pairs = list(zip(ours_inputs, theirs_inputs))
    if ours_module is not None:
        pairs += [(p, q) for (_, p), (_, q) in zip(ours_module.named_parameters(),
                                                   theirs_module.named_parameters())]
    for mine, other in pairs:
        if other.grad is None:
            assert mine.grad is None
        else:
            np.testing.assert_allclose(mine.grad.numpy(), other.grad.numpy(), rtol=1e-9,
                                       atol=1e-12)


SDPA_CASES = {
    "plain": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), {}),
    "causal": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), {"is_causal": True}),
    "scale": ((4, 5), (6, 5), (6, 7), {"scale": 0.3}),
    "negative_scale": ((2, 4, 5), (2, 6, 5), (2, 6, 7), {"scale": -0.2}),
    "bool_mask": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), {"mask": "bool"}),
    "masked_rows": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), {"mask": "dead_row"}),
    "float_mask": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), {"mask": "float"}),
    "gqa": ((2, 4, 3, 5), (2, 2, 6, 5), (2, 1, 6, 7), {"enable_gqa": True}),
    "broadcast": ((2, 1, 3, 5), (1, 4, 6, 5), (6, 2), {}),
}


@pytest.fixture
def math_kernel():
    """teachgrad's sdpa_kernel(MATH) for the test, as the PyTorch side's own block: the
    graphs compared are then the math composition's, node by node."""
    from teachgrad.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.MATH):
        yield


@pytest.mark.torch
@pytest.mark.parametrize("case", SDPA_CASES)
def test_sdpa_matches_pytorch_math_path(case, math_kernel):
    torch = pytest.importorskip("torch")
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q_shape, k_shape, v_shape, kwargs = SDPA_CASES[case]
    kwargs = dict(kwargs)
    rng = np.random.default_rng(0)
    pairs = [both(torch, rng.standard_normal(s)) for s in (q_shape, k_shape, v_shape)]
    mask_kind = kwargs.pop("mask", None)
    if mask_kind in ("bool", "dead_row"):
        allowed = rng.random((q_shape[-2], k_shape[-2])) > 0.3
        if mask_kind == "dead_row":
            allowed[1] = False
        pairs.append(both(torch, allowed, requires_grad=False))
    elif mask_kind == "float":
        pairs.append(both(torch, rng.standard_normal((q_shape[-2], k_shape[-2]))))
    ours = F.scaled_dot_product_attention(*[p[0] for p in pairs], **kwargs)
    with sdpa_kernel(SDPBackend.MATH):
        theirs = torch.nn.functional.scaled_dot_product_attention(*[p[1] for p in pairs],
                                                                  **kwargs)
    grads = [p for p in pairs if p[1].requires_grad]
    assert_same_run(ours, theirs, [p[0] for p in grads], [p[1] for p in grads])


def mha_inputs(torch, rng, self_attention, batch_first, kdim, vdim, L=3, S=5, N=2, E=8):
    shape = (lambda length, d: (N, length, d)) if batch_first else (
        lambda length, d: (length, N, d))
    if self_attention:
        x = both(torch, rng.standard_normal(shape(L, E)))
        return [x, x, x]
    return [both(torch, rng.standard_normal(shape(L, E))),
            both(torch, rng.standard_normal(shape(S, kdim or E))),
            both(torch, rng.standard_normal(shape(S, vdim or E)))]


MHA_MODULES = [
    {}, {"bias": False}, {"add_bias_kv": True}, {"add_zero_attn": True},
    {"kdim": 5, "vdim": 6}, {"batch_first": True},
    {"add_bias_kv": True, "add_zero_attn": True, "kdim": 5, "vdim": 3},
]
MHA_CALLS = [
    {}, {"need_weights": False}, {"average_attn_weights": False},
    {"key_padding_mask": "bool"}, {"attn_mask": "bool"},
    {"attn_mask": "float", "key_padding_mask": "float"},
    {"attn_mask": "float", "key_padding_mask": "float", "need_weights": False},
    {"attn_mask": "3d"}, {"self": True}, {"self": True, "need_weights": False},
    {"self": True, "attn_mask": "causal", "is_causal": True, "need_weights": False},
    {"encoder_decoder": True},
]


@pytest.mark.torch
@pytest.mark.parametrize("call", MHA_CALLS, ids=lambda c: "-".join(f"{k}={v}"
                                                                  for k, v in c.items()))
@pytest.mark.parametrize("module", MHA_MODULES, ids=lambda c: "-".join(c) or "default")
def test_mha_matches_pytorch(module, call, math_kernel):
    torch = pytest.importorskip("torch")
    from torch.nn.attention import SDPBackend, sdpa_kernel

    call = dict(call)
    self_attention = call.pop("self", False)
    encoder_decoder = call.pop("encoder_decoder", False)
    if (self_attention or encoder_decoder) and "kdim" in module:
        pytest.skip("self-attention needs kdim = vdim = embed_dim")
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(8, 2, dtype=torch.float64, **module)
    ours = nn.MultiheadAttention(8, 2, dtype=teachgrad.float64, **module)
    copy_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    rng = np.random.default_rng(1)
    inputs = mha_inputs(torch, rng, self_attention, module.get("batch_first"),
                        module.get("kdim"), module.get("vdim"))
    if encoder_decoder:
        inputs[2] = inputs[1]  # key is value: the packed key/value projection
    L = 3
    S = L if self_attention else 5
    masks = {}
    for name in ("attn_mask", "key_padding_mask"):
        kind = call.pop(name, None)
        shape = (2, S) if name == "key_padding_mask" else (L, S)
        if kind == "bool":
            data = rng.random(shape) > 0.7
            data[..., 0] = False
        elif kind == "float":
            data = rng.standard_normal(shape)
        elif kind == "3d":
            data = rng.standard_normal((2 * 2, L, S))
        elif kind == "causal":
            data = np.triu(np.full((L, S), -np.inf), 1)
        else:
            continue
        masks[name] = both(torch, data, requires_grad=False)
    ours_masks = {k: v[0] for k, v in masks.items()}
    theirs_masks = {k: v[1] for k, v in masks.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mismatched mask types: the deprecation warning
        ours_out = ours(*[p[0] for p in inputs], **ours_masks, **call)
        with sdpa_kernel(SDPBackend.MATH):
            theirs_out = theirs(*[p[1] for p in inputs], **theirs_masks, **call)
    distinct = list({id(p[0]): p for p in inputs}.values())
    assert_same_run(ours_out, theirs_out, [p[0] for p in distinct], [p[1] for p in distinct],
                    ours, theirs, graph=True)


TRANSFORMER_OPTIONS = [
    {}, {"norm_first": True}, {"activation": "gelu"}, {"batch_first": True}, {"bias": False},
    {"layer_norm_eps": 1e-3},
]


def build(lib, kind, options, dtype):
    options = dict(options, dtype=dtype)
    if kind == "encoder_layer":
        return lib.nn.TransformerEncoderLayer(8, 2, 16, 0.0, **options)
    if kind == "decoder_layer":
        return lib.nn.TransformerDecoderLayer(8, 2, 16, 0.0, **options)
    if kind == "encoder":
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, 0.0, **options)
        return lib.nn.TransformerEncoder(layer, 2, lib.nn.LayerNorm(8, dtype=dtype),
                                         enable_nested_tensor=False)
    if kind == "decoder":
        return lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(8, 2, 16, 0.0,
                                                                        **options), 2)
    return lib.nn.Transformer(8, 2, 2, 2, 16, 0.0, **options)


@pytest.mark.torch
@pytest.mark.parametrize("masks", ["none", "causal", "padding", "bool_and_padding"])
@pytest.mark.parametrize("options", TRANSFORMER_OPTIONS,
                         ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()) or "default")
@pytest.mark.parametrize("kind", ["encoder_layer", "decoder_layer", "encoder", "decoder",
                                  "transformer"])
def test_transformers_match_pytorch(kind, options, masks, math_kernel):
    torch = pytest.importorskip("torch")
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # enable_nested_tensor notices
        torch.manual_seed(0)
        theirs = build(torch, kind, options, torch.float64)
        ours = build(teachgrad, kind, options, teachgrad.float64)
    copy_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    rng = np.random.default_rng(2)
    batch_first = options.get("batch_first", False)

    def sequence(length):
        return both(torch, rng.standard_normal((2, length, 8) if batch_first else (length, 2, 8)))

    src, tgt = sequence(5), sequence(4)
    masked_length = 5 if kind.startswith("encoder") else 4
    mask_pairs = {}
    if masks == "causal":
        mask_pairs["mask"] = (
            teachgrad.nn.Transformer.generate_square_subsequent_mask(masked_length,
                                                                     dtype=teachgrad.float64),
            torch.nn.Transformer.generate_square_subsequent_mask(masked_length,
                                                                 dtype=torch.float64))
    if masks in ("padding", "bool_and_padding"):
        padding = rng.random((2, masked_length)) > 0.7
        padding[:, 0] = False
        mask_pairs["padding"] = both(torch, padding, requires_grad=False)
    if masks == "bool_and_padding":
        forbidden = rng.random((masked_length, masked_length)) > 0.7
        np.fill_diagonal(forbidden, False)
        mask_pairs["mask"] = both(torch, forbidden, requires_grad=False)
    names = {
        "encoder_layer": ("src_mask", "src_key_padding_mask"),
        "encoder": ("mask", "src_key_padding_mask"),
    }.get(kind, ("tgt_mask", "tgt_key_padding_mask"))

    def call(module, side):
        kwargs = {}
        if "mask" in mask_pairs:
            kwargs[names[0]] = mask_pairs["mask"][side]
        if "padding" in mask_pairs:
            kwargs[names[1]] = mask_pairs["padding"][side]
        if kind.startswith("encoder"):
            args = (src[side],)
        elif kind == "transformer":
            args = (src[side], tgt[side])
        else:
            args = (tgt[side], src[side])
        return module(*args, **kwargs), args

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours_out, ours_args = call(ours, 0)
        with sdpa_kernel(SDPBackend.MATH):
            theirs_out, theirs_args = call(theirs, 1)
    assert_same_run(ours_out, theirs_out, ours_args, theirs_args, ours, theirs, graph=True)


@pytest.mark.torch
def test_encoder_matches_pytorch_fast_path_in_inference():
    """PyTorch's fused inference path (eval, no grad, batch_first) gives the same values."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2).eval()
    ours = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
                                 2).eval()
    copy_weights(ours, theirs)
    data = np.random.default_rng(3).standard_normal((2, 5, 8)).astype(np.float32)
    with torch.no_grad():
        expected = theirs(torch.tensor(data)).numpy()
    with teachgrad.no_grad():
        got = ours(teachgrad.tensor(data)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    # With a padding mask PyTorch switches to nested tensors and returns 0 at the padded
    # positions; teachgrad computes the plain way: the other positions agree.
    padding = np.array([[False, False, False, True, True], [False] * 5])
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "nested tensors are in prototype stage"
        expected = theirs(torch.tensor(data), src_key_padding_mask=torch.tensor(padding))
    with teachgrad.no_grad():
        got = ours(teachgrad.tensor(data), src_key_padding_mask=teachgrad.tensor(padding))
    np.testing.assert_array_equal(expected.numpy()[padding], 0.0)
    np.testing.assert_allclose(got.numpy()[~padding], expected.numpy()[~padding], rtol=1e-4,
                               atol=1e-5)


@pytest.mark.torch
@pytest.mark.parametrize("name,args,kwargs", [
    ("MultiheadAttention", (8, 2), {}),
    ("MultiheadAttention", (8, 4), {"kdim": 3, "vdim": 5, "add_bias_kv": True}),
    ("MultiheadAttention", (6, 3), {"bias": False, "batch_first": True, "dropout": 0.1}),
    ("TransformerEncoderLayer", (8, 2), {"dim_feedforward": 16, "norm_first": True}),
    ("TransformerDecoderLayer", (8, 2), {"dim_feedforward": 16, "bias": False}),
    ("Transformer", (), {"d_model": 8, "nhead": 2, "num_encoder_layers": 2,
                         "num_decoder_layers": 1, "dim_feedforward": 16}),
])
def test_repr_parameters_and_init_match_pytorch(name, args, kwargs):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args,
                                                                                   **kwargs)
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for module_name, module in theirs.named_modules():
        mine = ours.get_submodule(module_name)
        for attribute in ("embed_dim", "kdim", "vdim", "_qkv_same_embed_dim", "num_heads",
                          "dropout", "batch_first", "head_dim", "add_zero_attn", "norm_first",
                          "activation_relu_or_gelu", "num_layers", "enable_nested_tensor",
                          "use_nested_tensor", "mask_check", "d_model", "nhead"):
            value = getattr(module, attribute, None)
            if isinstance(value, (bool, int, float)):
                assert getattr(mine, attribute) == value, (module_name, attribute)
    for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        mine, other = p.detach().numpy(), q.detach().numpy()
        # Same scheme: the same zeros/ones, and random values within the same bounds.
        if np.all(other == other.flat[0]):
            np.testing.assert_array_equal(mine, other, err_msg=n)
        elif p.dim() > 1:
            fan_in, fan_out = p.shape[1] * int(np.prod(p.shape[2:])), p.shape[0] * int(
                np.prod(p.shape[2:]))
            if "bias_" not in n:
                assert np.abs(mine).max() <= np.sqrt(6 / (fan_in + fan_out)) + 1e-7, n
        assert p.dtype == teachgrad.float32


def _mha(lib, *args, **kwargs):
    return lib.nn.MultiheadAttention(*args, **kwargs)


ERROR_CASES = [
    lambda lib: _mha(lib, 0, 2),
    lambda lib: _mha(lib, 5, 2),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 4), lib.zeros(3, 4)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 4), lib.zeros(3, 2, 4), lib.zeros(3, 2, 4)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3), lib.zeros(3), lib.zeros(3)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 5), lib.zeros(3, 2, 5), lib.zeros(3, 2, 5)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4), lib.zeros(2, 2, 4)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                key_padding_mask=lib.zeros(2, 3, 1)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                key_padding_mask=lib.zeros(2, 4)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                key_padding_mask=lib.zeros(3, 3)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                key_padding_mask=lib.zeros(2, 3, dtype=lib.long)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                attn_mask=lib.zeros(3, 4)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                attn_mask=lib.zeros(3, 3, 3)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                attn_mask=lib.zeros(1, 3, 3, 3)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 4), lib.zeros(3, 4), lib.zeros(3, 4),
                                attn_mask=lib.zeros(3, 3, 3)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 4), lib.zeros(3, 4), lib.zeros(3, 4),
                                key_padding_mask=lib.zeros(1, 3)),
    lambda lib: _mha(lib, 4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                is_causal=True),
    lambda lib: _mha(lib, 4, 2, kdim=3)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 3),
                                        lib.zeros(2, 2, 4)),
    lambda lib: lib.nn.TransformerEncoderLayer(4, 2, activation="tanh"),
    lambda lib: lib.nn.Transformer(4, 2, 1, 1, 8)(lib.zeros(3, 2, 4), lib.zeros(3, 3, 4)),
    lambda lib: lib.nn.Transformer(4, 2, 1, 1, 8, batch_first=True)(lib.zeros(3, 2, 4),
                                                                     lib.zeros(4, 2, 4)),
    lambda lib: lib.nn.Transformer(4, 2, 1, 1, 8)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 5)),
    # scaled_dot_product_attention
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.zeros(4, 8), lib.zeros(5, 8), lib.zeros(5, 8), attn_mask=lib.ones(4, 5).long()),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.zeros(4, 8), lib.zeros(5, 8), lib.zeros(5, 8),
        attn_mask=lib.ones(4, 5, dtype=lib.float64)),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.zeros(4, 8), lib.zeros(5, 8, dtype=lib.float64), lib.zeros(5, 8)),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.zeros(8), lib.zeros(8), lib.zeros(8)),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.zeros(2, 4, 8), lib.zeros(2, 5, 8), lib.zeros(2, 5, 8), dropout_p=1.5),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.zeros(1, 4, 3, 8), lib.zeros(1, 3, 5, 8), lib.zeros(1, 3, 5, 8), enable_gqa=True),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.zeros(4, 3, 8), lib.zeros(3, 5, 8), lib.zeros(3, 5, 8)),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.zeros(3, 4, 8), lib.zeros(3, 5, 8), lib.zeros(3, 5, 8),
        attn_mask=lib.zeros(3, 5)),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", ERROR_CASES)
def test_errors_match_pytorch(case):
    raises_as_torch(case)


@pytest.mark.torch
def test_warnings_match_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (torch, teachgrad):
        with pytest.warns(UserWarning) as record:
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 1, batch_first=True), 2)
        assert str(record[0].message) == (
            "enable_nested_tensor is True, but self.use_nested_tensor is False because "
            "encoder_layer.self_attn.num_heads is odd")
        x = lib.zeros(3, 2, 4)
        with pytest.warns(UserWarning) as record:
            lib.nn.MultiheadAttention(4, 2)(x, x, x, attn_mask=lib.zeros(3, 3),
                                            key_padding_mask=lib.zeros(2, 3, dtype=lib.bool))
        assert [str(w.message) for w in record] == [
            "Support for mismatched key_padding_mask and attn_mask is deprecated. Use same "
            "type for both instead."]


def test_sdpa_kernel_chooses_the_graph_not_the_values():
    from teachgrad.nn import attention

    q, k, v = leaf((2, 3, 4), 1), leaf((2, 5, 4), 2), leaf((2, 5, 3), 3)
    plain = F.scaled_dot_product_attention(q, k, v).detach().numpy()
    for backend in attention.SDPBackend:
        with attention.sdpa_kernel(backend):
            chosen = F.scaled_dot_product_attention(q, k, v).detach().numpy()
        np.testing.assert_array_equal(chosen, plain)
    # 4-d inputs of one E: the fused kernel's one node, unless sdpa_kernel leaves it out
    q, k, v = (t.reshape(1, *t.shape) for t in (q, k, leaf((2, 5, 4), 3)))
    fused = F.scaled_dot_product_attention(q, k, v)
    with attention.sdpa_kernel(attention.SDPBackend.MATH):
        math_out = F.scaled_dot_product_attention(q, k, v)
    assert fused.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert math_out.grad_fn.name() == "UnsafeViewBackward0"
    np.testing.assert_allclose(fused.detach().numpy(), math_out.detach().numpy(), rtol=1e-12)
    for ours, theirs in zip(weighted_grads(fused, (q, k, v)), weighted_grads(math_out, (q, k, v))):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    assert gradcheck(lambda *qkv: F.scaled_dot_product_attention(*qkv, is_causal=True),
                     (q, k, v))
    grouped = (leaf((1, 4, 3, 2), 4), leaf((1, 2, 5, 2), 5), leaf((1, 2, 5, 2), 6))
    assert gradcheck(lambda *qkv: F.scaled_dot_product_attention(*qkv, enable_gqa=True),
                     grouped)
    # PyTorch's fused backward has no derivative of its own
    fused = F.scaled_dot_product_attention(q, k, v)
    (dq,) = teachgrad.autograd.grad(fused.sum(), q, create_graph=True)
    with pytest.raises(RuntimeError, match="^derivative for aten::_scaled_dot_product_flash_"
                                           "attention_for_cpu_backward is not implemented"):
        dq.sum().backward()
    assert doctest.testmod(attention).failed == 0


def weighted_grads(out, leaves):
    """The gradients of an uneven weighting of ``out``, as arrays."""
    weights = teachgrad.arange(out.numel(), dtype=out.dtype).reshape(out.shape).mul(0.37).sin()
    return [g.numpy() for g in teachgrad.autograd.grad((out * weights).sum(), list(leaves))]


@pytest.mark.torch
def test_sdp_backend_names_match_pytorch():
    pytest.importorskip("torch")
    from torch.nn import attention as theirs

    from teachgrad.nn import attention as ours

    assert [(b.name, int(b.value)) for b in ours.SDPBackend] == [
        (name, int(b.value)) for name, b in theirs.SDPBackend.__members__.items()]
    assert repr(ours.SDPBackend.MATH) == repr(theirs.SDPBackend.MATH)
    assert str(ours.SDPBackend.FLASH_ATTENTION) == str(theirs.SDPBackend.FLASH_ATTENTION)


@pytest.mark.torch
@pytest.mark.parametrize("need_weights", [True, False])
def test_unbatched_mha_and_transformer_match_pytorch(need_weights, math_kernel):
    torch = pytest.importorskip("torch")
    from torch.nn.attention import SDPBackend, sdpa_kernel

    rng = np.random.default_rng(5)
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(8, 2, add_bias_kv=True, dtype=torch.float64)
    ours = nn.MultiheadAttention(8, 2, add_bias_kv=True, dtype=teachgrad.float64)
    copy_weights(ours, theirs)
    query, key = both(torch, rng.standard_normal((3, 8))), both(torch, rng.standard_normal((4, 8)))
    padding = both(torch, np.array([False, True, False, False]), requires_grad=False)
    ours_out = ours(query[0], key[0], key[0], key_padding_mask=padding[0],
                    need_weights=need_weights)
    with sdpa_kernel(SDPBackend.MATH):
        theirs_out = theirs(query[1], key[1], key[1], key_padding_mask=padding[1],
                            need_weights=need_weights)
    assert_same_run(ours_out, theirs_out, [query[0], key[0]], [query[1], key[1]], ours, theirs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        theirs = torch.nn.Transformer(8, 2, 1, 1, 16, 0.0, dtype=torch.float64)
        ours = nn.Transformer(8, 2, 1, 1, 16, 0.0, dtype=teachgrad.float64)
    copy_weights(ours, theirs)
    src, tgt = both(torch, rng.standard_normal((5, 8))), both(torch, rng.standard_normal((4, 8)))
    ours_out = ours(src[0], tgt[0], tgt_mask=nn.Transformer.generate_square_subsequent_mask(
        4, dtype=teachgrad.float64))
    with sdpa_kernel(SDPBackend.MATH):
        theirs_out = theirs(src[1], tgt[1],
                            tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(
                                4, dtype=torch.float64))
    assert_same_run(ours_out, theirs_out, [src[0], tgt[0]], [src[1], tgt[1]], ours, theirs)


@pytest.mark.torch
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_dropout_graph_matches_pytorch(need_weights, math_kernel):
    torch = pytest.importorskip("torch")
    from torch.nn.attention import SDPBackend, sdpa_kernel

    theirs = torch.nn.MultiheadAttention(8, 2, dropout=0.5)
    ours = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = both(torch, np.random.default_rng(6).standard_normal((3, 2, 8)).astype(np.float32))
    ours_out = ours(x[0], x[0], x[0], need_weights=need_weights)[0]
    with sdpa_kernel(SDPBackend.MATH):
        theirs_out = theirs(x[1], x[1], x[1], need_weights=need_weights)[0]
    assert graph_names(ours_out.grad_fn) == graph_names(theirs_out.grad_fn)
    # In evaluation mode dropout is off: the same input gives the same output twice.
    ours.eval()
    first, second = ours(x[0], x[0], x[0])[0], ours(x[0], x[0], x[0])[0]
    np.testing.assert_array_equal(first.detach().numpy(), second.detach().numpy())


@pytest.mark.torch
@pytest.mark.parametrize("norm_first,batch_first,activation", [
    (False, False, "relu"), (True, True, "gelu")])
def test_transformer_training_loop_matches_pytorch_step_by_step(norm_first, batch_first,
                                                                 activation):
    # The same weights, data, masks and Adam: every step's loss and the final weights agree
    # (float64, so no rounding amplified by Adam's normalisation of tiny gradients).
    torch = pytest.importorskip("torch")
    options = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                   dim_feedforward=16, dropout=0.0, batch_first=batch_first,
                   norm_first=norm_first, activation=activation)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # enable_nested_tensor notices
        theirs = torch.nn.Transformer(**options, dtype=torch.float64)
        ours = nn.Transformer(**options, dtype=teachgrad.float64)
    copy_weights(ours, theirs)
    rng = np.random.default_rng(7)
    src = rng.standard_normal((3, 5, 8) if batch_first else (5, 3, 8))
    tgt = rng.standard_normal((3, 4, 8) if batch_first else (4, 3, 8))
    target = rng.standard_normal(tgt.shape)
    padding = np.zeros((3, 5), bool)
    padding[0, -2:] = True
    runs = []
    for lib, model in ((teachgrad, ours), (torch, theirs)):
        optimizer = lib.optim.Adam(model.parameters(), lr=0.01)
        causal = lib.nn.Transformer.generate_square_subsequent_mask(4, dtype=lib.float64)
        losses = []
        for _ in range(4):
            out = model(lib.tensor(src), lib.tensor(tgt), tgt_mask=causal, tgt_is_causal=True,
                        src_key_padding_mask=lib.tensor(padding),
                        memory_key_padding_mask=lib.tensor(padding))
            loss = (out - lib.tensor(target)).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        runs.append((losses, [p.detach().numpy() for p in model.parameters()]))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-12)
    assert runs[0][0][-1] < runs[0][0][0]
    for mine, real in zip(runs[0][1], runs[1][1]):
        np.testing.assert_allclose(mine, real, atol=1e-10)
