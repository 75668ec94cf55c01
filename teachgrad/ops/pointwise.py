"""Pointwise ops: arithmetic, powers, exp/log, trigonometry, comparisons.

Each op is a class named after the ``grad_fn`` PyTorch gives its result, with ``forward``
(NumPy) and ``backward`` (the vector-Jacobian product) side by side, and ``formula``: the
local derivative in human notation, shown by the notebook stepper.

Backward formulas ignore broadcasting: the engine sums each gradient back to its input's
shape. They use only NumPy operators and ``np.*`` functions, so the same line also works
on tensors when ``create_graph=True`` asks for a differentiable backward.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._arguments import NOT_GIVEN, Signatures, checks_types, is_number
from .._dtypes import complex_refused, from_numpy_dtype, get_default_dtype, result_type
from .._input_check import not_a_tensor
from .._missing_arguments import REQUIRED, missing, missing_in_caller, untested
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _make, python_type_name, tensor_method
from ..autograd import inference
from ..autograd.dual_state import needs_derivative
from ..autograd.graph import check_saved_constant
from .fill_value import LONG_MAX as _LONG_MAX
from .fill_value import LONG_MIN as _LONG_MIN
from .fill_value import ULONG_MAX as _ULONG_MAX
from .fill_value import bool_with_uint64, check_fill_value, int_too_big
from .number_factor import minus_number, plus_number, times_number
from .op import Op, int_operand
from .recorded_backward import RecordedBackward
from .select_grad import keep_where, masked_fill_zero, zero_grad_like, zero_where

# ----------------------------------------------------------------------------------------
# Helpers shared by the public functions
# ----------------------------------------------------------------------------------------
_NUMBER_TYPES = (int, float, bool)


def _operand(x):
    """Python numbers stay numbers (they are "weak" in type promotion); arrays become tensors.

    NumPy scalars (``np.sqrt(2.0)``, ``np.float32(1)``) count as Python numbers, as in
    PyTorch: ``x / np.sqrt(d)`` keeps x's float32. (``np.float64`` is a subclass of
    ``float``, so it is checked before the Python types.)
    """
    if isinstance(x, np.generic):
        kind = x.dtype.kind
        if kind == "c":
            raise complex_refused(f"the number {x!r}")
        # (a Python number: .item() would keep an np.longdouble as it is)
        return float(x) if kind == "f" else bool(x) if kind == "b" else int(x)
    if isinstance(x, (Tensor, int, float)):
        if type(x) is int and not _LONG_MIN <= x <= _ULONG_MAX:  # (x / 2**70: PyTorch's
            raise int_too_big(x)  # parser takes 64-bit ints only)
        return x
    if isinstance(x, np.ndarray):
        from_numpy_dtype(x.dtype)  # (refuses the dtypes teachgrad has not: complex...)
        return _make(x)
    if isinstance(x, numbers.Number):
        if isinstance(x, complex):
            raise complex_refused(f"the number {x!r}")
        return float(x)
    missing = missing_in_caller(x)  # (x.add(): an op's REQUIRED default, see untested)
    if missing is not None:
        raise missing
    hint = real_pytorch_hint(x)
    if isinstance(x, (list, tuple)):  # (PyTorch refuses them too: x * [1, 2] is no product)
        hint = "\nHint: make the list a tensor first: torch.tensor([...])."
    raise TypeError(
        f"unsupported operand type: expected a Tensor or a number, got {python_type_name(x)}"
        + hint
    )


def _floating(x: Tensor) -> Tensor:
    """Integers become the default float dtype, as PyTorch does for exp, sqrt, sin..."""
    if x._data.dtype.kind == "f":
        return x
    return _make(x._data.astype(get_default_dtype().numpy))


def _check_broadcast(a, b) -> None:
    """PyTorch's message when two shapes do not broadcast (instead of NumPy's)."""
    sa = a._data.shape if isinstance(a, Tensor) else ()
    sb = b._data.shape if isinstance(b, Tensor) else ()
    _check_shapes_broadcast(sa, sb)


def _check_shapes_broadcast(sa: tuple, sb: tuple) -> None:
    for i in range(1, min(len(sa), len(sb)) + 1):
        x, y = sa[-i], sb[-i]
        if x != y and x != 1 and y != 1:
            dim = max(len(sa), len(sb)) - i
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {dim}"
                f"\nHint: shapes {list(sa)} and {list(sb)} do not broadcast: compared from "
                "the right, each pair of sizes must be equal or one of them must be 1."
            )


_PLAIN_OPERANDS = frozenset({Tensor, int, float})  # what _operand returns unchanged


def _binary(op: type[Op], a, b, **params) -> Tensor:
    if type(a) not in _PLAIN_OPERANDS or type(b) not in _PLAIN_OPERANDS:  # skip 2 calls
        a, b = _operand(a), _operand(b)
    if isinstance(a, Tensor):
        if isinstance(b, Tensor) and a._data.shape != b._data.shape:
            _check_broadcast(a, b)
    elif not isinstance(b, Tensor):  # two numbers: PyTorch makes the first a 0-d tensor
        from .._creation import tensor

        a = tensor(a)
    # (Without keywords the call is cheaper: Python builds no dict for them.)
    return op.apply(a, b, **params) if params else op.apply(a, b)


# ----------------------------------------------------------------------------------------
# Arithmetic
# ----------------------------------------------------------------------------------------
class AddBackward0(Op):
    saved_attributes = {"alpha": "alpha"}  # grad_fn._saved_alpha
    formula = "∂(a+b)/∂a = 1    ∂(a+b)/∂b = 1"
    promotes = True
    alpha = 1

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        if alpha != 1:  # (the class says 1: most nodes then need no attribute dict)
            ctx.alpha = alpha
        if alpha == 1:
            return a + b
        if a.dtype.kind == "b":  # bool + alpha·bool stays bool ("or"), as in PyTorch
            return a | b if alpha else a.copy()
        return a + alpha * b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad if ctx.alpha == 1 else grad * ctx.alpha


class SubBackward0(Op):
    saved_attributes = {"alpha": "alpha"}  # grad_fn._saved_alpha
    formula = "∂(a−b)/∂a = 1    ∂(a−b)/∂b = −1"
    promotes = True
    alpha = 1

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        if alpha != 1:  # (the class says 1: most nodes then need no attribute dict)
            ctx.alpha = alpha
        return a - b if alpha == 1 else a - alpha * b

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad if ctx.alpha == 1 else -grad * ctx.alpha


class RsubBackward1(Op):
    """``number - tensor``: the number is a constant, so only the tensor is an input."""

    saved_attributes = {"alpha": "alpha"}  # grad_fn._saved_alpha
    formula = "∂(c−a)/∂a = −1"

    @staticmethod
    def forward(ctx, a, other, alpha=1):
        ctx.alpha = alpha
        return other - a if alpha == 1 else other - alpha * a

    @staticmethod
    def backward(ctx, grad):
        return -grad if ctx.alpha == 1 else -grad * ctx.alpha


class MulBackward0(Op):
    # PyTorch saves (and packs, with saved-tensor hooks) other before self.
    saved_names = ("other", "self")  # grad_fn._saved_...
    opmath_scalar = True  # (float16 times a number: see Op.opmath_scalar)
    formula = "∂(a·b)/∂a = b    ∂(a·b)/∂b = a"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        # Keep only what a gradient needs: b for a's, a for b's (x * 2 keeps no copy of x).
        needs = ctx.needs_input_grad
        ctx.save_for_backward(b if needs[0] else None, a if needs[1] else None)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        return (None if b is None else grad * b), (None if a is None else grad * a)


class DivBackward0(Op):
    # PyTorch saves (and packs, with saved-tensor hooks) other before self.
    saved_names = ("other", "self")  # grad_fn._saved_...
    opmath_scalar = True  # (float16 times a number: see Op.opmath_scalar)
    formula = "∂(a/b)/∂a = 1/b    ∂(a/b)/∂b = −a/b²"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        # a is needed only for b's gradient (x / 2 keeps no copy of x).
        ctx.save_for_backward(b, a if ctx.needs_input_grad[1] else None)
        return a / b

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        # b's in PyTorch's order, −grad·((a/b)/b): under create_graph it ends in MulBackward0
        return grad / b, (None if a is None else -grad * ((a / b) / b))


class NegBackward0(Op):
    formula = "∂(−a)/∂a = −1"

    @staticmethod
    def forward(ctx, a):
        return -a

    @staticmethod
    def backward(ctx, grad):
        return -grad


@tensor_method("add", "__add__", "__radd__")
@untested
def add(input, other=REQUIRED, *, alpha=1) -> Tensor:
    """``input + alpha * other``, with broadcasting.

    >>> import teachgrad as torch
    >>> torch.tensor([1., 2.]) + 1
    tensor([2., 3.])
    """
    if alpha is _ONE:  # the usual alpha=1, in one check (see _ONE)
        return _binary(AddBackward0, input, other)
    alpha = _checked_alpha("add", alpha, input, other)
    return _binary(AddBackward0, input, other, alpha=alpha)


@tensor_method("sub", "__sub__", "subtract")
@untested
def sub(input, other=REQUIRED, *, alpha=1) -> Tensor:
    """``input - alpha * other``, with broadcasting."""
    _check_bool_subtraction(input, other)
    if alpha is not _ONE:  # (the usual alpha=1 costs one check, see _ONE)
        alpha = _checked_alpha("sub", alpha, input, other)
    return _binary(SubBackward0, input, other, alpha=alpha)


# CPython keeps one object for the int 1: the default alpha, and any 1 computed, is this one.
# (Where it were not, alpha=1 would only take the checked path below, which accepts it.)
_ONE = 1


def _checked_alpha(name: str, alpha, input, other):
    """``alpha`` as a Python number, after PyTorch's checks (its ``alpha_check``).

    The result's dtype decides what alpha may be: a float only for floating results
    (``int_tensor.add(x, alpha=0.5)`` would otherwise quietly make floats), a bool only
    for bool results, and never a complex number (teachgrad has no complex results).
    """
    if not is_number(alpha):
        Signatures(name, "(*, Number alpha = 1)").check((), {"alpha": alpha})
    if isinstance(alpha, (Tensor, np.generic)):
        alpha = alpha.item()
    elif type(alpha) is int and not _LONG_MIN <= alpha <= _ULONG_MAX:  # (alpha=2**70)
        raise int_too_big(alpha)
    result = result_type(_operand(input), _operand(other)).numpy
    if isinstance(alpha, bool) and result.kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if result.kind != "f" and not isinstance(alpha, int):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
            "\nHint: an integer tensor stays integer; convert it first (x.float()) to scale "
            "by a fraction."
        )
    if isinstance(alpha, complex):
        raise RuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number."
        )
    if result.kind in "iu" and type(alpha) is int:
        return _integer_alpha(name, alpha, result)
    return alpha


def _integer_alpha(name: str, alpha: int, result: np.dtype) -> int:
    """An int ``alpha`` for an integer result: PyTorch converts it to the result's dtype,
    refusing what does not fit (``int8_tensor.add(1, alpha=300)``). sub and rsub add
    ``-alpha`` times ``other``, negated in 64 bits (wrapping: ``sub(1, alpha=-2**63)``
    works, and ``alpha=2**64 - 1`` is -1), and convert that. Returned wrapped into the
    dtype's range where it is not (the same result modulo 2**bits), so NumPy takes it."""
    if name in ("sub", "rsub"):
        check_fill_value((-alpha + 2**63) % 2**64 - 2**63, result)
    else:
        check_fill_value(alpha, result)
    info = np.iinfo(result)
    if info.min <= alpha <= info.max:
        return alpha
    return (alpha - int(info.min)) % (int(info.max) - int(info.min) + 1) + int(info.min)


