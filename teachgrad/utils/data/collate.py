"""``default_collate``: turn a list of samples into one batch.

The rule is applied recursively, so samples can be nested structures:

* tensors are stacked along a new first dimension (``[3]`` x 4 -> ``[4, 3]``)
* NumPy arrays and NumPy numbers become tensors (then are stacked)
* Python floats become a float64 tensor, ints an int64 tensor, bools a bool tensor
* strings are left as they are (a tuple of the batch's strings)
* dicts are collated key by key; tuples and lists position by position
  (``[(x0, y0), (x1, y1)]`` -> ``[stack(x0, x1), stack(y0, y1)]``)
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence
from typing import Any

import numpy as np

from ..._creation import as_tensor, tensor
from ..._dtypes import float64
from ..._tensor import Tensor
from ...ops.shape import stack

# NumPy dtype codes for bytes (S, a), unicode (U) and Python objects (O): not numbers.
_NOT_NUMBERS = re.compile(r"[SaUO]")

_UNSUPPORTED = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
    "found {}"
)


def _rebuild(like: Any, items: list[Any]) -> Any:
    """A container of the same type as ``like`` holding ``items`` (a plain list/dict if
    that type cannot be rebuilt), so e.g. an OrderedDict of samples collates to one."""
    try:
        if isinstance(like, MutableMapping):
            clone = copy.copy(like)  # keeps the mapping type's extra attributes
            clone.update(items)
            return clone
        if isinstance(like, Mapping):
            return type(like)(items)
        if isinstance(like, MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return dict(items) if isinstance(like, Mapping) else list(items)


def default_collate(batch: Sequence[Any]) -> Any:
    """Combine a list of samples into a batch (see the module docstring for the rules).

    >>> import teachgrad as torch
    >>> from teachgrad.utils.data import default_collate
    >>> default_collate([(torch.tensor([1., 2.]), 0), (torch.tensor([3., 4.]), 1)])
    [tensor([[1., 2.],
            [3., 4.]]), tensor([0, 1])]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if type(elem).__module__ == "numpy":
        if isinstance(elem, np.ndarray):
            if _NOT_NUMBERS.search(elem.dtype.str) is not None:
                raise TypeError(_UNSUPPORTED.format(elem.dtype))
            return default_collate([as_tensor(b) for b in batch])
        if isinstance(elem, (np.bool_, np.number, np.object_)):
            # np.array keeps the common NumPy dtype (int32 stays int32, as in PyTorch).
            return as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):  # also bool (True/False -> a bool tensor)
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        return _rebuild(elem, [(key, default_collate([d[key] for d in batch]))
                               for key in elem])
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, Sequence):
        size = len(elem)
        if not all(len(sample) == size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        collated = [default_collate(samples) for samples in transposed]
        if isinstance(elem, tuple):
            return collated  # a list, not a tuple: PyTorch keeps this for compatibility
        return _rebuild(elem, collated)
    raise TypeError(_UNSUPPORTED.format(type(elem)))


def default_convert(data: Any) -> Any:
    """Convert NumPy arrays and numbers (also inside dicts, lists, tuples) to tensors,
    without batching: what a DataLoader with ``batch_size=None`` applies to each sample.

    >>> import numpy as np
    >>> from teachgrad.utils.data import default_convert
    >>> default_convert({"x": np.array([1.0, 2.0]), "label": "cat"})
    {'x': tensor([1., 2.], dtype=teachgrad.float64), 'label': 'cat'}
    """
    if isinstance(data, Tensor):
        return data
    if type(data).__module__ == "numpy" and not isinstance(data, np.str_):
        if isinstance(data, np.ndarray) and _NOT_NUMBERS.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, Mapping):
        return _rebuild(data, [(key, default_convert(data[key])) for key in data])
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


__all__ = ["default_collate", "default_convert"]
