"""Every differentiable operation, grouped by family.

Each family module defines its ops as :class:`~teachgrad.ops.op.Op` classes (forward and
backward side by side) plus the public functions that call them; importing a family also
registers its functions as ``Tensor`` methods.

==================  =================================================================
pointwise           arithmetic, powers, exp/log, trigonometry, clamp, where, comparisons
reduce              sum, mean, prod, max/min, var/std, norm, logsumexp, cumsum/cummax
order_statistics    quantile/nanquantile, nanmedian, mode (what sorting a dimension tells)
shape               view/reshape, squeeze, transpose/permute, expand, cat/stack, unfold
split_join          tensor_split, h/v/dsplit, column_stack, block_diag, repeat_interleave
view_scatter        select/slice/diagonal_scatter, diag_embed: a view's inverse, in a copy
index               ``x[...]`` reading and writing, gather, index_select, masked_fill
index_update        index_add/copy/fill, scatter_reduce, masked_scatter, put (in a copy)
search              searchsorted, bucketize, isin, unique, bincount, histc (no gradients)
special             asin/acos/atan, sinh/cosh and inverses, erf, atan2, hypot, lerp, trace
gamma               lgamma, digamma, polygamma, mvlgamma
incomplete_gamma    igamma/igammac (torch.special.gammainc/gammaincc)
bessel              i0 (and i0e, i1, i1e for teachgrad.special)
elementary          deg2rad/rad2deg, copysign, frac, fix, heaviside, sinc, logit
numerics            the NumPy kernels of erf, the gamma family and Bessel functions
grid                meshgrid (views made by reshape and expand)
info                Tensor.stride(), finfo and iinfo (facts about storage, not operations)
layout              where results' memory layout follows PyTorch's rule, not NumPy's
linalg              matmul and its special cases (mm, bmm, mv, dot), outer
decompositions      det, inv, solve, cholesky, qr, eigh, svd, pinv, lstsq, matrix_exp
matrix_functions    matrix norms, cond, cross, multi_dot, kron, tensordot, dist, cdist
linalg_aliases      torch.det, torch.svd, x.inverse() ...: the top-level names
householder         geqrf, householder_product (orgqr), ormqr: Householder reflectors
ldl                 linalg.ldl_factor/ldl_solve: Bunch–Kaufman (LAPACK's sytrf/sytrs)
triangular          the deprecated torch.triangular_solve (solution, cloned_coefficient)
lu_decomposition    lu_factor, lu, lu_unpack, lu_solve (a NumPy getrf, pivots as LAPACK's)
multiply_add        addcmul/addcdiv, addmv, addr, baddbmm, addbmm (fused multiply-adds)
numerical_gradient  torch.gradient: derivatives estimated from samples (composed)
calculus            diff, trapezoid/trapz, cumulative_trapezoid (composed)
contraction         einsum, whose gradient is an einsum too
activation          softmax and log_softmax (and the activations of nn.functional)
loss                the losses of nn.functional
conversion          clone, dtype conversions, comparisons of whole tensors
inplace             ``x += 1``, ``add_``, ``zero_``, ``copy_`` ...
bitwise_shift       x << n, x >> n (PyTorch's rule for shifts past the width)
index_reduction     index_reduce: scatter_reduce on whole slices
legacy_linalg       vdot, chain_matmul, frobenius_norm, nuclear_norm
removed_linalg      symeig, eig, lstsq, solve: removed from PyTorch, raise its message
predicates          isposinf, isneginf, isreal
slice_norms         renorm: cap the p-norm of each slice
statistics          cov, corrcoef, histogram, histogramdd
untracked_split     unsafe_split/unsafe_chunk: split without view tracking
strided             as_strided (any window on a tensor's storage), as_strided_scatter
view_copies         select_copy, view_copy ...: a view op's result copied, grad_fn ``*_copy``
not_implemented     the ``NotImplemented`` node of ops without a derivative
inplace_more        ``t_``, ``squeeze_``, ``resize_``, ``lt_``, ``logical_not_``, ``fill_diagonal_``
tensor_arguments    maximum, atan2, isclose ...: refuse a number where PyTorch wants a tensor
==================  =================================================================
"""