def _check_bool_subtraction(a, b) -> None:
    """PyTorch refuses ``-`` as soon as one operand is bool (a tensor or ``True``)."""
    a_bool, b_bool = _is_bool(a), _is_bool(b)
    if a_bool and b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if a_bool or b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def _is_bool(x) -> bool:
    return isinstance(x, bool) or (isinstance(x, Tensor) and x._data.dtype == np.bool_)


@tensor_method("__rsub__")
def rsub(input, other, *, alpha=1) -> Tensor:
    """``other - alpha * input``: what ``2 - x`` computes."""
    if isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)
    _check_bool_subtraction(other, input)
    if alpha is not _ONE:
        alpha = _checked_alpha("rsub", alpha, input, other)
    other = _operand(other)
    if type(input._vc) is not list and inference.wraps_the_number(input):
        return sub(inference.wrapped(other), input, alpha=alpha)
    if isinstance(other, float) and input._data.dtype.kind != "f":
        input = _floating(input)
    return RsubBackward1.apply(input, other=other, alpha=alpha)


@tensor_method("mul", "__mul__", "__rmul__", "multiply")
@untested
def mul(input, other=REQUIRED) -> Tensor:
    """Elementwise product, with broadcasting.

    >>> import teachgrad as torch
    >>> torch.tensor([1., 2.]) * torch.tensor([3., 4.])
    tensor([3., 8.])
    """
    return _binary(MulBackward0, input, other)


@tensor_method("div", "__truediv__", "divide", "true_divide")
@untested
def div(input, other=REQUIRED, *, rounding_mode: str | None = None) -> Tensor:
    """Elementwise true division (integers give floats), with broadcasting."""
    input, other = _operand(input), _operand(other)
    if rounding_mode is not None:
        return _rounded_division(input, other, rounding_mode)
    # True division of integers gives the default float dtype, as in PyTorch.
    if not _is_floating(input) and not _is_floating(other):
        input = _floating(input) if isinstance(input, Tensor) else float(input)
    return _binary(DivBackward0, input, other)


@tensor_method("__rtruediv__")
def _rtruediv(input: Tensor, other) -> Tensor:
    # PyTorch computes ``2 / x`` as ``x.reciprocal() * 2`` (hence grad_fn=MulBackward0).
    return mul(reciprocal(input), other)


def _is_floating(x) -> bool:
    return x._data.dtype.kind == "f" if isinstance(x, Tensor) else isinstance(x, float)


def _rounded_division(a, b, mode: str, node: type[Op] | None = None) -> Tensor:
    """``a / b`` rounded down (``mode="floor"``) or toward zero (``"trunc"``).

    The result is a step function: its gradient is 0 wherever it exists. PyTorch still
    records a node when an input requires grad, ``DivBackward2`` (it sends zeros) for
    ``div(rounding_mode=...)``, and for ``//`` one whose backward refuses (``node``).
    """
    if mode not in ("floor", "trunc"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'"
        )
    operands = _division_operands(a, b, "div_floor_cpu" if mode == "floor" else "div_trunc_cpu")
    tracked = [x for x in (a, b) if isinstance(x, Tensor) and needs_derivative(x)]
    if tracked and operands[0].dtype.kind == "f":
        return (node or DivBackward2).apply(a, b, rounding_mode=mode, operands=operands)
    return _make(np.asarray(_rounded_quotient(*operands, mode)))


def _rounded_quotient(aa: np.ndarray, bb: np.ndarray, mode: str) -> np.ndarray:
    if mode == "floor":
        return np.floor_divide(aa, bb)
    if aa.dtype.kind == "f":
        return np.trunc(aa / bb)
    # (For integers, ``np.trunc(aa / bb)`` would go through float64 and lose digits.)
    quotient = np.floor_divide(aa, bb)
    rounded_down = (quotient < 0) & (quotient * bb != aa)
    return quotient + rounded_down.astype(quotient.dtype)


class DivBackward2(Op):
    """``div(a, b, rounding_mode=...)``: a staircase, flat between its steps."""

    formula = "∂⌊a/b⌋/∂a = 0   ∂⌊a/b⌋/∂b = 0   (flat steps; no slope anywhere)"
    # PyTorch keeps other, and self when other needs a gradient (div's formula, though its
    # zero gradient never reads them): an in-place change of them makes backward refuse.
    saved_names = ("other", "self")  # grad_fn._saved_..., in PyTorch's order
    saved_attributes = {"rounding_mode": "rounding_mode"}

    @staticmethod
    def forward(ctx, a, b, rounding_mode, operands):
        # ``operands`` are a and b already cast to PyTorch's result dtype.
        ctx.rounding_mode = rounding_mode
        # (a Python number is kept as PyTorch keeps it: a 0-d tensor of its own type)
        ctx.save_for_backward(b if type(b) is np.ndarray else np.asarray(b),
                              (a if type(a) is np.ndarray else np.asarray(a))
                              if ctx.needs_input_grad[1] else None)
        return _rounded_quotient(*operands, rounding_mode)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check (an input changed in place?)
        zero = zero_grad_like(grad)
        return zero, zero


class _FloorDivideNotImplemented(DivBackward2):
    """``a // b`` on tensors that require grad: PyTorch records a node that refuses.

    The same forward as ``DivBackward2``; only the backward differs.
    """

    formula = "∂(a // b)/∂a: not defined in PyTorch (use div(a, b, rounding_mode='floor'))"

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(
            "derivative for aten::floor_divide is not implemented"
            "\nHint: // has no gradient in PyTorch. torch.div(a, b, rounding_mode='floor') "
            "gives the same values with a (zero) gradient; or detach() the result."
        )

    def name(self) -> str:
        return "torch::autograd::NotImplemented"


_FloorDivideNotImplemented.__name__ = "NotImplemented"  # how PyTorch prints it: <NotImplemented>


def _cast(x, dtype: np.dtype) -> np.ndarray:
    """``x`` (a tensor or a number) as an array of ``dtype``.

    A Python int that does not fit wraps around as in C, as PyTorch casts it: for a uint8
    tensor, ``x & -1`` is ``x & 255`` and ``x % 300`` is ``x % 44`` (NumPy would raise).
    """
    return np.asarray(_value(x)).astype(dtype, copy=False)


def _division_operands(a, b, kernel: str) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and ``b`` as arrays of PyTorch's result dtype, for ``//``, ``%`` and rounded division.

    PyTorch refuses bool results and integer division by zero (floats give inf or nan).
    """
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        _check_broadcast(a, b)
    dtype = result_type(a, b).numpy
    if dtype == np.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    aa, bb = _cast(a, dtype), _cast(b, dtype)
    # (PyTorch's kernel checks each element it computes: an empty result raises nothing.)
    if dtype.kind != "f" and not bb.all() and np.broadcast(aa, bb).size:
        raise RuntimeError(
            "ZeroDivisionError"
            "\nHint: an integer divisor is 0. Integer // and % by 0 have no result; with "
            "floats, x // 0 gives inf and x % 0 gives nan."
        )
    return aa, bb


@tensor_method("__floordiv__")
@untested
def floor_divide(input, other=REQUIRED) -> Tensor:
    """``input // other``, rounded down (not differentiable).

    >>> import teachgrad as torch
    >>> torch.tensor([7, -7]) // 2
    tensor([ 3, -4])
    """
    return _rounded_division(_operand(input), _operand(other), "floor",
                             _FloorDivideNotImplemented)


@tensor_method("__rfloordiv__")
def _rfloordiv(input, other) -> Tensor:
    return _rounded_division(_operand(other), input, "floor", _FloorDivideNotImplemented)


def _python_mod(a: np.ndarray, b) -> np.ndarray:
    """``a mod b`` with the sign of ``b``, computed as PyTorch does: ``fmod``, then ``+ b``
    where the signs disagree. The result is the same as ``np.mod`` except for the sign of
    a zero: PyTorch keeps fmod's (``-2. % 2 == -0.``, ``3. % -1.5 == 0.``)."""
    if a.dtype.kind != "f":
        return np.mod(a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.fmod(a, b)
        return np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)


