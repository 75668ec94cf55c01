"""Tensor-times-number and tensor-over-number as PyTorch's C++ records them.

A ``*`` in Python between a tensor and a number records ``MulBackward0``. PyTorch's own
C++ (its loss code, many backward formulas) calls the tensor-with-scalar overloads
instead, whose nodes have one input and other names: ``MulBackward1`` and
``DivBackward1``. teachgrad uses them where PyTorch's graph has them, so that a learner
who prints a graph (or a gradient's ``grad_fn`` under ``create_graph=True``) sees
PyTorch's names.

:func:`times_number` and :func:`over_number` are for backward formulas: on arrays (a plain
backward) they are just ``*`` and ``/``; on tensors they record the one-input node.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from .op import Op


class MulBackward1(Op):
    """``tensor * number`` called from inside PyTorch's C++ (label smoothing uses it).

    A ``*`` in Python records ``MulBackward0``; PyTorch's loss code calls the
    tensor-times-scalar overload, whose node has one input and this name.
    """

    formula = "∂(a·c)/∂a = c"
    saved_attributes = {"other": "other"}  # grad_fn._saved_other: the number, as PyTorch's

    @staticmethod
    def forward(ctx, a, other):
        ctx.other = other
        return a * other

    @staticmethod
    def backward(ctx, grad):
        return times_number(grad, ctx.other)  # (its own node again under create_graph)


class DivBackward1(Op):
    """``tensor / number`` as PyTorch's C++ records it (one input; see MulBackward1)."""

    formula = "∂(a/c)/∂a = 1/c"
    saved_attributes = {"other": "other"}

    @staticmethod
    def forward(ctx, a, other):
        ctx.other = other
        return a / other

    @staticmethod
    def backward(ctx, grad):
        return over_number(grad, ctx.other)  # (its own node again under create_graph)


class AddBackward1(Op):
    """``tensor + number`` as PyTorch's C++ records it: one input, the number is a constant
    (a ``+`` written in Python records ``AddBackward0``)."""

    formula = "∂(a + c)/∂a = 1"

    @staticmethod
    def forward(ctx, a, other):
        return a + other

    @staticmethod
    def backward(ctx, grad):
        return grad


class SubBackward1(Op):
    """``tensor - number`` as PyTorch's C++ records it (one input; see MulBackward1)."""

    formula = "∂(a−c)/∂a = 1"

    @staticmethod
    def forward(ctx, a, other):
        return a - other

    @staticmethod
    def backward(ctx, grad):
        return grad


def times_number(x, number):
    """``x * number`` in a backward formula, as PyTorch's C++ records it.

    On arrays (a plain backward) just the product; on a tensor (under ``create_graph=True``)
    recorded as ``MulBackward1``, the node of PyTorch's tensor-times-scalar, where a ``*``
    in Python would record ``MulBackward0``.
    """
    return MulBackward1.apply(x, other=number) if type(x) is Tensor else x * number


def minus_number(x, number):
    """``x - number`` in a backward formula: ``SubBackward1`` on a tensor (see times_number)."""
    return SubBackward1.apply(x, other=number) if type(x) is Tensor else x - number


def plus_number(x, number):
    """``x + number`` in a backward formula: ``AddBackward1`` on a tensor (see times_number)."""
    return AddBackward1.apply(x, other=number) if type(x) is Tensor else x + number


def number_minus(number, x):
    """``number - x`` in a backward formula. PyTorch's C++ ``operator-(Scalar, Tensor)`` fills
    a tensor with the number and subtracts x from it: ``SubBackward0`` whose first input is
    that constant (a Python ``1 - x`` would record ``RsubBackward1``)."""
    if type(x) is not Tensor:
        return number - x
    return _make(np.full_like(x._data, number)) - x


def number_over(number, x):
    """``number / x`` in a backward formula. PyTorch's C++ ``operator/(Scalar, Tensor)`` fills
    a tensor with the number and divides it by x: ``DivBackward0`` whose first input is that
    constant (a Python ``2 / x`` would record ``ReciprocalBackward0`` and ``MulBackward0``)."""
    if type(x) is not Tensor:
        return number / x
    return _make(np.full_like(x._data, number)) / x


def over_number(x, number):
    """``x / number`` in a backward formula: ``DivBackward1`` on a tensor (see times_number)."""
    return DivBackward1.apply(x, other=number) if type(x) is Tensor else x / number


__all__: list[str] = []
