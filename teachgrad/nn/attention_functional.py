"""Attention as functions: ``F.scaled_dot_product_attention`` and
``F.multi_head_attention_forward`` (what ``nn.MultiheadAttention`` and the Transformer
layers call).

Scaled dot-product attention is a soft dictionary look-up. Each query row asks "which keys
look like me?"; the answer is a weighted mean of the value rows::

    weights = softmax(query @ keyᵀ · scale + mask)      # (..., L, S), rows sum to 1
    output  = weights @ value                           # (..., L, Ev)

Everything here is *composed* from ordinary differentiable ops (``mul``, ``matmul``,
``add``, ``softmax``, ``dropout``, ``linear``, views), in the order PyTorch's reference
("math") kernel uses, so the graph shows PyTorch's ``grad_fn`` names and gradients of any
order come for free. The new nodes are ``SafeSoftmaxBackward0``, a softmax that gives 0
(not NaN) to a row whose every score is masked out, as PyTorch's attention does, and the
node of the fused kernel PyTorch takes on a CPU when the arguments allow it (4-d inputs,
no dropout ...), ``ScaledDotProductFlashAttentionForCpuBackward0``, which has a backward
but no second derivative, as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from .._creation import zeros
from .._input_check import BUILTIN, refuses_complex
from .._tensor import Tensor, _make
from .._warn import warn_user
from ..ops import linalg as _linalg
from ..ops.activation import SoftmaxBackward0
from ..ops.linalg import _cpp_name as _cpp  # PyTorch's C++ names: float, double ...
from ..ops.multiply_add import baddbmm
from ..ops.not_implemented import NotImplementedNode
from ..ops.number_factor import MulBackward1
from ..ops.op import NO_CONTEXT, Op
from ..ops.split_join import cat
from . import attention
from . import functional as F  # (a circular import: F's names are looked up at call time)
from .argument_types import scalar_argument, takes_arguments
from .padding import pad

# ----------------------------------------------------------------------------------------
# The one new node: a softmax that is safe for fully masked rows
# ----------------------------------------------------------------------------------------


class SafeSoftmaxBackward0(SoftmaxBackward0):
    """``softmax`` along the last dimension, except that a row whose scores are all
    ``-inf`` (every key masked out) becomes all zeros instead of NaN.

    The backward is softmax's own (``s·(grad − Σ grad·s)``, inherited): a zeroed row has
    ``s = 0`` and so passes no gradient back, which is what PyTorch computes too.
    """

    formula = "softmax, with fully masked rows set to 0:  grad_in = s·(grad − Σ grad·s)"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        peak = np.max(a, axis=dim, keepdims=True) if a.size else a
        all_masked = peak == -np.inf
        # Shift by the peak (exp cannot overflow); a fully masked row is shifted by 0.
        e = np.exp(a - np.where(all_masked, 0, peak))
        total = np.sum(e, axis=dim, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(all_masked, 0, e / total).astype(a.dtype, copy=False)
        ctx.save_for_backward(out)
        return out


def _safe_softmax(scores: Tensor) -> Tensor:
    return SafeSoftmaxBackward0.apply(scores, dim=-1)


# ----------------------------------------------------------------------------------------
# scaled_dot_product_attention
# ----------------------------------------------------------------------------------------
def _check_sdpa_inputs(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None,
                       dropout_p: float, is_causal: bool) -> None:
    """PyTorch's argument checks, with its sentences (``validate_sdpa_input``)."""
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cpp(query)} key.dtype: {_cpp(key)} and value.dtype: {_cpp(value)} instead."
        )
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead."
        )
    if attn_mask is not None:
        kind = attn_mask._data.dtype
        if not (kind == np.bool_ or kind == np.float32 or kind == query._data.dtype):
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but "
                f"got attn_mask.dtype: {_cpp(attn_mask)} and  query.dtype: {_cpp(query)} "
                "instead."
            )
    if dropout_p > 1.0:  # (a negative p drops nothing: PyTorch drops only for p > 0)
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if query._data.dtype.kind != "f":
        raise RuntimeError(
            f"expected scalar type Float but found {query.dtype._legacy.removesuffix('Tensor')}"
            "\nHint: attention needs floating-point query, key and value, e.g. q.float()."
        )