class RemainderBackward0(Op):
    """``tensor % number``: the number is a constant, so only the tensor is an input."""

    formula = "∂(a mod c)/∂a = 1"

    @staticmethod
    def forward(ctx, a, other):
        return _python_mod(a, _cast(other, a.dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad


class RemainderBackward1(Op):
    """``tensor % tensor``: ``a mod b = a − b·⌊a/b⌋``, and the floor is flat."""
    saved_names = ("self", "other")  # grad_fn._saved_...

    formula = "∂(a mod b)/∂a = 1    ∂(a mod b)/∂b = −⌊a/b⌋"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        # a and b are needed only for b's gradient (x % y keeps nothing when y is a constant).
        if ctx.needs_input_grad[1]:
            ctx.save_for_backward(a, b)
        return _python_mod(a, b)

    @staticmethod
    def backward(ctx, grad):
        if not ctx.needs_input_grad[1]:
            return grad, None
        a, b = ctx.saved_tensors
        if isinstance(grad, Tensor):  # under create_graph: PyTorch's formula, whose (flat)
            # rounded division is recorded, so the gradient requires grad as PyTorch's does
            return grad, -grad * div(a, b, rounding_mode="floor")
        return grad, -grad * np.floor_divide(_value(a), _value(b))  # the quotient is flat


class RemainderNotImplemented(Op):
    """The ``grad_fn`` of ``number % tensor``: PyTorch records a node with no derivative,
    so a backward through it raises instead of silently giving the tensor no gradient."""

    formula = "number % tensor has no derivative in PyTorch"

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, _, a, b):  # (a and b: the operands, already in the result dtype)
        return np.asarray(_python_mod(a, b))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::remainder is not implemented")


# PyTorch prints the node as ``<NotImplemented>`` (see elementary.HeavisideNotImplemented).
RemainderNotImplemented.__name__ = RemainderNotImplemented.__qualname__ = "NotImplemented"


@tensor_method("remainder", "__mod__")
@untested
def remainder(input, other=REQUIRED) -> Tensor:
    """Python-style ``input % other``: the result has the sign of ``other``.

    Differentiable in ``input`` (slope 1) and in a tensor ``other`` (slope ``-floor(input/other)``).

    >>> import teachgrad as torch
    >>> torch.tensor([5., -5.]) % 3
    tensor([2., 1.])
    """
    a, b = _operand(input), _operand(other)
    aa, bb = _division_operands(a, b, "remainder_cpu")  # the checks, and the result dtype
    if not isinstance(a, Tensor):  # number % tensor: PyTorch has no derivative for it, and
        return RemainderNotImplemented.apply(b, a=aa, b=bb)  # says so when asked for one
    if isinstance(b, Tensor):
        return RemainderBackward1.apply(a, b)  # (it casts both to the result dtype)
    if type(a._vc) is not list and inference.wraps_the_number(a):
        return remainder(a, inference.wrapped(b))
    if aa.dtype != a._data.dtype:  # an integer tensor % a float number: compute in floats
        a = _make(aa)
    return RemainderBackward0.apply(a, other=b)


@tensor_method("__rmod__")
def _rmod(input, other) -> Tensor:
    return remainder(other, input)


#: PyTorch's refusal of ``-t`` for a bool tensor (also raised where its kernels negate)
BOOL_NEGATION = ("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                 "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


@tensor_method("neg", "__neg__", "negative")
def neg(input: Tensor) -> Tensor:
    """``-input``."""
    if input._data.dtype == np.bool_:
        raise RuntimeError(BOOL_NEGATION)
    return NegBackward0.apply(input)


@tensor_method("__pos__", "positive")
def positive(input: Tensor) -> Tensor:
    """``+input``: the tensor itself, as in PyTorch."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ----------------------------------------------------------------------------------------
# Powers
# ----------------------------------------------------------------------------------------
class PowBackward0(Op):
    """``tensor ** number``."""
    saved_names = ("self",)  # grad_fn._saved_...
    saved_attributes = {"exponent": "exponent"}  # the number, as given (int or float)

    formula = "∂(aⁿ)/∂a = n·aⁿ⁻¹"

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        return _power(a, exponent)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        n = ctx.exponent
        if n == 0 and type(n) is not bool:
            return zero_grad_like(grad)
        # (PyTorch's shortcut for 0 asks exponent.equal(0.0), which a bool never is: for
        # a ** False its formula runs, 0·a⁻¹, so the gradient is recorded under
        # create_graph, and is nan at a = 0)
        # grad · (n·aⁿ⁻¹), grouped as PyTorch's pow_backward: the product's memory layout
        # follows a's (grad is often an expanded, strideless one), as its values' rounding
        if isinstance(a, Tensor):  # create_graph: n · aⁿ⁻¹ is PyTorch's MulBackward1
            return grad * times_number(a ** (n - 1), n)
        return grad * (n * _power(a, n - 1))


def _power(a, exponent):
    """``a ** exponent`` (a number) as PyTorch's kernel computes it.

    NumPy, like PyTorch, takes a square root for 0.5 (nan at −inf, −0 at −0, where C's
    pow gives +inf and +0); for −0.5 PyTorch takes 1/√a too (nan at −inf, −inf at −0),
    where NumPy's pow gives 0 and +inf.
    """
    if exponent == -0.5 and type(exponent) is float:
        return np.reciprocal(np.sqrt(a))
    if (getattr(a, "dtype", None) == np.float32 and exponent not in _POWER_SHORTCUTS
            and type(exponent) is not bool):
        # PyTorch's float32 kernel takes the exponent as a double and computes in double
        # (pow(double(a), 2.2), rounded once to float32); NumPy would round the exponent
        # to float32 first: 1.7f is 1.70000005, so x ** 1.7 was ulps off, and x ** 100.1
        # as much as 1e-5 relative.
        return np.power(a, np.float64(exponent)).astype(np.float32)
    return a**exponent


#: exponents PyTorch's pow kernel computes by a shortcut (sqrt, a product, a reciprocal),
#: not by the double pow above
_POWER_SHORTCUTS = frozenset((0, 1, 2, 3, -1, -2, 0.5))


class PowBackward1(Op):
    """``tensor ** tensor``."""
    saved_names = ("exponent", "self", "result")  # grad_fn._saved_..., in PyTorch"s order

    formula = "∂(aᵇ)/∂a = b·aᵇ⁻¹    ∂(aᵇ)/∂b = aᵇ·ln a"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        out = _integer_power(a, b) if b.dtype.kind in "iu" else a**b
        ctx.save_for_backward(b, a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        b, a, out = ctx.saved_tensors
        # a ** 0 is constant in a (b · a^(b-1) would give 0 · inf = nan at a = 0), and
        # 0 ** b with b >= 0 has no slope in b (log(0) would give nan): PyTorch's rules.
        constant = np.asarray(_value(b)) == 0
        flat = (np.asarray(_value(a)) == 0) & (np.asarray(_value(b)) >= 0)
        # (In a, PyTorch selects: an inf gradient still gives 0 where b = 0. In b it
        # multiplies, so there inf·0 is nan, as in PyTorch.)
        if type(grad) is Tensor:  # create_graph: PyTorch's formulas, node for node
            return (zero_where(constant, grad * (b * a ** minus_number(b, 1))),
                    grad * np.where(flat, 0, out * (a.log() if type(a) is Tensor  # (-inf at 0:
                                                    else np.log(np.where(flat, 1, a)))))  # unused)
        return (zero_where(constant, grad * (b * a ** (b - 1))),
                grad * np.where(flat, 0, out * np.log(np.where(flat, 1, a))))


class PowBackward2(Op):
    """``number ** tensor``: the number is a constant."""
    inference_out_name = "pow"  # (see Op: PyTorch's composite writes through pow_out)
    # PyTorch keeps the exponent too (its rule uses it where the base is 0), and calls the
    # number ``self``.
    saved_names = ("exponent", "result")  # grad_fn._saved_...
    saved_attributes = {"self": "base"}

    formula = "∂(cᵃ)/∂a = cᵃ·ln c"

    @staticmethod
    def forward(ctx, exponent, base):
        if exponent.dtype.kind in "iu" and isinstance(base, (int, np.integer)):
            out = _integer_power(np.asarray(base, exponent.dtype), exponent)
        else:
            out = np.power(base, exponent)
        ctx.save_for_backward(exponent, out)
        ctx.base = base
        return out

    @staticmethod
    def backward(ctx, grad):
        _, out = ctx.saved_tensors
        if ctx.base == 0:
            # 0 ** b is 0 (b > 0) or 1 (b = 0): flat, as PyTorch takes it. For b < 0 it is
            # inf and PyTorch's slope out·ln 0 is -inf.
            flat = np.asarray(_value(out)) <= 1
            return grad * np.where(flat, 0, out * -np.inf)
        if type(grad) is Tensor:  # create_graph: PyTorch's grad * (result * ln c), MulBackward1
            return grad * times_number(out, float(np.log(ctx.base)))
        return grad * out * np.log(ctx.base)


def _integer_power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a ** b`` for integer arrays, with PyTorch's answer for negative exponents.

    NumPy refuses them ("Integers to negative integer powers are not allowed"); PyTorch
    gives 1/aᵇ rounded toward zero: 1 for a = 1, ±1 for a = −1 (by b's parity), else 0.
    """
    negative = b < 0
    if not negative.any():
        return a**b
    out = a ** np.where(negative, 0, b)
    reciprocal = np.where(a == 1, 1, np.where(a == -1, 1 - 2 * (b % 2), 0))
    return np.where(negative, reciprocal, out).astype(out.dtype, copy=False)


def zero_of_dtype(dtype: np.dtype) -> np.ndarray:
    """A 0-d zero of ``dtype``, made once per dtype (read-only: it is shared).

    ``np.maximum(zero_of_dtype(a.dtype), a)`` is ``np.maximum(0, a)``, a third faster on
    small arrays: NumPy must work out which dtype a Python ``0`` takes on every call.

    >>> zero_of_dtype(np.dtype(np.float32))
    array(0., dtype=float32)
    """
    zero = _ZEROS.get(dtype)
    if zero is None:
        zero = _ZEROS[dtype] = np.zeros((), dtype)
        zero.flags.writeable = False
    return zero


_ZEROS: dict = {}


def one_for(y) -> np.ndarray | np.generic:
    """The number 1 in the form NumPy computes fastest with ``y`` (an array or a NumPy
    scalar): a 0-d array of ``y``'s dtype for an array, a NumPy scalar for a scalar.

    Backward formulas write ``one_for(y) - y * y`` for ``1 - y * y``: the same values, in
    half the time on a 1,000-element array, because NumPy works out which dtype a Python
    ``1`` takes on every call (see :func:`zero_of_dtype`). (NumPy scalars, which 0-d ops
    compute with, are fastest with a scalar; a 0-d array would take them the slow way.)

    >>> one_for(np.zeros(3, np.float32))
    array(1., dtype=float32)
    """
    ones = _ONES.get(y.dtype)
    if ones is None:
        array = np.ones((), y.dtype)
        array.flags.writeable = False  # (shared)
        ones = _ONES[y.dtype] = (array, array[()])
    return ones[0] if type(y) is np.ndarray else ones[1]


_ONES: dict = {}


def _value(x):
    """The array inside a tensor, or the array itself (for masks computed in backward)."""
    return x._data if isinstance(x, Tensor) else x


def sgn_of(x):
    """PyTorch's ``sgn`` of an array, as a constant slope: -1, 0 or 1 (int8), and 0 at a nan.

    (``np.sign`` gives nan at a nan, which would make the gradient nan where PyTorch's is 0.)
    A tensor (under ``create_graph``) gets a recorded ``sgn`` instead, as in PyTorch: its
    derivative is 0, but it keeps ``x`` in the graph, so a gradient such as ``|x|``'s
    requires grad and differentiates again (to zeros) rather than raising.
    """
    if isinstance(x, Tensor):
        return SgnBackward0.apply(x)
    return np.subtract(x > 0, x < 0, dtype=np.int8)


@tensor_method("pow", "__pow__")
@untested
def pow(input, exponent=REQUIRED) -> Tensor:  # noqa: A001 - PyTorch's name
    """``input ** exponent`` (either may be a number).

    >>> import teachgrad as torch
    >>> torch.tensor([1., 2., 3.]) ** 2
    tensor([1., 4., 9.])
    """
    if not isinstance(input, Tensor):
        exponent = _operand(exponent)
        if not isinstance(exponent, Tensor):
            raise TypeError(
                f"pow() received an invalid combination of arguments - got "
                f"({type(input).__name__}, {type(exponent).__name__})"
                "\nHint: at least one of base and exponent must be a tensor; for two "
                "numbers use Python's ** (or make one a tensor: torch.tensor(2.0) ** 3)."
            )
        return _rpow(exponent, input)
    exponent = _operand(exponent)
    if isinstance(exponent, Tensor):
        if _is_bool(input) and _is_bool(exponent):  # (PyTorch checks the shapes first)
            _check_shapes_broadcast(input._data.shape, exponent._data.shape)
        _check_bool_pow(input, exponent)
        return _binary(PowBackward1, input, exponent)
    if type(exponent) is int and not _LONG_MIN <= exponent <= _ULONG_MAX:  # (x ** 2**70)
        raise int_too_big(exponent)
    if isinstance(exponent, int) and exponent < 0 and input._data.dtype.kind in "iub":
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if input._data.dtype == np.bool_ and not isinstance(exponent, float):
        # Not differentiable; PyTorch keeps bool only for a bool exponent (NumPy gives int8).
        out = np.asarray(input._data.astype(np.int64) ** int(exponent))  # (0-d: an array)
        return _make(out.astype(np.bool_) if isinstance(exponent, bool) else out)
    if isinstance(exponent, float) and input._data.dtype.kind != "f":
        input = _floating(input)
    return PowBackward0.apply(input, exponent=exponent)


def _check_bool_pow(base, exponent) -> None:
    if _is_bool(base) and _is_bool(exponent):
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")


@tensor_method("__rpow__")
def _rpow(input: Tensor, base) -> Tensor:
    base = _operand(base)
    if isinstance(base, Tensor):
        return pow(base, input)
    _check_bool_pow(base, input)
    if isinstance(base, float) and input._data.dtype.kind != "f":
        input = _floating(input)
    return PowBackward2.apply(input, base=base)


@tensor_method()
def square(input: Tensor) -> Tensor:
    """``input ** 2`` (PyTorch records it as a pow: ``PowBackward0``)."""
    try:
        return pow(input, 2)
    except TypeError:  # (torch.square(3): pow takes a number first, square does not)
        if not isinstance(input, Tensor):
            raise not_a_tensor(input) from None
        raise


# ----------------------------------------------------------------------------------------
# Unary functions
# ----------------------------------------------------------------------------------------
def _unary(op: type[Op], x: Tensor, floating: bool = True) -> Tensor:
    if not isinstance(x, Tensor):  # torch.exp(1.0): PyTorch's parser takes tensors only
        raise not_a_tensor(x)
    if floating and x._data.dtype.kind != "f":
        x = _floating(x)
    return op.apply(x)


class ExpBackward0(Op):
    saved_names = ("result",)  # grad_fn._saved_...
    formula = "∂(eᵃ)/∂a = eᵃ"

    @staticmethod
    def forward(ctx, a):
        out = np.exp(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out


class Expm1Backward0(Op):
    saved_names = ("result",)  # grad_fn._saved_...
    formula = "∂(eᵃ−1)/∂a = eᵃ"

    @staticmethod
    def forward(ctx, a):
        out = np.expm1(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * plus_number(out, 1)  # (result + 1: AddBackward1 under create_graph)


class LogBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(ln a)/∂a = 1/a"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / a


class Log1PBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂ln(1+a)/∂a = 1/(1+a)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log1p(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / plus_number(a, 1)  # (self + 1: AddBackward1 under create_graph)


class Log2Backward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(log₂ a)/∂a = 1/(a·ln 2)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log2(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / times_number(a, float(np.log(2.0)))  # (MulBackward1 under create_graph)


class Log10Backward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(log₁₀ a)/∂a = 1/(a·ln 10)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log10(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / times_number(a, float(np.log(10.0)))  # (MulBackward1 under create_graph)


class SqrtBackward0(Op):
    saved_names = ("result",)  # grad_fn._saved_...
    formula = "∂(√a)/∂a = 1/(2√a)"

    @staticmethod
    def forward(ctx, a):
        out = np.sqrt(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if type(out) is Tensor:  # create_graph: PyTorch's 2 * result is MulBackward1
            return grad / times_number(out, 2)
        return grad / (2 * out)


class RsqrtBackward0(Op):
    saved_names = ("result",)  # grad_fn._saved_...
    formula = "∂(a^−½)/∂a = −½·a^−³ᐟ²"

    @staticmethod
    def forward(ctx, a):
        out = 1 / np.sqrt(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if type(grad) is Tensor and type(out) is Tensor:  # create_graph: PyTorch's formula
            return times_number(grad, -0.5) * out.pow(3)  # -0.5 * grad * result.pow(3)
        return -0.5 * grad * out * out * out


class ReciprocalBackward0(Op):
    saved_names = ("result",)  # grad_fn._saved_...
    formula = "∂(1/a)/∂a = −1/a²"

    @staticmethod
    def forward(ctx, a):
        out = 1 / a
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if type(grad) is Tensor and type(out) is Tensor:  # create_graph: PyTorch's order,
            return -grad * (out * out)                    # -grad * (result * result)
        return -grad * out * out


class AbsBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    inference_out_name = "abs"  # (see Op: PyTorch's composite writes through abs_out)
    formula = "∂|a|/∂a = sign(a)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.abs(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * sgn_of(a)  # (PyTorch's slope: 0 at a nan, not nan)


class SignBackward0(Op):
    formula = "∂sign(a)/∂a = 0"

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind == "b":  # True is 1, False 0: their own signs (NumPy has no loop)
            return a.copy()
        # NaN has no sign: PyTorch gives 0 (NumPy would give NaN).
        return np.sign(a) if a.dtype.kind != "f" else np.nan_to_num(np.sign(a), nan=0.0)

    @staticmethod
    def backward(ctx, grad):
        return zero_grad_like(grad)


class SinBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(sin a)/∂a = cos a"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.sin(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * np.cos(a)


class CosBackward0(Op):
    saved_names = ("self",)  # grad_fn._saved_...
    formula = "∂(cos a)/∂a = −sin a"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.cos(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * -np.sin(a)  # (PyTorch: grad * -sin(a), a Neg node under create_graph)


class TanBackward0(Op):
    saved_names = ("result",)  # grad_fn._saved_...
    formula = "∂(tan a)/∂a = 1 + tan²a"

    @staticmethod
    def forward(ctx, a):
        out = np.tan(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if type(grad) is Tensor and type(out) is Tensor:  # create_graph: PyTorch's formula
            return grad * plus_number(out.pow(2), 1)      # 1 + result.pow(2): AddBackward1
        return grad * (1 + out * out)


class TanhBackward0(Op):
    saved_names = ("result",)  # grad_fn._saved_...
    formula = "∂(tanh a)/∂a = 1 − tanh²a"

    @staticmethod
    def forward(ctx, a):
        out = np.tanh(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            return grad * (one_for(out) - out * out)  # 1 − y²
        return TanhBackwardBackward0.record(ctx, grad, out)  # create_graph: PyTorch's node


class TanhBackwardBackward0(RecordedBackward):
    formula = "tanh's backward g·(1 − y²):  ∂/∂g = 1 − y²    ∂/∂y = −2·g·y"

    @staticmethod
    def backward(ctx, gg):
        grad, out = ctx.saved_tensors
        return gg * (1 - out * out), -2 * gg * grad * out


class SigmoidBackward0(Op):
    saved_names = ("result",)  # grad_fn._saved_...
    formula = "∂σ(a)/∂a = σ(a)·(1 − σ(a))"

    @staticmethod
    def forward(ctx, a):
        # exp(-|a|) never overflows: for a < 0 use e^a/(1+e^a), the same value.
        e = np.exp(-np.abs(a))
        out = np.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype, copy=False)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            return grad * out * (one_for(out) - out)  # y·(1 − y)
        return SigmoidBackwardBackward0.record(ctx, grad, out)  # create_graph: PyTorch's node


class SigmoidBackwardBackward0(RecordedBackward):
    formula = "sigmoid's backward g·y·(1 − y):  ∂/∂g = y·(1 − y)    ∂/∂y = g·(1 − 2y)"

    @staticmethod
    def backward(ctx, gg):
        grad, out = ctx.saved_tensors
        return gg * out * (1 - out), gg * grad * (1 - 2 * out)


class ReluBackward0(Op):
    saved_names = ("result",)  # grad_fn._saved_...
    formula = "∂relu(a)/∂a = 1 if a > 0 else 0"

    @staticmethod
    def forward(ctx, a):
        out = np.maximum(zero_of_dtype(a.dtype), a)  # (a tie keeps a: relu(-0.) is -0., see _TIES)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        # PyTorch's threshold_backward: 0 where the output is <= 0, else the gradient (a
        # select: an inf gradient there gives 0, not inf·0 = nan; a nan output passes it).
        flat = _value(out) <= 0
        if isinstance(out, Tensor):  # create_graph: keep relu's output in the graph
            return ThresholdBackwardBackward0.apply(grad, out, flat=flat)
        return zero_where(flat, grad)


class ThresholdBackwardBackward0(Op):
    """relu's backward as a recorded op (under ``create_graph``): 0 where ``flat``, else ``grad``.

    ``flat`` (where relu's output is <= 0) is a constant, but as in PyTorch relu's output is
    an input too, with derivative 0: a second derivative through a relu is 0 rather than
    "x appears to not have been used in the graph". threshold and hardtanh reuse it under
    their own names.
    """

    formula = "∂/∂grad = 0 where flat, else 1    ∂/∂out = 0"

    @staticmethod
    def forward(ctx, grad, source, flat):
        ctx.flat = flat
        return zero_where(flat, grad)

    @staticmethod
    def backward(ctx, g):
        return zero_where(ctx.flat, g), np.zeros_like(g)


@tensor_method()
def exp(input: Tensor) -> Tensor:
    """``e ** input``, elementwise."""
    return _unary(ExpBackward0, input)


@tensor_method()
def expm1(input: Tensor) -> Tensor:
    """``exp(input) - 1``, accurate near 0."""
    return _unary(Expm1Backward0, input)


@tensor_method()
def log(input: Tensor) -> Tensor:
    """Natural logarithm, elementwise."""
    return _unary(LogBackward0, input)


@tensor_method()
def log1p(input: Tensor) -> Tensor:
    """``log(1 + input)``, accurate near 0."""
    return _unary(Log1PBackward0, input)


@tensor_method()
def log2(input: Tensor) -> Tensor:
    """Base-2 logarithm."""
    return _unary(Log2Backward0, input)


@tensor_method()
def log10(input: Tensor) -> Tensor:
    """Base-10 logarithm."""
    return _unary(Log10Backward0, input)


@tensor_method()
def sqrt(input: Tensor) -> Tensor:
    """Square root, elementwise."""
    return _unary(SqrtBackward0, input)


@tensor_method()
def rsqrt(input: Tensor) -> Tensor:
    """``1 / sqrt(input)``."""
    return _unary(RsqrtBackward0, input)


@tensor_method()
def reciprocal(input: Tensor) -> Tensor:
    """``1 / input``."""
    return _unary(ReciprocalBackward0, input)


@tensor_method()
def sin(input: Tensor) -> Tensor:
    """Sine, elementwise."""
    return _unary(SinBackward0, input)


@tensor_method()
def cos(input: Tensor) -> Tensor:
    """Cosine, elementwise."""
    return _unary(CosBackward0, input)


@tensor_method()
def tan(input: Tensor) -> Tensor:
    """Tangent, elementwise."""
    return _unary(TanBackward0, input)


@tensor_method()
def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent, elementwise."""
    return _unary(TanhBackward0, input)


@tensor_method()
def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-input))``, computed without overflow."""
    return _unary(SigmoidBackward0, input)


@tensor_method("abs", "__abs__", "absolute")
def abs(input: Tensor) -> Tensor:  # noqa: A001 - PyTorch's name
    """Absolute value (its gradient at 0 is 0, as PyTorch)."""
    if isinstance(input, Tensor) and input._data.dtype == np.bool_:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return _unary(AbsBackward0, input, floating=False)


@tensor_method()
def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 by the sign of each element (zero gradient)."""
    return _unary(SignBackward0, input, floating=False)


@tensor_method()
def relu(input: Tensor) -> Tensor:
    """``max(input, 0)``, elementwise.

    >>> import teachgrad as torch
    >>> torch.tensor([-1., 2.]).relu()
    tensor([0., 2.])
    """
    if isinstance(input, Tensor) and input._data.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return _unary(ReluBackward0, input, floating=False)


# ----------------------------------------------------------------------------------------
# Clamping, maximum/minimum, where
# ----------------------------------------------------------------------------------------
class _ClampByNumbers(Op):
    """``clamp`` with number bounds (either may be None): ``a`` is the only input."""

    formula = "∂clamp(a)/∂a = 1 inside [min, max], else 0"
    saved_names = ("self",)  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, min=None, max=None):  # noqa: A002 - PyTorch's argument names
        ctx.save_for_backward(a)
        ctx.bounds = (min, max)
        if a.dtype.kind == "f" and (min is not None or max is not None):
            # (np.clip gives the bound at a tie; PyTorch gives a: see _TIES)
            out = a if min is None else np.maximum(min, a)
            return out if max is None else np.minimum(max, out)
        return np.clip(a, min, max)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        low, high = ctx.bounds
        a = _value(a)
        inside = np.ones(a.shape, dtype=bool)
        if low is not None:
            inside &= a >= low
        if high is not None:
            inside &= a <= high
        return keep_where(inside, grad)  # (a select, as PyTorch's: see select_grad)


class ClampBackward1(_ClampByNumbers):
    """``clamp(min, max)`` with numbers: PyTorch shows both bounds (a missing one is None)."""

    saved_attributes = {"min": lambda node: node.bounds[0], "max": lambda node: node.bounds[1]}


class ClampMinBackward0(_ClampByNumbers):
    """``clamp_min(number)``: the same op, under the name PyTorch gives it."""

    saved_attributes = {"min": lambda node: node.bounds[0]}


class ClampMaxBackward0(_ClampByNumbers):
    """``clamp_max(number)``: the same op, under the name PyTorch gives it."""

    saved_attributes = {"max": lambda node: node.bounds[1]}


class ClampBackward0(Op):
    """``clamp`` with a tensor bound: the bounds are inputs too (a missing one is None).

    Unlike ``maximum``/``minimum``, a tie gives its whole gradient to ``a``, as in PyTorch.
    """

    formula = "∂clamp/∂a = 1 where min ≤ a ≤ max    ∂clamp/∂min = 1 where a < min    " \
        "∂clamp/∂max = 1 where a > max"

    saved_names = ("max", "min", "self")  # grad_fn._saved_..., in PyTorch"s order

    @staticmethod
    def forward(ctx, a, low, high):
        # Three operands, so the cast to PyTorch's result dtype happens here, not in apply.
        dtype = result_type(*[x for x in (a, low, high) if x is not None]).numpy
        a, low, high = [None if x is None else np.asarray(x, dtype) for x in (a, low, high)]
        ctx.save_for_backward(high, low, a)
        out = a if low is None else np.maximum(low, a)  # (a tie keeps a: see _TIES)
        return out if high is None else np.minimum(high, out)

    @staticmethod
    def backward(ctx, grad):
        high, low, a = [None if x is None else _value(x) for x in ctx.saved_tensors]
        if high is None:
            return keep_where(a >= low, grad), keep_where(a < low, grad), None
        if low is None:
            return keep_where(a <= high, grad), None, keep_where(a > high, grad)
        # When min > max every result is max: the gradient goes to max alone.
        return (keep_where((a >= low) & (a <= high), grad),
                keep_where((a < low) & (low < high), grad),
                keep_where((a > high) | (high < low), grad))


class ClampMinBackward1(Op):
    """``clamp_min(tensor)``."""

    saved_names = ("min", "self")  # grad_fn._saved_..., in PyTorch"s order
    formula = "∂clamp_min/∂a = 1 where a ≥ min    ∂clamp_min/∂min = 1 where a < min"
    promotes = True

    @staticmethod
    def forward(ctx, a, low):
        ctx.save_for_backward(low, a)
        return np.maximum(a, low)

    @staticmethod
    def backward(ctx, grad):
        low, a = (_value(x) for x in ctx.saved_tensors)
        return keep_where(a >= low, grad), keep_where(a < low, grad)


class ClampMaxBackward1(Op):
    """``clamp_max(tensor)``."""

    saved_names = ("max", "self")  # grad_fn._saved_..., in PyTorch"s order
    formula = "∂clamp_max/∂a = 1 where a ≤ max    ∂clamp_max/∂max = 1 where a > max"
    promotes = True

    @staticmethod
    def forward(ctx, a, high):
        ctx.save_for_backward(high, a)
        return np.minimum(a, high)

    @staticmethod
    def backward(ctx, grad):
        high, a = (_value(x) for x in ctx.saved_tensors)
        return keep_where(a <= high, grad), keep_where(a > high, grad)


@tensor_method("clamp", "clip")
@checks_types("clamp", "(Tensor min = None, Tensor max = None)",
              "(Number min = None, Number max = None)", function=(
    "(Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)",
    "(Tensor input, Number min = None, Number max = None, *, Tensor out = None)"))
def clamp(input: Tensor, min=None, max=None) -> Tensor:  # noqa: A002
    """Limit every element to ``[min, max]`` (either bound may be omitted, or be a tensor).

    >>> import teachgrad as torch
    >>> torch.tensor([-2., 0.5, 3.]).clamp(0, 1)
    tensor([0.0000, 0.5000, 1.0000])
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if type(min) is complex or type(max) is complex:
        min, max = _real_bounds("clamp", input, min, max)
    min, max = (None if v is None else _operand(v) for v in (min, max))  # np.float64 -> float
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        for bound in (min, max):
            if isinstance(bound, Tensor) and bound._data.shape != input._data.shape:
                _check_broadcast(input, bound)
        return ClampBackward0.apply(input, min, max)
    return _clamp_by_numbers(ClampBackward1, input, min, max)


clip = clamp  # PyTorch's alias (NumPy's name)


def _real_bounds(name: str, input: Tensor, min, max) -> tuple:  # noqa: A002
    """Bounds of which one is a complex number, as PyTorch takes them: ``clamp`` of a
    floating tensor reads a complex number with no imaginary part as its real part (with
    one, "value cannot be converted to type double"); anything else is refused as complex
    (an int beyond 64 bits is refused first: PyTorch's parser reads the ints first)."""
    for bound in (min, max):
        if type(bound) is int and not _LONG_MIN <= bound <= _ULONG_MAX:
            raise int_too_big(bound)
    if name != "clamp" or input._data.dtype.kind != "f":
        raise NotImplementedError(
            "clamp is not supported for complex types\nHint: a bound must be a real number "
            "here; teachgrad has no complex tensors.")
    bounds = []
    for bound in (min, max):
        if type(bound) is complex:
            if bound.imag:
                raise RuntimeError(
                    "value cannot be converted to type double without overflow\nHint: a "
                    "bound must be a real number; this one has an imaginary part.")
            bound = bound.real
        bounds.append(bound)
    return tuple(bounds)


def _clamp_by_numbers(op: type[Op], input: Tensor, min, max) -> Tensor:  # noqa: A002
    min, max = (None if v is None else _operand(v) for v in (min, max))
    if any(isinstance(v, float) for v in (min, max)) and input._data.dtype.kind != "f":
        input = _floating(input)
    # A bound must fit the dtype, as PyTorch checks it (int8_tensor.clamp(0, 300) and
    # float16_tensor.clamp(1e5) are refused); an unsigned dtype wraps a negative int.
    dtype = input._data.dtype
    if dtype.kind != "b":
        min, max = (None if v is None else check_fill_value(v, dtype) for v in (min, max))
    elif any(type(v) is int and _LONG_MAX < v <= _ULONG_MAX for v in (min, max)):
        raise bool_with_uint64()  # (a uint64 to PyTorch)
    return op.apply(input, min=min, max=max)


@tensor_method("clamp_min")
def clamp_min(input: Tensor, min=REQUIRED) -> Tensor:  # noqa: A002
    """``clamp(input, min=min)``."""
    if min is REQUIRED:  # (x.clamp_min(): PyTorch's words, see _missing_arguments)
        raise missing("clamp_min", clamp_min, input, min)
    if min is None:  # (no bound: clamp's, not clamp_min's; torch.clamp_min's wrapper
        # words this again from the function's signatures)
        raise Signatures("clamp_min", "(Tensor min)", "(Number min)").error((None,))
    if isinstance(min, Tensor):
        return _binary(ClampMinBackward1, input, min)
    if type(min) is complex:  # (PyTorch's clamp_min/clamp_max refuse any complex bound)
        _real_bounds("clamp_min", input, min, None)
    return _clamp_by_numbers(ClampMinBackward0, input, min, None)


@tensor_method("clamp_max")
def clamp_max(input: Tensor, max=REQUIRED) -> Tensor:  # noqa: A002
    """``clamp(input, max=max)``."""
    if max is REQUIRED:  # (x.clamp_max(): PyTorch's words, see _missing_arguments)
        raise missing("clamp_max", clamp_max, input, max)
    if max is None:  # (no bound: clamp's, not clamp_max's; torch.clamp_max's wrapper
        # words this again from the function's signatures)
        raise Signatures("clamp_max", "(Tensor max)", "(Number max)").error((None,))
    if isinstance(max, Tensor):
        return _binary(ClampMaxBackward1, input, max)
    if type(max) is complex:  # (PyTorch's clamp_min/clamp_max refuse any complex bound)
        _real_bounds("clamp_max", input, None, max)
    return _clamp_by_numbers(ClampMaxBackward0, input, None, max)


# _TIES: where the two values compare equal but differ, -0.0 and 0.0, PyTorch's kernels
# return the first operand (``maximum(0.0, -0.0)`` is 0.0, ``maximum(-0.0, 0.0)`` is -0.0;
# clamp and relu keep the input: ``relu(-0.0)`` is -0.0), as C++'s ``a < b ? b : a`` does.
# NumPy's maximum and minimum return the second, and its fmax/fmin depend on the array's
# length (their SIMD loops): so the operands go to NumPy swapped, and fmax/fmin choose with
# a comparison. The sign of a zero matters downstream (1/x, atan2, log's derivative).


def _tie_keeps_first(a, b, a_wins):
    """fmax/fmin: ``a`` where ``a_wins`` (ties included) or ``b`` is nan, else ``b``."""
    return np.where(a_wins | np.isnan(b), a, b)


class MaximumBackward0(Op):
    formula = "∂max(a,b)/∂a = 1 where a > b (½ where equal)"
    promotes = True
    saved_names = ("other", "self")  # grad_fn._saved_..., in PyTorch"s order

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(b, a)
        return np.maximum(b, a)  # (a tie gives a: see _TIES)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        a, b = _value(a), _value(b)
        # As PyTorch: ties share the gradient equally, the smaller side gets 0 (selected,
        # so an inf gradient gives 0 there), and where either is nan both get it all.
        shared = _halved_at_ties(a, b, grad)
        return masked_fill_zero(a < b, shared), masked_fill_zero(a > b, shared)


class MinimumBackward0(Op):
    formula = "∂min(a,b)/∂a = 1 where a < b (½ where equal)"
    promotes = True
    saved_names = ("other", "self")  # grad_fn._saved_..., in PyTorch"s order

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(b, a)
        return np.minimum(b, a)  # (a tie gives a: see _TIES)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        a, b = _value(a), _value(b)
        shared = _halved_at_ties(a, b, grad)
        return masked_fill_zero(a > b, shared), masked_fill_zero(a < b, shared)


def _halved_at_ties(a, b, grad):
    """``grad``, halved where ``a == b`` (maximum's and minimum's ties share it)."""
    ties = a == b
    if not np.any(ties):  # (the usual case: no second pass over the gradient)
        return grad
    return grad * np.where(ties, 0.5, 1.0).astype(np.result_type(a, b))


@tensor_method()
def maximum(input: Tensor, other) -> Tensor:
    """Elementwise maximum of two tensors."""
    return _binary(MaximumBackward0, input, other)


@tensor_method()
def minimum(input: Tensor, other) -> Tensor:
    """Elementwise minimum of two tensors."""
    return _binary(MinimumBackward0, input, other)


class WhereBackward0(Op):
    formula = "∂where(c, a, b)/∂a = 1 where c    ∂/∂b = 1 where not c"
    promotes = True
    layout_inputs = ("condition", 0, 1)  # PyTorch's where iterates the condition first
    # The condition is saved (a constant, not an input): PyTorch keeps it as a saved tensor,
    # freed by backward and seen by saved-tensor hooks.
    saved_names = ("condition",)  # grad_fn._saved_...

    @staticmethod
    def forward(ctx, a, b, condition):
        ctx.save_for_backward(condition)
        return np.where(condition, a, b)

    @staticmethod
    def backward(ctx, grad):
        c = _value(ctx.saved_tensors[0])
        return keep_where(c, grad), zero_where(c, grad)  # (np.where, branch-free when large)


def where(condition: Tensor, input: Tensor | float | None = None,
          other: Tensor | float | None = None) -> Tensor | tuple[Tensor, ...]:
    """Pick ``input`` where ``condition`` holds, else ``other``.

    ``where(condition)`` alone returns the indices of the true elements, as PyTorch.
    """
    if input is None or other is None:
        if input is not other or not isinstance(condition, Tensor):  # where(c, y), where(2.5)
            from .._function_signatures import refusal

            raise refusal("where", tuple(a for a in (condition, input, other) if a is not None))
        # nonzero(condition, as_tuple=True)
        # (a 0-d condition counts as one element; each index vector is contiguous, not a
        # column of one (n, ndim) array as NumPy's are)
        found = np.nonzero(np.atleast_1d(_value_of(condition)))
        return tuple(_make(np.ascontiguousarray(i, dtype=np.int64)) for i in found)
    cond = _value_of(condition)
    if cond.dtype != np.bool_:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{_make(cond).dtype._legacy[:-6]}"  # Long, Float... as PyTorch names them
        )
    input, other = _operand(input), _operand(other)
    if not isinstance(input, Tensor):
        input = _scalar_tensor(input, other)
    if not isinstance(other, Tensor):
        other = _scalar_tensor(other, input)
    _check_shapes_broadcast(cond.shape, input._data.shape)
    partial_shape = np.broadcast_shapes(cond.shape, input._data.shape)
    _check_shapes_broadcast(partial_shape, other._data.shape)
    out = WhereBackward0.apply(input, other, condition=cond)  # (np.where broadcasts cond)
    if isinstance(condition, Tensor):  # backward refuses a condition changed in place since
        check_saved_constant(out, 0, condition)
    return out


@tensor_method("where")
@checks_types("where", "(Tensor condition, Tensor other)", "(Tensor condition, Number other)",
              function=())  # (torch.where: its own checks)
def _where_method(self: Tensor, condition: Tensor, other) -> Tensor:
    """``x.where(condition, y)`` is ``torch.where(condition, x, y)``: ``x`` is the input."""
    return where(condition, self, other)


def _scalar_dtype(x, partner):
    if isinstance(partner, Tensor):  # as PyTorch promotes a number with a tensor
        return result_type(x, partner).numpy
    return get_default_dtype().numpy if isinstance(x, float) else np.int64


def _scalar_tensor(x, partner) -> Tensor:
    """A number of ``where`` as a 0-d tensor of the dtype it promotes to with ``partner``;
    one that dtype cannot hold is PyTorch's error (``where(c, int8_tensor, 300)``), not
    NumPy's."""
    dtype = np.dtype(_scalar_dtype(x, partner))
    if type(x) is int and _LONG_MAX < x <= _ULONG_MAX and partner._data.dtype.kind == "b":
        raise bool_with_uint64()  # (x is a uint64 to PyTorch)
    return _make(np.asarray(check_fill_value(x, dtype), dtype=dtype))


def _value_of(x) -> np.ndarray:
    return x._data if isinstance(x, Tensor) else np.asarray(x)


# ----------------------------------------------------------------------------------------
# Comparisons and logic: not differentiable, so plain NumPy on the data
# ----------------------------------------------------------------------------------------
def _compare(ufunc, a, b) -> Tensor:
    b = _operand(b)
    if isinstance(b, Tensor):
        _check_broadcast(a, b)
        x, y = a._data, b._data
        if x.dtype != y.dtype:
            # compared in PyTorch's promoted dtype, not NumPy's: a 0-d float64 tensor
            # does not promote a float32 one, so float32(0.553) != tensor(0.553,
            # dtype=float64) is False (NumPy would compare in float64)
            common = result_type(a, b).numpy
            x, y = x.astype(common, copy=False), y.astype(common, copy=False)
        return _make(np.asarray(ufunc(x, y)))
    if type(b) is int and not 0 <= b <= 127:  # (what every dtype holds needs no cast;
        b = int_operand(b, a._data.dtype)  # int8_tensor == 257 compares with 1: it wraps)
    return _make(np.asarray(ufunc(a._data, b)))


_COMPLEX_NUMBER = (complex, np.complexfloating)  # equal to a real number only if .imag is 0


@tensor_method("__eq__")
def _eq_operator(input: Tensor, other) -> Tensor:
    """``x == y``: :func:`eq`, except that ``x == None`` is False, as Python's ``==`` is
    (the call ``torch.eq(x, None)`` is refused, as PyTorch's parser refuses it)."""
    if other is None:
        return False
    if isinstance(other, _COMPLEX_NUMBER):
        return _make(np.asarray(np.equal(input._data, other)))
    return _compare(np.equal, input, other)


@tensor_method("__ne__")
def _ne_operator(input: Tensor, other) -> Tensor:
    """``x != y``: :func:`ne`, except that ``x != None`` is True (see ``_eq_operator``)."""
    if other is None:
        return True
    if isinstance(other, _COMPLEX_NUMBER):
        return _make(np.asarray(np.not_equal(input._data, other)))
    return _compare(np.not_equal, input, other)


def _compared_with_none(name: str) -> TypeError:
    """PyTorch's refusal of ``x.eq(None)`` (``torch.eq(x, None)``: its wrapper words it
    from the function's signatures)."""
    return Signatures(name, "(Tensor other)", "(Number other)").error((None,))


@tensor_method("eq")
@untested
def eq(input: Tensor, other=REQUIRED) -> Tensor:
    """Elementwise ``==`` (a bool tensor)."""
    if other is None:
        raise _compared_with_none("eq")
    if isinstance(other, _COMPLEX_NUMBER):  # (PyTorch compares, teachgrad has no complex tensor)
        return _make(np.asarray(np.equal(input._data, other)))
    return _compare(np.equal, input, other)


@tensor_method("ne", "not_equal")
@untested
def ne(input: Tensor, other=REQUIRED) -> Tensor:
    """Elementwise ``!=``."""
    if other is None:
        raise _compared_with_none("ne")
    if isinstance(other, _COMPLEX_NUMBER):  # (PyTorch compares, teachgrad has no complex tensor)
        return _make(np.asarray(np.not_equal(input._data, other)))
    return _compare(np.not_equal, input, other)


@tensor_method("lt", "__lt__", "less")
@untested
def lt(input: Tensor, other=REQUIRED) -> Tensor:
    """Elementwise ``<``."""
    return _compare(np.less, input, other)


@tensor_method("le", "__le__", "less_equal")
@untested
def le(input: Tensor, other=REQUIRED) -> Tensor:
    """Elementwise ``<=``."""
    return _compare(np.less_equal, input, other)


@tensor_method("gt", "__gt__", "greater")
@untested
def gt(input: Tensor, other=REQUIRED) -> Tensor:
    """Elementwise ``>``."""
    return _compare(np.greater, input, other)


@tensor_method("ge", "__ge__", "greater_equal")
@untested
def ge(input: Tensor, other=REQUIRED) -> Tensor:
    """Elementwise ``>=``."""
    return _compare(np.greater_equal, input, other)


@tensor_method()
def logical_and(input: Tensor, other) -> Tensor:
    """Elementwise "both are nonzero" (a bool tensor, whatever the dtypes)."""
    return _compare(np.logical_and, input, other)


@tensor_method()
def logical_or(input: Tensor, other) -> Tensor:
    """Elementwise "either is nonzero" (a bool tensor)."""
    return _compare(np.logical_or, input, other)


@tensor_method()
def logical_xor(input: Tensor, other) -> Tensor:
    """Elementwise "exactly one is nonzero" (a bool tensor)."""
    return _compare(np.logical_xor, input, other)


@tensor_method()
def logical_not(input: Tensor) -> Tensor:
    """Elementwise "is zero" (a bool tensor)."""
    return _make(np.asarray(np.logical_not(input._data)))  # (0-d: an array, not a scalar)


def _bitwise(kernel: str, on_bools, on_integers, a: Tensor, b) -> Tensor:
    """``&``, ``|``, ``^`` in PyTorch's result dtype: bools stay bool, floats are refused."""
    b = _operand(b)
    if isinstance(b, Tensor):
        _check_broadcast(a, b)
    dtype = result_type(a, b)
    if dtype.is_floating_point:
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{dtype._legacy.removesuffix("Tensor")}\''
            "\nHint: bitwise operators work on bool and integer tensors; to combine "
            "conditions, compare first: (x > 0) & (x < 1)."
        )
    ufunc = on_bools if dtype.numpy == np.bool_ else on_integers
    return _make(np.asarray(ufunc(_value(a), _cast(b, dtype.numpy))))


@tensor_method("bitwise_and", "__and__", "__rand__")
@untested
def bitwise_and(input: Tensor, other=REQUIRED) -> Tensor:
    """Elementwise ``&``: "and" of bool tensors, bit by bit for integers."""
    return _bitwise("bitwise_and_cpu", np.logical_and, np.bitwise_and, input, other)


@tensor_method("bitwise_or", "__or__", "__ror__")
@untested
def bitwise_or(input: Tensor, other=REQUIRED) -> Tensor:
    """Elementwise ``|``: "or" of bool tensors, bit by bit for integers."""
    return _bitwise("bitwise_or_cpu", np.logical_or, np.bitwise_or, input, other)


@tensor_method("bitwise_xor", "__xor__", "__rxor__")
@untested
def bitwise_xor(input: Tensor, other=REQUIRED) -> Tensor:
    """Elementwise ``^``: "exactly one" of bool tensors, bit by bit for integers."""
    return _bitwise("bitwise_xor_cpu", np.logical_xor, np.bitwise_xor, input, other)


@tensor_method()
def bitwise_not(input: Tensor) -> Tensor:
    """Elementwise ``~``: "not" of a bool tensor, every bit flipped for integers."""
    if input._data.dtype.kind == "f":
        name = input.dtype._legacy.removesuffix("Tensor")
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{name}'")
    return _make(np.asarray(np.invert(input._data)))  # (of a bool array: logical not)


@tensor_method("__invert__")
def _invert(input: Tensor) -> Tensor:
    if input._data.dtype.kind == "f":
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            "\nHint: to invert a mask, make it with a comparison first: ~(x > 0)."
        )
    return bitwise_not(input)


@tensor_method()
def isnan(input: Tensor) -> Tensor:
    """Which elements are NaN."""
    return _make(np.asarray(np.isnan(input._data)))  # (0-d: an array, not a scalar)


@tensor_method()
def isinf(input: Tensor) -> Tensor:
    """Which elements are ±inf."""
    return _make(np.asarray(np.isinf(input._data)))


@tensor_method()
def isfinite(input: Tensor) -> Tensor:
    """Which elements are finite."""
    return _make(np.asarray(np.isfinite(input._data)))


class _RoundingBackward(Op):
    """Rounding is flat almost everywhere: its gradient is zero (as in PyTorch)."""

    formula = "∂round(a)/∂a = 0"

    @staticmethod
    def forward(ctx, a, fn):
        return fn(a)

    @staticmethod
    def backward(ctx, grad):
        return zero_grad_like(grad)


class FloorBackward0(_RoundingBackward):
    formula = "∂⌊a⌋/∂a = 0"


class CeilBackward0(_RoundingBackward):
    formula = "∂⌈a⌉/∂a = 0"


class RoundBackward0(_RoundingBackward):
    pass


class RoundBackward1(_RoundingBackward):
    """``round(decimals=...)``: PyTorch's node for that overload (decimals=0 too)."""


class TruncBackward0(_RoundingBackward):
    formula = "∂trunc(a)/∂a = 0"


def _rounding(op: type[Op], fn, input: Tensor) -> Tensor:
    if input._data.dtype.kind != "f":  # integers are already round
        if input._data.dtype == np.bool_:  # (PyTorch has no bool kernel)
            raise NotImplementedError(
                f"\"{fn.__name__ if fn.__name__ != '<lambda>' else 'round'}_vml_cpu\" not "
                "implemented for 'Bool'"
            )
        return _make(input._data.copy())
    return op.apply(input, fn=fn)


@tensor_method()
def floor(input: Tensor) -> Tensor:
    """Round down (zero gradient, as PyTorch)."""
    return _rounding(FloorBackward0, np.floor, input)


@tensor_method()
def ceil(input: Tensor) -> Tensor:
    """Round up (zero gradient)."""
    return _rounding(CeilBackward0, np.ceil, input)


@tensor_method()
@checks_types("round", "()", "(*, int decimals)", function=(
    "(Tensor input, *, Tensor out = None)", "(Tensor input, *, int decimals, Tensor out = None)"))
def round(input: Tensor, *, decimals: int = NOT_GIVEN) -> Tensor:  # noqa: A001
    """Round half to even (zero gradient); to ``decimals`` places if given."""
    if decimals is NOT_GIVEN:  # (PyTorch's other overload and node; None is refused)
        return _rounding(RoundBackward0, np.round, input)
    if input._data.dtype.kind != "f":  # the decimals kernel has no integer types at all
        raise _no_kernel("round_cpu", input)
    return _rounding(RoundBackward1, lambda a: np.round(a, decimals), input)


def _no_kernel(kernel: str, input: Tensor) -> NotImplementedError:
    """PyTorch's refusal of a dtype its kernel was not compiled for."""
    name = from_numpy_dtype(input._data.dtype)._legacy.removesuffix("Tensor")
    return NotImplementedError(f"\"{kernel}\" not implemented for '{name}'\nHint: round a "
                               "float tensor (x.float()); an integer one is already round.")


def special_round(input: Tensor, *, decimals: int = NOT_GIVEN) -> Tensor:
    """``torch.special.round``: ``round`` of float tensors only (PyTorch's special_round
    has no integer kernel, where ``torch.round`` copies an integer tensor).

    >>> import teachgrad as torch
    >>> torch.special.round(torch.tensor([0.5, 1.5, 2.25]))
    tensor([0., 2., 2.])
    """
    if isinstance(input, Tensor) and input._data.dtype.kind != "f":
        raise _no_kernel("round_vml_cpu" if decimals is NOT_GIVEN else "round_cpu", input)
    return round(input) if decimals is NOT_GIVEN else round(input, decimals=decimals)


special_round.__name__ = "round"  # PyTorch's kernel errors (out=, autograd) say round()


@tensor_method()
def trunc(input: Tensor) -> Tensor:
    """Round toward zero (zero gradient)."""
    return _rounding(TruncBackward0, np.trunc, input)



# ----------------------------------------------------------------------------------------
# NaN-ignoring maximum/minimum, float_power, exp2, and how floats are built
# ----------------------------------------------------------------------------------------
def _require_tensor_other(name: str, other) -> None:
    if not isinstance(other, Tensor):
        raise TypeError(
            f"{name}(): argument 'other' (position 2) must be Tensor, not {python_type_name(other)}"
            + real_pytorch_hint(other)
        )


class FmaxBackward0(Op):
    saved_names = ("self", "other")  # grad_fn._saved_...
    formula = "∂fmax(a,b)/∂a = 1 where a ≥ b or b is NaN, else 0    ∂/∂b = the rest"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _tie_keeps_first(a, b, a >= b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        a, b = _value(a), _value(b)
        a_wins = (a >= b) | np.isnan(b)  # ties go to a, as in PyTorch (not shared)
        # PyTorch's grad.masked_fill(...): MaskedFillBackward0 under create_graph
        return masked_fill_zero(~a_wins, grad), masked_fill_zero(a_wins, grad)


class FminBackward0(Op):
    saved_names = ("self", "other")  # grad_fn._saved_...
    formula = "∂fmin(a,b)/∂a = 1 where a ≤ b or b is NaN, else 0    ∂/∂b = the rest"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _tie_keeps_first(a, b, a <= b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        a, b = _value(a), _value(b)
        a_wins = (a <= b) | np.isnan(b)
        return masked_fill_zero(~a_wins, grad), masked_fill_zero(a_wins, grad)  # (see fmax)


@tensor_method()
def fmax(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum that ignores NaN: ``fmax(nan, 1) = 1`` (``maximum`` gives nan).

    A tie sends the whole gradient to ``input``.

    >>> import teachgrad as torch
    >>> torch.fmax(torch.tensor([float('nan'), 1.]), torch.tensor([2., float('nan')]))
    tensor([2., 1.])
    """
    _require_tensor_other("fmax", other)
    return _binary(FmaxBackward0, input, other)


@tensor_method()
def fmin(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum that ignores NaN (see :func:`fmax`)."""
    _require_tensor_other("fmin", other)
    return _binary(FminBackward0, input, other)


@tensor_method()
def float_power(input, exponent=REQUIRED) -> Tensor:
    """``input ** exponent`` computed in float64, whatever the dtypes (a float64 result).

    >>> import teachgrad as torch
    >>> torch.float_power(torch.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=teachgrad.float64)
    """
    if exponent is REQUIRED:  # (x.float_power(): PyTorch's words, see _missing_arguments)
        raise missing("float_power", float_power, input, exponent)
    from .._dtypes import float64

    def double(x):
        if isinstance(x, Tensor):
            return x.to(float64)
        x = _operand(x)
        return x.to(float64) if isinstance(x, Tensor) else float(x)

    return pow(double(input), double(exponent))


def _float_power_(self: Tensor, exponent=REQUIRED) -> Tensor:
    """In-place :func:`float_power`: ``self`` must already be float64."""
    if exponent is REQUIRED:  # (x.float_power_(): PyTorch's words, see _missing_arguments)
        raise missing("float_power_", _float_power_, self, exponent)
    if self._data.dtype != np.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {_legacy_scalar_name(self)} but the "
            "operation's result requires dtype Double"
        )
    from .inplace import apply_inplace

    return apply_inplace(self, float_power, exponent)


Tensor.float_power_ = _float_power_


def _legacy_scalar_name(t: Tensor) -> str:
    return t.dtype._legacy.removesuffix("Tensor")  # "Float", "Long" ... as PyTorch says


_LN2 = 0.6931471805599453  # ln 2: d(2ˣ)/dx = 2ˣ·ln 2


class Exp2Backward0(Op):
    saved_names = ("result",)  # grad_fn._saved_...
    formula = "∂(2ᵃ)/∂a = 2ᵃ·ln 2"

    @staticmethod
    def forward(ctx, a):
        out = np.exp2(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return times_number(grad * out, _LN2)  # (PyTorch's MulBackward1 under create_graph)


@tensor_method()
def exp2(input: Tensor) -> Tensor:
    """``2 ** input`` (integers give the default float dtype).

    >>> import teachgrad as torch
    >>> torch.exp2(torch.tensor([0., 1., 3.]))
    tensor([1., 2., 8.])
    """
    return _unary(Exp2Backward0, input)


class SgnBackward0(Op):
    # PyTorch's formula is written for complex numbers and needs both; for real ones it is
    # 0, but the two are still saved, so changing either in place makes backward refuse;
    # self is unpacked first, so with both changed the error names self (seed 144506).
    saved_names = ("self", "result")  # grad_fn._saved_...
    formula = "∂sgn(a)/∂a = 0"

    @staticmethod
    def forward(ctx, a):
        if a.dtype == np.bool_:
            out = a.copy()
        else:
            out = np.sign(a)
            if a.dtype.kind == "f":
                out = np.where(np.isnan(a), 0, out).astype(a.dtype)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 - read for its check: neither was changed in place
        return zero_grad_like(grad)


@tensor_method()
def sgn(input: Tensor) -> Tensor:
    """The sign, -1, 0 or 1 (0 for NaN), for real tensors the same as ``sign``; zero gradient.

    (For complex numbers PyTorch's ``sgn`` is ``z / |z|``; teachgrad has no complex dtypes.)
    """
    return _unary(SgnBackward0, input, floating=False)


@tensor_method()
def signbit(input: Tensor) -> Tensor:
    """True where the sign bit is set: negative numbers, ``-0.0`` and ``-nan`` (a bool tensor).

    >>> import teachgrad as torch
    >>> torch.signbit(torch.tensor([-0., 0., -1.]))
    tensor([ True, False,  True])
    """
    data = input._data
    if data.dtype == np.bool_:
        return _make(np.zeros(data.shape, bool))
    return _make(np.asarray(np.signbit(data)))


class NextafterBackward0(Op):
    formula = "∂nextafter(a,b)/∂a = 1 where a ≠ b, else 0    ∂/∂b = 0"
    promotes = True

    @staticmethod
    def forward(ctx, a, b):
        # both for a's gradient only (b's is 0), as PyTorch keeps them
        ctx.save_for_backward(*((a, b) if ctx.needs_input_grad[0] else (None, None)))
        return np.nextafter(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = np.where(_value(a) != _value(b), grad, 0) if ctx.needs_input_grad[0] else None
        return grad_a, zero_grad_like(grad)


@tensor_method()
def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next float after ``input`` in the direction of ``other`` (float tensors only).

    >>> import teachgrad as torch
    >>> torch.nextafter(torch.tensor([1.0], dtype=torch.float64), torch.tensor([2.0])) - 1
    tensor([2.2204e-16], dtype=teachgrad.float64)
    """
    _require_tensor_other("nextafter", other)
    dtype = result_type(input, other)
    if not dtype.is_floating_point:
        raise NotImplementedError(
            f"\"nextafter_cpu\" not implemented for '{dtype._legacy.removesuffix('Tensor')}'"
        )
    return _binary(NextafterBackward0, input, other)


class LdexpBackward0(Op):
    formula = "∂(a·2ᵇ)/∂a = 2ᵇ    ∂(a·2ᵇ)/∂b = a·2ᵇ·ln 2 = result·ln 2"
    saved_names = ("other", "result")  # grad_fn._saved_...
    power_dtype = None  # the dtype 2ᵇ is computed in, when b's float dtype is narrower

    @staticmethod
    def forward(ctx, a, b, power_dtype=None):
        # PyTorch's formulas, and what they keep: b for a's gradient, the result always
        if power_dtype is not None:
            ctx.power_dtype = power_dtype
        out = a * _power_of_two(b, power_dtype).astype(a.dtype, copy=False)
        ctx.save_for_backward(b if ctx.needs_input_grad[0] else None, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        b, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad * _power_of_two(b, ctx.power_dtype) if need_a else None,
                grad * out * _LN2 if need_b else None)


def _power_of_two(b, dtype: np.dtype | None):
    """2ᵇ, in ``dtype`` when given: PyTorch raises 2 to a float exponent in the exponent's
    own dtype (float32 for ldexp(float64, float32)), then multiplies in the result's."""
    if dtype is not None:
        b = b.astype(dtype) if isinstance(b, np.ndarray) else b.to(from_numpy_dtype(dtype))
    # (np.power: a tensor under create_graph, so 2ᵇ is recorded)
    return np.exp2(b) if isinstance(b, np.ndarray) else np.power(2.0, b)


@tensor_method()
def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2 ** other``: builds a float from a mantissa and an exponent (see frexp).

    >>> import teachgrad as torch
    >>> torch.ldexp(torch.tensor([0.75]), torch.tensor([2]))
    tensor([3.])
    """
    _require_tensor_other("ldexp", other)
    _check_broadcast(input, other)
    if input._data.dtype.kind == "f" and other._data.dtype == np.bool_:
        # PyTorch's kernel for a float mantissa takes int or float exponents only
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'\n"
                                  "Hint: give the exponents as integers (other.long()).")
    dtype = result_type(input, other)
    if not dtype.is_floating_point:
        dtype = get_default_dtype()
    narrower = other._data.dtype.kind == "f" and other._data.dtype != dtype.numpy
    a = input if input._data.dtype == dtype.numpy else input.to(dtype)
    b = other if other._data.dtype == dtype.numpy else other.to(dtype)
    if narrower:
        return LdexpBackward0.apply(a, b, power_dtype=other._data.dtype)
    return LdexpBackward0.apply(a, b)


class FrexpBackward0(Op):
    formula = "∂mantissa/∂a = 1 / 2^exponent    (the exponent is an integer: no gradient)"

    @staticmethod
    def forward(ctx, a):
        mantissa, exponent = np.frexp(a)
        ctx.save_for_backward(exponent)
        return mantissa, exponent.astype(np.int32)

    @staticmethod
    def backward(ctx, grad, _grad_exponent=None):
        (exponent,) = ctx.saved_tensors
        return grad / np.exp2(_value(exponent)).astype(np.asarray(_value(grad)).dtype)


@tensor_method()
def frexp(input: Tensor) -> tuple[Tensor, Tensor]:
    """Split floats into ``mantissa`` (in ±[0.5, 1)) and int32 ``exponent``:
    ``input = mantissa * 2 ** exponent``.

    >>> import teachgrad as torch
    >>> torch.frexp(torch.tensor([3.0, -0.25]))
    teachgrad.return_types.frexp(
    mantissa=tensor([ 0.7500, -0.5000]),
    exponent=tensor([ 2, -1], dtype=teachgrad.int32))
    """
    from ..return_types import structseq

    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return structseq("frexp", ("mantissa", "exponent"))(*FrexpBackward0.apply(input))


# ----------------------------------------------------------------------------------------
# Integer arithmetic: gcd, lcm (not differentiable)
# ----------------------------------------------------------------------------------------
def _integer_pair(kernel: str, input: Tensor, other) -> tuple[np.ndarray, np.ndarray]:
    _require_tensor_other(kernel, other)
    _check_broadcast(input, other)
    dtype = result_type(input, other)
    if dtype.numpy.kind not in "iu":
        raise NotImplementedError(
            f"\"{kernel}_cpu\" not implemented for '{dtype._legacy.removesuffix('Tensor')}'"
        )
    return input._data.astype(dtype.numpy), other._data.astype(dtype.numpy)


@tensor_method()
def gcd(input: Tensor, other: Tensor) -> Tensor:
    """Greatest common divisor, elementwise, of integer tensors (``gcd(0, 0) = 0``).

    >>> import teachgrad as torch
    >>> torch.gcd(torch.tensor([12, -18, 0]), torch.tensor([8, 12, 5]))
    tensor([4, 6, 5])
    """
    return _make(np.asarray(np.gcd(*_integer_pair("gcd", input, other))))


@tensor_method()
def lcm(input: Tensor, other: Tensor) -> Tensor:
    """Least common multiple, elementwise, of integer tensors (always ≥ 0)."""
    return _make(np.asarray(np.lcm(*_integer_pair("lcm", input, other))))


# The NumPy-style names PyTorch also has (the methods are registered above).
divide = true_divide = div
multiply = mul
subtract = sub
negative = neg
absolute = abs
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

__all__ = [
    "add", "sub", "rsub", "mul", "div", "neg", "pow", "square", "exp", "expm1", "log",
    "log1p", "log2", "log10", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan", "tanh",
    "sigmoid", "abs", "sign", "relu", "clamp", "clip", "clamp_min", "clamp_max", "maximum",
    "minimum", "where", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
    "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "isnan", "isinf", "isfinite", "floor", "ceil", "round", "trunc",
    "floor_divide", "remainder", "positive",
    # NumPy-style aliases, and the functions of the last sections
    "divide", "true_divide", "multiply", "subtract", "negative", "absolute", "greater",
    "greater_equal", "less", "less_equal", "not_equal", "fmax", "fmin", "float_power", "exp2",
    "sgn", "signbit", "nextafter", "ldexp", "frexp", "gcd", "lcm",
]
