"""Matrix decompositions and solvers: det, inv, solve, cholesky, qr, eigh, svd, pinv, lstsq.

Each is one op named after PyTorch's ``grad_fn`` (``LinalgDetBackward0``,
``LinalgSvdBackward0`` ...). The forward pass calls NumPy's LAPACK routines; the backward
pass is the textbook formula, written with NumPy functions so that it is differentiable
again under ``create_graph=True`` (the ``np.linalg`` functions it calls are routed to the
ops of this module at the bottom of the file). The formulas, for a loss L and ``ḡ = ∂L/∂out``:

===============  ===========================================================================
det              ∂L/∂A = ḡ · det(A) · A⁻ᵀ   (the cofactor matrix, also when A is singular)
inv              ∂L/∂A = −A⁻ᵀ ḡ A⁻ᵀ
solve  AX = B    ∂L/∂B = A⁻ᵀ ḡ,  ∂L/∂A = −(∂L/∂B) Xᵀ
cholesky A = LLᵀ ∂L/∂A = L⁻ᵀ Φ(Lᵀ ḡ) L⁻¹, Φ = lower triangle with half the diagonal, symmetrized
eigh  A = VΛVᵀ   ∂L/∂A = V (diag(ḡΛ) + F ∘ skew(Vᵀ ḡV)) Vᵀ,  Fᵢⱼ = 1 / (λⱼ − λᵢ)
svd   A = USVᵀ   the same idea with Fᵢⱼ = 1 / (sⱼ² − sᵢ²), plus the parts outside U's span
qr    A = QR     ∂L/∂A = (ḡQ + Q copyltu(M)) R⁻ᵀ,  M = R ḡRᵀ − ḡQᵀ Q
===============  ===========================================================================

The eigenvector and singular-vector formulas divide by the gaps between eigenvalues
(singular values): where two are equal the gradient is ``nan`` or ``inf``, as in PyTorch,
unless the loss depends on the values only (``eigvalsh``, ``svdvals``, norms).

Errors follow PyTorch word for word, including ``LinAlgError`` for singular and
non-positive-definite inputs (with the batch element and the LAPACK pivot it reports).
"""

from __future__ import annotations

import numpy as np

from .._package_name import qualified
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _make, python_type_name
from ..autograd.dual_state import needs_derivative
from . import numpy_protocol
from .number_factor import times_number
from .op import Op
from .pointwise import _value
from .reduce import product_of_others
from .shape import cat


class LinAlgError(RuntimeError):
    """A matrix is singular or not positive-definite (``torch.linalg.LinAlgError``).

    It is a ``RuntimeError``, so ``except RuntimeError`` catches it too.
    """


LinAlgError.__module__ = "teachgrad.linalg"


# ----------------------------------------------------------------------------------------
# Named results: (sign, logabsdet), (Q, R), (U, S, Vh) ... as PyTorch's return_types
# ----------------------------------------------------------------------------------------
def named_result(name: str, fields: tuple[str, ...]) -> type:
    """A tuple subclass with named fields, printed like ``torch.return_types.<name>``."""

    def __new__(cls, *values):
        return tuple.__new__(cls, values)

    def __repr__(self) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return qualified(f"return_types.{name}(\n{body})")

    namespace = {"__slots__": (), "__new__": __new__, "__repr__": __repr__, "_fields": fields,
                 "__doc__": f"The result of {name}: a tuple ({', '.join(fields)})."}
    for i, field in enumerate(fields):
        namespace[field] = property(lambda self, i=i: self[i])
    cls = type(name, (tuple,), namespace)
    cls.__module__ = "teachgrad.return_types"
    return cls


SlogdetResult = named_result("linalg_slogdet", ("sign", "logabsdet"))
InvExResult = named_result("linalg_inv_ex", ("inverse", "info"))
SolveExResult = named_result("linalg_solve_ex", ("result", "info"))
CholeskyExResult = named_result("linalg_cholesky_ex", ("L", "info"))
QRResult = named_result("linalg_qr", ("Q", "R"))
EighResult = named_result("linalg_eigh", ("eigenvalues", "eigenvectors"))
SVDResult = named_result("linalg_svd", ("U", "S", "Vh"))
LstsqResult = named_result("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


# ----------------------------------------------------------------------------------------
# PyTorch's checks and error messages
# ----------------------------------------------------------------------------------------
_SCALAR_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                 "bool": "Bool"}


def _scalar_name(t: Tensor) -> str:
    """PyTorch's name of a tensor's dtype in messages: 'Float', 'Double', 'Long' ..."""
    return _SCALAR_NAMES.get(t._data.dtype.name, t._data.dtype.name)


