"""How PyTorch's functions written in Python hand a call to ``__torch_function__``: which
arguments they pass by position and which by keyword (all of them, at the caller's value
or the default, however the caller wrote the call), and which of them are the relevant
ones whose types make ``types``. Read from PyTorch 2.13's
``handle_torch_function(f, relevant, *positional, **keywords)`` calls in
torch/nn/functional.py and torch/_tensor.py, with the defaults of each signature.

``F.softmax(x, 0)`` reaches a handler as ``args=(x,)``,
``kwargs={"dim": 0, "_stacklevel": 3, "dtype": None}``, as in PyTorch. The functions that
are C++ bindings in PyTorch (``F.linear``, ``F.conv2d``, ``torch.add``, ``Tensor.mul``
...) are not here: they hand over the arguments as the caller gave them.
"""

import ast

#: how one function hands a call over: (positional, keywords, defaults, relevant)
Spelling = tuple[tuple[str, ...], tuple[str, ...], dict, tuple[str, ...]]


def _table(specs: dict[str, str]) -> dict[str, Spelling]:
    """Each ``"input, dim, *, dtype=None | input"`` as ``(positional, keywords, defaults,
    relevant)``: the names before ``*`` go by position, those after it by keyword (at the
    default when the caller gave none), and those after ``|`` make ``types``."""
    table = {}
    for name, text in specs.items():
        signature, relevant = text.split("|")
        positional, _, keyword_part = signature.partition("*")
        keywords, defaults = [], {}
        for item in filter(None, (s.strip() for s in keyword_part.split(","))):
            key, has_default, default = item.partition("=")
            keywords.append(key)
            if has_default:
                defaults[key] = ast.literal_eval(default)
        table[name] = (_names(positional), tuple(keywords), defaults, _names(relevant))
    return table


def _names(text: str) -> tuple[str, ...]:
    """``"input, target"`` as ``("input", "target")``."""
    return tuple(filter(None, (s.strip() for s in text.split(","))))


