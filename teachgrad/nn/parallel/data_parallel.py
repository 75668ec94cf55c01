"""``nn.DataParallel``: split each batch over several GPUs, one copy of the model on each.

teachgrad has one device, the CPU, so a ``DataParallel`` only wraps its module: calling it
calls the module, and the module's parameters are found under ``module.`` (``state_dict()``
keys become ``'module.weight'`` ...). That is exactly what PyTorch does on a machine without
GPUs, so code written for GPUs still runs, and checkpoints saved from it load the same way.
"""

from __future__ import annotations

from typing import Any

from ..modules.module import Module


class DataParallel(Module):
    """Wrap ``module`` for data parallelism; on the CPU it simply calls ``module``.

    ``device_ids`` is always ``[]`` (no GPUs); ``device_ids``, ``output_device`` and ``dim``
    are accepted and ignored, as PyTorch ignores them when no GPU is available.

    >>> import teachgrad as torch
    >>> model = torch.nn.DataParallel(torch.nn.Linear(2, 1))
    >>> list(model.state_dict())
    ['module.weight', 'module.bias']
    >>> model(torch.ones(4, 2)).shape
    teachgrad.Size([4, 1])
    """

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []  # no GPU: PyTorch keeps only the module and this

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """The wrapped module's output for these arguments."""
        return self.module(*inputs, **kwargs)


__all__ = ["DataParallel"]
