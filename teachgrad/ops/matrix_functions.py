"""Functions of matrices built on the decompositions: norms, cond, cross, multi_dot, kron ...

Most are compositions of existing ops, exactly as PyTorch composes them, so their
``grad_fn`` chains are PyTorch's (``matrix_norm(A, 2)`` is ``AmaxBackward0`` over
``LinalgSvdBackward0``) and gradients of any order come for free. Three are ops of their
own because PyTorch records them as one node: ``cross`` (``LinalgCrossBackward0``),
``dist`` (``DistBackward0``) and ``cdist`` (``CdistBackward0``).

================  =====================================================================
matrix_norm       'fro' = √Σaᵢⱼ², 'nuc' = Σσᵢ, 2 = σ_max, 1 = max column sum, inf = max row sum
cond              ‖A‖·‖A⁻¹‖ (σ_max/σ_min for the 2-norm)
cross             a × b along a dimension of size 3
multi_dot         A₁A₂…Aₙ in the cheapest order (fewest multiplications)
kron, inner,      Kronecker product; dot product over the last dimension; contraction
tensordot         over given dimensions
dist, cdist       ‖a − b‖ₚ; all pairwise distances between two sets of rows
================  =====================================================================
"""

from __future__ import annotations

import math

import numpy as np

from .._dtypes import result_type
from .._missing_arguments import REQUIRED, missing
from .._tensor import Tensor, _make, _wrap_dim, numpy_names
from .._warn import warn_user
from . import numpy_protocol, shape
from .decompositions import (
    _SCALAR_NAMES,
    _scalar_name,
    check_float,
    check_matrix,
    inv_ex,
    solve,
    svdvals,
)
from .index import masked_fill
from .linalg import _cpp_name, _unsafe_view, mm
from .op import Op
from .pointwise import _check_bool_subtraction, mul, reciprocal
from .reduce import amax, amin, cumprod, vector_norm, vector_norm_backward
from .reduce import sum as sum_
from .saved_values import given, keep_given


# ----------------------------------------------------------------------------------------
# matrix_norm, norm, cond
# ----------------------------------------------------------------------------------------
def _matrix_dims(A: Tensor, dim) -> list:
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        shown = list(dim) if isinstance(dim, (tuple, list)) else dim
        shown = shown[0] if isinstance(shown, list) and len(shown) == 1 else shown
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    d0, d1 = (_wrap_dim(int(d), A._data.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    return [d0, d1]


def _to_the_end(A: Tensor, dims: list) -> tuple:
    """A with dims moved last (a permute, as PyTorch does), and the permutation back."""
    others = [d for d in range(A._data.ndim) if d not in dims]
    order = others + dims
    back = [order.index(i) for i in range(len(order))]
    return shape.permute(A, order), back


@numpy_names
def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *,  # noqa: A002
                dtype=None) -> Tensor:
    """A matrix norm of A (or of each matrix over ``dim`` in a batch).

    ======  ====================================  ======  ============================
    'fro'   √(Σ aᵢⱼ²) (Frobenius)                 'nuc'   Σ σᵢ (nuclear: singular values)
    2       σ_max (spectral)                      -2      σ_min
    1       max over columns of Σᵢ |aᵢⱼ|          -1      min over columns
    inf     max over rows of Σⱼ |aᵢⱼ|             -inf    min over rows
    ======  ====================================  ======  ============================

    >>> import teachgrad as torch
    >>> torch.linalg.matrix_norm(torch.tensor([[1., -2.], [3., 4.]]), ord=1)
    tensor(6.)
    """
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif abs(ord) not in (1, 2, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord:g} not supported.")
    check_matrix("linalg.matrix_norm", A)
    dims = _matrix_dims(A, dim)
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, dims, keepdim)
    if ord == "nuc" or abs(ord) == 2:  # from the singular values
        moved, back = _to_the_end(A, dims)
        values = svdvals(moved)
        if ord == "nuc":
            result = sum_(values, -1, keepdim=keepdim)
        else:
            result = (amax if ord > 0 else amin)(values, -1, keepdim)
        if keepdim:
            result = shape.permute(shape.unsqueeze(result, -1), back)
        return result
    # 1: the largest column sum of |A|; inf is the 1-norm of the transpose (rows)
    d0, d1 = dims if abs(ord) == 1 else dims[::-1]
    if not keepdim and d0 < d1:
        d1 -= 1  # the first reduction removed a dimension before d1
    sums = vector_norm(A, 1, d0, keepdim)
    return (amax if ord > 0 else amin)(sums, d1, keepdim)


