"""``teachgrad.nn.utils``: helpers for training loops.

* :func:`clip_grad_norm_` / :func:`clip_grad_value_` — keep gradients from exploding
* :func:`parameters_to_vector` / :func:`vector_to_parameters` — see a model's parameters
  as one long vector (and back)
* :mod:`teachgrad.nn.utils.rnn` — pad and pack batches of sequences of different lengths

>>> import teachgrad as torch
>>> model = torch.nn.Linear(3, 1)
>>> torch.nn.utils.parameters_to_vector(model.parameters()).shape
teachgrad.Size([4])
"""

from . import rnn
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_value_",
    "get_total_norm", "parameters_to_vector", "vector_to_parameters", "rnn",
]
