"""``teachgrad.nn.functional`` (``import teachgrad.nn.functional as F``): layers as functions.

Every layer in :mod:`teachgrad.nn` is a thin object around one of these functions
(``nn.ReLU()(x)`` is ``F.relu(x)``, ``nn.CrossEntropyLoss()(logits, y)`` is
``F.cross_entropy(logits, y)``). The functions check their arguments with PyTorch's error
messages, then call the ops that record the graph, with PyTorch's ``grad_fn`` names:

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> logits = torch.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
>>> F.cross_entropy(logits, torch.tensor([0]))
tensor(0.2413, grad_fn=<NllLossBackward0>)

The fused loss ops live in :mod:`teachgrad.ops.loss`, the extra activations in
:mod:`teachgrad.nn.activation_ops`.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _aten_random, _dtypes, _random
from .._arguments import Signatures
from .._input_check import BUILTIN, DOUBLE, refuses_complex, takes_ints, takes_tensors
from .._out import accepts_out
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _make, _wrap_dim, numpy_names, python_type_name
from .._torch_function import STATE as _TORCH_FUNCTION  # (private: not F.STATE)
from .._torch_function import handle as _handle
from .._torch_function import has_overloaded as _has_overloaded
from .._warn import warn_user
from ..ops import activation as _activation
from ..ops import inplace as _inplace
from ..ops import linalg as _linalg
from ..ops import pointwise
from ..ops.index import saving_indices
from ..ops.loss import (
    BinaryCrossEntropyBackward0,
    BinaryCrossEntropyWithLogitsBackward0,
    MseLossBackward0,
    NllLoss2DBackward0,
    NllLossBackward0,
    save_nll_loss,
)
from ..ops.number_factor import DivBackward1, MulBackward1
from ..ops.reduce import mean as _mean
from ..ops.reduce import sum as _sum
from ..ops.saved_values import keep_given
from ..ops.split_join import broadcast_shapes as _broadcast_shapes
from . import activation_ops as _ops
from . import feature_dropout as _feature_dropout
from . import normalization_ops as _normalization
from . import rms_norm as _rms_norm
from .argument_types import argument_error, takes_arguments
from .argument_types import scalar_argument as _scalar_argument
from .attention_functional import (  # attention: its own module
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from .batch_norm import batch_norm  # normalisation over the batch: its own module
from .bilinear import bilinear  # a bilinear form per output feature
from .convolution import (  # convolutions: their own module
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
)
from .ctc import ctc_loss  # connectionist temporal classification
from .distance import cosine_similarity, normalize, pairwise_distance  # distances
from .embedding_bag import embedding_bag  # bags of embedding rows, reduced
from .feature_dropout import (  # channel and alpha dropout
    alpha_dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from .fold import fold, unfold  # im2col / col2im as functions
from .grid_sample import affine_grid, grid_sample  # sampling at arbitrary points
from .losses import (  # the losses beyond the classic ones below (they use its helpers)
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from .norms import group_norm, instance_norm, local_response_norm  # more normalisation
from .padding import pad  # padding: its own module
from .pixel_shuffle import (  # channels <-> pixels
    channel_shuffle,
    native_channel_shuffle,
    pixel_shuffle,
    pixel_unshuffle,
)
from .pooling import (  # and pooling
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
)
from .rms_norm import rms_norm  # root-mean-square normalisation
from .unpooling import max_unpool1d, max_unpool2d, max_unpool3d  # pooling undone
from .upsampling import interpolate, upsample, upsample_bilinear, upsample_nearest  # resizing

# ----------------------------------------------------------------------------------------
# Helpers: PyTorch's names for dtypes, reductions, argument checks
# ----------------------------------------------------------------------------------------
_TORCH_TYPE = {
    "float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
    "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
}


def _type_name(t: Tensor) -> str:
    """``'Float'``, ``'Long'`` ...: how PyTorch's kernel messages name a dtype."""
    return _TORCH_TYPE[t._data.dtype.name]


def _as_tensor(x, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a Tensor, not {python_type_name(x)}"
                        + real_pytorch_hint(x))
    return x


def _check_reduction(reduction: str) -> str:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _legacy_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """PyTorch's old ``size_average``/``reduce`` flags, translated (with its warning)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    warn_user(
        "size_average and reduce args will be deprecated, please use "
        f"reduction='{result}' instead.", UserWarning,
    )
    return result


def _require_floating(input: Tensor, kernel: str) -> None:
    """PyTorch's message when a float-only kernel gets an integer tensor."""
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{_type_name(input)}\''
            "\nHint: convert the input to float first, e.g. x.float()."
        )


def _dtype_argument(dtype, function: str):
    """``dtype``, or PyTorch's TypeError when it is not one (``dtype='float32'``: teachgrad's
    ``.to`` would read the string as a device). Python's ``float``, ``int``... are dtypes
    for PyTorch's parser too."""
    if not isinstance(dtype, _dtypes.dtype) and not any(dtype is t for t in (float, int, bool)):
        raise TypeError(f"{function}(): argument 'dtype' must be torch.dtype, not "
                        f"{python_type_name(dtype)}\nHint: write dtype=torch.float32, "
                        "for example (a dtype of the library, not a string).")
    return dtype


def _not_differentiable(function: str, argument: str, t: Tensor | None) -> None:
    if t is not None and t.requires_grad:
        raise RuntimeError(
            f"The function '{function}' is not differentiable with respect to argument "
            f"'{argument}'. This input cannot have requires_grad True."
        )


def _flag(inplace: object) -> bool:
    """``inplace`` as a bool, read before the input is checked: PyTorch's Python asks
    ``if inplace:`` first, so a tensor of several values passed there is refused first."""
    return bool(inplace)


def _maybe_inplace(input: Tensor, inplace: bool, fn, *args, **kwargs) -> Tensor:
    """Run ``fn(input, ...)`` and, for ``inplace=True``, write the result into ``input``."""
    if inplace:
        return _inplace.apply_inplace(input, fn, *args, **kwargs)
    return fn(input, *args, **kwargs)


