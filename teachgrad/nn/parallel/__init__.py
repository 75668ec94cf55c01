"""``torch.nn.parallel``: running a module on several devices. teachgrad has one device,
the CPU, so :class:`DataParallel` only wraps its module (see ``data_parallel.py``)."""

from .data_parallel import DataParallel

__all__ = ["DataParallel"]
