"""Fused multiply-adds: ``addcmul``, ``addcdiv``, ``addmv``, ``addr``, ``baddbmm``, ``addbmm``.

Each is one node in PyTorch's graph (``AddcmulBackward0``, ``AddmvBackward0`` ...), so each
is one op here too, with the gradients of a sum of products:

===========  ======================================  =====================================
op           result                                  gradients (besides β·grad for input)
===========  ======================================  =====================================
addcmul      input + value · t1 · t2                 t1: value·grad·t2, t2: value·grad·t1
addcdiv      input + value · t1 / t2                 t1: value·grad/t2, t2: −value·grad·t1/t2²
addmv        β·input + α · (mat @ vec)               mat: α·grad ⊗ vec, vec: α·matᵀ grad
addr         β·input + α · (vec1 ⊗ vec2)             vec1: α·grad vec2, vec2: α·gradᵀ vec1
baddbmm      β·input + α · (b1 @ b2), per batch      b1: α·grad b2ᵀ, b2: α·b1ᵀ grad
addbmm       β·input + α · Σ_b (b1 @ b2)             the same, with grad repeated per batch
===========  ======================================  =====================================

``input`` broadcasts to the result's shape (the engine sums its gradient back). With
``beta=0`` the input is ignored, NaN and inf included, as in PyTorch. ``addmm`` (the matrix
case) lives in :mod:`.linalg`, beside ``mm``; its in-place form is registered here.
"""

from __future__ import annotations

import numpy as np

from .._dtypes import result_type
from .._missing_arguments import REQUIRED, missing
from .._tensor import Tensor, tensor_method
from ..autograd.grad_mode import state as _grad_state
from ..autograd.graph import shape_str
from . import shape
from .fill_value import check_real_value
from .fused import multiply_add
from .inplace import inplace_method
from .linalg import (
    _DTYPE_HINT,
    _check_bmm,
    _fail,
    _require_tensor,
    _scalar_name,
    addmm,
    blas_scaled_input,
    blas_signed_zeros,
)
from .number_factor import number_over, times_number
from .op import Op
from .pointwise import _check_shapes_broadcast


def _scaled(x, factor):
    """``factor * x``, skipping the multiplication by 1 (the usual case)."""
    return x if factor == 1 else x * factor


def _value_in(dtype: np.dtype, value):
    """``value`` as PyTorch's kernels take it: rounded to a float dtype, truncated to an
    integer one (``value=0.5`` adds nothing to an int64 tensor)."""
    if dtype.kind == "f":
        return np.asarray(value, dtype)
    return int(value) if dtype.kind in "iu" else value


def _times(grad, factor):
    """A gradient times ``factor`` (None stays None), last, as PyTorch's maybe_multiply:
    under create_graph a tensor times a number in C++, recorded as MulBackward1."""
    return grad if grad is None or factor == 1 else times_number(grad, factor)


