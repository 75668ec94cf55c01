"""``torch.func.replace_all_batch_norm_modules_``: batch norm without running statistics.

A BatchNorm layer in training mode updates its running mean and variance in place, once
per call. Under :func:`vmap` (per-sample gradients, model ensembles) each call sees one
sample, so that update has no meaning, and PyTorch's ``vmap`` refuses it. The fix its
tutorials use is to stop tracking running statistics: every BatchNorm then normalises with
the statistics of the batch it is given, in training and in evaluation mode alike.
"""

from __future__ import annotations

from ..nn.modules.module import Module

__all__ = ["replace_all_batch_norm_modules_"]


def _without_running_stats(module: Module) -> None:
    """Drop one BatchNorm module's running statistics (other modules are left alone)."""
    from ..nn.modules.batchnorm import _BatchNorm

    if isinstance(module, _BatchNorm) and module.track_running_stats:
        module.running_mean = None
        module.running_var = None
        module.num_batches_tracked = None
        module.track_running_stats = False


def replace_all_batch_norm_modules_(root: Module) -> Module:
    """Make every BatchNorm module in ``root`` (``root`` too) stop tracking running stats.

    In place: ``running_mean``, ``running_var`` and ``num_batches_tracked`` become None
    and ``track_running_stats`` False. Returns ``root``.

    >>> import teachgrad as torch
    >>> from teachgrad.func import replace_all_batch_norm_modules_
    >>> net = replace_all_batch_norm_modules_(torch.nn.Sequential(torch.nn.BatchNorm1d(3)))
    >>> net[0].running_mean is None, net[0].track_running_stats
    (True, False)
    """
    for module in root.modules():  # (root first: modules() yields it)
        _without_running_stats(module)
    return root
