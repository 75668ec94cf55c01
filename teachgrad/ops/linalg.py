"""Linear algebra: matrix products (dot, mv, mm, bmm, matmul), outer and addmm.

Four ops do the arithmetic, one per shape of product, each with the same two-line backward
(for ``C = A @ B``: ``∂L/∂A = ∂L/∂C @ Bᵀ`` and ``∂L/∂B = Aᵀ @ ∂L/∂C``):

==============  =======================  ===========================
op              shapes                   grad_fn
==============  =======================  ===========================
dot             (k) · (k) → ()           DotBackward0
mv              (n, k) @ (k) → (n)       MvBackward0
mm              (n, k) @ (k, p) → (n, p) MmBackward0
bmm             (b, n, k) @ (b, k, p)    BmmBackward0
==============  =======================  ===========================

:func:`matmul` (the ``@`` operator) is not an op of its own: exactly as in PyTorch, it
reshapes and broadcasts its operands with the shape ops (view, expand, transpose...) and
calls one of the four. That is why ``(x @ w).grad_fn`` shows PyTorch's chains such as
``UnsafeViewBackward0 → MmBackward0 → ViewBackward0``: they come from the composition.

No dtype promotion happens here (as in PyTorch): both operands must have the same dtype.
"""

from __future__ import annotations

import math

import numpy as np

from .._arguments import checks_types
from .._missing_arguments import REQUIRED, missing
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _make, python_type_name, tensor_method
from ..autograd.grad_mode import state as _grad_state
from ..autograd.graph import _FREED, saved_value, unpack_saved
from . import shape
from .conversion import clone, contiguous
from .info import element_strides
from .number_factor import times_number
from .op import Op
from .pointwise import mul
from .shape import SqueezeBackward1, UnsafeViewBackward0

# ----------------------------------------------------------------------------------------
# The four products
# ----------------------------------------------------------------------------------------


def _transposed(m):
    """The matrix (or batch of matrices) with its last two dimensions swapped.

    (The method, not ``np.swapaxes``: arrays and tensors both have it, and NumPy's
    function would first look for an override on every call.)
    """
    return m.swapaxes(-1, -2)


def _is_transposed(m) -> bool:
    """Is ``m`` a transposed matrix in memory (``weight.t()``), a plain array?"""
    return (type(m) is np.ndarray and m.ndim == 2 and m.flags.f_contiguous
            and not m.flags.c_contiguous)


def _right_factor_grad(ctx, left, grad, right):
    """``leftᵀ @ grad``: the gradient of ``right`` in the product ``left @ right``.

    When ``right`` is a transposed matrix (``weight.t()`` in ``nn.Linear``) this computes
    ``(gradᵀ @ left)ᵀ`` instead, as PyTorch's ``mm_mat2_backward`` does: the same numbers,
    already laid out as ``right`` is, so the gradient that reaches the weight through
    ``t()`` is contiguous and becomes ``weight.grad`` without a copy. (For plain arrays;
    mm under ``create_graph`` records PyTorch's graph: ``_mm_recorded_grads``.) ``right``
    itself is often not saved (None: no gradient needs it), so forward notes its layout on ``ctx``,
    as PyTorch keeps ``_saved_mat2_sym_strides``.
    """
    if right is None:
        transposed = ctx.right_is_transposed
    else:  # (_is_transposed, inline: this runs in every backward of nn.Linear)
        transposed = (type(right) is np.ndarray and right.ndim == 2
                      and right.flags.f_contiguous and not right.flags.c_contiguous)
    if transposed and type(left) is np.ndarray:
        return _transposed(np.matmul(_transposed(grad), left))
    return np.matmul(_transposed(left), grad)


def _save_factors(ctx, left, right) -> None:
    """Save what the gradients of ``left @ right`` need, as PyTorch does (and no more).

    ``right`` for ``left``'s gradient, ``left`` for ``right``'s: ``x @ W`` with only ``W``
    requiring grad keeps no ``W``. When ``right`` is not kept, its layout is (see
    ``_right_factor_grad``).
    """
    needs = ctx.needs_input_grad
    need_left, need_right = needs[-2], needs[-1]
    # (right first: PyTorch's order, which saved-tensor hooks see)
    ctx.save_for_backward(right if need_left else None, left if need_right else None)
    if need_right and not need_left:
        ctx.right_is_transposed = _is_transposed(right)
        ctx.right_column_major = _column_major(right)  # (PyTorch's test, for create_graph)
        ctx._right_strides = right.strides  # (for _saved_mat2_sym_strides: right is not kept)
    elif need_left and not need_right:  # (left is not kept: its layout, for create_graph)
        ctx.left_column_major = _column_major(left)
        ctx._left_strides = left.strides


# --- PyTorch's _saved_<factor>_sym_sizes and _sym_strides, worked out when read ----------
# mm and addmm keep both factors' sizes, and the strides of each factor that needs a
# gradient (its gradient is laid out as it is). Nothing is stored for them in the common
# case, where a factor needing a gradient is saved anyway: they are read off the saved
# array, the leaf or the edge, so the forward pass pays nothing (see _save_factors).