# ----------------------------------------------------------------------------------------
# addcmul, addcdiv: pointwise
# ----------------------------------------------------------------------------------------
class AddcmulBackward0(Op):
    saved_attributes = {"value": "value"}  # grad_fn._saved_...
    saved_names = ("tensor1", "tensor2")  # grad_fn._saved_...
    formula = "∂/∂input = 1    ∂/∂t1 = value·t2    ∂/∂t2 = value·t1"

    @staticmethod
    def forward(ctx, input, t1, t2, value, dtype):  # noqa: A002 - PyTorch's name
        # save the inputs' own arrays (not the cast copies): under create_graph they come
        # back as the input tensors, so the gradient stays differentiable
        # only the factors the needed gradients use, as PyTorch saves: t1 * t2 keeps no t2
        # when only t2 needs a gradient (changing it in place afterwards is then fine)
        needs = ctx.needs_input_grad  # (four Falses when nothing is recorded)
        ctx.save_for_backward(t1 if needs[2] else None, t2 if needs[1] else None)
        input, t1, t2 = (a.astype(dtype, copy=False) for a in (input, t1, t2))
        ctx.value = value
        # PyTorch's kernel: (value·t1)·t2 + input, the last multiply and the add fused
        # (one rounding, see fused.py), value first rounded to the dtype
        out = multiply_add(_scaled(t1, _value_in(dtype, value)), t2, input)
        return out.astype(dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        _, need_1, need_2 = ctx.needs_input_grad
        if type(grad) is Tensor:  # create_graph: PyTorch's grad * (t2 * value), MulBackward1
            return (grad,
                    grad * times_number(t2, ctx.value) if need_1 else None,
                    grad * times_number(t1, ctx.value) if need_2 else None)
        return (grad,
                _scaled(grad * t2, ctx.value) if need_1 else None,
                _scaled(grad * t1, ctx.value) if need_2 else None)


class AddcdivBackward0(Op):
    saved_attributes = {"value": "value"}  # grad_fn._saved_...
    saved_names = ("tensor1", "tensor2")  # grad_fn._saved_...
    formula = "∂/∂input = 1    ∂/∂t1 = value / t2    ∂/∂t2 = −value·t1 / t2²"

    @staticmethod
    def forward(ctx, input, t1, t2, value, dtype):  # noqa: A002
        # the inputs' own arrays, as in AddcmulBackward0; t1 for t2's gradient, and t2
        # always, as PyTorch keeps it (even for input's gradient alone, which needs none)
        needs = ctx.needs_input_grad  # (four Falses when nothing is recorded)
        ctx.save_for_backward(t1 if needs[2] else None, t2)
        input, t1, t2 = (a.astype(dtype, copy=False) for a in (input, t1, t2))
        ctx.value = value
        # (value·t1) / t2 in that order, as PyTorch's kernel computes it
        return (input + _scaled(t1, _value_in(dtype, value)) / t2).astype(dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        _, need_1, need_2 = ctx.needs_input_grad
        value = ctx.value
        # PyTorch's formulas, grouped as it groups them: value / t2 and value·t1 / t2² are
        # computed at t2's (and t1's) own shape, before grad broadcasts them (under
        # create_graph a zero gradient summed back to those shapes then meets t2's nan or
        # zero, as in PyTorch), and the last step is a product (MulBackward0).
        # Under create_graph C++'s number over tensor (DivBackward0 of a filled constant)
        # and tensor times number (MulBackward1), as PyTorch records them.
        return (grad,
                grad * number_over(value, t2) if need_1 else None,
                -grad * (times_number(t1, value) / (t2 * t2)) if need_2 else None)


def _pointwise_operands(name: str, input: Tensor, tensor1: Tensor, tensor2: Tensor):
    """PyTorch's checks of addcmul/addcdiv, and the result dtype."""
    for position, (arg, t) in enumerate(
        (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)), 1
    ):
        _require_tensor(t, arg, position, name)
    _check_shapes_broadcast(input._data.shape, tensor1._data.shape)
    _check_shapes_broadcast(np.broadcast_shapes(input._data.shape, tensor1._data.shape),
                            tensor2._data.shape)
    return result_type(input, tensor1, tensor2).numpy


@tensor_method()
def addcmul(input: Tensor, tensor1: Tensor = REQUIRED, tensor2: Tensor = REQUIRED, *,
            value=1) -> Tensor:
    """``input + value * tensor1 * tensor2`` (broadcast), one node: ``AddcmulBackward0``.

    >>> import teachgrad as torch
    >>> torch.addcmul(torch.ones(2), torch.tensor([1., 2.]), torch.tensor([3., 4.]), value=0.5)
    tensor([2.5000, 5.0000])
    """
    if tensor1 is REQUIRED or tensor2 is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("addcmul", addcmul, input, tensor1, tensor2)
    dtype = _pointwise_operands("addcmul", input, tensor1, tensor2)
    check_real_value(value, np.dtype(dtype))
    if dtype == np.bool_:  # (PyTorch's kernel has no bool loop)
        raise NotImplementedError('"addcmul_cpu_out" not implemented for \'Bool\'\nHint: '
                                  "make the tensors integers or floats first, e.g. x.long().")
    return AddcmulBackward0.apply(input, tensor1, tensor2, value=value, dtype=dtype)


_INTEGER_ADDCDIV = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
    "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes."
)


def _refuse_integer_division(input, tensor1, tensor2, **kwargs) -> None:
    """PyTorch's first check of addcdiv (before the shapes; for addcdiv_, before the
    memory): two integer (or bool) tensors."""
    if (isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor)
            and tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu"):
        raise RuntimeError(_INTEGER_ADDCDIV)