from . import (  # noqa: F401
    activation,
    bessel,
    bitwise_shift,
    calculus,
    contraction,
    conversion,
    decompositions,
    elementary,
    gamma,
    grid,
    householder,
    incomplete_gamma,
    index,
    index_reduction,
    index_update,
    info,
    inplace,
    inplace_more,
    layout,
    ldl,
    legacy_linalg,
    linalg,
    linalg_aliases,
    loss,
    lu_decomposition,
    matrix_functions,
    multiply_add,
    numerical_gradient,
    numpy_protocol,
    order_statistics,
    pointwise,
    predicates,
    reduce,
    removed_linalg,
    search,
    shape,
    slice_norms,
    special,
    split_join,
    statistics,
    strided,
    tensor_arguments,
    triangular,
    untracked_split,
    view_copies,
    view_scatter,
)
from .activation import *  # noqa: F403
from .bessel import *  # noqa: F403
from .bitwise_shift import *  # noqa: F403
from .calculus import *  # noqa: F403
from .contraction import *  # noqa: F403
from .conversion import *  # noqa: F403
from .elementary import *  # noqa: F403
from .gamma import *  # noqa: F403
from .grid import *  # noqa: F403
from .householder import *  # noqa: F403
from .incomplete_gamma import *  # noqa: F403
from .index import *  # noqa: F403
from .index_reduction import *  # noqa: F403
from .index_update import *  # noqa: F403
from .info import *  # noqa: F403
from .layout import *  # noqa: F403
from .legacy_linalg import *  # noqa: F403
from .linalg import *  # noqa: F403
from .linalg_aliases import *  # noqa: F403
from .loss import *  # noqa: F403
from .lu_decomposition import *  # noqa: F403
from .matrix_functions import *  # noqa: F403
from .multiply_add import *  # noqa: F403
from .numerical_gradient import *  # noqa: F403
from .order_statistics import *  # noqa: F403
from .pointwise import *  # noqa: F403
from .predicates import *  # noqa: F403
from .reduce import *  # noqa: F403
from .removed_linalg import *  # noqa: F403
from .search import *  # noqa: F403
from .shape import *  # noqa: F403
from .slice_norms import *  # noqa: F403
from .special import *  # noqa: F403
from .split_join import *  # noqa: F403
from .statistics import *  # noqa: F403
from .strided import *  # noqa: F403
from .tensor_arguments import *  # noqa: F403 - after pointwise, special ...: wraps their names
from .triangular import *  # noqa: F403
from .untracked_split import *  # noqa: F403
from .view_copies import *  # noqa: F403
from .view_scatter import *  # noqa: F403

__all__ = [
    *activation.__all__,
    *calculus.__all__,
    *bessel.__all__,
    *elementary.__all__,
    *gamma.__all__,
    *incomplete_gamma.__all__,
    *contraction.__all__,
    *conversion.__all__,
    *index.__all__,
    *index_update.__all__,
    *linalg.__all__,
    *linalg_aliases.__all__,
    *matrix_functions.__all__,
    *loss.__all__,
    *lu_decomposition.__all__,
    *multiply_add.__all__,
    *order_statistics.__all__,
    *pointwise.__all__,
    *reduce.__all__,
    *search.__all__,
    *shape.__all__,
    *special.__all__,
    *split_join.__all__,
    *view_scatter.__all__,
    *grid.__all__,
    *householder.__all__,
    *info.__all__,
    *layout.__all__,
    *bitwise_shift.__all__,
    *index_reduction.__all__,
    *legacy_linalg.__all__,
    *removed_linalg.__all__,
    *predicates.__all__,
    *slice_norms.__all__,
    *numerical_gradient.__all__,
    *statistics.__all__,
    *triangular.__all__,
    *untracked_split.__all__,
    *strided.__all__,
    *view_copies.__all__,
    *tensor_arguments.__all__,
]
