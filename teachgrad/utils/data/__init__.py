"""``teachgrad.utils.data``: feed a training loop with mini-batches.

* :class:`Dataset` — anything with ``__getitem__`` and ``__len__`` (one sample per index);
  :class:`TensorDataset` wraps tensors whose first dimension indexes the samples
* :class:`DataLoader` — iterates a dataset in batches, shuffled if asked
* samplers choose the order of the indices (:class:`RandomSampler`, ...)
* :func:`random_split` — e.g. a training and a validation set

>>> import teachgrad as torch
>>> from teachgrad.utils.data import DataLoader, TensorDataset
>>> X, y = torch.arange(10.0).reshape(5, 2), torch.arange(5)
>>> for xb, yb in DataLoader(TensorDataset(X, y), batch_size=2):
...     print(xb.shape, yb)
teachgrad.Size([2, 2]) tensor([0, 1])
teachgrad.Size([2, 2]) tensor([2, 3])
teachgrad.Size([1, 2]) tensor([4])
"""

from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "DataLoader", "Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset",
    "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
    "BatchSampler", "default_collate", "default_convert", "WeightedRandomSampler",
    "ChainDataset", "StackDataset", "get_worker_info",
]