@tensor_method()
def addcdiv(input: Tensor, tensor1: Tensor = REQUIRED, tensor2: Tensor = REQUIRED, *,
            value=1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (broadcast), one node: ``AddcdivBackward0``.

    This is the step Adam takes: ``p.addcdiv_(m, v.sqrt() + eps, value=-lr)``.

    >>> import teachgrad as torch
    >>> torch.addcdiv(torch.ones(2), torch.tensor([1., 2.]), torch.tensor([4., 4.]), value=2)
    tensor([1.5000, 2.0000])
    """
    if tensor1 is REQUIRED or tensor2 is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("addcdiv", addcdiv, input, tensor1, tensor2)
    _refuse_integer_division(input, tensor1, tensor2)
    dtype = _pointwise_operands("addcdiv", input, tensor1, tensor2)
    check_real_value(value, np.dtype(dtype))
    return AddcdivBackward0.apply(input, tensor1, tensor2, value=value, dtype=dtype)


# ----------------------------------------------------------------------------------------
# addmv, addr, baddbmm, addbmm: beta * input + alpha * (a product)
# ----------------------------------------------------------------------------------------
def _combine(input, product, beta, alpha):
    """``beta * input + alpha * product``; with beta = 0 the input is not read at all."""
    product = _scaled(product, alpha)
    if beta == 0:
        return np.broadcast_to(product, np.broadcast_shapes(product.shape, input.shape)).copy()
    return product + _scaled(input, beta)


class _ScaledProductOp(Op):
    """What the four share: save the factors, scale the input's gradient by beta."""

    saved_attributes = {"alpha": "alpha", "beta": "beta"}  # grad_fn._saved_...

    @staticmethod
    def input_grad(ctx, grad):
        if ctx.needs_input_grad[0] is False:
            return None
        return _times(grad, ctx.beta)  # (times 0 too: PyTorch's NaN-free zeros)


class AddmvBackward0(_ScaledProductOp):
    saved_names = ("mat", "vec")  # grad_fn._saved_... (each for the other's gradient)
    formula = "∂/∂input = β    ∂/∂mat = α·grad ⊗ vec    ∂/∂vec = α·matᵀ grad"

    @staticmethod
    def forward(ctx, input, mat, vec, beta, alpha):  # noqa: A002
        ctx.beta, ctx.alpha = beta, alpha
        # (each factor for the other one's gradient only, as PyTorch keeps them)
        needs = ctx.needs_input_grad
        ctx.save_for_backward(mat if needs[2] else None, vec if needs[1] else None)
        if alpha == 0:  # (as BLAS: the product is not computed)
            return blas_scaled_input(input, beta, mat.shape[:1], mat.dtype)
        return blas_signed_zeros(_combine(input, mat @ vec, beta, alpha), input, mat, vec,
                                 beta, alpha)

    @classmethod
    def backward(cls, ctx, grad):
        mat, vec = ctx.saved_tensors
        _, need_mat, need_vec = ctx.needs_input_grad
        if type(grad) is Tensor:  # create_graph: PyTorch's grad.ger(vec), mat.t().mv(grad)
            return (cls.input_grad(ctx, grad),
                    _times(grad.reshape(-1, 1) * vec if need_mat else None, ctx.alpha),
                    _times(mat.t().mv(grad) if need_vec else None, ctx.alpha))
        return (cls.input_grad(ctx, grad),
                _times(np.expand_dims(grad, -1) * vec if need_mat else None, ctx.alpha),
                _times(np.matmul(np.transpose(mat), grad) if need_vec else None, ctx.alpha))


class AddrBackward0(_ScaledProductOp):
    saved_names = ("vec1", "vec2")  # grad_fn._saved_...
    formula = "∂/∂input = β    ∂/∂vec1 = α·grad vec2    ∂/∂vec2 = α·gradᵀ vec1"

    @staticmethod
    def forward(ctx, input, vec1, vec2, beta, alpha):  # noqa: A002
        ctx.beta, ctx.alpha = beta, alpha
        ctx.save_for_backward(vec1, vec2)
        if vec1.dtype == np.bool_:  # True·True = True, and + is "or", as in PyTorch
            outer = np.logical_and.outer(vec1, vec2)
            return outer if beta == 0 else outer | (input.astype(bool) & bool(beta))
        return _combine(input, np.expand_dims(vec1, -1) * vec2, beta, alpha)

    @classmethod
    def backward(cls, ctx, grad):
        vec1, vec2 = ctx.saved_tensors
        _, need_1, need_2 = ctx.needs_input_grad
        return (cls.input_grad(ctx, grad),
                _times(np.matmul(grad, vec2) if need_1 else None, ctx.alpha),
                _times(np.matmul(np.transpose(grad), vec1) if need_2 else None, ctx.alpha))


class BaddbmmBackward0(_ScaledProductOp):
    saved_names = ("batch1", "batch2")  # grad_fn._saved_...
    formula = "∂/∂input = β    ∂/∂batch1 = α·grad batch2ᵀ    ∂/∂batch2 = α·batch1ᵀ grad"

    @staticmethod
    def forward(ctx, input, batch1, batch2, beta, alpha):  # noqa: A002
        ctx.beta, ctx.alpha = beta, alpha
        ctx.save_for_backward(batch1, batch2)
        out = _combine(input, np.matmul(batch1, batch2), beta, alpha)
        if batch1.dtype != batch2.dtype:  # an empty product (see baddbmm): batch2's dtype
            out = out.astype(batch2.dtype)
        return out

    @classmethod
    def backward(cls, ctx, grad):
        batch1, batch2 = ctx.saved_tensors
        _, need_1, need_2 = ctx.needs_input_grad
        if type(grad) is Tensor:  # create_graph: PyTorch's bmm and transpose(1, 2) nodes
            grad_1 = (cls.batched(ctx, grad).bmm(batch2.transpose(1, 2)) if need_1
                      else None)
            grad_2 = (batch1.transpose(1, 2).bmm(cls.batched(ctx, grad)) if need_2
                      else None)
        else:
            grad_1 = np.matmul(grad, np.swapaxes(batch2, -1, -2)) if need_1 else None
            grad_2 = np.matmul(np.swapaxes(batch1, -1, -2), grad) if need_2 else None
        return cls.input_grad(ctx, grad), _times(grad_1, ctx.alpha), _times(grad_2, ctx.alpha)

    @staticmethod
    def batched(ctx, grad):
        """The gradient for each batch's product (under create_graph): the result's."""
        return grad


class AddbmmBackward0(BaddbmmBackward0):
    """``baddbmm`` summed over the batch: each batch's product gets the same gradient."""

    formula = "∂/∂input = β    ∂/∂batch1[b] = α·grad batch2[b]ᵀ    ∂/∂batch2[b] = α·batch1[b]ᵀ grad"
    # (PyTorch's: the batch count, the rows and the columns, the sizes its backward needs)
    saved_attributes = {"batch1_sym_argsize_0": lambda node: node.sizes[0],
                        "batch1_sym_argsize_1": lambda node: node.sizes[1],
                        "batch2_sym_argsize_2": lambda node: node.sizes[2]}  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, input, batch1, batch2, beta, alpha):  # noqa: A002
        ctx.beta, ctx.alpha = beta, alpha
        ctx.sizes = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
        ctx.save_for_backward(batch1, batch2)
        product = np.matmul(batch1, batch2).sum(axis=0, dtype=batch1.dtype)
        return _combine(input, product, beta, alpha)

    # (backward: BaddbmmBackward0's formulas broadcast the 2-D grad over the batch)

    @staticmethod
    def batched(ctx, grad):
        """The gradient for each batch's product (under create_graph): the sum's, repeated
        as PyTorch's grad.unsqueeze(0).expand(...)."""
        return grad.unsqueeze(0).expand(ctx.sizes)


