"""The layers of :mod:`teachgrad.nn`, one family per file (as in PyTorch's source)."""

from .activation import (
    ELU,
    GELU,
    SELU,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import Dropout
from .flatten import Flatten
from .instancenorm import InstanceNorm1d, InstanceNorm2d
from .linear import Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
)
from .module import Module
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "Linear", "Identity",
    "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "LeakyReLU", "ELU", "SELU", "GELU",
    "SiLU", "Softplus", "Hardtanh", "ReLU6", "LogSigmoid", "Flatten", "Dropout",
    "MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
    "Embedding", "LayerNorm", "Conv1d", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
    "BatchNorm1d", "BatchNorm2d", "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell",
    "LSTMCell", "GRUCell", "SmoothL1Loss", "HuberLoss", "KLDivLoss", "GaussianNLLLoss",
    "PoissonNLLLoss", "MarginRankingLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss",
    "TripletMarginLoss", "SoftMarginLoss", "MultiMarginLoss", "MultiLabelSoftMarginLoss",
    "CosineSimilarity", "PairwiseDistance", "GroupNorm", "LocalResponseNorm", "InstanceNorm1d",
    "InstanceNorm2d",
]
