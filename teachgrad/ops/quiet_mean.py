"""``mean_of``: ``np.mean`` without NumPy's warnings for an empty slice.

NumPy warns "Mean of empty slice" (and "invalid value encountered in divide") when it
averages no elements; PyTorch gives nan silently. teachgrad ignores the floating-point
warnings its own modules cause (see ``teachgrad/__init__.py``), but these two come from
inside NumPy, so the filter does not see them: an empty array is averaged here instead,
as a sum divided by the count (0/0 = nan, a warning this module causes and the filter drops).
"""

from __future__ import annotations

import numpy as np


def mean_of(a, axis=None, keepdims: bool = False, dtype=None):
    """``np.mean(a, axis, keepdims=..., dtype=...)``; nan for an empty slice, silently.

    Tensors (under ``create_graph`` the formulas get tensors) go to ``np.mean`` as they
    are: teachgrad's own ``mean`` is quiet already.
    """
    if type(a) is np.ndarray and not a.size:
        return _empty_mean(a, axis, keepdims, dtype)
    if dtype is None:  # (tensors' mean takes no dtype=None)
        return np.mean(a, axis=axis, keepdims=keepdims)
    return np.mean(a, axis=axis, keepdims=keepdims, dtype=dtype)


def _empty_mean(a: np.ndarray, axis, keepdims: bool, dtype) -> np.ndarray:
    count = 1
    for d in (range(a.ndim) if axis is None else np.atleast_1d(axis)):
        count *= a.shape[d]
    total = np.sum(a, axis=axis, keepdims=keepdims, dtype=dtype)
    return total / total.dtype.type(count)  # 0/0 = nan when no element was averaged