def _factor_shape(node, first: int, which: int) -> tuple:
    """The shape of factor ``which`` (0: left, 1: right) of ``node``, whose factors are its
    inputs ``first`` and ``first + 1``: from the node that made it (its output's metadata,
    kept for backward), or from the other factor's and the product's shapes."""
    made_by, nr = node.next_functions[first + which]
    if made_by is not None:
        variable = getattr(made_by, "variable", None)  # (a leaf's AccumulateGrad)
        return tuple(variable.shape if variable is not None else made_by._meta[nr][0])
    other = _factor_shape(node, first, 1 - which)  # (that one needs a gradient)
    rows, columns = node._meta[0][0]
    return (rows, other[0]) if which == 0 else (other[1], columns)


def _factor_strides(node, first: int, which: int) -> tuple:
    """The strides (in elements) of factor ``which`` if it needs a gradient, else ``()``."""
    made_by = node.next_functions[first + which][0]
    if made_by is None:
        return ()
    saved = node._saved
    if type(saved) is tuple:  # (saved as (right, left), when it needs the other's gradient)
        if type(saved[0][1 - which]) is np.ndarray:
            return element_strides(saved[0][1 - which])
    elif saved is not None and saved is not _FREED:  # (packed by saved-tensor hooks)
        value = saved_value(node, 1 - which)
        if value is not None:
            return value.stride()
    noted = node.__dict__.get("_left_strides" if which == 0 else "_right_strides")
    if noted is not None:  # (in bytes, as NumPy keeps them)
        return tuple([s // node._meta[0][1].itemsize for s in noted])
    variable = getattr(made_by, "variable", None)
    if variable is not None:
        return variable.stride()
    # Both factors were saved, and backward has freed them since: PyTorch's error.
    unpack_saved(node)
    return ()  # (not reached)


def _factor_layouts(first: int, left: str, right: str) -> dict:
    """``saved_attributes`` for the sizes and strides of factors named ``left``, ``right``."""
    return {f"{name}_{kind}": (lambda node, which=which, read=read: read(node, first, which))
            for which, name in ((1, right), (0, left))
            for kind, read in (("sym_sizes", _factor_shape), ("sym_strides", _factor_strides))}


def _column_major(m) -> bool:
    """PyTorch's test in mm's backward: strides ``(1, rows)`` in elements, a matrix stored
    column by column (``weight.t()``; every 1×1 matrix passes too)."""
    data = m._data if type(m) is Tensor else m
    if data.ndim != 2:
        return False
    if data.size == 0:  # (NumPy's strides of an empty array are 0: PyTorch's, see info.py)
        strides = element_strides(data)
        return strides[0] == 1 and strides[1] == data.shape[0]
    return (data.strides[0] == data.itemsize
            and data.strides[1] == data.shape[0] * data.itemsize)


def _mm_recorded_grads(ctx, grad, a, b, need_a: bool, need_b: bool) -> tuple:
    """mm's gradients under ``create_graph``, as PyTorch's mm_mat1/mm_mat2_backward record
    them: for a factor stored column by column the gradient is computed transposed,
    ``(b·gradᵀ)ᵀ`` for ``a`` and ``(gradᵀ·a)ᵀ`` for ``b`` (same numbers, laid out as the
    factor is), so its graph ends in ``TBackward0`` instead of ``MmBackward0``."""
    grad_a = grad_b = None
    if need_a:
        column_major = ctx.left_column_major if a is None else _column_major(a)
        grad_a = b.mm(grad.t()).t() if column_major else grad.mm(b.t())
    if need_b:
        column_major = ctx.right_column_major if b is None else _column_major(b)
        grad_b = grad.t().mm(a).t() if column_major else a.t().mm(grad)
    return grad_a, grad_b


class DotBackward0(Op):
    saved_names = ("self", "tensor")  # grad_fn._saved_...
    formula = "∂(a·b)/∂a = b    ∂(a·b)/∂b = a"

    @staticmethod
    def forward(ctx, a, b):
        needs = ctx.needs_input_grad  # each for the other one's gradient only
        ctx.save_for_backward(a if needs[1] else None, b if needs[0] else None)
        out = np.asarray(np.dot(a, b))
        if out.dtype.kind == "f":
            # PyTorch's dot (BLAS) adds the products to a sum that starts at +0, so
            # [-0.]·[0.] is +0; NumPy's short dot returns the lone product, -0. Adding +0
            # changes nothing else (an inf or nan stays).
            out = out + out.dtype.type(0)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return grad * b if need_a else None, grad * a if need_b else None


class MvBackward0(Op):
    saved_names = ("self", "vec")  # grad_fn._saved_...
    formula = "∂(A v)/∂A = grad ⊗ v (outer product)    ∂(A v)/∂v = Aᵀ grad"

    @staticmethod
    def forward(ctx, m, v):
        # Keep only what a gradient needs, as PyTorch does: v for A's, A for v's.
        needs = ctx.needs_input_grad
        ctx.save_for_backward(m if needs[1] else None, v if needs[0] else None)
        return m @ v

    @staticmethod
    def backward(ctx, grad):
        m, v = ctx.saved_tensors
        need_m, need_v = ctx.needs_input_grad
        grad_m = np.expand_dims(grad, -1) * v if need_m else None
        if not need_v:
            return grad_m, None
        if type(m) is Tensor:  # create_graph: PyTorch's self.t().mv(grad) (TBackward0)
            return grad_m, m.t().mv(grad)
        return grad_m, np.matmul(_transposed(m), grad)


class _MatrixProduct(Op):
    """mm's forward and backward, shared by MmBackward0 and BmmBackward0."""

    saved_names = ("mat2", "self")  # grad_fn._saved_..., in PyTorch's order
    formula = "∂(A B)/∂A = grad Bᵀ    ∂(A B)/∂B = Aᵀ grad"

    @staticmethod
    def forward(ctx, a, b):
        _save_factors(ctx, a, b)
        if a.shape[1] == 1 and a.shape[0] > 1 and b.shape[1] > 1:
            # one term per element: PyTorch's BLAS gemm writes that product as it is, a
            # zero with its sign ([[-0.], [2.]] @ [[1., 2.]] starts with -0.); NumPy adds
            # it to +0. (gemv, for one row or column, and bmm give +0 in PyTorch too.)
            return a * b
        return a @ b

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        if type(grad) is Tensor:  # create_graph: the graph PyTorch records
            return _mm_recorded_grads(ctx, grad, a, b, need_a, need_b)
        grad_a = np.matmul(grad, _transposed(b)) if need_a else None
        grad_b = _right_factor_grad(ctx, a, grad, b) if need_b else None
        return grad_a, grad_b


class MmBackward0(_MatrixProduct):
    saved_attributes = _factor_layouts(0, "self", "mat2")


class BmmBackward0(_MatrixProduct):
    """``mm`` for each matrix of a batch: the same formulas, batch by batch (PyTorch keeps
    no sizes or strides for it)."""

    formula = "∂(A B)/∂A = grad Bᵀ    ∂(A B)/∂B = Aᵀ grad    (per batch)"

    @staticmethod
    def forward(ctx, a, b):
        _save_factors(ctx, a, b)
        if a.dtype != b.dtype:  # an empty product (see _check_bmm): mat2's dtype, as PyTorch
            return np.zeros(a.shape[:2] + b.shape[2:], b.dtype)
        return a @ b

    @staticmethod
    def backward(ctx, grad):
        if type(grad) is not Tensor:
            return _MatrixProduct.backward(ctx, grad)
        # create_graph: PyTorch's formulas are bmm's again (BmmBackward0), where matmul on
        # 3-d tensors would fold the batch (UnsafeViewBackward0 on top)
        b, a = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad.bmm(b.transpose(1, 2)) if need_a else None,
                a.transpose(1, 2).bmm(grad) if need_b else None)


class AddmmBackward0(Op):
    """``beta * input + alpha * (mat1 @ mat2)``: what ``nn.functional.linear`` records."""

    saved_names = ("mat2", "mat1")  # grad_fn._saved_..., in PyTorch's order
    saved_attributes = {"alpha": "alpha", "beta": "beta", **_factor_layouts(1, "mat1", "mat2")}
    formula = "∂/∂input = β    ∂/∂mat1 = α·grad mat2ᵀ    ∂/∂mat2 = α·mat1ᵀ grad"

    @staticmethod
    def forward(ctx, input, mat1, mat2, beta, alpha):  # noqa: A002 - PyTorch's name
        ctx.beta, ctx.alpha = beta, alpha
        _save_factors(ctx, mat1, mat2)
        if alpha == 0:  # BLAS does not compute the product then (nan in it is not seen)
            return blas_scaled_input(input, beta, (mat1.shape[0], mat2.shape[1]), mat1.dtype)
        product = mat1 @ mat2
        if alpha != 1:
            product = alpha * product
        # (with beta = 0 PyTorch ignores input, even NaN or inf in it)
        out = product if beta == 0 else product + (input if beta == 1 else beta * input)
        if alpha == 1 and beta == 1:  # (nn.Linear's case, left fast: see blas_signed_zeros)
            return out
        return blas_signed_zeros(out, input, mat1, mat2, beta, alpha)

    @staticmethod
    def backward(ctx, grad):
        mat2, mat1 = ctx.saved_tensors
        need_input, need_1, need_2 = ctx.needs_input_grad
        # (times_number: under create_graph, a tensor times a number is PyTorch's
        # MulBackward1, not MulBackward0 with a constant operand)
        grad_input = (grad if ctx.beta == 1 else times_number(grad, ctx.beta)
                      ) if need_input else None
        if type(grad) is Tensor:  # create_graph: mm's graph (PyTorch's), then times alpha
            grad_1, grad_2 = _mm_recorded_grads(ctx, grad, mat1, mat2, need_1, need_2)
            if ctx.alpha != 1:
                grad_1 = None if grad_1 is None else times_number(grad_1, ctx.alpha)
                grad_2 = None if grad_2 is None else times_number(grad_2, ctx.alpha)
            return grad_input, grad_1, grad_2
        scaled = grad if ctx.alpha == 1 else grad * ctx.alpha
        grad_1 = np.matmul(scaled, _transposed(mat2)) if need_1 else None
        grad_2 = _right_factor_grad(ctx, mat1, scaled, mat2) if need_2 else None
        return grad_input, grad_1, grad_2


def blas_scaled_input(input, beta, shape: tuple, dtype) -> np.ndarray:
    """``beta · input`` broadcast to ``shape``: what addmm/addmv give with alpha = 0, as
    BLAS does not compute the product then (zeros when beta is 0 too)."""
    if beta == 0:
        return np.zeros(shape, dtype)
    return np.broadcast_to(input if beta == 1 else beta * input, shape).astype(dtype)


def blas_signed_zeros(out: np.ndarray, input, a: np.ndarray, b: np.ndarray, beta,
                      alpha) -> np.ndarray:
    """``out`` = beta·input + alpha·(a @ b), its zeros signed as PyTorch's BLAS mostly
    signs them.

    A sum is -0 only when everything added is -0, whatever the order; BLAS starts from
    beta·input (+0 when beta is 0). Its matrix product adds the terms (alpha·b)·a one by
    one; its matrix-vector product (of a row-major matrix) adds a dot product, summed from
    +0, times alpha. With beta = 0, an outer product (n x 1 @ 1 x m, n and m > 1) is
    written term by term, not added to +0: a -0 term stays -0 there. NumPy adds the
    product on its own first, so -0 + (a product of -0 terms) came out +0. (Not every
    case: PyTorch picks other kernels for some sizes, whose zeros are signed otherwise: in
    3000 random 1-3 x 0-3 x 1-3 addmv/addmm with ±0 entries (and ±1, inf, nan; any beta
    and alpha), the signs of 16 differ from PyTorch 2.13's, all with alpha = beta = 1,
    nn.Linear's case, left fast; 85 before the outer products' rule.)
    """
    zero = out == 0
    if not zero.any():
        return out
    out = np.array(out)  # (may be a broadcast view)
    pos = np.nonzero(zero)
    if b.ndim == 1:  # alpha · (a dot product from +0): -0 only for a negative alpha
        negative = np.full(len(pos[0]), np.signbit(alpha * 0.0))
    else:
        terms = a[pos[0]] * (alpha * b[:, pos[1]]).T
        negative = np.all((terms == 0) & np.signbit(terms), axis=-1)  # (no terms: True)
    if beta == 0:
        # BLAS starts from +0, except for an outer product (n x 1 @ 1 x m, n and m > 1),
        # whose single terms it writes as they are
        outer = b.ndim == 2 and a.shape[1] == 1 and 1 not in out.shape
        if not outer:
            negative[:] = False
    else:
        start = beta * np.broadcast_to(input, out.shape)[pos]
        negative &= (start == 0) & np.signbit(start)
    out[pos] = np.where(negative, -0.0, 0.0)
    return out


class SqueezeBackward4(SqueezeBackward1):
    """PyTorch's name for an in-place ``squeeze_(dim)``; matmul uses one for 1-D @ 2-D.

    In place on the product, which no one else sees: the result is not a view (an
    in-place op on it records its own node, not a rebase of a view).
    """

    is_view = False


# ----------------------------------------------------------------------------------------
# PyTorch's checks and error messages
# ----------------------------------------------------------------------------------------
_CPP_TYPE_NAMES = {  # how PyTorch's C++ core names dtypes in some messages
    "float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
    "bool": "bool",
}


def _cpp_name(t: Tensor) -> str:
    return _CPP_TYPE_NAMES[t._data.dtype.name]


def _scalar_name(t: Tensor) -> str:
    return t.dtype._legacy.removesuffix("Tensor")


def _by(shape: tuple) -> str:
    return "x".join(str(s) for s in shape)


def _shapes(a: Tensor, b: Tensor) -> str:
    return f"{list(a._data.shape)} and {list(b._data.shape)}"


def _fail(sentence: str, hint: str) -> RuntimeError:
    return RuntimeError(f"{sentence}\nHint: {hint}")


_DTYPE_HINT = "matrix products do not convert dtypes; convert one operand, e.g. b.to(a.dtype)."


def _check_bool(a: Tensor, kernel: str) -> None:
    if a._data.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _matmul_hint(operands: tuple) -> str:
    """The hint for a product that ran inside ``matmul``: it names the user's own shapes
    (the sentence before it names the internal, possibly folded, ones, as PyTorch's does)."""
    a, b = operands[0]._data.shape, operands[1]._data.shape
    inner = "only" if len(b) == 1 else "second-to-last"
    return (
        f"matmul of shapes {list(a)} and {list(b)}: the last dimension of the first "
        f"({a[-1]}) must equal the {inner} dimension of the second "
        f"({b[0] if len(b) == 1 else b[-2]})."
    )


def _check_dot(a: Tensor, b: Tensor, operands: tuple | None = None) -> None:
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise _fail(
            f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors",
            f"dot multiplies two vectors; shapes {_shapes(a, b)}. For matrices use @ (matmul).",
        )
    if a._data.dtype != b._data.dtype:
        raise _fail(
            "dot : expected both vectors to have same dtype, but found "
            f"{_scalar_name(a)} and {_scalar_name(b)}",
            _DTYPE_HINT,
        )
    n, m = a._data.shape[0], b._data.shape[0]
    if n != m:
        raise _fail(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively",
            _matmul_hint(operands) if operands
            else f"dot needs two vectors of one length; shapes {_shapes(a, b)}.",
        )
    _check_bool(a, "dot")


def _check_mv(m: Tensor, v: Tensor, operands: tuple | None = None) -> None:
    if m._data.ndim == 0:  # (PyTorch reads the matrix's size(0) first)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if m._data.ndim != 2 or v._data.ndim != 1:
        raise _fail(
            f"vector + matrix @ vector expected, got 1, {m._data.ndim}, {v._data.ndim}",
            f"mv multiplies a matrix by a vector; shapes {_shapes(m, v)}.",
        )
    rows, cols = m._data.shape
    if cols != v._data.shape[0]:
        raise _fail(
            f"size mismatch, got input ({rows}), mat ({_by(m._data.shape)}), "
            f"vec ({v._data.shape[0]})",
            _matmul_hint(operands) if operands else (
                f"the matrix has {cols} columns, so the vector needs {cols} elements; "
                f"shapes {_shapes(m, v)}."
            ),
        )
    if m._data.dtype != v._data.dtype:
        raise _fail(
            "addmv input tensors must have the same dtype, but got "
            f"{_scalar_name(v)}, {_scalar_name(m)}, and {_scalar_name(v)}",
            _DTYPE_HINT,
        )
    _check_bool(m, "addmv_impl_cpu")


def _check_mm(a: Tensor, b: Tensor, operands: tuple | None = None, names=None) -> None:
    if a._data.ndim != 2 or b._data.ndim != 2:
        first, second = names or ("self", "mat2")
        name, t = (first, a) if a._data.ndim != 2 else (second, b)
        sentence = f"{name} must be a matrix"
        if names:  # addmm says which rank it got
            sentence += f", got {t._data.ndim}-D tensor"
        raise _fail(sentence, f"mm multiplies two 2-D tensors; shapes {_shapes(a, b)}.")
    if a._data.shape[1] != b._data.shape[0]:
        raise _fail(
            f"mat1 and mat2 shapes cannot be multiplied ({_by(a._data.shape)} and "
            f"{_by(b._data.shape)})",
            _matmul_hint(operands) if operands else (
                f"A @ B needs as many columns in A ({a._data.shape[1]}) as rows in B "
                f"({b._data.shape[0]}); shapes {_shapes(a, b)}."
            ),
        )
    if a._data.dtype != b._data.dtype:
        raise _fail(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_cpp_name(a)} != {_cpp_name(b)}",
            _DTYPE_HINT,
        )
    _check_bool(a, "addmm_impl_cpu_")


