"""Bit shifts of integer tensors: ``x << n``, ``x >> n``, ``bitwise_left_shift``...

``x << n`` is ``x · 2ⁿ`` and ``x >> n`` is ``⌊x / 2ⁿ⌋`` while the bits fit. Unlike C (and
NumPy, where it is undefined), PyTorch defines a shift by the type's width or more: a left
shift gives 0, a right shift gives 0 (or −1 for a negative number, all sign bits), and so
does a negative shift.
"""

from __future__ import annotations

import numpy as np

from .._dtypes import result_type
from .._missing_arguments import REQUIRED, untested
from .._tensor import Tensor, _make, tensor_method
from .inplace import inplace_method
from .pointwise import _check_shapes_broadcast

__all__ = ["bitwise_left_shift", "bitwise_right_shift"]


def _as_tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else _make(np.asarray(x))


def _shift(input, other, left: bool) -> Tensor:
    a, b = _as_tensor(input), _as_tensor(other)
    if a._data.shape != b._data.shape:  # PyTorch checks the shapes before the dtype
        _check_shapes_broadcast(a._data.shape, b._data.shape)
    target = result_type(input, other)
    if target.numpy.kind in "fb":  # a float, or bool << bool: PyTorch has no kernel
        kernel = "lshift_cpu" if left else "rshift_cpu"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{target._legacy.removesuffix('Tensor')}'"
        )
    values = a._data.astype(target.numpy)
    shifts = b._data.astype(target.numpy)
    bits = target.numpy.itemsize * 8
    fits = (shifts >= 0) & (shifts < bits)
    safe = np.where(fits, shifts, 0)
    if left:
        out = np.where(fits, np.left_shift(values, safe), 0)
    else:
        all_sign = np.where(values < 0, -1, 0) if target.is_signed else 0
        out = np.where(fits, np.right_shift(values, safe), all_sign)
    return _make(np.asarray(out, dtype=target.numpy))


@tensor_method("bitwise_left_shift", "__lshift__")
@untested  # (x << y runs this code too: the test for REQUIRED is in _dtypes._operand_key)
def bitwise_left_shift(input, other=REQUIRED) -> Tensor:
    """``input << other``, elementwise (integer tensors).

    >>> import teachgrad as torch
    >>> torch.tensor([1, 2]) << 3
    tensor([ 8, 16])
    """
    return _shift(input, other, left=True)


@tensor_method("bitwise_right_shift", "__rshift__")
@untested  # (x << y runs this code too: the test for REQUIRED is in _dtypes._operand_key)
def bitwise_right_shift(input, other=REQUIRED) -> Tensor:
    """``input >> other``, elementwise (integer tensors; rounds towards −∞)."""
    return _shift(input, other, left=False)


def _rlshift(self: Tensor, other) -> Tensor:
    return _shift(other, self, left=True)


def _rrshift(self: Tensor, other) -> Tensor:
    return _shift(other, self, left=False)


Tensor.__rlshift__ = _rlshift
Tensor.__rrshift__ = _rrshift
for _name, _op in (("bitwise_left_shift_", bitwise_left_shift), ("__ilshift__", bitwise_left_shift),
                   ("bitwise_right_shift_", bitwise_right_shift),
                   ("__irshift__", bitwise_right_shift)):
    setattr(Tensor, _name, inplace_method(_op, _name))
del _name, _op
