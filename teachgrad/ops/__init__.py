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
grid            meshgrid (views made by reshape and expand)
info            Tensor.stride(), finfo and iinfo (not operations: facts about storage)
layout          where results' memory layout follows PyTorch's rule, not NumPy's
linalg          matmul and its special cases (mm, bmm, mv, dot), outer
decompositions  det, inv, solve, cholesky, qr, eigh, svd, pinv, lstsq, matrix_exp
matrix_functions matrix norms, cond, cross, multi_dot, kron, tensordot, dist, cdist
linalg_aliases  torch.det, torch.svd, x.inverse() ...: the top-level names
contraction     einsum, whose gradient is an einsum too
activation      softmax and log_softmax (and the activations of nn.functional)
loss            the losses of nn.functional
conversion      clone, dtype conversions, comparisons of whole tensors
inplace         ``x += 1``, ``add_``, ``zero_``, ``copy_`` ...
==============  ===================================================================
"""

from . import (  # noqa: F401
    activation,
    contraction,
    conversion,
    decompositions,
    grid,
    index,
    info,
    inplace,
    layout,
    linalg,
    linalg_aliases,
    loss,
    matrix_functions,
    numpy_protocol,
    pointwise,
    reduce,
    shape,
    special,
)
from .activation import *  # noqa: F403
from .contraction import *  # noqa: F403
from .conversion import *  # noqa: F403
from .grid import *  # noqa: F403
from .index import *  # noqa: F403
from .info import *  # noqa: F403
from .layout import *  # noqa: F403
from .linalg import *  # noqa: F403
from .linalg_aliases import *  # noqa: F403
from .loss import *  # noqa: F403
from .matrix_functions import *  # noqa: F403
from .pointwise import *  # noqa: F403
from .reduce import *  # noqa: F403
from .shape import *  # noqa: F403
from .special import *  # noqa: F403

__all__ = [
    *activation.__all__,
    *contraction.__all__,
    *conversion.__all__,
    *index.__all__,
    *linalg.__all__,
    *linalg_aliases.__all__,
    *matrix_functions.__all__,
    *loss.__all__,
    *pointwise.__all__,
    *reduce.__all__,
    *shape.__all__,
    *special.__all__,
    *grid.__all__,
    *info.__all__,
    *layout.__all__,
]