def _check_bmm(a: Tensor, b: Tensor, operands: tuple | None = None) -> None:
    for name, t in (("batch1", a), ("batch2", b)):
        if t._data.ndim != 3:
            raise _fail(
                f"{name} must be a 3D tensor",
                f"bmm multiplies two batches of matrices (3-D tensors); shapes {_shapes(a, b)}.",
            )
    batch, _, k = a._data.shape
    if b._data.shape[:2] != (batch, k):
        raise _fail(
            f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {k}] "
            f"but got: [{b._data.shape[0]}, {b._data.shape[1]}].",
            _matmul_hint(operands) if operands else (
                f"bmm needs the same batch size and A's columns to match B's rows; "
                f"shapes {_shapes(a, b)}."
            ),
        )
    if a._data.size == 0 or b._data.size == 0:
        # Nothing to compute (no matrices, no rows or columns, or k = 0: zeros): PyTorch's
        # kernel returns before its dtype checks, in mat2's dtype.
        if (a._data.dtype != b._data.dtype and _grad_state.enabled
                and b._data.dtype.kind != "f" and (a._requires_grad or b._requires_grad)):
            raise RuntimeError(f"Autograd not support dtype: {_scalar_name(b)}")
        return
    if a._data.dtype != b._data.dtype:
        raise _fail(
            f"expected scalar type {_scalar_name(a)} but found {_scalar_name(b)}", _DTYPE_HINT
        )
    _check_bool(a, "bmm")