@numpy_names
def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """``torch.linalg.norm``: a vector norm or a matrix norm, depending on ``ord`` and ``dim``.

    With ``ord=None`` it is the 2-norm of all elements (of a matrix: the Frobenius norm).
    A 2-D input with an ``ord``, or a 2-tuple ``dim``, gives :func:`matrix_norm`; an int
    ``dim`` (or a 1-D input) gives :func:`vector_norm`.

    >>> import teachgrad as torch
    >>> torch.linalg.norm(torch.tensor([[3., 0.], [0., 4.]]), ord=2)
    tensor(4.)
    """
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}")
    elif ord is not None and A._data.ndim not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            f"{A._data.ndim}D.")
    if isinstance(ord, str) or (ord is not None and (
            (dim is not None and len(dims) == 2) or (dim is None and A._data.ndim == 2))):
        return matrix_norm(A, ord, (0, 1) if dim is None else dims, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


class NanToNumBackward0(Op):
    """``cond`` turns the ``0 · inf`` of a singular matrix into inf, as NumPy and PyTorch do."""

    formula = "∂/∂a = 1 where a is finite, else 0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.nan_to_num(a, nan=np.inf, posinf=np.inf, neginf=-np.inf)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * np.isfinite(a._data if isinstance(a, Tensor) else a)


def cond(A: Tensor, p=None) -> Tensor:
    """The condition number ``‖A‖ · ‖A⁻¹‖`` in the norm ``p`` (default: σ_max / σ_min).

    How much the solution of ``A x = b`` can change, relatively, for a change of b. It is
    1 for an orthogonal matrix and infinite for a singular one.

    >>> import teachgrad as torch
    >>> torch.linalg.cond(torch.tensor([[2., 0.], [0., 0.5]]))
    tensor(4.)
    """
    if not isinstance(A, Tensor) or A._data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord_ = 2 if p is None else p
    valid = ord_ in ("fro", "nuc") if isinstance(ord_, str) else abs(ord_) in (1, 2, math.inf)
    if not valid:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {ord_}")
    shown = ord_ if isinstance(ord_, str) else (
        f"{ord_:f}" if isinstance(ord_, float) else str(ord_))
    if isinstance(ord_, str):  # ('fro', 'nuc': the shape is checked before the emptiness)
        check_matrix(f"linalg.cond(ord={shown})", A, square=True)
    if A._data.size == 0:  # NumPy defines no condition number of 0×0 matrices: PyTorch's 0
        return _make(np.zeros(A._data.shape[:-2], A._data.dtype))
    if not isinstance(ord_, str) and abs(ord_) == 2:
        values = svdvals(A)
        s_max, s_min = values[..., :1], values[..., -1:]
        ratio = s_min / s_max if ord_ == -2 else s_max / s_min
        return shape.squeeze(ratio, -1)
    if ord_ == "nuc":  # ‖A‖_nuc = Σσᵢ and ‖A⁻¹‖_nuc = Σ1/σᵢ, from one SVD
        values = svdvals(A)
        # (PyTorch's C++ evaluates the right operand of its `*` first: the order in
        # which the nodes are made decides the order the backward sums their gradients)
        inverse_norm = sum_(reciprocal(values), -1)
        return mul(sum_(values, -1), inverse_norm)
    check_matrix(f"linalg.cond(ord={shown})", A, square=True)
    inverse, info = inv_ex(A)
    # PyTorch's convention: a singular matrix's inverse is all inf. (PyTorch fills it in
    # place, which makes its own backward fail; out of place, the gradient works.)
    singular = _make(np.expand_dims(info._data > 0, (-1, -2)))
    inverse = masked_fill(inverse, singular, math.inf)
    product = mul(matrix_norm(A, ord_), matrix_norm(inverse, ord_))
    return NanToNumBackward0.apply(product)


# ----------------------------------------------------------------------------------------
# cross
# ----------------------------------------------------------------------------------------
class LinalgCrossBackward0(Op):
    formula = "∂(a×b)/∂a: ḡ ↦ b × ḡ    ∂(a×b)/∂b: ḡ ↦ ḡ × a"
    saved_names = ("self", "other")  # grad_fn._saved_... (each for the other's gradient)
    saved_attributes = {"dim": given("dim", lambda node: node.dim)}  # (as given: see cross)

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.dim = dim
        needs = ctx.needs_input_grad  # each for the other one's gradient only
        ctx.save_for_backward(a if needs[1] else None, b if needs[0] else None)
        # contiguous whatever the inputs' layout, as PyTorch's
        return np.ascontiguousarray(np.cross(a, b, axis=dim))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (np.cross(b, grad, axis=ctx.dim) if need_a else None,
                np.cross(grad, a, axis=ctx.dim) if need_b else None)


@numpy_names
def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002
    """The cross product of 3-vectors along ``dim`` (the other dimensions broadcast).

    >>> import teachgrad as torch
    >>> torch.linalg.cross(torch.tensor([1., 0., 0.]), torch.tensor([0., 1., 0.]))
    tensor([0., 0., 1.])
    """
    if input._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, input._data.ndim)
    if input._data.shape[d] != 3 or other._data.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got "
            f"{input._data.shape[d]} and {other._data.shape[d]}")
    np.broadcast_shapes(*_checked_broadcast(input, other))
    if input._data.dtype != other._data.dtype:  # PyTorch's kernel does not promote
        raise RuntimeError(
            f"expected scalar type {_scalar_name(input)} but found {_scalar_name(other)}"
            "\nHint: convert one of them first, e.g. other.to(input.dtype).")
    out = LinalgCrossBackward0.apply(input, other, dim=d)
    if dim < 0:  # (shown as given: see saved_values)
        keep_given(out, LinalgCrossBackward0, dim=dim)
    return out


