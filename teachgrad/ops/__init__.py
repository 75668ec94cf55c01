"""Every differentiable operation, grouped by family.

Each family module defines its ops as :class:`~teachgrad.ops.op.Op` classes (forward and
backward side by side) plus the public functions that call them; importing a family also
registers its functions as ``Tensor`` methods.
"""

from . import conversion, inplace, numpy_protocol, pointwise, reduce, shape  # noqa: F401
from .conversion import *  # noqa: F403
from .pointwise import *  # noqa: F403
from .reduce import *  # noqa: F403
from .shape import *  # noqa: F403

__all__ = [
    *conversion.__all__,
    *pointwise.__all__,
    *reduce.__all__,
    *shape.__all__,
]
