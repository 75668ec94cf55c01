"""``torch.range``: the deprecated, end-inclusive ``arange``.

``torch.range(1, 4)`` is ``tensor([1., 2., 3., 4.])``: unlike Python's ``range`` (and
``torch.arange``) it includes ``end``, and its default dtype is the default float dtype
even for integer arguments. PyTorch deprecates it for exactly that, and warns.
(A module of its own: defining ``range`` elsewhere would hide Python's builtin there.)
"""

from __future__ import annotations

import math

import numpy as np

from ._creation import _check_device, _finish
from ._dtypes import dtype as DType
from ._dtypes import get_default_dtype, to_dtype
from ._layout import check_layout
from ._tensor import Tensor
from ._warn import warn_user

__all__ = ["range"]


def range(start=0, end=None, step=1, *, dtype: DType | None = None, device=None,  # noqa: A001
          layout=None, requires_grad: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` *inclusive*, ``step`` apart (deprecated: use
    ``arange``, which stops before ``end``).

    >>> import warnings, teachgrad as torch
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.range(1, 4)
    tensor([1., 2., 3., 4.])
    """
    check_layout("range", layout)
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warn_user(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end).", UserWarning)
    _check_device(device)
    start, end, step = (float(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = math.floor((end - start) / step) + 1
    d = to_dtype(dtype).numpy if dtype is not None else get_default_dtype().numpy
    # Computed in float64 then cast, as PyTorch does.
    return _finish((start + step * np.arange(count, dtype=np.float64)).astype(d), requires_grad)
