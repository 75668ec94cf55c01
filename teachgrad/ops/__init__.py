"""Every differentiable operation, grouped by family.

Each family module defines its ops as :class:`~teachgrad.ops.op.Op` classes (forward and
backward side by side) plus the public functions that call them; importing a family also
registers its functions as ``Tensor`` methods.

==============  ===================================================================
pointwise       arithmetic, powers, exp/log, trigonometry, clamp, where, comparisons
reduce          sum, mean, prod, max/min, var/std, norm, logsumexp, cumsum
shape           view/reshape, squeeze, transpose/permute, expand, cat/stack/split
index           ``x[...]`` reading and writing, gather, index_select, masked_fill
special         asin/acos/atan, sinh/cosh and inverses, erf, atan2, hypot, lerp, trace...
gamma           lgamma, digamma, polygamma, mvlgamma
bessel          i0 (and i0e, i1, i1e for teachgrad.special)
elementary      exp2, deg2rad/rad2deg, copysign, frac, fix, heaviside, sinc, logit
numerics        the NumPy kernels of erf, the gamma family and Bessel functions
grid            meshgrid (views made by reshape and expand)
info            Tensor.stride(), finfo and iinfo (not operations: facts about storage)
linalg          matmul and its special cases (mm, bmm, mv, dot), outer
contraction     einsum, whose gradient is an einsum too
activation      softmax and log_softmax (and the activations of nn.functional)
loss            the losses of nn.functional
conversion      clone, dtype conversions, comparisons of whole tensors
inplace         ``x += 1``, ``add_``, ``zero_``, ``copy_`` ...
==============  ===================================================================
"""

from . import (  # noqa: F401
    activation,
    bessel,
    contraction,
    conversion,
    elementary,
    gamma,
    grid,
    index,
    info,
    inplace,
    linalg,
    loss,
    numpy_protocol,
    pointwise,
    reduce,
    shape,
    special,
)
from .activation import *  # noqa: F403
from .bessel import *  # noqa: F403
from .contraction import *  # noqa: F403
from .conversion import *  # noqa: F403
from .elementary import *  # noqa: F403
from .gamma import *  # noqa: F403
from .grid import *  # noqa: F403
from .index import *  # noqa: F403
from .info import *  # noqa: F403
from .linalg import *  # noqa: F403
from .loss import *  # noqa: F403
from .pointwise import *  # noqa: F403
from .reduce import *  # noqa: F403
from .shape import *  # noqa: F403
from .special import *  # noqa: F403

__all__ = [
    *activation.__all__,
    *bessel.__all__,
    *elementary.__all__,
    *gamma.__all__,
    *contraction.__all__,
    *conversion.__all__,
    *index.__all__,
    *linalg.__all__,
    *loss.__all__,
    *pointwise.__all__,
    *reduce.__all__,
    *shape.__all__,
    *special.__all__,
    *grid.__all__,
    *info.__all__,
]