def _checked_broadcast(a: Tensor, b: Tensor) -> tuple:
    """The two shapes, after PyTorch's error if they do not broadcast."""
    sa, sb = a._data.shape, b._data.shape
    for i, (x, y) in enumerate(zip(sa, sb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}")
    return sa, sb


def default_cross_dim(a: Tensor, b: Tensor) -> int:
    """``torch.cross`` without ``dim``: the first dimension of size 3 (deprecated)."""
    warn_user(
        "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass "
        "the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will "
        "change to agree with that of linalg.cross in a future release.",
        UserWarning)
    # PyTorch looks for it in input's own sizes, before linalg.cross checks the operands
    d = next((d for d, size in enumerate(a._data.shape) if size == 3), None)
    if d is None:
        raise RuntimeError("no dimension of size 3 in input")
    if a._data.ndim != b._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    _checked_broadcast(a, b)
    return d


@numpy_protocol.register(np.cross)
def _np_cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    return cross(_tensor(a), _tensor(b), dim=-1 if axis is None else axis)


def _tensor(x):
    return x if isinstance(x, Tensor) else _make(np.asarray(x))


# ----------------------------------------------------------------------------------------
# multi_dot
# ----------------------------------------------------------------------------------------
def _chain_order(sizes: list) -> list:
    """The cheapest parenthesization of a matrix chain (dynamic programming).

    ``sizes[i], sizes[i + 1]`` is the shape of matrix i. ``split[i][j]`` is where the
    product of matrices i..j is best cut in two.
    """
    n = len(sizes) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def multi_dot(tensors) -> Tensor:
    """The product ``A₁ @ A₂ @ … @ Aₙ``, multiplied in the order that costs least.

    The first tensor may be a vector (a row), the last one too (a column); the others are
    matrices. ``(10×100)(100×5)(5×50)`` costs 7,500 multiplications from the left and
    75,000 from the right: the order matters, the result does not.
    """
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    out_shape = []
    mats = list(tensors)
    first, last = tensors[0]._data.ndim, tensors[-1]._data.ndim
    if first == 1:
        mats[0] = shape.unsqueeze(tensors[0], 0)
    elif first == 2:
        out_shape.append(tensors[0]._data.shape[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    if last == 1:
        mats[-1] = shape.unsqueeze(tensors[-1], -1)
    elif last == 2:
        out_shape.append(tensors[-1]._data.shape[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i in range(1, n - 1):
        if mats[i]._data.ndim != 2:
            raise RuntimeError(
                f"multi_dot(): tensor {i} must be 2D but got {mats[i]._data.ndim}D")
    for i in range(1, n):
        if mats[i]._data.dtype != mats[0]._data.dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_cpp_name(mats[0])} and tensor {i} {_cpp_name(mats[i])}")
        if mats[i - 1]._data.shape[-1] != mats[i]._data.shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i - 1} and {i} with shapes "
                f"{list(tensors[i - 1]._data.shape)} and {list(tensors[i]._data.shape)} cannot "
                "be multiplied")
    if n == 2:
        result = mm(mats[0], mats[1])
    elif n == 3:  # PyTorch compares the two orders directly
        a, b = mats[0]._data.shape
        c, d = mats[2]._data.shape
        if a * c * (b + d) > b * d * (a + c):
            result = mm(mats[0], mm(mats[1], mats[2]))
        else:
            result = mm(mm(mats[0], mats[1]), mats[2])
    else:
        split = _chain_order([m._data.shape[0] for m in mats] + [mats[-1]._data.shape[1]])

        def product(i: int, j: int) -> Tensor:
            if i == j:
                return mats[i]
            k = split[i][j]
            return mm(product(i, k), product(k + 1, j))

        result = product(0, n - 1)
    return shape.view(result, tuple(out_shape))


# ----------------------------------------------------------------------------------------
# vander, diagonal, matrix helpers of torch.linalg
# ----------------------------------------------------------------------------------------
def vander(x: Tensor, *, N: int | None = None) -> Tensor:  # noqa: N803 - PyTorch's name
    """The Vandermonde matrix ``[1, x, x², …, x^(N−1)]`` (increasing powers, one row per xᵢ).

    >>> import teachgrad as torch
    >>> torch.linalg.vander(torch.tensor([1., 2., 3.]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
    """
    if x._data.dtype.kind not in "fiu" or x._data.dtype == np.bool_:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{_scalar_name(x)}")
    x_ = shape.unsqueeze(x, -1) if x._data.ndim == 0 else x
    n = x_._data.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = cumprod(shape.expand(shape.unsqueeze(x_, -1), x_._data.shape + (n - 1,)), -1)
    ones = _make(np.ones(x_._data.shape + (1,), powers._data.dtype))
    return shape.cat([ones, powers], -1)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal of each matrix (``torch.diagonal`` with the last two dims as default)."""
    return shape.diagonal(A, offset, dim1, dim2)


@numpy_names
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product along ``dim`` (batched): ``(x * y).sum(dim)``, of two float tensors
    of the same dtype (PyTorch's checks, in its order: it neither promotes nor takes
    integers)."""
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        if x._data.dtype != y._data.dtype:
            raise RuntimeError(
                "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                f"{_scalar_name(x)} and y of type {_scalar_name(y)} instead"
                "\nHint: convert one of them first, e.g. y.to(x.dtype).")
        if x._data.dtype.kind != "f":
            raise RuntimeError(
                "linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                f"{_scalar_name(x)}\nHint: convert first, e.g. x.float().")
    return (x * y).sum(dim)


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of A for :func:`tensordot` over ``ind`` dimensions.

    ``tensordot(tensorinv(A, ind), A, ind)`` is the identity; A's first ``ind`` dimensions
    must hold as many elements as the others.
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    if ind > A._data.ndim:  # (PyTorch's words come from slicing A's shape in C++)
        raise RuntimeError(
            f"ArrayRef: invalid slice, N = {ind}; size = {A._data.ndim}\nHint: ind counts "
            f"A's leading dimensions (the ones tensorinv's result ends with); A has "
            f"{A._data.ndim}.")
    front, back = A._data.shape[:ind], A._data.shape[ind:]
    if math.prod(front) != math.prod(back):
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {math.prod(back)} != {math.prod(front)}")
    from .decompositions import inv

    n = math.prod(back)
    inverse = inv(shape.reshape(A, (n, n)))
    return shape.ReshapeAliasBackward0.apply(inverse, shape=back + front)  # PyTorch's node


def tensorsolve(A: Tensor, B: Tensor, dims=None) -> Tensor:
    """The X with ``tensordot(A, X, X.ndim) == B``: :func:`solve` for tensors."""
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        A = shape.movedim(A, dims, list(range(A._data.ndim - len(dims), A._data.ndim)))
    if B._data.ndim > A._data.ndim:  # (PyTorch's words come from its C++ vector)
        raise RuntimeError(
            "cannot create std::vector larger than max_size()\nHint: B's dimensions are "
            f"A's leading ones, so B ({B._data.ndim}-d) cannot have more than A "
            f"({A._data.ndim}-d).")
    result_shape = A._data.shape[B._data.ndim:]
    n = math.prod(result_shape)
    if n != B._data.size:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {n} != {B._data.size}")
    x = solve(shape.reshape(A, (n, n)), shape.flatten(B))  # (a vector B: itself, no node)
    return shape.reshape(x, result_shape)


# ----------------------------------------------------------------------------------------
# kron, inner, tensordot (torch.*)
# ----------------------------------------------------------------------------------------
def kron(input: Tensor, other: Tensor = REQUIRED) -> Tensor:  # noqa: A002
    """The Kronecker product: every element of ``input`` times the whole of ``other``.

    >>> import teachgrad as torch
    >>> torch.kron(torch.tensor([1., 10.]), torch.tensor([1., 2.]))
    tensor([ 1.,  2., 10., 20.])
    """
    if other is REQUIRED:  # (x.kron(): PyTorch's words, see _missing_arguments)
        raise missing("kron", kron, input, other)
    n = max(input._data.ndim, other._data.ndim)
    a = (1,) * (n - input._data.ndim) + input._data.shape
    b = (1,) * (n - other._data.ndim) + other._data.shape
    # interleave: a as (a0, 1, a1, 1, …) and b as (1, b0, 1, b1, …), so their product
    # holds a[i] * b[j] at (i0, j0, i1, j1, …): exactly the Kronecker layout once merged
    a_shape = tuple(s for size in a for s in (size, 1))
    b_shape = tuple(s for size in b for s in (1, size))
    product = mul(_unsafe_view(input, a_shape), _unsafe_view(other, b_shape))
    return _unsafe_view(product, tuple(x * y for x, y in zip(a, b)))


def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    """Sum the products of ``a`` and ``b`` over the given dimensions.

    ``dims`` is an int (the last ``dims`` of ``a`` with the first ``dims`` of ``b``) or
    two lists of dimensions. ``tensordot(A, B, 1)`` is ``A @ B`` for matrices.
    """
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a._data.ndim, b._data.ndim):  # (PyTorch's words, its test is <=)
            raise RuntimeError(
                f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}"
                f"\nHint: a has {a._data.ndim} dimensions and b {b._data.ndim}; dims "
                "contracts the last dims of a with the first dims of b.")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:  # (PyTorch's next check: it does not promote)
        raise RuntimeError("both inputs should have same dtype\nHint: convert one of them "
                           "first, e.g. b.to(a.dtype).")
    size = 1
    t1, t2 = a, b
    for da, db in zip(dims_a, dims_b):
        s1, s2 = a._data.shape[da], b._data.shape[db]
        if s2 == 1:  # a broadcast dimension: sum it right away (PyTorch's rule)
            t1 = sum_(t1, da, keepdim=True)
        elif s1 == 1:
            t2 = sum_(t2, db, keepdim=True)
        elif s1 != s2:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {s1} in dim {da} and "
                f"second has size {s2} in dim {db}")
        else:
            size *= s1
    ca = [_wrap_dim(d, a._data.ndim) for d in dims_a]
    cb = [_wrap_dim(d, b._data.ndim) for d in dims_b]
    free_a = [d for d in range(a._data.ndim) if d not in ca]
    free_b = [d for d in range(b._data.ndim) if d not in cb]
    rows = math.prod(t1._data.shape[d] for d in free_a)
    cols = math.prod(t2._data.shape[d] for d in free_b)
    left = shape.reshape(shape.permute(t1, free_a + ca), (rows, size))
    right = shape.reshape(shape.permute(t2, cb + free_b), (size, cols))
    out_shape = tuple(t1._data.shape[d] for d in free_a) + tuple(t2._data.shape[d] for d in free_b)
    return shape.reshape(mm(left, right), out_shape)


