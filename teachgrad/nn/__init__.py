"""``teachgrad.nn``: build neural networks the PyTorch way.

* :class:`Module` — the base class of layers and models (``parameters()``, ``train()``,
  ``state_dict()``, printing as a tree)
* :class:`Parameter` — a tensor a module learns; :class:`Buffer` — state it does not learn
* layers — ``Linear``, activations (``ReLU``, ``Tanh`` ...), ``Dropout``, ``Flatten``,
  containers (``Sequential``, ``ModuleList``), losses (``MSELoss``, ``CrossEntropyLoss`` ...)
* :mod:`teachgrad.nn.functional` — the same layers as functions (``F.relu``, ``F.cross_entropy``)
* :mod:`teachgrad.nn.init` — weight initialisation schemes
* :mod:`teachgrad.nn.utils` — gradient clipping, parameters as one vector

>>> import teachgrad as torch
>>> from teachgrad import nn
>>> model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
>>> sum(p.numel() for p in model.parameters())
82
"""

from . import functional, grad, init, parallel, utils  # noqa: F401 - (grad: a convolution's gradients)
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parallel import DataParallel
from .parameter import Buffer, Parameter

__all__ = ["Buffer", "DataParallel", "Parameter", "functional", "grad", "init", "parallel",
           "utils", *_modules_all]