def _check_integer_scalars(t: Tensor, beta, alpha) -> None:
    if t._data.dtype.kind in "biu":
        for name, factor in (("beta", beta), ("alpha", alpha)):
            if isinstance(factor, float):
                raise RuntimeError(
                    f"For integral input tensors, argument {name} must not be a floating point "
                    "number."
                )


def _check_input_expands(input: Tensor, size: tuple) -> None:
    """``input`` must broadcast to the product's shape (PyTorch's expand error if not)."""
    try:
        if np.broadcast_shapes(input._data.shape, size) == tuple(size):
            return
    except ValueError:
        pass
    shape.expand(input.detach(), size)  # raises PyTorch's error
    raise RuntimeError(
        f"expand: the shape {list(input._data.shape)} cannot be expanded to {list(size)}"
    )


def _check_tensors(name: str, *named) -> None:
    for position, (arg, t) in enumerate(named, 1):
        _require_tensor(t, arg, position, name)


@tensor_method()
def addmv(input: Tensor, mat: Tensor = REQUIRED, vec: Tensor = REQUIRED, *, beta=1,
          alpha=1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``: a matrix-vector product plus a vector.

    >>> import teachgrad as torch
    >>> torch.addmv(torch.ones(2), torch.eye(2), torch.tensor([2., 3.]), alpha=2)
    tensor([5., 7.])
    """
    if mat is REQUIRED or vec is REQUIRED:  # (x.addmv(): PyTorch's words, see _missing_arguments)
        raise missing("addmv", addmv, input, mat, vec)
    _check_tensors("addmv", ("input", input), ("mat", mat), ("vec", vec))
    if input._data.ndim > 1 or mat._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input._data.ndim}, {mat._data.ndim}, "
            f"{vec._data.ndim}"
        )
    rows, cols = mat._data.shape
    if vec._data.shape[0] != cols or input._data.shape not in ((), (1,), (rows,)):
        raise _fail(
            f"size mismatch, got input ({'x'.join(map(str, input._data.shape))}), mat "
            f"({rows}x{cols}), vec ({vec._data.shape[0]})",
            f"mat ({rows}x{cols}) @ vec needs {cols} elements in vec, and input must "
            f"broadcast to the result's {rows}.",
        )
    if not input._data.dtype == mat._data.dtype == vec._data.dtype:
        raise _fail(
            "addmv input tensors must have the same dtype, but got "
            f"{_scalar_name(input)}, {_scalar_name(mat)}, and {_scalar_name(vec)}",
            _DTYPE_HINT,
        )
    _check_integer_scalars(input, beta, alpha)
    return AddmvBackward0.apply(input, mat, vec, beta=beta, alpha=alpha)


@tensor_method()
def addr(input: Tensor, vec1: Tensor = REQUIRED, vec2: Tensor = REQUIRED, *, beta=1,
         alpha=1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``: a matrix plus an outer product.

    >>> import teachgrad as torch
    >>> torch.addr(torch.zeros(2, 2), torch.tensor([1., 2.]), torch.tensor([3., 4.]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    if vec1 is REQUIRED or vec2 is REQUIRED:  # (x.addr(): PyTorch's words, see _missing_arguments)
        raise missing("addr", addr, input, vec1, vec2)
    _check_tensors("addr", ("input", input), ("vec1", vec1), ("vec2", vec2))
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    dtype = result_type(input, vec1, vec2).numpy
    if vec1._data.dtype != dtype or vec2._data.dtype != dtype or input._data.dtype != dtype:
        input, vec1, vec2 = (t.to(_dtype_of(dtype)) for t in (input, vec1, vec2))
    _check_integer_scalars(input, beta, alpha)
    _check_input_expands(input, (vec1._data.shape[0], vec2._data.shape[0]))
    return AddrBackward0.apply(input, vec1, vec2, beta=beta, alpha=alpha)


def _dtype_of(numpy_dtype: np.dtype):
    from .._dtypes import _FROM_NUMPY

    return _FROM_NUMPY[numpy_dtype]


def _check_batches(input: Tensor, batch1: Tensor, batch2: Tensor) -> None:
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t._data.ndim != 3:
            raise _fail(f"{name} must be a 3D tensor",
                        f"batch1 @ batch2 multiplies batches of matrices (3-D tensors); got "
                        f"shapes {list(batch1._data.shape)} and {list(batch2._data.shape)}.")


@tensor_method()
def baddbmm(input: Tensor, batch1: Tensor = REQUIRED, batch2: Tensor = REQUIRED, *, beta=1,
            alpha=1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)``, matrix by matrix over the batch.

    >>> import teachgrad as torch
    >>> torch.baddbmm(torch.zeros(2, 1, 1), torch.ones(2, 1, 3), torch.ones(2, 3, 1)).shape
    teachgrad.Size([2, 1, 1])
    """
    if batch1 is REQUIRED or batch2 is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("baddbmm", baddbmm, input, batch1, batch2)
    _check_tensors("baddbmm", ("input", input), ("batch1", batch1), ("batch2", batch2))
    _check_batches(input, batch1, batch2)
    # PyTorch compares input's dtype with batch1's here; batch2's is bmm's check, which an
    # empty product skips (the result then takes batch2's dtype, see _check_bmm).
    if input._data.dtype != batch1._data.dtype:
        raise _fail(
            f"Input dtypes must be the same, got: input {_cpp(input)}, batch1: {_cpp(batch1)}, "
            f"batch2: {_cpp(batch2)}",
            _DTYPE_HINT,
        )
    _check_bmm(batch1, batch2)
    if (batch1._data.dtype != batch2._data.dtype and batch2._data.dtype.kind != "f"
            and input._requires_grad and _grad_state.enabled):
        raise RuntimeError(f"Autograd not support dtype: {_scalar_name(batch2)}")
    _check_integer_scalars(input, beta, alpha)
    b, n, _ = batch1._data.shape
    _check_input_expands(input, (b, n, batch2._data.shape[2]))
    return BaddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha)