def _broadcast_batch(operands: tuple, batch1: tuple, batch2: tuple) -> tuple:
    """The broadcast of two batch shapes, with PyTorch's error when they do not broadcast."""
    n = max(len(batch1), len(batch2))
    padded1 = (1,) * (n - len(batch1)) + tuple(batch1)
    padded2 = (1,) * (n - len(batch2)) + tuple(batch2)
    out = []
    for i, (x, y) in enumerate(zip(padded1, padded2)):
        if x != y and x != 1 and y != 1:
            raise _fail(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}",
                f"matmul of shapes {_shapes(*operands)}: the batch dimensions {list(batch1)} and "
                f"{list(batch2)} (all but the last two) must broadcast.",
            )
        out.append(y if x == 1 else x)
    return tuple(out)


def _require_tensor(x, name: str, position: int, fn: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{python_type_name(x)}" + real_pytorch_hint(x)
        )


# ----------------------------------------------------------------------------------------
# The public functions
# ----------------------------------------------------------------------------------------
@tensor_method()
def dot(input: Tensor, tensor: Tensor = REQUIRED) -> Tensor:
    """Dot product of two 1-D tensors: ``Σ aᵢ·bᵢ``.

    >>> import teachgrad as torch
    >>> torch.dot(torch.tensor([1., 2.]), torch.tensor([3., 4.]))
    tensor(11.)
    """
    if tensor is REQUIRED:  # (x.dot(): PyTorch's words, see _missing_arguments)
        raise missing("dot", dot, input, tensor)
    _require_tensor(input, "input", 1, "dot")
    _require_tensor(tensor, "tensor", 2, "dot")
    _check_dot(input, tensor)
    return DotBackward0.apply(input, tensor)