def check_matrix(fn: str, A: Tensor, name: str = "A", *, square: bool = False) -> None:
    """At least 2-D, a float32/float64 tensor and (if ``square``) square: PyTorch's checks."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {python_type_name(A)}"
                        + real_pytorch_hint(A))
    shape = A._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    if square and shape[-1] != shape[-2]:
        raise RuntimeError(
            f"{fn}: {name} must be batches of square matrices, but they are {shape[-2]} by "
            f"{shape[-1]} matrices"
        )
    check_float(fn, A)


def check_float(fn: str, A: Tensor) -> None:
    kind, dtype = A._data.dtype.kind, A._data.dtype.name
    if kind != "f":
        raise RuntimeError(
            f"{fn}: Expected a floating point or complex tensor as input. Got "
            f"{_SCALAR_NAMES.get(dtype, dtype)}\nHint: convert first, e.g. A.double()."
        )
    if dtype == "float16":
        raise RuntimeError(
            f"{fn}: Low precision dtypes not supported. Got Half"
            "\nHint: LAPACK works in float32 or float64; convert first, e.g. A.float()."
        )


def batch_prefix(shape: tuple, index: int) -> str:
    """PyTorch names the failing matrix of a batch: ``(Batch element 1): ``."""
    return f"(Batch element {index}): " if len(shape) > 2 else ""


def _matrices(a: np.ndarray) -> np.ndarray:
    """The matrices of a batch, one after the other: shape (batch, m, n)."""
    return a.reshape((-1,) + a.shape[-2:])


def first_zero_pivot(a: np.ndarray) -> int:
    """What LAPACK's LU (``getrf``) reports for a square matrix: the 1-based position of
    the first exactly-zero pivot, 0 if there is none. Gaussian elimination with partial
    pivoting, as ``getrf`` does; only run to word an error, so speed does not matter."""
    u = np.array(a, dtype=np.float64)
    n = u.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        u[[k, p]] = u[[p, k]]
        u[k + 1:] -= np.outer(u[k + 1:, k] / u[k, k], u[k])
    return 0


def _singular_error(fn: str, a: np.ndarray, sentence) -> LinAlgError:
    """The error for the first singular matrix of a batch (``sentence(pivot)`` words it)."""
    for index, m in enumerate(_matrices(a)):
        pivot = first_zero_pivot(m)
        if pivot:
            return LinAlgError(f"{fn}: {batch_prefix(a.shape, index)}{sentence(pivot)}")
    # LAPACK's blocked LU and this one can round differently; name the last pivot then.
    return LinAlgError(f"{fn}: {sentence(a.shape[-1])}")


def _inv_sentence(pivot: int) -> str:
    return (f"The diagonal element {pivot} is zero, the inversion could not be completed "
            "because the input matrix is singular.")


def leading_minor_order(a: np.ndarray) -> int:
    """The order of the first leading minor that is not positive-definite (0: none).

    This is what LAPACK's Cholesky (``potrf``) reports; here each leading block is tried.
    """
    for k in range(1, a.shape[-1] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
        if not np.isfinite(np.linalg.cholesky(a[:k, :k])).all():
            return k
    return 0


def _cholesky_error(fn: str, a: np.ndarray) -> LinAlgError:
    for index, m in enumerate(_matrices(a)):
        order = leading_minor_order(m)
        if order:
            return LinAlgError(
                f"{fn}: {batch_prefix(a.shape, index)}The factorization could not be completed "
                "because the input is not positive-definite (the leading minor of order "
                f"{order} is not positive-definite)."
            )
    return LinAlgError(f"{fn}: The factorization could not be completed because the input "
                       "is not positive-definite.")


# ----------------------------------------------------------------------------------------
# Small helpers the formulas share (they work on arrays and on tensors alike)
# ----------------------------------------------------------------------------------------
def mT(x):  # noqa: N802 - PyTorch's name for the batched transpose
    """The batched transpose (last two dimensions swapped)."""
    return np.swapaxes(x, -1, -2)


def column_major(a: np.ndarray) -> np.ndarray:
    """The same values laid out as LAPACK leaves them, and PyTorch returns them: each
    matrix column by column (strides ``(1, rows)``), the matrices of a batch one after
    the other. A 2-D result is ``np.asfortranarray(a)``; ``.is_contiguous()`` is then False
    and ``.mT`` is contiguous, as in PyTorch. (One copy of the result, not on a hot path:
    matmul's results stay row-major.)"""
    if a.ndim < 2:
        return a
    return mT(np.ascontiguousarray(mT(a)))


def eye_like(n: int, x) -> np.ndarray:
    """An identity matrix of ``x``'s dtype (a float64 one would promote a float32 gradient)."""
    return np.eye(n, dtype=_value(x).dtype)


def diag_embed(v):
    """A batch of diagonal matrices with ``v`` (..., k) on the diagonal."""
    return np.expand_dims(v, -2) * eye_like(_value(v).shape[-1], v)


def solve_right(A, B):
    """``X`` with ``X A = B``: ``(Aᵀ \\ Bᵀ)ᵀ``."""
    return mT(np.linalg.solve(mT(A), mT(B)))


def _gaps(values, squared: bool = False):
    """``E[i, j] = vⱼ − vᵢ`` (of the squares, for SVD), with 1 on the diagonal.

    The diagonal is never used (it is divided into zero); 1 keeps it finite.
    """
    v = values * values if squared else values
    diff = np.expand_dims(v, -2) - np.expand_dims(v, -1)
    if type(diff) is Tensor:  # under create_graph: PyTorch's in-place fill (CopySlices)
        diff.diagonal(0, -2, -1).fill_(1)
        return diff
    return np.where(np.eye(_value(v).shape[-1], dtype=bool), 1, diff)


# ----------------------------------------------------------------------------------------
# det, slogdet
# ----------------------------------------------------------------------------------------
def cofactor(A):
    """``∂det(A)/∂A``, the cofactor matrix ``det(A)·A⁻ᵀ``, also for singular A.

    For a singular matrix ``A⁻¹`` does not exist, but the cofactors do: with
    ``A = U diag(s) Vᵀ`` they are ``det(U)det(V) · U diag(∏_{j≠i} sⱼ) Vᵀ``.
    """
    a = _value(A)
    if np.all(np.linalg.det(a) != 0):
        return np.expand_dims(np.linalg.det(A), (-1, -2)) * mT(np.linalg.inv(A))
    U, S, Vh = np.linalg.svd(A)
    u, vh = _value(U), _value(Vh)
    sign = (np.linalg.det(u) * np.linalg.det(vh)).astype(a.dtype)  # ±1: a constant
    return np.expand_dims(sign, (-1, -2)) * np.matmul(
        U * np.expand_dims(product_of_others(S, -1), -2), Vh)


def _det_factors(node) -> tuple:
    """PyTorch's det keeps the LU factorization it computed det from; teachgrad's det
    (NumPy's) needs none, so ``grad_fn._saved_LU`` and ``_saved_pivots`` are computed when
    read, from the saved A (reading A also raises PyTorch's error once backward freed it)."""
    from .lu_decomposition import getrf  # (lu_decomposition imports this module)

    LU, pivots, _ = getrf(_value(node._saved_A))
    return column_major(LU), pivots


class LinalgDetBackward0(Op):
    saved_names = ("A", "result")  # grad_fn._saved_...
    saved_attributes = {"LU": lambda node: _make(_det_factors(node)[0]),
                        "pivots": lambda node: _make(_det_factors(node)[1])}
    formula = "∂det(A)/∂A = det(A)·A⁻ᵀ   (the cofactor matrix)"

    @staticmethod
    def forward(ctx, A):
        out = np.asarray(np.linalg.det(A), dtype=A.dtype)
        ctx.save_for_backward(A, out)  # (the result as PyTorch keeps it: changing it in place
        return out                     # before backward is refused there too)

    @staticmethod
    def backward(ctx, grad):
        A, det = ctx.saved_tensors
        if type(grad) is Tensor and _value(A).size:
            if A.shape[-1] == 1:  # det of a 1×1 matrix is its entry: the slope is 1
                return grad.unsqueeze(-1).unsqueeze(-1).expand(*A.shape)
            if np.all(np.asarray(_value(det)) != 0):
                return _det_gradient_recorded(grad, det, A)
        return np.expand_dims(grad, (-1, -2)) * cofactor(A)


def _det_gradient_recorded(grad: Tensor, det: Tensor, A: Tensor) -> Tensor:
    """det's gradient under create_graph for an invertible A, as PyTorch's
    linalg_det_backward records it: ``solve(Aᴴ, diag_embed(grad·det)ᵀ)``, which is
    ``grad·det·A⁻ᵀ`` (through det's own output, so the graph leads back to this node)."""
    from .view_scatter import diag_embed as recorded_diag_embed

    diagonal = (grad * det).unsqueeze(-1).expand(*A.shape[:-1])
    return solve(A.mH, recorded_diag_embed(diagonal).mT)


def _slogdet_gradient_recorded(grad: Tensor, A: Tensor) -> Tensor:
    """log|det A|'s gradient under create_graph for an invertible A, as PyTorch's
    slogdet_backward records it: ``solve(Aᴴ, diag_embed(grad)ᵀ)``, which is ``grad·A⁻ᵀ``."""
    from .view_scatter import diag_embed as recorded_diag_embed

    diagonal = grad.unsqueeze(-1).expand(*A.shape[:-1])
    return solve(A.mH, recorded_diag_embed(diagonal).mT)


class LinalgSlogdetBackward0(Op):
    formula = "∂log|det A|/∂A = A⁻ᵀ    (the sign has no gradient)"
    materialize_grads = False

    @staticmethod
    def forward(ctx, A):
        sign, logabsdet = np.linalg.slogdet(A)
        sign = np.asarray(sign, dtype=A.dtype)
        logabsdet = np.asarray(logabsdet, dtype=A.dtype)
        ctx.save_for_backward(A)
        return sign, logabsdet

    @staticmethod
    def backward(ctx, grad_sign, grad_logabsdet):
        if grad_logabsdet is None:
            return None
        (A,) = ctx.saved_tensors
        a = _value(A)
        if np.all(np.linalg.det(a) != 0):
            if type(grad_logabsdet) is Tensor:  # create_graph: PyTorch's slogdet_backward
                return _slogdet_gradient_recorded(grad_logabsdet, A)
            return np.expand_dims(grad_logabsdet, (-1, -2)) * mT(np.linalg.inv(A))
        # Singular: log|det| is -inf there and its gradient infinite; LAPACK's
        # substitution gives ±inf in the cofactor pattern, as PyTorch shows.
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.expand_dims(grad_logabsdet, (-1, -2)) * cofactor(A) / np.expand_dims(
                np.linalg.det(A), (-1, -2))


def det(A: Tensor) -> Tensor:
    """The determinant of a square matrix (or of each matrix in a batch).

    >>> import teachgrad as torch
    >>> torch.linalg.det(torch.tensor([[1., 2.], [3., 4.]]))
    tensor(-2.)
    """
    check_matrix("linalg.det", A, square=True)
    return LinalgDetBackward0.apply(A)


def slogdet(A: Tensor) -> tuple:
    """``(sign, logabsdet)``: the determinant is ``sign * exp(logabsdet)``, without overflow.

    A singular matrix gives ``(0, -inf)``.

    >>> import teachgrad as torch
    >>> torch.linalg.slogdet(torch.tensor([[2., 0.], [0., -3.]])).sign
    tensor(-1.)
    """
    check_matrix("linalg.slogdet", A, square=True)
    return SlogdetResult(*LinalgSlogdetBackward0.apply(A))


# ----------------------------------------------------------------------------------------
# inv, solve, solve_triangular
# ----------------------------------------------------------------------------------------
def _inverse(a: np.ndarray, fn: str) -> np.ndarray:
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise _singular_error(fn, a, _inv_sentence) from None


class LinalgInvExBackward0(Op):
    saved_names = ("inverse",)  # grad_fn._saved_...
    formula = "∂(A⁻¹)/∂A: ḡ ↦ −A⁻ᵀ ḡ A⁻ᵀ"
    materialize_grads = False

    @staticmethod
    def forward(ctx, A, check_errors=True):
        if check_errors:
            inverse, info = _inverse(A, "linalg.inv"), np.zeros(A.shape[:-2], np.int32)
        else:
            inverse, info = _inverse_ex(A)
        inverse = column_major(inverse)
        ctx.save_for_backward(inverse)
        return inverse, info

    @staticmethod
    def backward(ctx, grad, grad_info=None):
        (inverse,) = ctx.saved_tensors
        if type(grad) is Tensor:  # create_graph: PyTorch takes inverse.mH() twice (two nodes)
            return -np.matmul(mT(inverse), np.matmul(grad, mT(inverse)))
        inverse_t = mT(inverse)
        return -np.matmul(inverse_t, np.matmul(grad, inverse_t))


def _inverse_ex(a: np.ndarray) -> tuple:
    """The inverses of those matrices that have one; NaN and LAPACK's pivot for the others."""
    matrices = _matrices(a)
    inverse = np.empty_like(matrices)
    info = np.zeros(len(matrices), np.int32)
    for i, m in enumerate(matrices):
        info[i] = first_zero_pivot(m) if m.size else 0
        inverse[i] = np.nan if info[i] else np.linalg.inv(m)
    return inverse.reshape(a.shape), info.reshape(a.shape[:-2])


def inv(A: Tensor) -> Tensor:
    """The inverse of a square matrix (or of each matrix in a batch).

    A singular matrix raises :class:`LinAlgError`, naming LAPACK's zero pivot.

    >>> import teachgrad as torch
    >>> torch.linalg.inv(torch.tensor([[2., 0.], [0., 4.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    check_matrix("linalg.inv", A, square=True)
    return LinalgInvExBackward0.apply(A, check_errors=True)[0]


def inv_ex(A: Tensor, *, check_errors: bool = False) -> tuple:
    """``(inverse, info)``: ``info`` is 0 where the matrix is invertible, else LAPACK's pivot.

    Unless ``check_errors``, a singular matrix does not raise: its inverse is NaN here.
    """
    check_matrix("linalg.inv", A, square=True)  # (PyTorch's messages say inv)
    if check_errors:  # PyTorch names the function the user called
        _inverse(A._data, "linalg.inv_ex")
    return InvExResult(*LinalgInvExBackward0.apply(A, check_errors=False))


def is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    """PyTorch's rule: B is a vector (or a batch of vectors) if it is 1-D, or if it has
    one dimension fewer than A and its shape is A's without the last dimension."""
    a, b = A._data.shape, B._data.shape
    return len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1])


