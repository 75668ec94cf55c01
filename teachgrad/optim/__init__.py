"""``teachgrad.optim``: the update rules that train a model (SGD, Adam, AdamW, RMSprop,
Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD, LBFGS, Rprop, Adafactor, Muon),
:mod:`teachgrad.optim.lr_scheduler` to change the learning rate during training, and
:mod:`teachgrad.optim.swa_utils` to average the weights (SWA, EMA).

>>> import teachgrad as torch
>>> model = torch.nn.Linear(2, 1)
>>> optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

Every rule is written as a plain loop over the parameters, line for line the update
PyTorch's single-tensor implementation performs, so the numbers agree with PyTorch's.
"""

from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
    "NAdam", "RAdam", "ASGD", "LBFGS", "Rprop", "Adafactor", "Muon", "lr_scheduler",
    "swa_utils",
]
