"""Names PyTorch also has at the top level: ``torch.relu_(x)``, ``torch.dropout(x, p, train)``,
``torch.layer_norm(...)``, ``torch.kl_div(...)`` ...

Two kinds, each defined once from what exists elsewhere:

* **in-place functions**: ``torch.exp_(x)`` is ``x.exp_()``, for every in-place method
  PyTorch also exposes as a function;
* **functional aliases**: the layers of :mod:`teachgrad.nn.functional` under the names and
  the positional signatures of PyTorch's ATen functions. These differ from ``F``'s a little:
  ``torch.embedding(weight, indices)`` takes the weight first, ``torch.batch_norm`` takes
  every argument, and the losses take ``reduction`` as a number (0 = ``'none'``,
  1 = ``'mean'``, 2 = ``'sum'``), as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable

from ._arguments import Signatures
from ._input_check import refuse_non_tensor_input
from ._tensor import Tensor
from .ops.inplace import FillBackward2, FillBackward3

# Every in-place method that PyTorch also has as a top-level function.
_INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_",
    "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_", "deg2rad_",
    "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_",
    "gcd_", "i0_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_",
    "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "resize_as_",
    "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_",
    "tanh_", "trunc_", "xlogy_", "zero_",
)


def _function_of(name: str) -> Callable[..., Tensor]:
    def function(input: Tensor, *args, **kwargs) -> Tensor:
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``{name}(input, ...)`` is ``input.{name}(...)``: changes ``input``."
    return function


for _name in _INPLACE_FUNCTIONS:
    globals()[_name] = _function_of(_name)
del _name



class FillBackward0(FillBackward2):
    """``torch.fill(input, number)``: a new tensor (``fill_``'s node is FillBackward2)."""


class FillBackward1(FillBackward3):
    """``torch.fill(input, 0-d tensor)``: the value is an input too."""


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(reduction) -> str:
    """PyTorch's ATen losses take the reduction as an enum number; F's take its name."""
    return _REDUCTIONS[reduction] if isinstance(reduction, int) else reduction


def _functional():
    from .nn import functional

    return functional


# --- activations and dropout ------------------------------------------------------------
def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``F.dropout(input, p, training=train)``."""
    return _functional().dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``F.dropout(input, p, train, inplace=True)``."""
    return _functional().dropout(input, p, train, inplace=True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zero whole channels (dim 1) with probability ``p`` (what ``F.dropout2d`` runs)."""
    from .nn import feature_dropout

    return feature_dropout._dropout_impl(input, p, train, False, feature=True, alpha=False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """:func:`feature_dropout` in place."""
    from .nn import feature_dropout

    return feature_dropout._dropout_impl(input, p, train, True, feature=True, alpha=False)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``F.alpha_dropout(input, p, train)``."""
    return _functional().alpha_dropout(input, p, train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``F.alpha_dropout(input, p, train, inplace=True)``."""
    return _functional().alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``F.feature_alpha_dropout(input, p, train)``."""
    return _functional().feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``F.feature_alpha_dropout(input, p, train, inplace=True)``."""
    return _functional().feature_alpha_dropout(input, p, train, inplace=True)


def selu(input: Tensor) -> Tensor:
    """``F.selu(input)``."""
    return _functional().selu(input)


def selu_(input: Tensor) -> Tensor:
    """``F.selu_(input)``."""
    return _functional().selu_(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``F.celu(input, alpha)``."""
    return _functional().celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``F.celu_(input, alpha)``."""
    return _functional().celu_(input, alpha)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, generator=None) -> Tensor:
    """``F.rrelu(input, lower, upper, training)``."""
    return _functional().rrelu(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False, generator=None) -> Tensor:
    """``F.rrelu_(input, lower, upper, training)``."""
    return _functional().rrelu_(input, lower, upper, training)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``F.threshold(input, threshold, value)``."""
    return _functional().threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """``F.threshold_(input, threshold, value)``."""
    return _functional().threshold_(input, threshold, value)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``F.hardshrink(input, lambd)``."""
    return _functional().hardshrink(input, lambd)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``F.prelu(input, weight)``."""
    return _functional().prelu(input, weight)


# --- normalisation and embedding ----------------------------------------------------------
def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:
    """``F.layer_norm(input, normalized_shape, weight, bias, eps)``."""
    return _functional().layer_norm(input, normalized_shape, weight, bias, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """``F.batch_norm`` with PyTorch's ATen argument order (weight and bias first)."""
    return _functional().batch_norm(input, running_mean, running_var, weight, bias, training,
                                    momentum, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:
    """``F.group_norm(input, num_groups, weight, bias, eps)``."""
    _batch_and_channels(input, "group_norm")
    return _functional().group_norm(input, num_groups, weight, bias, eps)


def _batch_and_channels(input: Tensor, name: str) -> None:
    """ATen's norms read ``input.size(0)`` and ``input.size(1)`` first: a tensor of fewer
    than 2 dimensions is refused with size()'s words (F's wrappers check it in theirs)."""
    from ._input_check import refuse_non_tensor_input

    refuse_non_tensor_input(name, (input,), {})
    nd = input.dim()
    hint = (f"\nHint: {name} takes (N, C, ...): a batch of N samples with C channels; "
            "add the missing dimensions with unsqueeze.")
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions" + hint)
    if nd == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                         "got 1)" + hint)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """``F.instance_norm`` with PyTorch's ATen argument order (weight and bias first)."""
    return _functional().instance_norm(input, running_mean, running_var, weight, bias,
                                       use_input_stats, momentum, eps)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """``F.embedding(indices, weight)``: note the weight comes first here, as in ATen
    (and ``padding_idx=-1`` means none)."""
    return _functional().embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float,
                      norm_type: float) -> Tensor:
    """Shrink, in place, the rows ``indices`` of ``input`` whose norm exceeds ``max_norm``."""
    import numpy as np

    from .nn.functional import _embedding_renorm_

    _embedding_renorm_(input, np.unique(indices._data), max_norm, norm_type)
    return input


# --- distances -----------------------------------------------------------------------------
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """``F.pairwise_distance(x1, x2, p, eps, keepdim)``."""
    return _functional().pairwise_distance(x1, x2, p, eps, keepdim)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``F.cosine_similarity(x1, x2, dim, eps)``."""
    return _functional().cosine_similarity(x1, x2, dim, eps)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """``F.pdist(input, p)``."""
    return _functional().pdist(input, p)


# --- losses (reduction: 0 none, 1 mean, 2 sum) ------------------------------------------------
def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *,
           log_target: bool = False) -> Tensor:
    """``F.kl_div`` (here ``reduction=1`` is the element mean, not ``'batchmean'``)."""
    import warnings

    with warnings.catch_warnings():  # (F's advice to use 'batchmean' is F's, not ATen's)
        warnings.filterwarnings("ignore", message="reduction: 'mean' divides")
        return _functional().kl_div(input, target, reduction=_reduction(reduction),
                                    log_target=log_target)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None,
                                     reduction: int = 0) -> Tensor:
    """``F.binary_cross_entropy_with_logits``, but ATen's: ``input`` and ``target`` need not
    have one shape, only shapes that broadcast (F checks they are equal)."""
    if (isinstance(input, Tensor) and isinstance(target, Tensor)
            and input.shape != target.shape):
        import numpy as np

        from .ops.pointwise import _check_broadcast

        # ATen's kernel computes (1 - target).mul_(input): in place, in target's shape
        _check_broadcast(target, input)
        shape = np.broadcast_shapes(target.shape, input.shape)
        if shape != tuple(target.shape):
            raise RuntimeError(
                f"output with shape {list(target.shape)} doesn't match the broadcast shape "
                f"{list(shape)}\nHint: the target must have the input's shape.")
        input = input.expand_as(target)
    return _functional().binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    """``F.margin_ranking_loss``."""
    return _functional().margin_ranking_loss(input1, input2, target, margin,
                                             reduction=_reduction(reduction))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: int = 0) -> Tensor:
    """``F.hinge_embedding_loss``."""
    return _functional().hinge_embedding_loss(input, target, margin,
                                              reduction=_reduction(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """``F.poisson_nll_loss`` (every argument given, as in ATen)."""
    return _functional().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                          reduction=_reduction(reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, reduction: int = 0) -> Tensor:
    """``F.triplet_margin_loss``."""
    return _functional().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                             reduction=_reduction(reduction))


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor,
                          margin: float = 0.0, reduction: int = 0) -> Tensor:
    """``F.cosine_embedding_loss``."""
    return _functional().cosine_embedding_loss(input1, input2, target, margin,
                                               reduction=_reduction(reduction))


# --- pooling and padding ---------------------------------------------------------------------
def max_pool1d(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
               ceil_mode: bool = False) -> Tensor:
    """``F.max_pool1d`` (an empty ``stride`` means the kernel size)."""
    return _functional().max_pool1d(input, kernel_size, stride or None, padding, dilation,
                                    ceil_mode)


def max_pool2d(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
               ceil_mode: bool = False) -> Tensor:
    """``F.max_pool2d`` (an empty ``stride`` means the kernel size)."""
    return _functional().max_pool2d(input, kernel_size, stride or None, padding, dilation,
                                    ceil_mode)


def avg_pool1d(input: Tensor, kernel_size, stride=(), padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """``F.avg_pool1d`` (an empty ``stride`` means the kernel size)."""
    return _functional().avg_pool1d(input, kernel_size, stride or None, padding, ceil_mode,
                                    count_include_pad)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """``F.adaptive_avg_pool1d(input, output_size)``."""
    return _functional().adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size) -> tuple:
    """``F.adaptive_max_pool1d(input, output_size, return_indices=True)``: values and indices."""
    return _functional().adaptive_max_pool1d(input, output_size, return_indices=True)


def constant_pad_nd(input: Tensor, pad, value: float = 0) -> Tensor:
    """``F.pad(input, pad, 'constant', value)``."""
    return _functional().pad(input, pad, "constant", value)


def detach(input: Tensor) -> Tensor:
    """``input.detach()``."""
    return input.detach()


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``F.pixel_shuffle(input, upscale_factor)``."""
    return _functional().pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``F.pixel_unshuffle(input, downscale_factor)``."""
    return _functional().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``F.channel_shuffle(input, groups)``."""
    return _functional().channel_shuffle(input, groups)


native_channel_shuffle = channel_shuffle


# --- vander ---------------------------------------------------------------------------------
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of a vector: column ``j`` is ``x ** (N - 1 - j)`` (decreasing
    powers, NumPy's order), or ``x ** j`` with ``increasing=True``. Integers and bools are
    computed as int64. Built from cumprod, so it is differentiable.

    >>> import teachgrad as torch
    >>> torch.vander(torch.tensor([1, 2, 3]), N=3)
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    from . import _creation
    from .ops import shape
    from .ops.reduce import cumprod

    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x._data.dtype.kind in "biu":  # PyTorch promotes with int64
        x = x.long()
    length = x._data.shape[0]
    columns = [_creation.ones(length, 1, dtype=x.dtype)][:n]
    if n > 1:  # x, x², ... as running products of x
        columns.append(cumprod(shape.expand(shape.unsqueeze(x, 1), (length, n - 1)), 1))
    if not columns:
        return _creation.empty(length, 0, dtype=x.dtype)
    result = shape.cat(columns, 1)
    return result if increasing else shape.flip(result, 1)


# --- small things --------------------------------------------------------------------------
newaxis = None  # ``x[:, torch.newaxis]``, as NumPy's np.newaxis


def get_device(input: Tensor) -> int:
    """-1: the tensor is on the CPU."""
    refuse_non_tensor_input("get_device", (input,), {})
    return -1


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (weight normalisation's)."""
    from .nn.utils.weight_norm import norm_except_dim as norm
    from .ops.decompositions import _scalar_name

    if isinstance(v, Tensor):  # PyTorch's checks, in its order
        if dim != -1 and v.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        if dim != -1:  # (ATen transposes dim to the front: its range is checked there;
            # only -1 means "all dims", another negative one counts from the end)
            from ._tensor import _wrap_dim

            dim = _wrap_dim(dim, v.ndim)
        _view_around(v, dim)
        if not v.dtype.is_floating_point:
            raise RuntimeError(
                "norm(): input dtype should be either floating point or complex. Got "
                f"{_scalar_name(v)} instead.\nHint: convert first, "
                "e.g. v.float().")
    return norm(v, pow, dim)


def _view_around(v: Tensor, dim: int) -> None:
    """ATen's norm_except_dim views ``v`` as ``(v.size(dim), -1)`` (or ``(-1, size)`` for the
    last dim): with no elements, a size of 0 there leaves the -1 undecidable."""
    if v.numel() or dim == -1:
        return
    last = dim == v.ndim - 1 and dim != 0
    if v.shape[dim] == 0:
        shape = "[-1, 0]" if last else "[0, -1]"
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape {shape} because the unspecified "
            "dimension size -1 can be any value and is ambiguous\nHint: v has no elements "
            "along dim, so there is nothing to take norms of.")


def fill(input: Tensor, value) -> Tensor:
    """A new tensor of ``input``'s shape and dtype, every element ``value`` (a number or a
    0-d tensor, which then gets the gradient: the sum of the result's); ``fill_`` out of
    place.

    >>> import teachgrad as torch
    >>> torch.fill(torch.zeros(2, 2), 7)
    tensor([[7., 7.],
            [7., 7.]])
    """
    from .ops.inplace import _fill_value_checked

    refuse_non_tensor_input("fill", (input, value), {})
    _FILL.check((input, value))
    if isinstance(_fill_value_checked(input, value), Tensor):
        return FillBackward1.apply(input, value)
    return FillBackward0.apply(input, value=_fill_value_checked(input, value))


_FILL = Signatures("fill", "(Tensor input, Tensor value)", "(Tensor input, Number value)")


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """``nn.functional.conv_tbc``: a 1-d convolution of (time, batch, channels) input."""
    return _functional().conv_tbc(input, weight, bias, pad)


def is_storage(obj) -> bool:
    """Whether ``obj`` is a storage (``x.untyped_storage()`` or ``x.storage()``)."""
    from .storage import TypedStorage, UntypedStorage

    return isinstance(obj, (TypedStorage, UntypedStorage))


def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormal (subnormal) floats to zero could be set: False, and
    nothing changes. PyTorch sets the CPU's flag for its own kernels; NumPy, which
    teachgrad computes with, has no such switch, so 1e-310 stays 1e-310."""
    if not isinstance(mode, bool):
        raise TypeError(f"set_flush_denormal(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    return False


def compile(model: Callable | None = None, **options) -> Callable:  # noqa: A001
    """``torch.compile``: PyTorch turns the model into fused machine code; teachgrad runs
    Python and NumPy as written, so the model is returned unchanged (and works the same).

    As a decorator (``@torch.compile`` or ``@torch.compile(mode=...)``) it returns the
    function itself.
    """
    if model is None:
        return lambda fn: fn
    return model


__all__ = [
    *_INPLACE_FUNCTIONS,
    "dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout",
    "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "selu", "selu_",
    "celu", "celu_", "rrelu", "rrelu_", "threshold", "threshold_", "hardshrink", "prelu",
    "layer_norm", "batch_norm", "group_norm", "instance_norm", "embedding", "embedding_renorm_",
    "pairwise_distance", "cosine_similarity", "pdist", "kl_div",
    "binary_cross_entropy_with_logits", "margin_ranking_loss", "hinge_embedding_loss",
    "poisson_nll_loss", "triplet_margin_loss", "cosine_embedding_loss", "max_pool1d",
    "max_pool2d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "constant_pad_nd",
    "detach", "newaxis", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "native_channel_shuffle", "vander",
    "get_device", "norm_except_dim", "compile", "fill", "conv_tbc", "is_storage",
    "set_flush_denormal",
]