# torch.nn.functional's Python functions
NN_FUNCTIONAL = _table({
    "threshold": "input, threshold, value, *, inplace=False | input",
    "adaptive_avg_pool2d": "input, output_size | input",
    "adaptive_avg_pool3d": "input, output_size | input",
    "adaptive_max_pool1d": "input, output_size, *, return_indices=False | input",
    "adaptive_max_pool1d_with_indices": "input, output_size, *, return_indices=False | input",
    "adaptive_max_pool2d": "input, output_size, *, return_indices=False | input",
    "adaptive_max_pool2d_with_indices": "input, output_size, *, return_indices=False | input",
    "adaptive_max_pool3d": "input, output_size, *, return_indices=False | input",
    "adaptive_max_pool3d_with_indices": "input, output_size, *, return_indices=False | input",
    "affine_grid": "theta, size, *, align_corners=None | theta",
    "alpha_dropout": "input, *, p=0.5, training=False, inplace=False | input",
    "batch_norm": (
        "input, running_mean, running_var, *, weight=None, bias=None, training=False, "
        "momentum=0.1, eps=1e-05 | input, running_mean, running_var, weight, bias"
    ),
    "binary_cross_entropy": (
        "input, target, *, weight=None, size_average=None, reduce=None, "
        "reduction='mean' | input, target, weight"
    ),
    "binary_cross_entropy_with_logits": (
        "input, target, *, weight=None, size_average=None, reduce=None, "
        "reduction='mean', pos_weight=None | input, target, weight, pos_weight"
    ),
    "celu": "input, *, alpha=1.0, inplace=False | input",
    "cosine_embedding_loss": (
        "input1, input2, target, *, margin=0, size_average=None, reduce=None, "
        "reduction='mean' | input1, input2, target"
    ),
    "cross_entropy": (
        "input, target, *, weight=None, size_average=None, ignore_index=-100, "
        "reduce=None, reduction='mean', label_smoothing=0.0 | input, target, weight"
    ),
    "ctc_loss": (
        "log_probs, targets, input_lengths, target_lengths, *, blank=0, "
        "reduction='mean', zero_infinity=False | log_probs, targets, input_lengths, "
        "target_lengths"
    ),
    "dropout": "input, *, p=0.5, training=True, inplace=False | input",
    "dropout1d": "input, *, p=0.5, training=True, inplace=False | input",
    "dropout2d": "input, *, p=0.5, training=True, inplace=False | input",
    "dropout3d": "input, *, p=0.5, training=True, inplace=False | input",
    "elu": "input, *, alpha=1.0, inplace=False | input",
    "embedding": (
        "input, weight, *, padding_idx=None, max_norm=None, norm_type=2.0, "
        "scale_grad_by_freq=False, sparse=False | input, weight"
    ),
    "embedding_bag": (
        "input, weight, *, offsets=None, max_norm=None, norm_type=2, "
        "scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None, "
        "include_last_offset=False, padding_idx=None | input, weight, offsets, "
        "per_sample_weights"
    ),
    "feature_alpha_dropout": "input, *, p=0.5, training=False, inplace=False | input",
    "fold": "input, output_size, kernel_size, *, dilation=1, padding=0, stride=1 | input",
    "fractional_max_pool2d": (
        "input, kernel_size, *, output_size=None, output_ratio=None, "
        "return_indices=False, _random_samples=None | input, _random_samples"
    ),
    "fractional_max_pool2d_with_indices": (
        "input, kernel_size, *, output_size=None, output_ratio=None, "
        "return_indices=False, _random_samples=None | input, _random_samples"
    ),
    "fractional_max_pool3d": (
        "input, kernel_size, *, output_size=None, output_ratio=None, "
        "return_indices=False, _random_samples=None | input, _random_samples"
    ),
    "fractional_max_pool3d_with_indices": (
        "input, kernel_size, *, output_size=None, output_ratio=None, "
        "return_indices=False, _random_samples=None | input, _random_samples"
    ),
    "gaussian_nll_loss": (
        "input, target, var, *, full=False, eps=1e-06, reduction='mean' | input, target, "
        "var"
    ),
    "glu": "input, *, dim=-1 | input",
    "grid_sample": (
        "input, grid, *, mode='bilinear', padding_mode='zeros', "
        "align_corners=None | input, grid"
    ),
    "group_norm": "input, num_groups, *, weight=None, bias=None, eps=1e-05 | input, weight, bias",
    "gumbel_softmax": "logits, *, tau=1, hard=False, eps=1e-10, dim=-1 | logits",
    "hardsigmoid": "input, *, inplace=False | input",
    "hardswish": "input, *, inplace=False | input",
    "hardtanh": "input, *, min_val=-1.0, max_val=1.0, inplace=False | input",
    "hinge_embedding_loss": (
        "input, target, *, margin=1.0, size_average=None, reduce=None, "
        "reduction='mean' | input, target"
    ),
    "huber_loss": (
        "input, target, *, reduction='mean', delta=1.0, weight=None | input, target, "
        "weight"
    ),
    "instance_norm": (
        "input, *, running_mean=None, running_var=None, weight=None, bias=None, "
        "use_input_stats=True, momentum=0.1, eps=1e-05 | input, running_mean, "
        "running_var, weight, bias"
    ),
    "interpolate": (
        "input, *, size=None, scale_factor=None, mode='nearest', align_corners=None, "
        "recompute_scale_factor=None, antialias=False | input"
    ),
    "kl_div": (
        "input, target, *, size_average=None, reduce=None, reduction='mean', "
        "log_target=False | input, target"
    ),
    "l1_loss": (
        "input, target, *, size_average=None, reduce=None, reduction='mean' | input, "
        "target, weight"
    ),
    "layer_norm": (
        "input, normalized_shape, *, weight=None, bias=None, eps=1e-05 | input, weight, "
        "bias"
    ),
    "leaky_relu": "input, *, negative_slope=0.01, inplace=False | input",
    "linear_cross_entropy": (
        "input, linear_weight, target, *, linear_bias=None, weight=None, "
        "reduction='mean', ignore_index=None, label_smoothing=0.0, options=None | input, "
        "linear_weight, target, linear_bias, weight"
    ),
    "local_response_norm": "input, size, *, alpha=0.0001, beta=0.75, k=1.0 | input",
    "log_softmax": "input, *, dim=None, _stacklevel=3, dtype=None | input",
    "lp_pool1d": "input, norm_type, kernel_size, *, stride=None, ceil_mode=False | input",
    "lp_pool2d": "input, norm_type, kernel_size, *, stride=None, ceil_mode=False | input",
    "lp_pool3d": "input, norm_type, kernel_size, *, stride=None, ceil_mode=False | input",
    "margin_ranking_loss": (
        "input1, input2, target, *, margin=0, size_average=None, reduce=None, "
        "reduction='mean' | input1, input2, target"
    ),
    "max_pool1d": (
        "input, kernel_size, *, stride=None, padding=0, dilation=1, ceil_mode=False, "
        "return_indices=False | input"
    ),
    "max_pool1d_with_indices": (
        "input, kernel_size, *, stride=None, padding=0, dilation=1, ceil_mode=False, "
        "return_indices=False | input"
    ),
    "max_pool2d": (
        "input, kernel_size, *, stride=None, padding=0, dilation=1, ceil_mode=False, "
        "return_indices=False | input"
    ),
    "max_pool2d_with_indices": (
        "input, kernel_size, *, stride=None, padding=0, dilation=1, ceil_mode=False, "
        "return_indices=False | input"
    ),
    "max_pool3d": (
        "input, kernel_size, *, stride=None, padding=0, dilation=1, ceil_mode=False, "
        "return_indices=False | input"
    ),
    "max_pool3d_with_indices": (
        "input, kernel_size, *, stride=None, padding=0, dilation=1, ceil_mode=False, "
        "return_indices=False | input"
    ),
    "max_unpool1d": (
        "input, indices, kernel_size, *, stride=None, padding=0, output_size=None | input"
    ),
    "max_unpool2d": (
        "input, indices, kernel_size, *, stride=None, padding=0, output_size=None | input"
    ),
    "max_unpool3d": (
        "input, indices, kernel_size, *, stride=None, padding=0, output_size=None | input"
    ),
    "mish": "input, *, inplace=False | input",
    "mse_loss": (
        "input, target, *, size_average=None, reduce=None, reduction='mean', "
        "weight=None | input, target, weight"
    ),
    "multi_margin_loss": (
        "input, target, *, p=1, margin=1.0, weight=None, size_average=None, reduce=None, "
        "reduction='mean' | input, target, weight"
    ),
    "multilabel_margin_loss": (
        "input, target, *, size_average=None, reduce=None, reduction='mean' | input, "
        "target"
    ),
    "multilabel_soft_margin_loss": (
        "input, target, *, weight=None, size_average=None, reduce=None, "
        "reduction='mean' | input, target, weight"
    ),
    "nll_loss": (
        "input, target, *, weight=None, size_average=None, ignore_index=-100, "
        "reduce=None, reduction='mean' | input, target, weight"
    ),
    "normalize": "input, *, p=2.0, dim=1, eps=1e-12, out=None | input, out",
    "pad": "input, pad, *, mode='constant', value=None | input",
    "poisson_nll_loss": (
        "input, target, *, log_input=True, full=False, size_average=None, eps=1e-08, "
        "reduce=None, reduction='mean' | input, target"
    ),
    "relu": "input, *, inplace=False | input",
    "relu6": "input, *, inplace=False | input",
    "rms_norm": "input, normalized_shape, *, weight=None, eps=None | input, weight",
    "rrelu": (
        "input, *, lower=0.125, upper=0.3333333333333333, training=False, "
        "inplace=False | input"
    ),
    "selu": "input, *, inplace=False | input",
    "silu": "input, *, inplace=False | input",
    "smooth_l1_loss": (
        "input, target, *, size_average=None, reduce=None, reduction='mean', "
        "beta=1.0 | input, target"
    ),
    "soft_margin_loss": (
        "input, target, *, size_average=None, reduce=None, reduction='mean' | input, "
        "target"
    ),
    "softmax": "input, *, dim=None, _stacklevel=3, dtype=None | input",
    "softmin": "input, *, dim=None, _stacklevel=3, dtype=None | input",
    "softsign": "input | input",
    "tanhshrink": "input | input",
    "triplet_margin_loss": (
        "anchor, positive, negative, *, margin=1.0, p=2, eps=1e-06, swap=False, "
        "size_average=None, reduce=None, reduction='mean' | anchor, positive, negative"
    ),
    "triplet_margin_with_distance_loss": (
        "anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, "
        "reduction='mean' | anchor, positive, negative"
    ),
    "unfold": "input, kernel_size, *, dilation=1, padding=0, stride=1 | input",
})