# ----------------------------------------------------------------------------------------
# Activations
# ----------------------------------------------------------------------------------------
_RELU = Signatures("relu", "(Tensor input)")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)`` elementwise.

    >>> import teachgrad as torch
    >>> torch.nn.functional.relu(torch.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    if _TORCH_FUNCTION.armed or type(input) is not Tensor:
        # (a subclass, a Tensor-like, a mode: see _torch_function)
        if _has_overloaded((input,), None):
            return _handle(relu, (input,), {"inplace": inplace})
        if not isinstance(input, Tensor):  # (pointwise.relu takes a number: PyTorch not)
            _RELU.check((input,))
    return _maybe_inplace(input, inplace, pointwise.relu)


def _no_method(input, method: str) -> AttributeError | None:
    """PyTorch's F.sigmoid and F.tanh are Python functions that call ``input.sigmoid()``:
    given anything without that method (a number, a list, a NumPy array) they fail with
    Python's AttributeError, not the parser's TypeError. None when ``input`` has it (a
    real PyTorch tensor: teachgrad's own error, with its hint, then stands)."""
    if hasattr(input, method):
        return None
    return AttributeError(
        f"'{python_type_name(input)}' object has no attribute '{method}'"
        "\nHint: make it a tensor first, e.g. torch.tensor(...).")


def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + e^(-x))`` elementwise."""
    if type(input) is not Tensor:  # (checked here, without the input-check wrapper)
        if isinstance(input, Tensor):  # (a subclass: PyTorch's calls the method, which
            return input.sigmoid()      # hands the call to its __torch_function__)
        error = _no_method(input, "sigmoid")
        if error is not None:
            raise error
    return pointwise.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent, elementwise."""
    if type(input) is not Tensor:  # (checked here, without the input-check wrapper)
        if isinstance(input, Tensor):  # (a subclass: PyTorch's calls the method, which
            return input.tanh()      # hands the call to its __torch_function__)
        error = _no_method(input, "tanh")
        if error is not None:
            raise error
    return pointwise.tanh(input)


def _hardtanh(input: Tensor, min_val: float, max_val: float) -> Tensor:
    return _ops.HardtanhBackward0.apply(input, min_val=min_val, max_val=max_val)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """Clamp to ``[min_val, max_val]`` (gradient 1 strictly inside, 0 outside)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input._data.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh"
                           "\nHint: convert the input to numbers first, e.g. x.float().")
    if input._data.dtype.kind in "iu":  # PyTorch clamps integers, to the bounds truncated
        return _maybe_inplace(input, inplace, _clamp_integers, int(min_val), int(max_val))
    _require_floating(input, "hardtanh_cpu")
    return _maybe_inplace(input, inplace, _hardtanh, min_val, max_val)


def _clamp_integers(input: Tensor, low: int, high: int) -> Tensor:
    return input.clamp(low, high)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``: PyTorch records it as ``HardtanhBackward0``."""
    return hardtanh(input, 0.0, 6.0, _flag(inplace))


def _leaky_relu(input: Tensor, negative_slope: float) -> Tensor:
    return _ops.LeakyReluBackward0.apply(input, negative_slope=negative_slope)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` for ``x > 0``, else ``negative_slope * x``: a ReLU whose negative side still learns."""
    negative_slope = _scalar_argument(negative_slope, "leaky_relu_" if inplace else "leaky_relu",
                     "negative_slope", 2)
    _require_floating(input, "leaky_relu_cpu")
    return _maybe_inplace(input, inplace, _leaky_relu, negative_slope)


def _elu(input: Tensor, alpha: float, scale: float = 1) -> Tensor:
    # (scale 1 an int, as PyTorch's elu saves it: grad_fn._saved_scale is 1, not 1.0)
    return _ops.EluBackward0.apply(input, alpha=alpha, scale=scale)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` for ``x > 0``, else ``alpha * (e^x - 1)``."""
    alpha = _scalar_argument(alpha, "elu_" if inplace else "elu", "alpha", 2)
    _require_floating(input, "elu_cpu")
    return _maybe_inplace(input, inplace, _elu, alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants of SELU."""
    inplace = _flag(inplace)
    _require_floating(input, "elu_cpu")
    return _maybe_inplace(input, inplace, _elu, _SELU_ALPHA, _SELU_SCALE)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Φ(x)`` (Φ: standard normal CDF); ``approximate='tanh'`` uses the tanh formula."""
    if type(approximate) is not str:  # (PyTorch's parser; `in` would take 1j or None too)
        raise TypeError(f"gelu(): argument 'approximate' must be str, not "
                        f"{python_type_name(approximate)}\nHint: 'none' or 'tanh'.")
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _require_floating(input, "GeluKernelImpl")
    return _ops.GeluBackward0.apply(input, approximate=approximate)


def _silu(input: Tensor) -> Tensor:
    return _ops.SiluBackward0.apply(input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (also called swish)."""
    inplace = _flag(inplace)
    _require_floating(input, "silu_cpu")
    return _maybe_inplace(input, inplace, _silu)


