"""``teachgrad.utils.dlpack``: as ``torch.utils.dlpack``, DLPack's device codes and the
capsule functions (see :mod:`teachgrad._dlpack`)."""

from .._dlpack import DLDeviceType, from_dlpack, to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
