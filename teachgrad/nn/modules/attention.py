"""``MultiheadAttention``: several attention "heads" side by side, the core of a Transformer."""

from __future__ import annotations

from typing import Any

from ..._creation import _check_device, empty
from ..._tensor import Tensor
from .. import init
from ..attention_functional import (
    _canonical_mask,
    _none_or_dtype,
    multi_head_attention_forward,
)
from ..parameter import Parameter
from .linear import Linear
from .module import Module


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` by another name: PyTorch uses it for ``MultiheadAttention.out_proj`` (the
    name only tells its quantization tools to leave the layer alone), so it prints so too."""


class MultiheadAttention(Module):
    """Attention with ``num_heads`` heads: each head attends with its own ``embed_dim /
    num_heads`` features, and the heads' outputs are joined and projected.

    Parameters, as in PyTorch: ``in_proj_weight (3·E, E)`` (query, key and value
    projections stacked; or ``q_proj_weight``, ``k_proj_weight (E, kdim)``,
    ``v_proj_weight (E, vdim)`` when ``kdim``/``vdim`` differ from ``embed_dim``),
    ``in_proj_bias (3·E)``, ``out_proj`` (a Linear ``E → E``), and with ``add_bias_kv``
    ``bias_k``, ``bias_v (1, 1, E)``. Inputs are ``(L, N, E)`` (``batch_first``:
    ``(N, L, E)``) or unbatched ``(L, E)``.

    ``forward(query, key, value)`` returns ``(output, weights)``; ``weights`` are the
    attention weights averaged over heads (``None`` with ``need_weights=False``).

    >>> import teachgrad as torch
    >>> attn = torch.nn.MultiheadAttention(embed_dim=4, num_heads=2, batch_first=True)
    >>> x = torch.randn(3, 5, 4)  # 3 sequences of 5 tokens
    >>> out, weights = attn(x, x, x)
    >>> out.shape, weights.shape
    (teachgrad.Size([3, 5, 4]), teachgrad.Size([3, 5, 5]))
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                "embed_dim and num_heads must be greater than 0, got "
                f"embed_dim={embed_dim} and num_heads={num_heads} instead"
            )
        super().__init__()
        _check_device(device)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), dtype=dtype))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), dtype=dtype))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), dtype=dtype))
            self.bias_v = Parameter(empty((1, 1, embed_dim), dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """PyTorch's start: Xavier-uniform projections, zero biases, Xavier-normal
        ``bias_k``/``bias_v``."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def __setstate__(self, state: dict) -> None:
        state.setdefault("_qkv_same_embed_dim", True)  # (older pickles lack it)
        super().__setstate__(state)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """Attend from ``query`` to ``key``/``value``; see the class docstring.

        ``key_padding_mask (N, S)``: ``True`` marks padding keys. ``attn_mask (L, S)`` or
        ``(N·heads, L, S)``: ``True`` forbids a (query, key) pair; a float mask is added to
        the scores. ``is_causal`` is a hint that ``attn_mask`` is the causal mask.
        """
        is_batched = query.dim() == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                           _none_or_dtype(attn_mask), "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        # (PyTorch has a fused "fast path" for inference; its result is this one's.)
        if self.batch_first and is_batched:
            # The computation is sequence-first: swap batch and sequence, keeping the
            # identities (query is key is value) that select the packed projections.
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))

        separate = {}
        if not self._qkv_same_embed_dim:
            separate = dict(use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight,
                            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight)
        attn_output, attn_output_weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights,
            is_causal=is_causal, **separate,
        )
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights

    def merge_masks(self, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                    query: Tensor) -> tuple[Tensor | None, int | None]:
        """One ``(N, heads, L, L)`` mask from an attention mask and a key padding mask, and
        its type (1: padding only, 2: attention mask), as PyTorch's fast path wants them."""
        mask_type = None
        merged = None
        if key_padding_mask is not None:
            mask_type = 1
            merged = key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(
                    batch_size, self.num_heads, -1, -1)
            merged = expanded
            if key_padding_mask is not None:
                merged = expanded + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1)
        return merged, mask_type


__all__ = ["MultiheadAttention"]
