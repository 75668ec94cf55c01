"""``BatchNorm1d``, ``BatchNorm2d`` and ``BatchNorm3d``: normalise each channel over the batch."""

from __future__ import annotations

from typing import Any

from ... import _creation, _dtypes
from ..._creation import _check_device
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class _NormBase(Module):
    """What batch norm and instance norm share: the parameters, the running statistics
    (buffers), their resets and the repr. (As in PyTorch, instance norm is not a kind of
    batch norm: ``isinstance(InstanceNorm1d(3), _BatchNorm)`` is False, so code that looks
    for batch norm layers, ``convert_sync_batchnorm`` or ``swa_utils.update_bn``, leaves it
    alone.)"""

    # Format 2 added the num_batches_tracked buffer (saved in state_dict()._metadata).
    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        _check_device(device)
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:  # (empty, as PyTorch's: reset_parameters below fills them)
            self.weight = Parameter(_creation.empty(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(_creation.empty(num_features, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            # Buffers: saved in state_dict, moved by .to(), but not learned.
            self.register_buffer("running_mean", _creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", _creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked",
                                 _creation.tensor(0, dtype=_dtypes.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        # As PyTorch's: the values are already right, but its in-place resets leave every
        # tensor here at version 1, which backward's "modified by an inplace operation"
        # error reports (a running statistic changed after use: "is at version 2").
        self.reset_parameters()

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict,
                              strict: bool, missing_keys: list, unexpected_keys: list,
                              error_msgs: list) -> None:
        """As any module's, except that a state dict from before format 2 (or one with no
        format recorded, e.g. a plain dict) may lack ``num_batches_tracked``: the current
        count is kept then, not reported missing (PyTorch's rule)."""
        version = local_metadata.get("version")
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and (
                key not in state_dict):
            state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                               else _creation.tensor(0, dtype=_dtypes.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def reset_running_stats(self) -> None:
        """Running mean back to 0, variance to 1, the batch count to 0."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """The running statistics, and ``weight`` to ones and ``bias`` to zeros."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class _BatchNorm(_NormBase):
    """What BatchNorm1d and BatchNorm2d share; they differ only in the input they accept."""

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        momentum = self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average: weigh batches equally
                momentum = 1.0 / self.num_batches_tracked.item()
        # Batch statistics while training, or always when no running ones are kept.
        use_batch = self.training or self.running_mean is None
        track = self.training and self.track_running_stats
        return F.batch_norm(
            input, self.running_mean if track or not self.training else None,
            self.running_var if track or not self.training else None,
            self.weight, self.bias, use_batch, momentum if momentum is not None else 0.0,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch norm over ``(N, C)`` or ``(N, C, L)`` inputs: one mean/variance per channel.

    >>> import teachgrad as torch
    >>> bn = torch.nn.BatchNorm1d(2)
    >>> bn
    BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> _ = bn(torch.tensor([[1.0, 10.0], [3.0, 30.0]]))
    >>> bn.running_mean
    tensor([0.2000, 2.0000])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch norm over images ``(N, C, H, W)``: statistics over batch, height and width.

    >>> import teachgrad as torch
    >>> bn = torch.nn.BatchNorm2d(3)
    >>> list(bn.state_dict())
    ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch norm over volumes ``(N, C, D, H, W)``: statistics over batch, depth, height
    and width.

    >>> import teachgrad as torch
    >>> torch.nn.BatchNorm3d(4)(torch.randn(2, 4, 3, 3, 3)).shape
    teachgrad.Size([2, 4, 3, 3, 3])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch norm that, on several GPUs, shares its batch statistics between processes.

    teachgrad runs in one process on the CPU, so there is nothing to synchronise: it works
    exactly as ``BatchNorm1d/2d/3d`` (PyTorch falls back to plain batch norm the same way when
    ``torch.distributed`` is not initialised). It accepts any input of two or more dimensions.

    >>> import teachgrad as torch
    >>> torch.nn.SyncBatchNorm(3)
    SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: Any = None, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group  # kept for parity; one process has no group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every ``BatchNorm*d`` inside it replaced by a ``SyncBatchNorm``
        holding the same parameters and running statistics (the very same tensors).

        A batch-norm ``module`` itself is returned as a new ``SyncBatchNorm``.
        """
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = cls(module.num_features, module.eps, module.momentum,
                                module.affine, module.track_running_stats, process_group,
                                bias=module.bias is not None)
            if module.affine:
                module_output.weight = module.weight
                module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return module_output


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]