def softplus(input: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:
    """``log(1 + e^(beta x)) / beta``, a smooth ReLU (linear where ``beta x > threshold``)."""
    # (int defaults, as PyTorch's binding: its node saves _saved_beta 1, _saved_threshold 20)
    beta = _scalar_argument(beta, "softplus", "beta")
    threshold = _scalar_argument(threshold, "softplus", "threshold")
    _require_floating(input, "softplus_cpu")
    return _ops.SoftplusBackward0.apply(input, beta=beta, threshold=threshold)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, computed without overflow."""
    _require_floating(input, "log_sigmoid_cpu")
    return _ops.LogSigmoidBackward0.apply(input)


# PyTorch's F.gelu, softplus, logsigmoid, softshrink and hardshrink are its C++ bindings,
# which take out= (its Python activations, F.relu, F.elu ..., do not).
gelu = accepts_out(gelu)
softplus = accepts_out(softplus)
logsigmoid = accepts_out(logsigmoid, "log_sigmoid")


def _mish(input: Tensor) -> Tensor:
    return _ops.MishBackward0.apply(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x · tanh(softplus(x))``: smooth, and slightly negative for small negative x.

    >>> import teachgrad as torch
    >>> torch.nn.functional.mish(torch.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.3034,  0.0000,  0.8651])
    """
    inplace = _flag(inplace)
    _require_floating(input, "mish_cpu")
    return _maybe_inplace(input, inplace, _mish)


def _hardswish(input: Tensor) -> Tensor:
    return _ops.HardswishBackward0.apply(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x · relu6(x + 3) / 6``: 0 below −3, x above 3, a parabola between (MobileNetV3)."""
    inplace = _flag(inplace)
    _require_floating(input, "hardswish_cpu")
    return _maybe_inplace(input, inplace, _hardswish)


def _hardsigmoid(input: Tensor) -> Tensor:
    return _ops.HardsigmoidBackward0.apply(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``: 0 below −3, 1 above 3, a straight line between."""
    inplace = _flag(inplace)
    _require_floating(input, "hardsigmoid_cpu")
    return _maybe_inplace(input, inplace, _hardsigmoid)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``: a sigmoid-shaped curve into (−1, 1), built from ordinary ops."""
    return input / (pointwise.abs(input) + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``x − tanh(x)``, built from ordinary ops (``SubBackward0``)."""
    return input - pointwise.tanh(input)


def _check_lambd(input: Tensor, lambd: float) -> None:
    if input._data.dtype.kind == "f" and lambd < 0:
        largest = float(np.finfo(input._data.dtype).max)
        raise RuntimeError(
            f"lambda must be in range [0, {largest:g}] for input dtype {_type_name(input)}, "
            f"but found {lambd:g}"
        )


@refuses_complex("softshrink", lambd=DOUBLE)
@takes_arguments("softshrink", lambd=("Number", BUILTIN))
def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Shrink toward 0: ``x − λ`` above λ, ``x + λ`` below −λ, 0 in between."""
    _require_floating(input, "softshrink_check")
    _check_lambd(input, lambd)
    return _ops.SoftshrinkBackward0.apply(input, lambd=lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > λ``, else 0."""
    lambd = _scalar_argument(lambd, "hardshrink", "lambd")
    _require_floating(input, "hardshrink_cpu")
    return _ops.HardshrinkBackward0.apply(input, lambd=lambd)


softshrink = accepts_out(softshrink)
hardshrink = accepts_out(hardshrink)


@numpy_names
def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype=None) -> Tensor:
    """``softmax(−x)`` along ``dim``: the smallest score gets the largest probability."""
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim)
    negated = -input  # (PyTorch's Python negates first: a bool input is refused here)
    error = argument_error("softmax", "dim", "int", dim, 1)
    if error is not None:  # (PyTorch's Python calls the method: (-input).softmax(dim))
        raise error
    if dtype is not None:
        negated = negated.to(_dtype_argument(dtype, "softmax"))
    return _activation.softmax(negated, dim)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: split ``input`` in two halves ``a, b`` along ``dim``; ``a · σ(b)``.

    >>> import teachgrad as torch
    >>> torch.nn.functional.glu(torch.tensor([2.0, 0.0]))
    tensor([1.])
    """
    if isinstance(input, Tensor) and input.ndim == 0:  # (F's Python, before ATen's parser)
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _glu(input, dim)


@takes_ints("glu", dim=2)
def _glu(input: Tensor, dim: int = -1) -> Tensor:
    d = _wrap_dim(dim, input.ndim)
    if input.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    _require_floating(input, "glu_cpu")
    out = _ops.GluBackward0.apply(input, dim=d)
    if dim < 0:  # (grad_fn._saved_dim shows it as given: see ops.saved_values)
        keep_given(out, _ops.GluBackward0, dim=dim)
    return out


def _celu(input: Tensor, alpha: float) -> Tensor:
    return _ops.CeluBackward0.apply(input, alpha=alpha)


@refuses_complex("celu", in_place="inplace", alpha=DOUBLE)
@takes_arguments("celu", alpha=("Number", 2))
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, α(e^(x/α) − 1))``: an ELU whose slope at 0 is 1 for every α."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _require_floating(input, "elu_cpu")
    return _maybe_inplace(input, inplace, _celu, alpha)


def _threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    if input._data.dtype.kind != "f":  # integers: not differentiable, computed directly
        data = input._data
        return _make(np.where(data > threshold, data, data.dtype.type(value)))
    return _ops.ThresholdBackward0.apply(input, threshold=threshold, value=value)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``.

    >>> import teachgrad as torch
    >>> torch.nn.functional.threshold(torch.tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    name = "threshold_" if inplace else "threshold"
    threshold = _scalar_argument(threshold, name, "threshold", 2)
    value = _scalar_argument(value, name, "value", 3)
    return _maybe_inplace(input, inplace, _threshold, threshold, value)


@takes_tensors("prelu", weight=BUILTIN)
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, else ``weight · x``, with one learned slope per channel (dim 1),
    or a single slope for every element."""
    # (PyTorch's order: the dtypes, the number of slopes, then the weight's dimensions)
    if input.dtype != weight.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {_type_name(input)} and "
            f"{_type_name(weight)}"
            "\nHint: the input and the slopes must have one dtype, e.g. x.float()."
        )
    count = weight.numel()
    if count != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim >= 2 else 1
        if count != channels:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {count} and channel size = {channels}."
            )
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    _require_floating(input, "prelu_cpu")
    if weight.ndim != input.ndim:
        # As PyTorch: the slopes are reshaped (a view) to broadcast over the input, [1, C,
        # 1, ...], and that view is what the kernel saves, so an error after an in-place
        # change of them names a [1, C, 1, ...] tensor.
        shape = [1] * input.ndim
        if input.ndim > 1:
            shape[1] = count
        weight = weight.reshape(shape)
    return _ops.PreluKernelBackward0.apply(input, weight)


_RRELU_LOWER, _RRELU_UPPER = 1.0 / 8.0, 1.0 / 3.0


def _rrelu(input: Tensor, lower: float, upper: float, training: bool) -> Tensor:
    data = input._data
    if training:  # a random slope for each negative element
        slopes = _aten_random.rrelu_slopes(_random._engine(None), data, lower, upper)
    else:  # the mean slope, the same for all (deterministic)
        slopes = np.full(data.shape, (lower + upper) / 2)
    noise = np.where(data > 0, 1, slopes).astype(data.dtype)
    return _ops.RreluWithNoiseBackward0.apply(input, noise=noise, lower=lower, upper=upper,
                                              training=bool(training))