def _broadcast_batches(a_shape: tuple, b_shape: tuple) -> tuple:
    """The broadcast of two batch shapes, with PyTorch's error when they do not match."""
    n = max(len(a_shape), len(b_shape))
    pa, pb = (1,) * (n - len(a_shape)) + a_shape, (1,) * (n - len(b_shape)) + b_shape
    out = []
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )
        out.append(max(x, y) if min(x, y) != 0 else 0)
    return tuple(out)


def _solve(a: np.ndarray, b: np.ndarray, fn: str) -> np.ndarray:
    """``A X = B`` for matrices B, broadcasting the batch dimensions."""
    batch = _broadcast_batches(b.shape[:-2], a.shape[:-2])  # (PyTorch's order, B first)
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise _singular_error(
            fn, a, lambda _: "The solver failed because the input matrix is singular."
        ) from None


class LinalgSolveExBackward0(Op):
    # grad_fn._saved_... as PyTorch's (which keeps A's LU factors too: teachgrad solves again)
    saved_names = ("A", "result")
    saved_attributes = {"left": "left"}
    formula = "AX = B:  ∂L/∂B = A⁻ᵀ ḡ    ∂L/∂A = −(∂L/∂B) Xᵀ"
    materialize_grads = False

    @staticmethod
    def forward(ctx, A, B, left, vector):
        ctx.left, ctx.vector = left, vector
        b = np.expand_dims(B, -1) if vector else B
        if left:
            X = _solve(A, b, "torch.linalg.solve")
        else:  # X A = B  ⇔  Aᵀ Xᵀ = Bᵀ (so X is the transpose of a column-major result)
            X = mT(column_major(_solve(mT(A), mT(b), "torch.linalg.solve")))
        if vector:
            X = X[..., 0]
        if left:  # (a batch of vectors is laid out as the columns of a matrix, as in PyTorch)
            X = column_major(X)
        ctx.save_for_backward(A, X)
        return X, np.zeros(X.shape[:-1] if vector else X.shape[:-2], np.int32)

    @staticmethod
    def backward(ctx, grad, grad_info=None):
        A, X = ctx.saved_tensors
        need_A, need_B = ctx.needs_input_grad
        if ctx.vector:
            grad, X = np.expand_dims(grad, -1), np.expand_dims(X, -1)
        if ctx.left:  # X = A⁻¹B:  gB = A⁻ᵀ g,  gA = −gB Xᵀ
            grad_B = np.linalg.solve(mT(A), grad)
            grad_A = -np.matmul(grad_B, mT(X)) if need_A else None
        else:  # X = B A⁻¹:  gB = g A⁻ᵀ,  gA = −Xᵀ gB
            # (under create_graph PyTorch's linalg_solve(Aᴴ, ḡ, left=False): one node)
            grad_B = (solve(mT(A), grad, left=False) if type(grad) is Tensor
                      else solve_right(mT(A), grad))
            grad_A = -np.matmul(mT(X), grad_B) if need_A else None
        if ctx.vector:  # (a squeeze, as PyTorch's matrix_to_vector, under create_graph)
            grad_B = grad_B.squeeze(-1) if type(grad_B) is Tensor else grad_B[..., 0]
        return grad_A, grad_B if need_B else None


