"""``Dropout1d``/``2d``/``3d`` (whole channels), ``AlphaDropout`` and ``FeatureAlphaDropout``
(for SELU networks): see :mod:`teachgrad.nn.dropout_variants`."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import dropout_variants as D
from .dropout import Dropout


class Dropout1d(Dropout):
    """Zero whole channels of (N, C, L) inputs while training (``F.dropout1d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return D.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zero whole feature maps of (N, C, H, W) inputs while training (``F.dropout2d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return D.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """Zero whole channels of (N, C, D, H, W) inputs while training (``F.dropout3d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return D.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Dropout for SELU networks: mean and variance survive (``F.alpha_dropout``)."""

    def forward(self, input: Tensor) -> Tensor:
        return D.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """Alpha dropout of whole channels (``F.feature_alpha_dropout``)."""

    def forward(self, input: Tensor) -> Tensor:
        return D.feature_alpha_dropout(input, self.p, self.training)


__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