@refuses_complex("rrelu", lower=DOUBLE, upper=DOUBLE)
@takes_arguments("rrelu", training=("bool", 4))
def rrelu(input: Tensor, lower: float = _RRELU_LOWER, upper: float = _RRELU_UPPER,
          training: bool = False, inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU: while ``training`` each negative element gets a slope drawn
    from ``U(lower, upper)``; otherwise the fixed slope ``(lower + upper) / 2``."""
    lower = _scalar_argument(lower, "rrelu_" if inplace else "rrelu", "lower", 2)
    upper = _scalar_argument(upper, "rrelu_" if inplace else "rrelu", "upper", 3)
    if lower > upper:  # (in eval mode too: PyTorch checks before it looks at training)
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    _require_floating(input, "leaky_relu_cpu")
    return _maybe_inplace(input, inplace, _rrelu, lower, upper, training)


def _softmax_dim(name: str, ndim: int) -> int:
    # (PyTorch's softmax functions take a ``_stacklevel`` for this warning; they accept it,
    # and warn_user finds the caller's line by itself.)
    warn_user(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.", UserWarning,
    )
    return 0 if ndim in (0, 1, 3) else 1


@numpy_names
def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype=None) -> Tensor:
    """``e^x / sum(e^x)`` along ``dim``: turns scores into probabilities that sum to 1.

    >>> import teachgrad as torch
    >>> torch.nn.functional.softmax(torch.tensor([1.0, 1.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    if dtype is not None:
        input = input.to(_dtype_argument(dtype, "softmax"))
    return input.softmax(dim)  # (as PyTorch: a wrong dim is named at position 1)


@numpy_names
def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype=None) -> Tensor:
    """``log(softmax(x))``, computed stably as ``x - logsumexp(x)``."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    if dtype is not None:
        input = input.to(_dtype_argument(dtype, "log_softmax"))
    return input.log_softmax(dim)  # (as PyTorch: a wrong dim is named at position 1)


# ----------------------------------------------------------------------------------------
# Linear layers and dropout
# ----------------------------------------------------------------------------------------
def _linear_dtype_error(input: Tensor, weight: Tensor, bias: Tensor | None) -> RuntimeError:
    """PyTorch's error for an input and weight of different dtypes, in the words of the
    kernel linear calls: addmm with a bias, mm (matmul) without one, dot for two vectors."""
    if input.ndim == 1 and weight.ndim == 1:
        message = (f"dot : expected both vectors to have same dtype, but found "
                   f"{_type_name(input)} and {_type_name(weight)}")
    elif bias is None and weight.ndim == 2:
        message = (f"expected m1 and m2 to have the same dtype, but got: "
                   f"{_CPP_NAMES[input._data.dtype.name]} != {_CPP_NAMES[weight._data.dtype.name]}")
    else:
        message = (f"mat1 and mat2 must have the same dtype, but got {_type_name(input)} and "
                   f"{_type_name(weight)}")
    return RuntimeError(
        f"{message}\nHint: the input is {input.dtype} but the layer is {weight.dtype}; "
        "convert the input (x.float()) or the model (model.to(x.dtype))."
    )


# (the C++ type names PyTorch's mm names dtypes by)
_CPP_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: what ``nn.Linear`` computes.

    As in PyTorch, a 2-D input with a bias is one fused op (``AddmmBackward0``); other
    inputs are flattened to 2-D around it and viewed back. ``out=``: written into ``out``
    (outside autograd, as every ``out=``).
    """
    if _TORCH_FUNCTION.armed or type(input) is not Tensor:  # (__torch_function__)
        given = (input, weight) if bias is None else (input, weight, bias)
        if _has_overloaded(given, None if out is None else {"out": out}):
            return _handle(linear, given, None if out is None else {"out": out})
    if out is not None:
        return _linear_out(input, weight, bias, out)
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)):
        name, position, t = ("input", 1, input) if not isinstance(input, Tensor) else (
            "weight", 2, weight)
        raise TypeError(
            f"linear(): argument '{name}' (position {position}) must be Tensor, not "
            f"{python_type_name(t)}" + real_pytorch_hint(t)
        )
    x, w = input._data, weight._data
    if x.ndim == 0 or w.ndim == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{x.ndim}D and {w.ndim}D"
        )
    # (the shapes are checked before the dtypes, as PyTorch's mm and mv do)
    if w.ndim == 2 and x.shape[-1] != w.shape[1]:
        rows = math.prod(x.shape[:-1])
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} and "
            f"{w.shape[1]}x{w.shape[0]})"
            f"\nHint: the layer takes {w.shape[1]} input features (weight shape "
            f"{list(w.shape)}), but the input's last dimension is {x.shape[-1]} "
            f"(input shape {list(x.shape)})."
        )
    if w.ndim == 1 and x.ndim == 2 and x.shape[1] != w.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({x.shape[0]}), mat ({x.shape[0]}x{x.shape[1]}), vec "
            f"({w.shape[0]})\nHint: a 1-D weight is one output's weights: it needs one per "
            f"input feature ({x.shape[1]}).")
    if x.dtype != w.dtype:
        raise _linear_dtype_error(input, weight, bias)
    if bias is None:
        return _linalg.matmul(input, weight.t())
    if not isinstance(bias, Tensor):
        # PyTorch's words for bias=... (given by position, its message adds "(position 3)";
        # telling the two apart would cost every call a wrapper).
        raise TypeError(
            f"linear(): argument 'bias' must be Tensor, not {python_type_name(bias)}"
            "\nHint: a bias is a tensor with one value per output feature, e.g. "
            "torch.zeros(weight.shape[0]); pass bias=None for no bias."
        )
    if x.ndim == 2:
        if (w.ndim == 2 and isinstance(bias, Tensor) and bias._data.dtype is w.dtype
                and bias._data.shape == w.shape[:1]):
            # Everything addmm would check is checked (nn.Linear's every call): record it.
            return _linalg.AddmmBackward0.apply(bias, input, weight.t(), beta=1, alpha=1)
        return _linalg.addmm(bias, input, weight.t())
    if not input.is_contiguous():
        # PyTorch flattens only a contiguous input (a free view); otherwise it multiplies
        # and adds the bias afterwards, and its graph shows that (AddBackward0 on top).
        return _linalg.matmul(input, weight.t()) + bias
    # Flatten the leading dimensions into one batch, run the fused op, view back.
    *lead, features = input.shape
    flat = input.reshape(math.prod(lead), features)
    out = _linalg.addmm(bias, flat, weight.t())
    return out.view(*lead, out.shape[1])


def _linear_out(input: Tensor, weight: Tensor, bias: Tensor | None, out: Tensor) -> Tensor:
    """``F.linear(..., out=out)``: PyTorch's linear_out writes through addmm's or matmul's
    ``out=``, so their dtype rules apply (dot's for two vectors)."""
    from .._out import _out_autograd_error, write_out
    from ..autograd.grad_mode import is_grad_enabled

    operands = (input, weight, bias, out)
    if is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad for t in operands):
        raise _out_autograd_error("linear", "linear", ())
    result = linear(input, weight, bias)
    vectors = input.dim() == 1 and weight.dim() == 1
    return write_out("dot" if vectors else "matmul", result, out)


@takes_arguments("dropout", training=("bool", 3, "train"))
def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``.

    Only while ``training``; otherwise (and for ``p=0``) ``input`` itself is returned.
    The scaling keeps the expected value of every element unchanged.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    dtype = input._data.dtype
    if p == 1:
        noise = _make(np.zeros((), dtype))
    else:
        _feature_dropout._check_float(input)  # (the scaled mask is not an integer)
        keep = _aten_random.bernoulli_scalar(_random._engine(None), input._data.size, 1 - p)
        noise = _make(keep.reshape(input._data.shape).astype(dtype) / dtype.type(1 - p))
    return input.mul_(noise) if inplace else pointwise.mul(input, noise)