@tensor_method()
def mv(input: Tensor, vec: Tensor = REQUIRED) -> Tensor:
    """Matrix (n, k) times vector (k) → vector (n).

    >>> import teachgrad as torch
    >>> torch.mv(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([1., 1.]))
    tensor([3., 7.])
    """
    if vec is REQUIRED:  # (x.mv(): PyTorch's words, see _missing_arguments)
        raise missing("mv", mv, input, vec)
    _require_tensor(input, "input", 1, "mv")
    _require_tensor(vec, "vec", 2, "mv")
    _check_mv(input, vec)
    return MvBackward0.apply(input, vec)


@tensor_method()
def mm(input: Tensor, mat2: Tensor = REQUIRED) -> Tensor:
    """Matrix product of two 2-D tensors: (n, k) @ (k, p) → (n, p).

    >>> import teachgrad as torch
    >>> torch.mm(torch.tensor([[1., 2.]]), torch.tensor([[3.], [4.]]))
    tensor([[11.]])
    """
    if mat2 is REQUIRED:  # (x.mm(): PyTorch's words, see _missing_arguments)
        raise missing("mm", mm, input, mat2)
    _require_tensor(input, "input", 1, "mm")
    _require_tensor(mat2, "mat2", 2, "mm")
    _check_mm(input, mat2)
    return MmBackward0.apply(input, mat2)