def _check_no_mask_with_is_causal(attn_mask: Tensor | None, is_causal: bool) -> None:
    """The reference ("math") kernel takes a mask or ``is_causal``, not both (the fused one
    applies both: see :func:`_runs_fused_kernel`)."""
    if attn_mask is not None and is_causal:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
            "\nHint: is_causal=True builds the causal mask itself; pass one or the other."
        )


# ----------------------------------------------------------------------------------------
# The fused CPU kernel PyTorch picks when it can ("flash attention")
# ----------------------------------------------------------------------------------------
def _mask_fits_fused_kernel(mask: Tensor, query: Tensor, key: Tensor) -> bool:
    """PyTorch's ``check_attn_mask_shape``: a mask without gradient, 2-d or 4-d, each
    dimension its full size or 1. (It reads ``mask.size(-2)`` unchecked: a 0-d or 1-d mask
    fails there, with an IndexError.)"""
    if mask.requires_grad:
        return False
    if mask.ndim == 0:
        raise IndexError("Dimension specified as -2 but tensor has no dimensions")
    if mask.ndim == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    (batch, heads, length, _), source = query.shape, key.shape[-2]
    if mask.shape[-2] not in (length, 1) or mask.shape[-1] not in (source, 1):
        return False
    if mask.ndim == 2:
        return True
    return mask.ndim == 4 and mask.shape[0] in (1, batch) and mask.shape[1] in (1, heads)


def _runs_fused_kernel(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None,
                       dropout_p: float, enable_gqa: bool) -> bool:
    """Does PyTorch 2.13 on a CPU take its fused kernel for these arguments?

    Its checks, in its order (``use_flash_attention_cpp``): no dropout; query, key and value
    4-d ``(batch, heads, length, E)`` with one batch size and one head count (or head
    counts that group, with ``enable_gqa``); a mask that fits; one ``E`` for all three;
    nothing empty; each stored with its last dimension contiguous. Anything else goes to
    the reference kernel, composed of ordinary ops (below).
    """
    if attention.SDPBackend.FLASH_ATTENTION not in attention.enabled_backends:
        return False  # (sdpa_kernel left it out)
    if dropout_p > 0.0 or not query.ndim == key.ndim == value.ndim == 4:
        return False
    if not query.shape[0] == key.shape[0] == value.shape[0]:
        return False
    heads, key_heads, value_heads = query.shape[1], key.shape[1], value.shape[1]
    if not (heads == key_heads == value_heads or (
            enable_gqa and key_heads and value_heads and key_heads == value_heads
            and heads % key_heads == 0)):
        return False
    if attn_mask is not None and not _mask_fits_fused_kernel(attn_mask, query, key):
        return False
    if not query.shape[-1] == key.shape[-1] == value.shape[-1]:
        return False
    if 0 in (query.numel(), key.numel(), value.numel()):
        return False
    return all(t.stride(-1) == 1 for t in (query, key, value))


class ScaledDotProductFlashAttentionForCpuBackward0(Op):
    """PyTorch's fused attention on a CPU: one node for the whole of
    ``softmax(q·kᵀ·scale + mask) @ v``, whose backward works the three gradients out
    from the saved weights (and has no derivative of its own: a second one fails).

    It applies ``is_causal`` and an explicit mask together; a row with every key masked
    out gets weights 0, so an output of 0 and no gradient.
    """

    formula = ("P = softmax(S), S = q·kᵀ·scale + mask, out = P·v    ∂v = Pᵀ·g, "
               "∂S = P ⊙ (g·vᵀ − rowsum(P ⊙ g·vᵀ)), ∂q = ∂S·k·scale, ∂k = ∂Sᵀ·q·scale")

    @staticmethod
    def forward(ctx, q, k, v, mask, scale, is_causal):
        groups = q.shape[1] // k.shape[1]
        if groups > 1:  # grouped-query attention: each key/value head serves a group
            k, v = np.repeat(k, groups, axis=1), np.repeat(v, groups, axis=1)
        scores = (q @ np.swapaxes(k, -1, -2)) * q.dtype.type(scale)
        if is_causal:  # query i sees keys 0..i
            causal = np.tril(np.ones(scores.shape[-2:], dtype=bool))
            scores = np.where(causal, scores, -np.inf).astype(q.dtype, copy=False)
        if mask is not None:
            scores = scores + mask
        weights = SafeSoftmaxBackward0.forward(NO_CONTEXT, scores, dim=-1)
        ctx.scale, ctx.groups = scale, groups
        ctx.save_for_backward(q, k, v, weights)
        return weights @ v

    @staticmethod
    def backward(ctx, grad):
        q, k, v, weights = ctx.saved_tensors
        if isinstance(grad, Tensor):  # create_graph: PyTorch records a node with no formula
            return NotImplementedNode.apply(
                grad, q, k, v, weights,
                compute=lambda *arrays: _fused_gradients(*arrays, ctx.scale, ctx.groups),
                aten_name="_scaled_dot_product_flash_attention_for_cpu_backward")
        return _fused_gradients(grad, q, k, v, weights, ctx.scale, ctx.groups)


