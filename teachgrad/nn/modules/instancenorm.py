"""``InstanceNorm1d``, ``2d`` and ``3d``: normalise each channel of each sample alone.

Style transfer and image generation use it: the statistics of one image do not depend on
the other images of the batch. By default there are no learned parameters
(``affine=False``) and no running statistics (``track_running_stats=False``).
"""

from __future__ import annotations

from ..._tensor import Tensor
from ..._warn import warn_user
from .. import functional as F
from .batchnorm import _NormBase


class _InstanceNorm(_NormBase):
    """What InstanceNorm1d and InstanceNorm2d share. The parameters, buffers and repr are
    batch norm's (PyTorch derives both from one base, _NormBase); the forward differs."""

    _no_batch_dim: int  # the number of dimensions of an unbatched input

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.size(feature_dim)}."
                )
            warn_user(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False", UserWarning,
            )
        if input.dim() == self._no_batch_dim:  # one sample: add the batch dimension
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        # The instance's own statistics while training, or when no running ones are kept.
        return F.instance_norm(
            input, self.running_mean, self.running_var, self.weight, self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0, self.eps,
        )


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over ``(N, C, L)`` (or unbatched ``(C, L)``): each sample's channel
    normalised over its length.

    >>> import teachgrad as torch
    >>> norm = torch.nn.InstanceNorm1d(2)
    >>> norm
    InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    >>> norm(torch.tensor([[1.0, 3.0], [10.0, 30.0]]))
    tensor([[-1.0000,  1.0000],
            [-1.0000,  1.0000]])
    """

    _no_batch_dim = 2

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over images ``(N, C, H, W)`` (or unbatched ``(C, H, W)``): each
    sample's channel normalised over its height and width."""

    _no_batch_dim = 3

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over volumes ``(N, C, D, H, W)`` (or unbatched ``(C, D, H, W)``)."""

    _no_batch_dim = 4

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (4, 5):
            raise ValueError(f"expected 4D or 5D input (got {input.dim()}D input)")


__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