# Tensor's methods (self first)
TENSOR_METHODS = _table({
    "__array__": "self, *, dtype=None | self",
    "__array_wrap__": "self, *, array | self",
    "__contains__": "self, element | self",
    "__deepcopy__": "self, memo | self",
    "__dir__": "self | self",
    "__dlpack_device__": "self | self",
    "__format__": "self, format_spec | self",
    "__len__": "self | self",
    "__reduce_ex__": "self, proto | self",
    "__repr__": "self, *, tensor_contents=None | self",
    "__reversed__": "self | self",
    "__setstate__": "self, state | self",
    "_clear_non_serializable_cached_data": "self | self",
    "backward": "self, *, gradient=None, retain_graph=None, create_graph=False, inputs=None | self",
    "dim_order": "self | self",
    "index": "self, positions, dims | self",
    "is_shared": "self | self",
    "istft": (
        "self, n_fft, *, hop_length=None, win_length=None, window=None, center=True, "
        "normalized=False, onesided=None, length=None, return_complex=False | self"
    ),
    "lu": "self, *, pivot=True, get_infos=False | self",
    "module_load": "self, other, *, assign=False | self, other",
    "norm": "self, *, p='fro', dim=None, keepdim=False, dtype=None | self",
    "register_hook": "self, hook | self",
    "register_post_accumulate_grad_hook": "self, hook | self",
    "resize_as": "self, tensor | self, tensor",
    "share_memory_": "self | self",
    "split": "self, split_size, *, dim=0 | self",
    "stft": (
        "self, n_fft, *, hop_length=None, win_length=None, window=None, center=True, "
        "pad_mode='reflect', normalized=False, onesided=None, return_complex=None, "
        "align_to_window=None | self"
    ),
    "storage": "self | self",
    "storage_type": "self | self",
    "unflatten": "self, dim, sizes | self",
    "unique": "self, *, sorted=True, return_inverse=False, return_counts=False, dim=None | self",
    "unique_consecutive": "self, *, return_inverse=False, return_counts=False, dim=None | self",
})

