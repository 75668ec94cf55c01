"""``teachgrad.nn.utils``: helpers for training loops.

* :func:`clip_grad_norm_` / :func:`clip_grad_value_` — keep gradients from exploding
* :func:`parameters_to_vector` / :func:`vector_to_parameters` — see a model's parameters
  as one long vector (and back)
* :mod:`teachgrad.nn.utils.rnn` — pad and pack batches of sequences of different lengths
* :mod:`~teachgrad.nn.utils.parametrize` / :mod:`~teachgrad.nn.utils.parametrizations` —
  a weight as a function of other tensors (orthogonal, weight_norm, spectral_norm); the
  older :func:`weight_norm` and :func:`spectral_norm` hooks
* :func:`fuse_conv_bn_eval`, :func:`fuse_linear_bn_eval` — fold an eval BatchNorm into a layer
* :mod:`~teachgrad.nn.utils.prune` — zero chosen weights with a mask (pruning)
* :mod:`~teachgrad.nn.utils.stateless` (``functional_call``), :func:`skip_init`
* :func:`convert_conv2d_weight_memory_format` (and ``3d``) — lay conv weights out
  channels-last

>>> import teachgrad as torch
>>> model = torch.nn.Linear(3, 1)
>>> torch.nn.utils.parameters_to_vector(model.parameters()).shape
teachgrad.Size([4])
"""

from . import parametrizations, parametrize, prune, rnn, stateless
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .init import skip_init
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_value_",
    "get_total_norm", "parameters_to_vector", "vector_to_parameters", "rnn",
    "parametrize", "parametrizations", "prune", "stateless", "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval", "fuse_linear_bn_weights", "skip_init", "spectral_norm",
    "remove_spectral_norm", "weight_norm", "remove_weight_norm",
    "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format",
]
