"""Channel dropout (``Dropout1d``, ``Dropout2d``, ``Dropout3d``) and the dropouts for SELU
networks (``AlphaDropout``, ``FeatureAlphaDropout``); see :mod:`teachgrad.nn.feature_dropout`."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import feature_dropout as _functional
from .module import Module


class _DropoutNd(Module):
    """What every dropout layer holds: ``p`` and ``inplace`` (PyTorch's base class)."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` while training.

    >>> import teachgrad as torch
    >>> torch.nn.Dropout1d(0.2)
    Dropout1d(p=0.2, inplace=False)
    """

    def forward(self, input: Tensor) -> Tensor:
        return _functional.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels (feature maps) of ``(N, C, H, W)`` or ``(C, H, W)`` while training."""

    def forward(self, input: Tensor) -> Tensor:
        return _functional.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` while training."""

    def forward(self, input: Tensor) -> Tensor:
        return _functional.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps a SELU network's activations at mean 0 and variance 1."""

    def forward(self, input: Tensor) -> Tensor:
        return _functional.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """:class:`AlphaDropout` of whole channels (dimension 1)."""

    def forward(self, input: Tensor) -> Tensor:
        return _functional.feature_alpha_dropout(input, self.p, self.training)


__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