# ----------------------------------------------------------------------------------------
# Regression losses
# ----------------------------------------------------------------------------------------
def _broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """``torch.broadcast_tensors(input, target)`` with PyTorch's warning for mismatched sizes."""
    if target.shape == input.shape:
        return input, target
    warn_user(
        f"Using a target size ({target.size()}) that is different to the input size "
        f"({input.size()}). This will likely lead to incorrect results due to broadcasting. "
        "Please ensure they have the same size.", UserWarning,
    )
    pointwise._check_broadcast(input, target)
    shape = np.broadcast_shapes(input.shape, target.shape)
    return (
        input if input.shape == shape else input.expand(*shape),
        target if target.shape == shape else target.expand(*shape),
    )


def _weighted(errors: Tensor, input: Tensor, weight: Tensor, reduction: str) -> Tensor:
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    errors = errors * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return _sum(errors)
    return _sum(errors) / _sum(weight)


def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
             reduce: bool | None = None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Mean squared error ``mean((input - target)²)`` (or its sum, or each term).

    >>> import teachgrad as torch
    >>> torch.nn.functional.mse_loss(torch.tensor([1.0, 3.0]), torch.tensor([0.0, 0.0]))
    tensor(5.)
    """
    input, target = _as_tensor(input, "input"), _as_tensor(target, "target")
    reduction = _legacy_reduction(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if weight is not None:
        errors = pointwise.pow(expanded_input - expanded_target, 2)
        return _weighted(errors, input, weight, _check_reduction(reduction))
    _check_reduction(reduction)
    if input._data.dtype.kind != "f" and target._data.dtype.kind != "f":
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{_type_name(input)}'")
    return MseLossBackward0.apply(expanded_input, expanded_target, reduction=reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
            reduce: bool | None = None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Mean absolute error ``mean(|input - target|)``.

    PyTorch records it as plain ops (``MeanBackward0`` over ``AbsBackward0`` over
    ``SubBackward0``), and so does teachgrad.
    """
    input, target = _as_tensor(input, "input"), _as_tensor(target, "target")
    reduction = _legacy_reduction(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    errors = pointwise.abs(expanded_input - expanded_target)
    if weight is not None:
        return _weighted(errors, input, weight, _check_reduction(reduction))
    if _check_reduction(reduction) == "none":
        return errors
    return _sum(errors) if reduction == "sum" else _mean(errors)


# ----------------------------------------------------------------------------------------
# Classification losses
# ----------------------------------------------------------------------------------------
_CLASS_DTYPES = (np.dtype(np.int64), np.dtype(np.uint8))


def _check_class_target(target: Tensor) -> None:
    if target._data.dtype not in _CLASS_DTYPES:  # (dtype.name is slow: a loss runs often)
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_type_name(target)}"
            "\nHint: class-index targets are int64 tensors, e.g. y = y.long()."
        )


@takes_ints("nll_loss_nd", ignore_index=5)
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: bool | None = None, ignore_index: int = -100,
             reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood: ``-input[n, target[n]]``, averaged over the samples.

    ``input`` holds log-probabilities (from ``log_softmax``), classes along dimension 1;
    ``target`` holds class indices (int64). ``weight`` rescales each class; samples whose
    target is ``ignore_index`` are left out.
    """
    input, target = _as_tensor(input, "input"), _as_tensor(target, "target")
    reduction = _check_reduction(_legacy_reduction(size_average, reduce, reduction))
    shape, target_shape = input._data.shape, target._data.shape
    ndim, target_ndim = len(shape), len(target_shape)
    if ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {ndim})")
    if ndim != 1 and (target_ndim == 0 or shape[0] != target_shape[0]):
        got = target_shape[0] if target_ndim else 0
        raise ValueError(
            f"Expected input batch_size ({shape[0]}) to match target batch_size ({got})."
        )
    if ndim == 3 or ndim > 4:  # (nll_loss_nd's check, before it reshapes to 4-d)
        expected = (shape[0], *shape[2:])
        if target_shape != expected:
            raise RuntimeError(
                f"Expected target size {list(expected)}, got {list(target_shape)}"
            )
    if weight is not None:  # (autograd's check: before the kernel's own)
        _not_differentiable("nll_loss_forward" if ndim <= 2 else "nll_loss2d_forward",
                            "weight", weight)
    if ndim <= 2:
        if target_ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif ndim == 4 and target_ndim != 3:  # (PyTorch's 4-d kernel's own check)
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target_ndim}")
    _check_class_target(target)
    if ndim == 1 and target_ndim == 1 and target_shape[0] != 1:
        raise ValueError(
            "For 1D input, 1D target must have size 1, but got target size: "
            f"{target_shape[0]}"
        )
    _require_floating(input, "nll_loss_out_frame")
    n_classes = shape[1] if ndim >= 2 else shape[0]
    weight_data = None
    if weight is not None:
        if weight.numel() != n_classes:
            raise RuntimeError(
                "weight tensor should be defined either for all or no classes" if ndim > 2 else
                f"weight tensor should be defined either for all {n_classes} classes or no "
                f"classes but got weight tensor of shape: {list(weight.shape)}"
            )
        if weight.dtype != input.dtype:
            raise RuntimeError(
                f"expected scalar type {_type_name(input)} but found {_type_name(weight)}"
            )
        weight_data = weight._data
    if ndim == 4 and target_shape != (shape[0], *shape[2:]):
        raise RuntimeError(f"size mismatch (got input: {list(shape)} , target: "
                           f"{list(target_shape)}")
    if (ndim == 3 or ndim > 4) and input.numel() == 0 and target.numel() > 0:
        # (PyTorch views an empty input as (N, C, 0, 0) for its 4-D kernel, which then
        # finds that the target does not fit: no classes, C = 0)
        rest = math.prod(shape[2:])
        raise RuntimeError(f"size mismatch (got input: [{shape[0]}, {shape[1]}, 0, 0] , "
                           f"target: [{shape[0]}, 1, {rest}]")
    classes = target._data.astype(np.int64)  # a copy: changing target later changes nothing
    if ndim == 1 and classes.ndim == 1:  # a single sample given as [class]
        classes = classes.reshape(())
    # Two reductions find out whether every class index is in range (the usual case); only
    # then is it worth looking for the culprit, leaving ignore_index out.
    if classes.size and (classes.min() < 0 or classes.max() >= n_classes):
        out_of_bounds = (classes != ignore_index) & ((classes < 0) | (classes >= n_classes))
        if out_of_bounds.any():
            raise IndexError(
                f"Target {classes[out_of_bounds].flat[0]} is out of bounds."
                f"\nHint: class indices must be in [0, {n_classes - 1}] for {n_classes} classes."
            )
    options = dict(weight=weight_data, reduction=reduction, ignore_index=ignore_index)
    # The target and weight are saved as PyTorch saves them: backward refuses one changed
    # in place since (save_nll_loss; kept short: cross_entropy runs this every step).
    saved = (classes,) if weight is None else (classes, weight_data)
    if ndim <= 2:
        loss = NllLossBackward0.apply(input, target=classes, **options)
        save_nll_loss(loss, input, saved, target, weight)
        return loss
    if ndim == 4:
        loss = NllLoss2DBackward0.apply(input, target=classes, **options)
        save_nll_loss(loss, input, saved, target, weight)
        return loss
    # Other ranks go through the 4-D op as PyTorch does: (N, C, 1, rest), then back.
    n, c, *rest = input.shape
    flat = input.reshape(n, c, 1, math.prod(rest))
    loss = NllLoss2DBackward0.apply(flat, target=classes.reshape(n, 1, math.prod(rest)),
                                    **options)
    save_nll_loss(loss, flat, saved, target.reshape(n, 1, math.prod(rest)), weight)  # (reshaped)
    return loss.view(n, *rest) if reduction == "none" else loss


# (what PyTorch's F.cross_entropy calls, and names in its errors)
_CROSS_ENTROPY = Signatures(
    "cross_entropy_loss", "(Tensor input, Tensor target, Tensor weight = None, "
    "int reduction = Mean, int ignore_index = -100, float label_smoothing = 0.0)")


@refuses_complex("cross_entropy_loss", label_smoothing=6)
@takes_ints("cross_entropy_loss", ignore_index=5)
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: bool | None = None, ignore_index: int = -100,
                  reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy between raw scores (logits) and targets: ``nll_loss(log_softmax(input))``.

    ``target`` is either class indices (int64, shape ``(N,)``) or class probabilities
    (float, same shape as ``input``). ``label_smoothing`` mixes the targets with the
    uniform distribution. Stable for any logits (no overflow at ±1000).

    >>> import teachgrad as torch
    >>> logits = torch.tensor([[1000.0, -1000.0]])
    >>> torch.nn.functional.cross_entropy(logits, torch.tensor([1]))
    tensor(2000.)
    """
    if not (isinstance(input, Tensor) and isinstance(target, Tensor)):
        _CROSS_ENTROPY.check((input, target))
    reduction = _check_reduction(_legacy_reduction(size_average, reduce, reduction))
    label_smoothing = _scalar_argument(label_smoothing, "cross_entropy_loss", "label_smoothing",
                                       6, kind="float")
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target._data.shape:
        return _cross_entropy_probabilities(input, target, weight, ignore_index, reduction,
                                            label_smoothing, class_dim)
    # PyTorch smooths only when label_smoothing > 0 (a negative or nan one is ignored),
    # and checks the upper bound first, before any of nll_loss's checks.
    _check_label_smoothing(label_smoothing)
    log_probs = log_softmax(input, class_dim)
    loss = nll_loss(log_probs, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing > 0:
        return loss
    return _label_smoothing(loss, log_probs, target, weight, ignore_index, reduction,
                            label_smoothing, class_dim)


def _check_label_smoothing(label_smoothing: float) -> None:
    """PyTorch's check, made only where the smoothing is applied (``label_smoothing > 0``)."""
    if label_smoothing > 0 and not label_smoothing <= 1.0:
        raise RuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            "\nHint: label_smoothing is the share of each target given to the uniform "
            "distribution, e.g. 0.1."
        )