def _check_solve(fn: str, A: Tensor, B: Tensor, left: bool) -> bool:
    """PyTorch's checks, in its order: the types, A's dtype, the same dtype for B, then the
    shapes (so solve(x, y) of two int64 vectors names the dtype first)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{fn}(): argument 'A' must be Tensor, not {python_type_name(A)}"
                        + real_pytorch_hint(A))
    if not isinstance(B, Tensor):
        raise TypeError(f"{fn}(): argument 'B' must be Tensor, not {python_type_name(B)}"
                        + real_pytorch_hint(B))
    check_float(fn, A)
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(
            f"{fn}: Expected A and B to have the same dtype, but found A of type "
            f"{_SCALAR_NAMES[A._data.dtype.name]} and B of type "
            f"{_SCALAR_NAMES.get(B._data.dtype.name, B._data.dtype.name)} instead"
            "\nHint: convert one of them, e.g. B.to(A.dtype)."
        )
    check_matrix(fn, A, square=True)
    vector = is_vector_rhs(A, B) and left
    n = A._data.shape[-1]
    b = B._data.shape
    if not vector and len(b) < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    rows = b[-1] if vector else (b[-2] if left else b[-1])
    if rows != n:
        shape_b = f"{b[-1]}x1" if vector else f"{b[-2]}x{b[-1]}"
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{fn}: Incompatible shapes of A and B for the equation {equation} ({n}x{n} and "
            f"{shape_b})"
        )
    return vector


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """The solution X of ``A X = B`` (``X A = B`` if ``left=False``), A square and invertible.

    B may be a vector (or a batch of vectors, shape ``A.shape[:-1]``) or a matrix; batch
    dimensions broadcast. Faster and more accurate than ``inv(A) @ B``.

    >>> import teachgrad as torch
    >>> torch.linalg.solve(torch.tensor([[2., 0.], [0., 4.]]), torch.tensor([2., 2.]))
    tensor([1.0000, 0.5000])
    """
    vector = _check_solve("linalg.solve", A, B, left)
    return LinalgSolveExBackward0.apply(A, B, left=left, vector=vector)[0]


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> tuple:
    """``(result, info)``; here a singular A always raises (``info`` is then all zeros)."""
    vector = _check_solve("linalg.solve", A, B, left)  # (PyTorch's messages say solve)
    return SolveExResult(*LinalgSolveExBackward0.apply(A, B, left=left, vector=vector))


def triangle(A, upper: bool, unitriangular: bool):
    """The triangle of A that a triangular solve reads (with ones on the diagonal if unit)."""
    if unitriangular:
        part = np.triu(A, 1) if upper else np.tril(A, -1)
        return part + eye_like(_value(A).shape[-1], A)
    return np.triu(A) if upper else np.tril(A)


class LinalgSolveTriangularBackward0(Op):
    formula = "the gradient of solve, kept to the triangle of A that was read"

    @staticmethod
    def forward(ctx, A, B, upper, left, unitriangular):
        ctx.upper, ctx.left, ctx.unit = upper, left, unitriangular
        # Substitution, row by row, as LAPACK's trtrs: a zero on the diagonal gives
        # inf/nan there (no error), as in PyTorch.
        with np.errstate(divide="ignore", invalid="ignore"):
            X = column_major(_substitute(triangle(A, upper, unitriangular), B, upper, left))
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx, grad):
        A, X = ctx.saved_tensors
        need_A, need_B = ctx.needs_input_grad
        if type(grad) is Tensor:  # create_graph: PyTorch's linalg_solve_triangular_backward
            grad_B = solve_triangular(A.mH, grad, upper=not ctx.upper, left=ctx.left,
                                      unitriangular=ctx.unit)
            grad_A = None
            if need_A:
                grad_A = -grad_B.matmul(X.mH) if ctx.left else -X.mH.matmul(grad_B)
                unit = int(ctx.unit)
                grad_A = grad_A.triu(unit) if ctx.upper else grad_A.tril(-unit)
            return grad_A, grad_B if need_B else None
        T = triangle(A, ctx.upper, ctx.unit)
        if ctx.left:
            grad_B = np.linalg.solve(mT(T), grad)
            grad_A = -np.matmul(grad_B, mT(X)) if need_A else None
        else:
            grad_B = solve_right(mT(T), grad)
            grad_A = -np.matmul(mT(X), grad_B) if need_A else None
        if grad_A is not None:  # only the triangle that was read has a gradient
            grad_A = np.triu(grad_A, 1 if ctx.unit else 0) if ctx.upper else np.tril(
                grad_A, -1 if ctx.unit else 0)
        return grad_A, grad_B if need_B else None


def _substitute(T: np.ndarray, B: np.ndarray, upper: bool, left: bool) -> np.ndarray:
    """Back (or forward) substitution, row by row: what LAPACK does, inf/nan and all."""
    if not left:  # X T = B  ⇔  Tᵀ Xᵀ = Bᵀ, and Tᵀ is the other triangle
        return mT(_substitute(mT(T), mT(B), not upper, True))
    batch = _broadcast_batches(T.shape[:-2], B.shape[:-2])
    T = np.broadcast_to(T, batch + T.shape[-2:])
    X = np.array(np.broadcast_to(B, batch + B.shape[-2:]), dtype=np.result_type(T, B))
    n = T.shape[-1]
    for i in (range(n - 1, -1, -1) if upper else range(n)):
        known = slice(i + 1, n) if upper else slice(0, i)
        X[..., i, :] -= np.einsum("...k,...kj->...j", T[..., i, known], X[..., known, :])
        X[..., i, :] /= T[..., i, i:i + 1]
    return X


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    """Solve ``A X = B`` (``X A = B`` if not ``left``) reading only one triangle of A.

    ``upper`` says which one; ``unitriangular`` takes the diagonal to be ones. B must be
    a matrix (not a vector), as in PyTorch.
    """
    check_matrix("linalg.solve_triangular", A, square=True)
    if B._data.ndim < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    _check_solve("linalg.solve_triangular", A, B, left)
    return LinalgSolveTriangularBackward0.apply(A, B, upper=bool(upper), left=bool(left),
                                                unitriangular=bool(unitriangular))


# ----------------------------------------------------------------------------------------
# cholesky, cholesky_solve, cholesky_inverse
# ----------------------------------------------------------------------------------------
def cholesky_backward(grad, L, upper: bool):
    """``∂L/∂A`` for ``A = L Lᵀ`` (Iain Murray, 2016): ``L⁻ᵀ Φ(Lᵀ ḡ) L⁻¹``, symmetric."""
    if upper:
        L, grad = mT(L), mT(grad)
    if type(grad) is Tensor:  # create_graph: PyTorch's cholesky_backward, node for node
        P = L.mH.matmul(grad).tril()
        P = times_number(P + P.tril(-1).mH, 0.5)
        P = solve_triangular(L.mH, P, upper=True, left=True)
        return solve_triangular(L, P, upper=False, left=False)
    P = np.tril(np.matmul(mT(L), grad))
    P = 0.5 * (P + mT(np.tril(P, -1)))  # the symmetric matrix with P's lower triangle, ½
    return solve_right(L, np.linalg.solve(mT(L), P))


class LinalgCholeskyExBackward0(Op):
    formula = "A = LLᵀ:  ∂L/∂A = L⁻ᵀ Φ(Lᵀ ḡ) L⁻¹   (Φ: lower triangle, half diagonal)"
    materialize_grads = False

    @staticmethod
    def forward(ctx, A, upper, check_errors, fn="linalg.cholesky"):
        ctx.upper = upper
        if check_errors:
            try:
                L = np.linalg.cholesky(A)
            except np.linalg.LinAlgError:
                raise _cholesky_error(fn, A) from None
            info = np.zeros(A.shape[:-2], np.int32)
        else:
            L, info = _cholesky_ex(A)
        L = column_major(mT(L) if upper else L)
        ctx.save_for_backward(L)
        return L, info

    @staticmethod
    def backward(ctx, grad, grad_info=None):
        (L,) = ctx.saved_tensors
        return cholesky_backward(grad, L, ctx.upper)


def _cholesky_ex(a: np.ndarray) -> tuple:
    matrices = _matrices(a)
    out = np.empty_like(matrices)
    info = np.zeros(len(matrices), np.int32)
    for i, m in enumerate(matrices):
        info[i] = leading_minor_order(m) if m.size else 0
        out[i] = np.nan if info[i] else np.linalg.cholesky(m)
    return out.reshape(a.shape), info.reshape(a.shape[:-2])


class CholeskyBackward0(LinalgCholeskyExBackward0):
    """The deprecated ``torch.cholesky``: the same factorization and formula."""
    saved_names = ("result",)  # grad_fn._saved_...

    materialize_grads = True

    @staticmethod
    def forward(ctx, A, upper):
        return LinalgCholeskyExBackward0.forward(ctx, A, upper, True, "cholesky")[0]

    @staticmethod
    def backward(ctx, grad):
        (L,) = ctx.saved_tensors
        return cholesky_backward(grad, L, ctx.upper)


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor L of a symmetric positive-definite A: ``A = L Lᵀ``.

    Only the lower triangle of A is read. ``upper=True`` returns ``U = Lᵀ`` (``A = Uᵀ U``).
    A matrix that is not positive-definite raises :class:`LinAlgError`.

    >>> import teachgrad as torch
    >>> torch.linalg.cholesky(torch.tensor([[4., 2.], [2., 2.]]))
    tensor([[2., 0.],
            [1., 1.]])
    """
    check_matrix("linalg.cholesky", A, square=True)
    return LinalgCholeskyExBackward0.apply(A, upper=bool(upper), check_errors=True)[0]


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> tuple:
    """``(L, info)``: ``info`` is the order of the first leading minor that is not
    positive-definite (0 if none); unless ``check_errors`` that L is NaN and nothing raises."""
    check_matrix("linalg.cholesky", A, square=True)  # (PyTorch's messages say cholesky)
    return CholeskyExResult(*LinalgCholeskyExBackward0.apply(
        A, upper=bool(upper), check_errors=bool(check_errors), fn="linalg.cholesky_ex"))


def _gram(L, upper: bool):
    """``A = L Lᵀ`` (``Uᵀ U`` if upper) from its Cholesky factor."""
    return np.matmul(mT(L), L) if upper else np.matmul(L, mT(L))


def _triangle(L: np.ndarray, upper: bool) -> np.ndarray:
    """The triangle of a Cholesky factor LAPACK reads (the other may hold anything)."""
    return np.triu(L) if upper else np.tril(L)


class CholeskySolveBackward0(Op):
    # grad_fn._saved_... as PyTorch's (which keeps B too, as _saved_self; its formula does
    # not need it)
    saved_names = ("input2", "result")
    saved_attributes = {"upper": "upper"}
    formula = "X = (LLᵀ)⁻¹B:  ∂L/∂B = (LLᵀ)⁻¹ḡ    ∂L/∂L = −(G + Gᵀ) L,  G = (∂L/∂B) Xᵀ"

    @staticmethod
    def forward(ctx, B, L, upper):
        ctx.upper = upper
        # Only L's triangle is read, as by LAPACK's potrs (and cholesky_inverse); the
        # gradient in L, PyTorch's formula, uses the whole of L.
        X = column_major(_solve(_gram(_triangle(L, upper), upper), B, "cholesky_solve"))
        ctx.save_for_backward(L, X)
        return X

    @staticmethod
    def backward(ctx, grad):
        L, X = ctx.saved_tensors
        need_B, need_L = ctx.needs_input_grad
        if type(grad) is Tensor:  # PyTorch's formula: ḡ.cholesky_solve(L), this op again
            grad_B = CholeskySolveBackward0.apply(grad, L, upper=ctx.upper)
        else:
            grad_B = np.linalg.solve(_gram(_triangle(L, ctx.upper), ctx.upper), grad)
        grad_L = None
        if need_L:
            common = np.matmul(grad_B, mT(X))
            common = common + mT(common)
            grad_L = -np.matmul(L, common) if ctx.upper else -np.matmul(common, L)
        return grad_B if need_B else None, grad_L