# Tensor's operators that PyTorch writes in Python (``_handle_torch_function_and_wrap_type_
# error_to_not_implemented``): they hand over their arguments as given, all of them
# relevant, with an empty ``kwargs``.
TENSOR_OPERATORS = frozenset({
    "__floordiv__", "__ipow__", "__pow__", "__rdiv__", "__rfloordiv__", "__rlshift__",
    "__rmatmul__", "__rmod__", "__rpow__", "__rrshift__", "__rsub__", "__rtruediv__",
})

# Tensor's methods that PyTorch's C++ hands over with the tensor itself among the
# relevant arguments (those taking no argument but self): a plain tensor's type is in
# ``types`` (a mode sees ``(Tensor,)`` for ``x.exp()``, but ``()`` for ``x.sum()``).
SELF_TYPED = frozenset({
    "__abs__", "__bool__", "__complex__", "__dlpack__", "__float__", "__index__",
    "__int__", "__invert__", "__neg__", "__pos__", "abs", "abs_", "absolute", "absolute_",
    "acos", "acos_", "acosh", "acosh_", "adjoint", "angle", "arccos", "arccos_", "arccosh",
    "arccosh_", "arcsin", "arcsin_", "arcsinh", "arcsinh_", "arctan", "arctan_", "arctanh",
    "arctanh_", "argwhere", "asin", "asin_", "asinh", "asinh_", "atan", "atan_", "atanh",
    "atanh_", "bitwise_not", "bitwise_not_", "ceil", "ceil_", "conj", "conj_physical",
    "conj_physical_", "corrcoef", "cos", "cos_", "cosh", "cosh_", "data_ptr", "deg2rad",
    "deg2rad_", "det", "detach", "detach_", "digamma", "digamma_", "dim", "element_size",
    "erf", "erf_", "erfc", "erfc_", "erfinv", "erfinv_", "exp", "exp2", "exp2_", "exp_",
    "expm1", "expm1_", "fix", "fix_", "fliplr", "flipud", "floor", "floor_", "frac",
    "frac_", "frexp", "geqrf", "get_device", "i0", "i0_", "inverse", "is_complex",
    "is_conj", "is_floating_point", "is_inference", "is_neg", "is_nonzero", "is_signed",
    "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal", "item", "lgamma",
    "lgamma_", "log", "log10", "log10_", "log1p", "log1p_", "log2", "log2_", "log_",
    "logdet", "logical_not", "logical_not_", "matrix_exp", "msort", "ndimension", "neg",
    "neg_", "negative", "negative_", "nelement", "new", "new_tensor", "numel", "positive",
    "rad2deg", "rad2deg_", "ravel", "reciprocal", "reciprocal_", "relu", "relu_",
    "resolve_conj", "resolve_neg", "retain_grad", "rsqrt", "rsqrt_", "sgn", "sgn_",
    "sigmoid", "sigmoid_", "sign", "sign_", "signbit", "sin", "sin_", "sinc", "sinc_",
    "sinh", "sinh_", "slogdet", "sqrt", "sqrt_", "square", "square_", "storage_offset",
    "t", "t_", "tan", "tan_", "tanh", "tanh_", "tolist", "trace", "trunc", "trunc_",
    "untyped_storage", "zero_",
})