def _class_weight_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    """``weight`` shaped to broadcast along the class dimension of an ``ndim`` input."""
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(*shape)


def _cross_entropy_probabilities(input, target, weight, ignore_index, reduction,
                                 label_smoothing, class_dim):
    """Cross entropy against a distribution: ``-sum(target * log_softmax(input))``."""
    if target._data.dtype.kind != "f":
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, got "
            f"{_type_name(target)}"
            "\nHint: class-index targets have one int per sample (shape (N,)); a target "
            "shaped like the input must hold probabilities (floats)."
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if input.ndim == 0:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    n_classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != n_classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n_classes} "
            f"classes or no classes but got weight tensor of shape: {list(weight.shape)}"
        )
    _check_label_smoothing(label_smoothing)
    log_probs = log_softmax(input, class_dim)
    if label_smoothing > 0:  # (no classes: C's division by 0 is inf, added to nothing)
        share = label_smoothing / n_classes if n_classes else math.inf
        target = target * (1 - label_smoothing) + share
    terms = log_probs * target
    if weight is not None:
        terms = terms * _class_weight_view(weight, input.ndim, class_dim)
    if reduction == "none":
        return -_sum(terms, class_dim)
    total = -_sum(terms)
    if reduction == "sum":
        return total
    if input.numel() == 0:  # PyTorch: the sum of nothing, filled with nan, then negated
        return -_sum(terms).fill_(math.nan)
    return DivBackward1.apply(total, other=input.numel() // n_classes)


def _label_smoothing(nll, log_probs, target, weight, ignore_index, reduction,
                     label_smoothing, class_dim):
    """Mix the class-index loss with the loss against a uniform distribution over classes."""
    n_classes = log_probs.shape[class_dim]
    ignored = _make(target._data == ignore_index)
    if weight is not None:
        weighted = log_probs * _class_weight_view(weight, log_probs.ndim, class_dim)
        smooth = -_sum(weighted, class_dim)
    else:
        smooth = -_sum(log_probs, class_dim)
    # In place, as PyTorch: a mask that would broadcast the loss to a larger shape (an
    # unbatched input with a target of shape (1,)) is refused.
    smooth = smooth.masked_fill_(ignored, 0.0)
    if reduction == "mean":
        counted = ~ignored._data
        if weight is not None:
            denominator = weight._data[target._data[counted]].sum()
        else:
            denominator = counted.sum()
        smooth = _sum(smooth) / _make(np.asarray(denominator))
    elif reduction == "sum":
        smooth = _sum(smooth)
    return (MulBackward1.apply(nll, other=1 - label_smoothing)
            + MulBackward1.apply(smooth, other=label_smoothing / n_classes))


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """Binary cross entropy between probabilities ``input`` (in [0, 1]) and ``target``.

    Logs are clamped at -100, as in PyTorch. For raw scores use
    :func:`binary_cross_entropy_with_logits` (more stable).
    """
    input, target = _as_tensor(input, "input"), _as_tensor(target, "target")
    reduction = _check_reduction(_legacy_reduction(size_average, reduce, reduction))
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size."
        )
    weight_data = None
    if weight is not None:
        _not_differentiable("binary_cross_entropy", "weight", weight)
        shape = _broadcast_shapes(target.size(), weight.size())  # (PyTorch's words if not)
        if shape != tuple(target.shape):  # (the weight would widen the loss: refused)
            raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the "
                               f"broadcast shape {list(shape)}")
        # expanded to the target's shape, as PyTorch's Python does (grad_fn._saved_weight)
        weight_data = np.broadcast_to(weight._data, shape)
    if target.dtype != input.dtype:
        raise RuntimeError(
            f"Found dtype {_type_name(target)} but expected {_type_name(input)}"
            "\nHint: the target must have the input's dtype, e.g. y = y.float()."
        )
    _require_floating(input, "binary_cross_entropy")
    p = input._data
    if not np.all((p >= 0) & (p <= 1)):
        raise RuntimeError(
            "all elements of input should be between 0 and 1"
            "\nHint: binary_cross_entropy takes probabilities; apply sigmoid first, or use "
            "binary_cross_entropy_with_logits on the raw scores."
        )
    t = target._data
    if not np.all((t >= 0) & (t <= 1)):
        raise RuntimeError("all elements of target should be between 0 and 1")
    loss = BinaryCrossEntropyBackward0.apply(input, target, weight=weight_data,
                                             reduction=reduction)
    # a weight changed in place since: backward refuses, naming it expanded as PyTorch's
    return loss if weight is None else saving_indices(loss, (weight.expand_as(input),), 2)