def inner(input: Tensor, other: Tensor = REQUIRED) -> Tensor:  # noqa: A002
    """The dot product over the last dimension (of every pair of rows, for matrices).

    >>> import teachgrad as torch
    >>> torch.inner(torch.tensor([1., 2.]), torch.tensor([3., 4.]))
    tensor(11.)
    """
    if other is REQUIRED:  # (x.inner(): PyTorch's words, see _missing_arguments)
        raise missing("inner", inner, input, other)
    if input._data.ndim == 0 or other._data.ndim == 0:
        return mul(input, other)
    if input._data.ndim == other._data.ndim == 1 and input._data.dtype == np.bool_:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")  # (1-D: dot)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input._data.shape)} and {list(other._data.shape)}")
    return tensordot(input, other, ([-1], [-1]))


# ----------------------------------------------------------------------------------------
# dist, cdist (torch.*)
# ----------------------------------------------------------------------------------------
class DistBackward0(Op):
    saved_names = ("self", "other", "result")  # grad_fn._saved_...
    saved_attributes = {"p": given("p", lambda node: node.p)}  # (as given: 2, not 2.0)
    formula = "∂‖a − b‖ₚ/∂a = the p-norm's gradient at a − b;  ∂/∂b = minus that"
    promotes = True  # a − b in PyTorch's result dtype (float32 − int64 is float32)

    @staticmethod
    def forward(ctx, a, b, p):
        ctx.p = p
        out = vector_norm(_make(a - b), p)._data
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx.saved_tensors
        g = vector_norm_backward(grad, a - b, out, ctx.p, None, False)
        need_a, need_b = ctx.needs_input_grad
        return g if need_a else None, -g if need_b else None


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:  # noqa: A002
    """``‖input − other‖ₚ`` over all elements (the two broadcast).

    >>> import teachgrad as torch
    >>> torch.dist(torch.tensor([1., 1.]), torch.tensor([4., 5.]))
    tensor(5.)
    """
    _check_bool_subtraction(input, other)
    _checked_broadcast_any(input, other)
    promoted = result_type(input, other).numpy
    if promoted.kind != "f":  # (int64 - int64: PyTorch's norm refuses it)
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{_SCALAR_NAMES.get(promoted.name, promoted.name)} instead."
            "\nHint: convert first, e.g. torch.dist(a.float(), b.float()).")
    out = DistBackward0.apply(input, other, p=float(p))
    if type(p) is int:  # (PyTorch shows p as given: an int stays an int)
        keep_given(out, DistBackward0, p=p)
    return out


