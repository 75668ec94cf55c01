"""``teachgrad.testing.make_tensor``: a random tensor for tests, as PyTorch's.

Values are drawn uniformly from ``[low, high)`` with teachgrad's own generator (so
``manual_seed`` makes them reproducible; they differ from PyTorch's numbers). Without
``low``/``high`` the range depends on the dtype: ``[-9, 9)`` for floats, ``[-9, 10)`` for
signed integers, ``[0, 10)`` for uint8 and ``[0, 2)`` for bool.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from ._dtypes import dtype as DType
from ._dtypes import to_dtype
from ._tensor import Tensor, _make

__all__ = ["make_tensor"]


def _low_high(low, high, dtype: DType, lowest: float, highest: float, default_low: float,
              default_high: float, integral: bool) -> tuple:
    """The range to draw from: defaults filled in, checked, clamped to the dtype's range."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and not integral:
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
            "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
            FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (math.ceil(low), math.ceil(high)) if integral else (low, high)


def make_tensor(*shape, dtype: DType, device, low: float | None = None,
                high: float | None = None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format=None) -> Tensor:
    """A tensor of ``shape`` with values drawn uniformly from ``[low, high)``.

    ``exclude_zero`` replaces zeros (by 1 for integers and bools, by the dtype's smallest
    normal number for floats); ``noncontiguous`` returns a non-contiguous view of a
    larger tensor (every other element of the last dimension).

    >>> import teachgrad as torch
    >>> x = torch.testing.make_tensor(2, 3, dtype=torch.float32, device="cpu", low=-1, high=1)
    >>> x.shape, bool(((x >= -1) & (x < 1)).all())
    (teachgrad.Size([2, 3]), True)
    """
    from ._creation import _check_device, empty
    from ._random import randint

    _check_device(device)
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = shape[0]
    shape = tuple(int(n) for n in shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
            f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    dtype = to_dtype(dtype)
    d = dtype.numpy
    integral = d.kind in "biu"
    if requires_grad and integral:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    drawn = (*shape[:-1], 2 * shape[-1]) if noncontiguous else shape
    # PyTorch's own draws (randint, uniform_ on an empty tensor), so a seed gives its numbers
    if d.kind == "b":
        low, high = _low_high(low, high, dtype, 0, 2, 0, 2, True)
        data = randint(low, high, drawn, dtype=dtype)._data
    elif integral:
        info = np.iinfo(d)
        default_low = 0 if d.kind == "u" else -9
        low, high = _low_high(low, high, dtype, info.min, info.max, default_low, 10, True)
        data = randint(low, high, drawn, dtype=dtype)._data
    else:
        info = np.finfo(d)
        low, high = _low_high(low, high, dtype, float(info.min), float(info.max), -9, 9, False)
        data = empty(drawn, dtype=dtype)
        if high - low >= float(info.max):  # uniform_ refuses a range wider than the dtype's
            data.uniform_(low / 2, high / 2).mul_(2)
        else:
            data.uniform_(low, high)
        data = data._data
    if noncontiguous:
        data = data[..., 1::2]  # every other element (offset by one: catches offset mistakes)
    if exclude_zero:
        data[data == 0] = 1 if integral else np.finfo(d).tiny
    result = _make(data)
    if not integral:
        result.requires_grad_(requires_grad)
    return result