def _fused_gradients(grad, q, k, v, weights, scale, groups):
    """The fused kernel's backward: the gradients of q, k, v (k and v: of their own heads)."""
    scale = q.dtype.type(scale)
    d_value = np.swapaxes(weights, -1, -2) @ grad
    d_weights = grad @ np.swapaxes(v, -1, -2)
    d_scores = weights * (d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True))
    d_query = (d_scores @ k) * scale
    d_key = (np.swapaxes(d_scores, -1, -2) @ q) * scale
    if groups > 1:  # a shared head gathers the gradients of its group
        def gather(g):
            return g.reshape(g.shape[0], -1, groups, *g.shape[2:]).sum(axis=2)
        d_key, d_value = gather(d_key), gather(d_value)
    return d_query, d_key, d_value


def _fused_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None,
                     is_causal: bool, scale: float | None) -> Tensor:
    mask = None
    if attn_mask is not None:
        mask = (np.where(attn_mask._data, 0.0, -np.inf) if attn_mask._data.dtype == np.bool_
                else attn_mask._data).astype(query._data.dtype, copy=False)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    return ScaledDotProductFlashAttentionForCpuBackward0.apply(
        query, key, value, mask=mask, scale=scale, is_causal=is_causal)


def _boolean_mask_as_float(mask: Tensor, dtype) -> Tensor:
    """A bool mask (True = may attend) as an additive float mask: 0 where True, -inf where
    False (PyTorch's ``convert_boolean_attn_mask``)."""
    additive = np.where(mask._data, 0.0, -np.inf).astype(dtype.numpy)
    return _make(additive)