@tensor_method()
def bmm(input: Tensor, mat2: Tensor = REQUIRED) -> Tensor:
    """A batch of matrix products: (b, n, k) @ (b, k, p) → (b, n, p), no broadcasting."""
    if mat2 is REQUIRED:  # (x.bmm(): PyTorch's words, see _missing_arguments)
        raise missing("bmm", bmm, input, mat2)
    _require_tensor(input, "input", 1, "bmm")
    _require_tensor(mat2, "mat2", 2, "bmm")
    _check_bmm(input, mat2)
    return BmmBackward0.apply(input, mat2)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """PyTorch's choice: fold the bigger operand's batch into a matrix and call mm/mv.

    It folds when the smaller operand (at most 2-D) requires grad, or when the bigger one's
    batch dimensions are laid out contiguously (so the fold is a free view).
    """
    a_larger = a._data.ndim >= b._data.ndim
    big = a._data if a_larger else np.swapaxes(b._data, -1, -2)
    small = b if a_larger else a
    if not (big.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if a._data.ndim == 2:
        return False
    if big.size == 0:
        return True
    sizes, strides = big.shape, big.strides
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(big.ndim - 2))


def _unsafe_view(t: Tensor, shape_: tuple) -> Tensor:
    return UnsafeViewBackward0.apply(t, shape=tuple(shape_))