@takes_tensors("binary_cross_entropy_with_logits", optional=("weight", "pos_weight"),
               weight=3, pos_weight=4)
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None,
                                     size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross entropy on raw scores: ``binary_cross_entropy(sigmoid(input), target)``
    computed in one stable step (no overflow at ±1000).

    ``pos_weight`` multiplies the loss of the positive class (one value per class).
    """
    input, target = _as_tensor(input, "input"), _as_tensor(target, "target")
    reduction = _check_reduction(_legacy_reduction(size_average, reduce, reduction))
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    _require_floating(input, "log_sigmoid_cpu")
    if target._data.dtype == np.bool_:  # (PyTorch's kernel computes 1 - target first)
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead.\nHint: the target must be a float "
            "tensor of 0s and 1s, e.g. y = y.float()."
        )
    if target._data.dtype.kind != "f":
        raise RuntimeError(
            f"result type {_type_name(input)} can't be cast to the desired output type "
            f"{_type_name(target)}"
            "\nHint: the target must be a float tensor of 0s and 1s, e.g. y = y.float()."
        )
    constants = {}
    # PyTorch's kernel: log_sigmoid(x) *= (pos_weight - 1) * target + 1, then
    # loss *= weight, both in place: a factor that would widen the loss is refused.
    for name, value in (("pos_weight", pos_weight), ("weight", weight)):
        if value is not None:
            _not_differentiable("binary_cross_entropy_with_logits", name, value)
            if name == "pos_weight":
                pointwise._check_broadcast(value, target)
            else:
                pointwise._check_broadcast(input, value)
            shape = np.broadcast_shapes(input.shape, value.shape)
            if shape != tuple(input.shape):
                raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the "
                                   f"broadcast shape {list(shape)}")
            constants[name] = value._data
    loss = BinaryCrossEntropyWithLogitsBackward0.apply(input, target, reduction=reduction,
                                                       **constants)
    # (the weights changed in place since: backward refuses, as PyTorch's)
    return saving_indices(loss, tuple(w for w in (weight, pos_weight) if w is not None), 2)


# ----------------------------------------------------------------------------------------
# Embedding and normalization
# ----------------------------------------------------------------------------------------
@refuses_complex("embedding_renorm_", max_norm=3)
@takes_arguments("embedding", scale_grad_by_freq=("bool", 4), sparse=("bool", 5))
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Look up rows of ``weight``: ``out[..., :] = weight[input[...], :]``.

    ``input`` holds integer indices (any shape); the result has one more dimension, of
    size ``weight.shape[1]``. ``padding_idx``: that row receives no gradient.
    ``max_norm``: rows that are looked up and longer than it are first shrunk *in place*
    to that norm (as PyTorch does). ``scale_grad_by_freq``: divide each row's gradient by
    how often it appears in ``input``.

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> F.embedding(torch.tensor([2, 0]), torch.tensor([[0., 0.], [1., 1.], [2., 4.]]))
    tensor([[2., 4.],
            [0., 0.]])
    """
    from .embedding_op import EmbeddingBackward0

    if weight._data.ndim != 2:  # (ATen checks the table first, then the indices)
        raise RuntimeError(
            "'weight' must be 2-D\nHint: the table has one row per index: shape "
            "(num_embeddings, embedding_dim), e.g. torch.randn(10, 3).")
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.type()} instead (while checking arguments "
            "for embedding)\nHint: indices must be integers, e.g. tokens.long()."
        )
    num_embeddings = weight.shape[0]
    if padding_idx is not None:  # (compared in PyTorch's order: its error for a complex one)
        if (padding_idx >= num_embeddings if padding_idx > 0
                else padding_idx < 0 and padding_idx < -num_embeddings):
            raise AssertionError("Padding_idx must be within num_embeddings")
        error = argument_error("embedding", "padding_idx", "int", padding_idx, 3)
        if error is not None:  # (a float or a bool passed the comparisons above)
            raise error
        padding_idx %= num_embeddings  # a negative index counts from the end
    indices = input._data.astype(np.int64)
    if max_norm is not None:  # (PyTorch's Python renormalises before the lookup checks)
        _embedding_renorm_(weight, np.unique(indices), max_norm, norm_type)
    outside = (indices < 0) | (indices >= num_embeddings)
    if outside.any():
        raise IndexError(
            "index out of range in self"
            f"\nHint: the table has {num_embeddings} rows (indices 0..{num_embeddings - 1}) "
            f"but an index is {int(indices[outside].flat[0])}."
        )
    if sparse:
        raise NotImplementedError(
            "embedding(sparse=True) needs sparse gradients, which teachgrad does not have; "
            "use sparse=False"
        )
    out = EmbeddingBackward0.apply(weight, indices=indices, padding_idx=padding_idx,
                                   scale_grad_by_freq=scale_grad_by_freq, given=input._data)
    return saving_indices(out, (input,))  # (backward refuses indices changed since)


