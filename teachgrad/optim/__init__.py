"""``teachgrad.optim``: the update rules that train a model (SGD, Adam, AdamW, RMSprop,
Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD, LBFGS),
and :mod:`teachgrad.optim.lr_scheduler` to change the learning rate during training.

>>> import teachgrad as torch
>>> model = torch.nn.Linear(2, 1)
>>> optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

Every rule is written as a plain loop over the parameters, line for line the update
PyTorch's single-tensor implementation performs, so the numbers agree with PyTorch's.
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = [
    "Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
    "NAdam", "RAdam", "ASGD", "LBFGS", "lr_scheduler",
]
