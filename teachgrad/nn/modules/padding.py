"""Padding layers: ``ZeroPad2d``, ``ConstantPad2d``, ``ReflectionPad2d``, ``ReplicationPad2d``,
``CircularPad2d`` (and their 1-d and 3-d versions), each a fixed call of ``F.pad``.

``padding`` is an int (the same on every side) or a tuple that starts from the last
dimension: ``(left, right)``, ``(left, right, top, bottom)``, ``(left, right, top, bottom,
front, back)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class _PadNd(Module):
    """What the padding layers share: the padding tuple, the mode, ``forward``."""

    _dims = 0         # how many trailing dimensions are padded
    _mode = "constant"

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__()
        # PyTorch's _pair / _quadruple: anything but an iterable is repeated (an int, and
        # a float or None too, which forward's F.pad then refuses), an iterable is kept.
        self.padding = (tuple(padding) if isinstance(padding, Iterable)
                        else (padding,) * (2 * self._dims))

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with ``value``.

    >>> import teachgrad as torch
    >>> torch.nn.ConstantPad1d((2, 1), 3.5)(torch.zeros(1, 2))
    tensor([[3.5000, 3.5000, 0.0000, 0.0000, 3.5000]])
    """

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with ``value`` (``padding``: left, right, top, bottom)."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dimensions with ``value``."""

    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pad the last dimension with zeros.

    >>> import teachgrad as torch
    >>> torch.nn.ZeroPad1d(1)
    ZeroPad1d((1, 1))
    """

    _dims = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last two dimensions with zeros (``padding``: left, right, top, bottom)."""

    _dims = 2


class ZeroPad3d(_ZeroPadNd):
    """Pad the last three dimensions with zeros."""

    _dims = 3


class ReflectionPad1d(_PadNd):
    """Pad with the input mirrored at its edge (the edge itself is not repeated).

    >>> import teachgrad as torch
    >>> torch.nn.ReflectionPad1d(2)(torch.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 2., 1., 2., 3., 2., 1.]])
    """

    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pad the last two dimensions with their reflection (each padding < that size)."""

    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pad the last three dimensions with their reflection."""

    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pad by repeating the edge value.

    >>> import teachgrad as torch
    >>> torch.nn.ReplicationPad1d((1, 2))(torch.tensor([[1.0, 2.0, 3.0]]))
    tensor([[1., 1., 2., 3., 3., 3.]])
    """

    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pad the last two dimensions by repeating the edge values."""

    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pad the last three dimensions by repeating the edge values."""

    _dims, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got "
                             f"{input.ndim}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Pad by wrapping around: the left border is the right end, and the other way round.

    >>> import teachgrad as torch
    >>> torch.nn.CircularPad1d(1)(torch.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 1., 2., 3., 1.]])
    """

    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Pad the last two dimensions by wrapping around (a torus)."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Pad the last three dimensions by wrapping around."""

    _dims = 3


__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
    "ZeroPad3d",
]