class CholeskyInverseBackward0(Op):
    formula = "X = (LLᵀ)⁻¹:  ∂L/∂L = −X (ḡ + ḡᵀ) X L"

    @staticmethod
    def forward(ctx, L, upper):
        ctx.upper = upper
        # Only L's triangle is read (the other one may hold anything, as LAPACK's potri
        # ignores it); the backward formula, PyTorch's, uses the whole of L.
        X = column_major(_inverse(_gram(_triangle(L, upper), upper), "cholesky_inverse"))
        ctx.save_for_backward(L, X)
        return X

    @staticmethod
    def backward(ctx, grad):
        L, X = ctx.saved_tensors
        common = np.matmul(X, np.matmul(grad + mT(grad), X))
        return -np.matmul(L, common) if ctx.upper else -np.matmul(common, L)


# ----------------------------------------------------------------------------------------
# qr
# ----------------------------------------------------------------------------------------
_QR_MODES = ("reduced", "complete", "r")


class LinalgQrBackward0(Op):
    saved_names = ("Q", "R")  # grad_fn._saved_... as PyTorch's
    saved_attributes = {"mode": "mode"}
    formula = "A = QR:  ∂L/∂A = (ḡQ + Q copyltu(M)) R⁻ᵀ,  M = R ḡRᵀ − ḡQᵀ Q"
    materialize_grads = False

    @staticmethod
    def forward(ctx, A, mode):
        ctx.mode = mode
        if mode == "r":
            R = np.linalg.qr(A, mode="r")
            Q = np.empty((0,), A.dtype)
        else:
            Q, R = np.linalg.qr(A, mode=mode)
        Q, R = column_major(Q), column_major(R)
        ctx.save_for_backward(Q, R)
        return Q, R

    @staticmethod
    def backward(ctx, grad_Q, grad_R):
        if ctx.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                "through linalg.qr."
            )
        Q, R = ctx.saved_tensors
        m, n = _value(Q).shape[-2], _value(R).shape[-1]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > "
                "ncols."
            )
        return qr_backward(grad_Q, grad_R, Q, R)


def qr_backward(grad_Q, grad_R, Q, R):
    """``∂L/∂A`` for ``A = QR`` (reduced, real), from the gradients of Q and R.

    For a tall or square A (m ≥ n): ``(ḡQ + Q copyltu(M)) R⁻ᵀ`` with ``M = R ḡRᵀ − ḡQᵀ Q``,
    where copyltu(M) is the symmetric matrix with M's upper triangle. A wide A = [X | Y]
    is reduced to that case: X = Q U is a square QR, and Y = Q V adds ``Y ḡVᵀ`` to ḡQ.
    """
    m, n = _value(Q).shape[-2], _value(R).shape[-1]
    if grad_Q is None and grad_R is None:
        return None
    if m < n and type(grad_R if grad_Q is None else grad_Q) is Tensor:
        return _qr_wide_gradient_recorded(grad_Q, grad_R, Q, R)
    if m < n:
        Y = np.matmul(Q, R[..., :, m:])  # A's right part (A = QR, so Y = QV)
        grad_U = grad_R[..., :, :m] if grad_R is not None else None
        grad_V = grad_R[..., :, m:] if grad_R is not None else None
        if grad_V is not None:
            extra = np.matmul(Y, mT(grad_V))
            grad_Q = extra if grad_Q is None else grad_Q + extra
        grad_X = qr_backward(grad_Q, grad_U, Q, R[..., :, :m])
        grad_Y = np.matmul(Q, grad_V) if grad_V is not None else np.zeros_like(Y)
        return np.concatenate([grad_X, grad_Y], axis=-1)
    if type(grad_R if grad_Q is None else grad_Q) is Tensor:
        return _qr_gradient_recorded(grad_Q, grad_R, Q, R)
    if grad_Q is None:
        M = np.matmul(grad_R, mT(R))
    elif grad_R is None:
        M = -np.matmul(mT(Q), grad_Q)
    else:
        M = np.matmul(grad_R, mT(R)) - np.matmul(mT(Q), grad_Q)
    # copyltu: the symmetric matrix with M's upper triangle (diagonal once)
    grad_A = np.matmul(Q, np.triu(M) + mT(np.triu(M, 1)))
    if grad_Q is not None:
        grad_A = grad_A + grad_Q
    try:
        return solve_right(mT(R), grad_A)  # (…) R⁻ᵀ
    except np.linalg.LinAlgError:  # a zero on R's diagonal (A has dependent columns):
        with np.errstate(divide="ignore", invalid="ignore"):  # inf/nan, as PyTorch's trtrs
            return _substitute(mT(R), grad_A, upper=False, left=False)


def _qr_gradient_recorded(grad_Q, grad_R, Q: Tensor, R: Tensor) -> Tensor:
    """qr_backward's formula for m ≥ n under create_graph, as PyTorch's
    linalg_qr_backward records it: M = ḡR Rᴴ − Qᴴ ḡQ; its upper triangle made symmetric
    (X + Xᴴ, the diagonal halved in place: CopySlices); Q times that, plus ḡQ; then a
    triangular solve with Rᴴ from the right."""
    M = grad_R.matmul(R.mH) if grad_R is not None else None
    if grad_Q is not None:
        M = -Q.mH.matmul(grad_Q) if M is None else M - Q.mH.matmul(grad_Q)
    upper = M.triu()
    symmetric = upper + upper.mH
    symmetric.diagonal(0, -2, -1).mul_(0.5)
    grad_A = Q.matmul(symmetric)
    if grad_Q is not None:
        grad_A = grad_A + grad_Q
    return solve_triangular(R.mH, grad_A, upper=False, left=False)


def _qr_wide_gradient_recorded(grad_Q, grad_R, Q: Tensor, R: Tensor) -> Tensor:
    """qr_backward's formula for m < n under create_graph, as PyTorch's
    linalg_qr_backward records it: M as for m ≥ n; Q times the lower triangle of
    −M − (−M)ᴴ; a triangular solve with R's square part from the right; zeros for the
    columns beyond it; plus Q ḡR."""
    m, n = Q.shape[-2], R.shape[-1]
    M = grad_R.matmul(R.mH) if grad_R is not None else None
    if grad_Q is not None:
        M = -Q.mH.matmul(grad_Q) if M is None else M - Q.mH.matmul(grad_Q)
    X = -M
    grad_A = Q.matmul((X - X.mH).tril())
    grad_A = solve_triangular(R.narrow(-1, 0, m).mH, grad_A, upper=False, left=False)
    zeros = _make(np.zeros(R.shape[:-1] + (n - m,), _value(grad_A).dtype))
    grad_A = cat([grad_A, zeros], -1)
    if grad_R is not None:
        grad_A = grad_A + Q.matmul(grad_R)
    return grad_A


def qr(A: Tensor, mode: str = "reduced") -> tuple:
    """``(Q, R)`` with ``A = Q R``, Q with orthonormal columns and R upper triangular.

    ``mode``: ``'reduced'`` (Q is m×k, k = min(m, n)), ``'complete'`` (Q is m×m) or
    ``'r'`` (R only; Q is empty). Signs follow LAPACK (R's diagonal may be negative).
    """
    if mode not in _QR_MODES:
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    check_matrix("linalg.qr", A)
    return QRResult(*LinalgQrBackward0.apply(A, mode=mode))


# ----------------------------------------------------------------------------------------
# eigh, eigvalsh
# ----------------------------------------------------------------------------------------
class LinalgEighBackward0(Op):
    saved_names = ("eigenvalues", "eigenvectors")  # grad_fn._saved_... as PyTorch's
    formula = "A = VΛVᵀ:  ∂L/∂A = V (diag(ḡΛ) + skew(Vᵀ ḡV) / (λⱼ − λᵢ)) Vᵀ"
    materialize_grads = False

    @staticmethod
    def forward(ctx, A, UPLO, eigenvectors=True):  # noqa: N803 - PyTorch's name
        if not eigenvectors:
            return np.linalg.eigvalsh(A, UPLO=UPLO)
        values, vectors = np.linalg.eigh(A, UPLO=UPLO)
        vectors = column_major(vectors)
        ctx.save_for_backward(values, vectors)
        return values, vectors

    @staticmethod
    def backward(ctx, grad_values, grad_vectors):
        values, V = ctx.saved_tensors
        if grad_vectors is None:  # only the eigenvalues are used: no gaps, always defined
            return np.matmul(V * np.expand_dims(grad_values, -2), mT(V))
        if type(grad_vectors) is Tensor:
            return _eigh_gradient_recorded(grad_values, grad_vectors, values, V)
        VtgV = np.matmul(mT(V), grad_vectors)
        inner = 0.5 * (VtgV - mT(VtgV)) / _gaps(values)  # symmetric; zero diagonal
        if grad_values is not None:
            inner = inner + diag_embed(grad_values)
        return np.matmul(V, np.matmul(inner, mT(V)))


