"""What the profiler calls an op: PyTorch's ATen operator name, from the op's class name.

Every teachgrad op is a class named after the ``grad_fn`` PyTorch gives its result
(``MulBackward0``, ``AddmmBackward0``). PyTorch's profiler lists the *operator* that ran,
``aten::mul``, ``aten::addmm``: the same word in snake case. So the name is derived::

    >>> from teachgrad.ops.pointwise import MulBackward0
    >>> aten_name(MulBackward0)
    'aten::mul'
    >>> snake_name("NativeLayerNormBackward0")
    'native_layer_norm'

A few ATen operators are private (their names start with ``_``) or split a dimension off
with an underscore; :data:`EXCEPTIONS` lists those (checked against PyTorch's operator
registry by tests/test_profiler.py).
"""

from __future__ import annotations

import re
from functools import cache

#: derived name -> ATen's name, where the snake-case rule alone gets it wrong
EXCEPTIONS: dict[str, str] = {
    "grid_sampler2d": "grid_sampler_2d",
    "grid_sampler3d": "grid_sampler_3d",
    "grid_sampler2d_backward": "grid_sampler_2d_backward",
    "grid_sampler3d_backward": "grid_sampler_3d_backward",
    "smooth_l1loss": "smooth_l1_loss",
    "smooth_l1loss_backward": "smooth_l1_loss_backward",
    "index_put_impl": "_index_put_impl_",
    "copy_backwards": "copy_",  # Tensor.copy_: the grad_fn is CopyBackwards
    "copy_slices": "copy_",
    "embed_op": "embedding",
}

#: ATen operators whose name starts with an underscore (the grad_fn name drops it)
PRIVATE: frozenset[str] = frozenset({
    "to_copy", "unsafe_view", "reshape_alias", "safe_softmax", "standard_gamma",
    "standard_gamma_grad", "trilinear", "unique2", "weight_norm_interface", "prelu_kernel",
    "prelu_kernel_backward", "pdist_backward", "log_softmax_backward_data", "softmax_backward_data",
    "adaptive_avg_pool2d_backward", "adaptive_avg_pool3d_backward",
    "upsample_bicubic2d_aa", "upsample_bilinear2d_aa", "scaled_dot_product_flash_attention_for_cpu",
    "upsample_bicubic2d_aa_backward", "upsample_bilinear2d_aa_backward",
    "upsample_lanczos2d_aa", "upsample_lanczos2d_aa_backward",
    "upsample_nearest_exact1d", "upsample_nearest_exact2d", "upsample_nearest_exact3d",
    "upsample_nearest_exact1d_backward", "upsample_nearest_exact2d_backward",
    "upsample_nearest_exact3d_backward",
})

_SUFFIX = re.compile(r"(Backward\d*|NotImplemented|Node)$")
_DIMS = re.compile(r"(\d)D")  # Conv2D -> conv2d, as ATen writes it
_WORDS = re.compile(r"(?<=[a-z])(?=[A-Z])")  # AddmmBackward -> addmm, LayerNorm -> layer_norm


def snake_name(op_class_name: str) -> str:
    """``'NativeLayerNormBackward0'`` -> ``'native_layer_norm'`` (no table, no prefix)."""
    name = _SUFFIX.sub("", op_class_name.lstrip("_"))
    name = _DIMS.sub(r"\1d", name)
    return _WORDS.sub("_", name).lower()


@cache
def aten_name(op: type) -> str:
    """The name PyTorch's profiler gives the operator ``op`` (an ``Op`` subclass) runs.

    ``__qualname__`` rather than ``__name__``: a few classes print as PyTorch's
    ``NotImplemented`` node but keep the op in their qualified name.
    """
    name = snake_name(op.__qualname__.rsplit(".", 1)[-1])
    name = EXCEPTIONS.get(name, name)
    if name in PRIVATE:
        name = "_" + name
    return "aten::" + name