def _matmul(a: Tensor, b: Tensor, operands: tuple) -> Tensor:
    """PyTorch's ``_matmul_impl``, step for step, with teachgrad's own ops."""
    da, db = a._data.ndim, b._data.ndim
    if da == 1 and db == 1:
        _check_dot(a, b, operands)
        return DotBackward0.apply(a, b)
    if da == 2 and db == 1:
        _check_mv(a, b, operands)
        return MvBackward0.apply(a, b)
    if da == 1 and db == 2:  # a row vector times a matrix, then drop the row dimension
        row = shape.unsqueeze(a, 0)
        _check_mm(row, b, operands)
        out = SqueezeBackward4.apply(MmBackward0.apply(row, b), dim=0)
        out._vc[0] = 1  # (PyTorch's squeeze_: in place, so the result is at version 1)
        return out
    if da == 2 and db == 2:
        _check_mm(a, b, operands)
        return MmBackward0.apply(a, b)

    if _should_fold(a, b):
        # (..., n, k) @ (k, p): one big (N, k) @ (k, p) product instead of a batch of small
        # ones. For 2-D @ N-D, transpose both sides first: (Bᵀ @ Aᵀ)ᵀ = A @ B.
        transpose = db > da
        big = shape.transpose(b, -1, -2) if transpose else a
        small = (shape.t(a) if da == 2 else a) if transpose else b
        out_shape = big._data.shape[:-1]
        folded = shape.reshape(big, (math.prod(out_shape), big._data.shape[-1]))
        if small._data.ndim == 2:
            _check_mm(folded, small, operands)
            out = _unsafe_view(MmBackward0.apply(folded, small),
                               out_shape + (small._data.shape[1],))
            return contiguous(shape.transpose(out, -1, -2)) if transpose else out
        _check_mv(folded, small, operands)
        return _unsafe_view(MvBackward0.apply(folded, small), out_shape)

    # Batched: broadcast the batch dimensions, flatten them into one, and call bmm.
    n = a._data.shape[-2] if da > 1 else 1
    m1 = a._data.shape[-1]
    batch1 = a._data.shape[: max(da - 2, 0)]
    m2 = b._data.shape[-2] if db > 1 else b._data.shape[0]
    p = b._data.shape[-1] if db > 1 else 1
    batch2 = b._data.shape[: max(db - 2, 0)]
    if da == 3 and db == 3 and batch1[0] != batch2[0]:
        # A batch of one that requires grad: squeeze it (a cheaper gradient than expanding)
        if batch1[0] == 1 and a._requires_grad:
            return _matmul(shape.squeeze(a, 0), b, operands)
        if batch2[0] == 1 and b._requires_grad:
            return _matmul(a, shape.squeeze(b, 0), operands)
    batch = _broadcast_batch(operands, batch1, batch2)
    count = math.prod(batch)
    left = shape.reshape(shape.expand(a, batch + (n, m1)), (count, n, m1))
    vector_rhs = db == 1
    right = shape.expand(b, batch + ((m2,) if vector_rhs else (m2, p)))
    if vector_rhs:
        right = shape.unsqueeze(shape.reshape(right, (count, m2)), 2)
    else:
        right = shape.reshape(right, (count, m2, p))
    out_shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    _check_bmm(left, right, operands)
    out = BmmBackward0.apply(left, right)
    if vector_rhs:
        out = shape.squeeze(out, -1)
    return _unsafe_view(out, out_shape)