def _checked_broadcast_any(a: Tensor, b: Tensor) -> None:
    sa, sb = a._data.shape, b._data.shape
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    _checked_broadcast(_make(np.empty(pa)), _make(np.empty(pb)))


class CdistBackward0(Op):
    saved_names = ("x1", "x2", "result")  # grad_fn._saved_...
    saved_attributes = {"p": "p"}  # (a float, as PyTorch's)
    formula = "out[i, j] = ‖x1ᵢ − x2ⱼ‖ₚ: each row gets the p-norm's gradient, summed over pairs"

    @staticmethod
    def forward(ctx, x1, x2, p):
        ctx.p = p
        diff = np.expand_dims(x1, -2) - np.expand_dims(x2, -3)
        out = vector_norm(_make(diff), p, -1)._data
        ctx.save_for_backward(x1, x2, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x1, x2, out = ctx.saved_tensors
        diff = np.expand_dims(x1, -2) - np.expand_dims(x2, -3)
        if ctx.p == np.inf:
            # PyTorch's cdist gives every coordinate at the maximum the whole gradient
            # (sign(d)·[|d| = max]), where vector_norm and dist share it among ties.
            at_max = np.abs(diff) == np.expand_dims(out, -1)
            g = np.expand_dims(grad, -1) * np.sign(diff) * at_max
        else:
            g = vector_norm_backward(grad, diff, out, ctx.p, (np.ndim(diff) - 1,), False)
        need_1, need_2 = ctx.needs_input_grad
        return (np.sum(g, axis=-2) if need_1 else None,
                -np.sum(g, axis=-3) if need_2 else None)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode=None) -> Tensor:
    """All distances ``‖x1ᵢ − x2ⱼ‖ₚ`` between the rows of ``x1`` (P×M) and ``x2`` (R×M).

    The result is P×R (batch dimensions broadcast). PyTorch may compute p = 2 through a
    matrix product for large inputs; here it is always the direct difference.

    >>> import teachgrad as torch
    >>> torch.cdist(torch.tensor([[0., 0.]]), torch.tensor([[3., 4.], [1., 0.]]))
    tensor([[5., 1.]])
    """
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.ndim < 2:
            raise RuntimeError(
                f"cdist only supports at least 2D tensors, {name} got: {x._data.ndim}D")
        if x._data.dtype.kind != "f":
            check_float("cdist", x)
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(
            "X1 and X2 must have the same number of columns. X1: "
            f"{x1._data.shape[-1]} X2: {x2._data.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._data.dtype != x2._data.dtype:  # (its kernel does not promote)
        raise RuntimeError(
            f"expected scalar type {_scalar_name(x1)} but found {_scalar_name(x2)}"
            "\nHint: convert one of them first, e.g. x2.to(x1.dtype).")
    _checked_broadcast_any(_make(np.empty(x1._data.shape[:-2])),
                           _make(np.empty(x2._data.shape[:-2])))
    return CdistBackward0.apply(x1, x2, p=float(p))


__all__ = ["kron", "inner", "tensordot", "dist", "cdist"]