def _cpp(t: Tensor) -> str:
    from .linalg import _cpp_name

    return _cpp_name(t)


@tensor_method()
def addbmm(input: Tensor, batch1: Tensor = REQUIRED, batch2: Tensor = REQUIRED, *, beta=1,
           alpha=1) -> Tensor:
    """``beta * input + alpha * Σ_b batch1[b] @ batch2[b]``: the batch's products, added up.

    >>> import teachgrad as torch
    >>> torch.addbmm(torch.zeros(1, 1), torch.ones(4, 1, 3), torch.ones(4, 3, 1))
    tensor([[12.]])
    """
    if batch1 is REQUIRED or batch2 is REQUIRED:  # (PyTorch's words, see _missing_arguments)
        raise missing("addbmm", addbmm, input, batch1, batch2)
    _check_tensors("addbmm", ("input", input), ("batch1", batch1), ("batch2", batch2))
    _check_batches(input, batch1, batch2)
    b1, b2 = batch1._data.shape, batch2._data.shape
    if b1[0] != b2[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {b1[0]} and {b2[0]}"
        )
    if b1[2] != b2[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({b1[1]}x{b1[2]} and {b2[1]}x{b2[2]})"
        )
    for name, t in (("mat1", batch1), ("self", input)):
        if t._data.dtype != batch2._data.dtype:
            raise _fail(
                f"{name} and mat2 must have the same dtype, but got {_scalar_name(t)} and "
                f"{_scalar_name(batch2)}",
                _DTYPE_HINT,
            )
    _check_integer_scalars(input, beta, alpha)
    _check_input_expands(input, (b1[1], b2[2]))
    return AddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha)


__all__ = ["addcmul", "addcdiv", "addmv", "addr", "baddbmm", "addbmm"]


def _in_place(op, name: str):
    """addcmul/addcdiv for addcmul_/addcdiv_: PyTorch compares the broadcast shape with
    self's before its kernel looks at the dtypes (a bool addcmul_ of the wrong shape gets
    the shape error)."""
    def run(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
        _pointwise_operands(name, input, tensor1, tensor2)
        have = input._data.shape
        shape = np.broadcast_shapes(have, tensor1._data.shape, tensor2._data.shape)
        if shape != have:
            raise RuntimeError(f"output with shape {shape_str(have)} doesn't match the "
                               f"broadcast shape {shape_str(shape)}")
        return op(input, tensor1, tensor2, value=value)

    run.__name__ = name
    return run


_addcdiv_ = _in_place(addcdiv, "addcdiv")
_addcdiv_.precheck = _refuse_integer_division
for _name, _op in {
    "addcmul_": _in_place(addcmul, "addcmul"), "addcdiv_": _addcdiv_, "addmv_": addmv,
    "addr_": addr,
    "baddbmm_": baddbmm, "addbmm_": addbmm, "addmm_": addmm,
}.items():
    setattr(Tensor, _name, inplace_method(_op, _name))