def _eigh_gradient_recorded(grad_values, grad_vectors: Tensor, values: Tensor,
                            V: Tensor) -> Tensor:
    """eigh's gradient under create_graph, as PyTorch's linalg_eig_backward records it:
    Vᴴ ḡV made skew (0.5 · (X − Xᴴ), a tensor-times-number), divided in place by the gaps;
    ḡΛ copied onto the diagonal in place (CopySlices); then V (…) Vᴴ."""
    VhgV = V.mH.matmul(grad_vectors)
    inner = times_number(VhgV - VhgV.mH, 0.5).div_(_gaps(values))
    if grad_values is not None:
        inner.diagonal(0, -2, -1).copy_(grad_values)
    return V.matmul(inner.matmul(V.mH))


def _check_uplo(UPLO: str) -> None:  # noqa: N803
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A: Tensor, UPLO: str = "L") -> tuple:  # noqa: N803 - PyTorch's name
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix.

    Only the triangle ``UPLO`` (``'L'`` lower, ``'U'`` upper) is read. Each eigenvector is
    determined up to its sign (and repeated eigenvalues share a whole subspace), so a loss
    should not depend on those choices; the gradient is ``nan`` or ``inf`` where two
    eigenvalues coincide and the eigenvectors are used.

    >>> import teachgrad as torch
    >>> torch.linalg.eigh(torch.tensor([[2., 0.], [0., 1.]])).eigenvalues
    tensor([1., 2.])
    """
    _check_uplo(UPLO)
    check_matrix("linalg.eigh", A, square=True)
    return EighResult(*LinalgEighBackward0.apply(A, UPLO=UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    """The eigenvalues of a symmetric matrix, ascending (``eigh`` without the vectors)."""
    _check_uplo(UPLO)
    check_matrix("linalg.eigh", A, square=True)  # (PyTorch's messages say eigh)
    if needs_derivative(A):  # the gradient needs the eigenvectors: PyTorch computes them too
        return LinalgEighBackward0.apply(A, UPLO=UPLO)[0]
    return LinalgEighBackward0.apply(A, UPLO=UPLO, eigenvectors=False)


def eig(A: Tensor) -> tuple:
    """Not available: the eigenvalues of a general real matrix can be complex, and
    teachgrad has no complex dtype."""
    raise NotImplementedError(
        "linalg.eig returns complex eigenvalues and eigenvectors (a real matrix can have "
        "complex ones), and teachgrad has no complex dtypes. For a symmetric matrix use "
        "linalg.eigh, whose results are real."
    )


def eigvals(A: Tensor) -> Tensor:
    """Not available, for the same reason as :func:`eig` (complex results)."""
    raise NotImplementedError(
        "linalg.eigvals returns complex eigenvalues (a real matrix can have complex ones), "
        "and teachgrad has no complex dtypes. For a symmetric matrix use linalg.eigvalsh."
    )


# ----------------------------------------------------------------------------------------
# svd, svdvals
# ----------------------------------------------------------------------------------------
class LinalgSvdBackward0(Op):
    saved_names = ("U", "S", "Vh")  # grad_fn._saved_... as PyTorch's
    saved_attributes = {"full_matrices": "full"}
    formula = "A = USVᵀ:  ∂L/∂A = U (diag(ḡS) + F∘(skew(Uᵀ ḡU) S + S skew(Vᵀ ḡV))) Vᵀ + …"
    materialize_grads = False

    @staticmethod
    def forward(ctx, A, full_matrices, compute_uv=True):
        if not compute_uv:
            return np.linalg.svd(A, compute_uv=False)
        U, S, Vh = np.linalg.svd(A, full_matrices=full_matrices)
        U, Vh = column_major(U), column_major(Vh)
        ctx.full = full_matrices
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx, grad_U, grad_S, grad_Vh):
        U, S, Vh = ctx.saved_tensors
        return svd_backward(grad_U, grad_S, grad_Vh, U, S, Vh, ctx.full)


def _narrow(x, dim: int, length: int):
    """The first ``length`` entries along ``dim`` (``narrow``, a SliceBackward0 on a tensor
    even when nothing is cut, as PyTorch's formulas record it)."""
    if x is None:
        return None
    if type(x) is Tensor:
        return x.narrow(dim, 0, length)
    return np.moveaxis(np.moveaxis(x, dim, 0)[:length], 0, dim)


def svd_backward(gU, gS, gVh, U, S, Vh, full_matrices: bool):
    """PyTorch's ``svd_backward`` for real matrices, in its order of operations (so that
    the graph recorded under create_graph is PyTorch's).

    With ``full_matrices`` only the first k = min(m, n) singular vectors enter the
    gradient: the others are an arbitrary basis of the complement, so a loss that uses
    them has no well-defined gradient (PyTorch ignores them too).
    """
    m, n = _value(U).shape[-2], _value(Vh).shape[-1]
    if full_matrices:
        k = _value(S).shape[-1]
        gU, gVh = _narrow(gU, -1, k), _narrow(gVh, -2, k)
        U, Vh = _narrow(U, -1, k), _narrow(Vh, -2, k)
    if gU is None and gVh is None:
        if gS is None:
            return None
        if m >= n:  # U diag(ḡS) Vᵀ
            return np.matmul(U, np.expand_dims(gS, -1) * Vh)
        return np.matmul(U * np.expand_dims(gS, -2), Vh)
    UhgU = _skew(np.matmul(mT(U), gU)) if gU is not None else None
    VhgV = _skew(np.matmul(Vh, mT(gVh))) if gVh is not None else None
    E = _gaps(S, squared=True)
    if gU is not None and gVh is not None:
        gA = (UhgU * np.expand_dims(S, -2) + np.expand_dims(S, -1) * VhgV) / E
    elif gU is not None:
        gA = (UhgU / E) * np.expand_dims(S, -2)
    else:
        gA = np.expand_dims(S, -1) * (VhgV / E)
    if gS is not None:
        gA = gA + diag_embed(gS)
    if m > n and gU is not None:  # the part of ḡU outside U's columns
        gA = np.matmul(U, gA)
        gUSinv = gU / np.expand_dims(S, -2)
        gA = gA + gUSinv - np.matmul(U, np.matmul(mT(U), gUSinv))
        return np.matmul(gA, Vh)
    if m < n and gVh is not None:  # the part of ḡVh outside Vh's rows
        gA = np.matmul(gA, Vh)
        SinvgVh = gVh / np.expand_dims(S, -1)
        gA = gA + SinvgVh - np.matmul(np.matmul(SinvgVh, mT(Vh)), Vh)
        return np.matmul(U, gA)
    return np.matmul(U, np.matmul(gA, Vh)) if m >= n else np.matmul(np.matmul(U, gA), Vh)


def _skew(X):
    """``X − Xᵀ``."""
    return X - mT(X)


def svd(A: Tensor, full_matrices: bool = True) -> tuple:
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, S descending and non-negative.

    ``full_matrices=False`` gives the reduced SVD (U is m×k, Vh is k×n, k = min(m, n)),
    which is what a gradient needs. Singular vectors are determined up to sign (and
    repeated singular values share a subspace): the gradient is ``nan``/``inf`` where two
    singular values coincide and U or Vh is used.

    >>> import teachgrad as torch
    >>> torch.linalg.svd(torch.tensor([[3., 0.], [0., -4.]])).S
    tensor([4., 3.])
    """
    check_matrix("linalg.svd", A)
    return SVDResult(*LinalgSvdBackward0.apply(A, full_matrices=bool(full_matrices)))


def svdvals(A: Tensor) -> Tensor:
    """The singular values of A, descending (the S of :func:`svd`)."""
    check_matrix("linalg.svd", A)
    if needs_derivative(A):  # the gradient U diag(ḡ) Vᵀ needs U and V: compute them too
        return LinalgSvdBackward0.apply(A, full_matrices=False)[1]
    return LinalgSvdBackward0.apply(A, full_matrices=False, compute_uv=False)


# ----------------------------------------------------------------------------------------
# pinv, matrix_rank, lstsq
# ----------------------------------------------------------------------------------------
def _tolerances(A: Tensor, atol, rtol) -> tuple:
    """PyTorch's rule: with neither given, rtol = eps·max(m, n); with atol > 0 alone, rtol = 0."""
    m, n = A._data.shape[-2:]
    eps = np.finfo(A._data.dtype).eps
    a = 0.0 if atol is None else atol
    if rtol is None:
        rtol = eps * max(m, n) if (atol is None or np.all(_value(atol) <= 0)) else 0.0
    return _value(a), _value(rtol)


def _kept(S: np.ndarray, atol, rtol) -> np.ndarray:
    """Which singular values count: those above max(atol, rtol · the largest)."""
    largest = np.max(S, axis=-1, keepdims=True, initial=0.0)
    tolerance = np.maximum(np.expand_dims(np.asarray(atol), -1),
                           np.expand_dims(np.asarray(rtol), -1) * largest)
    return np.greater(S, tolerance)


def pinv_backward(grad, pinvA, A):
    """PyTorch's ``pinv_backward``: only matrix products, so it differentiates again."""
    m, n = _value(A).shape[-2:]
    pinvAt, gradt = mT(pinvA), mT(grad)
    if m <= n:
        K = np.matmul(gradt, pinvA)
        KpinvAt = np.matmul(K, pinvAt)
        return (-mT(np.matmul(pinvA, K)) + KpinvAt
                - np.matmul(np.matmul(A, pinvA), KpinvAt)
                + np.matmul(np.matmul(pinvAt, pinvA), gradt - np.matmul(K, A)))
    K = np.matmul(pinvA, gradt)
    pinvAtK = np.matmul(pinvAt, K)
    return (-mT(np.matmul(K, pinvA))
            + np.matmul(np.matmul(gradt - np.matmul(A, K), pinvA), pinvAt)
            + pinvAtK - np.matmul(np.matmul(pinvAtK, pinvA), A))


class LinalgPinvBackward0(Op):
    formula = "∂A⁺: −A⁺ dA A⁺ + (I − A⁺A) dAᵀ A⁺ᵀA⁺ + A⁺A⁺ᵀ dAᵀ (I − AA⁺)"

    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        if hermitian:  # A = V Λ Vᵀ:  A⁺ = V Λ⁺ Vᵀ, keeping |λ| above the tolerance
            values, V = np.linalg.eigh(A)
            keep = _kept(np.abs(values), atol, rtol)
            inverse = np.where(keep, 1 / np.where(keep, values, 1), 0).astype(A.dtype)
            out = np.matmul(V * np.expand_dims(inverse, -2), mT(V))
        else:  # A = U S Vᵀ:  A⁺ = V S⁺ Uᵀ
            U, S, Vh = np.linalg.svd(A, full_matrices=False)
            keep = _kept(S, atol, rtol)
            inverse = np.where(keep, 1 / np.where(keep, S, 1), 0).astype(A.dtype)
            out = np.matmul(mT(Vh) * np.expand_dims(inverse, -2), mT(U))
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        A, pinvA = ctx.saved_tensors
        return pinv_backward(grad, pinvA, A)


def pinv(A: Tensor, rcond=None, hermitian: bool = False, *, atol=None,
         rtol=None) -> Tensor:
    """The Moore–Penrose pseudo-inverse A⁺ (computed from the SVD, or eigh if ``hermitian``).

    Singular values at most ``max(atol, rtol · σ_max)`` count as zero. With neither given,
    ``rtol = eps · max(m, n)``; with only ``atol > 0``, ``rtol = 0`` (PyTorch's rule).
    ``rcond`` (PyTorch's older spelling, also positional) is ``rtol`` with ``atol = 0``.

    >>> import teachgrad as torch
    >>> torch.linalg.pinv(torch.tensor([[2., 0.], [0., 0.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    if not isinstance(A, Tensor) or A._data.ndim < 2 or A._data.dtype.kind != "f" or (
            A._data.dtype == np.float16):
        dtype = _SCALAR_NAMES.get(A._data.dtype.name, "") if isinstance(A, Tensor) else ""
        shape = list(A._data.shape) if isinstance(A, Tensor) else []
        raise RuntimeError(
            f"linalg.pinv({dtype}{{{list(shape)}}}): expected a tensor with 2 or "
            "more dimensions of float, double, cfloat or cdouble types"
        )
    if rcond is not None:  # PyTorch's overload linalg.pinv(input, rcond, hermitian)
        atol, rtol = 0.0, rcond
    _refuse_tolerance_grad(atol=atol, rtol=rtol)
    atol, rtol = _tolerances(A, atol, rtol)
    return LinalgPinvBackward0.apply(A, atol=atol, rtol=rtol, hermitian=bool(hermitian))


def _refuse_tolerance_grad(**tolerances) -> None:
    """PyTorch's refusal of a tolerance tensor that requires grad: pinv is not
    differentiable in its cut-off (a step function of it), so the gradient would be lost."""
    from ..autograd.grad_mode import is_grad_enabled

    for name, tol in tolerances.items():
        if isinstance(tol, Tensor) and tol.requires_grad and is_grad_enabled():
            raise RuntimeError(
                f"The function 'linalg_pinv' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True.\nHint: pass the "
                "tolerance detached, e.g. tol.detach(): which singular values count as zero "
                "does not change smoothly with it.")


def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None,
                rtol=None) -> Tensor:
    """The number of singular values above ``max(atol, rtol · σ_max)`` (int64, no gradient).

    ``tol`` (PyTorch's older spelling, also positional) is ``atol`` with ``rtol = 0``.

    >>> import teachgrad as torch
    >>> torch.linalg.matrix_rank(torch.ones(3, 3))
    tensor(1)
    """
    if isinstance(A, Tensor) and A._data.ndim < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if isinstance(A, Tensor) and A._data.dtype.kind != "f":
        raise RuntimeError("This function doesn't handle types other than float and double"
                           "\nHint: convert first, e.g. A.double().")
    check_matrix("torch.linalg.matrix_rank", A, "input")
    if tol is not None:  # PyTorch's overload linalg.matrix_rank(input, tol, hermitian)
        atol, rtol = tol, 0.0
    atol, rtol = _tolerances(A, atol, rtol)
    a = A._data
    S = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    return _make(np.sum(_kept(S, atol, rtol), axis=-1).astype(np.int64))


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


class LinalgLstsqBackward0(Op):
    formula = "X = A⁺B:  ∂L/∂B = A⁺ᵀ ḡ    ∂L/∂A = pinv_backward(ḡ Bᵀ)    (+ the residuals' part)"
    materialize_grads = False

    @staticmethod
    def forward(ctx, A, B, rcond, driver, vector):
        ctx.vector = vector
        b = np.expand_dims(B, -1) if vector else B
        batch = _broadcast_batches(A.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(A, batch + A.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        m, n = a.shape[-2:]
        U, S, Vh = np.linalg.svd(a, full_matrices=False)
        keep = _kept(S, 0.0, rcond)
        # The minimum-norm least-squares solution, as LAPACK's gelsy/gelsd compute it
        inverse = np.where(keep, 1 / np.where(keep, S, 1), 0).astype(a.dtype)
        X = np.matmul(mT(Vh) * np.expand_dims(inverse, -2), np.matmul(mT(U), b))
        rank = np.sum(keep, axis=-1).astype(np.int64)
        # PyTorch reports the residuals for gelsd/gelss/gels only, for tall full-rank A
        if driver != "gelsy" and m > n and np.all(rank == n):
            residuals = np.sum(np.square(np.matmul(a, X) - b), axis=-2)
        else:
            residuals = np.empty((0,), a.dtype)
        ctx.has_residuals = residuals.size > 0
        if driver in ("gels",):
            rank = np.empty((0,), np.int64)
        values = S if driver in ("gelsd", "gelss") else np.empty((0,), a.dtype)
        X = _in_lapack_buffer(X, max(m, n))
        if vector:  # (the residuals keep their last dimension of 1, as in PyTorch)
            X = X[..., 0]
        ctx.save_for_backward(A, B, X)
        return X, residuals, rank, values

    @staticmethod
    def backward(ctx, grad_X, grad_residuals, grad_rank=None, grad_values=None):
        A, B, X = ctx.saved_tensors
        need_A, need_B = ctx.needs_input_grad
        if ctx.vector:
            B, X = np.expand_dims(B, -1), np.expand_dims(X, -1)
            if grad_X is not None:
                grad_X = np.expand_dims(grad_X, -1)
        grad_A = grad_B = None
        if grad_X is not None:
            pinvA = np.linalg.pinv(A)
            if need_A:
                grad_A = pinv_backward(np.matmul(grad_X, mT(B)), pinvA, A)
            if need_B:
                grad_B = np.matmul(mT(pinvA), grad_X)
        if grad_residuals is not None and ctx.has_residuals:
            # residuals = Σ (AX − B)²; at the optimum Aᵀ(AX − B) = 0, so X's own change
            # drops out:  ∂/∂A = 2 r Xᵀ ḡ,  ∂/∂B = −2 r ḡ  (r = AX − B)
            r = np.matmul(A, X) - B
            scaled = 2 * r * np.expand_dims(grad_residuals, -2)
            grad_A = (0 if grad_A is None else grad_A) + np.matmul(scaled, mT(X))
            grad_B = (0 if grad_B is None else grad_B) - scaled
        if grad_B is not None and ctx.vector:
            grad_B = grad_B[..., 0]
        return grad_A if need_A else None, grad_B if need_B else None


def _in_lapack_buffer(X: np.ndarray, rows: int) -> np.ndarray:
    """X (…, n, k) where LAPACK's least-squares drivers leave it, and PyTorch returns it:
    the first n rows of a column-major (…, rows, k) buffer (``rows = max(m, n)``: the
    buffer held B on input), so the strides are ``(1, rows)``."""
    n, k = X.shape[-2:]
    buffer = np.zeros(X.shape[:-2] + (k, rows), X.dtype)
    buffer[..., :n] = mT(X)
    return mT(buffer)[..., :n, :]


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver: str | None = None) -> tuple:
    """The least-squares solution of ``A X ≈ B``: ``(solution, residuals, rank, singular_values)``.

    The solution has the smallest norm among the minimizers of ``‖AX − B‖``; singular values
    at most ``rcond · σ_max`` (default ``eps · max(m, n)``) count as zero. As PyTorch's
    default CPU driver ``'gelsy'`` does, ``rank`` is returned and ``residuals`` and
    ``singular_values`` are empty; with ``'gelsd'`` or ``'gelss'`` the singular values are
    returned, and the squared residuals too when A is tall and of full rank.

    >>> import teachgrad as torch
    >>> A = torch.tensor([[1., 0.], [0., 1.], [0., 0.]])
    >>> torch.linalg.lstsq(A, torch.tensor([[1.], [2.], [3.]])).solution
    tensor([[1.],
            [2.]])
    """
    if not isinstance(A, Tensor) or A._data.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if not isinstance(B, Tensor) or B._data.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {_scalar_name(A)} and other's dtype {_scalar_name(B)}")
    if A._data.dtype not in (np.float32, np.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if not 0 <= A._data.ndim - B._data.ndim <= 1:
        raise RuntimeError(
            "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1")
    vector = is_vector_rhs(A, B)
    rows = B._data.shape[-1] if vector else B._data.shape[-2]
    if rows != A._data.shape[-2]:
        which = "other.size(-1)" if vector else "other.size(-2)"
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match {which}")
    if not vector and B._data.ndim == A._data.ndim - 1:
        # PyTorch's rule for a matrix B with one dimension fewer than A: B.shape[:-1] is
        # broadcast with A's batch shape (as if B were a batch of vectors), and each matrix
        # of that batch is solved against the whole of B. A (1, 3, 3) with B (3, 2) gives
        # a (3, 3, 2) solution: three copies.
        batch = _broadcast_batches(A._data.shape[:-2], B._data.shape[:-1])
        B = B.expand(batch + B._data.shape[-2:])
    m, n = A._data.shape[-2:]
    if rcond is None:
        rcond = np.finfo(A._data.dtype).eps * max(m, n)
    solution, residuals, rank, singular_values = LinalgLstsqBackward0.apply(
        A, B, rcond=float(rcond), driver=driver, vector=vector)
    # rank and singular_values describe A alone: they keep A's batch shape even when B's
    # batch broadcasts it (the solution and residuals take the broadcast shape).
    batch = A._data.shape[:-2]
    return LstsqResult(solution, residuals, _with_batch(rank, batch, 0),
                       _with_batch(singular_values, batch, 1))


def _with_batch(result: Tensor, batch: tuple, trailing: int) -> Tensor:
    """``result`` (batch dims, then ``trailing`` more) cut down to the batch shape ``batch``
    that was broadcast to make it; an empty result (a driver that skips it) is unchanged."""
    if result._data.ndim == 1 and result._data.size == 0 and not batch:
        return result
    full = result._data.shape[:result._data.ndim - trailing]
    if full == batch or result._data.size == 0 and result._data.ndim == 1:
        return result
    lead = len(full) - len(batch)
    index = (0,) * lead + tuple(slice(0, 1) if b == 1 and f != 1 else slice(None)
                                for b, f in zip(batch, full[lead:]))
    return result[index]


# ----------------------------------------------------------------------------------------
# matrix_exp
# ----------------------------------------------------------------------------------------
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0,
           1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def expm(a: np.ndarray) -> np.ndarray:
    """The matrix exponential of each matrix in a batch: Higham's (2005) scaling and squaring.

    ``exp(A) = exp(A / 2ˢ)^(2ˢ)``: scale A until its norm is below 5.4, where the degree-13
    Padé approximant ``q(A)⁻¹ p(A)`` is exact to double precision, then square s times.
    """
    if a.size == 0:
        return a.copy()
    work = a.astype(np.float64)
    norms = np.max(np.sum(np.abs(work), axis=-2), axis=-1)  # the 1-norm of each matrix
    with np.errstate(divide="ignore"):
        s = np.maximum(0, np.ceil(np.log2(np.maximum(norms, 1e-300) / 5.371920351148152)))
    s = np.where(np.isfinite(s), s, 0).astype(int)
    work = work / np.expand_dims(2.0 ** s, (-1, -2))
    b = _PADE13
    eye = np.broadcast_to(np.eye(a.shape[-1]), work.shape)
    A2 = work @ work
    A4 = A2 @ A2
    A6 = A4 @ A2
    odd = work @ (A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2)
                  + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye)
    even = A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 \
        + b[0] * eye
    result = np.linalg.solve(even - odd, even + odd)
    flat = result.reshape((-1,) + a.shape[-2:])
    for i, times in enumerate(np.broadcast_to(s, a.shape[:-2]).reshape(-1)):
        for _ in range(times):
            flat[i] = flat[i] @ flat[i]
    return flat.reshape(a.shape).astype(a.dtype)


def _exp_of(x):
    """``expm`` on arrays; the differentiable op on tensors (under ``create_graph``)."""
    return matrix_exp(x) if isinstance(x, Tensor) else expm(x)


class LinalgMatrixExpBackward0(Op):
    formula = "∂exp(A): ḡ ↦ the top-right block of exp([[Aᵀ, ḡ], [0, Aᵀ]])"

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return expm(A)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        n = _value(A).shape[-1]
        if type(grad) is Tensor:
            # create_graph: PyTorch's linalg_matrix_exp_differential, the block matrix
            # written block by block into zeros (three copy_: CopySlices)
            block = _make(np.zeros(A.shape[:-2] + (2 * n, 2 * n), A._data.dtype))
            adjoint = A.mH
            block.narrow(-2, 0, n).narrow(-1, 0, n).copy_(adjoint)
            block.narrow(-2, n, n).narrow(-1, n, n).copy_(adjoint)
            block.narrow(-2, 0, n).narrow(-1, n, n).copy_(grad)
            return matrix_exp(block).narrow(-2, 0, n).narrow(-1, n, n)
        At = mT(A)
        block = np.concatenate([
            np.concatenate([At, grad], axis=-1),
            np.concatenate([np.zeros_like(At), At], axis=-1),
        ], axis=-2)
        return _exp_of(block)[..., :n, n:]


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential ``exp(A) = I + A + A²/2! + A³/3! + …`` of a square matrix.

    >>> import teachgrad as torch
    >>> torch.linalg.matrix_exp(torch.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    check_matrix("linalg.matrix_exp", A, square=True)
    return LinalgMatrixExpBackward0.apply(A)


# ----------------------------------------------------------------------------------------
# np.linalg on tensors: the backward formulas above call these; under create_graph they
# receive tensors and must record the graph (second derivatives)
# ----------------------------------------------------------------------------------------
def _tensor(x):
    return x if isinstance(x, Tensor) else _make(np.asarray(x))


@numpy_protocol.register(np.linalg.inv)
def _np_inv(a):
    return inv(_tensor(a))


@numpy_protocol.register(np.linalg.det)
def _np_det(a):
    return det(_tensor(a))


@numpy_protocol.register(np.linalg.solve)
def _np_solve(a, b):
    a, b = _tensor(a), _tensor(b)  # NumPy's rule: only a 1-D b is a vector
    return LinalgSolveExBackward0.apply(a, b, left=True, vector=b.ndim == 1)[0]


@numpy_protocol.register(np.linalg.pinv)
def _np_pinv(a, rcond=None, hermitian=False, **_):
    return pinv(_tensor(a), hermitian=hermitian)


@numpy_protocol.register(np.linalg.svd)
def _np_svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    a = _tensor(a)
    return svdvals(a) if not compute_uv else svd(a, full_matrices=full_matrices)


__all__: list[str] = []  # torch.linalg's names: teachgrad.linalg exports them
