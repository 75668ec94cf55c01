"""In-place ops: ``x += 1``, ``add_``, ``mul_``, ``zero_``, ``fill_``, ``copy_`` ...

One mechanism serves them all: compute the out-of-place result, then write it into the
tensor's own memory and bump its version counter. If autograd is recording, the tensor
also takes over the result's ``grad_fn`` (its history now ends with this op), and the op
was computed from a *copy* of the old values, so its own backward still sees them.

The version bump is what makes in-place changes safe: any node that saved this tensor
for backward notices the new version and refuses to compute a wrong gradient.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.grad_mode import state as _grad_state
from . import pointwise
from .op import Op


def _torch_name(dtype: np.dtype) -> str:
    return {
        "float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
        "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    }[dtype.name]


def apply_inplace(self: Tensor, op: Callable[..., Tensor], *args, **kwargs) -> Tensor:
    """Compute ``op(self, *args)`` and store the result in ``self`` (see module docstring)."""
    self._check_inplace()
    tracked = _grad_state.enabled and (
        self._requires_grad or any(isinstance(a, Tensor) and a._requires_grad for a in args)
    )
    source = self
    if tracked:
        base = self._base
        if base is not None and base._requires_grad:
            raise RuntimeError(
                "teachgrad does not track in-place changes made through a view of a tensor "
                "that requires grad.\nHint: use an out-of-place op (y = y * 2), or clone() "
                "the view first."
            )
        # Keep the old values for the op's backward: self is about to be overwritten.
        source = _make(self._data.copy(), self._requires_grad, self._grad_fn)
        source._output_nr = self._output_nr
    result = op(source, *args, **kwargs)
    write_into(self, result)
    if tracked:
        self._grad_fn = result._grad_fn
        self._output_nr = result._output_nr
        self._requires_grad = result._requires_grad
    return self


def write_into(self: Tensor, result: Tensor) -> None:
    """Copy ``result``'s values into ``self``'s memory, with PyTorch's shape/dtype checks."""
    data, new = self._data, result._data
    if new.shape != data.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, data.shape))}] doesn't match the "
            f"broadcast shape [{', '.join(map(str, np.broadcast_shapes(data.shape, new.shape)))}]"
            if _broadcastable(data.shape, new.shape) else
            f"The size of tensor a ({data.shape[-1] if data.shape else 1}) must match the size "
            f"of tensor b ({new.shape[-1] if new.shape else 1})"
        )
    if not np.can_cast(new.dtype, data.dtype, "same_kind"):
        raise RuntimeError(
            f"result type {_torch_name(new.dtype)} can't be cast to the desired output type "
            f"{_torch_name(data.dtype)}"
        )
    if not data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to "
            "a single memory location. Please clone() the tensor before performing the "
            "operation."
        )
    np.copyto(data, new, casting="unsafe")
    self._vc[0] += 1


def _broadcastable(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


# ----------------------------------------------------------------------------------------
# Ops that only exist in place
# ----------------------------------------------------------------------------------------
class FillBackward0(Op):
    formula = "fill: the old values no longer matter, ∂/∂a = 0"

    @staticmethod
    def forward(ctx, a, value):
        return np.full_like(a, value)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0


class ZeroBackward0(FillBackward0):
    formula = "zero: the old values no longer matter, ∂/∂a = 0"


class CopyBackwards(Op):
    formula = "copy_: ∂/∂self = 0, ∂/∂src = 1"

    @staticmethod
    def forward(ctx, a, src):
        return np.broadcast_to(src, a.shape).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, grad  # the engine sums and casts the second to src's shape/dtype


def _fill(self: Tensor, value) -> Tensor:
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        return CopyBackwards.apply(self, value)
    return FillBackward0.apply(self, value=value)


def _zero(self: Tensor) -> Tensor:
    return ZeroBackward0.apply(self, value=0)


def _copy(self: Tensor, src) -> Tensor:
    if not isinstance(src, Tensor):
        src = _make(np.asarray(src))
    try:
        np.broadcast_shapes(src._data.shape, self._data.shape)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({self._data.shape[-1]}) must match the size of tensor b "
            f"({src._data.shape[-1]}) at non-singleton dimension {self._data.ndim - 1}"
        ) from None
    return CopyBackwards.apply(self, src)


# ----------------------------------------------------------------------------------------
# The methods: each in-place method is its out-of-place op run through apply_inplace
# ----------------------------------------------------------------------------------------
def _inplace_method(op: Callable, name: str) -> Callable:
    def method(self: Tensor, *args, **kwargs) -> Tensor:
        return apply_inplace(self, op, *args, **kwargs)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = f"In-place version of ``{op.__name__}``: changes ``self`` and returns it."
    return method


_INPLACE = {
    "add_": pointwise.add, "sub_": pointwise.sub, "mul_": pointwise.mul,
    "div_": pointwise.div, "pow_": pointwise.pow, "neg_": pointwise.neg,
    "abs_": pointwise.abs, "sign_": pointwise.sign, "exp_": pointwise.exp,
    "expm1_": pointwise.expm1, "log_": pointwise.log, "log1p_": pointwise.log1p,
    "sqrt_": pointwise.sqrt, "rsqrt_": pointwise.rsqrt, "reciprocal_": pointwise.reciprocal,
    "sin_": pointwise.sin, "cos_": pointwise.cos, "tan_": pointwise.tan,
    "tanh_": pointwise.tanh, "sigmoid_": pointwise.sigmoid, "relu_": pointwise.relu,
    "clamp_": pointwise.clamp, "clip_": pointwise.clamp, "clamp_min_": pointwise.clamp_min,
    "clamp_max_": pointwise.clamp_max, "square_": pointwise.square,
    "floor_": pointwise.floor, "ceil_": pointwise.ceil, "round_": pointwise.round,
    "trunc_": pointwise.trunc, "fill_": _fill, "zero_": _zero, "copy_": _copy,
    "subtract_": pointwise.sub, "multiply_": pointwise.mul, "divide_": pointwise.div,
    "__iadd__": pointwise.add, "__isub__": pointwise.sub, "__imul__": pointwise.mul,
    "__itruediv__": pointwise.div, "__ipow__": pointwise.pow,
    "__iand__": pointwise.logical_and, "__ior__": pointwise.logical_or,
    "__ixor__": pointwise.logical_xor,
}

for _name, _op in _INPLACE.items():
    setattr(Tensor, _name, _inplace_method(_op, _name))


__all__ = ["apply_inplace", "write_into"]
