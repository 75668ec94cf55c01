"""More dropout: whole channels at once (``dropout1d/2d/3d``) and the self-normalising
variants for SELU networks (``alpha_dropout``, ``feature_alpha_dropout``).

* Channel ("feature") dropout zeroes entire feature maps: neighbouring pixels of a map are
  strongly correlated, so dropping single pixels hardly regularises a convolution. The
  noise has shape ``(N, C, 1, 1, ...)`` and broadcasts over the positions.
* Alpha dropout sets dropped units to SELU's negative saturation value ``-α'`` (not 0)
  and then applies the affine map ``a·x + b`` that restores zero mean and unit variance
  (Klambauer et al., 2017). The same formula as PyTorch's kernel:
  ``out = x·(a·keep) + a·α'·(p − (1 − keep))``.

All are ``input * noise`` (plus a constant for alpha dropout): ``MulBackward0`` and
``AddBackward0`` in the graph, as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _aten_random, _random
from .._tensor import Tensor, _make
from .._warn import warn_user
from .argument_types import takes_arguments

# SELU's negative saturation value: scale · alpha.
_SELU_SATURATION = 1.7580993408473766


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(shape: tuple, p: float, dtype: np.dtype) -> np.ndarray:
    """1.0 with probability ``1 - p``, else 0.0 (PyTorch's ``bernoulli_(1 - p)``)."""
    keep = _aten_random.bernoulli_scalar(_random._engine(None), math.prod(shape), 1 - p)
    return keep.reshape(shape).astype(dtype)


def _noise_shape(input: Tensor, feature: bool) -> tuple:
    if not feature:
        return tuple(input.shape)
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return (input.shape[0], input.shape[1]) + (1,) * (input.dim() - 2)


def _check_float(input: Tensor) -> None:
    if input._data.dtype.kind != "f":
        kind = input.dtype._legacy.removesuffix("Tensor")
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {kind}"
            "\nHint: dropout needs a floating-point input, e.g. x.float()."
        )


def _dropout_impl(input: Tensor, p: float, training: bool, inplace: bool, *, feature: bool,
                  alpha: bool) -> Tensor:
    """PyTorch's ``_dropout_impl``: the one kernel behind every dropout flavour."""
    if p == 0 or not training or input.numel() == 0:
        return input
    dtype = input._data.dtype
    if p == 1:  # before any check, as in PyTorch: a 1-d or an integer input is zeroed
        zero = _make(np.zeros((), dtype))
        return input.mul_(zero) if inplace else input * zero
    shape = _noise_shape(input, feature)
    _check_float(input)
    keep = _keep_mask(shape, p, dtype)
    if not alpha:
        noise = _make(keep / dtype.type(1 - p))
        return input.mul_(noise) if inplace else input * noise
    a = 1.0 / math.sqrt((_SELU_SATURATION ** 2 * p + 1) * (1 - p))
    shift = _make(((keep - 1) * (_SELU_SATURATION * a) + _SELU_SATURATION * a * p)
                  .astype(dtype))
    noise = _make((keep * a).astype(dtype))
    if inplace:
        return input.mul_(noise).add_(shift)
    return input * noise + shift


def _channel_dropout(input: Tensor, p: float, training: bool, inplace: bool,
                     unbatched: bool) -> Tensor:
    """Feature dropout; an unbatched input is treated as a batch of one."""
    if not unbatched:
        return _dropout_impl(input, p, training, inplace, feature=True, alpha=False)
    batch_of_one = input.unsqueeze(0)
    if inplace:  # the view shares the input's memory: writing into it changes the input
        _dropout_impl(batch_of_one, p, training, True, feature=True, alpha=False)
        return input
    return _dropout_impl(batch_of_one, p, training, False, feature=True,
                         alpha=False).squeeze(0)


@takes_arguments("feature_dropout", training=("bool", 3, "train"))
def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, L)`` (or ``(C, L)``) with probability ``p`` and scale
    the rest by ``1/(1-p)``."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    return _channel_dropout(input, p, training, inplace, unbatched=input.dim() == 2)


@takes_arguments("feature_dropout", training=("bool", 3, "train"))
def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` with probability ``p`` (scale the rest by
    ``1/(1-p)``). A 3-D input is taken as ``(N, C, L)``, as PyTorch still does (it warns).

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> out = F.dropout2d(torch.ones(1, 6, 2, 2))
    >>> sorted(set(out.view(6, 4).std(1).tolist()))  # each channel is all 0 or all 2
    [0.0]
    """
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        warn_user(
            f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", UserWarning,
        )
    if ndim == 3:
        warn_user(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret "
            "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
            "the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning,
        )
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=False)


@takes_arguments("feature_dropout", training=("bool", 3, "train"))
def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) with probability
    ``p`` (scale the rest by ``1/(1-p)``)."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        warn_user(
            f"dropout3d: Received a {ndim}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", UserWarning,
        )
    return _channel_dropout(input, p, training, inplace, unbatched=ndim != 5)


@takes_arguments("alpha_dropout", training=("bool", 3, "train"))
def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped units take SELU's saturation value, then an affine
    map keeps mean 0 and variance 1. Note ``training=False`` by default, as in PyTorch."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=False, alpha=True)


@takes_arguments("feature_alpha_dropout", training=("bool", 3, "train"))
def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """:func:`alpha_dropout` of whole channels (dimension 1); ``training=False`` by default."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)


__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]