@tensor_method()
@checks_types("matmul", "(Tensor other)", function=())  # (the function's own check is right)
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with NumPy's rules for every combination of ranks (the ``@`` operator).

    ==========================  ==============================================
    1-D @ 1-D                   dot product (a 0-d tensor)
    2-D @ 1-D, 1-D @ 2-D        matrix-vector products
    2-D @ 2-D                   matrix product
    N-D @ M-D (N or M > 2)      a batch of matrix products; the dimensions
                                before the last two broadcast
    ==========================  ==============================================

    >>> import teachgrad as torch
    >>> (torch.ones(5, 2, 3) @ torch.ones(3, 4)).shape
    teachgrad.Size([5, 2, 4])
    """
    _require_tensor(input, "input", 1, "matmul")
    _require_tensor(other, "other", 2, "matmul")
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise _fail(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D",
            "to multiply by a number use *, not @.",
        )
    return _matmul(input, other, (input, other))


def _as_operand(x):
    """``tensor @ ndarray`` works (NumPy's arrays become tensors); anything else does not
    (and a tensor of the real PyTorch says why, instead of Python's "unsupported operand")."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        return _make(x)
    if real_pytorch_hint(x):
        _require_tensor(x, "other", 2, "matmul")
    return None


@tensor_method("__matmul__")
def _matmul_operator(self: Tensor, other):
    other = _as_operand(other)
    return NotImplemented if other is None else matmul(self, other)


@tensor_method("__rmatmul__")
def _rmatmul_operator(self: Tensor, other):
    other = _as_operand(other)
    return NotImplemented if other is None else matmul(other, self)


@tensor_method("outer", "ger")
def outer(input: Tensor, vec2: Tensor = REQUIRED) -> Tensor:
    """Outer product of two vectors: ``out[i, j] = input[i] * vec2[j]``.

    PyTorch computes it as ``input.reshape(n, 1) * vec2`` (hence ``MulBackward0`` over a
    ``ViewBackward0``), and so does teachgrad; dtypes promote as for ``*``.

    >>> import teachgrad as torch
    >>> torch.outer(torch.tensor([1., 2.]), torch.tensor([1., 10., 100.]))
    tensor([[  1.,  10., 100.],
            [  2.,  20., 200.]])
    """
    if vec2 is REQUIRED:  # (x.outer(): PyTorch's words, see _missing_arguments)
        raise missing("outer", outer, input, vec2)
    _require_tensor(input, "input", 1, "outer")
    _require_tensor(vec2, "vec2", 2, "outer")
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise _fail(
                f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D",
                f"outer multiplies two vectors; shapes {_shapes(input, vec2)}.",
            )
    return mul(shape.reshape(input, (input._data.shape[0], 1)), vec2)


@tensor_method()
def addmm(input: Tensor, mat1: Tensor = REQUIRED, mat2: Tensor = REQUIRED, *, beta=1,
          alpha=1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the product's shape.

    ``nn.functional.linear(x, w, b)`` on a 2-D ``x`` is ``addmm(b, x, w.t())``.

    >>> import teachgrad as torch
    >>> torch.addmm(torch.tensor([1., 1.]), torch.eye(2), torch.tensor([[1., 2.], [3., 4.]]))
    tensor([[2., 3.],
            [4., 5.]])
    """
    if mat1 is REQUIRED or mat2 is REQUIRED:  # (x.addmm(): PyTorch's words, see _missing_arguments)
        raise missing("addmm", addmm, input, mat1, mat2)
    for position, (name, t) in enumerate((("input", input), ("mat1", mat1), ("mat2", mat2)), 1):
        _require_tensor(t, name, position, "addmm")
    for name, t in (("self", input), ("mat1", mat1)):
        if t._data.dtype != mat2._data.dtype:
            raise _fail(
                f"{name} and mat2 must have the same dtype, but got {_scalar_name(t)} and "
                f"{_scalar_name(mat2)}",
                _DTYPE_HINT,
            )
    _check_mm(mat1, mat2, names=("mat1", "mat2"))
    size = (mat1._data.shape[0], mat2._data.shape[1])
    if input._data.shape != size and not _broadcasts_to(input._data.shape, size):
        shape.expand(input.detach(), size)  # raises PyTorch's error
    return AddmmBackward0.apply(input, mat1, mat2, beta=beta, alpha=alpha)


def _broadcasts_to(shape: tuple, size: tuple) -> bool:
    """Can ``shape`` be expanded to ``size`` (the bias of ``linear``: (n,) to (batch, n))?"""
    return len(shape) <= len(size) and all(
        s == 1 or s == n for s, n in zip(reversed(shape), reversed(size))
    )


@tensor_method()
def matrix_power(input: Tensor, n: int = REQUIRED) -> Tensor:
    """``input @ input @ ... @ input`` (``n`` factors) for a square matrix or a batch of them.

    As in PyTorch: ``n = 0`` gives the identity, ``n = 1`` a copy, and larger powers use
    repeated squaring (``A⁴ = A² @ A²``), so the graph holds few ``MmBackward0`` nodes.
    Negative powers are powers of the inverse: ``A⁻² = (A⁻¹)²``.

    >>> import teachgrad as torch
    >>> torch.tensor([[1., 1.], [0., 1.]]).matrix_power(3)
    tensor([[1., 3.],
            [0., 1.]])
    """
    if n is REQUIRED:  # (x.matrix_power(): PyTorch's words, see _missing_arguments)
        raise missing("matrix_power", matrix_power, input, n)
    shape_ = input._data.shape
    if len(shape_) < 2:
        raise RuntimeError(
            "linalg.matrix_power: The input tensor A must have at least 2 dimensions."
        )
    if shape_[-1] != shape_[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{shape_[-2]} by {shape_[-1]} matrices"
        )
    if n < 0:  # A⁻ⁿ = (A⁻¹)ⁿ, as PyTorch computes it
        from .decompositions import inv

        input, n = inv(input), -n
        if n == 1:  # PyTorch returns the inverse itself (its LinalgInvExBackward0)
            return input
    if n == 0:  # PyTorch copies the identity into a clone: CopyBackwards, zero gradient
        identity = np.broadcast_to(np.eye(shape_[-1], dtype=input._data.dtype), shape_)
        return clone(input).copy_(_make(np.ascontiguousarray(identity)))
    if n == 1:
        return clone(input)
    if n == 2:
        return matmul(input, input)
    if n == 3:
        return matmul(matmul(input, input), input)
    # Repeated squaring, from the lowest bit of n up: z runs through A, A², A⁴, A⁸ ...
    power, result = None, None
    while n > 0:
        bit, n = n % 2, n // 2
        power = input if power is None else matmul(power, power)
        if bit:
            result = power if result is None else matmul(result, power)
    return result


__all__ = ["dot", "mv", "mm", "bmm", "matmul", "outer", "ger", "addmm", "matrix_power"]
ger = outer
