"""Let NumPy functions work on tensors: ``np.exp(t)``, ``np.sum(t, axis=0)``, ``a * t``.

This is what lets every backward formula be written once, in NumPy: in a plain backward
the formulas see arrays; under ``create_graph=True`` they see tensors, and each ``np.*``
call below is routed to the teachgrad op of the same meaning, so the backward pass is
itself recorded and can be differentiated again.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from . import pointwise

_UFUNCS = {
    np.add: pointwise.add,
    np.subtract: pointwise.sub,
    np.multiply: pointwise.mul,
    np.true_divide: pointwise.div,
    np.negative: pointwise.neg,
    np.power: pointwise.pow,
    np.exp: pointwise.exp,
    np.expm1: pointwise.expm1,
    np.log: pointwise.log,
    np.log1p: pointwise.log1p,
    np.sqrt: pointwise.sqrt,
    np.square: pointwise.square,
    np.reciprocal: pointwise.reciprocal,
    np.sin: pointwise.sin,
    np.cos: pointwise.cos,
    np.tan: pointwise.tan,
    np.tanh: pointwise.tanh,
    np.absolute: pointwise.abs,
    np.sign: pointwise.sign,
    np.maximum: pointwise.maximum,
    np.minimum: pointwise.minimum,
    np.equal: pointwise.eq,
    np.not_equal: pointwise.ne,
    np.less: pointwise.lt,
    np.less_equal: pointwise.le,
    np.greater: pointwise.gt,
    np.greater_equal: pointwise.ge,
}


def _matmul(a, b):
    from . import linalg

    return linalg.matmul(a, b)


def _as_tensor(x):
    # A NumPy scalar is a Python number to PyTorch (weak in type promotion: float32 stays).
    if isinstance(x, np.generic):
        return x.item()
    return _make(x) if isinstance(x, np.ndarray) else x


def array_ufunc(self: Tensor, ufunc, method: str, *inputs, **kwargs):
    """NumPy's hook for ufuncs (``np.exp(t)``, ``ndarray * t``): run the teachgrad op."""
    if method != "__call__" or kwargs.get("out") is not None:
        return NotImplemented
    if ufunc is np.matmul:
        return _matmul(*(_as_tensor(x) for x in inputs))
    op = _UFUNCS.get(ufunc)
    if op is None:
        return NotImplemented
    args = [x if isinstance(x, Tensor) else _as_tensor(x) for x in inputs]
    if len(args) == 2 and not isinstance(args[0], Tensor):
        # ``array * tensor``: keep the operand order (it matters for -, /, **).
        return op(args[0], args[1]) if ufunc in _SYMMETRIC else _reversed(ufunc, *args)
    return op(*args)


_SYMMETRIC = {np.add, np.multiply, np.maximum, np.minimum, np.equal, np.not_equal}


def _reversed(ufunc, a, b):
    if ufunc is np.subtract:
        return pointwise.rsub(b, a)
    if ufunc is np.true_divide:
        return pointwise.div(_make(np.asarray(a)) if not isinstance(a, Tensor) else a, b)
    if ufunc is np.power:
        return pointwise.pow(a, b)
    flipped = {np.less: pointwise.gt, np.less_equal: pointwise.ge,
               np.greater: pointwise.lt, np.greater_equal: pointwise.le}
    return flipped[ufunc](b, a)


# reduce is imported when called: it registers its own NumPy functions here at import
# time, so importing it from the top of this module would be a circular import. (shape
# registers np.reshape, np.transpose, np.squeeze ... itself, for the same reason.)
def _sum(a, axis=None, dtype=None, out=None, keepdims=False, **_):
    from . import reduce

    return reduce.sum(a, axis, keepdim=keepdims)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, **_):
    from . import reduce

    return reduce.mean(a, axis, keepdim=keepdims)


def _where(condition, x, y):
    return pointwise.where(_as_tensor(condition), _as_tensor(x), _as_tensor(y))


def _zeros_like(a, dtype=None, **_):
    return _make(np.zeros(a._data.shape, dtype or a._data.dtype))


def _ones_like(a, dtype=None, **_):
    return _make(np.ones(a._data.shape, dtype or a._data.dtype))


_FUNCTIONS = {
    np.sum: _sum,
    np.mean: _mean,
    np.where: _where,
    np.zeros_like: _zeros_like,
    np.ones_like: _ones_like,
    np.shape: lambda a: a._data.shape,
    np.ndim: lambda a: a._data.ndim,
}


def register(np_function):
    """Route ``np_function`` on tensors to the decorated teachgrad implementation.

    Op families use it for the NumPy functions their backward formulas call
    (``np.flip``, ``np.cumsum``, ``np.concatenate`` ...), and for unary ufuncs
    (``np.cosh``): those reach ``__array_ufunc__`` rather than ``__array_function__``.
    """

    def decorate(fn):
        (_UFUNCS if isinstance(np_function, np.ufunc) else _FUNCTIONS)[np_function] = fn
        return fn

    return decorate


def array_function(self: Tensor, func, types, args, kwargs):
    """NumPy's hook for non-ufunc functions (``np.sum(t)``, ``np.where(c, t, 0)``)."""
    impl = _FUNCTIONS.get(func)
    if impl is None:
        return NotImplemented
    return impl(*args, **kwargs)


Tensor.__array_ufunc__ = array_ufunc
Tensor.__array_function__ = array_function
