"""The other dropouts: whole channels at once (``dropout1d``/``2d``/``3d``) and the
self-normalising kind (``alpha_dropout``, ``feature_alpha_dropout``).

* **Channel (feature) dropout.** Neighbouring pixels of a feature map are strongly
  correlated, so dropping single pixels hardly regularises a convolution. Dropping a whole
  channel does: each (sample, channel) pair is zeroed with probability p, the rest scaled
  by 1/(1 − p).
* **Alpha dropout** (Klambauer et al., 2017) is for SELU networks: it sets dropped units to
  SELU's negative saturation value −α' instead of 0, then applies ``a·x + b`` chosen so that
  mean 0 and variance 1 survive, which SELU's self-normalisation relies on.

The noise is drawn as PyTorch draws it (one Bernoulli per element or per channel), from
teachgrad's generator.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _random
from .._tensor import Tensor, _make
from ..ops import pointwise

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
           "feature_dropout"]

_SELU_NEGATIVE_SATURATION = 1.7580993408473766  # scale · alpha of SELU: −α' is its floor


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise_shape(input: Tensor, feature: bool) -> tuple:
    shape = input._data.shape
    if not feature:
        return shape
    if len(shape) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return shape[:2] + (1,) * (len(shape) - 2)  # one draw per (sample, channel)


def _dropout(input: Tensor, p: float, train: bool, *, feature: bool, alpha: bool,
             inplace: bool) -> Tensor:
    """ATen's ``_dropout_impl``: the one routine behind every dropout variant."""
    if p == 0 or not train or input.numel() == 0:
        return input
    dtype = input._data.dtype
    if p == 1:
        zero = _make(np.zeros((), dtype))
        return input.mul_(zero) if inplace else pointwise.mul(input, zero)
    keep = (_random.default_generator._numpy.random(_noise_shape(input, feature)) < 1 - p)
    noise = keep.astype(dtype)
    if alpha:
        a = 1.0 / math.sqrt((_SELU_NEGATIVE_SATURATION**2 * p + 1) * (1 - p))
        # out = a·z + α'·a·p, with z = x for kept units and z = −α' (SELU's floor) for dropped
        b = _make(((noise - 1) * (_SELU_NEGATIVE_SATURATION * a)
                   + _SELU_NEGATIVE_SATURATION * a * p).astype(dtype))
        scaled = _make((noise * a).astype(dtype))
        out = input.mul_(scaled) if inplace else pointwise.mul(input, scaled)
        return out.add_(b)
    scaled = _make((noise / dtype.type(1 - p)).astype(dtype))
    return input.mul_(scaled) if inplace else pointwise.mul(input, scaled)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zero whole channels (dim 1) with probability ``p``, scale the rest by 1/(1 − p)."""
    return _dropout(input, p, train, feature=True, alpha=False, inplace=False)


def _channel_dropout(input: Tensor, p: float, training: bool, inplace: bool,
                     batched: bool) -> Tensor:
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout(input, p, training, feature=True, alpha=False, inplace=inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Channel dropout for (N, C, L) or (C, L) inputs: each channel is zeroed whole."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    return _channel_dropout(input, p, training, inplace, batched=inp_dim == 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Channel dropout for (N, C, H, W) inputs: each feature map is zeroed whole."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", UserWarning,
            stacklevel=2,
        )
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret "
            "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
            "the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning, stacklevel=2,
        )
    return _dropout(input, p, training, feature=True, alpha=False, inplace=inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Channel dropout for (N, C, D, H, W) or (C, D, H, W) inputs."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", UserWarning,
            stacklevel=2,
        )
    return _channel_dropout(input, p, training, inplace, batched=inp_dim == 5)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout that keeps SELU's mean 0 and variance 1 (dropped units go to SELU's floor)."""
    _check_p(p)
    return _dropout(input, p, training, feature=False, alpha=True, inplace=inplace)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels."""
    _check_p(p)
    return _dropout(input, p, training, feature=True, alpha=True, inplace=inplace)