def _embedding_renorm_(weight: Tensor, rows: np.ndarray, max_norm: float,
                       norm_type: float) -> None:
    """Shrink, in place and unrecorded, the given rows whose norm exceeds ``max_norm``
    (PyTorch's ``embedding_renorm_``, with its ``1e-7``)."""
    max_norm = _scalar_argument(max_norm, "embedding_renorm_", "max_norm", 3, kind="float")
    norm_type = _scalar_argument(norm_type, "embedding_renorm_", "norm_type", 4, kind="float")
    n = weight.shape[0]
    outside = rows[(rows < -n) | (rows >= n)]  # (rows: sorted; each one is select()ed)
    if outside.size:
        raise IndexError(
            f"select(): index {outside[0]} out of range for tensor of size "
            f"{list(weight.shape)} at dimension 0"
            f"\nHint: the table has {n} rows (indices 0..{n - 1})."
        )
    from ..autograd.grad_mode import no_grad
    from ..ops.reduce import vector_norm

    with no_grad():
        picked = weight[_make(rows)]
        norms = vector_norm(picked, norm_type, dim=1, keepdim=True)
        scale = (max_norm / (norms + 1e-7)).where(norms > max_norm, 1.0)
        weight[_make(rows)] = picked * scale


def _shape_list(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


@refuses_complex("layer_norm", eps=5)
def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalize over the last dimensions (``normalized_shape``): zero mean and unit
    variance for each sample, then ``* weight + bias``.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with the mean and the (biased)
    variance taken over the last ``len(normalized_shape)`` dimensions. One node in the
    graph, ``NativeLayerNormBackward0`` as in PyTorch (its formula is in
    :mod:`teachgrad.nn.normalization_ops`); it can be differentiated twice.

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> F.layer_norm(torch.tensor([[1.0, 3.0]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    eps = _scalar_argument(eps, "layer_norm", "eps", 5, kind="float")
    shape = _rms_norm._normalized_shape(normalized_shape, "layer_norm")
    n = len(shape)
    if n == 0:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
            "least one element, but got normalized_shape = []"
        )
    if input.dim() < n or tuple(input.shape[input.dim() - n:]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={_shape_list(shape)}, expected input with shape "
            f"{_shape_list(('*',) + shape)}, but got input of size{_shape_list(input.shape)}"
        )
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and tuple(param.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {_shape_list(param.shape)} and normalized_shape = {_shape_list(shape)}"
            )
    _require_floating(input, "LayerNormKernelImpl")
    _normalization.check_parameter_dtypes(input, weight, bias)
    # float16 is computed in float32 and rounded at the end, as PyTorch's kernel does: in
    # float16 the square of a value above 256 is already inf.
    x = input.float() if input.dtype is _dtypes.float16 else input
    dims = tuple(range(-n, 0))
    out = _normalization.NativeLayerNormBackward0.apply(x, weight, bias, dims=dims, eps=eps)
    return out if x is input else out.to(input.dtype)


# ----------------------------------------------------------------------------------------
# Utilities
# ----------------------------------------------------------------------------------------
@takes_ints("one_hot", num_classes=BUILTIN)
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices to one-hot rows: ``one_hot(tensor([0, 2]), 3)`` is ``[[1,0,0],[0,0,1]]``.

    Handy to build class-probability targets for ``cross_entropy`` (``.float()`` them).
    """
    if tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    classes = tensor._data
    if classes.size and classes.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if not classes.size and num_classes <= 0:  # (PyTorch: 0 classes for nothing is refused)
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if num_classes == -1:
        num_classes = int(classes.max()) + 1
    elif classes.size and classes.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _make((classes[..., None] == np.arange(num_classes)).astype(np.int64))


__all__ = [
    "relu", "sigmoid", "tanh", "hardtanh", "relu6", "leaky_relu", "elu", "selu", "gelu",
    "silu", "softplus", "logsigmoid", "softmax", "log_softmax", "linear", "dropout",
    "mish", "hardswish", "hardsigmoid", "softsign", "tanhshrink", "softshrink", "hardshrink",
    "softmin", "glu", "celu", "threshold", "prelu", "rrelu",
    "mse_loss", "l1_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "one_hot", "embedding", "layer_norm",
    "conv1d", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
    "batch_norm", "smooth_l1_loss", "huber_loss", "kl_div", "gaussian_nll_loss",
    "poisson_nll_loss", "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
    "triplet_margin_loss", "soft_margin_loss", "multi_margin_loss",
    "multilabel_soft_margin_loss", "cosine_similarity", "pairwise_distance", "normalize",
    "group_norm", "instance_norm", "local_response_norm",
    "pad",
    "conv_transpose1d", "conv_transpose2d",
    "max_pool1d", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d", "lp_pool1d",
    "lp_pool2d", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "fold",
    "unfold", "conv3d", "conv_transpose3d",
    "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "lp_pool3d",
    "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d",
    "grid_sample", "affine_grid", "embedding_bag", "multilabel_margin_loss",
    "triplet_margin_with_distance_loss", "ctc_loss", "pixel_shuffle", "pixel_unshuffle",
    "channel_shuffle", "native_channel_shuffle", "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "scaled_dot_product_attention", "multi_head_attention_forward",
    "rms_norm", "bilinear",
    "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
]

# (at the end: these are written with the functions above)
from .functional_more import (  # noqa: E402 - in-place activations, gumbel_softmax, pdist
    celu_,
    conv_tbc,
    elu_,
    gumbel_softmax,
    hardtanh_,
    leaky_relu_,
    pdist,
    relu_,
    rrelu_,
    selu_,
    threshold_,
)

__all__ += [
    "relu_", "elu_", "leaky_relu_", "hardtanh_", "threshold_", "rrelu_", "selu_", "celu_",
    "gumbel_softmax", "pdist", "conv_tbc",
]
from .linear_cross_entropy import linear_cross_entropy  # noqa: E402 - linear + cross entropy

__all__ += ["linear_cross_entropy"]
# F.elu([1., 2.]): PyTorch's "argument 'input' (position 1) must be Tensor, not list"
# (see _input_check; checked only after a failure, so a correct call pays one frame).
# linear and relu check their arguments themselves, and every layer calls them; sigmoid
# and tanh too (PyTorch's fail with an AttributeError, which the wrapper would reword).
from .._input_check import add_input_checks  # noqa: E402
from . import grad  # noqa: E402, F401 - F.grad is torch.nn.grad, as in PyTorch

add_input_checks(globals(), skip=frozenset({"linear", "relu", "relu_", "sigmoid", "tanh"}))
# ... and they take part in the __torch_function__ protocol themselves (see each), for
# the same reason: no wrapper's frame (teachgrad/__init__ wraps the others).
for _function in (linear, relu, sigmoid, tanh):
    _function.dispatches_torch_function = _function
