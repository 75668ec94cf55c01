"""Small models the hook tests share, built for whichever library (teachgrad or PyTorch)."""

from __future__ import annotations


def known_linear(lib):
    """``nn.Linear(2, 3)`` with weight ``[[1, 2], [3, 4], [5, 6]]`` and a zero bias, so a
    hook's gradients can be checked by hand (the input's gradient is ``ones @ W``)."""
    layer = lib.nn.Linear(2, 3)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        layer.bias.zero_()
    return layer


def drop_second(lib):
    """A custom Function ``a * b`` whose backward returns None for ``b``: a gradient that
    never arrives anywhere below ``b``."""

    class DropSecond(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    return DropSecond