def _expand_groups(query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
    """Grouped-query attention: repeat each key/value head for its group of query heads."""
    q_heads, k_heads, v_heads = query.shape[-3], key.shape[-3], value.shape[-3]
    if q_heads % k_heads or q_heads % v_heads:
        # (PyTorch's own sentence stops there.)
        raise RuntimeError(
            "Number of heads in key and value must divide the number of heads in "
            f"\nHint: query has {q_heads} heads, key {k_heads} and value {v_heads}; "
            "each must divide the query's."
        )
    if k_heads != q_heads:
        key = key.repeat_interleave(q_heads // k_heads, -3)
    if v_heads != q_heads:
        value = value.repeat_interleave(q_heads // v_heads, -3)
    return key, value


@refuses_complex("scaled_dot_product_attention", dropout_p=BUILTIN, scale=BUILTIN)
@takes_arguments("scaled_dot_product_attention", dropout_p=("float", BUILTIN),
                 is_causal=("bool", BUILTIN), scale=("float?", BUILTIN))
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ keyᵀ · scale + mask) @ value``: each query's weighted mean of values.

    Shapes: ``query (..., L, E)``, ``key (..., S, E)``, ``value (..., S, Ev)`` → ``(..., L, Ev)``
    (leading dimensions broadcast, usually ``(batch, heads)``).

    * ``attn_mask``: bool (``True`` = may attend) or float (added to the scores), broadcast
      to ``(..., L, S)``. A query that may attend to nothing gets an output of 0.
    * ``is_causal``: query ``i`` sees keys ``0..i`` only (a lower-triangular mask).
    * ``dropout_p``: drop attention weights with this probability (always; pass 0.0 when
      evaluating, as PyTorch's layers do).
    * ``scale``: defaults to ``1/√E``. ``enable_gqa``: key/value may have fewer heads
      (dimension -3) than the query; each is shared by a group of query heads.

    Where PyTorch 2.13 takes its fused CPU kernel (4-d inputs of one ``E``, no dropout, a
    mask that fits: see ``_runs_fused_kernel``) the result is one node,
    ``ScaledDotProductFlashAttentionForCpuBackward0``, as there. Otherwise it is composed
    as PyTorch's reference kernel: both operands are scaled by ``√scale`` before the
    product; the graph is ``MulBackward1``, ``BmmBackward0``, ``SafeSoftmaxBackward0`` ...

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> q = torch.tensor([[1.0, 0.0]])
    >>> k = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> v = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> F.scaled_dot_product_attention(q, k, v)
    tensor([[0.6698, 0.3302]])
    """
    if scale is not None:
        scale = scalar_argument(scale, "scaled_dot_product_attention", "scale", kind="float")
    _check_sdpa_inputs(query, key, value, attn_mask, dropout_p, is_causal)
    if _runs_fused_kernel(query, key, value, attn_mask, dropout_p, enable_gqa):
        return _fused_attention(query, key, value, attn_mask, is_causal, scale)
    _check_no_mask_with_is_causal(attn_mask, is_causal)
    if attn_mask is not None and attn_mask._data.dtype == np.bool_:
        attn_mask = _boolean_mask_as_float(attn_mask, query.dtype)
    # Scale both operands by √scale (better conditioned than scaling the product).
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    factor = math.sqrt(abs(scale))
    query = MulBackward1.apply(query, other=-factor if scale < 0 else factor)
    if is_causal:
        length, source = query.shape[-2], key.shape[-2]
        causal = np.tril(np.ones((length, source), dtype=bool))
        attn_mask = _boolean_mask_as_float(_make(causal), query.dtype)
    if enable_gqa:
        key, value = _expand_groups(query, key, value)
    scores = _linalg.matmul(query, MulBackward1.apply(key.transpose(-2, -1), other=factor))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = _safe_softmax(scores)
    if dropout_p > 0.0:
        weights = F.dropout(weights, dropout_p)
    return _linalg.matmul(weights, value)


# ----------------------------------------------------------------------------------------
# multi_head_attention_forward: the computation of nn.MultiheadAttention
# ----------------------------------------------------------------------------------------
def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor,
                     key_padding_mask: Tensor | None, attn_mask: Tensor | None,
                     num_heads: int) -> bool:
    """Check the ranks of the inputs; ``True`` for a batched (3-D) query."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                f"but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                f"but found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or "
                f"1-D but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or "
                    f"3-D but found {attn_mask.dim()}-D tensor instead"
                )
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if attn_mask.shape != expected:
                    raise AssertionError(
                        f"Expected `attn_mask` shape to be {expected} but got "
                        f"{attn_mask.shape}"
                    )
        return False
    raise AssertionError(
        "query should be unbatched 2D or batched 3D tensor but received "
        f"{query.dim()}-D query tensor"
    )


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type, other_name: str,
                    target_type, check_other: bool = True) -> Tensor | None:
    """A bool mask (``True`` = masked out) as an additive float mask of ``target_type``
    (``-inf`` where masked); a float mask is returned as it is."""
    if mask is None:
        return None
    is_float = mask._data.dtype.kind == "f"
    if mask._data.dtype != np.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warn_user(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same "
            "type for both instead.", UserWarning,
        )
    if is_float:
        return mask
    return _make(np.where(mask._data, -np.inf, 0.0).astype(target_type.numpy))


def _none_or_dtype(input: Tensor | None):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor,
                          b: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Project query, key and value with one packed ``(3E, E)`` weight.

    Self-attention (``q is k is v``) runs one product and splits the result, as PyTorch does;
    encoder-decoder attention (``k is v``) runs one for the query and one for key/value.
    """
    linear = F.linear
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
            proj = proj.contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
        kv_proj = kv_proj.contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q: Tensor, k: Tensor, v: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor,
                   b_q: Tensor | None = None, b_k: Tensor | None = None,
                   b_v: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Project query, key and value with three separate weights (``kdim``/``vdim`` differ)."""
    linear = F.linear
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for what, weight, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)),
                                ("value", w_v, (Eq, Ev))):
        if weight.shape != shape:
            raise AssertionError(
                f"expecting {what} weights shape of {shape}, but got {weight.shape}"
            )
    for what, bias in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bias is not None and bias.shape != (Eq,):
            raise AssertionError(f"expecting {what} bias shape of {(Eq,)}, but got {bias.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _check_attn_mask_shape(attn_mask: Tensor, tgt_len: int, src_len: int, bsz: int,
                           num_heads: int) -> Tensor:
    """The attention mask as ``(1 or N·heads, L, S)``."""
    if attn_mask.dim() == 2:
        expected = (tgt_len, src_len)
        if attn_mask.shape != expected:
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {expected}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        expected = (bsz * num_heads, tgt_len, src_len)
        if attn_mask.shape != expected:
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {expected}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _pad_last(mask: Tensor) -> Tensor:
    return pad(mask, (0, 1))


