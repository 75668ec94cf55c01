"""Lay convolution weights out channels-last (``convert_conv2d_weight_memory_format``).

A memory format changes only the order in which a tensor's numbers sit in memory (its
strides), never its shape or values: ``channels_last`` keeps the channels of one pixel
next to each other. On a GPU that can make convolutions faster; in teachgrad the result
computes exactly the same numbers, so these helpers are here for code written for GPUs.
"""

from __future__ import annotations

from typing import Any

from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module


def _convert_weights(module: Module, layers: tuple[type, ...], memory_format: Any) -> Module:
    """Re-lay the weight of every layer of the ``layers`` types in ``module`` (recursively).

    The weight stays the same Parameter object (its ``.data`` is replaced, as in PyTorch), so
    an optimizer already holding it keeps working.
    """
    if isinstance(module, layers):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert_weights(child, layers, memory_format)
    return module


def convert_conv2d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    """Give the weight of every ``Conv2d`` / ``ConvTranspose2d`` in ``module`` the layout
    ``memory_format`` (e.g. ``torch.channels_last``); returns ``module``.

    >>> import teachgrad as torch
    >>> conv = torch.nn.Conv2d(2, 4, 3)
    >>> _ = torch.nn.utils.convert_conv2d_weight_memory_format(conv, torch.channels_last)
    >>> conv.weight.is_contiguous(memory_format=torch.channels_last)
    True
    """
    return _convert_weights(module, (Conv2d, ConvTranspose2d), memory_format)


def convert_conv3d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    """Give the weight of every ``Conv3d`` / ``ConvTranspose3d`` in ``module`` the layout
    ``memory_format`` (e.g. ``torch.channels_last_3d``); returns ``module``."""
    return _convert_weights(module, (Conv3d, ConvTranspose3d), memory_format)


__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]
