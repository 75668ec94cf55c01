"""A gradient kept in some places and zero elsewhere: how PyTorch's piecewise backwards select.

relu, threshold, hardtanh, clamp, maximum, hardshrink... are flat (slope 0) on part of their
domain and have slope 1 on the rest. PyTorch writes their backward as a *select*, for
example relu's ``threshold_backward``::

    grad_input = where(output <= 0, 0, grad)

not as a product ``grad * (output > 0)``. The two differ when the incoming gradient is
``inf`` or ``nan`` where the op is flat: the product gives ``inf · 0 = nan`` there, the
select gives 0. They also differ in the sign of a zero: ``-3 · 0`` is ``-0.``, which prints
as ``-0.`` where PyTorch prints ``0.``. So these backwards call :func:`keep_where` or
:func:`zero_where` (``np.where`` with the 0 on one side) instead of multiplying.

Both work on arrays (a plain backward) and on tensors (under ``create_graph=True``, where
``np.where`` is routed to :func:`teachgrad.where`, so the select is recorded and can be
differentiated again).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor

# What a backward gets and returns: an array (a NumPy scalar for a 0-d tensor), or a Tensor
# under create_graph=True.
Grad = np.ndarray | np.generic | Tensor

# ``np.where`` on a mask without a pattern (relu's, on random data) is slow: NumPy picks each
# element with a branch the processor cannot predict, about 10× a multiplication on 256×512
# floats. From this size on the select is done without branches, on the floats' bits: AND
# each one with all ones (kept: the same bits, inf and nan included) or with all zeros
# (+0.0 exactly). That costs about what the multiplication did; below it ``np.where`` is
# faster (fewer NumPy calls).
_BRANCH_FREE_FROM = 512
_SAME_WIDTH_INTEGER = {
    np.dtype(np.float16): np.dtype(np.int16),
    np.dtype(np.float32): np.dtype(np.int32),
    np.dtype(np.float64): np.dtype(np.int64),
}


def keep_where(keep: np.ndarray | np.bool_, grad: Grad) -> Grad:
    """``grad`` where ``keep`` is true, 0 elsewhere: ``np.where(keep, grad, 0)``.

    >>> import numpy as np
    >>> keep_where(np.array([True, False]), np.array([np.inf, np.inf]))
    array([inf,  0.])
    """
    if type(keep) is _bool_scalar and not isinstance(grad, Tensor):  # 0-d: stay scalars
        return grad if keep else _zero_of(grad)
    bits = _bits_of(keep, grad)
    if bits is None:
        return np.where(keep, grad, 0)
    np.negative(bits, out=bits)  # True (1) becomes -1, all bits set; False stays 0
    return _masked(grad, bits)


def zero_where(drop: np.ndarray | np.bool_, grad: Grad) -> Grad:
    """0 where ``drop`` is true, ``grad`` elsewhere: ``np.where(drop, 0, grad)``.

    >>> import numpy as np
    >>> zero_where(np.array([True, False]), np.array([np.nan, -3.0]))
    array([ 0., -3.])
    """
    if type(drop) is _bool_scalar and not isinstance(grad, Tensor):
        return _zero_of(grad) if drop else grad
    bits = _bits_of(drop, grad)
    if bits is None:
        return np.where(drop, 0, grad)
    np.subtract(bits, 1, out=bits)  # True (1) becomes 0; False becomes -1, all bits set
    return _masked(grad, bits)


def masked_fill_zero(drop: np.ndarray | np.bool_, grad: Grad) -> Grad:
    """:func:`zero_where` for the backwards PyTorch writes as ``grad.masked_fill(drop, 0)``
    (masked_fill, maximum, xlogy...): the same values; under ``create_graph=True`` recorded
    as PyTorch's ``MaskedFillBackward0`` rather than ``WhereBackward0``.
    """
    if isinstance(grad, Tensor):
        return grad.masked_fill(drop, 0)
    return zero_where(drop, grad)


# A 0-d tensor's backward gets NumPy scalars (see op.py): a select on them stays a scalar,
# because a 0-d array would make every later NumPy call on it ~10x slower.
_bool_scalar = np.bool_


def _zero_of(grad):
    """A zero of ``grad``'s dtype (a NumPy scalar for a scalar)."""
    return grad.dtype.type(0) if isinstance(grad, np.generic) else np.zeros_like(grad)


def _bits_of(mask, grad):
    """The mask as integers as wide as ``grad``'s floats, or None: use ``np.where``."""
    if type(grad) is not np.ndarray or grad.size < _BRANCH_FREE_FROM:
        return None  # (a tensor under create_graph, a scalar or a small array)
    integer = _SAME_WIDTH_INTEGER.get(grad.dtype)
    if integer is None or np.shape(mask) != grad.shape:
        return None
    return mask.astype(integer)


def _masked(grad, bits):
    """``grad``'s bits ANDed with ``bits`` (each all ones or all zeros), as floats again."""
    np.bitwise_and(grad.view(bits.dtype), bits, out=bits)
    return bits.view(grad.dtype)


def zero_grad_like(grad: Grad) -> Grad:
    """The gradient of an op that is flat everywhere (sign, floor, a random draw...): zeros.

    PyTorch returns ``zeros_like(grad)``, not ``grad * 0``, so an ``inf`` or ``nan``
    incoming gradient still gives 0 (and never ``-0.``).
    """
    return _zero_of(grad)