def _static_kv(static: Tensor, name: str, bsz: int, num_heads: int, head_dim: int) -> Tensor:
    if static.size(0) != bsz * num_heads:
        raise AssertionError(
            f"expecting {name}.size(0) of {bsz * num_heads}, but got {static.size(0)}"
        )
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
    bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
    out_proj_bias: Tensor | None, training: bool = True,
    key_padding_mask: Tensor | None = None, need_weights: bool = True,
    attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
    static_v: Tensor | None = None, average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention, step by step (what ``nn.MultiheadAttention`` computes).

    Inputs are sequence-first: ``query (L, N, E)``, ``key (S, N, Ek)``, ``value (S, N, Ev)``
    (or unbatched ``(L, E)`` ...). The steps:

    1. project query, key, value to ``E`` features each (``in_proj_weight``, or the three
       ``*_proj_weight`` with ``use_separate_proj_weight``);
    2. optionally append ``bias_k``/``bias_v`` and a zero key/value (``add_zero_attn``);
    3. split ``E`` into ``num_heads`` heads of ``E / num_heads`` features;
    4. attention in every head: ``softmax(q kᵀ / √head_dim + masks) v``;
    5. join the heads and project with ``out_proj_weight``.

    Returns ``(output (L, N, E), weights)``; ``weights`` is ``(N, L, S)`` (averaged over
    heads, or ``(N, heads, L, S)`` with ``average_attn_weights=False``) when
    ``need_weights``, else ``None`` (and the heads run through
    :func:`scaled_dot_product_attention`).

    ``key_padding_mask (N, S)``: ``True`` (or ``-inf``) marks padding keys to ignore.
    ``attn_mask (L, S)`` or ``(N·heads, L, S)``: ``True`` (or ``-inf``) forbids a pair.
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:  # compute as a batch of one, and take it out at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        # The hint alone is enough for scaled_dot_product_attention.
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal

    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    # 1. in-projection
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, weight in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                             ("v_proj_weight", v_proj_weight)):
            if weight is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name} is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        attn_mask = _check_attn_mask_shape(attn_mask, tgt_len, src_len, bsz, num_heads)

    # 2a. a learned extra key and value (one more position to attend to)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # 3. split the features into heads: (N·heads, length, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        k = _static_kv(static_k, "static_k", bsz, num_heads, head_dim)
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        v = _static_kv(static_v, "static_v", bsz, num_heads, head_dim)

    # 2b. a zero key and value
    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(zero_attn_shape, dtype=k.dtype)], dim=1)
        v = cat([v, zeros(zero_attn_shape, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)

    src_len = k.size(1)
    if key_padding_mask is not None:  # merge it into the attention mask
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                f"{key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                f"{key_padding_mask.shape[1]}"
            )
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len)
                            .expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    # 4-5. attention in every head, then the out-projection
    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if attn_mask is not None:
            weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = _linalg.bmm(q_scaled, k.transpose(-2, -1))
        weights = F.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        attn_output = _linalg.bmm(weights, v)
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            attn_output, weights = attn_output.squeeze(1), weights.squeeze(0)
        return attn_output, weights

    if attn_mask is not None:  # (1, L, S) or (N·heads, L, S) -> broadcastable to 4-D
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None


__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]
